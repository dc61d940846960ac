"""Keep Python's cyclic garbage collector out of the way of big, allocation-heavy steps.

A full collection traverses every live object, and a capture holds hundreds
of thousands (records, graph dicts, tensors and, through them, the autograd
graph). Such a collection runs with the GIL held: on a 50,000-node graph it
froze the GUI thread for 1.8 s while the worker laid the graph out. These
helpers are process-wide (the collector is), so they are only ever held for
one bounded step and always restore the previous state.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["collect_frozen", "fewer_collections", "freeze_after_pauses", "freeze_survivors", "frozen_count",
           "paused_collection"]

#: gen-0 threshold of the collector while user code runs (Python's default: 700).
RUN_THRESHOLD = 50_000
#: gen-1 threshold while user code runs (Python's default: 10): in effect, no
#: gen-1 (and so no gen-2) collection during a run. See :func:`fewer_collections`.
RUN_THRESHOLD_1 = 1_000_000


_pause_lock = threading.Lock()
_pause_users = 0
_pause_was_enabled = False
#: See :func:`freeze_after_pauses`.
_freeze_after_pauses = False


def freeze_after_pauses(enabled: bool = True) -> None:
    """When the last pause ends, freeze what piled up in the young generation instead of collecting it.

    While the collector is paused, every object made meanwhile, in every
    thread, stays in the young generation; the first allocation after the
    pause then traverses all of them in one collection. When a save job's
    pause overlapped a 50,000-node run, that was 0.3 s with the GIL held: a
    frozen window. The app turns this on (objects frozen this way are still
    freed by reference counting; cycles among them wait for
    :func:`collect_frozen`); library use keeps Python's behaviour.
    """
    global _freeze_after_pauses
    _freeze_after_pauses = enabled


@contextlib.contextmanager
def paused_collection() -> Iterator[None]:
    """No cyclic collection at all inside the block (for graph building, layout, session files).

    Reference-counted like :func:`fewer_collections`: jobs in several
    threads may overlap, and the collector is enabled again (if it was) only
    when the last one leaves.
    """
    global _pause_users, _pause_was_enabled
    with _pause_lock:
        if _pause_users == 0:
            _pause_was_enabled = gc.isenabled()
            gc.disable()
        _pause_users += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pause_users -= 1
            if _pause_users == 0 and _pause_was_enabled:
                if _freeze_after_pauses and gc.get_count()[0] > RUN_THRESHOLD:
                    gc.freeze()
                gc.enable()


def freeze_survivors() -> None:
    """Leave every object alive now out of all later collections (``gc.freeze``).

    Called by the app once a capture (or an opened session) is built and laid
    out: the hundreds of thousands of objects it holds would otherwise be
    traversed by every full collection until the next run replaces it (0.2 s
    per 10,000 nodes with the GIL held, in whichever thread the collection
    happens to start: the window froze in the middle of the next run), and
    the young ones that :func:`paused_collection` let pile up would be
    traversed at once by the first collection after it. Freezing is O(1).

    Frozen objects are still freed by reference counting; only *cyclic*
    garbage among them waits for :func:`collect_frozen`. That is why the
    capture's graph refers to nothing that refers back to it
    (:class:`~gradexplorer.core.records.nodes.CaptureGraph`) and why a finished
    program's namespace is cleared (:func:`~gradexplorer.core.capture.run.capture`).
    """
    gc.freeze()


def frozen_count() -> int:
    """How many objects are frozen now (``gc.get_freeze_count``)."""
    return gc.get_freeze_count()


def collect_frozen() -> int:
    """Collect the cycles among frozen objects, then freeze the survivors again.

    A full collection: as long as one is over everything alive. The app calls
    it only after it has been idle for a while. Returns the number of
    unreachable objects found.
    """
    gc.unfreeze()
    try:
        return gc.collect()
    finally:
        gc.freeze()


_threshold_lock = threading.Lock()
_threshold_users = 0
_saved_thresholds: tuple[int, ...] | None = None


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect cycles less often while the user's code runs.

    Recording allocates a few small objects per torch op, which makes the
    collector run far more often than in a plain run, and each full
    collection traverses the tensors and, through them, the growing autograd
    graph: on a 10,000-op chain that tripled the run time.

    Only young-generation collections run meanwhile (every
    :data:`RUN_THRESHOLD` allocations, a few ms each). A gen-1 collection
    traverses every object that survived one, which during a run is mostly
    what the recorder keeps: on a 50,000-node transformer that was 0.19 s
    with the GIL held, in the worker, while the GUI thread waited for the
    GIL (a frozen window). What survives a young collection waits, untraversed,
    in gen 1 until the run ends; cycles that die later in the run are then
    collected by the first collection after it (the app freezes the finished
    capture instead and collects those cycles when idle,
    :func:`collect_frozen`).

    Reference-counted: captures in several threads may overlap; the first
    one in saves the thresholds and the last one out restores them (two
    overlapping captures used to leave the raised threshold behind forever).
    """
    global _threshold_users, _saved_thresholds
    with _threshold_lock:
        if _threshold_users == 0:
            _saved_thresholds = gc.get_threshold()
            gc.set_threshold(max(_saved_thresholds[0], RUN_THRESHOLD), max(_saved_thresholds[1], RUN_THRESHOLD_1),
                             *_saved_thresholds[2:])
        _threshold_users += 1
    try:
        yield
    finally:
        with _threshold_lock:
            _threshold_users -= 1
            if _threshold_users == 0 and _saved_thresholds is not None:
                gc.set_threshold(*_saved_thresholds)
                _saved_thresholds = None

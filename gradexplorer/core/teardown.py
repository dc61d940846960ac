"""Free a big capture a slice at a time, so that no single step holds the GIL for long.

Dropping the last reference to a 50,000-node capture frees it in one cascade
of deallocations (every node's attributes, records and value tensors) inside
a single C call: 0.2-0.4 s with the GIL held, measured as a frozen window
when a new run's result (or an opened session) replaced the previous one.
Wherever that cascade happens, in the GUI thread or in a job, the GUI thread
waits for the GIL meanwhile.

A :class:`CaptureTeardown` takes the capture apart instead: the graph's
node and adjacency stores and the capture's long tuples are emptied item by
item, each :meth:`~CaptureTeardown.step` ending once its time budget is
spent. The app runs the steps on the GUI thread between events
(:mod:`gradexplorer.ui.capture_retirer`).

Only a capture that nothing else refers to is taken apart: a job saving it, a
test or a pane that still holds it keeps it whole, and the teardown waits
(holding its own reference, so that the other holder's release is never the
last one and never frees the capture in one go).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import sys
import time
from typing import Any

__all__ = ["CaptureTeardown", "DroppedGraph", "register_graph_cache", "return_free_memory"]

#: The capture's fields that can be long (tuples of records).
_LONG_FIELDS = ("tensors", "explanations", "passes", "modules")


#: Caches keyed (weakly) by a graph whose entries are as long as the graph (:func:`register_graph_cache`).
_GRAPH_CACHES: list = []


def register_graph_cache(cache) -> None:
    """Have every teardown take ``cache``'s entry for its graph apart in steps too (a ``WeakKeyDictionary``).

    The graph object goes last, and with it, at once, whatever a weakly keyed
    cache holds for it: the boxes' health of a 50,000-node graph (a tuple per
    node) froze the window 50 ms in one such callback. Registered by the
    analysis code that keeps the caches (it sits above this module).
    """
    _GRAPH_CACHES.append(cache)


class DroppedGraph:
    """A graph that left the screen without its capture, to be taken apart like one (:class:`CaptureTeardown`).

    A pass's graph or a comparison's joint graph is as big as the capture's
    (50,000 nodes: one dict of attributes each); dropped at once on the GUI
    thread it froze the window 50-100 ms (a comparison shown or ended, a new
    run after one).
    """

    __slots__ = ("graph",)

    def __init__(self, graph: Any) -> None:
        self.graph = graph


class CaptureTeardown:
    """Frees one :class:`~gradexplorer.core.records.capture.Capture` over several short steps.

    Parameters
    ----------
    capture : Capture or DroppedGraph
        The caller hands over its reference: it must not keep one of its
        own (then the capture is never the teardown's alone, and
        :meth:`step` keeps waiting).
    """

    def __init__(self, capture: Any) -> None:
        self._capture = capture
        self._pieces: list[dict | list] = []

    @property
    def started(self) -> bool:
        """True once the capture was found unshared and split into pieces."""
        return self._capture is None

    def holds(self, capture: Any) -> bool:
        """True while ``capture`` is this teardown's and not yet taken apart."""
        return self._capture is capture

    def ready(self) -> bool:
        """True when nothing else refers to the capture any more (or it is being taken apart already)."""
        return self._capture is None or self._unshared()

    def finish(self) -> bool:
        """Free everything now, in one go (a thread that has the time: a run about to start); False if shared."""
        return self.step(math.inf)

    def _unshared(self) -> bool:
        # References: this object's attribute and getrefcount's argument; the
        # graph's: the capture's field and the argument.
        return sys.getrefcount(self._capture) <= 2 and sys.getrefcount(self._capture.graph) <= 2

    def _split(self) -> None:
        """Hold the long containers ourselves, then let the capture object itself go (cheap)."""
        capture, self._capture = self._capture, None
        graph = capture.graph
        # networkx's documented storage (for a DiGraph ``_adj`` is ``_succ``).
        pieces: list[dict | list] = [graph._succ, graph._pred, graph._node]
        for cache in _GRAPH_CACHES:
            entry = cache.pop(graph, None)
            if entry is not None:
                pieces.append(entry if isinstance(entry, dict) else [entry])
        for name in _LONG_FIELDS:
            items = getattr(capture, name, ())
            if items:
                pieces.append(list(items))
        self._pieces = pieces
        del graph, capture  # the tuples and the graph object go; their items are in our pieces

    def step(self, budget_s: float = 0.005) -> bool:
        """Free items until ``budget_s`` has passed; True when everything is freed.

        While something else still refers to the capture, frees nothing and
        returns False (call again later).
        """
        if self._capture is not None:
            if not self._unshared():
                return False
            self._split()
        deadline = time.perf_counter() + budget_s
        pieces = self._pieces
        while pieces:
            piece = pieces[-1]
            if not piece:
                pieces.pop()
                continue
            # At least one item per step. The clock is read after every item:
            # freeing a tensor lets go of the GIL, and while another thread is
            # busy (a save, a run) such an item can take a switch interval
            # (5 ms) to get it back.
            piece.popitem() if isinstance(piece, dict) else piece.pop()
            if time.perf_counter() >= deadline:
                break
        while pieces and not pieces[-1]:
            pieces.pop()
        return not pieces


def _malloc_trim():
    """glibc's ``malloc_trim``, or None (another C library, another OS)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def return_free_memory() -> bool:
    """Hand the C heap's free pages back to the OS (glibc ``malloc_trim``); False where there is none.

    A freed capture leaves its memory in the allocator's free lists, most of
    it in pages the allocator keeps: the app grew from 1.1 to 3.6 GB over 20
    runs of a 10,000-node step and never came back; trimmed after each
    teardown, a loop of captures holds 271 MiB instead of 400. ctypes lets go
    of the GIL for the call (tens of milliseconds on a big heap): run it off
    the GUI thread.
    """
    if _TRIM is None:
        return False
    _TRIM(0)
    return True

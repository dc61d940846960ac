"""Process-wide GC thresholds survive overlapping captures (issue 10)."""

import contextlib
import gc
import sys
import threading
import types
import weakref

import pytest

from gradexplorer import capture
from gradexplorer.core.collector import fewer_collections, paused_collection


def test_overlapping_uses_restore_the_original_threshold():
    before = gc.get_threshold()
    first, second = fewer_collections(), fewer_collections()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first one out must not restore yet...
    assert gc.get_threshold()[0] >= 50_000
    second.__exit__(None, None, None)  # ...the last one out does
    assert gc.get_threshold() == before


def test_two_captures_in_two_threads_leave_the_threshold_as_it_was():
    before = gc.get_threshold()
    gate = threading.Barrier(2)
    code = "import gx_barrier\nx = torch.ones(2, requires_grad=True)\ngx_barrier.wait()\n(x * 2).sum().backward()\n"
    import sys
    import types

    module = types.ModuleType("gx_barrier")
    module.wait = lambda: gate.wait(10)
    sys.modules["gx_barrier"] = module
    try:
        results = []
        threads = [threading.Thread(target=lambda: results.append(capture(code))) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        sys.modules.pop("gx_barrier", None)
    assert [r.ok for r in results] == [True, True]
    assert gc.get_threshold() == before


def test_overlapping_pauses_enable_the_collector_only_at_the_end():
    assert gc.isenabled()
    first, second = paused_collection(), paused_collection()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


# -- captures are freed by reference counting (freeze_survivors relies on it) --------------

def _freed_without_collection(make):
    """Call ``make()`` (returns an object and a weak reference to watch) with the cyclic GC off; drop it."""
    import weakref

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        obj, watched = make()
        ref = weakref.ref(watched)
        del obj, watched
        return ref() is None
    finally:
        if was_enabled:
            gc.enable()


def test_a_dropped_capture_is_freed_without_a_collection():
    """Views such as ``G.edges`` must not make the capture's graph a reference cycle."""
    def make():
        cap = capture("w = torch.ones(3, requires_grad=True)\nloss = (w * 2).sum()\nloss.backward()\n")
        graph = cap.graph
        list(graph.edges), dict(graph.degree), list(graph.in_edges), dict(graph.out_degree)
        return cap, graph

    assert _freed_without_collection(make)


#: A program that hands its ``box`` to the probe module; with a function that refers to its globals, the
#: globals and the function form a cycle that only emptying the namespace breaks without a collection.
_BOX_PROGRAM = ("import gx_probe\nclass Box:\n    pass\nbox = Box()\n{keep}gx_probe.box = box\n"
                "w = torch.ones(2, requires_grad=True)\n(w * 3).sum().backward()\n")
_WITH_FUNCTION = _BOX_PROGRAM.format(keep="def keep():\n    return box\n")
_WITHOUT_FUNCTION = _BOX_PROGRAM.format(keep="")


@pytest.fixture
def probe():
    """The ``gx_probe`` module the program hands its box to."""
    module = types.ModuleType("gx_probe")
    sys.modules["gx_probe"] = module
    yield module
    sys.modules.pop("gx_probe", None)


@contextlib.contextmanager
def _no_collection():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _captured_box(probe, code: str, **options):
    """Capture ``code``; return a weak reference to its box (held only by the program from now on)."""
    cap = capture(code, **options)
    assert cap.ok, cap.error
    box = weakref.ref(probe.box)
    del probe.box
    return box


def test_the_programs_objects_are_freed_without_a_collection(probe):
    """A function the program defines refers to its globals: the namespace is emptied after the run."""
    def make():
        cap = capture(_WITH_FUNCTION)
        assert cap.ok, cap.error
        box = probe.box
        del probe.box
        return cap, box

    assert _freed_without_collection(make)


def test_leftovers_hold_the_programs_objects_until_the_caller_drops_them(probe):
    """``leftovers`` (the isolated child, which never frees them): the caller decides when they go."""
    with _no_collection():
        leftovers: list = []
        box = _captured_box(probe, _WITHOUT_FUNCTION, leftovers=leftovers)
        assert box() is not None and leftovers  # the program's namespace still holds it
        leftovers.clear()
        assert box() is None  # and only it


def test_released_leftovers_free_the_program_without_a_collection(probe):
    """``release_leftovers`` empties the program's globals as a plain capture does (a function it defined refers
    to them: a cycle), then drops the rest: nothing waits for a full collection."""
    from gradexplorer.core.capture.run import release_leftovers

    with _no_collection():
        leftovers: list = []
        box = _captured_box(probe, _WITH_FUNCTION, leftovers=leftovers)
        assert box() is not None
        release_leftovers(leftovers)
        assert leftovers == [] and box() is None


def test_freeze_and_collect_frozen():
    from gradexplorer.core.collector import collect_frozen, freeze_survivors, frozen_count
    import weakref

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only a collection frees it
    ref = weakref.ref(a)
    freeze_survivors()
    try:
        assert frozen_count() > 0
        del a, b
        gc.collect()
        assert ref() is not None  # frozen: ordinary collections leave it alone
        assert collect_frozen() >= 2
        assert ref() is None
    finally:
        gc.unfreeze()


def test_objects_made_during_a_pause_are_frozen_not_collected_at_its_end_when_asked():
    from gradexplorer.core.collector import RUN_THRESHOLD, freeze_after_pauses

    freeze_after_pauses(True)
    try:
        before = gc.get_freeze_count()
        with paused_collection():
            kept = [[i] for i in range(RUN_THRESHOLD + 10_000)]  # tracked objects piling up in gen 0
        assert gc.get_freeze_count() >= before + RUN_THRESHOLD  # frozen at the end of the pause...
        assert gc.get_count()[0] < 1000  # ...so no collection over them is pending
        with paused_collection():
            few = [[i] for i in range(100)]
        assert gc.get_count()[0] >= 100  # a small pile is left to the collector
        del kept, few
    finally:
        freeze_after_pauses(False)
        gc.unfreeze()


def test_a_run_that_keeps_many_objects_sees_no_old_generation_collection():
    """Only young collections during a capture: a gen-1 one traversed everything the run kept (0.2 s, GIL held)."""
    from gradexplorer.core.pipeline import capture

    seen = []

    def spy(phase, info):
        if phase == "start":
            seen.append(info["generation"])

    # 610,000 surviving objects from a fresh young generation: twelve young
    # collections, and about 10,000 objects pending when the run ends.
    program = "import gc\ngc.collect(0)\nkeep = [[i] for i in range(610_000)]\n"
    gc.callbacks.append(spy)
    try:
        capture(program, freeze_result=True)
    finally:
        gc.callbacks.remove(spy)
        gc.unfreeze()
    assert seen.count(0) >= 10  # the program did make the collector run
    assert [g for g in seen if g > 0] == []


def test_a_program_whose_functions_ran_ops_is_freed_without_a_collection(probe):
    """The recorder keeps the frames of the program's functions for their names; they lead back to capture()'s
    own frame, which holds the recorder: a cycle unless they are let go once the names are read."""
    code = ("import gx_probe\nclass Box:\n    pass\n"
            "def step():\n    box = Box()\n    gx_probe.box = box\n    w = torch.ones(2, requires_grad=True)\n"
            "    (w * 3).sum().backward()\n    return w\n"
            "def main():\n    w = step()\n    return w\nmain()\n")

    def make():
        cap = capture(code)
        assert cap.ok, cap.error
        assert cap.tensor("w").scope_of("w") in ("main()", "step()")  # the frames were kept for their names
        box = probe.box
        del probe.box
        return cap, box

    assert _freed_without_collection(make)

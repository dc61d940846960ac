"""Process-wide GC thresholds survive overlapping captures (issue 10)."""

import gc
import threading

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

"""The inspector never waits for statistics still on their way from the isolated process (issue 13)."""

from gradexplorer.core.io.session import add_late_stats
from gradexplorer.core.records.tensors import LateStats

from ..core.test_isolated_late_stats import PROGRAM, _handover, _plain


def test_the_inspector_never_waits_for_statistics_on_their_way(qtbot, monkeypatch):
    """A user who clicks before the statistics arrive reads the norm at once, then the numbers (GUI thread free)."""
    import time

    from gradexplorer.core.records import tensors
    from gradexplorer.ui.inspector import TensorView

    monkeypatch.setattr(tensors, "LATE_STATS_WAIT", 2.0)  # a wait would show as 2 s, not as a minute
    read, records, lines = _handover(PROGRAM)
    late = LateStats()
    for record in records:
        record.await_stats(late)
    h = next(t for t in read.tensors if "h" in t.names).value
    plain = _plain()["h"]
    view = TensorView("Forward value")
    qtbot.addWidget(view)
    started = time.perf_counter()
    view.set_record(h)
    label = h.short()
    assert time.perf_counter() - started < 0.5  # neither waited for them
    text = view.summary.text()
    assert "on their way" in text and "min " not in text
    assert f"‖x‖ {plain.norm().item():.4g}" in text
    assert label == "64x300 float32"  # labels and tooltips do not wait either
    add_late_stats(records, lines)
    late.arrived()
    qtbot.waitUntil(lambda: "min " in view.summary.text(), timeout=3000)
    assert f"max {plain.max().item():.4g}" in view.summary.text()

"""The inspector never waits for statistics still on their way from the isolated process (issue 13)."""

from gradexplorer.core.io.handover import add_late_stats
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


def test_graph_captions_and_tooltips_made_before_the_statistics_arrive_are_made_again(qtbot, monkeypatch):
    """A label shows a record without the statistics on their way; it is not kept once they are here."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QGraphicsSceneHoverEvent

    from gradexplorer.core.records import tensors
    from gradexplorer.ui.graph_view import GraphView
    from gradexplorer.core.view.picture import layout_capture

    monkeypatch.setattr(tensors, "LATE_STATS_WAIT", 2.0)
    read, records, lines = _handover(PROGRAM)
    late = LateStats()
    for record in records:
        record.await_stats(late)
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    view.show_graph(read.graph, layout_capture(read), passes_ran=True)
    node = read.node_named("h")
    item = view.items_by_id[node]
    view.set_show_values(True)
    view.select_node(node)  # in sight, so that it is painted
    plain = _plain()["h"]
    shown_range = f"{plain.min().item():.4g}..{plain.max().item():.4g}"
    assert item.caption().startswith("64x300 float32") and shown_range not in item.caption()
    assert view._stats_poll.isActive()  # the view paints again in a moment

    def hover() -> str:
        item.hoverEnterEvent(QGraphicsSceneHoverEvent(QEvent.Type.GraphicsSceneHoverEnter))
        return item.toolTip()

    assert "value: 64x300 float32" in hover() and shown_range not in item.toolTip()
    add_late_stats(records, lines)
    late.arrived()
    # Painted again by the view itself (nothing here asks for the caption): the numbers are in it now.
    qtbot.waitUntil(lambda: item._caption is not None, timeout=3000)
    assert item._caption.startswith(f"64x300 float32 {shown_range}")
    assert f"value: 64x300 float32 {shown_range}" in hover()

"""Long work stays off the GUI thread; the panes fill in O(1); frozen cycles are collected when idle (issue 10)."""

import gc
import threading
import weakref

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from tests.programs import MODEL

from gradexplorer import capture
from gradexplorer.ui import picture_actions as picture_actions_module
from gradexplorer.ui.idle_collector import IdleCollector

from .conftest import run_and_wait


def test_find_filter_and_redisplay_run_off_the_gui_thread(qtbot, window, monkeypatch):
    window.editor.setPlainText(MODEL)
    run_and_wait(qtbot, window)
    threads = {}

    def spy(name, original):
        def wrapped(*args, **kwargs):
            threads[name] = threading.current_thread()
            return original(*args, **kwargs)
        monkeypatch.setattr(picture_actions_module, name, wrapped)

    for name in ("search_nodes", "filter_nodes", "prepare_view", "expand_display", "first_nonfinite"):
        spy(name, getattr(picture_actions_module, name))
    assert window.picture.find("relu")
    assert window.picture.apply_filter("requires_grad")
    window.picture.collapse_module("model.2")
    window.picture.expand_group("model.2")
    window.picture.jump_to_first_nonfinite("forward")
    assert set(threads) == {"search_nodes", "filter_nodes", "prepare_view", "expand_display", "first_nonfinite"}
    gui = threading.main_thread()
    assert all(thread is not gui for thread in threads.values()), threads


def test_tensors_pane_row_click_selects_the_node_and_the_line(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    result = run_and_wait(qtbot, window)
    pane = window.tensors_pane
    row = next(r for r in range(pane.rowCount()) if pane.cell_text(r, 0) == "c")
    assert pane.cell_text(row, 3) == "9"
    rect = pane.visualRect(pane.model().index(row, 0))
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.graph_view.selected_node() == result.capture.node_named("c")
    assert window.editor.textCursor().blockNumber() + 1 == 9


def test_modules_pane_opens_the_rows_that_carry_warnings(qtbot, window):
    window.example_actions["05_register_buffer"].trigger()
    run_and_wait(qtbot, window)
    pane = window.modules_pane
    model = pane.model()
    warning = next(i for i, row in enumerate(model.rows) if row.texts[0] == "⚠ plain_tensor_attribute")
    index = model.index_of_row(warning)
    assert pane.visualRect(index).isValid()  # every row above it is open: it is on screen
    assert model.data(index, Qt.ItemDataRole.ForegroundRole).color().name() == "#b3261e"


def test_idle_collector_collects_frozen_cycles_only_when_idle(qtbot):
    app = QApplication.instance()
    busy = [True]
    collector = IdleCollector(app, lambda: busy[0], seconds=0.05)
    try:
        class Node:
            pass

        a, b = Node(), Node()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        gc.freeze()  # as the app does after a run: the cycle is out of ordinary collections
        qtbot.wait(200)
        assert ref() is not None and collector.collections == []  # busy: it waits
        busy[0] = False
        # Input restarts the wait: with a mouse move every 20 ms nothing is collected.
        for _ in range(10):
            event = QMouseEvent(QEvent.Type.MouseMove, QPointF(1, 1), QPointF(1, 1), Qt.MouseButton.NoButton,
                                Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
            collector.eventFilter(app, event)
            qtbot.wait(20)
            assert ref() is not None
        qtbot.waitUntil(lambda: ref() is None, timeout=5000)
        assert collector.collections and collector.collections[0] >= 2
    finally:
        collector.close()
        gc.unfreeze()


def test_value_table_shows_the_tensor_and_fits_its_widest_value(qtbot, window):
    import torch

    from .test_main_window import click_node

    window.editor.setPlainText("w = (torch.arange(40.0).reshape(5, 8) * 1234.5).requires_grad_()\n"
                               "(w * w).sum().backward()\n")
    run_and_wait(qtbot, window)
    click_node(qtbot, window, "w")
    view = window.inspector.value
    model, expected = view.model, torch.arange(40.0).reshape(5, 8) * 1234.5  # what PyTorch holds
    assert (model.rowCount(), model.columnCount()) == (5, 8)
    import pytest

    for row, column in ((0, 0), (3, 6), (4, 7)):  # shown with 4 significant digits
        assert float(model.data(model.index(row, column))) == pytest.approx(expected[row, column].item(), rel=1e-3)
    widest = max(view.table.fontMetrics().horizontalAdvance(model.data(model.index(r, c)))
                 for r in range(5) for c in range(8))
    assert view.table.columnWidth(7) >= widest  # the last column's numbers are not cut


def test_inspecting_a_big_value_asks_only_for_the_cells_on_screen(qtbot, window, monkeypatch):
    """A 40 x 250 value (10,000 numbers, the capture's cap) once made Qt ask for 330,000 cells: 2.5 s frozen."""
    from gradexplorer.ui.inspector import TensorTableModel

    from .test_main_window import click_node

    window.editor.setPlainText("w = torch.randn(40, 250, requires_grad=True)\n(w * w).sum().backward()\n")
    run_and_wait(qtbot, window)
    calls = []
    original = TensorTableModel.data
    monkeypatch.setattr(TensorTableModel, "data", lambda self, *args: calls.append(1) or original(self, *args))
    click_node(qtbot, window, "w")
    qtbot.wait(50)  # the paint that follows the click
    assert window.inspector.value.model.rowCount() == 40
    assert 0 < len(calls) < 5_000, len(calls)


def test_a_second_request_while_one_runs_is_refused_and_a_stale_answer_is_dropped(qtbot, window, monkeypatch):
    import dataclasses

    from PySide6.QtCore import QTimer

    window.editor.setPlainText(MODEL)
    run_and_wait(qtbot, window)
    gate = threading.Event()
    original = picture_actions_module.search_nodes

    def slow(graph, text):
        gate.wait(10)
        return original(graph, text)

    monkeypatch.setattr(picture_actions_module, "search_nodes", slow)
    seen = {}

    def meanwhile():
        seen["second"] = window.picture.find("relu")  # the first Find is still waiting for its job
        seen["status"] = window.status.text()
        gate.set()

    QTimer.singleShot(50, meanwhile)
    assert window.picture.find("relu")  # the first one completes
    assert seen == {"second": [], "status": "Still working on the previous request…"}

    gate.clear()

    def new_capture_arrives():
        window.result = dataclasses.replace(window.result)  # as when a run finishes meanwhile
        gate.set()

    QTimer.singleShot(50, new_capture_arrives)
    window.graph_view.select_node(None)
    assert window.picture.find("relu") == []  # its answer was about the capture that left the screen
    assert window.graph_view.selected_node() is None


def test_a_capture_that_leaves_the_screen_is_freed_in_steps_by_the_retirer(qtbot, window):
    window.editor.setPlainText(MODEL)
    first = run_and_wait(qtbot, window).capture
    graph, nodes = weakref.ref(first.graph), first.graph.number_of_nodes()
    del first
    window.jobs.wait_all()  # the run's autosave job held the capture too
    run_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.retirer.freed == 1, timeout=10_000)
    assert graph() is None and window.retirer.pending == 0
    assert nodes > 0
    # The freed pages go back to the OS off the GUI thread, and not at once (malloc_trim holds the heap's lock).
    qtbot.wait(200)
    assert window.retirer.trimmed == 0
    qtbot.waitUntil(lambda: window.retirer.trimmed == 1, timeout=10_000)


def test_the_freed_pages_go_back_to_the_os_only_when_no_run_or_job_is_going(qtbot, monkeypatch):
    """malloc_trim blocks every allocation of the GUI thread for its 0.1 s: never while the user acts."""
    from gradexplorer.core.teardown import DroppedGraph
    from gradexplorer.ui import capture_retirer

    monkeypatch.setattr(capture_retirer, "TRIM_QUIET_MS", 50)
    busy = [True]
    retirer = capture_retirer.CaptureRetirer(busy=lambda: busy[0])
    retirer.retire([DroppedGraph(capture("x = torch.ones(2, requires_grad=True)\nx.sum().backward()\n").graph)])
    qtbot.waitUntil(lambda: retirer.freed == 1, timeout=5_000)
    qtbot.wait(300)  # six waits while busy
    assert retirer.trimmed == 0
    busy[0] = False
    qtbot.waitUntil(lambda: retirer.trimmed == 1, timeout=5_000)


def test_the_retirer_leaves_a_capture_whole_while_something_else_holds_it(qtbot, window):
    window.editor.setPlainText(MODEL)
    kept = run_and_wait(qtbot, window).capture  # e.g. a job still saving it
    nodes = kept.graph.number_of_nodes()
    run_and_wait(qtbot, window)
    qtbot.wait(600)  # a few of the retirer's looks
    assert window.retirer.pending == 1 and window.retirer.freed == 0
    assert kept.graph.number_of_nodes() == nodes  # nothing taken from under the holder
    graph = weakref.ref(kept.graph)
    del kept
    qtbot.waitUntil(lambda: window.retirer.freed == 1, timeout=10_000)
    assert graph() is None


def test_a_finished_job_keeps_nothing_its_function_referred_to(qtbot, window):
    class Payload:
        pass

    payload = Payload()
    alive = weakref.ref(payload)
    assert window.jobs.run_and_wait("probe", lambda p=payload: id(p)) == id(payload)
    del payload
    assert alive() is None  # freed by reference counting: no collection needed


def test_input_is_watched_only_while_no_run_or_job_is_busy(qtbot, window):
    """The idle collector's app-wide filter costs a GIL hand-over per event while another thread is busy."""
    import time

    assert window.idle_collector.watching_input
    window.jobs.start("probe", lambda: time.sleep(0.3))
    assert not window.idle_collector.watching_input
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=5000)
    assert window.idle_collector.watching_input
    window.editor.setPlainText("import time\ntime.sleep(0.3)\n")
    with qtbot.waitSignal(window.run_finished, timeout=20_000):
        window.run_action.trigger()
        assert window.is_running and not window.idle_collector.watching_input
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=20_000)  # the run's autosave job
    assert window.idle_collector.watching_input


def test_the_modules_pane_sizes_its_columns_on_a_few_hundred_rows_not_every_open_one(qtbot, window, monkeypatch):
    """A 1,666-layer MLP opens 3,332 rows at the top: sizing the columns on all of them froze the window 0.15 s."""
    from gradexplorer.core.analysis.modules import AuditRow
    from gradexplorer.ui.modules_pane import SIZED_ROWS, AuditModel

    rows = [AuditRow(("model", "Sequential", "", "cpu", ""), -1, "model")]
    rows += [AuditRow((f"model.{i}", "Linear", "", "cpu", ""), 0, f"model.{i}") for i in range(3_000)]
    # The widest text is among the first rows (those on screen): the column fits it.
    rows[5] = AuditRow(("model.4" + "_wide" * 30, "Linear", "", "cpu", ""), 0, "model.4")
    asked: set[int] = set()
    original = AuditModel.data
    monkeypatch.setattr(AuditModel, "data", lambda self, index, *args: asked.add(index.internalId())
                        or original(self, index, *args))
    pane = window.modules_pane
    pane.show_rows(rows)
    assert len(asked) < 3 * SIZED_ROWS, len(asked)  # Qt's default would ask about 1,000 rows and more
    assert pane.columnWidth(0) >= pane.fontMetrics().horizontalAdvance(rows[5].texts[0])


def test_a_pass_graph_that_leaves_the_screen_is_freed_in_steps_by_the_retirer(qtbot, window):
    """A pass's (or a comparison's) graph is as big as the capture's: dropped at once it froze the window."""
    from tests.programs import EDITED_LOOP

    window.editor.setPlainText(EDITED_LOOP)
    run_and_wait(qtbot, window)
    window.jobs.wait_all()
    assert window.result.pass_index == 2 and window.result.pass_graph is not window.result.capture.graph
    shown = weakref.ref(window.result.pass_graph)
    window.picture.set_pass(0)
    assert window.result.pass_index == 0
    qtbot.waitUntil(lambda: window.retirer.freed == 1, timeout=10_000)
    assert shown() is None and window.retirer.pending == 0

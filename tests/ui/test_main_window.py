"""The desktop app driven as a user would: menus, Run, clicks on nodes, panes."""

import textwrap
import threading

import pytest
import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QTextCursor

from .conftest import run_and_wait


def click_node(qtbot, win, name):
    cap = win.result.capture
    node_id = cap.node_named(name) if name else None
    item = win.graph_view.items_by_id[node_id]
    win.graph_view.centerOn(item)
    point = win.graph_view.mapFromScene(item.scenePos())
    qtbot.mouseClick(win.graph_view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    return node_id


def click_op(qtbot, win, op, name):
    graph = win.result.capture.graph
    node_id = next(n for n, a in graph.nodes(data=True) if a["op"] == op and name in a["names"])
    item = win.graph_view.items_by_id[node_id]
    win.graph_view.centerOn(item)
    qtbot.mouseClick(win.graph_view.viewport(), Qt.MouseButton.LeftButton,
                     pos=win.graph_view.mapFromScene(item.scenePos()))
    return node_id


def test_next_functions_example_from_menu_then_click_nodes(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    assert "a * b" in window.editor.toPlainText()
    result = run_and_wait(qtbot, window)
    assert result.capture.ok
    assert window.status.text().startswith("Done in")
    node_c = click_node(qtbot, window, "c")
    assert window.graph_view.selected_node() == node_c
    assert window.inspector.names.text() == "c"
    assert window.inspector.value_text() == "1.3"
    assert window.inspector.gradient_text() == "1.32"
    assert window.inspector.path.text() == "e.grad_fn.next_functions[1][0]"
    click_op(qtbot, window, "MulBackward0", "d")
    assert window.inspector.names.text() == "d"
    assert window.inspector.gradient_text() == "1.3"


def test_copy_path_button_puts_the_expression_on_the_clipboard(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    click_node(qtbot, window, "a")
    qtbot.mouseClick(window.inspector.copy_path, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "e.grad_fn.next_functions[0][0].next_functions[0][0]"


def test_error_example_marks_line_and_keeps_partial_graph(qtbot, window):
    window.example_actions["02_no_grad_new_tensor"].trigger()
    result = run_and_wait(qtbot, window)
    assert result.capture.error.line == 4
    assert 'File "<editor>", line 4, in <module>' in window.console.toPlainText()
    assert "RuntimeError" in window.console.toPlainText()
    assert window.editor.error_line == 4
    assert window.status.text() == "Error at line 4: RuntimeError"
    assert result.capture.node_named("a") in window.graph_view.items_by_id  # the partial graph is drawn
    b_row = window.tensors_pane.explanation_for("b")
    assert b_row.code == "no_grad" and b_row.line == 3


def test_clicking_a_traceback_line_moves_the_editor(qtbot, window):
    window.example_actions["02_no_grad_new_tensor"].trigger()
    run_and_wait(qtbot, window)
    window.editor.go_to_line(1)
    console = window.console
    block = next(i for i in range(console.document().blockCount())
                 if 'line 4' in console.document().findBlockByNumber(i).text())
    rect = console.cursorRect(QTextCursor(console.document().findBlockByNumber(block)))
    qtbot.mouseClick(console.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(30, rect.center().y()))
    assert window.editor.current_line() == 4


def test_editor_line_click_selects_its_nodes_and_source_button_jumps_back(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    window.editor.go_to_line(10)  # d = a * b
    window.editor.line_activated.emit(window.editor.current_line())
    selected = window.graph_view.selected_node()
    assert window.result.capture.graph.nodes[selected]["names"] == ("d",)
    window.editor.go_to_line(1)
    qtbot.mouseClick(window.inspector.source, Qt.MouseButton.LeftButton)
    assert window.editor.current_line() == 10


def test_missing_device_gives_a_message_not_a_crash(qtbot, window):
    assert window.select_device("cuda:3") is False
    assert "Devices present: cpu" in window.console.toPlainText()
    assert window.device == "cpu"
    with qtbot.waitSignal(window.run_finished, timeout=30_000):
        window.start_run(device="cuda:3")
    assert "cuda:3 is not available" in window.console.toPlainText()
    assert window.status.text().startswith("Error: cuda:3 is not available")


def test_device_picker_lists_what_exists_and_explains_the_rest(window):
    combo = window.device_combo
    names = [combo.itemData(i) for i in range(combo.count())]
    assert names[0] == "cpu"
    model = combo.model()
    for row, name in enumerate(names):
        item = model.item(row)
        if name in ("cuda", "mps"):
            assert not item.isEnabled()
            assert item.toolTip()


def test_last_device_is_remembered(qtbot, settings, tmp_path):
    from .conftest import make_window

    settings.last_device = "cpu"
    first = make_window(qtbot, settings, tmp_path / "data")
    combo = first.device_combo
    other = next(i for i in range(combo.count()) if combo.itemData(i) != "cpu")  # e.g. a greyed-out cuda:0
    combo.setCurrentIndex(other)  # what the user picks is written through the window's handler
    assert settings.last_device == combo.itemData(other)
    combo.setCurrentIndex(combo.findData("cpu"))
    assert settings.last_device == "cpu"
    first.shutdown()
    second = make_window(qtbot, settings, tmp_path / "data")
    assert second.device == "cpu"
    second.shutdown()


def test_stop_interrupts_an_endless_loop(qtbot, window):
    window.editor.setPlainText("x = torch.ones(1)\nwhile True:\n    x = x + 0\n")
    window.run_action.trigger()
    qtbot.waitUntil(lambda: window.status.text().startswith("Running"), timeout=10_000)
    qtbot.wait(300)
    with qtbot.waitSignal(window.run_finished, timeout=5_000):
        window.stop_action.trigger()
    assert window.result.capture.error.kind == "stopped"
    assert window.status.text().startswith("Stopped")
    assert not window.is_running


def test_window_stays_responsive_during_a_long_run(qtbot, window):
    """The run ends when the test releases it (no wall clock), so it holds under load."""
    import sys
    import threading
    import types

    gate = types.ModuleType("gx_test_gate")
    gate.release = threading.Event()
    sys.modules["gx_test_gate"] = gate
    try:
        window.editor.setPlainText("import gx_test_gate\nwhile not gx_test_gate.release.is_set():\n    pass\n")
        seen = set()
        window.run_action.trigger()

        def ticked_three_times():
            seen.add(window.status.text())
            window.bottom_tabs.setCurrentIndex(1 - window.bottom_tabs.currentIndex())  # the UI reacts
            assert window.stop_action.isEnabled() and not window.run_action.isEnabled()
            return len({t for t in seen if t.startswith("Running")}) >= 3

        qtbot.waitUntil(ticked_three_times, timeout=30_000)  # the elapsed time kept ticking: the event loop ran
        with qtbot.waitSignal(window.run_finished, timeout=30_000):
            gate.release.set()
        assert window.result.capture.ok
    finally:
        gate.release.set()
        sys.modules.pop("gx_test_gate", None)


def test_stop_during_the_graph_build_keeps_the_capture(qtbot, window):
    # A quick program with a big graph: the build takes a while after the code is done.
    window.editor.setPlainText("x = torch.ones(3, requires_grad=True)\ny = x\nfor i in range(20000):\n"
                               "    y = y * 1.0\ny.sum().backward()\n")
    window.run_action.trigger()
    worker = window.runs._worker
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        qtbot.waitSignal(worker.user_code_finished, timeout=30_000).wait()
        window.stop_run()  # lands during the build (or the drawing): never in our code
    cap = window.result.capture
    assert cap.ok, cap.error
    assert cap.graph.number_of_nodes() > 20_000
    assert cap.tensor("x").grad is not None


def test_output_goes_to_the_console(qtbot, window):
    window.editor.setPlainText("print('hello from the run')\nimport sys\nprint('oops', file=sys.stderr)\n")
    run_and_wait(qtbot, window)
    text = window.console.toPlainText()
    assert "hello from the run" in text and "oops" in text


def test_output_flood_keeps_its_head_and_tail_with_a_notice(qtbot, window):
    window.editor.setPlainText("for i in range(50000):\n    print(f'line {i:05d} ' + 'x' * 20)\nprint('done 50000')\n")
    run_and_wait(qtbot, window)
    text = window.console.toPlainText()
    lines = text.splitlines()
    assert "output capped" in text
    assert len(text) < 210_000
    assert lines[0].startswith("line 00000 ") and "done 50000" in lines  # the first line and the last
    assert lines[lines.index("done 50000") - 1].startswith("line 49999 ")
    notice = next(line for line in lines if "output capped" in line)
    dropped = int(notice.split("; ")[1].split(" characters")[0].replace(",", ""))
    assert dropped + len(text) - len(notice) - 1 == 50000 * len("line 00000 " + "x" * 20 + "\n") + len("done 50000\n")
    assert window.result.capture.stdout.rstrip().endswith("done 50000")  # the capture keeps the tail too


def test_modules_pane_shows_the_plain_attribute_warning(qtbot, window):
    window.example_actions["05_register_buffer"].trigger()
    run_and_wait(qtbot, window)
    texts = window.modules_pane.warning_texts()
    assert any("plain_tensor_attribute" in t and "layer.a" in t and "register_buffer" in t for t in texts)
    texts = window.modules_pane.row_texts("fixed.a")
    assert texts[1] == "buffer" and texts[3] == "meta"


def test_zoom_keys_and_fit(qtbot, window):
    window.example_actions["06_mlp_training_step"].trigger()
    run_and_wait(qtbot, window)
    view = window.graph_view
    window.fit_action.trigger()
    before = view.zoom.level()
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert view.zoom.level() == pytest.approx(before * 1.25)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert view.zoom.level() == pytest.approx(before)
    window.zoom_out_action.trigger()
    window.fit_action.trigger()
    assert view.zoom.level() == pytest.approx(before)


def test_selected_node_edges_show_slots(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    click_node(qtbot, window, "e")
    labels = sorted(item.text() for item in window.graph_view.edges.current_items if hasattr(item, "text"))
    assert labels == ["slot 0", "slot 1"]


def test_open_script_through_the_dialog_method(qtbot, window, tmp_path):
    script = tmp_path / "mine.py"
    script.write_text("# 中文註解: CJK comments work\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n",
                      encoding="utf-8")
    window.ask_open_path = lambda: str(script)
    window.open_action.trigger()
    assert window.editor.toPlainText().startswith("# 中文註解")
    result = run_and_wait(qtbot, window)
    assert result.capture.ok and result.capture.node_named("y")


def test_open_unreadable_file_says_so(window, tmp_path):
    assert window.files.open_path(tmp_path / "missing.py") is False
    assert "Cannot open" in window.console.toPlainText()


def test_a_print_shows_while_the_program_is_still_running(qtbot, window):
    """Output is drained on a GUI timer: a print does not wait for the next print or the end."""
    import sys
    import threading
    import types

    gate = types.ModuleType("gx_test_gate")
    gate.release = threading.Event()
    sys.modules["gx_test_gate"] = gate
    try:
        window.editor.setPlainText("import gx_test_gate\nprint('first line')\ngx_test_gate.release.wait(30)\n"
                                   "print('second line')\n")
        window.run_action.trigger()
        qtbot.waitUntil(lambda: "first line" in window.console.toPlainText(), timeout=10_000)
        assert window.is_running and "second line" not in window.console.toPlainText()
        with qtbot.waitSignal(window.run_finished, timeout=30_000):
            gate.release.set()
        assert "second line" in window.console.toPlainText()
    finally:
        gate.release.set()
        sys.modules.pop("gx_test_gate", None)


CLOSE_DURING_NATIVE_OP = """
import os, sys, tempfile, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QSettings, QTimer
from gradexplorer.ui.app import create_application
app = create_application([])
from gradexplorer.ui.main_window import MainWindow
from gradexplorer.ui.settings import Settings
data = sys.argv[3]
window = MainWindow(Settings(QSettings(sys.argv[1], QSettings.Format.IniFormat)), data_dir=data)
window.ask_unsaved_changes = lambda: "discard"
answer = sys.argv[2] == "quit"
asked = []
window.ask_quit_stuck = lambda why: asked.append(why) or answer
window.show()
# time.sleep stands for a long native op: one C call that no Stop can interrupt.
window.editor.setPlainText("import time\\ntime.sleep(6)\\nprint('op finished')\\n")
window.recovery.autosave_now()
window.start_run()
started = time.monotonic()
def close_now():
    window.close()
    print("asked" if asked else "not asked", "visible" if window.isVisible() else "hidden", window.is_running,
          f"{time.monotonic() - started:.1f}", flush=True)
    print("reason:", asked[0] if asked else "", flush=True)
    window.run_finished.connect(lambda result: QTimer.singleShot(0, window.close))  # the user closes again later
QTimer.singleShot(1000, close_now)
code = app.exec()
print("exited", code, window.is_running, os.listdir(os.path.join(data, "autosave")), flush=True)
sys.exit(code)
"""


def _close_during_native_op(tmp_path, answer):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", CLOSE_DURING_NATIVE_OP, str(tmp_path / "s.ini"), answer,
                           str(tmp_path / "data")], capture_output=True, text=True, timeout=120)


def test_closing_during_a_call_that_cannot_be_stopped_says_why_and_keeps_the_window_when_asked_to(tmp_path):
    done = _close_during_native_op(tmp_path, "keep")
    assert done.returncode == 0, done.stderr[-2000:]
    first = done.stdout.splitlines()[0].split()
    assert first[:3] == ["asked", "visible", "True"]  # never hidden with a process left behind
    assert float(first[3]) < 4.0  # the close tried Stop for 2 s, then asked
    assert "It is at line 2 (`time.sleep(6)`)" in done.stdout
    assert "exited 0 False []" in done.stdout  # closed normally once the call returned: autosave removed
    assert "QThread: Destroyed while thread is still running" not in done.stderr


def test_closing_during_a_call_that_cannot_be_stopped_can_quit_at_once_and_cleanly(tmp_path):
    import time

    started = time.monotonic()
    done = _close_during_native_op(tmp_path, "quit")
    assert time.monotonic() - started < 30
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""  # os._exit from the close: the sleeping thread never finished
    assert "quitting while the program still runs" in done.stderr
    assert (tmp_path / "data" / "autosave").is_dir()
    assert list((tmp_path / "data" / "autosave").iterdir()) == []  # a clean exit: nothing offered next time
    assert "QThread: Destroyed while thread is still running" not in done.stderr


def test_the_console_names_what_the_program_changed_and_stop_ends_its_threads(qtbot, window):
    window.editor.setPlainText(textwrap.dedent("""\
        import threading, time
        torch.set_default_dtype(torch.float64)
        def spin():
            while True:
                time.sleep(0.01)
        threading.Thread(target=spin, name="spinner", daemon=False).start()
    """))
    run_and_wait(qtbot, window)
    text = window.console.toPlainText()
    assert "gradexplorer: your code called torch.set_default_dtype(torch.float64); restored for the next run" in text
    assert "'spinner' running" in text
    assert torch.get_default_dtype() == torch.float32
    assert window.stop_action.isEnabled()  # the run is over, its thread is not
    window.stop_action.trigger()
    assert not any(t.name == "spinner" and t.is_alive() for t in threading.enumerate())
    assert not window.stop_action.isEnabled()
    assert "were stopped" in window.console.toPlainText()


def test_the_isolated_engine_survives_a_segfault_and_keeps_the_previous_capture(qtbot, window):
    window.editor.setPlainText("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    previous = run_and_wait(qtbot, window)
    shown = set(window.graph_view.items_by_id)
    window.engine_combo.setCurrentIndex(window.engine_combo.findData("isolated"))
    window.editor.setPlainText("import ctypes\nprint('before the crash')\nctypes.string_at(0)\n")
    run_and_wait(qtbot, window, timeout=120_000)
    assert window.isVisible() and window.result is previous  # the app and the previous capture stay
    assert set(window.graph_view.items_by_id) == shown
    console = window.console.toPlainText()
    assert "before the crash" in console and "died with SIGSEGV at line 3" in console
    assert "SIGSEGV at line 3" in window.status.text() and "previous capture" in window.status.text()
    assert window.editor.toPlainText().startswith("import ctypes")  # the editor keeps the code
    window.editor.setPlainText("y = torch.ones(3, requires_grad=True)\n(y * 3).sum().backward()\n"
                               "big = torch.linspace(-1, 3, 20000)\n")
    result = run_and_wait(qtbot, window, timeout=120_000)  # the next isolated run works
    assert result is not previous and result.capture.ok
    assert result.capture.graph.nodes[result.capture.node_named("y")]["grad"].values() == [3.0, 3.0, 3.0]
    # The statistics the child sends after the picture arrive (the worker lets it compute them).
    big = next(t for t in result.capture.tensors if "big" in t.names).value
    assert big.known_norm is not None
    qtbot.waitUntil(lambda: not big.stats_pending, timeout=10_000)
    assert (big.stats.min, big.stats.max) == (-1.0, 3.0)


def test_stop_kills_an_isolated_run_inside_a_native_op_and_keeps_the_previous_capture(qtbot, window):
    window.editor.setPlainText("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    previous = run_and_wait(qtbot, window)
    window.engine_combo.setCurrentIndex(window.engine_combo.findData("isolated"))
    # Well conditioned, so that no step can raise: x = inv(x @ x.T + 1) went singular after a few steps on
    # some random draws, and the program ended with a LinAlgError before the Stop (seen once in a full run).
    window.editor.setPlainText("x = torch.randn(3000, 3000)\nfor _ in range(10000):\n"
                               "    y = torch.linalg.inv(x @ x.T + 3000 * torch.eye(3000))\nprint('never')\n")
    window.run_action.trigger()
    qtbot.wait(2500)  # the child is inside the loop of native ops
    assert window.is_running
    with qtbot.waitSignal(window.run_finished, timeout=3_000):
        window.stop_action.trigger()
    assert window.result is previous and not window.is_running
    assert window.status.text().startswith("Stopped") and "previous capture" in window.status.text()


def test_the_isolated_memory_limit_is_settable_and_turns_a_runaway_allocation_into_an_error(qtbot, window):
    window.ask_memory_limit = lambda: 1.5
    window.memory_limit_action.trigger()
    assert window.settings.isolated_memory_gb == 1.5 and "1.5 GiB" in window.status.text()
    window.engine_combo.setCurrentIndex(window.engine_combo.findData("isolated"))
    window.editor.setPlainText("x = torch.ones(2)\nhuge = torch.empty(8 * 1024**3, dtype=torch.uint8)\n")
    result = run_and_wait(qtbot, window, timeout=120_000)
    assert result.capture.error.line == 2 and "allocate" in result.capture.error.message
    assert "Error at line 2" in window.status.text()

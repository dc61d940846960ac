"""Sessions in the app: save, reopen, dirty prompts, recovery, export (issue 5)."""

import json
import os
import signal
import subprocess
import sys
import textwrap

from PySide6.QtGui import QImage

from gradexplorer.core.io.session import load_session, save_session, session_from_capture, session_to_dict
from gradexplorer import capture

from .conftest import make_window, run_and_wait
from .test_main_window import click_node


def test_save_close_and_reopen_through_the_file_menu(qtbot, window, settings, tmp_path):
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    click_node(qtbot, window, "c")
    target = tmp_path / "lesson.gxsession"
    window.ask_session_save_path = lambda: str(target)
    window.save_action.trigger()  # no path yet: Save asks where
    assert target.exists()
    assert not window.isWindowModified()
    assert window.windowTitle() == "lesson.gxsession[*] - gradexplorer"
    code = window.editor.toPlainText()
    window.close()

    reopened = make_window(qtbot, settings, tmp_path / "data2")
    reopened.ask_open_path = lambda: str(target)
    reopened.open_action.trigger()
    assert reopened.editor.toPlainText() == code
    assert "nothing was run" in reopened.status.text()
    assert reopened.result.seconds == 0.0  # shown from the file, not captured
    # The view state came back: c is selected and inspected.
    assert reopened.inspector.names.text() == "c"
    assert reopened.inspector.value_text() == "1.3"
    assert reopened.inspector.gradient_text() == "1.32"
    assert str(target) in settings.recent_files
    reopened.recent_menu.aboutToShow.emit()
    assert str(target) in [a.text() for a in reopened.recent_menu.actions()]
    reopened.shutdown()


def test_opening_a_session_does_not_run_its_code(qtbot, window, tmp_path):
    marker = tmp_path / "ran.txt"
    cap = capture("x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\ny.backward()\n")
    doc = session_to_dict(session_from_capture(cap))
    doc["code"] = f"open({str(marker)!r}, 'w')\nraise RuntimeError('this must not run')\n"
    path = tmp_path / "other-machine.gxsession"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert window.files.open_path(path)
    assert not marker.exists()
    assert "this must not run" in window.editor.toPlainText()
    assert window.editor.error_line is None
    assert window.result.capture.node_named("y") in window.graph_view.items_by_id


def test_corrupt_session_gives_a_message_and_keeps_the_work(qtbot, window, tmp_path):
    window.editor.setPlainText("precious = 1\n")
    bad = tmp_path / "bad.gxsession"
    bad.write_text('{"format": "gradexplorer.session", "schema_version": 1, "capture": {"nodes": [', encoding="utf-8")
    assert window.files.open_path(bad) is False
    assert window.editor.toPlainText() == "precious = 1\n"
    assert "Cannot open bad.gxsession" in window.console.toPlainText()
    assert "truncated" in window.console.toPlainText()


def test_dirty_prompt_flow(qtbot, window, tmp_path):
    window.editor.setPlainText("x = 1\n")
    assert window.isWindowModified()
    answers = []
    window.ask_unsaved_changes = lambda: answers.pop(0)
    answers.append("cancel")
    assert window.files.new_session() is False
    assert window.editor.toPlainText() == "x = 1\n"
    target = tmp_path / "kept.gxsession"
    window.ask_session_save_path = lambda: str(target)
    answers.append("save")
    assert window.files.new_session() is True
    assert load_session(target).code == "x = 1\n"
    assert window.editor.toPlainText() == "" and not window.isWindowModified()
    window.editor.setPlainText("y = 2\n")
    answers.append("discard")
    window.example_actions["01_no_grad_alias"].trigger()
    assert "no_grad" in window.editor.toPlainText()
    window.editor.setPlainText("z = 3\n")
    answers.append("cancel")
    window.close()
    assert window.isVisible()  # cancel keeps the window open
    window.ask_unsaved_changes = lambda: "discard"


def test_running_an_unchanged_example_and_clicking_nodes_keep_the_session_clean(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    assert not window.isWindowModified()
    result = run_and_wait(qtbot, window)
    window.graph_view.select_node(result.capture.node_named("c"))
    assert not window.isWindowModified()
    asked = []
    window.ask_unsaved_changes = lambda: asked.append(True) or "cancel"
    assert window.files.maybe_save() and not asked  # no prompt: nothing would be lost
    window.editor.appendPlainText("f = e * 2")  # an edit is work to keep
    assert window.isWindowModified()
    assert not window.files.maybe_save() and asked


def test_loading_another_program_clears_the_old_picture(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    window.search_box.setText("c")
    window.picture.find("c")
    window.filter_combo.setCurrentIndex(1)
    assert window.graph_view.items_by_id and window.tensors_pane.rowCount()
    window.example_actions["01_no_grad_alias"].trigger()
    assert window.result is None
    assert not window.graph_view.items_by_id
    assert window.tensors_pane.rowCount() == 0
    assert window.search_box.text() == "" and window.filter_combo.currentIndex() == 0
    assert window.inspector.title.text() == "Click a node to inspect it."


def test_exports(qtbot, window, tmp_path):
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    for kind, name in (("dot", "g.dot"), ("graphml", "g.graphml"), ("json", "g.json"), ("png", "v.png"),
                       ("svg", "v.svg"), ("script", "s.py")):
        window.ask_export_path = lambda kind, n=name: str(tmp_path / n)
        window.export_actions[kind].trigger()
        assert (tmp_path / name).stat().st_size > 0, kind
    assert "digraph autograd" in (tmp_path / "g.dot").read_text()
    assert "<svg" in (tmp_path / "v.svg").read_text()
    image = QImage(str(tmp_path / "v.png"))
    assert (image.width(), image.height()) == window.graph_view.exporter.export_size(2.0)  # the resolution asked for
    window.ask_export_scale = lambda: 1.0
    window.ask_export_path = lambda kind: str(tmp_path / "v.png")
    window.export_actions["png"].trigger()
    image = QImage(str(tmp_path / "v.png"))
    assert (image.width(), image.height()) == window.graph_view.exporter.export_size(1.0)
    assert json.loads((tmp_path / "g.json").read_text())["nodes"]
    assert "e.backward()" in (tmp_path / "s.py").read_text()



def test_an_export_named_without_an_extension_gets_the_kinds(qtbot, window, tmp_path):
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    for kind in ("png", "svg", "dot"):
        window.ask_export_path = lambda kind, k=kind: str(tmp_path / f"typed_{k}")  # as a user types it
        window.export_actions[kind].trigger()
        assert not (tmp_path / f"typed_{kind}").exists()
        assert (tmp_path / f"typed_{kind}.{kind}").stat().st_size > 0, kind
        assert window.status.text() == f"Exported typed_{kind}.{kind}"
    assert (tmp_path / "typed_png.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "typed_svg.svg").read_text()
    window.ask_export_path = lambda kind: str(tmp_path / "kept.txt")  # an extension of the user's own stays
    window.export_actions["dot"].trigger()
    assert "digraph autograd" in (tmp_path / "kept.txt").read_text()


CRASHING_APP = textwrap.dedent("""
    import os, signal, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QSettings
    from gradexplorer.ui.app import create_application
    app = create_application([])
    from gradexplorer.ui.main_window import MainWindow
    from gradexplorer.ui.settings import Settings
    window = MainWindow(Settings(QSettings(sys.argv[2], QSettings.Format.IniFormat)), data_dir=sys.argv[1])
    window.editor.setPlainText(sys.argv[3] + "\\n")
    assert window.recovery.autosave_now()
    print("autosaved", flush=True)
    if sys.argv[4] == "crash":
        os.kill(os.getpid(), signal.SIGKILL)  # a crash: no shutdown, no cleanup
    time.sleep(120)  # a healthy instance, still running
""")


def _instance(data_dir, tmp_path, text, mode):
    return subprocess.Popen([sys.executable, "-c", CRASHING_APP, str(data_dir), str(tmp_path / f"{mode}.ini"), text,
                             mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_instances_one_killed_the_restart_restores_that_ones_text(qtbot, settings, tmp_path):
    data_dir = tmp_path / "data"
    alive = _instance(data_dir, tmp_path, "other = 1  # the instance that keeps running", "alive")
    try:
        assert alive.stdout.readline().strip() == "autosaved", alive.stderr.read()
        crashed = _instance(data_dir, tmp_path, "unsaved = torch.ones(3) * 7  # typed before the crash", "crash")
        crashed.wait(120)
        assert crashed.returncode == -signal.SIGKILL, crashed.stderr.read()
        win = make_window(qtbot, settings, data_dir)
        offers = []
        win.ask_restore = lambda saved_at, preview: offers.append((saved_at, preview)) or True
        assert win.recovery.check_recovery() is True
        assert len(offers) == 1  # the running instance's slot is not offered
        saved_at, preview = offers[0]
        assert saved_at and "typed before the crash" in preview
        assert "typed before the crash" in win.editor.toPlainText()
        assert win.isWindowModified()
        win.shutdown()
        # The clean exit removed only its own slot: the running instance's is still there.
        texts = [p.read_text() for p in (data_dir / "autosave").glob("*.text.json")]
        assert len(texts) == 1 and "keeps running" in texts[0]
    finally:
        alive.kill()
        alive.wait(30)


def test_no_recovery_offer_after_a_clean_exit(qtbot, settings, tmp_path):
    data_dir = tmp_path / "data"
    first = make_window(qtbot, settings, data_dir)
    first.editor.setPlainText("a = 1\n")
    assert first.recovery.autosave_now()
    first.shutdown()
    second = make_window(qtbot, settings, data_dir)
    second.ask_restore = lambda saved_at, preview: (_ for _ in ()).throw(AssertionError("offered after a clean exit"))
    assert second.recovery.check_recovery() is False
    second.shutdown()


def test_autosave_before_a_run_and_the_capture_after_it(qtbot, window):
    import json

    window.editor.setPlainText("value = torch.ones(1)\n")
    written = []
    original = window.recovery.slot.write_text
    window.recovery.slot.write_text = lambda code, device: written.append(code) or original(code, device)
    window.run_action.trigger()
    assert written == ["value = torch.ones(1)\n"]  # written before the run started
    assert window.is_running
    qtbot.waitUntil(lambda: not window.is_running, timeout=30_000)
    assert window.jobs.wait_all()
    assert json.loads(window.recovery.slot.text_path.read_text())["code"] == "value = torch.ones(1)\n"
    assert load_session(window.recovery.slot.session_path).capture.tensor("value") is not None


def test_cli_session_file_opens_in_the_app(qtbot, window, tmp_path):
    cap = capture("w = torch.ones(2, requires_grad=True)\nloss = (w * w).sum()\nloss.backward()\n")
    path = tmp_path / "from-cli.gxsession"
    save_session(session_from_capture(cap), path)
    assert window.files.open_path(path, prompt=False)
    assert window.result.capture.node_named("loss")


def test_save_and_open_run_off_the_gui_thread(qtbot, window, tmp_path):
    """The event loop keeps running while a session is written and read (it used to freeze)."""
    from PySide6.QtCore import QTimer

    window.editor.setPlainText("x = torch.ones(8, requires_grad=True)\ny = x\nfor i in range(3000):\n"
                               "    y = y * 1.0\ny.sum().backward()\n")
    run_and_wait(qtbot, window)
    ticks = []
    heartbeat = QTimer()
    heartbeat.setInterval(5)
    heartbeat.timeout.connect(lambda: ticks.append(1))
    heartbeat.start()
    path = tmp_path / "big.gxsession"
    window.ask_session_save_path = lambda: str(path)
    assert window.files.save_as()
    saved_ticks = len(ticks)
    assert saved_ticks >= 2, "no event was handled while saving"
    assert window.files.open_path(path, prompt=False)
    heartbeat.stop()
    assert len(ticks) - saved_ticks >= 2, "no event was handled while opening"
    assert window.result.capture.graph.number_of_nodes() > 3000


def test_opening_a_fifo_says_so_instead_of_hanging(qtbot, window, tmp_path):
    for name in ("pipe.py", "pipe.gxsession"):
        fifo = tmp_path / name
        os.mkfifo(fifo)
        assert window.files.open_path(fifo) is False
        assert "named pipe" in window.console.toPlainText()


def test_a_program_with_unusual_dtypes_saves_and_reopens_with_its_values(qtbot, window, settings, tmp_path):
    """Before, a complex128 leaf made Save (and autosave) fail; a uint16 tensor made a file that did not open."""
    import torch

    window.editor.setPlainText(
        "z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128, requires_grad=True)\n"
        "(z.abs() ** 2).sum().backward()\n"
        "u = torch.tensor([1, 60000], dtype=torch.uint16)\n"
        "q = torch.quantize_per_tensor(torch.tensor([0.1, 0.5]), 0.1, 0, torch.quint8)\n")
    result = run_and_wait(qtbot, window)
    assert result.capture.ok
    z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128, requires_grad=True)
    (z.abs() ** 2).sum().backward()  # what PyTorch says z's gradient is
    click_node(qtbot, window, "z")
    shown = window.inspector.gradient_text()
    target = tmp_path / "dtypes.gxsession"
    window.ask_session_save_path = lambda: str(target)
    window.save_action.trigger()
    assert target.exists() and not window.isWindowModified()
    window.close()

    reopened = make_window(qtbot, settings, tmp_path / "data2")
    assert reopened.files.open_path(target)
    capture = reopened.result.capture
    assert torch.equal(capture.tensor("z").grad.data, z.grad)
    assert capture.tensor("u").value.data.tolist() == [1, 60000]
    assert "dequantized" in capture.tensor("q").value.note
    click_node(qtbot, reopened, "z")
    assert reopened.inspector.gradient_text() == shown  # what the user read before saving
    reopened.shutdown()


def test_an_unexpected_failure_while_saving_is_a_message_and_the_work_stays(qtbot, window, tmp_path, monkeypatch):
    import gradexplorer.ui.session_files as session_files

    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    code = window.editor.toPlainText()

    def broken(session, path):
        raise KeyError("torch.complex128")  # what the value table library raised for a complex128 tensor

    monkeypatch.setattr(session_files, "save_session", broken)
    target = tmp_path / "s.gxsession"
    window.ask_session_save_path = lambda: str(target)
    window.save_action.trigger()
    assert not target.exists() and window.status.text() == "Not saved: s.gxsession"
    assert "Cannot save s.gxsession: KeyError: 'torch.complex128'" in window.console.toPlainText()
    assert window.editor.toPlainText() == code and window.result.capture.ok  # nothing lost

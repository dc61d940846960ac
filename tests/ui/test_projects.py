"""A real project in the app (issue 26): open train.py, set arguments, Run, follow a node into model.py.

Every test drives the window as a user would (menus, clicks, typing) on a
copy of a corpus project and reads back what the window shows: the open
tab, its text and line, the inspector's names, the console.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from gradexplorer.core.io.session import load_session
from tests.projects.corpus import CORPUS, copy_project

from .conftest import run_and_wait


def _project(tmp_path, name: str) -> Path:
    return copy_project(next(p for p in CORPUS if p.name == name), tmp_path)


def _click_node(qtbot, window, node_id: str) -> None:
    window.picture.show_nodes([node_id])  # opens the module box that hides it
    item = window.graph_view.items_by_id[node_id]
    window.graph_view.centerOn(item)
    qtbot.mouseClick(window.graph_view.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.graph_view.mapFromScene(item.scenePos()))
    assert window.graph_view.selected_node() == node_id


def _node_made_in(cap, file: str, text: str, op: str | None = None) -> str:
    return next(n for n, a in cap.graph.nodes(data=True)
                if a["source"] is not None and a["source"].file == file and text in a["source"].text
                and a["kind"] == "op" and (op is None or a["op"] == op))


def test_open_a_script_set_arguments_run_and_follow_a_node_into_its_module(qtbot, window, tmp_path):
    folder = _project(tmp_path, "package_relative")
    assert window.files.open_path(folder / "train.py")
    assert window.sources.tabText(0) == "train.py"
    window.ask_run_arguments = lambda: "--steps 2 --lr 0.01"
    window.arguments_action.trigger()
    assert window.run_settings.args == ("--steps", "2", "--lr", "0.01")
    assert window.run_settings_label.text() == f"python train.py --steps 2 --lr 0.01  (in {folder.name})"

    cap = run_and_wait(qtbot, window).capture
    assert cap.ok, cap.error and cap.error.traceback
    assert len(cap.passes) == 2 and cap.args == ("--steps", "2", "--lr", "0.01")
    assert cap.cwd == str(folder)  # the script's own folder by default
    assert "0\t" in window.console.toPlainText() and "1\t" in window.console.toPlainText()

    node = _node_made_in(cap, "pkg/model.py", "return self.out(h) + self.offset")
    source = cap.graph.nodes[node]["source"]
    _click_node(qtbot, window, node)
    assert window.inspector.source.text() == f"pkg/model.py, line {source.line}: {source.text}"
    qtbot.mouseClick(window.inspector.source, Qt.MouseButton.LeftButton)
    view = window.sources.currentWidget()
    assert window.sources.tabText(window.sources.currentIndex()) == "pkg/model.py"
    assert view is window.sources.file_view("pkg/model.py") and view.isReadOnly()
    assert view.current_line() == source.line
    assert view.toPlainText() == (folder / "pkg" / "model.py").read_text()
    assert view.document().findBlockByNumber(source.line - 1).text().strip() == source.text

    # An edit of model.py is seen by the next Run (the module is imported afresh).
    model = folder / "pkg" / "model.py"
    model.write_text(model.read_text().replace("return self.out(h) + self.offset",
                                               "return self.out(h) * 2 + self.offset"))
    cap2 = run_and_wait(qtbot, window).capture
    assert cap2.ok
    doubled = _node_made_in(cap2, "pkg/model.py", "self.out(h) * 2", "MulBackward0")
    assert not any(a["op"] == "MulBackward0" and a["source"] is not None and a["source"].file == "pkg/model.py"
                   for _, a in cap.graph.nodes(data=True))
    assert cap2.stdout != cap.stdout  # different losses
    _click_node(qtbot, window, doubled)
    qtbot.mouseClick(window.inspector.source, Qt.MouseButton.LeftButton)
    assert "self.out(h) * 2" in window.sources.file_view("pkg/model.py").toPlainText()


def test_names_held_in_functions_say_where(qtbot, window, tmp_path):
    folder = _project(tmp_path, "mlp_argparse")
    window.files.open_path(folder / "train.py")
    window.run_commands.set_run_arguments(["--steps", "1"])
    cap = run_and_wait(qtbot, window).capture
    _click_node(qtbot, window, cap.node_named("loss"))
    assert window.inspector.names.text() == "loss in main()"
    _click_node(qtbot, window, cap.node_named("model.fc1.weight"))
    assert window.inspector.names.text() == "model.fc1.weight in main()"
    # The Modules tab audits the model that lives in main(): the plain tensor attribute is flagged.
    assert any(w.code == "plain_tensor_attribute" and w.path == "model.temperature"
               for audit in cap.modules for w in audit.warnings)


def test_a_traceback_line_in_a_project_file_opens_it(qtbot, window, tmp_path):
    folder = _project(tmp_path, "raises_in_model")
    window.files.open_path(folder / "train.py")
    window.run_commands.set_run_arguments(["4", "5"])
    cap = run_and_wait(qtbot, window).capture
    assert cap.error is not None and (cap.error.file, cap.error.line) == ("model.py", 14)
    assert window.status.text() == "Error at line 14 of model.py: RuntimeError"
    assert window.editor.error_line == 13  # the program's own line that called into model.py
    document = window.console.document()
    block = next(b for b in range(document.blockCount())
                 if str(folder / "model.py") in document.findBlockByNumber(b).text())
    assert window.console.line_at(block) == ("model.py", 14)
    rect = window.console.cursorRect(_cursor_at(window.console, block))
    with qtbot.waitSignal(window.console.line_requested):
        qtbot.mouseClick(window.console.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.sources.tabText(window.sources.currentIndex()) == "model.py"
    assert window.sources.currentWidget().current_line() == 14


def _cursor_at(console, block: int):
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(console.document().findBlockByNumber(block))
    cursor.movePosition(QTextCursor.MoveOperation.Right, n=4)
    console.setTextCursor(cursor)
    console.ensureCursorVisible()
    return cursor


def test_arguments_and_folder_are_saved_in_the_session_and_files_reopen_without_the_project(qtbot, window,
                                                                                            tmp_path):
    folder = _project(tmp_path, "package_relative")
    other = tmp_path / "elsewhere"
    other.mkdir()
    window.files.open_path(folder / "train.py")
    window.run_commands.set_run_arguments(["--steps", "1"])
    window.ask_working_folder = lambda: str(other)
    window.working_folder_action.trigger()
    cap = run_and_wait(qtbot, window).capture
    assert cap.ok and cap.cwd == str(other) and cap.root == str(folder)
    path = tmp_path / "run.gxsession"
    window.ask_session_save_path = lambda: str(path)
    assert window.files.save_as()
    saved = load_session(path)
    assert (saved.args, saved.cwd, saved.filename) == (("--steps", "1"), str(other), str(folder / "train.py"))

    window.files.new_session()
    assert window.run_settings_label.text() == ""
    (folder / "pkg" / "model.py").unlink()  # the session keeps the text that ran
    assert window.files.open_path(path)
    assert window.run_settings.args == ("--steps", "1") and window.run_settings.cwd == str(other)
    assert window.run_settings_label.text() == f"python train.py --steps 1  (in {other.name})"
    node = _node_made_in(window.result.capture, "pkg/model.py", "self.embed(x)")
    _click_node(qtbot, window, node)
    qtbot.mouseClick(window.inspector.source, Qt.MouseButton.LeftButton)
    assert "class Net(nn.Module):" in window.sources.file_view("pkg/model.py").toPlainText()


def test_input_reads_a_line_typed_into_the_console(qtbot, window):
    window.editor.setPlainText('name = input("your name? ")\nprint("hello", name)\n')
    with qtbot.waitSignal(window.run_finished, timeout=30_000):
        window.run_action.trigger()
        qtbot.waitUntil(lambda: window.console_pane.waiting, timeout=20_000)
        assert "your name? " in window.console.toPlainText()
        qtbot.keyClicks(window.console_pane.input_line, "Ada")
        qtbot.keyClick(window.console_pane.input_line, Qt.Key.Key_Return)
    cap = window.result.capture
    assert cap.ok and cap.stdout == "your name? hello Ada\n"
    assert not window.console_pane.waiting


def test_stop_while_the_program_waits_for_input(qtbot, window):
    window.editor.setPlainText('x = input("value? ")\n')
    with qtbot.waitSignal(window.run_finished, timeout=30_000):
        window.run_action.trigger()
        qtbot.waitUntil(lambda: window.console_pane.waiting, timeout=20_000)
        window.stop_action.trigger()
    assert window.result.capture.error.kind == "stopped"
    assert not window.console_pane.waiting


def test_a_progress_bar_is_one_updating_line(qtbot, window):
    window.editor.setPlainText(textwrap.dedent("""
        import sys
        for i in range(500):
            sys.stderr.write(f"\\rtraining {i + 1}/500")
        sys.stderr.write("\\n")
        print("done")
    """))
    cap = run_and_wait(qtbot, window).capture
    assert cap.stderr == "training 500/500\n"
    lines = window.console.toPlainText().splitlines()
    assert lines.count("training 500/500") == 1 and not any(line.startswith("training 1/") for line in lines)
    assert "done" in lines


@pytest.mark.parametrize("args", [["proj/train.py", "--", "--steps", "2"]])
def test_the_command_line_gives_the_script_its_arguments(args):
    from gradexplorer.cli import split_script_args

    assert split_script_args(args) == (["proj/train.py"], ["--steps", "2"])


def test_gradexplorer_script_with_arguments_opens_the_app_with_them(qapp, tmp_path, monkeypatch):
    """``gradexplorer SCRIPT -- ARGS``: the app opens the script with the arguments Run will give it."""
    from PySide6.QtWidgets import QApplication

    from gradexplorer.ui import app as app_module
    from gradexplorer.ui.main_window import MainWindow

    folder = _project(tmp_path, "mlp_argparse")
    seen = {}

    def instead_of_the_event_loop():
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
        seen.update(args=window.run_settings.args, file=window.program_filename, modified=window.isWindowModified())
        window.ask_unsaved_changes = lambda: "discard"
        window.close()
        window.deleteLater()
        return 0

    monkeypatch.setattr(qapp, "exec", instead_of_the_event_loop)
    assert app_module.main([str(folder / "train.py"), "--", "--steps", "5", "--lr", "0.2"]) == 0
    assert seen == {"args": ("--steps", "5", "--lr", "0.2"), "file": str(folder / "train.py"), "modified": False}

"""An Open either completes or leaves the window exactly as it was (issue 29: data loss after a failed Open).

A session whose float64 values near 1e160 overflowed a statistic failed half-way
through showing: the editor showed the new code while the title and the save
path still named the previous file, and Ctrl+S overwrote that file with it.
"""

import math
import threading

import torch
from PySide6.QtCore import QTimer

from gradexplorer import capture
from gradexplorer.core.io.session import load_session, save_session, session_from_capture

from .conftest import run_and_wait
from .test_main_window import click_node

HUGE = """\
import torch
a = torch.full((20000,), 1e160, dtype=torch.float64, requires_grad=True)
b = a * 1.0
b.sum().backward()
"""


def _saved_work(qtbot, window, tmp_path):
    """The seed's next_functions lesson run, c clicked, saved as lesson.gxsession: the work to keep."""
    window.example_actions["03_next_functions"].trigger()
    run_and_wait(qtbot, window)
    click_node(qtbot, window, "c")
    target = tmp_path / "lesson.gxsession"
    window.ask_session_save_path = lambda: str(target)
    assert window.files.save()
    window.console.append_message("an error line the user is reading", error=True)
    window.editor.setPlainText(window.editor.toPlainText() + "# an unsaved edit\n")
    return target


def test_a_session_of_values_near_the_float_limit_opens_with_the_statistics_plain_pytorch_gives(
        qtbot, window, tmp_path):
    path = tmp_path / "huge.gxsession"
    save_session(session_from_capture(capture(HUGE)), path)
    assert window.files.open_path(path)
    assert window.editor.toPlainText() == HUGE
    assert window.windowTitle() == "huge.gxsession[*] - gradexplorer"
    click_node(qtbot, window, "a")
    plain = torch.full((20000,), 1e160, dtype=torch.float64)
    shown = window.inspector.value_text()
    assert f"{plain.min().item():.4g}" in shown and f"{plain.max().item():.4g}" in shown, shown
    stats = window.result.capture.graph.nodes[window.result.capture.node_named("a")]["value"].stats
    assert math.isclose(stats.mean, plain.mean().item(), rel_tol=1e-12)
    # PyTorch's own std of these equal values is a rounding residue (3e144, 3e-16 of the mean).
    assert abs(stats.std - plain.std().item()) <= 1e-12 * plain.mean().item()


def test_the_same_values_run_in_the_app_draw_and_autosave(qtbot, window):
    window.editor.setPlainText(HUGE)
    result = run_and_wait(qtbot, window)
    assert result is not None and result.capture.error is None
    assert result.capture.node_named("a") in window.graph_view.items_by_id
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=10_000)
    saved = load_session(window.recovery.slot.session_path)
    assert saved.capture.node_named("a") is not None


def test_a_session_that_fails_while_showing_leaves_the_window_as_it_was_and_save_keeps_the_old_file(
        qtbot, window, tmp_path, monkeypatch):
    target = _saved_work(qtbot, window, tmp_path)
    other = tmp_path / "other.gxsession"
    save_session(session_from_capture(capture("x = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()\n")),
                 other)
    before = (window.editor.toPlainText(), window.windowTitle(), window.isWindowModified(), window.files.session_path,
              window.result, window.console.toPlainText(), window.inspector.names.text(),
              sorted(window.graph_view.items_by_id), window.device, window.program_filename)

    real = window.tensors_pane.show_explanations
    failed = []

    def broken(explanations):
        if explanations and not failed:  # the new session's; clearing (none) and the old one's still work
            failed.append(explanations)
            raise OverflowError("(34, 'Numerical result out of range')")
        return real(explanations)

    monkeypatch.setattr(window.tensors_pane, "show_explanations", broken)  # any failure half-way through showing
    assert window.files.open_path(other) is False
    assert [e.name for e in failed[0]] == ["x"]
    monkeypatch.undo()
    after = (window.editor.toPlainText(), window.windowTitle(), window.isWindowModified(), window.files.session_path,
             window.result, window.console.toPlainText().split("Cannot open other.gxsession")[0],
             window.inspector.names.text(), sorted(window.graph_view.items_by_id), window.device,
             window.program_filename)
    assert after[:5] == before[:5]
    assert after[5] == before[5]  # the console's text, then the failure's message
    assert after[7:] == before[7:]
    assert "Cannot open other.gxsession" in window.console.toPlainText()
    assert "OverflowError" in window.console.toPlainText()
    assert "x = torch.ones(3" not in window.editor.toPlainText()
    # The work is still the lesson's: Ctrl+S writes the lesson (with its edit), never other.gxsession's code.
    window.save_action.trigger()
    saved = load_session(target)
    assert saved.code == before[0] and "# an unsaved edit" in saved.code
    assert saved.capture.node_named("c") is not None
    # The old picture is still live and clickable.
    click_node(qtbot, window, "c")
    assert window.inspector.gradient_text() == "1.32"
    # The retirer did not take the restored capture apart.
    assert window.retirer.pending == 0 or all(not e[0].holds(window.result.capture) for e in window.retirer._queue)


def test_a_file_that_fails_to_read_for_any_reason_is_a_message_and_the_work_stays(qtbot, window, tmp_path,
                                                                                    monkeypatch):
    target = _saved_work(qtbot, window, tmp_path)
    other = tmp_path / "other.gxsession"
    save_session(session_from_capture(capture("x = torch.ones(3, requires_grad=True)\n")), other)
    code = window.editor.toPlainText()
    import gradexplorer.ui.session_files as session_files

    def unexpected(session):
        raise MemoryError("building the layout")

    monkeypatch.setattr(session_files, "prepare_session", unexpected)
    assert window.files.open_path(other) is False
    assert window.editor.toPlainText() == code
    assert window.files.session_path == target
    assert "Cannot open other.gxsession: MemoryError: building the layout" in window.console.toPlainText()
    assert window.open_action.isEnabled()


def test_a_second_open_during_a_long_open_is_refused_and_the_first_completes(qtbot, window, tmp_path, monkeypatch):
    first = tmp_path / "first.gxsession"
    second = tmp_path / "second.gxsession"
    save_session(session_from_capture(capture("first = torch.ones(2, requires_grad=True)\n")), first)
    save_session(session_from_capture(capture("second = torch.ones(2, requires_grad=True)\n")), second)
    import gradexplorer.ui.session_files as session_files

    release = threading.Event()
    real = session_files._read_and_prepare

    def slow(path):
        if path == first:
            release.wait(10)
        return real(path)

    monkeypatch.setattr(session_files, "_read_and_prepare", slow)
    answers = []

    def second_open_meanwhile():
        answers.append((window.open_action.isEnabled(), window.recent_menu.menuAction().isEnabled()))
        answers.append(window.files.open_path(second))
        release.set()

    QTimer.singleShot(100, second_open_meanwhile)
    assert window.files.open_path(first)
    assert answers == [(False, False), False]
    assert window.editor.toPlainText().startswith("first =")
    assert window.windowTitle() == "first.gxsession[*] - gradexplorer"
    assert window.open_action.isEnabled()


def test_open_recent_remembers_an_absolute_path_for_a_file_opened_by_a_relative_one(qtbot, window, settings,
                                                                                      tmp_path, monkeypatch):
    folder = tmp_path / "work"
    folder.mkdir()
    save_session(session_from_capture(capture("w = torch.ones(2, requires_grad=True)\n")), folder / "rel.gxsession")
    monkeypatch.chdir(folder)
    assert window.files.open_path(__import__("pathlib").Path("rel.gxsession"))
    assert settings.recent_files[0] == str(folder / "rel.gxsession")
    monkeypatch.chdir(tmp_path)  # another folder: the recent entry still opens
    window.recent_menu.aboutToShow.emit()
    entry = [a for a in window.recent_menu.actions() if a.text().endswith("rel.gxsession")][0]
    window.editor.setPlainText("")
    entry.trigger()
    assert window.editor.toPlainText().startswith("w = torch.ones")

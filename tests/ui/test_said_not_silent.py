"""What used to fail silently is said (issue 29): a failing autosave, names looked up in part."""

from gradexplorer import capture

from .conftest import run_and_wait


def test_a_failing_autosave_is_said_once_and_shown_until_it_works_again(qtbot, window):
    folder = window.recovery.slot.folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("a file where the autosave folder should be")  # mkdir fails: FileExistsError
    window.editor.setPlainText("x = 1\n")
    assert window.recovery.autosave_now() is False
    assert window.recovery.autosave_now() is False
    console = window.console.toPlainText()
    assert console.count("Autosave failed") == 1, console
    assert "not protected against a crash" in console
    assert window.autosave_label.text() == "Autosave failed"
    assert str(folder) in window.autosave_label.toolTip()
    folder.unlink()
    assert window.recovery.autosave_now() is True
    assert window.autosave_label.text() == ""


def test_a_failing_capture_autosave_after_a_run_is_said(qtbot, window, monkeypatch):
    def refuse(session, **_options):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(window.recovery.slot, "write_session", refuse)
    window.editor.setPlainText("a = torch.ones(2, requires_grad=True)\n(a * 2).sum().backward()\n")
    run_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: window.autosave_label.text() == "Autosave failed", timeout=10_000)
    assert "Autosave failed: No space left on device" in window.console.toPlainText()


PROGRAM = """\
import torch
w = torch.ones(2, requires_grad=True)
stuff = {"junk": [0] * 300_000, "later": [w * 2]}
stuff["later"][0].sum().backward()
"""


def test_names_looked_up_in_part_are_said_in_the_console(qtbot, window):
    cap = capture(PROGRAM)
    assert any("names were looked up in the first 200,000" in s for s in cap.restored)
    window.editor.setPlainText(PROGRAM)
    run_and_wait(qtbot, window)
    assert "gradexplorer: the program's variables hold more than 200,000 values" in window.console.toPlainText()
    small = capture("import torch\nw = torch.ones(2, requires_grad=True)\n(w * 2).sum().backward()\n")
    assert not any("looked up" in s for s in small.restored)

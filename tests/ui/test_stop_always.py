"""Stop ends every program within 2 s, or says why it cannot and offers to end the app (issue 29).

Each program here once kept running after Stop: the one Stop was swallowed
by a bare ``except:``, a generator's ``finally`` or a ``__del__`` ran on
after the program ended (Stop was not armed there), or a read of the app's
own standard input (directly or from a thread the program started) blocked
where no Stop reaches. A program that makes a Qt widget or quits the
application from the worker crashed or froze the app: it gets a sentence.
"""

from __future__ import annotations

import time

import pytest

from gradexplorer.ui.run_controller import STOP_GRACE_MS

STOPPABLE = {
    "bare_except_loop": "import time\nwhile True:\n    try:\n        time.sleep(0.001)\n    except:\n        pass\n",
    "bare_except_busy": "n = 0\nwhile True:\n    try:\n        n += 1\n    except:\n        n = 0\n",
    "generator_finally": ("def gen():\n    try:\n        yield 1\n    finally:\n        while True:\n            pass\n"
                          "g = gen()\nnext(g)\nprint('program ends')\n"),
    "blocking_del": ("class Stubborn:\n    def __del__(self):\n        import time\n        while True:\n"
                     "            time.sleep(0.01)\ns = Stubborn()\nprint('program ends')\n"),
    "stdin_readline": "import sys\nprint('reading')\nline = sys.stdin.readline()\nprint('got', line)\n",
    "input_in_a_thread": ("import threading\nout = []\nt = threading.Thread(target=lambda: out.append(input('in thread: ')))"
                          "\nt.start()\nt.join()\n"),
}


def _run_until(qtbot, window, started):
    window.run_action.trigger()
    qtbot.waitUntil(started, timeout=10_000)
    qtbot.wait(200)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the interrupted finalizers
@pytest.mark.parametrize("name", sorted(STOPPABLE))
def test_stop_ends_the_program_within_two_seconds(qtbot, window, name):
    window.editor.setPlainText(STOPPABLE[name])
    stuck = []
    window.ask_quit_stuck = lambda why: stuck.append(why) or False
    if name in ("generator_finally", "blocking_del"):  # the program itself ends: its remains run on
        _run_until(qtbot, window, lambda: "program ends" in window.console.toPlainText())
    elif name in ("stdin_readline", "input_in_a_thread"):  # waiting for a line, in the console's input box
        _run_until(qtbot, window, lambda: window.console_pane.waiting)
    else:
        _run_until(qtbot, window, lambda: window.status.text().startswith("Running"))
    assert window.is_running
    pressed = time.monotonic()
    with qtbot.waitSignal(window.run_finished, timeout=STOP_GRACE_MS + 3_000):
        window.stop_action.trigger()
    took = time.monotonic() - pressed
    assert took < STOP_GRACE_MS / 1000, took
    assert stuck == []
    assert not window.is_running
    assert window.status.text().startswith("Stopped"), window.status.text()
    if name in ("generator_finally", "blocking_del"):
        assert "Stop ended it" in window.console.toPlainText()
        assert window.result.capture.error is None  # the program itself had ended well; its picture stays
    else:
        assert window.result.capture.error.kind == "stopped"


def test_stdin_is_the_console_and_a_line_typed_there_reaches_the_program(qtbot, window):
    window.editor.setPlainText("import sys\nline = sys.stdin.readline()\nprint('got', repr(line))\n"
                               "print('rest', repr(sys.stdin.read()))\n")
    window.run_action.trigger()
    qtbot.waitUntil(lambda: window.console_pane.waiting, timeout=10_000)
    with qtbot.waitSignal(window.run_finished, timeout=10_000):
        window.console_pane.input_line.setText("hello")
        window.console_pane.input_line.returnPressed.emit()
        qtbot.waitUntil(lambda: window.console_pane.waiting, timeout=10_000)
        window.runs.provide_input(None)  # the console's Ctrl+D: the end of input
    out = window.result.capture.stdout
    assert "got 'hello\\n'" in out and "rest ''" in out


def test_a_call_that_cannot_be_interrupted_is_said_with_its_line_and_quitting_is_offered(qtbot, window):
    window.editor.setPlainText("import time\ntime.sleep(5)\nprint('slept')\n")
    asked = []
    window.ask_quit_stuck = lambda why: asked.append(why) or False
    _run_until(qtbot, window, lambda: window.status.text().startswith("Running"))
    window.stop_action.trigger()
    qtbot.waitUntil(lambda: bool(asked), timeout=STOP_GRACE_MS + 3_000)
    assert "It is at line 2 (`time.sleep(5)`)" in asked[0]
    assert "quit gradexplorer" in asked[0] and "isolated" in asked[0]
    assert window.status.text() == "The program does not stop (line 2 (`time.sleep(5)`))"
    assert "The program does not stop" in window.console.toPlainText()
    with qtbot.waitSignal(window.run_finished, timeout=10_000):
        pass  # the call returns; the pending Stop ends the program at its next line
    assert window.result.capture.error.kind == "stopped"
    assert "slept" not in window.result.capture.stdout
    assert len(asked) == 1  # said once


def test_quitting_a_program_that_does_not_stop_offers_to_save_then_ends_the_process(qtbot, window, tmp_path):
    window.editor.setPlainText("import time\ntime.sleep(3)\n")
    exits = []
    saves = []
    window.exit_process = exits.append
    window.ask_quit_stuck = lambda why: True
    window.ask_unsaved_changes = lambda: saves.append("asked") or "discard"
    _run_until(qtbot, window, lambda: window.status.text().startswith("Running"))
    window.stop_action.trigger()
    qtbot.waitUntil(lambda: bool(exits), timeout=STOP_GRACE_MS + 3_000)
    assert exits == [0] and saves == ["asked"]
    with qtbot.waitSignal(window.run_finished, timeout=10_000):
        pass


@pytest.mark.parametrize("code, what", [
    ("from PySide6.QtWidgets import QLabel\nlabel = QLabel('from the program')\nlabel.show()\n", "Making a QLabel"),
    ("from PySide6.QtWidgets import QApplication\nQApplication.instance().quit()\n", "QApplication.quit()"),
    ("from PySide6.QtWidgets import QWidget\nclass Mine(QWidget):\n    pass\nMine()\n", "Making a QWidget"),
])
def test_qt_calls_from_the_program_are_refused_with_a_sentence_and_the_app_lives_on(qtbot, window, code, what):
    window.editor.setPlainText(code)
    with qtbot.waitSignal(window.run_finished, timeout=10_000):
        window.run_action.trigger()
    error = window.result.capture.error
    assert error is not None and error.exc_type == "RuntimeError"
    assert f"{what} was refused" in error.message and "isolated" in error.message
    assert window.isVisible()
    window.editor.setPlainText("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    with qtbot.waitSignal(window.run_finished, timeout=10_000):
        window.run_action.trigger()
    assert window.result.capture.error is None

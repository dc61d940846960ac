"""The run's output: stdout, stderr, then the error with its user-only traceback; and the program's input().

Clicking a traceback line (``File "<editor>", line 4``, or a line of the
project's ``model.py``) asks the window to show that line. Output floods
are capped at ``MAX_CHARS``: the console keeps the first and the last half
of it, with a notice between them saying how much it dropped. A carriage return rewrites the current line, as in
a terminal, so a progress bar (``tqdm``) is one updating line, not
thousands. When the program calls ``input()``, the line edit under the
output (:class:`ConsolePane`) takes the line the user types.
"""

from __future__ import annotations

import re

import os

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QVBoxLayout, QWidget

from .language import translator_for

__all__ = ["Console", "ConsolePane"]

_tr = translator_for(__name__)

MAX_CHARS = 200_000
_LINE_REF = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


class Console(QPlainTextEdit):
    """Read-only output pane.

    Signals
    -------
    line_requested(str, int)
        A traceback line of the user's code was clicked: ``(file, line)``,
        file ``""`` for the program, else its path relative to the project
        folder (``"pkg/model.py"``).
    """

    line_requested = Signal(str, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAccessibleName(_tr("Console"))
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.filename = "<editor>"
        #: The project folder: a traceback line of a file under it is a project file.
        self.root = ""
        self._dropped = 0
        #: Where the kept tail of a flood starts (after the head and the notice); None before a flood.
        self._tail_start: int | None = None
        #: The last piece ended in "\r": the next one decides whether it was half of a "\r\n".
        self._pending_cr = False
        self._error_format = QTextCharFormat()
        self._error_format.setForeground(QColor("#d73a49"))
        self._plain_format = QTextCharFormat()

    def reset(self, filename: str, root: str = "") -> None:
        self.clear()
        self.filename = filename
        self.root = root
        self._dropped = 0
        self._tail_start = None
        self._pending_cr = False

    def state(self) -> tuple:
        """What the console shows and knows, for :meth:`restore` (an Open that fails puts it back)."""
        return (self.document().toHtml(), self.filename, self.root, self._dropped, self._tail_start,
                self._pending_cr)

    def restore(self, state: tuple) -> None:
        """Show again what :meth:`state` returned: text with its colours, and where a flood's tail starts."""
        html, self.filename, self.root, self._dropped, self._tail_start, self._pending_cr = state
        self.document().setHtml(html)
        self.moveCursor(QTextCursor.MoveOperation.End)

    def append_output(self, stream: str, text: str) -> None:
        """Append program output (stderr in red); a flood keeps its head and its tail.

        Past ``MAX_CHARS / 2`` characters the console writes a notice and
        from then on keeps only the last ``MAX_CHARS / 2`` characters after
        it (whole lines, oldest dropped first): the end of a long run (the
        final loss, ``done``) stays on screen.
        """
        fmt = self._error_format if stream == "stderr" else self._plain_format
        if self._tail_start is None:
            room = MAX_CHARS // 2 - self.document().characterCount()
            if len(text) <= room:
                self._insert_rewriting(text, fmt)
                return
            # The head ends at the last line break that fits; the notice, then the rest as the tail.
            cut = text.rfind("\n", 0, max(room, 0)) + 1
            self._insert_rewriting(text[:cut], fmt)
            if not self.toPlainText().endswith("\n"):
                self._insert("\n", self._plain_format)
            self._insert(self._notice(), self._error_format)
            self._tail_start = self.document().characterCount() - 1
            text = text[cut:]
        self._insert_rewriting(text, fmt)
        excess = self.document().characterCount() - self._tail_start - MAX_CHARS // 2
        if excess > 0:
            self._drop_tail_head(excess)

    def _notice(self) -> str:
        return (_tr("[output capped at {most:,} characters: the first and the last {half:,} are shown; "
                    "{dropped:,} characters in between are not]\n").format(
            most=MAX_CHARS, half=MAX_CHARS // 2, dropped=self._dropped))

    def _drop_tail_head(self, excess: int) -> None:
        """Remove at least ``excess`` characters, whole lines, from the start of the kept tail."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self._tail_start)
        cursor.setPosition(min(self._tail_start + excess, self.document().characterCount() - 1),
                           QTextCursor.MoveMode.KeepAnchor)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cursor.movePosition(QTextCursor.MoveOperation.NextCharacter, QTextCursor.MoveMode.KeepAnchor)
        self._dropped += len(cursor.selectedText())
        cursor.removeSelectedText()
        # The notice is the block just before the tail: its count follows.
        notice = QTextCursor(self.document())
        notice.setPosition(self._tail_start - 1)
        notice.movePosition(QTextCursor.MoveOperation.StartOfBlock)
        notice.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        old = len(notice.selectedText())
        text = self._notice().rstrip("\n")
        notice.insertText(text, self._error_format)
        self._tail_start += len(text) - old

    def append_message(self, text: str, *, error: bool = False) -> None:
        """Append a message from gradexplorer (not counted against the cap)."""
        if self.toPlainText() and not self.toPlainText().endswith("\n"):
            self._insert("\n", self._plain_format)
        self._insert(text.rstrip("\n") + "\n", self._error_format if error else self._plain_format)

    def _insert_rewriting(self, text: str, fmt: QTextCharFormat) -> None:
        """Insert program output, a carriage return starting the current line over (as a terminal does)."""
        if self._pending_cr:
            self._pending_cr = False
            if text.startswith("\n"):
                text = text[1:]
                self._insert("\n", fmt)
            else:
                self._clear_last_line()
        if text.endswith("\r"):
            self._pending_cr = True
            text = text[:-1]
        text = text.replace("\r\n", "\n")
        if "\r" not in text:
            if text:
                self._insert(text, fmt)
            return
        for i, line in enumerate(text.split("\n")):
            if i:
                self._insert("\n", fmt)
            if "\r" in line:
                self._clear_last_line()
                line = line.rsplit("\r", 1)[1]
            if line:
                self._insert(line, fmt)

    def _clear_last_line(self) -> None:
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        self.setTextCursor(cursor)

    def _insert(self, text: str, fmt: QTextCharFormat) -> None:
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text, fmt)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def line_at(self, block_number: int) -> tuple[str, int] | None:
        """``(file, line)`` of the user's code a console block refers to, if it is a traceback line.

        ``file`` is ``""`` for the program and the path relative to the
        project folder for the project's other files; lines of other files
        (the standard library, torch) are not the user's: None.
        """
        block = self.document().findBlockByNumber(block_number)
        match = _LINE_REF.search(block.text()) if block.isValid() else None
        if match is None:
            # The source text under a "File ..." line belongs to it too.
            previous = self.document().findBlockByNumber(block_number - 1)
            match = _LINE_REF.search(previous.text()) if previous.isValid() else None
        if match is None:
            return None
        path, line = match.group("file"), int(match.group("line"))
        if path == self.filename:
            return "", line
        root = self.root.rstrip(os.sep) + os.sep if self.root else ""
        if root and os.path.isabs(path) and path.startswith(root):
            return os.path.relpath(path, self.root).replace(os.sep, "/"), line
        return None

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            place = self.line_at(self.cursorForPosition(event.position().toPoint()).blockNumber())
            if place is not None:
                self.line_requested.emit(*place)


class ConsolePane(QWidget):
    """The console and, under it, the line the program's ``input()`` reads (shown only while it waits).

    Signals
    -------
    input_entered(object)
        The line the user typed (a str), or None when they closed the input
        (Ctrl+D, as at a terminal: the program gets an EOFError).
    """

    input_entered = Signal(object)

    def __init__(self, console: Console, parent=None) -> None:
        super().__init__(parent)
        self.console = console
        self.input_line = QLineEdit()
        self.input_line.setAccessibleName(_tr("Program input"))
        self.input_line.setPlaceholderText(_tr("Your program is waiting for input(): type a line and press Enter "
                                           "(Ctrl+D: no more input)"))
        self.input_line.setVisible(False)
        self.input_line.returnPressed.connect(self._on_input_line_return_pressed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(console, 1)
        layout.addWidget(self.input_line)
        self.input_line.installEventFilter(self)

    @property
    def waiting(self) -> bool:
        """Whether the program waits for a line."""
        return self.input_line.isVisible()

    def ask(self, prompt: str) -> None:
        """Show the input line (the prompt is already in the console, as the program printed it)."""
        self.input_line.clear()
        self.input_line.setVisible(True)
        self.input_line.setFocus()

    def cancel(self) -> None:
        """The run ended while waiting: hide the input line."""
        self.input_line.setVisible(False)

    def _on_input_line_return_pressed(self) -> None:
        text = self.input_line.text()
        self.input_line.setVisible(False)
        self.console.append_output("stdout", text + "\n")  # echoed, as a terminal shows what was typed
        self.input_entered.emit(text)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        # Kept tiny (PySide6 swallows exceptions in overrides): Ctrl+D closes the input.
        if watched is self.input_line and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_D \
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.input_line.setVisible(False)
            self.input_entered.emit(None)
            return True
        return super().eventFilter(watched, event)

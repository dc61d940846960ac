"""The run's output: stdout, stderr, then the error with its user-only traceback.

Clicking a traceback line (``File "<editor>", line 4``) asks the window to
move the editor there. Output floods are capped: past ``MAX_CHARS`` the
console says how much it dropped instead of growing without end.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

__all__ = ["Console"]

MAX_CHARS = 200_000
_LINE_REF = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


class Console(QPlainTextEdit):
    """Read-only output pane.

    Signals
    -------
    line_requested(int)
        A traceback line of the user's file was clicked.
    """

    line_requested = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setAccessibleName("Console")
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.filename = "<editor>"
        self._chars = 0
        self._dropped = 0
        self._error_format = QTextCharFormat()
        self._error_format.setForeground(QColor("#d73a49"))
        self._plain_format = QTextCharFormat()

    def reset(self, filename: str) -> None:
        self.clear()
        self.filename = filename
        self._chars = 0
        self._dropped = 0

    def append_output(self, stream: str, text: str) -> None:
        """Append program output (stderr in red), within the flood cap."""
        room = MAX_CHARS - self._chars
        if room <= 0:
            self._dropped += len(text)
            return
        piece = text[:room]
        self._dropped += len(text) - len(piece)
        self._chars += len(piece)
        self._insert(piece, self._error_format if stream == "stderr" else self._plain_format)
        if self._dropped and self._chars >= MAX_CHARS:
            self._insert(f"\n[output capped at {MAX_CHARS:,} characters; the rest is not shown]\n",
                         self._error_format)

    def append_message(self, text: str, *, error: bool = False) -> None:
        """Append a message from gradexplorer (not counted against the cap)."""
        if self.toPlainText() and not self.toPlainText().endswith("\n"):
            self._insert("\n", self._plain_format)
        self._insert(text.rstrip("\n") + "\n", self._error_format if error else self._plain_format)

    def _insert(self, text: str, fmt: QTextCharFormat) -> None:
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text, fmt)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def line_at(self, block_number: int) -> int | None:
        """The user-file line a console block refers to, if it is a traceback line."""
        block = self.document().findBlockByNumber(block_number)
        match = _LINE_REF.search(block.text()) if block.isValid() else None
        if match is None:
            # The source text under a "File ..." line belongs to it too.
            previous = self.document().findBlockByNumber(block_number - 1)
            match = _LINE_REF.search(previous.text()) if previous.isValid() else None
        if match is None or match.group("file") != self.filename:
            return None
        return int(match.group("line"))

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            line = self.line_at(self.cursorForPosition(event.position().toPoint()).blockNumber())
            if line is not None:
                self.line_requested.emit(line)

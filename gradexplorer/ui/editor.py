"""The code editor: Pygments highlighting, line numbers, current line, error mark.

Highlighting uses Pygments' maintained Python lexer line by line (a
``QSyntaxHighlighter`` sees one block at a time); the block state carries
"inside a triple-quoted string" from one line to the next.
"""

from __future__ import annotations

import re

from pygments.lexers import PythonLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, String, Token
from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from .language import translator_for

__all__ = ["CodeEditor", "PythonHighlighter"]

_tr = translator_for(__name__)

_NORMAL, _IN_SINGLE_TRIPLE, _IN_DOUBLE_TRIPLE = 0, 1, 2
_DELIMITER = {_IN_SINGLE_TRIPLE: "'''", _IN_DOUBLE_TRIPLE: '"""'}


def _is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


class PythonHighlighter(QSyntaxHighlighter):
    """Python colouring from Pygments tokens, adapted to light and dark palettes."""

    def __init__(self, document, palette: QPalette) -> None:
        super().__init__(document)
        self._lexer = PythonLexer(stripnl=False, ensurenl=False)
        self.set_palette(palette)

    def set_palette(self, palette: QPalette) -> None:
        dark = _is_dark(palette)

        def fmt(light: str, night: str, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
            f = QTextCharFormat()
            f.setForeground(QColor(night if dark else light))
            if bold:
                f.setFontWeight(QFont.Weight.Bold)
            f.setFontItalic(italic)
            return f

        self._formats = [
            (Comment, fmt("#6a737d", "#8b949e", italic=True)),
            (String, fmt("#22863a", "#a5d6ff")),
            (Number, fmt("#005cc5", "#79c0ff")),
            (Keyword, fmt("#d73a49", "#ff7b72", bold=True)),
            (Name.Builtin, fmt("#6f42c1", "#d2a8ff")),
            (Name.Function, fmt("#6f42c1", "#d2a8ff")),
            (Name.Class, fmt("#6f42c1", "#d2a8ff", bold=True)),
            (Name.Decorator, fmt("#e36209", "#ffa657")),
            (Operator.Word, fmt("#d73a49", "#ff7b72", bold=True)),
        ]
        self._string = dict(self._formats)[String]
        self.rehighlight()

    def _format_for(self, token) -> QTextCharFormat | None:
        for kind, f in self._formats:
            if token in kind:
                return f
        return None

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt API
        # Kept small: PySide6 swallows exceptions raised in virtual overrides.
        start = 0
        state = self.previousBlockState()
        if state in _DELIMITER:
            end = text.find(_DELIMITER[state])
            if end < 0:
                self.setFormat(0, len(text), self._string)
                self.setCurrentBlockState(state)
                return
            start = end + 3
            self.setFormat(0, start, self._string)
        self.setCurrentBlockState(_NORMAL)
        for offset, token, value in self._lexer.get_tokens_unprocessed(text[start:]):
            f = self._format_for(token)
            if f is not None:
                self.setFormat(start + offset, len(value), f)
            if token in String and value[:3] in ("'''", '"""') and (len(value) < 6 or not value.endswith(value[:3])):
                self.setCurrentBlockState(_IN_SINGLE_TRIPLE if value[0] == "'" else _IN_DOUBLE_TRIPLE)
            elif token is Token.Error and text[start + offset:start + offset + 3] in ("'''", '"""'):
                quote = text[start + offset]
                self.setFormat(start + offset, len(text) - start - offset, self._string)
                self.setCurrentBlockState(_IN_SINGLE_TRIPLE if quote == "'" else _IN_DOUBLE_TRIPLE)
                return


class _LineNumberArea(QWidget):
    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return QSize(self._editor.line_number_width(), 0)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        self._editor.paint_line_numbers(event)


class CodeEditor(QPlainTextEdit):
    """A Python editor with line numbers, a current-line band and an error mark.

    Signals
    -------
    line_activated(int)
        The user clicked on a line (1-based): the window selects its nodes.
    """

    line_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("Code editor"))
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSize(max(font.pointSize(), 10))
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self._error_line: int | None = None
        self._numbers = _LineNumberArea(self)
        self.highlighter = PythonHighlighter(self.document(), self.palette())
        self.blockCountChanged.connect(self._on_block_count_changed)
        self.updateRequest.connect(self._on_update_request)
        self.cursorPositionChanged.connect(self._refresh_selections)
        self._on_block_count_changed()
        self._refresh_selections()

    # -- public API ----------------------------------------------------------------
    @property
    def error_line(self) -> int | None:
        """The line marked as failing, or None."""
        return self._error_line

    def set_error_line(self, line: int | None) -> None:
        """Mark ``line`` (1-based) as the failing line, or clear the mark."""
        self._error_line = line
        self._refresh_selections()
        self._numbers.update()

    def go_to_line(self, line: int) -> None:
        """Put the cursor at the start of ``line`` and scroll it into view."""
        block = self.document().findBlockByNumber(max(line - 1, 0))
        if block.isValid():
            cursor = QTextCursor(block)
            self.setTextCursor(cursor)
            self.centerCursor()
            self.setFocus()

    def current_line(self) -> int:
        return self.textCursor().blockNumber() + 1

    # -- line numbers ---------------------------------------------------------------
    def line_number_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 14 + self.fontMetrics().horizontalAdvance("9") * max(digits, 2)

    def _on_block_count_changed(self, _count: int = 0) -> None:
        self.setViewportMargins(self.line_number_width(), 0, 0, 0)

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._numbers.scroll(0, dy)
        else:
            self._numbers.update(0, rect.y(), self._numbers.width(), rect.height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        rect = self.contentsRect()
        self._numbers.setGeometry(QRect(rect.left(), rect.top(), self.line_number_width(), rect.height()))

    def paint_line_numbers(self, event) -> None:
        painter = QPainter(self._numbers)
        palette = self.palette()
        painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.AlternateBase))
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        height = self.fontMetrics().height()
        current = self.textCursor().blockNumber()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                line = number + 1
                if line == self._error_line:
                    painter.fillRect(0, top, self._numbers.width(), height, QColor("#d73a49"))
                    painter.setPen(QColor("white"))
                elif number == current:
                    painter.setPen(palette.color(QPalette.ColorRole.Text))
                else:
                    painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
                painter.drawText(0, top, self._numbers.width() - 6, height, Qt.AlignmentFlag.AlignRight, str(line))
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    # -- highlighting of the current and the error line -------------------------------
    def _refresh_selections(self) -> None:
        selections = []
        dark = _is_dark(self.palette())
        current = QTextEdit.ExtraSelection()
        current.format.setBackground(QColor("#2a2f37" if dark else "#f3f6fa"))
        current.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        current.cursor = self.textCursor()
        current.cursor.clearSelection()
        selections.append(current)
        if self._error_line is not None:
            block = self.document().findBlockByNumber(self._error_line - 1)
            if block.isValid():
                error = QTextEdit.ExtraSelection()
                error.format.setBackground(QColor("#5a1e24" if dark else "#ffdce0"))
                error.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                error.cursor = QTextCursor(block)
                selections.append(error)
        self.setExtraSelections(selections)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and not self.textCursor().hasSelection():
            self.line_activated.emit(self.current_line())

    # -- typing Python: indentation by four spaces, comments ----------------------------------
    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt API
        # Kept tiny (PySide6 swallows exceptions in overrides): the work is in the methods below.
        action = None if self.isReadOnly() else _KEY_ACTIONS.get((event.key(), (event.modifiers() & _MODIFIERS).value))
        if action is None:
            super().keyPressEvent(event)
        else:
            getattr(self, action)()

    def _selected_blocks(self):
        """The blocks the selection touches (the cursor's block without one)."""
        cursor = self.textCursor()
        document = self.document()
        first = document.findBlock(cursor.selectionStart())
        last = document.findBlock(cursor.selectionEnd())
        if cursor.hasSelection() and last.position() == cursor.selectionEnd() and last != first:
            last = last.previous()  # a selection ending at a line's start does not take that line
        blocks = [first]
        while blocks[-1] != last and blocks[-1].isValid():
            blocks.append(blocks[-1].next())
        return blocks

    def _edit_blocks(self, change) -> None:
        """Apply ``change(text) -> text`` to each touched line, as one undo step, keeping them selected."""
        blocks = self._selected_blocks()
        cursor = self.textCursor()
        had_selection = cursor.hasSelection()
        cursor.beginEditBlock()
        for block in blocks:
            new = change(block.text())
            if new != block.text():
                edit = QTextCursor(block)
                edit.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
                edit.insertText(new)
        cursor.endEditBlock()
        if had_selection:
            cursor.setPosition(blocks[0].position())
            cursor.setPosition(blocks[-1].position() + len(blocks[-1].text()), QTextCursor.MoveMode.KeepAnchor)
            self.setTextCursor(cursor)

    def indent(self) -> None:
        """Tab: with a selection, indent its lines by four spaces; else spaces to the next multiple of four."""
        cursor = self.textCursor()
        if cursor.hasSelection():
            self._edit_blocks(lambda text: INDENT + text if text.strip() else text)
            return
        column = cursor.positionInBlock()
        cursor.insertText(" " * (len(INDENT) - column % len(INDENT)))

    def dedent(self) -> None:
        """Shift+Tab: take up to four leading spaces off each touched line."""
        def dedented(text: str) -> str:
            spaces = len(text) - len(text.lstrip(" "))
            return text[min(spaces, len(INDENT)):]

        column = self.textCursor().positionInBlock()
        self._edit_blocks(dedented)
        if not self.textCursor().hasSelection() and column:
            cursor = self.textCursor()
            cursor.setPosition(cursor.block().position() + max(column - len(INDENT), 0))
            self.setTextCursor(cursor)

    def new_line(self) -> None:
        """Enter: a new line indented like this one, one level more after ``:``, one less after ``return``."""
        cursor = self.textCursor()
        before = cursor.block().text()[:cursor.positionInBlock()]
        indent = before[:len(before) - len(before.lstrip(" \t"))]
        code = _code_part(before).rstrip()
        if code.endswith(":"):
            indent += INDENT
        elif _ENDS_BLOCK.match(code.strip()) and len(indent) >= len(INDENT):
            indent = indent[:-len(INDENT)]
        cursor.insertText("\n" + indent)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def toggle_comment(self) -> None:
        """Ctrl+/: comment the touched lines out (``# `` at their smallest indentation), or back in."""
        blocks = self._selected_blocks()
        texts = [b.text() for b in blocks if b.text().strip()]
        if not texts:
            return
        if all(t.lstrip().startswith("#") for t in texts):
            def change(text: str) -> str:
                stripped = text.lstrip()
                if not stripped.startswith("#"):
                    return text
                lead = text[:len(text) - len(stripped)]
                body = stripped[2:] if stripped.startswith("# ") else stripped[1:]
                return lead + body
        else:
            column = min(len(t) - len(t.lstrip()) for t in texts)

            def change(text: str) -> str:
                return text[:column] + "# " + text[column:] if text.strip() else text
        self._edit_blocks(change)

    def set_word_wrap(self, wrap: bool) -> None:
        """Wrap long lines at the window's edge (View > Wrap Long Lines), or scroll sideways."""
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap)


#: One level of indentation: four spaces, as PEP 8 and the examples (a Tab key never inserts a tab).
INDENT = "    "
_ENDS_BLOCK = re.compile(r"^(return|pass|break|continue|raise)\b")
_MODIFIERS = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
#: ``(key, modifiers) -> method``: the keys the editor handles itself.
_SHIFT, _CONTROL = Qt.KeyboardModifier.ShiftModifier.value, Qt.KeyboardModifier.ControlModifier.value
_KEY_ACTIONS = {
    (Qt.Key.Key_Tab.value, 0): "indent",
    (Qt.Key.Key_Backtab.value, _SHIFT): "dedent",
    (Qt.Key.Key_Backtab.value, 0): "dedent",
    (Qt.Key.Key_Return.value, 0): "new_line",
    (Qt.Key.Key_Enter.value, 0): "new_line",
    (Qt.Key.Key_Slash.value, _CONTROL): "toggle_comment",
}


def _code_part(line: str) -> str:
    """The line without a trailing ``# comment`` (a ``#`` inside a string is kept, by a simple scan)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:i]
    return line

"""The code editor on its own."""

from PySide6.QtGui import QColor

from gradexplorer.ui.editor import CodeEditor


def _formats(editor, line):
    block = editor.document().findBlockByNumber(line - 1)
    return [(r.start, r.length, r.format.foreground().color()) for r in block.layout().formats()]


def test_keywords_strings_and_comments_are_coloured(qtbot):
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText("import torch  # 註解\nx = 'text'\n")
    first = _formats(editor, 1)
    assert first, "line 1 got no highlighting"
    assert any(start == 0 and length == 6 for start, length, _ in first)  # 'import'
    comment_start = editor.document().findBlockByNumber(0).text().index("#")
    assert any(start == comment_start for start, _, _ in first)
    assert any(start == 4 for start, _, _ in _formats(editor, 2))  # the string


def test_triple_quoted_string_spans_lines(qtbot):
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText('doc = """first\nstill in the string import\nend"""\nimport os\n')
    middle = _formats(editor, 2)
    assert middle and middle[0][0] == 0 and middle[0][1] == len("still in the string import")
    assert editor.document().findBlockByNumber(1).userState() != 0
    assert editor.document().findBlockByNumber(3).userState() == 0


def test_error_line_mark_and_go_to_line(qtbot):
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText("a\nb\nc\nd\n")
    editor.set_error_line(3)
    assert editor.error_line == 3
    backgrounds = [s.format.background().color() for s in editor.extraSelections()]
    assert QColor("#ffdce0") in backgrounds or QColor("#5a1e24") in backgrounds
    editor.go_to_line(2)
    assert editor.current_line() == 2
    editor.set_error_line(None)
    assert len(editor.extraSelections()) == 1


def test_unicode_round_trip(qtbot):
    editor = CodeEditor()
    qtbot.addWidget(editor)
    text = "# 在進行 back-propagation 時\nb = a  # 只是名字換了\n"
    editor.setPlainText(text)
    assert editor.toPlainText() == text


def _editor(qtbot, text: str = ""):
    from gradexplorer.ui.editor import CodeEditor

    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText(text)
    editor.show()
    qtbot.waitExposed(editor)
    editor.setFocus()
    return editor


def _put_cursor(editor, line: int, column: int = -1, *, select_to_line: int | None = None):
    from PySide6.QtGui import QTextCursor

    block = editor.document().findBlockByNumber(line - 1)
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + (len(block.text()) if column < 0 else column))
    if select_to_line is not None:
        end = editor.document().findBlockByNumber(select_to_line - 1)
        cursor.setPosition(end.position() + len(end.text()), QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cursor)


def test_enter_indents_after_a_colon_and_keeps_the_indentation(qtbot):
    from PySide6.QtCore import Qt

    editor = _editor(qtbot, "def f(x):")
    _put_cursor(editor, 1)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "y = x * 2")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "return y")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "z = f(3)  # a comment: not a block")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "print(z)")
    assert editor.toPlainText() == "def f(x):\n    y = x * 2\n    return y\nz = f(3)  # a comment: not a block\nprint(z)"
    compile(editor.toPlainText(), "<typed>", "exec")  # what was typed runs: no TabError


def test_tab_inserts_spaces_and_indents_or_dedents_a_selection(qtbot):
    from PySide6.QtCore import Qt

    editor = _editor(qtbot, "a = 1\nb = 2\nc = 3")
    _put_cursor(editor, 1, 0)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText().splitlines()[0] == "    a = 1" and "\t" not in editor.toPlainText()
    _put_cursor(editor, 2, 0, select_to_line=3)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == "    a = 1\n    b = 2\n    c = 3"  # the selection is indented, not replaced
    _put_cursor(editor, 1, 0, select_to_line=3)
    qtbot.keyClick(editor, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert editor.toPlainText() == "a = 1\nb = 2\nc = 3"
    editor.undo()
    assert editor.toPlainText() == "    a = 1\n    b = 2\n    c = 3"  # one undo step


def test_ctrl_slash_comments_and_uncomments_lines(qtbot):
    from PySide6.QtCore import Qt

    editor = _editor(qtbot, "x = 1\n    y = 2\n\nz = 3")
    _put_cursor(editor, 1, 0, select_to_line=4)
    qtbot.keyClick(editor, Qt.Key.Key_Slash, Qt.KeyboardModifier.ControlModifier)
    assert editor.toPlainText() == "# x = 1\n#     y = 2\n\n# z = 3"
    qtbot.keyClick(editor, Qt.Key.Key_Slash, Qt.KeyboardModifier.ControlModifier)
    assert editor.toPlainText() == "x = 1\n    y = 2\n\nz = 3"


def test_long_lines_wrap_when_asked(qtbot, window):
    from PySide6.QtWidgets import QPlainTextEdit

    assert window.editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.NoWrap
    window.wrap_action.trigger()
    assert window.editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth

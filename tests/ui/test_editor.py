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

"""The bundled examples in Traditional Chinese: the same code, line for line, with the comments translated.

The lessons point at line numbers ("`b = a + 0` ... (line 3)"), the README and
the tests at lines and values: a translated example that moved or changed a
line of code would teach something else.
"""

from __future__ import annotations

import io
import re
import tokenize

import pytest

from gradexplorer.resources import example_paths, read_example, resource_root

ENGLISH = example_paths()


def _code_lines(text: str) -> list[str]:
    """Each line with its comment (a real one, as Python's tokenizer finds it, not a ``#`` in a string) cut off."""
    lines = text.split("\n")
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        if t.type == tokenize.COMMENT:
            row, column = t.start
            lines[row - 1] = lines[row - 1][:column]
    return [line.rstrip() for line in lines]


def _comments(text: str) -> list[tuple[int, str]]:
    return [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_a_translated_example_is_the_same_code_line_for_line_with_its_comments_in_chinese(path):
    english = path.read_text(encoding="utf-8")
    chinese = read_example(path.stem, "zh_TW")
    assert chinese != english
    assert _code_lines(chinese) == _code_lines(english)
    assert [line for line, _ in _comments(chinese)] == [line for line, _ in _comments(english)]
    # Every comment rewritten (a line that only continues an expression, too: its full stop is Chinese).
    assert all(zh != en for (_, zh), (_, en) in zip(_comments(chinese), _comments(english)))
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", text)) for _, text in _comments(chinese)) >= \
        len(_comments(chinese)) - 1


def test_every_example_has_its_translation_and_english_stays_the_default():
    assert [p.name for p in example_paths("zh_TW")] == [p.name for p in ENGLISH]
    assert all(p.parent.name == "zh_TW" for p in example_paths("zh_TW"))
    assert example_paths() == example_paths("en") == sorted((resource_root() / "examples").glob("*.py"))
    assert read_example("01_no_grad_alias", "xx") == read_example("01_no_grad_alias")  # no such language: English

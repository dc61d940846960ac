"""Lines of the user's code as records point at them: the program's and its project's other files.

A :class:`SourceLine` is how every record says where something happened;
:class:`SourceText` turns the places the recorder noted into them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SourceLine", "SourceText", "source_line"]


@dataclass(frozen=True)
class SourceLine:
    """A line of the user's code: 1-based number, its text (stripped), and its file.

    ``file`` is None for the program itself (the editor's text, the script
    that was run) and the path relative to the project folder for the
    project's other files (``"pkg/model.py"``, where a model's ``forward``
    made the op).
    """

    line: int
    text: str
    file: str | None = None

    def where(self) -> str:
        """``"line 12"`` in the program, ``"line 12 of pkg/model.py"`` in another file."""
        return f"line {self.line}" if self.file is None else f"line {self.line} of {self.file}"


class SourceText:
    """The user's code, as source lines read it: the program's lines and the project's other files.

    Parameters
    ----------
    lines : list of str
        The program's lines.
    files : dict of str to str, optional
        The text of each other project file, by its shown path
        (:attr:`gradexplorer.core.capture.project.Project.texts`).
    """

    __slots__ = ("lines", "files", "_split")

    def __init__(self, lines: list[str], files: dict[str, str] | None = None) -> None:
        self.lines = lines
        self.files = files if files is not None else {}
        self._split: dict[str, list[str]] = {}

    def source_line(self, where) -> SourceLine | None:
        """The :class:`SourceLine` of a recorded place: an ``int`` line of the program, or a line of another
        file (anything with ``file`` and ``line``, such as the recorder's ``FileLine``); None for no place."""
        if where is None:
            return None
        if type(where) is int:
            return source_line(self.lines, where)
        lines = self._split.get(where.file)
        if lines is None:
            lines = self._split[where.file] = self.files.get(where.file, "").splitlines()
        line = where.line
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return SourceLine(line, text, where.file)


def source_line(lines: list[str], line: int | None) -> SourceLine | None:
    """Line ``line`` (1-based) of the program as a :class:`SourceLine`; None for no line."""
    if line is None:
        return None
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return SourceLine(line, text)

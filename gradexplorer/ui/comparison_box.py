"""The inspector's comparison box: the node in both runs of a comparison, side by side or one above the other.

While the picture compares this run with a saved one (File > Compare with
Session, :mod:`gradexplorer.ui.comparison`), the inspector shows each fact
of the node in run A and run B with their difference (amber where they
differ, grey where they agree). A wide inspector shows a table; a narrow one
shows each row as lines (Qt's rich-text tables do not shrink below their
longest words: a narrow dock cut them off).
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout

from ..core.io.diff_report import SAME
from .language import phrase_text, translator_for

__all__ = ["COMPARISON_TABLE_WIDTH", "ComparisonBox"]

_tr = translator_for(__name__)

#: The comparison's difference: amber where the runs differ, grey where they agree.
_DIFFERS, _SAME = "#b35900", "#6e7781"
#: From this inspector width (pixels) a comparison shows A and B side by side, in a table; below it, one
#: above the other.
COMPARISON_TABLE_WIDTH = 620


class ComparisonBox(QGroupBox):
    """A titled box (hidden while nothing is compared) with the comparison's rows in one rich-text label."""

    def __init__(self, parent=None) -> None:
        super().__init__(_tr("Compared with another run"), parent)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName(_tr("Comparison"))
        self.label.setTextFormat(Qt.TextFormat.RichText)
        QVBoxLayout(self).addWidget(self.label)
        self.setVisible(False)
        self.rows: list[tuple[str, str, str, str]] = []
        self._labels = ("A", "B")

    def show_rows(self, status: str | None, rows, width: int, *, a_label: str = "A", b_label: str = "B") -> None:
        """Show ``rows`` of ``(what, run A, run B, difference)`` under ``status`` ("changed, matched by name"),
        laid out for an inspector ``width`` pixels wide; None hides the box (no comparison on screen)."""
        self.rows = list(rows) if status is not None else []
        self._labels = (a_label, b_label)
        self.setVisible(status is not None)
        if status is None:
            self.label.setText("")
            return
        self.setTitle(_tr("Compared: {status}").format(status=status))
        self.render_for(width)

    def render_for(self, width: int) -> None:
        """Lay the rows out again for an inspector ``width`` pixels wide (a table, or lines when narrow)."""
        (a_label, b_label) = self._labels
        heading = f"A: {html.escape(a_label)}<br>B: {html.escape(b_label)}"
        if layout_for(width) == "table":
            body = "".join(
                f"<tr><td><b>{_breakable(what)}</b></td><td>{_breakable(a)}</td><td>{_breakable(b)}</td>"
                f"<td style='color:{_SAME if not diff or _same(diff) else _DIFFERS}'>{html.escape(diff)}</td></tr>"
                for what, a, b, diff in self.rows)
            self.label.setText(
                f"{heading}<table cellspacing='0' cellpadding='2'><tr><th></th><th align='left'>A</th>"
                f"<th align='left'>B</th><th align='left'>{_tr('difference')}</th></tr>{body}</table>")
        else:
            self.label.setText(f"{heading}<br><br>" + "<br>".join(_comparison_row(*row) for row in self.rows))


def layout_for(width: int) -> str:
    """``"table"`` (A and B side by side: the inspector is wide) or ``"lines"`` (A above B: it is narrow)."""
    return "table" if width >= COMPARISON_TABLE_WIDTH else "lines"


def _comparison_row(what: str, a: str, b: str, diff: str) -> str:
    """One row of a comparison in a narrow inspector, as HTML lines: the name and the difference (in its
    colour), then A and B; what both runs share is written once (a wide one shows a table).
    """
    note = f" <span style='color:{_SAME if _same(diff) else _DIFFERS}'>{html.escape(diff)}</span>" if diff else ""
    if a == b:
        return f"<b>{_breakable(what)}</b>: {_breakable(a)}{note}"
    if "—" in (a, b):  # a node in one run only: its facts in one line each
        only = f" <span style='color:{_SAME}'>{_tr('(only in A)') if b == '—' else _tr('(only in B)')}</span>"
        return f"<b>{_breakable(what)}</b>: {_breakable(a if b == '—' else b)}{only}{note}"
    return (f"<b>{_breakable(what)}</b>{note}<br>&nbsp;&nbsp;A: {_breakable(a)}"
            f"<br>&nbsp;&nbsp;B: {_breakable(b)}")


def _same(diff: str) -> bool:
    """Whether a comparison row's difference says "same" (in the language it was said in)."""
    return diff == phrase_text(SAME)


def _breakable(text: str) -> str:
    """``text`` as HTML that may wrap after a dot or an underscore before a letter (never inside a number):
    ``model.embed.weight``, ``grad_switched_off``.

    Qt's rich text wraps a table cell only at spaces; without this a long name
    pushes the comparison table past a narrow inspector.
    """
    return re.sub(r"([._])(?=[A-Za-z])", "\\1\u200b", html.escape(text))

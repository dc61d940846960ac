"""The inspector's table of a leaf's ``.grad``, pass by pass: before, what the pass delivered, after, and why.

What a user debugging a training loop looks for first: which pass filled
``.grad``, which added to it, which found it reset or edited, where a hook
took it, where a pass raised. Its rows come from the capture's per-pass
accounting (:func:`~gradexplorer.core.analysis.accounting.leaf_steps_of`,
made once per capture), never recomputed here.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from ..core.records.tensors import TensorRecord
from .language import N_, translator_for

__all__ = ["LeafPassTable", "short_record"]

_tr = translator_for(__name__)

#: What a pass did to the leaf's ``.grad``, short, for the table's narrow column.
_STEP_SHORT = {"filled": N_("filled"), "added": N_("added"), "consumed": N_("taken by a hook"),
               "changed": N_("changed by a hook"), "none": N_("nothing arrived"),
               "reduced": N_("averaged over processes (DDP)")}
#: What happened to ``.grad`` before the pass, short.
_BEFORE_SHORT = {"preexisting": N_("had a value"), "reset": N_("reset before"), "edited": N_("edited before"),
                 "first": "", "kept": ""}


def short_record(record: TensorRecord | None) -> str:
    """A tensor record in a few characters (``None`` for none): a table cell's text."""
    return "None" if record is None else record.short(width=28)


class LeafPassTable(QTableWidget):
    """One row per pass that reached the leaf: pass number, ``.grad`` before, delivered, after, what happened."""

    def __init__(self, parent=None) -> None:
        super().__init__(0, 5, parent)
        self.setAccessibleName(_tr("Leaf gradient per pass"))
        self.setHorizontalHeaderLabels([_tr("Pass"), _tr(".grad before"), _tr("Delivered"), _tr(".grad after"),
                                        _tr("What happened")])
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setMaximumHeight(150)
        self.setWordWrap(False)

    def fill(self, steps, passes) -> None:
        """Show the leaf's ``steps`` (:class:`~gradexplorer.core.analysis.accounting.LeafStep`; empty: hidden);
        ``passes``: the capture's pass summaries (a pass that raised says so)."""
        self.setRowCount(len(steps))
        for row, step in enumerate(steps):
            raised = step.index < len(passes) and passes[step.index].raised
            what = ", ".join(w for w in (_tr(_BEFORE_SHORT[step.before_change]), _tr(_STEP_SHORT[step.effect]),
                                         _tr("pass raised") if raised else "") if w)
            for column, text in enumerate([str(step.index + 1), short_record(step.before),
                                           short_record(step.delivered), short_record(step.after), what]):
                self.setItem(row, column, QTableWidgetItem(text))
        self.setVisible(bool(steps))
        self.resizeRowsToContents()
        header = self.horizontalHeader().sizeHint().height()
        self.setMaximumHeight(min(150, header + 24 * len(steps) + 22))

    def rows(self) -> list[list[str]]:
        """The table as text (what a user reads)."""
        return [[self.item(r, c).text() for c in range(self.columnCount())] for r in range(self.rowCount())]

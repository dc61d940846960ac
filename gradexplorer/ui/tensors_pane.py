"""Every named tensor with the reason it does (or does not) get a gradient."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from .language import N_, phrase_text, translator_for
from .pending_note import PendingNote

__all__ = ["SEVERITY_COLOURS", "ExplanationModel", "TensorsPane"]

_tr = translator_for(__name__)

#: Colours of the reason code by :attr:`Explanation.severity` (core.records.explanations.REASONS):
#: red where a gradient may be missing, grey where none is needed. Brushes of QColors: a
#: ``Qt.GlobalColor`` returned from ``data()`` reaches the delegate as an int and is painted black.
SEVERITY_COLOURS = {"problem": QBrush(QColor("#c62828")), "note": QBrush(QColor("#7d8590"))}

#: Up to this many rows are sized to their wrapped text; longer tables keep one line a row (the tooltip has it all).
_ROWS_SIZED_TO_TEXT = 200

_HEADERS = (N_("Name"), N_("Reason"), N_("Why (no) gradient"), N_("Line"))
#: Behind a reason code that differs from the compared run's (File > Compare with Session).
CHANGED_BRUSH = QBrush(QColor("#ffd98a"))


class ExplanationModel(QAbstractTableModel):
    """The capture's explanations as a table model: cells are made when the view asks for them.

    A table widget made four items per tensor up front: 0.2 s of frozen
    window for the 10,000 tensors of a 50,000-node capture. The view asks
    only for the rows on screen.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: tuple = ()
        #: While comparing: name -> (the compared run's code, its sentence) for names whose reason changed.
        self.previous: dict[str, tuple[str, str]] = {}

    def set_previous(self, previous: dict[str, tuple[str, str]]) -> None:
        self.beginResetModel()
        self.previous = dict(previous)
        self.endResetModel()

    def set_rows(self, explanations) -> None:
        self.beginResetModel()
        self.rows = tuple(explanations)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(_HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt API
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return _tr(_HEADERS[section])
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        exp = self.rows[index.row()]
        column = index.column()
        before = self.previous.get(exp.name)
        if role == Qt.ItemDataRole.DisplayRole:
            line = "" if exp.line is None else (str(exp.line) if exp.file is None else f"{exp.file}:{exp.line}")
            code = exp.code if before is None else f"{before[0]} → {exp.code}"
            return (exp.name, code, phrase_text(exp.phrase) if column == 2 else "", line)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            sentence = phrase_text(exp.phrase)
            return sentence if before is None else _tr("{sentence}\n\nIn the run compared with: {before}").format(
                sentence=sentence, before=before[1])
        if role == Qt.ItemDataRole.ForegroundRole and column == 1:
            return SEVERITY_COLOURS.get(exp.severity)
        if role == Qt.ItemDataRole.BackgroundRole and column == 1 and before is not None:
            return CHANGED_BRUSH
        return None


class TensorsPane(QTableView):
    """Name, reason code, explanation, line.

    Signals
    -------
    node_requested(str)
        A row with a graph node was activated.
    line_requested(str, int)
        A row with a source line was activated: ``(file, line)``, file ``""``
        for the program, else its path in the project (``"pkg/model.py"``).
    """

    node_requested = Signal(str)
    line_requested = Signal(str, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("Tensors"))
        self.table = ExplanationModel(self)
        self.setModel(self.table)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setWordWrap(True)
        header = self.horizontalHeader()
        # ResizeToContents measures the rows on screen only: with Qt's default
        # precision (1000 rows and more) a 10,000-row table asked for 72,000
        # cells at once.
        header.setResizeContentsPrecision(0)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setVisible(False)
        self.clicked.connect(self._on_clicked)
        #: Covers the table while a run's explanations are computed (:meth:`show_pending`).
        self.pending = PendingNote(self.viewport())

    def show_pending(self, text: str) -> None:
        """No rows, and ``text`` over the table, until :meth:`show_explanations` (a run drawn before explained)."""
        self.table.set_rows(())
        self.pending.show_text(text)

    def pending_text(self) -> str:
        """The note over the table ("" when the rows are shown)."""
        return "" if self.pending.isHidden() else self.pending.text()

    def show_explanations(self, explanations) -> None:
        """Show ``explanations`` (O(1): rows are drawn on demand); short tables get rows sized to their text."""
        self.pending.clear()
        self.table.set_rows(explanations)
        if len(self.table.rows) <= _ROWS_SIZED_TO_TEXT:
            self.resizeRowsToContents()

    def show_previous(self, previous: dict[str, tuple[str, str]] | None) -> None:
        """While comparing: the compared run's reason code before each one that changed (``alias → no_grad``).

        ``previous`` maps a name to that run's ``(code, sentence)`` ("-" for a name it did not bind); None ends it.
        """
        self.table.set_previous(previous or {})
        if len(self.table.rows) <= _ROWS_SIZED_TO_TEXT:
            self.resizeRowsToContents()

    def rowCount(self) -> int:  # noqa: N802 - mirrors QTableWidget
        return self.table.rowCount()

    def cell_text(self, row: int, column: int) -> str:
        """What the table shows in a cell (for tests and accessibility)."""
        return self.table.data(self.table.index(row, column))

    def explanation_for(self, name: str):
        return next((e for e in self.table.rows if e.name == name), None)

    def _on_clicked(self, index: QModelIndex) -> None:
        exp = self.table.rows[index.row()]
        if exp.node:
            self.node_requested.emit(exp.node)
        if exp.line is not None:
            self.line_requested.emit(exp.file or "", exp.line)

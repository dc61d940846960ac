"""Every named tensor with the reason it does (or does not) get a gradient."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

__all__ = ["TensorsPane"]

#: Colours of the reason code by :attr:`Explanation.severity` (core.explain.REASONS):
#: red where a gradient may be missing, grey where none is needed.
_SEVERITY_COLOURS = {"problem": Qt.GlobalColor.darkRed, "note": Qt.GlobalColor.darkGray}


#: Up to this many rows are sized to their wrapped text; longer tables keep one line a row (the tooltip has it all).
_ROWS_SIZED_TO_TEXT = 200


class TensorsPane(QTableWidget):
    """Name, reason code, explanation, line.

    Signals
    -------
    node_requested(str)
        A row with a graph node was activated.
    line_requested(int)
        A row with a source line was activated.
    """

    node_requested = Signal(str)
    line_requested = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(0, 4, parent)
        self.setAccessibleName("Tensors")
        self.setHorizontalHeaderLabels(["Name", "Reason", "Why (no) gradient", "Line"])
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setWordWrap(True)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setVisible(False)
        self._rows: list = []
        self.cellClicked.connect(self._on_cell_clicked)

    def show_explanations(self, explanations) -> None:
        """Fill the table in one pass.

        With ``ResizeToContents`` columns every ``setItem`` re-measures the
        whole column, which made filling a 500-row table quadratic (15 s of
        frozen window on a 40-layer transformer): the columns are measured
        once, after the fill, and rows are sized to their text only for
        tables short enough to read row by row.
        """
        self._rows = list(explanations)
        header = self.horizontalHeader()
        modes = [header.sectionResizeMode(c) for c in range(self.columnCount())]
        self.setUpdatesEnabled(False)
        try:
            for column in range(self.columnCount()):
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            self.setRowCount(0)
            self.setRowCount(len(self._rows))
            for row, exp in enumerate(self._rows):
                cells = [exp.name, exp.code, exp.sentence, "" if exp.line is None else str(exp.line)]
                for column, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    item.setToolTip(exp.sentence)
                    colour = _SEVERITY_COLOURS.get(exp.severity)
                    if column == 1 and colour is not None:
                        item.setForeground(colour)
                    self.setItem(row, column, item)
            for column, mode in enumerate(modes):
                header.setSectionResizeMode(column, mode)
            if len(self._rows) <= _ROWS_SIZED_TO_TEXT:
                self.resizeRowsToContents()
        finally:
            self.setUpdatesEnabled(True)

    def explanation_for(self, name: str):
        return next((e for e in self._rows if e.name == name), None)

    def _on_cell_clicked(self, row: int, _column: int) -> None:
        exp = self._rows[row]
        if exp.node:
            self.node_requested.emit(exp.node)
        if exp.line is not None:
            self.line_requested.emit(exp.line)

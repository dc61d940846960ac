"""The nn.Module placement audit as a tree, warnings highlighted."""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTreeView

from ..core.analysis.modules import AuditRow, audit_rows
from .language import N_, phrase_text, translator_for
from .pending_note import PendingNote

__all__ = ["AuditModel", "ModulesPane"]

_tr = translator_for(__name__)

_HEADERS = (N_("Path"), N_("Kind"), N_("Shape / dtype"), N_("Device"), N_("Notes"))
_TONES = {"warning": QColor("#b3261e"), "info": QColor("#6e7781")}
#: Behind the notes of state whose placement differs from the compared run's (File > Compare with Session).
_CHANGED = QBrush(QColor("#ffd98a"))


class AuditModel(QAbstractItemModel):
    """:func:`~gradexplorer.core.analysis.modules.audit_rows` as a tree model.

    The rows are plain data; the view asks only for what is on screen (a
    tree widget made 20,000 items up front for a 50,000-node transformer:
    0.12 s of frozen window). An index's internal id is its row number.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[AuditRow] = []
        #: While comparing: state path -> what differs from the compared run ("requires_grad True -> False").
        self.changes: dict[str, str] = {}
        self._children: dict[int, list[int]] = {-1: []}
        self._position: list[int] = []  # each row's place among its parent's children

    def set_rows(self, rows: list[AuditRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self._children = {-1: []}
        self._position = []
        for i, row in enumerate(rows):
            siblings = self._children.setdefault(row.parent, [])
            self._position.append(len(siblings))
            siblings.append(i)
        self.endResetModel()

    def index_of_row(self, i: int) -> QModelIndex:
        """The index of ``rows[i]`` (column 0)."""
        return self.createIndex(self._position[i], 0, i)

    def index(self, row, column, parent=QModelIndex()):
        siblings = self._children.get(parent.internalId() if parent.isValid() else -1, ())
        if not 0 <= row < len(siblings) or not 0 <= column < len(_HEADERS):
            return QModelIndex()
        return self.createIndex(row, column, siblings[row])

    def parent(self, index=QModelIndex()):
        if not index.isValid():
            return QModelIndex()
        parent = self.rows[index.internalId()].parent
        return QModelIndex() if parent == -1 else self.index_of_row(parent)

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._children.get(parent.internalId() if parent.isValid() else -1, ()))

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return len(_HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt API
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return _tr(_HEADERS[section])
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        row = self.rows[index.internalId()]
        change = self.changes.get(row.path) if index.column() == 4 else None
        if change is not None:
            if role == Qt.ItemDataRole.DisplayRole:
                return (_tr("{notes}; compared: {change}").format(notes=row.texts[4], change=change) if row.texts[4]
                        else _tr("compared: {change}").format(change=change))
            if role == Qt.ItemDataRole.BackgroundRole:
                return _CHANGED
        if role == Qt.ItemDataRole.DisplayRole:
            return row.texts[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and row.tone and index.column() in (0, 4):
            return QBrush(_TONES[row.tone])
        if role == Qt.ItemDataRole.ToolTipRole and row.tooltip and index.column() == 4:
            return row.tooltip
        return None


#: How many open rows beyond those on screen a column's width is measured on (:meth:`ModulesPane.show_rows`).
SIZED_ROWS = 200


class ModulesPane(QTreeView):
    """Modules, their parameters / buffers / plain tensor attributes, and warnings."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("Modules"))
        self.audit = AuditModel(self)
        self.setModel(self.audit)
        self.setUniformRowHeights(True)
        self.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # Columns are sized to the rows on screen and up to SIZED_ROWS more, not to every open row: Qt's
        # default (1,000) asked the model for 5,000 cells of a 1,666-layer MLP's open top level, 0.1-0.15 s of
        # the GUI thread for every run shown. The user can still widen a column by hand.
        self.header().setResizeContentsPrecision(SIZED_ROWS)
        #: Covers the tree while a run's module audit is computed (:meth:`show_pending`).
        self.pending = PendingNote(self.viewport())

    def show_pending(self, text: str) -> None:
        """No rows, and ``text`` over the tree, until :meth:`show_rows` (a run drawn before audited)."""
        self.audit.set_rows([])
        self.pending.show_text(text)

    def pending_text(self) -> str:
        """The note over the tree ("" when the rows are shown)."""
        return "" if self.pending.isHidden() else self.pending.text()

    def show_audits(self, audits) -> None:
        """Show the audits of a capture (see :meth:`show_rows`)."""
        self.show_rows(audit_rows(audits, phrase_text))

    def show_rows(self, rows) -> None:
        """Show rows of :func:`~gradexplorer.core.analysis.modules.audit_rows` (made in a worker for big captures).

        Top-level modules are open, and so is every row that leads to a
        warning. Not ``expandAll``: on a 40-layer model that asks the model
        about every one of 20,000 rows (0.2 s); columns are sized once, to
        what is open.
        """
        self.pending.clear()
        self.audit.set_rows(list(rows))
        self.expandToDepth(0)
        rows = self.audit.rows
        opened: set[int] = set()
        for row in rows:
            if row.tone is None:
                continue
            parent = row.parent
            while parent != -1 and parent not in opened:
                opened.add(parent)
                parent = rows[parent].parent
        for i in sorted(opened):
            self.setExpanded(self.audit.index_of_row(i), True)
        for column in range(self.audit.columnCount()):
            self.resizeColumnToContents(column)

    def show_changes(self, changes: dict[str, str] | None) -> None:
        """While comparing: what differs from the compared run, after the notes of each state entry it names.

        ``changes`` maps a state path (``"model.embed.weight"``) to the text; None ends it.
        """
        self.audit.changes = dict(changes or {})
        rows = self.audit.rows
        for row in rows if self.audit.changes else ():
            if row.path in self.audit.changes:  # open the modules that lead to it
                parent = row.parent
                while parent != -1:
                    self.setExpanded(self.audit.index_of_row(parent), True)
                    parent = rows[parent].parent
        # The notes are read from ``changes`` as they are painted: no reset of 20,000 rows on the GUI thread.
        self.viewport().update()

    def row_texts(self, path: str) -> tuple[str, ...] | None:
        """The columns of the row of a module or state entry (by its path), as shown, or None."""
        for i, row in enumerate(self.audit.rows):
            if row.path == path:
                index = self.audit.index_of_row(i)
                return tuple(self.audit.data(index.siblingAtColumn(c)) for c in range(len(row.texts)))
        return None

    def warning_texts(self) -> list[str]:
        """Every warning row's text, for tests and accessibility."""
        return [f"{row.texts[0]} {row.texts[4]}" for row in self.audit.rows if row.texts[0].startswith("⚠")]

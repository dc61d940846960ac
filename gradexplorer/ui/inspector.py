"""The selected node's details: op, names, path, values, gradients, saved tensors, hooks.

Values are shown through :class:`TensorTableModel`, which reads a record's
CPU tensor cell by cell when the view asks, so even a 10,000-element value
costs nothing until scrolled to; tensors over the value cap show only their
summary (never a 10**7-element text dump).
"""

from __future__ import annotations

import html
import re

import torch
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QPainter, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.graph.schema import short_op
from ..core.io.diff_report import SAME
from ..core.records.tensors import TensorRecord, format_number
from .language import N_, phrase_text, place_text, translator_for

__all__ = ["COMPARISON_TABLE_WIDTH", "Inspector", "TensorTableModel", "TensorView", "describe_record"]

_tr = translator_for(__name__)


def describe_record(record: TensorRecord | None) -> str:
    """Summary line: shape, dtype, device, stats, NaN/Inf, note."""
    if record is None:
        return "—"
    dims = "×".join(str(s) for s in record.shape) or _tr("scalar")
    parts = []
    if record.item() is not None:
        parts.append(format_number(record.item()))
    parts.append(_tr("{dims} {dtype} on {device}").format(dims=dims, dtype=record.dtype, device=record.device))
    if record.stats_pending:  # never wait on the GUI thread: the inspector looks again when they are here
        parts.append(_tr("‖x‖ {known_norm}; min, max, mean and std are on their way from the isolated process…")
                     .format(known_norm=format_number(record.known_norm)) if record.known_norm is not None else
                     _tr("statistics on their way from the isolated process…"))
        if record.note:
            parts.append(record.note)
        return "\n".join(parts)
    stats = record.stats
    if stats is not None and stats.min is not None and record.numel > 1:
        parts.append(_tr("min {min}  max {max}  mean {mean}  std {std}").format(
            min=format_number(stats.min), max=format_number(stats.max), mean=format_number(stats.mean),
            std=format_number(stats.std)))
    if stats is not None and stats.has_nonfinite:
        parts.append(_tr("NaN {nan_count}  Inf {inf_count}").format(
            nan_count=stats.nan_count, inf_count=stats.inf_count))
    if record.note:
        parts.append(record.note)
    return "\n".join(parts)


class TensorTableModel(QAbstractTableModel):
    """A record's values as a table: 0-d and 1-D as one column, N-D as (rows, last dim)."""

    def __init__(self, record: TensorRecord | None = None) -> None:
        super().__init__()
        self._matrix = None
        self.set_record(record)

    def set_record(self, record: TensorRecord | None) -> None:
        self.beginResetModel()
        data = None if record is None else record.data
        if data is None:
            self._matrix = None
        else:
            # Plain Python numbers, converted once (at most the capture's value
            # cap, 10,000): a tensor ``.item()`` per cell cost 3 us each time
            # the view asked, and it asks again for every repaint.
            columns = 1 if data.dim() <= 1 else data.shape[-1]
            flat = data.reshape(-1).tolist()
            self._matrix = [flat[i:i + columns] for i in range(0, len(flat), columns)] if columns else []
            self._columns = columns
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if self._matrix is None or parent.isValid() else len(self._matrix)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt API
        return 0 if self._matrix is None or parent.isValid() else self._columns

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and self._matrix is not None:
            return format_number(self._matrix[index.row()][index.column()])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt API
        if role == Qt.ItemDataRole.DisplayRole:
            return str(section)
        return None


class Histogram(QWidget):
    """A small bar chart of a record's finite values (painted, no chart library).

    Uses the record's kept CPU values; a summary-only record (over the value
    cap) shows no bars and says so.
    """

    BINS = 30

    def __init__(self, title: str, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("{title} histogram").format(title=title))
        self.setMinimumHeight(70)
        self.counts: list[int] = []
        self.range: tuple[float, float] | None = None

    def set_record(self, record: TensorRecord | None) -> None:
        self.counts, self.range = [], None
        data = None if record is None else record.data
        if data is not None and data.numel() > 1 and not data.is_complex():
            values = data.reshape(-1).double()
            values = values[torch.isfinite(values)]
            if values.numel():
                low, high = values.min().item(), values.max().item()
                if high == low:
                    high = low + 1.0
                self.counts = torch.histc(values, bins=self.BINS, min=low, max=high).long().tolist()
                self.range = (low, high)
        self.setVisible(bool(self.counts))
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        painter = QPainter(self)
        rect = self.rect().adjusted(2, 2, -2, -16)
        peak = max(self.counts, default=0)
        if peak:
            width = rect.width() / len(self.counts)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.palette().color(QPalette.ColorRole.Highlight))
            for i, count in enumerate(self.counts):
                height = rect.height() * count / peak
                painter.drawRect(QRectF(rect.left() + i * width, rect.bottom() - height, max(width - 1, 1), height))
            painter.setPen(self.palette().color(QPalette.ColorRole.Text))
            low, high = self.range
            painter.drawText(QRectF(rect.left(), rect.bottom() + 1, rect.width(), 14),
                             Qt.AlignmentFlag.AlignLeft, format_number(low))
            painter.drawText(QRectF(rect.left(), rect.bottom() + 1, rect.width(), 14),
                             Qt.AlignmentFlag.AlignRight, format_number(high))
        painter.end()


class TensorView(QWidget):
    """A tensor record: summary text plus a table of its values (when kept)."""

    def __init__(self, title: str, parent=None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.summary = QLabel("—")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAccessibleName(_tr("{title} summary").format(title=title))
        self.model = TensorTableModel()
        self.table = QTableView()
        self.table.setAccessibleName(_tr("{title} values").format(title=title))
        self.table.setModel(self.model)
        # One width for every column, measured on a sample of the values
        # (set_record): ResizeToContents asked for every cell of a 40 x 256
        # value table, 330,000 calls and 2.5 s of frozen window.
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.setMaximumHeight(160)
        self.histogram = Histogram(title)
        layout.addWidget(self.summary)
        layout.addWidget(self.histogram)
        layout.addWidget(self.table)
        self.record: TensorRecord | None = None
        # Statistics still on their way from the isolated process: look again a moment later (never wait).
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(150)
        self._pending.timeout.connect(self._look_again)
        self.set_record(None)

    def _look_again(self) -> None:
        if self.record is not None and self.record.stats_pending:
            self._pending.start()
        else:
            self.summary.setText(describe_record(self.record))

    def set_record(self, record: TensorRecord | None) -> None:
        self.record = record
        self.summary.setText(describe_record(record))
        if record is not None and record.stats_pending:
            self._pending.start()
        self.model.set_record(record)
        self.histogram.set_record(record)
        shown = record is not None and record.data is not None and record.numel > 1
        self.table.setVisible(shown)
        if shown:
            self.table.horizontalHeader().setDefaultSectionSize(self._column_width())
            # As tall as its rows (up to 160 px): a 2-element vector needs no empty box.
            rows = self.model.rowCount()
            self.table.setMaximumHeight(min(160, self.table.horizontalHeader().sizeHint().height()
                                            + rows * self.table.verticalHeader().defaultSectionSize() + 6))

    def _column_width(self) -> int:
        """Wide enough for the widest of the first 200 values and for the column numbers."""
        model, metrics = self.model, self.table.fontMetrics()
        columns = model.columnCount()
        sample = [model.data(model.index(i // columns, i % columns))
                  for i in range(min(200, model.rowCount() * columns))]
        sample.append(str(columns - 1))
        return max(metrics.horizontalAdvance(text) for text in sample) + 14

    def text(self) -> str:
        """What a user reads first: the single value, or the summary."""
        if self.record is not None and self.record.item() is not None:
            return format_number(self.record.item())
        return self.summary.text()


def _short(record: TensorRecord | None) -> str:
    return "None" if record is None else record.short(width=28)


#: How a pass's effect on a leaf's .grad reads (core.accounting's step effects).
#: The comparison's difference: amber where the runs differ, grey where they agree.
_DIFFERS, _SAME = "#b35900", "#6e7781"
#: From this inspector width (pixels) a comparison shows A and B side by side, in a table; below it, one
#: above the other (Qt's rich-text tables do not shrink below their longest words: a narrow dock cut them off).
COMPARISON_TABLE_WIDTH = 620

def _hidden_box(outer: QVBoxLayout, title: str, name: str) -> tuple[QLabel, QGroupBox]:
    """A titled box holding one selectable, wrapping label, added to ``outer`` hidden (shown while it has news)."""
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setAccessibleName(name)
    box = QGroupBox(title)
    QVBoxLayout(box).addWidget(label)
    box.setVisible(False)
    outer.addWidget(box)
    return label, box


def _comparison_row(what: str, a: str, b: str, diff: str) -> str:
    """One row of a comparison in a narrow inspector, as HTML lines: the name and the difference (in its
    colour), then A and B; what both runs share is written once (a wide one shows a table: ``_render_comparison``).
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


#: What a pass did to a leaf's ``.grad`` and what came before it (marked for the catalogue, said with ``_tr``).
_STEP_WORDS = {"filled": N_("filled .grad"), "added": N_("added to .grad"),
               "consumed": N_("a hook took it (.grad set to None)"), "changed": N_("a hook changed .grad"),
               "none": N_("nothing arrived"),
               "reduced": N_("DistributedDataParallel's reducer wrote the mean over the processes")}
_BEFORE_WORDS = {"preexisting": N_(".grad already held a value"), "reset": N_(".grad was reset before this pass"),
                 "edited": N_(".grad was edited before this pass"), "first": "", "kept": ""}


#: A check's outcome (:class:`~gradexplorer.core.analysis.verify.Verification`), said in the reader's language.
_CHECK_WORDS = {"verified": N_("verified"), "unverified": N_("unverified"), "wrong": N_("wrong")}
#: A node's kind (the schema's ``kind``), in the reader's language.
_KIND_WORDS = {"leaf": N_("leaf"), "op": N_("op"), "custom": N_("custom")}

#: The same, short, for the per-pass table's narrow column.
_STEP_SHORT = {"filled": N_("filled"), "added": N_("added"), "consumed": N_("taken by a hook"),
               "changed": N_("changed by a hook"), "none": N_("nothing arrived"),
               "reduced": N_("averaged over processes (DDP)")}
_BEFORE_SHORT = {"preexisting": N_("had a value"), "reset": N_("reset before"), "edited": N_("edited before"),
                 "first": "", "kept": ""}


class Inspector(QScrollArea):
    """Shows everything gradexplorer knows about one node.

    Signals
    -------
    source_requested(str, int)
        The user clicked the node's source line: ``(file, line)``, file
        ``""`` for the program, else its path in the project (``"pkg/model.py"``).
    """

    source_requested = Signal(str, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setAccessibleName(_tr("Inspector"))
        body = QWidget()
        self.setWidget(body)
        outer = QVBoxLayout(body)
        self.title = QLabel(_tr("Click a node to inspect it."))
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        outer.addWidget(self.title)
        # While a backward pass is replayed (the Replay toolbar): the step on screen, above the node's details.
        self.replay, self.replay_box = _hidden_box(outer, _tr("Replay: this step of the backward pass"),
                                                  _tr("Replay step"))
        # While the picture compares this run with a saved one (File > Compare with Session): both side by side.
        self.comparison, self.comparison_box = _hidden_box(outer, _tr("Compared with another run"), _tr("Comparison"))
        self.comparison.setTextFormat(Qt.TextFormat.RichText)
        self._comparison_rows: list = []
        self._comparison_labels = ("A", "B")

        outer.addLayout(self._facts_form())
        # A leaf's accumulated .grad and its per-pass story come first: it is what a user debugging a training
        # loop looks for.
        outer.addWidget(self._leaf_grad_box())

        self.value_box = QGroupBox(_tr("Forward value"))
        self.value = TensorView(_tr("Forward value"))
        QVBoxLayout(self.value_box).addWidget(self.value)
        outer.addWidget(self.value_box)

        outer.addWidget(self._gradient_box())

        self.saved = QLabel()
        self.saved.setWordWrap(True)
        self.saved.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.saved_box = QGroupBox(_tr("Saved tensors"))
        QVBoxLayout(self.saved_box).addWidget(self.saved)
        outer.addWidget(self.saved_box)

        self.hooks = QLabel()
        self.hooks.setWordWrap(True)
        self.hooks_box = QGroupBox(_tr("Hooks"))
        QVBoxLayout(self.hooks_box).addWidget(self.hooks)
        outer.addWidget(self.hooks_box)
        for box in (self.value_box, self.grad_box, self.leaf_box, self.saved_box, self.hooks_box):
            box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        outer.addStretch(1)
        self._attrs: dict | None = None
        self._node_id: str | None = None
        self._passes: tuple = ()
        self._checks: tuple = ()
        self._line: int | None = None
        self._file = ""
        self.show_node(None, None)

    def show_replay(self, text: str | None) -> None:
        """Show a replayed step's text above the node's details (None: not replaying; the box goes)."""
        self.replay.setText(text or "")
        self.replay_box.setVisible(text is not None)

    def show_comparison(self, status: str | None, rows=(), *, a_label: str = "A", b_label: str = "B") -> None:
        """Show the node in both runs of a comparison: ``rows`` of ``(what, run A, run B, difference)``.

        ``status`` heads the box ("changed, matched by name"); None hides it (no comparison on screen).
        """
        self._comparison_rows = list(rows) if status is not None else []
        self._comparison_labels = (a_label, b_label)
        self.comparison_box.setVisible(status is not None)
        if status is None:
            self.comparison.setText("")
            return
        self.comparison_box.setTitle(_tr("Compared: {status}").format(status=status))
        self._render_comparison()

    def comparison_layout(self) -> str:
        """``"table"`` (A and B side by side: the inspector is wide) or ``"lines"`` (A above B: it is narrow)."""
        return "table" if self.viewport().width() >= COMPARISON_TABLE_WIDTH else "lines"

    def _render_comparison(self) -> None:
        rows, (a_label, b_label) = self._comparison_rows, self._comparison_labels
        heading = f"A: {html.escape(a_label)}<br>B: {html.escape(b_label)}"
        if self.comparison_layout() == "table":
            body = "".join(
                f"<tr><td><b>{_breakable(what)}</b></td><td>{_breakable(a)}</td><td>{_breakable(b)}</td>"
                f"<td style='color:{_SAME if not diff or _same(diff) else _DIFFERS}'>{html.escape(diff)}</td></tr>"
                for what, a, b, diff in rows)
            self.comparison.setText(
                f"{heading}<table cellspacing='0' cellpadding='2'><tr><th></th><th align='left'>A</th>"
                f"<th align='left'>B</th><th align='left'>{_tr('difference')}</th></tr>{body}</table>")
        else:
            self.comparison.setText(f"{heading}<br><br>" + "<br>".join(_comparison_row(*row) for row in rows))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self._comparison_rows and self.comparison_box.isVisibleTo(self):
            self._render_comparison()  # side by side once there is room, one above the other when there is not

    def comparison_table(self) -> list[tuple[str, str, str, str]]:
        """The comparison rows shown (empty when none): what a user reads in the box."""
        return list(self._comparison_rows) if self.comparison_box.isVisibleTo(self) else []

    def replay_text(self) -> str:
        """The replayed step shown ("" when none)."""
        return self.replay.text() if self.replay_box.isVisibleTo(self) else ""

    def _facts_form(self) -> QFormLayout:
        """Kind, names, the path expression (with Copy), how it was created, the tensor and its source line."""
        form = QFormLayout()
        self.kind = QLabel()
        self.names = QLabel()
        self.names.setWordWrap(True)
        # A read-only line edit: the expression has no spaces to wrap at and
        # can be hundreds of characters long; it scrolls instead of spilling.
        self.path = QLineEdit()
        self.path.setReadOnly(True)
        self.path.setFrame(False)
        self.path.setAccessibleName(_tr("Path expression"))
        self.copy_path = QToolButton()
        self.copy_path.setText(_tr("Copy"))
        self.copy_path.setToolTip(_tr("Copy the Python expression that reaches this node"))
        self.copy_path.setAccessibleName(_tr("Copy path"))
        self.copy_path.clicked.connect(self._on_copy_path_clicked)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path, 1)
        path_row.addWidget(self.copy_path)
        self.created = QLabel()
        self.created.setWordWrap(True)
        self.meta = QLabel()
        self.source = QPushButton()
        self.source.setFlat(True)
        self.source.setStyleSheet("text-align: left")
        self.source.setAccessibleName(_tr("Source line"))
        self.source.clicked.connect(self._on_source_clicked)
        form.addRow(_tr("Kind"), self.kind)
        form.addRow(_tr("Names"), self.names)
        form.addRow(_tr("Path"), path_row)
        form.addRow(_tr("Created"), self.created)
        form.addRow(_tr("Tensor"), self.meta)
        form.addRow(_tr("Source"), self.source)
        self._form = form
        self._path_row = path_row
        return form

    def _leaf_grad_box(self) -> QGroupBox:
        """A leaf's accumulated ``.grad`` and its table of passes (before, delivered, after)."""
        # A leaf's accumulated .grad and its per-pass story come first: it is
        # what a user debugging a training loop looks for.
        self.leaf_box = QGroupBox(_tr(".grad (accumulated)"))
        leaf_layout = QVBoxLayout(self.leaf_box)
        self.leaf_grad = TensorView(_tr("Leaf grad"))
        leaf_layout.addWidget(self.leaf_grad)
        # Per pass: .grad before, what the pass delivered, .grad after.
        self.leaf_passes = QTableWidget(0, 5)
        self.leaf_passes.setAccessibleName(_tr("Leaf gradient per pass"))
        self.leaf_passes.setHorizontalHeaderLabels([_tr("Pass"), _tr(".grad before"), _tr("Delivered"),
                                                    _tr(".grad after"), _tr("What happened")])
        self.leaf_passes.verticalHeader().setVisible(False)
        self.leaf_passes.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.leaf_passes.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.leaf_passes.horizontalHeader().setStretchLastSection(True)
        self.leaf_passes.setMaximumHeight(150)
        self.leaf_passes.setWordWrap(False)
        leaf_layout.addWidget(self.leaf_passes)
        return self.leaf_box

    def _gradient_box(self) -> QGroupBox:
        """The gradient of the pass picked: its status, value, what went to each input, the delta and the check."""
        self.grad_box = QGroupBox(_tr("Gradient"))
        grad_layout = QVBoxLayout(self.grad_box)
        self.pass_picker = QComboBox()
        self.pass_picker.setAccessibleName(_tr("Backward pass"))
        self.pass_picker.currentIndexChanged.connect(self._on_pass_picker_changed)
        self.pass_status = QLabel()
        self.pass_status.setWordWrap(True)
        self.pass_status.setAccessibleName(_tr("Pass status"))
        self.pass_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.grad = TensorView(_tr("Gradient"))
        self.grad_inputs = QLabel()
        self.grad_inputs.setWordWrap(True)
        self.pass_delta = QLabel()
        self.pass_delta.setWordWrap(True)
        self.pass_delta.setAccessibleName(_tr("Pass delta"))
        self.verification = QLabel()
        self.verification.setWordWrap(True)
        self.verification.setAccessibleName(_tr("Verification"))
        grad_layout.addWidget(self.pass_picker)
        grad_layout.addWidget(self.pass_status)
        grad_layout.addWidget(self.grad)
        grad_layout.addWidget(self.grad_inputs)
        grad_layout.addWidget(self.pass_delta)
        grad_layout.addWidget(self.verification)
        return self.grad_box

    # -- public ----------------------------------------------------------------------
    def show_node(self, node_id: str | None, attrs: dict | None, passes=(), checks=(), scopes=None,
                  prefer_pass: int | None = None, leaf_steps=()) -> None:
        """Fill the panel from a node's attributes (the graph schema), or clear it.

        ``passes`` are the capture's :class:`PassSummary` records; ``checks``
        the verifier's results for this node (:func:`core.verify.verify_node`);
        ``scopes`` where each of its names is held (``{"loss": "train_step()"}``;
        names not in it are top-level); ``prefer_pass`` the pass the picture
        shows (the gradient section opens on it when the node has it);
        ``leaf_steps`` a leaf's accounting of ``.grad`` pass by pass, made once
        per capture (:func:`~gradexplorer.core.analysis.accounting.leaf_steps_of`),
        never here: the panel only shows facts, it computes none.
        """
        self._attrs = attrs
        self._node_id = node_id
        self._passes = tuple(passes)
        self._checks = tuple(checks)
        self._leaf_steps = tuple(leaf_steps)
        self._label_rows((_tr("Kind"), _tr("Names"), _tr("Created"), _tr("Tensor")), box=False)
        boxes = (self.value_box, self.grad_box, self.leaf_box, self.saved_box, self.hooks_box)
        if attrs is None:
            self.title.setText(_tr("Click a node to inspect it."))
            for widget in (self.kind, self.names, self.path, self.created, self.meta):
                widget.setText("")
            self.path.setPlaceholderText("")
            self.source.setText("")
            self.copy_path.setEnabled(False)
            for box in boxes:
                box.setVisible(False)
            return
        self._show_facts(node_id, attrs, scopes)
        self.value_box.setVisible(True)
        self.value_box.setTitle(_tr("Value (leaf variable, end of run)") if attrs["kind"] == "leaf" else
                                _tr("Forward value (when the op ran)"))
        self.value.set_record(attrs.get("value"))
        self._show_passes(attrs, passes, prefer_pass)
        self.leaf_box.setVisible(attrs["kind"] == "leaf")
        self.leaf_grad.set_record(attrs.get("grad"))
        if attrs["kind"] == "leaf" and attrs.get("grad") is None:
            self.leaf_grad.summary.setText(_tr(".grad is None"))
        self._fill_leaf_passes(attrs)
        saved = attrs.get("saved", ())
        self.saved_box.setVisible(bool(saved))
        self.saved.setText("\n".join(
            f"{s.name}: " + (s.tensor.short(width=50) if s.state == "tensor" else
                             s.text if s.state == "value" else f"{s.state} ({s.text})")
            for s in saved))
        hooks = attrs.get("hooks", ())
        self.hooks_box.setVisible(bool(hooks))
        lines = []
        for hook in hooks:
            where = _tr(" ({where})").format(where=place_text(hook.source)) if hook.source is not None else ""
            by = _tr(" — registered by library code") if hook.library else ""
            lines.append(f"{hook.kind}: {hook.qualname}{where}{by}")
            for call in hook.calls:
                before = call.before[0].short(width=30) if call.before and call.before[0] is not None else "None"
                after = (call.after[0].short(width=30) if call.after and call.after[0] is not None else "None") \
                    if call.changed else "unchanged"
                how = _tr(" (changed in place)") if call.in_place else ""
                lines.append(_tr("    pass {pass_index}: before {before} → after {after}{how}").format(
                    pass_index=call.pass_index + 1, before=before, after=after, how=how))
        self.hooks.setText("\n".join(lines))

    def _show_facts(self, node_id: str, attrs: dict, scopes) -> None:
        """The title and the form: kind, names (where each is held), path, how it was made, tensor, source."""
        self.title.setText(f"{short_op(attrs['op'])}  ({node_id})")
        kind = (_tr(_KIND_WORDS[attrs["kind"]]) if attrs["kind"] in _KIND_WORDS else attrs["kind"]) \
            + (_tr(" (root)") if attrs["is_root"] else "")
        self.kind.setText(kind)
        scopes = scopes or {}
        self.names.setText(", ".join(_tr("{name} in {scope}").format(
            name=name, scope=scopes[name]) if scopes.get(name) else name
                                     for name in attrs["names"]) or _tr("— (no name in the namespace)"))
        self.path.setText(attrs.get("path") or "")
        if attrs["names"]:
            self.path.setPlaceholderText(_tr("— (use the name {name}: no grad_fn of a named result leads here)").format(
                name=attrs['names'][0]))
        else:
            self.path.setPlaceholderText(_tr("— (not reachable from a named tensor)"))
        self.path.setCursorPosition(0)
        self.copy_path.setEnabled(bool(attrs.get("path")))
        if attrs["kind"] == "leaf":
            # Grad mode decides whether an op records a grad_fn; a leaf's
            # requires_grad is set on the tensor itself, so it does not apply.
            self.created.setText(_tr("a leaf (requires_grad set on the tensor; grad mode does not apply)")
                                 if attrs.get("requires_grad") else _tr("a leaf that does not require grad (any more)"))
        elif attrs.get("grad_enabled") is None:
            self.created.setText(_tr("not recorded"))
        else:
            mode = _tr("grad mode on") if attrs["grad_enabled"] else _tr("under torch.no_grad()")
            if attrs.get("inference_mode"):
                mode += _tr(", inference mode")
            self.created.setText(mode)
        value = attrs.get("value")
        self.meta.setText("—" if value is None else _tr("shape {shape}, {dtype}, {device}").format(
            shape=tuple(value.shape), dtype=value.dtype, device=value.device))
        source = attrs.get("source")
        self._line = source.line if source is not None else None
        self._file = (source.file or "") if source is not None else ""
        where = "" if source is None or source.file is None else f"{source.file}, "
        self.source.setText(_tr("{where}line {line}: {text}").format(
            where=where, line=source.line, text=source.text) if source is not None else "—")
        self.source.setToolTip(_tr("Open {file} at line {line} (read-only)").format(
            file=source.file, line=source.line) if source is not None
                               and source.file else _tr("Show this line in the editor"))
        self.source.setEnabled(source is not None)

    def _show_passes(self, attrs: dict, passes, prefer_pass: int | None) -> None:
        """The pass picker (every pass that reached the node or raised on its path) and the pass it opens on."""
        self.pass_picker.blockSignals(True)
        self.pass_picker.clear()
        shown = sorted(set(attrs["grads"]) | set(attrs.get("accumulation") or {})
                       | {i for i in attrs.get("on_path", ()) if i < len(passes) and passes[i].raised})
        for index in shown:
            # People count passes from 1 (the chart and the sentences too).
            label = _tr("pass {number}").format(number=index + 1)
            if index < len(passes):
                p = passes[index]
                label += _tr(" ({where})").format(where=place_text(p.source)) if p.source is not None else ""
                label += _tr(" in {thread}").format(thread=p.thread) if p.thread else ""
                label += _tr(" — raised") if p.raised else ""
            self.pass_picker.addItem(label, index)
        self.pass_picker.blockSignals(False)
        self.grad_box.setVisible(True)
        if shown:
            # The last pass that brought this node a gradient (else the last one listed).
            arrived = [i for i in shown if i in attrs["grads"] or i in (attrs.get("accumulation") or {})]
            if prefer_pass in shown:  # the pass the picture shows
                self.pass_picker.setCurrentIndex(shown.index(prefer_pass))
            else:
                self.pass_picker.setCurrentIndex(shown.index(arrived[-1]) if arrived else len(shown) - 1)
            self._show_pass(self.pass_picker.currentData())
        else:
            self.grad.set_record(None)
            self.grad.summary.setText(_tr("No backward pass reached this node."))
            for label in (self.grad_inputs, self.pass_status, self.pass_delta, self.verification):
                label.setText("")
                label.setVisible(False)
        self.pass_picker.setVisible(bool(shown))

    def _label_rows(self, texts: tuple[str, str, str, str], *, box: bool) -> None:
        """Name the form's rows for a node or for a module box; a box has no path or source line."""
        for widget, text in zip((self.kind, self.names, self.created, self.meta), texts):
            label = self._form.labelForField(widget)
            if label is not None:
                label.setText(text)
        self._form.setRowVisible(self._path_row, not box)
        self._form.setRowVisible(self.source, not box)

    def show_group(self, group) -> None:
        """A collapsed module box: what it holds."""
        self.show_node(None, None)
        self._label_rows((_tr("Module"), _tr("Holds"), _tr("Gradient"), _tr("Open")), box=True)
        self.title.setText(_tr("{path}  (module box)").format(path=group.path))
        self.kind.setText(group.title + (_tr(" (a pattern of identical blocks)") if group.repeat else ""))
        self.names.setText(_tr("{count} nodes; {inputs} edges in, {outputs} out").format(
            count=len(group.members), inputs=group.inputs, outputs=group.outputs))
        norm = _tr("unknown") if group.grad_norm is None else format_number(group.grad_norm)
        same = _tr("; same structure as {family_size} other box(es)").format(
            family_size=group.family_size - 1) if group.family_size > 1 else ""
        self.created.setText(_tr("norm over its nodes' gradients {norm}{same}").format(norm=norm, same=same) +
                             (_tr("; NaN/Inf inside") if group.nonfinite else ""))
        self.meta.setText(_tr("double-click the box (or Ctrl+E) to open it one level"))

    def gradient_text(self) -> str:
        return self.grad.text()

    def value_text(self) -> str:
        return self.value.text()

    # -- slots -----------------------------------------------------------------------
    def _show_pass(self, index) -> None:
        if self._attrs is None or index is None:
            return
        attrs = self._attrs
        p = self._passes[index] if index < len(self._passes) else None
        flow = attrs["grads"].get(index)
        step = (attrs.get("accumulation") or {}).get(index)
        status = ""
        self.pass_status.setToolTip(p.error if p is not None and p.raised else "")
        if p is not None and p.raised:
            head = p.error.splitlines()[0]
            head = head if len(head) <= 120 else head[:117].rstrip() + "..."
            reached = flow is not None or (step is not None and step.delivered is not None)
            here = p.raised_at is not None and p.raised_at == self._node_id
            where = _tr(" at {where}").format(where=place_text(p.source)) if p.source is not None else ""
            status = (_tr("This pass raised{where}: {error}. ").format(where=where, error=head)
                      + (_tr("It raised while running this node: its gradient had arrived (shown), it sent none on.")
                         if here else _tr("What reached this node before the error is shown.") if reached else
                         _tr("It raised before reaching this node.")))
        self.pass_status.setText(status)
        self.pass_status.setStyleSheet("color: #b00020" if status else "")
        self.pass_status.setVisible(bool(status))
        if flow is not None:
            self.grad.set_record(flow.outputs[0] if flow.outputs else None)
        elif step is not None:
            self.grad.set_record(step.delivered)
        else:
            self.grad.set_record(None)
            self.grad.summary.setText(_tr("No gradient arrived here in this pass."))
        if flow is not None and flow.inputs:
            self.grad_inputs.setText(_tr("to inputs (by slot): ") + ", ".join(
                f"[{slot}] {'None' if g is None else g.short(width=24)}" for slot, g in enumerate(flow.inputs)))
        else:
            self.grad_inputs.setText("")
        self.grad_inputs.setVisible(bool(self.grad_inputs.text()))
        delta = ""
        if step is not None:
            s = next(s for s in self._leaf_steps if s.index == index)
            delta = (_tr(".grad before {before} + delivered {delivered} → .grad after {after}: {effect}").format(
                before=_short(s.before), delivered=_short(s.delivered), after=_short(s.after),
                effect=_tr(_STEP_WORDS[s.effect]))
                     + ("" if s.before_change in ("first", "kept") else _tr(" ({before_change})").format(
                         before_change=_tr(_BEFORE_WORDS[s.before_change]))))
        self.pass_delta.setText(delta)
        self.pass_delta.setVisible(bool(delta))
        checks = [c for c in self._checks if c.pass_index == index]
        text = "; ".join(f"{_tr(_CHECK_WORDS.get(c.status, c.status))}: {phrase_text(c.detail)}" for c in checks)
        self.verification.setText(_tr("Check: {text}").format(text=text) if text else "")
        self.verification.setStyleSheet("color: #b00020" if any(c.status == "wrong" for c in checks)
                                        else "color: gray")
        self.verification.setVisible(bool(text))

    def _fill_leaf_passes(self, attrs) -> None:
        steps = self._leaf_steps if attrs["kind"] == "leaf" else ()
        self.leaf_passes.setRowCount(len(steps))
        for row, s in enumerate(steps):
            raised = s.index < len(self._passes) and self._passes[s.index].raised
            what = ", ".join(w for w in (_tr(_BEFORE_SHORT[s.before_change]), _tr(_STEP_SHORT[s.effect]),
                                         _tr("pass raised") if raised else "") if w)
            for column, text in enumerate([str(s.index + 1), _short(s.before), _short(s.delivered), _short(s.after),
                                           what]):
                self.leaf_passes.setItem(row, column, QTableWidgetItem(text))
        self.leaf_passes.setVisible(bool(steps))
        self.leaf_passes.resizeRowsToContents()
        header = self.leaf_passes.horizontalHeader().sizeHint().height()
        self.leaf_passes.setMaximumHeight(min(150, header + 24 * len(steps) + 22))

    def leaf_pass_rows(self) -> list[list[str]]:
        """The per-pass table as text (what a user reads)."""
        return [[self.leaf_passes.item(r, c).text() for c in range(self.leaf_passes.columnCount())]
                for r in range(self.leaf_passes.rowCount())]

    def _on_pass_picker_changed(self, _row: int) -> None:
        self._show_pass(self.pass_picker.currentData())

    def _on_copy_path_clicked(self) -> None:
        if self._attrs is not None and self._attrs.get("path"):
            QGuiApplication.clipboard().setText(self._attrs["path"])

    def _on_source_clicked(self) -> None:
        if self._line is not None:
            self.source_requested.emit(self._file, self._line)

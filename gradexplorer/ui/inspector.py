"""The selected node's details: op, names, path, values, gradients, saved tensors, hooks.

Values are shown through :class:`TensorTableModel`, which reads a record's
CPU tensor cell by cell when the view asks, so even a 10,000-element value
costs nothing until scrolled to; tensors over the value cap show only their
summary (never a 10**7-element text dump).
"""

from __future__ import annotations


import torch
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core.graph.schema import short_op
from ..core.records.notes import note_phrase
from ..core.records.tensors import TensorRecord, format_number
from .comparison_box import ComparisonBox, layout_for
from .language import N_, phrase_text, place_text, translator_for
from .leaf_passes import LeafPassTable, short_record
from .node_facts import NodeFacts

__all__ = ["Inspector", "TensorTableModel", "TensorView", "describe_record"]

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
            parts.append(phrase_text(note_phrase(record.note)))
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
        parts.append(phrase_text(note_phrase(record.note)))
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


#: What a pass did to a leaf's ``.grad`` and what came before it (marked for the catalogue, said with ``_tr``).
_STEP_WORDS = {"filled": N_("filled .grad"), "added": N_("added to .grad"),
               "consumed": N_("a hook took it (.grad set to None)"), "changed": N_("a hook changed .grad"),
               "none": N_("nothing arrived"),
               "reduced": N_("DistributedDataParallel's reducer wrote the mean over the processes")}
_BEFORE_WORDS = {"preexisting": N_(".grad already held a value"), "reset": N_(".grad was reset before this pass"),
                 "edited": N_(".grad was edited before this pass"), "first": "", "kept": ""}


#: A check's outcome (:class:`~gradexplorer.core.analysis.verify.Verification`), said in the reader's language.
_CHECK_WORDS = {"verified": N_("verified"), "unverified": N_("unverified"), "wrong": N_("wrong")}


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
        self.comparison_box = ComparisonBox()
        self.comparison = self.comparison_box.label
        outer.addWidget(self.comparison_box)

        #: Kind, names, path, how it was made, tensor, source line (ui.node_facts).
        self.facts = NodeFacts()
        self.facts.source_requested.connect(self.source_requested)
        outer.addWidget(self.facts)
        # The form's fields, read by tests and the pseudo-locale check as the inspector's own.
        self.kind, self.names, self.path = self.facts.kind, self.facts.names, self.facts.path
        self.created, self.meta, self.source = self.facts.created, self.facts.meta, self.facts.source
        self.copy_path = self.facts.copy_path
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
        self.show_node(None, None)

    def show_replay(self, text: str | None) -> None:
        """Show a replayed step's text above the node's details (None: not replaying; the box goes)."""
        self.replay.setText(text or "")
        self.replay_box.setVisible(text is not None)

    def show_comparison(self, status: str | None, rows=(), *, a_label: str = "A", b_label: str = "B") -> None:
        """Show the node in both runs of a comparison: ``rows`` of ``(what, run A, run B, difference)``.

        ``status`` heads the box ("changed, matched by name"); None hides it (no comparison on screen).
        """
        self.comparison_box.show_rows(status, rows, self.viewport().width(), a_label=a_label, b_label=b_label)

    def comparison_layout(self) -> str:
        """``"table"`` (A and B side by side: the inspector is wide) or ``"lines"`` (A above B: it is narrow)."""
        return layout_for(self.viewport().width())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self.comparison_box.rows and self.comparison_box.isVisibleTo(self):
            # Side by side once there is room, one above the other when there is not.
            self.comparison_box.render_for(self.viewport().width())

    def comparison_table(self) -> list[tuple[str, str, str, str]]:
        """The comparison rows shown (empty when none): what a user reads in the box."""
        return list(self.comparison_box.rows) if self.comparison_box.isVisibleTo(self) else []

    def replay_text(self) -> str:
        """The replayed step shown ("" when none)."""
        return self.replay.text() if self.replay_box.isVisibleTo(self) else ""


    def _leaf_grad_box(self) -> QGroupBox:
        """A leaf's accumulated ``.grad`` and its table of passes (before, delivered, after)."""
        # A leaf's accumulated .grad and its per-pass story come first: it is
        # what a user debugging a training loop looks for.
        self.leaf_box = QGroupBox(_tr(".grad (accumulated)"))
        leaf_layout = QVBoxLayout(self.leaf_box)
        self.leaf_grad = TensorView(_tr("Leaf grad"))
        leaf_layout.addWidget(self.leaf_grad)
        # Per pass: .grad before, what the pass delivered, .grad after.
        self.leaf_passes = LeafPassTable()
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
        boxes = (self.value_box, self.grad_box, self.leaf_box, self.saved_box, self.hooks_box)
        if attrs is None:
            self.title.setText(_tr("Click a node to inspect it."))
            self.facts.show_node(None)
            for box in boxes:
                box.setVisible(False)
            return
        self.title.setText(f"{short_op(attrs['op'])}  ({node_id})")
        self.facts.show_node(attrs, scopes)
        self.value_box.setVisible(True)
        self.value_box.setTitle(_tr("Value (leaf variable, end of run)") if attrs["kind"] == "leaf" else
                                _tr("Forward value (when the op ran)"))
        self.value.set_record(attrs.get("value"))
        self._show_passes(attrs, passes, prefer_pass)
        self.leaf_box.setVisible(attrs["kind"] == "leaf")
        self.leaf_grad.set_record(attrs.get("grad"))
        if attrs["kind"] == "leaf" and attrs.get("grad") is None:
            self.leaf_grad.summary.setText(_tr(".grad is None"))
        self.leaf_passes.fill(self._leaf_steps if attrs["kind"] == "leaf" else (), self._passes)
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


    def show_group(self, group) -> None:
        """A collapsed module box: what it holds."""
        self.show_node(None, None)
        self.title.setText(_tr("{path}  (module box)").format(path=group.path))
        self.facts.show_group(group)

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
                before=short_record(s.before), delivered=short_record(s.delivered), after=short_record(s.after),
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

    def leaf_pass_rows(self) -> list[list[str]]:
        """The per-pass table as text (what a user reads)."""
        return self.leaf_passes.rows()

    def _on_pass_picker_changed(self, _row: int) -> None:
        self._show_pass(self.pass_picker.currentData())



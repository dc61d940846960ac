"""The inspector's form of facts about a node: kind, names, the path expression, how it was made, tensor, source.

:class:`NodeFacts` is the top of the inspector: what the node is (a leaf, an
op, a custom Function, a root), every name bound to its tensor and where a
name is held (``loss in main()``), the Python expression that reaches it
from a named tensor (with Copy), whether it was made under ``no_grad`` or
inference mode, its tensor's shape, dtype and device, and its source line
(a click opens it). For a folded module box the same rows say what the box
holds.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QToolButton, QWidget

from ..core.records.tensors import format_number
from .language import N_, translator_for

__all__ = ["NodeFacts"]

_tr = translator_for(__name__)

#: A node's kind (the schema's ``kind``), in the reader's language.
_KIND_WORDS = {"leaf": N_("leaf"), "op": N_("op"), "custom": N_("custom")}


class NodeFacts(QWidget):
    """The rows of facts about one node (or module box).

    Signals
    -------
    source_requested(str, int)
        The user clicked the source line: ``(file, line)``, file ``""`` for the program.
    """

    source_requested = Signal(str, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self._attrs: dict | None = None
        self._line: int | None = None
        self._file = ""
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

    def show_node(self, attrs: dict | None, scopes=None) -> None:
        """A node's kind, names (where each is held), path, how it was made, tensor and source (None: empty)."""
        self._attrs = attrs
        self.label_rows((_tr("Kind"), _tr("Names"), _tr("Created"), _tr("Tensor")), box=False)
        if attrs is None:
            for widget in (self.kind, self.names, self.path, self.created, self.meta):
                widget.setText("")
            self.path.setPlaceholderText("")
            self.source.setText("")
            self.copy_path.setEnabled(False)
            self._line = None
            return
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

    def label_rows(self, texts: tuple[str, str, str, str], *, box: bool) -> None:
        """Name the form's rows for a node or for a module box; a box has no path or source line."""
        for widget, text in zip((self.kind, self.names, self.created, self.meta), texts):
            label = self._form.labelForField(widget)
            if label is not None:
                label.setText(text)
        self._form.setRowVisible(self._path_row, not box)
        self._form.setRowVisible(self.source, not box)

    def _on_copy_path_clicked(self) -> None:
        if self._attrs is not None and self._attrs.get("path"):
            QGuiApplication.clipboard().setText(self._attrs["path"])

    def _on_source_clicked(self) -> None:
        if self._line is not None:
            self.source_requested.emit(self._file, self._line)

    def show_group(self, group) -> None:
        """A collapsed module box: its type, what it holds, its gradient, how to open it."""
        self.show_node(None)
        self.label_rows((_tr("Module"), _tr("Holds"), _tr("Gradient"), _tr("Open")), box=True)
        self.kind.setText(group.title + (_tr(" (a pattern of identical blocks)") if group.repeat else ""))
        self.names.setText(_tr("{count} nodes; {inputs} edges in, {outputs} out").format(
            count=len(group.members), inputs=group.inputs, outputs=group.outputs))
        norm = _tr("unknown") if group.grad_norm is None else format_number(group.grad_norm)
        same = _tr("; same structure as {family_size} other box(es)").format(
            family_size=group.family_size - 1) if group.family_size > 1 else ""
        self.created.setText(_tr("norm over its nodes' gradients {norm}{same}").format(norm=norm, same=same) +
                             (_tr("; NaN/Inf inside") if group.nonfinite else ""))
        self.meta.setText(_tr("double-click the box (or Ctrl+E) to open it one level"))


"""The bar above the graph: where the current node sits in the model, and how deep to open it.

* **Breadcrumbs**: the module path of the current node or box, from the top
  (``model › layers › [0-39] › 3 › self_attn``); clicking a crumb folds
  the picture into that box and selects it (the window does the work).
* **Depth slider**: 0 shows the top-level modules as boxes, the far right
  opens every box; each step opens or closes one level everywhere
  (:func:`gradexplorer.core.analysis.grouping.collapse_at_depth`).

The widget only shows and reports; :class:`MainWindow` decides what the
clicks do (in a job, off the GUI thread).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QToolButton, QWidget

from .language import translator_for

__all__ = ["GraphNavigator"]

_tr = translator_for(__name__)


def crumb_text(path: str, parent: str | None) -> str:
    """A crumb's text: the last part of the path (``self_attn``, ``[0-39]``, ``3``)."""
    if parent and path.startswith(parent + "."):
        return path[len(parent) + 1:]
    return path


class GraphNavigator(QWidget):
    """Breadcrumbs of the current node's modules and the depth slider.

    Signals
    -------
    crumb_clicked(str)
        A crumb's module path (or box path) was clicked.
    depth_chosen(int)
        The slider was released at a new depth (not emitted while dragging).
    pass_chosen(object)
        The pass to draw (0-based), or None for every pass.
    """

    crumb_clicked = Signal(str)
    depth_chosen = Signal(int)
    pass_chosen = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self._crumbs = QWidget()
        self._crumb_layout = QHBoxLayout(self._crumbs)
        self._crumb_layout.setContentsMargins(0, 0, 0, 0)
        self._crumb_layout.setSpacing(0)
        layout.addWidget(self._crumbs, 1)
        self.pass_label = QLabel(_tr("Pass"))
        layout.addWidget(self.pass_label)
        self.pass_combo = QComboBox()
        self.pass_combo.setAccessibleName(_tr("Backward pass shown"))
        self.pass_combo.setToolTip(_tr("Which backward pass the picture shows (its nodes, its gradients); a training "
                                   "loop opens on its last pass"))
        self.pass_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.pass_combo.activated.connect(self._on_pass_combo_activated)
        layout.addWidget(self.pass_combo)
        self.depth_label = QLabel(_tr("Depth"))
        layout.addWidget(self.depth_label)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setAccessibleName(_tr("Module depth"))
        self.slider.setToolTip(_tr("How deep the module boxes are opened: left, top-level modules as boxes; "
                               "right, every node"))
        self.slider.setMaximumWidth(180)
        self.slider.setPageStep(1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.sliderReleased.connect(self._emit_depth)
        self.slider.valueChanged.connect(self._on_value_changed)
        layout.addWidget(self.slider)
        self.crumb_buttons: list[QToolButton] = []
        self.crumbs: tuple[str, ...] = ()
        self._quiet = False
        self.set_levels(0, 0)
        self.set_crumbs(())

    # -- passes ----------------------------------------------------------------------
    def set_passes(self, count: int, shown: int | None) -> None:
        """The pass picker: "all passes" and one entry per pass (counted from 1), ``shown`` selected.

        Hidden for a program with one pass or none (there is nothing to pick).
        """
        self.pass_combo.blockSignals(True)
        self.pass_combo.clear()
        self.pass_combo.addItem(_tr("all {count} passes").format(count=count), None)
        for index in range(count):
            self.pass_combo.addItem(_tr("pass {number} of {count}").format(number=index + 1, count=count), index)
        self.pass_combo.setCurrentIndex(0 if shown is None else shown + 1)
        self.pass_combo.blockSignals(False)
        for widget in (self.pass_label, self.pass_combo):
            widget.setVisible(count > 1)

    def _on_pass_combo_activated(self, _row: int) -> None:
        self.pass_chosen.emit(self.pass_combo.currentData())

    # -- depth -----------------------------------------------------------------------
    def set_levels(self, deepest: int, current: int) -> None:
        """The slider's range (0..deepest) and position, without reporting a choice."""
        self._quiet = True
        self.slider.setRange(0, max(deepest, 0))
        self.slider.setValue(min(max(current, 0), max(deepest, 0)))
        self.slider.setEnabled(deepest > 0)
        self._quiet = False
        self._update_depth_label()

    def _update_depth_label(self) -> None:
        value, top = self.slider.value(), self.slider.maximum()
        text = _tr("all nodes") if value >= top else _tr("{value} of {top}").format(value=value, top=top)
        self.depth_label.setText(_tr("Depth: {text}").format(text=text) if top else _tr("Depth"))

    def _on_value_changed(self, _value: int) -> None:
        self._update_depth_label()
        if not self._quiet and not self.slider.isSliderDown():  # keyboard or click on the groove
            self._emit_depth()

    def _emit_depth(self) -> None:
        self.depth_chosen.emit(self.slider.value())

    # -- breadcrumbs -------------------------------------------------------------------
    def set_crumbs(self, paths: tuple[str, ...], hint: str | None = None) -> None:
        """Show ``paths`` (outermost first) as clickable crumbs; empty: ``hint`` instead (or the default one)."""
        if hint is None:
            hint = _tr("Select a node to see which modules it is in")
        self.crumbs = tuple(paths)
        while self._crumb_layout.count():
            item = self._crumb_layout.takeAt(0)
            if item.widget() is not None:
                item.widget().hide()  # deleteLater alone leaves it painted until the next turn
                item.widget().deleteLater()
        self.crumb_buttons = []
        if not paths:
            label = QLabel(hint)
            label.setEnabled(False)
            self._crumb_layout.addWidget(label)
            self._crumb_layout.addStretch(1)
            return
        parent = None
        for index, path in enumerate(paths):
            if index:
                self._crumb_layout.addWidget(QLabel(" › "))
            button = QToolButton()
            button.setText(crumb_text(path, parent))
            button.setToolTip(_tr("Fold into {path} and select it").format(path=path))
            button.setAutoRaise(True)
            button.clicked.connect(lambda _checked=False, p=path: self.crumb_clicked.emit(p))
            self._crumb_layout.addWidget(button)
            self.crumb_buttons.append(button)
            parent = path
        self._crumb_layout.addStretch(1)

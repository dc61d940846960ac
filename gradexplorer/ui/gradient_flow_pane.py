"""The Gradient flow tab: each parameter's gradient per pass, as a chart, with the outliers named.

x: the parameters in model order (input side left); y: the gradient norm
(or mean |g|, or max |g|) on a log scale; one line of points per backward
pass. Vanishing and exploding gradients (the rule of
:mod:`gradexplorer.core.analysis.gradient_flow`) are listed under the chart; a click
on a point or on a listed warning selects the parameter in the graph.

The chart is drawn with pyqtgraph, and only while the tab is visible: a
new capture only stores its rows, and the chart is drawn when the tab is
shown (importing pyqtgraph takes a third of a second and plotting 15,000
parameters a few tenths: a run or an Open must not wait for a tab nobody
looks at). At most :data:`MAX_WARNINGS` warnings are listed, with a count of
the rest.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ..core.analysis.gradient_flow import FlowWarning, ParameterFlow

__all__ = ["GradientFlowPane", "MAX_WARNINGS", "METRICS"]

#: Warnings listed at most (a 50,000-node model can have thousands); the rest are counted.
MAX_WARNINGS = 200
#: What the chart can show, by the :class:`PassGradient` field.
METRICS = {"norm": "gradient norm ‖g‖", "mean_abs": "mean |g|", "max_abs": "max |g|"}
_PASS_COLOURS = ["#0969da", "#bf8700", "#1a7f37", "#8250df", "#cf222e", "#57606a"]


class GradientFlowPane(QWidget):
    """Chart and warnings; emits ``node_requested(node_id)`` when a parameter is clicked."""

    node_requested = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Gradient flow")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.summary = QLabel("Run code with nn.Module parameters and a backward pass to see its gradient flow.")
        self.summary.setWordWrap(True)
        top.addWidget(self.summary, 1)
        self.metric_combo = QComboBox()
        self.metric_combo.setAccessibleName("Gradient measure")
        for key, text in METRICS.items():
            self.metric_combo.addItem(text, key)
        self.metric_combo.activated.connect(self._redraw)
        top.addWidget(self.metric_combo)
        layout.addLayout(top)
        self._chart_holder = QVBoxLayout()
        layout.addLayout(self._chart_holder, 3)
        self.warnings = QListWidget()
        self.warnings.setAccessibleName("Gradient warnings")
        self.warnings.itemActivated.connect(self._on_warning_activated)
        self.warnings.itemClicked.connect(self._on_warning_activated)
        layout.addWidget(self.warnings, 1)
        self.plot = None
        self.flows: tuple[ParameterFlow, ...] = ()
        self.flow_warnings: list[FlowWarning] = []
        self.series: list[tuple[int, list[float], list[float]]] = []  # (pass, x, y) as drawn
        self._stale = False  # rows changed since the chart was drawn

    def _ensure_plot(self):
        if self.plot is None:
            import pyqtgraph as pg

            pg.setConfigOptions(antialias=True, background="w", foreground="#1f2328")
            self.plot = pg.PlotWidget()
            self.plot.setAccessibleName("Gradient flow chart")
            self.plot.setLogMode(x=False, y=True)
            self.plot.showGrid(x=False, y=True, alpha=0.3)
            self.plot.addLegend(offset=(-10, 10))
            self._chart_holder.addWidget(self.plot)
        return self.plot

    def show_flows(self, flows: tuple[ParameterFlow, ...], warnings: list[FlowWarning]) -> None:
        """Show a capture's gradient flow (empty: the hint)."""
        self.flows = tuple(flows)
        self.flow_warnings = list(warnings)
        self.warnings.clear()
        self.warnings.setVisible(bool(self.flow_warnings))
        passes = max((len(f.passes) for f in self.flows), default=0)
        if not self.flows or not passes:
            self.summary.setText("No parameter received a gradient: run code with nn.Module parameters "
                                 "and a backward pass to see its gradient flow.")
            if self.plot is not None:
                self.plot.clear()
            self.series = []
            return
        counts = {kind: sum(w.kind == kind for w in self.flow_warnings) for kind in ("vanishing", "exploding")}
        self.summary.setText(f"{len(self.flows)} parameters × {passes} pass(es), input side on the left. "
                             f"{counts['vanishing']} vanishing, {counts['exploding']} exploding "
                             f"(below 1/1000 or above 1000× the pass's median norm, or NaN/Inf). "
                             f"Click a point or a warning to select the parameter.")
        for warning in self.flow_warnings[:MAX_WARNINGS]:
            item = QListWidgetItem(("⚠ " if warning.kind == "exploding" else "↓ ") + warning.text)
            item.setData(Qt.ItemDataRole.UserRole, warning.flow.node_id)
            self.warnings.addItem(item)
        if len(self.flow_warnings) > MAX_WARNINGS:
            self.warnings.addItem(f"… and {len(self.flow_warnings) - MAX_WARNINGS} more")
        self._stale = True
        if self.isVisible():
            self._redraw()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if self._stale:
            self._redraw()

    def _redraw(self, _index: int = 0) -> None:
        self._stale = False
        if not self.flows:
            return
        import pyqtgraph as pg

        plot = self._ensure_plot()
        plot.clear()
        key = self.metric_combo.currentData()
        plot.setLabel("left", METRICS[key])
        passes = max(len(f.passes) for f in self.flows)
        self.series = []
        for index in range(passes):
            xs, ys, ids = [], [], []
            for x, flow in enumerate(self.flows):
                gradient = flow.passes[index] if index < len(flow.passes) else None
                value = None if gradient is None else getattr(gradient, key)
                if value is not None and math.isfinite(value) and value > 0:
                    xs.append(x)
                    ys.append(value)
                    ids.append(flow.node_id)
            colour = _PASS_COLOURS[index % len(_PASS_COLOURS)]
            # One item for line and points, so both follow the log axis; its points carry the node ids.
            item = pg.PlotDataItem(xs, ys, data=ids, pen=pg.mkPen(colour, width=1), symbol="o", symbolSize=7,
                                   symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour),
                                   name=f"pass {index + 1}")
            item.sigPointsClicked.connect(self._on_points_clicked)
            plot.addItem(item)
            self.series.append((index, xs, ys))
        step = max(1, math.ceil(len(self.flows) / 8))  # about eight names, not one per parameter
        plot.getAxis("bottom").setTicks([[(x, _short(self.flows[x].name)) for x in range(0, len(self.flows), step)]])
        plot.setLabel("bottom", "parameters, in model order")

    def _on_points_clicked(self, _item, points, _event=None) -> None:
        if points is not None and len(points):
            self.node_requested.emit(points[0].data())

    def _on_warning_activated(self, item: QListWidgetItem) -> None:
        node_id = item.data(Qt.ItemDataRole.UserRole)
        if node_id:  # not the "… and N more" line
            self.node_requested.emit(node_id)


def _short(name: str) -> str:
    """``model.layers.3.linear1.weight`` -> ``layers.3.linear1.weight`` (the model's own name dropped)."""
    parts = name.split(".")
    return ".".join(parts[1:]) if len(parts) > 2 else name

"""The Gradient flow tab: each parameter's gradient per pass, as a chart, with the outliers named.

x: the parameters in execution order (the input side left; the module of
each group of parameters is the tick label); y: the gradient norm (or mean
|g|, or max |g|) on a log scale whose ticks are the real numbers (0.01, 0.1;
pyqtgraph's automatic SI prefix would show 10 and 100 for them); one line of
points per backward pass, or for long loops (more than :data:`MAX_LINES`
passes) the median with the min-max band over the passes, or one pass
picked in the combo. Parameters that got no gradient are marked at the
bottom of the chart: a grey square for a frozen one, a red cross for one no
pass reached. Vanishing and exploding gradients (the rule of
:mod:`gradexplorer.core.analysis.gradient_flow`) are listed under the chart; a click
on a point or on a listed warning selects the parameter in the graph. Passes
are counted from 1, as everywhere in the app.

The chart is drawn with pyqtgraph, and only while the tab is visible: a
new capture only stores its rows, and the chart is drawn when the tab is
shown (importing pyqtgraph takes a third of a second and plotting 15,000
parameters a few tenths: a run or an Open must not wait for a tab nobody
looks at). At most :data:`MAX_WARNINGS` warnings are listed, with a count of
the rest.
"""

from __future__ import annotations

import math
import statistics

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ..core.analysis.gradient_flow import FlowWarning, ParameterFlow
from .language import N_, phrase_text, translator_for

__all__ = ["GradientFlowPane", "MAX_WARNINGS", "METRICS"]

_tr = translator_for(__name__)

#: Warnings listed at most (a 50,000-node model can have thousands); the rest are counted.
MAX_WARNINGS = 200
#: What the chart can show, by the :class:`PassGradient` field.
METRICS = {"norm": N_("gradient norm ‖g‖"), "mean_abs": N_("mean |g|"), "max_abs": N_("max |g|")}
#: Up to this many passes "all passes" draws a line each; more draw the median and the min-max band.
MAX_LINES = 8
#: About this many module labels under the chart.
MAX_GROUP_LABELS = 12
_PASS_COLOURS = ["#0969da", "#bf8700", "#1a7f37", "#8250df", "#cf222e", "#57606a"]
_NO_GRADIENT = {"frozen": ("s", "#8c959f", N_("no gradient: frozen (requires_grad off)")),
                "unreached": ("x", "#cf222e", N_("no gradient: no pass reached it"))}


def log_tick_label(value: float) -> str:
    """A log axis tick's label: the number at 1, 2 and 5 times a power of ten, nothing between (3, 4, 6 ... 9
    would crowd the axis)."""
    if value <= 0 or not math.isfinite(value):
        return ""
    mantissa = value / 10 ** math.floor(math.log10(value) + 1e-9)
    return plain_number(value) if any(abs(mantissa - m) < 1e-6 for m in (1, 2, 5)) else ""


def plain_number(value: float) -> str:
    """A tick label as people write numbers: ``0.001``, ``10``, ``1e-09`` only below a millionth."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    if 1e-6 <= abs(value) < 1e7:
        text = f"{value:.6f}".rstrip("0").rstrip(".") if abs(value) < 1 else f"{value:.6g}"
        return text
    return f"{value:.0e}".replace("e-0", "e-").replace("e+0", "e").replace("e+", "e")


class GradientFlowPane(QWidget):
    """Chart and warnings; emits ``node_requested(node_id)`` when a parameter is clicked."""

    node_requested = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("Gradient flow"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.summary = QLabel(_tr("Run code with nn.Module parameters and a backward pass to see its gradient flow."))
        self.summary.setWordWrap(True)
        top.addWidget(self.summary, 1)
        self.metric_combo = QComboBox()
        self.metric_combo.setAccessibleName(_tr("Gradient measure"))
        for key, text in METRICS.items():
            self.metric_combo.addItem(_tr(text), key)
        self.metric_combo.activated.connect(self._redraw)
        top.addWidget(self.metric_combo)
        self.pass_combo = QComboBox()
        self.pass_combo.setAccessibleName(_tr("Passes shown"))
        self.pass_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.pass_combo.activated.connect(self._redraw)
        top.addWidget(self.pass_combo)
        layout.addLayout(top)
        self._chart_holder = QVBoxLayout()
        layout.addLayout(self._chart_holder, 3)
        self.warnings = QListWidget()
        self.warnings.setAccessibleName(_tr("Gradient warnings"))
        self.warnings.itemActivated.connect(self._on_warning_activated)
        self.warnings.itemClicked.connect(self._on_warning_activated)
        layout.addWidget(self.warnings, 1)
        self.plot = None
        self.flows: tuple[ParameterFlow, ...] = ()
        self.flow_warnings: list[FlowWarning] = []
        #: What is drawn: ``(label, x, y)`` per series ("pass 1", "median", "no gradient: frozen", ...).
        self.series: list[tuple[str, list[float], list[float]]] = []
        self._stale = False  # rows changed since the chart was drawn

    def _ensure_plot(self):
        if self.plot is None:
            import pyqtgraph as pg

            class PlainLogAxis(pg.AxisItem):
                """Log ticks as the numbers they are (no SI prefix, no 10⁻³)."""

                def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
                    return [log_tick_label(10 ** float(v) * scale) for v in values]

            pg.setConfigOptions(antialias=True, background="w", foreground="#1f2328")
            left = PlainLogAxis("left")
            left.enableAutoSIPrefix(False)
            bottom = pg.AxisItem("bottom")
            bottom.enableAutoSIPrefix(False)
            self.plot = pg.PlotWidget(axisItems={"left": left, "bottom": bottom})
            self.plot.setAccessibleName(_tr("Gradient flow chart"))
            self.plot.setLogMode(x=False, y=True)
            self.plot.showGrid(x=False, y=True, alpha=0.3)
            # Top left: where a chart of the usual shape (small gradients at the input side) has no points.
            self.plot.addLegend(offset=(10, 10), brush=pg.mkBrush(255, 255, 255, 200))
            self._chart_holder.addWidget(self.plot)
        return self.plot

    def tick_labels(self, axis: str) -> list[str]:
        """The tick labels the chart paints on ``axis`` ("left" or "bottom"), read from its draw specs."""
        from PySide6.QtGui import QPainter, QPixmap

        item = self.plot.getAxis(axis)
        pixmap = QPixmap(max(int(item.width()), 1), max(int(item.height()), 1))
        painter = QPainter(pixmap)
        try:
            specs = item.generateDrawSpecs(painter)
        finally:
            painter.end()
        return [] if specs is None else [text for _, _, text in specs[2] if text]

    def show_flows(self, flows: tuple[ParameterFlow, ...], warnings: list[FlowWarning]) -> None:
        """Show a capture's gradient flow (empty: the hint, and a cleared chart)."""
        self.flows = tuple(flows)
        self.flow_warnings = list(warnings)
        self.warnings.clear()
        self.warnings.setVisible(bool(self.flow_warnings))
        passes = max((len(f.passes) for f in self.flows), default=0)
        self.pass_combo.clear()
        if not self.flows or not passes:
            self.summary.setText(_tr("No parameter received a gradient: run code with nn.Module parameters "
                                     "and a backward pass to see its gradient flow."))
            self._clear_chart()
            self.pass_combo.setVisible(False)
            return
        self.pass_combo.addItem(_tr("all passes") if passes <= MAX_LINES else
                                _tr("all {count} passes (median, min-max)").format(count=passes), None)
        for index in range(passes):
            self.pass_combo.addItem(_tr("pass {number}").format(number=index + 1), index)
        self.pass_combo.setVisible(passes > 1)
        counts = {kind: sum(w.kind == kind for w in self.flow_warnings) for kind in ("vanishing", "exploding")}
        gaps = {status: sum(f.status == status for f in self.flows) for status in _NO_GRADIENT}
        missing = ", ".join((_tr("{count} frozen") if status == "frozen" else _tr("{count} not reached")).format(count=n)
                            for status, n in gaps.items() if n)
        self.summary.setText(
            _tr("{parameters} parameters × {passes} pass(es), in the order the forward pass used them (input side "
                "on the left)").format(parameters=len(self.flows), passes=passes)
            + (_tr("; no gradient: {missing}").format(missing=missing) if missing else "")
            + _tr(". {vanishing} vanishing, {exploding} exploding (below 1/1000 or above 1000× the pass's median "
                  "norm, or NaN/Inf). Click a point or a warning to select the parameter.").format(
                vanishing=counts["vanishing"], exploding=counts["exploding"]))
        for warning in self.flow_warnings[:MAX_WARNINGS]:
            item = QListWidgetItem(("⚠ " if warning.kind == "exploding" else "↓ ") + phrase_text(warning.said))
            item.setData(Qt.ItemDataRole.UserRole, warning.flow.node_id)
            self.warnings.addItem(item)
        if len(self.flow_warnings) > MAX_WARNINGS:
            self.warnings.addItem(_tr("… and {count} more").format(count=len(self.flow_warnings) - MAX_WARNINGS))
        self._stale = True
        if self.isVisible():
            self._redraw()

    def show_pending(self, text: str) -> None:
        """Nothing of the previous run, and ``text`` as the summary, until :meth:`show_flows` (a run drawn first)."""
        self.flows, self.flow_warnings = (), []
        self.warnings.clear()
        self.warnings.setVisible(False)
        self.pass_combo.clear()
        self.pass_combo.setVisible(False)
        self._clear_chart()
        self.summary.setText(text)

    def _clear_chart(self) -> None:
        """Nothing from an earlier capture stays: no points, no ticks, no axis titles."""
        self.series = []
        self._stale = False
        if self.plot is not None:
            self.plot.clear()
            self.plot.getAxis("bottom").setTicks(None)
            self.plot.setLabel("bottom", "")
            self.plot.setLabel("left", "")

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
        plot.setLabel("left", _tr(METRICS[key]))
        passes = max(len(f.passes) for f in self.flows)
        chosen = self.pass_combo.currentData()
        self.series = []

        def value(flow, index):
            gradient = flow.passes[index] if index < len(flow.passes) else None
            got = None if gradient is None else getattr(gradient, key)
            return got if got is not None and math.isfinite(got) and got > 0 else None

        def add(label, xs, ys, ids, colour, *, symbol="o", line=True, size=7):
            item = pg.PlotDataItem(xs, ys, data=ids, pen=pg.mkPen(colour, width=1) if line else None,
                                   symbol=symbol, symbolSize=size, symbolBrush=pg.mkBrush(colour),
                                   symbolPen=pg.mkPen(colour), name=label)
            item.sigPointsClicked.connect(self._on_points_clicked)
            plot.addItem(item)
            self.series.append((label, xs, ys))
            return item

        shown = [chosen] if chosen is not None else list(range(passes))
        if chosen is None and passes > MAX_LINES:
            # A long loop: the median over the passes, and the band between the smallest and the largest.
            xs, lows, mids, highs, ids = [], [], [], [], []
            for x, flow in enumerate(self.flows):
                values = [v for index in shown if (v := value(flow, index)) is not None]
                if values:
                    xs.append(x)
                    lows.append(min(values))
                    mids.append(statistics.median(values))
                    highs.append(max(values))
                    ids.append(flow.node_id)
            low = pg.PlotDataItem(xs, lows, pen=pg.mkPen("#9ec5fe", width=1))
            high = pg.PlotDataItem(xs, highs, pen=pg.mkPen("#9ec5fe", width=1))
            plot.addItem(low)
            plot.addItem(high)
            plot.addItem(pg.FillBetweenItem(low, high, brush=pg.mkBrush(9, 105, 218, 50)))
            self.series.append((_tr("min-max over {passes} passes").format(passes=passes), xs, highs))
            add(_tr("median over {passes} passes").format(passes=passes), xs, mids, ids, _PASS_COLOURS[0])
        else:
            for index in shown:
                xs, ys, ids = [], [], []
                for x, flow in enumerate(self.flows):
                    v = value(flow, index)
                    if v is not None:
                        xs.append(x)
                        ys.append(v)
                        ids.append(flow.node_id)
                # One item for line and points, so both follow the log axis; its points carry the node ids.
                add(_tr("pass {number}").format(number=index + 1), xs, ys, ids,
                    _PASS_COLOURS[index % len(_PASS_COLOURS)])
        drawn = [y for _, _, ys in self.series for y in ys]
        floor = min(drawn) / 4 if drawn else 1e-6
        for status, (symbol, colour, label) in _NO_GRADIENT.items():
            xs = [x for x, flow in enumerate(self.flows) if flow.status == status]
            if xs:
                add(_tr(label), xs, [floor] * len(xs), [self.flows[x].node_id for x in xs], colour, symbol=symbol,
                    line=False, size=9)
        plot.getAxis("bottom").setTicks([self._group_ticks()])
        plot.setLabel("bottom", _tr("parameters in the order the forward pass used them, by module"))
        if plot.plotItem.legend is not None:  # one series needs no legend: the summary says what it is
            plot.plotItem.legend.setVisible(len(self.series) > 1)

    def _group_ticks(self) -> list[tuple[int, str]]:
        """A tick at the first parameter of each module (about :data:`MAX_GROUP_LABELS` of them)."""
        starts = [(x, flow.module) for x, flow in enumerate(self.flows) if x == 0 or flow.module != self.flows[x - 1].module]
        step = max(1, math.ceil(len(starts) / MAX_GROUP_LABELS))
        return [(x, _short(module)) for x, module in starts[::step]]

    def _on_points_clicked(self, _item, points, _event=None) -> None:
        if points is not None and len(points) and points[0].data():  # a frozen parameter has no node
            self.node_requested.emit(points[0].data())

    def _on_warning_activated(self, item: QListWidgetItem) -> None:
        node_id = item.data(Qt.ItemDataRole.UserRole)
        if node_id:  # not the "… and N more" line
            self.node_requested.emit(node_id)


def _short(name: str) -> str:
    """``model.layers.3.linear1`` -> ``layers.3.linear1`` (the model's own name dropped)."""
    parts = name.split(".")
    return ".".join(parts[1:]) if len(parts) > 1 else name

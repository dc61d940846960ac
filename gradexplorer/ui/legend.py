"""What the graph's colours and marks mean: the legend, and the fixed gradient-norm scale.

One painting function, :func:`paint_legend`, serves the legend shown in the
corner of the graph view (:class:`LegendWidget`) and the legend drawn into an
exported SVG/PNG, so the two never disagree.

The gradient-norm colouring uses a *fixed* log scale, 1e-6 to 1e+2, the same
for every graph: a norm of 1.56 has the same colour in every capture (the
first version rescaled per graph, so 1.0 was blue in one graph and red in
the next). The ramp runs from pale blue through green to yellow and has no
red in it: red belongs to NaN/Inf alone, drawn as a thick red border and a
"NaN" tag.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from .language import N_, translator_for

__all__ = ["DIFF_FILLS", "LOG_HIGH", "LOG_LOW", "NAN_RED", "LegendWidget", "diff_pen", "legend_size", "legend_texts",
           "norm_colour", "paint_legend", "paint_nan_tag"]

_tr = translator_for(__name__)

#: The fixed gradient-norm scale, as powers of ten: 1e-6 (and below) to 1e+2 (and above).
LOG_LOW, LOG_HIGH = -6, 2
#: Stops of the ramp, small to large (pale blue, green, yellow): no red, that is NaN's.
_RAMP = ((0.0, "#c9dcf2"), (0.5, "#7ccba2"), (1.0, "#f7d046"))
#: NaN/Inf's own colour: a thick border and a tag.
NAN_RED = "#d1242f"
#: Unknown gradient (never reached the node, or no backward pass).
NO_GRAD_GREY = "#d0d7de"

#: Fill colours per node kind (light palette, dark palette): the drawing and the legend share them.
KIND_FILLS = {
    "leaf": ("#d8f3dc", "#1e4d2b"),
    "op": ("#e3ecf7", "#22344a"),
    "root": ("#ffe5c2", "#5a3a12"),
    "custom": ("#eadcf8", "#3d2a57"),
}
#: A module box's fill: neutral, so that it is never read as a node kind (green leaf, orange root, blue op,
#: purple custom Function); its structure shows as a band of colour down its left side instead.
BOX_FILL, BOX_FILL_DARK = "#f2f3f5", "#2d333b"

#: Fill colours per comparison status (light, dark): File > Compare with Session. The conventional green for
#: added and a pale rose for removed (drawn dashed too); NaN's red stays a border.
DIFF_FILLS = {
    "same": ("#f2f3f5", "#2d333b"),
    "changed": ("#ffd98a", "#6b4e0f"),
    "added": ("#b4e8be", "#1f5130"),
    "removed": ("#f6c9d0", "#5c2330"),
}
_DIFF_SWATCHES = (
    ("same", N_("the same in both runs")),
    ("changed", N_("changed (value, gradient, op, dtype…)")),
    ("added", N_("added: only in this run")),
    ("removed", N_("removed: only in the run compared with")),
)

# The legend's lines are short (its width decides how much of the drawing it could cover); the tooltip and
# the README say more.
_KIND_SWATCHES = (
    ("leaf", KIND_FILLS["leaf"][0], N_("leaf (a parameter or input)")),
    ("op", KIND_FILLS["op"][0], N_("operation (a backward node)")),
    ("root", KIND_FILLS["root"][0], N_("root (.backward() started here)")),
    ("custom", KIND_FILLS["custom"][0], N_("custom autograd.Function")),
)


def norm_position(norm: float | None) -> float | None:
    """Where ``norm`` lies on the fixed scale, 0 to 1 (clamped); None when unknown or not finite."""
    if norm is None or not math.isfinite(norm) or norm <= 0:
        return None
    t = (math.log10(norm) - LOG_LOW) / (LOG_HIGH - LOG_LOW)
    return min(max(t, 0.0), 1.0)


def _ramp(t: float) -> QColor:
    for (t0, c0), (t1, c1) in zip(_RAMP, _RAMP[1:]):
        if t <= t1:
            a, b = QColor(c0), QColor(c1)
            f = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
            return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * f, a.greenF() + (b.greenF() - a.greenF()) * f,
                                   a.blueF() + (b.blueF() - a.blueF()) * f)
    return QColor(_RAMP[-1][1])


def norm_colour(norm: float | None) -> QColor:
    """The fill for a gradient norm on the fixed log scale (grey when unknown)."""
    t = norm_position(norm)
    return QColor(NO_GRAD_GREY) if t is None else _ramp(t)


def paint_nan_tag(painter: QPainter, rect: QRectF) -> None:
    """The NaN/Inf tag in a box's top-right corner (white on red)."""
    tag = QRectF(rect.right() - 30, rect.top() - 7, 30, 13)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(NAN_RED))
    painter.drawRoundedRect(tag, 3, 3)
    font = QFont(painter.font())
    font.setPointSizeF(7)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, "NaN")


def diff_pen(status: str) -> QPen:
    """A node's border in the comparison colouring: dashed for a removed node (it is not in this run)."""
    pen = QPen(QColor("#7f8c9d"), 1.0)
    if status == "removed":
        pen = QPen(QColor("#a0506a"), 1.5, Qt.PenStyle.DashLine)
    elif status in ("changed", "added"):
        pen = QPen(QColor("#57606a"), 1.5)
    return pen


def legend_texts(mode: str) -> list[str]:
    """Every line the legend shows for a colouring mode (tests and exports read these)."""
    common = [_tr("hooks registered (gold border)"), _tr("NaN/Inf inside (red border, tag)"),
              _tr("no gradient reached it (faded)"), _tr("module box (colour band per structure)")]
    if mode == "grad_norm":
        return [_tr("gradient norm, fixed log scale 1e{low} … 1e+{high}").format(low=LOG_LOW, high=LOG_HIGH),
                _tr("no gradient known (grey)"), *common]
    if mode == "diff":
        return [_tr(text) for _, text in _DIFF_SWATCHES] + common
    return [_tr(text) for _, _, text in _KIND_SWATCHES] + common


#: The folded legend: a tab that names itself.
COMPACT_LEGEND_SIZE = QSize(104, 22)

_ROW = 16.0
_PAD = 8.0
_SWATCH_COLUMN = 30.0


def _legend_font() -> QFont:
    font = QFont()
    font.setPointSizeF(8)
    return font


def legend_size(mode: str) -> QSize:
    """The legend's size for ``mode``: its longest line decides the width."""
    rows = len(legend_texts(mode)) + (2 if mode == "grad_norm" else 0)
    metrics = QFontMetricsF(_legend_font())
    text = max(metrics.horizontalAdvance(line) for line in legend_texts(mode))
    return QSize(int(text + _SWATCH_COLUMN + 2 * _PAD + 12), int(2 * _PAD + _ROW * (rows + 1)) + 2)


def paint_legend(painter: QPainter, origin_x: float, origin_y: float, mode: str, *, dark: bool = False) -> None:
    """Draw the legend for ``mode`` with its top-left corner at the given point."""
    size = legend_size(mode)
    frame = QRectF(origin_x, origin_y, size.width() - 1, size.height() - 1)
    width = frame.width()
    painter.save()
    painter.setPen(QPen(QColor("#8c959f"), 1.0))
    painter.setBrush(QColor(22, 27, 34, 235) if dark else QColor(255, 255, 255, 235))
    painter.drawRoundedRect(frame, 6, 6)
    text_colour = QColor("#e6edf3" if dark else "#1f2328")
    font = _legend_font()
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(text_colour)
    x, y = origin_x + _PAD, origin_y + _PAD
    painter.drawText(QRectF(x, y, width - 2 * _PAD, _ROW), Qt.AlignmentFlag.AlignVCenter,
                     {"grad_norm": _tr("Colour: gradient norm"), "diff": _tr("Colour: compared with another run")}.get(
                         mode, _tr("Colour: node kind")))
    font.setBold(False)
    painter.setFont(font)
    y += _ROW
    swatch = QRectF(0, 0, 22, 11)
    texts = legend_texts(mode)
    if mode == "grad_norm":
        bar = QRectF(x + 12, y + 2, width - 2 * _PAD - 24, 10)  # room for the end labels
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for t, colour in _RAMP:
            gradient.setColorAt(t, QColor(colour))
        painter.setPen(QPen(QColor("#8c959f"), 0.5))
        painter.setBrush(QBrush(gradient))
        painter.drawRect(bar)
        y += _ROW
        painter.setPen(text_colour)
        for power in range(LOG_LOW, LOG_HIGH + 1, 2):
            tx = bar.left() + bar.width() * (power - LOG_LOW) / (LOG_HIGH - LOG_LOW)
            label = f"1e{power:+d}" if power else "1"
            painter.drawText(QRectF(tx - 20, y - 4, 40, _ROW), Qt.AlignmentFlag.AlignCenter, label)
        y += _ROW
        painter.drawText(QRectF(x, y, width - 2 * _PAD, _ROW), Qt.AlignmentFlag.AlignVCenter, texts[0])
        y += _ROW
        marks = [(QColor(NO_GRAD_GREY), QPen(QColor("#7f8c9d"), 1.0), texts[1])]
    elif mode == "diff":
        marks = [(QColor(DIFF_FILLS[status][dark]), diff_pen(status), _tr(text)) for status, text in _DIFF_SWATCHES]
    else:
        marks = [(QColor(KIND_FILLS[kind][dark]), QPen(QColor("#7f8c9d"), 1.0), _tr(text))
                 for kind, _, text in _KIND_SWATCHES]
    hooked = QPen(QColor("#c9a227"), 2.5)
    nan = QPen(QColor(NAN_RED), 3.0)
    dashed = QPen(QColor("#7f8c9d"), 1.0, Qt.PenStyle.DashLine)
    plain = QColor(KIND_FILLS["op"][dark])
    faded = QColor(plain)
    faded.setAlpha(150)
    box_pen = QPen(QColor("#8b949e" if dark else "#57606a"), 2.0)
    marks += [(plain, hooked, texts[-4]), (plain, nan, texts[-3]), (faded, dashed, texts[-2]),
              (QColor(BOX_FILL_DARK if dark else BOX_FILL), box_pen, texts[-1])]
    for fill, pen, text in marks:
        box = swatch.translated(x, y + 2)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(box, 3, 3)
        if text == texts[-1]:  # the module box's double border and a structure's band
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(box_pen.color(), 1.0))
            painter.drawRoundedRect(box.adjusted(2, 2, -2, -2), 2, 2)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor("#bf3989"))
            painter.drawRect(QRectF(box.left() + 3, box.top() + 3, 3, box.height() - 6))
        painter.setPen(text_colour)
        painter.drawText(QRectF(x + _SWATCH_COLUMN, y, width - _SWATCH_COLUMN - 2 * _PAD, _ROW),
                         Qt.AlignmentFlag.AlignVCenter, text)
        y += _ROW
    painter.restore()


class LegendWidget(QWidget):
    """The legend in a corner of the graph view that covers no box; it follows the colouring mode."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("Legend"))
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.mode = "kind"
        self.dark = False
        #: The view's corner it sits in: the first that covers no box (``CornerOverlays.place``).
        self.corner = "bottom-left"
        #: Folded to a small "Legend" tab (its lines in the tooltip) where the whole legend would cover a box.
        self.compact = False
        self.resize(legend_size(self.mode))

    def set_mode(self, mode: str, *, dark: bool = False) -> None:
        self.mode, self.dark = mode, dark
        self.resize(self.sizeHint())
        self.setToolTip("\n".join(legend_texts(mode)))
        self.update()

    def full_size(self) -> QSize:
        return legend_size(self.mode)

    def set_compact(self, compact: bool) -> None:
        """Fold to the tab (hover shows the lines) or unfold to the whole legend."""
        if compact != self.compact:
            self.compact = compact
            # The tab answers the mouse (its tooltip); the whole legend lets clicks through to the drawing.
            self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, not compact)
            self.resize(self.sizeHint())
            self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return COMPACT_LEGEND_SIZE if self.compact else legend_size(self.mode)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.compact:
            painter.setPen(QPen(QColor("#8c959f"), 1.0))
            painter.setBrush(QColor(22, 27, 34, 235) if self.dark else QColor(255, 255, 255, 235))
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5)
            painter.setPen(QColor("#e6edf3" if self.dark else "#1f2328"))
            painter.setFont(_legend_font())
            painter.drawText(QRectF(self.rect()), Qt.AlignmentFlag.AlignCenter, _tr("Legend (hover)"))
        else:
            paint_legend(painter, 0.5, 0.5, self.mode, dark=self.dark)
        painter.end()

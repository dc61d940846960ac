"""The edges of the graph view: drawn in bands, the current node's edges with their slots, shapes on edges.

An edge goes from the bottom of a consumer's box to the top of the node it
takes a gradient from, around the boxes of the layers in between (through
the layout's waypoints), with an arrowhead. Thousands of edges are drawn as
a few paths, one per band of layers (and per filter state), not one item
each; the current node's edges are drawn again on top in blue with their
``next_functions`` slots (or the number of edges a module box stands for);
"Shapes on Edges" writes beside each edge the shape of the tensor it
carries forward, in one item for all of them.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsSimpleTextItem, QStyleOptionGraphicsItem

from .graph_sizes import CAPTION_PIXELS, NODE_HEIGHT
from .language import translator_for

__all__ = ["EdgeDrawing", "EdgeLabels", "trace_edge"]

_tr = translator_for(__name__)

#: Edges are drawn as one path per this many layers (per filter state): a few items for 10,000 edges.
_BAND_LAYERS = 6


def _forward_shape(graph, consumer: str, producer: str) -> str | None:
    """``"16×8"``: the shape of the producer's output the consumer took in the forward pass (the gradient
    edge's ``input_nr``), from the producer's recorded outputs (a leaf: its variable; an output made inside
    an op and never recorded: the gradient a pass handed it, which autograd keeps to that shape)."""
    attrs = graph.nodes[producer]
    nr = graph.edges[consumer, producer].get("input_nr", 0) if graph.has_edge(consumer, producer) else 0
    outputs = attrs.get("outputs") or ()
    record = outputs[nr] if nr < len(outputs) else (attrs.get("variable") if attrs.get("kind") == "leaf" else None)
    if record is None:  # made inside an op (linear's weight.t()): the gradient it received has the same shape
        flows = (attrs.get("grads") or {}).values()
        record = next((f.outputs[nr] for f in flows if nr < len(f.outputs) and f.outputs[nr] is not None), None)
    if record is None:
        return None
    return "×".join(map(str, record.shape)) if record.shape else "scalar"



class EdgeLabels(QGraphicsItem):
    """Every edge's shape label in one item: painted only where the view exposes them (10,000 edges cost
    one item, not 10,000)."""

    def __init__(self, labels, dark: bool, colour: QColor | None = None) -> None:
        super().__init__()
        #: ``edge -> text`` (tests read them).
        self.labels = {edge: text for edge, _, text in labels}
        self._placed = [(point, text) for _, point, text in labels]
        self._colour = colour if colour is not None else QColor("#8b949e" if dark else "#57606a")
        xs = [p.x() for p, _ in self._placed] or [0.0]
        ys = [p.y() for p, _ in self._placed] or [0.0]
        self._bounds = QRectF(min(xs) - 4, min(ys) - CAPTION_PIXELS, max(xs) - min(xs) + 200,
                              max(ys) - min(ys) + 2 * CAPTION_PIXELS)
        self.setZValue(-0.5)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        if option.levelOfDetailFromTransform(painter.worldTransform()) < 0.25:
            return
        font = QFont(painter.font())
        font.setPixelSize(CAPTION_PIXELS)
        painter.setFont(font)
        painter.setPen(self._colour)
        exposed = option.exposedRect.adjusted(-200, -CAPTION_PIXELS, 0, CAPTION_PIXELS)
        for point, text in self._placed:
            if exposed.contains(point):
                painter.drawText(point + QPointF(0, CAPTION_PIXELS / 3), text)



def trace_edge(path: QPainterPath, ux: float, uy: float, vx: float, vy: float, via=()) -> None:
    """An edge from the bottom of u's box to the top of v's, with an arrowhead.

    Between two layers it is a vertical S-curve; a long edge passes through
    its waypoints (``via``, from the layout), straight down through each
    layer it crosses, so it goes around the boxes there, not through them.
    """
    half = NODE_HEIGHT / 2
    x, y = ux, uy + half
    path.moveTo(x, y)
    for wx, wy in via:
        top = wy - half
        bend = max((top - y) / 2, 10.0)
        path.cubicTo(x, y + bend, wx, top - bend, wx, top)
        x, y = wx, wy + half
        path.lineTo(x, y)
    by = vy - half - 4
    bend = max((by - y) / 2, 20.0 if not via else 10.0)
    path.cubicTo(x, y + bend, vx, by - bend, vx, by)
    path.moveTo(vx - 4, by - 2)
    path.lineTo(vx + 4, by - 2)
    path.lineTo(vx, by + 4)
    path.closeSubpath()


class EdgeDrawing:
    """Draws ``view``'s edges, the current node's edges and the shapes on edges, in its scene.

    Parameters
    ----------
    view : GraphView
        Its scene, layout, display graph, graph, filter and palette are read.
    """

    def __init__(self, view) -> None:
        self.view = view
        #: "Shapes on edges": the shape of the tensor each edge carries, beside it.
        self.show_shapes = False
        self._shape_item: EdgeLabels | None = None
        #: The bands of edges drawn, and the current node's edges and slot labels on top.
        self.band_items: list[QGraphicsItem] = []
        self.current_items: list[QGraphicsItem] = []

    def forget(self) -> None:
        """The scene was replaced: the items drawn in the old one are gone with it."""
        self.band_items = []
        self.current_items = []
        self._shape_item = None

    def set_show_shapes(self, shown: bool) -> None:
        """Write (or stop writing) beside each edge the shape of the tensor it carries in the forward pass."""
        self.show_shapes = shown
        self._draw_shapes()  # the edges themselves stay: rebuilding 10,000 of them took a second

    def edge_shape_labels(self) -> dict[tuple[str, str], str]:
        """The shape drawn beside each edge now (empty when Shapes on Edges is off)."""
        return dict(self._shape_item.labels) if self._shape_item is not None else {}

    def edge_path(self, edges) -> QPainterPath:
        """One path along ``edges`` (pairs of drawn box ids) as the picture draws them; others are left out."""
        path = QPainterPath()
        if self.view.drawn_layout is None:
            return path
        positions = self.view.drawn_layout.positions
        for u, v in edges:
            if u in positions and v in positions:
                self._trace_edge(path, u, v)
        return path

    def _trace_edge(self, path: QPainterPath, u: str, v: str) -> None:
        """Add the drawn edge ``(u, v)`` to ``path``: from ``u``'s box to ``v``'s, around the boxes between."""
        layout = self.view.drawn_layout
        ux, uy = layout.positions[u]
        vx, vy = layout.positions[v]
        trace_edge(path, ux, uy, vx, vy, layout.routes.get((u, v), ()))

    def edge_label_point(self, u: str, v: str) -> QPointF | None:
        """Where a label of the drawn edge ``(u, v)`` goes (beside its first segment); None when not drawn."""
        layout = self.view.drawn_layout
        if layout is None or u not in layout.positions or v not in layout.positions:
            return None
        ux, uy = layout.positions[u]
        via = layout.routes.get((u, v), ())
        vx, vy = via[0] if via else layout.positions[v]
        return QPointF((ux + vx) / 2 + 4, (uy + vy) / 2)

    def _edge_shapes(self, edges) -> list[tuple[tuple[str, str], QPointF, str]]:
        """``(edge, where, "16×8")`` for edges between two nodes (not boxes): the producer's output that the
        consumer took (the edge's ``input_nr``); a box stands for many tensors and gets none."""
        graph = self.view.drawn_graph
        labels = []
        for u, v in edges:
            if u not in graph or v not in graph:
                continue
            shape = _forward_shape(graph, u, v)
            if shape is None:
                continue
            labels.append(((u, v), self.edge_label_point(u, v), shape))
        return labels

    def draw(self) -> None:
        """(Re)draw the edges as bands of layers; a filter dims or drops edges to nodes outside it."""
        scene = self.view.scene()
        for item in self.band_items:
            scene.removeItem(item)
        self.band_items = []
        if self.view.drawn_layout is None or self.view.display is None:
            self._draw_shapes()
            return
        layer_of = {node_id: i for i, row in enumerate(self.view.drawn_layout.layers) for node_id in row}
        passing = self.view.passing_display_ids()
        bands: dict[tuple[int, bool], QPainterPath] = {}
        for u, v in self.view.display.edges:
            strong = passing is None or (u in passing and v in passing)
            if not strong and self.view.filter_mode == "hide":
                continue
            key = (layer_of[u] // _BAND_LAYERS, strong)
            path = bands.get(key)
            if path is None:
                path = bands[key] = QPainterPath()
            self._trace_edge(path, u, v)
        colour = QColor("#8b949e" if self.view.dark else "#8c959f")
        faint = QColor(colour)
        faint.setAlpha(50)
        for (_, strong), path in bands.items():
            pen = QPen(colour if strong else faint, 1.0)
            pen.setCosmetic(True)
            item = QGraphicsPathItem(path)
            item.setPen(pen)
            item.setZValue(-1)
            scene.addItem(item)
            self.band_items.append(item)
        self._draw_shapes()

    def _draw_shapes(self) -> None:
        """(Re)draw the edges' shape labels (Shapes on Edges), for the edges drawn now."""
        if self._shape_item is not None:
            self.view.scene().removeItem(self._shape_item)
            self._shape_item = None
        if self.show_shapes and self.view.drawn_layout is not None and self.view.display is not None:
            self._shape_item = EdgeLabels(self._edge_shapes(self.view.drawn_edges()), dark=self.view.dark)
            self.view.scene().addItem(self._shape_item)

    def draw_current(self, node_id: str | None) -> None:
        scene = self.view.scene()
        for item in self.current_items:
            scene.removeItem(item)
        self.current_items = []
        if node_id is None or self.view.drawn_graph is None:
            return
        positions = self.view.drawn_layout.positions
        pen = QPen(QColor("#0969da"), 2.0)
        pen.setCosmetic(True)
        path = QPainterPath()
        font = QFont()
        font.setPointSizeF(8)
        edges = self.view.edges_of(node_id)
        graph_edges = self.view.drawn_graph.edges
        for u, v in edges:
            start, end = QPointF(*positions[u]), QPointF(*positions[v])
            via = self.view.drawn_layout.routes.get((u, v), ())
            trace_edge(path, start.x(), start.y(), end.x(), end.y(), via)
            if (u, v) in graph_edges:
                data = graph_edges[u, v]
                text = "slot " + ",".join(str(s) for s in data["slots"])
                tip = f"{u} -> {v}: next_functions[{data['slot']}], input_nr {data['input_nr']}"
            else:  # an edge to or from a module box stands for several
                count = self.view.display.edge_counts.get((u, v), 1)
                text = _tr("{count} edges").format(count=count) if count > 1 else _tr("1 edge")
                tip = f"{u} -> {v}: {text}"
            label = QGraphicsSimpleTextItem(text)
            label.setFont(font)
            label.setBrush(QColor("#0969da"))
            towards = via[0][0] if via else end.x()
            label.setPos(start.x() + (towards - start.x()) * 0.25 + 4, start.y() + NODE_HEIGHT / 2 + 2)
            label.setZValue(3)
            label.setToolTip(tip)
            scene.addItem(label)
            self.current_items.append(label)
        overlay = QGraphicsPathItem(path)
        overlay.setPen(pen)
        overlay.setZValue(2)
        scene.addItem(overlay)
        self.current_items.append(overlay)

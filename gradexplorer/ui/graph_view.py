"""The autograd graph drawing: QGraphicsView/Scene, node items, edges, selection, zoom.

Positions come precomputed (:func:`gradexplorer.core.analysis.layout.layered_layout`,
run in the worker), so building the scene on the GUI thread only creates
items. Scale choices, for graphs of 10,000+ nodes:

* one light ``QGraphicsItem`` per node with its own ``paint`` (no child text
  items), which skips its label when zoomed far out (level of detail);
* edges drawn as a few ``QGraphicsPathItem`` bands of layers, not one item
  per edge, so the scene index stays small while off-screen bands are culled;
* the edges of the current node are drawn again on top, highlighted, with
  their ``next_functions`` slot index.

Selection has two levels: the *current node* (one: what the inspector shows,
what Ctrl+K and Ctrl+E act on, drawn with a ring) and the *selection* (any
number: Find's matches, an editor line's nodes). A filter dims or hides what
does not pass it; the legend in the corner says what colours and marks mean,
and the export draws the whole graph (not the viewport) with that legend.
"""

from __future__ import annotations


from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QKeySequence,
    QPainter,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsView,
    QStyleOptionGraphicsItem,
)

from ..core.analysis.diff_graph import box_status
from ..core.analysis.grouping import DisplayGraph, display_graph
from ..core.analysis.layout import Layout
from ..core.analysis.query import grad_norm
from ..core.collector import paused_collection
from ..core.graph.schema import node_gradient, node_role, value_caption
from ..core.records.tensors import format_number
from ..core.view.picture import display_width, label_width, node_label
from .legend import (
    BOX_FILL,
    BOX_FILL_DARK,
    DIFF_FILLS,
    KIND_FILLS,
    NAN_RED,
    LegendWidget,
    diff_pen,
    norm_colour,
    paint_nan_tag,
)
from .language import translator_for
from .corner_overlays import CornerOverlays
from .graph_export import GraphExport
from .graph_zoom import ViewZoom
from .edge_drawing import EdgeDrawing
from .graph_sizes import CAPTION_HEIGHT, CAPTION_PIXELS, CAPTION_WIDTH, LABEL_PIXELS, NODE_HEIGHT
from .minimap import Minimap

__all__ = ["GraphView", "NodeItem", "node_style"]

_tr = translator_for(__name__)


def node_style(attrs: dict, *, passes_ran: bool) -> tuple[str, bool, bool, bool]:
    """``(kind, hooked, no_gradient, nonfinite)`` of a node, for drawing and legends."""
    hooked = bool(attrs.get("hooks"))
    no_gradient = passes_ran and node_gradient(attrs) is None
    # A vectorised isfinite per record (microseconds), never the full statistics:
    # the view draws at most a few thousand plain nodes (big graphs are boxed).
    records = [attrs.get("value"), *(r for flow in attrs.get("grads", {}).values() for r in flow.outputs)]
    nonfinite = any(r is not None and r.has_nonfinite() for r in records)
    return node_role(attrs), hooked, no_gradient, nonfinite


_style_cache: dict[tuple, tuple[QBrush, QPen, QColor]] = {}


def _paint_tools(style: tuple, dark: bool) -> tuple[QBrush, QPen, QColor]:
    """Brush, pen and text colour of a style, shared by all items that have it."""
    key = (style, dark)
    tools = _style_cache.get(key)
    if tools is None:
        kind, hooked, no_gradient, nonfinite = style
        fill = QColor(KIND_FILLS[kind][1 if dark else 0])
        if no_gradient:
            fill.setAlpha(150)
        border = QColor(NAN_RED) if nonfinite else QColor("#c9a227") if hooked else QColor("#7f8c9d")
        pen = QPen(border, 3.0 if nonfinite else 2.5 if hooked else 1.0)
        if no_gradient:
            pen.setStyle(Qt.PenStyle.DashLine)
        tools = _style_cache[key] = (QBrush(fill), pen, QColor("#e6edf3" if dark else "#1f2328"))
    return tools


def _waits_for_stats(attrs: dict) -> bool:
    """Whether the value or gradient a node's tooltip and caption show still waits for its statistics.

    The isolated engine sends those of large tensors after the first picture;
    meanwhile a label shows the record without them, and must not be kept.
    """
    value, grad = attrs.get("value"), node_gradient(attrs)
    return (value is not None and value.stats_pending) or (grad is not None and grad.stats_pending)


class NodeItem(QGraphicsItem):
    """One autograd node: a rounded box with the op name and the variable names.

    The tooltip is built on first hover: building 10,000 of them up front was
    a fifth of the scene build time.
    """

    def __init__(self, node_id: str, attrs: dict, width: float, style: tuple, dark: bool,
                 label: tuple[str, str]) -> None:
        super().__init__()
        self.node_id = node_id
        self.attrs = attrs
        self.style = style
        self.op, self.names = label
        self._rect = QRectF(-width / 2, -NODE_HEIGHT / 2, width, NODE_HEIGHT)
        self._brush, self._pen, self._text = _paint_tools(style, dark)
        self.base_pen = self._pen  # the border of the kind colouring (the comparison's replaces it while shown)
        self.dark = dark
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        self._tip_ready = False
        self.current = False  # the view's current node: drawn with a ring
        self.nonfinite = style[3]
        self.show_value = False  # "Values on the graph": a caption above the box
        self._caption: str | None = None  # made on first paint with values on
        self.caption_width = CAPTION_WIDTH  # up to the next box of the row (the view sets it)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt API
        if not self._tip_ready:
            self.setToolTip(self.tooltip_text())
            self._tip_ready = not _waits_for_stats(self.attrs)  # else made again on the next hover
        super().hoverEnterEvent(event)

    def tooltip_text(self) -> str:
        attrs = self.attrs
        kind, hooked, no_gradient, _ = self.style
        tip = [f"{self.op} ({kind})"]
        if attrs["names"]:
            tip.append(_tr("names: ") + ", ".join(attrs["names"]))
        if attrs.get("value") is not None:
            tip.append(_tr("value: ") + attrs["value"].short(width=60))
        grad = node_gradient(attrs)
        if grad is not None:
            tip.append(_tr("grad: ") + grad.short(width=60))
        if no_gradient:
            tip.append(_tr("no gradient reached this node"))
        if hooked:
            tip.append(_tr("has hooks"))
        return "\n".join(tip)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        rect = self._rect.adjusted(-7, -9, 7, 7)  # the ring and the NaN tag stick out
        if self.show_value:  # the caption above the box, right of the arriving edge
            rect = rect.united(QRectF(self._rect.center().x(), self._rect.top() - CAPTION_HEIGHT - 2,
                                      self.caption_width, CAPTION_HEIGHT))
        return rect

    def caption(self) -> str:
        """The value caption (see :func:`~gradexplorer.core.io.report.value_caption`)."""
        if self._caption is None:
            text = value_caption(self.attrs)
            if _waits_for_stats(self.attrs):  # kept once the numbers are here; the view paints again meanwhile
                scene = self.scene()
                for view in scene.views() if scene is not None else ():
                    view.paint_again_soon()
                return text
            self._caption = text
        return self._caption

    def set_show_value(self, shown: bool) -> None:
        if shown != self.show_value:
            self.prepareGeometryChange()
            self.show_value = shown
            self.update()

    def _paint_caption(self, painter: QPainter) -> None:
        text = self.caption()
        if not text:
            return
        font = QFont(painter.font())
        font.setPixelSize(CAPTION_PIXELS)
        font.setBold(False)
        painter.setFont(font)
        painter.setPen(QColor("#8b949e" if self.dark else "#57606a"))
        area = QRectF(self._rect.center().x() + 6, self._rect.top() - CAPTION_HEIGHT - 2, self.caption_width - 6,
                      CAPTION_HEIGHT)
        metrics = painter.fontMetrics()
        painter.drawText(area, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom,
                         metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(area.width())))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        detail = option.levelOfDetailFromTransform(painter.worldTransform())
        pen = self._pen
        if self.isSelected():
            pen = QPen(QColor("#0969da"), 3.0 if self.current else 2.0)
        painter.setPen(pen)
        painter.setBrush(self._brush)
        if detail < 0.25:  # far out: plain boxes, no text (keeps panning smooth)
            painter.drawRect(self._rect)
            return
        painter.drawRoundedRect(self._rect, 6, 6)
        if self.current:  # a ring around the current node, apart from the rest of the selection
            ring = QPen(QColor("#0969da"), 1.5, Qt.PenStyle.DotLine)
            painter.setPen(ring)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(self._rect.adjusted(-5, -5, 5, 5), 9, 9)
        if self.nonfinite:
            paint_nan_tag(painter, self._rect)
        if self.show_value:
            self._paint_caption(painter)
        painter.setPen(self._text)
        font = painter.font()
        font.setPixelSize(LABEL_PIXELS)
        if self.names:
            top = QRectF(self._rect.left(), self._rect.top() + 2, self._rect.width(), NODE_HEIGHT / 2 - 2)
            bottom = QRectF(self._rect.left(), self._rect.center().y(), self._rect.width(), NODE_HEIGHT / 2 - 2)
            font.setBold(True)
            painter.setFont(font)
            painter.drawText(top, Qt.AlignmentFlag.AlignCenter, self.op)
            font.setBold(False)
            painter.setFont(font)
            painter.drawText(bottom, Qt.AlignmentFlag.AlignCenter, self.names)
        else:
            font.setBold(True)
            painter.setFont(font)
            painter.drawText(self._rect, Qt.AlignmentFlag.AlignCenter, self.op)


#: The bands: boxes of the same structure (:attr:`Group.family`) share one; strong colours, thin.
FAMILY_BANDS = ["#bf3989", "#0e8a16", "#8a63d2", "#d4a72c", "#1b7c83", "#cf222e", "#6e7781", "#953800"]


class GroupItem(NodeItem):
    """A collapsed module: one box for all its nodes (double-click to expand).

    Blocks of the same family (same module type and ops) share a colour, so
    repeated layers read as a pattern.
    """

    def __init__(self, group, width: float, dark: bool) -> None:
        tail = group.path if len(group.path) <= 34 else "…" + group.path[-33:]
        norm = "" if group.grad_norm is None else f" · ‖g‖ {format_number(group.grad_norm)}"
        label = (tail, _tr("{title} · {count} nodes{norm}").format(title=group.title, count=len(group.members),
                                                                   norm=norm))
        attrs = {"names": (group.path,), "value": None, "kind": "op", "grads": {}, "hooks": ()}
        super().__init__(group.node_id, attrs, width, ("op", False, False, False), dark, label)
        self.group = group
        self._brush = QBrush(QColor(BOX_FILL_DARK if dark else BOX_FILL))
        self.band = QColor(FAMILY_BANDS[group.family % len(FAMILY_BANDS)])
        self._border = QColor("#8b949e" if dark else "#57606a")
        self._pen = QPen(QColor(NAN_RED) if group.nonfinite else self._border, 3.0 if group.nonfinite else 2.0)
        self.base_pen = self._pen
        self.nonfinite = group.nonfinite
        self._rect.adjust(0, -4, 0, 4)

    def caption(self) -> str:
        return ""  # a box's label already carries its gradient norm

    def tooltip_text(self) -> str:
        g = self.group
        lines = [_tr("module {path} ({title})").format(path=g.path, title=g.title),
                 _tr("{count} nodes, {inputs} edges in, {outputs} out").format(count=len(g.members), inputs=g.inputs,
                                                                               outputs=g.outputs)]
        if g.grad_norm is not None:
            lines.append(_tr("total gradient norm {grad_norm}").format(grad_norm=format_number(g.grad_norm)))
        if g.family_size > 1:
            lines.append(_tr("same structure as {count} other block(s)").format(count=g.family_size - 1))
        if g.nonfinite:
            lines.append(_tr("NaN/Inf inside (First NaN finds where)"))
        lines.append(_tr("double-click to expand"))
        return "\n".join(lines)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        super().paint(painter, option, widget)
        painter.setPen(QPen(self._border, 1.0))
        inner = self._rect.adjusted(3, 3, -3, -3)  # a double border says "there is more inside"
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(inner, 5, 5)
        painter.setPen(Qt.PenStyle.NoPen)  # the structure's band, inside the double border
        painter.setBrush(self.band)
        painter.drawRect(QRectF(inner.left() + 1, inner.top() + 3, 6, inner.height() - 6))

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 - Qt API
        view = self.scene().views()[0] if self.scene() and self.scene().views() else None
        if view is not None:
            view.group_activated.emit(self.group.path)


class GraphView(QGraphicsView):
    """Draws a capture graph and lets the user pan, zoom and select nodes.

    Signals
    -------
    node_selected(str)
        The id of the new current node or ``group:<path>`` box ("" when
        the selection was cleared).
    group_activated(str)
        A module box was double-clicked (its path): the window expands it.
    """

    node_selected = Signal(str)
    group_activated = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("Autograd graph"))
        self.setScene(QGraphicsScene(self))
        self.scene().selectionChanged.connect(self._on_scene_selection_changed)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState, True)
        self.items_by_id: dict[str, NodeItem] = {}
        self.colour_mode = "kind"
        self.display: DisplayGraph | None = None
        self._succ: dict[str, list[str]] = {}
        self._pred: dict[str, list[str]] = {}
        self.dark = False
        self._graph = None
        self._layout: Layout | None = None
        #: The edges, the current node's edges and the shapes on edges (ui.edge_drawing).
        self.edges = EdgeDrawing(self)
        self._drawing_rect: QRectF | None = None  # computed once per drawing
        #: Fit, the first picture's readable zoom, the user's zoom (ui.graph_zoom).
        self.zoom = ViewZoom(self)
        #: The current node (inspector, Ctrl+K, Ctrl+E); the selection may hold more.
        self.current: str | None = None
        self._pressed: str | None = None
        #: Graph node ids that pass the active filter (None: no filter), and "dim" or "hide".
        self.filter_ids: frozenset[str] | None = None
        self.filter_mode = "dim"
        self._passing: set[str] | None = None
        self._passing_for: tuple | None = None  # the (filter, drawing) the set was made for
        #: "Values on the graph": each node's value and gradient norm drawn by it.
        self.show_values = False
        #: "Shapes on edges": the shape of the tensor each edge carries, beside it.
        # Captions of records whose statistics are on their way: painted again a moment later (never wait).
        self._stats_poll = QTimer(self)
        self._stats_poll.setSingleShot(True)
        self._stats_poll.setInterval(150)
        self._stats_poll.timeout.connect(lambda: self.viewport().update())
        self.legend = LegendWidget(self)
        self.legend.setVisible(False)
        self.legend_wanted = True  # View > Show Legend
        #: File > Export of the whole drawing (ui.graph_export).
        self.exporter = GraphExport(self)
        self.minimap = Minimap(self)
        self.minimap.setVisible(False)
        self.minimap_wanted = True  # View > Show Minimap
        #: Where the legend and the minimap sit (ui.corner_overlays).
        self.overlays = CornerOverlays(self, row_slack=NODE_HEIGHT, caption_width=CAPTION_WIDTH)
        self.horizontalScrollBar().valueChanged.connect(self.overlays.on_view_moved)
        self.verticalScrollBar().valueChanged.connect(self.overlays.on_view_moved)

    # -- content ---------------------------------------------------------------------
    def clear_graph(self) -> None:
        """Drop the drawing: a fresh scene; the old one is deleted by the event loop.

        (``QGraphicsScene.clear()`` on 10,000 items blocks for a quarter of a
        second; a new scene shows at once.)
        """
        self.edges.forget()
        self._drawing_rect = None
        self.overlays.forget()
        self.items_by_id = {}
        self._graph = None
        self._layout = None
        had_current, self.current = self.current is not None, None
        if had_current:  # the inspector and the breadcrumbs must not show a node that is gone
            self.node_selected.emit("")
        self.legend.setVisible(False)
        self.minimap.setVisible(False)
        old = self.scene()
        scene = QGraphicsScene(self)
        scene.selectionChanged.connect(self._on_scene_selection_changed)
        self.setScene(scene)
        if old is not None:
            old.selectionChanged.disconnect(self._on_scene_selection_changed)
            old.deleteLater()

    def show_graph(self, graph, layout: Layout, *, passes_ran: bool, display: DisplayGraph | None = None) -> None:
        """Replace the drawing with ``display`` (default: every node of ``graph``) at ``layout``'s positions."""
        with paused_collection():  # a full GC among thousands of new items froze the GUI for 1.5 s
            self._show_graph(graph, layout, passes_ran=passes_ran, display=display)

    def _show_graph(self, graph, layout: Layout, *, passes_ran: bool, display: DisplayGraph | None) -> None:
        if display is None:
            display = display_graph(graph)
        self.clear_graph()
        scene = self.scene()
        scene.blockSignals(True)
        self._graph = graph
        self._layout = layout
        self.display = display
        self._succ: dict[str, list[str]] = {}
        self._pred: dict[str, list[str]] = {}
        for u, v in display.edges:
            self._succ.setdefault(u, []).append(v)
            self._pred.setdefault(v, []).append(u)
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        self.dark = dark
        positions = layout.positions
        nodes = graph.nodes
        self.edges.draw()
        groups = display.groups
        for node_id in display.nodes:
            x, y = positions[node_id]
            group = groups.get(node_id)
            if group is not None:
                item = GroupItem(group, display_width(graph, display, node_id), dark)
            else:
                attrs = nodes[node_id]
                label = node_label(attrs)
                width = label_width(label)
                item = NodeItem(node_id, attrs, width, node_style(attrs, passes_ran=passes_ran), dark, label)
            item.setPos(x, y)
            item.show_value = self.show_values
            scene.addItem(item)
            self.items_by_id[node_id] = item
        margin = 200
        xs = [x for x, _ in positions.values()] or [0.0]
        ys = [y for _, y in positions.values()] or [0.0]
        scene.setSceneRect(QRectF(min(xs) - margin, min(ys) - NODE_HEIGHT - margin,
                                  max(xs) - min(xs) + 2 * margin, max(ys) - min(ys) + NODE_HEIGHT * 2 + 2 * margin))
        scene.blockSignals(False)
        if self.show_values:
            self._fit_captions()
        if self.colour_mode != "kind":
            self.set_colour_mode(self.colour_mode)
        if self.filter_ids is not None:
            self._apply_filter_to_items()
        self.legend.set_mode(self.colour_mode, dark=dark)
        self.legend.setVisible(bool(display.nodes) and self.legend_wanted)
        self.overlays.place()
        self.initial_view()
        self.minimap.refresh()
        self.overlays.update_minimap()

    def set_colour_mode(self, mode: str) -> None:
        """``"kind"`` (default styles), ``"grad_norm"`` (gradient norm on the fixed log scale of :mod:`.legend`)
        or ``"diff"`` (a comparison's statuses, from the ``diff`` key of :mod:`~gradexplorer.core.analysis.diff_graph`)."""
        self.colour_mode = mode
        self.legend.set_mode(mode, dark=self.dark)
        self.overlays.place()
        if self._graph is None:
            return
        dark_text = QColor("#1f2328")
        for node_id, item in self.items_by_id.items():
            item._pen = item.base_pen
            if mode == "diff":
                status = box_status(self._graph, item.group) if isinstance(item, GroupItem) else \
                    self._graph.nodes[node_id].get("diff", "same")
                item._brush = QBrush(QColor(DIFF_FILLS[status][1 if self.dark else 0]))
                item._text = _paint_tools(item.style, self.dark)[2]
                if not item.nonfinite:  # NaN's red border wins
                    item._pen = diff_pen(status)
            elif mode == "grad_norm":
                norm = item.group.grad_norm if isinstance(item, GroupItem) else \
                    grad_norm(node_gradient(self._graph.nodes[node_id]))
                item._brush = QBrush(norm_colour(norm))
                item._text = dark_text  # the ramp is light in both palettes
            elif isinstance(item, GroupItem):
                item._brush = QBrush(QColor(BOX_FILL_DARK if self.dark else BOX_FILL))
                item._text = _paint_tools(item.style, self.dark)[2]
            else:
                item._brush, _, item._text = _paint_tools(item.style, self.dark)
            item.update()
        self.minimap.refresh()

    def paint_again_soon(self) -> None:
        """Paint the view again in a moment: a caption showed a record whose statistics were on their way."""
        if not self._stats_poll.isActive():
            self._stats_poll.start()

    def set_show_values(self, shown: bool) -> None:
        """Draw (or stop drawing) each node's value and gradient norm above its box."""
        self.show_values = shown
        if shown:
            self._fit_captions()
        for item in self.items_by_id.values():
            item.set_show_value(shown)
        self.minimap.refresh()

    def _fit_captions(self) -> None:
        """Each caption runs at most to the next box of its row (it is cut with "…" there)."""
        if self._layout is None:
            return
        positions = self._layout.positions
        for row in self._layout.layers:
            ordered = sorted((positions[n][0], n) for n in row if n in self.items_by_id)
            for (x, node), following in zip(ordered, ordered[1:] + [None]):
                room = CAPTION_WIDTH
                if following is not None:
                    other = self.items_by_id[following[1]]
                    room = following[0] - other._rect.width() / 2 - x - 6
                item = self.items_by_id[node]
                item.prepareGeometryChange()
                item.caption_width = max(min(room, CAPTION_WIDTH), 40.0)

    # -- filter ----------------------------------------------------------------------
    def set_filter(self, node_ids, mode: str = "dim") -> int:
        """Dim (``"dim"``) or hide (``"hide"``) what is not in ``node_ids`` (graph ids); None clears.

        A module box passes when something inside it does. Returns how many
        drawn boxes and nodes pass.
        """
        filter_ids = None if node_ids is None else frozenset(node_ids)
        if filter_ids is None and self.filter_ids is None:
            self.filter_mode = mode
            return len(self.items_by_id)  # nothing to undo (a new run clears a filter that is not there)
        self.filter_ids = filter_ids
        self.filter_mode = mode
        self._apply_filter_to_items()
        self.minimap.refresh()
        passing = self.passing_display_ids()
        return len(self.items_by_id) if passing is None else len(passing)

    def passing_display_ids(self) -> set[str] | None:
        """Drawn boxes and nodes that pass the filter; computed once per filter and drawing.

        (Recomputed on every use it cost 30 ms per call on a 50,000-node
        filter, four calls per filter or opened box: a 130 ms stall.)
        """
        if self.filter_ids is None or self.display is None:
            return None
        made_for = self._passing_for
        if made_for is None or made_for[0] is not self.filter_ids or made_for[1] is not self.display:
            owner = self.display.owner
            self._passing = {owner.get(n, n) for n in self.filter_ids}
            self._passing_for = (self.filter_ids, self.display)
        return self._passing

    def _apply_filter_to_items(self) -> None:
        passing = self.passing_display_ids()
        for node_id, item in self.items_by_id.items():
            inside = passing is None or node_id in passing
            item.setVisible(inside or self.filter_mode != "hide")
            item.setOpacity(1.0 if inside else 0.22)
        self.edges.draw()

    def visible_node_ids(self) -> list[str]:
        """Drawn boxes and nodes a user can see (not hidden by a filter)."""
        return [node_id for node_id, item in self.items_by_id.items() if item.isVisible()]

    # -- selection -------------------------------------------------------------------
    def selected_node(self) -> str | None:
        """The current node (the one inspected and acted on), None when nothing is selected."""
        return self.current

    def selected_nodes(self) -> list[str]:
        """Everything selected, the current node first."""
        ids = [item.node_id for item in self.scene().selectedItems() if isinstance(item, NodeItem)]
        ids.sort(key=lambda node_id: node_id != self.current)
        return ids

    def set_current(self, node_id: str | None) -> None:
        old = self.items_by_id.get(self.current) if self.current else None
        if old is not None:
            old.current = False
            old.update()
        self.current = node_id if node_id in self.items_by_id else None
        item = self.items_by_id.get(self.current) if self.current else None
        if item is not None:
            item.current = True
            item.update()
        self.edges.draw_current(self.current)

    def select_node(self, node_id: str | None, *, center: bool = True) -> None:
        """Select ``node_id`` alone (None clears), make it current and centre the view on it."""
        self.select_nodes([node_id] if node_id else [], center=center)

    def select_nodes(self, node_ids: list[str], *, center: bool = True) -> None:
        """Select several nodes (e.g. Find's matches); the first is the current node."""
        scene = self.scene()
        scene.blockSignals(True)
        scene.clearSelection()
        for node_id in node_ids:
            item = self.items_by_id.get(node_id)
            if item is not None:
                item.setSelected(True)
        scene.blockSignals(False)
        first = node_ids[0] if node_ids else None
        self.set_current(first)
        if center and self.current is not None:
            item = self.items_by_id[self.current]
            visible = self.mapToScene(self.viewport().rect()).boundingRect()
            if not visible.contains(item.sceneBoundingRect()):  # already in sight: the view stays put
                self.centerOn(item)
        self.node_selected.emit(self.current or "")

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt API
        item = self.itemAt(event.position().toPoint())
        self._pressed = item.node_id if isinstance(item, NodeItem) else None
        super().mousePressEvent(event)
        self._pressed = None

    def _on_scene_selection_changed(self) -> None:
        selected = {item.node_id for item in self.scene().selectedItems() if isinstance(item, NodeItem)}
        if self._pressed in selected:  # a click (or Ctrl+click) makes the clicked node current
            current = self._pressed
        elif self.current in selected:
            current = self.current
        else:
            current = min(selected, default=None)
        self.set_current(current)
        self.node_selected.emit(current or "")

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self.overlays.place()
        if self.zoom.fitted and self.items_by_id:  # the first picture follows the window until the user zooms
            self.zoom.fit()
        self.overlays.update_minimap()

    @property
    def drawn_graph(self):
        """The graph whose nodes are drawn (attributes read by the edges' labels), None when nothing is."""
        return self._graph

    @property
    def drawn_layout(self) -> Layout | None:
        """Where each drawn box is and how the edges go around the others, None when nothing is drawn."""
        return self._layout

    def edges_of(self, node_id: str) -> list[tuple[str, str]]:
        """The drawn edges into and out of ``node_id`` (a node or a box): ``(consumer, input)`` pairs."""
        return ([(node_id, v) for v in self._succ.get(node_id, ())]
                + [(u, node_id) for u in self._pred.get(node_id, ())])

    def drawing_rect(self) -> QRectF:
        """The whole drawing (every box and edge) with a small margin, in scene coordinates."""
        if self._drawing_rect is None:
            positions = self._layout.positions if self._layout is not None else {}
            if not positions:
                return QRectF()
            half = max((item._rect.width() / 2 for item in self.items_by_id.values()), default=60.0) + 9
            xs = [x for x, _ in positions.values()]
            ys = [y for _, y in positions.values()]
            margin = 24.0
            self._drawing_rect = QRectF(min(xs) - half - margin, min(ys) - NODE_HEIGHT - margin,
                                        max(xs) - min(xs) + 2 * (half + margin),
                                        max(ys) - min(ys) + 2 * (NODE_HEIGHT + margin))
        return self._drawing_rect

    def positions(self) -> dict[str, tuple[float, float]]:
        """Where each drawn box is (its centre), from the layout."""
        return self._layout.positions if self._layout is not None else {}

    def drawn_edges(self) -> list[tuple[str, str]]:
        """The edges drawn now (a filter that hides leaves out the edges of hidden boxes)."""
        if self.display is None:
            return []
        passing = self.passing_display_ids()
        if passing is None or self.filter_mode != "hide":
            return list(self.display.edges)
        return [(u, v) for u, v in self.display.edges if u in passing and v in passing]

    # -- zoom (ui.graph_zoom) ----------------------------------------------------------
    def initial_view(self) -> None:
        """The first picture: Fit (:meth:`ViewZoom.fit <gradexplorer.ui.graph_zoom.ViewZoom.fit>`), fitted
        again as the view grows or shrinks until the user zooms."""
        self.zoom.fit()

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt API
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom.by_user(1.2 ** steps)
        event.accept()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt API
        if event.matches(QKeySequence.StandardKey.ZoomIn) or event.key() in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom.by_user(1.25)
        elif event.matches(QKeySequence.StandardKey.ZoomOut) or event.key() == Qt.Key.Key_Minus:
            self.zoom.by_user(0.8)
        elif event.key() == Qt.Key.Key_F:
            self.zoom.fit()
        else:  # the arrows and Escape are Graph > Go To's shortcuts, bound to this view (window_menus)
            super().keyPressEvent(event)

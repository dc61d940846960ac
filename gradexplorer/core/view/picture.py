"""The picture of a capture: what is drawn (boxes, nodes, edges, their places) and which pass, Qt-free.

The part of the view model that is computed: a :class:`CaptureResult` is
what the window shows of one capture (the capture, its display graph with
the modules folded into boxes, their layout, the pass drawn, the audit rows
and the gradient flow the panes list), and the functions below make it in
any thread, from plain data only. The app's worker calls them off the GUI
thread (:mod:`gradexplorer.ui.worker`), the window for a pass or a box
opened, the benchmarks and the core's tests without Qt. Box widths come
from the labels' lengths here, so that the layout and the drawing agree
without asking Qt for font metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..analysis.gradient_flow import FlowWarning, ParameterFlow, flow_warnings, gradient_flow
from ..analysis.grouping import DisplayGraph, display_graph, initial_collapse
from ..analysis.layout import Layout, LayoutCancelled, layered_layout, replace_in_layout
from ..analysis.layout_quality import drawing_of_layout, edges_through_boxes
from ..analysis.modules import AuditRow, audit_rows
from ..analysis.passes import default_pass, pass_graph
from ..collector import freeze_survivors, paused_collection
from ..graph.schema import short_op
from ..records.capture import Capture
from ..records.phrases import Phrase, phrase

__all__ = ["STOPPED_DRAWING", "CaptureResult", "display_width", "expanded_layout", "first_picture", "flow_of",
           "label_width", "layout_capture", "layout_display", "node_label", "pass_view", "picture_of",
           "prepare_view"]

#: The note of a picture whose drawing the user stopped (the capture itself is kept).
STOPPED_DRAWING = phrase("Drawing the graph was stopped; the capture is in the panes and can be saved.")


@dataclass(frozen=True)
class CaptureResult:
    """What the GUI receives: the capture, what to draw and where, all plain data."""

    capture: Capture
    layout: Layout | None
    seconds: float
    display: DisplayGraph | None = None
    #: Why there is no layout (a :class:`Phrase` the window renders in the reader's language), else "".
    note: Phrase | str = ""
    #: The module audit as tree rows (:func:`~gradexplorer.core.analysis.modules.audit_rows`), made off the GUI thread.
    module_rows: tuple[AuditRow, ...] | None = None
    #: Gradient flow per parameter and pass, and its warnings (:func:`flow_of`), made off the GUI thread.
    flow: tuple[tuple[ParameterFlow, ...], tuple[FlowWarning, ...]] | None = None
    #: The pass drawn (0-based; None: every pass), and its graph (:func:`~gradexplorer.core.analysis.passes.pass_graph`;
    #: None: the capture's whole graph).
    pass_index: int | None = None
    pass_graph: object = None
    #: False for the first picture of a run (``picture_ready``): the capture has its graph and passes, but not
    #: yet its named tensors, module audit and explanations (``module_rows`` and ``flow`` are None).
    complete: bool = True

    @property
    def shown_graph(self):
        """The graph the picture draws: one pass's, or the capture's whole graph."""
        return self.pass_graph if self.pass_graph is not None else self.capture.graph


def flow_of(cap: Capture) -> tuple[tuple[ParameterFlow, ...], tuple[FlowWarning, ...]]:
    """The gradient flow of a capture and its vanishing/exploding warnings, in any thread."""
    flows = gradient_flow(cap.graph, len(cap.passes), cap.modules)
    return flows, tuple(flow_warnings(flows))


def node_label(attrs: dict) -> tuple[str, str]:
    """The two label lines of a node: short op name, and its names; a leaf's shape too, as torchviz shows it.

    ``("AccumulateGrad", "model.0.weight 2×1×3×3")``: a parameter is read by
    its name and its shape at first sight.
    """
    op = short_op(attrs["op"])
    names = ", ".join(attrs["names"])
    variable = attrs.get("variable") if attrs.get("kind") == "leaf" else None
    shape = "×".join(map(str, variable.shape)) if variable is not None and variable.shape else ""
    room = 36 - (len(shape) + 1 if shape else 0)
    if len(names) > room:
        names = names[:max(room - 1, 8)] + "…"
    return op, f"{names} {shape}".strip() if shape else names


def label_width(label: tuple[str, str]) -> float:
    """Box width of a node with this two-line label (the layout and the drawing use the same)."""
    return 28.0 + 7.0 * max(len(label[0]), len(label[1]), 6)


def display_width(graph, display: DisplayGraph, node_id: str) -> float:
    """Box width of a display node: its label's length, module boxes a little wider."""
    group = display.groups.get(node_id)
    if group is not None:
        return 40.0 + 7.0 * min(max(len(group.path), len(group.title) + 22), 40)
    return label_width(node_label(graph.nodes[node_id]))


def layout_display(graph, display: DisplayGraph, *, nodes=None, should_stop=None) -> Layout:
    """Lay out a display graph (or only ``nodes`` of it) with label-sized boxes, in any thread."""
    ids = list(display.nodes) if nodes is None else list(nodes)
    keep = set(ids)
    edges = list(display.edges) if nodes is None else [(u, v) for u, v in display.edges if u in keep and v in keep]
    return layered_layout(ids, edges, width_of=lambda node_id: display_width(graph, display, node_id),
                          should_stop=should_stop)


def expanded_layout(graph, old: DisplayGraph, old_layout: Layout, new: DisplayGraph, box: str) -> Layout:
    """The layout after opening ``box``: only its content is laid out and the rest keeps its place,
    unless that would draw an edge through a box.

    Putting the box's content where the box was keeps the user's bearings,
    but the edges between that content and the rest have no waypoints then:
    they can run straight through the boxes in between (the LSTM example's
    ``model.cell``: 15 edges). A full layout routes them around every box, so
    it is drawn instead whenever it draws fewer edges through boxes (the
    README promises edges never go through boxes).
    """
    fresh = [n for n in new.nodes if n not in old_layout.positions]
    if box not in old_layout.positions or not fresh:
        return layout_display(graph, new)
    kept = replace_in_layout(old_layout, box, layout_display(graph, new, nodes=fresh))
    through = _edges_through_boxes(graph, new, kept)
    if through == 0:
        return kept
    full = layout_display(graph, new)
    return full if _edges_through_boxes(graph, new, full) < through else kept


def _edges_through_boxes(graph, display: DisplayGraph, layout: Layout) -> int:
    """How many of the display's edges this layout draws through a box (:mod:`..core.analysis.layout_quality`)."""
    drawing = drawing_of_layout(layout, display.edges, lambda node_id: display_width(graph, display, node_id))
    return edges_through_boxes(drawing)


def prepare_view(cap: Capture, collapsed: frozenset[str] | None = None, *,
                 should_stop=None, graph=None) -> tuple[DisplayGraph, Layout]:
    """The display graph (big graphs start collapsed by module) and its layout.

    ``graph``: what to draw, when not the capture's whole graph (one pass's,
    :func:`~gradexplorer.core.analysis.passes.pass_graph`).

    Raises
    ------
    LayoutCancelled
        When ``should_stop()`` turned true (the user pressed Stop).
    """
    graph = cap.graph if graph is None else graph
    with paused_collection():  # a full GC here would freeze the GUI thread (GIL)
        if collapsed is None:
            collapsed = initial_collapse(graph)
        display = display_graph(graph, collapsed)
        return display, layout_display(graph, display, should_stop=should_stop)


def pass_view(cap: Capture, pass_index: int | None, collapsed: frozenset[str] | None = None, *,
              should_stop=None) -> tuple[object, DisplayGraph, Layout]:
    """The picture of one pass (None: every pass): ``(its graph or None, display, layout)``, in any thread."""
    graph = pass_graph(cap.graph, pass_index) if pass_index is not None else None
    display, layout = prepare_view(cap, collapsed, should_stop=should_stop, graph=graph)
    return graph, display, layout


def picture_of(result: Capture, *, should_stop=None) -> tuple:
    """The picture of a fresh capture: ``(display, layout, note, pass index, pass graph)``; a program with several
    passes opens on its last (:func:`~gradexplorer.core.analysis.passes.default_pass`). Needs only the graph and
    the passes, so it is made for the preview as well (the module docstring's "Picture first")."""
    pass_index = default_pass(len(result.passes))
    graph = None
    try:
        graph, display, layout = pass_view(result, pass_index, should_stop=should_stop)
        note = ""
    except LayoutCancelled:
        display, layout = None, None
        note = STOPPED_DRAWING
    return display, layout, note, pass_index, graph


def first_picture(result: Capture, *, should_stop=None, drawn: tuple | None = None,
                  say: Callable[[Phrase], str] = str) -> tuple:
    """What the window needs to show a fresh capture: ``(display, layout, note, audit rows, gradient flow,
    pass index, pass graph)``. ``drawn``: the :func:`picture_of` of its preview (the same graph), reused;
    ``say`` renders the audit rows' phrases (the app: in the reader's language; default English).

    The worker's step after the run, in a plain function so that
    ``benchmarks/bench_isolated.py`` measures exactly it. Ends by leaving
    the capture out of later cyclic collections (it lives until the next run
    replaces it: ``core.collector`` explains).
    """
    with paused_collection():
        display, layout, note, pass_index, graph = drawn if drawn is not None else picture_of(
            result, should_stop=should_stop)
        rows = tuple(audit_rows(result.modules, say))
        flow = flow_of(result)
        freeze_survivors()
    return display, layout, note, rows, flow, pass_index, graph


def layout_capture(cap: Capture) -> Layout:
    """Lay out every node of a capture's graph (nothing collapsed)."""
    return prepare_view(cap, frozenset())[1]

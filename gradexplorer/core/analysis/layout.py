"""Layered top-down layout of a capture graph: plain data in, coordinates out.

No Graphviz: a Sugiyama-style layout reduced to what stays fast on tens of
thousands of nodes, run in the app's worker thread (off the GUI thread):

1. **Layers** by longest path from the roots (Kahn's topological order), so
   every edge points downwards, the way gradients flow (roots at the top,
   leaves at the bottom).
2. **Long edges get waypoints**: an edge that spans several layers gets one
   small dummy node in each layer it crosses (as in Sugiyama's method and in
   Graphviz ``dot``). The dummies take part in the ordering and in the
   placement, so the edge is routed *around* the boxes of the layers it
   crosses instead of through them (a ResNet block's skip edge, a residual
   connection, double backward). At most :data:`WAYPOINT_BUDGET` times the
   node count are made, shortest edges first; an edge beyond the budget is
   drawn straight, as before.
3. **Order within a layer** by discovery order, then barycenter sweeps
   (down, up, ...): each node moves towards the mean position of its
   neighbours in the layer it is ordered against, which untangles most
   crossings of autograd graphs (chains and fans).
4. **Coordinates**: each layer, in its order, is placed as close as
   possible to where its neighbours pull it (the mean x of its neighbours in
   the adjacent layer) without overlap: a weighted isotonic regression, exact
   and linear-time by pool-adjacent-violators. A few passes down and up make
   chains straight and long edges vertical; the first version packed every
   layer from the left and centred it, so a chain zig-zagged with the widths.

:mod:`gradexplorer.core.analysis.layout_quality` counts edge crossings and edges
drawn through boxes; ``benchmarks/bench_layout.py`` compares this layout
with the first version's, Graphviz ``dot`` and igraph's Sugiyama layout.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["Layout", "LayoutCancelled", "WAYPOINT_BUDGET", "layered_layout", "replace_in_layout"]

#: Waypoints (dummy nodes of long edges) made at most, per node of the graph.
WAYPOINT_BUDGET = 8
#: Width a waypoint takes in its layer (an edge and some air around it).
WAYPOINT_WIDTH = 8.0
#: How firmly a waypoint holds its wanted place when it and a box want the same
#: place (a box holds with 1): the box wins, so a chain of ops stays straight.
WAYPOINT_WEIGHT = 0.02


class LayoutCancelled(Exception):
    """Raised inside :func:`layered_layout` when ``should_stop()`` said so."""


@dataclass(frozen=True)
class Layout:
    """Positions of a laid out graph.

    Attributes
    ----------
    positions : dict of str to (float, float)
        Centre of each node.
    layers : tuple of tuple of str
        Node ids per layer, top to bottom, left to right.
    width, height : float
        Extent of the drawing.
    routes : dict of (str, str) to tuple of (float, float)
        For an edge that spans several layers, the points it passes through
        in the layers between its ends (top to bottom); other edges go
        straight from one end to the other.
    """

    positions: dict[str, tuple[float, float]]
    layers: tuple[tuple[str, ...], ...]
    width: float
    height: float
    routes: dict[tuple[str, str], tuple[tuple[float, float], ...]] = field(default_factory=dict)


def _layers_of(count: int, succ: list[list[int]], pred_count: list[int]) -> list[int]:
    layer = [0] * count
    indegree = list(pred_count)
    queue = deque(i for i in range(count) if indegree[i] == 0)
    seen = 0
    while queue:
        u = queue.popleft()
        seen += 1
        next_layer = layer[u] + 1
        for v in succ[u]:
            if layer[v] < next_layer:
                layer[v] = next_layer
            indegree[v] -= 1
            if indegree[v] == 0:
                queue.append(v)
    if seen != count:  # a cycle (not expected in autograd graphs): keep what is left in place
        for i in range(count):
            if indegree[i] > 0:
                layer[i] = max(layer[i], 0)
    return layer


def _sweep(rows: list[list[int]], neighbours: list[list[int]], position: list[float], downwards: bool) -> None:
    order = range(1, len(rows)) if downwards else range(len(rows) - 2, -1, -1)
    for index in order:
        row = rows[index]
        keyed = []
        for rank, node in enumerate(row):
            near = neighbours[node]
            if near:
                keyed.append((sum(position[n] for n in near) / len(near), rank, node))
            else:
                keyed.append((position[node], rank, node))
        keyed.sort()
        row[:] = [node for _, _, node in keyed]
        for rank, node in enumerate(row):
            position[node] = rank


def _place_row(row: list[int], desired: list[float], weight: list[float], widths: list[float],
               gap: float) -> list[float]:
    """Centres for ``row`` (in this order, no overlap) closest to ``desired`` in weighted least squares.

    ``desired[i]`` is where the i-th node of the row wants to be.

    With ``offset[i]`` the smallest distance from the first centre to the
    i-th, ``y = x - offset`` must not decrease: isotonic regression of
    ``desired - offset``, solved by pool-adjacent-violators.
    """
    offsets = [0.0] * len(row)
    for i in range(1, len(row)):
        offsets[i] = offsets[i - 1] + (widths[row[i - 1]] + widths[row[i]]) / 2 + gap
    blocks: list[list[float]] = []  # [mean, weight, count]
    for i, node in enumerate(row):
        blocks.append([desired[i] - offsets[i], weight[node], 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean2, weight2, count2 = blocks.pop()
            block = blocks[-1]
            total = block[1] + weight2
            block[0] = (block[0] * block[1] + mean2 * weight2) / total
            block[1] = total
            block[2] += count2
    xs: list[float] = []
    for mean, _, count in blocks:
        for _ in range(int(count)):
            xs.append(mean + offsets[len(xs)])
    return xs


def _place(rows: list[list[int]], up: list[list[int]], down: list[list[int]], widths: list[float],
           weight: list[float], gap: float, passes: int, stop: Callable[[], bool], real: int) -> list[float]:
    """x of every node (indices from ``real`` on are waypoints): packed, then pulled towards its neighbours."""
    x = [0.0] * len(widths)
    for row in rows:
        left = 0.0
        for node in row:
            x[node] = left + widths[node] / 2
            left += widths[node] + gap
        shift = (left - gap) / 2
        for node in row:
            x[node] -= shift
    for k in range(passes):
        if stop():
            raise LayoutCancelled()
        downwards = k % 2 == 0
        neighbours = up if downwards else down
        indices = range(1, len(rows)) if downwards else range(len(rows) - 2, -1, -1)
        if k == passes - 1:  # the last pass balances between both sides
            neighbours = [a + b for a, b in zip(up, down)]
            indices = range(len(rows))
        for index in indices:
            row = rows[index]
            desired = []
            for node in row:
                near = neighbours[node]
                if node < real:
                    # A box follows its real neighbours when it has any: the chain
                    # of ops stays straight and long edges bend around it.
                    near = [n for n in near if n < real] or near
                desired.append(sum(x[n] for n in near) / len(near) if near else x[node])
            for node, value in zip(row, _place_row(row, desired, weight, widths, gap)):
                x[node] = value
    return x


def layered_layout(
    nodes: Sequence[str],
    edges: Sequence[tuple[str, str]],
    *,
    width_of: Callable[[str], float] = lambda _: 120.0,
    node_height: float = 36.0,
    h_gap: float = 24.0,
    v_gap: float = 56.0,
    sweeps: int = 4,
    placement_passes: int = 5,
    should_stop: Callable[[], bool] | None = None,
) -> Layout:
    """Lay out a directed acyclic graph top-down.

    Parameters
    ----------
    nodes : sequence of str
        Node ids, in a deterministic order (it breaks ties).
    edges : sequence of (str, str)
        Directed edges ``u -> v``; ``v`` is placed below ``u``.
    width_of : callable, keyword-only
        Width of a node's box.
    node_height, h_gap, v_gap : float, keyword-only
        Box height, horizontal gap, vertical gap between layers.
    sweeps : int, keyword-only
        Barycenter passes for the order (alternating down and up).
    placement_passes : int, keyword-only
        Passes of the coordinate placement (alternating down and up, the
        last one balanced).
    should_stop : callable, optional
        Polled between phases and sweeps; when it returns True the layout
        stops with :class:`LayoutCancelled` (the app's Stop button).

    Returns
    -------
    Layout
    """
    index = {node: i for i, node in enumerate(nodes)}
    count = len(nodes)
    succ: list[list[int]] = [[] for _ in range(count)]
    pred: list[list[int]] = [[] for _ in range(count)]
    for u, v in edges:
        iu, iv = index[u], index[v]
        succ[iu].append(iv)
        pred[iv].append(iu)
    stop = should_stop or (lambda: False)
    if stop():
        raise LayoutCancelled()
    layer = _layers_of(count, succ, [len(p) for p in pred])
    depth = max(layer, default=-1) + 1
    # Only neighbours in the adjacent layer pull a node; a long edge pulls
    # through its chain of waypoints (indices from ``count`` on).
    up: list[list[int]] = [[p for p in pred[i] if layer[p] == layer[i] - 1] for i in range(count)]
    down: list[list[int]] = [[s for s in succ[i] if layer[s] == layer[i] + 1] for i in range(count)]
    chains = _add_waypoints(count, succ, layer, up, down)
    total = len(layer)
    rows: list[list[int]] = [[] for _ in range(depth)]
    for i in range(count):  # real nodes first, in the given order; then waypoints, edge by edge
        rows[layer[i]].append(i)
    for _, _, chain in chains:
        for dummy in chain:
            rows[layer[dummy]].append(dummy)
    position = [0.0] * total
    for row in rows:
        for rank, node in enumerate(row):
            position[node] = rank
    for k in range(sweeps):
        if stop():
            raise LayoutCancelled()
        if k % 2 == 0:
            _sweep(rows, up, position, downwards=True)
        else:
            _sweep(rows, down, position, downwards=False)

    widths = [width_of(node) for node in nodes] + [WAYPOINT_WIDTH] * (total - count)
    weight = [1.0] * count + [WAYPOINT_WEIGHT] * (total - count)  # a waypoint gives way to a box
    x = _place(rows, up, down, widths, weight, h_gap, placement_passes, stop, count)
    total_width = 0.0
    if total:  # centre the drawing on x = 0 (an expanded box's content is placed by its centre)
        left = min(x[i] - widths[i] / 2 for i in range(total))
        right = max(x[i] + widths[i] / 2 for i in range(total))
        total_width = right - left
        middle = (left + right) / 2
        x = [value - middle for value in x]
    row_height = node_height + v_gap
    positions = {nodes[i]: (x[i], layer[i] * row_height) for i in range(count)}
    routes = {(nodes[iu], nodes[iv]): tuple((x[d], layer[d] * row_height) for d in chain)
              for iu, iv, chain in chains}
    height = depth * row_height - v_gap if depth else 0.0
    layers = tuple(tuple(nodes[i] for i in row if i < count) for row in rows)
    return Layout(positions, layers, total_width, max(height, 0.0), routes)


def _add_waypoints(count: int, succ: list[list[int]], layer: list[int], up: list[list[int]],
                   down: list[list[int]]) -> list[tuple[int, int, list[int]]]:
    """Break each edge longer than one layer into a chain of waypoints (nodes from ``count`` on), shortest first.

    ``layer``, ``up`` and ``down`` grow by one entry per waypoint. At most
    :data:`WAYPOINT_BUDGET` waypoints per node (of at least 2,500 nodes) are
    made, the shortest edges first; longer ones are drawn straight, so that a
    few very long edges never cost millions of waypoints. Returns
    ``(source, target, waypoints)`` per chain.
    """
    long_edges = sorted(((layer[iv] - layer[iu], iu, iv) for iu in range(count) for iv in succ[iu]
                         if layer[iv] - layer[iu] > 1))
    budget = WAYPOINT_BUDGET * max(count, 2500)
    chains: list[tuple[int, int, list[int]]] = []
    for span, iu, iv in long_edges:
        if budget < span - 1:
            break
        budget -= span - 1
        chain = []
        previous = iu
        for k in range(layer[iu] + 1, layer[iv]):
            dummy = len(layer)
            layer.append(k)
            up.append([previous])
            down.append([])
            down[previous].append(dummy)
            chain.append(dummy)
            previous = dummy
        down[previous].append(iv)
        up[iv].append(previous)
        chains.append((iu, iv, chain))
    return chains


def replace_in_layout(layout: Layout, box: str, replacement: Layout, *, h_gap: float = 24.0,
                      v_gap: float = 56.0, node_height: float = 36.0) -> Layout:
    """Put ``replacement`` (a small layout) where ``box`` was, moving the rest only as needed.

    Used when a module box is expanded: everything else keeps its place, apart
    from the nodes of the box's layer (pushed sideways by half the extra width)
    and the layers below it (pushed down by the extra height), so the user does
    not lose their bearings and only the box's content is laid out anew.
    """
    bx, by = layout.positions[box]
    row_of = {node: i for i, row in enumerate(layout.layers) for node in row}
    box_row = row_of[box]
    extra_w = max(replacement.width - 120.0, 0.0) / 2 + h_gap
    extra_h = max(replacement.height, 0.0)

    def moved(x: float, y: float, same_row: bool, below: bool) -> tuple[float, float]:
        if same_row:
            return (x + extra_w if x > bx else x - extra_w), y
        return x, (y + extra_h if below else y)

    positions: dict[str, tuple[float, float]] = {}
    for node, (x, y) in layout.positions.items():
        if node != box:
            positions[node] = moved(x, y, row_of[node] == box_row, row_of[node] > box_row)
    top = by
    for node, (x, y) in replacement.positions.items():
        positions[node] = (bx + x, top + y)
    # Waypoints of long edges move with the layer they are in; the box's own edges are gone.
    routes = {edge: tuple(moved(x, y, abs(y - by) < 1e-6, y > by + 1e-6) for x, y in points)
              for edge, points in layout.routes.items() if box not in edge}
    routes.update({edge: tuple((bx + x, top + y) for x, y in points)
                   for edge, points in replacement.routes.items()})
    layers: list[list[str]] = [list(row) for row in layout.layers]
    layers[box_row].remove(box)
    inserted = [list(row) for row in replacement.layers]
    # The replacement's rows are new layers starting at the box's row.
    new_layers = layers[:box_row] + [layers[box_row] + inserted[0]] + inserted[1:] + layers[box_row + 1:]
    new_layers = [tuple(row) for row in new_layers if row]
    xs = [x for x, _ in positions.values()] or [0.0]
    width = max(layout.width, (max(xs) - min(xs)) + 2 * h_gap)
    return Layout(positions, tuple(new_layers), width, layout.height + extra_h, routes)

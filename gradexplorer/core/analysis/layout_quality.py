"""How readable a drawing is, in numbers: edge crossings and edges drawn through boxes.

Every layout (ours, Graphviz ``dot``, igraph's Sugiyama) is reduced to the
same plain data before it is measured: a box per node (centre, width,
height) and a polyline per edge (from the bottom of its source box through
its waypoints to the top of its target box). Curves are measured as the
polylines through their points, the same approximation for every layout.

* :func:`crossings`: pairs of edges whose polylines properly cross (edges
  that share an end do not count).
* :func:`edges_through_boxes`: edges whose polyline passes through a box
  other than their own two ends (a box shrunk by one unit, so touching is
  not crossing).

Both bucket the segments by height so that they stay fast on thousands of
edges; they are used by ``benchmarks/bench_layout.py`` and the tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Drawing", "crossings", "drawing_from_points", "drawing_of_layout", "edges_through_boxes"]

Point = tuple[float, float]


@dataclass(frozen=True)
class Drawing:
    """A laid out graph as plain geometry.

    Attributes
    ----------
    boxes : dict of str to (float, float, float, float)
        Node id to ``(centre x, centre y, width, height)``.
    edges : dict of (str, str) to tuple of points
        Each edge's polyline, source end first.
    """

    boxes: dict[str, tuple[float, float, float, float]]
    edges: dict[tuple[str, str], tuple[Point, ...]]


def drawing_of_layout(layout, edges: Iterable[tuple[str, str]], width_of, node_height: float = 36.0) -> Drawing:
    """The geometry of one of our :class:`~gradexplorer.core.analysis.layout.Layout` s (waypoints included)."""
    half = node_height / 2
    boxes = {node: (x, y, width_of(node), node_height) for node, (x, y) in layout.positions.items()}
    lines = {}
    for u, v in edges:
        ux, uy = layout.positions[u]
        vx, vy = layout.positions[v]
        points = [(ux, uy + half)]
        for wx, wy in layout.routes.get((u, v), ()):
            points += [(wx, wy - half), (wx, wy + half)]
        points.append((vx, vy - half))
        lines[(u, v)] = tuple(points)
    return Drawing(boxes, lines)


def _segments(drawing: Drawing) -> list[tuple[tuple[str, str], Point, Point]]:
    out = []
    for edge, points in drawing.edges.items():
        for a, b in zip(points, points[1:]):
            if a != b:
                out.append((edge, a, b))
    return out


def _buckets(items, low_high, size: float) -> dict[int, list]:
    buckets: dict[int, list] = {}
    for item in items:
        low, high = low_high(item)
        for k in range(int(low // size), int(high // size) + 1):
            buckets.setdefault(k, []).append(item)
    return buckets


def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _cross(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    """Proper intersection (interiors cross; a shared end point or a touch does not count)."""
    d1, d2 = _orient(q1, q2, p1), _orient(q1, q2, p2)
    d3, d4 = _orient(p1, p2, q1), _orient(p1, p2, q2)
    return ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4))


def _bucket_size(drawing: Drawing) -> float:
    heights = [h for _, _, _, h in drawing.boxes.values()] or [36.0]
    return max(heights) * 2.5


def crossings(drawing: Drawing) -> int:
    """Pairs of edges (not sharing an end) whose polylines cross at least once."""
    segments = _segments(drawing)
    size = _bucket_size(drawing)
    buckets = _buckets(range(len(segments)),
                       lambda i: (min(segments[i][1][1], segments[i][2][1]), max(segments[i][1][1], segments[i][2][1])),
                       size)
    crossing: set[tuple[tuple[str, str], tuple[str, str]]] = set()
    for members in buckets.values():
        members.sort(key=lambda i: min(segments[i][1][0], segments[i][2][0]))
        for index, i in enumerate(members):
            edge_i, a, b = segments[i]
            right = max(a[0], b[0])
            for j in members[index + 1:]:
                edge_j, c, d = segments[j]
                if min(c[0], d[0]) > right:
                    break
                if edge_i == edge_j or set(edge_i) & set(edge_j):
                    continue
                pair = (edge_i, edge_j) if edge_i < edge_j else (edge_j, edge_i)
                if pair not in crossing and _cross(a, b, c, d):
                    crossing.add(pair)
    return len(crossing)


def _hits_box(a: Point, b: Point, box: tuple[float, float, float, float]) -> bool:
    """Does segment a-b pass through the box's interior (shrunk by one unit)?"""
    cx, cy, w, h = box
    left, right = cx - w / 2 + 1, cx + w / 2 - 1
    top, bottom = cy - h / 2 + 1, cy + h / 2 - 1
    # Liang-Barsky clipping of the segment against the rectangle.
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - left), (dx, right - a[0]), (-dy, a[1] - top), (dy, bottom - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def edges_through_boxes(drawing: Drawing) -> int:
    """Edges drawn through at least one box that is not one of their ends."""
    size = _bucket_size(drawing)
    boxes = list(drawing.boxes.items())
    buckets = _buckets(range(len(boxes)), lambda i: (boxes[i][1][1] - boxes[i][1][3] / 2,
                                                    boxes[i][1][1] + boxes[i][1][3] / 2), size)
    through = 0
    for edge, points in drawing.edges.items():
        hit = False
        for a, b in zip(points, points[1:]):
            low, high = min(a[1], b[1]), max(a[1], b[1])
            for k in range(int(low // size), int(high // size) + 1):
                for i in buckets.get(k, ()):
                    node, box = boxes[i]
                    if node not in edge and _hits_box(a, b, box):
                        hit = True
                        break
                if hit:
                    break
            if hit:
                break
        through += hit
    return through


def drawing_from_points(positions: dict[str, Point], sizes: dict[str, tuple[float, float]],
                        lines: dict[tuple[str, str], Sequence[Point]]) -> Drawing:
    """A :class:`Drawing` from another tool's output (node centres, box sizes, edge points)."""
    boxes = {node: (x, y, *sizes[node]) for node, (x, y) in positions.items()}
    return Drawing(boxes, {edge: tuple(points) for edge, points in lines.items()})

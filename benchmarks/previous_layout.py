"""The first version's layout (gradexplorer/core/analysis/layout.py at commit 1e15cd8), kept for comparison.

``benchmarks/bench_layout.py`` measures today's layout against it in the same
run: layers by longest path, a few barycenter sweeps, each layer packed from
the left and centred, long edges drawn straight (through the boxes between).
Not used by the app. Its layering and barycenter sweeps are today's functions
(they did not change); the coordinates and the straight long edges are the
first version's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Layering and the barycenter sweep did not change: the first version's steps are today's.
from gradexplorer.core.analysis.layout import LayoutCancelled, _layers_of, _sweep  # noqa: E402

__all__ = ["Layout", "LayoutCancelled", "layered_layout"]


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
    """

    positions: dict[str, tuple[float, float]]
    layers: tuple[tuple[str, ...], ...]
    width: float
    height: float

    @property
    def routes(self) -> dict:
        """No waypoints: every edge was drawn straight from end to end."""
        return {}


def layered_layout(
    nodes: Sequence[str],
    edges: Sequence[tuple[str, str]],
    *,
    width_of: Callable[[str], float] = lambda _: 120.0,
    node_height: float = 36.0,
    h_gap: float = 24.0,
    v_gap: float = 56.0,
    sweeps: int = 3,
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
        Barycenter passes (alternating down and up).
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
    rows: list[list[int]] = [[] for _ in range(depth)]
    for i in range(count):
        rows[layer[i]].append(i)
    position = [0.0] * count
    for row in rows:
        for rank, node in enumerate(row):
            position[node] = rank
    # Only neighbours in the adjacent layer pull a node (long edges would
    # drag everything to the middle).
    up = [[p for p in pred[i] if layer[p] == layer[i] - 1] for i in range(count)]
    down = [[s for s in succ[i] if layer[s] == layer[i] + 1] for i in range(count)]
    for k in range(sweeps):
        if stop():
            raise LayoutCancelled()
        if k % 2 == 0:
            _sweep(rows, up, position, downwards=True)
        else:
            _sweep(rows, down, position, downwards=False)

    widths = [width_of(node) for node in nodes]
    positions: dict[str, tuple[float, float]] = {}
    total_width = 0.0
    for depth_index, row in enumerate(rows):
        row_width = sum(widths[i] for i in row) + h_gap * max(len(row) - 1, 0)
        total_width = max(total_width, row_width)
        x = -row_width / 2
        y = depth_index * (node_height + v_gap)
        for i in row:
            positions[nodes[i]] = (x + widths[i] / 2, y)
            x += widths[i] + h_gap
    height = depth * (node_height + v_gap) - v_gap if depth else 0.0
    return Layout(positions, tuple(tuple(nodes[i] for i in row) for row in rows), total_width, max(height, 0.0))

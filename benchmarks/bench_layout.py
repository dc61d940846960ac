"""The first picture of real models, and how readable the layout is, against other layouts.

Usage::

    python benchmarks/bench_layout.py [--repeat 3] [--no-dot] [--no-igraph]

For four real programs (the bundled examples: a 2-layer and a 40-layer
TransformerEncoder training step, a ResNet-like CNN, an unrolled LSTM)
it prints

* ``boxes``: how many boxes and nodes the first picture has (the overview
  the app opens with; target: at most 60 for each of these models);

and, for the overview and for the whole graph (every node drawn), for each
layout on the *same* graph with the same box sizes:

* ``previous``: the first version's layout (``benchmarks/previous_layout.py``);
* ``ours``: :func:`gradexplorer.core.analysis.layout.layered_layout` today;
* ``dot``: Graphviz ``dot -Tplain``, when ``dot`` is installed;
* ``igraph``: igraph's ``layout_sugiyama``, when igraph is installed
  (it knows no box widths: x is scaled by the widest box; it returns no
  waypoints, so its edges are straight, as ``igraph.plot`` draws them);

the edge crossings, the edges drawn through other boxes
(:mod:`gradexplorer.core.analysis.layout_quality`) and the seconds (median and
spread of ``--repeat`` runs for ours and previous; one run for dot/igraph).

Targets (exit status 1 when one is missed): first picture at most 60 boxes;
ours draws no more edges through boxes than the previous layout and than
dot, and has no more crossings than the previous layout, on every graph.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import previous_layout  # noqa: E402
from gradexplorer import capture  # noqa: E402
from gradexplorer.core.analysis.grouping import display_graph, initial_collapse  # noqa: E402
from gradexplorer.core.analysis.layout import layered_layout  # noqa: E402
from gradexplorer.core.analysis.layout_quality import (  # noqa: E402
    crossings,
    drawing_from_points,
    drawing_of_layout,
    edges_through_boxes,
)
from gradexplorer.resources import read_example  # noqa: E402

TARGET_BOXES = 60
NODE_HEIGHT = 36.0
H_GAP, V_GAP = 24.0, 56.0


def programs() -> dict[str, str]:
    transformer = read_example("10_transformer_training")
    return {
        "transformer-2": transformer,
        "transformer-40": re.sub(r"^NUM_LAYERS = \d+$", "NUM_LAYERS = 40", transformer, flags=re.M),
        "resnet": read_example("11_resnet_cnn"),
        "lstm": read_example("12_lstm_unrolled"),
    }


def width_function(graph, display):
    from gradexplorer.core.view.picture import display_width  # the app's box widths (a plain function)

    return lambda node: display_width(graph, display, node)


def timed(fn, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, times


def dot_drawing(nodes, edges, width_of):
    """Graphviz dot on the same graph with the same box sizes (points: 1/72 inch)."""
    names = {node: f"n{i}" for i, node in enumerate(nodes)}
    lines = ["digraph g {", f"  graph [ranksep={V_GAP / 72:.3f}, nodesep={H_GAP / 72:.3f}];",
             "  node [shape=box, fixedsize=true, label=\"\"];"]
    for node in nodes:
        lines.append(f"  {names[node]} [width={width_of(node) / 72:.3f}, height={NODE_HEIGHT / 72:.3f}];")
    for u, v in edges:
        lines.append(f"  {names[u]} -> {names[v]};")
    lines.append("}")
    back = {name: node for node, name in names.items()}
    with tempfile.NamedTemporaryFile("w", suffix=".dot", delete=False) as handle:
        handle.write("\n".join(lines))
    start = time.perf_counter()
    out = subprocess.run(["dot", "-Tplain", handle.name], capture_output=True, text=True, check=True).stdout
    seconds = time.perf_counter() - start
    Path(handle.name).unlink()
    positions, sizes, polylines = {}, {}, {}
    height = 0.0
    for row in out.splitlines():
        parts = row.split()
        if parts[0] == "graph":
            height = float(parts[3]) * 72
        elif parts[0] == "node":
            node = back[parts[1]]
            positions[node] = (float(parts[2]) * 72, height - float(parts[3]) * 72)
            sizes[node] = (float(parts[4]) * 72, float(parts[5]) * 72)
        elif parts[0] == "edge":
            u, v, count = back[parts[1]], back[parts[2]], int(parts[3])
            xy = parts[4:4 + 2 * count]
            polylines[(u, v)] = [(float(xy[i]) * 72, height - float(xy[i + 1]) * 72) for i in range(0, len(xy), 2)]
    return drawing_from_points(positions, sizes, polylines), seconds


def igraph_drawing(nodes, edges, width_of):
    """igraph's Sugiyama layout on the same graph.

    igraph 1.0 returns coordinates for the graph's own vertices only (no
    waypoints of long edges), so its edges are measured straight, as
    ``igraph.plot`` draws them. It places vertices one unit apart and knows
    no box widths: x is scaled by the widest box plus the gap.
    """
    import igraph

    index = {node: i for i, node in enumerate(nodes)}
    graph = igraph.Graph(n=len(nodes), edges=[(index[u], index[v]) for u, v in edges], directed=True)
    start = time.perf_counter()
    layout = graph.layout_sugiyama()
    seconds = time.perf_counter() - start
    step_x = max((width_of(n) for n in nodes), default=120.0) + H_GAP
    step_y = NODE_HEIGHT + V_GAP
    positions = {node: (layout.coords[index[node]][0] * step_x, layout.coords[index[node]][1] * step_y)
                 for node in nodes}
    sizes = {node: (width_of(node), NODE_HEIGHT) for node in nodes}
    half = NODE_HEIGHT / 2
    polylines = {(u, v): [(positions[u][0], positions[u][1] + half), (positions[v][0], positions[v][1] - half)]
                 for u, v in edges}
    return drawing_from_points(positions, sizes, polylines), seconds


def measure(name, graph, display, repeat, use_dot, use_igraph):
    nodes, edges = list(display.nodes), list(display.edges)
    width_of = width_function(graph, display)
    rows = {}
    for label, module in (("previous", previous_layout), ("ours", None)):
        fn = (lambda m=module: m.layered_layout(nodes, edges, width_of=width_of)) if module else \
            (lambda: layered_layout(nodes, edges, width_of=width_of))
        layout, times = timed(fn, repeat)
        drawing = drawing_of_layout(layout, edges, width_of, NODE_HEIGHT)
        rows[label] = (crossings(drawing), edges_through_boxes(drawing), times)
    if use_dot:
        drawing, seconds = dot_drawing(nodes, edges, width_of)
        rows["dot"] = (crossings(drawing), edges_through_boxes(drawing), [seconds])
    if use_igraph:
        drawing, seconds = igraph_drawing(nodes, edges, width_of)
        rows["igraph"] = (crossings(drawing), edges_through_boxes(drawing), [seconds])
    return rows


def spread(times):
    if len(times) == 1:
        return f"{times[0]:.3f}"
    return f"{statistics.median(times):.3f} ({min(times):.3f}..{max(times):.3f})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dot", action="store_true")
    parser.add_argument("--no-igraph", action="store_true")
    args = parser.parse_args(argv)
    use_dot = not args.no_dot and shutil.which("dot") is not None
    import importlib.util

    use_igraph = not args.no_igraph and importlib.util.find_spec("igraph") is not None
    print(f"dot: {'yes' if use_dot else 'not installed (skipped)'}; "
          f"igraph: {'yes' if use_igraph else 'not installed (skipped)'}")
    failures = []
    print(f"{'model':<15} {'nodes':>6} {'first picture':>14}")
    results = {}
    for name, code in programs().items():
        cap = capture(code)
        if not cap.ok:
            print(f"{name}: the program failed: {cap.error.traceback}")
            return 1
        overview = display_graph(cap.graph, initial_collapse(cap.graph))
        print(f"{name:<15} {cap.graph.number_of_nodes():>6} {len(overview.nodes):>14}")
        if len(overview.nodes) > TARGET_BOXES:
            failures.append(f"{name}: first picture has {len(overview.nodes)} boxes (> {TARGET_BOXES})")
        results[name] = (cap.graph, overview, display_graph(cap.graph, frozenset()))
    print()
    print(f"{'graph':<26} {'layout':<9} {'crossings':>9} {'through boxes':>13}   seconds")
    for name, (graph, overview, everything) in results.items():
        for view, display in (("overview", overview), ("all nodes", everything)):
            label = f"{name} {view} ({len(display.nodes)})"
            rows = measure(name, graph, display, args.repeat, use_dot, use_igraph)
            for layout, (cross, through, times) in rows.items():
                print(f"{label:<26} {layout:<9} {cross:>9} {through:>13}   {spread(times)}")
                label = ""
            ours, previous = rows["ours"], rows["previous"]
            if ours[1] > previous[1]:
                failures.append(f"{name} {view}: {ours[1]} edges through boxes, previous layout {previous[1]}")
            if "dot" in rows and ours[1] > rows["dot"][1]:
                failures.append(f"{name} {view}: {ours[1]} edges through boxes, dot {rows['dot'][1]}")
            if ours[0] > previous[0]:
                failures.append(f"{name} {view}: {ours[0]} crossings, previous layout {previous[0]}")
    print()
    if failures:
        print("targets missed:\n  " + "\n  ".join(failures))
        return 1
    print("targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())

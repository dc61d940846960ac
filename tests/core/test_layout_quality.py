"""The layout routes long edges around boxes and keeps chains straight (issue 11).

The metrics are checked on drawings whose answer is known by construction;
the layout is then measured with them on a real model.
"""

import dataclasses

from gradexplorer import capture
from gradexplorer.core.analysis.grouping import display_graph
from gradexplorer.core.analysis.layout import layered_layout, replace_in_layout
from gradexplorer.core.analysis.layout_quality import (
    crossings,
    drawing_from_points,
    drawing_of_layout,
    edges_through_boxes,
)
from gradexplorer.resources import read_example


def test_metrics_on_drawings_with_known_answers():
    sizes = {n: (20.0, 10.0) for n in "abcdm"}
    positions = {"a": (0.0, 0.0), "b": (100.0, 0.0), "c": (0.0, 100.0), "d": (100.0, 100.0), "m": (50.0, 50.0)}
    x_shape = {("a", "d"): [(0, 5), (100, 95)], ("b", "c"): [(100, 5), (0, 95)]}
    drawing = drawing_from_points(positions, sizes, x_shape)
    assert crossings(drawing) == 1  # the two diagonals cross
    assert edges_through_boxes(drawing) == 2  # both pass through m at the centre
    parallel = {("a", "c"): [(0, 5), (0, 95)], ("b", "d"): [(100, 5), (100, 95)]}
    drawing = drawing_from_points(positions, sizes, parallel)
    assert crossings(drawing) == 0 and edges_through_boxes(drawing) == 0
    shared = {("a", "d"): [(0, 5), (100, 95)], ("a", "c"): [(0, 5), (0, 95)]}  # meeting at a is not crossing
    assert crossings(drawing_from_points(positions, sizes, shared)) == 0


def test_a_long_edge_goes_around_the_boxes_it_passes():
    # a -> b -> c -> d and a skip edge a -> d: the skip edge spans two layers.
    nodes, edges = ["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]
    layout = layered_layout(nodes, edges)
    assert len(layout.routes[("a", "d")]) == 2  # one waypoint in each layer between
    drawing = drawing_of_layout(layout, edges, lambda _: 120.0)
    assert edges_through_boxes(drawing) == 0
    straight = dataclasses.replace(layout, routes={})  # the same places, drawn as the first version did
    assert edges_through_boxes(drawing_of_layout(straight, edges, lambda _: 120.0)) == 1
    # The chain a-b-c-d stays straight: the skip edge is pushed aside, not the chain.
    xs = [layout.positions[n][0] for n in "abcd"]
    assert max(xs) - min(xs) < 3.0, xs


def test_boxes_in_a_layer_never_overlap():
    nodes = [f"n{i}" for i in range(30)]
    edges = [(f"n{i}", f"n{j}") for i in range(30) for j in (2 * i + 1, 2 * i + 2) if j < 30]
    widths = {n: 60.0 + 7 * (i % 5) for i, n in enumerate(nodes)}
    layout = layered_layout(nodes, edges, width_of=widths.__getitem__, h_gap=24.0)
    for row in layout.layers:
        xs = sorted((layout.positions[n][0], widths[n]) for n in row)
        for (x1, w1), (x2, w2) in zip(xs, xs[1:]):
            assert x2 - x1 >= (w1 + w2) / 2 + 24.0 - 1e-6


def test_a_resnet_drawn_whole_has_no_edge_through_a_box():
    from gradexplorer.core.view.picture import display_width

    cap = capture(read_example("11_resnet_cnn"))
    display = display_graph(cap.graph, frozenset())
    width_of = lambda node: display_width(cap.graph, display, node)  # noqa: E731
    layout = layered_layout(list(display.nodes), list(display.edges), width_of=width_of)
    drawing = drawing_of_layout(layout, display.edges, width_of)
    assert edges_through_boxes(drawing) == 0
    straight = drawing_of_layout(dataclasses.replace(layout, routes={}), display.edges, width_of)
    assert edges_through_boxes(straight) > 0  # the skip edges would cross the blocks


def test_opening_a_box_moves_the_waypoints_with_their_layers():
    nodes, edges = ["a", "box", "c", "d"], [("a", "box"), ("box", "c"), ("c", "d"), ("a", "d")]
    base = layered_layout(nodes, edges)
    inner = layered_layout(["p", "q"], [("p", "q")])
    merged = replace_in_layout(base, "box", inner)
    (_, first_y), (_, second_y) = merged.routes[("a", "d")]
    assert first_y == base.routes[("a", "d")][0][1]  # in the box's row: moved sideways only
    assert second_y > base.routes[("a", "d")][1][1]  # below it: pushed down with its layer
    assert ("a", "box") not in merged.routes

"""Search, filters, gradient health and module grouping on plain data (issue 6)."""

import math
import textwrap

from tests.programs import MODEL

import pytest

from gradexplorer import capture
from gradexplorer.core.analysis.grouping import (
    GROUP_PREFIX,
    collapse_one,
    display_graph,
    expand_display,
    expand_one,
    initial_collapse,
)
from gradexplorer.core.analysis.query import filter_nodes, first_nonfinite, grad_norm, path_to_roots, search_nodes
from gradexplorer.core.records.tensors import summarize_tensor


NAN = textwrap.dedent("""
    w = torch.tensor(2.0, requires_grad=True)
    h = w * 3
    bad = h * torch.log(torch.tensor(-1.0))
    loss = (bad + 1).sum()
    loss.backward()
""")


def test_nodes_know_their_module():
    cap = capture(MODEL)
    modules = {a["module"] for _, a in cap.graph.nodes(data=True)}
    assert {"model.0", "model.1", "model.2.0", "model.2.1", "model.3"} <= modules
    assert cap.graph.nodes[cap.node_named("model.0.weight")]["module"] == "model.0"
    assert cap.graph.graph["module_types"]["model.2"] == "Sequential"


def test_grad_norm_from_stats():
    import torch

    t = torch.tensor([3.0, 4.0, 0.0, 0.0] * 100)
    assert grad_norm(summarize_tensor(t, value_elements=10)) == pytest.approx(float(t.norm()), rel=1e-6)
    assert grad_norm(summarize_tensor(t)) == pytest.approx(float(t.norm()), rel=1e-6)


def test_first_nan_forward_and_backward():
    cap = capture(NAN)
    forward, backward = first_nonfinite(cap.graph)
    attrs = cap.graph.nodes[forward]
    assert attrs["op"] == "MulBackward0" and attrs["names"] == ("bad",) and attrs["source"].line == 4
    assert cap.graph.nodes[backward]["names"] == ("bad",)  # it sends NaN to h first
    assert filter_nodes(cap.graph, "nonfinite")


def test_filters_and_search():
    cap = capture(MODEL)
    g = cap.graph
    weight = cap.node_named("model.0.weight")
    on_path = set(filter_nodes(g, "path", selected=weight))
    assert weight in on_path and cap.node_named("loss") in on_path
    assert on_path == path_to_roots(g, weight)
    assert cap.node_named("model.3.bias") not in on_path
    assert set(filter_nodes(g, "requires_grad")) == set(g)
    assert filter_nodes(g, "no_gradient") == []
    assert search_nodes(g, "loss")[0] == cap.node_named("loss")
    assert cap.node_named("model.2.0.weight") in search_nodes(g, "model.2")
    assert all(g.nodes[n]["op"].startswith("Tanh") for n in search_nodes(g, "tanh"))
    assert cap.node_named("model.0.weight") in search_nodes(g, "8x4")
    with pytest.raises(ValueError):
        filter_nodes(g, "bogus")


def test_grouping_collapse_and_expand():
    cap = capture(MODEL)
    g = cap.graph
    collapsed = collapse_one(g, frozenset(), "model.2")
    display = display_graph(g, collapsed)
    group = display.groups[GROUP_PREFIX + "model.2"]
    inside = [n for n, m in g.nodes(data="module") if m and m.startswith("model.2")]
    assert sorted(group.members) == sorted(inside)
    assert group.type_name == "Sequential"
    assert len(display.nodes) == g.number_of_nodes() - len(inside) + 1
    assert group.inputs >= 1 and group.outputs >= 1
    assert group.grad_norm is not None and math.isfinite(group.grad_norm)
    opened = display_graph(g, expand_one(g, collapsed, "model.2"))
    assert {GROUP_PREFIX + "model.2.0", GROUP_PREFIX + "model.2.1"} <= set(opened.groups)
    # The incremental expansion gives the same picture as a full rebuild.
    quick = expand_display(g, display, "model.2")
    assert set(quick.nodes) == set(opened.nodes) and quick.edge_counts == opened.edge_counts
    assert quick.owner == opened.owner and quick.collapsed == opened.collapsed
    assert {k: (v.members, v.inputs, v.outputs) for k, v in quick.groups.items()} == \
        {k: (v.members, v.inputs, v.outputs) for k, v in opened.groups.items()}
    # Merged edges connect existing display nodes only.
    assert all(u in set(display.nodes) and v in set(display.nodes) for u, v in display.edges)


def test_identical_blocks_are_one_pattern_box_and_share_a_family_when_opened():
    cap = capture(textwrap.dedent("""
        torch.manual_seed(0)
        blocks = [nn.Sequential(nn.Linear(8, 8), nn.Tanh()) for _ in range(6)]
        model = nn.Sequential(*blocks)
        loss = model(torch.randn(2, 8)).sum()
        loss.backward()
    """))
    g = cap.graph
    assert initial_collapse(g) == frozenset()  # small: everything shown
    collapsed = initial_collapse(g, max_boxes=20)
    assert collapsed == {"model.[0-5]"}
    display = display_graph(g, collapsed)
    pattern = display.groups[GROUP_PREFIX + "model.[0-5]"]
    assert (pattern.title, pattern.repeat) == ("Sequential ×6", 6)
    assert sorted(pattern.members) == sorted(n for n, m in g.nodes(data="module") if m and m.startswith("model."))
    blocks = expand_one(g, collapsed, "model.[0-5]")
    assert blocks == {f"model.{i}" for i in range(6)}
    display = display_graph(g, frozenset(f"model.{i}.{j}" for i in range(6) for j in range(2)))
    linears = [grp for grp in display.groups.values() if grp.path.endswith(".0")]
    assert len(linears) == 6
    assert len({grp.family for grp in linears}) == 1 and linears[0].family_size == 6
    tanhs = [grp for grp in display.groups.values() if grp.path.endswith(".1")]
    assert tanhs[0].family != linears[0].family


def test_a_different_block_ends_a_pattern():
    cap = capture("model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4), nn.Tanh(),\n"
                  "                      nn.Linear(4, 4), nn.Linear(4, 4))\n"
                  "loss = model(torch.ones(1, 4)).sum()\nloss.backward()\n")
    g = cap.graph
    assert g.number_of_nodes() > 10
    collapsed = initial_collapse(g, max_boxes=10)
    assert collapsed == {"model.[0-2]", "model.3", "model.4", "model.5"}  # two Linears are not a pattern


def test_wide_sequentials_get_range_boxes_inside_their_pattern():
    cap = capture("model = nn.Sequential(*[nn.Linear(2, 2) for _ in range(250)])\n"
                  "loss = model(torch.ones(1, 2)).sum()\nloss.backward()\n")
    g = cap.graph
    collapsed = initial_collapse(g, max_boxes=50)
    assert collapsed == {"model.[0-249]"}
    display = display_graph(g, collapsed)
    assert display.groups[GROUP_PREFIX + "model.[0-249]"].title == "Linear ×250"
    ranges = expand_one(g, collapsed, "model.[0-249]")
    assert ranges == {"model.[0-99]", "model.[100-199]", "model.[200-249]"}
    assert display_graph(g, ranges).groups[GROUP_PREFIX + "model.[200-249]"].type_name == "range"
    opened = expand_one(g, ranges, "model.[200-249]")
    assert "model.249" in opened and "model.[200-249]" not in opened
    assert collapse_one(g, opened, "model.[200-249]") == ranges


def test_layout_can_be_cancelled_and_replaced_locally():
    from gradexplorer.core.analysis.layout import LayoutCancelled, layered_layout, replace_in_layout

    nodes = [f"n{i}" for i in range(6)]
    edges = [("n0", "n1"), ("n1", "n2"), ("n0", "n3"), ("n3", "n4"), ("n4", "n5")]
    with pytest.raises(LayoutCancelled):
        layered_layout(nodes, edges, should_stop=lambda: True)
    base = layered_layout(nodes, edges)
    inner = layered_layout(["a", "b", "c"], [("a", "b"), ("b", "c")])
    merged = replace_in_layout(base, "n1", inner)
    assert "n1" not in merged.positions and {"a", "b", "c"} <= set(merged.positions)
    assert merged.positions["n0"] == base.positions["n0"]  # above the box: untouched
    bx, by = base.positions["n1"]
    assert merged.positions["a"] == (bx, by)
    assert merged.positions["n2"][1] > merged.positions["c"][1]  # below the box: pushed down
    row_y = {}
    for node, (x, y) in merged.positions.items():
        row_y.setdefault(y, []).append(x)
    for xs in row_y.values():  # no two boxes at the same place
        assert len(xs) == len(set(xs))

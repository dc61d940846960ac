"""The overview a real model opens with (issue 11): layers, stages and cells as boxes, at most 60.

The expected boxes come from the models' own structure (their module names),
not from a previous run of gradexplorer.
"""

import re

import pytest

from gradexplorer import capture
from gradexplorer.core.analysis.grouping import GROUP_PREFIX, OVERVIEW_BOXES, display_graph, expand_one, initial_collapse
from gradexplorer.resources import read_example


def _overview(code: str):
    cap = capture(code)
    assert cap.ok, cap.error and cap.error.traceback
    display = display_graph(cap.graph, initial_collapse(cap.graph))
    return cap, display


def transformer(layers: int) -> str:
    return re.sub(r"^NUM_LAYERS = \d+$", f"NUM_LAYERS = {layers}", read_example("10_transformer_training"),
                  flags=re.M)


def test_a_two_layer_transformer_opens_with_its_layers_as_boxes():
    cap, display = _overview(transformer(2))
    assert cap.graph.number_of_nodes() > OVERVIEW_BOXES
    assert {"model.layers.0", "model.layers.1", "head"} <= {g.path for g in display.groups.values()}
    assert display.groups[GROUP_PREFIX + "model.layers.1"].type_name == "TransformerEncoderLayer"
    assert len(display.nodes) <= OVERVIEW_BOXES
    # The boxes hold every node the layers made, at any depth below them.
    inside = [n for n, m in cap.graph.nodes(data="module") if m and m.startswith("model.layers.1.")]
    assert set(inside) <= set(display.groups[GROUP_PREFIX + "model.layers.1"].members)


def test_forty_identical_layers_are_one_pattern_box_that_opens_into_the_layers():
    cap, display = _overview(transformer(40))
    pattern = display.groups[GROUP_PREFIX + "model.layers.[0-39]"]
    assert (pattern.title, pattern.repeat) == ("TransformerEncoderLayer ×40", 40)
    assert len(display.nodes) <= OVERVIEW_BOXES
    opened = display_graph(cap.graph, expand_one(cap.graph, display.collapsed, "model.layers.[0-39]"))
    assert {f"model.layers.{i}" for i in range(40)} <= {g.path for g in opened.groups.values()}


def test_a_resnet_opens_with_its_stages_and_a_stage_opens_into_blocks():
    cap, display = _overview(read_example("11_resnet_cnn"))
    assert {g.path for g in display.groups.values()} == {"model.stem", "model.stage1", "model.stage2",
                                                        "model.stage3", "model.head"}
    blocks = expand_one(cap.graph, display.collapsed, "model.stage2")
    assert {"model.stage2.0", "model.stage2.1"} <= blocks


def test_an_unrolled_lstm_keeps_its_cell_as_one_box():
    cap, display = _overview(read_example("12_lstm_unrolled"))
    boxes = {g.path: g for g in display.groups.values()}
    assert set(boxes) == {"model.embed", "model.cell", "model.head"}
    calls = [n for n, m in cap.graph.nodes(data="module") if m == "model.cell"]
    assert len(boxes["model.cell"].members) == len(calls) > OVERVIEW_BOXES  # opening it would be too much
    assert len(display.nodes) <= OVERVIEW_BOXES


@pytest.mark.parametrize("code", ["x = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()\n",
                                  "m = nn.Linear(3, 1)\nm(torch.ones(2, 3)).sum().backward()\n"])
def test_small_graphs_show_every_node(code):
    cap, display = _overview(code)
    assert not display.groups and len(display.nodes) == cap.graph.number_of_nodes()

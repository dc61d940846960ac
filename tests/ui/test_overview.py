"""Reading a real model at a glance (issue 11): the overview, the current node, filters, export.

Expected values come from the models' structure or from plain PyTorch, never
from a previous gradexplorer run.
"""

import re
import textwrap
import xml.etree.ElementTree as ET

import pytest
import torch
from torch import nn

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from tests.programs import MODEL

from gradexplorer.core.analysis.grouping import GROUP_PREFIX
from gradexplorer.resources import read_example
from gradexplorer.ui.graph_view import FAMILY_BANDS, GroupItem
from gradexplorer.ui.legend import legend_texts, norm_colour

from .conftest import run_and_wait
from .test_main_window import click_node


def test_a_two_layer_transformer_opens_with_its_layers_as_boxes(qtbot, window):
    window.example_actions["10_transformer_training"].trigger()
    result = run_and_wait(qtbot, window)
    items = window.graph_view.items_by_id
    for layer in ("model.layers.0", "model.layers.1"):
        item = items[GROUP_PREFIX + layer]
        assert isinstance(item, GroupItem) and item.group.type_name == "TransformerEncoderLayer"
        assert item.names.startswith("TransformerEncoderLayer · ")
    assert len(items) <= 60 < result.capture.graph.number_of_nodes()
    # A first picture a person can read: labels drawn, not a sliver.
    assert window.graph_view.zoom.level() >= window.graph_view.zoom.READABLE


def test_forty_layers_open_as_one_pattern_box_and_double_click_opens_it(qtbot, window):
    code = re.sub(r"^NUM_LAYERS = \d+$", "NUM_LAYERS = 40", read_example("10_transformer_training"), flags=re.M)
    window.editor.setPlainText(code)
    run_and_wait(qtbot, window, timeout=120_000)
    box = window.graph_view.items_by_id[GROUP_PREFIX + "model.layers.[0-39]"]
    assert "TransformerEncoderLayer ×40" in box.names
    view = window.graph_view
    view.centerOn(box)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(box.scenePos()))
    layers = {g.path for g in window.result.display.groups.values()}
    assert {f"model.layers.{i}" for i in range(40)} <= layers


def test_ctrl_k_after_a_find_folds_the_current_match_not_another(qtbot, window):
    window.editor.setPlainText(MODEL)
    run_and_wait(qtbot, window)
    graph = window.result.capture.graph
    window.picture.find("weight")  # match 1
    matches = window.picture.find("weight")  # match 2 of 3: model.2.0.weight is current, all three selected
    assert len(window.graph_view.selected_nodes()) == len(matches) == 3
    current = window.graph_view.selected_node()
    assert current == matches[1]
    module = graph.nodes[current]["module"]
    qtbot.keyClick(window.graph_view, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.result.display.collapsed == {module}
    assert window.graph_view.selected_node() == GROUP_PREFIX + module


def test_clicking_makes_a_node_current_and_the_inspector_follows(qtbot, window):
    window.editor.setPlainText(MODEL)
    run_and_wait(qtbot, window)
    window.picture.find("weight")
    node = click_node(qtbot, window, "model.3.bias")
    assert window.graph_view.selected_node() == node and window.graph_view.selected_nodes() == [node]
    assert window.inspector.names.text() == "model.3.bias"
    assert window.graph_view.items_by_id[node].current


def _plain_path_ops(weight_of):
    """Op names from loss.grad_fn down to the weight's AccumulateGrad, by walking next_functions."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Sequential(nn.Linear(8, 8), nn.ReLU()), nn.Linear(8, 1))
    loss = model(torch.randn(5, 4)).pow(2).mean()
    target = weight_of(model)
    stack = [(loss.grad_fn, [loss.grad_fn.name()])]
    while stack:
        fn, path = stack.pop()
        if getattr(fn, "variable", None) is target:
            return sorted(path)
        for child, _ in fn.next_functions:
            if child is not None:
                stack.append((child, path + [child.name()]))
    raise AssertionError("no path")


def _model_with_the_weight_clicked_and_hide_chosen(qtbot, window):
    window.editor.setPlainText(MODEL)
    result = run_and_wait(qtbot, window)
    click_node(qtbot, window, "model.0.weight")
    window.filter_mode_combo.setCurrentIndex(window.filter_mode_combo.findData("hide"))
    return result


def test_filter_hides_the_rest_then_clear_restores_it(qtbot, window):
    graph = _model_with_the_weight_clicked_and_hide_chosen(qtbot, window).capture.graph
    index = window.filter_combo.findData("path")
    window.filter_combo.setCurrentIndex(index)
    window.filter_combo.activated.emit(index)
    visible = window.graph_view.visible_node_ids()
    assert sorted(graph.nodes[n]["op"] for n in visible) == _plain_path_ops(lambda m: m[0].weight)
    assert window.filter_count.text().strip() == f"{len(visible)} of {graph.number_of_nodes()} nodes"
    assert window.clear_filter_action.isEnabled()
    window.clear_filter_action.trigger()
    assert len(window.graph_view.visible_node_ids()) == graph.number_of_nodes()
    assert all(item.opacity() == 1.0 for item in window.graph_view.items_by_id.values())
    assert window.filter_count.text() == "" and not window.clear_filter_action.isEnabled()


def test_a_filter_stays_while_a_box_is_closed_and_opened(qtbot, window):
    result = _model_with_the_weight_clicked_and_hide_chosen(qtbot, window)
    graph = result.capture.graph
    window.picture.apply_filter("path")
    window.picture.collapse_module("model.2")  # the path runs through model.2.0: its box stays visible
    assert window.graph_view.items_by_id[GROUP_PREFIX + "model.2"].isVisible()
    assert not window.graph_view.items_by_id[result.capture.node_named("model.3.bias")].isVisible()
    window.picture.expand_group("model.2")
    window.picture.expand_group("model.2.0")
    window.picture.expand_group("model.2.1")
    visible = window.graph_view.visible_node_ids()
    assert sorted(graph.nodes[n]["op"] for n in visible) == _plain_path_ops(lambda m: m[0].weight)


def test_gradient_norm_colours_are_on_one_fixed_scale_for_every_graph(qtbot, window):
    # w's gradient is 2 * 0.78 = 1.56 in both programs; the second also has a huge gradient elsewhere.
    programs = ["w = torch.tensor([0.78], requires_grad=True)\n(w * w).sum().backward()\n",
                "w = torch.tensor([0.78], requires_grad=True)\nv = torch.tensor([1.0], requires_grad=True)\n"
                "((w * w).sum() + (v * 1e6).sum()).backward()\n"]
    colours = []
    for code in programs:
        window.editor.setPlainText(code)
        run_and_wait(qtbot, window)
        window.colour_combo.setCurrentIndex(window.colour_combo.findData("grad_norm"))
        window.colour_combo.activated.emit(window.colour_combo.currentIndex())
        w = window.result.capture.node_named("w")
        colours.append(window.graph_view.items_by_id[w]._brush.color().name())
    assert colours[0] == colours[1] == norm_colour(1.56).name()
    assert norm_colour(1e-3).name() != norm_colour(1.56).name()
    assert window.graph_view.legend.isVisible() and window.graph_view.legend.mode == "grad_norm"


def _svg_texts(path):
    root = ET.parse(path).getroot()
    return [t.strip() for el in root.iter() if el.tag.endswith("text") for t in el.itertext() if t.strip()]


def test_exported_svg_holds_every_node_and_the_legend(qtbot, window, tmp_path):
    window.example_actions["11_resnet_cnn"].trigger()
    run_and_wait(qtbot, window)
    window.picture.expand_group("model.stage2")  # some boxes, some opened
    view = window.graph_view
    view.zoom.scale_by(4.0)  # what is on screen is a small part of the drawing
    assert window.files.export("svg", tmp_path / "resnet")
    texts = _svg_texts(tmp_path / "resnet.svg")
    labels = [item.op for item in view.items_by_id.values()]
    for label in labels:  # every box and node, not only the visible part
        assert label in texts, label
    for line in legend_texts(view.colour_mode):
        assert line in texts, line
    assert window.files.export("png", tmp_path / "resnet", scale=1.0)
    image = QImage(str(tmp_path / "resnet.png"))
    width, height = view.exporter.export_size(1.0)
    assert (image.width(), image.height()) == (width, height)
    visible = view.mapToScene(view.viewport().rect()).boundingRect()  # the zoomed-in part on screen
    assert image.height() > 2 * visible.height()
    assert image.pixelColor(2, 2) == QColor("#ffffff")  # no selection, no viewport grab


def test_the_depth_slider_opens_every_box_level_by_level(qtbot, window):
    window.example_actions["11_resnet_cnn"].trigger()
    result = run_and_wait(qtbot, window)
    graph = result.capture.graph
    slider = window.navigator.slider
    assert slider.maximum() == max(len(m.split(".")) for _, m in graph.nodes(data="module") if m)
    slider.setValue(0)  # as the keyboard does: the picture follows at once
    assert {g.path for g in window.result.display.groups.values()} == {"model"}
    slider.setValue(2)
    assert "model.stage2.0" in {g.path for g in window.result.display.groups.values()}
    slider.setValue(slider.maximum())
    assert not window.result.display.groups and len(window.graph_view.items_by_id) == graph.number_of_nodes()
    assert window.navigator.depth_label.text() == "Depth: all nodes"


def test_the_depth_slider_refuses_a_picture_too_big_to_draw(qtbot, window):
    window.example_actions["11_resnet_cnn"].trigger()
    run_and_wait(qtbot, window)
    before = window.result.display
    window.picture.MAX_DRAWN = 20
    window.navigator.slider.setValue(window.navigator.slider.maximum())
    assert window.result.display is before
    assert "would draw" in window.status.text()
    assert window.navigator.slider.value() < window.navigator.slider.maximum()  # back where the picture is


def test_breadcrumbs_show_the_current_nodes_modules_and_fold_into_one(qtbot, window):
    window.example_actions["11_resnet_cnn"].trigger()
    run_and_wait(qtbot, window)
    window.picture.expand_group("model.stage2")
    window.picture.expand_group("model.stage2.0")
    window.graph_view.select_node(GROUP_PREFIX + "model.stage2.0.conv1")
    crumbs = [button.text() for button in window.navigator.crumb_buttons]
    assert crumbs == ["model", "stage2", "0", "conv1"]
    qtbot.mouseClick(window.navigator.crumb_buttons[1], Qt.MouseButton.LeftButton)
    assert GROUP_PREFIX + "model.stage2" in window.graph_view.items_by_id
    assert window.graph_view.selected_node() == GROUP_PREFIX + "model.stage2"
    assert [button.text() for button in window.navigator.crumb_buttons] == ["model", "stage2"]
    run_and_wait(qtbot, window)  # a new capture: nothing is selected, no crumbs of the old one stay
    assert window.navigator.crumbs == () and window.inspector.title.text() == "Click a node to inspect it."


def test_the_minimap_shows_a_big_drawing_and_a_click_there_moves_the_view(qtbot, window):
    window.example_actions["11_resnet_cnn"].trigger()
    run_and_wait(qtbot, window)
    window.navigator.slider.setValue(window.navigator.slider.maximum())  # 100 nodes: taller than the view
    view, minimap = window.graph_view, window.graph_view.minimap
    assert minimap.isVisible()
    bottom = minimap.scene_point(minimap.rect().center()).y() + 1  # below the middle of the drawing
    target = minimap._target
    qtbot.mouseClick(minimap, Qt.MouseButton.LeftButton,
                     pos=target.center().toPoint() + (target.bottomLeft() - target.center()).toPoint() * 0.9)
    centre = view.mapToScene(view.viewport().rect().center())
    assert centre.y() > bottom
    window.minimap_action.setChecked(False)
    assert not minimap.isVisible()


def test_gradient_flow_chart_matches_param_grad_and_a_point_selects_the_parameter(qtbot, window):
    window.example_actions["06_mlp_training_step"].trigger()
    result = run_and_wait(qtbot, window)
    pane = window.gradient_flow_pane
    window.bottom_tabs.setCurrentWidget(pane)
    # Plain PyTorch, the same program: .grad of model.2.weight after each of the three steps.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    expected = []
    for _ in range(3):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        expected.append(model[2].weight.grad.norm().item())
        optimizer.step()
    names = [flow.name for flow in pane.flows]
    column = names.index("model.2.weight")
    drawn = [ys[xs.index(column)] for _, xs, ys in pane.series]
    assert drawn == pytest.approx(expected, rel=1e-5)
    assert pane.plot is not None and len(pane.series) == 3
    pane._on_points_clicked(None, [type("Point", (), {"data": lambda self: pane.flows[column].node_id})()])
    assert window.graph_view.selected_node() == result.capture.node_named("model.2.weight")
    assert "4 parameters × 3 pass(es)" in pane.summary.text()


def test_gradient_flow_lists_a_vanishing_layer_and_clicking_it_selects_it(qtbot, window):
    window.editor.setPlainText(textwrap.dedent("""
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 1))
        h = model[0](torch.randn(8, 4)) * 1e-7
        model[2](model[1](h)).pow(2).mean().backward()
    """))
    result = run_and_wait(qtbot, window)
    pane = window.gradient_flow_pane
    texts = [pane.warnings.item(i).text() for i in range(pane.warnings.count())]
    assert any(text.startswith("↓ vanishing: model.0.weight") for text in texts), texts
    row = next(i for i, text in enumerate(texts) if "model.0.weight" in text)
    pane.warnings.itemClicked.emit(pane.warnings.item(row))
    assert window.graph_view.selected_node() == result.capture.node_named("model.0.weight")


def test_values_on_the_graph_show_each_nodes_value_and_gradient_norm(qtbot, window, tmp_path):
    window.example_actions["03_next_functions"].trigger()
    result = run_and_wait(qtbot, window)
    # The same program in plain PyTorch: a, d's value and gradients.
    a = torch.tensor(1.1, requires_grad=True)
    b = torch.tensor(1.2, requires_grad=True)
    c = torch.tensor(1.3, requires_grad=True)
    d = a * b
    d.retain_grad()
    (d * c).backward()
    items = window.graph_view.items_by_id
    leaf_a, node_d = items[result.capture.node_named("a")], items[result.capture.node_named("d")]
    assert not leaf_a.show_value
    window.values_action.trigger()
    assert leaf_a.show_value and node_d.show_value
    assert leaf_a.caption() == f"{a.item():.4g} · ‖g‖ {a.grad.abs().item():.4g}"  # 1.1 · ‖g‖ 1.56
    assert node_d.caption() == f"{d.item():.4g} · ‖g‖ {d.grad.abs().item():.4g}"  # 1.32 · ‖g‖ 1.3
    assert window.files.export("svg", tmp_path / "values")  # captions go into the export too
    assert leaf_a.caption() in _svg_texts(tmp_path / "values.svg")
    window.values_action.trigger()
    assert not leaf_a.show_value


def test_the_gradient_flow_chart_is_drawn_only_when_its_tab_is_shown(qtbot, window):
    window.example_actions["06_mlp_training_step"].trigger()
    run_and_wait(qtbot, window)
    pane = window.gradient_flow_pane
    assert not pane.isVisible() and pane.series == [] and len(pane.flows) == 4  # stored, not drawn
    window.bottom_tabs.setCurrentWidget(pane)
    assert len(pane.series) == 3  # drawn when shown: one line per pass


def test_module_boxes_are_painted_apart_from_node_kinds(qtbot, window):
    """A box's fill is never a node kind's (encoder layers once came out purple, "custom Function");
    boxes of one structure share the band down their left side (issue 27)."""
    from gradexplorer.ui.legend import _KIND_SWATCHES

    window.example_actions["10_transformer_training"].trigger()
    run_and_wait(qtbot, window)
    view = window.graph_view
    image = view.viewport().grab().toImage()
    kinds = {QColor(fill).rgb() for _, fill, _ in _KIND_SWATCHES}
    bands = {}
    for layer in ("model.layers.0", "model.layers.1"):
        item = view.items_by_id[GROUP_PREFIX + layer]
        view.centerOn(item)
        image = view.viewport().grab().toImage()
        rect = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
        counts: dict[int, int] = {}  # the fill is the commonest colour inside the box
        for x in range(rect.left() + 14, rect.right() - 6, 2):
            for y in range(rect.top() + 6, rect.bottom() - 6):
                rgb = image.pixelColor(x, y).rgb()
                counts[rgb] = counts.get(rgb, 0) + 1
        fill = QColor.fromRgb(max(counts, key=counts.get))
        assert fill.rgb() not in kinds and fill.hsvSaturation() < 30, fill.name()  # neutral, not a kind's colour
        band = max((image.pixelColor(x, rect.center().y()) for x in range(rect.left() + 3, rect.left() + 14)),
                   key=lambda c: c.hsvSaturation())
        assert band.hsvSaturation() > 100  # a strong band of colour on the left: the box's structure
        assert band.name() == FAMILY_BANDS[item.group.family % len(FAMILY_BANDS)]
        bands[layer] = (item.group.family, band.name())
    families = {family for family, _ in bands.values()}
    assert len(set(bands.values())) == len(families)  # one band per structure
    assert any("colour band per structure" in text for text in legend_texts("kind"))


def drawn_edge_lines(view) -> list[list[tuple[float, float]]]:
    """The edges as they are drawn: the curves of the painted edge items, flattened to polylines.

    Each edge is painted as two subpaths, its curve and its arrowhead (a closed
    triangle); the curves are kept, in scene coordinates.
    """
    lines = []
    for item in view.edges.band_items:
        for polygon in item.path().toSubpathPolygons():
            points = [(polygon.at(i).x(), polygon.at(i).y()) for i in range(polygon.size())]
            if len(points) <= 4 and points[0] == points[-1]:
                continue  # an arrowhead
            lines.append([item.mapToScene(x, y).toTuple() for x, y in points])
    return lines


def drawn_edges_through_boxes(view) -> tuple[int, int]:
    """``(edges drawn, edges drawn through a box other than their two ends)``, from the painted items."""
    from gradexplorer.core.analysis.layout_quality import drawing_from_points, edges_through_boxes

    rects = {node_id: item.mapRectToScene(item._rect) for node_id, item in view.items_by_id.items()}

    def box_at(x: float, y: float) -> str:  # the box an edge starts below or ends above
        near = [n for n, r in rects.items() if r.adjusted(-2, -8, 2, 8).contains(x, y)]
        assert len(near) == 1, (x, y, near)
        return near[0]

    lines = {}
    for points in drawn_edge_lines(view):
        lines[(box_at(*points[0]), box_at(*points[-1]))] = points
    drawing = drawing_from_points({n: r.center().toTuple() for n, r in rects.items()},
                                  {n: (r.width(), r.height()) for n, r in rects.items()}, lines)
    return len(lines), edges_through_boxes(drawing)


def test_opening_a_box_draws_no_edge_through_a_box(qtbot, window):
    """Opening ``model.cell`` of the LSTM once drew 15 edges straight through other boxes, though a full
    redraw routes them all around (issue 27); read from the painted edges, not from the layout."""
    window.example_actions["12_lstm_unrolled"].trigger()
    run_and_wait(qtbot, window)
    view = window.graph_view
    drawn, through = drawn_edges_through_boxes(view)
    assert drawn == len(window.result.display.edges) > 0 and through == 0
    for box in ("model.cell", "model.head"):
        window.picture.expand_group(box)
        assert GROUP_PREFIX + box not in view.items_by_id
        drawn, through = drawn_edges_through_boxes(view)
        assert drawn == len(window.result.display.edges) > 0
        assert through == 0, f"{through} edges through boxes after opening {box}"

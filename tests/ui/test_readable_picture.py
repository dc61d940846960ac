"""A first picture a person can read: text size on screen, re-fit on resize, overlays that cover no box (issue 27)."""

from __future__ import annotations

import re

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QStyleOptionGraphicsItem

from gradexplorer.core.analysis.grouping import GROUP_PREFIX
from gradexplorer.resources import read_example
from gradexplorer.ui.graph_sizes import MIN_TEXT_PIXELS

from .conftest import run_and_wait


def _painted_text_pixels(view, node_id: str) -> float:
    """The size of the text a box is painted with, on screen: paint it (captions on) and read the font
    the painter was left with, times the view's zoom."""
    item = view.items_by_id[node_id]
    image = QImage(400, 200, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    painter.translate(200, 100)
    option = QStyleOptionGraphicsItem()
    sizes = []
    for caption in (True, False):
        item.show_value = caption
        font = painter.font()
        font.setPixelSize(40)
        painter.setFont(font)  # a size the item must replace with its own
        if caption:
            item._paint_caption(painter)
            if item.caption():
                sizes.append(painter.font().pixelSize())
        else:
            item.paint(painter, option)
            sizes.append(painter.font().pixelSize())
    painter.end()
    item.show_value = view.show_values
    return view.zoom.level() * min(sizes)


def _screen_rect(view, widget) -> QRect:
    """Where an overlay (legend, minimap) is, in the viewport's coordinates."""
    return widget.geometry().translated(-view.viewport().geometry().topLeft())


def _covered(view, widget) -> list[str]:
    """The boxes an overlay covers, read from where they are drawn on screen."""
    if not widget.isVisible():
        return []
    rect = _screen_rect(view, widget)
    return [node_id for node_id, item in view.items_by_id.items()
            if view.mapFromScene(item.mapRectToScene(item._rect)).boundingRect().intersects(rect)]


def test_every_first_picture_draws_its_text_at_least_ten_pixels(qtbot, window):
    """The 9-box transformer overview once opened with 6-7 px labels (zoom 0.55)."""
    view = window.graph_view
    for name in ("10_transformer_training", "11_resnet_cnn", "12_lstm_unrolled", "06_mlp_training_step"):
        window.example_actions[name].trigger()
        run_and_wait(qtbot, window)
        assert view.zoom.smallest_text_pixels() >= MIN_TEXT_PIXELS, name
        for node_id in sorted(view.items_by_id)[:12]:  # boxes and nodes, labels and value captions
            assert _painted_text_pixels(view, node_id) >= MIN_TEXT_PIXELS, (name, node_id)
        # The root is on screen: a wide drawing opens on it, not on its middle.
        root = view._layout.layers[0][0]
        shown = view.mapToScene(view.viewport().rect()).boundingRect()
        assert shown.contains(view.items_by_id[root].sceneBoundingRect().center()), name


def test_the_first_picture_follows_the_window_until_the_user_zooms(qtbot, window):
    window.resize(900, 650)
    window.example_actions["12_lstm_unrolled"].trigger()
    run_and_wait(qtbot, window)
    view = window.graph_view
    assert view.zoom.fitted
    small = view.mapToScene(view.viewport().rect()).boundingRect()
    before = view.viewport().width()
    window.resize(1500, 1000)
    qtbot.waitUntil(lambda: view.viewport().width() > before + 150)
    grown = view.mapToScene(view.viewport().rect()).boundingRect()
    # Fitted again: the whole drawing (or its width) fills the bigger view, the text still readable.
    assert view.zoom.smallest_text_pixels() >= MIN_TEXT_PIXELS
    assert abs(grown.center().x() - view.drawing_rect().center().x()) < 2 or grown.width() < view.drawing_rect().width()
    assert grown != small
    # The user zooms: a resize now keeps their zoom.
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    zoom = view.zoom.level()
    assert not view.zoom.fitted
    wide = view.viewport().width()
    window.resize(1100, 800)
    qtbot.waitUntil(lambda: view.viewport().width() < wide - 100)
    assert view.zoom.level() == zoom


def test_the_legend_and_the_minimap_never_cover_a_box(qtbot, window):
    """A loss root once hid under the minimap and 3 of 6 layer boxes under the legend: wherever the view
    is moved, each overlay sits in a corner that covers no box, or is faded when every corner would."""
    code = re.sub(r"^NUM_LAYERS = \d+$", "NUM_LAYERS = 6", read_example("10_transformer_training"), flags=re.M)
    window.resize(1800, 1100)
    window.editor.setPlainText(code)
    run_and_wait(qtbot, window)
    view = window.graph_view
    window.picture.set_depth(4)  # every layer open: a drawing much bigger than the view, the minimap shown
    assert not any(re.fullmatch(r"model\.layers\.[^.]+", n[len(GROUP_PREFIX):]) for n in view.items_by_id
                   if n.startswith(GROUP_PREFIX))
    assert view.minimap.isVisible() and view.legend.isVisible()
    corners = set()
    faded = 0
    sample = sorted(view.items_by_id)[::5]
    for node_id in sample:
        for default in (view.legend, view.minimap):
            # Move the view so that this box lies where the overlay sits by default (its first corner).
            target = view.overlays.corner_rect(default, view.overlays.CORNERS["legend" if default is view.legend else "minimap"][0])
            target = target.translated(-view.viewport().geometry().topLeft()).center()
            centre = view.viewport().rect().center()
            box = view.items_by_id[node_id].sceneBoundingRect().center()
            zoom = view.zoom.level()
            view.centerOn(box.x() + (centre.x() - target.x()) / zoom, box.y() + (centre.y() - target.y()) / zoom)
            for widget in (view.legend, view.minimap):
                effect = widget.graphicsEffect()
                if effect is not None and effect.opacity() < 0.5:
                    faded += 1
                    continue
                assert not _covered(view, widget), (node_id, widget.accessibleName(), widget.corner)
                corners.add((widget.accessibleName(), widget.corner))
            legend, minimap = _screen_rect(view, view.legend), _screen_rect(view, view.minimap)
            assert not (view.minimap.isVisible() and legend.intersects(minimap))
    assert len(corners) > 2  # the overlays moved out of the way
    assert faded <= len(sample)  # of 4 looks per box: mostly moved, faded only where every corner is taken


def test_a_dark_palette_paints_the_legend_the_minimap_and_the_boxes_dark(qtbot, window):
    """The legend's swatches are the colours the nodes are painted with in that palette, and the minimap
    and the module boxes follow it (their light fills once glared on a dark window)."""
    from PySide6.QtGui import QColor, QPalette

    from gradexplorer.ui.legend import BOX_FILL_DARK, KIND_FILLS

    view = window.graph_view
    palette = view.palette()
    for role, colour in ((QPalette.ColorRole.Base, "#0d1117"), (QPalette.ColorRole.Window, "#161b22"),
                         (QPalette.ColorRole.Text, "#e6edf3")):
        palette.setColor(role, QColor(colour))
    view.setPalette(palette)
    window.resize(1800, 1100)
    code = re.sub(r"^NUM_LAYERS = \d+$", "NUM_LAYERS = 6", read_example("10_transformer_training"), flags=re.M)
    window.editor.setPlainText(code)
    run_and_wait(qtbot, window)
    window.picture.set_depth(4)
    assert view.legend.isVisible() and view.minimap.isVisible()
    legend = view.legend.grab().toImage()
    # The first swatch row (the leaf's) sits under the title: its middle is the leaf's dark fill.
    assert legend.pixelColor(19, 31).name() == KIND_FILLS["leaf"][1]
    assert legend.pixelColor(19, 47).name() == KIND_FILLS["op"][1]
    assert legend.pixelColor(legend.width() // 2, 5).lightness() < 80  # the legend's own background
    minimap = view.minimap.grab().toImage()
    assert minimap.pixelColor(4, minimap.height() // 2).lightness() < 80
    box = next(item for node_id, item in view.items_by_id.items() if node_id.startswith(GROUP_PREFIX))
    assert box._brush.color().name() == BOX_FILL_DARK
    view.centerOn(box)
    image = view.viewport().grab().toImage()
    rect = view.mapFromScene(box.mapRectToScene(box._rect)).boundingRect()
    assert image.pixelColor(rect.right() - 8, rect.center().y()).lightness() < 80  # painted dark


def test_the_legend_folds_to_a_tab_where_it_would_cover_a_box(qtbot, window):
    """A tall chain in a narrow view: the whole legend covers a box in every corner, so it folds to a tab
    (its lines in the tooltip) that covers none, rather than lying faint over the boxes."""
    window.resize(1100, 720)
    window.example_actions["12_lstm_unrolled"].trigger()
    run_and_wait(qtbot, window)
    view = window.graph_view
    legend = view.legend
    assert legend.isVisible() and legend.compact
    assert legend.size().height() < 30 and "leaf (a parameter or input)" in legend.toolTip()
    assert legend.graphicsEffect() is None  # not faded: the tab found a free corner
    assert not _covered(view, legend)
    window.resize(2400, 1600)  # room enough: the whole legend comes back
    qtbot.waitUntil(lambda: not legend.compact)
    assert not _covered(view, legend) or legend.graphicsEffect() is not None


SHAPES_PROGRAM = """\
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 5), nn.ReLU())
x = torch.randn(4, 3)
h = model(x)
left, right = torch.split(h, [2, 3], dim=1)  # one node, two outputs of different shapes
loss = left.sum() * 2 + right.pow(2).mean()
loss.backward()
"""


def test_shapes_on_edges_are_the_tensors_the_forward_pass_carried(qtbot, window):
    """View > Shapes on Edges writes each edge's tensor shape (as torchview does); the truth is PyTorch's own
    metadata of what each node produced (``_input_metadata`` of the node the edge leads to)."""
    import torch
    from torch import nn

    namespace = {"torch": torch, "nn": nn}
    exec(SHAPES_PROGRAM, namespace)
    truth: dict[tuple[str, str], str] = {}  # (consumer op, producer op) -> shapes, from a plain run
    stack, seen = [namespace["loss"].grad_fn], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for child, nr in node.next_functions:
            if child is None:
                continue
            shape = tuple(child._input_metadata[nr].shape) if hasattr(child, "_input_metadata") else None
            if child.name() == "torch::autograd::AccumulateGrad":
                shape = tuple(child.variable.shape)
            truth.setdefault((node.name(), child.name()), set()).add("×".join(map(str, shape)) or "scalar")
            stack.append(child)
    window.editor.setPlainText(SHAPES_PROGRAM)
    result = run_and_wait(qtbot, window)
    view = window.graph_view
    assert view.edges.edge_shape_labels() == {}
    without = view.viewport().grab().toImage()
    window.shapes_action.trigger()
    labels = view.edges.edge_shape_labels()
    assert view.viewport().grab().toImage() != without  # the labels are painted
    graph = result.shown_graph
    assert len(labels) == len(view.display.edges) > 5
    for (consumer, producer), text in labels.items():
        ops = (graph.nodes[consumer]["op"], graph.nodes[producer]["op"])
        ops = tuple("torch::autograd::AccumulateGrad" if op == "AccumulateGrad" else op for op in ops)
        assert text in truth[ops], (ops, text, truth[ops])
    assert {"4×5", "5×3", "4×2", "4×3"} <= set(labels.values())  # h, W1 and the two parts of the split
    window.shapes_action.trigger()
    assert view.edges.edge_shape_labels() == {} and view.viewport().grab().toImage() == without

"""One pass at a time (issue 27): a training loop opens on its last pass, drawn like torchviz's single pass."""

from __future__ import annotations

import textwrap

import torch
from torch import nn

from gradexplorer.core.analysis.query import grad_norm
from gradexplorer.ui.legend import norm_colour

from ..programs import CNN_LOOP
from .conftest import run_and_wait

def _plain_deliveries():
    """Plain PyTorch: model.3.weight's gradient in each of the three steps."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    images, labels = torch.randn(4, 1, 6, 6), torch.tensor([0, 1, 2, 1])
    grads = []
    for _ in range(3):
        opt.zero_grad()
        nn.functional.cross_entropy(model(images), labels).backward()
        grads.append(model[3].weight.grad.clone())
        opt.step()
    return grads


def _drawn_nodes(window) -> set[str]:
    """The graph nodes the picture draws (inside the boxes too)."""
    display = window.result.display
    return {node for node, owner in display.owner.items() if owner in window.graph_view.items_by_id}


def test_a_training_loop_opens_on_its_last_pass_with_one_root(qtbot, window):
    window.editor.setPlainText(CNN_LOOP)
    cap = run_and_wait(qtbot, window).capture
    graph = cap.graph
    assert len(cap.passes) == 3 and len(graph.graph["roots"]) >= 3  # three passes in the capture
    assert window.result.pass_index == 2
    drawn = _drawn_nodes(window)
    assert drawn == {n for n, a in graph.nodes(data=True) if 2 in a["on_path"]}
    roots = [n for n in drawn if not window.result.shown_graph.pred[n]]
    assert roots == [cap.node_named("loss")]  # one pass: one root, the last loss
    assert window.navigator.pass_combo.currentText() == "pass 3 of 3" and window.navigator.pass_combo.isVisible()
    weight = window.graph_view.items_by_id[cap.node_named("model.3.weight")]
    assert (weight.op, weight.names) == ("AccumulateGrad", "model.3.weight 3×32")  # name and shape, as torchviz

    window.navigator.pass_combo.setCurrentIndex(1)
    window.navigator.pass_combo.activated.emit(1)
    assert window.result.pass_index == 0
    assert _drawn_nodes(window) == {n for n, a in graph.nodes(data=True) if 0 in a["on_path"]}
    window.navigator.pass_combo.setCurrentIndex(0)
    window.navigator.pass_combo.activated.emit(0)
    assert window.result.pass_index is None and _drawn_nodes(window) == set(graph.nodes)


def test_the_colours_and_the_inspector_follow_the_pass_shown(qtbot, window):
    window.editor.setPlainText(CNN_LOOP)
    cap = run_and_wait(qtbot, window).capture
    plain = _plain_deliveries()
    leaf = cap.node_named("model.3.weight")
    window.picture.set_colour_mode("grad_norm")
    for index in (0, 2):
        window.picture.set_pass(index)
        window.picture.show_nodes([leaf])
        item = window.graph_view.items_by_id[leaf]
        assert item._brush.color() == norm_colour(plain[index].norm().item())
        assert item._brush.color() == norm_colour(grad_norm(cap.graph.nodes[leaf]["accumulation"][index].delivered))
        picker = window.inspector.pass_picker
        assert picker.currentData() == index and picker.currentText().startswith(f"pass {index + 1} ")
        torch.testing.assert_close(window.inspector.grad.record.data, plain[index])
    assert norm_colour(plain[0].norm().item()) != norm_colour(plain[2].norm().item())  # the test can tell them apart


def test_a_long_loop_draws_one_pass_not_a_row_of_roots(qtbot, window):
    window.editor.setPlainText(textwrap.dedent("""
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        for step in range(200):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    """))
    cap = run_and_wait(qtbot, window).capture
    assert len(cap.passes) == 200
    shown = window.result.shown_graph
    assert [n for n in shown if not shown.pred[n]] == [cap.passes[-1].roots[0][0]]
    assert window.navigator.pass_combo.count() == 201
    assert len(window.graph_view.items_by_id) < 20  # one step's picture, not 200 of them


def test_a_node_of_another_pass_is_shown_with_every_pass(qtbot, window):
    window.editor.setPlainText(CNN_LOOP + "first_loss = None\n")
    cap = run_and_wait(qtbot, window).capture
    first_root = cap.passes[0].roots[0][0]
    assert first_root not in window.result.shown_graph
    window.picture.show_nodes([first_root])
    assert window.result.pass_index is None
    assert window.graph_view.selected_node() == first_root

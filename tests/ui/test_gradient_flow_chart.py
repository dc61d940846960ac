"""The gradient-flow chart as a practitioner reads it (issue 27): what it paints, against plain PyTorch."""

from __future__ import annotations

import textwrap

import pytest
import torch
from torch import nn

from .conftest import run_and_wait

#: A model whose attribute names are not in the order it runs them: an input embedding called ``tok``
#: (alphabetically late), blocks ``0..11`` (``10`` sorts before ``2``), ``norm`` after ``head``.
MODEL = textwrap.dedent("""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(8, 4)
            self.tok = nn.Embedding(10, 8)
            self.blocks = nn.ModuleList(nn.Linear(8, 8) for _ in range(12))
            self.norm = nn.LayerNorm(8)
            self.frozen = nn.Linear(8, 8)
            self.frozen.requires_grad_(False)

        def forward(self, ids):
            h = self.tok(ids)
            for block in self.blocks:
                h = torch.tanh(block(h))
            h = self.frozen(self.norm(h))
            return self.head(h)
""")


def _plain_execution_order() -> list[str]:
    """``named_parameters()`` in the order a plain forward pass first called each module (forward pre-hooks)."""
    namespace = {"torch": torch, "nn": nn}
    exec(MODEL, namespace)
    torch.manual_seed(0)
    model = namespace["Net"]()
    called = []
    handles = [m.register_forward_pre_hook(lambda m, args: called.append(m) if m not in called else None)
               for m in model.modules()]
    model(torch.randint(0, 10, (3, 5)))
    for handle in handles:
        handle.remove()
    names = {id(m): name for name, m in model.named_modules()}
    return [f"model.{names[id(m)]}.{p}".replace("model..", "model.") for m in called
            for p, param in m.named_parameters(recurse=False)]


def _run_model(qtbot, window, steps: int):
    window.editor.setPlainText(MODEL + textwrap.dedent(f"""
        torch.manual_seed(0)
        model = Net()
        opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
        ids = torch.randint(0, 10, (3, 5))
        for step in range({steps}):
            opt.zero_grad()
            (model(ids).pow(2).mean() * 0.01).backward()
            opt.step()
    """))
    result = run_and_wait(qtbot, window)
    assert result.capture.ok, result.capture.error
    pane = window.gradient_flow_pane
    window.bottom_tabs.setCurrentWidget(pane)
    qtbot.waitExposed(pane)
    qtbot.waitUntil(lambda: bool(pane.tick_labels("left")) and bool(pane.tick_labels("bottom")), timeout=5000)
    return pane


def test_parameters_are_in_execution_order_and_frozen_ones_are_marked(qtbot, window):
    pane = _run_model(qtbot, window, 2)
    order = _plain_execution_order()
    assert [flow.name for flow in pane.flows] == order
    assert order[:2] == ["model.tok.weight", "model.blocks.0.weight"] and order[-1] == "model.head.bias"
    frozen = [x for x, flow in enumerate(pane.flows) if flow.status == "frozen"]
    assert [pane.flows[x].name for x in frozen] == ["model.frozen.weight", "model.frozen.bias"]
    marks = next(xs for label, xs, _ in pane.series if label.startswith("no gradient: frozen"))
    assert marks == frozen
    labels = pane.tick_labels("bottom")
    groups = list(dict.fromkeys(name.rsplit(".", 1)[0].removeprefix("model.") for name in order))
    assert labels[0] == "tok" and set(labels) <= set(groups)
    assert [groups.index(label) for label in labels] == sorted(groups.index(label) for label in labels)
    assert "parameters, in model order" not in pane.plot.getAxis("bottom").labelText


def test_the_axis_reads_real_numbers(qtbot, window):
    pane = _run_model(qtbot, window, 1)
    norms = [y for label, _, ys in pane.series if label == "pass 1" for y in ys]
    assert max(norms) < 1  # the scale of this chart: every gradient norm is a small number
    labels = pane.tick_labels("left")
    assert labels, "no tick labels painted"
    values = [float(text) for text in labels]  # plain numbers: no SI prefix, no "10⁻³"
    # The ticks label the range the points are drawn in (pyqtgraph's SI prefix made them 1000x too high).
    assert all(min(norms) / 10 <= v <= max(norms) * 10 for v in values), (labels, min(norms), max(norms))
    assert all("e" not in text or float(text) < 1e-6 for text in labels), labels  # decimals down to a millionth
    assert pane.plot.getAxis("left").labelText == "gradient norm ‖g‖"


def test_a_long_loop_is_a_band_and_one_pass_can_be_picked(qtbot, window):
    pane = _run_model(qtbot, window, 30)
    labels = [label for label, _, _ in pane.series]
    assert "median over 30 passes" in labels and not any(label.startswith("pass ") for label in labels)
    assert pane.pass_combo.count() == 31 and pane.pass_combo.itemText(30) == "pass 30"
    pane.pass_combo.setCurrentIndex(30)
    pane.pass_combo.activated.emit(30)
    assert [label for label, _, _ in pane.series if label.startswith("pass")] == ["pass 30"]


def test_the_chart_is_cleared_after_a_run_that_failed(qtbot, window):
    pane = _run_model(qtbot, window, 1)
    assert pane.series and pane.tick_labels("bottom")
    window.editor.setPlainText("this is not python(\n")
    run_and_wait(qtbot, window)
    assert pane.series == [] and pane.flows == ()
    assert not any(label in pane.tick_labels("bottom") for label in ("tok", "head", "blocks.0"))
    assert pane.plot.getAxis("left").labelText == "" and pane.plot.getAxis("bottom").labelText == ""


def test_pass_numbers_are_counted_from_one_everywhere(qtbot, window):
    """The inspector, the chart and the sentences call the first pass "pass 1"; the gradient of a leaf
    reached only in the second of two passes is PyTorch's."""
    window.editor.setPlainText("a = torch.ones(2, requires_grad=True)\nb = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                               "(a * 2).sum().backward()\n(b * b * 3).sum().backward()\n")
    result = run_and_wait(qtbot, window)
    plain = torch.tensor([1.0, 2.0], requires_grad=True)
    (plain * plain * 3).sum().backward()
    window.picture.show_nodes([result.capture.node_named("b")])
    inspector = window.inspector
    assert [inspector.pass_picker.itemText(i) for i in range(inspector.pass_picker.count())] == ["pass 2 (line 4)"]
    assert inspector.grad.record is not None
    torch.testing.assert_close(inspector.grad.record.data, plain.grad)
    explanation = window.tensors_pane.explanation_for("b")
    assert "pass" not in explanation.sentence or "pass 0" not in explanation.sentence

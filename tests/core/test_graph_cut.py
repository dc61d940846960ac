"""Sentences that point the right way (issue 28): a non-differentiable step named where it cut the graph,
``allow_unused`` told as it is, an alias never contradicting its first name, an attribute read told as one.

Each program's truth is a plain PyTorch run: the same code executed with
torch alone (what raises, what ``.grad`` holds).
"""

from __future__ import annotations

import textwrap

import pytest
import torch
from torch import nn

from gradexplorer import capture

#: name -> (program, the step that cut the graph as the sentence names it, the line it is on)
CUT_PROGRAMS = {
    "argmax_then_compare": ("""\
        w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        scores = w * 2
        loss = (scores.argmax() == 1).float()
        loss.backward()
        """, "argmax", 3),
    "comparison": ("""\
        w = torch.tensor([0.2, 0.9], requires_grad=True)
        loss = (w > 0.5).float().sum()
        loss.backward()
        """, "gt", 2),
    "distribution_sample": ("""\
        logits = torch.tensor([0.5, 1.0, -1.0], requires_grad=True)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        loss = action.float() * 2
        loss.backward()
        """, "multinomial", 3),
    "item": ("""\
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        total = (w * 3).sum().item()
        loss = torch.tensor(total) * 2
        loss.backward()
        """, ".item()", 2),
    "numpy_round_trip": ("""\
        import numpy as np
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        values = np.exp((w * 3).detach().numpy())
        loss = torch.from_numpy(values).sum()
        loss.backward()
        """, ".numpy()", 3),
}


def _plain(program: str) -> dict:
    """Run the program with torch alone: the error it raises and the namespace it leaves."""
    namespace = {"torch": torch, "nn": nn}
    with pytest.raises(RuntimeError, match="does not require grad") as raised:
        exec(textwrap.dedent(program), namespace)
    namespace["error"] = str(raised.value)
    return namespace


def _explanation(cap, name):
    return next(e for e in cap.explanations if e.name == name)


@pytest.mark.parametrize("name", list(CUT_PROGRAMS))
def test_the_step_that_cut_the_graph_is_named_and_the_advice_points_there(name):
    program, step, line = CUT_PROGRAMS[name]
    plain = _plain(program)
    leaf = "logits" if "logits" in plain else "w"
    assert plain[leaf].grad is None  # PyTorch: the leaf gets nothing, backward raised
    cap = capture(textwrap.dedent(program))
    assert cap.error is not None and "does not require grad" in cap.error.message
    loss = _explanation(cap, "loss")
    assert loss.code == "graph_cut", loss.sentence
    assert step in loss.sentence and f"line {line}" in loss.sentence
    assert "would only hide the error" in loss.sentence  # requires_grad_() is not the fix
    assert loss.line == line
    behind = _explanation(cap, leaf)
    assert behind.code == "graph_cut", behind.sentence
    assert step in behind.sentence and "loss was computed from it" in behind.sentence
    assert "not used to compute" not in behind.sentence and "Check that it is used" not in behind.sentence


def test_a_plain_constant_is_not_blamed_on_an_earlier_item_call():
    """A value that left autograd (``.item()``) is only a guess for the root of a pass that raised: input data
    made from Python numbers afterwards stays a constant."""
    cap = capture(textwrap.dedent("""\
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        loss = (w * 3).sum()
        loss.backward()
        seen = loss.item()
        batch = torch.tensor([seen, 1.0])
        """))
    assert _explanation(cap, "batch").code == "no_requires_grad"
    assert _explanation(cap, "w").code == "leaf_grad"


def test_allow_unused_is_told_as_no_gradient_at_all():
    program = textwrap.dedent("""\
        x = torch.tensor(2.0, requires_grad=True)
        unused = torch.tensor(3.0, requires_grad=True)
        y = x * x
        gx, gu = torch.autograd.grad(y, [x, unused], allow_unused=True)
        """)
    namespace = {"torch": torch}
    exec(program, namespace)
    assert namespace["gu"] is None and namespace["unused"].grad is None  # the truth
    cap = capture(program)
    sentence = _explanation(cap, "unused").sentence
    assert "returned None" in sentence and "allow_unused=True" in sentence
    assert "if you want it accumulated" not in sentence  # backward would not accumulate anything either


def test_an_alias_never_says_its_object_gets_a_gradient_it_did_not_get():
    program = textwrap.dedent("""\
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        x = torch.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        h = a * 3
        h2 = h
        """)
    cap = capture(program)
    assert _explanation(cap, "h").code == "intermediate"  # no pass reached h (PyTorch: a.grad stays None)
    alias = _explanation(cap, "h2").sentence
    assert "still gets a gradient" not in alias and "shares what is said of h" in alias


def test_a_plain_attribute_read_is_told_as_one():
    cap = capture("model = nn.Linear(2, 1)\nw = model.weight\nmodel(torch.ones(1, 2)).sum().backward()\n")
    sentence = _explanation(cap, "w").sentence
    assert "reading an attribute" in sentence and "in-place op" not in sentence

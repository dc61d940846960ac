"""The node a backward pass raised in shows the gradient autograd had handed it (issue 28).

The truth: a plain PyTorch run with a pre-hook on every node of the graph.
The last pre-hook call is the node the engine was running when it raised,
with the gradient it was handed.
"""

from __future__ import annotations

import textwrap

import pytest
import torch

from gradexplorer import capture

from .conftest import run_with_prehooks

PROGRAMS = {
    "sigmoid_output_changed_in_place": """\
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(3, 4), nn.Sigmoid(), nn.Linear(4, 1))
        x = torch.randn(2, 3)
        h = net[1](net[0](x))
        h.mul_(2)
        loss = net[2](h).sum()
        loss.backward()
        """,
    "two_branches_ready_at_once": """\
        w1 = torch.tensor([0.1, 0.2], requires_grad=True)
        w2 = torch.tensor([0.3, -0.4], requires_grad=True)
        a = torch.exp(w1)
        b = torch.sigmoid(w2)
        loss = a.sum() * 2 + b.sum() * 5
        b.detach().mul_(3)  # SigmoidBackward0 raises while ExpBackward0 is ready too
        loss.backward()
        """,
    "exp_output_changed_twice_used": """\
        torch.manual_seed(1)
        w = torch.randn(3, requires_grad=True)
        e = torch.exp(w * 2)
        y = e * 3 + e.sum()
        e.add_(1)
        y.sum().backward()
        """,
}


def _plain(program: str):
    """(the last node's name, the gradient it was handed) in a plain run with pre-hooks on every node."""
    calls, _ = run_with_prehooks(program, "modified by an inplace operation")
    return calls[-1]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_the_raising_node_has_the_gradient_a_pre_hook_sees(name):
    op, handed = _plain(PROGRAMS[name])
    cap = capture(textwrap.dedent(PROGRAMS[name]))
    p = cap.passes[-1]
    assert p.raised and p.raised_at is not None
    attrs = cap.graph.nodes[p.raised_at]
    assert attrs["op"] == op
    flow = attrs["grads"][p.index]
    assert flow.inputs == ()  # it sent nothing on
    assert len(flow.outputs) >= 1 and flow.outputs[0] is not None
    assert torch.allclose(flow.outputs[0].data, handed[0])


def test_an_intermediate_at_the_raising_node_is_told_so():
    cap = capture(textwrap.dedent("""\
        w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        s = torch.sigmoid(w)
        out = s * 3
        s.detach().mul_(2)  # the same memory and version counter: SigmoidBackward0's saved output changed
        out.sum().backward()
        """))
    s = next(e for e in cap.explanations if e.name == "s")
    assert "raised while running its node SigmoidBackward0" in s.sentence, s.sentence
    assert "No backward pass reached it" not in s.sentence

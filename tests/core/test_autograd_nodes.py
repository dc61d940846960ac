"""``edge_of`` finds the node a tensor's gradient goes to exactly as PyTorch's ``get_gradient_edge`` does."""

from __future__ import annotations

import pytest
import torch
from torch.autograd.graph import get_gradient_edge

from gradexplorer.core.graph.autograd_nodes import edge_of


def _pytorch_edge(t: torch.Tensor):
    if not t.requires_grad:
        return None
    try:
        edge = get_gradient_edge(t)
    except (RuntimeError, AssertionError):  # a view made under no_grad: neither grad_fn nor accumulator
        return None
    return edge.node, edge.output_nr


def _tensors() -> dict[str, torch.Tensor]:
    leaf = torch.ones(2, requires_grad=True)
    first, second = (leaf * 3).unbind()
    with torch.no_grad():
        view = leaf[:1]
    return {"parameter": torch.nn.Parameter(torch.randn(3)), "leaf": leaf, "result": leaf * 2,
            "first output": first, "second output": second, "view under no_grad": view,
            "no grad": torch.ones(2), "detached": leaf.detach()}


@pytest.mark.parametrize("grad_enabled", [True, False])
@pytest.mark.parametrize("name", list(_tensors()))
def test_edge_of_agrees_with_pytorch(name, grad_enabled):
    tensors = _tensors()  # kept alive: an accumulator lives as long as something holds it
    t = tensors[name]
    with torch.set_grad_enabled(grad_enabled):
        expected, got = _pytorch_edge(t), edge_of(t)
        assert torch.is_grad_enabled() is grad_enabled  # and leaves the grad mode as it was
    if expected is None:
        assert got is None
    else:
        assert got[0] is expected[0] and got[1] == expected[1]

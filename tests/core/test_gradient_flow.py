"""Gradient flow per parameter and pass, against param.grad in a plain PyTorch run (issue 11)."""

import math
import statistics
import textwrap
from unittest import mock

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.analysis.gradient_flow import EXPLODING_RATIO, VANISHING_RATIO, flow_warnings, gradient_flow
from gradexplorer.resources import read_example


def _plain_grads_after_each_backward(code: str, model_name: str = "model"):
    """Run ``code`` with plain PyTorch; after every .backward() read each parameter's .grad."""
    namespace: dict = {}
    seen = []
    original = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        original(self, *args, **kwargs)
        model = namespace[model_name]
        seen.append({f"{model_name}.{name}": p.grad.detach().clone() for name, p in model.named_parameters()
                     if p.grad is not None})

    with mock.patch.object(torch.Tensor, "backward", backward):
        exec(compile(code, "<plain>", "exec"), namespace)
    return seen


def test_each_pass_matches_param_grad_of_a_plain_run():
    code = read_example("06_mlp_training_step")  # zero_grad before every pass: .grad is that pass's gradient
    plain = _plain_grads_after_each_backward(code)
    cap = capture(code)
    flows = {flow.name: flow for flow in gradient_flow(cap.graph, len(cap.passes))}
    assert len(plain) == len(cap.passes) == 3
    assert set(flows) == set(plain[0])
    for index, grads in enumerate(plain):
        for name, grad in grads.items():
            got = flows[name].passes[index]
            assert got.norm == pytest.approx(grad.norm().item(), rel=1e-5)
            assert got.mean_abs == pytest.approx(grad.abs().mean().item(), rel=1e-5)
            assert got.max_abs == pytest.approx(grad.abs().max().item(), rel=1e-5)
    assert [flow.name for flow in gradient_flow(cap.graph, 3)] == \
        ["model.0.bias", "model.0.weight", "model.2.bias", "model.2.weight"]  # model order, input side first


VANISHING = textwrap.dedent("""
    import torch
    from torch import nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 1))
    x = torch.randn(8, 4)
    h = model[0](x) * 1e-7  # everything below this gets almost no gradient
    loss = model[3](model[2](model[1](h))).pow(2).mean()
    loss.backward()
""")


def test_vanishing_parameters_are_named_by_the_documented_rule():
    (plain,) = _plain_grads_after_each_backward(VANISHING)
    median = statistics.median(g.norm().item() for g in plain.values())
    expected = {name for name, g in plain.items() if g.norm().item() < VANISHING_RATIO * median}
    assert {"model.0.weight", "model.0.bias"} <= expected  # what the program did, under the rule
    cap = capture(VANISHING)
    warnings = flow_warnings(gradient_flow(cap.graph, len(cap.passes)))
    assert {w.flow.name for w in warnings if w.kind == "vanishing"} == expected
    assert not [w for w in warnings if w.kind == "exploding"]
    assert "model.0.weight in pass 1" in next(w.text for w in warnings if w.flow.name == "model.0.weight")


def test_nan_gradients_are_exploding():
    cap = capture(textwrap.dedent("""
        model = nn.Linear(2, 1)
        out = model(torch.tensor([[1.0, -1.0]]))
        (out * torch.tensor(float('nan'))).sum().backward()
    """))
    warnings = flow_warnings(gradient_flow(cap.graph, len(cap.passes)))
    assert {(w.kind, w.flow.name) for w in warnings} >= {("exploding", "model.weight")}
    assert EXPLODING_RATIO > 1 > VANISHING_RATIO


def test_a_parameter_no_pass_reached_has_none():
    cap = capture(textwrap.dedent("""
        model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
        model[1](torch.ones(1, 2)).sum().backward()
    """))
    flows = {f.name: f for f in gradient_flow(cap.graph, len(cap.passes))}
    assert flows["model.0.weight"].passes == (None,)
    assert math.isfinite(flows["model.1.weight"].passes[0].norm)


#: Weights tied between two layers, a parameter used twice, a linear's TBackward0 (made inside the op, no
#: creation order of its own), a frozen layer and two passes.
_SHARED_AND_FROZEN = textwrap.dedent("""\
    torch.manual_seed(0)
    embed = nn.Linear(4, 4)
    head = nn.Linear(4, 4)
    head.weight = embed.weight
    frozen = nn.Linear(4, 4).requires_grad_(False)
    scale = nn.Parameter(torch.ones(4))
    x = torch.randn(2, 4)
    y = head(frozen(embed(x) * scale) * scale)
    y.sum().backward()
    embed(x).pow(2).sum().backward()
""")


@pytest.mark.parametrize("code", [_SHARED_AND_FROZEN, read_example("10_transformer_training")])
def test_a_parameters_first_use_is_its_earliest_consumer_as_a_topological_walk_finds_it(code):
    """The first use is looked up from the parameters' consumers only; it must be what the definition gives
    walking the whole graph in topological order (consumers first, a node without ``seq`` made with its first
    consumer)."""
    import networkx as nx

    from gradexplorer.core.analysis.gradient_flow import _first_use, _parameters

    graph = capture(code).graph
    made = {}
    for node in nx.topological_sort(graph):
        seq = graph.nodes[node].get("seq")
        made[node] = seq if seq is not None else min((made[u] for u in graph.pred[node]), default=math.inf)
    expected = {leaf: min((made[u] for u in graph.pred[leaf]), default=math.inf) for leaf, _ in _parameters(graph)}
    assert len(expected) >= 3 and any(graph.nodes[u].get("seq") is None for leaf in expected
                                      for u in graph.pred[leaf])  # a consumer made inside an op is among them
    assert _first_use(graph) == expected

"""The notes' examples and numbers (../shared/seed) are the acceptance data."""

import pytest

from .conftest import node


def test_next_functions_leaves_values_grads_and_paths(example):
    cap = example("03_next_functions")
    assert cap.ok, cap.error
    expected = {
        "a": (1.1, 1.56, "e.grad_fn.next_functions[0][0].next_functions[0][0]"),
        "b": (1.2, 1.43, "e.grad_fn.next_functions[0][0].next_functions[1][0]"),
        "c": (1.3, 1.32, "e.grad_fn.next_functions[1][0]"),
    }
    for name, (value, grad, path) in expected.items():
        attrs = node(cap, name)
        assert attrs["kind"] == "leaf"
        assert attrs["op"] == "torch::autograd::AccumulateGrad"
        assert attrs["variable"].item() == pytest.approx(value)
        assert attrs["grad"].item() == pytest.approx(grad)
        assert attrs["grads"][0].outputs[0].item() == pytest.approx(grad)
        assert attrs["path"] == path
    assert node(cap, "d")["path"] == "e.grad_fn.next_functions[0][0]"
    assert node(cap, "e")["path"] == "e.grad_fn"
    assert node(cap, "e")["kind"] == "op" and node(cap, "e")["is_root"]


def test_edges_follow_next_functions_with_slots(example):
    cap = example("03_next_functions")
    e, d = cap.node_named("e"), cap.node_named("d")
    a, b, c = (cap.node_named(n) for n in "abc")
    assert cap.graph.edges[e, d]["slot"] == 0
    assert cap.graph.edges[e, c]["slot"] == 1
    assert cap.graph.edges[d, a]["slot"] == 0
    assert cap.graph.edges[d, b]["slot"] == 1
    assert set(cap.graph.successors(a)) == set()


def test_register_hook_gradient_of_intermediate(example):
    cap = example("04_register_hook")
    assert cap.ok, cap.error
    # The user's own hook stored it ...
    assert cap.tensor("grads['d']").value.item() == pytest.approx(1.3)
    # ... and gradexplorer saw the same on d's node without any hook.
    d = node(cap, "d")
    assert d["op"] == "MulBackward0"
    assert d["grads"][0].outputs[0].item() == pytest.approx(1.3)
    # The user hook is recorded with its qualified name and its call.
    (hook,) = d["hooks"]
    assert hook.kind == "tensor"
    assert hook.qualname == "save_grad.<locals>.hook"
    assert hook.source.line == 17
    (call,) = hook.calls
    assert call.pass_index == 0
    assert call.before[0].item() == pytest.approx(1.3)
    assert not call.changed


def test_no_grad_alias_is_one_node_with_both_names(example):
    cap = example("01_no_grad_alias")
    assert cap.ok, cap.error
    assert cap.graph.number_of_nodes() == 1
    (attrs,) = (a for _, a in cap.graph.nodes(data=True))
    assert attrs["names"] == ("a", "b")
    assert attrs["grad"].item() == pytest.approx(1.0)
    assert cap.tensor("b").names == ("a", "b")
    assert "a.grad = tensor(1.)" in cap.stdout


def test_no_grad_new_tensor_has_no_grad_fn_and_error_is_kept(example):
    cap = example("02_no_grad_new_tensor")
    b = cap.tensor("b")
    assert b.names == ("b",)
    assert b.grad_fn is None and not b.requires_grad and b.node is None
    assert b.origin.source.line == 3
    assert b.origin.source.text == "b = a + 0"
    assert b.origin.grad_enabled is False
    # The backward error is captured with its line ...
    assert cap.error.kind == "exception"
    assert cap.error.exc_type == "RuntimeError"
    assert cap.error.line == 4
    assert "does not require grad" in cap.error.message
    assert 'line 4, in <module>' in cap.error.traceback
    # ... and the rest of the capture is kept.
    assert node(cap, "a")["kind"] == "leaf"
    assert cap.passes[0].error.startswith("RuntimeError")

"""The reader's shortcuts for the common case check what its general path checks.

Opening a session (and the isolated engine's hand-over) checks every item of
untrusted JSON. Three kinds of item are read without a call per field: a
list of record numbers, a saved value without a tensor (after a backward
pass most nodes hold the same few "freed" ones) and an edge. Each test
changes one item of a saved file so that only the general path would refuse
it, or so that a shortcut taken wrongly would read the wrong thing, and
expects the same clear refusal or the right value.
"""

from __future__ import annotations

import textwrap
import zipfile

import orjson
import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.io.session import load_session, save_session, session_from_capture
from gradexplorer.core.records.errors import DocumentError

PROGRAM = textwrap.dedent("""\
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * 2).tanh()
    z = (y * x).exp()
    z.sum().backward()
""")


def _plain_x_grad() -> torch.Tensor:
    """The same program run by plain PyTorch."""
    namespace = {"torch": torch}
    exec(PROGRAM, namespace)  # noqa: S102 - our own test program
    return namespace["x"].grad


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    cap = capture(PROGRAM)
    assert cap.ok, cap.error
    path = tmp_path_factory.mktemp("shortcuts") / "s.gxsession"
    save_session(session_from_capture(cap), path)
    return path


def _rewritten(path, tmp_path, member: str, change) -> str:
    """A copy of the session at ``path`` whose JSON-lines ``member`` went through ``change(items)``."""
    members = {}
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            members[name] = zf.read(name)
    items = [orjson.loads(line) for line in members[member].splitlines() if line.strip()]
    change(items)
    members[member] = b"\n".join(orjson.dumps(item) for item in items) + b"\n"
    out = tmp_path / "changed.gxsession"
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return str(out)


def _nodes_with_freed(items: list) -> list[dict]:
    return [n for n in items if any(s["state"] == "freed" for s in n["saved"])]


def _refused(path, fragment: str) -> str:
    with pytest.raises(DocumentError) as info:
        load_session(path)
    message = str(info.value)
    assert fragment in message, message
    assert "\n" not in message
    return message


def test_freed_saved_values_read_back_shared_and_as_written(saved):
    cap = capture(PROGRAM)
    reopened = load_session(saved).capture
    freed = [s for _, attrs in reopened.graph.nodes(data=True) for s in attrs["saved"] if s.state == "freed"]
    assert len(freed) >= 4
    by_key = {}
    for value in freed:
        assert by_key.setdefault((value.name, value.text), value) is value  # one object per distinct value
    original = sorted((s.name, s.state, s.text) for _, a in cap.graph.nodes(data=True) for s in a["saved"])
    assert sorted((s.name, s.state, s.text) for _, a in reopened.graph.nodes(data=True) for s in a["saved"]) \
        == original
    grad = reopened.graph.nodes[reopened.node_named("x")]["grad"].data
    assert torch.allclose(grad, _plain_x_grad())


def test_a_bad_state_is_refused_after_the_same_saved_value_was_read_well(saved, tmp_path):
    def change(items):
        first, second = _nodes_with_freed(items)[:2]
        good = next(s for s in first["saved"] if s["state"] == "freed")
        second["saved"] = [dict(good), {**good, "state": "gone"}]

    _refused(_rewritten(saved, tmp_path, "nodes.jsonl", change), "tensor, value, freed or error")


def test_a_saved_value_with_a_tensor_is_not_taken_for_one_without(saved, tmp_path):
    """Same name, state and text as a saved value read before, but with a tensor: the tensor is read."""
    chosen = {}

    def change(items):
        first, second = _nodes_with_freed(items)[:2]
        same = {"name": "_saved_self", "state": "tensor", "tensor": None, "text": "shown"}
        first["saved"] = [same]
        number = next(n["value"] for n in items if n["value"] is not None)
        second["saved"] = [{**same, "tensor": number}]
        chosen.update(node=second["id"], record=number)

    reopened = load_session(_rewritten(saved, tmp_path, "nodes.jsonl", change)).capture
    (value,) = reopened.graph.nodes[chosen["node"]]["saved"]
    assert value.tensor is not None
    owner = next(a for _, a in reopened.graph.nodes(data=True) if a["value"] is value.tensor)
    assert owner["value"].shape == value.tensor.shape


def test_a_record_number_past_the_list_is_refused_clearly(saved, tmp_path):
    def change(items):
        node = next(n for n in items if n["grads"])
        flow = next(iter(node["grads"].values()))
        flow["outputs"] = [10**6]

    _refused(_rewritten(saved, tmp_path, "nodes.jsonl", change), "the number of one in capture.records")


@pytest.mark.parametrize("field,value,fragment", [
    ("seq", True, "should be an integer"),
    ("is_root", 1, "should be true or false"),
    ("requires_grad", None, "should be true or false"),
    ("module", 3, "should be text"),
    ("path", ["a"], "should be text"),
    ("op", None, "should be text"),
    ("kind", "tensor", "should be leaf, op or custom"),
    ("kind", ["op"], "should be text"),
    ("grad_enabled", "yes", "should be true or false"),
    ("inference_mode", 0, "should be true or false"),
    ("on_path", [0, True], "should be an integer"),
    ("source", {"line": "3", "text": "x = 1"}, "should be an integer"),
    ("source", {"line": 3, "text": 4}, "should be text"),
    ("grad_order", {"0": True}, "should be an integer"),
    ("grad_order", {"first": 1}, "keyed by pass numbers"),
])
def test_a_node_field_of_the_wrong_type_is_refused_clearly(saved, tmp_path, field, value, fragment):
    def change(items):
        items[0][field] = value

    message = _refused(_rewritten(saved, tmp_path, "nodes.jsonl", change), fragment)
    assert "capture.nodes[0]" in message


def test_plain_node_fields_read_back_as_written(saved):
    cap = capture(PROGRAM)
    reopened = load_session(saved).capture
    keys = ("op", "kind", "is_root", "requires_grad", "module", "seq", "grad_enabled", "inference_mode", "on_path",
            "source", "grad_order", "names")
    assert [tuple(a[k] for k in keys) for _, a in reopened.graph.nodes(data=True)] \
        == [tuple(a[k] for k in keys) for _, a in cap.graph.nodes(data=True)]
    assert any(a["source"] is not None for _, a in reopened.graph.nodes(data=True))
    assert any(a["grad_order"] for _, a in reopened.graph.nodes(data=True))


@pytest.mark.parametrize("field,value,fragment", [
    ("target", "no-such-node", "joins a node that does not exist"),
    ("slot", True, "should be an integer"),
    ("slots", [0, "1"], "should be an integer"),
    ("input_nr", 1.5, "should be an integer"),
])
def test_a_bad_edge_is_refused_clearly(saved, tmp_path, field, value, fragment):
    def change(items):
        items[0][field] = value

    _refused(_rewritten(saved, tmp_path, "edges.jsonl", change), fragment)


def test_edges_read_back_as_written(saved):
    cap = capture(PROGRAM)
    reopened = load_session(saved).capture
    assert sorted(reopened.graph.edges(data=True)) == sorted(cap.graph.edges(data=True))
    assert all(type(d["slots"]) is tuple for _, _, d in reopened.graph.edges(data=True))

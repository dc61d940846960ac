"""The verifier finds disagreements between independently recorded facts (issue 9)."""

import dataclasses

import torch

from gradexplorer import capture
from gradexplorer.cli import main
from gradexplorer.core.analysis.verify import verify_capture, verify_node
from gradexplorer.core.records.nodes import GradFlow
from gradexplorer.core.records.tensors import summarize_tensor

from ..programs import EDITED_LOOP

TWO_PASSES = """\
w = torch.tensor([1.0, 2.0], requires_grad=True)
h = w * 3
(h * h).sum().backward()
(w * 5).sum().backward()
"""


def _statuses(checks):
    return {(c.check, c.pass_index): c.status for c in checks}


def test_a_plain_capture_verifies():
    cap = capture(TWO_PASSES)
    checks = _statuses(verify_node(cap, cap.node_named("w")))
    assert checks == {("leaf_pass", 0): "verified", ("leaf_pass", 1): "verified", ("leaf_total", None): "verified"}
    assert _statuses(verify_node(cap, cap.node_named("h"))) == {("flow", 0): "verified"}


def test_a_wrong_delivery_is_reported_wrong():
    cap = capture(TWO_PASSES)
    attrs = cap.graph.nodes[cap.node_named("w")]
    step = attrs["accumulation"][1]
    attrs["accumulation"][1] = dataclasses.replace(step, delivered=summarize_tensor(torch.tensor([9.0, 9.0])))
    checks = _statuses(verify_node(cap, cap.node_named("w")))
    assert checks[("leaf_pass", 1)] == "wrong"
    assert checks[("leaf_pass", 0)] == "verified"


def test_a_wrong_intermediate_gradient_is_reported_wrong():
    cap = capture(TWO_PASSES)
    h = cap.graph.nodes[cap.node_named("h")]
    flow = h["grads"][0]
    h["grads"][0] = GradFlow((summarize_tensor(torch.tensor([0.0, 0.0])),), flow.inputs)
    assert _statuses(verify_node(cap, cap.node_named("h")))[("flow", 0)] == "wrong"
    wrong = [c for c in verify_capture(cap) if c.status == "wrong"]
    assert [c.node for c in wrong] == [cap.node_named("h")]


def test_cli_prints_the_per_pass_table_raised_pass_and_verification(tmp_path, capsys):
    script = tmp_path / "loop.py"
    script.write_text(EDITED_LOOP)
    assert main(["capture", str(script)]) == 1
    out = capsys.readouterr().out
    assert "#3 backward at line 8 from n4 -> raised at line 8: RuntimeError" in out
    table = out[out.index("Leaf gradients per pass:"):out.index("Verification:")]
    assert "w     1     [1, 1]            [6, 8]     [7, 9]          .grad already set; added to .grad" in table
    assert "edited before; added to .grad" in table
    assert "0 wrong" in out
    assert "[grad_edited]" in out and "The backward pass at line 8 raised before reaching it" in out

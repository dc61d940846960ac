"""Forward values before an ``inplace=True`` op are the values at op time (issue 28).

``F.relu(t, inplace=True)`` and the other functionals with ``inplace`` reach
the recorder as the functional (it never sees the ``relu_`` inside), and
``nn.init.*_`` pass their tensor by keyword: both once slipped past the
copy-on-write protection, so TanhBackward0 showed the values after the ReLU.
The truth is a plain PyTorch run that copies the tensor at op time.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from gradexplorer import capture

START = [-1.5, -0.2, 0.7, 2.0]

#: ``(the call as written in the program, the same call for the plain run)``: each changes ``t`` in place.
CALLS = {
    "relu": "F.relu(t, inplace=True)",
    "leaky_relu": "F.leaky_relu(t, 0.1, inplace=True)",
    "hardtanh": "F.hardtanh(t, -0.5, 0.5, inplace=True)",
    "relu6": "F.relu6(t, inplace=True)",
    "threshold": "F.threshold(t, 0.5, -3.0, inplace=True)",
    "elu": "F.elu(t, inplace=True)",
    "selu": "F.selu(t, inplace=True)",
    "celu": "F.celu(t, inplace=True)",
    "silu": "F.silu(t, inplace=True)",
    "hardswish": "F.hardswish(t, inplace=True)",
    "mish": "F.mish(t, inplace=True)",
    "dropout": "F.dropout(t, p=0.5, training=True, inplace=True)",
    "alpha_dropout": "F.alpha_dropout(t, p=0.5, training=True, inplace=True)",
    "nn.ReLU": "nn.ReLU(inplace=True)(t)",
    "nn.LeakyReLU": "nn.LeakyReLU(0.2, inplace=True)(t)",
    "nn.Dropout": "nn.Dropout(0.5, inplace=True)(t)",
    "nn.init.zeros_": "nn.init.zeros_(t)",
    "nn.init.constant_": "nn.init.constant_(t, 3.0)",
    "nn.init.normal_": "nn.init.normal_(t)",
    "nn.init.uniform_": "nn.init.uniform_(tensor=t)",
}


def _program(call: str) -> str:
    return (f"import torch.nn.functional as F\nfrom torch import nn\ntorch.manual_seed(0)\n"
            f"x = torch.tensor({START}, requires_grad=True)\nt = torch.tanh(x * 1)\nafter = {call}\n")


def _plain(call: str) -> tuple[list[float], list[float]]:
    """The tanh output at op time and after the call, from plain PyTorch."""
    torch.manual_seed(0)
    x = torch.tensor(START, requires_grad=True)
    t = torch.tanh(x * 1)
    at_op_time = t.detach().clone()
    eval(call, {"F": F, "nn": nn, "t": t})
    return at_op_time.tolist(), t.detach().tolist()


@pytest.mark.parametrize("name", list(CALLS))
def test_the_value_before_an_in_place_call_is_the_value_at_op_time(name):
    call = CALLS[name]
    truth, after = _plain(call)
    assert truth != after  # the call really changed t in place
    cap = capture(_program(call))
    assert cap.ok, cap.error
    tanh = [a for _, a in cap.graph.nodes(data=True) if a["op"] == "TanhBackward0"]
    assert len(tanh) == 1
    assert tanh[0]["value"].values() == pytest.approx(truth), name

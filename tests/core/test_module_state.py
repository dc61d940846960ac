"""``own_tensors`` reads a module's own state exactly as ``named_parameters``/``named_buffers``/``vars`` do."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrize

from gradexplorer.core.analysis.modules import own_tensors


class _Twice(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.ones(2))
        self.b = self.a  # the same parameter under a second name: PyTorch lists it once
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("empty", None)
        self.scale = torch.tensor(3.0)  # a plain tensor attribute
        self._hidden = torch.tensor(4.0)  # private: not shown


class _Overrides(nn.Linear):
    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from ((name, p) for name, p in super().named_parameters(prefix, recurse, remove_duplicate)
                    if name != "bias")


class _Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


def _parametrized():
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", _Symmetric())
    return layer


MODULES = {
    "linear": lambda: nn.Linear(2, 3),
    "batch norm": lambda: nn.BatchNorm1d(4),
    "a parameter under two names": _Twice,
    "overridden named_parameters": lambda: _Overrides(2, 2),
    "parametrized": _parametrized,
    "container": lambda: nn.Sequential(nn.Linear(2, 2)),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_own_tensors_match_pytorchs_own_listing(name):
    module = MODULES[name]()
    parameters, buffers, plain = own_tensors(module)
    expected_plain = [(attr, value) for attr, value in vars(module).items()
                      if isinstance(value, torch.Tensor) and not attr.startswith("_")]

    def ids(pairs):
        return [(n, id(t)) for n, t in pairs]

    assert ids(parameters) == ids(module.named_parameters(recurse=False))
    assert ids(buffers) == ids((n, b) for n, b in module.named_buffers(recurse=False) if b is not None)
    assert ids(plain) == ids(expected_plain)
    if name == "a parameter under two names":
        assert [n for n, _ in parameters] == ["a"] and [n for n, _ in buffers] == ["running"]
        assert [n for n, _ in plain] == ["scale"]
    if name == "overridden named_parameters":
        assert [n for n, _ in parameters] == ["weight"]

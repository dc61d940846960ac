"""Statistics of values at the edge of the float range (issue 28).

A float32 tensor holding ``torch.finfo(torch.float32).min`` (every Hugging
Face attention mask) once got ``std = inf`` with a numpy overflow warning on
stderr, though it holds no Inf; a session of float64 values near 1e160 raised
OverflowError (``stats.std ** 2``) when it was opened. The truth is PyTorch's
own float64 reductions of the same values (divided by their scale where
PyTorch's own squares would overflow).
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch

from gradexplorer import capture, load_session

from .conftest import capture_file_with_cli

MASK_PROGRAM = """\
mask = torch.zeros(2, {width})
mask[:, {keep}:] = torch.finfo(torch.float32).min
scores = torch.randn(2, {width}, requires_grad=True)
probs = torch.softmax(scores + mask, dim=-1)
probs[:, 0].sum().backward()
"""


def _truth(t: torch.Tensor) -> tuple[float, float]:
    """Mean and std from plain PyTorch in float64, scaled so that its squares cannot overflow."""
    values = t.detach().double().reshape(-1)
    scale = values.abs().max().clamp(min=1.0)
    unit = values / scale
    return (unit.mean() * scale).item(), (unit.std() * scale).item()


@pytest.mark.parametrize("width,keep", [(8, 5), (4096, 3000)])  # the Python path and the numpy path
def test_an_attention_mask_has_a_finite_std_and_no_warning(width, keep):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "overflow encountered" fails the test
        cap = capture(MASK_PROGRAM.format(width=width, keep=keep))
        assert cap.ok, cap.error
        mask = next(info for info in cap.tensors if "mask" in info.names)
        stats = mask.value.stats
        norm = mask.value.norm_and_nonfinite()[0]
    plain = torch.zeros(2, width)
    plain[:, keep:] = torch.finfo(torch.float32).min
    mean, std = _truth(plain)
    assert stats.inf_count == 0 and stats.nan_count == 0
    assert math.isfinite(stats.std)
    assert stats.std == pytest.approx(std, rel=1e-9) and stats.mean == pytest.approx(mean, rel=1e-9)
    assert stats.min == torch.finfo(torch.float32).min and stats.max == 0.0
    assert norm == pytest.approx(plain.double().norm().item(), rel=1e-9)


def test_a_session_of_huge_float64_values_opens_and_tells_their_statistics(tmp_path):
    """``capture -o`` of 20,000 values near 1e160 exits 0; opening it once raised OverflowError."""
    session = tmp_path / "huge.gxs"
    capture_file_with_cli(tmp_path, "huge.py", "big = torch.full((20000,), 1e160, dtype=torch.float64)\n"
                          "big[::2] = -3e159\nw = torch.ones(3, requires_grad=True)\n(w * 2).sum().backward()\n",
                          "-o", session)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cap = load_session(session).capture
        big = next(info for info in cap.tensors if "big" in info.names)
        stats, norm = big.value.stats, big.value.norm_and_nonfinite()[0]
    plain = torch.full((20000,), 1e160, dtype=torch.float64)
    plain[::2] = -3e159
    mean, std = _truth(plain)
    assert stats.mean == pytest.approx(mean, rel=1e-9) and stats.std == pytest.approx(std, rel=1e-9)
    assert norm == pytest.approx((plain / 1e160).norm().item() * 1e160, rel=1e-9)

"""Statistics of huge tensors a chunk at a time (issue 30's memory): PyTorch's own numbers, bounded memory."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
import torch

from gradexplorer.core.records import tensors
from gradexplorer.core.records.tensors import _streamed_stats, summarize_tensor


def _plain(t: torch.Tensor) -> dict:
    """What PyTorch says of the tensor's finite values, in float64."""
    flat = t.detach().reshape(-1)
    if flat.is_complex():
        flat = flat.abs()
    values = flat.to(torch.float64)
    finite = values[torch.isfinite(values)]
    # PyTorch's own std of values near 1e160 overflows (its squares pass 1e308): it is asked on values divided
    # by the largest magnitude, a power of two away from exact, then scaled back.
    scale = 2.0 ** math.frexp(finite.abs().max().item())[1]
    std, mean = torch.std_mean(finite / scale)
    return {"min": finite.min().item(), "max": finite.max().item(), "mean": mean.item() * scale,
            "std": std.item() * scale,
            "nan": int(torch.isnan(values).sum()), "inf": int(torch.isinf(values).sum()),
            "head": flat[:5].tolist(), "tail": flat[-5:].tolist()}


CASES = {
    "float32 ramp with NaN and Inf": lambda: torch.cat([torch.linspace(-3, 7, 100_003), torch.tensor(
        [float("nan"), float("inf"), -float("inf")])]),
    "constant (variance 0: the centred path)": lambda: torch.full((50_001,), 1.5),
    "large mean, small spread": lambda: 1e4 + torch.randn(80_000, generator=torch.Generator().manual_seed(1)),
    "non-contiguous 2-d (transposed)": lambda: torch.randn(300, 411, generator=torch.Generator().manual_seed(2)).t(),
    "3-d slice with strides": lambda: torch.arange(6 * 70 * 90, dtype=torch.float32).reshape(6, 70, 90)[:, ::3, 1:],
    "float64 near 1e160 (squares overflow)": lambda: torch.tensor([1e160, -3e160, 2e159] * 9_001, dtype=torch.float64),
    "bfloat16": lambda: torch.randn(40_000, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16),
    "int64": lambda: torch.arange(-20_000, 30_000),
    "bool": lambda: torch.arange(30_000) % 3 == 0,
    "complex64 (magnitudes)": lambda: torch.randn(20_000, dtype=torch.complex64,
                                                  generator=torch.Generator().manual_seed(4)),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("chunk", [4_093, 1 << 22])
def test_streamed_statistics_are_pytorchs(name, chunk):
    t = CASES[name]()
    stats = _streamed_stats(t, chunk)
    plain = _plain(t)
    assert (stats.nan_count, stats.inf_count) == (plain["nan"], plain["inf"])
    assert stats.min == plain["min"] and stats.max == plain["max"]
    assert math.isclose(stats.mean, plain["mean"], rel_tol=1e-9, abs_tol=1e-9 * max(1.0, abs(plain["std"])))
    assert math.isclose(stats.std, plain["std"], rel_tol=1e-7, abs_tol=1e-12)
    if not t.is_complex():
        np.testing.assert_array_equal(stats.head, plain["head"])  # NaN equals NaN here
        np.testing.assert_array_equal(stats.tail, plain["tail"])


def test_a_huge_tensor_is_summarised_through_the_stream_with_bounded_memory(monkeypatch):
    """A tensor past STREAM_ELEMENTS: no whole-tensor float64 copy (8 bytes an element) is ever made."""
    monkeypatch.setattr(tensors, "STREAM_ELEMENTS", 1 << 20)
    monkeypatch.setattr(tensors, "STREAM_CHUNK", 1 << 16)
    t = torch.full((1 << 22,), 2.0)  # 16 MiB of float32; its float64 copy would be 32 MiB
    t[7] = float("nan")
    tracemalloc.start()
    try:
        record = summarize_tensor(t, value_elements=100)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert record.stats.nan_count == 1 and record.stats.mean == 2.0 and record.stats.std == 0.0
    assert peak < 8 << 20, f"{peak / 2**20:.1f} MiB traced"  # chunks of 64 Ki elements, not 32 MiB copies


def test_the_whole_tensor_path_would_copy_it(monkeypatch):
    """The guard above can fail: below the streaming threshold numpy's float64 copy shows in the same measure."""
    t = torch.full((1 << 22,), 2.0)
    monkeypatch.setattr(tensors, "STREAM_ELEMENTS", 1 << 30)
    tracemalloc.start()
    try:
        summarize_tensor(t, value_elements=100)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak >= 8 << 20

"""Any float values survive a save and a reopen, bit for bit, in both session formats (property-based).

The expected values come from a plain ``torch.tensor`` of the same numbers,
never from our own output.
"""

import json

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradexplorer import capture
from gradexplorer.core.io.session import read_session_bytes, read_session_text, session_from_capture, session_to_bytes, \
    session_to_dict

_BITS = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16}


def _program(values: list[float], dtype: torch.dtype) -> str:
    numbers = ", ".join(f"float('{v!r}')" for v in values)  # repr round-trips every float, nan and inf included
    return (f"w = torch.tensor([{numbers}], dtype={dtype}, requires_grad=True)\n"
            "(w * 2).sum().backward()\n")


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    # NaN payloads aside (torch may canonicalise them), every value must be identical, -0.0 included.
    nan = torch.isnan(a)
    return bool(torch.equal(nan, torch.isnan(b))
                and torch.equal(a[~nan].view(_BITS[a.dtype]), b[~nan].view(_BITS[b.dtype])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.floats(width=32), min_size=1, max_size=12),
       dtype=st.sampled_from([torch.float32, torch.float64, torch.float16]))
def test_any_float_values_survive_both_session_formats(values, dtype):
    expected = torch.tensor(values, dtype=dtype)  # what PyTorch holds
    cap = capture(_program(values, dtype))
    assert cap.ok, cap.error
    session = session_from_capture(cap)
    for reopened in (read_session_bytes(session_to_bytes(session)),  # format 2: the safetensors table
                     read_session_text(json.dumps(session_to_dict(session), allow_nan=False))):  # format 1: JSON
        record = reopened.capture.tensor("w").value
        assert _same_bits(record.data, expected), (values, record.data)
        assert record.stats.nan_count == int(torch.isnan(expected).sum())
        assert record.stats.inf_count == int(torch.isinf(expected).sum())
        grad = reopened.capture.tensor("w").grad.data
        assert torch.equal(grad, torch.full_like(expected, 2.0))

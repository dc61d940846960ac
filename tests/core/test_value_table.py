"""The session's value table read a tensor at a time: the same tensors as ``safetensors`` reads, the same refusals.

``safetensors.torch.load`` holds the GIL for the whole table (114 ms at
50,000 nodes: a frozen window while a job opens a session), so the table is
read by :func:`~gradexplorer.core.io.container.read_value_table`; the
library stays the reference here.
"""

import json
import struct

import pytest
import safetensors.torch
import torch

from gradexplorer.core.io.container import _TABLE_CODES, _write_value_table, read_value_table


def _table_bytes(tensors, tmp_path) -> bytes:
    import zipfile

    path = tmp_path / "t.zip"
    with zipfile.ZipFile(path, "w") as zf:
        _write_value_table(zf, zipfile.ZipInfo("values.safetensors"), tensors)
    with zipfile.ZipFile(path) as zf:
        return zf.read("values.safetensors")


def _every_dtype() -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    tensors = {}
    for dtype in _TABLE_CODES:
        base = torch.randn(2, 3) * 50
        if dtype == torch.bool:
            value = base > 0
        elif dtype.is_floating_point or dtype.is_complex:
            value = base.to(dtype)
        else:
            value = base.abs().to(dtype)
        tensors[f"t{len(tensors)}"] = value
    tensors["empty"] = torch.empty(0, 4)
    tensors["scalar"] = torch.tensor(1.5, dtype=torch.float64)
    tensors["strided"] = torch.arange(12.0).reshape(3, 4).t()
    return tensors


def test_every_dtype_reads_back_as_safetensors_reads_it(tmp_path):
    tensors = _every_dtype()
    raw = _table_bytes(tensors, tmp_path)
    ours, theirs = read_value_table(raw), safetensors.torch.load(raw)
    assert ours.keys() == theirs.keys() == tensors.keys()
    for key, tensor in tensors.items():
        assert ours[key].dtype == theirs[key].dtype == tensor.dtype
        assert ours[key].shape == theirs[key].shape == tensor.shape
        assert torch.equal(_bits(ours[key]), _bits(theirs[key])) and torch.equal(_bits(ours[key]), _bits(tensor))


def _bits(t: torch.Tensor) -> torch.Tensor:
    """The bytes of ``t`` in row-major order (float8 and bool compare bit for bit)."""
    return t.contiguous().reshape(-1).view(torch.uint8) if t.numel() else t.reshape(-1).to(torch.uint8)


def _with_header(header: dict, data: bytes) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


@pytest.mark.parametrize("raw, why", [
    (b"", "shorter than its 8-byte header length"),
    (struct.pack("<Q", 1000) + b"{}", "runs past the end"),
    (_with_header([], b""), "not a JSON object"),
    (_with_header({"a": {"dtype": "X9", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4), "not a known dtype"),
    (_with_header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4), "4 bytes for shape [2]"),
    (_with_header({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8), "starts at 4, not 0"),
    (_with_header({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 8), "cover 4 of 8 bytes"),
    (_with_header({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4), "a shape"),
])
def test_a_damaged_table_is_refused_as_safetensors_refuses_it(raw, why):
    with pytest.raises(Exception):
        safetensors.torch.load(raw)
    with pytest.raises(ValueError, match=why.replace("[", r"\[").replace("]", r"\]")):
        read_value_table(raw)

"""Tensors of every dtype a program may hold survive a save and a reopen (or say why their values do not).

Before, a complex128 or quantized tensor made the save fail (autosave
included), and a uint16/uint32/uint64 or float8 tensor made a file that
could not be opened again: either way the whole capture was lost. Expected
values come from plain PyTorch.
"""

import json

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.io.session import read_session_bytes, read_session_text, session_from_capture, \
    session_to_bytes, session_to_dict

KEPT = {
    "complex128": "torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128)",
    "complex32": "torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex32)",
    "uint16": "torch.tensor([1, 2, 60000], dtype=torch.uint16)",
    "uint32": "torch.tensor([1, 4_000_000_000], dtype=torch.uint32)",
    "uint64": "torch.tensor([2**63 + 5], dtype=torch.uint64)",
    "float8_e4m3fn": "torch.tensor([0.5, 1.0, -2.0], dtype=torch.float8_e4m3fn)",
    "float8_e5m2": "torch.tensor([0.5, 1.0, -2.0], dtype=torch.float8_e5m2)",
}


def _both_formats(cap):
    session = session_from_capture(cap)
    return (read_session_bytes(session_to_bytes(session)).capture,  # the app's container
            read_session_text(json.dumps(session_to_dict(session), allow_nan=False)).capture)  # JSON values


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1).clone(memory_format=torch.contiguous_format).view(torch.uint8)


@pytest.mark.parametrize("dtype", sorted(KEPT))
def test_values_of_every_dtype_survive_both_formats(dtype):
    expected = eval(KEPT[dtype])  # what PyTorch holds  # noqa: S307 - our own constant
    cap = capture(f"q = {KEPT[dtype]}\n")
    assert cap.ok, cap.error
    for back in _both_formats(cap):
        record = back.tensor("q").value
        assert record.dtype == dtype and record.data is not None, record.note
        assert record.data.dtype == expected.dtype and torch.equal(_bits(record.data), _bits(expected))


def test_a_complex128_gradient_survives():
    cap = capture("z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128, requires_grad=True)\n"
                  "(z.abs() ** 2).sum().backward()\n")
    z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex128, requires_grad=True)
    (z.abs() ** 2).sum().backward()
    for back in _both_formats(cap):
        assert torch.equal(back.tensor("z").grad.data, z.grad)


def test_a_quantized_tensor_shows_its_dequantized_values_and_files_keep_its_statistics():
    code = "q = torch.quantize_per_tensor(torch.tensor([0.1, 0.5, 1.2]), 0.1, 0, torch.quint8)\n"
    plain = torch.quantize_per_tensor(torch.tensor([0.1, 0.5, 1.2]), 0.1, 0, torch.quint8).dequantize()
    record = capture(code).tensor("q").value
    assert record.dtype == "quint8" and torch.equal(record.data, plain)
    assert "dequantized" in record.note and record.short()  # reading it never raises
    for back in _both_formats(capture(code)):
        saved = back.tensor("q").value
        assert saved.data is None and "not kept in files" in saved.note
        assert (saved.stats.min, saved.stats.max) == pytest.approx((plain.min().item(), plain.max().item()))


def test_the_value_table_written_in_pieces_is_what_safetensors_reads():
    import io
    import zipfile

    import safetensors.torch

    from gradexplorer.core.io.container import _TABLE_CODES, _write_value_table

    tensors = {f"t{i}": torch.arange(6).reshape(2, 3).to(dtype) for i, dtype in enumerate(_TABLE_CODES)}
    tensors.update({"scalar": torch.tensor(2.5), "empty": torch.zeros(0, 3), "expanded": torch.tensor(2.0).expand(1),
                    "bools": torch.tensor([True, False, True]), "big": torch.randn(300_000)})  # over one write piece
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        _write_value_table(zf, zipfile.ZipInfo("values.safetensors"), tensors)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as zf:
        back = safetensors.torch.load(zf.read("values.safetensors"))
    assert back.keys() == tensors.keys()
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as zf:
        table = zf.read("values.safetensors")
    header = json.loads(table[8:8 + int.from_bytes(table[:8], "little")])
    for key, tensor in tensors.items():  # every tensor starts at a multiple of its element size
        assert header[key]["data_offsets"][0] % tensor.element_size() == 0, key
    for key, tensor in tensors.items():
        assert back[key].dtype == tensor.dtype and back[key].shape == tensor.shape, key
        assert torch.equal(_bits(back[key]), _bits(tensor.contiguous())), key

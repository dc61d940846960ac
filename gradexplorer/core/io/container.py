"""The session container: a zip of JSON-lines members and a safetensors value table.

Writing and reading go a piece (about a megabyte) at a time, never one long
C call holding the GIL, so a job saving or opening a 50,000-node capture
leaves the GUI thread free. What the members mean is in
:mod:`~gradexplorer.core.io.session`; this module only packs and unpacks them.
"""

from __future__ import annotations

import json
import math
import struct
import sys
import zipfile

import orjson
import safetensors.torch
import torch

from ..records.errors import DocumentError
from .validate import _R, _each

__all__ = ["MAX_FILE_BYTES", "read_value_table"]

_DOCUMENT, _VALUES = "session.json", "values.safetensors"
#: The capture's long lists, each stored as JSON lines in a member of its own
#: (``capture.members`` maps each to its member name): neither writing nor
#: reading then holds the GIL for one long C call of ``json``.
_LINE_KEYS = ("records", "nodes", "edges", "tensors", "explanations", "modules")
#: Files larger than this are refused before being read.
MAX_FILE_BYTES = 512 * 1024 * 1024


def _line_member(key: str) -> str:
    return f"{key}.jsonl"


def _flat_modules(audits: list[dict]) -> list[dict]:
    """Module audits one per line: each without ``children``, with ``parent`` (its parent's line, or -1).

    Parents come before their children. One nested line per top-level model
    was 8 MB at 50,000 nodes: 0.12 s in one ``json.dumps`` call.
    """
    lines: list[dict] = []
    stack = [(audit, -1) for audit in reversed(audits)]
    while stack:
        audit, parent = stack.pop()
        here = len(lines)
        lines.append({**{k: v for k, v in audit.items() if k != "children"}, "parent": parent})
        stack.extend((child, here) for child in reversed(audit.get("children", [])))
    return lines


def _nested_modules(lines: list, name: str) -> list[dict]:
    """The inverse of :func:`_flat_modules`, checking that every parent comes first."""
    top: list[dict] = []
    for i, item in enumerate(lines):
        item = _R.obj(item, f"{name} line {i + 1}")
        parent = item.pop("parent", None)
        if type(parent) is not int or not -1 <= parent < i:
            raise DocumentError(f"not a valid session: line {i + 1} of {name} names no earlier parent")
        item["children"] = []
        (top if parent == -1 else lines[parent]["children"]).append(item)
    return top


def _dumps_line(item, *, spelled: bool = False) -> bytes:
    """One JSON line: orjson (a sixth of json's time), refusing NaN/Inf as ``json.dumps(allow_nan=False)`` does.

    orjson writes a non-finite float as ``null`` without a word, so an item
    is searched for one first (it must fail loudly rather than save
    something that reads back differently). ``spelled=True`` skips that
    search for items made by :func:`~gradexplorer.core.io.capture_json.to_jsonable`,
    which writes every float through its non-finite spelling (``"nan"``):
    the search was a fifth of the time to save a 10,000-node capture.
    """
    try:
        line = orjson.dumps(item, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError as exc:  # e.g. an integer beyond 64 bits, which the readers refuse too
        raise ValueError(f"cannot be saved as JSON: {exc}") from None
    if not spelled and b"null" in line and _has_nonfinite(item):
        raise ValueError("Out of range float values are not JSON compliant")
    return line


def _has_nonfinite(value) -> bool:
    stack = [value]
    while stack:
        value = stack.pop()
        if type(value) is float and not math.isfinite(value):
            return True
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return False


#: Encoded lines are handed to the zip member in pieces of about this many bytes.
_CHUNK_BYTES = 1 << 20


def _write_lines(zf: zipfile.ZipFile, info: zipfile.ZipInfo, items: list) -> None:
    """Write one JSON text per line into a new member, a piece at a time, emptying ``items`` as it goes.

    The items come from :func:`~gradexplorer.core.io.capture_json.capture_to_dict`
    (numbers spelled by ``to_jsonable``: see :func:`_dumps_line`), or are
    lines already (``bytes``: :func:`~gradexplorer.core.io.capture_json.encode_line`).

    Never one big buffer: joining the 140 MB of a 50,000-node graph's lines
    took 0.45 s in one C call that holds the GIL, a frozen window while a
    job saved.
    """
    with zf.open(info, "w") as dest:
        chunk: list[bytes] = []
        size = 0
        for _, item in _each(items, consume=True):
            line = item if type(item) is bytes else _dumps_line(item, spelled=True)
            chunk.append(line)
            size += len(line) + 1
            if size >= _CHUNK_BYTES:
                dest.write(b"\n".join(chunk) + b"\n")
                chunk, size = [], 0
        if chunk:
            dest.write(b"\n".join(chunk) + b"\n")


def _deflated(name: str, compress: bool = True) -> zipfile.ZipInfo:
    """A member with a fixed time stamp (same content, same bytes), deflated at level 1 (fast), or stored."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    # ZipFile.open(info, "w") takes the level from the ZipInfo: public from Python 3.13 on.
    if hasattr(info, "compress_level"):
        info.compress_level = 1
    else:
        info._compresslevel = 1
    return info


#: safetensors' name of each dtype the value table holds (``capture_json.VALUE_DTYPES``, complex pairs aside).
_TABLE_CODES = {
    getattr(torch, name): code for name, code in (
        ("float16", "F16"), ("bfloat16", "BF16"), ("float32", "F32"), ("float64", "F64"), ("complex64", "C64"),
        ("bool", "BOOL"), ("uint8", "U8"), ("uint16", "U16"), ("uint32", "U32"), ("uint64", "U64"), ("int8", "I8"),
        ("int16", "I16"), ("int32", "I32"), ("int64", "I64"), ("float8_e4m3fn", "F8_E4M3"), ("float8_e5m2", "F8_E5M2"))
    if isinstance(getattr(torch, name, None), torch.dtype)
}


def _write_value_table(zf: zipfile.ZipFile, info: zipfile.ZipInfo, tensors: dict[str, torch.Tensor]) -> None:
    """The value table in the ``safetensors`` layout, written a piece at a time (read back by ``safetensors``).

    ``safetensors.torch.save`` makes the whole table in calls that hold the
    GIL: on a 50,000-node capture's 20 MB table a 1 ms heartbeat thread
    waited 175, 95 and 11 ms in three saves (GC off, as in a save); written
    here a piece at a time, 7-10 ms, and the save takes 0.06 s.
    The layout is simple (an 8-byte little-endian header length, a JSON header
    naming each tensor's dtype, shape and byte range, padded with spaces, then
    the bytes in that order); :func:`read_value_table` reads it back the same
    way, with the library's checks, and the library reads it too (the tests
    check both). A big-endian machine takes the library's way.
    """
    if sys.byteorder != "little":  # the library byte-swaps; it refuses tensors that share memory
        _write_pieces(zf, info, safetensors.torch.save({k: t.contiguous().clone() for k, t in tensors.items()}))
        return
    header: dict[str, dict] = {}
    parts = []
    offset = 0
    # Widest elements first, as the library orders them: each tensor then starts at a multiple of its
    # element size (the header is padded to 8), so readers can use the bytes in place.
    for key, tensor in sorted(tensors.items(), key=lambda item: -item[1].element_size()):
        flat = tensor.detach().contiguous().reshape(-1)
        if flat.numel() and flat.stride(0) != 1:  # one element with stride 0 (an expanded scalar) counts as contiguous
            flat = flat.clone(memory_format=torch.contiguous_format)
        raw = flat.view(torch.uint8) if flat.numel() else torch.empty(0, dtype=torch.uint8)
        header[key] = {"dtype": _TABLE_CODES[tensor.dtype], "shape": list(tensor.shape),
                       "data_offsets": [offset, offset + raw.numel()]}
        offset += raw.numel()
        parts.append(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data begins 8-byte aligned, as the library writes it
    with zf.open(info, "w") as dest:
        dest.write(struct.pack("<Q", len(text)) + text)
        for raw in parts:
            view = memoryview(raw.numpy())
            for start in range(0, len(view), _CHUNK_BYTES):
                dest.write(view[start:start + _CHUNK_BYTES])


_TABLE_DTYPES = {code: dtype for dtype, code in _TABLE_CODES.items()}


def read_value_table(raw: bytes) -> dict[str, torch.Tensor]:
    """The tensors of a value table (the ``safetensors`` layout), made one at a time.

    ``safetensors.torch.load`` makes them all in one call that holds the GIL:
    114 ms for the 2,645 tensors of a 50,000-node session, a frozen window
    while a job opens it (Open, Compare with Session). Here each tensor is a
    view of one copy of the data (``torch.frombuffer``) made in a Python loop,
    which lets the GUI thread run between them. The checks are the library's:
    a header that fits, known dtypes, shapes whose sizes match their byte
    ranges, and ranges that tile the data exactly. A big-endian machine takes
    the library's way.

    Raises
    ------
    ValueError
        The table is damaged (the caller says so in a :class:`DocumentError`).
    """
    if sys.byteorder != "little":
        return safetensors.torch.load(raw)
    if len(raw) < 8:
        raise ValueError("shorter than its 8-byte header length")
    (length,) = struct.unpack_from("<Q", raw)
    if length > len(raw) - 8:
        raise ValueError(f"its header length ({length}) runs past the end")
    header = json.loads(bytes(memoryview(raw)[8:8 + length]))
    if not isinstance(header, dict):
        raise ValueError("its header is not a JSON object")
    header.pop("__metadata__", None)
    data = bytearray(memoryview(raw)[8 + length:])  # writable, so the tensors may view it; one copy
    spans, table = [], {}
    for key, entry in header.items():
        dtype = _TABLE_DTYPES.get(entry.get("dtype")) if isinstance(entry, dict) else None
        shape, span = (entry.get("shape"), entry.get("data_offsets")) if dtype is not None else (None, None)
        if dtype is None or not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape) or \
                not isinstance(span, list) or len(span) != 2 or not all(type(n) is int for n in span):
            raise ValueError(f"its entry {key!r} is not a known dtype, a shape and a byte range")
        count = math.prod(shape)
        start, end = span
        if end - start != count * dtype.itemsize:
            raise ValueError(f"{key!r} has {end - start} bytes for shape {shape}")
        spans.append((start, end, key))
        table[key] = (torch.frombuffer(data, dtype=dtype, count=count, offset=start).reshape(shape) if count
                      else torch.empty(shape, dtype=dtype))
    position = 0
    for start, end, key in sorted(spans):
        if start != position:
            raise ValueError(f"the byte range of {key!r} starts at {start}, not {position}")
        position = end
    if position != len(data):
        raise ValueError(f"its byte ranges cover {position} of {len(data)} bytes")
    return table


def _write_pieces(zf: zipfile.ZipFile, info: zipfile.ZipInfo, data: bytes) -> None:
    """One member from ``data``, handed to the zip a piece (:data:`_CHUNK_BYTES`) at a time."""
    view = memoryview(data)
    with zf.open(info, "w") as dest:
        for start in range(0, len(view), _CHUNK_BYTES):
            dest.write(view[start:start + _CHUNK_BYTES])


def _read_lines(zf: zipfile.ZipFile, key: str, name: str) -> list:
    """The JSON texts of a lines member, inflated a few MB at a time and decoded line by line.

    Never the whole member in one buffer (140 MB at 50,000 nodes: splitting or
    freeing it is one long C call that holds the GIL).
    """
    member = _line_member(key)
    items = []
    number = 0
    rest = b""
    with zf.open(member) as source:
        # Pieces of a few MB, not line by line: each read inflates with the GIL
        # released and takes it back at once, and a thread that does that
        # thousands of times starves the GUI thread of the GIL (the "convoy
        # effect": stalls of 0.15 s while a 50,000-node session opened).
        while True:
            piece = source.read(_CHUNK_BYTES * 4)
            lines = (rest + piece).split(b"\n")
            rest = lines.pop() if piece else b""
            for line in lines:
                number += 1
                if not line.strip():
                    continue
                try:
                    # orjson: a third of json's time. It refuses what json
                    # would have let through to the checks anyway (NaN
                    # literals, integers beyond 64 bits, lone surrogates).
                    items.append(orjson.loads(line))
                except (json.JSONDecodeError, RecursionError, ValueError) as exc:
                    raise DocumentError(f"{name}: line {number} of {member} is not valid JSON ({exc})") from None
            if not piece:
                return items

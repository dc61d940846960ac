"""The session document (``.gxsession``): save a capture, reopen it without running anything.

A session file (format 3) is a zip container with these members:

``session.json``        the document below, deflated;
``records.jsonl``       every tensor record once, one per line; where a
                        record appears in the capture (a node's value, a
                        gradient, a tensor's ``.grad``) it is its number in
                        this list, so a record two places share (a node's
                        input gradient is often its child's output gradient)
                        is written, and read back, as one object. Records
                        carry ``"data": "t12"`` (a key into the table) instead
                        of inline ``values``; format 2 wrote each record where
                        it appears (still read). The isolated engine's
                        hand-over may give a record without values a
                        ``"norm"`` instead of statistics, which follow the
                        file (:func:`add_late_stats`);
``nodes.jsonl`` ...     the capture's long lists (``nodes``, ``edges``,
                        ``tensors``, ``explanations``, ``modules``), one JSON
                        item per line, deflated; in the document those lists
                        are empty and ``capture.members`` names their members
                        (files of the first format-2 release have
                        ``capture.nodes_member`` and ``nodes.jsonl`` only);
``values.safetensors``  every kept tensor value, in the ``safetensors``
                        format (a bounded JSON header and raw little-endian
                        bytes: no code runs when it is read), stored.

The isolated engine's hand-over sends the same container in parts, so that
the app checks the graph while the child still writes it: each *part*
(:func:`write_capture_part`, read by :func:`read_capture_part`) is a zip
with ``records.jsonl``, ``nodes.jsonl`` and ``values.safetensors`` only,
holding the next graph nodes with the records and values they brought first
(numbers and table keys go on from part to part); the container that
follows holds everything else, its ``nodes.jsonl`` empty and its
``records.jsonl`` starting at the next number. The same checks read both.

A 10,000-node transformer capture takes several times less space this way
than as nested JSON number lists, and is written and read in C instead of by
``json`` walking millions of floats (``benchmarks/bench_responsiveness.py``
prints both). Format 1 files (plain UTF-8 JSON, values inline) and
``capture --json`` documents still open. The document is::

    {"format": "gradexplorer.session", "schema_version": 3,
     "app_version": "0.1.0", "versions": {...}, "saved_at": "2026-12-02T14:00:00Z",
     "code": "...", "device": "cpu", "filename": "<editor>",
     "view": {"selected_node": "n2", "zoom": 1.0},
     "run": {"args": ["--lr", "0.1"], "cwd": null},
     "limits": {"value_elements": 10000, "file_values": 5000000, "summarised_records": 0},
     "capture": {...the capture document of docs/capture-json.md...}}

``run`` is how the app's next Run starts the program (Run > Arguments…,
Run > Working Folder…; ``cwd`` null: the script's own folder); ``filename``
is the script's path when the code came from a file. Files without ``run``
(earlier versions) take the arguments and folder the capture ran with.

Safety
------
Opening a file never runs its code and never unpickles anything: no
``pickle``, ``torch.load``, ``eval`` or ``exec``. Tensor values are read by
``safetensors`` (or, in format 1, rebuilt from JSON numbers with
``torch.tensor``), and every one is checked against the shape and dtype its
record declares. Zip members are size-checked before they are inflated. The file size is checked before reading
(:data:`MAX_FILE_BYTES`); JSON nested too deeply for the parser is refused.
Every problem raises :class:`~gradexplorer.core.records.errors.DocumentError` with one
clear sentence naming where in the file it is.

Versions
--------
``schema_version`` is the major version: a file from a newer major version is
refused with "made by gradexplorer X or newer". Older documents are upgraded
by :data:`MIGRATIONS`; a bare capture document (``gradexplorer capture
--json``) opens as a session too.

Size caps
---------
Each tensor keeps its values up to the capture's value cap (10,000 elements).
A whole file keeps at most :data:`DEFAULT_FILE_VALUES` numbers, spent in
document order (graph nodes first); records past that budget are saved as
summaries, and ``limits.summarised_records`` plus each record's ``note`` say so.

Saving is atomic: the whole document is serialised first, written to a
temporary file in the same folder, flushed, fsynced and renamed over the
target, so an interrupted save never leaves a half-written file.
"""

from __future__ import annotations

import base64
import collections
import contextvars
import datetime as _dt
import errno
import io
import json
import math
import os
import stat
import struct
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from glob import escape as glob_escape
from pathlib import Path
from typing import Any, BinaryIO

import networkx as nx
import orjson
import safetensors.torch
import torch

from ..._version import __version__
from ..capture.process_state import current_umask
from ..capture.run import versions
from ..collector import paused_collection
from ..graph.build import MAX_PATH_HOPS
from ..records.capture import Capture, CutRecord, OriginRecord, PassSummary, TensorInfo
from ..records.errors import DocumentError, ErrorReport
from ..records.explanations import Explanation
from ..records.figures import PNG_SIGNATURE, FigureImage
from ..records.modules import ModuleAudit, ModuleWarning, StateEntry
from ..records.nodes import CaptureGraph, GradFlow, HookCallRecord, HookRecord, LeafPass, SavedValue
from ..records.source import SourceLine
from ..records.tensors import TensorRecord, TensorStats
from .capture_json import FORMAT as CAPTURE_FORMAT
from .capture_json import PAIRED_DTYPES, VALUE_DTYPES, TensorSink, capture_to_dict
from .capture_json import SCHEMA_VERSION as CAPTURE_SCHEMA

__all__ = [
    "DEFAULT_FILE_VALUES",
    "FORMAT",
    "MAX_FILE_BYTES",
    "MAX_NAME_CHARS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "SaveCancelled",
    "Session",
    "ViewState",
    "add_late_stats",
    "capture_from_dict",
    "load_session",
    "not_a_regular_file",
    "SESSION_SUFFIX",
    "PartialCapture",
    "read_capture_part",
    "read_session_bytes",
    "read_session_text",
    "save_session",
    "session_from_capture",
    "session_to_bytes",
    "session_to_dict",
    "write_atomic",
    "write_capture_part",
    "write_session_container",
]

FORMAT = "gradexplorer.session"
#: 3: every tensor record once, by number; 2: zip container with a safetensors value table;
#: 1: plain JSON with inline values.
SCHEMA_VERSION = 3
_DOCUMENT, _VALUES = "session.json", "values.safetensors"
#: The capture's long lists, each stored as JSON lines in a member of its own
#: (``capture.members`` maps each to its member name): neither writing nor
#: reading then holds the GIL for one long C call of ``json``.
_LINE_KEYS = ("records", "nodes", "edges", "tensors", "explanations", "modules")
#: Files larger than this are refused before being read.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: Longest name, op, id, path or other short text a session may hold (code, output and messages may be longer).
MAX_NAME_CHARS = 65_536
#: Numbers of tensor values one file keeps (about 50 MB of JSON).
DEFAULT_FILE_VALUES = 5_000_000
#: Tensors with more dimensions than this are refused (torch allows 64, real ones have few).
_MAX_DIMS = 16



@dataclass(frozen=True)
class ViewState:
    """What the window showed: the selected node and the zoom factor."""

    selected_node: str | None = None
    zoom: float | None = None


#: File name suffix of session documents.
SESSION_SUFFIX = ".gxsession"


@dataclass(frozen=True)
class Session:
    """A saved exploration: code, device, the capture and the view state."""

    code: str
    device: str
    capture: Capture
    view: ViewState = ViewState()
    filename: str = "<editor>"
    versions: dict[str, str] = field(default_factory=dict)
    saved_at: str = ""
    notes: tuple[str, ...] = ()
    #: How the next Run starts the program: its arguments (``sys.argv[1:]``) and working folder
    #: (None: the script's own folder). Set in the app's Run menu.
    args: tuple[str, ...] = ()
    cwd: str | None = None


# --------------------------------------------------------------------------- saving
def _budget_records(obj: Any, budget: list[int], summarised: list[int], file_values: int) -> Any:
    """Walk a JSON-ready document in document order; drop values of records once the file budget is used."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            values = item.get("values") if "dtype" in item and "shape" in item else None
            if values is not None:
                count = math.prod(item["shape"]) if item["shape"] else 1
                if count > budget[0]:
                    item["values"] = None
                    note = f"values not saved: the file's {file_values:,}-value budget was used"
                    item["note"] = f"{item['note']}; {note}" if item.get("note") else note
                    summarised[0] += 1
                else:
                    budget[0] -= count
                continue
            stack.extend(reversed(list(item.values())))  # reversed: the first key is popped first
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return obj


def session_to_dict(session: Session, *, file_values: int = DEFAULT_FILE_VALUES,
                    sink: TensorSink | None = None, nodes_sent: bool = False) -> dict[str, Any]:
    """The session as a JSON-ready document (values within the file budget).

    Without ``sink`` values are inline JSON lists (format 1 style, readable by
    :func:`read_session_text`); with one they go to its binary table.
    ``nodes_sent`` says the graph nodes went ahead in parts already (see
    :func:`~gradexplorer.core.io.capture_json.capture_to_dict`).
    """
    captured = capture_to_dict(session.capture, sink=sink, nodes_sent=nodes_sent)
    if sink is None:
        budget, summarised = [file_values], [0]
        _budget_records(captured, budget, summarised, file_values)
        summarised_records = summarised[0]
    else:
        summarised_records = sink.summarised
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "app_version": __version__,
        "versions": versions(),
        "saved_at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "code": session.code,
        "device": session.device,
        "filename": session.filename,
        "view": {"selected_node": session.view.selected_node, "zoom": session.view.zoom},
        "run": {"args": list(session.args), "cwd": session.cwd},
        "limits": {"value_elements": session.capture.value_elements, "file_values": file_values,
                   "summarised_records": summarised_records},
        "capture": captured,
    }


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


def session_to_bytes(session: Session, *, file_values: int = DEFAULT_FILE_VALUES) -> bytes:
    """The session as a format-3 container in memory (:func:`write_session_container` into a buffer)."""
    buffer = io.BytesIO()
    with paused_collection():
        write_session_container(session, buffer, file_values=file_values)
    return buffer.getvalue()


def write_session_container(session: Session, fh: BinaryIO, *, file_values: int = DEFAULT_FILE_VALUES,
                            compress: bool = True, defer_stats: bool = False, stats_first=(),
                            sink: TensorSink | None = None) -> TensorSink:
    """Write the session as a format-3 container (the document, its long lists as JSON lines, the value table).

    Each item of the capture's long lists (:data:`_LINE_KEYS`: graph nodes,
    edges, tensors, explanations, modules one per module) is one JSON text on
    its own line, so that neither writing nor reading holds the GIL for one
    long C call (a single ``json.dumps``/``loads`` of a 40 MB document froze
    the GUI thread for a second while a job saved or opened it; the tensors
    list alone of a 10,000-node capture took 45 ms). For the same reason
    every member goes to ``fh`` in pieces of about a megabyte: copying the
    30 MB value table of a 50,000-node capture into an in-memory zip at once
    held the GIL 0.15-0.2 s, while a write to a file lets go of it.

    ``fh`` is a seekable binary file opened for writing. ``compress=False``
    stores the members as they are (the isolated engine's hand-over, read
    once and deleted: deflating and inflating it was a tenth of its cost).
    ``defer_stats=True`` leaves the statistics of records saved without values
    out, for the returned sink's
    :meth:`~gradexplorer.core.io.capture_json.TensorSink.late_stats_lines`
    (the hand-over again: see :func:`add_late_stats`), except those of the
    records in ``stats_first``. ``sink``: the
    :class:`~gradexplorer.core.io.capture_json.TensorSink` (made with
    ``file_values``) that :func:`~gradexplorer.core.io.capture_json.send_nodes`
    already sent the graph nodes with, a part at a time (the hand-over again:
    the isolated child sends them as soon as the graph is built, see
    :func:`write_capture_part`); the container holds the rest, and the
    sink's own ``defer_stats`` and ``stats_first`` apply.

    Returns
    -------
    TensorSink
        What encoded the records.
    """
    nodes_sent = sink is not None
    if sink is None:
        sink = TensorSink(file_values, defer_stats=defer_stats, stats_first=stats_first)
    doc = session_to_dict(session, file_values=file_values, sink=sink, nodes_sent=nodes_sent)
    captured = doc["capture"]
    lists = {key: captured[key] for key in _LINE_KEYS if key in captured}
    if "modules" in lists:
        lists["modules"] = _flat_modules(lists["modules"])
    for key in lists:
        captured[key] = []
    captured["members"] = {key: _line_member(key) for key in lists}
    with zipfile.ZipFile(fh, "w") as zf:
        _write_pieces(zf, _deflated(_DOCUMENT, compress), json.dumps(doc, ensure_ascii=False, allow_nan=False).encode("utf-8"))
        for key, items in lists.items():
            _write_lines(zf, _deflated(_line_member(key), compress), items)
        values = zipfile.ZipInfo(_VALUES, date_time=(1980, 1, 1, 0, 0, 0))  # stored: read without inflating
        values.compress_type = zipfile.ZIP_STORED
        _write_value_table(zf, values, sink.tensors)
    return sink


def write_capture_part(fh: BinaryIO, node_lines: list[bytes], records: list[dict],
                       values: dict[str, torch.Tensor]) -> None:
    """One part of a container sent in parts (see the module docstring), stored, not deflated.

    The arguments are what :func:`~gradexplorer.core.io.capture_json.send_nodes`
    hands out; ``fh`` a seekable binary file opened for writing. The isolated
    engine's child writes one per 2,000 graph nodes, and the app reads each
    (:func:`read_capture_part`) while the child encodes the next.
    """
    with zipfile.ZipFile(fh, "w") as zf:
        _write_lines(zf, _deflated(_line_member("records"), False), records)
        _write_lines(zf, _deflated(_line_member("nodes"), False), node_lines)
        _write_value_table(zf, _deflated(_VALUES, False), values)


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
    the bytes in that order), and the reader is still ``safetensors``, which
    checks every range. A big-endian machine takes the library's way.
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


def _write_pieces(zf: zipfile.ZipFile, info: zipfile.ZipInfo, data: bytes) -> None:
    """One member from ``data``, handed to the zip a piece (:data:`_CHUNK_BYTES`) at a time."""
    view = memoryview(data)
    with zf.open(info, "w") as dest:
        for start in range(0, len(view), _CHUNK_BYTES):
            dest.write(view[start:start + _CHUNK_BYTES])


class SaveCancelled(Exception):
    """A save stopped by its ``should_stop`` (:func:`save_session`); the file it was replacing is untouched."""


class _CancellableFile:
    """A binary file whose next write raises :class:`SaveCancelled` once ``should_stop()`` is true.

    The container goes to the file in pieces of about a megabyte, so a
    cancelled save stops within one piece.
    """

    def __init__(self, fh: BinaryIO, should_stop: Callable[[], bool]) -> None:
        self._fh = fh
        self._should_stop = should_stop

    def write(self, data) -> int:
        if self._should_stop():
            raise SaveCancelled("the save was cancelled")
        return self._fh.write(data)

    def __getattr__(self, name: str):
        return getattr(self._fh, name)


def save_session(session: Session, path: str | os.PathLike, *, file_values: int = DEFAULT_FILE_VALUES,
                 private: bool = False, should_stop: Callable[[], bool] | None = None) -> None:
    """Write ``session`` to ``path`` atomically (temp file, fsync, rename). Any thread: it only reads plain data.

    The container is written straight into the temporary file, a piece at a
    time (:func:`write_session_container`). The cyclic GC is paused
    meanwhile: encoding makes hundreds of thousands of small objects, and a
    full collection over them (and over the capture) is one long C call that
    holds the GIL, a frozen GUI thread for half a second even though the
    work runs in a job. ``private``: a new file is the user's alone (0600),
    see :func:`write_atomic`. ``should_stop``: polled at each piece written;
    once true the save raises :class:`SaveCancelled` and leaves ``path`` as
    it was (the app's autosave of a capture that a new run supersedes).
    """
    def write(fh: BinaryIO) -> None:
        write_session_container(session, fh if should_stop is None else _CancellableFile(fh, should_stop),
                                file_values=file_values)

    with paused_collection():
        write_atomic(Path(path), write, private=private)


#: A temporary file of a save older than this (seconds) was left by a writer that died (killed mid-save).
STALE_TEMPORARY_SECONDS = 600.0


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    """Remove the hidden ``.NAME.*.tmp`` files an earlier save of ``name`` left when it was killed.

    A fresh one may be another save still writing: only those untouched for
    :data:`STALE_TEMPORARY_SECONDS` go. Errors are ignored (the save itself
    decides whether the folder is writable).
    """
    now = time.time()
    try:
        candidates = list(folder.glob(f".{glob_escape(name)}.*.tmp"))
    except OSError:
        return
    for path in candidates:
        try:
            if now - path.lstat().st_mtime > STALE_TEMPORARY_SECONDS and path.is_file():
                path.unlink()
        except OSError:
            pass


def write_atomic(target: Path, content: str | bytes | Callable[[BinaryIO], None], *,
                 private: bool = False) -> None:
    """Serialised text or bytes -> temp file in the same folder -> fsync -> ``os.replace``.

    ``content`` may also be a function that writes into the open temporary
    file (a binary file object), so that a big file is never built in memory
    first.

    As editors do, a symlink is written through (its target is replaced, the
    link stays a link), an existing file keeps its permission bits (a 0644
    file stayed 0644, not the temporary file's 0600) and a new one gets the
    usual ``0666 & ~umask``; ``private`` makes a new file 0600 (the autosave
    of unsaved work, like an editor's swap file).
    """
    target = _written_through(Path(target))
    folder = target.parent if str(target.parent) else Path(".")
    _remove_stale_temporaries(folder, target.name)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) & 0o777  # its permissions, never a set-id bit
    except FileNotFoundError:
        mode = 0o600 if private else 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            if callable(content):
                content(fh)
            else:
                fh.write(content.encode("utf-8") if isinstance(content, str) else content)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


#: Longest chain of symlinks followed before a save gives up (as the kernel's ELOOP limit).
_MAX_LINKS = 40


def _written_through(target: Path) -> Path:
    """The file a save to ``target`` must replace: ``target`` itself, or what its symlinks lead to.

    A link's relative target is read from the link's own folder. A dangling
    link is written through too (the file it names is created).
    """
    for _ in range(_MAX_LINKS):
        if not target.is_symlink():
            return target
        link = Path(os.readlink(target))
        target = link if link.is_absolute() else target.parent / link
    raise OSError(errno.ELOOP, f"too many levels of symbolic links at {target}")


# --------------------------------------------------------------------------- reading
class _Reader:
    """Typed access to untrusted JSON with a path for error messages."""

    def fail(self, path, expected: str) -> DocumentError:
        return DocumentError(f"not a valid session: {_at(path) or 'the document'} should be {expected}")

    def obj(self, value, path: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, "an object")
        return value

    def key(self, d: dict, name: str, path: str):
        if name not in d:
            raise DocumentError(f"not a valid session: {_at(path) or 'the document'} lacks '{name}'")
        return d[name]

    def str_(self, value, path: str, *, optional: bool = False, long: bool = False) -> str | None:
        """Text; at most :data:`MAX_NAME_CHARS` characters unless ``long`` (code, output, messages, files).

        A name, an op or an id millions of characters long is no capture's:
        a 10-million-character op name froze the app for 38 s while it was
        measured and drawn.
        """
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self.fail(path, "text")
        if not long and len(value) > MAX_NAME_CHARS:
            raise DocumentError(f"not a valid session: {_at(path) or 'the document'} is {len(value):,} characters "
                                f"long (a name, an op or an id is at most {MAX_NAME_CHARS:,})")
        return value

    def int_(self, value, path: str, *, optional: bool = False) -> int | None:
        if value is None and optional:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(path, "an integer")
        return value

    def bool_(self, value, path: str, *, optional: bool = False) -> bool | None:
        if value is None and optional:
            return None
        if not isinstance(value, bool):
            raise self.fail(path, "true or false")
        return value

    def num(self, value, path: str, *, optional: bool = False):
        if type(value) is float or type(value) is int:  # the common case first (opening is per number)
            return value
        if value is None and optional:
            return None
        if isinstance(value, str) and value in ("nan", "inf", "-inf"):
            return float(value)
        if isinstance(value, list) and len(value) == 2:  # complex
            return complex(self.num(value[0], path), self.num(value[1], path))
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise self.fail(path, "a number")
        return value

    def list_(self, value, path: str) -> list:
        if not isinstance(value, list):
            raise self.fail(path, "a list")
        return value

    def nums(self, value, path: str) -> tuple:
        """A list of numbers (see :meth:`num`) as a tuple; one type check per item when all are plain."""
        items = self.list_(value, path)
        if all(type(v) is float or type(v) is int for v in items):
            return tuple(items)
        return tuple(self.num(v, path) for v in items)

    def elements(self, value, path: str) -> tuple:
        """A tensor's values as a list: numbers (see :meth:`num`), or true/false for a bool tensor."""
        items = self.list_(value, path)
        return tuple(v if type(v) is bool else self.num(v, path) for v in items)

    def strs(self, value, path: str, *, long: bool = False) -> tuple[str, ...]:
        items = self.list_(value, path)
        if all(type(v) is str and (long or len(v) <= MAX_NAME_CHARS) for v in items):
            return tuple(items)
        return tuple(self.str_(v, (path, i), long=long) for i, v in enumerate(items))


_R = _Reader()


def _flatten(values, shape: tuple[int, ...], path: str) -> list:
    """Flatten nested lists exactly ``len(shape)`` deep, checking every length."""
    if not shape:
        return [values]
    flat = []
    stack = [(values, 0)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, list) or len(item) != shape[depth]:
            raise DocumentError(f"not a valid session: {path}.values does not match its shape {list(shape)}")
        if depth == len(shape) - 1:
            flat.extend(item)
        else:
            stack.extend((child, depth + 1) for child in reversed(item))
    return flat


def _at(path) -> str:
    """A place in the document, for error messages.

    ``path`` is text, or a pair ``(parent, index)`` (``parent[index]``) or
    ``(parent, suffix)`` (``parent`` + ``suffix``, e.g. ``".grads"``), nested
    as deep as needed. Opening a 10,000-node session reads 80,000 records and
    every field of every node; formatting each place up front (about twenty
    f-strings a node) was a third of the time, so places are formatted only
    when something is wrong.
    """
    parts = []
    while not isinstance(path, str):
        path, last = path
        parts.append(f"[{last}]" if isinstance(last, int) else last)
    return path + "".join(reversed(parts))


_PLAIN = frozenset({float, int})
_PLAIN_OR_NONE = frozenset({float, int, type(None)})


def _stats_from_dict(s, path) -> TensorStats:
    if type(s) is dict:  # the common case, checked in one expression
        lo, hi, mean, std = s.get("min"), s.get("max"), s.get("mean"), s.get("std")
        nans, infs, head, tail = s.get("nan_count", 0), s.get("inf_count", 0), s.get("head", []), s.get("tail", [])
        if (type(lo) in _PLAIN_OR_NONE and type(hi) in _PLAIN_OR_NONE and type(mean) in _PLAIN_OR_NONE
                and type(std) in _PLAIN_OR_NONE and type(nans) is int and type(infs) is int
                and type(head) is list and type(tail) is list
                and all(type(v) in _PLAIN for v in head) and all(type(v) in _PLAIN for v in tail)):
            return TensorStats(lo, hi, mean, std, nans, infs, tuple(head), tuple(tail))
    p = (path, ".stats")
    s = _R.obj(s, p)
    return TensorStats(
        _R.num(s.get("min"), p, optional=True), _R.num(s.get("max"), p, optional=True),
        _R.num(s.get("mean"), p, optional=True), _R.num(s.get("std"), p, optional=True),
        _R.int_(s.get("nan_count", 0), p), _R.int_(s.get("inf_count", 0), p),
        _R.elements(s.get("head", []), p), _R.elements(s.get("tail", []), p))


def record_from_dict(d, path) -> TensorRecord | None:
    """Rebuild a :class:`TensorRecord`, checking shape, dtype and values; a number is one of ``capture.records``.

    ``path`` is where the record is (text, or ``(path, index)``: see :func:`_at`).
    """
    if d is None:
        return None
    if type(d) is int:  # format 3: the record's number in the document's record list, read once
        records = _RECORDS.get()
        if records is None or not 0 <= d < len(records):
            raise _R.fail(_at(path), "a tensor record, or the number of one in capture.records")
        return records[d]
    if type(d) is not dict:
        raise _R.fail(_at(path), "an object")
    try:
        shape, dtype_name, device, requires_grad = d["shape"], d["dtype"], d["device"], d["requires_grad"]
    except KeyError as exc:
        raise DocumentError(f"not a valid session: {_at(path)} lacks '{exc.args[0]}'") from None
    if type(shape) is not list or not all(type(v) is int and v >= 0 for v in shape) or len(shape) > _MAX_DIMS:
        raise _R.fail(f"{_at(path)}.shape", f"a list of at most {_MAX_DIMS} non-negative integers")
    shape = tuple(shape)
    if type(dtype_name) is not str or not 0 < len(dtype_name) <= 40:
        raise _R.fail(f"{_at(path)}.dtype", "the name of a dtype")
    if type(device) is not str:
        raise _R.fail(f"{_at(path)}.device", "text")
    if type(requires_grad) is not bool:
        raise _R.fail(f"{_at(path)}.requires_grad", "true or false")
    note = d.get("note", "")
    if type(note) is not str:
        raise _R.fail(f"{_at(path)}.note", "text")
    stats = d.get("stats")
    if stats is not None:
        stats = _stats_from_dict(stats, path)
    data = None
    values = d.get("values")
    key = d.get("data")
    if (key is not None or values is not None) and dtype_name not in VALUE_DTYPES:  # a label only without values
        raise _R.fail(f"{_at(path)}.dtype", f"one of {', '.join(VALUE_DTYPES)} (the record has values)")
    if key is not None:
        table = _TABLE.get()
        if not isinstance(key, str) or table is None or key not in table:
            raise _R.fail(f"{_at(path)}.data", "the key of a tensor in the file's value table")
        data = table[key]
        if (dtype_name in PAIRED_DTYPES and data.dim() and data.shape[-1] == 2
                and data.dtype == PAIRED_DTYPES[dtype_name]):
            data = torch.view_as_complex(data)  # the table holds complex128/complex32 as real pairs
        if tuple(data.shape) != shape or data.dtype != VALUE_DTYPES[dtype_name]:
            raise DocumentError(f"not a valid session: {_at(path)} declares {dtype_name} {list(shape)}, but its "
                                f"values are {str(data.dtype).removeprefix('torch.')} {list(data.shape)}")
    elif values is not None:
        path = _at(path)
        numel = math.prod(shape) if shape else 1
        if numel > 10_000_000:
            raise _R.fail(f"{path}.values", "at most 10,000,000 numbers per tensor")
        flat = [v if type(v) is bool and dtype_name == "bool" else _R.num(v, f"{path}.values")
                for v in _flatten(values, shape, path)]
        dtype = VALUE_DTYPES[dtype_name]
        try:
            data = torch.tensor(flat, dtype=dtype).reshape(shape)
        except (TypeError, RuntimeError, OverflowError) as exc:
            raise DocumentError(f"not a valid session: {path}.values cannot be {dtype_name} ({exc})") from None
    norm = d.get("norm")
    if norm is not None:  # the isolated hand-over: statistics follow the document (see add_late_stats)
        if type(norm) not in (int, float) or not 0 <= norm < math.inf or data is not None or stats is not None:
            raise _R.fail(f"{_at(path)}.norm", "a finite norm >= 0, only in a record without values or statistics")
        norm = float(norm)
    return TensorRecord(shape, dtype_name, device, requires_grad, stats, data, note, None, norm)


#: The document's record list being read (format 3), for record_from_dict.
_RECORDS: contextvars.ContextVar[tuple | list | None] = contextvars.ContextVar("gradexplorer_records", default=None)
#: The value table of the container being read (format 2), for record_from_dict.
_TABLE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("gradexplorer_value_table", default=None)


def _records(value, path) -> tuple[TensorRecord | None, ...]:
    if type(value) is not list:
        raise _R.fail(_at(path), "a list")
    records = _RECORDS.get()
    if records is not None:
        # Format 3's common case, every item a record's number: one lookup each, no call per item
        # (what record_from_dict does for a number, checked the same way).
        count = len(records)
        if all(type(v) is int and 0 <= v < count for v in value):
            return tuple(records[v] for v in value)
    return tuple(record_from_dict(v, (path, i)) for i, v in enumerate(value))


#: Saved values without a tensor read so far, by ``(name, state, text)``: after a backward pass most nodes
#: hold the same few (``freed by a backward pass ...``), 17,000 of them on a 10,000-node transformer step,
#: half the text of its graph nodes. A key seen before was checked then, so it is the same (immutable)
#: record. Emptied when it reaches :data:`_TENSORLESS_SAVED_MAX` (a saved number's text varies).
_TENSORLESS_SAVED: dict[tuple[str, str, str], SavedValue] = {}
_TENSORLESS_SAVED_MAX = 4096


def _saved_values(items, path) -> tuple[SavedValue, ...]:
    """A node's ``saved`` list, checked; the saved values without a tensor shared through :data:`_TENSORLESS_SAVED`."""
    saved = []
    known = _TENSORLESS_SAVED
    for i, s in enumerate(_R.list_(items, (path, ".saved"))):
        key = None
        if type(s) is dict and s.get("tensor") is None:
            name, state, text = s.get("name"), s.get("state"), s.get("text", "")
            if type(name) is str and type(state) is str and type(text) is str:
                key = (name, state, text)
                value = known.get(key)
                if value is not None:
                    saved.append(value)
                    continue
        s = _R.obj(s, ((path, ".saved"), i))
        state = _R.str_(s.get("state"), (((path, ".saved"), i), ".state"))
        if state not in ("tensor", "value", "freed", "error"):
            raise _R.fail((((path, ".saved"), i), ".state"), "tensor, value, freed or error")
        value = SavedValue(_R.str_(s.get("name"), (((path, ".saved"), i), ".name")), state,
                           record_from_dict(s.get("tensor"), (((path, ".saved"), i), ".tensor")),
                           _R.str_(s.get("text", ""), (((path, ".saved"), i), ".text"), long=True))
        if key is not None:
            if len(known) >= _TENSORLESS_SAVED_MAX:
                known.clear()
            known[key] = value
        saved.append(value)
    return tuple(saved)


def _source_line_from_dict(d, path: str) -> SourceLine | None:
    if d is None:
        return None
    d = _R.obj(d, path)
    return SourceLine(_R.int_(_R.key(d, "line", path), (path, ".line")), _R.str_(d.get("text", ""), (path, ".text")),
                      _R.str_(d.get("file"), (path, ".file"), optional=True))


def _node_attrs(d: dict, path: str) -> dict:
    grads = {}
    for key, flow in _R.obj(d.get("grads", {}), (path, ".grads")).items():
        if not key.isdigit():
            raise _R.fail((path, ".grads"), "keyed by pass numbers")
        flow = _R.obj(flow, ((path, ".grads"), '.' + key))
        grads[int(key)] = GradFlow(_records(flow.get("outputs", []), (((path, ".grads"), '.' + key), ".outputs")),
                                   _records(flow.get("inputs", []), (((path, ".grads"), '.' + key), ".inputs")))
    saved = _saved_values(d.get("saved", []), path)
    hooks = []
    for i, h in enumerate(_R.list_(d.get("hooks", []), (path, ".hooks"))):
        p = ((path, ".hooks"), i)
        h = _R.obj(h, p)
        calls = []
        for j, c in enumerate(_R.list_(h.get("calls", []), (p, ".calls"))):
            c = _R.obj(c, ((p, ".calls"), j))
            after = c.get("after")
            calls.append(HookCallRecord(_R.int_(c.get("pass_index"), (((p, ".calls"), j), ".pass_index"), optional=True),
                                        _records(c.get("before", []), (((p, ".calls"), j), ".before")),
                                        None if after is None else _records(after, (((p, ".calls"), j), ".after")),
                                        _R.bool_(c.get("in_place", False), (((p, ".calls"), j), ".in_place")),
                                        _R.str_(c.get("error"), (((p, ".calls"), j), ".error"), optional=True, long=True)))
        hooks.append(HookRecord(_R.str_(h.get("kind"), (p, ".kind")), _R.str_(h.get("qualname"), (p, ".qualname")),
                                _R.int_(h.get("output_nr", 0), (p, ".output_nr")), _source_line_from_dict(h.get("source"), (p, ".source")),
                                tuple(calls), _R.bool_(h.get("library", False), (p, ".library"))))
    accumulation = {}
    for key, lp in _R.obj(d.get("accumulation", {}), (path, ".accumulation")).items():
        if not key.isdigit():
            raise _R.fail((path, ".accumulation"), "keyed by pass numbers")
        lp = _R.obj(lp, ((path, ".accumulation"), '.' + key))
        accumulation[int(key)] = LeafPass(*(record_from_dict(lp.get(k), (((path, ".accumulation"), '.' + key), '.' + k))
                                            for k in ("delivered", "before", "after")),
                                          _R.str_(lp.get("reduced_by", ""), ((path, ".accumulation"), '.' + key)))
    value = d.get("value")
    if value is not None:
        value = record_from_dict(value, (path, ".value"))
    via = d.get("path_via")
    if via is not None:
        via = _R.list_(via, (path, ".path_via"))
        if len(via) != 3:
            raise _R.fail((path, ".path_via"), "[parent, slot, hops]")
        via = tuple(via)
    op, kind, is_root, requires_grad = d.get("op"), d.get("kind"), d.get("is_root", False), d.get("requires_grad", True)
    node_path, module, seq = d.get("path"), d.get("module"), d.get("seq")
    grad_enabled, inference_mode = d.get("grad_enabled"), d.get("inference_mode")
    # The plain fields in one test of their exact types (JSON gives nothing else); anything unusual goes
    # through the field-by-field checks, which say what is wrong (or read an older file's "root").
    if not (type(op) is str and len(op) <= MAX_NAME_CHARS and type(kind) is str and kind in _NODE_KINDS
            and type(is_root) is bool and type(requires_grad) is bool and type(node_path) in _STR_OR_NONE
            and (node_path is None or len(node_path) <= MAX_NAME_CHARS) and type(module) in _STR_OR_NONE
            and (module is None or len(module) <= MAX_NAME_CHARS)
            and type(seq) in _INT_OR_NONE and type(grad_enabled) in _BOOL_OR_NONE
            and type(inference_mode) in _BOOL_OR_NONE):
        kind = _R.str_(_R.key(d, "kind", path), (path, ".kind"))
        if kind not in ("leaf", "op", "custom", "root"):
            raise _R.fail((path, ".kind"), "leaf, op or custom")
        if kind == "root":  # older files said "root" for an op root; is_root says it now
            kind = "op"
        op = _R.str_(_R.key(d, "op", path), (path, ".op"))
        is_root = _R.bool_(is_root, (path, ".is_root"))
        requires_grad = _R.bool_(requires_grad, (path, ".requires_grad"))
        node_path = _R.str_(node_path, (path, ".path"), optional=True)
        module = _R.str_(module, (path, ".module"), optional=True)
        seq = _R.int_(seq, (path, ".seq"), optional=True)
        grad_enabled = _R.bool_(grad_enabled, (path, ".grad_enabled"), optional=True)
        inference_mode = _R.bool_(inference_mode, (path, ".inference_mode"), optional=True)
    on_path = d.get("on_path", [])
    if type(on_path) is list and all(type(v) is int for v in on_path):
        on_path = tuple(on_path)
    else:
        on_path = tuple(_R.int_(v, (path, ".on_path")) for v in _R.list_(on_path, (path, ".on_path")))
    source = d.get("source")
    if source is not None:
        line, text, file = ((source.get("line"), source.get("text", ""), source.get("file"))
                            if type(source) is dict else (None, None, None))
        if (type(line) is int and type(text) is str and len(text) <= MAX_NAME_CHARS
                and (file is None or (type(file) is str and len(file) <= MAX_NAME_CHARS))):
            source = SourceLine(line, text, file)
        else:
            source = _source_line_from_dict(source, (path, ".source"))
    order = d.get("grad_order", {})
    if type(order) is dict and all(type(v) is int and k.isdigit() for k, v in order.items()):
        order = {int(k): v for k, v in order.items()}
    else:
        order = _grad_order(order, (path, ".grad_order"))
    return {
        "op": op,
        "kind": kind,
        "is_root": is_root,
        "names": _R.strs(d.get("names", []), (path, ".names")),
        "path": node_path,
        "path_via": via,
        "value": value,
        "outputs": _records(d.get("outputs", []), (path, ".outputs")),
        "variable": None if (variable := d.get("variable")) is None else record_from_dict(variable, (path, ".variable")),
        "grad": None if (grad := d.get("grad")) is None else record_from_dict(grad, (path, ".grad")),
        "accumulation": accumulation,
        "on_path": on_path,
        "requires_grad": requires_grad,
        "grads": grads,
        "saved": saved,
        "hooks": tuple(hooks),
        "source": source,
        "grad_enabled": grad_enabled,
        "inference_mode": inference_mode,
        "seq": seq,
        "module": module,
        "grad_order": order,
        "shape": None if value is None else value.shape,
        "dtype": None if value is None else value.dtype,
        "device": None if value is None else value.device,
    }


#: Exact types of a graph node's plain fields, for :func:`_node_attrs`'s one test.
_NODE_KINDS = frozenset({"leaf", "op", "custom"})
_STR_OR_NONE = (str, type(None))
_INT_OR_NONE = (int, type(None))
_BOOL_OR_NONE = (bool, type(None))


def _severity(value, path: str) -> str:
    value = _R.str_(value, path)
    if value not in ("problem", "note", "ok"):
        raise _R.fail(path, "problem, note or ok")
    return value


def _grad_order(d, path: str) -> dict[int, int]:
    order = {}
    for key, value in _R.obj(d, path).items():
        if not key.isdigit():
            raise _R.fail(path, "keyed by pass numbers")
        order[int(key)] = _R.int_(value, (path, f".{key}"))
    return order


def _module_audit(d, path) -> ModuleAudit:
    """Rebuild a module tree iteratively (a deep Sequential must not recurse)."""
    d = _R.obj(d, path)
    order = []
    stack = [(d, path)]
    while stack:
        item, p = stack.pop()
        item = _R.obj(item, p)
        order.append((item, p))
        for i, child in enumerate(_R.list_(item.get("children", []), (p, ".children"))):
            stack.append((child, ((p, ".children"), i)))
    built: dict[int, ModuleAudit] = {}
    for item, p in reversed(order):
        entries = []
        for i, e in enumerate(_R.list_(item.get("entries", []), (p, ".entries"))):
            ep = ((p, ".entries"), i)
            e = _R.obj(e, ep)
            record = record_from_dict(_R.key(e, "record", ep), (ep, ".record"))
            entries.append(StateEntry(_R.str_(e.get("path"), (ep, ".path")), _R.str_(e.get("kind"), (ep, ".kind")),
                                      record, _R.bool_(e.get("requires_grad"), (ep, ".requires_grad")),
                                      _R.bool_(e.get("has_grad"), (ep, ".has_grad")),
                                      _R.bool_(e.get("persistent"), (ep, ".persistent")),
                                      _R.bool_(e.get("follows_to"), (ep, ".follows_to"))))
        warnings = []
        for i, w in enumerate(_R.list_(item.get("warnings", []), (p, ".warnings"))):
            wp = ((p, ".warnings"), i)
            w = _R.obj(w, wp)
            warnings.append(ModuleWarning(_R.str_(w.get("code"), (wp, ".code")), _R.str_(w.get("path"), (wp, ".path")),
                                          _R.str_(w.get("message"), (wp, ".message"), long=True),
                                          _R.str_(w.get("fix", ""), (wp, ".fix"), long=True),
                                          _R.str_(w.get("severity", "warning"), (wp, ".severity"))))
        children = tuple(built[id(c)] for c in item.get("children", []))
        built[id(item)] = ModuleAudit(_R.str_(item.get("path"), (p, ".path")),
                                      _R.str_(item.get("type_name"), (p, ".type_name")), tuple(entries), children,
                                      tuple(warnings), _R.strs(item.get("devices", []), (p, ".devices")))
    return built[id(d)]


def _rebuild_paths(graph: nx.DiGraph) -> None:
    """Fill ``path`` texts that a format-2 file leaves out, from the ``path_via`` links (as the build does).

    Breadth-first from the links' named tensors, with the depth counted here
    rather than read from the file: a forged file that declared every node
    of a 20,000-node chain 0 hops deep once made every text hold its whole
    chain (quadratic: 4.3 GB for a 113 KB file). Nodes deeper than
    :data:`MAX_PATH_HOPS`, or whose links loop or lead nowhere, get no text.
    """
    nodes = graph.nodes
    children: dict[str, list[tuple[int, str]]] = {}
    queue: collections.deque[tuple[str, int]] = collections.deque()
    for node_id, attrs in nodes.items():
        via = attrs.get("path_via")
        if via is None:
            continue
        parent, slot = via[0], via[1]
        if parent is None:
            if isinstance(slot, str):
                if attrs.get("path") is None:
                    attrs["path"] = slot
                queue.append((node_id, 0))
        elif isinstance(slot, int) and parent in graph:
            children.setdefault(parent, []).append((slot, node_id))
    done = {node_id for node_id, _ in queue}
    while queue:
        node_id, hops = queue.popleft()
        if hops >= MAX_PATH_HOPS:
            continue
        text = nodes[node_id].get("path")
        for slot, child in sorted(children.get(node_id, ())):
            if child in done:
                continue
            done.add(child)
            attrs = nodes[child]
            if attrs.get("path") is None and text is not None:
                attrs["path"] = f"{text}.next_functions[{slot}][0]"
            queue.append((child, hops + 1))


def _each(items: list, *, consume: bool):
    """``enumerate(items)``; with ``consume``, each item leaves the list as it is handed out.

    A caller that owns a parsed document frees it item by item this way:
    freeing a 50,000-node document at once is one cascade of deallocations
    that holds the GIL for 0.3 s (a frozen window while a job opens it).
    """
    for i in range(len(items)):
        item = items[i]
        if consume:
            items[i] = None
        yield i, item


@dataclass
class PartialCapture:
    """What the parts of a container sent in parts gave so far (see :func:`read_capture_part`).

    The records in their numbers' order, the graph with the nodes read, the
    value table's tensors and the bytes unpacked (all parts and the container
    together stay under the file limit). Mutable: the reader adds to it.
    """

    records: list = field(default_factory=list)
    graph: CaptureGraph = field(default_factory=CaptureGraph)
    table: dict = field(default_factory=dict)
    size: int = 0

    def add_table(self, table: dict, name: str) -> None:
        """Add a part's value table; a key that an earlier part had is refused (it would replace values)."""
        twice = table.keys() & self.table.keys()
        if twice:
            raise DocumentError(f"{name} holds the values {sorted(twice)[0]!r} a second time")
        self.table.update(table)


def _read_records(items: list, records: list, consume: bool) -> None:
    """Check each JSON record of ``items`` and append it to ``records`` (numbered on from those there)."""
    start = len(records)
    for i, r in _each(items, consume=consume):
        p = f"capture.records[{start + i}]"
        records.append(record_from_dict(_R.obj(r, p), p))


def _add_nodes(graph: CaptureGraph, nodes: list, consume: bool) -> None:
    """Check each JSON graph node of ``nodes`` and add it to ``graph`` (numbered on from those there)."""
    start = graph.number_of_nodes()
    for i, node in _each(nodes, consume=consume):
        p = f"capture.nodes[{start + i}]"
        node = _R.obj(node, p)
        node_id = _R.str_(_R.key(node, "id", p), f"{p}.id")
        if node_id in graph:
            raise DocumentError(f"not a valid session: node id {node_id!r} appears twice")
        graph.add_node(node_id, **_node_attrs(node, p))


def capture_from_dict(doc: dict, *, consume: bool = False, records_out: list | None = None,
                      partial: PartialCapture | None = None) -> Capture:
    """Rebuild a :class:`Capture` from its JSON form (see docs/capture-json.md).

    With ``consume`` the document's long lists are emptied while they are
    read (see :func:`_each`): for a caller that does not need them again.
    ``records_out`` receives the document's tensor records in their order
    (format 3), for :func:`add_late_stats`. ``partial`` holds the records
    and graph nodes that parts sent ahead of this document (its records
    number on from those, its nodes join that graph).
    """
    doc = _R.obj(doc, "capture")
    records = None
    if "records" in doc:
        records = [] if partial is None else list(partial.records)
        _read_records(_R.list_(doc["records"], "capture.records"), records, consume)
        records = tuple(records)
        if records_out is not None:
            records_out.extend(records)
    token = _RECORDS.set(records)
    try:
        return _capture_from_dict(doc, consume, CaptureGraph() if partial is None else partial.graph)
    finally:
        _RECORDS.reset(token)


def _capture_from_dict(doc: dict, consume: bool, graph: CaptureGraph) -> Capture:
    _add_nodes(graph, _R.list_(_R.key(doc, "nodes", "capture"), "capture.nodes"), consume)
    for i, edge in _each(_R.list_(doc.get("edges", []), "capture.edges"), consume=consume):
        if type(edge) is dict:  # the common case checked inline (a third of the hand-over's last read)
            u, v, slot, input_nr = edge.get("source"), edge.get("target"), edge.get("slot"), edge.get("input_nr", 0)
            slots = edge.get("slots", [slot])
            if (type(u) is str and type(v) is str and type(slot) is int and type(input_nr) is int
                    and type(slots) is list and all(type(s) is int for s in slots) and u in graph and v in graph):
                graph.add_edge(u, v, slot=slot, input_nr=input_nr, slots=tuple(slots))
                continue
        p = f"capture.edges[{i}]"
        edge = _R.obj(edge, p)
        u, v = _R.str_(edge.get("source"), f"{p}.source"), _R.str_(edge.get("target"), f"{p}.target")
        if u not in graph or v not in graph:
            raise DocumentError(f"not a valid session: {p} joins a node that does not exist")
        slot = _R.int_(edge.get("slot"), f"{p}.slot")
        graph.add_edge(u, v, slot=slot, input_nr=_R.int_(edge.get("input_nr", 0), f"{p}.input_nr"),
                       slots=tuple(_R.int_(s, f"{p}.slots") for s in _R.list_(edge.get("slots", [slot]), f"{p}.slots")))
    _rebuild_paths(graph)
    graph.graph["roots"] = tuple(r for r in _R.strs(doc.get("roots", []), "capture.roots") if r in graph)
    graph.graph["module_types"] = {str(k): _R.str_(v, "capture.module_types")
                                   for k, v in _R.obj(doc.get("module_types", {}), "capture.module_types").items()}
    passes = []
    for i, ps in enumerate(_R.list_(doc.get("passes", []), "capture.passes")):
        p = f"capture.passes[{i}]"
        ps = _R.obj(ps, p)
        edges = []
        for key in ("roots", "inputs"):
            pairs = []
            for j, pair in enumerate(_R.list_(ps.get(key, []), f"{p}.{key}")):
                pair = _R.list_(pair, f"{p}.{key}[{j}]")
                if len(pair) != 2:
                    raise _R.fail(f"{p}.{key}[{j}]", "[node id, output_nr]")
                pairs.append((_R.str_(pair[0], f"{p}.{key}[{j}]", optional=True), _R.int_(pair[1], f"{p}.{key}[{j}]")))
            edges.append(tuple(pairs))
        passes.append(PassSummary(_R.int_(ps.get("index"), f"{p}.index"), _R.str_(ps.get("kind"), f"{p}.kind"),
                                  _source_line_from_dict(ps.get("source"), f"{p}.source"), edges[0], edges[1],
                                  _R.bool_(ps.get("retain_graph"), f"{p}.retain_graph"),
                                  _R.bool_(ps.get("create_graph"), f"{p}.create_graph"),
                                  _records(ps.get("results", []), f"{p}.results"),
                                  _R.str_(ps.get("error"), f"{p}.error", optional=True, long=True),
                                  _R.strs(ps.get("root_names", []), f"{p}.root_names"),
                                  _R.str_(ps.get("thread"), f"{p}.thread", optional=True),
                                  _R.strs(ps.get("input_names", []), f"{p}.input_names"),
                                  _R.str_(ps.get("raised_at"), f"{p}.raised_at", optional=True)))
    tensors = []
    for i, t in _each(_R.list_(doc.get("tensors", []), "capture.tensors"), consume=consume):
        p = ("capture.tensors", i)
        t = _R.obj(t, p)
        origin = t.get("origin")
        if origin is not None:
            o = _R.obj(origin, (p, ".origin"))
            origin = OriginRecord(_R.str_(o.get("op"), (p, ".origin.op")), _source_line_from_dict(o.get("source"), (p, ".origin.source")),
                                  _R.bool_(o.get("grad_enabled"), (p, ".origin.grad_enabled")),
                                  _R.bool_(o.get("inference_mode"), (p, ".origin.inference_mode")))
        value = record_from_dict(_R.key(t, "value", p), (p, ".value"))
        names = _R.strs(_R.key(t, "names", p), (p, ".names"))
        if not names:
            raise _R.fail((p, ".names"), "at least one name")
        tensors.append(TensorInfo(
            names, _R.str_(t.get("node"), (p, ".node"), optional=True), _R.int_(t.get("output_nr", 0), (p, ".output_nr")),
            value, record_from_dict(t.get("grad"), (p, ".grad")),
            *(_R.bool_(t.get(k), (p, "." + k)) for k in
              ("requires_grad", "is_leaf", "retains_grad", "is_view", "is_inference", "is_parameter")),
            _R.str_(t.get("grad_fn"), (p, ".grad_fn"), optional=True), origin,
            _R.strs(t.get("base_names", []), (p, ".base_names")), _R.strs(t.get("source_names", []), (p, ".source_names")),
            _source_line_from_dict(t.get("switched_off"), (p, ".switched_off")), _source_line_from_dict(t.get("hook_gradient"), (p, ".hook_gradient")),
            _R.bool_(t.get("is_buffer", False), (p, ".is_buffer")),
            _source_line_from_dict(t.get("grad_result"), (p, ".grad_result")),
            _scopes(t.get("scopes", []), len(names), (p, ".scopes")),
            _cut(t.get("cut"), (p, ".cut"))))
    explanations = []
    for i, e in _each(_R.list_(doc.get("explanations", []), "capture.explanations"), consume=consume):
        p = ("capture.explanations", i)
        e = _R.obj(e, p)
        explanations.append(Explanation(_R.str_(e.get("name"), (p, ".name")), _R.str_(e.get("code"), (p, ".code")),
                                        _R.str_(e.get("sentence"), (p, ".sentence"), long=True),
                                        _R.int_(e.get("line"), (p, ".line"), optional=True),
                                        _R.str_(e.get("node"), (p, ".node"), optional=True),
                                        _severity(e.get("severity", "ok"), (p, ".severity")),
                                        _R.str_(e.get("file"), (p, ".file"), optional=True)))
    modules = tuple(_module_audit(m, ("capture.modules", i))
                    for i, m in _each(_R.list_(doc.get("modules", []), "capture.modules"), consume=consume))
    error = doc.get("error")
    if error is not None:
        e = _R.obj(error, "capture.error")
        frames = []
        for j, fr in enumerate(_R.list_(e.get("frames", []), "capture.error.frames")):
            fr = _R.list_(fr, f"capture.error.frames[{j}]")
            if len(fr) not in (2, 3):
                raise _R.fail(f"capture.error.frames[{j}]", "[line, function, file]")
            frames.append((_R.int_(fr[0], "capture.error.frames"), _R.str_(fr[1], "capture.error.frames"),
                           _R.str_(fr[2], "capture.error.frames", optional=True) if len(fr) == 3 else None))
        error = ErrorReport(_R.str_(e.get("kind"), "capture.error.kind"), _R.str_(e.get("exc_type"), "capture.error.exc_type"),
                            _R.str_(e.get("message", ""), "capture.error.message", long=True),
                            _R.int_(e.get("line"), "capture.error.line", optional=True),
                            _R.int_(e.get("column"), "capture.error.column", optional=True),
                            _R.str_(e.get("traceback", ""), "capture.error.traceback", long=True), tuple(frames),
                            _R.str_(e.get("file"), "capture.error.file", optional=True))
    timings = {str(k): float(_R.num(v, "capture.timings")) for k, v in _R.obj(doc.get("timings", {}), "capture.timings").items()}
    return Capture(
        code=_R.str_(doc.get("code", ""), "capture.code", long=True),
        filename=_R.str_(doc.get("filename", "<editor>"), "capture.filename"),
        device=_R.str_(doc.get("device", "cpu"), "capture.device"),
        graph=graph,
        passes=tuple(passes),
        tensors=tuple(tensors),
        explanations=tuple(explanations),
        modules=modules,
        stdout=_R.str_(doc.get("stdout", ""), "capture.stdout", long=True),
        stderr=_R.str_(doc.get("stderr", ""), "capture.stderr", long=True),
        error=error,
        executed=_R.bool_(doc.get("executed", True), "capture.executed"),
        dropped_ops=_R.int_(doc.get("dropped_ops", 0), "capture.dropped_ops"),
        versions={str(k): str(v) for k, v in _R.obj(doc.get("versions", {}), "capture.versions").items()},
        timings=timings,
        value_elements=_R.int_(doc.get("value_elements", 10_000), "capture.value_elements"),
        restored=_R.strs(doc.get("restored", []), "capture.restored", long=True),
        args=_R.strs(doc.get("args", []), "capture.args", long=True),
        cwd=_R.str_(doc.get("cwd", ""), "capture.cwd"),
        root=_R.str_(doc.get("root", ""), "capture.root"),
        files=_files(doc.get("files", {})),
        figures=_figures(doc.get("figures", [])),
    )


def _cut(value, path) -> CutRecord | None:
    """Where a tensor's graph was cut (``TensorInfo.cut``); absent in files of earlier versions."""
    if value is None:
        return None
    c = _R.obj(value, path)
    return CutRecord(_R.str_(_R.key(c, "op", path), (path, ".op")),
                     _source_line_from_dict(c.get("source"), (path, ".source")),
                     _R.bool_(c.get("grad_enabled", True), (path, ".grad_enabled")),
                     _R.strs(c.get("from_names", []), (path, ".from_names")),
                     _source_line_from_dict(c.get("from_source"), (path, ".from_source")),
                     _R.strs(c.get("leaves", []), (path, ".leaves")),
                     _R.bool_(c.get("escaped", False), (path, ".escaped")))


def _scopes(value, count: int, path) -> tuple[str, ...]:
    scopes = _R.strs(value, path)
    if scopes and len(scopes) != count:
        raise _R.fail(path, "one scope per name")
    return scopes


#: A session's figures: at most this many, of at most this many bytes of PNG together.
MAX_FIGURES_READ = 200
MAX_FIGURE_BYTES = 64 * 1024 * 1024


def _figures(value) -> tuple[FigureImage, ...]:
    """The program's matplotlib figures: PNGs in base64, each checked to be one (never decoded further here)."""
    items = _R.list_(value, "capture.figures")
    if len(items) > MAX_FIGURES_READ:
        raise _R.fail("capture.figures", f"at most {MAX_FIGURES_READ} figures")
    figures, total = [], 0
    for i, item in enumerate(items):
        path = f"capture.figures[{i}]"
        item = _R.obj(item, path)
        text = _R.str_(_R.key(item, "png", path), path + ".png", long=True)
        total += len(text) * 3 // 4
        if total > MAX_FIGURE_BYTES:
            raise _R.fail("capture.figures", f"figures of at most {MAX_FIGURE_BYTES // 2**20} MiB together")
        try:
            png = base64.b64decode(text, validate=True)
        except ValueError:
            raise _R.fail(path + ".png", "a PNG in base64") from None
        if not png.startswith(PNG_SIGNATURE):
            raise _R.fail(path + ".png", "a PNG in base64")
        figures.append(FigureImage(
            number=_R.int_(item.get("number", i + 1), path + ".number"),
            title=_R.str_(item.get("title", ""), path + ".title"),
            png=png,
            width=_R.int_(item.get("width", 0), path + ".width"),
            height=_R.int_(item.get("height", 0), path + ".height"),
            shown=_R.bool_(item.get("shown", True), path + ".shown"),
        ))
    return tuple(figures)


def _files(value) -> dict[str, str]:
    """The kept project files: shown path -> text (both strings)."""
    files = _R.obj(value, "capture.files")
    return {_R.str_(k, "capture.files"): _R.str_(v, f"capture.files[{k!r}]", long=True) for k, v in files.items()}


def _from_capture_document(doc: dict) -> dict:
    """Migration: a bare capture document (``capture --json``) becomes a session."""
    return {
        "format": FORMAT,
        "schema_version": 1,
        "app_version": _R.obj(doc.get("versions", {}), "versions").get("gradexplorer", "?"),
        "versions": doc.get("versions", {}),
        "saved_at": "",
        "code": doc.get("code", ""),
        "device": doc.get("device", "cpu"),
        "filename": doc.get("filename", "<editor>"),
        "view": {"selected_node": None, "zoom": None},
        "limits": {},
        "capture": doc,
        "notes": ["opened from a capture document (gradexplorer capture --json)"],
    }


#: ``(format, schema_version) -> function`` upgrading a document one step.
def _from_format_1(doc: dict) -> dict:
    """Migration: format 1 is format 2 with every value inline (still accepted)."""
    return {**doc, "schema_version": 2}


def _from_format_2(doc: dict) -> dict:
    """Migration: format 2 is format 3 with every record written where it appears (still accepted)."""
    return {**doc, "schema_version": 3}


MIGRATIONS = {
    (CAPTURE_FORMAT, CAPTURE_SCHEMA): _from_capture_document,
    (FORMAT, 1): _from_format_1,
    (FORMAT, 2): _from_format_2,
}


def _upgrade(doc: dict) -> dict:
    seen = 0
    while True:
        fmt = doc.get("format")
        version = doc.get("schema_version")
        if fmt == FORMAT and version == SCHEMA_VERSION:
            return doc
        if fmt == FORMAT and isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            made_by = doc.get("app_version") if isinstance(doc.get("app_version"), str) else "a newer version"
            raise DocumentError(f"this session was made by gradexplorer {made_by} or newer "
                                f"(session format {version}); this is gradexplorer {__version__}, "
                                f"which reads format {SCHEMA_VERSION}: please upgrade gradexplorer")
        step = MIGRATIONS.get((fmt, version))
        if step is None or seen > 10:
            if fmt in (FORMAT, CAPTURE_FORMAT):
                raise DocumentError(f"this file has an unknown {fmt} version ({version!r})")
            raise DocumentError("this is not a gradexplorer session (no 'format': 'gradexplorer.session' in it)")
        doc = step(doc)
        seen += 1


def read_session_bytes(data: bytes, *, name: str = "the file", max_bytes: int = MAX_FILE_BYTES,
                       records_out: list | None = None, partial: PartialCapture | None = None) -> Session:
    """Read a session from its bytes: a format-2/3 container, or format-1 / capture document JSON text.

    ``partial``: what the parts sent ahead of this container gave
    (:func:`read_capture_part`); it is used up.
    """
    if partial is not None and data[:4] != b"PK\x03\x04":
        raise DocumentError(f"{name} is not a session container")
    if data[:4] != b"PK\x03\x04":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise DocumentError(f"{name} is not a session file (neither a session container nor UTF-8 text)") from None
        return read_session_text(text)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = {info.filename: info for info in zf.infolist()}
            if _DOCUMENT not in members:
                raise DocumentError(f"{name} is a zip file but not a gradexplorer session (no {_DOCUMENT} in it)")
            total = sum(info.file_size for info in members.values()) + (0 if partial is None else partial.size)
            if total > max_bytes:
                raise DocumentError(f"{name} unpacks to {total / 2**20:,.0f} MiB; sessions larger than "
                                    f"{max_bytes / 2**20:,.0f} MiB are not opened")
            text = zf.read(_DOCUMENT).decode("utf-8")
            lists = {key: _read_lines(zf, key, name) for key in _LINE_KEYS if _line_member(key) in members}
            raw = zf.read(_VALUES) if _VALUES in members else None
    except DocumentError:
        raise
    except Exception as exc:  # noqa: BLE001 - BadZipFile, zlib.error, EOFError, bad UTF-8...: one clear sentence
        raise DocumentError(f"{name} is a damaged session container ({type(exc).__name__}: {exc})") from None
    table: dict = {}
    if raw is not None:
        try:
            table = safetensors.torch.load(raw)
        except Exception as exc:  # noqa: BLE001 - safetensors raises its own error types
            raise DocumentError(f"{name}: the value table is damaged ({type(exc).__name__}: {exc})") from None
    if partial is not None:
        partial.add_table(table, name)
        table = partial.table
    if "modules" in lists:
        lists["modules"] = _nested_modules(lists["modules"], _line_member("modules"))
    token = _TABLE.set(table)
    try:
        return read_session_text(text, lists=lists, records_out=records_out, partial=partial)
    finally:
        _TABLE.reset(token)


#: The members of a part (:func:`write_capture_part`).
_PART_MEMBERS = frozenset({_line_member("records"), _line_member("nodes"), _VALUES})


def read_capture_part(data: bytes, partial: PartialCapture, *, name: str = "the part",
                      max_bytes: int = MAX_FILE_BYTES) -> None:
    """Check one part of a container sent in parts (:func:`write_capture_part`) and add it to ``partial``.

    The records, nodes and values go through the same checks as a whole
    file's; the container that ends the parts is then read with
    ``read_session_bytes(..., partial=partial)``.

    Raises
    ------
    DocumentError
        As :func:`read_session_bytes` does; ``partial`` is then of no use.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            if {info.filename for info in infos} != _PART_MEMBERS or len(infos) != len(_PART_MEMBERS):
                raise DocumentError(f"{name} is not a part of a session container (its members are "
                                    f"{sorted(info.filename for info in infos)[:5]})")
            partial.size += sum(info.file_size for info in infos)
            if partial.size > max_bytes:
                raise DocumentError(f"{name} brings the capture past {max_bytes / 2**20:,.0f} MiB; sessions "
                                    f"larger than that are not opened")
            records = _read_lines(zf, "records", name)
            nodes = _read_lines(zf, "nodes", name)
            raw = zf.read(_VALUES)
    except DocumentError:
        raise
    except Exception as exc:  # noqa: BLE001 - as in read_session_bytes: one clear sentence
        raise DocumentError(f"{name} is a damaged part of a session container ({type(exc).__name__}: {exc})") from None
    try:
        table = safetensors.torch.load(raw)
    except Exception as exc:  # noqa: BLE001 - safetensors raises its own error types
        raise DocumentError(f"{name}: the value table is damaged ({type(exc).__name__}: {exc})") from None
    partial.add_table(table, name)
    table_token, records_token = _TABLE.set(partial.table), _RECORDS.set(partial.records)
    try:
        _read_records(records, partial.records, consume=True)
        _add_nodes(partial.graph, nodes, consume=True)
    except DocumentError as exc:
        raise DocumentError(f"{name}: {exc}") from None
    except RecursionError:
        raise DocumentError(f"{name}: not a valid session: the document is nested too deeply") from None
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:  # as in read_session_text
        raise DocumentError(f"{name}: not a valid session: {type(exc).__name__}: {exc}") from None
    finally:
        _TABLE.reset(table_token)
        _RECORDS.reset(records_token)


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


def _join_lists(captured: dict, lists: dict[str, list]) -> None:
    """Put the container's JSON-lines members back into the capture document, checking they match it.

    ``capture.members`` names them; files written before the other lists got
    members of their own have ``capture.nodes_member`` only.
    """
    named = captured.get("members")
    if named is None and "nodes_member" in captured:
        named = {"nodes": captured["nodes_member"]}
    named = _R.obj(named if named is not None else {}, "capture.members")
    if set(named) != set(lists) or any(named[key] != _line_member(key) for key in lists):
        raise DocumentError("not a valid session: the container's members do not match its document")
    for key, items in lists.items():
        if captured.get(key):
            raise DocumentError(f"not a valid session: capture.{key} is both in the document and in "
                                f"{_line_member(key)}")
        captured[key] = items


def _json_int(text: str) -> int:
    """An integer of the document; only the 64-bit range is accepted.

    The JSON-lines members are read by orjson, which turns integers outside
    [-2**63, 2**64) into floats: refusing them here too keeps "every document
    that opens can be saved and opened again, unchanged" true for both readers.
    """
    value = int(text)
    if not -(1 << 63) <= value < (1 << 64):
        raise ValueError(f"the integer {text if len(text) <= 24 else text[:24] + '…'} does not fit in 64 bits")
    return value


def read_session_text(text: str, *, lists: dict[str, list] | None = None, records_out: list | None = None,
                      partial: PartialCapture | None = None) -> Session:
    """Parse and validate session JSON text (never executes anything).

    ``lists`` are the capture lists of a format-2/3 container read from their
    own members (``{"nodes": [...], ...}``); the document names those members
    in ``capture.members``; ``partial`` what parts sent ahead of them
    (:func:`read_capture_part`).
    """
    try:
        doc = json.loads(text, parse_int=_json_int)
    except RecursionError:
        raise DocumentError("not a valid session: the JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise DocumentError(f"not a session file: invalid JSON at line {exc.lineno}, column {exc.colno} "
                            f"({exc.msg}); the file may be truncated or damaged") from None
    except ValueError as exc:  # e.g. numbers too long to convert
        raise DocumentError(f"not a valid session: {exc}") from None
    if not isinstance(doc, dict):
        raise DocumentError("this is not a gradexplorer session (the JSON is not an object)")
    try:
        doc = _upgrade(doc)
        if lists is not None:
            _join_lists(_R.obj(_R.key(doc, "capture", ""), "capture"), lists)
        view = _R.obj(doc.get("view", {}), "view")
        capture = capture_from_dict(_R.key(doc, "capture", ""), consume=True,  # doc is ours
                                    records_out=records_out, partial=partial)
        zoom = _R.num(view.get("zoom"), "view.zoom", optional=True)
        run = _R.obj(doc.get("run") or {"args": list(capture.args), "cwd": capture.cwd or None}, "run")
        return Session(
            code=_R.str_(_R.key(doc, "code", ""), "code", long=True),
            device=_R.str_(doc.get("device", "cpu"), "device"),
            capture=capture,
            view=ViewState(_R.str_(view.get("selected_node"), "view.selected_node", optional=True),
                           None if zoom is None or isinstance(zoom, complex) or not math.isfinite(zoom)
                           or zoom <= 0 else float(zoom)),
            filename=_R.str_(doc.get("filename", "<editor>"), "filename"),
            versions={str(k): str(v) for k, v in _R.obj(doc.get("versions", {}), "versions").items()},
            saved_at=_R.str_(doc.get("saved_at", ""), "saved_at"),
            notes=_R.strs(doc.get("notes", []), "notes", long=True),
            args=_R.strs(run.get("args", []), "run.args", long=True),
            cwd=_R.str_(run.get("cwd"), "run.cwd", optional=True) or None,
        )
    except RecursionError:
        raise DocumentError("not a valid session: the document is nested too deeply") from None
    except DocumentError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:
        # A shape of value our checks did not foresee: still one clear sentence.
        raise DocumentError(f"not a valid session: {type(exc).__name__}: {exc}") from None


def not_a_regular_file(info: os.stat_result) -> str:
    """What a path is when it is not a regular file ("a named pipe (FIFO)", ...), else "".

    Reading a FIFO or a terminal blocks forever and a device never ends, so
    every file gradexplorer opens (sessions, scripts) is checked first.
    """
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def load_session(path: str | os.PathLike, *, max_bytes: int = MAX_FILE_BYTES,
                 records_out: list | None = None, partial: PartialCapture | None = None) -> Session:
    """Open a session file without running its code.

    ``records_out`` receives the file's tensor records in their order (see
    :func:`add_late_stats`); ``partial``: see :func:`read_session_bytes`.

    Raises
    ------
    DocumentError
        For any problem: unreadable, too large, not JSON, not a session, a
        newer format, inconsistent content.
    """
    path = Path(path)
    try:
        info = path.stat()
    except OSError as exc:
        raise DocumentError(f"cannot open {path.name}: {exc.strerror or exc}") from None
    problem = not_a_regular_file(info)
    if problem:
        raise DocumentError(f"cannot open {path.name}: it is {problem}, not a session file")
    size = info.st_size
    if size > max_bytes:
        raise DocumentError(f"{path.name} is {size / 2**20:,.0f} MiB; sessions larger than "
                            f"{max_bytes / 2**20:,.0f} MiB are not opened")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    with paused_collection():  # as in save_session
        return read_session_bytes(data, name=path.name, max_bytes=max_bytes, records_out=records_out,
                                  partial=partial)


def add_late_stats(records: list, lines: bytes, *, name: str = "the statistics") -> int:
    """Give records read without statistics the ones sent after the document; returns how many.

    ``lines`` are ``[record number, statistics]`` JSON lines
    (:meth:`~gradexplorer.core.io.capture_json.TensorSink.late_stats_lines`),
    ``records`` the document's records (``records_out`` of :func:`load_session`).
    Checked like the document: a number names a record saved without values
    or statistics, the statistics are well-formed; anything else raises
    :class:`~gradexplorer.core.records.errors.DocumentError` and changes nothing.
    """
    updates, seen = [], set()
    for number, line in enumerate(lines.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise DocumentError(f"{name}: line {number} is not valid JSON ({exc})") from None
        if type(item) is not list or len(item) != 2 or type(item[0]) is not int or not 0 <= item[0] < len(records):
            raise DocumentError(f"{name}: line {number} is not [the number of a record, its statistics]")
        record = records[item[0]]
        if record.summary is not None or record.data is not None or record.known_norm is None or item[0] in seen:
            raise DocumentError(f"{name}: line {number} gives statistics to record {item[0]}, which does not "
                                f"wait for them")
        seen.add(item[0])
        updates.append((record, _stats_from_dict(item[1], f"{name} line {number}")))
    for record, stats in updates:
        record.summary = stats
    return len(updates)


def session_from_capture(capture: Capture, *, view: ViewState = ViewState()) -> Session:
    """A session around a fresh capture."""
    return Session(code=capture.code, device=capture.device, capture=capture, view=view,
                   filename=capture.filename, versions=dict(capture.versions), args=tuple(capture.args),
                   cwd=capture.cwd or None)


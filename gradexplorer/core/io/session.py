"""The session document (``.gxsession``): save a capture, reopen it without running anything.

This module is the session itself (the document around the capture, its
versions and migrations, saving and opening); the jobs it relies on have a
module each: :mod:`~gradexplorer.core.io.container` (the zip members and the
safetensors value table), :mod:`~gradexplorer.core.io.decode` (records and
the capture back from JSON; :mod:`~gradexplorer.core.io.capture_json` writes
them), :mod:`~gradexplorer.core.io.validate` (typed reading of untrusted
JSON), :mod:`~gradexplorer.core.io.handover` (the isolated engine's parts)
and :mod:`~gradexplorer.core.io.files` (atomic writes, file checks).

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
                        file (:func:`~gradexplorer.core.io.handover.add_late_stats`);
``nodes.jsonl`` ...     the capture's long lists (``nodes``, ``edges``,
                        ``tensors``, ``explanations``, ``modules``), one JSON
                        item per line, deflated; in the document those lists
                        are empty and ``capture.members`` names their members
                        (files of the first format-2 release have
                        ``capture.nodes_member`` and ``nodes.jsonl`` only);
``values.safetensors``  every kept tensor value, in the ``safetensors``
                        format (a bounded JSON header and raw little-endian
                        bytes: no code runs when it is read), stored.

The isolated engine's hand-over sends the same container in parts
(:mod:`~gradexplorer.core.io.handover`).

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
(:data:`~gradexplorer.core.io.container.MAX_FILE_BYTES`); JSON nested too deeply for the parser is refused.
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

import datetime as _dt
import io
import json
import math
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from ..._version import __version__
from ..capture.run import versions
from ..collector import paused_collection
from ..records.capture import Capture
from ..records.errors import DocumentError
from ..records.phrases import phrase
from .capture_json import FORMAT as CAPTURE_FORMAT
from .capture_json import SCHEMA_VERSION as CAPTURE_SCHEMA
from .capture_json import DEFAULT_FILE_VALUES, InlineValues, TensorSink, capture_to_dict
from .container import (
    _DOCUMENT,
    _LINE_KEYS,
    _VALUES,
    MAX_FILE_BYTES,
    _deflated,
    _flat_modules,
    _line_member,
    _nested_modules,
    _read_lines,
    _write_lines,
    _write_pieces,
    _write_value_table,
    read_value_table,
)
from .decode import _TABLE, PartialCapture, capture_from_dict
from .files import _CancellableFile, not_a_regular_file, write_atomic
from .validate import _R, _json_int

__all__ = [
    "DEFAULT_FILE_VALUES",
    "FORMAT",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "SESSION_SUFFIX",
    "Session",
    "ViewState",
    "load_session",
    "read_session_bytes",
    "read_session_text",
    "save_session",
    "session_from_capture",
    "session_to_bytes",
    "session_to_dict",
    "write_session_container",
]

FORMAT = "gradexplorer.session"
#: 3: every tensor record once, by number; 2: zip container with a safetensors value table;
#: 1: plain JSON with inline values.
SCHEMA_VERSION = 3


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
def session_to_dict(session: Session, *, file_values: int = DEFAULT_FILE_VALUES,
                    sink: TensorSink | None = None, nodes_sent: bool = False) -> dict[str, Any]:
    """The session as a JSON-ready document (values within the file budget).

    Without ``sink`` values are inline JSON lists (format 1 style, readable by
    :func:`read_session_text`); with one they go to its binary table.
    ``nodes_sent`` says the graph nodes went ahead in parts already (see
    :func:`~gradexplorer.core.io.capture_json.capture_to_dict`).
    """
    values = sink if sink is not None else InlineValues(file_values)
    captured = capture_to_dict(session.capture, sink=values, nodes_sent=nodes_sent)
    summarised_records = values.summarised
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


def session_to_bytes(session: Session, *, file_values: int = DEFAULT_FILE_VALUES) -> bytes:
    """The session as a format-3 container in memory (:func:`write_session_container` into a buffer)."""
    buffer = io.BytesIO()
    with paused_collection():
        write_session_container(session, buffer, file_values=file_values)
    return buffer.getvalue()


def write_session_container(session: Session, fh: BinaryIO, *, file_values: int = DEFAULT_FILE_VALUES,
                            compress: bool = True, defer_stats: bool = False, stats_first=(),
                            sink: TensorSink | None = None,
                            should_stop: Callable[[], bool] | None = None) -> TensorSink:
    """Write the session as a format-3 container (the document, its long lists as JSON lines, the value table).

    Each item of the capture's long lists (:data:`~gradexplorer.core.io.container._LINE_KEYS`: graph nodes,
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
    (the hand-over again: see :func:`~gradexplorer.core.io.handover.add_late_stats`), except those of the
    records in ``stats_first``. ``sink``: the
    :class:`~gradexplorer.core.io.capture_json.TensorSink` (made with
    ``file_values``) that :func:`~gradexplorer.core.io.capture_json.send_nodes`
    already sent the graph nodes with, a part at a time (the hand-over again:
    the isolated child sends them as soon as the graph is built, see
    :func:`~gradexplorer.core.io.handover.write_capture_part`); the container holds the rest, and the
    sink's own ``defer_stats`` and ``stats_first`` apply. ``should_stop``
    (with no ``sink``): asked while the records are encoded, before anything
    is written (see :class:`~gradexplorer.core.io.capture_json.TensorSink`).

    Returns
    -------
    TensorSink
        What encoded the records.
    """
    nodes_sent = sink is not None
    if sink is None:
        sink = TensorSink(file_values, defer_stats=defer_stats, stats_first=stats_first, should_stop=should_stop)
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


def save_session(session: Session, path: str | os.PathLike, *, file_values: int = DEFAULT_FILE_VALUES,
                 private: bool = False, should_stop: Callable[[], bool] | None = None) -> None:
    """Write ``session`` to ``path`` atomically (temp file, fsync, rename). Any thread: it only reads plain data.

    The container is written straight into the temporary file, a piece at a
    time (:func:`write_session_container`). The cyclic GC is paused
    meanwhile: encoding makes hundreds of thousands of small objects, and a
    full collection over them (and over the capture) is one long C call that
    holds the GIL, a frozen GUI thread for half a second even though the
    work runs in a job. ``private``: a new file is the user's alone (0600),
    see :func:`~gradexplorer.core.io.files.write_atomic`. ``should_stop``: polled while the records are
    encoded and at each piece written; once true the save raises
    :class:`~gradexplorer.core.io.files.SaveCancelled` and leaves ``path`` as it was (the app's autosave
    of a capture that a new run supersedes).
    """
    def write(fh: BinaryIO) -> None:
        write_session_container(session, fh if should_stop is None else _CancellableFile(fh, should_stop),
                                file_values=file_values, should_stop=should_stop)

    with paused_collection():
        write_atomic(Path(path), write, private=private)


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
            raise DocumentError(phrase(
                "this session was made by gradexplorer {made_by} or newer (session format {version}); this is "
                "gradexplorer {this}, which reads format {reads}: please upgrade gradexplorer", made_by=made_by,
                version=version, this=__version__, reads=SCHEMA_VERSION))
        step = MIGRATIONS.get((fmt, version))
        if step is None or seen > 10:
            if fmt in (FORMAT, CAPTURE_FORMAT):
                raise DocumentError(phrase("this file has an unknown {format} version ({version})", format=fmt,
                                           version=repr(version)))
            raise DocumentError(phrase("this is not a gradexplorer session (no 'format': 'gradexplorer.session' in "
                                       "it)"))
        doc = step(doc)
        seen += 1


def read_session_bytes(data: bytes, *, name: str = "the file", max_bytes: int = MAX_FILE_BYTES,
                       records_out: list | None = None, partial: PartialCapture | None = None) -> Session:
    """Read a session from its bytes: a format-2/3 container, or format-1 / capture document JSON text.

    ``partial``: what the parts sent ahead of this container gave
    (:func:`~gradexplorer.core.io.handover.read_capture_part`); it is used up.
    """
    if partial is not None and data[:4] != b"PK\x03\x04":
        raise DocumentError(f"{name} is not a session container")
    if data[:4] != b"PK\x03\x04":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise DocumentError(phrase("{name} is not a session file (neither a session container nor UTF-8 text)",
                                       name=name)) from None
        return read_session_text(text)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = {info.filename: info for info in zf.infolist()}
            if _DOCUMENT not in members:
                raise DocumentError(phrase("{name} is a zip file but not a gradexplorer session (no {member} in it)",
                                           name=name, member=_DOCUMENT))
            total = sum(info.file_size for info in members.values()) + (0 if partial is None else partial.size)
            if total > max_bytes:
                raise DocumentError(phrase("{name} unpacks to {size} MiB; sessions larger than {most} MiB are not "
                                           "opened", name=name, size=f"{total / 2**20:,.0f}",
                                           most=f"{max_bytes / 2**20:,.0f}"))
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
            table = read_value_table(raw)
        except Exception as exc:  # noqa: BLE001 - a damaged table raises ValueError, JSON and struct errors
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


#: A ``bytes.translate`` table: ASCII digits to ``d``, the decimal point kept, every other byte a space
#: (:func:`_parse_json`).
_DIGIT_RUNS = bytes(0x64 if 0x30 <= b <= 0x39 else 0x2E if b == 0x2E else 0x20 for b in range(256))
#: Digits in a row from which an integer may not fit in 64 bits (-2**63 has 19).
_LONG_RUN = 19


def _parse_json(text: str):
    """The JSON text parsed as ``json.loads(text, parse_int=_json_int)`` parses it, by orjson where it is the same.

    orjson reads a 10,000-node ``capture --json`` document (142 MB) in 0.4 s
    where the json module takes 1.15 s, but it reads an integer beyond 64
    bits as a float (which ``_json_int`` refuses) and refuses NaN literals,
    infinities and deep nesting with other words. So a text with a run of
    19 or more digits that does not follow a decimal point (an integer that
    may not fit) goes to the json module, as does any text orjson refuses:
    the result, and every message about a damaged file, stay the json
    module's. Finding such a run: one ``bytes.translate`` and one ``find``
    (a regular expression took 0.5-1.9 s on that document).
    """
    raw = text.encode("utf-8", "surrogatepass")
    runs = raw.translate(_DIGIT_RUNS)
    if runs.find(b" " + b"d" * _LONG_RUN) < 0 and not runs.startswith(b"d" * _LONG_RUN):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # NaN literals, infinities, nesting too deep, lone surrogates: the json module says
    return json.loads(text, parse_int=_json_int)


def read_session_text(text: str, *, lists: dict[str, list] | None = None, records_out: list | None = None,
                      partial: PartialCapture | None = None) -> Session:
    """Parse and validate session JSON text (never executes anything).

    ``lists`` are the capture lists of a format-2/3 container read from their
    own members (``{"nodes": [...], ...}``); the document names those members
    in ``capture.members``; ``partial`` what parts sent ahead of them
    (:func:`~gradexplorer.core.io.handover.read_capture_part`).
    """
    try:
        doc = _parse_json(text)
    except RecursionError:
        raise DocumentError("not a valid session: the JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise DocumentError(phrase("not a session file: invalid JSON at line {line}, column {column} ({why}); the "
                                   "file may be truncated or damaged", line=exc.lineno, column=exc.colno,
                                   why=exc.msg)) from None
    except ValueError as exc:  # e.g. numbers too long to convert
        raise DocumentError(f"not a valid session: {exc}") from None
    if not isinstance(doc, dict):
        raise DocumentError(phrase("this is not a gradexplorer session (the JSON is not an object)"))
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


def load_session(path: str | os.PathLike, *, max_bytes: int = MAX_FILE_BYTES,
                 records_out: list | None = None, partial: PartialCapture | None = None) -> Session:
    """Open a session file without running its code.

    ``records_out`` receives the file's tensor records in their order (see
    :func:`~gradexplorer.core.io.handover.add_late_stats`); ``partial``: see :func:`read_session_bytes`.

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
        raise DocumentError(phrase("cannot open {name}: {why}", name=path.name,
                                   why=str(exc.strerror or exc))) from None
    problem = not_a_regular_file(info)
    if problem:
        raise DocumentError(phrase("cannot open {name}: it is {problem}, not a session file", name=path.name,
                                   problem=problem))
    size = info.st_size
    if size > max_bytes:
        raise DocumentError(phrase("{name} is {size} MiB; sessions larger than {most} MiB are not opened",
                                   name=path.name, size=f"{size / 2**20:,.0f}", most=f"{max_bytes / 2**20:,.0f}"))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(phrase("cannot read {name}: {why}", name=path.name,
                                   why=str(exc.strerror or exc))) from None
    with paused_collection():  # as in save_session
        return read_session_bytes(data, name=path.name, max_bytes=max_bytes, records_out=records_out,
                                  partial=partial)


def session_from_capture(capture: Capture, *, view: ViewState = ViewState()) -> Session:
    """A session around a fresh capture."""
    return Session(code=capture.code, device=capture.device, capture=capture, view=view,
                   filename=capture.filename, versions=dict(capture.versions), args=tuple(capture.args),
                   cwd=capture.cwd or None)

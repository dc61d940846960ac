"""The isolated engine's hand-over: a session container sent in parts while the child still writes it.

The isolated engine's hand-over sends the same container in parts, so that
the app checks the graph while the child still writes it: each *part*
(:func:`write_capture_part`, read by :func:`read_capture_part`) is a zip
with ``records.jsonl``, ``nodes.jsonl`` and ``values.safetensors`` only,
holding the next graph nodes with the records and values they brought first
(numbers and table keys go on from part to part); the container that
follows holds everything else, its ``nodes.jsonl`` empty and its
``records.jsonl`` starting at the next number. The same checks read both.

The part that ends the graph's nodes may also hold ``preview.json``: the
capture document of what the first picture needs (the passes, the program's
output and error; no nodes, its records numbered among the parts'), sent as
soon as the child's build has made it. The app draws it while the child makes
the named tensors, the module audit and the explanations
(:attr:`~gradexplorer.core.io.decode.PartialCapture.preview`).

Statistics the child had not computed yet follow the container
(:func:`add_late_stats`).
"""

from __future__ import annotations

import io
import zipfile
from typing import BinaryIO

import orjson
import torch

from ..records.capture import Capture
from ..records.errors import DocumentError
from .container import (
    _VALUES,
    MAX_FILE_BYTES,
    _deflated,
    _line_member,
    _read_lines,
    _write_lines,
    _write_pieces,
    _write_value_table,
    read_value_table,
)
from .decode import (
    _RECORDS,
    _TABLE,
    PartialCapture,
    _add_nodes,
    _read_records,
    _stats_from_dict,
    capture_from_dict,
)
from .validate import _R

__all__ = ["add_late_stats", "read_capture_part", "write_capture_part"]


def write_capture_part(fh: BinaryIO, node_lines: list[bytes], records: list[dict],
                       values: dict[str, torch.Tensor], *, preview: bytes | None = None) -> None:
    """One part of a container sent in parts (see the module docstring), stored, not deflated.

    The arguments are what :func:`~gradexplorer.core.io.capture_json.send_nodes`
    hands out; ``fh`` a seekable binary file opened for writing. The isolated
    engine's child writes one per 2,000 graph nodes, and the app reads each
    (:func:`read_capture_part`) while the child encodes the next. ``preview``:
    the preview document's JSON text (see the module docstring), in the part
    after the last nodes.
    """
    with zipfile.ZipFile(fh, "w") as zf:
        _write_lines(zf, _deflated(_line_member("records"), False), records)
        _write_lines(zf, _deflated(_line_member("nodes"), False), node_lines)
        _write_value_table(zf, _deflated(_VALUES, False), values)
        if preview is not None:
            _write_pieces(zf, _deflated(_PREVIEW, False), preview)


#: The members of a part (:func:`write_capture_part`).
_PART_MEMBERS = frozenset({_line_member("records"), _line_member("nodes"), _VALUES})
#: The member of the part that ends the nodes: the preview document.
_PREVIEW = "preview.json"


def read_capture_part(data: bytes, partial: PartialCapture, *, name: str = "the part",
                      max_bytes: int = MAX_FILE_BYTES) -> None:
    """Check one part of a container sent in parts (:func:`write_capture_part`) and add it to ``partial``.

    The records, nodes and values go through the same checks as a whole
    file's; the container that ends the parts is then read with
    ``read_session_bytes(..., partial=partial)``.

    Raises
    ------
    DocumentError
        As :func:`~gradexplorer.core.io.session.read_session_bytes` does; ``partial`` is then of no use.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            names = {info.filename for info in infos}
            if names - {_PREVIEW} != _PART_MEMBERS or len(infos) != len(names):
                raise DocumentError(f"{name} is not a part of a session container (its members are "
                                    f"{sorted(info.filename for info in infos)[:5]})")
            partial.size += sum(info.file_size for info in infos)
            if partial.size > max_bytes:
                raise DocumentError(f"{name} brings the capture past {max_bytes / 2**20:,.0f} MiB; sessions "
                                    f"larger than that are not opened")
            records = _read_lines(zf, "records", name)
            nodes = _read_lines(zf, "nodes", name)
            raw = zf.read(_VALUES)
            preview = zf.read(_PREVIEW) if _PREVIEW in names else None
    except DocumentError:
        raise
    except Exception as exc:  # noqa: BLE001 - as in read_session_bytes: one clear sentence
        raise DocumentError(f"{name} is a damaged part of a session container ({type(exc).__name__}: {exc})") from None
    try:
        table = read_value_table(raw)
    except Exception as exc:  # noqa: BLE001 - a damaged table raises ValueError, JSON and struct errors
        raise DocumentError(f"{name}: the value table is damaged ({type(exc).__name__}: {exc})") from None
    partial.add_table(table, name)
    table_token, records_token = _TABLE.set(partial.table), _RECORDS.set(partial.records)
    try:
        _read_records(records, partial.records, consume=True)
        _add_nodes(partial.graph, nodes, consume=True)
        if preview is not None:
            partial.preview = _preview_capture(preview, partial)
    except DocumentError as exc:
        raise DocumentError(f"{name}: {exc}") from None
    except RecursionError:
        raise DocumentError(f"{name}: not a valid session: the document is nested too deeply") from None
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:  # as in read_session_text
        raise DocumentError(f"{name}: not a valid session: {type(exc).__name__}: {exc}") from None
    finally:
        _TABLE.reset(table_token)
        _RECORDS.reset(records_token)


def _preview_capture(text: bytes, partial: PartialCapture) -> Capture:
    """The preview document of a part, checked as a capture document, on the nodes and records read so far."""
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise DocumentError(f"{_PREVIEW} is not valid JSON ({exc})") from None
    doc = _R.obj(doc, "the preview")
    if doc.get("nodes") or doc.get("records"):
        raise DocumentError(f"not a valid session: {_PREVIEW} holds nodes or records (they come in the parts)")
    return capture_from_dict({**doc, "records": []}, partial=partial)


def add_late_stats(records: list, lines: bytes, *, name: str = "the statistics") -> int:
    """Give records read without statistics the ones sent after the document; returns how many.

    ``lines`` are ``[record number, statistics]`` JSON lines
    (:meth:`~gradexplorer.core.io.capture_json.TensorSink.late_stats_lines`),
    ``records`` the document's records (``records_out`` of :func:`~gradexplorer.core.io.session.load_session`).
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

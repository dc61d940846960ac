"""The capture document as JSON-ready plain data (documented in docs/capture-json.md).

:func:`capture_to_dict` turns a :class:`~gradexplorer.core.records.capture.Capture`
into dicts, lists, strings and numbers only. It is the body of the CLI's
``--json`` file and the part of a session document that holds the capture.

Encoding rules
--------------
* Frozen records (dataclasses) become objects with their field names.
* A :class:`~gradexplorer.core.records.tensors.TensorRecord` becomes
  ``{"shape", "dtype", "device", "requires_grad", "values", "stats", "note"}``;
  ``values`` is the nested list of values (``null`` above the value cap),
  complex numbers as ``[re, im]`` pairs.
* JSON has no NaN or Infinity: non-finite floats are written as the strings
  ``"nan"``, ``"inf"`` and ``"-inf"`` (everywhere: values, stats, heads).
* Dict keys that are ints (pass indices) become strings.
* With a :class:`TensorSink` (session files), every record is written once
  into the document's ``records`` list and appears elsewhere as its number;
  its values go to the sink's binary table.
* Values are kept only for :data:`VALUE_DTYPES`; a record of another dtype
  (quantized) keeps its statistics and a note.
"""

from __future__ import annotations

import base64
import collections.abc
import dataclasses
import math
from collections.abc import Callable
from typing import Any, BinaryIO

import orjson
import torch

from ..records.figures import FigureImage
from ..records.notes import FILE_BUDGET, FILE_BUDGET_OF, NOT_IN_FILES
from ..records.notes import joined, note_text
from ..records.tensors import STOP_POLL_RECORDS, TensorRecord, TensorStats, fill_stats, finite_norm
from .container import _dumps_line
from .files import SaveCancelled

__all__ = ["DEFAULT_FILE_VALUES", "FORMAT", "PAIRED_DTYPES", "SCHEMA_VERSION", "VALUE_DTYPES", "InlineValues",
           "TensorSink", "capture_to_dict", "encode_line", "record_to_dict", "send_nodes", "stats_to_dict",
           "to_jsonable", "write_capture_document"]

#: Dtypes whose values a document keeps, by name (``TensorRecord.dtype``). Their values can be rebuilt
#: from JSON numbers and held by the value table (complex128 and complex32 as pairs of their real dtype:
#: the table has no such types). Records of other dtypes (quantized, newer ones) keep their statistics
#: and a note: a file that could not be read back, or a save that fails, would lose the whole capture.
VALUE_DTYPES: dict[str, torch.dtype] = {
    name: getattr(torch, name)
    for name in ("float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128", "bool",
                 "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                 "float8_e4m3fn", "float8_e5m2")
    if isinstance(getattr(torch, name, None), torch.dtype)
}
#: Dtypes the value table holds as real pairs (``torch.view_as_real``), and the real dtype of the pair.
PAIRED_DTYPES: dict[str, torch.dtype] = {"complex32": torch.float16, "complex128": torch.float64}


def _values_not_kept(record: TensorRecord) -> str:
    return note_text(NOT_IN_FILES, dtype=record.dtype)


#: Numbers of tensor values one file keeps, sessions and capture documents alike (about 50 MB of JSON),
#: spent in document order (graph nodes first); records past it keep their statistics and a note.
DEFAULT_FILE_VALUES = 5_000_000

#: ``format`` field of a capture document.
FORMAT = "gradexplorer.capture"
#: Bumped on any incompatible change; readers refuse newer major versions.
SCHEMA_VERSION = 1


def _number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, complex):
        return [_number(value.real), _number(value.imag)]
    return value


def _clean(values: Any) -> Any:
    """Replace non-finite floats in a nested list (only called when needed)."""
    if isinstance(values, list):
        return [_clean(v) for v in values]
    return _number(values)


class TensorSink:
    """Collects record values for a binary table (a session's ``values.safetensors``) instead of JSON lists.

    Parameters
    ----------
    budget : int
        Most numbers kept in all; records past it are saved as summaries
        (their ``note`` says so). Spent in document order, so graph nodes
        (written first) keep their values before the passes and tensor lists.

    Values are stored once per distinct view (same address, shape, strides
    and dtype): a node's output and the next node's saved input are often the
    same memory in records made at different moments.

    Every record is written once, into :attr:`records` (the document's
    ``records`` list); where it appears it is its number in that list. A
    record object seen twice (a gradient is often both a node's input
    gradient and its child's output gradient, two fifths of a training
    step's records) is written, and read back, once.

    ``should_stop``, when given, is asked every
    :data:`~gradexplorer.core.records.tensors.STOP_POLL_RECORDS` records
    encoded and while :meth:`fill_stats` computes; once it says so,
    :class:`~gradexplorer.core.io.files.SaveCancelled` is raised. Encoding a
    50,000-node capture is 2-4 s before the first byte is written: a save
    that only looked between pieces of the file went on that long after a
    new Run had superseded it, sharing the interpreter with the run.
    """

    def __init__(self, budget: int, *, defer_stats: bool = False, stats_first=(),
                 should_stop: Callable[[], bool] | None = None) -> None:
        self.budget = budget
        self.should_stop = should_stop
        self._encoded = 0  # calls of encode(), for should_stop
        #: Leave the statistics of records saved without values out of :attr:`records` (``null``, with
        #: their ``norm``), to be sent after the document by :meth:`late_stats_lines` (the isolated
        #: engine's hand-over).
        self.defer_stats = defer_stats
        #: Ids of the records whose statistics go with the document even with ``defer_stats`` (those the
        #: first picture reads: the parameters' gradients; the records stay alive in the capture).
        self._stats_first = frozenset(id(record) for record in stats_first)
        self._first_awaiting: list[tuple[dict, TensorRecord]] = []
        self._keys: dict[tuple, str] = {}  # view -> table key
        self._norms: dict[tuple, float | None] = {}  # view -> finite_norm
        self.tensors: dict[str, torch.Tensor] = {}
        self.summarised = 0
        self.records: list[dict] = []
        #: Records and table keys handed out by :meth:`take` (they number before :attr:`records`).
        self.taken_records = 0
        self._table_keys = 0
        self._numbers: dict[int, int] = {}
        self._stats: dict[int, dict] = {}
        self._kept_alive: list = []  # the objects whose ids key the two memos
        self._awaiting_stats: list[tuple[dict, TensorRecord]] = []

    def encode(self, record: TensorRecord) -> int:
        """The number of ``record`` in :attr:`records`, where its JSON form is added the first time.

        The form: values a key into the table, or a summary once the budget
        is used.
        """
        self._encoded += 1
        if self._encoded % STOP_POLL_RECORDS == 0:
            self.stop_if_asked()
        number = self._numbers.get(id(record))
        if number is not None:
            return number
        note = record.note
        out = {"shape": list(record.shape), "dtype": record.dtype, "device": record.device,
               "requires_grad": record.requires_grad}
        storable = record.data is not None and record.dtype in VALUE_DTYPES
        key = self.add(record.data, record.dtype) if storable else None
        if storable and key is None:
            self.summarised += 1
        if key is not None:
            # The statistics follow from the values: computed again, lazily, when shown.
            out["data"] = key
            if note:
                out["note"] = note
        else:
            if record.data is not None:
                extra = (note_text(FILE_BUDGET) if storable
                         else _values_not_kept(record))
                note = joined(note, extra)
            out["values"] = None
            out["stats"] = None
            out["note"] = note
            first = id(record) in self._stats_first
            if self.defer_stats and record.summary is None and not first:
                # Sent later, but the norm now (the overview needs it), unless the values hold NaN/Inf or are
                # not float32/64 (then the statistics are computed here, as they are without a source).
                norm = self._norm(record)
                if norm is not None:
                    out["norm"] = norm
                else:
                    record.stats  # noqa: B018 - fills the cache (None where values cannot be read)
            if record.summary is not None:
                out["stats"] = self._stats_dict(record.summary)
            elif self.defer_stats and first:
                self._first_awaiting.append((out, record))
            elif "norm" in out or not self.defer_stats:
                self._awaiting_stats.append((out, record))
        number = self._numbers[id(record)] = self.taken_records + len(self.records)
        self.records.append(out)
        self._kept_alive.append(record)
        return number

    def stop_if_asked(self) -> None:
        """Raise :class:`~gradexplorer.core.io.files.SaveCancelled` if ``should_stop`` says so."""
        if self.should_stop is not None and self.should_stop():
            raise SaveCancelled("the save was cancelled")

    def _fill_or_stop(self, records: list[TensorRecord]) -> None:
        """:func:`~gradexplorer.core.records.tensors.fill_stats` of ``records``; raises where ``should_stop`` ended it."""
        if not fill_stats(records, should_stop=self.should_stop):
            raise SaveCancelled("the save was cancelled")

    def _norm(self, record: TensorRecord) -> float | None:
        """:func:`~gradexplorer.core.records.tensors.finite_norm` of the record's values, once per distinct view."""
        source = record.stats_source()
        if source is None:
            return None
        view = (source.data_ptr(), tuple(source.shape), source.stride(), source.dtype, source.device)
        if view in self._norms:
            return self._norms[view]
        self._kept_alive.append(source)  # its address keys the memo
        norm = self._norms[view] = finite_norm(source)
        return norm

    def default(self, obj: Any) -> Any:
        """orjson's hook for what it cannot write itself (:func:`encode_line`): a record is its number."""
        if type(obj) is TensorRecord:
            return self.encode(obj)
        return to_jsonable(obj, self)

    def _stats_dict(self, stats: TensorStats) -> dict[str, Any]:
        out = self._stats.get(id(stats))
        if out is None:
            out = self._stats[id(stats)] = stats_to_dict(stats)
            self._kept_alive.append(stats)
        return out

    def fill_stats(self) -> None:
        """Compute the statistics :meth:`encode` put off, all at once (:func:`~gradexplorer.core.records.tensors.fill_stats`).

        A record saved without its values carries statistics, most of them
        never computed in the run (they are lazy); one by one they were two
        thirds of the time to write a fresh 10,000-node capture. With
        ``defer_stats``, only those of the ``stats_first`` records.
        """
        if self.defer_stats:
            awaiting, self._first_awaiting = self._first_awaiting, []
        else:
            awaiting, self._awaiting_stats = self._awaiting_stats, []
        self._fill_or_stop([record for _, record in awaiting])
        for index, (out, record) in enumerate(awaiting):
            if index % STOP_POLL_RECORDS == 0:
                self.stop_if_asked()
            stats = record.stats
            out["stats"] = None if stats is None else self._stats_dict(stats)

    def take(self) -> tuple[list[dict], dict[str, torch.Tensor]]:
        """The records and table values encoded since the last call, leaving :attr:`records` and :attr:`tensors` empty.

        For a document sent in parts (the isolated engine's hand-over,
        :func:`~gradexplorer.core.io.handover.write_capture_part`): numbers
        and keys go on from where the last part ended, and a record met again
        later is still its number, in the part that held it. The statistics
        :meth:`fill_stats` would add are added first.
        """
        self.fill_stats()
        records, tensors = self.records, self.tensors
        self.taken_records += len(records)
        self.records, self.tensors = [], {}
        return records, tensors

    def late_stats_lines(self):
        """Compute the put-off statistics and yield them as JSON lines ``[record number, statistics]``.

        With ``defer_stats`` the document goes first with these statistics
        ``null``: the isolated engine's child computes them (about 0.45 s of
        numpy on a 10,000-node training step) once the app has read the
        document and made its first picture, and the app adds them to the
        records it read
        (:func:`~gradexplorer.core.io.handover.add_late_stats`). Records whose
        values cannot be read are not listed (they keep no statistics).
        """
        awaiting, self._awaiting_stats = self._awaiting_stats, []
        self._fill_or_stop([record for _, record in awaiting])
        for _, record in awaiting:
            stats = record.stats
            if stats is not None:
                yield orjson.dumps([self._numbers[id(record)], self._stats_dict(stats)])

    def add(self, data: torch.Tensor, dtype_name: str) -> str | None:
        """The table key of these values (a record's of dtype ``dtype_name``), or None when the budget is used up."""
        view = (data.data_ptr(), tuple(data.shape), data.stride(), data.dtype)
        key = self._keys.get(view)
        if key is not None:
            return key
        count = data.numel()
        if count <= self.budget:
            self.budget -= count
            key = self._keys[view] = f"t{self._table_keys}"
            self._table_keys += 1
            self._kept_alive.append(data)  # its address keys the memo
            # No copy: records' values are frozen copies already, and the table is written from them.
            data = data.detach().resolve_conj().resolve_neg()
            self.tensors[key] = torch.view_as_real(data) if dtype_name in PAIRED_DTYPES else data
        return key


class InlineValues:
    """Keeps record values inline (``values`` lists) within a file's budget: the streamed capture document.

    A sink for :func:`to_jsonable` as :class:`TensorSink` is, but records stay
    where they appear, in the documented form, values included until
    ``budget`` numbers are spent (in document order: graph nodes first);
    later records keep their statistics and a note saying why their values
    are missing, as a session's do.
    """

    def __init__(self, budget: int = DEFAULT_FILE_VALUES) -> None:
        self.budget = budget
        self.left = budget
        #: Records written without their values because the budget was used.
        self.summarised = 0

    def encode(self, record: TensorRecord) -> dict[str, Any]:
        data = record.data
        if data is not None and record.dtype in VALUE_DTYPES:
            count = data.numel()
            if count > self.left:
                self.summarised += 1
                return record_to_dict(record, dropped=note_text(FILE_BUDGET_OF, budget=f"{self.budget:,}"))
            self.left -= count
        return record_to_dict(record)


def record_to_dict(record: TensorRecord, sink: TensorSink | InlineValues | None = None, *,
                   dropped: str = "") -> dict[str, Any] | int:
    """JSON form of one tensor record, values inline; with ``sink``, what the sink makes of it.

    A :class:`TensorSink` gives the record's number in ``sink.records``; an
    :class:`InlineValues` the inline form within its budget. ``dropped``:
    leave the values out, with this note (the file's budget is used).
    """
    if sink is not None:
        return sink.encode(record)
    values = None
    data = record.data
    note = record.note
    if data is not None and record.dtype not in VALUE_DTYPES:
        data = None
        note = joined(note, _values_not_kept(record))
    elif data is not None and dropped:
        data = None
        note = joined(note, dropped)
    stats = record.stats
    if data is not None:
        if data.is_complex():
            # view_as_real refuses a tensor with an unresolved conjugate bit (x.conj()).
            values = _clean(torch.view_as_real(data.resolve_conj()).tolist())
        else:
            values = data.tolist()
            if stats is not None and stats.has_nonfinite:
                values = _clean(values)
    return {
        "shape": list(record.shape),
        "dtype": record.dtype,
        "device": record.device,
        "requires_grad": record.requires_grad,
        "values": values,
        "stats": None if stats is None else stats_to_dict(stats),
        "note": note,
    }


#: Types written as they are.
_ATOMS = frozenset({type(None), bool, int, str})
#: Field names of each dataclass met so far (``dataclasses.fields`` costs microseconds a call).
_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    names = _FIELD_NAMES.get(kind, ())
    if names == ():
        names = tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else None
        _FIELD_NAMES[kind] = names
    return names


def _floats(values: tuple) -> list:
    """A tuple of numbers (a statistics head or tail) as a list, non-finite floats and complex numbers spelled out."""
    if all((type(v) is float and v - v == 0.0) or type(v) is int for v in values):
        return list(values)
    return [_number(v) for v in values]


def stats_to_dict(stats: TensorStats) -> dict[str, Any]:
    """JSON form of :class:`~gradexplorer.core.records.tensors.TensorStats` (the most common record: one per tensor)."""
    return {"min": _number(stats.min), "max": _number(stats.max), "mean": _number(stats.mean),
            "std": _number(stats.std), "nan_count": stats.nan_count, "inf_count": stats.inf_count,
            "head": _floats(stats.head), "tail": _floats(stats.tail)}


def to_jsonable(obj: Any, sink: TensorSink | None = None) -> Any:
    """Convert records, tuples and dicts recursively into JSON-ready data.

    Dispatches on the exact type first (a capture has hundreds of thousands
    of small values; the ``isinstance`` ladder and ``dataclasses.fields``
    per object were two thirds of the time to save a 10,000-node session).
    """
    kind = type(obj)
    if kind in _ATOMS:
        return obj
    if kind is float:
        return obj if obj - obj == 0.0 else _number(obj)
    if kind is TensorRecord:
        return record_to_dict(obj, sink)
    if kind is TensorStats:
        return stats_to_dict(obj)
    if kind is tuple or kind is list:
        return [to_jsonable(v, sink) for v in obj]
    if kind is dict:
        return {(k if type(k) is str else str(k)): to_jsonable(v, sink) for k, v in obj.items()}
    names = _field_names(kind)
    if names is not None:
        return {name: to_jsonable(getattr(obj, name), sink) for name in names}
    # Subclasses of the types above (an IntEnum, a namedtuple), then anything else as its repr.
    if isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, (float, complex)):
        return _number(obj)
    if isinstance(obj, TensorRecord):
        return record_to_dict(obj, sink)
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v, sink) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v, sink) for v in obj]
    return repr(obj)


def encode_line(item: Any, sink: TensorSink) -> bytes:
    """One item of a capture's long lists as a JSON line, records as their numbers in ``sink``.

    The same text as ``orjson.dumps(to_jsonable(item, sink))``, written by
    orjson from the objects themselves (dataclasses, tuples, int-keyed dicts)
    with only the tensor records handed back to Python: a quarter of the time
    to write a 10,000-node capture's nodes. That equality holds because orjson
    writes a dataclass as its fields, in order, as :func:`to_jsonable` does, and
    because no field of the records these lists hold is a float outside a
    :class:`~gradexplorer.core.records.tensors.TensorRecord` (orjson would
    write a NaN as ``null`` where :func:`to_jsonable` spells it ``"nan"``);
    ``tests/core/test_capture_json_lines.py`` checks both.
    """
    try:
        return orjson.dumps(item, default=sink.default, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError as exc:  # e.g. an integer beyond 64 bits, which the readers refuse too
        if isinstance(exc.__cause__, SaveCancelled):  # orjson wraps what its ``default`` raised
            raise exc.__cause__ from None
        raise ValueError(f"cannot be saved as JSON: {exc}") from None


#: Graph nodes per part of a document sent in parts (:func:`send_nodes`).
NODES_PER_PART = 2000


def send_nodes(graph, sink: TensorSink, on_nodes: Callable[[list[bytes], list[dict], dict], None]) -> None:
    """Encode ``graph``'s nodes into ``sink`` and hand them to ``on_nodes`` a part at a time.

    Every :data:`NODES_PER_PART` nodes, and the last few, go to
    ``on_nodes(node_lines, records, values)`` as soon as they are encoded,
    with the records and table values they brought (:meth:`TensorSink.take`),
    so that a reader can check them while the rest is written (the isolated
    engine's hand-over). The rest of the document is then written with the
    same ``sink`` (``capture_to_dict(..., sink=sink, nodes_sent=True)``).
    """
    part: list[bytes] = []
    for line in _node_lines(graph, sink):
        part.append(line)
        if len(part) >= NODES_PER_PART:
            on_nodes(part, *sink.take())
            part = []
    if part:
        on_nodes(part, *sink.take())


def _node_lines(graph, sink: TensorSink):
    """Each graph node as a JSON line, its records encoded into ``sink``.

    The path text follows from ``path_via``; the reader rebuilds it (deep
    graphs would spend most of the document on it).
    """
    for node_id, attrs in graph.nodes(data=True):
        yield encode_line({"id": node_id, **attrs, "path": None}, sink)


def figure_to_dict(figure: FigureImage) -> dict:
    """A matplotlib figure of the capture: its PNG in base64 (``png``), number, title, size, shown."""
    return {"number": figure.number, "title": figure.title, "width": figure.width, "height": figure.height,
            "shown": figure.shown, "png": base64.b64encode(figure.png).decode("ascii")}


def _head(capture) -> dict[str, Any]:
    """The document's fields before its long lists: what ran, how, what it printed, its figures."""
    graph = capture.graph
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "versions": dict(capture.versions),
        "filename": capture.filename,
        "device": capture.device,
        "code": capture.code,
        "executed": capture.executed,
        "ok": capture.ok,
        "error": to_jsonable(capture.error),
        "stdout": capture.stdout,
        "stderr": capture.stderr,
        "dropped_ops": capture.dropped_ops,
        "restored": [to_jsonable(note) for note in capture.restored],
        "args": list(capture.args),
        "cwd": capture.cwd,
        "root": capture.root,
        "files": dict(capture.files),
        "figures": [figure_to_dict(figure) for figure in capture.figures],
        "timings": to_jsonable(capture.timings),
        "roots": list(graph.graph.get("roots", ())),
        "module_types": dict(graph.graph.get("module_types", {})),
    }


def _inline_nodes(graph, sink: InlineValues | None):
    """Each graph node as a JSON-ready item, values inline."""
    for node_id, attrs in graph.nodes(data=True):
        item = {"id": node_id}
        item.update((key, to_jsonable(value, sink)) for key, value in attrs.items())
        yield item


def _edges(graph):
    for u, v, d in graph.edges(data=True):
        yield {"source": u, "target": v, "slot": d["slot"], "input_nr": d["input_nr"], "slots": list(d["slots"])}


def capture_to_dict(capture, *, sink: TensorSink | InlineValues | None = None,
                    nodes_sent: bool = False) -> dict[str, Any]:
    """The whole capture as a JSON-ready dict (see docs/capture-json.md).

    With ``sink``, tensor values go to its binary table (records carry a
    ``data`` key instead of ``values``), the graph nodes come first, and the
    items of ``nodes``, ``tensors`` and ``explanations`` are already JSON lines
    (``bytes``, :func:`encode_line`) for the session container.

    With ``sink`` and ``nodes_sent``, the graph nodes are not in the
    document: :func:`send_nodes` has sent them in parts with this sink, and
    the document's ``records`` are those that came after the last part.

    Without ``sink`` every value is inline and nothing is capped by a file
    budget; with an :class:`InlineValues` they are inline within its budget
    (a format-1 session). For a capture of any size,
    :func:`write_capture_document` writes the same document a piece at a
    time, within a budget.
    """
    graph = capture.graph
    inline = not isinstance(sink, TensorSink)
    nodes = []
    if inline:
        nodes = list(_inline_nodes(graph, sink))
    elif not nodes_sent:
        nodes = list(_node_lines(graph, sink))
    document = {
        **_head(capture),
        "nodes": nodes,
        "edges": list(_edges(graph)),
        "value_elements": capture.value_elements,
        "passes": to_jsonable(capture.passes, sink),
        "tensors": (to_jsonable(capture.tensors, sink) if inline
                    else [encode_line(info, sink) for info in capture.tensors]),
        "explanations": (to_jsonable(capture.explanations) if inline
                         else [encode_line(explanation, sink) for explanation in capture.explanations]),
        "modules": to_jsonable(capture.modules, sink),
    }
    if not inline:
        sink.fill_stats()
        document["records"] = sink.records
    return document


#: Bytes of encoded items gathered before they are handed to the file.
_PIECE_BYTES = 1 << 20


def write_capture_document(capture, fh: BinaryIO, *, file_values: int = DEFAULT_FILE_VALUES) -> int:
    """Write the capture document (docs/capture-json.md) to ``fh`` an item at a time; return the records summarised.

    The same document as ``capture_to_dict(capture)`` (keys in the same
    order, values inline) except that at most ``file_values`` numbers of
    values are kept, spent in document order as a session spends them; the
    records past the budget keep their statistics and a note. Nothing the
    size of the document is ever held: each graph node, pass, tensor,
    explanation and module is made, encoded and handed to ``fh`` (a binary
    file) in pieces of about a megabyte. Building the whole document first
    took 2.3 GB and 15 s for a 2,577-node capture whose session is 21 MB,
    and never finished at 12,653 nodes.
    """
    values = InlineValues(file_values)
    graph = capture.graph
    lists = {
        "nodes": _inline_nodes(graph, values),
        "edges": _edges(graph),
        "value_elements": capture.value_elements,
        "passes": (to_jsonable(p, values) for p in capture.passes),
        "tensors": (to_jsonable(info, values) for info in capture.tensors),
        "explanations": (to_jsonable(e) for e in capture.explanations),
        "modules": (to_jsonable(m, values) for m in capture.modules),
    }
    fh.write(b"{")
    first = True
    for key, value in {**_head(capture), **lists}.items():
        fh.write((b"" if first else b",") + _dumps_line(key, spelled=True) + b":")
        first = False
        if not isinstance(value, collections.abc.Iterator):
            fh.write(_dumps_line(value, spelled=True))
            continue
        fh.write(b"[")
        piece: list[bytes] = []
        size = 0
        separator = b""
        for item in value:
            text = _dumps_line(item, spelled=True)
            piece.append(text)
            size += len(text) + 1
            if size >= _PIECE_BYTES:
                fh.write(separator + b",".join(piece))
                piece, size, separator = [], 0, b","
        if piece:
            fh.write(separator + b",".join(piece))
        fh.write(b"]")
    fh.write(b"}\n")
    return values.summarised

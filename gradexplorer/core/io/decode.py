"""The capture back from its JSON form: records, graph nodes, passes, tensors, audits, checked as they are built.

The reading direction of :mod:`~gradexplorer.core.io.capture_json` (which
writes the same document). Every field goes through the checks of
:mod:`~gradexplorer.core.io.validate`; the common, well-formed case is checked
in one expression per item first, because opening a 10,000-node session reads
80,000 records.
"""

from __future__ import annotations

import base64
import collections
import contextvars
import math
from dataclasses import dataclass, field

import networkx as nx
import torch

from ..graph.build import MAX_PATH_HOPS
from ..records.capture import Capture, CutRecord, OriginRecord, PassSummary, TensorInfo
from ..records.errors import DocumentError, ErrorReport
from ..records.explanations import Explanation
from ..records.phrases import Phrase
from ..records.figures import PNG_SIGNATURE, FigureImage
from ..records.modules import ModuleAudit, ModuleWarning, StateEntry
from ..records.nodes import (
    CaptureGraph,
    GradFlow,
    HookCallRecord,
    HookRecord,
    LeafPass,
    SavedValue,
)
from ..records.source import SourceLine
from ..records.tensors import TensorRecord, TensorStats
from .capture_json import PAIRED_DTYPES, VALUE_DTYPES
from .validate import (
    _PLAIN,
    _PLAIN_OR_NONE,
    _R,
    MAX_NAME_CHARS,
    _at,
    _by_pass,
    _each,
    _flatten,
    _grad_order,
    _severity,
)

__all__ = ["MAX_FIGURES_READ", "MAX_FIGURE_BYTES", "PartialCapture", "capture_from_dict", "record_from_dict"]

#: Tensors with more dimensions than this are refused (torch allows 64, real ones have few).
_MAX_DIMS = 16
#: The types of a tensor's values that need no look one by one (see record_from_dict).
_NUMBERS = frozenset((int, float))
_BOOLS = frozenset((bool,))


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

    ``path`` is where the record is (text, or ``(path, index)``: see :func:`~gradexplorer.core.io.validate._at`).
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
        flat = _flatten(values, shape, path)
        if not set(map(type, flat)) <= (_BOOLS if dtype_name == "bool" else _NUMBERS):
            # One pass in C above for the common case (a 10,000-node document holds 5 million numbers);
            # each number is looked at here only when some is not plain: "nan", a complex pair, or wrong.
            flat = [v if type(v) is bool and dtype_name == "bool" else _R.num(v, f"{path}.values") for v in flat]
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


def _node_grads(d: dict, path: str) -> dict[int, GradFlow]:
    """A node's ``grads``: per pass, the gradients that reached it and those it sent."""
    grads = {}
    for key, flow in _R.obj(d.get("grads", {}), (path, ".grads")).items():
        if not key.isdigit():
            raise _R.fail((path, ".grads"), "keyed by pass numbers")
        flow = _R.obj(flow, ((path, ".grads"), '.' + key))
        grads[int(key)] = GradFlow(_records(flow.get("outputs", []), (((path, ".grads"), '.' + key), ".outputs")),
                                   _records(flow.get("inputs", []), (((path, ".grads"), '.' + key), ".inputs")))
    return grads


def _node_hooks(d: dict, path: str) -> tuple[HookRecord, ...]:
    """A node's ``hooks``, each with its calls."""
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
    return tuple(hooks)


def _node_accumulation(d: dict, path: str) -> dict[int, LeafPass]:
    """A leaf's ``accumulation``: per pass, what was delivered and what ``.grad`` held before and after."""
    accumulation = {}
    for key, lp in _R.obj(d.get("accumulation", {}), (path, ".accumulation")).items():
        if not key.isdigit():
            raise _R.fail((path, ".accumulation"), "keyed by pass numbers")
        lp = _R.obj(lp, ((path, ".accumulation"), '.' + key))
        accumulation[int(key)] = LeafPass(*(record_from_dict(lp.get(k), (((path, ".accumulation"), '.' + key), '.' + k))
                                            for k in ("delivered", "before", "after")),
                                          _R.str_(lp.get("reduced_by", ""), ((path, ".accumulation"), '.' + key)))
    return accumulation


def _node_path_via(d: dict, path: str) -> tuple | None:
    """The link a node's path text continues: ``(parent, slot, hops)``, or None."""
    via = d.get("path_via")
    if via is not None:
        via = _R.list_(via, (path, ".path_via"))
        if len(via) != 3:
            raise _R.fail((path, ".path_via"), "[parent, slot, hops]")
        via = tuple(via)
    return via


def _node_fields(d: dict, path: str) -> tuple:
    """A node's plain fields: op, kind, is_root, requires_grad, path, module, seq, grad_enabled, inference_mode."""
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
    return op, kind, is_root, requires_grad, node_path, module, seq, grad_enabled, inference_mode


def _node_source(d: dict, path: str) -> SourceLine | None:
    """The line that made a node; the common well-formed case checked in one expression."""
    source = d.get("source")
    if source is not None:
        line, text, file = ((source.get("line"), source.get("text", ""), source.get("file"))
                            if type(source) is dict else (None, None, None))
        if (type(line) is int and type(text) is str and len(text) <= MAX_NAME_CHARS
                and (file is None or (type(file) is str and len(file) <= MAX_NAME_CHARS))):
            source = SourceLine(line, text, file)
        else:
            source = _source_line_from_dict(source, (path, ".source"))
    return source


def _node_attrs(d: dict, path: str) -> dict:
    """A graph node's attributes from its JSON item, every field checked (the build's attribute names)."""
    value = d.get("value")
    if value is not None:
        value = record_from_dict(value, (path, ".value"))
    op, kind, is_root, requires_grad, node_path, module, seq, grad_enabled, inference_mode = _node_fields(d, path)
    on_path = d.get("on_path", [])
    if type(on_path) is list and all(type(v) is int for v in on_path):
        on_path = tuple(on_path)
    else:
        on_path = tuple(_R.int_(v, (path, ".on_path")) for v in _R.list_(on_path, (path, ".on_path")))
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
        "path_via": _node_path_via(d, path),
        "value": value,
        "outputs": _records(d.get("outputs", []), (path, ".outputs")),
        "variable": None if (variable := d.get("variable")) is None else record_from_dict(variable, (path, ".variable")),
        "grad": None if (grad := d.get("grad")) is None else record_from_dict(grad, (path, ".grad")),
        "accumulation": _node_accumulation(d, path),
        "on_path": on_path,
        "requires_grad": requires_grad,
        "grads": _node_grads(d, path),
        "saved": _saved_values(d.get("saved", []), path),
        "hooks": _node_hooks(d, path),
        "source": _node_source(d, path),
        "grad_enabled": grad_enabled,
        "inference_mode": inference_mode,
        "seq": seq,
        "module": module,
        "grad_order": order,
        "shape": None if value is None else value.shape,
        "dtype": None if value is None else value.dtype,
        "device": None if value is None else value.device,
        **({"grad_threads": _grad_threads(d["grad_threads"], (path, ".grad_threads"))} if "grad_threads" in d else {}),
    }


def _grad_threads(d, path) -> dict[int, str]:
    """The threads the engine ran a node on, by pass (only nodes some pass ran off its own thread have them)."""
    return _by_pass(d, path, _R.str_)


#: Exact types of a graph node's plain fields, for :func:`_node_attrs`'s one test.
_NODE_KINDS = frozenset({"leaf", "op", "custom"})
_STR_OR_NONE = (str, type(None))
_INT_OR_NONE = (int, type(None))
_BOOL_OR_NONE = (bool, type(None))


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
                                          _said(w.get("message"), (wp, ".message")),
                                          _said(w.get("fix"), (wp, ".fix"), optional=True),
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
    :data:`~gradexplorer.core.graph.build.MAX_PATH_HOPS`, or whose links loop or lead nowhere, get no text.
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


@dataclass
class PartialCapture:
    """What the parts of a container sent in parts gave so far (see :func:`~gradexplorer.core.io.handover.read_capture_part`).

    The records in their numbers' order, the graph with the nodes read, the
    value table's tensors and the bytes unpacked (all parts and the container
    together stay under the file limit). Mutable: the reader adds to it.
    """

    records: list = field(default_factory=list)
    graph: CaptureGraph = field(default_factory=CaptureGraph)
    table: dict = field(default_factory=dict)
    size: int = 0
    #: The capture the first picture needs, once the part that ends the nodes brought it (its graph is
    #: :attr:`graph`, which the complete capture shares); None before, and once the reader took it.
    preview: Capture | None = None

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
    read (see :func:`~gradexplorer.core.io.validate._each`): for a caller that does not need them again.
    ``records_out`` receives the document's tensor records in their order
    (format 3), for :func:`~gradexplorer.core.io.handover.add_late_stats`. ``partial`` holds the records
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
    """The capture of a checked document: the graph (nodes, edges, path texts), then each list and field."""
    _add_nodes(graph, _R.list_(_R.key(doc, "nodes", "capture"), "capture.nodes"), consume)
    _add_edges(graph, doc, consume)
    _rebuild_paths(graph)
    graph.graph["roots"] = tuple(r for r in _R.strs(doc.get("roots", []), "capture.roots") if r in graph)
    graph.graph["module_types"] = {str(k): _R.str_(v, "capture.module_types")
                                   for k, v in _R.obj(doc.get("module_types", {}), "capture.module_types").items()}
    modules = tuple(_module_audit(m, ("capture.modules", i))
                    for i, m in _each(_R.list_(doc.get("modules", []), "capture.modules"), consume=consume))
    timings = {str(k): float(_R.num(v, "capture.timings")) for k, v in _R.obj(doc.get("timings", {}), "capture.timings").items()}
    return Capture(
        code=_R.str_(doc.get("code", ""), "capture.code", long=True),
        filename=_R.str_(doc.get("filename", "<editor>"), "capture.filename"),
        device=_R.str_(doc.get("device", "cpu"), "capture.device"),
        graph=graph,
        passes=_passes(doc),
        tensors=_tensors(doc, consume),
        explanations=_explanations(doc, consume),
        modules=modules,
        stdout=_R.str_(doc.get("stdout", ""), "capture.stdout", long=True),
        stderr=_R.str_(doc.get("stderr", ""), "capture.stderr", long=True),
        error=_error_report(doc),
        executed=_R.bool_(doc.get("executed", True), "capture.executed"),
        dropped_ops=_R.int_(doc.get("dropped_ops", 0), "capture.dropped_ops"),
        versions={str(k): str(v) for k, v in _R.obj(doc.get("versions", {}), "capture.versions").items()},
        timings=timings,
        value_elements=_R.int_(doc.get("value_elements", 10_000), "capture.value_elements"),
        restored=tuple(_said(note, ("capture.restored", i)) if isinstance(note, dict) else _R.str_(
            note, ("capture.restored", i), long=True) for i, note in enumerate(_R.list_(doc.get("restored", []),
                                                                                    "capture.restored"))),
        args=_R.strs(doc.get("args", []), "capture.args", long=True),
        cwd=_R.str_(doc.get("cwd", ""), "capture.cwd"),
        root=_R.str_(doc.get("root", ""), "capture.root"),
        files=_files(doc.get("files", {})),
        figures=_figures(doc.get("figures", [])),
    )


def _add_edges(graph: CaptureGraph, doc: dict, consume: bool) -> None:
    """Add the document's edges to ``graph``, each between two nodes it has."""
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


def _passes(doc: dict) -> tuple[PassSummary, ...]:
    """The backward passes (``capture.passes``)."""
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
    return tuple(passes)


def _tensors(doc: dict, consume: bool) -> tuple[TensorInfo, ...]:
    """The named tensors (``capture.tensors``)."""
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
    return tuple(tensors)


def _explanations(doc: dict, consume: bool) -> tuple[Explanation, ...]:
    """Why each name gets a gradient or not (``capture.explanations``)."""
    explanations = []
    for i, e in _each(_R.list_(doc.get("explanations", []), "capture.explanations"), consume=consume):
        p = ("capture.explanations", i)
        e = _R.obj(e, p)
        # Saved before phrases: the English sentence as it was written, read as it is.
        said = _said(e["phrase"], (p, ".phrase")) if "phrase" in e else _said(e.get("sentence"), (p, ".sentence"))
        explanations.append(Explanation(_R.str_(e.get("name"), (p, ".name")), _R.str_(e.get("code"), (p, ".code")),
                                        said,
                                        _R.int_(e.get("line"), (p, ".line"), optional=True),
                                        _R.str_(e.get("node"), (p, ".node"), optional=True),
                                        _severity(e.get("severity", "ok"), (p, ".severity")),
                                        _R.str_(e.get("file"), (p, ".file"), optional=True)))
    return tuple(explanations)


def _said(value, path, *, optional: bool = False) -> Phrase | None:
    """A sentence the core made: a phrase (template and facts), or the English text a session saved before
    phrases existed (read as it is); ``optional``: None for none (or the old files' empty text)."""
    if optional and (value is None or value == ""):
        return None
    if isinstance(value, dict):
        return _phrase(value, path)
    return Phrase(_R.str_(value, path, long=True))


#: How deep phrases nest in an explanation (the deepest the explainer makes is 6; a file's are checked).
_PHRASE_DEPTH = 12


def _phrase(value, path, depth: int = 0) -> Phrase:
    """An explanation's :class:`Phrase`: its template, its facts (text, numbers or phrases) and its scopes."""
    if depth > _PHRASE_DEPTH:
        raise _R.fail(path, f"a phrase nested at most {_PHRASE_DEPTH} deep")
    d = _R.obj(value, path)
    args = []
    for i, pair in enumerate(_R.list_(d.get("args", []), (path, ".args"))):
        pair = _R.list_(pair, (path, f".args[{i}]"))
        if len(pair) != 2:
            raise _R.fail((path, f".args[{i}]"), "[slot, value]")
        key, fact = _R.str_(pair[0], (path, f".args[{i}]")), pair[1]
        if isinstance(fact, dict):
            fact = _phrase(fact, (path, f".args[{i}]"), depth + 1)
        elif not (isinstance(fact, int) and not isinstance(fact, bool)):
            fact = _R.str_(fact, (path, f".args[{i}]"), long=True)
        args.append((key, fact))
    scopes = []
    for i, pair in enumerate(_R.list_(d.get("scopes", []), (path, ".scopes"))):
        pair = _R.strs(pair, (path, f".scopes[{i}]"))
        if len(pair) != 2:
            raise _R.fail((path, f".scopes[{i}]"), "[name, function]")
        scopes.append((pair[0], pair[1]))
    return Phrase(_R.str_(d.get("template"), (path, ".template"), long=True), tuple(args), tuple(scopes))


def _error_report(doc: dict) -> ErrorReport | None:
    """What stopped the program (``capture.error``), or None."""
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
                            _R.str_(e.get("file"), "capture.error.file", optional=True),
                            _said(e.get("said"), "capture.error.said", optional=True))
    return error


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

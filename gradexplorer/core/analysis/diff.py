"""Compare two runs: what was added, removed and changed, node by node, name by name, module by module.

A learner changes ``b = a`` to ``b = a + 0``; a practitioner freezes a layer,
adds a ``detach()``, or moves from cpu to cuda; each wants to see exactly
what that did to autograd. :func:`diff_captures` matches the two graphs
(:mod:`gradexplorer.core.analysis.matching`) and compares what each run
recorded: forward values, the gradients of every pass (pass k of A against
pass k of B), a leaf's ``.grad``, the reason each name gets a gradient or
not, and where each module's state lives. Values are compared element by
element in float64 where both runs kept them (so a float32 run beside a
float64 run, or a cuda run beside a cpu run, shows how far it drifts), and by
their statistics where a tensor was over the value cap.
"""

from __future__ import annotations

from pathlib import PurePath

import numpy as np
import torch

from ..records.capture import Capture, PassSummary, TensorInfo
from ..records.diff import CaptureDiff, NameDiff, NodeDiff, PassDiff, PlacementDiff, ValueDiff
from ..records.modules import StateEntry
from ..records.tensors import TensorRecord
from .matching import id_order, match_nodes

__all__ = ["compare_values", "diff_captures", "run_label", "run_labels"]


def _as_float64(data: torch.Tensor) -> np.ndarray:
    """The values, flattened, as float64 (complex128 for complex tensors) in NumPy: a few microseconds a record."""
    data = data.detach().resolve_conj().resolve_neg()
    if data.dtype in (torch.bfloat16, torch.float16) or not (data.is_floating_point() or data.is_complex()):
        data = data.to(torch.complex128 if data.is_complex() else torch.float64)
    array = data.numpy().ravel()
    return array.astype(np.complex128 if np.iscomplexobj(array) else np.float64, copy=False)


def compare_values(a: TensorRecord | None, b: TensorRecord | None) -> ValueDiff | None:
    """How far ``b`` is from ``a`` (see :class:`ValueDiff`); None when both are None."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        return ValueDiff(a, b, "missing")
    if tuple(a.shape) != tuple(b.shape):
        return ValueDiff(a, b, "shape")
    if a.data is None or b.data is None:
        if a.stats is None or b.stats is None:
            return ValueDiff(a, b, "unreadable")
        return ValueDiff(a, b, "statistics")
    if a.data.numel() and a.data.dtype == b.data.dtype and torch.equal(a.data, b.data):
        return ValueDiff(a, b, "values", max_abs=0.0, max_rel=0.0, at=0)  # most nodes of two close runs: one call
    x, y = _as_float64(a.data), _as_float64(b.data)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(x) & np.isfinite(y)
        # Not finite in one run or both: a difference unless it is the same NaN/Inf in both.
        same_nonfinite = (np.isnan(x) & np.isnan(y)) | (~np.isnan(x) & (x == y))
        mismatch = int(np.count_nonzero(~finite & ~same_nonfinite))
        if not finite.any():
            return ValueDiff(a, b, "values", nonfinite_mismatch=mismatch)
        gap = np.where(finite, np.abs(x - y), 0.0)
        scale = np.where(finite, np.maximum(np.abs(x), np.abs(y)), 0.0)
        # |x/s - y/s|, not |x - y| / s: the gap of 1.7e308 and -1.7e308 is inf in float64, the ratio 2.
        safe = np.where(scale > 0, scale, 1.0)
        relative = np.where(scale > 0, np.abs(x / safe - y / safe), 0.0)
    at = int(gap.argmax())
    return ValueDiff(a, b, "values", max_abs=float(gap[at]), max_rel=float(relative.max()),
                     nonfinite_mismatch=mismatch, at=at)


def _meta(data: dict) -> dict[str, object]:
    return {"shape": data.get("shape"), "dtype": data.get("dtype"), "device": data.get("device")}


def _grads_of(data: dict) -> dict[int, tuple[TensorRecord | None, ...]]:
    return {index: flow.outputs for index, flow in data.get("grads", {}).items()}


def _compare_grads(data_a: dict, data_b: dict) -> dict[int, tuple[ValueDiff | None, ...]]:
    grads_a, grads_b = _grads_of(data_a), _grads_of(data_b)
    compared: dict[int, tuple[ValueDiff | None, ...]] = {}
    for index in sorted(set(grads_a) | set(grads_b)):
        outs_a, outs_b = grads_a.get(index, ()), grads_b.get(index, ())
        width = max(len(outs_a), len(outs_b))
        outs_a, outs_b = outs_a + (None,) * (width - len(outs_a)), outs_b + (None,) * (width - len(outs_b))
        compared[index] = tuple(compare_values(x, y) for x, y in zip(outs_a, outs_b))
    return compared


def _label(data: dict) -> str:
    return ", ".join(data["names"]) if data["names"] else data["op"]


def _matched(a: str, b: str, rule: str, data_a: dict, data_b: dict) -> NodeDiff:
    value = compare_values(data_a.get("value"), data_b.get("value"))
    grads = _compare_grads(data_a, data_b)
    grad = compare_values(data_a.get("grad"), data_b.get("grad"))
    meta_a, meta_b = _meta(data_a), _meta(data_b)
    changes = [name for name, differs in (
        ("op", data_a["op"] != data_b["op"]),
        ("shape", meta_a["shape"] != meta_b["shape"]),
        ("dtype", meta_a["dtype"] != meta_b["dtype"]),
        ("device", meta_a["device"] != meta_b["device"]),
        ("requires_grad", data_a.get("requires_grad") != data_b.get("requires_grad")),
        ("grad mode", data_a.get("grad_enabled") != data_b.get("grad_enabled")),
        ("value", value is not None and value.differs),
        ("gradient", any(d is not None and d.differs for ds in grads.values() for d in ds)),
        (".grad", grad is not None and grad.differs),
        ("passes", tuple(data_a.get("on_path", ())) != tuple(data_b.get("on_path", ()))),
    ) if differs]
    label = _label(data_b) if data_b["names"] and not data_a["names"] else _label(data_a)
    return NodeDiff(a, b, "changed" if changes else "same", rule, label, tuple(changes), value, grads, grad)


def _node_diffs(capture_a: Capture, capture_b: Capture) -> tuple[NodeDiff, ...]:
    graph_a, graph_b = capture_a.graph, capture_b.graph
    match = match_nodes(graph_a, graph_b, _pass_roots(capture_a), _pass_roots(capture_b))
    found = []
    for a in sorted(graph_a, key=id_order):
        data_a = graph_a.nodes[a]
        b = match.a_to_b.get(a)
        if b is None:
            found.append(NodeDiff(a, None, "removed", label=_label(data_a),
                                  value=compare_values(data_a.get("value"), None), grads=_compare_grads(data_a, {}),
                                  grad=compare_values(data_a.get("grad"), None)))
        else:
            found.append(_matched(a, b, match.rule[a], data_a, graph_b.nodes[b]))
    for b in sorted(graph_b, key=id_order):
        if b not in match.b_to_a:
            data_b = graph_b.nodes[b]
            found.append(NodeDiff(None, b, "added", label=_label(data_b),
                                  value=compare_values(None, data_b.get("value")), grads=_compare_grads({}, data_b),
                                  grad=compare_values(None, data_b.get("grad"))))
    return tuple(found)


def _pass_roots(capture: Capture) -> dict[int, tuple[str, ...]]:
    return {p.index: tuple(node for node, _ in p.roots if node is not None) for p in capture.passes}


def _infos_by_name(capture: Capture) -> dict[str, TensorInfo]:
    found: dict[str, TensorInfo] = {}
    for info in capture.tensors:
        for name in info.names:
            found.setdefault(name, info)
    return found


def _name_diffs(capture_a: Capture, capture_b: Capture) -> tuple[NameDiff, ...]:
    names: dict[str, None] = {}  # ordered, and a set (a list's `in` made this quadratic)
    for capture in (capture_a, capture_b):
        for info in capture.tensors:
            names.update(dict.fromkeys(info.names))
        names.update(dict.fromkeys(e.name for e in capture.explanations))
    reasons_a = {e.name: e for e in capture_a.explanations}
    reasons_b = {e.name: e for e in capture_b.explanations}
    # By name at once: Capture.tensor() scans, and a 50,000-node step binds 10,000 names.
    infos_a, infos_b = _infos_by_name(capture_a), _infos_by_name(capture_b)
    found = []
    for name in names:
        info_a, info_b = infos_a.get(name), infos_b.get(name)
        why_a, why_b = reasons_a.get(name), reasons_b.get(name)
        found.append(NameDiff(
            name, why_a and why_a.code, why_b and why_b.code, why_a.phrase if why_a else "",
            why_b.phrase if why_b else "",
            compare_values(info_a and info_a.value, info_b and info_b.value),
            compare_values(info_a and info_a.grad, info_b and info_b.grad)))
    return tuple(found)


def _entries(capture: Capture) -> dict[str, StateEntry]:
    return {entry.path: entry for root in capture.modules for audit in root.walk() for entry in audit.entries}


def _placement_changes(a: StateEntry | None, b: StateEntry | None) -> tuple[str, ...]:
    if a is None:
        return ("only in B",)
    if b is None:
        return ("only in A",)
    return tuple(f"{what} {x} -> {y}" for what, x, y in (
        ("kind", a.kind, b.kind),
        ("device", a.device, b.device),
        ("dtype", a.record.dtype, b.record.dtype),
        ("requires_grad", a.requires_grad, b.requires_grad),
        ("has .grad", a.has_grad, b.has_grad),
        ("moves with .to()", a.follows_to, b.follows_to),
    ) if x != y)


def _placement_diffs(capture_a: Capture, capture_b: Capture) -> tuple[PlacementDiff, ...]:
    entries_a, entries_b = _entries(capture_a), _entries(capture_b)
    paths = list(entries_a) + [p for p in entries_b if p not in entries_a]
    found = []
    for path in paths:
        changes = _placement_changes(entries_a.get(path), entries_b.get(path))
        if changes:
            found.append(PlacementDiff(path, entries_a.get(path), entries_b.get(path), changes))
    return tuple(found)


def _warnings(capture: Capture) -> list[str]:
    return [f"{w.path}: {w.message}" for root in capture.modules for w in root.warnings]


def _pass_changes(a: PassSummary | None, b: PassSummary | None) -> tuple[str, ...]:
    if a is None:
        return ("only in B",)
    if b is None:
        return ("only in A",)
    changes = []
    if a.kind != b.kind:
        changes.append(f"kind {a.kind} -> {b.kind}")
    if a.raised != b.raised:
        changes.append("raised in B" if b.raised else "raised in A")
    elif a.error != b.error:
        changes.append("error changed")
    if a.root_names != b.root_names:
        changes.append(f"roots {', '.join(a.root_names) or '-'} -> {', '.join(b.root_names) or '-'}")
    return tuple(changes)


def _pass_diffs(capture_a: Capture, capture_b: Capture) -> tuple[PassDiff, ...]:
    by_a = {p.index: p for p in capture_a.passes}
    by_b = {p.index: p for p in capture_b.passes}
    return tuple(PassDiff(index, by_a.get(index), by_b.get(index), _pass_changes(by_a.get(index), by_b.get(index)))
                 for index in sorted(set(by_a) | set(by_b)))


def run_label(capture: Capture, fallback: str) -> str:
    """A run's heading: its file name and device (``"train.py (cuda:0)"``), or ``fallback``'s."""
    name = PurePath(capture.filename).name if capture.filename and not capture.filename.startswith("<") else fallback
    return f"{name} ({capture.device})"


def run_labels(capture_a: Capture, capture_b: Capture, *, where_a: str | None = None,
               where_b: str | None = None) -> tuple[str, str]:
    """The two runs' headings, told apart where :func:`run_label` gives both the same.

    Two sessions of one ``train.py`` (with and without ``--freeze``), or two
    ``record()`` blocks of one script, are both ``"train.py (cpu)"``: a
    report headed ``A: train.py (cpu)`` and ``B: train.py (cpu)`` does not
    say which file or block is which. Then each heading gets where its run
    came from (``where_a``/``where_b``: the path as given, ``"record() at line
    21"``), when those differ.
    """
    label_a, label_b = run_label(capture_a, "A"), run_label(capture_b, "B")
    if label_a == label_b and where_a and where_b and where_a != where_b:
        return f"{label_a}, {where_a}", f"{label_b}, {where_b}"
    return label_a, label_b


def diff_captures(capture_a: Capture, capture_b: Capture, *, a_label: str = "A", b_label: str = "B") -> CaptureDiff:
    """Compare run B with run A (the reference): every node, name, pass and module state, both sides kept.

    ``a_label``/``b_label`` name the runs in headings (the session files they came from).
    """
    warnings_a, warnings_b = _warnings(capture_a), _warnings(capture_b)
    return CaptureDiff(
        a_label, b_label, _node_diffs(capture_a, capture_b), _name_diffs(capture_a, capture_b),
        _placement_diffs(capture_a, capture_b), _pass_diffs(capture_a, capture_b),
        tuple(w for w in warnings_a if w not in warnings_b), tuple(w for w in warnings_b if w not in warnings_a),
        _ending(capture_a), _ending(capture_b))


def _ending(capture: Capture) -> str:
    if capture.error is None:
        return ""
    return ("did not run: " if not capture.executed else "raised ") + capture.error.headline()

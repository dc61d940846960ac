"""A comparison of two runs as text for the terminal and as a JSON document (``gradexplorer diff``).

The text leads with what a reader came for: which passes and reason codes
changed, the largest forward and gradient differences, then the nodes that
differ, then module state that moved. The JSON document holds every node's
record (``docs/diff.md`` describes it); numbers that JSON cannot hold
(infinities) are written as strings.
"""

from __future__ import annotations

import math

from ..records.diff import STATUSES, CaptureDiff, NodeDiff, ValueDiff
from ..records.phrases import phrase
from ..records.tensors import TensorRecord

__all__ = ["DIFF_FORMAT", "comparison_rows", "diff_to_dict", "format_diff", "value_diff_text"]

#: The ``format`` key of the JSON document, and its version.
DIFF_FORMAT = ("gradexplorer-diff", 1)


def _number(value: float) -> str:
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    return f"{value:.3g}"


def _short(record: TensorRecord | None) -> str:
    return "None" if record is None else record.short(width=28)


def value_diff_text(diff: ValueDiff | None) -> str:
    """One line for a value comparison: ``"same"``, ``"max |a-b| 2.4e-08 (rel 1.1e-07)"``, ``"1.56 -> None"``."""
    if diff is None:
        return ""
    if diff.kind == "missing":
        return f"{_short(diff.a)} -> {_short(diff.b)}"
    if diff.kind == "shape":
        return f"shape {list(diff.a.shape)} -> {list(diff.b.shape)}"
    if diff.kind == "unreadable":
        return "values not readable (meta or sparse)"
    if diff.kind == "statistics":
        if not diff.differs:
            return "same statistics (values over the cap)"
        sa, sb = diff.a.stats, diff.b.stats
        return (f"mean {_number(sa.mean or 0)} -> {_number(sb.mean or 0)}, std {_number(sa.std or 0)} -> "
                f"{_number(sb.std or 0)} (values over the cap: statistics only)")
    parts = []
    if diff.max_abs:
        if diff.a.numel == 1:
            parts.append(f"{_short(diff.a)} -> {_short(diff.b)} (|a-b| {_number(diff.max_abs)})")
        else:
            parts.append(f"max |a-b| {_number(diff.max_abs)} (rel {_number(diff.max_rel)}) at [{diff.at}]")
    if diff.nonfinite_mismatch:
        parts.append(f"NaN/Inf differ at {diff.nonfinite_mismatch} position(s)")
    return "; ".join(parts) or "same"


def _drift_lines(diff: CaptureDiff) -> list[str]:
    """The largest forward difference and each pass's largest gradient difference, in one scan of the nodes."""
    best: dict[int | None, tuple[NodeDiff, ValueDiff]] = {}  # None: the forward values

    def consider(key, node, found):
        if found is not None and found.kind == "values" and found.max_abs is not None:
            if key not in best or found.max_abs > best[key][1].max_abs:
                best[key] = (node, found)

    for node in diff.nodes:
        if node.status in ("same", "changed"):
            consider(None, node, node.value)
            for index, grads in node.grads.items():
                consider(index, node, grads[0] if grads else None)
    lines = []
    for key in [None, *sorted(k for k in best if k is not None)]:
        if key not in best:
            continue
        what = "forward" if key is None else f"pass {key + 1} gradient"
        node, value = best[key]
        if not value.max_abs:
            lines.append(f"  {what}: the same in every node both runs kept the values of")
        else:
            lines.append(f"  largest {what} difference: {_node_name(node)}: {value_diff_text(value)}")
    return lines


def _node_name(node: NodeDiff) -> str:
    ids = f"{node.a or '-'} -> {node.b or '-'}"
    return f"{node.label} ({ids})"


def _node_rows(diff: CaptureDiff, max_rows: int) -> list[str]:
    rows = [n for n in diff.nodes if n.status != "same"]
    lines = [f"  {'status':8} {'A':>6} {'B':>6}  {'matched by':10} {'node':28} what differs"]
    for node in rows[:max_rows]:
        detail = ", ".join(node.changes)
        passes = sorted(node.grads)
        if "value" in node.changes:
            detail += f"; value {value_diff_text(node.value)}"
        for index in passes:
            grad = node.pass_grad(index)
            if grad is not None and grad.differs:
                detail += f"; pass {index + 1} gradient {value_diff_text(grad)}"
        if node.grad is not None and node.grad.differs:
            detail += f"; .grad {value_diff_text(node.grad)}"
        lines.append(f"  {node.status:8} {node.a or '-':>6} {node.b or '-':>6}  {node.rule or '-':10} "
                     f"{node.label[:28]:28} {detail.lstrip('; ')}")
    if len(rows) > max_rows:
        lines.append(f"  ... {len(rows) - max_rows} more (--max-rows)")
    return lines


def format_diff(diff: CaptureDiff, *, max_rows: int = 200, nodes: bool = True, say=str) -> str:
    """The comparison as text: runs, counts, passes, reason codes, largest differences, nodes, module state.

    ``nodes=False`` leaves out the table of nodes that differ (the app's picture shows them); ``say`` makes
    the report's own words into the reader's language (the CLI's English by default; the facts, such as a
    pass's changes or a placement's, stay as the comparison wrote them).
    """
    counts = diff.counts()
    lines = [f"A: {diff.a_label}" + (f": {diff.error_a}" if diff.error_a else ""),
             f"B: {diff.b_label}" + (f": {diff.error_b}" if diff.error_b else ""),
             say(phrase("nodes: {both} in both ({same} same, {changed} changed), {added} only in B (added), {removed} "
                        "only in A (removed)", both=counts["same"] + counts["changed"], same=counts["same"],
                        changed=counts["changed"], added=counts["added"], removed=counts["removed"]))]
    pass_lines = [say(phrase("  pass {number}: {changes}", number=p.index + 1, changes="; ".join(p.changes)))
                  + (f" ({p.b.error})" if p.b and p.b.error else "") for p in diff.passes if p.changes]
    if pass_lines:
        lines += ["", say(phrase("passes that differ")), *pass_lines]
    reasons = [f"  {n.name}: {n.reason_text}" for n in diff.names if n.reason_changed]
    if reasons:
        lines += ["", say(phrase("why a name gets a gradient: reason codes that changed")), *reasons]
    drift = _drift_lines(diff)
    if drift:
        lines += ["", say(phrase("how far B drifts from A (nodes in both runs)")), *drift]
    if nodes and counts["changed"] + counts["added"] + counts["removed"]:
        lines += ["", say(phrase("nodes that differ")), *_node_rows(diff, max_rows)]
    if diff.placements:
        lines += ["", say(phrase("module state whose placement changed"))]
        lines += [f"  {p.path}: {', '.join(p.changes)}" for p in diff.placements]
    if diff.warnings_a or diff.warnings_b:
        lines += ["", say(phrase("module audit warnings in one run only"))]
        lines += [say(phrase("  only in A: {warning}", warning=w)) for w in diff.warnings_a]
        lines += [say(phrase("  only in B: {warning}", warning=w)) for w in diff.warnings_b]
    return "\n".join(lines) + "\n"


#: The difference column's word for "no difference" (the inspector paints it grey, in any language).
SAME = phrase("same")
#: Why two values could not be compared element by element.
_KIND_WORDS = {"missing": phrase("in one run only"), "shape": phrase("shapes differ"),
               "unreadable": phrase("not readable")}


def _difference(diff: ValueDiff | None, say=str) -> str:
    if diff is None:
        return ""
    if diff.kind == "values":
        if not diff.differs:
            text = say(SAME)
        elif diff.a.numel == 1:
            text = f"|a-b| {_number(diff.max_abs or 0)}"
        else:
            text = say(phrase("max |a-b| {abs}, rel {rel}", abs=_number(diff.max_abs or 0),
                              rel=_number(diff.max_rel or 0)))
        if diff.nonfinite_mismatch:
            text += say(phrase("; NaN/Inf differ at {count}", count=diff.nonfinite_mismatch))
        return text
    if diff.kind == "statistics":
        return say(phrase("differs (statistics)") if diff.differs else phrase("same (statistics)"))
    return say(_KIND_WORDS[diff.kind])


#: The inspector's row names (``what``), in the reader's language through ``say``.
_ROW_WORDS = {"op": phrase("op"), "names": phrase("names"), "shape": phrase("shape"), "dtype": "dtype",
              "device": phrase("device"), "requires_grad": "requires_grad", "grad_enabled": phrase("grad mode on")}


def comparison_rows(diff: CaptureDiff, node: NodeDiff, attrs_a: dict | None,
                    attrs_b: dict | None, say=str) -> list[tuple[str, str, str, str]]:
    """The inspector's side-by-side table for one node: ``(what, run A, run B, difference)`` rows.

    ``attrs_a``/``attrs_b`` are the node's attributes in each run's graph (None where it is not); ``say``
    makes the row names and differences into words (English, or the app's language).
    """
    def side(attrs, key):
        return "—" if attrs is None else str(attrs.get(key))

    rows = [(say(_ROW_WORDS["op"]), side(attrs_a, "op").replace("torch::autograd::", ""),
             side(attrs_b, "op").replace("torch::autograd::", ""), "")]
    rows.append((say(_ROW_WORDS["names"]), ", ".join(attrs_a["names"]) if attrs_a else "—",
                 ", ".join(attrs_b["names"]) if attrs_b else "—", ""))
    for key in ("shape", "dtype", "device", "requires_grad", "grad_enabled"):
        a, b = side(attrs_a, key), side(attrs_b, key)
        if a != b or key in ("dtype", "device"):
            rows.append((say(_ROW_WORDS[key]), a, b, "" if a == b or "—" in (a, b) else say(phrase("differs"))))
    value = node.value
    if value is not None:
        leaf = (attrs_b or attrs_a or {}).get("kind") == "leaf"  # a leaf's is the value at the end of the run
        rows.append((say(phrase("value at the end") if leaf else phrase("forward value")), _short(value.a),
                     _short(value.b), _difference(value, say)))
    for index in sorted(node.grads):
        grad = node.pass_grad(index)
        if grad is not None:
            rows.append((say(phrase("gradient, pass {number}", number=index + 1)), _short(grad.a), _short(grad.b),
                         _difference(grad, say)))
    if node.grad is not None:
        rows.append((say(phrase(".grad at the end")), _short(node.grad.a), _short(node.grad.b),
                     _difference(node.grad, say)))
    names = dict.fromkeys((*(attrs_a or {}).get("names", ()), *(attrs_b or {}).get("names", ())))
    for name in names:
        item = diff.name(name)
        if item is not None:
            rows.append((say(phrase("why `{name}`", name=name)), item.code_a or "—", item.code_b or "—",
                         say(phrase("changed") if item.reason_changed else SAME)))
    return rows


def _json_number(value: float | None):
    if value is None or math.isfinite(value):
        return value
    return str(value)


def _record_dict(record: TensorRecord | None) -> dict | None:
    if record is None:
        return None
    return {"shape": list(record.shape), "dtype": record.dtype, "device": record.device, "text": record.short()}


def _value_dict(diff: ValueDiff | None) -> dict | None:
    if diff is None:
        return None
    return {"kind": diff.kind, "differs": diff.differs, "max_abs": _json_number(diff.max_abs),
            "max_rel": _json_number(diff.max_rel), "nonfinite_mismatch": diff.nonfinite_mismatch, "at": diff.at,
            "a": _record_dict(diff.a), "b": _record_dict(diff.b)}


def _node_dict(node: NodeDiff) -> dict:
    return {"a": node.a, "b": node.b, "status": node.status, "rule": node.rule, "label": node.label,
            "changes": list(node.changes), "value": _value_dict(node.value),
            "grads": {str(k): [_value_dict(d) for d in v] for k, v in node.grads.items()},
            "grad": _value_dict(node.grad)}


def diff_to_dict(diff: CaptureDiff) -> dict:
    """The comparison as a JSON-ready document (see ``docs/diff.md``)."""
    return {
        "format": DIFF_FORMAT[0], "version": DIFF_FORMAT[1], "a": diff.a_label, "b": diff.b_label,
        "error_a": diff.error_a, "error_b": diff.error_b,
        "statuses": STATUSES, "counts": diff.counts(),
        "passes": [{"index": p.index, "changes": list(p.changes), "error_a": p.a and p.a.error,
                    "error_b": p.b and p.b.error} for p in diff.passes],
        "names": [{"name": n.name, "code_a": n.code_a, "code_b": n.code_b, "value": _value_dict(n.value),
                   "grad": _value_dict(n.grad)} for n in diff.names],
        "placements": [{"path": p.path, "changes": list(p.changes)} for p in diff.placements],
        "warnings_only_a": list(diff.warnings_a), "warnings_only_b": list(diff.warnings_b),
        "nodes": [_node_dict(n) for n in diff.nodes],
    }

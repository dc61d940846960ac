"""Find nodes in a capture graph: search, filters, gradient health.

Pure functions over the graph schema (:mod:`gradexplorer.core.graph.build`), so the
GUI, the CLI and tests share one meaning of "has NaN" or "first NaN".

Gradient norms come from one dot product over a record's kept values, or
from its statistics: for ``n`` finite values, ``sum(x**2) = (n - 1) * std**2 + n * mean**2``.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from ..graph.schema import node_gradient, short_op
from ..records.phrases import phrase
from ..records.tensors import TensorRecord

__all__ = [
    "FILTERS",
    "filter_nodes",
    "first_nonfinite",
    "grad_norm",
    "has_nonfinite",
    "path_to_roots",
    "search_nodes",
]

#: Filter keys and their labels, in menu order.
FILTERS = {
    "all": phrase("All nodes"),
    "path": phrase("Path from the selected node to the root"),
    "requires_grad": phrase("Requires grad"),
    "nonfinite": phrase("Has NaN/Inf"),
    "no_gradient": phrase("No gradient reached it"),
}


def grad_norm(record: TensorRecord | None) -> float | None:
    """L2 norm of a record's finite values (None when unknown); see :meth:`TensorRecord.finite_norm`."""
    return None if record is None else record.finite_norm()


def _nonfinite(record: TensorRecord | None) -> bool:
    # The record's own check: one vectorised isfinite, not the full statistics.
    return record is not None and record.has_nonfinite()


def has_nonfinite(attrs: dict) -> tuple[bool, bool]:
    """``(in the forward value, in some gradient)`` for one node."""
    forward = any(_nonfinite(r) for r in attrs.get("outputs", ()) or (attrs.get("value"),))
    backward = any(_nonfinite(r) for flow in attrs.get("grads", {}).values()
                   for r in (*flow.outputs, *flow.inputs))
    return forward, backward


def first_nonfinite(graph: nx.DiGraph) -> tuple[str | None, str | None]:
    """Where NaN/Inf first appeared: in forward (creation order) and in backward (run order).

    Returns
    -------
    (forward node id or None, backward node id or None)
        Forward: the recorded op with the smallest ``seq`` whose value has
        NaN/Inf. Backward: in the earliest pass that produced one, the node
        autograd ran first whose incoming gradient (w.r.t. its output) has
        NaN/Inf, or failing that the first one that sent one to its inputs.
    """
    forward = None
    best_seq = None
    for node_id, attrs in graph.nodes(data=True):
        seq = attrs.get("seq")
        if seq is None or not any(_nonfinite(r) for r in attrs.get("outputs", ()) or (attrs.get("value"),)):
            continue
        if best_seq is None or seq < best_seq:
            forward, best_seq = node_id, seq
    backward = None
    best = None
    for node_id, attrs in graph.nodes(data=True):
        for index, flow in attrs.get("grads", {}).items():
            received = any(_nonfinite(r) for r in flow.outputs)
            sent = any(_nonfinite(r) for r in flow.inputs)
            if not (received or sent):
                continue
            order = attrs.get("grad_order", {}).get(index, 0)
            # Receiving NaN means it came from upstream: prefer the earliest in run order;
            # a node that only *sends* NaN created it, which ranks right after it.
            key = (index, order, 0 if received else 1)
            if best is None or key < best:
                backward, best = node_id, key
    return forward, backward


def _has_nan(record: TensorRecord | None) -> bool:
    if record is None or not record.has_nonfinite():  # the cheap check first
        return False
    stats = record.stats
    return stats is not None and stats.nan_count > 0


def _forward_values(attrs: dict) -> tuple:
    return tuple(attrs.get("outputs", ()) or (attrs.get("value"),))


def first_new_nan(graph: nx.DiGraph) -> str | None:
    """The first op (in creation order) whose forward value has NaN while none of its inputs' values had any.

    First NaN (forward) starts there when the first non-finite value is an
    Inf made on purpose: a masked attention fills its scores with -inf, and
    the NaN a softmax makes of a row that is all -inf is what needs finding.
    The inputs are the nodes it points to (its ``next_functions``).
    """
    best, best_seq = None, None
    for node_id, attrs in graph.nodes(data=True):
        seq = attrs.get("seq")
        if seq is None or (best_seq is not None and seq >= best_seq):
            continue
        if not any(_has_nan(r) for r in _forward_values(attrs)):
            continue
        if any(_has_nan(r) for child in graph.successors(node_id) for r in _forward_values(graph.nodes[child])):
            continue
        best, best_seq = node_id, seq
    return best


def nonfinite_kind(attrs: dict) -> str:
    """``"NaN"``, ``"Inf"`` or ``"NaN and Inf"``: what a node's forward value holds ("" when finite)."""
    nan = inf = False
    for record in _forward_values(attrs):
        if record is None or not record.has_nonfinite() or record.stats is None:
            continue
        nan = nan or record.stats.nan_count > 0
        inf = inf or record.stats.inf_count > 0
    return " and ".join(word for word, present in (("NaN", nan), ("Inf", inf)) if present)


def path_to_roots(graph: nx.DiGraph, node_id: str) -> set[str]:
    """Every node on a path from ``node_id`` up to a root (the way gradients reach it)."""
    seen = {node_id}
    queue = deque([node_id])
    pred = graph._pred
    while queue:
        current = queue.popleft()
        for parent in pred[current]:
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return seen


def filter_nodes(graph: nx.DiGraph, key: str, *, selected: str | None = None, passes_ran: bool = True) -> list[str]:
    """Node ids that pass filter ``key`` (see :data:`FILTERS`), in graph order."""
    if key == "all":
        return list(graph)
    if key == "path":
        if selected is None or selected not in graph:
            return []
        keep = path_to_roots(graph, selected)
        return [n for n in graph if n in keep]
    result = []
    for node_id, attrs in graph.nodes(data=True):
        if key == "requires_grad":
            ok = attrs.get("requires_grad", False)
        elif key == "nonfinite":
            ok = any(has_nonfinite(attrs))
        elif key == "no_gradient":
            ok = passes_ran and node_gradient(attrs) is None
        else:
            raise ValueError(f"unknown filter {key!r}; known: {', '.join(FILTERS)}")
        if ok:
            result.append(node_id)
    return result


def search_nodes(graph: nx.DiGraph, query: str) -> list[str]:
    """Nodes matching ``query`` (case-insensitive) by name, op, module path or shape.

    Exact name matches come first, then substring matches in graph order.
    ``"4x8"`` or ``"(4, 8)"`` match shapes.
    """
    text = query.strip().lower()
    if not text:
        return []
    exact, partial = [], []
    shape_text = text.replace("(", "").replace(")", "").replace(" ", "").replace(",", "x")
    for node_id, attrs in graph.nodes(data=True):
        names = [n.lower() for n in attrs["names"]]
        if text in names:
            exact.append(node_id)
            continue
        shape = attrs.get("shape")
        fields = [short_op(attrs["op"]).lower(), (attrs.get("module") or "").lower(), *names]
        if any(text in f for f in fields if f) or (
                shape is not None and shape_text and shape_text == "x".join(map(str, shape))):
            partial.append(node_id)
    return exact + partial

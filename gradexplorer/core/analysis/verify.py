"""Check a capture's gradients against facts recorded by other means, like TorchLens validates activations.

A gradient gradexplorer shows comes from one mechanism (a tap on a node); the
verifier checks it against a different one, recorded in the same run:

``leaf_pass``
    At a leaf, per pass: ``.grad`` just after the pass must equal ``.grad``
    just before it plus what the accumulator's tap saw delivered (both copies
    are taken by the recorder outside the tap). A hook that edits ``.grad``
    during the pass (a post-accumulate hook) makes this ``unverified``.
``leaf_total``
    At a leaf, at the end: ``.grad`` must equal the sum of the deliveries the
    reason code says it holds (``leaf_grad``, ``grad_accumulated``, ``grad_reset``).
``flow``
    At an op node, per pass: the gradient it received for output ``k`` must
    equal the sum of what its consumers sent to it (each consumer's tap, by
    ``next_functions`` slot): autograd's input buffer adds those up. Nodes with
    hooks that may change a gradient in between are ``unverified``.

Statuses: ``verified``; ``unverified`` (no independent fact, or values not
kept); ``wrong`` (a disagreement: a bug in gradexplorer, reported, never
hidden). Pure function of plain records: it works on reopened sessions too.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..records.phrases import Phrase, phrase
from .accounting import classify_leaf, leaf_steps_of, sum_values

__all__ = ["Verification", "verify_capture", "verify_node"]

#: Most op nodes the flow check looks at (it is linear in edges; beyond this
#: the rest are reported as unverified in the summary count).
MAX_FLOW_NODES = 20_000


@dataclass(frozen=True)
class Verification:
    """One check at one node.

    Attributes
    ----------
    node : str
    pass_index : int or None
        None for the end-of-run check.
    check : str
        ``"leaf_pass"``, ``"leaf_total"`` or ``"flow"`` (module docstring).
    status : str
        ``"verified"``, ``"unverified"`` or ``"wrong"``.
    detail : Phrase or str
        In words, for the CLI (``str()``: English) and the inspector (in the
        reader's language).
    """

    node: str
    pass_index: int | None
    check: str
    status: str
    detail: Phrase | str = ""


def _tensor(record):
    if record is None or record.data is None:
        return None
    data = record.data.resolve_conj().resolve_neg()
    return data.to(torch.complex128) if data.is_complex() else data.double()


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape:
        return False
    return bool(torch.allclose(a, b.to(a.dtype), rtol=1e-4, atol=1e-6, equal_nan=True))


def _text(t: torch.Tensor) -> Phrase | str:
    return str(t.tolist()) if t.numel() <= 6 else phrase("a {shape} tensor", shape=str(tuple(t.shape)))


def _outcome(node_id: str, pass_index, check: str, got, expected, verified: Phrase, wrong: Phrase) -> Verification:
    """``verified`` when ``got`` matches ``expected``, ``wrong`` (with both values) when not."""
    if got is None or expected is None:
        return Verification(node_id, pass_index, check, "unverified", phrase("values not kept"))
    if _close(got, expected):
        return Verification(node_id, pass_index, check, "verified", verified)
    return Verification(node_id, pass_index, check, "wrong",
                        phrase("{what}: {got} against {expected}", what=wrong, got=_text(got), expected=_text(expected)))


def _hook_changed(attrs, pass_index: int) -> bool:
    return any(c.pass_index == pass_index and c.changed for h in attrs.get("hooks", ()) for c in h.calls)


def _verify_leaf(graph, node_id: str, attrs: dict) -> list[Verification]:
    result = []
    accumulation = attrs.get("accumulation") or {}
    for index in sorted(accumulation):
        lp = accumulation[index]
        if lp.delivered is None:
            continue
        if lp.delivered.note.startswith("delivered by a backward"):
            result.append(Verification(node_id, index, "leaf_pass", "unverified",
                                       phrase("delivered only as the change in .grad (an inner backward)")))
            continue
        if getattr(lp, "reduced_by", ""):
            result.append(Verification(node_id, index, "leaf_pass", "unverified",
                                       phrase("{reducer} wrote .grad (the mean over the processes)",
                                              reducer=lp.reduced_by)))
            continue
        if _hook_changed(attrs, index) or lp.after is None:
            result.append(Verification(node_id, index, "leaf_pass", "unverified",
                                       phrase("a hook changed .grad during the pass")))
            continue
        expected = sum_values([r for r in (lp.before, lp.delivered) if r is not None])
        result.append(_outcome(node_id, index, "leaf_pass", _tensor(lp.after), expected,
                               phrase(".grad after = before + delivered"),
                               phrase(".grad after the pass against before + delivered")))
    steps = leaf_steps_of(graph, node_id)
    if steps:
        code, contributing, _ = classify_leaf(steps, attrs.get("grad"))
        if code in ("leaf_grad", "grad_accumulated", "grad_reset") and contributing:
            parts = [accumulation[i].delivered for i in contributing]
            if steps[0].before_change == "preexisting" and contributing[0] == steps[0].index:
                parts.insert(0, steps[0].before)
            which = ", ".join(str(i + 1) for i in contributing)  # counted from 1, as everywhere
            result.append(_outcome(node_id, None, "leaf_total", _tensor(attrs.get("grad")), sum_values(parts),
                                   phrase(".grad = sum of passes {passes}", passes=which),
                                   phrase(".grad against the sum of passes {passes}", passes=which)))
    return result


def _verify_flow(capture, node_id: str, attrs: dict) -> list[Verification]:
    result = []
    graph = capture.graph
    preds = graph.pred[node_id]
    for index, flow in sorted(attrs.get("grads", {}).items()):
        if not preds:
            continue  # a root: its gradient is the pass's seed, nothing sends it
        if index < len(capture.passes) and any(r == node_id for r, _ in capture.passes[index].roots):
            continue  # seeded by the pass itself (and maybe fed by consumers too)
        sums: dict[int, torch.Tensor | None] = {}
        complete = True
        for parent, edge in preds.items():
            parent_flow = graph.nodes[parent].get("grads", {}).get(index)
            if parent_flow is None:
                continue  # that consumer did not run in this pass
            if _hook_changed(graph.nodes[parent], index) or (len(edge["slots"]) > 1 and len(flow.outputs) > 1):
                complete = False  # a hook in between, or slots to different outputs (only the first is stored)
            for slot in edge["slots"]:
                sent = parent_flow.inputs[slot] if slot < len(parent_flow.inputs) else None
                if sent is None:
                    continue
                t = _tensor(sent)
                if t is None:
                    complete = False
                    continue
                nr = edge["input_nr"]
                sums[nr] = t if sums.get(nr) is None else sums[nr] + t
        if not complete or _hook_changed(attrs, index):
            result.append(Verification(node_id, index, "flow", "unverified",
                                       phrase("a hook or a capped value in between")))
            continue
        for nr, total in sums.items():
            got = _tensor(flow.outputs[nr] if nr < len(flow.outputs) else None)
            if got is not None and got.shape != total.shape:
                # Autograd reshapes into the input's metadata: compare the flat values only then.
                ok = got.numel() == total.numel() and _close(got.reshape(-1), total.reshape(-1))
                result.append(Verification(node_id, index, "flow", "verified" if ok else "unverified",
                                           phrase("shapes differ (input metadata)")))
                continue
            result.append(_outcome(node_id, index, "flow", got, total,
                                   phrase("gradient of output {nr} = sum of what its consumers sent", nr=nr),
                                   phrase("gradient received for output {nr} against what its consumers sent", nr=nr)))
    return result


#: Where a capture graph keeps the checks made at each node (``graph.graph[CHECKS_KEY][node_id]``); never saved.
CHECKS_KEY = "checks"


def verify_node(capture, node_id: str) -> tuple[Verification, ...]:
    """Every check at one node (for the inspector), made once per capture and kept in its graph.

    The inspector asks on every click; the sums and comparisons behind a
    check are made the first time only.
    """
    graph = capture.graph
    cache = graph.graph.get(CHECKS_KEY)
    if cache is None:
        cache = graph.graph.setdefault(CHECKS_KEY, {})
    checks = cache.get(node_id)
    if checks is None:
        attrs = graph.nodes[node_id]
        if attrs["kind"] == "leaf":
            checks = tuple(_verify_leaf(graph, node_id, attrs))
        else:
            checks = tuple(_verify_flow(capture, node_id, attrs))
        cache[node_id] = checks
    return checks


def verify_capture(capture, *, max_flow_nodes: int = MAX_FLOW_NODES) -> tuple[Verification, ...]:
    """Every check at every leaf, and the flow check at up to ``max_flow_nodes`` op nodes."""
    result: list[Verification] = []
    flow_budget = max_flow_nodes
    for node_id, attrs in capture.graph.nodes(data=True):
        if attrs["kind"] == "leaf":
            result.extend(_verify_leaf(capture.graph, node_id, attrs))
        elif flow_budget > 0 and attrs.get("grads"):
            flow_budget -= 1
            result.extend(_verify_flow(capture, node_id, attrs))
    return tuple(result)

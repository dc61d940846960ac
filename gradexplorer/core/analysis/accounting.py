"""What each backward pass did to a leaf's ``.grad``: per-pass accounting from recorded facts.

PyTorch adds every pass's gradient into a leaf's ``.grad`` (``AccumulateGrad``),
and user code or library hooks may edit ``.grad`` between passes (clipping,
scaling, ``zero_grad``, an optimizer step inside a post-accumulate hook). The
recorder keeps three facts per pass and leaf (see
:class:`~gradexplorer.core.records.nodes.LeafPass`): the gradient the pass
*delivered*, and copies of ``.grad`` just *before* and just *after* it. This
module turns them, plus ``.grad`` at the end of the run, into a history of
steps and one of the reason codes of :mod:`gradexplorer.core.analysis.explain`:

``leaf_grad``         ``.grad`` holds exactly what one pass delivered
``grad_accumulated``  ``.grad`` holds the sum of several passes (or a pass added to a ``.grad`` that was already there)
``grad_reset``        ``.grad`` was reset (None or zeros) between passes, so it holds only the later pass(es)
``grad_edited``       something other than a pass changed ``.grad`` (clipped, scaled, assigned)
``grad_consumed``     a hook took the gradient during the pass (``.grad`` set to None, e.g. an optimizer step in backward)
``grad_reduced``      a DistributedDataParallel reducer wrote ``.grad`` during the pass: the mean over the processes

Everything here reads plain records only (no live tensors), so a reopened
session gets the same answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..records.tensors import TensorRecord

__all__ = ["LEAF_STEPS_KEY", "LeafStep", "account_leaves", "classify_leaf", "leaf_steps", "leaf_steps_of",
           "same_value", "since_last_reset", "sum_values"]


@dataclass(frozen=True)
class LeafStep:
    """One pass at one leaf.

    Attributes
    ----------
    index : int
        The pass.
    delivered, before, after : TensorRecord or None
        See :class:`~gradexplorer.core.records.nodes.LeafPass`.
    before_change : str
        What happened to ``.grad`` between the previous pass and this one:
        ``"first"`` (first pass, ``.grad`` None or zero), ``"preexisting"``
        (first pass, ``.grad`` already held a value), ``"kept"``, ``"reset"``
        (set to None or zeroed), ``"edited"`` (changed to something else).
    effect : str
        What the pass did: ``"filled"`` (``.grad`` = delivered), ``"added"``
        (``.grad`` += delivered), ``"consumed"`` (a hook left ``.grad`` None),
        ``"changed"`` (``.grad`` changed in a way the delivery does not
        explain: a hook edited it), ``"reduced"`` (a DistributedDataParallel
        reducer wrote it: :attr:`LeafPass.reduced_by`), ``"none"`` (nothing arrived).
    """

    index: int
    delivered: TensorRecord | None
    before: TensorRecord | None
    after: TensorRecord | None
    before_change: str
    effect: str


def _tensor(record: TensorRecord | None) -> torch.Tensor | None:
    if record is None or record.data is None:
        return None
    data = record.data.resolve_conj().resolve_neg()
    return data.to(torch.complex128) if data.is_complex() else data.double()


def same_value(a: TensorRecord | None, b: TensorRecord | None) -> bool:
    """Whether two records hold the same values (``None`` equals only ``None``).

    Compared with a relative tolerance of 1e-6 (float32 sums in another
    order differ in the last bits); records without values compare their
    statistics.
    """
    if a is None or b is None:
        return a is b
    if a.shape != b.shape:
        return False
    # The common case (a .grad kept as the pass left it): 12-38x cheaper than allclose in float64. Records over
    # the value cap still hold their CPU tensor during the run's build: equal values there spare computing two
    # sets of statistics (which equal values would make equal anyway).
    sa, sb = a.stats_source(), b.stats_source()
    if sa is not None and sb is not None and sa.dtype == sb.dtype and torch.equal(sa, sb):
        return True
    ta, tb = _tensor(a), _tensor(b)
    if ta is None or tb is None:
        return a.stats == b.stats
    return bool(torch.allclose(ta, tb, rtol=1e-6, atol=1e-12, equal_nan=True))


def _is_zero(record: TensorRecord | None) -> bool:
    if record is None:
        return True
    if record.data is None:
        stats = record.stats
        return stats is not None and stats.min == 0 and stats.max == 0
    return not bool(record.data.any())  # NaN counts as non-zero, -0.0 as zero, as with == 0


def sum_values(records) -> torch.Tensor | None:
    """The sum of records' values (float64), or None when any has no values or shapes differ."""
    total = None
    for r in records:
        t = _tensor(r)
        if t is None:
            return None
        if total is None:
            total = t.clone()
        elif t.shape != total.shape:
            return None
        else:
            total = total + t
    return total


def _matches(record: TensorRecord | None, value: torch.Tensor | None) -> bool:
    t = _tensor(record)
    if t is None or value is None or t.shape != value.shape:
        return False
    return bool(torch.allclose(t, value.to(t.dtype), rtol=1e-5, atol=1e-7, equal_nan=True))


def leaf_steps(accumulation: dict) -> list[LeafStep]:
    """The steps of a leaf's ``accumulation`` attribute, in pass order."""
    steps = []
    previous_after = None
    for position, index in enumerate(sorted(accumulation)):
        lp = accumulation[index]
        before, after, delivered = lp.before, lp.after, lp.delivered
        if position == 0:
            before_change = "first" if _is_zero(before) else "preexisting"
        elif same_value(before, previous_after):
            before_change = "kept"
        elif _is_zero(before):
            before_change = "reset"
        else:
            before_change = "edited"
        if delivered is not None and getattr(lp, "reduced_by", ""):
            effect = "reduced"  # what .grad holds is the reducer's mean over processes, not this delivery
        elif delivered is None:
            effect = "none" if same_value(before, after) else "changed"
        elif after is None:
            effect = "consumed"
        elif before is None and same_value(after, delivered):
            effect = "filled"
        elif before is not None and _matches(after, sum_values([before, delivered])):
            effect = "added" if not _is_zero(before) else "filled"
        else:
            effect = "changed"
        steps.append(LeafStep(index, delivered, before, after, before_change, effect))
        previous_after = after
    return steps


#: Where a capture graph keeps its leaves' steps (``graph.graph[LEAF_STEPS_KEY][node_id]``); never saved.
LEAF_STEPS_KEY = "leaf_steps"


def leaf_steps_of(graph, node_id: str) -> tuple[LeafStep, ...]:
    """:func:`leaf_steps` of a graph node, made once per capture graph and kept in it.

    The explanations, the checks and the inspector all read a leaf's
    accounting; each used to remake it (comparing tensors pass by pass), the
    inspector three times per click on the GUI thread. A capture's graph never
    changes once built, so the steps are made once: by the pipeline's
    ``accounting`` step for a run (off the GUI thread), on first use for a
    reopened session.
    """
    accumulation = graph.nodes[node_id].get("accumulation")
    if not accumulation:  # not a leaf, or one no pass reached
        return ()
    cache = graph.graph.get(LEAF_STEPS_KEY)
    if cache is None:
        cache = graph.graph.setdefault(LEAF_STEPS_KEY, {})
    steps = cache.get(node_id)
    if steps is None:
        steps = cache[node_id] = tuple(leaf_steps(accumulation))
    return steps


def account_leaves(graph) -> dict[str, tuple[LeafStep, ...]]:
    """Make the steps of every leaf that a backward pass reached (see :func:`leaf_steps_of`); returns them by node."""
    for node_id, accumulation in graph.nodes(data="accumulation"):
        if accumulation:
            leaf_steps_of(graph, node_id)
    return graph.graph.setdefault(LEAF_STEPS_KEY, {})


def since_last_reset(steps: list[LeafStep]) -> list[LeafStep]:
    """The steps from the last fresh start of ``.grad`` on: a reset before a pass, or a hook that took it.

    What happened to ``.grad`` before that (passes, edits) no longer shows in
    it, so the reason codes and their sentences read only these steps.
    """
    start = 0
    for position, step in enumerate(steps):
        if step.before_change == "reset":
            start = position
        elif step.effect == "consumed":
            start = position + 1
    return steps[start:]


def end_change(steps: list[LeafStep], final: TensorRecord | None) -> str:
    """What happened to ``.grad`` after the last pass: ``"kept"``, ``"reset"`` or ``"edited"``."""
    last = steps[-1].after if steps else None
    if same_value(final, last):
        return "kept"
    if final is None or _is_zero(final):
        return "reset"
    return "edited"


def classify_leaf(steps: list[LeafStep], final: TensorRecord | None) -> tuple[str, list[int], str]:
    """The reason code for a leaf that passes reached.

    Returns
    -------
    code : str
        One of the codes in the module docstring.
    contributing : list of int
        The passes whose deliveries make up the final ``.grad``.
    change : str
        ``end_change`` (``"kept"``, ``"reset"``, ``"edited"``).
    """
    change = end_change(steps, final)
    if change == "edited":
        return "grad_edited", [], change
    if change == "reset":
        if steps and steps[-1].effect == "consumed":
            return "grad_consumed", [], change
        return "grad_reset", [], change
    contributing: list[int] = []
    preexisting = False
    # An edit counts only until the next reset: ``.grad += 1`` then ``.grad.zero_()`` leaves a .grad that holds
    # exactly the later passes.
    edited = ""
    for step in since_last_reset(steps):
        if step.before_change == "edited":
            edited = edited or "edited"
        elif step.before_change == "preexisting":
            preexisting = True
        if step.effect in ("filled", "added", "reduced"):
            contributing.append(step.index)
        elif step.effect == "changed":
            edited = edited or "in_pass"
    if edited:
        return "grad_edited", [], edited
    if any(s.effect == "reduced" for s in since_last_reset(steps)):
        return "grad_reduced", contributing, change
    if final is None:
        if any(s.effect == "consumed" for s in steps):
            return "grad_consumed", [], change
        return "grad_reset", [], change
    if any(s.before_change == "reset" for s in steps) and contributing:
        return "grad_reset", contributing, change
    if len(contributing) == 1 and not preexisting:
        return "leaf_grad", contributing, change
    return "grad_accumulated", contributing, change

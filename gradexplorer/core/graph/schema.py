"""What a capture graph node's attributes mean, read the same way by every view, query and report.

The attributes themselves are written by :func:`~gradexplorer.core.graph.build.build_graph`
(schema in that module's docstring); these are the small readings of them
that the overview, the queries, the CLI report and the GUI share, so that
none of them depends on another to know what a node's gradient is.
"""

from __future__ import annotations

from ..records.tensors import TensorRecord, format_number

__all__ = ["node_gradient", "node_role", "short_op", "value_caption"]


def short_op(op: str) -> str:
    """``torch::autograd::AccumulateGrad`` -> ``AccumulateGrad``."""
    return op.rsplit("::", 1)[-1]


def node_role(attrs: dict) -> str:
    """How a node is drawn: its ``kind`` (leaf, custom, op), or ``"root"`` for an op node backward starts from.

    A leaf or custom node that is also a root keeps its kind's colour (what
    it is matters more there); ``is_root`` still says it.
    """
    kind = attrs["kind"]
    return "root" if kind == "op" and attrs.get("is_root") else kind


def node_gradient(attrs: dict) -> TensorRecord | None:
    """The gradient to show for a node: ``.grad`` of a leaf, else the last pass's output gradient.

    In the picture of one pass (a node of :func:`~gradexplorer.core.analysis.passes.pass_graph`,
    whose attributes carry ``view_pass``): that pass's gradient, for a leaf
    what the pass delivered to its accumulator (None: nothing arrived in it).
    """
    view_pass = attrs.get("view_pass")
    if view_pass is not None:
        if attrs.get("kind") == "leaf":
            step = (attrs.get("accumulation") or {}).get(view_pass)
            return step.delivered if step is not None else None
        flow = (attrs.get("grads") or {}).get(view_pass)
        return flow.outputs[0] if flow is not None and flow.outputs else None
    if attrs.get("grad") is not None:
        return attrs["grad"]
    grads = attrs.get("grads") or {}
    for index in sorted(grads, reverse=True):
        outputs = grads[index].outputs
        if outputs and outputs[0] is not None:
            return outputs[0]
    return None


def value_caption(attrs: dict, *, width: int = 30) -> str:
    """What "values on the graph" shows by a node: its forward value and its gradient's norm.

    ``"[4, 8] float32 -0.5..0.7 · ‖g‖ 1.56"``; ``‖g‖ NaN/Inf`` when the
    gradient has non-finite values; parts that are unknown are left out.
    """
    parts = []
    value = attrs.get("value")
    if value is not None:
        parts.append(value.short(width=width))
    grad = node_gradient(attrs)
    if grad is not None:
        norm, nonfinite = grad.norm_and_nonfinite()
        if nonfinite:
            parts.append("‖g‖ NaN/Inf")
        elif norm is not None:
            parts.append(f"‖g‖ {format_number(norm)}")
    return " · ".join(parts)

"""What the recorder does when the program calls ``backward()`` or ``torch.autograd.grad``.

Each user call becomes a :class:`~gradexplorer.core.capture.trace_records.PassRecord`
(:func:`run_pass`): just before the pass a tap (a post hook that returns
``None``, so it never changes a gradient) is registered on every node
reachable from the pass's roots, so that each node learns the gradients
w.r.t. its inputs and outputs in that pass; ``.grad`` of every accumulator
the pass may change is copied before and after; the taps are removed right
after. A pass that raises keeps the node it raised in
(:func:`note_raising_node`). Calls made from inside torch (``torch.func``, a
reentrant checkpoint) run untapped: see the recorder's module docstring.

Functions of the :class:`~gradexplorer.core.capture.recording.Recorder`
whose state they read and fill (``passes``, ``active_pass``, ``modules``,
``snapshots``): the mode hands each backward call here.
"""

from __future__ import annotations

import functools
import inspect
import operator
import os
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any

import torch
from torch.autograd.graph import Node

from ..graph.autograd_nodes import edge_of, is_accumulator
from ..records.notes import SUM_UNKNOWN, note_text
from ..records.tensors import GradientSummaries, TensorRecord
from .code_places import CORE_DIR, PASS_WRAPPERS, TORCH_DIR
from .trace_records import PassRecord, TensorOrigin

if TYPE_CHECKING:
    from .recording import Recorder

__all__ = ["BACKWARD_FUNCS", "note_raising_node", "run_pass"]

#: The calls that start a pass.
BACKWARD_FUNCS = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)


class _GradTap:
    """gradexplorer's own post hook: keeps a node's gradients of one pass.

    It returns ``None``, which tells autograd to keep the gradients as they
    are, so it can never change a result. It stores the tuples autograd
    passes in (this runs once per node per pass), with each tensor over the
    value cap replaced by its record, made now (:class:`GradientSummaries`:
    holding them all for later is what made a large capture's memory several
    times the program's); the graph build turns the rest into records,
    sharing one record per tensor (a node's input gradient is often the very
    tensor its child receives). Holding the small tensors is safe: autograd
    never accumulates in place into a gradient someone else references.
    """

    __slots__ = ("node", "grads", "summaries")
    __gradexplorer__ = True

    def __init__(self, node: Node, grads: dict, summaries: GradientSummaries) -> None:
        self.node = node
        self.grads = grads
        self.summaries = summaries

    def __call__(self, grad_inputs, grad_outputs):
        # Insertion order of ``grads`` is the order autograd ran the nodes in.
        summaries = self.summaries
        self.grads[self.node] = (summaries(grad_inputs), summaries(grad_outputs))
        return None


class _LeafTap(_GradTap):
    """The tap of a gradient accumulator: keeps a *copy* of what it was handed.

    AccumulateGrad may store the incoming tensor itself as ``.grad`` (when
    nothing else references it) and a later pass then adds into it in place
    (``variable_grad += new_grad`` in torch's accumulate_grad.h), so a
    reference would show the final sum for the first pass. Copies over the
    value cap too, unlike :class:`_GradTap`: the leaf's pass-by-pass account
    adds them to ``.grad`` before the pass to tell "added" from "changed"
    (one copy per parameter and pass, what the program's ``.grad`` holds).
    """

    __slots__ = ()

    def __call__(self, grad_inputs, grad_outputs):
        self.grads[self.node] = (grad_inputs, tuple(
            None if g is None else g.detach().clone() for g in grad_outputs))
        return None


def _summed(tensors: list | None):
    """What autograd's input buffer holds for one output: the gradients sent to it, added up.

    A gradient over the value cap was kept as its record (:class:`GradientSummaries`): one alone is
    the sum; several cannot be added up any more, and the record made says so.
    """
    if not tensors:
        return None
    if len(tensors) == 1 or not any(type(t) is TensorRecord for t in tensors):
        return functools.reduce(operator.add, tensors)
    kept = next(t for t in tensors if type(t) is TensorRecord)  # every one has the slot's shape and dtype
    return TensorRecord(kept.shape, kept.dtype, kept.device, False, None, None,
                        note_text(SUM_UNKNOWN, count=len(tensors)))


def _copy_grad(t) -> torch.Tensor | None:
    """A detached copy of ``t.grad`` now (None when it is None)."""
    grad = t.grad
    return None if grad is None else grad.detach().clone()


def _tensor_args(value: Any) -> list[torch.Tensor]:
    """Flatten a tensor or a sequence of tensors (backward's ``tensors`` argument)."""
    if value is None:
        return []
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


#: ``inspect.signature`` of the backward functions, made once each.
_SIGNATURES: dict[Any, inspect.Signature] = {}


def _bind(func, args, kwargs) -> dict[str, Any]:
    """The call's arguments by parameter name (empty when they do not bind: torch then raises its own error)."""
    sig = _SIGNATURES.get(func)
    if sig is None:
        sig = _SIGNATURES[func] = inspect.signature(func)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return {}
    return dict(bound.arguments)


def _internal_caller() -> str:
    """The torch module that made the backward call being handled, or "" for a user call.

    The first frame outside the API wrappers (``Tensor.backward``,
    ``torch.autograd.grad``, the override dispatch) and outside
    gradexplorer is the caller: under torch's own directory it is
    ``torch.func`` or a reentrant checkpoint, not the user.
    """
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(CORE_DIR) or filename in PASS_WRAPPERS:
            frame = frame.f_back
            continue
        if not filename.startswith(TORCH_DIR):
            return ""
        return "torch." + filename[len(TORCH_DIR):].removesuffix(".py").replace(os.sep, ".").lstrip("_")
    return ""


def run_pass(recorder: Recorder, func, args, kwargs):
    """Run one backward call of the program as a recorded pass, and return what it returns.

    A call made from inside torch runs as it is (see the module docstring);
    the user's exception is the pass's ``error`` and is raised again.
    """
    if _internal_caller():
        return func(*args, **kwargs)
    params = _bind(func, args, kwargs)
    if func is torch.autograd.grad:
        kind, root_tensors = "grad", _tensor_args(params.get("outputs"))
        input_tensors = _tensor_args(params.get("inputs"))
    elif func is torch.Tensor.backward:
        kind, root_tensors = "backward", _tensor_args(params.get("self"))
        input_tensors = _tensor_args(params.get("inputs"))
    else:
        kind, root_tensors = "backward", _tensor_args(params.get("tensors"))
        input_tensors = _tensor_args(params.get("inputs"))
    create_graph = bool(params.get("create_graph", False))
    retain = params.get("retain_graph")
    retain_graph = create_graph if retain is None else bool(retain)
    roots = [e for e in map(edge_of, root_tensors) if e is not None]
    inputs = [e for e in map(edge_of, input_tensors) if e is not None]
    thread = None if threading.get_ident() == recorder.thread_id else threading.current_thread().name
    record = PassRecord(len(recorder.passes), kind, recorder.user_line(), roots, inputs, retain_graph, create_graph,
                        root_ids=[id(t) for t in root_tensors], thread=thread)
    recorder.passes.append(record)
    handles = _hook_reachable(recorder, record)
    leaves = _accounted_leaves(recorder, record)
    for node, var in leaves:
        record.leaf_grads[node] = [_copy_grad(var), None]
    previous, recorder.active_pass = recorder.active_pass, record
    try:
        result = func(*args, **kwargs)
    except BaseException as exc:
        record.error = f"{type(exc).__name__}: {exc}"
        note_raising_node(record)
        raise
    finally:
        recorder.active_pass = previous
        for handle in handles:
            handle.remove()
        for node, var in leaves:
            record.leaf_grads[node][1] = _copy_grad(var)
    if kind == "grad" and isinstance(result, tuple):
        take = recorder.snapshots.take_copy
        record.results = tuple(None if g is None else take(g) for g in result)
        for g in result:
            if isinstance(g, torch.Tensor):
                recorder.grad_results.note(g, record.line)
                if recorder._entry(g) is None:  # so that a later g.backward() can name it
                    recorder._origins[id(g)] = (weakref.ref(g), TensorOrigin(
                        next(recorder._seq), "autograd.grad", record.line, torch.is_grad_enabled(),
                        torch.is_inference_mode_enabled()), None)
    return result


def note_raising_node(record: PassRecord) -> None:
    """The node a pass raised in, and the gradient autograd had handed it (what a pre-hook would see).

    The taps are post hooks: they never fire for the node that raised
    ("modified by an inplace operation" is raised while it runs), yet the
    engine had summed its incoming gradient already. That sum is what its
    consumers sent it (their gradients w.r.t. their inputs, by
    ``next_functions`` slot), so it is rebuilt from their taps. The node is
    the one the engine would run next among those whose consumers all ran:
    its ready queue takes the highest sequence number first (AccumulateGrad
    before everything else). Runs only for a pass that raised.
    """
    grads = record.node_grads
    if not grads:
        return
    incoming: dict[Node, dict[int, list]] = {}
    for node, (grad_inputs, _) in grads.items():
        if grad_inputs is None:
            continue
        for (child, nr), grad in zip(node.next_functions, grad_inputs):
            if child is not None and child not in grads and isinstance(grad, (torch.Tensor, TensorRecord)):
                incoming.setdefault(child, {}).setdefault(nr, []).append(grad)
    if not incoming:
        return
    consumers: dict[Node, list[Node]] = {}
    for node in record.reachable:
        for child, _ in node.next_functions:
            if child in incoming:
                consumers.setdefault(child, []).append(node)
    # An accumulator that raised (a tensor hook on a leaf) is told by its hook and its .grad, not here.
    ready = [child for child in incoming if not is_accumulator(child)
             and all(c in grads for c in consumers.get(child, ()))]
    if not ready:
        return
    node = max(ready, key=lambda n: n._sequence_nr())
    arrived = incoming[node]
    outputs = tuple(_summed(arrived.get(nr)) for nr in range(max(arrived) + 1))
    grads[node] = (None, outputs)
    record.raised_at = node


def _accounted_leaves(recorder: Recorder, record: PassRecord) -> list[tuple[Node, torch.Tensor]]:
    """Accumulators whose ``.grad`` the pass may change: reachable ones and module parameters."""
    leaves: dict[Node, torch.Tensor] = {}
    for node in record.reachable:
        if is_accumulator(node):
            leaves[node] = node.variable
    for module in list(recorder.modules.values()):
        for param in module.parameters(recurse=False):
            if param.requires_grad:
                edge = edge_of(param)
                if edge is not None and edge[0] not in leaves:
                    leaves[edge[0]] = param
    return list(leaves.items())


def _hook_reachable(recorder: Recorder, record: PassRecord) -> list[Any]:
    """Register a tap on every node reachable from the pass's roots."""
    handles = []
    seen = record.reachable
    grads = record.node_grads
    summaries = GradientSummaries(recorder.snapshots.value_elements)
    stack = [node for node, _ in record.roots]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen[node] = None
        tap = (_LeafTap if is_accumulator(node) else _GradTap)(node, grads, summaries)
        handles.append(node.register_hook(tap))
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                stack.append(child)
    return handles

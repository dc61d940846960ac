"""The user's hooks, wrapped so that every call's gradient before and after is recorded.

``Tensor.register_hook``, ``Tensor.register_post_accumulate_grad_hook``,
``retain_grad`` and, through a source rewrite of the user's code
(:func:`~gradexplorer.core.capture.recording.rewrite_node_hook_calls`),
``Node.register_hook`` / ``Node.register_prehook``: each registration
becomes a :class:`~gradexplorer.core.capture.trace_records.HookInfo`, and the
hook itself is wrapped (:func:`wrap_hook`) so that each call adds a
:class:`~gradexplorer.core.capture.trace_records.HookCall` with copies of
the gradient before and after (a hook may change it in place, which only a
comparison by value can see). Registering a hook is how a learner sees an
intermediate's gradient (``d``'s gradient is 1.3 in the notes).

Functions of the :class:`~gradexplorer.core.capture.recording.Recorder`
whose state they fill (``hooks``, ``hook_gradients``): the mode hands each
registration here.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import torch
from torch.autograd.graph import Node

from ..graph.autograd_nodes import edge_of, grad_fn_of
from ..records.tensors import PendingRecord
from .code_places import CORE_DIR, TORCH_DIR
from .trace_records import HookCall, HookInfo

if TYPE_CHECKING:
    from .recording import Recorder

__all__ = ["POST_ACCUMULATE_REGISTER", "hook_qualname", "note_retain_grad", "register_post_accumulate_hook",
           "register_tensor_hook", "register_via_helper", "same_values", "wrap_hook"]

#: ``Tensor.register_post_accumulate_grad_hook`` as torch defines it (the mode sees calls of it).
POST_ACCUMULATE_REGISTER = torch.Tensor.register_post_accumulate_grad_hook


def hook_qualname(fn: Any) -> str:
    """How a hook is named in the capture: its qualified name, with its module unless it is the program's."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return name if module in (None, "__main__", "builtins") else f"{module}.{name}"


def _snapshot_grads(recorder: Recorder, value) -> tuple[PendingRecord | None, ...]:
    """Copies of the gradients a hook is handed (a tensor or a tuple of them), for its :class:`HookCall`."""
    # Copies: a hook runs inside backward, where the mode cannot see
    # (and protect against) in-place changes.
    take = recorder.snapshots.take_copy
    if isinstance(value, torch.Tensor):
        return (take(value),)
    if isinstance(value, (tuple, list)):
        return tuple(take(g) if isinstance(g, torch.Tensor) else None for g in value)
    return ()


def _note_hook_gradients(recorder: Recorder, grads) -> None:
    """Remember gradient tensors handed to a hook: a hook that keeps one names a gradient."""
    line = recorder.user_line()
    for g in grads:
        items = g if isinstance(g, (tuple, list)) else (g,)
        for t in items:
            if isinstance(t, torch.Tensor):
                recorder.hook_gradients.note(t, line)


def wrap_hook(recorder: Recorder, info: HookInfo, hook):
    """``hook``, calling it as it is and adding a :class:`HookCall` to ``info`` for every call."""

    def wrapped(*grads):
        # The first argument is what the hook may replace: the tensor's
        # gradient, a post hook's grad_inputs, a pre hook's grad_outputs.
        # Copy it before the call: the hook may change it in place, which
        # only a comparison by value can see.
        before = _snapshot_grads(recorder, grads[0])
        _note_hook_gradients(recorder, grads)
        index = recorder.active_pass.index if recorder.active_pass is not None else None
        try:
            result = hook(*grads)
        except BaseException as exc:
            # The pass stops here: say so on the hook's node.
            info.calls.append(HookCall(index, before, None, False, f"{type(exc).__name__}: {exc}"))
            raise
        if result is not None:
            after, in_place = _snapshot_grads(recorder, result), False
            if same_values(before, after):
                after = None
        else:
            current = _snapshot_grads(recorder, grads[0])
            in_place = not same_values(before, current)
            after = current if in_place else None
        info.calls.append(HookCall(index, before, after, in_place))
        return result

    wrapped.__wrapped__ = hook
    wrapped._gradexplorer_wrapped = True
    wrapped.__qualname__ = getattr(hook, "__qualname__", "hook")
    return wrapped


def register_post_accumulate_hook(recorder: Recorder, args, kwargs):
    """``Tensor.register_post_accumulate_grad_hook``: wrapped to see ``.grad`` before and after the hook."""
    tensor = args[0]
    hook = args[1] if len(args) > 1 else kwargs["hook"]
    edge = edge_of(tensor)
    if edge is None or getattr(hook, "_gradexplorer_wrapped", False):
        return POST_ACCUMULATE_REGISTER(tensor, hook)
    line = recorder.user_line()
    info = HookInfo("post_accumulate", hook_qualname(hook), edge[0], 0, line,
                    library=not _called_from_user_code(recorder))
    recorder.hooks.append(info)

    def wrapped(param):
        before = (None if param.grad is None else recorder.snapshots.take_copy(param.grad),)
        result = hook(param)
        after_grad = param.grad
        after = (None if after_grad is None else recorder.snapshots.take_copy(after_grad),)
        changed = not same_values(before, after)
        index = recorder.active_pass.index if recorder.active_pass is not None else None
        info.calls.append(HookCall(index, before, after if changed else None, changed))
        return result

    wrapped._gradexplorer_wrapped = True
    wrapped.__wrapped__ = hook
    return POST_ACCUMULATE_REGISTER(tensor, wrapped)


def _called_from_user_code(recorder: Recorder) -> bool:
    """Whether the innermost frame outside torch and gradexplorer is the user's file."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename == recorder.filename or (recorder.project is not None and recorder.project.is_user_file(filename)):
            return True
        if not (filename.startswith(CORE_DIR) or filename.startswith(TORCH_DIR)):
            return False
        frame = frame.f_back
    return False


def register_tensor_hook(recorder: Recorder, args, kwargs):
    """``Tensor.register_hook(hook)``: the hook wrapped and noted on the tensor's node and output."""
    tensor = args[0]
    hook = args[1] if len(args) > 1 else kwargs["hook"]
    edge = edge_of(tensor)
    if edge is None:  # PyTorch raises its own clear error for this
        return torch.Tensor.register_hook(tensor, hook)
    info = HookInfo("tensor", hook_qualname(hook), edge[0], edge[1], recorder.user_line(),
                    library=not _called_from_user_code(recorder))
    recorder.hooks.append(info)
    return torch.Tensor.register_hook(tensor, wrap_hook(recorder, info, hook))


def note_retain_grad(recorder: Recorder, tensor) -> None:
    """``retain_grad()`` on a non-leaf: noted as a hook of its node (torch registers its own there)."""
    edge = edge_of(tensor)
    if edge is not None and grad_fn_of(tensor) is not None:
        recorder.hooks.append(HookInfo("retain_grad", "Tensor.retain_grad", edge[0], edge[1], recorder.user_line()))


def register_via_helper(recorder: Recorder, obj, method: str, *args, **kwargs):
    """Run ``obj.<method>(*args)``, recording and wrapping node hooks.

    Injected into the user's namespace as :data:`HOOK_HELPER_NAME`; see
    :func:`rewrite_node_hook_calls`.
    """
    if isinstance(obj, torch.Tensor) or not isinstance(obj, Node) or not args:
        return getattr(obj, method)(*args, **kwargs)
    hook, rest = args[0], args[1:]
    kind = "node_post" if method == "register_hook" else "node_pre"
    info = HookInfo(kind, hook_qualname(hook), obj, 0, recorder.user_line())
    recorder.hooks.append(info)
    return getattr(obj, method)(wrap_hook(recorder, info, hook), *rest, **kwargs)


def same_values(a: tuple, b: tuple) -> bool:
    """Whether two tuples of pending records hold the same values (NaN equals NaN)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is None or y is None:
            if x is not y:
                return False
            continue
        tx, ty = x._tensor, y._tensor
        if tx is None or ty is None:  # summarised at once (over the memory budget): compare records
            if x.resolve() != y.resolve():
                return False
            continue
        if tx.shape != ty.shape or tx.dtype != ty.dtype or not torch.equal(tx, ty):
            if not (tx.shape == ty.shape and tx.dtype == ty.dtype and tx.is_floating_point()
                    and bool(torch.isnan(tx).eq(torch.isnan(ty)).all())
                    and bool(torch.nan_to_num(tx).eq(torch.nan_to_num(ty)).all())):
                return False
    return True

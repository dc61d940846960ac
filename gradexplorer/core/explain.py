"""Why does (or doesn't) a tensor get a gradient? One reason per name, as data.

:func:`explain_capture` reads only a capture's plain data (tensor facts, the
graph, the passes), so it works the same on a fresh capture and on one
reopened from a file. Each named tensor gets an :class:`Explanation`: a
stable reason ``code`` (tests and the GUI key on it), a sentence for people,
and the line that caused it where one exists.

Reason codes
------------
``alias``              a second name for the same tensor object (``b = a``)
``no_grad``            made by an op under ``torch.no_grad()``: no grad_fn
``inference_mode``     made under ``torch.inference_mode()``: can never require grad
``detached``           made by ``.detach()``: cut from the graph
``data``               made by ``.data``: cut from the graph, in-place changes untracked
``view_no_grad``       a view made under no_grad: no grad_fn, in-place edits forbidden
``view``               a view of another tensor; gradients reach the base through it
``integer_dtype``      an integer or bool tensor: cannot require grad
``no_requires_grad``   an ordinary tensor that never asked for gradients
``leaf_no_backward``   a leaf that requires grad, but no backward pass ran
``leaf_unreachable``   a leaf that requires grad, but no pass reached it: ``.grad`` is None
``leaf_grad``          a leaf whose ``.grad`` was filled by one pass
``grad_accumulated``   a leaf whose ``.grad`` is the sum over several passes
``grad_reset``         a leaf reached by several passes whose ``.grad`` holds only the last one(s)
``hook_modified``      a hook replaced the gradient flowing to this tensor
``retains_grad``       an intermediate that keeps ``.grad`` thanks to ``retain_grad()``
``intermediate``       an intermediate result: gradient seen on its node, no ``.grad``
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


__all__ = ["Explanation", "explain_capture"]

_INTEGER_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"}


@dataclass(frozen=True)
class Explanation:
    """Why one name's tensor does or does not get a gradient.

    Attributes
    ----------
    name : str
        The name this is about (``"b"``).
    code : str
        A reason code from the module docstring.
    sentence : str
        The explanation in words.
    line : int or None
        The line that caused it (where the tensor was made, the hook was
        registered, ...), when known.
    node : str or None
        Graph node id of the tensor, if it is in the graph.
    """

    name: str
    code: str
    sentence: str
    line: int | None = None
    node: str | None = None


def _where(origin) -> str:
    if origin is None or origin.source is None:
        return ""
    return f" at line {origin.source.line} (`{origin.source.text}`)"


def _line(origin) -> int | None:
    return None if origin is None or origin.source is None else origin.source.line


def _value(record) -> str:
    return "None" if record is None else record.short(width=40)


def _pass_roots(capture) -> str:
    names = []
    for p in capture.passes:
        root_names = [n for n in p.root_names] or [r for r, _ in p.roots if r]
        where = f" (line {p.source.line})" if p.source is not None else ""
        names.append(f"{', '.join(root_names) or 'an unnamed tensor'}{where}")
    return "; ".join(dict.fromkeys(names))


def _failed_backward_on(capture, name: str):
    for p in capture.passes:
        if p.error and name in p.root_names:
            return p
    return None


def _leaf_reason(capture, info, attrs) -> tuple[str, str, int | None]:
    name = info.name
    origin = info.origin
    grads = attrs.get("grads", {}) if attrs is not None else {}
    reached = sorted(grads)
    if not capture.passes:
        return ("leaf_no_backward",
                f"{name} is a leaf that requires grad{_where(origin)}, but no backward pass ran, so its .grad is None.",
                _line(origin))
    if info.grad is None or not reached:
        return ("leaf_unreachable",
                f"{name} requires grad, but it is not on the backward path of any pass (the passes started from "
                f"{_pass_roots(capture)}), so its .grad stayed None. Check that it is used to compute the loss.",
                _line(origin))
    if len(reached) == 1:
        p = capture.passes[reached[0]]
        where = f" at line {p.source.line}" if p.source is not None else ""
        return ("leaf_grad",
                f"{name} is a leaf that requires grad: the backward pass{where} filled its .grad with "
                f"{_value(info.grad)}.", p.source.line if p.source is not None else _line(origin))
    per_pass = [grads[i].outputs[0] for i in reached if grads[i].outputs and grads[i].outputs[0] is not None]
    total = _sum_records(per_pass)
    if total is not None and info.grad.data is not None and torch.allclose(total, info.grad.data.double(),
                                                                           rtol=1e-4, atol=1e-6):
        return ("grad_accumulated",
                f"{name}'s .grad is the sum over {len(reached)} backward passes (passes {', '.join(map(str, reached))}): "
                f"PyTorch adds each pass's gradient to .grad. Call optimizer.zero_grad() (or set .grad = None) "
                f"between passes if that is not what you want.", _line(origin))
    return ("grad_reset",
            f"{name} was reached by {len(reached)} passes, but its .grad ({_value(info.grad)}) holds only the last "
            f"gradient(s): it was reset in between (zero_grad or .grad = None).", _line(origin))


def _sum_records(records) -> torch.Tensor | None:
    if not records or any(r.data is None for r in records):
        return None
    total = records[0].data.double().clone()
    for r in records[1:]:
        if r.data.shape != total.shape:
            return None
        total += r.data.double()
    return total


def _changed_hook(attrs, output_nr: int):
    if attrs is None:
        return None, None
    for hook in attrs.get("hooks", ()):
        if hook.kind in ("tensor", "node_pre") and hook.output_nr == output_nr:
            for call in hook.calls:
                if call.changed:
                    return hook, call
    return None, None


def _explain_first(capture, info) -> tuple[str, str, int | None]:
    """The main reason for a tensor object, said about its first name."""
    name = info.name
    origin = info.origin
    made = f"`{origin.source.text}`" if origin is not None and origin.source is not None else "an op"
    attrs = capture.graph.nodes[info.node] if info.node is not None else None
    dtype = info.value.dtype
    if dtype in _INTEGER_DTYPES and not info.requires_grad:
        return ("integer_dtype",
                f"{name} is a {dtype} tensor: only floating point and complex tensors can require grad, so autograd "
                f"never tracks it (use .float() if you need gradients).", _line(origin))
    if info.is_inference or (origin is not None and origin.inference_mode and info.grad_fn is None):
        return ("inference_mode",
                f"{name} was made under torch.inference_mode(){_where(origin)}: an inference tensor can never "
                f"require grad nor be saved for backward; use torch.no_grad() if you need it in autograd later.",
                _line(origin))
    if origin is not None and origin.op == "detach" and info.grad_fn is None:
        src = f" from {info.source_names[0]}" if info.source_names else ""
        return ("detached",
                f"{name} was detached{src}{_where(origin)}: it shares memory with the original but is cut from the "
                f"graph, so no gradient flows back through it.", _line(origin))
    if origin is not None and origin.op == "data" and info.grad_fn is None:
        src = f" of {info.source_names[0]}" if info.source_names else ""
        return ("data",
                f"{name} is the .data{src}{_where(origin)}: like detach() it is cut from the graph, and autograd does "
                f"not even notice in-place changes made through it (wrong gradients without an error); prefer "
                f".detach().", _line(origin))
    if info.is_view and info.grad_fn is None and origin is not None and not origin.grad_enabled:
        base = info.base_names[0] if info.base_names else "its base"
        return ("view_no_grad",
                f"{name} is a view of {base} made under torch.no_grad(){_where(origin)}: it shows "
                f"requires_grad={info.requires_grad} but has no grad_fn, so no gradient flows back to {base} through "
                f"it, and changing it in place with grad mode on raises an error (PyTorch issue 11390).",
                _line(origin))
    if info.grad_fn is None and not info.requires_grad:
        if origin is not None and not origin.grad_enabled:
            failed = _failed_backward_on(capture, name)
            tail = (f" Calling {name}.backward() fails with \"does not require grad\""
                    + (f", as it did at line {failed.source.line}." if failed is not None and failed.source else "."))
            return ("no_grad",
                    f"{name} is a new tensor made by {made} under torch.no_grad() (line {_line(origin)}): "
                    f"no_grad only affects tensors created by operations inside it, and this one was, so it has "
                    f"no grad_fn and requires_grad=False.{tail}", _line(origin))
        return ("no_requires_grad",
                f"{name} does not require grad (made by {made}{'' if origin is None else f' at line {_line(origin)}'} "
                f"with requires_grad=False, the default): autograd does not track it. Pass requires_grad=True or call "
                f".requires_grad_() if you need its gradient.", _line(origin))
    output_nr = info.output_nr
    hook, call = _changed_hook(attrs, output_nr)
    if hook is not None:
        where = f" registered at line {hook.source.line}" if hook.source is not None else ""
        return ("hook_modified",
                f"The hook {hook.qualname}{where} replaced the gradient flowing to {name} in pass {call.pass_index}: "
                f"{_value(call.before[0] if call.before else None)} before, "
                f"{_value(call.after[0] if call.after else None)} after.",
                hook.source.line if hook.source is not None else _line(origin))
    if info.is_leaf:
        return _leaf_reason(capture, info, attrs)
    if info.retains_grad:
        retain = next((h for h in (attrs or {}).get("hooks", ()) if h.kind == "retain_grad"), None)
        line = retain.source.line if retain is not None and retain.source is not None else _line(origin)
        return ("retains_grad",
                f"{name} is an intermediate result, but retain_grad() was called on it"
                f"{f' at line {line}' if line else ''}, so its .grad is kept: {_value(info.grad)}.", line)
    grad = None
    if attrs is not None and attrs.get("grads"):
        last = attrs["grads"][max(attrs["grads"])]
        grad = last.outputs[output_nr] if output_nr < len(last.outputs) else None
    if info.is_view:
        base = info.base_names[0] if info.base_names else "its base"
        return ("view",
                f"{name} is a view of {base} (it shares its memory); gradients reach {base} through its grad_fn "
                f"{info.grad_fn}.", _line(origin))
    seen = f" Its gradient in the last pass was {_value(grad)} (on its node)." if grad is not None else \
        " No backward pass went through it."
    return ("intermediate",
            f"{name} is an intermediate result ({info.grad_fn}{_where(origin)}): PyTorch keeps no .grad for it."
            f"{seen} Use {name}.retain_grad() or {name}.register_hook(...) to keep it in your own code.",
            _line(origin))


def explain_capture(capture) -> tuple[Explanation, ...]:
    """An :class:`Explanation` for every name bound to a tensor in ``capture``.

    Parameters
    ----------
    capture : Capture

    Returns
    -------
    tuple of Explanation
        In namespace order; the extra names of an aliased object come right
        after its first name, with code ``alias``.
    """
    result = []
    for info in capture.tensors:
        code, sentence, line = _explain_first(capture, info)
        first = info.names[0]
        result.append(Explanation(first, code, sentence, line, info.node))
        for other in info.names[1:]:
            gets = "still gets a gradient" if info.requires_grad else "gets no gradient either"
            result.append(Explanation(
                other, "alias",
                f"{other} is the same tensor object as {first} (`{other} = {first}` only adds a name): no_grad only "
                f"affects tensors created by operations inside it, so {other} {gets}, exactly like {first}.",
                None, info.node))
    return tuple(result)


"""Why does (or doesn't) a tensor get a gradient? One reason per name, as data.

:func:`explain_capture` reads only a capture's plain data (tensor facts, the
graph, the passes), so it works the same on a fresh capture and on one
reopened from a file. Each named tensor gets an :class:`Explanation`: a
stable reason ``code`` (tests and the GUI key on it), a sentence for people,
and the line that caused it where one exists.

Reason codes
------------
The codes, with what each means and how it is shown (``problem``: no
gradient where one may be wanted, drawn red; ``note``: fine without a
gradient, drawn grey; ``ok``: gets its gradient), are the :data:`REASONS`
table; tests and the GUI read that table, not a copy of it.
"""

from __future__ import annotations

import ast
import re

from ..records.explanations import REASONS, Explanation
from ..records.source import SourceLine
from .accounting import classify_leaf, leaf_steps_of, since_last_reset

__all__ = ["explain_capture"]


_INTEGER_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"}


def _where(origin) -> str:
    if origin is None or origin.source is None:
        return ""
    return f" at {origin.source.where()} (`{origin.source.text}`)"


def _line(origin):
    """Where a tensor was made (a :class:`SourceLine`: its file too), None when not known."""
    return None if origin is None or origin.source is None else origin.source


def _at(source) -> str:
    """``" at line 7"`` / ``" at line 7 of pkg/model.py"`` for a known line (``SourceLine(0, "")`` is not)."""
    return f" at {source.where()}" if source is not None and source.line else ""


def _value(record) -> str:
    return "None" if record is None else record.short(width=40)


def _pass_roots(capture) -> str:
    """Where the passes started, for people: ``loss (line 8)``, ``a SumBackward0 result at line 8 (node n4)``.

    An unnamed root (``net(x).sum().backward()``) is named by its op and the
    node id the inspector's title shows; passes that started from the same
    op at the same line (a training loop) are told once, with every node.
    """
    described: dict[str, list[str]] = {}
    for p in capture.passes:
        where = f" ({p.source.where()})" if p.source is not None else ""
        if p.root_names:
            described.setdefault(f"{', '.join(p.root_names)}{where}", [])
            continue
        nodes = [r for r, _ in p.roots if r]
        ops = dict.fromkeys(_op_of(capture, r) for r in nodes)
        what = f"a {' / '.join(ops)} result" if ops else "an unnamed tensor"
        at = _at(p.source)
        described.setdefault(f"{what}{at}", []).extend(nodes)
    parts = []
    for text, nodes in described.items():
        nodes = list(dict.fromkeys(nodes))
        if nodes:
            text += f" ({'node' if len(nodes) == 1 else 'nodes'} {', '.join(nodes)})"
        parts.append(text)
    return "; ".join(parts)


#: Why a step gives its result no graph, by op (:class:`~gradexplorer.core.records.capture.CutRecord`).
_CUT_WHY = {
    **dict.fromkeys(("argmax", "argmin", "argsort", "argwhere", "nonzero", "bucketize", "searchsorted"),
                    "its result is an index (integers carry no gradient)"),
    **dict.fromkeys(("eq", "ne", "lt", "le", "gt", "ge", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                     "logical_and", "logical_or", "logical_not", "logical_xor", "isclose", "isnan", "isinf",
                     "isfinite", "equal"),
                    "a comparison's result is true/false (it has no derivative)"),
    **dict.fromkeys(("multinomial", "bernoulli", "poisson", "randint_like", "sample"),
                    "sampling has no derivative (a distribution's rsample() has one where it exists)"),
    "detach": "detach() cuts the graph on purpose",
    **dict.fromkeys(("item", "tolist", "__float__", "__int__", "__bool__"),
                    "the value left autograd as a Python number, which carries no graph"),
    "numpy": "the value left autograd as a NumPy array, which carries no graph",
}
#: Steps after which a classification loss is the usual fix.
_CLASSIFY_STEPS = frozenset(("argmax", "argmin", "eq", "ne", "__eq__", "__ne__", "gt", "lt", "__gt__", "__lt__"))


def _cut_why(cut) -> str:
    why = _CUT_WHY.get(cut.op)
    if why is not None:  # sampling runs under no_grad inside torch.distributions: the step is the reason
        return why
    if not cut.grad_enabled:
        return "grad mode was off there (torch.no_grad() or set_grad_enabled(False))"
    return "PyTorch defines no derivative for it"


def _cut_from(cut) -> str:
    if cut.from_names:
        return cut.from_names[0]
    if cut.from_source is not None and cut.from_source.text:
        return f"the result of `{cut.from_source.text}`"
    return "a tensor that requires grad"


def _told_cut(capture, info) -> bool:
    """Whether ``info.cut`` is worth telling: a step with no derivative (or a known one, such as sampling,
    which runs under no_grad inside torch.distributions); a plain op under ``no_grad`` is told as such by the
    ``no_grad`` explanation of what it made, and an escape only for the root of a pass that raised."""
    cut = info.cut
    if cut is None or not (cut.grad_enabled or cut.op in _CUT_WHY):
        return False
    return not cut.escaped or _failed_backward_on(capture, info.name) is not None


def _cut_reason(capture, info):
    """``graph_cut`` for a tensor with no graph that was computed from one that requires grad, or None.

    A value that left autograd as a Python number (``.item()``) cannot be
    followed back: that guess is told only for the root of a pass that raised
    "does not require grad", where the user surely expected a graph.
    """
    cut, name = info.cut, info.name
    if not _told_cut(capture, info):
        return None
    failed = _failed_backward_on(capture, name)
    leaves = ", ".join(cut.leaves) or _cut_from(cut)
    if cut.escaped:
        text = f" (`{cut.source.text}`)" if cut.source is not None and cut.source.text else ""
        sentence = (f"{name} does not require grad: it was made from Python numbers, and the last value that left "
                    f"autograd before it was .{cut.op}(){_at(cut.source)}{text}, of a tensor computed from "
                    f"{leaves}. If {name} was computed from that number, the graph was cut there: "
                    f"{_cut_why(cut)}.")
    else:
        sentence = (f"{name} does not require grad: it was computed from {_cut_from(cut)} through `{cut.op}`"
                    f"{_at(cut.source)}, and {_cut_why(cut)}, so no graph leads from {name} back to {leaves}.")
    if failed is not None:
        fix = (" (for a classification loss: cross_entropy on the scores, not argmax and ==)"
               if cut.op in _CLASSIFY_STEPS else "")
        sentence += (f" That is why {name}.backward() raised{_at(failed.source)}. Calling {name}.requires_grad_() "
                     f"would only hide the error: {leaves} would still get no gradient. Compute {name} with "
                     f"differentiable ops{fix}.")
    return "graph_cut", sentence, cut.source if cut.source is not None and cut.source.line else _line(info.origin)


def _cut_behind(capture, name: str, line):
    """``graph_cut`` for a leaf that requires grad and is behind the cut of a tensor computed from it, or None."""
    cuts = [i for i in capture.tensors if i.cut is not None and name in i.cut.leaves and _told_cut(capture, i)]
    if not cuts:
        return None
    info = next((i for i in cuts if _failed_backward_on(capture, i.name) is not None), cuts[-1])
    cut = info.cut
    how = (f"through .{cut.op}(){_at(cut.source)}, where the value left autograd" if cut.escaped
           else f"through `{cut.op}`{_at(cut.source)}, and {_cut_why(cut)}")
    failed = _failed_backward_on(capture, info.name)
    tail = f" That is why {info.name}.backward() raised{_at(failed.source)}." if failed is not None else ""
    return ("graph_cut",
            f"{name} requires grad and {info.name} was computed from it, but {how}: no gradient can flow back "
            f"through that step, so {name}.grad stayed None.{tail}", line)


def _op_of(capture, node_id: str) -> str:
    attrs = capture.graph.nodes.get(node_id) if capture.graph is not None else None
    return attrs["op"].rsplit("::", 1)[-1] if attrs else "unnamed"


def _failed_backward_on(capture, name: str):
    for p in capture.passes:
        if p.error and name in p.root_names:
            return p
    return None


def _pass_name(p) -> str:
    """``the pass at line 7`` / ``the autograd.grad call at line 7`` (and its thread)."""
    what = "the torch.autograd.grad call" if p.kind == "grad" else "the backward pass"
    where = _at(p.source)
    thread = f" (in thread {p.thread})" if p.thread else ""
    return f"{what}{where}{thread}"


def _error_head(p) -> str:
    """The error's first line, cut to a readable length."""
    head = (p.error or "").splitlines()[0] if p.error else ""
    return head if len(head) <= 140 else head[:137].rstrip() + "..."


def _list(indexes) -> str:
    """Pass numbers as people count them: the first pass is pass 1 (0-based indexes in the data)."""
    return ", ".join(str(i + 1) for i in indexes)


def _leaf_reason(capture, info, attrs) -> tuple[str, str, int | None]:
    """Why a leaf's ``.grad`` is what it is: which passes delivered, accumulated, reset or changed it."""
    name = info.name
    origin = info.origin
    line = _line(origin)
    passes = capture.passes
    if not passes:
        return ("leaf_no_backward",
                f"{name} is a leaf that requires grad{_where(origin)}, but no backward pass ran, so its .grad is None.",
                line)
    attrs = attrs or {}
    steps = leaf_steps_of(capture.graph, info.node) if info.node is not None else ()
    reached = [s for s in steps if s.delivered is not None or s.effect != "none"]
    on_path = set(attrs.get("on_path", ()))
    if not reached:
        return _leaf_not_reached(capture, info, passes, on_path, line)
    code, contributing, change = classify_leaf(steps, info.grad)
    value = _value(info.grad)
    failed = [s.index for s in reached if passes[s.index].raised] if all(s.index < len(passes) for s in reached) else []
    tail = ""
    if failed:
        tail = (f" Pass {_list(failed)} raised ({_error_head(passes[failed[-1]])}) after delivering this gradient: "
                f"what arrived before the error stays in .grad.")
    delivered_in = {s.index for s in reached}
    missed = [p for p in passes if p.raised and p.index in on_path and p.index not in delivered_in]
    if missed:
        tail += (f" {_pass_name(missed[-1])[0].upper()}{_pass_name(missed[-1])[1:]} raised before reaching it "
                 f"({_error_head(missed[-1])}), so that pass added nothing.")
    if code == "leaf_grad":
        p = passes[contributing[0]]
        return ("leaf_grad",
                f"{name} is a leaf that requires grad: {_pass_name(p)} filled its .grad with {value}." + tail, line)
    if code == "grad_accumulated":
        pre = any(s.before_change == "preexisting" for s in steps)
        if pre and len(contributing) <= 1:
            p = passes[contributing[0]] if contributing else passes[reached[0].index]
            return ("grad_accumulated",
                    f"{name}'s .grad already held {_value(steps[0].before)} before {_pass_name(p)}, which added its "
                    f"gradient ({_value(steps[-1].delivered)}) to it: .grad is now {value}. PyTorch accumulates "
                    f"into .grad; set {name}.grad = None first if you want only this pass's gradient." + tail, line)
        return ("grad_accumulated",
                f"{name}'s .grad ({value}) is the sum over {len(contributing)} backward passes (passes "
                f"{_list(contributing)}): PyTorch adds each pass's gradient to .grad. Call optimizer.zero_grad() "
                f"(or set .grad = None) between passes if that is not what you want." + tail, line)
    if code == "grad_reset":
        if contributing:
            return ("grad_reset",
                    f"{name} was reached by {len(reached)} passes, but .grad was reset in between (zero_grad or "
                    f".grad = None), so it ({value}) holds only pass(es) {_list(contributing)}." + tail, line)
        return ("grad_reset",
                f"{name} got gradients from passes {_list(s.index for s in reached)}, but .grad was reset after the "
                f"last one (zero_grad or .grad = None): it is {value} now." + tail, line)
    if code == "grad_reduced":
        s = next(s for s in reversed(steps) if s.effect == "reduced")
        lp = attrs["accumulation"][s.index]
        return ("grad_reduced",
                f"During {_pass_name(passes[s.index])} this process delivered {_value(s.delivered)} to {name}, and "
                f"{lp.reduced_by} then wrote .grad: its reducer (C++ hooks on every parameter's gradient "
                f"accumulator, which Python never sees) averages .grad over the processes, so .grad is {value}, "
                f"not this process's gradient." + tail, line)
    if code == "grad_consumed":
        hook = next((h for h in attrs.get("hooks", ()) if h.kind == "post_accumulate"), None)
        who = f"the post-accumulate hook {hook.qualname}" if hook is not None else "a hook"
        s = next(s for s in reversed(steps) if s.effect == "consumed")
        return ("grad_consumed",
                f"{_pass_name(passes[s.index])} delivered {_value(s.delivered)} to {name}, and {who} then took it "
                f"(it set .grad to None, as an optimizer step inside backward does), so .grad is {value}." + tail, line)
    # grad_edited
    recent = since_last_reset(steps)  # an edit before the last reset is gone from .grad: the sentence is about one after
    if change == "in_pass":
        s = next(s for s in recent if s.effect == "changed")
        return ("grad_edited",
                f"During {_pass_name(passes[s.index])} {name}'s .grad went from {_value(s.before)} to {_value(s.after)}, "
                f"which is not before + the delivered {_value(s.delivered)}: a hook changed it (a post-accumulate "
                f"hook, or an inner backward). It is {value} at the end." + tail, line)
    edited_after = next((s.index for s in recent if s.before_change == "edited"), None)
    if edited_after is not None:
        return ("grad_edited",
                f"{name}'s .grad was changed by your code between passes (before pass {edited_after + 1} it was "
                f"{_value(next(s.before for s in recent if s.index == edited_after))}, not what the previous pass left: "
                f"clipped, scaled or assigned), so it is not a plain sum of gradients: {value} at the end." + tail, line)
    last = steps[-1]
    return ("grad_edited",
            f"{_pass_name(passes[last.index])} left {name}.grad = {_value(last.after)}; your code then changed it "
            f"(clipped, scaled or assigned) to {value}." + tail, line)


def _leaf_not_reached(capture, info, passes, on_path, line) -> tuple[str, str, int | None]:
    """Why no backward pass delivered anything to a leaf (returned instead, excluded, raised, unreachable)."""
    name = info.name
    node = info.node
    returned = [p for p in passes if p.kind == "grad" and any(r == node for r, _ in p.inputs)]
    if returned:
        p = returned[-1]
        slot = next(i for i, (r, _) in enumerate(p.inputs) if r == node)
        value = p.results[slot] if slot < len(p.results) else None
        if value is None:  # allow_unused=True: there is no gradient to accumulate anywhere
            return ("grad_returned",
                    f"{_pass_name(p)} was asked for {name}'s gradient and returned None (allow_unused=True): "
                    f"{name} is not on the graph of its outputs, so no gradient exists for it; "
                    f"loss.backward() would not give it one either. {name}.grad is {_value(info.grad)}.", line)
        return ("grad_returned",
                f"{_pass_name(p)} returned {name}'s gradient ({_value(value)}) instead of adding it to .grad: "
                f"torch.autograd.grad never touches .grad, so {name}.grad is {_value(info.grad)}. "
                f"Use loss.backward() if you want it accumulated.", line)
    excluded = [p for p in passes if p.kind == "backward" and p.inputs and p.index in on_path
                and all(r != node for r, _ in p.inputs)]
    if excluded:
        p = excluded[-1]
        only = ", ".join(p.input_names) or "other tensors"
        return ("leaf_excluded",
                f"{name} is on the graph of {_pass_name(p)}, but that pass was limited to inputs=[{only}], so "
                f"autograd computed no gradient for {name}; its .grad is {_value(info.grad)}.", line)
    raised = [p for p in passes if p.raised and p.index in on_path]
    if raised:
        p = raised[-1]
        return ("pass_raised",
                f"{name} is on the graph of {_pass_name(p)}, but that pass raised before reaching it "
                f"({_error_head(p)}), so its .grad is {_value(info.grad)}.", p.source or line)
    if info.grad is not None:
        return ("grad_set_by_code",
                f"No backward pass delivered a gradient to {name}, yet its .grad is {_value(info.grad)}: "
                f"your code assigned it (for example {name}.grad = ...).", line)
    if on_path:
        p = passes[max(on_path)]
        return ("leaf_unreachable",
                f"{name} is on the graph of {_pass_name(p)}, but no gradient arrived (the ops between the loss and "
                f"{name} sent none: a non-differentiable step, or a hook that returned a zero/None gradient "
                f"upstream), so its .grad stayed None.", line)
    cut = _cut_behind(capture, name, line)
    if cut is not None:
        return cut
    return ("leaf_unreachable",
            f"{name} requires grad, but it is not on the backward path of any pass (the passes started from "
            f"{_pass_roots(capture)}), so its .grad stayed None. Check that it is used to compute the loss.",
            line)


def _changed_hook(attrs, output_nr: int):
    if attrs is None:
        return None, None
    for hook in attrs.get("hooks", ()):
        if hook.kind in ("tensor", "node_pre") and hook.output_nr == output_nr:
            for call in hook.calls:
                if call.changed:
                    return hook, call
    return None, None


def _grad_off_context(capture, source) -> str:
    """How grad mode was off at ``source``: the ``with`` item that turned it off, read from the code.

    Grad mode is one thread-local flag; ``torch.no_grad()``,
    ``torch.set_grad_enabled(False)`` and a ``@torch.no_grad()`` function all
    clear it, and the recorded flag cannot tell them apart. The enclosing
    ``with`` statement (or decorator) in the user's code can: in the file the
    line belongs to (the program, or ``model.py``). ``source`` is a
    :class:`SourceLine` or a line of the program.
    """
    if source is None:
        return "with grad mode off"
    if isinstance(source, int):
        line, code = source, capture.code
    else:
        line, code = source.line, capture.text_of(source.file)
    tree = _parsed(code)
    best = None
    if tree is not None:
        for node in ast.walk(tree):
            end = getattr(node, "end_lineno", None)
            if end is None or not (node.lineno <= line <= end):
                continue
            items = []
            if isinstance(node, (ast.With, ast.AsyncWith)):
                items = [item.context_expr for item in node.items]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                items = list(node.decorator_list)
            for expr in items:
                text = ast.get_source_segment(code, expr) or ""
                if any(key in text for key in ("no_grad", "set_grad_enabled", "inference_mode", "grad_enabled")):
                    if best is None or node.lineno >= best[0]:
                        best = (node.lineno, text)
    if best is None:
        return "with grad mode off"
    text = best[1]
    if "@" not in text and not text.endswith(")"):
        text += "()"
    return f"under {text}"


_parse_cache: dict[str, ast.Module | None] = {}


def _parsed(code: str) -> ast.Module | None:
    if code not in _parse_cache:
        if len(_parse_cache) > 8:
            _parse_cache.clear()
        try:
            _parse_cache[code] = ast.parse(code)
        except (SyntaxError, ValueError):
            _parse_cache[code] = None
    return _parse_cache[code]


_assignments_cache: dict[str, dict[tuple[str, str], int]] = {}


def _plain_assignments(code: str) -> dict[tuple[str, str], int]:
    """``(target, value) -> line`` of every plain ``target = value`` between two names (the first in walk order).

    Built once per program: asked per tensor object, one walk of the whole
    tree each time was most of the explanations of a 1,700-layer model.
    """
    found = _assignments_cache.get(code)
    if found is None:
        if len(_assignments_cache) > 8:
            _assignments_cache.clear()
        found = {}
        tree = _parsed(code)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault((target.id, node.value.id), node.lineno)
        _assignments_cache[code] = found
    return found


def _assigned_from(capture, target: str, value: str) -> int | None:
    """The line of a plain ``target = value`` in the code, if there is one."""
    if "." in value:
        return None
    return _plain_assignments(capture.code).get((target, value))


def _bindings(code: str) -> dict[str, list[tuple[str, int, str]]]:
    """``name -> [(how, line, text)]``: the statements that bind each name, in source order.

    ``how`` is ``"loop"`` (a ``for`` or comprehension target), ``"with"``
    (``with ... as name``), ``"inplace"`` (``name = x.mul_(2)``: an in-place
    method returns its input object), ``"read"`` (``name = model.fc.weight``,
    ``name = pair[0]``: the value of an attribute, item or name) or
    ``"assign"`` (any other assignment).
    """
    found = _bindings_cache.get(code)
    if found is None:
        if len(_bindings_cache) > 8:
            _bindings_cache.clear()
        found = {}
        tree = _parsed(code)
        lines = code.splitlines()

        def note(target, how, node):
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    text = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
                    found.setdefault(sub.id, []).append((how, node.lineno, text))

        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.For, ast.AsyncFor)):
                note(node.target, "loop", node)
            elif isinstance(node, ast.comprehension):
                note(node.target, "loop", node.iter)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        note(item.optional_vars, "with", node)
            elif isinstance(node, ast.Assign):
                value = node.value
                inplace = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr.endswith("_") and not value.func.attr.endswith("__")
                # `w = model.fc.weight`, `x = batch[0]`, `y = x`: reading a stored object, no op at all.
                read = isinstance(value, (ast.Attribute, ast.Subscript, ast.Name))
                for target in node.targets:
                    note(target, "inplace" if inplace else "read" if read else "assign", node)
        for entries in found.values():
            entries.sort(key=lambda entry: entry[1])
        _bindings_cache[code] = found
    return found


_bindings_cache: dict[str, dict[str, list[tuple[str, int, str]]]] = {}


def _got_gradient(capture, info) -> bool:
    """Whether some pass gave the object a gradient (on its node), or its .grad holds one."""
    if info.grad is not None:
        return True
    attrs = capture.graph.nodes.get(info.node) if info.node is not None and capture.graph is not None else None
    if attrs is None:
        return False
    if any(o is not None for flow in (attrs.get("grads") or {}).values() for o in flow.outputs):
        return True
    return any(step.delivered is not None for step in (attrs.get("accumulation") or {}).values())


def _binding_reason(capture, name: str):
    """Why ``name`` is a second name of an object, read from the statement that bound it (and where it is).

    The program is read first, then the project's other files the capture
    kept (a name bound in ``model.py``'s ``forward``). The place is a line of
    the program (an ``int``) or a :class:`SourceLine` of another file.
    """
    entries, file = _bindings(capture.code).get(name, ()), None
    if not entries:
        for other, text in getattr(capture, "files", {}).items():
            entries = _bindings(text).get(name, ())
            if entries:
                file = other
                break

    def at(line: int, text: str):
        place = line if file is None else SourceLine(line, text, file)
        return (f"line {line}" if file is None else f"line {line} of {file}"), place

    for how, line, text in entries:
        if how == "loop":
            where, place = at(line, text)
            return (f"the loop at {where} (`{text}`) binds {name} to each object it goes over, the objects "
                    f"themselves (Python never copies a tensor to hand it to a name)"), place
    for how, line, text in entries:
        if how == "inplace":
            where, place = at(line, text)
            return (f"`{text}` at {where} binds it to what an in-place method returned, which is its input "
                    f"object itself"), place
    for how, line, text in entries:
        if how == "read":
            where, place = at(line, text)
            return (f"`{text}` at {where} binds {name} to the object stored there (reading an attribute, item "
                    f"or name hands over the object itself, never a copy)"), place
    for how, line, text in entries:
        if how == "with":
            where, place = at(line, text)
            return f"`{text}` at {where} binds {name} to an existing object", place
    if entries:
        how, line, text = entries[-1]
        where, place = at(line, text)
        return (f"`{text}` at {where} binds {name} to an object that already had a name (an op that returns "
                f"its input, such as an in-place op or a custom Function whose forward calls ctx.mark_dirty, or "
                f"another name)"), place
    return ("Python names never copy a tensor: both names lead to one object (bound where gradexplorer could not "
            "read the statement)"), None


def _node_source(attrs) -> str:
    source = (attrs or {}).get("source")
    return "" if source is None else f" at {source.where()} (`{source.text}`)"


def _explain_first(capture, info) -> tuple[str, str, int | None]:
    """The main reason for a tensor object, said about its first name."""
    name = info.name
    origin = info.origin
    attrs = capture.graph.nodes[info.node] if info.node is not None else None
    for rule in (_untracked_reason, _constant_reason, _hook_reason):
        reason = rule(capture, info, attrs)
        if reason is not None:
            return reason
    if info.is_leaf:
        return _leaf_reason(capture, info, attrs)
    if info.retains_grad:
        retain = next((h for h in (attrs or {}).get("hooks", ()) if h.kind == "retain_grad"), None)
        line = retain.source if retain is not None and retain.source is not None else _line(origin)
        return ("retains_grad",
                f"{name} is an intermediate result, but retain_grad() was called on it"
                f"{_at(line)}, so its .grad is kept: {_value(info.grad)}.", line)
    return _intermediate_reason(capture, info, attrs)


def _untracked_reason(capture, info, attrs) -> tuple[str, str, int | None] | None:
    """Tensors autograd never tracks: an integer dtype, inference mode, detach(), .data, a view made with grad off."""
    name = info.name
    origin = info.origin
    dtype = info.value.dtype
    if dtype in _INTEGER_DTYPES and not info.requires_grad:
        return ("integer_dtype",
                f"{name} is {'an' if dtype.startswith('int') else 'a'} {dtype} tensor: only floating point and complex tensors can require grad, so autograd "
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
    if info.is_view and info.grad_fn is None and origin is not None and not origin.grad_enabled \
            and info.switched_off is None:
        base = info.base_names[0] if info.base_names else "its base"
        return ("view_no_grad",
                f"{name} is a view of {base} made {_grad_off_context(capture, _line(origin))}{_where(origin)}: it "
                f"shows requires_grad={info.requires_grad} but has no grad_fn, so no gradient flows back to {base} "
                f"through it, and changing it in place with grad mode on raises an error (PyTorch issue 11390).",
                _line(origin))
    return None


def _constant_reason(capture, info, attrs) -> tuple[str, str, int | None] | None:
    """Tensors without a grad_fn that do not require grad: why each is a constant."""
    name = info.name
    origin = info.origin
    made = f"`{origin.source.text}`" if origin is not None and origin.source is not None else "an op"
    if info.grad_fn is not None or info.requires_grad:
        return None
    if info.switched_off is not None:
        line = info.switched_off if info.switched_off.line else None
        kept = f" Its .grad still holds what earlier passes left: {_value(info.grad)}." if info.grad is not None else ""
        return ("grad_switched_off",
                f"{name} stopped requiring grad when your code turned it off{_at(line)} "
                f"(`{info.switched_off.text}`): autograd no longer tracks it, and later passes give it nothing."
                f"{kept}", line)
    if info.grad_result is not None:
        where = _at(info.grad_result)
        failed = _failed_backward_on(capture, name)
        tail = (f" That is why {name}.backward() raised{_at(failed.source)}." if failed is not None else "")
        return ("gradient_tensor",
                f"{name} is the gradient torch.autograd.grad returned{where}. It has no grad_fn: without "
                f"create_graph=True (or when a backward on its path is not differentiable, such as a custom "
                f"Function marked @once_differentiable) autograd builds no graph for it, so it is a constant."
                f"{tail}", (info.grad_result if info.grad_result.line else None) or _line(origin))
    if info.hook_gradient is not None:
        where = _at(info.hook_gradient)
        return ("gradient_tensor",
                f"{name} is a gradient that autograd handed to your hook{where}, which kept it: a gradient is a "
                f"plain result and needs no gradient of its own.",
                (info.hook_gradient if info.hook_gradient.line else None) or _line(origin))
    if info.is_buffer:
        return ("buffer",
                f"{name} is a module buffer (register_buffer, e.g. BatchNorm's running statistics): the module "
                f"updates it itself, outside autograd, and it needs no gradient.", _line(origin))
    if origin is not None and not origin.grad_enabled:
        failed = _failed_backward_on(capture, name)
        tail = (f" Calling {name}.backward() fails with \"does not require grad\""
                + (f", as it did{_at(failed.source)}." if failed is not None and failed.source else "."))
        context = _grad_off_context(capture, _line(origin))
        return ("no_grad",
                f"{name} is a new tensor made by {made} {context}"
                f"{f' ({_line(origin).where()})' if _line(origin) else ''}: grad mode off only "
                f"affects tensors created by operations while it is off, and this one was, so it has no grad_fn "
                f"and requires_grad=False.{tail}", _line(origin))
    cut = _cut_reason(capture, info)
    if cut is not None:
        return cut
    where = "" if origin is None else f" (made by {made}{_at(_line(origin))})"
    return ("no_requires_grad",
            f"{name} does not require grad{where}: autograd treats it as a constant, which is right for input "
            f"data, targets and statistics. Only if you want its gradient, create it with requires_grad=True "
            f"or call {name}.requires_grad_().", _line(origin))
    return None


def _hook_reason(capture, info, attrs) -> tuple[str, str, int | None] | None:
    """A hook on the tensor raised, or changed the gradient flowing to it."""
    name = info.name
    origin = info.origin
    output_nr = info.output_nr
    raised = next(((h, c) for h in (attrs or {}).get("hooks", ()) for c in h.calls if c.error), None)
    if raised is not None:
        hook, call = raised
        where = f" registered{_at(hook.source)}" if hook.source is not None else ""
        p = capture.passes[call.pass_index] if call.pass_index is not None and call.pass_index < len(capture.passes) \
            else None
        during = f" during {_pass_name(p)}" if p is not None else ""
        return ("hook_raised",
                f"The hook {hook.qualname}{where} on {name} raised{during} ({call.error.splitlines()[0]}): the pass "
                f"stopped there, so nothing below {name} got this pass's gradient.",
                hook.source if hook.source is not None else _line(origin))
    hook, call = _changed_hook(attrs, output_nr)
    if hook is not None:
        where = f" registered{_at(hook.source)}" if hook.source is not None else ""
        how = "changed in place" if call.in_place else "replaced"
        # For a leaf, what ended in .grad over all passes too: the hook's first change is not the whole story.
        then = f" Over all passes: {_leaf_reason(capture, info, attrs)[1]}" if info.is_leaf else ""
        return ("hook_modified",
                f"The hook {hook.qualname}{where} {how} the gradient flowing to {name} in pass {call.pass_index + 1}: "
                f"{_value(call.before[0] if call.before else None)} before, "
                f"{_value(call.after[0] if call.after else None)} after.{then}",
                hook.source if hook.source is not None else _line(origin))
    return None


def _intermediate_reason(capture, info, attrs) -> tuple[str, str, int | None]:
    """A non-leaf result: PyTorch keeps no .grad for it; what its node received is said instead."""
    name = info.name
    origin = info.origin
    output_nr = info.output_nr
    grad = None
    last_index = None
    if attrs is not None and attrs.get("grads"):
        last_index = max(attrs["grads"])
        last = attrs["grads"][last_index]
        grad = last.outputs[output_nr] if output_nr < len(last.outputs) else None
    node_line = (attrs or {}).get("source")
    line = node_line if node_line is not None else _line(origin)
    if info.is_view:
        base = info.base_names[0] if info.base_names else "its base"
        return ("view",
                f"{name} is a view of {base} (it shares its memory); gradients reach {base} through its grad_fn "
                f"{info.grad_fn}.", line)
    if grad is not None:
        p = capture.passes[last_index] if last_index < len(capture.passes) else None
        which = "the last pass" if last_index == len(capture.passes) - 1 else \
            f"pass {last_index + 1}, the last one that reached it"
        where = f" ({_pass_name(p)})" if p is not None else ""
        seen = f" Its gradient in {which}{where} was {_value(grad)} (on its node)."
        if p is not None and p.raised and p.raised_at is not None and p.raised_at == info.node:
            seen += (f" That pass raised while running its node {_op_of(capture, info.node)}, after the gradient "
                     f"had arrived ({_error_head(p)}): nothing below it got this pass's gradient.")
    elif capture.passes:
        seen = " No backward pass reached it."
    else:
        seen = " No backward pass ran."
    op = info.grad_fn.rsplit("::", 1)[-1]
    node_source = _node_source(attrs)
    if node_source or not _where(origin):
        made = f"{op}{node_source}"
    else:  # its node was made where the mode could not see (CopySlices after an in-place op on a view of it)
        made = f"made{_where(origin)}; its grad_fn is now {op}"
    return ("intermediate",
            f"{name} is an intermediate result ({made}): PyTorch keeps "
            f"no .grad for it.{seen} Use {name}.retain_grad() or {name}.register_hook(...) to keep it in your own "
            f"code.", line)


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
        code, sentence, place = _explain_first(capture, info)
        first = info.names[0]
        line, file = _line_and_file(place)
        result.append(Explanation(first, code, _scoped(sentence, info, first), line, info.node,
                                  REASONS[code].severity, file))
        for other in info.names[1:]:
            if not info.requires_grad:
                gets = "gets no gradient either"
            elif REASONS[code].severity == "ok" and _got_gradient(capture, info):
                gets = "still gets a gradient"
            else:  # the object gets no gradient (unreached, a failed pass, ...): nor does its second name
                gets = f"shares what is said of {first} above"
            assigned = _assigned_from(capture, other, first)
            if assigned is not None:
                context = _grad_off_context(capture, assigned)
                why = f"`{other} = {first}` at line {assigned} only adds a name (Python never copies a tensor on assignment)"
                if context.startswith("under "):
                    why += f"; {context.removeprefix('under ')} only affects tensors created by operations inside it"
            elif "." in other or "[" in other:
                why = f"it is the same object stored in another place (`{other}`)"
            else:
                why, assigned = _binding_reason(capture, other)
            line, file = _line_and_file(assigned)
            result.append(Explanation(
                other, "alias",
                _scoped(f"{other} is the same tensor object as {first}: {why}, so {other} {gets}"
                        f"{', exactly like ' + first if not gets.startswith('shares') else ''}.", info, other, first),
                line, info.node, REASONS["alias"].severity, file))
    return tuple(result)


def _line_and_file(place) -> tuple[int | None, str | None]:
    """A sentence's place (a :class:`SourceLine`, a line of the program, or None) as ``(line, file)``."""
    if place is None:
        return None, None
    if isinstance(place, int):
        return place, None
    return (place.line or None), (place.file if place.line else None)


def _scoped(sentence: str, info, *names: str) -> str:
    """The sentence with the first mention of each name held in a function said so: ``loss (in train_step())``.

    The same variable name can hold different tensors in different
    functions (``x`` in ``main()`` and in ``Net.forward()``); the sentence
    says which one it is about, once.
    """
    for name in names:
        scope = info.scope_of(name)
        if not scope:
            continue
        pattern = re.compile(r"(?<![\w.\[])" + re.escape(name) + r"(?![\w\[(])(?!\.\w)")
        sentence = pattern.sub(f"{name} (in {scope})", sentence, count=1)
    return sentence

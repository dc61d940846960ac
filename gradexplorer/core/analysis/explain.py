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

from ..records.explanations import REASONS, Explanation
from ..records.phrases import Phrase, concat, phrase, place_of
from ..records.source import SourceLine
from .accounting import classify_leaf, leaf_steps_of, since_last_reset
from .source_bindings import bindings, parsed, plain_assignments

__all__ = ["explain_capture"]


_INTEGER_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"}


def _where(origin) -> Phrase | str:
    if origin is None or origin.source is None:
        return ""
    return phrase(" at {place} (`{text}`)", place=place_of(origin.source), text=origin.source.text)


def _line(origin):
    """Where a tensor was made (a :class:`SourceLine`: its file too), None when not known."""
    return None if origin is None or origin.source is None else origin.source


def _at(source) -> Phrase | str:
    """``" at line 7"`` / ``" at line 7 of pkg/model.py"`` for a known line (``SourceLine(0, "")`` is not)."""
    return phrase(" at {place}", place=place_of(source)) if source is not None and source.line else ""


def _value(record) -> str:
    return "None" if record is None else record.short(width=40)


def _pass_roots(capture) -> Phrase:
    """Where the passes started, for people: ``loss (line 8)``, ``a SumBackward0 result at line 8 (node n4)``.

    An unnamed root (``net(x).sum().backward()``) is named by its op and the
    node id the inspector's title shows; passes that started from the same
    op at the same line (a training loop) are told once, with every node.
    """
    described: dict[Phrase, list[str]] = {}
    for p in capture.passes:
        where = phrase(" ({place})", place=place_of(p.source)) if p.source is not None else ""
        if p.root_names:
            described.setdefault(concat(", ".join(p.root_names), where), [])
            continue
        nodes = [r for r, _ in p.roots if r]
        ops = dict.fromkeys(_op_of(capture, r) for r in nodes)
        what = phrase("a {ops} result", ops=" / ".join(ops)) if ops else phrase("an unnamed tensor")
        described.setdefault(concat(what, _at(p.source)), []).extend(nodes)
    parts = []
    for text, nodes in described.items():
        nodes = list(dict.fromkeys(nodes))
        if nodes:
            listed = ", ".join(nodes)
            which = phrase(" (node {nodes})", nodes=listed) if len(nodes) == 1 else \
                phrase(" (nodes {nodes})", nodes=listed)
            text = concat(text, which)
        parts.append(text)
    return concat(*[piece for i, part in enumerate(parts) for piece in ((part,) if i == 0 else ("; ", part))])


#: Why a step gives its result no graph, by op (:class:`~gradexplorer.core.records.capture.CutRecord`).
_CUT_WHY = {
    **dict.fromkeys(("argmax", "argmin", "argsort", "argwhere", "nonzero", "bucketize", "searchsorted"),
                    phrase("its result is an index (integers carry no gradient)")),
    **dict.fromkeys(("eq", "ne", "lt", "le", "gt", "ge", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                     "logical_and", "logical_or", "logical_not", "logical_xor", "isclose", "isnan", "isinf",
                     "isfinite", "equal"),
                    phrase("a comparison's result is true/false (it has no derivative)")),
    **dict.fromkeys(("multinomial", "bernoulli", "poisson", "randint_like", "sample"),
                    phrase("sampling has no derivative (a distribution's rsample() has one where it exists)")),
    "detach": phrase("detach() cuts the graph on purpose"),
    **dict.fromkeys(("item", "tolist", "__float__", "__int__", "__bool__"),
                    phrase("the value left autograd as a Python number, which carries no graph")),
    "numpy": phrase("the value left autograd as a NumPy array, which carries no graph"),
}
#: Steps after which a classification loss is the usual fix.
_CLASSIFY_STEPS = frozenset(("argmax", "argmin", "eq", "ne", "__eq__", "__ne__", "gt", "lt", "__gt__", "__lt__"))


def _cut_why(cut) -> Phrase:
    why = _CUT_WHY.get(cut.op)
    if why is not None:  # sampling runs under no_grad inside torch.distributions: the step is the reason
        return why
    if not cut.grad_enabled:
        return phrase("grad mode was off there (torch.no_grad() or set_grad_enabled(False))")
    return phrase("PyTorch defines no derivative for it")


def _cut_from(cut) -> Phrase | str:
    if cut.from_names:
        return cut.from_names[0]
    if cut.from_source is not None and cut.from_source.text:
        return phrase("the result of `{code}`", code=cut.from_source.text)
    return phrase("a tensor that requires grad")


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
        sentence = phrase("{name} does not require grad: it was made from Python numbers, and the last value that "
                          "left autograd before it was .{op}(){at}{code}, of a tensor computed from {leaves}. If "
                          "{name} was computed from that number, the graph was cut there: {why}.",
                          name=name, op=cut.op, at=_at(cut.source), code=text, leaves=leaves, why=_cut_why(cut))
    else:
        sentence = phrase("{name} does not require grad: it was computed from {source} through `{op}`{at}, and "
                          "{why}, so no graph leads from {name} back to {leaves}.",
                          name=name, source=_cut_from(cut), op=cut.op, at=_at(cut.source), why=_cut_why(cut),
                          leaves=leaves)
    if failed is not None:
        fix = (phrase(" (for a classification loss: cross_entropy on the scores, not argmax and ==)")
               if cut.op in _CLASSIFY_STEPS else "")
        sentence = concat(sentence, phrase(
            " That is why {name}.backward() raised{at}. Calling {name}.requires_grad_() would only hide the "
            "error: {leaves} would still get no gradient. Compute {name} with differentiable ops{fix}.",
            name=name, at=_at(failed.source), leaves=leaves, fix=fix))
    return "graph_cut", sentence, cut.source if cut.source is not None and cut.source.line else _line(info.origin)


def _cut_behind(capture, name: str, line):
    """``graph_cut`` for a leaf that requires grad and is behind the cut of a tensor computed from it, or None."""
    cuts = [i for i in capture.tensors if i.cut is not None and name in i.cut.leaves and _told_cut(capture, i)]
    if not cuts:
        return None
    info = next((i for i in cuts if _failed_backward_on(capture, i.name) is not None), cuts[-1])
    cut = info.cut
    how = (phrase("through .{op}(){at}, where the value left autograd", op=cut.op, at=_at(cut.source)) if cut.escaped
           else phrase("through `{op}`{at}, and {why}", op=cut.op, at=_at(cut.source), why=_cut_why(cut)))
    failed = _failed_backward_on(capture, info.name)
    tail = (phrase(" That is why {name}.backward() raised{at}.", name=info.name, at=_at(failed.source))
            if failed is not None else "")
    return ("graph_cut",
            phrase("{name} requires grad and {made} was computed from it, but {how}: no gradient can flow back "
                   "through that step, so {name}.grad stayed None.{tail}", name=name, made=info.name, how=how,
                   tail=tail), line)


def _op_of(capture, node_id: str) -> str:
    attrs = capture.graph.nodes.get(node_id) if capture.graph is not None else None
    return attrs["op"].rsplit("::", 1)[-1] if attrs else "unnamed"


def _failed_backward_on(capture, name: str):
    for p in capture.passes:
        if p.error and name in p.root_names:
            return p
    return None


def _pass_name(p, *, first: bool = False) -> Phrase:
    """``the pass at line 7`` / ``the autograd.grad call at line 7`` (and its thread); ``first``: as a
    sentence's first words (``The backward pass ...``)."""
    if first:
        what = phrase("The torch.autograd.grad call") if p.kind == "grad" else phrase("The backward pass")
    else:
        what = phrase("the torch.autograd.grad call") if p.kind == "grad" else phrase("the backward pass")
    thread = phrase(" (in thread {thread})", thread=p.thread) if p.thread else ""
    return concat(what, _at(p.source), thread)


def _error_head(p) -> str:
    """The error's first line, cut to a readable length."""
    head = (p.error or "").splitlines()[0] if p.error else ""
    return head if len(head) <= 140 else head[:137].rstrip() + "..."


def _list(indexes) -> str:
    """Pass numbers as people count them: the first pass is pass 1 (0-based indexes in the data)."""
    return ", ".join(str(i + 1) for i in indexes)


def _leaf_reason(capture, info, attrs, places: _ReachedPlaces | None = None) -> tuple[str, Phrase, int | None]:
    """Why a leaf's ``.grad`` is what it is: which passes delivered, accumulated, reset or changed it."""
    name = info.name
    origin = info.origin
    line = _line(origin)
    passes = capture.passes
    if not passes:
        return ("leaf_no_backward",
                phrase("{name} is a leaf that requires grad{where}, but no backward pass ran, so its .grad is None.",
                       name=name, where=_where(origin)),
                line)
    attrs = attrs or {}
    steps = leaf_steps_of(capture.graph, info.node) if info.node is not None else ()
    reached = [s for s in steps if s.delivered is not None or s.effect != "none"]
    on_path = set(attrs.get("on_path", ()))
    if not reached:
        return _leaf_not_reached(capture, info, passes, on_path, line, places or _ReachedPlaces(capture))
    code, contributing, change = classify_leaf(steps, info.grad)
    value = _value(info.grad)
    tail = _raised_passes(passes, reached, on_path)
    if code == "leaf_grad":
        p = passes[contributing[0]]
        return ("leaf_grad",
                concat(phrase("{name} is a leaf that requires grad: {pass_} filled its .grad with {value}.",
                              name=name, pass_=_pass_name(p), value=value), tail), line)
    if code == "grad_accumulated":
        pre = any(s.before_change == "preexisting" for s in steps)
        if pre and len(contributing) <= 1:
            p = passes[contributing[0]] if contributing else passes[reached[0].index]
            return ("grad_accumulated", concat(phrase(
                "{name}'s .grad already held {before} before {pass_}, which added its gradient ({delivered}) to it: "
                ".grad is now {value}. PyTorch accumulates into .grad; set {name}.grad = None first if you want "
                "only this pass's gradient.", name=name, before=_value(steps[0].before), pass_=_pass_name(p),
                delivered=_value(steps[-1].delivered), value=value), tail), line)
        return ("grad_accumulated", concat(phrase(
            "{name}'s .grad ({value}) is the sum over {count} backward passes (passes {passes}): PyTorch adds each "
            "pass's gradient to .grad. Call optimizer.zero_grad() (or set .grad = None) between passes if that is "
            "not what you want.", name=name, value=value, count=len(contributing), passes=_list(contributing)),
            tail), line)
    if code == "grad_reset":
        if contributing:
            return ("grad_reset", concat(phrase(
                "{name} was reached by {count} passes, but .grad was reset in between (zero_grad or .grad = None), "
                "so it ({value}) holds only pass(es) {passes}.", name=name, count=len(reached), value=value,
                passes=_list(contributing)), tail), line)
        return ("grad_reset", concat(phrase(
            "{name} got gradients from passes {passes}, but .grad was reset after the last one (zero_grad or "
            ".grad = None): it is {value} now.", name=name, passes=_list(s.index for s in reached), value=value),
            tail), line)
    if code == "grad_reduced":
        s = next(s for s in reversed(steps) if s.effect == "reduced")
        lp = attrs["accumulation"][s.index]
        return ("grad_reduced", concat(phrase(
            "During {pass_} this process delivered {delivered} to {name}, and {reducer} then wrote .grad: its "
            "reducer (C++ hooks on every parameter's gradient accumulator, which Python never sees) averages .grad "
            "over the processes, so .grad is {value}, not this process's gradient.",
            pass_=_pass_name(passes[s.index]), delivered=_value(s.delivered), name=name, reducer=lp.reduced_by,
            value=value), tail), line)
    if code == "grad_consumed":
        hook = next((h for h in attrs.get("hooks", ()) if h.kind == "post_accumulate"), None)
        who = (phrase("the post-accumulate hook {hook}", hook=hook.qualname) if hook is not None
               else phrase("a hook"))
        s = next(s for s in reversed(steps) if s.effect == "consumed")
        return ("grad_consumed", concat(phrase(
            "{pass_} delivered {delivered} to {name}, and {who} then took it (it set .grad to None, as an optimizer "
            "step inside backward does), so .grad is {value}.", pass_=_pass_name(passes[s.index], first=True),
            delivered=_value(s.delivered), name=name, who=who, value=value), tail), line)
    # grad_edited
    recent = since_last_reset(steps)  # an edit before the last reset is gone from .grad: the sentence is about one after
    if change == "in_pass":
        s = next(s for s in recent if s.effect == "changed")
        return ("grad_edited", concat(phrase(
            "During {pass_} {name}'s .grad went from {before} to {after}, which is not before + the delivered "
            "{delivered}: a hook changed it (a post-accumulate hook, or an inner backward). It is {value} at the end.",
            pass_=_pass_name(passes[s.index]), name=name, before=_value(s.before), after=_value(s.after),
            delivered=_value(s.delivered), value=value), tail), line)
    edited_after = next((s.index for s in recent if s.before_change == "edited"), None)
    if edited_after is not None:
        return ("grad_edited", concat(phrase(
            "{name}'s .grad was changed by your code between passes (before pass {number} it was {before}, not what "
            "the previous pass left: clipped, scaled or assigned), so it is not a plain sum of gradients: {value} "
            "at the end.", name=name, number=edited_after + 1,
            before=_value(next(s.before for s in recent if s.index == edited_after)), value=value), tail), line)
    last = steps[-1]
    return ("grad_edited", concat(phrase(
        "{pass_} left {name}.grad = {after}; your code then changed it (clipped, scaled or assigned) to {value}.",
        pass_=_pass_name(passes[last.index], first=True), name=name, after=_value(last.after), value=value),
        tail), line)


def _raised_passes(passes, reached, on_path) -> Phrase | str:
    """What passes that raised did to a leaf's ``.grad``: kept what came before the error, or added nothing."""
    failed = [s.index for s in reached if passes[s.index].raised] if all(s.index < len(passes) for s in reached) else []
    tail = ""
    if failed:
        tail = phrase(" Pass {passes} raised ({error}) after delivering this gradient: what arrived before the error "
                      "stays in .grad.", passes=_list(failed), error=_error_head(passes[failed[-1]]))
    delivered_in = {s.index for s in reached}
    missed = [p for p in passes if p.raised and p.index in on_path and p.index not in delivered_in]
    if missed:
        tail = concat(tail, phrase(" {pass_} raised before reaching it ({error}), so that pass added nothing.",
                                   pass_=_pass_name(missed[-1], first=True), error=_error_head(missed[-1])))
    return tail


def _leaf_not_reached(capture, info, passes, on_path, line, places: _ReachedPlaces) -> tuple[str, Phrase, int | None]:
    """Why no backward pass delivered anything to a leaf (returned instead, excluded, raised, unreachable)."""
    name = info.name
    node = info.node
    returned = [p for p in passes if p.kind == "grad" and any(r == node for r, _ in p.inputs)]
    if returned:
        p = returned[-1]
        slot = next(i for i, (r, _) in enumerate(p.inputs) if r == node)
        value = p.results[slot] if slot < len(p.results) else None
        if value is None:  # allow_unused=True: there is no gradient to accumulate anywhere
            return ("grad_returned", phrase(
                "{pass_} was asked for {name}'s gradient and returned None (allow_unused=True): {name} is not on the "
                "graph of its outputs, so no gradient exists for it; loss.backward() would not give it one either. "
                "{name}.grad is {grad}.", pass_=_pass_name(p, first=True), name=name, grad=_value(info.grad)), line)
        return ("grad_returned", phrase(
            "{pass_} returned {name}'s gradient ({value}) instead of adding it to .grad: torch.autograd.grad never "
            "touches .grad, so {name}.grad is {grad}. Use loss.backward() if you want it accumulated.",
            pass_=_pass_name(p, first=True), name=name, value=_value(value), grad=_value(info.grad)), line)
    excluded = [p for p in passes if p.kind == "backward" and p.inputs and p.index in on_path
                and all(r != node for r, _ in p.inputs)]
    if excluded:
        p = excluded[-1]
        only = ", ".join(p.input_names) or phrase("other tensors")
        return ("leaf_excluded", phrase(
            "{name} is on the graph of {pass_}, but that pass was limited to inputs=[{only}], so autograd computed "
            "no gradient for {name}; its .grad is {grad}.", name=name, pass_=_pass_name(p), only=only,
            grad=_value(info.grad)), line)
    raised = [p for p in passes if p.raised and p.index in on_path]
    if raised:
        p = raised[-1]
        return ("pass_raised", phrase(
            "{name} is on the graph of {pass_}, but that pass raised before reaching it ({error}), so its .grad is "
            "{grad}.", name=name, pass_=_pass_name(p), error=_error_head(p), grad=_value(info.grad)),
            p.source or line)
    if info.grad is not None:
        return ("grad_set_by_code", phrase(
            "No backward pass delivered a gradient to {name}, yet its .grad is {grad}: your code assigned it (for "
            "example {name}.grad = ...).", name=name, grad=_value(info.grad)), line)
    if on_path:
        p = passes[max(on_path)]
        return ("leaf_unreachable", phrase(
            "{name} is on the graph of {pass_}, but no gradient arrived (the ops between the loss and {name} sent "
            "none: a non-differentiable step, or a hook that returned a zero/None gradient upstream), so its .grad "
            "stayed None.", name=name, pass_=_pass_name(p)), line)
    cut = _cut_behind(capture, name, line)
    if cut is not None:
        return cut
    twin = places.twin_of(info)
    if twin is not None:
        where = _where(info.origin)
        made = phrase("; this one was made{where}", where=where) if where else ""
        return ("leaf_unreachable", phrase(
            "{name} requires grad, but it is not on the backward path of any pass (the passes started from {roots}), "
            "so its .grad stayed None. The passes did reach {twin}, the leaf at the same place in another object "
            "(same attribute path, shape and dtype): the loss was computed with that object, not with this "
            "one{made}.", name=name, roots=_pass_roots(capture), twin=twin, made=made), line)
    return ("leaf_unreachable", phrase(
        "{name} requires grad, but it is not on the backward path of any pass (the passes started from {roots}), "
        "so its .grad stayed None. Check that it is used to compute the loss.", name=name,
        roots=_pass_roots(capture)), line)


class _ReachedPlaces:
    """The leaves some pass gave a gradient, by their place in their object (``.encoder.weight``); built when asked.

    A parameter no pass reached often has a twin that one did: the same
    attribute path of another object of the same class. The program built
    its model twice, or replaced it after training (``model =
    torch.load(f)`` rebinds ``model`` to a new object, whose parameters
    never saw a pass), or computed the loss with the other of two
    instances. Saying which twin got the gradient is what tells that apart
    from a layer left out of ``forward``.
    """

    def __init__(self, capture) -> None:
        self._capture = capture
        self._index: dict[tuple, str] | None = None

    @staticmethod
    def _place(name: str) -> str | None:
        head = name.find(".")
        return None if head <= 0 else name[head:]

    def twin_of(self, info) -> str | None:
        """The name of a reached leaf at ``info``'s place in another object (same shape and dtype), if any."""
        place = self._place(info.name)
        if place is None or info.value is None:
            return None
        if self._index is None:
            self._index = {}
            for other in self._capture.tensors:
                if other.is_leaf and other.value is not None and _got_gradient(self._capture, other):
                    for other_name in other.names:
                        other_place = self._place(other_name)
                        if other_place is not None:
                            key = (other_place, tuple(other.value.shape), other.value.dtype)
                            self._index.setdefault(key, other_name)
        twin = self._index.get((place, tuple(info.value.shape), info.value.dtype))
        return None if twin is None or twin in info.names else twin


def _changed_hook(attrs, output_nr: int):
    if attrs is None:
        return None, None
    for hook in attrs.get("hooks", ()):
        if hook.kind in ("tensor", "node_pre") and hook.output_nr == output_nr:
            for call in hook.calls:
                if call.changed:
                    return hook, call
    return None, None


def _grad_off_context(capture, source) -> tuple[Phrase, str | None]:
    """How grad mode was off at ``source``: the ``with`` item that turned it off, read from the code.

    Grad mode is one thread-local flag; ``torch.no_grad()``,
    ``torch.set_grad_enabled(False)`` and a ``@torch.no_grad()`` function all
    clear it, and the recorded flag cannot tell them apart. The enclosing
    ``with`` statement (or decorator) in the user's code can: in the file the
    line belongs to (the program, or ``model.py``). ``source`` is a
    :class:`SourceLine` or a line of the program.

    Returns the words and the code that turned it off (None when not found).
    """
    if source is None:
        return phrase("with grad mode off"), None
    if isinstance(source, int):
        line, code = source, capture.code
    else:
        line, code = source.line, capture.text_of(source.file)
    tree = parsed(code)
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
        return phrase("with grad mode off"), None
    text = best[1]
    if "@" not in text and not text.endswith(")"):
        text += "()"
    return phrase("under {code}", code=text), text


def _assigned_from(capture, target: str, value: str, scope: str) -> int | None:
    """The line of a plain ``target = value`` in the function ``scope`` of the program, if there is one."""
    if "." in value:
        return None
    return plain_assignments(capture.code).get((target, value, scope))


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


def _binding_reason(capture, name: str, scope: str, first: str, made):
    """Why ``name`` is a second name of an object, read from the statement that bound it (and where it is).

    Only statements of the function the name was read in (``scope``, a
    qualified name; ``""`` at module level) count: ``data`` of
    ``batchify()`` is never explained by ``data = source[i:i+seq_len]`` in
    ``get_batch()``. The program is read first, then the project's other
    files the capture kept (a name bound in ``model.py``'s ``forward``). The
    place is a line of the program (an ``int``) or a :class:`SourceLine` of
    another file. ``made`` is where the object was made (a
    :class:`SourceLine`): when that is one of the binding statements, the
    object began there and reached ``first`` later (a function returned it),
    which is what is said, not that an op returned its input or that a
    slice handed over a stored object.
    """
    file = None
    entries = bindings(capture.code).get((name, scope), ())
    if not entries:
        for other, text in getattr(capture, "files", {}).items():
            entries = bindings(text).get((name, scope), ())
            if entries:
                file = other
                break

    def at(line: int, text: str):
        place = line if file is None else SourceLine(line, text, file)
        return place_of(SourceLine(line, text, file)), place

    for how, line, text in entries:
        if made is not None and made.line == line and made.file == file and how != "inplace":
            # `data = data.view(rows, -1).t().contiguous()`, `data = source[i:i + 2]`: the object began here.
            where, place = at(line, text)
            return phrase("`{code}` at {where} made this object, which reached {first} as the object itself "
                          "(returning, storing or assigning a tensor never copies it)", code=text, where=where,
                          first=first), place
    for how, line, text in entries:
        if how == "loop":
            where, place = at(line, text)
            return phrase("the loop at {where} (`{code}`) binds {name} to each object it goes over, the objects "
                          "themselves (Python never copies a tensor to hand it to a name)",
                          where=where, code=text, name=name), place
    for how, line, text in entries:
        if how == "inplace":
            where, place = at(line, text)
            return phrase("`{code}` at {where} binds it to what an in-place method returned, which is its input "
                          "object itself", code=text, where=where), place
    for how, line, text in entries:
        if how == "read":
            where, place = at(line, text)
            return phrase("`{code}` at {where} binds {name} to the object stored there (reading an attribute, item "
                          "or name hands over the object itself, never a copy)", code=text, where=where,
                          name=name), place
    for how, line, text in entries:
        if how == "with":
            where, place = at(line, text)
            return phrase("`{code}` at {where} binds {name} to an existing object", code=text, where=where,
                          name=name), place
    if entries:
        how, line, text = entries[-1]
        where, place = at(line, text)
        return phrase("`{code}` at {where} binds {name} to an object that already had a name (an op that returns "
                      "its input, such as an in-place op or a custom Function whose forward calls ctx.mark_dirty, "
                      "or another name)", code=text, where=where, name=name), place
    return phrase("Python names never copy a tensor: both names lead to one object (bound where gradexplorer could "
                  "not read the statement)"), None


def _node_source(attrs) -> Phrase | str:
    source = (attrs or {}).get("source")
    return "" if source is None else phrase(" at {place} (`{text}`)", place=place_of(source), text=source.text)


def _explain_first(capture, info, places: _ReachedPlaces) -> tuple[str, Phrase, int | None]:
    """The main reason for a tensor object, said about its first name."""
    name = info.name
    origin = info.origin
    attrs = capture.graph.nodes[info.node] if info.node is not None else None
    for rule in (_untracked_reason, _constant_reason, _hook_reason):
        reason = rule(capture, info, attrs)
        if reason is not None:
            return reason
    if info.is_leaf:
        return _leaf_reason(capture, info, attrs, places)
    if info.retains_grad:
        retain = next((h for h in (attrs or {}).get("hooks", ()) if h.kind == "retain_grad"), None)
        line = retain.source if retain is not None and retain.source is not None else _line(origin)
        return ("retains_grad",
                phrase("{name} is an intermediate result, but retain_grad() was called on it{at}, so its .grad is "
                       "kept: {grad}.", name=name, at=_at(line), grad=_value(info.grad)), line)
    return _intermediate_reason(capture, info, attrs)


def _untracked_reason(capture, info, attrs) -> tuple[str, Phrase, int | None] | None:
    """Tensors autograd never tracks: an integer dtype, inference mode, detach(), .data, a view made with grad off."""
    name = info.name
    origin = info.origin
    dtype = info.value.dtype
    if dtype in _INTEGER_DTYPES and not info.requires_grad:
        tensor = (phrase("an {dtype} tensor", dtype=dtype) if dtype.startswith("int")
                  else phrase("a {dtype} tensor", dtype=dtype))
        return ("integer_dtype",
                phrase("{name} is {tensor}: only floating point and complex tensors can require grad, so autograd "
                       "never tracks it (use .float() if you need gradients).", name=name, tensor=tensor),
                _line(origin))
    if info.is_inference or (origin is not None and origin.inference_mode and info.grad_fn is None):
        return ("inference_mode",
                phrase("{name} was made under torch.inference_mode(){where}: an inference tensor can never require "
                       "grad nor be saved for backward; use torch.no_grad() if you need it in autograd later.",
                       name=name, where=_where(origin)),
                _line(origin))
    if origin is not None and origin.op == "detach" and info.grad_fn is None:
        src = phrase(" from {source}", source=info.source_names[0]) if info.source_names else ""
        return ("detached",
                phrase("{name} was detached{source}{where}: it shares memory with the original but is cut from the "
                       "graph, so no gradient flows back through it.", name=name, source=src, where=_where(origin)),
                _line(origin))
    if origin is not None and origin.op == "data" and info.grad_fn is None:
        src = phrase(" of {source}", source=info.source_names[0]) if info.source_names else ""
        return ("data",
                phrase("{name} is the .data{source}{where}: like detach() it is cut from the graph, and autograd "
                       "does not even notice in-place changes made through it (wrong gradients without an error); "
                       "prefer .detach().", name=name, source=src, where=_where(origin)), _line(origin))
    if info.is_view and info.grad_fn is None and origin is not None and not origin.grad_enabled \
            and info.switched_off is None:
        base = info.base_names[0] if info.base_names else phrase("its base")
        return ("view_no_grad",
                phrase("{name} is a view of {base} made {context}{where}: it shows requires_grad={requires_grad} "
                       "but has no grad_fn, so no gradient flows back to {base} through it, and changing it in place "
                       "with grad mode on raises an error (PyTorch issue 11390).", name=name, base=base,
                       context=_grad_off_context(capture, _line(origin))[0], where=_where(origin),
                       requires_grad=str(info.requires_grad)),
                _line(origin))
    return None


def _constant_reason(capture, info, attrs) -> tuple[str, Phrase, int | None] | None:
    """Tensors without a grad_fn that do not require grad: why each is a constant."""
    name = info.name
    origin = info.origin
    made = f"`{origin.source.text}`" if origin is not None and origin.source is not None else phrase("an op")
    if info.grad_fn is not None or info.requires_grad:
        return None
    if info.switched_off is not None:
        line = info.switched_off if info.switched_off.line else None
        kept = (phrase(" Its .grad still holds what earlier passes left: {grad}.", grad=_value(info.grad))
                if info.grad is not None else "")
        return ("grad_switched_off",
                phrase("{name} stopped requiring grad when your code turned it off{at} (`{code}`): autograd no "
                       "longer tracks it, and later passes give it nothing.{kept}", name=name, at=_at(line),
                       code=info.switched_off.text, kept=kept), line)
    if info.grad_result is not None:
        failed = _failed_backward_on(capture, name)
        tail = (phrase(" That is why {name}.backward() raised{at}.", name=name, at=_at(failed.source))
                if failed is not None else "")
        return ("gradient_tensor",
                phrase("{name} is the gradient torch.autograd.grad returned{at}. It has no grad_fn: without "
                       "create_graph=True (or when a backward on its path is not differentiable, such as a custom "
                       "Function marked @once_differentiable) autograd builds no graph for it, so it is a "
                       "constant.{tail}", name=name, at=_at(info.grad_result), tail=tail),
                (info.grad_result if info.grad_result.line else None) or _line(origin))
    if info.hook_gradient is not None:
        return ("gradient_tensor",
                phrase("{name} is a gradient that autograd handed to your hook{at}, which kept it: a gradient is a "
                       "plain result and needs no gradient of its own.", name=name, at=_at(info.hook_gradient)),
                (info.hook_gradient if info.hook_gradient.line else None) or _line(origin))
    if info.is_buffer:
        return ("buffer",
                phrase("{name} is a module buffer (register_buffer, e.g. BatchNorm's running statistics): the "
                       "module updates it itself, outside autograd, and it needs no gradient.", name=name),
                _line(origin))
    if origin is not None and not origin.grad_enabled:
        failed = _failed_backward_on(capture, name)
        tail = (phrase(" Calling {name}.backward() fails with \"does not require grad\", as it did{at}.", name=name,
                       at=_at(failed.source)) if failed is not None and failed.source else
                phrase(" Calling {name}.backward() fails with \"does not require grad\".", name=name))
        context = _grad_off_context(capture, _line(origin))[0]
        place = phrase(" ({place})", place=place_of(_line(origin))) if _line(origin) else ""
        return ("no_grad",
                phrase("{name} is a new tensor made by {made} {context}{place}: grad mode off only affects tensors "
                       "created by operations while it is off, and this one was, so it has no grad_fn and "
                       "requires_grad=False.{tail}", name=name, made=made, context=context, place=place, tail=tail),
                _line(origin))
    cut = _cut_reason(capture, info)
    if cut is not None:
        return cut
    where = "" if origin is None else phrase(" (made by {made}{at})", made=made, at=_at(_line(origin)))
    return ("no_requires_grad",
            phrase("{name} does not require grad{where}: autograd treats it as a constant, which is right for input "
                   "data, targets and statistics. Only if you want its gradient, create it with requires_grad=True "
                   "or call {name}.requires_grad_().", name=name, where=where), _line(origin))


def _hook_reason(capture, info, attrs) -> tuple[str, Phrase, int | None] | None:
    """A hook on the tensor raised, or changed the gradient flowing to it."""
    name = info.name
    origin = info.origin
    output_nr = info.output_nr
    raised = next(((h, c) for h in (attrs or {}).get("hooks", ()) for c in h.calls if c.error), None)
    if raised is not None:
        hook, call = raised
        where = phrase(" registered{at}", at=_at(hook.source)) if hook.source is not None else ""
        p = capture.passes[call.pass_index] if call.pass_index is not None and call.pass_index < len(capture.passes) \
            else None
        during = phrase(" during {pass_}", pass_=_pass_name(p)) if p is not None else ""
        return ("hook_raised",
                phrase("The hook {hook}{where} on {name} raised{during} ({error}): the pass stopped there, so "
                       "nothing below {name} got this pass's gradient.", hook=hook.qualname, where=where, name=name,
                       during=during, error=call.error.splitlines()[0]),
                hook.source if hook.source is not None else _line(origin))
    hook, call = _changed_hook(attrs, output_nr)
    if hook is not None:
        where = phrase(" registered{at}", at=_at(hook.source)) if hook.source is not None else ""
        how = phrase("changed in place") if call.in_place else phrase("replaced")
        # For a leaf, what ended in .grad over all passes too: the hook's first change is not the whole story.
        then = (phrase(" Over all passes: {reason}", reason=_leaf_reason(capture, info, attrs)[1]) if info.is_leaf
                else "")
        return ("hook_modified",
                phrase("The hook {hook}{where} {how} the gradient flowing to {name} in pass {number}: {before} "
                       "before, {after} after.{then}", hook=hook.qualname, where=where, how=how, name=name,
                       number=call.pass_index + 1, before=_value(call.before[0] if call.before else None),
                       after=_value(call.after[0] if call.after else None), then=then),
                hook.source if hook.source is not None else _line(origin))
    return None


def _intermediate_reason(capture, info, attrs) -> tuple[str, Phrase, int | None]:
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
        base = info.base_names[0] if info.base_names else phrase("its base")
        return ("view",
                phrase("{name} is a view of {base} (it shares its memory); gradients reach {base} through its "
                       "grad_fn {grad_fn}.", name=name, base=base, grad_fn=info.grad_fn), line)
    if grad is not None:
        p = capture.passes[last_index] if last_index < len(capture.passes) else None
        which = phrase("the last pass") if last_index == len(capture.passes) - 1 else \
            phrase("pass {number}, the last one that reached it", number=last_index + 1)
        where = phrase(" ({pass_})", pass_=_pass_name(p)) if p is not None else ""
        seen = phrase(" Its gradient in {which}{where} was {grad} (on its node).", which=which, where=where,
                      grad=_value(grad))
        if p is not None and p.raised and p.raised_at is not None and p.raised_at == info.node:
            seen = concat(seen, phrase(
                " That pass raised while running its node {op}, after the gradient had arrived ({error}): nothing "
                "below it got this pass's gradient.", op=_op_of(capture, info.node), error=_error_head(p)))
    elif capture.passes:
        seen = phrase(" No backward pass reached it.")
    else:
        seen = phrase(" No backward pass ran.")
    op = info.grad_fn.rsplit("::", 1)[-1]
    node_source = _node_source(attrs)
    if node_source or not _where(origin):
        made = concat(op, node_source)
    else:  # its node was made where the mode could not see (CopySlices after an in-place op on a view of it)
        made = phrase("made{where}; its grad_fn is now {op}", where=_where(origin), op=op)
    return ("intermediate",
            phrase("{name} is an intermediate result ({made}): PyTorch keeps no .grad for it.{seen} Use "
                   "{name}.retain_grad() or {name}.register_hook(...) to keep it in your own code.", name=name,
                   made=made, seen=seen), line)


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
    places = _ReachedPlaces(capture)
    for info in capture.tensors:
        code, sentence, place = _explain_first(capture, info, places)
        first = info.names[0]
        line, file = _line_and_file(place)
        result.append(Explanation(first, code, _scoped(sentence, info, first), line, info.node,
                                  REASONS[code].severity, file))
        for other in info.names[1:]:
            result.append(_alias_explanation(capture, info, code, first, other))
    return tuple(result)


def _alias_explanation(capture, info, code: str, first: str, other: str) -> Explanation:
    """``other`` is a second name of the object first named ``first``: what binds it, and whether it gets a gradient."""
    if not info.requires_grad:
        gets = phrase("{other} gets no gradient either, exactly like {first}", other=other, first=first)
    elif REASONS[code].severity == "ok" and _got_gradient(capture, info):
        gets = phrase("{other} still gets a gradient, exactly like {first}", other=other, first=first)
    else:  # the object gets no gradient (unreached, a failed pass, ...): nor does its second name
        gets = phrase("{other} shares what is said of {first} above", other=other, first=first)
    scope = info.scope_of(other).removesuffix("()")
    assigned = _assigned_from(capture, other, first, scope) if info.scope_of(first) == info.scope_of(other) else None
    if assigned is not None:
        context = _grad_off_context(capture, assigned)[1]
        why = phrase("`{other} = {first}` at line {line} only adds a name (Python never copies a tensor on "
                     "assignment)", other=other, first=first, line=assigned)
        if context is not None:
            why = concat(why, phrase("; {code} only affects tensors created by operations inside it", code=context))
    elif "." in other or "[" in other:
        why = phrase("it is the same object stored in another place (`{other}`)", other=other)
    else:
        # A custom Function's outputs are re-stamped where apply() ran, even one that is its input (mark_dirty).
        made = info.origin.source if info.origin is not None and not info.origin.op.endswith(".apply") else None
        why, assigned = _binding_reason(capture, other, scope, first, made)
    line, file = _line_and_file(assigned)
    sentence = phrase("{other} is the same tensor object as {first}: {why}, so {gets}.", other=other, first=first,
                      why=why, gets=gets)
    return Explanation(other, "alias", _scoped(sentence, info, other, first), line, info.node,
                       REASONS["alias"].severity, file)


def _line_and_file(place) -> tuple[int | None, str | None]:
    """A sentence's place (a :class:`SourceLine`, a line of the program, or None) as ``(line, file)``."""
    if place is None:
        return None, None
    if isinstance(place, int):
        return place, None
    return (place.line or None), (place.file if place.line else None)


def _scoped(sentence: Phrase, info, *names: str) -> Phrase:
    """The sentence with the first mention of each name held in a function said so: ``loss (in train_step())``.

    The same variable name can hold different tensors in different
    functions (``x`` in ``main()`` and in ``Net.forward()``); the sentence
    says which one it is about, once.
    """
    scopes = tuple((name, scope) for name, scope in ((name, info.scope_of(name)) for name in names) if scope)
    return Phrase(sentence.template, sentence.args, scopes) if scopes else sentence

"""A backward pass replayed node by node, in the order the engine ran it.

The seed notes walk ``e.grad_fn.next_functions[i][0]`` by hand to see what
backward does; the engine itself runs the nodes in an order nobody sees.
gradexplorer's own post hook on every node of a pass (the capture's taps)
fires as each node finishes, on the thread that ran it, so the order they
fired in *is* the engine's execution order: the capture keeps it as each
node's ``grad_order`` (pass -> position). A replay reads it back, never a
topological order computed afterwards: a step is one node as the engine ran
it, with what it received (the gradient of its outputs), the hooks that
fired around it, what it sent down each ``next_functions`` slot, and for a
leaf what its ``.grad`` was before and after.

The text of a step (:func:`step_text`) is what the app's inspector shows
while replaying; tests read the same text.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from ..graph.schema import short_op
from ..records.nodes import LeafPass
from ..records.phrases import Phrase, concat, phrase
from ..records.tensors import TensorRecord

__all__ = ["HookFiring", "Replay", "ReplayStep", "SentGradient", "node_title", "replay_of", "step_text"]

#: Hook kinds that run before their node (on the gradient it receives) and after it.
_BEFORE = frozenset({"tensor", "retain_grad", "node_pre"})
_AFTER = frozenset({"node_post", "post_accumulate"})


@dataclass(frozen=True)
class SentGradient:
    """What a node sent down one ``next_functions`` slot.

    ``to`` is the node the slot leads to (None where ``next_functions[slot]``
    is ``(None, 0)``: an input that needs no gradient); ``gradient`` None
    where the node sent none (an undefined gradient).
    """

    slot: int
    to: str | None
    gradient: TensorRecord | None


@dataclass(frozen=True)
class HookFiring:
    """One call of a user hook at the step's node: ``when`` is ``"before"`` or ``"after"`` the node ran."""

    kind: str
    qualname: str
    when: str
    before: tuple[TensorRecord | None, ...]
    after: tuple[TensorRecord | None, ...] | None
    error: str | None


@dataclass(frozen=True)
class ReplayStep:
    """One node of the pass as the engine ran it (``position`` counts from 0)."""

    position: int
    node: str
    received: tuple[TensorRecord | None, ...]
    sent: tuple[SentGradient, ...]
    hooks: tuple[HookFiring, ...]
    leaf: LeafPass | None
    raised: str | None
    #: The engine thread that ran the node, when not the one that started the pass (a CUDA device's own).
    thread: str | None = None


class Replay:
    """The steps of one backward pass, in execution order; each step is made when asked for.

    Parameters
    ----------
    graph : networkx.DiGraph
        The capture's graph (its ``grad_order``, ``grads``, ``hooks`` and
        ``accumulation`` attributes).
    pass_index : int
        0-based pass.
    raised_at : str or None
        The node the pass raised at (its error in ``error``), if it did.
    thread : str or None
        The thread the pass ran on when it was not the program's own (one the
        program started): the engine runs a CPU pass on the thread that calls
        ``backward()``. Nodes it ran on another thread (each CUDA device has
        an engine thread of its own) say so in their step
        (:attr:`ReplayStep.thread`, the graph's ``grad_threads``), and
        :attr:`threads` lists every thread the pass ran on.
    """

    def __init__(self, graph: nx.DiGraph, pass_index: int, raised_at: str | None = None, error: str | None = None,
                 thread: str | None = None):
        self.graph = graph
        self.pass_index = pass_index
        self.thread = thread
        ran = [(order[pass_index], node) for node, order in graph.nodes(data="grad_order") if order
               and pass_index in order]
        ran.sort()
        #: Node ids in the order the engine ran them.
        self.order: tuple[str, ...] = tuple(node for _, node in ran)
        self._raised = (raised_at, error or "")
        nodes = graph.nodes
        #: The engine threads other than the pass's own that ran some of its nodes, in the order first seen.
        self.threads: tuple[str, ...] = tuple(dict.fromkeys(
            nodes[node]["grad_threads"][pass_index] for node in self.order
            if pass_index in nodes[node].get("grad_threads", ())))

    def __len__(self) -> int:
        return len(self.order)

    def step(self, position: int) -> ReplayStep:
        """The step at ``position`` (0-based)."""
        node = self.order[position]
        attrs = self.graph.nodes[node]
        flow = attrs.get("grads", {}).get(self.pass_index)
        received = flow.outputs if flow is not None else ()
        sent_records = flow.inputs if flow is not None else ()
        to_slot = {}
        for _, child, edge in self.graph.out_edges(node, data=True):
            for slot in edge.get("slots", (edge.get("slot"),)):
                to_slot[slot] = child
        sent = tuple(SentGradient(slot, to_slot.get(slot), record) for slot, record in enumerate(sent_records))
        hooks = tuple(HookFiring(h.kind, h.qualname, "before" if h.kind in _BEFORE else "after", call.before,
                                 call.after, call.error)
                      for h in attrs.get("hooks", ()) for call in h.calls if call.pass_index == self.pass_index)
        leaf = attrs.get("accumulation", {}).get(self.pass_index) if attrs.get("kind") == "leaf" else None
        raised = self._raised[1] if node == self._raised[0] else None
        thread = attrs.get("grad_threads", {}).get(self.pass_index)
        return ReplayStep(position, node, tuple(received), sent, hooks, leaf, raised, thread)

    def reached(self, position: int) -> frozenset[str]:
        """The nodes the engine had run up to and including step ``position``."""
        return frozenset(self.order[:position + 1])

    def sent_edges(self, position: int) -> frozenset[tuple[str, str]]:
        """The edges a gradient had been sent along by the end of step ``position``."""
        reached = self.order[:position + 1]
        return frozenset((u, v) for u in reached for _, v in self.graph.out_edges(u))


def replay_of(capture, pass_index: int) -> Replay:
    """The :class:`Replay` of pass ``pass_index`` (0-based) of a capture."""
    summary = capture.passes[pass_index]
    return Replay(capture.graph, pass_index, summary.raised_at, summary.error, summary.thread)


def node_title(graph: nx.DiGraph, node: str) -> str:
    """``MulBackward0 (d)``: the node's op and the first name bound to its tensor."""
    attrs = graph.nodes[node]
    names = attrs.get("names") or ()
    op = short_op(attrs.get("op", "?"))
    return f"{op} ({names[0]})" if names else op


def _value(record: TensorRecord | None) -> Phrase | str:
    return phrase("nothing (None)") if record is None else record.short()


def _values(records: tuple[TensorRecord | None, ...]) -> Phrase | str:
    if not records:
        return phrase("nothing")
    if len(records) == 1:
        return _value(records[0])
    return concat(*[piece for i, r in enumerate(records)
                    for piece in ((", " if i else ""), phrase("output {index}: {value}", index=i, value=_value(r)))])


def step_text(replay: Replay, position: int, say=str) -> str:
    """What the inspector says about one step, line by line (see the module docstring); ``say`` makes each
    line's :class:`~gradexplorer.core.records.phrases.Phrase` into words (English, or the app's language)."""
    graph = replay.graph
    step = replay.step(position)
    attrs = graph.nodes[step.node]
    lines = [phrase("Step {number} of {count} · {node}", number=position + 1, count=len(replay),
                    node=node_title(graph, step.node))]
    if replay.thread:
        lines.append(phrase("Run on the thread {thread} (the pass was started there, not on the program's own)",
                            thread=repr(replay.thread)))
    if replay.threads and position == 0:
        lines.append(phrase("The engine ran this pass on {count} threads: the one that started it and {threads} "
                            "(each device has an engine thread of its own)", count=len(replay.threads) + 1,
                            threads=", ".join(map(repr, replay.threads))))
    if step.thread is not None:
        lines.append(phrase("This node ran on the engine thread {thread}, not on the one that started the pass",
                            thread=repr(step.thread)))
    if attrs.get("path"):
        lines.append(f"grad_fn: {attrs['path']}")
    for hook in step.hooks:  # they ran on the gradient on its way in: what the node receives is what they left
        if hook.when == "before":
            lines.append(_hook_line(hook))
    lines.append(phrase("Receives: {values}", values=_values(step.received)))
    if step.leaf is not None:
        before = "None" if step.leaf.before is None else step.leaf.before.short()
        after = "None" if step.leaf.after is None else step.leaf.after.short()
        name = (attrs.get("names") or ("the leaf",))[0]
        lines.append(f"{name}.grad: {before} → {after}")
    for sent in step.sent:
        if sent.to is None:
            lines.append(phrase("next_functions[{slot}] is None (that input needs no gradient): nothing sent",
                                slot=sent.slot))
        else:
            lines.append(phrase("Sends next_functions[{slot}] → {node}: {value}", slot=sent.slot,
                                node=node_title(graph, sent.to), value=_value(sent.gradient)))
    for hook in step.hooks:
        if hook.when == "after":
            lines.append(_hook_line(hook))
    if step.raised is not None:
        lines.append(phrase("The pass raised here: {error}", error=step.raised))
    return "\n".join(line if type(line) is str else say(line) for line in lines)


#: The kinds of hook, as the replay names them.
_HOOK_KINDS = {"tensor": phrase("tensor hook"), "retain_grad": "retain_grad", "node_pre": phrase("pre-hook"),
               "node_post": phrase("post hook"), "post_accumulate": phrase("post-accumulate hook")}


def _hook_line(hook: HookFiring) -> Phrase:
    kind = _HOOK_KINDS.get(hook.kind, hook.kind)
    if hook.error:
        result = phrase("raised {error}", error=hook.error)
    elif hook.after is None:
        result = phrase("left it unchanged")
    else:
        result = phrase("changed it to {values}", values=_values(hook.after))
    if hook.when == "before":
        return phrase("Hook before it ran: {kind} {hook} got {values}, {result}", kind=kind, hook=hook.qualname,
                      values=_values(hook.before), result=result)
    return phrase("Hook after it ran: {kind} {hook} got {values}, {result}", kind=kind, hook=hook.qualname,
                  values=_values(hook.before), result=result)

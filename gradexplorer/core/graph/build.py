"""Build the networkx graph of a capture: the one schema every view reads.

The graph is a :class:`networkx.DiGraph` whose nodes are autograd nodes
(``grad_fn`` objects and ``AccumulateGrad`` leaves) and whose edges follow
``next_functions``: the direction gradients flow in.

Graph attributes (``G.graph``)
------------------------------
``roots``        tuple of node ids the walk started from, in order.
``module_types`` dict of module path to class name (``"layers.0": "Linear"``).

Node keys
---------
Our own ids ``"n0"``, ``"n1"``, ... in breadth-first discovery order from the
roots (named tensors in namespace order, then each pass's roots). They are
stable for the same program: never ``id(obj)``, which Python reuses.

Node attributes
---------------
``op`` : str
    ``node.name()``: ``"MulBackward0"``, ``"torch::autograd::AccumulateGrad"``.
``kind`` : str
    What the node is: ``"leaf"`` (AccumulateGrad), ``"custom"`` (a
    ``torch.autograd.Function``) or ``"op"`` (any other op node).
``is_root`` : bool
    No edge points to this node (where a backward starts), whatever its
    kind. The views draw an op root in its own colour
    (:func:`~gradexplorer.core.graph.schema.node_role`).
``names`` : tuple of str
    Every name bound to this node's tensor (``("a", "b")`` after ``b = a``;
    ``"layer.w"`` for module state), see :mod:`gradexplorer.core.capture.namespace`.
``path`` : str or None
    The Python expression that reaches the node from a named tensor, in the
    form the notes use: ``e.grad_fn.next_functions[0][0].next_functions[1][0]``.
    Shortest from a named root tensor (one nothing consumes); nodes no named
    root reaches get the shortest path from any named op tensor; else None.
    None too for nodes over :data:`MAX_PATH_HOPS` deep: use
    :func:`path_expression` for those.
``path_via`` : tuple or None
    How ``path`` is reached: ``(None, "e.grad_fn", 0)`` at a named tensor,
    ``(parent id, slot, hops)`` below it; None when no path exists.
``value`` : TensorRecord or None
    Forward value of output 0 *when the op ran* (op nodes), or the leaf
    tensor's value at the end of the run (leaves). Nodes made where the
    recorder cannot see (inside a composite op such as the ``TBackward0`` of
    ``linear``, inside a ``create_graph`` backward, a view's base after an
    in-place op) have None, unless a name is bound to their tensor: then the
    value at the end of the run, with a ``note`` saying so.
``outputs`` : tuple of (TensorRecord or None)
    Forward value per ``output_nr`` (multi-output ops such as ``split``).
``variable`` : TensorRecord or None
    Leaves only: ``AccumulateGrad.variable`` at the end of the run.
``grad`` : TensorRecord or None
    Leaves only: ``variable.grad`` at the end of the run (accumulated).
``accumulation`` : dict of int to LeafPass
    Leaves only, per pass that could change ``.grad``: the gradient the pass
    delivered to the accumulator, and copies of ``.grad`` just before and
    just after the pass (see :mod:`gradexplorer.core.analysis.accounting`).
``on_path`` : tuple of int
    The passes whose backward graph contains this node (reachable from their
    roots), whether or not a gradient arrived.
``requires_grad`` : bool
``grads`` : dict of int to GradFlow
    Per pass index: gradients w.r.t. the node's outputs (``outputs``, the
    gradient of the intermediate tensor) and w.r.t. its inputs (``inputs``, by
    ``next_functions`` slot), from gradexplorer's own hooks.
``saved`` : tuple of SavedValue
    Each ``_saved_*`` attribute (``saved_tensors`` for custom Functions): a
    tensor record, a value's ``repr``, or state ``"freed"`` after a backward
    without ``retain_graph``.
``hooks`` : tuple of HookRecord
    User hooks on this node, with each call's gradient before and after.
``source`` : SourceLine or None
    The user line that created the node (for a leaf: its tensor).
``grad_enabled``, ``inference_mode`` : bool or None
    Grad mode and inference mode when the op ran (None if not recorded).
``seq`` : int or None
    Creation order among recorded ops and tensors.
``module`` : str or None
    Path of the innermost ``nn.Module`` whose forward made the node
    (``"encoder.layers.3.self_attn"``); for a parameter's leaf, the module
    that owns it; for a node made inside an op (``TBackward0`` of ``linear``),
    its consumer's. None outside modules (or for modules no name reaches).
``grad_order`` : dict of int to int
    Per pass, the position at which autograd ran this node (0 = first), so
    "the first NaN in backward" is well defined.
``grad_threads`` : dict of int to str (only on nodes that have one)
    Per pass, the thread the engine ran this node on, where it was not the
    thread that started the pass (a CUDA device's own engine thread); the
    key is absent on nodes every pass ran on its own thread (all of a
    CPU-only program's).
``shape`` : tuple of int or None; ``dtype``, ``device`` : str or None
    Of ``value``.

Edge attributes
---------------
``slot`` : int
    ``v`` is ``u.next_functions[slot][0]``.
``input_nr`` : int
    ``u.next_functions[slot][1]``: which output of ``v`` the gradient goes to.
``slots`` : tuple of int
    Every slot of ``u`` that leads to ``v`` (``x * x`` has two); ``slot`` is
    the first.
"""

from __future__ import annotations

import sys
import time
from collections import deque

import networkx as nx
import torch
from torch.autograd.graph import Node

from ..records.notes import DELIVERED_BY_CHECKPOINT, DELIVERED_BY_FUNCTION, END_VALUE, note_text
from ..records.nodes import CaptureGraph, GradFlow, HookCallRecord, HookRecord, LeafPass, SavedValue
from ..records.source import SourceText
from ..records.tensors import RecordMaker, TensorRecord, resolve_all, summarize_tensor
from ..records.trace import NamedObjects, RunTrace
from .autograd_nodes import edge_of, is_accumulator

__all__ = ["build_graph", "path_expression", "walk_nodes"]


_FREED_MARK = "freed"
_saved_names_by_type: dict[type, tuple[str, ...]] = {}


def _saved_names(node: Node) -> tuple[str, ...]:
    cls = type(node)
    names = _saved_names_by_type.get(cls)
    if names is None:
        if isinstance(node, torch.autograd.function.BackwardCFunction):
            names = ("saved_tensors",)
        else:
            names = tuple(n for n in dir(cls) if n.startswith("_saved_"))
        _saved_names_by_type[cls] = names
    return names


_FREED = "freed by a backward pass without retain_graph=True"
_freed_marks: dict[tuple[str, ...], tuple[SavedValue, ...]] = {}


def _read_saved(node: Node, record_of: RecordMaker, freed: bool) -> tuple[SavedValue, ...]:
    """Read a node's saved attributes; ``freed`` says a pass already released them.

    Knowing it spares a getattr that raises (and builds a long message) per
    attribute on every node of a graph that went through ``backward()``.
    """
    if freed:
        names = _saved_names(node)
        marks = _freed_marks.get(names)
        if marks is None:  # one shared tuple per set of names (records are immutable): most nodes after a backward
            marks = _freed_marks[names] = tuple(SavedValue(name, "freed", text=_FREED) for name in names)
        return marks
    result = []
    for name in _saved_names(node):
        try:
            value = getattr(node, name)
        except RuntimeError as exc:
            text = str(exc)
            if _FREED_MARK in text:
                result.append(SavedValue(name, "freed", text=_FREED))
            else:
                result.append(SavedValue(name, "error", text=text.splitlines()[0]))
            continue
        except Exception as exc:  # a broken custom Function must not break the capture
            result.append(SavedValue(name, "error", text=f"{type(exc).__name__}: {exc}"))
            continue
        if isinstance(value, torch.Tensor):
            result.append(SavedValue(name, "tensor", record_of(value)))
        elif isinstance(value, (tuple, list)) and value and all(isinstance(v, torch.Tensor) for v in value):
            for i, v in enumerate(value):
                result.append(SavedValue(f"{name}[{i}]", "tensor", record_of(v)))
        else:
            text = repr(value)
            result.append(SavedValue(name, "value", text=text if len(text) <= 200 else text[:197] + "..."))
    return tuple(result)


def walk_nodes(roots: list[Node]) -> tuple[list[Node], list[tuple[Node, Node, int, int]]]:
    """Breadth-first walk of ``next_functions`` from ``roots``, iteratively.

    Parameters
    ----------
    roots : list of Node

    Returns
    -------
    nodes : list of Node
        Each reachable node once, in discovery order.
    edges : list of (u, v, slot, input_nr)
        One per non-empty ``next_functions`` entry.
    """
    order: list[Node] = []
    edges: list[tuple[Node, Node, int, int]] = []
    seen: set[Node] = set()
    queue: deque[Node] = deque()
    for root in roots:
        if root not in seen:
            seen.add(root)
            queue.append(root)
    while queue:
        node = queue.popleft()
        order.append(node)
        for slot, (child, input_nr) in enumerate(node.next_functions):
            if child is None:
                continue
            edges.append((node, child, slot, input_nr))
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order, edges


#: Nodes deeper than this many ``next_functions`` hops get ``path`` None
#: (the text would grow with depth: a 100,000-op chain would need gigabytes);
#: :func:`path_expression` still builds their expression on demand.
MAX_PATH_HOPS = 256


def _assign_paths(graph: nx.DiGraph, sources: list[tuple[str, str]], via: dict[str, tuple]) -> None:
    """Multi-source BFS: record for each unassigned node how its path is reached.

    ``via[node] = (None, expr, 0)`` for a source, ``(parent, slot, hops)`` otherwise.
    Edges are visited in slot order, so ties go to the lowest slot.
    """
    queue: deque[str] = deque()
    for node_id, expr in sources:
        if node_id not in via:
            via[node_id] = (None, expr, 0)
            queue.append(node_id)
    succ = graph._succ  # read-only fast access; edges were added in slot order
    while queue:
        node_id = queue.popleft()
        hops = via[node_id][2] + 1
        for child, data in succ[node_id].items():
            if child not in via:
                via[child] = (node_id, data["slot"], hops)
                queue.append(child)


def path_expression(graph: nx.DiGraph, node_id: str) -> str | None:
    """The full Python expression reaching ``node_id``, however deep.

    Follows ``path_via`` links back to the named tensor, so it costs time
    proportional to the depth; ``graph.nodes[node_id]["path"]`` holds the
    same text precomputed for nodes up to :data:`MAX_PATH_HOPS` deep.
    """
    parts = []
    nodes = graph.nodes
    via = nodes[node_id].get("path_via")
    if via is None:
        return None
    seen = {node_id}
    while via[0] is not None:
        parent = via[0]
        # A session file's links are not trusted: one that loops, or leads nowhere, has no expression.
        if parent in seen or parent not in nodes:
            return None
        seen.add(parent)
        parts.append(f".next_functions[{via[1]}][0]")
        via = nodes[parent].get("path_via")
        if via is None:
            return None
    parts.append(via[1])
    return "".join(reversed(parts))


def _node_values(node: Node, record, named_tensors: dict, recorder: RunTrace, record_of: RecordMaker):
    """Forward values, leaf data and creation facts of one node (the snapshot part)."""
    call = record.call if record is not None else None
    variable = leaf_grad = None
    requires_grad = True
    if is_accumulator(node):
        var = node.variable
        variable = record_of(var)
        grad = var.grad
        leaf_grad = None if grad is None else record_of(grad)
        outputs: tuple[TensorRecord | None, ...] = (variable,)
        requires_grad = var.requires_grad
        call = recorder.origin_of(var) or call  # a leaf's line is where its tensor was made
    elif record is not None and record.outputs:
        recorded = record.outputs
        if len(recorded) == 1 and 0 in recorded:
            outputs = (recorded[0].resolve(),)
        else:
            outputs = tuple(recorded[i].resolve() if i in recorded else None for i in range(max(recorded) + 1))
    elif node in named_tensors:
        # Made where the mode could not see it (inside a backward with
        # create_graph, an in-place op on a view's base): the named tensor's
        # value at the end is the best there is, and says so.
        by_nr = named_tensors[node]
        outputs = tuple(
            summarize_tensor(by_nr[i], value_elements=record_of.value_elements, alias=True,
                             note=note_text(END_VALUE))
            if i in by_nr else None
            for i in range(max(by_nr) + 1))
    else:
        outputs = ()
    return outputs, variable, leaf_grad, requires_grad, call


def _grad_records(tensors, record_of: RecordMaker) -> tuple[TensorRecord | None, ...]:
    """Records of gradient tensors, one per tensor object (shared between parent and child)."""
    return tuple(None if t is None else record_of(t) for t in tensors)


def _node_grads(node: Node, passes, record_of: RecordMaker) -> tuple[dict[int, GradFlow], bool]:
    grads = {}
    freed = False
    for p in passes:
        flow = p.node_grads.get(node)
        if flow is not None:
            # A node a pass raised in has its arrived gradient and nothing it sent (inputs None).
            grads[p.index] = GradFlow(outputs=_grad_records(flow[1], record_of),
                                      inputs=() if flow[0] is None else _grad_records(flow[0], record_of))
            # Autograd releases a node's saved tensors right after running it.
            freed = freed or not p.retain_graph
        elif p.results:
            # autograd.grad stops at its inputs without running their nodes,
            # so the taps never fire there: its results are the gradients
            # w.r.t. those inputs.
            for (input_node, _), result in zip(p.inputs, p.results):
                if input_node is node and result is not None:
                    grads[p.index] = GradFlow(outputs=(result.resolve(),), inputs=())
    return grads, freed


def ddp_reducers(modules) -> dict[int, str]:
    """``id(parameter) -> "DistributedDataParallel over N processes"`` for the parameters of every
    ``DistributedDataParallel`` among ``modules`` (``nn.Module`` objects).

    Its reducer registers C++ hooks on each parameter's gradient accumulator
    (invisible to Python, so no tap or hook record sees them) that all-reduce
    ``.grad`` during backward: ``.grad`` after a pass is the mean over the
    processes, not what this process delivered. torch.distributed is looked
    up only when the program imported it.
    """
    parallel = sys.modules.get("torch.nn.parallel.distributed")
    wrapper = getattr(parallel, "DistributedDataParallel", None)
    if wrapper is None:
        return {}
    result: dict[int, str] = {}
    for module in modules:
        if not isinstance(module, wrapper):
            continue
        try:
            size = module.process_group.size()
        except Exception:  # noqa: BLE001 - a group already destroyed: say so without a number
            size = None
        label = f"DistributedDataParallel over {size} processes" if size else "DistributedDataParallel"
        for parameter in module.module.parameters():
            if parameter.requires_grad:
                result[id(parameter)] = label
    return result


def _node_accumulation(node: Node, passes, record_of: RecordMaker, hooks,
                       reducers: dict[int, str] | None = None) -> dict[int, LeafPass]:
    """Per pass: what reached the accumulator and ``.grad`` around the pass."""
    result = {}
    for p in passes:
        around = p.leaf_grads.get(node)
        flow = p.node_grads.get(node)
        delivered = flow[1][0] if flow is not None and flow[1] else None
        if around is None and flow is None:
            continue
        before, after = around if around is not None else (None, None)
        if delivered is None and around is not None and _same_tensor_values(before, after):
            continue  # the pass left this .grad alone
        note = ""
        hooked = any(h.kind == "post_accumulate" and h.node is node
                     and any(c.pass_index == p.index and c.after is not None for c in h.calls) for h in hooks)
        if delivered is None and not hooked and after is not None and (
                before is None or (before.shape == after.shape and before.dtype == after.dtype)):
            # A backward run *inside* this pass (a reentrant checkpoint's
            # backward recomputes its segment and calls autograd.backward on
            # it) filled .grad without going through this pass's graph, where
            # our taps are: what it delivered is the change it made.
            delivered = after if before is None else after - before
            note = note_text(DELIVERED_BY_CHECKPOINT if any(
                type(n).__name__ == "CheckpointFunctionBackward" for n in p.reachable) else DELIVERED_BY_FUNCTION)
        if note:  # its own record: a shared one (``after``'s) must not take the note
            delivered_record = summarize_tensor(delivered, value_elements=record_of.value_elements, alias=True,
                                                note=note)
        else:
            delivered_record = None if delivered is None else record_of(delivered)
        reduced_by = reducers.get(id(node.variable), "") if reducers and delivered is not None else ""
        result[p.index] = LeafPass(delivered_record, None if before is None else record_of(before),
                                   None if after is None else record_of(after), reduced_by)
    return result


def _same_tensor_values(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b))


def _assemble(node_items: list[tuple[str, dict]], edge_attrs: dict[tuple[str, str], dict]) -> nx.DiGraph:
    """A fresh DiGraph filled through its documented dict-of-dicts storage.

    ``add_nodes_from``/``add_edges_from`` copy every attribute dict (3.5 us a
    node against 1.1 us here, measured): a third of the per-node budget. The
    graph is new and nothing has read it yet, so no networkx cache is stale.
    """
    graph = CaptureGraph()
    node, succ, pred = graph._node, graph._succ, graph._pred
    for node_id, attrs in node_items:
        node[node_id] = attrs
        succ[node_id] = {}
        pred[node_id] = {}
    for (u, v), attrs in edge_attrs.items():
        succ[u][v] = attrs
        pred[v][u] = attrs
    return graph


def build_graph(recorder: RunTrace, bindings: NamedObjects, *, lines: list[str] | SourceText, value_elements: int,
                saved_values: bool = True, timings: dict[str, float] | None = None,
                records: RecordMaker | None = None, roots: list[Node] | None = None
                ) -> tuple[nx.DiGraph, dict[Node, str]]:
    """Walk the autograd graph of a finished run into a networkx graph.

    Parameters
    ----------
    recorder : RunTrace
        What was recorded while the program ran (ops, passes, hooks): the
        :class:`~gradexplorer.core.capture.recording.Recorder` that watched it.
    bindings : NamedObjects
        Named tensors and modules of the final namespace.
    lines : list of str or SourceText
        The user's source lines (and the project's other files), for ``source`` texts.
    value_elements : int
        Value cap for records taken now (leaves, saved tensors).
    saved_values : bool
        Read ``_saved_*`` attributes.
    timings : dict, optional
        Receives ``"snapshot"`` (turning recorded tensors into records) and
        ``"graph"`` (walk and graph assembly) in seconds.
    records : RecordMaker, optional
        Makes the records of tensors read now (leaves, gradients, saved
        tensors); pass the caller's to share them with its own records of the
        same tensors (named tensors, module entries).
    roots : list of Node, optional
        Walk from these nodes only (:func:`gradexplorer.show` draws the graph
        of one tensor, with names from the whole scope); by default from
        every named tensor and every pass's roots.

    Returns
    -------
    graph : networkx.DiGraph
        See the module docstring for the schema.
    ids : dict of Node to str
        Our id of each autograd node, for the caller to map passes and hooks.
    """
    started = time.perf_counter()
    text = lines if isinstance(lines, SourceText) else SourceText(lines)
    named, named_tensors = _named_nodes(bindings)
    if roots is None:
        roots = list(named)
        for record in recorder.passes:
            roots.extend(node for node, _ in record.roots)
    order, edges = walk_nodes(roots)
    ids = {node: f"n{i}" for i, node in enumerate(order)}
    graph_seconds = time.perf_counter() - started

    # The snapshot part: every recorded tensor becomes a TensorRecord.
    started = time.perf_counter()
    record_of = records if records is not None else RecordMaker(value_elements)
    facts = _node_facts(order, recorder, bindings, named_tensors, record_of, saved_values)
    hooks_by_node = _hook_records(recorder, text)
    snapshot_seconds = time.perf_counter() - started

    # The graph part: attribute dicts, edges, roots, paths.
    started = time.perf_counter()
    edge_attrs = _edge_attributes(edges, ids)
    node_items = _node_items(order, facts, ids, edge_attrs, named, bindings, recorder.passes, hooks_by_node, text)
    graph = _assemble(node_items, edge_attrs)
    _name_paths(graph, named, ids)
    graph.graph["roots"] = tuple(dict.fromkeys(ids[r] for r in roots))
    graph.graph["module_types"] = {names[0]: type(module).__name__ for module, names in bindings.modules.values()}
    graph_seconds += time.perf_counter() - started
    if timings is not None:
        timings["snapshot"] = snapshot_seconds
        timings["graph"] = graph_seconds
    return graph, ids


def _named_nodes(bindings: NamedObjects) -> tuple[dict[Node, list[str]], dict[Node, dict[int, torch.Tensor]]]:
    """Each named tensor's node with every name bound to it, and the tensor per output slot."""
    named: dict[Node, list[str]] = {}
    named_tensors: dict[Node, dict[int, torch.Tensor]] = {}
    for tensor, names in bindings.tensors.values():
        edge = edge_of(tensor)
        if edge is not None:
            bucket = named.setdefault(edge[0], [])
            bucket.extend(n for n in names if n not in bucket)
            named_tensors.setdefault(edge[0], {}).setdefault(edge[1], tensor)
    return named, named_tensors


def _node_facts(order: list[Node], recorder: RunTrace, bindings: NamedObjects, named_tensors: dict,
                record_of: RecordMaker, saved_values: bool) -> list[tuple]:
    """Per node, in walk order: values, leaf tensor and gradient, call, per-pass gradients, saved values, accumulation."""
    ops = recorder.ops
    passes = recorder.passes
    facts = []
    reducers = ddp_reducers(module for module, _ in bindings.modules.values())
    for node in order:
        outputs, variable, leaf_grad, requires_grad, call = _node_values(
            node, ops.get(node), named_tensors, recorder, record_of)
        grads, freed = _node_grads(node, passes, record_of)
        saved = _read_saved(node, record_of, freed) if saved_values and variable is None else ()
        accumulation = (_node_accumulation(node, passes, record_of, recorder.hooks, reducers)
                        if variable is not None else {})
        facts.append((outputs, variable, leaf_grad, requires_grad, call, grads, saved, accumulation))
    return facts


def _hook_records(recorder: RunTrace, text: SourceText) -> dict[Node, list[HookRecord]]:
    """The user's hooks by node, each with its calls."""
    hooks_by_node: dict[Node, list[HookRecord]] = {}
    for h in recorder.hooks:
        hooks_by_node.setdefault(h.node, []).append(HookRecord(
            h.kind, h.qualname, h.output_nr, text.source_line(h.line),
            tuple(HookCallRecord(c.pass_index, resolve_all(c.before), resolve_all(c.after), c.in_place, c.error)
                  for c in h.calls), h.library))
    return hooks_by_node


def _edge_attributes(edges: list[tuple], ids: dict[Node, str]) -> dict[tuple[str, str], dict]:
    """One edge per (consumer, input) pair with its ``next_functions`` slot(s)."""
    edge_attrs: dict[tuple[str, str], dict] = {}
    for u, v, slot, input_nr in edges:
        key = (ids[u], ids[v])
        existing = edge_attrs.get(key)
        if existing is None:
            edge_attrs[key] = {"slot": slot, "input_nr": input_nr, "slots": (slot,)}
        else:  # x * x: both slots lead to the same node; keep the first as `slot`
            existing["slots"] += (slot,)
    return edge_attrs


def _node_items(order: list[Node], facts: list[tuple], ids: dict[Node, str], edge_attrs: dict, named: dict,
                bindings: NamedObjects, passes: list, hooks_by_node: dict, text: SourceText) -> list[tuple[str, dict]]:
    """Each node's attribute dict (the module docstring's schema, ``path`` filled later)."""
    module_paths = {key: names[0] for key, (_, names) in bindings.modules.items()}
    grad_order: dict[Node, dict[int, int]] = {}
    grad_threads: dict[Node, dict[int, str]] = {}
    on_path: dict[Node, tuple[int, ...]] = {}
    for p in passes:
        for position, node in enumerate(p.node_grads):
            grad_order.setdefault(node, {})[p.index] = position
        for node, thread in p.node_threads.items():
            grad_threads.setdefault(node, {})[p.index] = thread
        for node in p.reachable:
            on_path[node] = on_path.get(node, ()) + (p.index,)
    consumed = {v for _, v in edge_attrs}
    first_consumer: dict[str, str] = {}
    for u, v in edge_attrs:
        first_consumer.setdefault(v, u)
    module_of: dict[str, str | None] = {}
    custom_type = torch.autograd.function.BackwardCFunction
    no_names: tuple[str, ...] = ()
    sources: dict = {None: None}  # a recorded place (int line or FileLine) -> its SourceLine
    node_items = []
    for node, (outputs, variable, leaf_grad, requires_grad, call, grads, saved, accumulation) in zip(order, facts):
        node_id = ids[node]
        if variable is not None:
            kind = "leaf"
        elif isinstance(node, custom_type):
            kind = "custom"
        else:
            kind = "op"
        value = outputs[0] if outputs else None
        line = call.line if call is not None else None
        source = sources.get(line, False)
        if source is False:
            source = sources[line] = text.source_line(line)
        names = named.get(node)
        if variable is not None and not names:
            # A leaf whose tensor no longer requires grad (requires_grad_(False)
            # after a pass) has no gradient edge, but its accumulator still
            # holds it: name it through .variable.
            names = bindings.names_of(node.variable)
        if call is not None and call.module is not None:
            module = module_paths.get(call.module)
        elif variable is not None:
            module = bindings.owners.get(id(node.variable))
        else:
            # Made inside an op (linear's TBackward0): it belongs where its
            # consumer does; BFS order puts the consumer first.
            module = module_of.get(first_consumer.get(node_id))
        module_of[node_id] = module
        node_items.append((node_id, {
            "op": node.name(),
            "kind": kind,
            "is_root": node_id not in consumed,
            "names": tuple(names) if names else no_names,
            "path": None,
            "path_via": None,
            "value": value,
            "outputs": outputs,
            "variable": variable,
            "grad": leaf_grad,
            "accumulation": accumulation,
            "on_path": on_path.get(node, ()),
            "requires_grad": requires_grad,
            "grads": grads,
            "saved": saved,
            "hooks": tuple(hooks_by_node.get(node, ())),
            "source": source,
            "grad_enabled": call.grad_enabled if call is not None else None,
            "inference_mode": call.inference_mode if call is not None else None,
            "seq": call.seq if call is not None else None,
            "module": module,
            "grad_order": grad_order.get(node, {}),
            "shape": value.shape if value is not None else None,
            "dtype": value.dtype if value is not None else None,
            "device": value.device if value is not None else None,
        }))
        if node in grad_threads:
            node_items[-1][1]["grad_threads"] = grad_threads[node]
    return node_items


def _name_paths(graph: nx.DiGraph, named: dict, ids: dict[Node, str]) -> None:
    """Fill ``path``/``path_via``: how to reach each node from a named tensor (``d.grad_fn.next_functions[0][0]``)."""
    nodes = graph.nodes
    via: dict[str, tuple] = {}
    named_ops = [(ids[n], names[0]) for n, names in named.items() if not is_accumulator(n) and n in ids]
    _assign_paths(graph, [(i, f"{name}.grad_fn") for i, name in named_ops if nodes[i]["is_root"]], via)
    _assign_paths(graph, [(i, f"{name}.grad_fn") for i, name in named_ops if i not in via], via)
    texts: dict[str, str] = {}
    for node_id, link in via.items():  # BFS order: a parent's text exists before its children's
        parent, slot, hops = link
        attrs = nodes[node_id]
        attrs["path_via"] = link
        if parent is None:
            texts[node_id] = slot
        elif hops <= MAX_PATH_HOPS:
            texts[node_id] = f"{texts[parent]}.next_functions[{slot}][0]"
        attrs["path"] = texts.get(node_id)


def node_for_tensor(tensor: torch.Tensor, ids: dict[Node, str]) -> str | None:
    """Our id of the node a tensor belongs to (its grad_fn or accumulator)."""
    edge = edge_of(tensor)
    return None if edge is None else ids.get(edge[0])

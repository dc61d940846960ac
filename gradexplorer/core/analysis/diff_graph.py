"""One graph for a comparison: run B's graph with run A's removed nodes put back, every node marked.

The picture of a comparison is drawn like a pass's (:mod:`.passes`): a graph
whose node attribute dicts are shallow copies of the captures' own, with two
keys added, ``diff`` (the node's status: ``"same"``, ``"changed"``,
``"added"``, ``"removed"``) and ``diff_of`` (the node's id in run A: the
matched node's, a removed node's own, None for an added node). Run B's
nodes keep their ids, so the
inspector, Find and the panes go on working with them; run A's removed nodes
get ``"A:"`` before their id (``"A:n8"``) and bring their edges: to each
other, and to the nodes of B their A neighbours were matched with, so the
drawing shows where a frozen layer or a removed ``detach()`` used to hang.
"""

from __future__ import annotations

import networkx as nx

from ..records.diff import CaptureDiff, NodeDiff
from ..records.nodes import CaptureGraph
from .matching import id_order

__all__ = ["REMOVED_PREFIX", "box_status", "comparison_graph", "pass_status", "warm_box_statuses"]

#: Before the id of a node of run A that run B does not have.
REMOVED_PREFIX = "A:"


#: What a node's status in one pass's picture leaves to the other passes (the inspector lists every pass).
_OTHER_PASSES = frozenset({"gradient", ".grad", "passes"})


def pass_status(item: NodeDiff, index: int, *, leaf: bool = False) -> str:
    """A node's status in the picture of pass ``index``: that pass's gradient counts, the other passes' do not.

    A training loop whose learning rate changed runs the same first pass in
    both runs: its picture shows it the same, the later passes changed. A
    leaf's value is the one at the end of the run (the optimizer's last step
    is in it), so for a ``leaf`` it is left to the inspector too.
    """
    ignored = _OTHER_PASSES | {"value"} if leaf else _OTHER_PASSES
    if item.status != "changed" or set(item.changes) - ignored:
        return item.status
    return "changed" if any(d is not None and d.differs for d in item.grads.get(index, ())) else "same"


def comparison_graph(diff: CaptureDiff, graph_a: nx.DiGraph, graph_b: nx.DiGraph,
                     pass_index: int | None = None) -> CaptureGraph:
    """Run B's graph plus run A's removed nodes and their edges, each node marked with its ``diff`` status.

    ``pass_index``: only the nodes pass ``pass_index`` ran through in each run
    (``on_path``), marked with their status in that pass (:func:`pass_status`)
    and drawn with its gradients (``view_pass``, as :func:`.passes.pass_graph`
    does); None: every node, marked with its status over all passes.
    """
    result = CaptureGraph()
    node, succ, pred = result._node, result._succ, result._pred
    to_b: dict[str, str] = {}
    for item in diff.nodes:
        source = graph_b.nodes[item.b] if item.b is not None else graph_a.nodes[item.a]
        if pass_index is not None and pass_index not in (source.get("on_path") or ()):
            continue
        attrs = dict(source)
        status = item.status if pass_index is None else pass_status(item, pass_index,
                                                                    leaf=source.get("kind") == "leaf")
        attrs["diff"], attrs["diff_of"] = status, item.a
        if pass_index is not None:
            attrs["view_pass"] = pass_index
        new_id = item.b if item.b is not None else REMOVED_PREFIX + item.a
        if item.a is not None:
            to_b[item.a] = new_id
        node[new_id] = attrs
        succ[new_id] = {}
        pred[new_id] = {}
    for u, v, data in graph_b.edges(data=True):
        if u in node and v in node:
            succ[u][v] = data
            pred[v][u] = data
    for u, v, data in graph_a.edges(data=True):
        mu, mv = to_b.get(u), to_b.get(v)
        if mu is not None and mv is not None and (mu.startswith(REMOVED_PREFIX) or mv.startswith(REMOVED_PREFIX)):
            if mv not in succ[mu]:
                succ[mu][mv] = data
                pred[mv][mu] = data
    result.graph.update(graph_b.graph)
    types = dict(graph_a.graph.get("module_types", {}))
    types.update(graph_b.graph.get("module_types", {}))
    result.graph["module_types"] = types
    roots = [r for r in graph_b.graph.get("roots", ()) if r in node and not pred[r]]
    roots += [n for n in sorted(node, key=id_order) if not pred[n] and n not in roots]
    result.graph["roots"] = tuple(roots)
    result.graph["comparison"] = (diff.a_label, diff.b_label)
    result.graph["pass_index"] = pass_index
    return result


def box_status(graph: nx.DiGraph, group) -> str:
    """A module box's status from its nodes': all added, all removed, all the same, else changed.

    Kept in the graph (``graph.graph["diff_boxes"]``, by box path: a box of
    the same path holds the same nodes in one graph), so the view colours
    boxes without reading 50,000 nodes on the GUI thread; the comparison's
    job fills it for the boxes of the first picture (:func:`warm_box_statuses`).
    """
    cache = graph.graph.setdefault("diff_boxes", {})
    status = cache.get(group.path)
    if status is None:
        nodes = graph.nodes
        found = {nodes[m].get("diff", "same") for m in group.members}
        status = cache[group.path] = found.pop() if len(found) == 1 else "changed" if found else "same"
    return status


def warm_box_statuses(graph: nx.DiGraph, groups) -> None:
    """Work out the status of every box in ``groups`` now (in the job that prepares the picture)."""
    for group in groups:
        box_status(graph, group)

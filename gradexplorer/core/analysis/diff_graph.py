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

from ..records.diff import CaptureDiff
from ..records.nodes import CaptureGraph
from .matching import id_order

__all__ = ["REMOVED_PREFIX", "box_status", "comparison_graph", "warm_box_statuses"]

#: Before the id of a node of run A that run B does not have.
REMOVED_PREFIX = "A:"


def comparison_graph(diff: CaptureDiff, graph_a: nx.DiGraph, graph_b: nx.DiGraph) -> CaptureGraph:
    """Run B's graph plus run A's removed nodes and their edges, each node marked with its ``diff`` status."""
    result = CaptureGraph()
    node, succ, pred = result._node, result._succ, result._pred
    to_b: dict[str, str] = {}
    for item in diff.nodes:
        if item.b is not None:
            attrs = dict(graph_b.nodes[item.b])
            attrs["diff"], attrs["diff_of"] = item.status, item.a
            new_id = item.b
        else:
            attrs = dict(graph_a.nodes[item.a])
            attrs["diff"], attrs["diff_of"] = "removed", item.a
            new_id = REMOVED_PREFIX + item.a
        if item.a is not None:
            to_b[item.a] = new_id
        node[new_id] = attrs
        succ[new_id] = {}
        pred[new_id] = {}
    for u, v, data in graph_b.edges(data=True):
        succ[u][v] = data
        pred[v][u] = data
    for u, v, data in graph_a.edges(data=True):
        if u in to_b and v in to_b and (to_b[u].startswith(REMOVED_PREFIX) or to_b[v].startswith(REMOVED_PREFIX)):
            mu, mv = to_b[u], to_b[v]
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

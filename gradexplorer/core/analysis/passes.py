"""One backward pass at a time: the part of a capture's graph that one pass ran through.

A training loop of three steps builds three forward graphs that share their
leaves (the parameters); drawn together they are three interleaved copies,
and 200 steps are a row of 200 roots. torchviz draws one pass, readably.
:func:`pass_graph` is the graph of one pass: the nodes on that pass's path
(``on_path`` of the schema: reachable from the pass's roots), the edges
between them, the parameters they reach. Its nodes' attributes are the
capture's own (shared, never copied) with one key added, ``view_pass``,
so that whatever reads a node's gradient for drawing (the colours, the
captions, the "no gradient reached it" mark: :func:`~gradexplorer.core.graph.schema.node_gradient`)
reads that pass's gradient; node ids are the capture's, so the inspector,
Find and the sessions keep working with them.

:func:`default_pass` says which pass a picture opens on: the last one of a
program with several (what a training loop ended with), none (every node)
for a program with one pass or none.
"""

from __future__ import annotations

import networkx as nx

from ..records.nodes import CaptureGraph

__all__ = ["default_pass", "pass_graph", "pass_nodes"]


def default_pass(pass_count: int) -> int | None:
    """The pass a first picture shows: the last of several, None (the whole graph) for one pass or none."""
    return pass_count - 1 if pass_count > 1 else None


def pass_nodes(graph: nx.DiGraph, index: int) -> list[str]:
    """The nodes pass ``index`` ran through (its ``on_path``), in the graph's order."""
    return [node_id for node_id, on_path in graph.nodes(data="on_path") if index in (on_path or ())]


def pass_graph(graph: nx.DiGraph, index: int) -> CaptureGraph:
    """The graph of pass ``index`` alone: its nodes, the edges between them, its roots.

    Each node's attribute dict is a shallow copy of the capture's with
    ``view_pass`` set to ``index`` (the values themselves, the records, are
    shared). A pass that reached no node (it raised at once) gives an empty
    graph.
    """
    keep = pass_nodes(graph, index)
    kept = set(keep)
    result = CaptureGraph()
    node, succ, pred = result._node, result._succ, result._pred
    source = graph.nodes
    for node_id in keep:
        attrs = dict(source[node_id])
        attrs["view_pass"] = index
        node[node_id] = attrs
        succ[node_id] = {}
        pred[node_id] = {}
    for u in keep:
        for v, data in graph.succ[u].items():
            if v in kept:
                succ[u][v] = data
                pred[v][u] = data
    # Its roots: the nodes nothing in the pass consumes (the pass's own roots first).
    roots = [r for r in graph.graph.get("roots", ()) if r in kept and not pred[r]]
    roots += [n for n in keep if not pred[n] and n not in roots]
    result.graph.update(graph.graph)
    result.graph["roots"] = tuple(roots)
    result.graph["pass_index"] = index
    return result

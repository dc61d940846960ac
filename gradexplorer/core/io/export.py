"""Export a capture's graph for other tools: DOT, GraphML, node-link JSON.

The graph's attributes are records (tensor values, gradients per pass); other
tools want flat scalars. :func:`flat_graph` makes a copy with one string or
number per attribute (op, kind, names, path, value, grad, line, shape, dtype,
device), which networkx's GraphML and node-link writers accept. DOT is
written here (networkx's DOT writer needs pydot or pygraphviz), quoting every
label.
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx

from ..graph.schema import node_gradient, node_role, short_op
from .files import write_atomic

__all__ = ["flat_graph", "write_dot", "write_graphml", "write_node_link"]


def flat_graph(capture) -> nx.DiGraph:
    """A copy of the graph with flat, text/number attributes only."""
    flat = nx.DiGraph()
    for node_id, attrs in capture.graph.nodes(data=True):
        grad = node_gradient(attrs)
        source = attrs.get("source")
        flat.add_node(node_id,
                      op=attrs["op"], label=short_op(attrs["op"]), kind=attrs["kind"],
                      is_root=bool(attrs["is_root"]),
                      names=", ".join(attrs["names"]), path=attrs.get("path") or "",
                      value="" if attrs["value"] is None else attrs["value"].short(width=80),
                      grad="" if grad is None else grad.short(width=80),
                      line=-1 if source is None else source.line,
                      shape="" if attrs.get("shape") is None else "x".join(map(str, attrs["shape"])),
                      dtype=attrs.get("dtype") or "", device=attrs.get("device") or "")
    for u, v, data in capture.graph.edges(data=True):
        flat.add_edge(u, v, slot=data["slot"], input_nr=data["input_nr"])
    return flat


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def write_dot(capture, path: str | Path) -> None:
    """Graphviz DOT, top-down, one box per node labelled with op and names."""
    flat = flat_graph(capture)
    lines = ["digraph autograd {", "  rankdir=TB;", '  node [shape=box, style="rounded,filled", fillcolor="#e3ecf7"];']
    colours = {"leaf": "#d8f3dc", "root": "#ffe5c2", "custom": "#eadcf8"}
    for node_id, a in flat.nodes(data=True):
        label = a["label"] + (f"\n{a['names']}" if a["names"] else "")
        colour = colours.get(node_role(a))
        extra = f", fillcolor={_quote(colour)}" if colour else ""
        lines.append(f"  {_quote(node_id)} [label={_quote(label)}, tooltip={_quote(a['path'])}{extra}];")
    for u, v, a in flat.edges(data=True):
        lines.append(f"  {_quote(u)} -> {_quote(v)} [label={_quote(str(a['slot']))}];")
    lines.append("}")
    write_atomic(Path(path), "\n".join(lines) + "\n")


def write_graphml(capture, path: str | Path) -> None:
    """GraphML through networkx (typed attributes, readable by Gephi, yEd, networkx)."""
    text = "\n".join(nx.generate_graphml(flat_graph(capture)))
    write_atomic(Path(path), text + "\n")


def write_node_link(capture, path: str | Path) -> None:
    """networkx node-link JSON (``nx.node_link_graph`` reads it back)."""
    data = nx.node_link_data(flat_graph(capture), edges="links")
    write_atomic(Path(path), json.dumps(data, ensure_ascii=False))

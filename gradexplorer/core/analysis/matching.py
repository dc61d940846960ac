"""Match the autograd nodes of two runs, one to one, by rules a reader can follow (``docs/diff.md``).

Node ids are discovery order, so the same id in two runs of different
programs is rarely the same node: a ``detach()`` earlier in the program
shifts every id after it. The rules go from the strongest evidence to the
weakest, each only among the nodes no earlier rule matched:

1. **name**: a name bound in both runs (``"a"``, ``"model.0.weight"``), in
   run A's node order and name order; the op may differ (``x = a * b``
   changed to ``x = a + b`` is the same ``x``, changed).
2. **module**: the same module path and op, paired in creation order
   (``seq``; nodes made inside an op, which have none, after the others in
   id order).
3. **root**: the roots of pass k in both runs, in order, when the op is the same.
4. **path**: the same ``next_functions`` path from a named tensor
   (``loss.grad_fn.next_functions[0][0]``) and the same op.
5. **position**: below a matched pair, the nodes at the same
   ``next_functions`` slot with the same op; above a matched pair, its only
   unmatched parent at the same slot with the same op in each run. Repeated
   until nothing more matches.

Everything is a pure function of the two graphs, walked in id order, so the
same two runs always match the same way.
"""

from __future__ import annotations

from collections import defaultdict, deque

import networkx as nx

__all__ = ["Match", "match_nodes", "id_order"]


def id_order(node_id: str) -> tuple[int, str]:
    """Sort key of our ids: ``"n2"`` before ``"n10"``."""
    digits = node_id.lstrip("n")
    return (int(digits), node_id) if digits.isdigit() else (1 << 62, node_id)


class Match:
    """The pairs found so far, both ways, and the rule that found each."""

    def __init__(self) -> None:
        self.a_to_b: dict[str, str] = {}
        self.b_to_a: dict[str, str] = {}
        self.rule: dict[str, str] = {}  # by run A's id

    def pair(self, a: str, b: str, rule: str) -> bool:
        """Record ``a`` <-> ``b`` unless either is taken; True when recorded."""
        if a in self.a_to_b or b in self.b_to_a:
            return False
        self.a_to_b[a] = b
        self.b_to_a[b] = a
        self.rule[a] = rule
        return True


def match_nodes(graph_a: nx.DiGraph, graph_b: nx.DiGraph, roots_a: dict[int, tuple[str, ...]] | None = None,
                roots_b: dict[int, tuple[str, ...]] | None = None) -> Match:
    """Match the nodes of two capture graphs by the module docstring's rules, in order.

    ``roots_a``/``roots_b``: per pass index, the node ids that pass started
    from (:attr:`PassSummary.roots <gradexplorer.core.records.capture.PassSummary.roots>`).
    """
    match = Match()
    order_a = sorted(graph_a, key=id_order)
    _by_name(graph_a, graph_b, order_a, match)
    _by_module(graph_a, graph_b, order_a, match)
    _by_roots(graph_a, graph_b, roots_a or {}, roots_b or {}, match)
    _by_path(graph_a, graph_b, order_a, match)
    _by_position(graph_a, graph_b, order_a, match)
    return match


def _by_name(graph_a, graph_b, order_a, match: Match) -> None:
    holder_b: dict[str, str] = {}
    for node_id in sorted(graph_b, key=id_order):
        for name in graph_b.nodes[node_id]["names"]:
            holder_b.setdefault(name, node_id)
    for node_id in order_a:
        for name in graph_a.nodes[node_id]["names"]:
            other = holder_b.get(name)
            if other is not None and match.pair(node_id, other, "name"):
                break


def _module_groups(graph, unmatched) -> dict[tuple[str, str], list[str]]:
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for node_id in unmatched:
        data = graph.nodes[node_id]
        if data.get("module") is not None:
            groups[data["module"], data["op"]].append(node_id)
    for members in groups.values():
        members.sort(key=lambda n: (graph.nodes[n].get("seq") is None, graph.nodes[n].get("seq") or 0, id_order(n)))
    return groups


def _by_module(graph_a, graph_b, order_a, match: Match) -> None:
    groups_a = _module_groups(graph_a, [n for n in order_a if n not in match.a_to_b])
    groups_b = _module_groups(graph_b, [n for n in sorted(graph_b, key=id_order) if n not in match.b_to_a])
    for key in sorted(groups_a):
        for a, b in zip(groups_a[key], groups_b.get(key, ())):
            match.pair(a, b, "module")


def _by_roots(graph_a, graph_b, roots_a, roots_b, match: Match) -> None:
    for index in sorted(set(roots_a) & set(roots_b)):
        for a, b in zip(roots_a[index], roots_b[index]):
            if a in graph_a and b in graph_b and graph_a.nodes[a]["op"] == graph_b.nodes[b]["op"]:
                match.pair(a, b, "root")


def _by_path(graph_a, graph_b, order_a, match: Match) -> None:
    at_path_b: dict[tuple[str, str], str] = {}
    for node_id in sorted(graph_b, key=id_order):
        data = graph_b.nodes[node_id]
        if data.get("path") and node_id not in match.b_to_a:
            at_path_b.setdefault((data["path"], data["op"]), node_id)
    for node_id in order_a:
        data = graph_a.nodes[node_id]
        other = at_path_b.get((data.get("path"), data["op"])) if data.get("path") else None
        if other is not None:
            match.pair(node_id, other, "path")  # refused when either is matched already


def _children(graph, node_id: str) -> dict[int, str]:
    found: dict[int, str] = {}
    for _, child, edge in graph.out_edges(node_id, data=True):
        for slot in edge.get("slots", (edge["slot"],)):
            found[slot] = child
    return found


def _parents(graph, node_id: str) -> dict[tuple[int, str], list[str]]:
    """Parents by (slot, op): the slot of the parent that leads here."""
    found: dict[tuple[int, str], list[str]] = defaultdict(list)
    for parent, _, edge in graph.in_edges(node_id, data=True):
        for slot in edge.get("slots", (edge["slot"],)):
            found[slot, graph.nodes[parent]["op"]].append(parent)
    return found


def _by_position(graph_a, graph_b, order_a, match: Match) -> None:
    queue = deque(a for a in order_a if a in match.a_to_b)
    while queue:
        a = queue.popleft()
        b = match.a_to_b[a]
        below_b = _children(graph_b, b)
        for slot, child_a in sorted(_children(graph_a, a).items()):
            child_b = below_b.get(slot)
            if (child_b is not None and child_a not in match.a_to_b and child_b not in match.b_to_a
                    and graph_a.nodes[child_a]["op"] == graph_b.nodes[child_b]["op"]
                    and match.pair(child_a, child_b, "position")):
                queue.append(child_a)
        above_b = _parents(graph_b, b)
        for key, parents_a in sorted(_parents(graph_a, a).items()):
            free_a = [p for p in parents_a if p not in match.a_to_b]
            free_b = [p for p in above_b.get(key, ()) if p not in match.b_to_a]
            if len(free_a) == 1 and len(free_b) == 1 and match.pair(free_a[0], free_b[0], "position"):
                queue.append(free_a[0])

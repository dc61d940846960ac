"""What a node shows outside the inspector is its last pass's gradient (issue 28): the CLI table's grad column
and the value caption drawn by the box. A node's first pass once passed every test.

The truth: the same program in plain PyTorch with a hook that keeps every gradient ``y`` receives.
"""

from __future__ import annotations

import subprocess
import sys

from gradexplorer import capture
from gradexplorer.core.graph.schema import node_gradient, value_caption

PROGRAM = """\
x = torch.tensor([1.0, -2.0], requires_grad=True)
y = x * 2
y.backward(torch.tensor([1.0, 1.0]), retain_graph=True)
y.backward(torch.tensor([5.0, -7.0]))
"""


def _plain() -> list[list[float]]:
    import torch

    seen = []
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.backward(torch.tensor([1.0, 1.0]), retain_graph=True)
    y.backward(torch.tensor([5.0, -7.0]))
    return seen


def test_the_cli_table_and_the_caption_show_the_last_pass(tmp_path):
    passes = _plain()
    assert passes == [[1.0, 1.0], [5.0, -7.0]]
    cap = capture(PROGRAM)
    attrs = cap.graph.nodes[cap.node_named("y")]
    assert node_gradient(attrs).values() == passes[-1]
    assert "‖g‖ 8.602" in value_caption(attrs)  # the norm of [5, -7], not of [1, 1]
    script = tmp_path / "two_passes.py"
    script.write_text(PROGRAM, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(script)], capture_output=True,
                          text=True, timeout=120, check=True)
    row = next(line for line in done.stdout.splitlines() if " y " in f" {line} " and "MulBackward0" in line)
    assert "[5, -7]" in row and "[1, 1]" not in row, row


def test_the_path_filter_keeps_exactly_the_nodes_between_the_leaf_and_the_root():
    """The seed's example: the path from ``a`` to ``e`` is AccumulateGrad(a), d's and e's MulBackward0; b and c
    are off it. The truth is PyTorch's own graph walked from ``e.grad_fn``."""
    import torch

    from gradexplorer.core.analysis.query import filter_nodes

    a, b, c = (torch.tensor(v, requires_grad=True) for v in (1.1, 1.2, 1.3))
    e = (a * b) * c

    def reaches(node, target, memo={}):  # noqa: B006 - a cache for this walk only
        if node is None:
            return False
        if node is target:
            return True
        if node not in memo:
            memo[node] = any(reaches(child, target) for child, _ in node.next_functions)
        return memo[node]

    leaf_node = e.grad_fn.next_functions[0][0].next_functions[0][0]
    assert leaf_node.variable is a
    truth, stack, seen = [], [e.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if reaches(node, leaf_node):
            truth.append(node.name())
        stack.extend(child for child, _ in node.next_functions)
    cap = capture("a = torch.tensor(1.1, requires_grad=True)\nb = torch.tensor(1.2, requires_grad=True)\n"
                  "c = torch.tensor(1.3, requires_grad=True)\nd = a * b\ne = d * c\ne.backward()\n")
    kept = filter_nodes(cap.graph, "path", selected=cap.node_named("a"))
    assert sorted(cap.graph.nodes[n]["op"] for n in kept) == sorted(truth)
    assert {cap.node_named(name) for name in ("a", "d", "e")} == set(kept)
    # From d: d and e only (its inputs a and b are below it, not between it and the root).
    assert set(filter_nodes(cap.graph, "path", selected=cap.node_named("d"))) == {cap.node_named("d"),
                                                                                 cap.node_named("e")}

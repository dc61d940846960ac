"""Helpers for the core tests: capture a snippet, find nodes by name."""

import textwrap

import pytest

from gradexplorer import capture
from gradexplorer.resources import read_example


@pytest.fixture
def run():
    """``run(code)`` captures dedented code on cpu."""

    def _run(code: str, **options):
        return capture(textwrap.dedent(code), **options)

    return _run


@pytest.fixture
def example():
    """``example(name)`` captures a bundled example on cpu."""

    def _example(name: str, **options):
        return capture(read_example(name), filename=f"{name}.py", **options)

    return _example


def node(cap, name):
    """Attributes of the node bound to ``name``."""
    node_id = cap.node_named(name)
    assert node_id is not None, f"no node named {name!r}: {list(cap.graph.nodes(data='names'))}"
    return cap.graph.nodes[node_id]


def capture_file_with_cli(folder, name: str, code: str, *output: str):
    """Write ``code`` to ``folder/name`` and run ``gradexplorer capture`` on it with ``output``
    (``"--json", path`` or ``"-o", path``), as a user at a terminal would; fails the test on a non-zero exit."""
    import subprocess
    import sys

    program = folder / name
    program.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(program), *map(str, output)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def run_with_prehooks(program: str, raises: str):
    """Run ``program`` with torch alone, a pre-hook on every node of each ``backward()``'s graph, expecting
    it to raise ``raises``: ``(calls, namespace)``, each call ``(node name, the gradients it was handed)``.

    The truth for a pass that raised: the last call is the node the engine
    was running when it raised.
    """
    import torch
    from torch import nn

    namespace = {"torch": torch, "nn": nn}
    backward = torch.Tensor.backward
    calls = []

    def hooked_backward(tensor, *args, **kwargs):
        stack, seen = [tensor.grad_fn], set()
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            node.register_prehook(lambda grads, node=node: calls.append(
                (node.name(), tuple(None if g is None else g.clone() for g in grads))))
            stack.extend(n for n, _ in node.next_functions)
        return backward(tensor, *args, **kwargs)

    torch.Tensor.backward = hooked_backward
    try:
        with pytest.raises(RuntimeError, match=raises):
            exec(textwrap.dedent(program), namespace)
    finally:
        torch.Tensor.backward = backward
    return calls, namespace

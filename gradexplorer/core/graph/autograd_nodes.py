"""Small questions about autograd's own graph nodes, asked by the recorder and by the walk alike.

Kept apart from both so that the graph package does not depend on the
recorder (the walk only needs to know what a node is, not how a run was
recorded).
"""

from __future__ import annotations

import torch
from torch.autograd.graph import Node

__all__ = ["edge_of", "grad_fn_of", "is_accumulator"]

_accumulator_types: dict[type, bool] = {}


def is_accumulator(node: Node) -> bool:
    """An ``AccumulateGrad`` node (it has ``.variable``); cached per node type."""
    cls = type(node)
    known = _accumulator_types.get(cls)
    if known is None:
        known = _accumulator_types[cls] = hasattr(node, "variable")
    return known


def grad_fn_of(t: torch.Tensor) -> Node | None:
    """``t.grad_fn``, or None where PyTorch refuses to give one.

    A view made under ``no_grad`` whose base (or itself) was then changed in
    place raises on ``grad_fn`` and ``is_leaf`` ("A view was created in
    no_grad mode and its base or another view of its base has been modified
    inplace ..."), though the program that made it runs fine as long as it
    never asks (``with torch.no_grad(): w[:2].mul_(10)`` is a common way to
    initialise part of a parameter). The capture must not ask either.
    """
    try:
        return t.grad_fn
    except RuntimeError:
        return None


def edge_of(t: torch.Tensor) -> tuple[Node, int] | None:
    """The ``(node, output_nr)`` autograd routes ``t``'s gradient to, or None.

    That is ``t.grad_fn`` for results and the gradient accumulator for leaves
    that require grad. A view made under ``no_grad`` says ``requires_grad``
    but has neither (torch raises ``AssertionError`` there).
    """
    if not t.requires_grad:
        return None
    node = grad_fn_of(t)
    if node is not None:
        return node, t.output_nr
    # A leaf: its accumulator, found as torch.autograd.graph.get_gradient_edge finds it (through a view's
    # grad_fn), without its grad-mode context when grad mode is on already: half the cost, for every
    # parameter of a model after each run.
    try:
        if torch.is_grad_enabled():
            view = t.view_as(t)
        else:
            with torch.enable_grad():
                view = t.view_as(t)
    except RuntimeError:
        return None
    node = view.grad_fn
    if node is None:
        return None
    node = node.next_functions[0][0]  # None for a view made under no_grad (torch asserts there)
    return None if node is None else (node, t.output_nr)

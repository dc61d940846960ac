"""What a run leaves for the graph build to read: the recorder's trace and the program's names, as protocols.

The graph build (:mod:`gradexplorer.core.graph.build`) and the module audit
read a finished run through these shapes, never through the live recorder's
class: the recorder lives in :mod:`gradexplorer.core.capture`, above them,
and a lower layer that named it (even only for type checkers) made the
import graph run back up. :class:`~gradexplorer.core.capture.recording.Recorder`
and :class:`~gradexplorer.core.capture.namespace.Bindings` satisfy them
structurally; so could a recorded trace read back from elsewhere.

Every attribute listed is read by the build; nothing else is.
"""

from __future__ import annotations

from typing import Any, Protocol

import torch
from torch import nn
from torch.autograd.graph import Node

__all__ = ["HookTrace", "NamedObjects", "OpTrace", "OriginTrace", "PassTrace", "RunTrace"]


class OriginTrace(Protocol):
    """The torch call that made a tensor or node: its order, op, line and the grad mode then."""

    seq: int
    op: str
    line: Any  # an int line of the program, or a FileLine of another project file, or None
    grad_enabled: bool
    inference_mode: bool
    module: int | None  # id of the module whose forward was running (its path comes from the names)


class OpTrace(Protocol):
    """One autograd node the program made: the call that made it and its forward values then."""

    call: OriginTrace
    outputs: dict[int, Any]  # output_nr -> a pending record of the value (resolved by the build)


class HookTrace(Protocol):
    """A user hook: on which node and output, registered where, and each call with gradients before/after."""

    kind: str
    qualname: str
    node: Node
    output_nr: int
    line: Any
    calls: list[Any]
    library: bool


class PassTrace(Protocol):
    """One backward pass as it ran: roots, inputs, the gradients each node got and sent, what it reached."""

    index: int
    kind: str
    line: Any
    roots: list[tuple[Node, int]]
    inputs: list[tuple[Node, int]]
    retain_graph: bool
    create_graph: bool
    node_grads: dict[Node, tuple[tuple, tuple]]
    results: tuple[Any, ...]
    error: str | None
    reachable: dict
    leaf_grads: dict[Node, list]
    thread: str | None
    node_threads: dict[Node, str]
    raised_at: Node | None


class RunTrace(Protocol):
    """Everything recorded while the program ran that the graph is built from."""

    @property
    def passes(self) -> list[PassTrace]: ...

    @property
    def ops(self) -> dict[Node, OpTrace]: ...

    @property
    def hooks(self) -> list[HookTrace]: ...

    def origin_of(self, tensor: torch.Tensor) -> OriginTrace | None:
        """Where ``tensor`` was made, when the run saw it."""


class NamedObjects(Protocol):
    """The program's tensors and modules with every name they are bound to (``Bindings``)."""

    @property
    def tensors(self) -> dict[int, tuple[torch.Tensor, list[str]]]: ...

    @property
    def modules(self) -> dict[int, tuple[nn.Module, list[str]]]: ...

    @property
    def owners(self) -> dict[int, str]: ...

    def names_of(self, tensor: torch.Tensor) -> list[str]:
        """Every name bound to ``tensor`` (empty when unnamed)."""

"""The records a graph node carries: gradients per pass, a leaf's accumulation, saved values, hooks.

The graph itself is a :class:`CaptureGraph`; the node and edge attributes
are documented in :mod:`gradexplorer.core.graph.build`, which makes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .source import SourceLine
from .tensors import TensorRecord

__all__ = ["CaptureGraph", "GradFlow", "HookCallRecord", "HookRecord", "LeafPass", "SavedValue"]


@dataclass(frozen=True)
class GradFlow:
    """Gradients at one node in one pass (``None`` where autograd had none)."""

    outputs: tuple[TensorRecord | None, ...]
    inputs: tuple[TensorRecord | None, ...]


@dataclass(frozen=True)
class LeafPass:
    """What one pass did at a leaf's gradient accumulator.

    Attributes
    ----------
    delivered : TensorRecord or None
        The gradient autograd handed to ``AccumulateGrad`` in this pass (after
        the leaf's tensor hooks), None when none arrived.
    before, after : TensorRecord or None
        ``.grad`` just before and just after the pass (None: ``.grad`` was None).
    reduced_by : str
        Who wrote ``.grad`` in the pass besides autograd, when known: a
        ``DistributedDataParallel`` reducer ("DistributedDataParallel over 2
        processes"), whose C++ hooks average ``.grad`` across processes out of
        Python's sight (:func:`ddp_reducers`). "" otherwise.
    """

    delivered: TensorRecord | None
    before: TensorRecord | None
    after: TensorRecord | None
    reduced_by: str = ""


@dataclass(frozen=True)
class SavedValue:
    """One saved attribute of a node.

    ``state`` is ``"tensor"`` (``tensor`` set), ``"value"`` (``text`` holds the
    repr), ``"freed"`` (released by a backward without ``retain_graph``) or
    ``"error"`` (reading it failed; ``text`` says why).
    """

    name: str
    state: str
    tensor: TensorRecord | None = None
    text: str = ""


@dataclass(frozen=True)
class HookCallRecord:
    """One call of a user hook: gradient before it and, if it returned one, after."""

    pass_index: int | None
    before: tuple[TensorRecord | None, ...]
    after: tuple[TensorRecord | None, ...] | None
    in_place: bool = False
    error: str | None = None  # the hook raised (the pass stopped there)

    @property
    def changed(self) -> bool:
        """True when the hook changed the gradient (by value): returned another one, or edited it in place."""
        return self.after is not None


@dataclass(frozen=True)
class HookRecord:
    """A user hook: what kind, which function, where registered, its calls."""

    kind: str
    qualname: str
    output_nr: int
    source: SourceLine | None
    calls: tuple[HookCallRecord, ...]
    library: bool = False


class CaptureGraph(nx.DiGraph):
    """The capture's graph: a :class:`networkx.DiGraph` that never refers to itself.

    networkx caches the views ``G.edges``, ``G.degree`` (and their in/out
    forms) in the graph's ``__dict__`` on first use, and those views hold the
    graph: a reference cycle. A capture graph reaches every record and tensor
    of the capture, so one ``G.edges`` made the whole capture cyclic garbage:
    it was freed only by a full collection (0.2 s per 10,000 nodes, holding
    the GIL, a frozen window) and leaked when the objects had been frozen
    (:func:`gradexplorer.core.collector.freeze_survivors`). Here those views
    are made on each access (they are small wrappers), so dropping the last
    reference frees a capture at once.
    """

    edges = property(lambda self: nx.reportviews.OutEdgeView(self), doc="The edges (a fresh view).")
    out_edges = edges
    in_edges = property(lambda self: nx.reportviews.InEdgeView(self), doc="Incoming edges (a fresh view).")
    degree = property(lambda self: nx.reportviews.DiDegreeView(self), doc="Degrees (a fresh view).")
    in_degree = property(lambda self: nx.reportviews.InDegreeView(self), doc="In-degrees (a fresh view).")
    out_degree = property(lambda self: nx.reportviews.OutDegreeView(self), doc="Out-degrees (a fresh view).")

"""What changed between two runs: the records of a comparison (:mod:`gradexplorer.core.analysis.diff` makes them).

Run A is the reference (the earlier run, the saved session); run B is the one
compared with it. Every record keeps both sides, so a view can show them side
by side, and says how it was matched, so a reader can check the matching
(the rules are in ``docs/diff.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .capture import PassSummary
from .modules import StateEntry
from .phrases import Phrase
from .tensors import TensorRecord

__all__ = ["CaptureDiff", "NameDiff", "NodeDiff", "PassDiff", "PlacementDiff", "ValueDiff", "STATUSES"]

#: A node's status in a comparison, and what it means.
STATUSES = {
    "same": "in both runs, nothing recorded differs",
    "changed": "in both runs, with a different op, value, gradient, dtype, device, grad mode or requires_grad",
    "added": "only in run B",
    "removed": "only in run A",
}


@dataclass(frozen=True)
class ValueDiff:
    """How far run B's tensor is from run A's.

    Attributes
    ----------
    a, b : TensorRecord or None
        The two records (None: that run has none, e.g. ``.grad`` is None).
    kind : str
        ``"values"`` (both kept their values, same shape: compared element by
        element), ``"statistics"`` (a tensor over the value cap keeps only its
        statistics: those are compared), ``"shape"`` (shapes differ),
        ``"missing"`` (one side is None) or ``"unreadable"`` (meta or sparse
        tensors: nothing to compare).
    max_abs : float or None
        ``max |a - b|`` over the positions where both values are finite
        (computed in float64; None when no such position or not ``"values"``).
    max_rel : float or None
        ``max |a - b| / max(|a|, |b|)`` over the same positions (0 where both
        are 0): symmetric and between 0 and 2, so a zero in either run never
        makes it infinite.
    nonfinite_mismatch : int
        Positions where a NaN or an Inf is in one run and not the same
        non-finite value in the other (a NaN in both is not a difference).
    at : int or None
        Flat index (row-major) of ``max_abs``.
    """

    a: TensorRecord | None
    b: TensorRecord | None
    kind: str
    max_abs: float | None = None
    max_rel: float | None = None
    nonfinite_mismatch: int = 0
    at: int | None = None

    @property
    def differs(self) -> bool:
        """True when B's tensor is not A's (a value, a non-finite position, the statistics, the shape, presence)."""
        if self.kind == "values":
            return bool(self.max_abs) or self.nonfinite_mismatch > 0
        if self.kind == "statistics":
            return self.a.stats != self.b.stats
        return self.kind in ("shape", "missing")


@dataclass(frozen=True)
class NodeDiff:
    """One autograd node of run A matched with one of run B (or found in one run only).

    Attributes
    ----------
    a, b : str or None
        The node's id in run A and in run B (None: not in that run).
    status : str
        A key of :data:`STATUSES`.
    rule : str
        How the two were matched: ``"name"``, ``"module"`` (module path, op
        and creation order), ``"root"`` (the k-th root of pass k),
        ``"path"`` (the same ``next_functions`` path from a named tensor),
        ``"position"`` (the same slot below, or above, a matched node);
        ``""`` for added and removed nodes.
    label : str
        The node's names (``"a, b"``) or op, for lists.
    changes : tuple of str
        What differs, in a fixed order among ``"op"``, ``"shape"``,
        ``"dtype"``, ``"device"``, ``"requires_grad"``, ``"grad mode"``,
        ``"value"``, ``"gradient"`` (a pass's gradient at the node),
        ``".grad"`` (a leaf's ``.grad`` at the end), ``"passes"`` (which
        passes reach it).
    value : ValueDiff or None
        The forward values (``"missing"`` on one side for added and removed
        nodes; None when neither run recorded one).
    grads : dict of int to tuple of (ValueDiff or None)
        Per pass index in either run: the gradient with respect to each of
        the node's outputs (for a leaf: what the pass delivered to it).
    grad : ValueDiff or None
        Leaves: ``.grad`` at the end of each run.
    """

    a: str | None
    b: str | None
    status: str
    rule: str = ""
    label: str = ""
    changes: tuple[str, ...] = ()
    value: ValueDiff | None = None
    grads: dict[int, tuple[ValueDiff | None, ...]] = field(default_factory=dict)
    grad: ValueDiff | None = None

    def pass_grad(self, index: int) -> ValueDiff | None:
        """The gradient of the node's first output in pass ``index`` (None when neither run has one)."""
        found = self.grads.get(index, ())
        return found[0] if found else None


@dataclass(frozen=True)
class NameDiff:
    """One name bound in either run: why it does or does not get a gradient, its value and ``.grad``.

    Attributes
    ----------
    name : str
    code_a, code_b : str or None
        The explanation's reason code in each run (None: not named there).
    sentence_a, sentence_b : Phrase or str
        The explanation (a phrase: ``str()`` is the English; "" when not named).
    value, grad : ValueDiff or None
        The tensor's value and ``.grad`` at the end of each run.
    """

    name: str
    code_a: str | None
    code_b: str | None
    sentence_a: Phrase | str = ""
    sentence_b: Phrase | str = ""
    value: ValueDiff | None = None
    grad: ValueDiff | None = None

    @property
    def reason_changed(self) -> bool:
        """True when the reason code differs (or the name is in one run only)."""
        return self.code_a != self.code_b

    @property
    def reason_text(self) -> str:
        """``"alias -> no_grad"`` (``-`` for a run where the name is not bound)."""
        return f"{self.code_a or '-'} -> {self.code_b or '-'}"


@dataclass(frozen=True)
class PlacementDiff:
    """One tensor of a module's state whose placement differs between the runs.

    Attributes
    ----------
    path : str
        ``"layer.a"``.
    a, b : StateEntry or None
        The entry in each run's module audit (None: not there).
    changes : tuple of str
        ``"device cpu -> cuda:0"``, ``"kind plain -> buffer"``,
        ``"requires_grad True -> False"``, ``"has .grad True -> False"``,
        ``"dtype float32 -> float64"``, ``"only in A"``, ``"only in B"``.
    """

    path: str
    a: StateEntry | None
    b: StateEntry | None
    changes: tuple[str, ...]


@dataclass(frozen=True)
class PassDiff:
    """Pass k of run A beside pass k of run B.

    ``changes``: ``"only in A"``, ``"only in B"``, ``"kind backward -> grad"``,
    ``"raised in B"``, ``"raised in A"``, ``"error changed"``,
    ``"roots loss -> total"``.
    """

    index: int
    a: PassSummary | None
    b: PassSummary | None
    changes: tuple[str, ...]


@dataclass(frozen=True)
class CaptureDiff:
    """Two runs compared.

    Attributes
    ----------
    a_label, b_label : str
        What each run is, for headings (``"b_alias.py (cpu)"``).
    nodes : tuple of NodeDiff
        Every node of both runs, once: A's nodes in A's id order (matched or
        removed), then the added ones in B's id order.
    names : tuple of NameDiff
        Every name of either run: A's in A's order, then B's new ones.
    placements : tuple of PlacementDiff
        Only the module state whose placement differs.
    passes : tuple of PassDiff
        One per pass index of either run.
    warnings_a, warnings_b : tuple of str
        Module-audit warnings found in one run only (``"path: message"``).
    error_a, error_b : str
        How each run ended when it raised (``"SyntaxError at line 1: ..."``;
        "" when it ran to the end), so a report says why a run has fewer nodes.
    """

    a_label: str
    b_label: str
    nodes: tuple[NodeDiff, ...]
    names: tuple[NameDiff, ...]
    placements: tuple[PlacementDiff, ...]
    passes: tuple[PassDiff, ...]
    warnings_a: tuple[str, ...] = ()
    warnings_b: tuple[str, ...] = ()
    error_a: str = ""
    error_b: str = ""

    def counts(self) -> dict[str, int]:
        """How many nodes have each status (every key of :data:`STATUSES`)."""
        found = dict.fromkeys(STATUSES, 0)
        for node in self.nodes:
            found[node.status] += 1
        return found

    @property
    def differs(self) -> bool:
        """True when anything recorded differs: a node, a name's reason, value or ``.grad``, a pass, module state."""
        return (any(n.status != "same" for n in self.nodes) or any(p.changes for p in self.passes)
                or any(n.reason_changed or (n.value is not None and n.value.differs)
                       or (n.grad is not None and n.grad.differs) for n in self.names)
                or bool(self.placements or self.warnings_a or self.warnings_b))

    def for_a(self, node_id: str) -> NodeDiff | None:
        """The record of run A's node ``node_id``."""
        return self._index()[0].get(node_id)

    def for_b(self, node_id: str) -> NodeDiff | None:
        """The record of run B's node ``node_id``."""
        return self._index()[1].get(node_id)

    def name(self, name: str) -> NameDiff | None:
        """The record of ``name``."""
        return self._index()[2].get(name)

    def warm(self) -> CaptureDiff:
        """Make the lookups of :meth:`for_a`, :meth:`for_b` and :meth:`name` now; return self.

        Called in the job that compares: on a 50,000-node comparison the
        first click's lookup built them on the GUI thread (30 ms of a stall).
        """
        self._index()
        return self

    def _index(self) -> tuple[dict[str, NodeDiff], dict[str, NodeDiff], dict[str, NameDiff]]:
        index = self.__dict__.get("_by_id")
        if index is None:
            index = ({n.a: n for n in self.nodes if n.a is not None}, {n.b: n for n in self.nodes if n.b is not None},
                     {n.name: n for n in self.names})
            object.__setattr__(self, "_by_id", index)  # a cache of a frozen record's own content (any thread)
        return index

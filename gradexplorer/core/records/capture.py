"""The :class:`Capture`, a frozen snapshot of one run, and the records it is made of.

Every part of gradexplorer that reads a run (analysis, io, the isolated
engine, the UI) reads these; the capture pipeline
(:mod:`gradexplorer.core.pipeline`) makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from .errors import ErrorReport
from .explanations import Explanation
from .figures import FigureImage
from .modules import ModuleAudit
from .phrases import Phrase
from .source import SourceLine
from .tensors import DEFAULT_VALUE_ELEMENTS, TensorRecord

__all__ = ["Capture", "CutRecord", "OriginRecord", "PassSummary", "TensorInfo"]


@dataclass(frozen=True)
class OriginRecord:
    """How a named tensor was made: the op, the line, and the grad mode then."""

    op: str
    source: SourceLine | None
    grad_enabled: bool
    inference_mode: bool


@dataclass(frozen=True)
class CutRecord:
    """Why a tensor without a graph has none, though it was computed from a tensor that requires grad.

    Attributes
    ----------
    op : str
        The step that gave its result no graph: ``"argmax"``, ``"eq"`` (``==``), ``"multinomial"``
        (``Categorical.sample()``), ``"detach"``, or, with ``escaped``, ``"item"``/``"tolist"``/``"numpy"``.
    source : SourceLine or None
        The line of that step.
    grad_enabled : bool
        Grad mode at that step (off: ``no_grad`` cut it, not the op).
    from_names : tuple of str
        Names of the tensor that required grad and went into the step (when it is still named).
    from_source : SourceLine or None
        Where that tensor was made.
    leaves : tuple of str
        Named leaves that require grad behind that tensor (at most 8): the ones that can get no
        gradient through this tensor.
    escaped : bool
        The value left autograd as a Python number or NumPy array (``.item()``) before this tensor was
        made from it (the last such call before it: the recorder cannot follow a Python float).
    """

    op: str
    source: SourceLine | None
    grad_enabled: bool = True
    from_names: tuple[str, ...] = ()
    from_source: SourceLine | None = None
    leaves: tuple[str, ...] = ()
    escaped: bool = False


@dataclass(frozen=True)
class TensorInfo:
    """One tensor object bound to one or more names in the final namespace.

    Attributes
    ----------
    names : tuple of str
        All names of this object, top-level first (``("a", "b")`` after ``b = a``).
    node : str or None
        Graph node id (its ``grad_fn``, or its ``AccumulateGrad`` for a leaf
        that requires grad); None when it is outside autograd.
    output_nr : int
    value : TensorRecord
        The value at the end of the run.
    grad : TensorRecord or None
        ``.grad`` at the end (leaves and ``retain_grad`` tensors only).
    requires_grad, is_leaf, retains_grad, is_view, is_inference : bool
    is_parameter : bool
        An ``nn.Parameter``.
    grad_fn : str or None
        ``grad_fn.name()``.
    origin : OriginRecord or None
        Where it was created, if a recorded op created it.
    base_names : tuple of str
        Names of ``._base`` for views.
    source_names : tuple of str
        Names of the tensor it was made from (``detach``, ``.data``, ...).
    switched_off : SourceLine or None
        Where the user's code turned ``requires_grad`` off on it
        (``requires_grad_(False)`` or ``.requires_grad = False``).
    hook_gradient : SourceLine or None
        Set when this tensor is a gradient autograd handed to a hook (which
        kept it): the hook's line.
    is_buffer : bool
        A buffer of an ``nn.Module`` (``register_buffer``: running statistics).
    grad_result : SourceLine or None
        Set when ``torch.autograd.grad`` returned this tensor: that call's line.
    scopes : tuple of str
        Where each name is held, parallel to ``names``: ``""`` at top level
        (and for module paths under a top-level name), ``"main()"`` for a
        variable of the function ``main``. Empty in files of earlier versions.
    cut : CutRecord or None
        For a tensor with no graph computed from one that requires grad:
        where and how the graph was cut.
    """

    names: tuple[str, ...]
    node: str | None
    output_nr: int
    value: TensorRecord
    grad: TensorRecord | None
    requires_grad: bool
    is_leaf: bool
    retains_grad: bool
    is_view: bool
    is_inference: bool
    is_parameter: bool
    grad_fn: str | None
    origin: OriginRecord | None
    base_names: tuple[str, ...] = ()
    source_names: tuple[str, ...] = ()
    switched_off: SourceLine | None = None
    hook_gradient: SourceLine | None = None
    is_buffer: bool = False
    grad_result: SourceLine | None = None
    scopes: tuple[str, ...] = ()
    cut: CutRecord | None = None

    @property
    def name(self) -> str:
        """The first (top-level) name."""
        return self.names[0]

    def scope_of(self, name: str) -> str:
        """Where ``name`` is held: ``""`` at top level, ``"main()"`` in a function."""
        for known, scope in zip(self.names, self.scopes):
            if known == name:
                return scope
        return ""

    def named(self, name: str | None = None) -> str:
        """``name`` (default: the first) as a reader needs it: ```loss` in `train_step()``` inside a function."""
        name = self.names[0] if name is None else name
        scope = self.scope_of(name)
        return f"`{name}` in `{scope}`" if scope else f"`{name}`"


@dataclass(frozen=True)
class PassSummary:
    """One backward pass, with our node ids.

    Attributes
    ----------
    index : int
    kind : str
        ``"backward"`` or ``"grad"``.
    source : SourceLine or None
    roots, inputs : tuple of (str or None, int)
        ``(node id, output_nr)`` of the gradient edges.
    retain_graph, create_graph : bool
    results : tuple of (TensorRecord or None)
        What ``torch.autograd.grad`` returned.
    error : str or None
        Set when the pass raised.
    root_names : tuple of str
        Names of the tensors it was called on (``("loss",)``), when named.
    thread : str or None
        The thread that ran it, when it was a thread the user's code started.
    input_names : tuple of str
        Names of ``inputs=`` tensors, when named.
    raised_at : str or None
        For a pass that raised: the graph node it raised in (that node's
        gradient for this pass is what autograd had handed it).

    A pass that raised is kept with what it delivered before the error:
    ``error`` is set and ``source`` is the line of the call that raised.
    """

    index: int
    kind: str
    source: SourceLine | None
    roots: tuple[tuple[str | None, int], ...]
    inputs: tuple[tuple[str | None, int], ...]
    retain_graph: bool
    create_graph: bool
    results: tuple[TensorRecord | None, ...] = ()
    error: str | None = None
    root_names: tuple[str, ...] = ()
    thread: str | None = None
    input_names: tuple[str, ...] = ()
    raised_at: str | None = None

    @property
    def raised(self) -> bool:
        """True when the pass raised."""
        return self.error is not None

    @property
    def line(self) -> int | None:
        """The line of the call that started the pass (and raised, if it did)."""
        return None if self.source is None else self.source.line


@dataclass(frozen=True)
class Capture:
    """A frozen snapshot of one run (the result of :func:`capture`).

    Attributes
    ----------
    code, filename, device : str
    graph : networkx.DiGraph
        Schema in :mod:`gradexplorer.core.graph.build`. Treat it as read-only.
    passes : tuple of PassSummary
    tensors : tuple of TensorInfo
        Every named tensor object, in namespace order.
    explanations : tuple of Explanation
        Why each name does or does not get a gradient
        (:mod:`gradexplorer.core.analysis.explain`).
    modules : tuple of ModuleAudit
        The placement audit of every top-level module (:mod:`gradexplorer.core.analysis.modules`).
    stdout, stderr : str
    error : ErrorReport or None
    executed : bool
        False when nothing ran (syntax error).
    dropped_ops : int
        Ops not recorded because ``max_ops`` was reached.
    versions : dict of str to str
        gradexplorer, torch, python and networkx versions that made it.
    value_elements : int
        The value cap the capture was made with (records of larger tensors
        keep a summary only).
    timings : dict of str to float
        Seconds spent in ``run`` (the user's code with recording) and
        ``build`` (everything after it), which includes ``snapshot`` (turning
        recorded tensors into records) and ``graph`` (walk and assembly).
    restored : tuple of Phrase (or str, in files written before phrases)
        What the program changed in the process (default dtype, working
        directory, a monkeypatched ``Tensor.backward``, ...) and was put back
        after it, the threads it left running, and what gradexplorer could
        not fully do for it (names looked up in part), one sentence each.
    args : tuple of str
        The arguments it was started with (``sys.argv[1:]``).
    cwd : str
        The working folder it ran in ("" when not known).
    root : str
        The project folder (``sys.path[0]``: the script's folder); the
        ``file`` of a source line is relative to it ("" when not known).
    files : dict of str to str
        The text of each project file other than the program that a source
        line points into, as it was when the run reached it (``"pkg/model.py"``
        -> its text), so that a reopened session shows the lines that ran.
    figures : tuple of FigureImage
        The matplotlib figures the program showed (``plt.show()``) or left
        open, rendered off-screen (:mod:`gradexplorer.core.capture.figures`).
    """

    code: str
    filename: str
    device: str
    graph: nx.DiGraph
    passes: tuple[PassSummary, ...] = ()
    tensors: tuple[TensorInfo, ...] = ()
    explanations: tuple[Explanation, ...] = ()
    modules: tuple[ModuleAudit, ...] = ()
    stdout: str = ""
    stderr: str = ""
    error: ErrorReport | None = None
    executed: bool = True
    dropped_ops: int = 0
    versions: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    value_elements: int = DEFAULT_VALUE_ELEMENTS
    #: What the program changed in the process and gradexplorer put back, one sentence each
    #: (:mod:`gradexplorer.core.capture.process_state`), and threads it left running.
    restored: tuple[Phrase | str, ...] = ()
    args: tuple[str, ...] = ()
    cwd: str = ""
    root: str = ""
    files: dict[str, str] = field(default_factory=dict)
    figures: tuple[FigureImage, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the code ran to the end without an exception."""
        return self.error is None

    def node_named(self, name: str) -> str | None:
        """Id of the node whose tensor is bound to ``name`` (``"d"``, ``"layer.w"``)."""
        for node_id, names in self.graph.nodes(data="names"):
            if name in names:
                return node_id
        return None

    def tensor(self, name: str) -> TensorInfo | None:
        """The :class:`TensorInfo` bound to ``name``."""
        for info in self.tensors:
            if name in info.names:
                return info
        return None

    def text_of(self, file: str | None) -> str:
        """The text of a source line's file: the program for None, else the kept project file ("" if not kept)."""
        return self.code if file is None else self.files.get(file, "")

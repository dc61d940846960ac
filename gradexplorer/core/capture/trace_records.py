"""The records a :class:`~gradexplorer.core.capture.recording.Recorder` keeps while the program runs.

Plain data, made on the hot path or once per pass or hook: where a tensor
came from (:class:`TensorOrigin`, :class:`FileLine`), a recorded node
(:class:`OpRecord`), a cut in the graph (:class:`GraphCut`), the user's hooks
and their calls (:class:`HookInfo`, :class:`HookCall`) and the backward
passes (:class:`PassRecord`). The graph build reads them through the
protocols of :mod:`gradexplorer.core.records.trace`; the recorder, its
passes (:mod:`~gradexplorer.core.capture.backward_passes`) and its hooks
(:mod:`~gradexplorer.core.capture.user_hooks`) make them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from torch.autograd.graph import Node

from ..records.tensors import PendingRecord

__all__ = ["FileLine", "GraphCut", "HookCall", "HookInfo", "OpRecord", "PassRecord", "TensorOrigin"]


class GraphCut(NamedTuple):
    """Where a tensor that requires grad went into a step that gave its result no graph.

    Attributes
    ----------
    op : str
        The step: ``"argmax"``, ``"eq"``, ``"multinomial"``, ``"detach"``, ``"item"``, ...
    line : int, FileLine or None
        The user line it ran on.
    seq : int
        Order among recorded calls.
    grad_enabled : bool
        Grad mode then (off: the cut is ``no_grad``'s, not the op's).
    source : weakref to Tensor
        The tensor that required grad (alive while the program holds it).
    source_line : int, FileLine or None
        Where that tensor was made, when the recorder saw it.
    """

    op: str
    line: Any
    seq: int
    grad_enabled: bool
    source: Any
    source_line: Any


class TensorOrigin(NamedTuple):
    """Where a tensor object came from: one recorded torch call.

    A named tuple, not a dataclass: one is made per recorded call, on the hot
    path, and a tuple is several times cheaper to build. The tensor it was
    made from (detached, viewed, read through ``.data``) is held weakly by the
    recorder: see :meth:`Recorder.source_of`.

    Attributes
    ----------
    seq : int
        Order among recorded calls (0, 1, 2, ...).
    op : str
        The torch function's name, e.g. ``"mul"``, ``"add_"``, ``"linear"``.
    line : int, FileLine or None
        Innermost user-code line on the stack when the op ran (an ``int`` is a
        line of the program; a :class:`FileLine` one of another project file).
    grad_enabled, inference_mode : bool
        ``torch.is_grad_enabled()`` / ``torch.is_inference_mode_enabled()`` then.
    module : int or None
        ``id()`` of the innermost ``nn.Module`` whose forward was running
        (see :attr:`Recorder.modules`), or None outside any module.
    """

    seq: int
    op: str
    line: int | FileLine | None
    grad_enabled: bool
    inference_mode: bool
    module: int | None = None


class FileLine(NamedTuple):
    """A line of a project file other than the program: where an op was made in ``model.py``.

    A named tuple (made on the hot path, for ops made in the project's other
    files). See :mod:`gradexplorer.core.capture.project`.

    Attributes
    ----------
    file : str
        The path relative to the project folder, with ``/`` (``"pkg/model.py"``).
    path : str
        The file's own path (the frame's ``co_filename``).
    line : int
    """

    file: str
    path: str
    line: int


class OpRecord:
    """One autograd node created by the user's code (filled while running).

    ``call`` is the :class:`TensorOrigin` of the torch call that made it;
    ``outputs`` maps each ``output_nr`` to its forward value at creation time.
    """

    __slots__ = ("call", "outputs")

    def __init__(self, call: TensorOrigin) -> None:
        self.call = call
        self.outputs: dict[int, PendingRecord] = {}


@dataclass
class HookCall:
    """One call of a hook during a pass: the gradient before and after.

    ``after`` is None when the gradient is unchanged (compared by value);
    ``in_place`` says the hook changed it in place rather than by returning a
    new one.
    """

    pass_index: int | None
    before: tuple[PendingRecord | None, ...]
    after: tuple[PendingRecord | None, ...] | None
    in_place: bool = False
    error: str | None = None


@dataclass
class HookInfo:
    """A hook the user registered.

    Attributes
    ----------
    kind : str
        ``"tensor"`` (``Tensor.register_hook``), ``"retain_grad"``,
        ``"node_post"`` (``Node.register_hook``), ``"node_pre"``
        (``Node.register_prehook``) or ``"post_accumulate"``
        (``Tensor.register_post_accumulate_grad_hook``, which optimizers use).
    library : bool
        Registered by library code (torch's module hooks, an optimizer), not
        by a line of the user's code.
    qualname : str
        The hook function's ``__qualname__`` (``save_grad.<locals>.hook``).
    node : Node
        The autograd node the hook belongs to (the tensor's ``grad_fn`` or its
        gradient accumulator).
    output_nr : int
        Which output of ``node`` a tensor hook watches.
    line : int, FileLine or None
        The user line that registered it (see :class:`TensorOrigin`).
    calls : list of HookCall
    """

    kind: str
    qualname: str
    node: Node
    output_nr: int
    line: int | FileLine | None
    calls: list[HookCall] = field(default_factory=list)
    library: bool = False


@dataclass
class PassRecord:
    """One backward pass (``backward`` or ``autograd.grad``) the code ran.

    Attributes
    ----------
    index : int
        0-based pass number.
    kind : str
        ``"backward"`` or ``"grad"``.
    line : int, FileLine or None
        The user line that started it (see :class:`TensorOrigin`).
    roots : list of (Node, int)
        Gradient edges of the tensors the pass started from.
    inputs : list of (Node, int)
        Gradient edges of ``inputs=`` (``autograd.grad``, or ``backward(inputs=...)``).
    retain_graph, create_graph : bool
    node_grads : dict
        ``Node -> (grads w.r.t. inputs, grads w.r.t. outputs)``, the raw
        tensor tuples gradexplorer's own post hooks saw, in run order.
    results : tuple of PendingRecord or None
        What ``autograd.grad`` returned.
    error : str or None
        The exception text if the pass raised.
    root_ids : list of int
        ``id()`` of the tensors the pass was called on, even those that do not
        require grad (so that a failed ``b.backward()`` can be told about
        ``b``); resolve them with :meth:`Recorder.pass_root_tensors`, which
        checks them against the recorder's weak references. (A second weak
        reference to the root of a 100,000-op chain made its deallocation
        crash in torch 2.13.)
    reachable : dict of Node to None
        Every node on the pass's graph (reachable from its roots), in walk
        order. A dict, not a set: torch 2.13 crashes freeing a 100,000-node
        chain whose Python node wrappers are released in hash order.
    leaf_grads : dict
        ``AccumulateGrad node -> [.grad before, .grad after]`` as copies
        (None where ``.grad`` was None), for every accumulator the pass could
        reach and every parameter of a module that ran.
    thread : str or None
        The name of the thread that ran it, when not the capture's own.
    node_threads : dict of Node to str
        The nodes the engine ran on another thread than the one that started
        the pass (a device's own engine thread: each CUDA device gets one), by
        the name Python gives that thread; empty when the pass ran on one
        thread (every CPU-only pass). Filled by the taps
        (:class:`_PassGradients`).
    raised_at : Node or None
        For a pass that raised: the node the engine was running when it did
        (its gradient was handed to it; :func:`~gradexplorer.core.capture.backward_passes.note_raising_node`).
    """

    index: int
    kind: str
    line: int | FileLine | None
    roots: list[tuple[Node, int]]
    inputs: list[tuple[Node, int]]
    retain_graph: bool
    create_graph: bool
    node_grads: dict[Node, tuple[tuple, tuple]] = field(default_factory=lambda: _PassGradients())
    results: tuple[PendingRecord | None, ...] = ()
    error: str | None = None
    root_ids: list[int] = field(default_factory=list)
    reachable: dict = field(default_factory=dict)
    leaf_grads: dict[Node, list] = field(default_factory=dict)
    thread: str | None = None
    raised_at: Node | None = None

    @property
    def node_threads(self) -> dict[Node, str]:
        return self.node_grads.threads


class _PassGradients(dict):
    """A pass's ``node -> gradients`` (in the order the engine ran the nodes) and the threads that ran them.

    The taps fire on the thread that ran their node: the thread that called
    ``backward()`` for CPU work, a device's own engine thread for a CUDA
    device's nodes. ``home`` is the thread that started the pass; a node
    stored from another one is noted in ``threads`` with that thread's name.
    """

    __slots__ = ("home", "threads")

    def __init__(self) -> None:
        super().__init__()
        self.home = threading.get_ident()  # made in the call that starts the pass (Recorder._run_pass)
        self.threads: dict[Node, str] = {}

    def __setitem__(self, node, grads) -> None:
        if threading.get_ident() != self.home:
            self.threads[node] = threading.current_thread().name
        super().__setitem__(node, grads)

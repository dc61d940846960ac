"""Record what the user's code does to autograd while it runs.

:class:`Recorder` is a :class:`torch.overrides.TorchFunctionMode`. PyTorch
calls its ``__torch_function__`` for every torch function and ``Tensor``
method the user's code calls (and the library code it calls), in the thread
that pushed the mode only: torch function modes are thread-local, so a GUI
thread running torch at the same time is not recorded. For each call it

* records, for every output tensor that has a ``grad_fn``, the node, the
  output's ``output_nr``, the forward value *at that moment* (through a
  :class:`~gradexplorer.core.records.tensors.SnapshotBuffer`), grad mode and
  inference mode, and the innermost line of the user's code on the stack;
* remembers where every other output tensor came from (``detach``, ``.data``,
  ops under ``no_grad``), weakly, for the explanations;
* turns every ``Tensor.backward``, ``torch.autograd.backward`` and
  ``torch.autograd.grad`` call into a :class:`PassRecord`: just before the
  pass it registers a post hook (``Node.register_hook``) on every node
  reachable from the pass's roots, so that each node learns the gradients
  w.r.t. its outputs and its inputs in that pass; the hooks return ``None``
  (so they never change a gradient) and are removed right after the pass;
* wraps user hooks (``Tensor.register_hook``, ``retain_grad``, and, through a
  source rewrite of the user's code, ``Node.register_hook`` /
  ``Node.register_prehook``) so that each call's gradient before and after the
  hook is recorded.

Per-pass accounting at the leaves: PyTorch adds each pass's gradient to a
leaf's ``.grad``, often *in place* into the very tensor an earlier pass
stored there, so ``.grad`` alone cannot tell what one pass delivered. For every
gradient accumulator a pass can reach (and every parameter of a module that
ran, which a reentrant checkpoint fills from an inner pass) the recorder copies
``.grad`` just before and just after the pass, and the accumulator's tap
copies the gradient it was handed. Those three facts are what
:mod:`gradexplorer.core.analysis.accounting` turns into reason codes.

Threads: the mode is thread-local, so a ``threading.Thread`` that the user's
code starts would be invisible. While a capture runs, ``Thread.start`` is
patched (process-wide, routed by thread like the other patches) so that a
thread started by a capturing thread runs its target under the same recorder.

Library-internal autograd: ``autograd.grad`` / ``backward`` calls made from
inside torch itself (``torch.func``, ``torch.utils.checkpoint``) are not user
passes: they run untapped and unrecorded, and what they leave in ``.grad`` is
seen by the enclosing user pass's before/after copies. Ops on functorch's
wrapped tensors (inside ``torch.func.grad``/``vmap``) are not recorded either.

Inside ``__torch_function__`` PyTorch disables the mode, so the torch calls
made by gradexplorer itself (copies, hooks) are never recorded.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import functools
import inspect
import itertools
import operator
import os
import sys
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import torch
from torch.autograd.graph import Node
from torch.overrides import TorchFunctionMode

from ..graph.autograd_nodes import edge_of, grad_fn_of, is_accumulator
from ..records.errors import CaptureStopped
from ..records.tensors import GradientSummaries, PendingRecord, SnapshotBuffer, TensorRecord

if TYPE_CHECKING:
    from .project import Project

__all__ = [
    "ESCAPING_CALLS",
    "HOOK_HELPER_NAME",
    "GraphCut",
    "HookCall",
    "HookInfo",
    "OpRecord",
    "PassRecord",
    "Recorder",
    "TensorOrigin",
    "FileLine",
    "rewrite_node_hook_calls",
    "route_node_hook",
]

#: The name under which the hook helper is injected into the user's namespace.
HOOK_HELPER_NAME = "__gradexplorer_hook__"

#: Property getters worth recording: they make new tensors (views or aliases).
_RECORDED_GETTERS = frozenset({"data", "T", "mT", "H", "mH", "real", "imag"})

#: In-place operators that do not end in "_" (``x += 1``, ``x[0] = 5``).
_INPLACE_DUNDERS = frozenset({
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
    "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__", "__setitem__",
})

_BACKWARD_FUNCS = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)
_post_accumulate_register = torch.Tensor.register_post_accumulate_grad_hook

#: Files of torch's own package: a backward call made from there is library-internal.
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
#: The API wrappers a user's backward call passes through before the mode sees it.
_PASS_WRAPPERS = (
    os.path.join(_TORCH_DIR, "overrides.py"),
    os.path.join(_TORCH_DIR, "_tensor.py"),
    os.path.join(_TORCH_DIR, "autograd", "__init__.py"),
)
_THIS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_functorch_active = torch._C._are_functorch_transforms_active
_is_compiling = torch.compiler.is_compiling


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


#: The recorder keeps the latest this many escapes (a loop calling loss.item() every step makes one per step).
_KEPT_ESCAPES = 1000
#: The cut table is cleaned of dead tensors when it reaches this many entries (then twice what is left).
_CUTS_KEPT = 10_000
#: Calls that make a tensor from Python numbers or a NumPy array.
_FROM_PYTHON = frozenset({"tensor", "as_tensor", "asarray", "from_numpy", "scalar_tensor"})
#: Calls whose result carries a tensor's values out of autograd (a Python number, list or NumPy array).
ESCAPING_CALLS = frozenset({"item", "tolist", "numpy", "__float__", "__int__", "__bool__"})


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
        (its gradient was handed to it; :meth:`Recorder._note_raising_node`).
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


class _GradTap:
    """gradexplorer's own post hook: keeps a node's gradients of one pass.

    It returns ``None``, which tells autograd to keep the gradients as they
    are, so it can never change a result. It stores the tuples autograd
    passes in (this runs once per node per pass), with each tensor over the
    value cap replaced by its record, made now (:class:`GradientSummaries`:
    holding them all for later is what made a large capture's memory several
    times the program's); the graph build turns the rest into records,
    sharing one record per tensor (a node's input gradient is often the very
    tensor its child receives). Holding the small tensors is safe: autograd
    never accumulates in place into a gradient someone else references.
    """

    __slots__ = ("node", "grads", "summaries")
    __gradexplorer__ = True

    def __init__(self, node: Node, grads: dict, summaries: GradientSummaries) -> None:
        self.node = node
        self.grads = grads
        self.summaries = summaries

    def __call__(self, grad_inputs, grad_outputs):
        # Insertion order of ``grads`` is the order autograd ran the nodes in.
        summaries = self.summaries
        self.grads[self.node] = (summaries(grad_inputs), summaries(grad_outputs))
        return None


class _LeafTap(_GradTap):
    """The tap of a gradient accumulator: keeps a *copy* of what it was handed.

    AccumulateGrad may store the incoming tensor itself as ``.grad`` (when
    nothing else references it) and a later pass then adds into it in place
    (``variable_grad += new_grad`` in torch's accumulate_grad.h), so a
    reference would show the final sum for the first pass. Copies over the
    value cap too, unlike :class:`_GradTap`: the leaf's pass-by-pass account
    adds them to ``.grad`` before the pass to tell "added" from "changed"
    (one copy per parameter and pass, what the program's ``.grad`` holds).
    """

    __slots__ = ()

    def __call__(self, grad_inputs, grad_outputs):
        self.grads[self.node] = (grad_inputs, tuple(
            None if g is None else g.detach().clone() for g in grad_outputs))
        return None


def _summed(tensors: list | None):
    """What autograd's input buffer holds for one output: the gradients sent to it, added up.

    A gradient over the value cap was kept as its record (:class:`GradientSummaries`): one alone is
    the sum; several cannot be added up any more, and the record made says so.
    """
    if not tensors:
        return None
    if len(tensors) == 1 or not any(type(t) is TensorRecord for t in tensors):
        return functools.reduce(operator.add, tensors)
    kept = next(t for t in tensors if type(t) is TensorRecord)  # every one has the slot's shape and dtype
    return TensorRecord(kept.shape, kept.dtype, kept.device, False, None, None,
                        f"the sum of the {len(tensors)} gradients sent here: they were over the value cap, "
                        "kept as statistics only, so their sum is not known")


def _copy_grad(t) -> torch.Tensor | None:
    """A detached copy of ``t.grad`` now (None when it is None)."""
    grad = t.grad
    return None if grad is None else grad.detach().clone()


def _qualname(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return name if module in (None, "__main__", "builtins") else f"{module}.{name}"


def _tensor_args(value: Any) -> list[torch.Tensor]:
    """Flatten a tensor or a sequence of tensors (backward's ``tensors`` argument)."""
    if value is None:
        return []
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


class _NodeHookRewriter(ast.NodeTransformer):
    """Rewrite ``X.register_hook(f)`` / ``X.register_prehook(f)`` calls.

    ``Node.register_hook`` is a C method of each node type, which cannot be
    patched; rewriting the user's own calls is the only way to learn about
    node hooks. ``X`` is evaluated once, as before; for a tensor the helper
    simply calls the method (the torch function mode records it).
    """

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("register_hook", "register_prehook"):
            new = ast.Call(
                func=ast.Name(id=HOOK_HELPER_NAME, ctx=ast.Load()),
                args=[func.value, ast.Constant(func.attr), *node.args],
                keywords=node.keywords,
            )
            return ast.copy_location(new, node)
        return node


def rewrite_node_hook_calls(tree: ast.Module) -> ast.Module:
    """Return ``tree`` with node-hook registrations routed through the helper."""
    return ast.fix_missing_locations(_NodeHookRewriter().visit(tree))


def route_node_hook(obj, method: str, *args, **kwargs):
    """The hook helper of the project's other modules (``model.py``): the capturing thread's recorder's.

    A project module is compiled with the same rewrite as the program
    (:func:`rewrite_node_hook_calls`) but may outlive the run (a class it
    defines, a thread): called where no capture runs, it is the plain call.
    """
    recorder = _apply_recorders.get(threading.get_ident())
    if recorder is None or recorder.closed:
        return getattr(obj, method)(*args, **kwargs)
    return recorder.register_via_helper(obj, method, *args, **kwargs)


_apply_lock = threading.Lock()
_apply_recorders: dict[int, Recorder] = {}
_original_apply = torch.autograd.Function.__dict__["apply"]


def _recording_apply(cls, *args, **kwargs):
    """``torch.autograd.Function.apply`` that reports custom Functions' outputs.

    ``Function.apply`` does not go through ``__torch_function__``, so custom
    Functions would be invisible to the mode. The patch is process-wide but
    routes by thread: only a thread that is capturing records anything.
    """
    out = _original_apply.__get__(None, cls)(*args, **kwargs)
    recorder = _apply_recorders.get(threading.get_ident())
    if recorder is not None:
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        recorder._record_outputs(f"{cls.__name__}.apply", outputs, args, new_origin=True)
    return out


def _module_entered(module, args):
    """Global module forward pre-hook: push the module on the capturing thread's stack."""
    recorder = _apply_recorders.get(threading.get_ident())
    if recorder is not None:
        recorder.module_stack.append(id(module))
        recorder.modules[id(module)] = module


def _module_left(module, args, output):
    """Global module forward hook: pop the module (and anything an exception left above it)."""
    recorder = _apply_recorders.get(threading.get_ident())
    if recorder is not None:
        stack = recorder.module_stack
        key = id(module)
        while stack:
            if stack.pop() == key:
                break


_original_parameter_new = torch.nn.Parameter.__dict__["__new__"]


def _recording_parameter_new(cls, *args, **kwargs):
    """``nn.Parameter.__new__`` that notes where the parameter was made.

    ``Tensor._make_subclass`` does not go through ``__torch_function__``:
    without this a parameter's first recorded op is often ``opt.step()``'s
    in-place update, and its source line was that. A module's deep copies
    (``nn.TransformerEncoder`` clones its layer) make their parameters here
    too: their line is where the module was built.
    """
    param = _original_parameter_new.__func__(cls, *args, **kwargs)
    recorder = _apply_recorders.get(threading.get_ident())
    if recorder is not None and not recorder.closed:
        recorder._note_made(param, "Parameter")
    return param


_global_handles: list[Any] = []
_original_thread_start = threading.Thread.start
_custom_node_type = torch.autograd.function.BackwardCFunction
_original_node_register = {name: _custom_node_type.__dict__.get(name) for name in ("register_hook", "register_prehook")}


def _following_thread_start(thread: threading.Thread) -> None:
    """``Thread.start`` that lets a thread started by a capturing thread be recorded too.

    The target runs under the same :class:`Recorder` (its mode pushed in the
    new thread, whose grad mode starts enabled as in any new thread), so its
    ops and passes are recorded; threads it starts are followed in turn.
    """
    recorder = _apply_recorders.get(threading.get_ident())
    if recorder is not None and not recorder.closed and not getattr(thread, "_gradexplorer_followed", False):
        thread._gradexplorer_followed = True
        run = thread.run

        def followed_run():
            try:
                with recorder.following_thread():
                    run()
            except CaptureStopped:  # Stop or closing the window interrupted it (process_state): not an error
                pass

        thread.run = followed_run
    _original_thread_start(thread)


def _register_custom_node_hook(kind: str):
    original = getattr(torch._C._FunctionBase, "register_hook" if kind == "node_post" else "register_prehook")

    def register(node, hook, *args, **kwargs):
        """``BackwardCFunction.register_(pre)hook`` that sees library-registered node hooks.

        A C++ node's ``register_hook`` cannot be patched, but custom Function
        nodes are Python classes; torch's module backward hooks
        (``register_full_backward_hook``) register theirs on such nodes.
        """
        recorder = _apply_recorders.get(threading.get_ident())
        if recorder is not None and not recorder.closed and not getattr(hook, "__gradexplorer__", False) \
                and not getattr(hook, "_gradexplorer_wrapped", False):
            info = HookInfo(kind, _qualname(hook), node, 0, recorder.user_line(), library=True)
            recorder.hooks.append(info)
            hook = recorder._wrap(info, hook)
        return original(node, hook, *args, **kwargs)

    return register


class Recorder(TorchFunctionMode):
    """The torch function mode that records ops, passes and hooks.

    Parameters
    ----------
    filename : str
        The filename the user's code was compiled with; frames with this
        filename are "user frames".
    snapshots : SnapshotBuffer
        Takes the forward values and gradients.
    max_ops : int
        Record at most this many nodes; later ones are counted in
        ``dropped_ops`` but not recorded (bounds memory on endless loops).
    thread_context : callable, optional
        Returns a context manager entered in every thread the user's code
        starts (the capture routes that thread's output and sets its default
        device with it).
    """

    def __init__(self, *, filename: str, snapshots: SnapshotBuffer, max_ops: int = 500_000,
                 thread_context: Callable[[], Any] | None = None, project: Project | None = None) -> None:
        super().__init__()
        self.thread_context = thread_context
        #: Which other files are the user's (``model.py`` beside the script); None: the program only.
        self.project = project
        #: The last frame of each user function that ran an op or a pass (its locals at the end are
        #: the function's final ones: a frame object keeps them once the function returns).
        self.frames: dict[Any, Any] = {}
        self._last_frame = None
        #: Where :meth:`_note_frames` stops going outwards: the program's own code object (``capture``),
        #: or the frame a recording started in (``record``).
        self.outer_code = None
        self.outer_frame = None
        #: True once the capture has ended: threads still running stop recording.
        self.closed = False
        #: Where the code turned ``requires_grad`` off (``requires_grad_(False)``, ``.requires_grad = False``).
        self.grad_switched_off = TensorLines()
        #: Gradient tensors autograd handed to hooks, with the hook's line.
        self.hook_gradients = TensorLines()
        #: Tensors ``torch.autograd.grad`` returned, with the call's line.
        self.grad_results = TensorLines()
        self.filename = filename
        self.snapshots = snapshots
        self.max_ops = max_ops
        self.thread_id = threading.get_ident()
        self.ops: dict[Node, OpRecord] = {}
        # id(tensor) -> (weakref to it, origin, weakref to its source or None).
        # A plain dict with a weakref check is several times cheaper per op
        # than WeakIdKeyDictionary; a dead entry whose id Python reuses fails
        # the identity check and is overwritten.
        self._origins: dict[int, tuple[weakref.ref, TensorOrigin, weakref.ref | None]] = {}
        #: Tensors without a graph computed (with grad mode on) from tensors that require grad, through a
        #: step with no derivative (argmax, a comparison, sampling, detach), and what was computed from
        #: them: id(tensor) -> (weakref to it, the :class:`GraphCut` at the start of that chain).
        self._cuts: dict[int, tuple[weakref.ref, GraphCut]] = {}
        self._cuts_limit = _CUTS_KEPT
        #: Values that left autograd as Python numbers or NumPy arrays (``.item()``, ``.tolist()``,
        #: ``.numpy()`` of a tensor that requires grad), in order.
        self.escapes: collections.deque[GraphCut] = collections.deque(maxlen=_KEPT_ESCAPES)
        self.passes: list[PassRecord] = []
        self.hooks: list[HookInfo] = []
        self.dropped_ops = 0
        self.active_pass: PassRecord | None = None
        self._seq = itertools.count()
        #: ids of the modules whose forward is running, innermost last.
        self.module_stack: list[int] = []
        #: every module that ran, by id (kept alive so that ids stay unique).
        self.modules: dict[int, Any] = {}

    @staticmethod
    def _install_patches() -> None:
        """Process-wide patches, routed by thread (see the module docstring). Under ``_apply_lock``."""
        torch.autograd.Function.apply = classmethod(_recording_apply)
        _global_handles.append(torch.nn.modules.module.register_module_forward_pre_hook(_module_entered))
        _global_handles.append(torch.nn.modules.module.register_module_forward_hook(_module_left))
        threading.Thread.start = _following_thread_start
        torch.nn.Parameter.__new__ = staticmethod(_recording_parameter_new)
        _custom_node_type.register_hook = _register_custom_node_hook("node_post")
        _custom_node_type.register_prehook = _register_custom_node_hook("node_pre")

    @staticmethod
    def _remove_patches() -> None:
        torch.autograd.Function.apply = _original_apply
        while _global_handles:
            _global_handles.pop().remove()
        threading.Thread.start = _original_thread_start
        torch.nn.Parameter.__new__ = _original_parameter_new
        for name, original in _original_node_register.items():
            if original is None:
                with contextlib.suppress(AttributeError):
                    delattr(_custom_node_type, name)
            else:
                setattr(_custom_node_type, name, original)

    def _route(self, ident: int) -> None:
        with _apply_lock:
            if not _apply_recorders:
                self._install_patches()
            _apply_recorders[ident] = self

    def _unroute(self, ident: int) -> None:
        with _apply_lock:
            if _apply_recorders.get(ident) is self:
                del _apply_recorders[ident]
            if not _apply_recorders:
                self._remove_patches()

    def __enter__(self):
        self._route(self.thread_id)
        return super().__enter__()

    def __exit__(self, *exc_info):
        try:
            return super().__exit__(*exc_info)
        finally:
            self.closed = True
            self._last_frame = None  # the program's module frame, whose callers hold the capture's own
            self._unroute(self.thread_id)

    def release_frames(self) -> None:
        """Let go of the kept frames (once their names are read).

        A kept frame leads through its callers to the frame of
        :func:`~gradexplorer.core.capture.run.capture`, which holds this
        recorder: a reference cycle until this is called.
        """
        self.frames.clear()
        self._last_frame = None

    def release_graph(self) -> None:
        """Let the recorded autograd nodes go, newest first, once the program's own references are gone.

        Once Python has touched a node (``grad_fn``, ``next_functions``), the
        node is freed through its Python wrapper, and freeing the head of a
        chain frees the next node from inside that call, and so on: plain
        PyTorch frees a 300,000-op chain iteratively, but one whose wrappers
        exist overflowed the C stack at about 45,000 ops (SIGSEGV). Freed
        newest first while the recorder still holds every older node, each
        node's release stops at the next node (held here): one level deep.
        Call it after the program's globals and frames are emptied; what
        else of the run could hold a node (passes, hooks, kept tensors) goes
        first.
        """
        ops, self.ops = self.ops, {}
        self.release_frames()
        self.passes, self.hooks, self.active_pass = [], [], None
        self.grad_switched_off, self.hook_gradients, self.grad_results = TensorLines(), TensorLines(), TensorLines()
        self._origins, self._cuts = {}, {}
        self.escapes.clear()
        # Not self.modules: they go after the nodes, with the recorder. Freed before them, a
        # DistributedDataParallel whose process group the program had destroyed joined gloo's threads
        # with the GIL held while one of them waited for it (the suite hung, in test_explain's DDP row).
        while ops:
            ops.popitem()  # the newest first (a dict pops in reverse insertion order)

    @contextlib.contextmanager
    def following_thread(self):
        """Record the calling thread (one the user's code started) into this recorder."""
        ident = threading.get_ident()
        context = self.thread_context() if self.thread_context is not None else contextlib.nullcontext()
        self._route(ident)
        try:
            with context, _ThreadMode(self):
                yield
        finally:
            self._unroute(ident)

    # -- where are we in the user's code -------------------------------------------------
    def user_line(self) -> int | FileLine | None:
        """Where the innermost frame of the user's code is: a line of the program, or a :class:`FileLine`.

        A line of the program itself is a plain ``int`` (the common case, on
        the hot path); a line of another project file (``model.py``'s
        ``forward``) is a :class:`~gradexplorer.core.capture.project.FileLine`.
        The frames of the user's functions on the way are kept for their
        names (:meth:`_note_frames`).
        """
        frame = sys._getframe(1)
        filename = self.filename
        project = self.project
        # The project's cache read inline (this runs for every frame under every op).
        known = project.known_files if project is not None else None
        while frame is not None:
            co_filename = frame.f_code.co_filename
            if co_filename == filename:
                if frame is not self._last_frame:
                    self._note_frames(frame)
                return frame.f_lineno
            if project is not None:
                shown = known.get(co_filename, False)
                if shown is False:
                    shown = project.shown_path(co_filename)
                if shown is not None:
                    if frame is not self._last_frame:
                        self._note_frames(frame)
                    return FileLine(shown, co_filename, frame.f_lineno)
            frame = frame.f_back
        return None

    def _note_frames(self, frame) -> None:
        """Keep the frames of the user's functions from ``frame`` outwards (their locals hold names).

        The last frame of each function's code is kept: holding a frame
        object keeps its locals as they are when the function returns, so
        ``model`` in ``main()`` is still there when the program ends. The
        walk stops at a frame kept already (its callers were kept with it)
        and at the program's module level, whose names are the globals.
        """
        self._last_frame = frame
        frames = self.frames
        filename, project = self.filename, self.project
        outer_code, outer_frame = self.outer_code, self.outer_frame
        while frame is not None and frame is not outer_frame:
            code = frame.f_code
            if code is outer_code or frames.get(code) is frame:
                return
            co_filename = code.co_filename
            if (co_filename == filename or (project is not None and project.shown_path(co_filename) is not None)) \
                    and code.co_name != "<module>":
                frames[code] = frame
            frame = frame.f_back

    # -- the mode -----------------------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if self.closed or _is_compiling():
            # Inside torch.compile's tracing the mode must be transparent:
            # anything else changes what dynamo captures (and so the
            # program's results). A compiled region shows as its one
            # CompiledFunctionBackward node.
            return func(*args, **kwargs)
        if func in _BACKWARD_FUNCS:
            return self._run_pass(func, args, kwargs)
        if func is torch.Tensor.register_hook:
            return self._register_tensor_hook(args, kwargs)
        if func is _post_accumulate_register:
            return self._register_post_accumulate_hook(args, kwargs)
        name = getattr(func, "__name__", "")
        if (name[-1:] == "_" and name[-2:] != "__") or name in _INPLACE_DUNDERS or "out" in kwargs \
                or kwargs.get("inplace") is True:
            # F.relu(t, inplace=True), nn.ReLU(inplace=True), F.dropout(..., inplace=True) and the
            # other functionals with ``inplace``: the mode sees the functional, never the relu_ inside.
            self._before_inplace(args, kwargs)
        out = func(*args, **kwargs)
        if _functorch_active():
            # Inside torch.func.grad / vmap: functorch's wrapped tensors and
            # internal nodes, not the user's graph.
            return out
        if name == "__get__":
            name = getattr(getattr(func, "__self__", None), "__name__", "")
            if name not in _RECORDED_GETTERS:
                return out
            if name == "data" and isinstance(out, torch.Tensor):
                self.snapshots.alias(out, args[0])
        elif name == "detach" and isinstance(out, torch.Tensor) and args:
            self.snapshots.alias(out, args[0])
        elif name == "__set__" or name == "retain_grad" or name == "requires_grad_":
            if name == "retain_grad" and args:
                self._note_retain_grad(args[0])
            elif name == "requires_grad_" and args and isinstance(args[0], torch.Tensor):
                self._note_requires_grad(args[0])
            elif name == "__set__" and len(args) >= 2 and isinstance(args[0], torch.Tensor) \
                    and getattr(getattr(func, "__self__", None), "__name__", "") == "requires_grad":
                self._note_requires_grad(args[0])
            return out
        if isinstance(out, torch.Tensor):
            self._record_outputs(name, (out,), args)
        elif isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
            self._record_outputs(name, out, args)
        elif name in ESCAPING_CALLS and args and isinstance(args[0], torch.Tensor):
            self._note_escape(name, args[0])
        return out

    def _before_inplace(self, args, kwargs) -> None:
        """Freeze recorded values that share memory with the op's target."""
        # nn.init.normal_(tensor=...) and friends pass their target by keyword.
        target = kwargs.get("out", args[0] if args else kwargs.get("input", kwargs.get("tensor")))
        targets = target if isinstance(target, (list, tuple)) else (target,)
        for t in targets:
            if isinstance(t, torch.Tensor):
                self.snapshots.before_inplace(t)

    def _record_outputs(self, op: str, outputs, args, *, new_origin: bool = False) -> None:
        stack = self.module_stack
        call = TensorOrigin(next(self._seq), op, self.user_line(), torch.is_grad_enabled(),
                            torch.is_inference_mode_enabled(), stack[-1] if stack else None)
        source = args[0] if args and isinstance(args[0], torch.Tensor) else None
        origins = self._origins
        for out in outputs:
            if not isinstance(out, torch.Tensor):
                continue
            try:
                node = out.grad_fn
            except RuntimeError:  # a view made under no_grad, changed in place since (see grad_fn_of)
                node = None
            entry = origins.get(id(out))
            if new_origin or entry is None or entry[0]() is not out:
                # Weakly: a strong reference would keep every input alive.
                src = (weakref.ref(source) if source is not None and source is not out
                       and (node is None or out._is_view()) else None)
                origins[id(out)] = (weakref.ref(out), call, src)
            if node is None:
                if args and not out.requires_grad:
                    self._note_cut(out, call, args)
                continue
            record = self.ops.get(node)
            if record is None:
                if len(self.ops) >= self.max_ops:
                    self.dropped_ops += 1
                    continue
                record = self.ops[node] = OpRecord(call)
            nr = out.output_nr
            if nr not in record.outputs:
                record.outputs[nr] = self.snapshots.take(out)

    def _note_cut(self, out: torch.Tensor, call: TensorOrigin, args) -> None:
        """``out`` has no graph: if it was computed from a tensor that requires grad (the op has no derivative,
        or ran with grad mode off), or from such a tensor, remember where the chain was cut."""
        cuts = self._cuts
        cut = None
        for arg in args:
            if not isinstance(arg, torch.Tensor):
                continue
            if arg.requires_grad:
                made = self._entry(arg)
                cut = GraphCut(call.op, call.line, call.seq, call.grad_enabled, weakref.ref(arg),
                               None if made is None else made[1].line)
                break
            entry = cuts.get(id(arg))
            if entry is not None and entry[0]() is arg:
                cut = entry[1]
            elif cut is None and self.escapes and self._entry(arg) is None:
                # A tensor the recorder never saw made: torch.from_numpy(a) (invisible to the mode) after
                # a = w.detach().numpy()? A guess, told only for the root of a pass that raised.
                cut = self.escapes[-1]
        else:
            if call.op in _FROM_PYTHON and self.escapes:  # torch.tensor(x) after x = loss.item()?
                cut = self.escapes[-1]  # a guess: explanations use it only for a pass root that raised
        if cut is not None:
            if len(cuts) >= self._cuts_limit:  # a long loop: forget the tensors that are gone
                for key in [key for key, (ref, _) in cuts.items() if ref() is None]:
                    del cuts[key]
                self._cuts_limit = max(_CUTS_KEPT, 2 * len(cuts))
            cuts[id(out)] = (weakref.ref(out), cut)

    def _note_escape(self, op: str, tensor: torch.Tensor) -> None:
        """A value of a tensor that requires grad (or was cut from one: ``w.detach().numpy()``) left
        autograd (``.item()``, ``.tolist()``, ``.numpy()``)."""
        if tensor.requires_grad:
            made = self._entry(tensor)
            source, source_line = weakref.ref(tensor), None if made is None else made[1].line
        else:
            entry = self._cuts.get(id(tensor))
            if entry is None or entry[0]() is not tensor:
                return
            source, source_line = entry[1].source, entry[1].source_line
        self.escapes.append(GraphCut(op, self.user_line(), next(self._seq), torch.is_grad_enabled(), source,
                                     source_line))

    def cut_of(self, tensor: torch.Tensor) -> GraphCut | None:
        """Where the graph behind ``tensor`` (which has none) was cut, if the recorder saw it."""
        entry = self._cuts.get(id(tensor))
        return entry[1] if entry is not None and entry[0]() is tensor else None

    def _note_made(self, tensor: torch.Tensor, op: str) -> None:
        """Note where a tensor the mode cannot see being made was made (an ``nn.Parameter``)."""
        stack = self.module_stack
        self._origins[id(tensor)] = (weakref.ref(tensor), TensorOrigin(
            next(self._seq), op, self.user_line(), torch.is_grad_enabled(), torch.is_inference_mode_enabled(),
            stack[-1] if stack else None), None)

    # -- backward passes ----------------------------------------------------------------
    _signatures: dict[Any, inspect.Signature] = {}

    def _bind(self, func, args, kwargs) -> dict[str, Any]:
        sig = self._signatures.get(func)
        if sig is None:
            sig = self._signatures[func] = inspect.signature(func)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            return {}
        return dict(bound.arguments)

    def _internal_caller(self) -> str:
        """The torch module that made the backward call being handled, or "" for a user call.

        The first frame outside the API wrappers (``Tensor.backward``,
        ``torch.autograd.grad``, the override dispatch) and outside
        gradexplorer is the caller: under torch's own directory it is
        ``torch.func`` or a reentrant checkpoint, not the user.
        """
        frame = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith(_THIS_DIR) or filename in _PASS_WRAPPERS:
                frame = frame.f_back
                continue
            if not filename.startswith(_TORCH_DIR):
                return ""
            return "torch." + filename[len(_TORCH_DIR):].removesuffix(".py").replace(os.sep, ".").lstrip("_")
        return ""

    def _run_pass(self, func, args, kwargs):
        if self._internal_caller():
            return func(*args, **kwargs)
        params = self._bind(func, args, kwargs)
        if func is torch.autograd.grad:
            kind, root_tensors = "grad", _tensor_args(params.get("outputs"))
            input_tensors = _tensor_args(params.get("inputs"))
        elif func is torch.Tensor.backward:
            kind, root_tensors = "backward", _tensor_args(params.get("self"))
            input_tensors = _tensor_args(params.get("inputs"))
        else:
            kind, root_tensors = "backward", _tensor_args(params.get("tensors"))
            input_tensors = _tensor_args(params.get("inputs"))
        create_graph = bool(params.get("create_graph", False))
        retain = params.get("retain_graph")
        retain_graph = create_graph if retain is None else bool(retain)
        roots = [e for e in map(edge_of, root_tensors) if e is not None]
        inputs = [e for e in map(edge_of, input_tensors) if e is not None]
        thread = None if threading.get_ident() == self.thread_id else threading.current_thread().name
        record = PassRecord(len(self.passes), kind, self.user_line(), roots, inputs, retain_graph, create_graph,
                            root_ids=[id(t) for t in root_tensors], thread=thread)
        self.passes.append(record)
        handles = self._hook_reachable(record)
        leaves = self._accounted_leaves(record)
        for node, var in leaves:
            record.leaf_grads[node] = [_copy_grad(var), None]
        previous, self.active_pass = self.active_pass, record
        try:
            result = func(*args, **kwargs)
        except BaseException as exc:
            record.error = f"{type(exc).__name__}: {exc}"
            self._note_raising_node(record)
            raise
        finally:
            self.active_pass = previous
            for handle in handles:
                handle.remove()
            for node, var in leaves:
                record.leaf_grads[node][1] = _copy_grad(var)
        if kind == "grad" and isinstance(result, tuple):
            take = self.snapshots.take_copy
            record.results = tuple(None if g is None else take(g) for g in result)
            for g in result:
                if isinstance(g, torch.Tensor):
                    self.grad_results.note(g, record.line)
                    if self._entry(g) is None:  # so that a later g.backward() can name it
                        self._origins[id(g)] = (weakref.ref(g), TensorOrigin(
                            next(self._seq), "autograd.grad", record.line, torch.is_grad_enabled(),
                            torch.is_inference_mode_enabled()), None)
        return result

    def _note_raising_node(self, record: PassRecord) -> None:
        """The node a pass raised in, and the gradient autograd had handed it (what a pre-hook would see).

        The taps are post hooks: they never fire for the node that raised
        ("modified by an inplace operation" is raised while it runs), yet the
        engine had summed its incoming gradient already. That sum is what its
        consumers sent it (their gradients w.r.t. their inputs, by
        ``next_functions`` slot), so it is rebuilt from their taps. The node is
        the one the engine would run next among those whose consumers all ran:
        its ready queue takes the highest sequence number first (AccumulateGrad
        before everything else). Runs only for a pass that raised.
        """
        grads = record.node_grads
        if not grads:
            return
        incoming: dict[Node, dict[int, list]] = {}
        for node, (grad_inputs, _) in grads.items():
            if grad_inputs is None:
                continue
            for (child, nr), grad in zip(node.next_functions, grad_inputs):
                if child is not None and child not in grads and isinstance(grad, (torch.Tensor, TensorRecord)):
                    incoming.setdefault(child, {}).setdefault(nr, []).append(grad)
        if not incoming:
            return
        consumers: dict[Node, list[Node]] = {}
        for node in record.reachable:
            for child, _ in node.next_functions:
                if child in incoming:
                    consumers.setdefault(child, []).append(node)
        # An accumulator that raised (a tensor hook on a leaf) is told by its hook and its .grad, not here.
        ready = [child for child in incoming if not is_accumulator(child)
                 and all(c in grads for c in consumers.get(child, ()))]
        if not ready:
            return
        node = max(ready, key=lambda n: n._sequence_nr())
        arrived = incoming[node]
        outputs = tuple(_summed(arrived.get(nr)) for nr in range(max(arrived) + 1))
        grads[node] = (None, outputs)
        record.raised_at = node

    def _accounted_leaves(self, record: PassRecord) -> list[tuple[Node, torch.Tensor]]:
        """Accumulators whose ``.grad`` the pass may change: reachable ones and module parameters."""
        leaves: dict[Node, torch.Tensor] = {}
        for node in record.reachable:
            if is_accumulator(node):
                leaves[node] = node.variable
        for module in list(self.modules.values()):
            for param in module.parameters(recurse=False):
                if param.requires_grad:
                    edge = edge_of(param)
                    if edge is not None and edge[0] not in leaves:
                        leaves[edge[0]] = param
        return list(leaves.items())

    def _hook_reachable(self, record: PassRecord) -> list[Any]:
        """Register a tap on every node reachable from the pass's roots."""
        handles = []
        seen = record.reachable
        grads = record.node_grads
        summaries = GradientSummaries(self.snapshots.value_elements)
        stack = [node for node, _ in record.roots]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen[node] = None
            tap = (_LeafTap if is_accumulator(node) else _GradTap)(node, grads, summaries)
            handles.append(node.register_hook(tap))
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    stack.append(child)
        return handles

    # -- user hooks ---------------------------------------------------------------------
    def _snapshot_grads(self, value) -> tuple[PendingRecord | None, ...]:
        # Copies: a hook runs inside backward, where the mode cannot see
        # (and protect against) in-place changes.
        take = self.snapshots.take_copy
        if isinstance(value, torch.Tensor):
            return (take(value),)
        if isinstance(value, (tuple, list)):
            return tuple(take(g) if isinstance(g, torch.Tensor) else None for g in value)
        return ()

    def _note_hook_gradients(self, grads) -> None:
        """Remember gradient tensors handed to a hook: a hook that keeps one names a gradient."""
        line = self.user_line()
        for g in grads:
            items = g if isinstance(g, (tuple, list)) else (g,)
            for t in items:
                if isinstance(t, torch.Tensor):
                    self.hook_gradients.note(t, line)

    def _wrap(self, info: HookInfo, hook):
        recorder = self

        def wrapped(*grads):
            # The first argument is what the hook may replace: the tensor's
            # gradient, a post hook's grad_inputs, a pre hook's grad_outputs.
            # Copy it before the call: the hook may change it in place, which
            # only a comparison by value can see.
            before = recorder._snapshot_grads(grads[0])
            recorder._note_hook_gradients(grads)
            index = recorder.active_pass.index if recorder.active_pass is not None else None
            try:
                result = hook(*grads)
            except BaseException as exc:
                # The pass stops here: say so on the hook's node.
                info.calls.append(HookCall(index, before, None, False, f"{type(exc).__name__}: {exc}"))
                raise
            if result is not None:
                after, in_place = recorder._snapshot_grads(result), False
                if _same_values(before, after):
                    after = None
            else:
                current = recorder._snapshot_grads(grads[0])
                in_place = not _same_values(before, current)
                after = current if in_place else None
            info.calls.append(HookCall(index, before, after, in_place))
            return result

        wrapped.__wrapped__ = hook
        wrapped._gradexplorer_wrapped = True
        wrapped.__qualname__ = getattr(hook, "__qualname__", "hook")
        return wrapped

    def _register_post_accumulate_hook(self, args, kwargs):
        """``Tensor.register_post_accumulate_grad_hook``: wrapped to see ``.grad`` before and after the hook."""
        tensor = args[0]
        hook = args[1] if len(args) > 1 else kwargs["hook"]
        edge = edge_of(tensor)
        if edge is None or getattr(hook, "_gradexplorer_wrapped", False):
            return _post_accumulate_register(tensor, hook)
        line = self.user_line()
        info = HookInfo("post_accumulate", _qualname(hook), edge[0], 0, line,
                        library=not self._called_from_user_code())
        self.hooks.append(info)
        recorder = self

        def wrapped(param):
            before = (None if param.grad is None else recorder.snapshots.take_copy(param.grad),)
            result = hook(param)
            after_grad = param.grad
            after = (None if after_grad is None else recorder.snapshots.take_copy(after_grad),)
            changed = not _same_values(before, after)
            index = recorder.active_pass.index if recorder.active_pass is not None else None
            info.calls.append(HookCall(index, before, after if changed else None, changed))
            return result

        wrapped._gradexplorer_wrapped = True
        wrapped.__wrapped__ = hook
        return _post_accumulate_register(tensor, wrapped)

    def _called_from_user_code(self) -> bool:
        """Whether the innermost frame outside torch and gradexplorer is the user's file."""
        frame = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename == self.filename or (self.project is not None and self.project.is_user_file(filename)):
                return True
            if not (filename.startswith(_THIS_DIR) or filename.startswith(_TORCH_DIR)):
                return False
            frame = frame.f_back
        return False

    def _note_requires_grad(self, tensor: torch.Tensor) -> None:
        if not tensor.requires_grad:
            self.grad_switched_off.note(tensor, self.user_line())
        else:
            self.grad_switched_off.drop(tensor)

    def _register_tensor_hook(self, args, kwargs):
        tensor = args[0]
        hook = args[1] if len(args) > 1 else kwargs["hook"]
        edge = edge_of(tensor)
        if edge is None:  # PyTorch raises its own clear error for this
            return torch.Tensor.register_hook(tensor, hook)
        info = HookInfo("tensor", _qualname(hook), edge[0], edge[1], self.user_line(),
                        library=not self._called_from_user_code())
        self.hooks.append(info)
        return torch.Tensor.register_hook(tensor, self._wrap(info, hook))

    def _note_retain_grad(self, tensor) -> None:
        edge = edge_of(tensor)
        if edge is not None and grad_fn_of(tensor) is not None:
            self.hooks.append(HookInfo("retain_grad", "Tensor.retain_grad", edge[0], edge[1], self.user_line()))

    def register_via_helper(self, obj, method: str, *args, **kwargs):
        """Run ``obj.<method>(*args)``, recording and wrapping node hooks.

        Injected into the user's namespace as :data:`HOOK_HELPER_NAME`; see
        :func:`rewrite_node_hook_calls`.
        """
        if isinstance(obj, torch.Tensor) or not isinstance(obj, Node) or not args:
            return getattr(obj, method)(*args, **kwargs)
        hook, rest = args[0], args[1:]
        kind = "node_post" if method == "register_hook" else "node_pre"
        info = HookInfo(kind, _qualname(hook), obj, 0, self.user_line())
        self.hooks.append(info)
        return getattr(obj, method)(self._wrap(info, hook), *rest, **kwargs)

    # -- reading results ----------------------------------------------------------------
    def _entry(self, tensor: torch.Tensor):
        entry = self._origins.get(id(tensor))
        return entry if entry is not None and entry[0]() is tensor else None

    def pass_root_tensors(self, record: PassRecord) -> list[torch.Tensor]:
        """The still-alive tensors a pass was called on (recorded ones only)."""
        alive = []
        for key in record.root_ids:
            entry = self._origins.get(key)
            tensor = entry[0]() if entry is not None else None
            if tensor is not None:
                alive.append(tensor)
        return alive

    def origin_of(self, tensor: torch.Tensor) -> TensorOrigin | None:
        """Where ``tensor`` was created, if the recorder saw it."""
        entry = self._entry(tensor)
        return None if entry is None else entry[1]

    def source_of(self, tensor: torch.Tensor) -> torch.Tensor | None:
        """The tensor ``tensor`` was made from (detached, viewed, ``.data``), if alive."""
        entry = self._entry(tensor)
        return None if entry is None or entry[2] is None else entry[2]()


class TensorLines:
    """Tensors the recorder noticed for one reason, each with a user line; held weakly.

    Keyed by ``id`` with a weak reference to check identity (a reused id of a
    dead tensor fails the check), like the recorder's origins.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref, int | None]] = {}

    def note(self, tensor: torch.Tensor, line: int | FileLine | None) -> None:
        self._entries[id(tensor)] = (weakref.ref(tensor), line)

    def drop(self, tensor: torch.Tensor) -> None:
        self._entries.pop(id(tensor), None)

    def line_of(self, tensor: torch.Tensor) -> tuple[bool, int | None]:
        """Whether ``tensor`` was noted, and the line noted with it."""
        entry = self._entries.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            return False, None
        return True, entry[1]


class _ThreadMode(TorchFunctionMode):
    """The recorder's mode, pushed in a thread the user's code started.

    A separate mode object per thread (modes live on per-thread stacks); it
    hands every call to the one :class:`Recorder`, whose state is shared.
    """

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self.recorder.__torch_function__(func, types, args, kwargs)


def _same_values(a: tuple, b: tuple) -> bool:
    """Whether two tuples of pending records hold the same values (NaN equals NaN)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is None or y is None:
            if x is not y:
                return False
            continue
        tx, ty = x._tensor, y._tensor
        if tx is None or ty is None:  # summarised at once (over the memory budget): compare records
            if x.resolve() != y.resolve():
                return False
            continue
        if tx.shape != ty.shape or tx.dtype != ty.dtype or not torch.equal(tx, ty):
            if not (tx.shape == ty.shape and tx.dtype == ty.dtype and tx.is_floating_point()
                    and bool(torch.isnan(tx).eq(torch.isnan(ty)).all())
                    and bool(torch.nan_to_num(tx).eq(torch.nan_to_num(ty)).all())):
                return False
    return True

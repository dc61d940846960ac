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

The passes are :mod:`~gradexplorer.core.capture.backward_passes`' work and the
user's hooks :mod:`~gradexplorer.core.capture.user_hooks`'; what all of them keep
is in :mod:`~gradexplorer.core.capture.trace_records`.

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
import itertools
import sys
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch.autograd.graph import Node
from torch.overrides import TorchFunctionMode

from ..records.errors import CaptureStopped
from ..records.tensors import SnapshotBuffer
from .backward_passes import BACKWARD_FUNCS, run_pass
from .trace_records import FileLine, GraphCut, HookCall, HookInfo, OpRecord, PassRecord, TensorOrigin
from .user_hooks import (POST_ACCUMULATE_REGISTER, hook_qualname, note_retain_grad, register_post_accumulate_hook,
                         register_tensor_hook, register_via_helper, wrap_hook)

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

_functorch_active = torch._C._are_functorch_transforms_active
_is_compiling = torch.compiler.is_compiling


#: The recorder keeps the latest this many escapes (a loop calling loss.item() every step makes one per step).
_KEPT_ESCAPES = 1000
#: The cut table is cleaned of dead tensors when it reaches this many entries (then twice what is left).
_CUTS_KEPT = 10_000
#: Calls that make a tensor from Python numbers or a NumPy array.
_FROM_PYTHON = frozenset({"tensor", "as_tensor", "asarray", "from_numpy", "scalar_tensor"})
#: Calls whose result carries a tensor's values out of autograd (a Python number, list or NumPy array).
ESCAPING_CALLS = frozenset({"item", "tolist", "numpy", "__float__", "__int__", "__bool__"})


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
    return register_via_helper(recorder, obj, method, *args, **kwargs)


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
            info = HookInfo(kind, hook_qualname(hook), node, 0, recorder.user_line(), library=True)
            recorder.hooks.append(info)
            hook = wrap_hook(recorder, info, hook)
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
        if func in BACKWARD_FUNCS:
            return run_pass(self, func, args, kwargs)
        if func is torch.Tensor.register_hook:
            return register_tensor_hook(self, args, kwargs)
        if func is POST_ACCUMULATE_REGISTER:
            return register_post_accumulate_hook(self, args, kwargs)
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
                note_retain_grad(self, args[0])
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

    # -- requires_grad switched off --------------------------------------------------------
    def _note_requires_grad(self, tensor: torch.Tensor) -> None:
        if not tensor.requires_grad:
            self.grad_switched_off.note(tensor, self.user_line())
        else:
            self.grad_switched_off.drop(tensor)

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

"""Run tensor code and return a frozen snapshot of what autograd did with it.

:func:`capture` is the core's entry point; the CLI and the GUI's worker call
it. It is synchronous and runs the user's code in the calling thread.

What a run looks like
---------------------
1. The device is resolved first (:func:`~gradexplorer.core.capture.devices.resolve_device`):
   a missing device raises :class:`DeviceUnavailableError` before anything runs.
2. The code is parsed with ``filename`` (so tracebacks carry the editor's
   line numbers). A ``SyntaxError`` returns a capture with an error of kind
   ``"syntax"`` and nothing executed.
3. The code runs in a fresh namespace holding ``device`` (a ``torch.device``),
   ``torch`` and ``nn`` (so snippets that never import torch run as written),
   with grad mode on, inference mode off, ``torch.device(device)`` as the
   default device for factory functions, and a
   :class:`~gradexplorer.core.capture.recording.Recorder` watching every torch call.
   Grad mode, inference mode, torch function modes and the default device are
   thread-local in PyTorch, so none of this leaks into other threads; the
   user's ``print`` output is routed by thread (:mod:`~gradexplorer.core.capture.streams`).
4. Whatever happened (success, an exception at line k, a Stop), the final
   namespace is searched for named tensors and modules and the graph is built
   from them and from every recorded backward pass, so a failed run keeps
   everything that existed before the failure.

The returned :class:`Capture` holds plain data only (records, strings, CPU
copies of small tensors, a networkx graph): no live user tensors, nodes or
exceptions, so it can cross threads, be saved, and does not keep GPU memory
alive.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import platform
import threading
import time
import traceback as tb_module
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx
import torch

from ..._version import __version__
from ..analysis.explain import Explanation, explain_capture
from ..analysis.modules import ModuleAudit, audit_modules
from ..collector import fewer_collections, freeze_survivors, paused_collection
from ..graph.autograd_nodes import grad_fn_of
from ..graph.build import CaptureGraph, SourceLine, build_graph, node_for_tensor, source_line
from ..records.errors import CaptureStopped, ErrorReport
from ..records.tensors import DEFAULT_VALUE_ELEMENTS, RecordMaker, SnapshotBuffer, TensorRecord, resolve_all
from . import process_state
from .devices import resolve_device
from .namespace import Bindings, find_bindings
from .recording import HOOK_HELPER_NAME, Recorder, rewrite_node_hook_calls
from .streams import DEFAULT_MAX_OUTPUT_CHARS, collect_output, routed_to

__all__ = ["Capture", "OriginRecord", "PassSummary", "ProgramRemains", "TensorInfo", "capture", "release_leftovers"]


@dataclass(frozen=True)
class OriginRecord:
    """How a named tensor was made: the op, the line, and the grad mode then."""

    op: str
    source: SourceLine | None
    grad_enabled: bool
    inference_mode: bool


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

    @property
    def name(self) -> str:
        """The first (top-level) name."""
        return self.names[0]


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
    restored : tuple of str
        What the program changed in the process (default dtype, working
        directory, a monkeypatched ``Tensor.backward``, ...) and was put back
        after it, and the threads it left running, one sentence each.
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
    restored: tuple[str, ...] = ()

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


def versions() -> dict[str, str]:
    """Versions that go into every capture and session file."""
    return {
        "gradexplorer": __version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "networkx": nx.__version__,
    }


def _syntax_report(exc: SyntaxError, lines: list[str]) -> ErrorReport:
    line = exc.lineno
    text = lines[line - 1] if line and 0 < line <= len(lines) else (exc.text or "")
    caret = " " * max((exc.offset or 1) - 1, 0) + "^"
    message = exc.msg
    trace = f'  File "{exc.filename}", line {line}\n    {text.rstrip()}\n    {caret}\n{type(exc).__name__}: {message}'
    return ErrorReport("syntax", type(exc).__name__, message, line, exc.offset, trace, ((line, "<module>"),) if line else ())


def _exception_report(exc: BaseException, filename: str, lines: list[str]) -> ErrorReport:
    """Report an exception showing only the user's frames."""
    frames = []
    parts = ["Traceback (most recent call last):\n"]
    for frame_summary in tb_module.extract_tb(exc.__traceback__):
        if frame_summary.filename != filename:
            continue
        lineno = frame_summary.lineno
        frames.append((lineno, frame_summary.name))
        parts.append(f'  File "{filename}", line {lineno}, in {frame_summary.name}\n')
        if lineno and 0 < lineno <= len(lines):
            parts.append(f"    {lines[lineno - 1].strip()}\n")
    exc_type = type(exc).__qualname__
    message = str(exc)
    if isinstance(exc, CaptureStopped):
        kind, exc_type, message = "stopped", "Stopped", message or "stopped by the user"
    else:
        kind = "exception"
    parts.extend(tb_module.format_exception_only(type(exc), exc) if kind == "exception" else [f"Stopped: {message}\n"])
    line = frames[-1][0] if frames else None
    return ErrorReport(kind, exc_type, message, line, None, "".join(parts).rstrip("\n"), tuple(frames))


def _tensor_infos(bindings: Bindings, recorder: Recorder, ids: dict, lines: list[str],
                  record_of: RecordMaker) -> tuple[TensorInfo, ...]:
    infos = []
    buffer_ids = {id(b) for module, _ in bindings.modules.values() for b in module.buffers(recurse=False)}
    for tensor, names in bindings.tensors.values():
        origin = recorder.origin_of(tensor)
        is_view = tensor._is_view()
        base = tensor._base if is_view else None
        source = recorder.source_of(tensor)
        retains = tensor.retains_grad
        grad_fn = grad_fn_of(tensor)  # not tensor.is_leaf: it raises where grad_fn does (see grad_fn_of)
        is_leaf = grad_fn is None
        grad = tensor.grad if (is_leaf or retains) else None
        switched, switched_line = recorder.grad_switched_off.line_of(tensor)
        is_hook_grad, hook_line = recorder.hook_gradients.line_of(tensor)
        is_result, result_line = recorder.grad_results.line_of(tensor)
        owner = bindings.owners.get(id(tensor))
        infos.append(TensorInfo(
            names=tuple(names),
            node=node_for_tensor(tensor, ids),
            output_nr=tensor.output_nr if grad_fn is not None else 0,
            value=record_of(tensor),
            grad=None if grad is None else record_of(grad),
            requires_grad=tensor.requires_grad,
            is_leaf=is_leaf,
            retains_grad=retains,
            is_view=is_view,
            is_inference=tensor.is_inference(),
            is_parameter=isinstance(tensor, torch.nn.Parameter),
            grad_fn=None if grad_fn is None else grad_fn.name(),
            origin=None if origin is None else OriginRecord(
                origin.op, source_line(lines, origin.line), origin.grad_enabled, origin.inference_mode),
            base_names=tuple(bindings.names_of(base)) if base is not None else (),
            source_names=tuple(bindings.names_of(source)) if source is not None else (),
            switched_off=source_line(lines, switched_line) if switched else None,
            hook_gradient=(source_line(lines, hook_line) or SourceLine(0, "")) if is_hook_grad else None,
            is_buffer=owner is not None and id(tensor) in buffer_ids,
            grad_result=(source_line(lines, result_line) or SourceLine(0, "")) if is_result else None,
        ))
    return tuple(infos)


def _default_device(device: torch.device):
    """``torch.device(device)`` as the factory default, skipped when it already is.

    The device context is itself a torch function mode: on cpu (the usual
    default) skipping it spares a second Python dispatch on every torch call.
    """
    if device == torch.get_default_device():
        return contextlib.nullcontext()
    return device


def capture(
    code: str,
    *,
    device: str | torch.device = "cpu",
    filename: str = "<editor>",
    value_elements: int = DEFAULT_VALUE_ELEMENTS,
    max_ops: int = 500_000,
    saved_values: bool = True,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    on_output: Callable[[str, str], None] | None = None,
    exec_guard: Callable[[], Any] | None = None,
    freeze_result: bool = False,
    leftovers: list | None = None,
    on_graph: Callable[[CaptureGraph, int], None] | None = None,
) -> Capture:
    """Run ``code`` and capture its autograd graph, values, gradients and output.

    Parameters
    ----------
    code : str
        Python source, as typed in the editor.
    device : str or torch.device, keyword-only
        Where the code runs: injected as the variable ``device`` and used as
        the default device of factory functions.
    filename : str, keyword-only
        Compile filename; frames with it are the user's frames.
    value_elements : int, keyword-only
        Tensors up to this many elements keep full values; larger ones keep a
        summary (:data:`~gradexplorer.core.records.tensors.DEFAULT_VALUE_ELEMENTS`).
    max_ops : int, keyword-only
        Record at most this many autograd nodes.
    saved_values : bool, keyword-only
        Read each node's saved tensors (costly on very large graphs).
    max_output_chars : int, keyword-only
        Cap of kept stdout and stderr text each.
    on_output : callable, optional
        ``on_output(stream, text)`` for each print, called in this thread.
    exec_guard : callable, optional
        Returns a context manager entered right around the user's ``exec``
        and nothing else (the GUI's worker arms its Stop there, so that a
        Stop can never land in gradexplorer's own code: the recorder's exit
        or the graph build).
    freeze_result : bool, keyword-only
        Freeze every object alive at the end (the capture included) out of
        later cyclic collections (:func:`~gradexplorer.core.collector.freeze_survivors`),
        for an app that keeps the capture on screen. Process-wide: off by
        default for library use.
    leftovers : list, optional
        Given, the program's objects (its globals, the recorder holding its
        graph and tensors) are appended to it as a :class:`ProgramRemains`
        instead of being freed when this returns, so that the caller chooses
        when that happens (:func:`release_leftovers`). Freeing them took
        0.02-0.03 s after a 10,000-node training step and 0.15 s after a
        50,000-node one: the app's worker frees them after the first
        picture is made; the isolated engine's child, which ends with
        ``os._exit``, never pays it.
    on_graph : callable, optional
        ``on_graph(graph, pass_count)`` as soon as the graph is built, before
        the named tensors, the module audit and the explanations (which
        never change the graph's nodes): the isolated engine's child encodes
        and sends the nodes from there, so that the app reads them while the
        child does the rest. Its time is not part of ``timings["build"]``.

    Returns
    -------
    Capture

    Raises
    ------
    DeviceUnavailableError
        The device does not exist here; nothing was run.
    """
    torch_device = resolve_device(device)
    lines = code.splitlines()
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as exc:  # nothing has run
        return Capture(code=code, filename=filename, device=str(torch_device), graph=CaptureGraph(),
                       error=_syntax_report(exc, lines), executed=False, versions=versions())
    program = compile(rewrite_node_hook_calls(tree), filename, "exec")

    snapshots = SnapshotBuffer(value_elements=value_elements)
    streams: list = []

    @contextlib.contextmanager
    def thread_context():
        # A thread the user's code starts: its prints go to this capture,
        # and factories default to the chosen device as in the main thread.
        with routed_to(*streams) if streams else contextlib.nullcontext(), _default_device(torch_device):
            yield

    recorder = Recorder(filename=filename, snapshots=snapshots, max_ops=max_ops, thread_context=thread_context)
    namespace: dict[str, Any] = {
        "__name__": "__main__",
        "__builtins__": builtins,
        "device": torch_device,
        # Predefined like in a REPL, so the notes' snippets (which never import
        # torch) run as written and keep their line numbers.
        "torch": torch,
        "nn": torch.nn,
        HOOK_HELPER_NAME: recorder.register_via_helper,
    }
    error = None
    started = time.perf_counter()
    with contextlib.ExitStack() as build_pause:
        with collect_output(max_chars=max_output_chars, on_text=on_output) as (out, err), fewer_collections():
            streams[:] = [out, err]
            before = process_state.read_state(filename)
            flags = None
            try:
                with torch.enable_grad(), torch.inference_mode(False), _default_device(torch_device), recorder:
                    with exec_guard() if exec_guard is not None else contextlib.nullcontext():
                        try:
                            exec(program, namespace)
                        finally:
                            flags = process_state.thread_flags()
            except BaseException as exc:  # the user's exception (or a Stop) is data, never raised
                error = _exception_report(exc, filename, lines)
                del exc  # its frames hold the user's tensors
            # Before the build: a default dtype the program set would change our own records.
            restored = process_state.restore(before, flags, device=torch_device)
            # Building allocates many small objects while holding the whole
            # graph: pausing the cyclic GC meanwhile halves the time on big
            # graphs. The pause begins before the run's thresholds are given
            # back: in between, the first allocation found everything the run
            # had made pending and ran a gen-1 collection over it (0.2-0.3 s
            # with the GIL held on a 50,000-node transformer: a frozen window).
            build_pause.enter_context(paused_collection())
        snapshots.end_run()
        ran = time.perf_counter()

        bindings = find_bindings(namespace, skip=frozenset({HOOK_HELPER_NAME}))
        phases: dict[str, float] = {}
        named_nodes: dict = {}
        # One record per tensor, whichever part describes it (graph, named tensors, modules).
        record_of = RecordMaker(value_elements)
        graph, ids = build_graph(recorder, bindings, lines=lines, value_elements=value_elements,
                                 saved_values=saved_values, timings=phases, records=record_of)
        handed = 0.0
        if on_graph is not None:
            handing = time.perf_counter()
            on_graph(graph, len(recorder.passes))
            handed = time.perf_counter() - handing
        for node_id, names in graph.nodes(data="names"):
            if names:
                named_nodes[node_id] = names
        named_nodes = {node: named_nodes[node_id] for node, node_id in ids.items() if node_id in named_nodes}
        passes = tuple(
            PassSummary(
                index=p.index,
                kind=p.kind,
                source=source_line(lines, p.line),
                roots=tuple((ids.get(n), nr) for n, nr in p.roots),
                inputs=tuple((ids.get(n), nr) for n, nr in p.inputs),
                retain_graph=p.retain_graph,
                create_graph=p.create_graph,
                results=resolve_all(p.results),
                error=p.error,
                root_names=tuple(name for t in recorder.pass_root_tensors(p) for name in bindings.names_of(t)[:1]),
                thread=p.thread,
                input_names=tuple(names[0] for names in (named_nodes.get(n) for n, _ in p.inputs) if names),
            )
            for p in recorder.passes
        )
        tensors = _tensor_infos(bindings, recorder, ids, lines, record_of)
        delivered = frozenset(name for _, attrs in graph.nodes(data=True) if attrs["kind"] == "leaf"
                              and any(lp.delivered is not None for lp in attrs["accumulation"].values())
                              for name in attrs["names"])
        modules = audit_modules(bindings, passes_ran=bool(passes), value_elements=value_elements, delivered=delivered,
                                records=record_of)
        built = time.perf_counter()
        result = Capture(
            code=code,
            filename=filename,
            device=str(torch_device),
            graph=graph,
            passes=passes,
            tensors=tensors,
            stdout=out.text(),
            stderr=err.text(),
            error=error,
            executed=True,
            dropped_ops=recorder.dropped_ops,
            versions=versions(),
            timings={"run": ran - started, "build": built - ran - handed, **phases},
            modules=modules,
            value_elements=value_elements,
            restored=restored,
        )
        # Explanations read only the capture's plain data (as they will for a
        # reopened session).
        result = replace(result, explanations=explain_capture(result))
        if leftovers is not None:
            leftovers.append(ProgramRemains(namespace, (recorder, snapshots, bindings, ids)))
        else:
            _release_namespace(namespace)
        if freeze_result:
            # Inside the pause: the young objects go straight to the frozen
            # set instead of into one long collection when the pause ends.
            freeze_survivors()
    return result


class ProgramRemains:
    """What a finished program leaves behind: its globals and the objects that watched it run.

    Held in :func:`capture`'s ``leftovers`` until :meth:`release`. Dropped
    without it, the globals stay alive in a cycle with the functions the
    program defined (see :func:`_release_namespace`) until a full collection.
    """

    __slots__ = ("namespace", "objects")

    def __init__(self, namespace: dict[str, Any], objects: tuple) -> None:
        self.namespace = namespace
        #: The recorder (with the autograd graph, gradients and modules it holds) and the capture's other helpers.
        self.objects = objects

    def release(self) -> None:
        """Empty the globals as :func:`capture` would have, then let everything go."""
        if self.namespace is not None:
            _release_namespace(self.namespace)
        self.namespace = self.objects = None


def release_leftovers(leftovers: list) -> None:
    """Free what :func:`capture` appended to ``leftovers`` (and empty the list).

    The app's worker calls it once the first picture is on its way: the
    user waited for those deallocations before (a tenth of the whole build
    after the run).
    """
    while leftovers:
        leftovers.pop().release()


def _release_namespace(namespace: dict[str, Any]) -> None:
    """Empty a finished program's globals, so that its objects are freed by reference counting.

    Every function the program defined refers to its globals, and the
    globals to the function: a cycle that keeps the user's tensors and
    models alive until a full collection (which the app avoids, see
    :func:`gradexplorer.core.collector.freeze_survivors`). The capture holds
    what it needs already. A thread the program started and left running
    still uses them: then they are kept. Dunder names stay: ``torch.compile``
    installs ``__builtins_dict___N`` entries there and deletes them itself
    when its compiled code is freed (a ``KeyError`` if they were gone).
    """
    if any(getattr(t, "_gradexplorer_followed", False) and t.is_alive() for t in threading.enumerate()):
        return
    for name in [name for name in namespace if not name.startswith("__")]:
        del namespace[name]


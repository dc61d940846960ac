"""Run tensor code and return a frozen snapshot of what autograd did with it.

:func:`capture` is the core's entry point; the CLI and the GUI's worker call
it. It is synchronous and runs the user's code in the calling thread.

What a run looks like
---------------------
1. The device is resolved first (:func:`~gradexplorer.core.capture.devices.resolve_device`):
   a missing device raises :class:`DeviceUnavailableError` before anything runs.
2. The code is parsed with ``filename`` (so tracebacks carry the editor's
   line numbers; for a script, its real path). A ``SyntaxError`` returns a
   capture with an error of kind ``"syntax"`` and nothing executed.
3. The code runs as ``python SCRIPT ARGS`` would run it
   (:mod:`~gradexplorer.core.capture.script`: ``sys.argv``, ``sys.path[0]``,
   ``__file__``, ``__main__``, the working folder), its project's modules
   imported afresh (:mod:`~gradexplorer.core.capture.project`), in a fresh
   namespace that also holds ``device`` (a ``torch.device``), ``torch`` and
   ``nn`` (so snippets that never import torch run as written), with grad
   mode on, inference mode off, ``torch.device(device)`` as the default
   device for factory functions, and a
   :class:`~gradexplorer.core.capture.recording.Recorder` watching every torch call.
   Grad mode, inference mode, torch function modes and the default device are
   thread-local in PyTorch, so none of this leaks into other threads; the
   user's ``print`` output is routed by thread (:mod:`~gradexplorer.core.capture.streams`).
4. Whatever happened (success, an exception at line k, a Stop), the final
   namespace and the last locals of every user function that ran are
   searched for named tensors and modules, and the graph is built from them
   and from every recorded backward pass (:func:`build_capture`), so a
   failed run keeps everything that existed before the failure.

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
from ..analysis.modules import ModuleAudit, audit_modules, reword_for_raised_passes
from ..collector import fewer_collections, freeze_survivors, paused_collection
from ..graph.autograd_nodes import grad_fn_of
from ..graph.build import CaptureGraph, SourceLine, SourceText, build_graph, node_for_tensor, walk_nodes
from ..records.errors import CaptureStopped, ErrorReport
from ..records.figures import FigureImage
from ..records.tensors import DEFAULT_VALUE_ELEMENTS, RecordMaker, SnapshotBuffer, TensorRecord, resolve_all
from . import process_state
from .devices import resolve_device
from .figures import collecting_figures
from .namespace import MAX_BINDINGS, Bindings, find_bindings, frame_scopes, name_modules_that_ran
from .project import Project, fresh_project_modules
from .recording import ESCAPING_CALLS, HOOK_HELPER_NAME, FileLine, Recorder, rewrite_node_hook_calls
from .script import ScriptRun, is_file_name, started_as_script
from .streams import DEFAULT_MAX_OUTPUT_CHARS, answering_input, collect_output, routed_to, savable_text

__all__ = ["Capture", "OriginRecord", "PassSummary", "ProgramRemains", "TensorInfo", "build_capture", "capture",
           "exception_report", "release_leftovers"]


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
    restored : tuple of str
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
    restored: tuple[str, ...] = ()
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
    return ErrorReport("syntax", type(exc).__name__, message, line, exc.offset, trace,
                       ((line, "<module>", None),) if line else ())


def exception_report(exc: BaseException, project: Project, text: SourceText) -> ErrorReport:
    """Report an exception showing only the user's frames: the program's and the project's other files'.

    Each frame is shown as Python shows it, with its file's real path and
    its line as it ran (the program's from ``text``, which is the editor's).
    """
    frames = []
    parts = ["Traceback (most recent call last):\n"]
    filename = project.filename
    for frame_summary in tb_module.extract_tb(exc.__traceback__):
        path = frame_summary.filename
        if path == filename:
            file = None
        else:
            file = project.shown_path(path)
            if file is None:
                continue
        lineno = frame_summary.lineno
        frames.append((lineno, frame_summary.name, file))
        parts.append(f'  File "{path}", line {lineno}, in {frame_summary.name}\n')
        source = text.source_line(lineno if file is None else FileLine(file, path, lineno)) if lineno else None
        if source is not None and source.text:
            parts.append(f"    {source.text}\n")
    exc_type = type(exc).__qualname__
    message = str(exc)
    if isinstance(exc, CaptureStopped):
        kind, exc_type, message = "stopped", "Stopped", message or "stopped by the user"
    else:
        kind = "exception"
    parts.extend(tb_module.format_exception_only(type(exc), exc) if kind == "exception" else [f"Stopped: {message}\n"])
    line, file = (frames[-1][0], frames[-1][2]) if frames else (None, None)
    return ErrorReport(kind, exc_type, savable_text(message), line, None, savable_text("".join(parts).rstrip("\n")),
                       tuple(frames), file)


def _tensor_infos(bindings: Bindings, recorder: Recorder, ids: dict, text: SourceText,
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
                origin.op, text.source_line(origin.line), origin.grad_enabled, origin.inference_mode),
            base_names=tuple(bindings.names_of(base)) if base is not None else (),
            source_names=tuple(bindings.names_of(source)) if source is not None else (),
            switched_off=text.source_line(switched_line) if switched else None,
            hook_gradient=(text.source_line(hook_line) or SourceLine(0, "")) if is_hook_grad else None,
            is_buffer=owner is not None and id(tensor) in buffer_ids,
            grad_result=(text.source_line(result_line) or SourceLine(0, "")) if is_result else None,
            scopes=_scopes(bindings.scopes_of(tensor), len(names)),
            cut=None if grad_fn is not None or tensor.requires_grad else _cut_record(
                tensor, origin, recorder, bindings, text),
        ))
    return tuple(infos)


#: Named leaves a cut's explanation lists at most.
_CUT_LEAVES = 8


def _cut_record(tensor, origin, recorder: Recorder, bindings: Bindings, text: SourceText) -> CutRecord | None:
    """Where the graph behind ``tensor`` (which has none) was cut, with the names on the far side."""
    cut = recorder.cut_of(tensor)
    if cut is None:
        return None
    source = cut.source()
    return CutRecord(op=cut.op, source=text.source_line(cut.line), grad_enabled=cut.grad_enabled,
                     from_names=tuple(bindings.names_of(source)[:1]) if source is not None else (),
                     from_source=text.source_line(cut.source_line), escaped=cut.op in ESCAPING_CALLS,
                     leaves=_leaves_behind(source, bindings) if source is not None else ())


def _leaves_behind(tensor, bindings: Bindings) -> tuple[str, ...]:
    """The first names of the leaves that require grad in ``tensor``'s graph (``tensor`` itself for a leaf)."""
    node = grad_fn_of(tensor)
    if node is None:
        return tuple(bindings.names_of(tensor)[:1])
    names: list[str] = []
    for reached in walk_nodes([node])[0]:
        variable = getattr(reached, "variable", None)
        for name in bindings.names_of(variable)[:1] if variable is not None else ():
            if name not in names:
                names.append(name)
    return tuple(names[:_CUT_LEAVES])


def _scopes(scopes: list[str], count: int) -> tuple[str, ...]:
    """The names' scopes, or () when every name is top-level (the common case: no field in the files)."""
    if not any(scopes):
        return ()
    return tuple(scopes[:count]) + ("",) * (count - len(scopes))


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
    run: ScriptRun | None = None,
    value_elements: int = DEFAULT_VALUE_ELEMENTS,
    max_ops: int = 500_000,
    saved_values: bool = True,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    on_output: Callable[[str, str], None] | None = None,
    read_input: Callable[[str], str] | None = None,
    exec_guard: Callable[[], Any] | None = None,
    freeze_result: bool = False,
    leftovers: list | None = None,
    on_graph: Callable[[CaptureGraph, int], None] | None = None,
) -> Capture:
    """Run ``code`` and capture its autograd graph, values, gradients and output.

    Parameters
    ----------
    code : str
        Python source, as typed in the editor (or read from the script).
    device : str or torch.device, keyword-only
        Where the code runs: injected as the variable ``device`` and used as
        the default device of factory functions.
    filename : str, keyword-only
        Compile filename: the script's path when the code came from a file
        (then ``__file__``, ``sys.argv[0]`` and the project folder follow
        from it), else a pseudo-name such as ``"<editor>"``.
    run : ScriptRun, optional
        The arguments (``sys.argv[1:]``) and the working folder (default: the
        script's folder; for editor text, the current one).
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
    read_input : callable, optional
        ``read_input(prompt)`` answers the program's ``input()`` calls with a
        line (the app's console); it raises
        :class:`~gradexplorer.core.capture.streams.NoInputError` where there is
        none. Default: every ``input()`` raises one saying that this run has
        no console (the CLI passes a reader of its standard input).
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
    GradexplorerError
        The working folder does not exist; nothing was run.
    """
    torch_device = resolve_device(device)
    run = run if run is not None else ScriptRun()
    lines = code.splitlines()
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as exc:  # nothing has run
        return Capture(code=code, filename=filename, device=str(torch_device), graph=CaptureGraph(),
                       error=_syntax_report(exc, lines), executed=False, versions=versions(), args=tuple(run.args),
                       cwd=run.working_folder(filename), root=run.project_folder(filename))
    program = compile(rewrite_node_hook_calls(tree), filename, "exec")
    project = Project(filename, [run.project_folder(filename)])

    snapshots = SnapshotBuffer(value_elements=value_elements)
    streams: list = []

    answer = read_input if read_input is not None else _no_console

    @contextlib.contextmanager
    def thread_context():
        # A thread the user's code starts: its prints go to this capture, its
        # input() and sys.stdin reads are answered as the program's are (they
        # read the app's terminal, where Stop cannot reach them, before), and
        # factories default to the chosen device as in the main thread.
        with routed_to(*streams) if streams else contextlib.nullcontext(), answering_input(answer), \
                _default_device(torch_device):
            yield

    recorder = Recorder(filename=filename, snapshots=snapshots, max_ops=max_ops, thread_context=thread_context,
                        project=project)
    recorder.outer_code = program
    error = None
    started = time.perf_counter()
    with contextlib.ExitStack() as build_pause:
        with started_as_script(run, filename=filename, code=code) as namespace, \
                fresh_project_modules(project), \
                collect_output(max_chars=max_output_chars, on_text=on_output) as (out, err), \
                answering_input(answer), fewer_collections(), \
                collecting_figures() as figures:
            namespace.update({
                "device": torch_device,
                # Predefined like in a REPL, so the notes' snippets (which never import
                # torch) run as written and keep their line numbers.
                "torch": torch,
                "nn": torch.nn,
                HOOK_HELPER_NAME: recorder.register_via_helper,
            })
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
                error = exception_report(exc, project, SourceText(lines, project.texts))
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
        result = build_capture(
            recorder, namespace, skip=frozenset({HOOK_HELPER_NAME}), code=code, filename=filename,
            device=str(torch_device), project=project, error=error, stdout=out.text(),
            stderr=err.text() + "".join(f"gradexplorer: {note}\n" for note in figures.notes()),
            value_elements=value_elements, saved_values=saved_values, on_graph=on_graph, run_seconds=ran - started,
            restored=restored, args=tuple(run.args), cwd=run.working_folder(filename),
            figures=tuple(figures.images))
        if leftovers is not None:
            leftovers.append(ProgramRemains(namespace, (recorder, snapshots)))
        else:
            ProgramRemains(namespace, (recorder, snapshots)).release()
        if freeze_result:
            # Inside the pause: the young objects go straight to the frozen
            # set instead of into one long collection when the pause ends.
            freeze_survivors()
    return result


def _no_console(prompt: str) -> str:
    from .streams import NoInputError

    raise NoInputError("input() has no console to read from in this run (gradexplorer.capture was called without "
                       "read_input); pass the value as an argument instead")


def build_capture(recorder: Recorder, namespace: dict[str, Any], *, skip: frozenset[str] = frozenset(), code: str,
                  filename: str, device: str, project: Project, error: ErrorReport | None, stdout: str, stderr: str,
                  value_elements: int = DEFAULT_VALUE_ELEMENTS, saved_values: bool = True,
                  on_graph: Callable[[CaptureGraph, int], None] | None = None, run_seconds: float = 0.0,
                  restored: tuple[str, ...] = (), args: tuple[str, ...] = (), cwd: str = "",
                  outer_scopes: list[tuple[str, dict[str, Any]]] = (), roots: list | None = None,
                  figures: tuple[FigureImage, ...] = ()) -> Capture:
    """Turn what a recorder saw into a :class:`Capture`: names, graph, passes, tensors, module audit, explanations.

    The part of :func:`capture` after the program has run, shared with the
    recording API (:func:`gradexplorer.record`), whose "program" is a block
    of the user's own script. Names come from ``namespace`` (the globals),
    then ``outer_scopes`` (``(scope, locals)`` pairs the caller knows of,
    outermost first), then the functions the recorder saw running
    (:attr:`Recorder.frames`); every module that ran and that no variable
    holds is named by its class. ``roots``: walk the graph from these
    autograd nodes only (default: every named tensor and pass root).
    """
    started = time.perf_counter()
    text = SourceText(code.splitlines(), project.texts)
    scopes = [*outer_scopes, *frame_scopes(list(recorder.frames.values()))]
    bindings = find_bindings(namespace, skip=skip, scopes=scopes)
    if bindings.truncated:
        restored = (*restored, f"the program's variables hold more than {MAX_BINDINGS:,} values (tensors, modules, "
                               f"containers and their items): names were looked up in the first {MAX_BINDINGS:,} "
                               "only, so some tensors may show their op instead of their name")
    name_modules_that_ran(bindings, list(recorder.modules.values()))
    phases: dict[str, float] = {}
    named_nodes: dict = {}
    # One record per tensor, whichever part describes it (graph, named tensors, modules).
    record_of = RecordMaker(value_elements)
    graph, ids = build_graph(recorder, bindings, lines=text, value_elements=value_elements,
                             saved_values=saved_values, timings=phases, records=record_of, roots=roots)
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
            source=text.source_line(p.line),
            roots=tuple((ids.get(n), nr) for n, nr in p.roots),
            inputs=tuple((ids.get(n), nr) for n, nr in p.inputs),
            retain_graph=p.retain_graph,
            create_graph=p.create_graph,
            results=resolve_all(p.results),
            error=p.error,
            root_names=tuple(name for t in recorder.pass_root_tensors(p) for name in bindings.names_of(t)[:1]),
            thread=p.thread,
            input_names=tuple(names[0] for names in (named_nodes.get(n) for n, _ in p.inputs) if names),
            raised_at=ids.get(p.raised_at) if p.raised_at is not None else None,
        )
        for p in recorder.passes
    )
    tensors = _tensor_infos(bindings, recorder, ids, text, record_of)
    delivered = frozenset(name for _, attrs in graph.nodes(data=True) if attrs["kind"] == "leaf"
                          and any(lp.delivered is not None for lp in attrs["accumulation"].values())
                          for name in attrs["names"])
    frozen_at = {name: info.switched_off for info in tensors if info.switched_off is not None for name in info.names}
    modules = audit_modules(bindings, passes_ran=bool(passes), value_elements=value_elements, delivered=delivered,
                            records=record_of, frozen_at=frozen_at)
    built = time.perf_counter()
    result = Capture(
        code=code,
        filename=filename,
        device=device,
        graph=graph,
        passes=passes,
        tensors=tensors,
        stdout=stdout,
        stderr=stderr,
        error=error,
        executed=True,
        dropped_ops=recorder.dropped_ops,
        versions=versions(),
        timings={"run": run_seconds, "build": built - started - handed, **phases},
        modules=modules,
        value_elements=value_elements,
        restored=restored,
        args=args,
        cwd=cwd,
        root=project.root,
        files=_files_pointed_at(graph, tensors, passes, error, project.texts),
        figures=figures,
    )
    # Explanations read only the capture's plain data (as they will for a
    # reopened session).
    explanations = explain_capture(result)
    return replace(result, explanations=explanations, modules=reword_for_raised_passes(modules, explanations))


def _files_pointed_at(graph, tensors, passes, error, texts: dict[str, str]) -> dict[str, str]:
    """The project files (other than the program) that some source line or error frame points into."""
    if not texts:
        return {}
    wanted: set[str] = set()
    for _, source in graph.nodes(data="source"):
        if source is not None and source.file is not None:
            wanted.add(source.file)
    for _, hooks in graph.nodes(data="hooks"):
        wanted.update(h.source.file for h in hooks if h.source is not None and h.source.file is not None)
    for p in passes:
        if p.source is not None and p.source.file is not None:
            wanted.add(p.source.file)
    for info in tensors:
        for source in (info.origin.source if info.origin else None, info.switched_off, info.hook_gradient,
                       info.grad_result):
            if source is not None and source.file is not None:
                wanted.add(source.file)
    if error is not None:
        wanted.update(frame[2] for frame in error.frames if len(frame) > 2 and frame[2] is not None)
    return {file: texts[file] for file in sorted(wanted) if file in texts}


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
        for obj in self.objects or ():
            if isinstance(obj, Recorder):
                obj.release_frames()
        if self.namespace is not None:
            _release_namespace(self.namespace)
        for obj in self.objects or ():
            if isinstance(obj, Recorder):
                obj.release_graph()  # after the globals: see Recorder.release_graph
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


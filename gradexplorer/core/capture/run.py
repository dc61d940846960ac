"""Run the user's program under the recorder: the first stage of the capture pipeline.

:func:`~gradexplorer.core.pipeline.capture` (the core's entry point, which
the CLI and the GUI's worker call) compiles the program here
(:func:`compile_program`), runs it (:func:`run_program`), then hands what it
left to the build steps (:mod:`gradexplorer.core.pipeline.steps`). It is
synchronous and runs the user's code in the calling thread.

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
   and from every recorded backward pass (the build steps), so a
   failed run keeps everything that existed before the failure.

The returned :class:`Capture` holds plain data only (records, strings, CPU
copies of small tensors, a networkx graph): no live user tensors, nodes or
exceptions, so it can cross threads, be saved, and does not keep GPU memory
alive.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import platform
import threading
import time
import traceback as tb_module
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import Any

import networkx as nx
import torch

from ..._version import __version__
from ..collector import fewer_collections, paused_collection
from ..records.capture import Capture
from ..records.errors import CaptureStopped, ErrorReport
from ..records.figures import FigureImage
from ..records.nodes import CaptureGraph
from ..records.source import SourceText
from ..records.tensors import SnapshotBuffer
from . import process_state
from .figures import collecting_figures
from .project import Project, fresh_project_modules
from .recording import HOOK_HELPER_NAME, FileLine, Recorder, rewrite_node_hook_calls
from .script import ScriptRun, started_as_script
from .streams import answering_input, collect_output, routed_to, savable_text
from .user_hooks import register_via_helper

__all__ = ["ProgramRemains", "ProgramRun", "compile_program", "exception_report", "release_leftovers", "run_program",
           "syntax_error_capture", "versions"]


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


def _default_device(device: torch.device):
    """``torch.device(device)`` as the factory default, skipped when it already is.

    The device context is itself a torch function mode: on cpu (the usual
    default) skipping it spares a second Python dispatch on every torch call.
    """
    if device == torch.get_default_device():
        return contextlib.nullcontext()
    return device


def compile_program(code: str, filename: str) -> CodeType | ErrorReport:
    """The program compiled as it will run (node-hook calls rewritten), or the report of its syntax error."""
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as exc:
        return _syntax_report(exc, code.splitlines())
    return compile(rewrite_node_hook_calls(tree), filename, "exec")


def syntax_error_capture(code: str, filename: str, device: str, run: ScriptRun, error: ErrorReport) -> Capture:
    """The capture of a program that could not be parsed: its text and the error, nothing executed."""
    return Capture(code=code, filename=filename, device=device, graph=CaptureGraph(), error=error, executed=False,
                   versions=versions(), args=tuple(run.args), cwd=run.working_folder(filename),
                   root=run.project_folder(filename))


@dataclass
class ProgramRun:
    """What running a program left for the build: its live objects and what it printed, raised and changed.

    Holds the user's objects (the recorder keeps their autograd graph):
    the build reads them once, then :meth:`remains` hands them over to be
    released.
    """

    recorder: Recorder
    snapshots: SnapshotBuffer
    namespace: dict[str, Any]
    project: Project
    error: ErrorReport | None
    stdout: str
    stderr: str
    #: What the program changed in the process and was put back (:mod:`.process_state`), one sentence each.
    restored: tuple[str, ...]
    figures: tuple[FigureImage, ...]
    #: Seconds from the start of the run to the end of the recording.
    seconds: float

    def remains(self) -> ProgramRemains:
        """The objects to release once the capture is built (:class:`ProgramRemains`)."""
        return ProgramRemains(self.namespace, (self.recorder, self.snapshots))


def run_program(code: str, program: CodeType, *, device: torch.device, filename: str, run: ScriptRun,
                value_elements: int, max_ops: int, max_output_chars: int,
                on_output: Callable[[str, str], None] | None, read_input: Callable[[str], str] | None,
                exec_guard: Callable[[], Any] | None, build_pause: contextlib.ExitStack) -> ProgramRun:
    """Run a compiled program as ``python SCRIPT ARGS`` would, under a recorder (the module docstring's steps 3-4).

    The user's exception (or a Stop) is data in the result, never raised.
    ``build_pause`` receives the cyclic GC's pause for the build that
    follows, entered before the run's collection thresholds are given back:
    in between, the first allocation found everything the run had made
    pending and ran a gen-1 collection over it (0.2-0.3 s with the GIL held
    on a 50,000-node transformer: a frozen window). Building allocates many
    small objects while holding the whole graph: pausing the cyclic GC
    meanwhile halves the time on big graphs.
    """
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
                _default_device(device):
            yield

    recorder = Recorder(filename=filename, snapshots=snapshots, max_ops=max_ops, thread_context=thread_context,
                        project=project)
    recorder.outer_code = program
    started = time.perf_counter()
    with started_as_script(run, filename=filename, code=code) as namespace, \
            fresh_project_modules(project), \
            collect_output(max_chars=max_output_chars, on_text=on_output) as (out, err), \
            answering_input(answer), fewer_collections(), \
            collecting_figures() as figures:
        namespace.update({
            "device": device,
            # Predefined like in a REPL, so the notes' snippets (which never import
            # torch) run as written and keep their line numbers.
            "torch": torch,
            "nn": torch.nn,
            HOOK_HELPER_NAME: functools.partial(register_via_helper, recorder),
        })
        streams[:] = [out, err]
        error, restored = _execute(program, namespace, recorder, code=code, device=device, project=project,
                                   exec_guard=exec_guard)
        build_pause.enter_context(paused_collection())
    snapshots.end_run()
    return ProgramRun(recorder, snapshots, namespace, project, error, out.text(),
                      err.text() + "".join(f"gradexplorer: {note}\n" for note in figures.notes()), restored,
                      tuple(figures.images), time.perf_counter() - started)


def _execute(program: CodeType, namespace: dict[str, Any], recorder: Recorder, *, code: str, device: torch.device,
             project: Project, exec_guard: Callable[[], Any] | None) -> tuple[ErrorReport | None, tuple[str, ...]]:
    """Execute the program under the recorder: its error report (or None), then what was put back after it."""
    before = process_state.read_state(project.filename)
    flags = None
    error = None
    try:
        with torch.enable_grad(), torch.inference_mode(False), _default_device(device), recorder:
            with exec_guard() if exec_guard is not None else contextlib.nullcontext():
                try:
                    exec(program, namespace)
                finally:
                    flags = process_state.thread_flags()
    except BaseException as exc:  # the user's exception (or a Stop) is data, never raised
        error = exception_report(exc, project, SourceText(code.splitlines(), project.texts))
        del exc  # its frames hold the user's tensors
    # Before the build: a default dtype the program set would change our own records.
    return error, process_state.restore(before, flags, device=device)


def _no_console(prompt: str) -> str:
    from .streams import NoInputError

    raise NoInputError("input() has no console to read from in this run (gradexplorer.capture was called without "
                       "read_input); pass the value as an argument instead")


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


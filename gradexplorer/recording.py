"""Use gradexplorer from your own script or notebook: ``with gradexplorer.record() as rec: ...``.

torchviz and TorchLens are called from the user's code; so is this. Two
entries, both Qt-free (nothing here imports PySide6):

:func:`record`
    A context manager around any part of a script, a function or a
    notebook cell. What happens inside is recorded by the same engine as a
    Run in the app (the same :class:`~gradexplorer.core.capture.recording.Recorder`,
    the same graph build, the same explanations and module audit), with
    names from the enclosing frames: the variables of the function (or
    the notebook's globals) around the ``with``, and of every function that
    ran inside it. Nothing about the program changes: grad mode, the
    default device and the working folder stay the user's, exceptions
    propagate (the recording keeps them, as a Run's capture does), and
    prints still reach the console (they are kept as well).

:func:`show`
    Walks the graph an existing tensor already has (torchviz's
    ``make_dot(y)``): nodes, edges, leaves with their values and ``.grad``,
    saved tensors, and names from the caller's scope; no forward values of
    intermediate ops (nothing recorded them).

:func:`compare`
    Puts two runs side by side (recordings, captures or session files):
    what was added, removed and changed, node by node (``docs/diff.md``).

Both recording entries give a :class:`Recording`: ``rec.capture`` is the
:class:`~gradexplorer.core.records.capture.Capture`, ``rec.save(PATH)`` writes a
session, ``rec.show()`` opens the app on it in its own process without
blocking the script, and in a notebook the recording shows as a small
summary (``_repr_html_``). See ``docs/api.md``.

What the recording API cannot see: a node hook registered inside the block
(``y.grad_fn.register_hook(f)``; ``Node.register_hook`` is a C method, and
the app sees it only by compiling the program's text itself). Tensor hooks,
``retain_grad`` and module hooks are seen.
"""

from __future__ import annotations

import contextlib
import html
import linecache
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["Comparison", "Recording", "compare", "record", "show"]

#: Globals of an IPython session that are its own history, not the user's variables.
_IPYTHON_NAMES = frozenset({"In", "Out", "get_ipython", "exit", "quit", "open"})


class Recording:
    """What :func:`record` or :func:`show` saw: a capture, and ways to keep it and look at it.

    Attributes
    ----------
    capture : Capture or None
        None while the block still runs.
    line : int or None
        The line of the user's code the block started at (:func:`compare`
        tells two blocks of one script apart by it).
    """

    def __init__(self, *, value_elements: int | None = None, max_ops: int = 500_000, _depth: int = 1) -> None:
        from .core.records.tensors import DEFAULT_VALUE_ELEMENTS

        self.capture = None
        self.line: int | None = None
        self.value_elements = DEFAULT_VALUE_ELEMENTS if value_elements is None else value_elements
        self.max_ops = max_ops
        self._depth = _depth
        self._state: dict[str, Any] | None = None

    # -- the block ------------------------------------------------------------------------
    def __enter__(self) -> Recording:
        if self._state is not None:
            raise RuntimeError("this recording is already running; use one gradexplorer.record() per block")
        from .core.capture.project import Project
        from .core.capture.recording import Recorder
        from .core.capture.streams import collect_output
        from .core.collector import fewer_collections
        from .core.records.tensors import SnapshotBuffer

        caller = sys._getframe(self._depth)
        filename = caller.f_code.co_filename
        self.line = caller.f_lineno
        roots = []
        if os.path.isabs(filename):
            roots.append(os.path.dirname(filename))
        with contextlib.suppress(OSError):
            roots.append(os.getcwd())  # a notebook's own folder: model.py beside it is the user's
        project = Project(filename, roots)
        snapshots = SnapshotBuffer(value_elements=self.value_elements)
        recorder = Recorder(filename=filename, snapshots=snapshots, max_ops=self.max_ops, project=project)
        recorder.outer_frame = caller
        echo = {"stdout": sys.stdout, "stderr": sys.stderr}

        def keep_and_echo(stream: str, text: str) -> None:
            # The user's prints still reach the console or the notebook cell, and are kept.
            with contextlib.suppress(Exception):
                echo[stream].write(text)

        stack = contextlib.ExitStack()
        out, err = stack.enter_context(collect_output(on_text=keep_and_echo))
        stack.enter_context(fewer_collections())
        self._state = {"caller": caller, "filename": filename, "project": project, "recorder": recorder,
                       "snapshots": snapshots, "stack": stack, "out": out, "err": err,
                       "started": time.perf_counter()}
        recorder.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        state, self._state = self._state, None
        if state is None:
            return False
        recorder = state["recorder"]
        try:
            recorder.__exit__(exc_type, exc, tb)
        finally:
            state["stack"].close()
        state["snapshots"].end_run()
        try:
            self.capture = _build(state, exc)
        finally:
            recorder.release_frames()  # kept frames lead back to the caller's, which holds this recording
        return False  # the user's exception goes on, as it would without the recording

    # -- keeping and looking --------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> Path:
        """Write the recording as a session file (``.gxsession`` added when the name has no suffix)."""
        from .core.io.session import SESSION_SUFFIX, save_session, session_from_capture

        capture = self._finished()
        target = Path(path)
        if not target.suffix:
            target = target.with_suffix(SESSION_SUFFIX)
        save_session(session_from_capture(capture), target)
        return target

    def show(self, *, wait: bool = False) -> subprocess.Popen:
        """Open the desktop app on the recording, in its own process; the script goes on at once.

        The recording is saved to a session file in the temporary folder
        first (the app opens it without running anything). ``wait=True``
        blocks until the window is closed.
        """
        folder = Path(tempfile.gettempdir()) / "gradexplorer-recordings"
        folder.mkdir(parents=True, exist_ok=True)
        path = self.save(folder / f"recording-{os.getpid()}-{time.time_ns()}.gxsession")
        process = open_in_app(path)
        if wait:
            process.wait()
        return process

    def summary(self) -> str:
        """A few lines: nodes, passes, named leaves with their gradient norms, warnings, the error."""
        capture = self._finished()
        return "\n".join(_summary_lines(capture))

    def __repr__(self) -> str:
        if self.capture is None:
            return "<gradexplorer.Recording (still recording)>"
        return "<gradexplorer.Recording>\n" + self.summary()

    def _repr_html_(self) -> str:
        if self.capture is None:
            return "<p><b>gradexplorer</b>: still recording</p>"
        lines = _summary_lines(self.capture)
        head, rest = lines[0], lines[1:]
        items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in rest)
        return (f"<div><b>gradexplorer</b> {html.escape(head)}<ul>{items}</ul>"
                f"<small>rec.show() opens it in the app; rec.save('run.gxsession') keeps it</small></div>")

    def _finished(self):
        if self.capture is None:
            raise RuntimeError("nothing recorded yet: use the recording after its with-block has ended")
        return self.capture


def record(*, value_elements: int | None = None, max_ops: int = 500_000) -> Recording:
    """Record what autograd does in a block of your own code.

    Parameters
    ----------
    value_elements : int, optional
        Tensors up to this many elements keep all their values (default
        10,000, as in the app); larger ones keep a summary.
    max_ops : int, keyword-only
        Record at most this many autograd nodes.

    Returns
    -------
    Recording
        A context manager; its ``capture`` is set when the block ends.

    Examples
    --------
    >>> import gradexplorer, torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> with gradexplorer.record() as rec:
    ...     loss = (w * 3).sum()
    ...     loss.backward()
    >>> rec.capture.tensor("w").grad.values
    (3.0, 3.0)
    """
    return Recording(value_elements=value_elements, max_ops=max_ops)


def show(tensor, *, app: bool = True) -> Recording:
    """Walk the autograd graph ``tensor`` already has, and open it in the app (torchviz's ``make_dot``).

    Names come from the caller's variables (``model`` gives
    ``model.fc.weight`` to the leaves); only ``tensor``'s graph is walked.
    Leaves show their values and ``.grad``; saved tensors show unless a
    backward freed them; intermediate values were never recorded.

    Parameters
    ----------
    tensor : torch.Tensor
        A tensor with a ``grad_fn`` (or a leaf that requires grad).
    app : bool, keyword-only
        Open the app on it (its own process; returns at once). False: only
        build the recording (for ``save`` or a notebook's summary).

    Returns
    -------
    Recording
    """
    import torch

    from .core.graph.autograd_nodes import edge_of

    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"gradexplorer.show() takes a tensor, not {type(tensor).__name__}")
    edge = edge_of(tensor)
    if edge is None:
        raise ValueError("this tensor has no autograd graph (no grad_fn, and it does not require grad): there is "
                         "nothing to show; did it come from torch.no_grad() or .detach()?")
    caller = sys._getframe(1)
    recording = Recording()
    recording.capture = _walk(tensor, edge[0], caller)
    if app:
        recording.show()
    return recording


class Comparison:
    """Two runs compared (:func:`compare`): ``str()`` is the report ``gradexplorer diff`` prints.

    Attributes
    ----------
    diff : CaptureDiff
        Every node, name, pass and module state of both runs
        (:mod:`gradexplorer.core.records.diff`).
    """

    def __init__(self, diff) -> None:
        self.diff = diff

    def __str__(self) -> str:
        from .core.io.diff_report import format_diff

        return format_diff(self.diff)

    def __repr__(self) -> str:
        return "<gradexplorer.Comparison>\n" + str(self)

    def to_dict(self) -> dict:
        """The JSON document of ``gradexplorer diff --json`` (``docs/diff.md``)."""
        from .core.io.diff_report import diff_to_dict

        return diff_to_dict(self.diff)


def _capture_of(run, side: str):
    from .core.records.capture import Capture

    if isinstance(run, Recording):
        return run._finished()
    if isinstance(run, Capture):
        return run
    if isinstance(run, (str, os.PathLike)):
        from .core.io.session import load_session

        return load_session(run).capture
    raise TypeError(f"compare(): run {side} is a {type(run).__name__}; give a Recording, a Capture or a session path")


def compare(a, b) -> Comparison:
    """Compare run ``b`` with run ``a`` (the reference), node by node.

    Parameters
    ----------
    a, b : Recording, Capture, str or os.PathLike
        A finished :func:`record` block, a :func:`capture` result, or a
        session file (``.gxsession`` or a ``capture --json`` document).

    Returns
    -------
    Comparison
        ``print()`` it for the report; ``.diff`` holds every record.

    Examples
    --------
    >>> with gradexplorer.record() as before:
    ...     loss = model(x).sum(); loss.backward()
    >>> freeze(model.embed)
    >>> with gradexplorer.record() as after:
    ...     loss = model(x).sum(); loss.backward()
    >>> print(gradexplorer.compare(before, after))
    """
    from .core.analysis.diff import diff_captures, run_labels

    capture_a, capture_b = _capture_of(a, "a"), _capture_of(b, "b")
    label_a, label_b = run_labels(capture_a, capture_b, where_a=_where(a), where_b=_where(b))
    return Comparison(diff_captures(capture_a, capture_b, a_label=label_a, b_label=label_b))


def _where(run) -> str | None:
    """Where a run given to :func:`compare` came from, to tell two runs of one file apart."""
    if isinstance(run, Recording):
        return None if run.line is None else f"record() at line {run.line}"
    if isinstance(run, (str, os.PathLike)):
        return os.fspath(run)
    return None


def open_in_app(path: str | os.PathLike) -> subprocess.Popen:
    """Start the desktop app on a session file in a process of its own (the caller does not wait)."""
    return subprocess.Popen([sys.executable, "-m", "gradexplorer", str(path)], stdin=subprocess.DEVNULL,
                            start_new_session=True)


# -- building --------------------------------------------------------------------------------
def _program_text(filename: str) -> str:
    """The text of the file the recording was started in (a notebook cell's, through linecache)."""
    lines = linecache.getlines(filename)
    return "".join(lines)


def _scopes_of(caller) -> tuple[dict, list[tuple[str, dict]]]:
    """The caller's globals (minus an IPython session's history) and, in a function, its locals as a scope."""
    namespace = dict(caller.f_globals)
    if "get_ipython" in namespace:  # a notebook or IPython: In, Out, _, _3, _i3 are its history
        namespace = {k: v for k, v in namespace.items() if k not in _IPYTHON_NAMES and not k.startswith("_")}
    scopes = []
    if caller.f_code.co_name != "<module>":
        code = caller.f_code
        scopes.append((f"{getattr(code, 'co_qualname', code.co_name)}()", dict(caller.f_locals)))
    return namespace, scopes


def _build(state: dict, exc: BaseException | None):
    from .core.capture.run import exception_report
    from .core.pipeline import build_capture
    from .core.records.source import SourceText

    caller, filename, project = state["caller"], state["filename"], state["project"]
    code = _program_text(filename)
    error = None
    if exc is not None:
        error = exception_report(exc, project, SourceText(code.splitlines(), project.texts))
    namespace, scopes = _scopes_of(caller)
    import torch

    cwd = ""
    with contextlib.suppress(OSError):
        cwd = os.getcwd()
    return build_capture(
        state["recorder"], namespace, code=code, filename=filename, device=str(torch.get_default_device()),
        project=project, error=error, stdout=state["out"].text(), stderr=state["err"].text(),
        value_elements=state["recorder"].snapshots.value_elements, run_seconds=time.perf_counter() - state["started"],
        args=tuple(sys.argv[1:]), cwd=cwd, outer_scopes=scopes)


def _walk(tensor, node, caller):
    """A capture of an existing graph: no program ran under a recorder; names from the caller's scope."""
    from .core.capture.project import Project
    from .core.capture.recording import Recorder
    from .core.pipeline import build_capture
    from .core.records.tensors import SnapshotBuffer

    filename = caller.f_code.co_filename
    roots = [os.path.dirname(filename)] if os.path.isabs(filename) else []
    project = Project(filename, roots)
    snapshots = SnapshotBuffer()
    recorder = Recorder(filename=filename, snapshots=snapshots, project=project)
    snapshots.end_run()
    namespace, scopes = _scopes_of(caller)
    # The tensor is named as the caller named it; an expression's result (show(model(x).sum())) is "output".
    if not any(value is tensor for _, variables in [("", namespace), *scopes] for value in variables.values()):
        scopes.append(("", {"output": tensor}))
    cwd = ""
    with contextlib.suppress(OSError):
        cwd = os.getcwd()
    return build_capture(recorder, namespace, code=_program_text(filename), filename=filename,
                         device=str(tensor.device), project=project, error=None, stdout="", stderr="",
                         args=tuple(sys.argv[1:]), cwd=cwd, outer_scopes=scopes, roots=[node])


def _summary_lines(capture) -> list[str]:
    graph = capture.graph
    leaves = [(attrs["names"][0] if attrs["names"] else node_id, attrs.get("grad"))
              for node_id, attrs in graph.nodes(data=True) if attrs["kind"] == "leaf"]
    lines = [f"{graph.number_of_nodes()} nodes, {len(capture.passes)} backward pass(es), {len(leaves)} leaves"]
    for name, grad in leaves[:8]:
        norm = "no .grad" if grad is None else f"grad {grad.short(width=32)}"
        lines.append(f"  {name}: {norm}")
    if len(leaves) > 8:
        lines.append(f"  ... {len(leaves) - 8} more leaves")
    for audit in capture.modules:
        for warning in audit.warnings:
            if warning.severity == "warning":
                lines.append(f"  warning: {warning.message}")
    if capture.error is not None:
        lines.append(f"  error: {capture.error.headline()}")
    return lines

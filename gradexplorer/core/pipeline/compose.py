"""The capture's pipeline composed: run the program, then the build steps in order, each timed.

:func:`capture` is the core's entry point (the CLI, the app's worker and the
isolated engine's child call it); :func:`build_capture` is its second half,
shared with the recording API (:func:`gradexplorer.record`), whose
"program" is a block of the user's own script.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch

from ..capture.devices import resolve_device
from ..capture.recording import HOOK_HELPER_NAME, Recorder
from ..capture.run import compile_program, run_program, syntax_error_capture
from ..capture.script import ScriptRun
from ..capture.streams import DEFAULT_MAX_OUTPUT_CHARS
from ..collector import freeze_survivors
from ..records.capture import Capture
from ..records.errors import ErrorReport
from ..records.nodes import CaptureGraph
from ..records.source import SourceText
from ..records.tensors import DEFAULT_VALUE_ELEMENTS, RecordMaker
from .steps import STEPS, ProgramFacts, Step

__all__ = ["build_capture", "capture", "run_steps"]

#: ``on_step(step name, what the steps made so far)``, called after each step.
StepCallback = Callable[[str, dict[str, Any]], None]


def run_steps(made: dict[str, Any], steps: tuple[Step, ...] = STEPS, *, timings: dict[str, float],
              on_step: StepCallback | None = None) -> dict[str, Any]:
    """Run ``steps`` in order on ``made`` (the run's facts), adding each product to it; return it.

    Each step's seconds go to ``timings[step.name]``; ``on_step`` is called
    after each (its own time is not counted in any step: the isolated
    engine's child sends the graph's nodes from there).
    """
    for step in steps:
        started = time.perf_counter()
        made[step.makes] = step.run(*[made[name] for name in step.reads])
        timings[step.name] = time.perf_counter() - started
        if on_step is not None:
            on_step(step.name, made)
    return made


def build_capture(recorder: Recorder, namespace: dict[str, Any], *, skip: frozenset[str] = frozenset(), code: str,
                  filename: str, device: str, project, error, stdout: str, stderr: str,
                  value_elements: int = DEFAULT_VALUE_ELEMENTS, saved_values: bool = True,
                  on_graph: Callable[[CaptureGraph, int], None] | None = None, run_seconds: float = 0.0,
                  restored: tuple = (), args: tuple[str, ...] = (), cwd: str = "",
                  outer_scopes=(), roots: list | None = None, figures=(),
                  on_step: StepCallback | None = None) -> Capture:
    """Turn what a recorder saw into a :class:`Capture` through the build steps (:mod:`.steps`).

    Names come from ``namespace`` (the globals), then ``outer_scopes``
    (``(scope, locals)`` pairs the caller knows of, outermost first), then
    the functions the recorder saw running; ``roots``: walk the graph from
    these autograd nodes only (default: every named tensor and pass root).
    ``on_graph(graph, pass_count)`` is called once the graph is walked,
    before the rest (which never changes its nodes); ``on_step`` after
    every step. ``capture.timings`` has ``run``, ``build`` (every step,
    without the callbacks), each step's seconds, and the walk's own
    ``snapshot`` and ``graph`` phases.
    """
    program = ProgramFacts(code=code, filename=filename, device=device, project=project, error=error, stdout=stdout,
                           stderr=stderr, value_elements=value_elements, saved_values=saved_values,
                           run_seconds=run_seconds, restored=tuple(restored), args=tuple(args), cwd=cwd, skip=skip,
                           outer_scopes=tuple(outer_scopes), roots=None if roots is None else tuple(roots),
                           figures=tuple(figures))
    made: dict[str, Any] = {"trace": recorder, "namespace": namespace, "program": program,
                            "text": SourceText(code.splitlines(), project.texts),
                            # One record per tensor, whichever step describes it (graph, named tensors, modules).
                            "records": RecordMaker(value_elements)}
    steps_timed: dict[str, float] = {}

    def after_step(name: str, so_far: dict[str, Any]) -> None:
        if name == "walk" and on_graph is not None:
            on_graph(so_far["walk"].graph, len(recorder.passes))
        if on_step is not None:
            on_step(name, so_far)

    made = run_steps(made, timings=steps_timed, on_step=after_step if on_graph or on_step else None)
    result = made["explained"]
    timings = {"run": run_seconds, "build": sum(steps_timed.values()), **steps_timed, **made["walk"].phases}
    made.clear()  # the live objects go with the caller's release, not with this frame
    return replace(result, timings=timings)


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
    on_step: StepCallback | None = None,
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
        graph and tensors) are appended to it as a
        :class:`~gradexplorer.core.capture.run.ProgramRemains` instead of
        being freed when this returns, so that the caller chooses when that
        happens (:func:`~gradexplorer.core.capture.run.release_leftovers`).
        Freeing them took 0.02-0.03 s after a 10,000-node training step and
        0.15 s after a 50,000-node one: the app's worker frees them after
        the first picture is made; the isolated engine's child, which ends
        with ``os._exit``, never pays it.
    on_graph : callable, optional
        ``on_graph(graph, pass_count)`` as soon as the graph is built, before
        the named tensors, the module audit and the explanations (which
        never change the graph's nodes): the isolated engine's child encodes
        and sends the nodes from there, so that the app reads them while the
        child does the rest. Its time is not part of ``timings["build"]``.
    on_step : callable, optional
        ``on_step(step, made)`` after each build step (:data:`~gradexplorer.core.pipeline.steps.STEPS`),
        with what the steps have made so far; not counted in the timings.

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
    program = compile_program(code, filename)
    if isinstance(program, ErrorReport):  # a SyntaxError: nothing has run
        return syntax_error_capture(code, filename, str(torch_device), run, program)
    with contextlib.ExitStack() as build_pause:
        ran = run_program(code, program, device=torch_device, filename=filename, run=run,
                          value_elements=value_elements, max_ops=max_ops, max_output_chars=max_output_chars,
                          on_output=on_output, read_input=read_input, exec_guard=exec_guard, build_pause=build_pause)
        result = build_capture(
            ran.recorder, ran.namespace, skip=frozenset({HOOK_HELPER_NAME}), code=code, filename=filename,
            device=str(torch_device), project=ran.project, error=ran.error, stdout=ran.stdout, stderr=ran.stderr,
            value_elements=value_elements, saved_values=saved_values, on_graph=on_graph, run_seconds=ran.seconds,
            restored=ran.restored, args=tuple(run.args), cwd=run.working_folder(filename), figures=ran.figures,
            on_step=on_step)
        remains = ran.remains()
        del ran
        if leftovers is not None:
            leftovers.append(remains)
        else:
            remains.release()
        del remains
        if freeze_result:
            # Inside the pause: the young objects go straight to the frozen
            # set instead of into one long collection when the pause ends.
            freeze_survivors()
    return result

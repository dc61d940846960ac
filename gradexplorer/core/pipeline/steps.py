"""The build steps of a capture, one function each, in the order :data:`STEPS` runs them.

Each step is a plain function whose parameters are named after what it
reads: the run's facts (``trace``: the recorder that watched the program,
``namespace``: its globals, ``program``: the :class:`ProgramFacts`,
``text``: its source lines, ``records``: the shared maker of tensor records)
or the product of an earlier step (``names``, ``walk``, ``passes``,
``tensors``, ``modules``, ``capture``). :func:`~gradexplorer.core.pipeline.compose.run_steps`
passes them by name and times each step, so the table below is the whole
order of the build, and a step that read something made later would fail at
once rather than read a stale value.

======== =========== ==========================================================
step     makes       what
======== =========== ==========================================================
names    names       the program's tensors and modules with every name they
                     are bound to (globals, the caller's and the program's
                     function locals, modules that ran named by class)
walk     walk        the autograd graph: nodes, edges, values, per-pass
                     gradients, hooks, module attribution (all the first
                     picture needs)
passes   passes      one :class:`PassSummary` per backward pass, in our ids
preview  preview     the :class:`Capture` the first picture needs (graph,
                     passes, output, error): the app draws it while the
                     steps below run
tensors  tensors     one :class:`TensorInfo` per named tensor object
modules  modules     the placement audit of every top-level module
assemble capture     the preview with the named tensors, the audit and
                     the files they point into
account  accounting  each reached leaf's ``.grad`` before, delivered and
                     after, pass by pass (kept in the graph: the
                     explanations, the checks and the inspector read it)
explain  explained   why each name gets a gradient or not; the audit's advice
                     reworded for passes that raised
======== =========== ==========================================================

The explanations read only the capture's plain data, as they do for a
reopened session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from ..analysis.accounting import account_leaves
from ..analysis.explain import explain_capture
from ..analysis.modules import audit_modules, reword_for_raised_passes
from ..capture.namespace import MAX_BINDINGS, Bindings, find_bindings, frame_scopes, name_modules_that_ran
from ..capture.project import Project
from ..capture.recording import Recorder
from ..capture.run import versions
from ..collector import paused_collection
from ..graph.build import build_graph
from ..records.capture import Capture, PassSummary, TensorInfo
from ..records.errors import ErrorReport
from ..records.figures import FigureImage
from ..records.modules import ModuleAudit
from ..records.nodes import CaptureGraph
from ..records.phrases import Phrase, phrase
from ..records.source import SourceText
from ..records.tensors import DEFAULT_VALUE_ELEMENTS, RecordMaker, resolve_all
from .tensor_infos import tensor_infos

__all__ = ["STEPS", "GraphWalk", "ProgramFacts", "Step"]


@dataclass(frozen=True)
class ProgramFacts:
    """What is known of a finished program besides its objects: text, place, output, error, settings.

    The plain inputs of the build steps; the live ones (the recorder, the
    globals) are passed beside it.
    """

    code: str
    filename: str
    device: str
    project: Project
    error: ErrorReport | None
    stdout: str
    stderr: str
    value_elements: int = DEFAULT_VALUE_ELEMENTS
    saved_values: bool = True
    run_seconds: float = 0.0
    restored: tuple[Phrase | str, ...] = ()
    args: tuple[str, ...] = ()
    cwd: str = ""
    #: Names never shown (the helper the program's hook calls were rewritten to).
    skip: frozenset[str] = frozenset()
    #: ``(scope, locals)`` pairs the caller knows of, outermost first (the recording API's caller).
    outer_scopes: tuple[tuple[str, dict[str, Any]], ...] = ()
    #: Walk from these autograd nodes only (default: every named tensor and pass root).
    roots: tuple | None = None
    figures: tuple[FigureImage, ...] = ()


class GraphWalk(NamedTuple):
    """The ``walk`` step's product: the graph, our id of each autograd node, and the walk's own phases."""

    graph: CaptureGraph
    ids: dict
    phases: dict[str, float]


@dataclass(frozen=True)
class Step:
    """One named step: the function, and the name of what it makes (read by later steps under that name)."""

    name: str
    makes: str
    run: Callable[..., Any]
    #: The names it reads: its parameters.
    reads: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        code = self.run.__code__
        object.__setattr__(self, "reads", code.co_varnames[:code.co_argcount])


def name_objects(trace: Recorder, namespace: dict[str, Any], program: ProgramFacts) -> Bindings:
    """The program's tensors and modules with their names: globals, then outer scopes, then the functions that ran."""
    scopes = [*program.outer_scopes, *frame_scopes(list(trace.frames.values()))]
    bindings = find_bindings(namespace, skip=program.skip, scopes=scopes)
    name_modules_that_ran(bindings, list(trace.modules.values()))
    return bindings


def walk(trace: Recorder, names: Bindings, text: SourceText, program: ProgramFacts,
         records: RecordMaker) -> GraphWalk:
    """The autograd graph from every named tensor and pass root (or ``program.roots``)."""
    phases: dict[str, float] = {}
    graph, ids = build_graph(trace, names, lines=text, value_elements=program.value_elements,
                             saved_values=program.saved_values, timings=phases, records=records,
                             roots=None if program.roots is None else list(program.roots))
    return GraphWalk(graph, ids, phases)


def summarize_passes(trace: Recorder, names: Bindings, walk: GraphWalk, text: SourceText) -> tuple[PassSummary, ...]:
    """Each backward pass with our node ids and the names of its roots and inputs."""
    graph, ids = walk.graph, walk.ids
    named_ids = {node_id: names for node_id, names in graph.nodes(data="names") if names}
    named_nodes = {node: named_ids[node_id] for node, node_id in ids.items() if node_id in named_ids}
    return tuple(
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
            root_names=tuple(name for t in trace.pass_root_tensors(p) for name in names.names_of(t)[:1]),
            thread=p.thread,
            input_names=tuple(found[0] for found in (named_nodes.get(n) for n, _ in p.inputs) if found),
            raised_at=ids.get(p.raised_at) if p.raised_at is not None else None,
        )
        for p in trace.passes
    )


def record_tensors(trace: Recorder, names: Bindings, walk: GraphWalk, text: SourceText,
                   records: RecordMaker) -> tuple[TensorInfo, ...]:
    """One record per named tensor object (:func:`~gradexplorer.core.pipeline.tensor_infos.tensor_infos`)."""
    return tensor_infos(names, trace, walk.ids, text, records)


def audit(names: Bindings, walk: GraphWalk, passes: tuple[PassSummary, ...], tensors: tuple[TensorInfo, ...],
          program: ProgramFacts, records: RecordMaker) -> tuple[ModuleAudit, ...]:
    """Where each module's parameters, buffers and plain tensors live, and what is wrong with it."""
    delivered = frozenset(name for _, attrs in walk.graph.nodes(data=True) if attrs["kind"] == "leaf"
                          and any(lp.delivered is not None for lp in attrs["accumulation"].values())
                          for name in attrs["names"])
    frozen_at = {name: info.switched_off for info in tensors if info.switched_off is not None for name in info.names}
    return audit_modules(names, passes_ran=bool(passes), value_elements=program.value_elements, delivered=delivered,
                         records=records, frozen_at=frozen_at)


def preview(trace: Recorder, walk: GraphWalk, passes: tuple[PassSummary, ...], program: ProgramFacts) -> Capture:
    """The capture as the first picture needs it: graph, passes, output and error, without the named
    tensors, the module audit and the explanations (empty here; the app says they are being computed)."""
    return Capture(
        code=program.code,
        filename=program.filename,
        device=program.device,
        graph=walk.graph,
        passes=passes,
        stdout=program.stdout,
        stderr=program.stderr,
        error=program.error,
        executed=True,
        dropped_ops=trace.dropped_ops,
        versions=versions(),
        value_elements=program.value_elements,
        restored=program.restored,
        args=program.args,
        cwd=program.cwd,
        root=program.project.root,
        files=files_pointed_at(walk.graph, passes, program.error, program.project.texts),
        figures=program.figures,
    )


def assemble(preview: Capture, names: Bindings, tensors: tuple[TensorInfo, ...], modules: tuple[ModuleAudit, ...],
             program: ProgramFacts) -> Capture:
    """The :class:`Capture` of what the steps made (timings are added when every step is done)."""
    restored = preview.restored
    if names.truncated:
        restored = (*restored, phrase("the program's variables hold more than {most} values (tensors, modules, "
                                      "containers and their items): names were looked up in the first {most} only, "
                                      "so some tensors may show their op instead of their name",
                                      most=f"{MAX_BINDINGS:,}"))
    texts = program.project.texts
    # The preview has the files of the graph, the passes and the error; the named tensors' lines may add some.
    wanted = set(preview.files) | {file for file in _tensor_files(tensors) if file in texts}
    files = preview.files if len(wanted) == len(preview.files) else {file: texts[file] for file in sorted(wanted)}
    return replace(preview, tensors=tensors, modules=modules, restored=restored, files=files)


def account(walk: GraphWalk) -> dict:
    """Every reached leaf's pass-by-pass accounting of ``.grad``, kept in the graph for its readers.

    The explanations, the checks and the inspector read it
    (:func:`~gradexplorer.core.analysis.accounting.leaf_steps_of`); made here,
    off the GUI thread, once.
    """
    return account_leaves(walk.graph)


def explain(capture: Capture) -> Capture:
    """The capture with its explanations, and the module audit's advice reworded where a pass raised.

    With no cyclic collection meanwhile: each explanation is a few small
    phrases (no cycles), and on a big capture's heap the collections their
    allocations set off cost more than making them (54 against 40 ms before
    phrases, 135 against 64 ms after, on a 10k-node step's 2,150 names).
    """
    with paused_collection():
        explanations = explain_capture(capture)
    return replace(capture, explanations=explanations,
                   modules=reword_for_raised_passes(capture.modules, explanations))


def files_pointed_at(graph, passes, error, texts: dict[str, str]) -> dict[str, str]:
    """The project files (other than the program) that a node's or hook's line, a pass or an error frame points into."""
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
    if error is not None:
        wanted.update(frame[2] for frame in error.frames if len(frame) > 2 and frame[2] is not None)
    return {file: texts[file] for file in sorted(wanted) if file in texts}


def _tensor_files(tensors: tuple[TensorInfo, ...]) -> set[str]:
    """The project files the named tensors' lines point into (where made, switched off, hooked, returned)."""
    wanted: set[str] = set()
    for info in tensors:
        for source in (info.origin.source if info.origin else None, info.switched_off, info.hook_gradient,
                       info.grad_result):
            if source is not None and source.file is not None:
                wanted.add(source.file)
    return wanted


#: The build, in order (the module docstring's table).
STEPS: tuple[Step, ...] = (
    Step("names", "names", name_objects),
    Step("walk", "walk", walk),
    Step("passes", "passes", summarize_passes),
    Step("preview", "preview", preview),
    Step("tensors", "tensors", record_tensors),
    Step("modules", "modules", audit),
    Step("assemble", "capture", assemble),
    Step("account", "accounting", account),
    Step("explain", "explained", explain),
)

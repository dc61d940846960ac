"""Gradient flow: how much gradient each parameter received in each backward pass.

The question behind "why does my model not learn": which layers get almost
no gradient (vanishing) or far too much (exploding, NaN/Inf)? For every
parameter (a leaf made inside an ``nn.Module``) and every pass this gives
the L2 norm, the mean and the largest absolute value of the gradient that
reached its ``AccumulateGrad`` node in that pass, the same tensor that
``param.grad`` holds after that pass when ``zero_grad()`` ran before it.

Parameters come in **execution order**: by the first op of the forward pass
that used them (the creation order of the node that consumed the parameter),
ties (a layer's weight and bias) in the order the module registered them
(``named_parameters()``). So a chart reads from the input side to the output
side of the model as it ran, whatever the modules are called (an input
embedding ``model.tok`` first, ``model.2`` before ``model.10``). Parameters
that got no gradient are kept in their place with a status: ``"frozen"``
(``requires_grad`` is off: they are not in the autograd graph, their place
is where their module first ran) or ``"unreached"`` (they require grad, but
no pass brought them one: an unused head, a cut graph).

:func:`flow_warnings` names the outliers by a rule a user can check by hand:
in a pass, a parameter whose gradient norm is below :data:`VANISHING_RATIO`
times the median norm of that pass (or exactly zero) is *vanishing*; above
:data:`EXPLODING_RATIO` times the median, or with NaN/Inf, *exploding*.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch

from ..records.phrases import Phrase, phrase
from ..records.tensors import TensorRecord

__all__ = ["EXPLODING_RATIO", "FlowWarning", "PassGradient", "ParameterFlow", "VANISHING_RATIO",
           "flow_warnings", "gradient_flow", "parameter_gradients"]

#: Below this share of the pass's median norm, a parameter's gradient is called vanishing.
VANISHING_RATIO = 1e-3
#: Above this multiple of the pass's median norm, a parameter's gradient is called exploding.
EXPLODING_RATIO = 1e3


@dataclass(frozen=True)
class PassGradient:
    """One parameter's gradient in one pass (None fields: unknown, e.g. only statistics were kept)."""

    norm: float | None
    mean_abs: float | None
    max_abs: float | None
    nonfinite: bool


@dataclass(frozen=True)
class ParameterFlow:
    """One parameter and its gradient in every pass (None where no gradient reached it).

    ``node_id`` is None for a frozen parameter (no ``AccumulateGrad`` node);
    ``status`` is ``"ok"`` (a gradient in some pass), ``"frozen"`` or
    ``"unreached"`` (see the module docstring).
    """

    node_id: str | None
    name: str
    module: str
    passes: tuple[PassGradient | None, ...]
    status: str = "ok"


@dataclass(frozen=True)
class FlowWarning:
    """A parameter whose gradient stands out in a pass."""

    kind: str  # "vanishing" or "exploding"
    flow: ParameterFlow
    pass_index: int
    norm: float | None
    median: float

    @property
    def text(self) -> str:
        return self.said.render()

    @property
    def said(self) -> Phrase:
        """:attr:`text` as a phrase (the app says it in the reader's language)."""
        norm = "NaN/Inf" if self.norm is None or not math.isfinite(self.norm) else f"{self.norm:.3g}"
        template = (phrase("vanishing: {name} in pass {number}: gradient norm {norm} (median of the pass {median})")
                    if self.kind == "vanishing" else
                    phrase("exploding: {name} in pass {number}: gradient norm {norm} (median of the pass {median})"))
        return Phrase(template.template, (("name", self.flow.name), ("number", self.pass_index + 1), ("norm", norm),
                                          ("median", f"{self.median:.3g}")))


def _natural(path: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path))


#: Dtypes :func:`_measure` reads with numpy when the norm proved them finite (those ``finite_norm`` takes).
_NUMPY_FLOATS = (torch.float32, torch.float64)


def _measure(record: TensorRecord | None) -> PassGradient | None:
    if record is None:
        return None
    norm, nonfinite = record.norm_and_nonfinite()
    data = record.data
    if (norm is not None and not nonfinite and data is not None and data.dtype in _NUMPY_FLOATS
            and data.device.type == "cpu" and data.layout == torch.strided and data.numel()):
        # A finite norm proves every value finite: both figures straight from the values, in numpy (a first
        # picture measures every parameter: 0.023 s for the 10k transformer's 1,958, against 0.089 s for the
        # full statistics and the masked torch ops below).
        magnitudes = np.abs(data.detach().numpy().reshape(-1))
        return PassGradient(norm, float(magnitudes.mean(dtype=np.float64)), float(magnitudes.max()), False)
    stats = record.stats
    max_abs = None
    if stats is not None and stats.min is not None and stats.max is not None:
        max_abs = max(abs(stats.min), abs(stats.max))
    mean_abs = None
    if data is not None and data.numel():
        finite = data[data.isfinite()] if data.is_floating_point() else data
        mean_abs = float(finite.abs().double().mean()) if finite.numel() else None
    return PassGradient(norm, mean_abs, max_abs, nonfinite)


def _parameters(graph: nx.DiGraph):
    """``(node_id, attrs)`` of every parameter: a leaf made inside a module."""
    for node_id, attrs in graph.nodes(data=True):
        if attrs.get("kind") == "leaf" and attrs.get("module"):
            yield node_id, attrs


def _pass_record(attrs: dict, index: int) -> TensorRecord | None:
    """The gradient that reached a parameter's accumulator in pass ``index`` (None: none did)."""
    flow = (attrs.get("grads") or {}).get(index)
    return flow.outputs[0] if flow is not None and flow.outputs else None


def parameter_gradients(graph: nx.DiGraph, pass_count: int) -> list[TensorRecord]:
    """The records :func:`gradient_flow` reads: every parameter's gradient in every pass.

    The isolated engine's child sends their statistics with the capture
    (the others follow it), so that the first picture's chart never waits.
    """
    return [record for _, attrs in _parameters(graph) for index in range(pass_count)
            if (record := _pass_record(attrs, index)) is not None]


def gradient_flow(graph: nx.DiGraph, pass_count: int, modules=()) -> tuple[ParameterFlow, ...]:
    """Every parameter's gradient per pass, in execution order (see the module docstring).

    ``modules`` (the capture's module audits) add the parameters that are
    not in the graph (frozen, or never used) and give ties their
    registration order.
    """
    registered = {}  # parameter path -> (registration order, requires_grad)
    for audit in modules:
        for sub in audit.walk():
            for entry in sub.entries:
                if entry.kind == "parameter" and entry.path not in registered:
                    registered[entry.path] = (len(registered), entry.requires_grad, sub.path)
    first_use = _first_use(graph)
    module_start = None  # needed only for parameters the graph does not hold (frozen, never used)
    flows, keys, seen = [], [], set()
    for node_id, attrs in _parameters(graph):
        module = attrs["module"]
        per_pass = tuple(_measure(_pass_record(attrs, index)) for index in range(pass_count))
        name = attrs["names"][0] if attrs.get("names") else f"{module} ({node_id})"
        seen.update(attrs.get("names") or ())
        status = "ok" if any(g is not None for g in per_pass) else "unreached"
        flows.append(ParameterFlow(node_id, name, module, per_pass, status))
        order = registered.get(name, (math.inf,))[0]
        keys.append((first_use.get(node_id, math.inf), order, _natural(module), _natural(name)))
    for name, (order, requires_grad, module) in registered.items():
        if name in seen:
            continue
        if module_start is None:
            module_start = _module_starts(graph)
        flows.append(ParameterFlow(None, name, module, (None,) * pass_count,
                                   "unreached" if requires_grad else "frozen"))
        keys.append((module_start.get(module, math.inf), order, _natural(module), _natural(name)))
    return tuple(flow for _, flow in sorted(zip(keys, flows), key=lambda pair: pair[0]))


def _first_use(graph: nx.DiGraph) -> dict[str, float]:
    """Each parameter's first use: the smallest creation order (``seq``) of the ops that consumed it.

    A node made inside an op (``linear``'s ``TBackward0``) has no ``seq``: it
    counts as made when its first consumer was (edges run from consumer to
    input). Only the parameters' consumers and, for those without ``seq``,
    their own consumers are looked at, not the whole graph in topological
    order (0.11 s of a 50,000-node step's 0.35 s gradient flow).
    """
    leaves = [node_id for node_id, _ in _parameters(graph)]
    if not leaves:
        return {}
    made: dict[str, float] = {}
    nodes, pred = graph.nodes, graph.pred

    def made_at(start: str) -> float:
        stack, entered = [start], set()
        while stack:
            node = stack[-1]
            if node in made:
                stack.pop()
                continue
            seq = nodes[node].get("seq")
            waiting = [] if seq is not None or node in entered else [u for u in pred[node] if u not in made]
            if waiting:
                entered.add(node)  # a cycle (never in autograd's graphs) cannot loop: the second visit settles
                stack.extend(waiting)
                continue
            made[node] = seq if seq is not None else min((made.get(u, math.inf) for u in pred[node]),
                                                         default=math.inf)
            stack.pop()
        return made[start]

    return {leaf: min((made_at(u) for u in pred[leaf]), default=math.inf) for leaf in leaves}


def _module_starts(graph: nx.DiGraph) -> dict[str, float]:
    """The first op each module path (and every module above it) made, by creation order."""
    own: dict[str, float] = {}  # each module's own first op, then passed up to the modules above it
    for _, attrs in graph.nodes(data=True):
        module, seq = attrs.get("module"), attrs.get("seq")
        if module is None or seq is None or attrs.get("kind") == "leaf":
            continue
        if seq < own.get(module, math.inf):
            own[module] = seq
    starts: dict[str, float] = {}
    for module, seq in own.items():
        parts = module.split(".")
        for end in range(1, len(parts) + 1):
            path = ".".join(parts[:end])
            if seq < starts.get(path, math.inf):
                starts[path] = seq
    return starts


def flow_warnings(flows: tuple[ParameterFlow, ...]) -> list[FlowWarning]:
    """The vanishing and exploding gradients of every pass (see the module docstring for the rule)."""
    warnings = []
    passes = max((len(f.passes) for f in flows), default=0)
    for index in range(passes):
        present = [(f, f.passes[index]) for f in flows if index < len(f.passes) and f.passes[index] is not None]
        norms = [g.norm for _, g in present if g.norm is not None and math.isfinite(g.norm)]
        median = statistics.median(norms) if norms else math.nan
        for flow, gradient in present:
            norm = gradient.norm
            if gradient.nonfinite:
                warnings.append(FlowWarning("exploding", flow, index, math.inf, median))
            elif not norms:
                continue
            elif norm is not None and median > 0 and norm > EXPLODING_RATIO * median:
                warnings.append(FlowWarning("exploding", flow, index, norm, median))
            elif norm is not None and (norm == 0 or norm < VANISHING_RATIO * median):
                warnings.append(FlowWarning("vanishing", flow, index, norm, median))
    return warnings

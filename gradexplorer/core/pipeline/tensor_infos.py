"""The record of each named tensor: its value, gradient, how it was made, and where its graph was cut.

The ``tensors`` step of the capture pipeline (:mod:`gradexplorer.core.pipeline`).
It reads the live tensors the program left and what the recorder noted about
them (origin, source of a ``detach``, ``requires_grad`` switched off, hook
gradients, ``autograd.grad`` results, cuts), once, after the run.
"""

from __future__ import annotations

import torch

from ..capture.namespace import Bindings
from ..capture.recording import ESCAPING_CALLS, Recorder
from ..graph.autograd_nodes import grad_fn_of
from ..graph.build import node_for_tensor, walk_nodes
from ..records.capture import CutRecord, OriginRecord, TensorInfo
from ..records.source import SourceLine, SourceText
from ..records.tensors import RecordMaker

__all__ = ["tensor_infos"]


def tensor_infos(bindings: Bindings, recorder: Recorder, ids: dict, text: SourceText,
                 record_of: RecordMaker) -> tuple[TensorInfo, ...]:
    """One :class:`TensorInfo` per named tensor object, in namespace order (``ids``: our id of each autograd node)."""
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

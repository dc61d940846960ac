"""Find every tensor and module the user's code left bound to a name.

Names are what makes a graph readable (torchviz issue 59): ``d``, ``layer.w``,
``grads['d']``. They come from the namespace the code ran in, not from
tracing, so aliases show up exactly as Python has them: after ``b = a`` the
one tensor object carries both names.

Name forms
----------
``x``
    a top-level variable;
``xs[0]``, ``out['loss']``
    an item of a list, tuple or dict (string or int keys), nested as deep as
    :data:`MAX_DEPTH`;
``model.0.weight``, ``layer.a``
    a parameter, buffer, plain tensor attribute or submodule of an
    ``nn.Module``, in PyTorch's dotted ``state_dict`` style;
``state.hidden``, ``ns.c``
    an attribute of a plain object of the user's (a class instance, a
    ``SimpleNamespace``, a dataclass). Objects of torch's own classes
    (optimizers, schedulers) are not searched: they would give every
    parameter a second, noisy name.
"""

from __future__ import annotations

import types
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from ..analysis.modules import own_tensors

__all__ = ["Bindings", "MAX_BINDINGS", "MAX_DEPTH", "find_bindings"]

#: How deep containers are searched (``a[0][1]['x']`` is depth 3).
MAX_DEPTH = 6
#: Stop after this many container items, so a huge list cannot stall a run.
MAX_BINDINGS = 200_000


@dataclass
class Bindings:
    """Tensors and modules reachable from a namespace, with all their names.

    Attributes
    ----------
    tensors : dict of int to (torch.Tensor, list of str)
        Keyed by ``id``; the tuple holds the tensor (keeping the id valid) and
        its names in discovery order (top-level names first).
    modules : dict of int to (nn.Module, list of str)
    owners : dict of int to str
        ``id`` of a parameter or buffer -> path of the module that owns it.
    truncated : bool
        True when :data:`MAX_BINDINGS` stopped the search.
    """

    tensors: dict[int, tuple[torch.Tensor, list[str]]] = field(default_factory=dict)
    modules: dict[int, tuple[nn.Module, list[str]]] = field(default_factory=dict)
    owners: dict[int, str] = field(default_factory=dict)
    truncated: bool = False

    def names_of(self, tensor: torch.Tensor) -> list[str]:
        """Every name bound to this tensor object (empty if unnamed)."""
        entry = self.tensors.get(id(tensor))
        return [] if entry is None else entry[1]

    def _add_tensor(self, tensor: torch.Tensor, name: str) -> None:
        entry = self.tensors.get(id(tensor))
        if entry is None:
            self.tensors[id(tensor)] = (tensor, [name])
        elif name not in entry[1]:
            entry[1].append(name)


def _is_user_name(name: str) -> bool:
    return not (name.startswith("__") and name.endswith("__"))


def find_bindings(namespace: dict[str, Any], *, skip: frozenset[str] = frozenset()) -> Bindings:
    """Walk ``namespace`` breadth-first and collect tensors and modules.

    Parameters
    ----------
    namespace : dict
        The globals the user's code ran in.
    skip : frozenset of str, keyword-only
        Top-level names that gradexplorer injected itself.

    Returns
    -------
    Bindings
    """
    found = Bindings()
    queue: deque[tuple[Any, str, int]] = deque(
        (value, name, 0) for name, value in list(namespace.items()) if _is_user_name(name) and name not in skip
    )
    seen_containers: set[int] = set()
    budget = MAX_BINDINGS
    while queue:
        budget -= 1
        if budget < 0:
            found.truncated = True
            break
        value, name, depth = queue.popleft()
        if isinstance(value, torch.Tensor):
            found._add_tensor(value, name)
        elif isinstance(value, nn.Module):
            _add_module(found, value, name)
        elif isinstance(value, (list, tuple, dict)) and depth < MAX_DEPTH:
            if id(value) in seen_containers:
                continue
            seen_containers.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, (str, int)) and not isinstance(key, bool):
                    queue.append((item, f"{name}[{key!r}]", depth + 1))
        elif depth < MAX_DEPTH and _is_plain_object(value):
            if id(value) in seen_containers:
                continue
            seen_containers.add(id(value))
            for attr, item in list(vars(value).items()):
                if isinstance(attr, str) and not attr.startswith("_"):
                    queue.append((item, f"{name}.{attr}", depth + 1))
    return found


_NOT_SEARCHED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _is_plain_object(value: Any) -> bool:
    """A user object whose attributes may hold tensors (not a class, function, module or torch object)."""
    if isinstance(value, _NOT_SEARCHED) or not hasattr(value, "__dict__"):
        return False
    module = getattr(type(value), "__module__", "") or ""
    return not (module == "torch" or module.startswith(("torch.", "numpy", "builtins")))


def _add_module(found: Bindings, module: nn.Module, name: str) -> None:
    for sub_path, sub in module.named_modules(remove_duplicate=False):
        path = f"{name}.{sub_path}" if sub_path else name
        entry = found.modules.get(id(sub))
        if entry is None:
            found.modules[id(sub)] = (sub, [path])
        elif path not in entry[1]:
            entry[1].append(path)
        parameters, buffers, plain = own_tensors(sub)
        for pname, param in parameters:
            found._add_tensor(param, f"{path}.{pname}")
            found.owners.setdefault(id(param), path)
        for bname, buf in buffers:
            found._add_tensor(buf, f"{path}.{bname}")
            found.owners.setdefault(id(buf), path)
        for attr, value in plain:
            found._add_tensor(value, f"{path}.{attr}")

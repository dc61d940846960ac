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

Scopes
------
Real training code keeps its model in a function's locals (``def main():
model = Net(); ...``). Names come from the program's globals first, then
from the locals of each user function the recorder saw running (outermost
first: ``main()`` before ``train_step()`` before ``Net.forward()``), each name
with its *scope* (``"main()"``; ``""`` for top level). An object keeps the
names of the first scope that reaches it first; a parameter is always named
by its module path first (``model.blocks.0.lin.weight``), whatever else
holds it. A module's own ``self`` in its methods never names it (its
parameters would all be ``self....``); a module that ran and that no
variable holds is named by its class (:func:`name_modules_that_ran`).
"""

from __future__ import annotations

import types
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from ..analysis.modules import own_tensors

__all__ = ["Bindings", "MAX_BINDINGS", "MAX_DEPTH", "find_bindings", "frame_scopes", "name_modules_that_ran"]

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
    scopes : dict of int to list of str
        ``id`` of a tensor -> the scope of each of its names, in the order
        of its names (``""`` at top level, ``"main()"`` in a function).
    module_scopes : dict of int to str
        ``id`` of a module -> the scope of its first name.
    roots : list of int
        ``id`` of every module reached as a value (not only as a submodule),
        in discovery order: the candidates for a top-level module.
    """

    tensors: dict[int, tuple[torch.Tensor, list[str]]] = field(default_factory=dict)
    modules: dict[int, tuple[nn.Module, list[str]]] = field(default_factory=dict)
    owners: dict[int, str] = field(default_factory=dict)
    truncated: bool = False
    scopes: dict[int, list[str]] = field(default_factory=dict)
    module_scopes: dict[int, str] = field(default_factory=dict)
    roots: list[int] = field(default_factory=list)

    def names_of(self, tensor: torch.Tensor) -> list[str]:
        """Every name bound to this tensor object (empty if unnamed)."""
        entry = self.tensors.get(id(tensor))
        return [] if entry is None else entry[1]

    def scopes_of(self, tensor: torch.Tensor) -> list[str]:
        """The scope of each name of this tensor (``""`` at top level), parallel to :meth:`names_of`."""
        return self.scopes.get(id(tensor), [])

    def _add_tensor(self, tensor: torch.Tensor, name: str, scope: str = "", *, first: bool = False) -> None:
        key = id(tensor)
        entry = self.tensors.get(key)
        if entry is None:
            self.tensors[key] = (tensor, [name])
            self.scopes[key] = [scope]
        elif name not in entry[1]:
            if first:
                entry[1].insert(0, name)
                self.scopes[key].insert(0, scope)
            else:
                entry[1].append(name)
                self.scopes[key].append(scope)


def _is_user_name(name: str) -> bool:
    return not (name.startswith("__") and name.endswith("__"))


def find_bindings(namespace: dict[str, Any], *, skip: frozenset[str] = frozenset(),
                  scopes: list[tuple[str, dict[str, Any]]] = ()) -> Bindings:
    """Walk ``namespace`` breadth-first and collect tensors and modules, then each scope's locals.

    Parameters
    ----------
    namespace : dict
        The globals the user's code ran in.
    skip : frozenset of str, keyword-only
        Top-level names that gradexplorer injected itself.
    scopes : list of (str, dict), keyword-only
        ``(scope, locals)`` of the user's functions, outermost first
        (:func:`frame_scopes`); searched after the globals, each breadth-first.

    Returns
    -------
    Bindings
    """
    found = Bindings()
    seen_containers: set[int] = set()
    budget = [MAX_BINDINGS]
    _search(found, [(value, name) for name, value in list(namespace.items())
                    if _is_user_name(name) and name not in skip], "", seen_containers, budget)
    for scope, variables in scopes:
        if found.truncated:
            break
        _search(found, [(value, name) for name, value in variables.items() if _is_local_name(name, value)],
                scope, seen_containers, budget)
    return found


def _search(found: Bindings, items: list[tuple[Any, str]], scope: str, seen_containers: set[int],
            budget: list[int]) -> None:
    """Breadth-first search from ``items`` (one scope's variables), within the shared budget."""
    queue: deque[tuple[Any, str, int]] = deque((value, name, 0) for value, name in items)
    while queue:
        budget[0] -= 1
        if budget[0] < 0:
            found.truncated = True
            break
        value, name, depth = queue.popleft()
        if isinstance(value, torch.Tensor):
            found._add_tensor(value, name, scope)
        elif isinstance(value, nn.Module):
            # In a function, a module that already has a name (``block`` in ``for block in self.blocks``)
            # adds only second names to every parameter: it keeps the one it has.
            if not scope or id(value) not in found.modules:
                _add_module(found, value, name, scope)
        elif isinstance(value, (list, tuple, dict)) and depth < MAX_DEPTH:
            if id(value) in seen_containers:
                continue
            seen_containers.add(id(value))
            items_of = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items_of:
                if isinstance(key, (str, int)) and not isinstance(key, bool):
                    queue.append((item, f"{name}[{key!r}]", depth + 1))
        elif depth < MAX_DEPTH and _is_plain_object(value):
            if id(value) in seen_containers:
                continue
            seen_containers.add(id(value))
            for attr, item in list(vars(value).items()):
                if isinstance(attr, str) and not attr.startswith("_"):
                    queue.append((item, f"{name}.{attr}", depth + 1))


def _is_local_name(name: str, value: Any) -> bool:
    """A function's variable worth a name: not a comprehension's hidden ``.0``, not a module's own ``self``."""
    if not isinstance(name, str) or name.startswith(".") or not _is_user_name(name):
        return False
    return not (name in ("self", "cls") and isinstance(value, nn.Module))


def frame_scopes(frames) -> list[tuple[str, dict[str, Any]]]:
    """``(scope, locals)`` of kept frames, outermost first (see :attr:`Recorder.frames`).

    The scope is the function's qualified name with ``()``: ``"main()"``,
    ``"Trainer.step()"``. Outermost means fewest callers: the frame of
    ``main()`` comes before those of the functions it calls; frames at the
    same depth keep the order they were first seen in.
    """
    ordered = []
    for order, frame in enumerate(frames):
        depth, caller = 0, frame.f_back
        while caller is not None and depth < 10_000:
            depth += 1
            caller = caller.f_back
        ordered.append((depth, order, frame))
    ordered.sort(key=lambda item: item[:2])
    result = []
    for _, _, frame in ordered:
        code = frame.f_code
        try:
            variables = dict(frame.f_locals)
        except Exception:  # noqa: BLE001 - a frame whose locals cannot be read names nothing
            continue
        result.append((f"{getattr(code, 'co_qualname', code.co_name)}()", variables))
    return result


def name_modules_that_ran(bindings: Bindings, modules) -> None:
    """Name every module that ran and that no variable holds by its class (``Net``, then ``Net_2``).

    Only the outermost of them get a name of their own; their submodules are
    named by path under it (``Net.fc``), so every op made inside a module has
    a module path and every such module is audited.
    """
    unnamed = [m for m in modules if id(m) not in bindings.modules]
    if not unnamed:
        return
    inside: set[int] = set()
    for module in unnamed:
        for _, sub in module.named_modules():
            if sub is not module:
                inside.add(id(sub))
    taken = {names[0] for _, names in bindings.modules.values()}
    for module in unnamed:
        if id(module) in inside or id(module) in bindings.modules:
            continue
        base = type(module).__name__
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        _add_module(bindings, module, name, "")


_NOT_SEARCHED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _is_plain_object(value: Any) -> bool:
    """A user object whose attributes may hold tensors (not a class, function, module or torch object)."""
    if isinstance(value, _NOT_SEARCHED) or not hasattr(value, "__dict__"):
        return False
    module = getattr(type(value), "__module__", "") or ""
    return not (module == "torch" or module.startswith(("torch.", "numpy", "builtins")))


def _add_module(found: Bindings, module: nn.Module, name: str, scope: str = "") -> None:
    if id(module) not in found.modules:
        found.roots.append(id(module))
    for sub_path, sub in module.named_modules(remove_duplicate=False):
        path = f"{name}.{sub_path}" if sub_path else name
        entry = found.modules.get(id(sub))
        if entry is None:
            found.modules[id(sub)] = (sub, [path])
            found.module_scopes[id(sub)] = scope
        elif path not in entry[1]:
            entry[1].append(path)
        parameters, buffers, plain = own_tensors(sub)
        for pname, param in parameters:
            # A parameter's first name is its module path, whatever variable held it first.
            found._add_tensor(param, f"{path}.{pname}", scope, first=id(param) not in found.owners)
            found.owners.setdefault(id(param), path)
        for bname, buf in buffers:
            found._add_tensor(buf, f"{path}.{bname}", scope, first=id(buf) not in found.owners)
            found.owners.setdefault(id(buf), path)
        for attr, value in plain:
            found._add_tensor(value, f"{path}.{attr}", scope)

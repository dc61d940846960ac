"""The module audit's records: where each parameter, buffer and plain tensor attribute lives.

Made by :mod:`gradexplorer.core.analysis.modules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .phrases import Phrase
from .tensors import TensorRecord

__all__ = ["ModuleAudit", "ModuleWarning", "StateEntry"]


@dataclass(frozen=True)
class StateEntry:
    """One tensor of a module's state.

    Attributes
    ----------
    path : str
        Full dotted path, e.g. ``"layer.a"``.
    kind : str
        ``"parameter"``, ``"buffer"`` or ``"plain"`` (an unregistered tensor attribute).
    record : TensorRecord
        Shape, dtype, device and values.
    requires_grad : bool
    has_grad : bool
        ``.grad`` is set (parameters).
    persistent : bool
        In ``state_dict()`` (parameters and persistent buffers).
    follows_to : bool
        Moves with ``module.to(...)`` (parameters and buffers, not plain attributes).
    """

    path: str
    kind: str
    record: TensorRecord
    requires_grad: bool
    has_grad: bool
    persistent: bool
    follows_to: bool

    @property
    def device(self) -> str:
        return self.record.device


@dataclass(frozen=True)
class ModuleWarning:
    """A placement problem (or fact worth knowing), with how to fix it.

    ``message`` and ``fix`` are :class:`~gradexplorer.core.records.phrases.Phrase`
    records (``str()`` is the English), so the app says them in the reader's
    language and a session keeps their facts, not their words.
    """

    code: str
    path: str
    message: Phrase
    fix: Phrase | None = None
    severity: str = "warning"  # or "info"


@dataclass(frozen=True)
class ModuleAudit:
    """One module and its submodules, as a tree.

    Attributes
    ----------
    path : str
        ``"layer"``, ``"model.0"``.
    type_name : str
        ``"Linear"``, ``"Layer"``.
    entries : tuple of StateEntry
        This module's own parameters, buffers and plain tensor attributes.
    children : tuple of ModuleAudit
    warnings : tuple of ModuleWarning
        For the root of a tree: every warning of the whole tree.
    devices : tuple of str
        Devices of the registered state of the whole tree, most common first.
    """

    path: str
    type_name: str
    entries: tuple[StateEntry, ...]
    children: tuple[ModuleAudit, ...]
    warnings: tuple[ModuleWarning, ...] = ()
    devices: tuple[str, ...] = ()

    def walk(self):
        """This audit and all below it, depth first."""
        stack = [self]
        while stack:
            audit = stack.pop()
            yield audit
            stack.extend(reversed(audit.children))

    def entry(self, path: str) -> StateEntry | None:
        """The state entry at ``path`` anywhere in the tree."""
        for audit in self.walk():
            for item in audit.entries:
                if item.path == path:
                    return item
        return None

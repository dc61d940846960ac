"""Where does each piece of an ``nn.Module``'s state live? The placement audit.

For every module bound in the final namespace, :func:`audit_modules` lists
its parameters, buffers (persistent or not), plain tensor attributes and
submodules as a tree of frozen records, with warnings that carry their fix:

``plain_tensor_attribute``
    A tensor assigned as ``self.a = torch.tensor(...)``: not registered, so it
    does not follow ``module.to(...)`` and is not in ``state_dict()``. The
    notes' ``register_buffer`` lesson.
``mixed_devices``
    Registered state of one module tree on more than one device.
``parameter_without_grad``
    A parameter that requires grad but got no gradient in any backward pass.
``ddp_reducer`` (info)
    A module wrapped by ``DistributedDataParallel``: its reducer's C++ hooks
    (invisible to Python) average ``.grad`` over the processes during backward.
``pass_raised``
    Such a parameter, on the graph of a backward pass that raised before
    reaching it (:func:`reword_for_raised_passes`): the error is the news, not
    the parameter (telling the user to freeze it would point the wrong way).
``frozen_parameters``
    A module whose parameters have ``requires_grad=False`` (frozen: no
    gradient reaches them, the optimizer leaves them alone), with the line
    that froze them when the run saw it (``requires_grad_(False)``). One
    warning per module, so that a frozen backbone is one line, not hundreds.
``non_persistent_buffer`` (info)
    A buffer registered with ``persistent=False``: it moves with the module
    but is not saved by ``state_dict()``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

import torch
from torch import nn

from ..graph.autograd_nodes import grad_fn_of
from ..graph.build import ddp_reducers
from ..records.modules import ModuleAudit, ModuleWarning, StateEntry
from ..records.phrases import phrase, place_of
from ..records.tensors import RecordMaker

__all__ = ["WARNING_CODES", "AuditRow", "audit_modules", "audit_rows",
           "own_tensors", "reword_for_raised_passes"]

#: Every code a :class:`ModuleWarning` can carry.
WARNING_CODES = ("plain_tensor_attribute", "non_persistent_buffer", "parameter_without_grad", "mixed_devices",
                 "module_hooks", "frozen_parameters", "pass_raised", "ddp_reducer")

#: Module hook dictionaries and how they read (``nn.Module`` keeps them per instance).
_HOOK_KINDS = (("_forward_pre_hooks", "forward pre-hook"), ("_forward_hooks", "forward hook"),
               ("_backward_pre_hooks", "full backward pre-hook"), ("_backward_hooks", "backward hook"))


def _module_hook_warnings(module, path: str) -> list[ModuleWarning]:
    """An info line per module that has hooks: they change values and gradients out of sight."""
    result = []
    for sub_path, sub in module.named_modules():
        hooks = []
        for attr, kind in _HOOK_KINDS:
            for fn in (getattr(sub, attr, None) or {}).values():
                name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
                hooks.append(f"{kind} {name}")
        if hooks:
            where = f"{path}.{sub_path}" if sub_path else path
            result.append(ModuleWarning(
                "module_hooks", where,
                phrase("`{path}` has {count} hook(s) that run on every call: {hooks}. A forward hook can replace the "
                       "output; a backward hook can replace gradients (its nodes show as BackwardHookFunctionBackward "
                       "in the graph).", path=where, count=len(hooks), hooks=", ".join(hooks)), None, "info"))
    return result


def _own_members(module: nn.Module, store: dict) -> list[tuple[str, torch.Tensor]]:
    """``_named_members`` of one module without recursion: its entries of ``store``, None and repeats left out."""
    seen: set[int] = set()
    members = []
    for name, value in store.items():
        if value is not None and id(value) not in seen:
            seen.add(id(value))
            members.append((name, value))
    return members


_NAMED_PARAMETERS = nn.Module.named_parameters
_NAMED_BUFFERS = nn.Module.named_buffers
_NAMED_MEMBERS = nn.Module._named_members


def own_tensors(module: nn.Module) -> tuple[list[tuple[str, torch.Tensor]], list[tuple[str, torch.Tensor]],
                                            list[tuple[str, torch.Tensor]]]:
    """A module's own parameters, buffers and public plain tensor attributes, as ``(name, tensor)`` lists.

    What ``named_parameters(recurse=False)``, ``named_buffers(recurse=False)``
    and a scan of ``vars(module)`` give. For a class that keeps
    :class:`torch.nn.Module`'s methods they are read from the module's own
    dicts: the two generator chains cost more than the rest of a module's
    entries (3,300 modules of a deep MLP, twice per run: once to name the
    program's tensors, once to audit the modules).
    """
    cls = type(module)
    members_kept = cls._named_members is _NAMED_MEMBERS
    if members_kept and cls.named_parameters is _NAMED_PARAMETERS:
        parameters = _own_members(module, module._parameters)
    else:
        parameters = list(module.named_parameters(recurse=False))
    if members_kept and cls.named_buffers is _NAMED_BUFFERS:
        buffers = _own_members(module, module._buffers)
    else:
        buffers = [(name, buf) for name, buf in module.named_buffers(recurse=False) if buf is not None]
    # The name first: most of a module's attributes are nn.Module's own private ones.
    plain = [(name, value) for name, value in vars(module).items()
             if name[:1] != "_" and isinstance(value, torch.Tensor)]
    return parameters, buffers, plain


def _entries(module: nn.Module, path: str, record_of: RecordMaker) -> list[StateEntry]:
    entries = []
    parameters, buffers, plain = own_tensors(module)
    for name, param in parameters:
        entries.append(StateEntry(f"{path}.{name}", "parameter",
                                  record_of(param),
                                  param.requires_grad, _grad_is_set(param), True, True))
    non_persistent = getattr(module, "_non_persistent_buffers_set", set())
    for name, buf in buffers:
        entries.append(StateEntry(f"{path}.{name}", "buffer",
                                  record_of(buf),
                                  buf.requires_grad, _grad_is_set(buf), name not in non_persistent, True))
    for name, value in plain:
        entries.append(StateEntry(f"{path}.{name}", "plain",
                                  record_of(value),
                                  value.requires_grad, _grad_is_set(value), False, False))
    return entries


def _grad_is_set(t: torch.Tensor) -> bool:
    """Whether ``t.grad`` is set, asked only where PyTorch keeps one (a leaf, or ``retain_grad()``).

    Reading ``.grad`` of any other tensor (``lin.weight`` after
    ``torch.nn.utils.prune``: ``weight_orig * weight_mask``) makes PyTorch
    warn on the user's console about code they did not write.
    """
    if grad_fn_of(t) is not None and not t.retains_grad:
        return False
    return t.grad is not None


def _build(module: nn.Module, path: str, record_of: RecordMaker, seen: set[int]) -> ModuleAudit:
    """Build the tree iteratively (deep Sequentials must not hit the recursion limit)."""
    # Post-order with an explicit stack: children are built before parents.
    stack: list[tuple[nn.Module, str, bool]] = [(module, path, False)]
    built: dict[int, ModuleAudit] = {}
    while stack:
        current, current_path, expanded = stack.pop()
        if expanded:
            children = tuple(built[id(child)] for _, child in current.named_children() if id(child) in built)
            built[id(current)] = ModuleAudit(current_path, type(current).__name__,
                                             tuple(_entries(current, current_path, record_of)), children)
            continue
        if id(current) in seen:
            continue
        seen.add(id(current))
        stack.append((current, current_path, True))
        for name, child in reversed(list(current.named_children())):
            stack.append((child, f"{current_path}.{name}", False))
    return built[id(module)]


def _warnings(root: ModuleAudit, passes_ran: bool, delivered: frozenset[str] = frozenset(),
              frozen_at=None) -> tuple[tuple[ModuleWarning, ...], tuple[str, ...]]:
    registered = [e for audit in root.walk() for e in audit.entries if e.kind != "plain"]
    counts = Counter(e.device for e in registered)
    devices = tuple(d for d, _ in counts.most_common())
    main = devices[0] if devices else None
    warnings = []
    for audit in root.walk():
        for entry in audit.entries:
            if entry.kind == "plain":
                warnings.append(_plain_tensor_warning(audit, entry, main))
            elif entry.kind == "buffer" and not entry.persistent:
                warnings.append(ModuleWarning(
                    "non_persistent_buffer", entry.path,
                    phrase("`{path}` is a non-persistent buffer: it moves with the module but state_dict() does not "
                           "save it.", path=entry.path),
                    phrase("pass persistent=True to register_buffer if it must be saved"), "info"))
            elif entry.kind == "parameter" and entry.requires_grad and passes_ran and not entry.has_grad \
                    and entry.path not in delivered:  # delivered, then taken (an optimizer step in backward)
                warnings.append(ModuleWarning(
                    "parameter_without_grad", entry.path,
                    phrase("`{path}` requires grad but received no gradient in any backward pass: it is not on the "
                           "path from the loss.", path=entry.path),
                    phrase("check that forward() uses it; freeze it with requires_grad_(False) if it should not "
                           "train")))
    for audit in root.walk():
        frozen = [e for e in audit.entries if e.kind == "parameter" and not e.requires_grad]
        if frozen:
            warnings.append(_frozen_warning(audit, frozen, frozen_at or {}))
    if len(devices) > 1:
        where = ", ".join(f"{d} ({counts[d]})" for d in devices)
        odd = [e.path for e in registered if e.device != main]
        warnings.append(ModuleWarning(
            "mixed_devices", root.path,
            phrase("`{path}` has parameters/buffers on several devices: {devices}; e.g. {examples}.", path=root.path,
                   devices=where, examples=", ".join(odd[:3])),
            phrase("move the whole module at once: `{path}.to(device)`", path=root.path)))
    return tuple(warnings), devices


def _plain_tensor_warning(audit: ModuleAudit, entry: StateEntry, main: str | None) -> ModuleWarning:
    """A plain tensor attribute: it stays behind when the module moves (seed lesson 4), and how to register it."""
    attr = entry.path.rsplit(".", 1)[-1]
    if main is not None and entry.device != main:
        message = phrase("`{path}` is a plain tensor attribute: it stayed on {device} when the module moved to "
                         "{main} (module.to() moves only parameters and buffers), and it is not in state_dict().",
                         path=entry.path, device=entry.device, main=main)
    else:
        message = phrase("`{path}` is a plain tensor attribute: it will not follow module.to() and is not in "
                         "state_dict().", path=entry.path)
    fix = phrase("use `self.register_buffer('{attr}', ...)` in {type_name}.__init__", attr=attr,
                 type_name=audit.type_name)
    if entry.requires_grad:
        fix = phrase("if it should be trained, use `self.{attr} = nn.Parameter(...)`; else {fix}", attr=attr, fix=fix)
    return ModuleWarning("plain_tensor_attribute", entry.path, message, fix)


def _ddp_warning(module, path: str) -> tuple[ModuleWarning, ...]:
    """An info line for a module wrapped by DistributedDataParallel (:func:`~..graph.build.ddp_reducers`)."""
    labels = ddp_reducers([module])
    if not labels:
        return ()
    label = next(iter(labels.values()))
    return (ModuleWarning(
        "ddp_reducer", path,
        phrase("`{path}` is wrapped by {label}: its reducer registers C++ hooks on every parameter's gradient "
               "accumulator (Python never sees them) that average .grad over the processes during backward, so .grad "
               "after a pass is that mean, not what this process delivered (the inspector shows both).", path=path,
               label=label),
        phrase("compare `delivered` with .grad per pass; run with one process to see this process's gradient alone"),
        "info"),)


def reword_for_raised_passes(audits: tuple[ModuleAudit, ...], explanations) -> tuple[ModuleAudit, ...]:
    """The audits with each ``parameter_without_grad`` of a parameter whose explanation is ``pass_raised``
    told as such.

    The audit alone cannot tell "not on the path from the loss" from "on the
    path of a pass that raised before reaching it"; the explanations can
    (:mod:`gradexplorer.core.analysis.explain` knows which passes' graphs hold
    each leaf), and the two must agree: the module audit once told the user
    to freeze a layer that only missed its gradient because backward raised.
    """
    raised = {e.name: e for e in explanations if e.code == "pass_raised"}
    if not raised:
        return audits

    def reworded(warning: ModuleWarning) -> ModuleWarning:
        explanation = raised.get(warning.path) if warning.code == "parameter_without_grad" else None
        if explanation is None:
            return warning
        return ModuleWarning(
            "pass_raised", warning.path, explanation.phrase,
            phrase("fix the error that stopped the pass (the Error line); the parameter is on the path from the loss"))

    return tuple(replace(audit, warnings=tuple(reworded(w) for w in audit.warnings)) for audit in audits)


def _frozen_warning(audit: ModuleAudit, frozen: list[StateEntry], frozen_at: dict) -> ModuleWarning:
    """One warning for a module's frozen parameters, with the line that froze them when it is known."""
    names = ", ".join(f"`{e.path.rsplit('.', 1)[-1]}`" for e in frozen)
    where = next((frozen_at[e.path] for e in frozen if frozen_at.get(e.path) is not None), None)
    how = (phrase(" by `{code}` at {place}", code=where.text, place=place_of(where)) if where is not None and where.line
           else "")
    return ModuleWarning(
        "frozen_parameters", audit.path,
        phrase("`{path}` is frozen{how}: its parameter(s) {names} have requires_grad=False, so no gradient reaches "
               "them and the optimizer leaves them as they are.", path=audit.path, how=how, names=names),
        phrase("if it should train, call requires_grad_(True) on it (and give its parameters to the optimizer)"))


def audit_modules(bindings, *, passes_ran: bool, value_elements: int,
                  delivered: frozenset[str] = frozenset(), records: RecordMaker | None = None,
                  frozen_at: dict | None = None) -> tuple[ModuleAudit, ...]:
    """Audit every top-level module in ``bindings``.

    Parameters
    ----------
    bindings : Bindings
        From :func:`~gradexplorer.core.capture.namespace.find_bindings`.
    passes_ran : bool, keyword-only
        Whether any backward pass ran (else missing gradients are no news).
    value_elements : int, keyword-only
    delivered : frozenset of str, keyword-only
        Names of parameters some pass delivered a gradient to (even if a hook
        then set ``.grad`` to None).
    records : RecordMaker, optional
        Makes the entries' records; the capture passes the one its graph used,
        so that a parameter's entry shares the record of its graph leaf.
    frozen_at : dict of str to SourceLine, optional
        Where the run turned a parameter's ``requires_grad`` off, by its name.

    Returns
    -------
    tuple of ModuleAudit
        One tree per top-level module (one not reached as a submodule of
        another audited module), in the order names were found (globals,
        then the functions' locals, then modules named by their class).
    """
    record_of = records if records is not None else RecordMaker(value_elements)
    audits = []
    seen: set[int] = set()
    # Top level: a module reached as a value (a variable, an attribute of the user's object, a list item,
    # or a module that ran named by its class) that is no other such module's submodule.
    roots = [bindings.modules[key] for key in getattr(bindings, "roots", ()) if key in bindings.modules]
    inside = {id(sub) for module, _ in roots for sub in module.modules() if sub is not module}
    for module, names in roots:
        if id(module) in seen or id(module) in inside:
            continue
        tree = _build(module, names[0], record_of, seen)
        warnings, devices = _warnings(tree, passes_ran, delivered, frozen_at)
        warnings = warnings + tuple(_module_hook_warnings(module, names[0])) + _ddp_warning(module, names[0])
        audits.append(ModuleAudit(tree.path, tree.type_name, tree.entries, tree.children, warnings, devices))
    return tuple(audits)


@dataclass(frozen=True)
class AuditRow:
    """One line of the module audit as a tree view shows it (plain data: any thread, any toolkit).

    ``texts`` are the five columns (path, kind, shape / dtype, device, notes);
    ``parent`` is the index of the parent row (-1 at the top); ``tone`` is
    ``"warning"`` or ``"info"`` for warning rows and the entries they name.
    """

    texts: tuple[str, str, str, str, str]
    parent: int
    path: str = ""
    tone: str | None = None
    tooltip: str = ""


_SCALAR = phrase("scalar")
#: How the audit names the kinds of state and their facts (the rows' words, said in the reader's language).
_KIND_WORDS = {"parameter": phrase("parameter"), "buffer": phrase("buffer"), "plain": phrase("plain")}
_NOTE_WORDS = {"requires_grad": phrase("requires grad"), "frozen": phrase("frozen"), "has_grad": phrase("has .grad"),
               "no_grad": phrase("no .grad"), "persistent": phrase("persistent"),
               "not_saved": phrase("not in state_dict"),
               "plain": phrase("not registered: does not follow .to(), not in state_dict")}


def _entry_notes(entry: StateEntry, say) -> str:
    if entry.kind == "parameter":
        return "; ".join((say(_NOTE_WORDS["requires_grad" if entry.requires_grad else "frozen"]),
                          say(_NOTE_WORDS["has_grad" if entry.has_grad else "no_grad"])))
    if entry.kind == "buffer":
        return say(_NOTE_WORDS["persistent" if entry.persistent else "not_saved"])
    return say(_NOTE_WORDS["plain"])


def audit_rows(audits, say=str) -> list[AuditRow]:
    """The audits flattened into tree rows, parents before children, in module order.

    For each module: its row, its state entries (each followed by the
    warnings about it), the warnings about the module itself, then its
    child modules. Iterative, like every walk here. ``say`` makes a
    :class:`~gradexplorer.core.records.phrases.Phrase` into words (English
    by default; the app passes its translation).
    """
    rows: list[AuditRow] = []
    words: dict = {}
    plain_say = say

    def say(said):  # the notes' few phrases repeat on every entry: each is made into words once
        text = words.get(said)
        if text is None:
            text = words[said] = plain_say(said)
        return text

    for audit in audits:
        warned: dict[str, list[ModuleWarning]] = {}
        for warning in audit.warnings:
            warned.setdefault(warning.path, []).append(warning)
        stack: list[tuple[ModuleAudit, int]] = [(audit, -1)]
        while stack:
            module, parent = stack.pop()
            devices = ", ".join(audit.devices) if parent == -1 else ""
            here = len(rows)
            rows.append(AuditRow((module.path, module.type_name, "", devices, ""), parent, module.path))
            for entry in module.entries:
                rec = entry.record
                warnings = warned.get(entry.path, ())
                tone = None
                if warnings:
                    tone = "warning" if any(w.severity == "warning" for w in warnings) else "info"
                elif entry.kind == "parameter" and not entry.requires_grad and any(
                        w.code == "frozen_parameters" for w in warned.get(module.path, ())):
                    tone = "warning"  # a frozen parameter stands out from the trained ones around it
                entry_row = len(rows)
                kind = say(_KIND_WORDS[entry.kind]) if entry.kind in _KIND_WORDS else entry.kind
                rows.append(AuditRow((entry.path, kind, f"{'×'.join(map(str, rec.shape)) or say(_SCALAR)} {rec.dtype}",
                                      rec.device, _entry_notes(entry, say)), here, entry.path, tone))
                rows.extend(_warning_row(w, entry_row, say) for w in warnings)
            rows.extend(_warning_row(w, here, say, tone="warning") for w in warned.get(module.path, ()))
            stack.extend((child, here) for child in reversed(module.children))
    return rows


def _warning_row(warning: ModuleWarning, parent: int, say, *, tone: str | None = None) -> AuditRow:
    message = say(warning.message)
    text = message + (say(phrase("  Fix: {fix}", fix=warning.fix)) if warning.fix else "")
    return AuditRow((f"⚠ {warning.code}", "", "", "", text), parent, "",
                    tone or ("warning" if warning.severity == "warning" else "info"), message)

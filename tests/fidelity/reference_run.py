"""Ground truth for the fidelity tests: run programs in plain PyTorch, no gradexplorer.

Run as a separate process (``python reference_run.py PROGRAMS.json OUT.json``)
so that nothing of gradexplorer (patches, modes, hooks) is loaded: this file
imports torch and the standard library only. Each program runs in a fresh
namespace holding ``torch``, ``nn`` and ``device`` (as in the editor), with
programs that draw random numbers seed themselves. The only instrumentation is plain Python wrappers around
``Tensor.backward``, ``torch.autograd.backward`` and ``torch.autograd.grad``
that, for each call made from the program's own code, note the line, the
thread, whether it raised, what ``autograd.grad`` returned, and ``.grad`` of
every leaf reachable by name in the live namespace just before and just after
the call. At the end, every named tensor's value and ``.grad`` are written.

Names follow the conventions users read in the app: ``x``, ``xs[0]``,
``d['k']``, ``model.0.weight`` (``named_parameters``/``named_buffers``),
``state.hidden`` (attributes of plain objects).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import traceback
import types

import torch
from torch import nn

FILENAME = "<editor>"
TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def encode(t):
    """A tensor as JSON: shape, dtype and flat values (complex as [re, im])."""
    if t is None:
        return None
    t = t.detach().cpu().resolve_conj().resolve_neg()
    if t.layout != torch.strided:
        try:  # a sparse gradient (nn.Embedding(sparse=True)) is compared by its dense values, as the app shows them
            t = t.to_dense()
        except (RuntimeError, NotImplementedError):
            return {"shape": list(t.shape), "dtype": str(t.dtype), "values": None}
    flat = t.reshape(-1)
    if flat.is_complex():
        values = torch.view_as_real(flat).double().tolist()
    elif flat.dtype == torch.bool:
        values = flat.int().tolist()
    else:
        values = flat.double().tolist()
    return {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."), "values": values}


def named_tensors(namespace: dict) -> dict[str, torch.Tensor]:
    """Every tensor reachable by name, first name wins (breadth-first, like the app)."""
    found: dict[str, torch.Tensor] = {}
    seen_objects: set[int] = set()
    queue = [(v, k, 0) for k, v in list(namespace.items()) if not (k.startswith("__") and k.endswith("__"))]
    while queue:
        value, name, depth = queue.pop(0)
        if isinstance(value, torch.Tensor):
            found.setdefault(name, value)
        elif isinstance(value, nn.Module):
            for sub, p in value.named_parameters():
                found.setdefault(f"{name}.{sub}", p)
            for sub, b in value.named_buffers():
                found.setdefault(f"{name}.{sub}", b)
        elif depth >= 6 or id(value) in seen_objects:
            continue
        elif isinstance(value, (list, tuple, dict)):
            seen_objects.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, (str, int)) and not isinstance(key, bool):
                    queue.append((item, f"{name}[{key!r}]", depth + 1))
        elif hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType, types.FunctionType)) \
                and not (type(value).__module__ or "").startswith(("torch", "numpy", "builtins")):
            seen_objects.add(id(value))
            for attr, item in list(vars(value).items()):
                if not attr.startswith("_"):
                    queue.append((item, f"{name}.{attr}", depth + 1))
    return found


def is_leaf(t) -> bool:
    """``t.is_leaf``; False for a view made under no_grad and changed in place since, where PyTorch raises.

    Such a view keeps no ``.grad`` of its own (``.grad`` reads None).
    """
    try:
        return t.is_leaf
    except RuntimeError:
        return False


def leaf_grads(namespace: dict) -> dict[str, object]:
    return {name: encode(t.grad) for name, t in named_tensors(namespace).items()
            if is_leaf(t) and (t.requires_grad or t.grad is not None)}


class Passes:
    """Wraps the three backward entry points for one program run."""

    def __init__(self, namespace: dict) -> None:
        self.namespace = namespace
        self.passes: list[dict] = []
        self.lock = threading.Lock()

    def user_call(self):
        """The program's line if the caller is the program itself (not torch internals)."""
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename == __file__:
            frame = frame.f_back
        if frame is None:
            return None
        filename = frame.f_code.co_filename
        if filename.startswith(TORCH_DIR):
            return None
        line = frame
        while line is not None and line.f_code.co_filename != FILENAME:
            line = line.f_back
        return {"line": None if line is None else line.f_lineno}

    def wrap(self, kind: str, original):
        passes = self

        def wrapper(*args, **kwargs):
            call = passes.user_call()
            if call is None:
                return original(*args, **kwargs)
            entry = {"kind": kind, "line": call["line"],
                     "thread": threading.current_thread() is not threading.main_thread(),
                     "before": leaf_grads(passes.namespace), "error": None, "results": None}
            with passes.lock:
                passes.passes.append(entry)
            try:
                result = original(*args, **kwargs)
            except BaseException as exc:
                entry["error"] = type(exc).__name__
                raise
            finally:
                entry["after"] = leaf_grads(passes.namespace)
            if kind == "grad":
                entry["results"] = [encode(g) for g in result]
            return result

        return wrapper


def run(code: str) -> dict:
    namespace = {"__name__": "__main__", "torch": torch, "nn": nn, "device": torch.device("cpu")}
    passes = Passes(namespace)
    originals = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)
    torch.Tensor.backward = passes.wrap("backward", originals[0])
    torch.autograd.backward = passes.wrap("backward", originals[1])
    torch.autograd.grad = passes.wrap("grad", originals[2])
    error = None
    try:
        exec(compile(code, FILENAME, "exec"), namespace)
    except BaseException as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME]
        error = {"type": type(exc).__name__, "line": frames[-1].lineno if frames else None}
    finally:
        torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad = originals
    tensors = named_tensors(namespace)
    return {
        "error": error,
        "passes": passes.passes,
        "values": {name: encode(t) for name, t in tensors.items()},
        "grads": {name: encode(t.grad) for name, t in tensors.items() if is_leaf(t) or t.retains_grad},
        "requires_grad": {name: bool(t.requires_grad) for name, t in tensors.items()},
    }


def main() -> None:
    programs = json.loads(open(sys.argv[1]).read())
    out = {}
    for name, code in programs.items():
        try:
            out[name] = run(code)
        except BaseException as exc:  # the reference itself failed: report, never hide
            out[name] = {"reference_failed": f"{type(exc).__name__}: {exc}"}
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()

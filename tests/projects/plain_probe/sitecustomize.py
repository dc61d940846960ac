"""Ground truth for the project corpus: what a plain ``python SCRIPT ARGS`` run of a project does.

Put on ``PYTHONPATH`` with ``GX_PLAIN_OUT=FILE`` set; Python imports this
module at start-up, before the script, and the script then runs exactly as
``python SCRIPT ARGS`` runs it (its own ``sys.argv``, ``sys.path[0]``, folder).
Nothing of gradexplorer is imported. The only instrumentation: plain Python
wrappers around ``Tensor.backward``, ``torch.autograd.backward`` and
``torch.autograd.grad`` that note, for each call made from the project's
own code, the leaves the pass can reach (breadth-first over
``next_functions`` in slot order, from the pass's roots) with ``.grad``
just before and just after the call; and ``sys.excepthook``, which notes the
innermost frame of the project's files when the script raises. At exit the
record is written to ``GX_PLAIN_OUT`` as JSON.
"""

import atexit
import json
import os
import sys
import threading
import traceback

_OUT = os.environ.get("GX_PLAIN_OUT")

if _OUT:
    import torch

    _TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
    _ROOT = os.path.realpath(os.environ.get("GX_PLAIN_ROOT", os.getcwd())) + os.sep
    _record = {"passes": [], "error": None}

    def _encode(t):
        if t is None:
            return None
        t = t.detach().cpu()
        return {"shape": list(t.shape), "values": t.double().reshape(-1).tolist()}

    def _edge(t):
        if not isinstance(t, torch.Tensor):
            return None
        if t.grad_fn is not None:
            return t.grad_fn
        if t.requires_grad:
            return torch.autograd.graph.get_gradient_edge(t).node
        return None

    def _leaves(roots):
        order, seen, queue = [], set(), []
        for node in roots:
            if node is not None and node not in seen:
                seen.add(node)
                queue.append(node)
        while queue:
            node = queue.pop(0)
            if hasattr(node, "variable"):
                order.append(node.variable)
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    queue.append(child)
        return order

    def _from_user_code():
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            if name == __file__ or name.startswith(_TORCH_DIR):
                frame = frame.f_back
                continue
            return True
        return False

    def _tensors(value):
        if isinstance(value, torch.Tensor):
            return [value]
        if isinstance(value, (list, tuple)):
            return [v for v in value if isinstance(v, torch.Tensor)]
        return []

    _inside = threading.local()

    def _wrap(kind, original):
        def wrapper(*args, **kwargs):
            # Tensor.backward calls torch.autograd.backward: one user call, one pass.
            if getattr(_inside, "depth", 0) or not _from_user_code():
                return original(*args, **kwargs)
            _inside.depth = 1
            first = args[0] if args else kwargs.get("tensors", kwargs.get("outputs"))
            leaves = _leaves([_edge(t) for t in _tensors(first)])
            before = [_encode(v.grad) for v in leaves]
            entry = {"kind": kind, "error": None}
            try:
                return original(*args, **kwargs)
            except BaseException as exc:
                entry["error"] = f"{type(exc).__name__}: {exc}"
                raise
            finally:
                _inside.depth = 0
                entry["leaves"] = [{"shape": list(v.shape), "before": b, "after": _encode(v.grad)}
                                   for v, b in zip(leaves, before)]
                _record["passes"].append(entry)
        return wrapper

    torch.Tensor.backward = _wrap("backward", torch.Tensor.backward)
    torch.autograd.backward = _wrap("backward", torch.autograd.backward)
    torch.autograd.grad = _wrap("grad", torch.autograd.grad)

    _hook = sys.excepthook

    def _excepthook(exc_type, exc, tb):
        frames = [f for f in traceback.extract_tb(tb) if os.path.realpath(f.filename).startswith(_ROOT)]
        last = frames[-1] if frames else None
        _record["error"] = {
            "type": exc_type.__name__,
            "file": None if last is None else os.path.relpath(os.path.realpath(last.filename), _ROOT.rstrip(os.sep)),
            "line": None if last is None else last.lineno,
        }
        _hook(exc_type, exc, tb)

    sys.excepthook = _excepthook

    @atexit.register
    def _write():
        with open(_OUT, "w", encoding="utf-8") as fh:
            json.dump(_record, fh)

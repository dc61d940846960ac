"""One chunk of the OpInfo differential: gradexplorer against plain PyTorch on PyTorch's own op corpus.

``python opinfo_chunk.py INDEX COUNT OUT.json`` takes every ``COUNT``-th case
starting at ``INDEX`` of: every OpInfo in
``torch.testing._internal.common_methods_invocations.op_db`` that supports
autograd, on CPU, in float64 and in complex128 where its backward supports
that dtype, first sample input. For each case the sample is made once (seeded)
and cloned twice:

* the reference run calls the op on one clone in plain PyTorch, with
  ``retain_grad()`` on the outputs (in the reference only), reduces the
  differentiable outputs with fixed random weights and calls ``backward()``;
* the captured run does the same through ``gradexplorer.capture`` on the other
  clone, reading the tensors from a helper module (so the program text is the
  same for every op).

Compared: leaf gradients (``.grad`` of every input tensor), output values,
and the gradient at each output's node (our taps) against the reference's
retained ``.grad``. A case whose reference itself fails (the sample cannot be
made, or the op raises in plain PyTorch) is a skip with the reason; a capture
that raises where PyTorch did not is an engine error. Run in a subprocess per
chunk by ``test_opinfo_differential.py``, so a crash is a failure, not a hang.
"""

from __future__ import annotations

import json
import sys
import types
import warnings

import torch

warnings.filterwarnings("ignore")

CODE = """\
import gx_opinfo_case as case
inp, args, kwargs, weights = case.inp, case.args, case.kwargs, case.weights
out = case.call(inp, *args, **kwargs)
outs = case.differentiable(out)
loss = case.reduce(outs, weights)
loss.backward()
"""


def cases():
    from torch.testing._internal.common_methods_invocations import op_db

    for op in op_db:
        if not op.supports_autograd:
            continue
        dtypes = op.supported_backward_dtypes("cpu")
        for dtype in (torch.float64, torch.complex128):
            if dtype in dtypes:
                yield op, dtype


def clone(value):
    """Deep-clone tensors (keeping requires_grad), lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        return copy.requires_grad_(value.requires_grad) if copy.is_floating_point() or copy.is_complex() else copy
    if isinstance(value, (list, tuple)):
        items = [clone(v) for v in value]
        return type(value)(items) if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    return value


def leaves(value, name: str):
    """``(name, tensor)`` of every tensor that requires grad, named as the app names them."""
    if isinstance(value, torch.Tensor):
        if value.requires_grad:
            yield name, value
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from leaves(v, f"{name}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, (str, int)) and not isinstance(k, bool):
                yield from leaves(v, f"{name}[{k!r}]")


def differentiable(out):
    items = out if isinstance(out, (list, tuple)) else (out,)
    return [o for o in items if isinstance(o, torch.Tensor) and o.requires_grad]


def weights_for(outs):
    generator = torch.Generator().manual_seed(1234)
    return [torch.randn(o.shape, dtype=o.dtype, generator=generator) for o in outs]


def reduce(outs, weights):
    total = None
    for o, w in zip(outs, weights):
        term = (o * w).sum().real
        total = term if total is None else total + term
    return total


def close(a: torch.Tensor | None, b: torch.Tensor | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if b.layout != torch.strided:
        b = b.to_dense()
    a, b = a.detach().resolve_conj().resolve_neg(), b.detach().resolve_conj().resolve_neg()
    if a.shape != b.shape:
        return False
    if a.is_complex() or b.is_complex():
        a, b = a.to(torch.complex128), b.to(torch.complex128)
    else:
        a, b = a.double(), b.double()
    return bool(torch.allclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True))


def data(record):
    return None if record is None else record.data


def _captured(op, inputs, weights):
    """The capture of CODE on ``inputs``, or the text of the exception capture itself raised."""
    from gradexplorer import capture

    case = types.ModuleType("gx_opinfo_case")
    case.inp, case.args, case.kwargs = inputs
    case.weights = weights
    case.call, case.differentiable, case.reduce = op, differentiable, reduce
    sys.modules["gx_opinfo_case"] = case
    try:
        return capture(CODE, value_elements=1_000_000)
    except Exception as exc:  # noqa: BLE001
        return f"capture raised {type(exc).__name__}: {exc}"
    finally:
        sys.modules.pop("gx_opinfo_case", None)


def _both_raise(op, original, exc_type: str, message: str) -> tuple[str, str]:
    inputs = clone(original)
    # Weights as the reference made them: from the outputs, if the op itself ran.
    try:
        inp, args, kwargs = clone(original)
        outs = differentiable(op(inp, *args, **kwargs))
    except Exception:  # noqa: BLE001 - the op raised: no weights needed
        outs = []
    cap = _captured(op, inputs, weights_for(outs))
    if isinstance(cap, str):
        return "engine_error", cap
    if cap.error is None or cap.error.exc_type.split(".")[-1] != exc_type:
        got = "no error" if cap.error is None else cap.error.headline()
        return "mismatch", f"plain PyTorch raises {exc_type}, the capture: {got}"
    if cap.error.message.splitlines()[0] != message.splitlines()[0]:
        return "mismatch", f"different message: {cap.error.message[:100]!r} vs {message[:100]!r}"
    return "agree", f"both raise {exc_type}"


def run_case(op, dtype) -> tuple[str, str]:
    try:
        torch.manual_seed(0)
        sample = next(iter(op.sample_inputs("cpu", dtype, requires_grad=True)))
        original = (sample.input, tuple(sample.args), dict(sample.kwargs))
    except Exception as exc:  # noqa: BLE001 - the corpus itself failed: a skip with its reason
        return "skip", f"no sample: {type(exc).__name__}: {str(exc)[:120]}"
    # Reference: plain PyTorch.
    ref_inp, ref_args, ref_kwargs = clone(original)
    try:
        out = op(ref_inp, *ref_args, **ref_kwargs)
        outs = differentiable(out)
        if not outs:
            return "skip", "no differentiable output for this sample"
        for o in outs:
            o.retain_grad()
        reduce(outs, weights_for(outs)).backward()
    except Exception as exc:  # noqa: BLE001
        # Plain PyTorch raises (a gauge-dependent loss of eig, a dtype without
        # sum): the capture must raise the same, at the same line.
        return _both_raise(op, original, type(exc).__name__, str(exc))
    ref_leaves = dict(leaves((ref_inp, ref_args, ref_kwargs), "_"))
    cap_inp, cap_args, cap_kwargs = clone(original)
    cap = _captured(op, (cap_inp, cap_args, cap_kwargs), weights_for(outs))
    if isinstance(cap, str):
        return "engine_error", cap
    if cap.error is not None:
        return "engine_error", f"the program raised under capture: {cap.error.headline()}"
    problems = []
    # Leaf gradients, by the names the app gives them.
    for (ref_name, ref_t), (name, _) in zip(ref_leaves.items(), leaves((cap_inp, cap_args, cap_kwargs), "_")):
        if name.startswith("_[0]"):
            app_name = "inp" + name[4:]
        elif name.startswith("_[1]"):
            app_name = "args" + name[4:]
        else:
            app_name = "kwargs" + name[4:]
        info = cap.tensor(app_name)
        if info is None:
            problems.append(f"{app_name}: not captured")
        elif not close(data(info.grad), ref_t.grad):
            problems.append(f"{app_name}.grad differs")
    # Output values and the gradient at each output's node.
    for i, ref_o in enumerate(outs):
        info = cap.tensor(f"outs[{i}]")
        if info is None:
            problems.append(f"outs[{i}]: not captured")
            continue
        if not close(data(info.value), ref_o):
            problems.append(f"outs[{i}] value differs")
        flows = cap.graph.nodes[info.node]["grads"] if info.node is not None else {}
        flow = flows.get(0)
        got = None
        if flow is not None and info.output_nr < len(flow.outputs):
            got = data(flow.outputs[info.output_nr])
        if not close(got, ref_o.grad):
            problems.append(f"gradient at outs[{i}] differs")
    if problems:
        return "mismatch", "; ".join(problems)
    return "agree", ""


def main() -> None:
    index, count, out_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    results = []
    for position, (op, dtype) in enumerate(cases()):
        if position % count != index:
            continue
        name = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        status, detail = run_case(op, dtype)
        results.append({"op": name, "dtype": str(dtype).removeprefix("torch."), "status": status, "detail": detail})
        with open(out_path, "w") as f:  # written as it goes: a crash keeps what was done
            json.dump(results, f)
    with open(out_path, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()

"""gradexplorer against PyTorch on real training-loop patterns (issue 9).

The expected numbers come from ``reference_run.py``, a plain PyTorch run of
the same program in a separate process. See ``torture_programs.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gradexplorer import capture

from .torture_programs import PROGRAMS

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Ground truth of every program, from one plain-PyTorch subprocess."""
    folder = tmp_path_factory.mktemp("reference")
    programs = folder / "programs.json"
    out = folder / "out.json"
    programs.write_text(json.dumps({p.name: p.code for p in PROGRAMS}))
    done = subprocess.run([sys.executable, str(HERE / "reference_run.py"), str(programs), str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def decode(encoded) -> torch.Tensor | None:
    if encoded is None:
        return None
    values = torch.tensor(encoded["values"], dtype=torch.float64)
    if encoded["dtype"].startswith("complex"):
        values = torch.view_as_complex(values.reshape(-1, 2).contiguous())
    return values.reshape(encoded["shape"])


def as_tensor(record) -> torch.Tensor | None:
    if record is None:
        return None
    assert record.data is not None, f"no values kept: {record.note}"
    data = record.data.resolve_conj().resolve_neg()
    return data.to(torch.complex128) if data.is_complex() else data.double()


def assert_same(ours, theirs, what: str) -> None:
    """``ours`` (a TensorRecord or None) holds the reference's ``theirs`` (encoded or None)."""
    expected = decode(theirs)
    got = as_tensor(ours)
    if expected is None or got is None:
        assert (expected is None) == (got is None), f"{what}: ours {got}, PyTorch {expected}"
        return
    assert tuple(got.shape) == tuple(expected.shape), f"{what}: shape {tuple(got.shape)} vs {tuple(expected.shape)}"
    assert torch.allclose(got.to(expected.dtype), expected, rtol=1e-5, atol=1e-6, equal_nan=True), \
        f"{what}: ours {got.tolist()}, PyTorch {expected.tolist()}"


def delta(before, after):
    """What a pass added to ``.grad``, from the reference's copies."""
    b, a = decode(before), decode(after)
    if a is None:
        return None
    return a if b is None else a - b


def explanation(cap, name):
    for exp in cap.explanations:
        if exp.name == name:
            return exp
    raise AssertionError(f"no explanation for {name!r}: {[e.name for e in cap.explanations]}")


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_agrees_with_pytorch(program, reference):
    ref = reference[program.name]
    assert "reference_failed" not in ref, ref.get("reference_failed")
    cap = capture(program.code)

    # The program's own fate: the same exception at the same line, or none.
    if ref["error"] is None:
        assert cap.error is None, cap.error.traceback
    else:
        assert cap.error is not None and cap.error.exc_type.split(".")[-1] == ref["error"]["type"], cap.error
        assert cap.error.line == ref["error"]["line"]

    # The same user passes: kind, line, thread, raised or not.
    assert len(cap.passes) == len(ref["passes"]), [(p.kind, p.line) for p in cap.passes]
    for ours, theirs in zip(cap.passes, ref["passes"]):
        assert (ours.kind, ours.line) == (theirs["kind"], theirs["line"])
        assert (ours.thread is not None) == theirs["thread"], ours
        assert ours.raised == (theirs["error"] is not None), (ours.error, theirs["error"])
        if theirs["results"] is not None and not ours.raised:
            assert len(ours.results) == len(theirs["results"])
            for i, (r, t) in enumerate(zip(ours.results, theirs["results"])):
                assert_same(r, t, f"pass {ours.index} autograd.grad result {i}")

    # Per pass and leaf: .grad just before and after, and what the pass delivered.
    for ours, theirs in zip(cap.passes, ref["passes"]):
        for name, before in theirs["before"].items():
            after = theirs["after"].get(name)
            node_id = cap.node_named(name)
            changed = not torch.equal(*(x if x is not None else torch.zeros(0) for x in (decode(before), decode(after)))) \
                if (before is None) == (after is None) else True
            if node_id is None:
                assert not changed, f"{name} changed in pass {ours.index} but has no node"
                continue
            step = cap.graph.nodes[node_id]["accumulation"].get(ours.index)
            if step is None:
                assert not changed, f"pass {ours.index} changed {name}.grad but nothing was recorded"
                continue
            assert_same(step.before, before, f"{name}.grad before pass {ours.index}")
            assert_same(step.after, after, f"{name}.grad after pass {ours.index}")
            if not program.in_pass_edits and changed:
                expected = delta(before, after)
                got = as_tensor(step.delivered)
                assert got is not None, f"{name}: pass {ours.index} delivered nothing, PyTorch added {expected}"
                assert torch.allclose(got.to(expected.dtype), expected, rtol=1e-5, atol=1e-6, equal_nan=True), \
                    f"{name}: pass {ours.index} delivered {got.tolist()}, PyTorch added {expected.tolist()}"

    # The end of the run: every named tensor's value and .grad.
    for name, value in ref["values"].items():
        info = cap.tensor(name)
        assert info is not None, f"{name} is not among the captured tensors"
        if info.value.data is not None:
            assert_same(info.value, value, f"value of {name}")
        assert info.requires_grad == ref["requires_grad"][name], name
    for name, grad in ref["grads"].items():
        assert_same(cap.tensor(name).grad, grad, f"{name}.grad at the end")

    # What a person reads.
    for name, code in program.codes.items():
        exp = explanation(cap, name)
        assert exp.code == code, f"{name}: {exp.code}: {exp.sentence}"
    for name, fragments in program.says.items():
        sentence = explanation(cap, name).sentence
        for fragment in fragments:
            assert fragment in sentence, f"{name}: {sentence!r} lacks {fragment!r}"
    for name, fragments in program.never_says.items():
        sentence = explanation(cap, name).sentence
        for fragment in fragments:
            assert fragment not in sentence, f"{name}: {sentence!r} says {fragment!r}"
    # The verifier's independent checks find no disagreement.
    from gradexplorer.core.analysis.verify import verify_capture

    wrong = [v for v in verify_capture(cap) if v.status == "wrong"]
    assert not wrong, wrong
    # A failing pass is explained as such wherever it matters.
    for exp in cap.explanations:
        if exp.code == "pass_raised":
            assert "raised before reaching it" in exp.sentence


def test_suite_is_big_enough_and_covers_every_class():
    assert len(PROGRAMS) >= 50
    names = " ".join(p.name for p in PROGRAMS)
    for word in ("no_zero_grad", "raises", "autograd_grad", "inputs", "thread", "hook", "post_accumulate",
                 "checkpoint", "func", "compile", "conjugate", "names", "set_grad_enabled", "mark_dirty",
                 "transformer", "resnet", "lstm"):
        assert word in names, word


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_survives_a_session_round_trip(program, tmp_path):
    """Every fact the fidelity test reads is written to and read back from a session file."""
    from gradexplorer.core.io.session import load_session, save_session, session_from_capture

    cap = capture(program.code)
    path = tmp_path / "s.gxsession"
    save_session(session_from_capture(cap), path)
    back = load_session(path).capture
    assert back.passes == cap.passes
    assert back.explanations == cap.explanations
    assert back.tensors == cap.tensors
    for node_id, attrs in cap.graph.nodes(data=True):
        other = back.graph.nodes[node_id]
        for key in ("accumulation", "on_path", "hooks", "grads", "grad", "value"):
            assert other[key] == attrs[key], (node_id, key)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_cli_tells_the_same_story(program, tmp_path, capsys):
    """``gradexplorer capture`` on the program: no crash, the JSON capture document is written, the codes are printed."""
    from gradexplorer.cli import main

    script = tmp_path / "program.py"
    script.write_text(program.code)
    out_json = tmp_path / "snap.json"
    status = main(["capture", str(script), "--json", str(out_json), "--max-rows", "5"])
    printed = capsys.readouterr().out
    cap = capture(program.code, filename=str(script))
    assert status == (0 if cap.ok else 1)
    assert json.loads(out_json.read_text())["explanations"]
    for name, code in program.codes.items():
        assert f"  {name}: [{code}] " in printed, printed[printed.find("Why"):][:2000]
    if any(p.raised for p in cap.passes):
        assert "-> raised at line" in printed
    assert "wrong (gradients checked" not in printed or " 0 wrong " in printed

"""Compare two runs (issue 31, part 1): matched node by node, every difference measured against plain PyTorch.

The expected numbers come from plain ``python`` runs of the same programs
(the project dumps its gradients with ``torch.save`` when asked to, in both
the plain run and the captured one), never from gradexplorer's own records.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import torch

from gradexplorer import capture
from gradexplorer.cli import main as cli_main
from gradexplorer.core.analysis.diff import compare_values, diff_captures
from gradexplorer.core.capture.script import ScriptRun
from gradexplorer.core.io.diff_report import diff_to_dict, format_diff
from gradexplorer.core.io.session import save_session, session_from_capture
from gradexplorer.core.records.tensors import summarize_tensor

from ..programs import write_project

ALIAS = textwrap.dedent("""\
    import torch
    a = torch.tensor(1.0, requires_grad=True)
    with torch.no_grad():
        b = a
    b.backward()
""")
NEW_TENSOR = ALIAS.replace("b = a\n", "b = a + 0\n")

MODEL = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(4, 8)
            self.act = nn.Tanh()
            self.head = nn.Linear(8, 3)
            self.register_buffer("scale", torch.ones(3))

        def forward(self, x):
            return self.head(self.act(self.embed(x))) * self.scale
""")

TRAIN = textwrap.dedent("""\
    import argparse

    import torch

    from model import Net


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--freeze", action="store_true")
        parser.add_argument("--double", action="store_true")
        parser.add_argument("--dump")
        parser.add_argument("--device", default="cpu")
        args = parser.parse_args()
        torch.manual_seed(0)
        model = Net()
        x = torch.randn(5, 4)
        if args.double:
            model, x = model.double(), x.double()
        model, x = model.to(args.device), x.to(args.device)
        if args.freeze:
            for p in model.embed.parameters():
                p.requires_grad_(False)
        target = torch.randint(0, 3, (5,)).to(args.device)
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, target)
        loss.backward()
        if args.dump:
            torch.save({"loss": loss.detach().cpu(), "out": out.detach().cpu(),
                        "grads": {n: None if p.grad is None else p.grad.cpu()
                                  for n, p in model.named_parameters()}}, args.dump)


    if __name__ == "__main__":
        main()
""")


def _plain(script, elsewhere, *args):
    """The project run as ``python train.py ARGS`` from another folder, and what it dumped."""
    dump = elsewhere / f"plain{'_'.join(args)}.pt"
    subprocess.run([sys.executable, str(script), *args, "--dump", str(dump)], cwd=elsewhere, check=True)
    return torch.load(dump)


def _captured(script, elsewhere, *args):
    dump = elsewhere / f"captured{'_'.join(args)}.pt"
    cap = capture(script.read_text(encoding="utf-8"), filename=str(script),
                  run=ScriptRun((*args, "--dump", str(dump)), str(elsewhere)))
    assert cap.ok, cap.error
    return cap


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return write_project(tmp_path_factory.mktemp("diff"), {"model.py": MODEL, "train.py": TRAIN})


def test_the_seed_lesson_b_equals_a_against_a_plus_0():
    # Plain PyTorch: `b = a` gives a.grad 1.0; `b = a + 0` makes a tensor without a graph and backward() raises.
    namespace = {}
    exec(ALIAS, namespace)
    plain_grad = namespace["a"].grad
    with pytest.raises(RuntimeError) as raised:
        exec(NEW_TENSOR, {})
    diff = diff_captures(capture(ALIAS), capture(NEW_TENSOR))
    assert diff.name("b").reason_text == "alias -> no_grad"
    assert diff.name("a").reason_text == "leaf_grad -> leaf_unreachable"
    node_a = diff.for_a(capture(ALIAS).node_named("a"))
    assert (node_a.status, node_a.rule) == ("changed", "name")
    assert node_a.grad.kind == "missing" and node_a.grad.b is None
    assert node_a.grad.a.item() == plain_grad.item() == 1.0
    assert diff.counts() == {"same": 0, "changed": 1, "added": 0, "removed": 0}
    (pass_0,) = diff.passes
    assert "raised in B" in pass_0.changes and str(raised.value) in pass_0.b.error
    text = format_diff(diff)
    assert "b: alias -> no_grad" in text and "raised in B" in text


def test_the_seed_chain_against_itself_is_the_same_and_matched_by_name():
    from ..programs import SEED_LESSON

    code = "import torch\n" + SEED_LESSON
    diff = diff_captures(capture(code), capture(code))
    assert not diff.differs
    assert {n.rule for n in diff.nodes} == {"name"}
    assert diff.counts()["same"] == 5


def _both_ways(project, *args):
    """The project run plainly and under the capture, without ``args`` (run A) and with them (run B), compared."""
    script, elsewhere = project
    plain_a, plain_b = _plain(script, elsewhere), _plain(script, elsewhere, *args)
    cap_a, cap_b = _captured(script, elsewhere), _captured(script, elsewhere, *args)
    return plain_a, plain_b, cap_a, diff_captures(cap_a, cap_b)


def test_a_frozen_layer_against_plain_pytorch_runs_of_both(project):
    plain_a, plain_b, cap_a, diff = _both_ways(project, "--freeze")
    frozen = {n for n, g in plain_b["grads"].items() if g is None}
    assert frozen == {"embed.weight", "embed.bias"}
    for name, grad_a in plain_a["grads"].items():
        path = f"model.{name}"
        item = diff.name(path)
        node = diff.for_a(cap_a.node_named(path))
        if name in frozen:
            # Gone from B's graph: its gradient accumulator is a removed node, its reason changed.
            assert node.status == "removed" and node.b is None
            assert item.reason_text == "leaf_grad -> grad_switched_off"
            assert item.grad.kind == "missing" and torch.equal(item.grad.a.data, grad_a)
        else:
            gap = (grad_a.double() - plain_b["grads"][name].double()).abs().max().item()
            assert node.status in ("same", "changed") and node.rule == "name"
            assert node.grad.max_abs == gap
            assert torch.equal(node.grad.a.data, grad_a) and torch.equal(node.grad.b.data, plain_b["grads"][name])
    placements = {p.path: p.changes for p in diff.placements}
    assert placements == {f"model.{n}": ("requires_grad True -> False", "has .grad True -> False") for n in frozen}
    # The layer's op nodes went with it (its addmm, its transpose, the tanh over it); nothing was added.
    removed = sorted((cap_a.graph.nodes[n.a]["module"], cap_a.graph.nodes[n.a]["op"])
                     for n in diff.nodes if n.status == "removed")
    assert removed == [("model.act", "TanhBackward0"), ("model.embed", "AddmmBackward0"),
                       ("model.embed", "TBackward0"), ("model.embed", "torch::autograd::AccumulateGrad"),
                       ("model.embed", "torch::autograd::AccumulateGrad")]
    assert diff.counts()["added"] == 0


def test_float32_against_float64_measures_the_drift_as_plain_pytorch_does(project):
    plain_a, plain_b, cap_a, diff = _both_ways(project, "--double")
    assert diff.counts()["added"] == diff.counts()["removed"] == 0
    for name, grad_a in plain_a["grads"].items():
        grad_b = plain_b["grads"][name]
        node = diff.for_a(cap_a.node_named(f"model.{name}"))
        assert "dtype" in node.changes and node.status == "changed"
        x, y = grad_a.double(), grad_b
        gap = (x - y).abs()
        assert node.grad.max_abs == gap.max().item() > 0
        assert node.grad.max_rel == pytest.approx((gap / torch.maximum(x.abs(), y.abs())).max().item(), rel=1e-12)
    loss = diff.for_a(cap_a.node_named("loss"))
    assert loss.value.max_abs == (plain_a["loss"].double() - plain_b["loss"]).abs().item()
    # Every node matched, the op nodes by module and op or by position below a match.
    assert {n.rule for n in diff.nodes} <= {"name", "module", "root", "path", "position"}


def test_the_cli_compares_two_saved_sessions_and_writes_json(project, tmp_path, capsys):
    script, elsewhere = project
    sessions = []
    for args in ((), ("--freeze",)):
        path = tmp_path / f"run{len(sessions)}.gxsession"
        save_session(session_from_capture(_captured(script, elsewhere, *args)), path)
        sessions.append(str(path))
    out = tmp_path / "diff.json"
    assert cli_main(["diff", *sessions, "--json", str(out)]) == 1
    printed = capsys.readouterr().out
    # Two sessions of one train.py: each heading names its file.
    assert printed.startswith(f"A: train.py (cpu), {sessions[0]}\nB: train.py (cpu), {sessions[1]}\n")
    assert "model.embed.weight: leaf_grad -> grad_switched_off" in printed
    assert "model.embed.weight: requires_grad True -> False, has .grad True -> False" in printed
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["format"] == "gradexplorer-diff" and doc["counts"]["removed"] == 5
    assert cli_main(["diff", sessions[0], sessions[0]]) == 0
    # The same file on both sides: nothing to tell apart.
    assert capsys.readouterr().out.startswith("A: train.py (cpu)\nB: train.py (cpu)\n")
    assert cli_main(["diff", sessions[0], str(tmp_path / "missing.gxsession")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_values_compared_nan_aware_and_by_statistics_over_the_cap():
    a = summarize_tensor(torch.tensor([1.0, float("nan"), float("inf"), 4.0]))
    b = summarize_tensor(torch.tensor([1.5, float("nan"), 3.0, 0.0]))
    diff = compare_values(a, b)
    assert (diff.kind, diff.max_abs, diff.max_rel, diff.nonfinite_mismatch, diff.at) == ("values", 4.0, 1.0, 1, 3)
    assert not compare_values(a, summarize_tensor(torch.tensor([1.0, float("nan"), float("inf"), 4.0]))).differs
    big = torch.arange(10_000, dtype=torch.float32)
    capped_a, capped_b = summarize_tensor(big, value_elements=100), summarize_tensor(big * 2, value_elements=100)
    assert compare_values(capped_a, capped_b).kind == "statistics" and compare_values(capped_a, capped_b).differs
    assert not compare_values(capped_a, summarize_tensor(big.clone(), value_elements=100)).differs
    assert compare_values(a, summarize_tensor(torch.zeros(3))).kind == "shape"
    # The gap of 1.7e308 and -1.7e308 overflows float64; the relative gap is still 2 (|a/s - b/s|).
    far = compare_values(summarize_tensor(torch.tensor([1.7e308], dtype=torch.float64)),
                         summarize_tensor(torch.tensor([-1.7e308], dtype=torch.float64)))
    assert (far.max_abs, far.max_rel, far.nonfinite_mismatch) == (float("inf"), 2.0, 0)
    assert diff_to_dict(diff_captures(capture(ALIAS), capture(ALIAS)))["counts"]["same"] == 1


RECORDED = textwrap.dedent("""\
    import json

    import torch

    import gradexplorer
    from model import Net


    def step(model, x, target):
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        return loss


    def main():
        torch.manual_seed(0)
        model = Net()
        x, target = torch.randn(5, 4), torch.randint(0, 3, (5,))
        with gradexplorer.record() as before:
            step(model, x, target)
        plain_before = {n: p.grad.clone() for n, p in model.named_parameters()}
        model.zero_grad(set_to_none=True)
        for p in model.embed.parameters():
            p.requires_grad_(False)
        with gradexplorer.record() as after:
            step(model, x, target)
        plain_after = {n: p.grad for n, p in model.named_parameters()}
        comparison = gradexplorer.compare(before, after)
        diff = comparison.diff
        report = {}
        for name, grad in plain_before.items():
            node = diff.for_a(before.capture.node_named("model." + name))
            item = diff.name("model." + name)
            other = plain_after[name]
            report[name] = {
                "status": node.status, "reason": item.reason_text,
                "a_is_plain": torch.equal(node.grad.a.data, grad),
                "b_is_plain": other is None and node.grad.b is None or torch.equal(node.grad.b.data, other),
                "max_abs": node.grad.max_abs,
                "plain_max_abs": None if other is None else (grad.double() - other.double()).abs().max().item()}
        print(json.dumps({"report": report, "text": str(comparison), "doc": comparison.to_dict()["counts"]}))


    if __name__ == "__main__":
        main()
""")


def test_two_recordings_in_a_projects_main_compared_from_python(tmp_path):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": RECORDED})
    done = subprocess.run([sys.executable, str(script)], cwd=elsewhere, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    report = result["report"]
    for name in ("embed.weight", "embed.bias"):
        assert report[name]["status"] == "removed" and report[name]["a_is_plain"] and report[name]["b_is_plain"]
        # Frozen before the second block: that recording saw parameters that never asked for a gradient.
        assert report[name]["reason"] == "leaf_grad -> no_requires_grad"
    for name in ("head.weight", "head.bias"):
        assert report[name]["a_is_plain"] and report[name]["b_is_plain"]
        assert report[name]["max_abs"] == report[name]["plain_max_abs"]
        assert report[name]["reason"] == "leaf_grad -> leaf_grad"
    assert result["doc"]["removed"] == 5
    assert "model.embed.weight: leaf_grad -> no_requires_grad" in result["text"]
    # Both blocks are in train.py on the cpu: the headings say which block is which.
    lines = [number for number, line in enumerate(RECORDED.splitlines(), start=1) if "gradexplorer.record()" in line]
    assert result["text"].startswith(f"A: train.py (cpu), record() at line {lines[0]}\n"
                                     f"B: train.py (cpu), record() at line {lines[1]}\n")


LOOP = textwrap.dedent("""\
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x, y = torch.randn(6, 3), torch.randn(6, 1)
    seen = []
    for step in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        seen.append({n: p.grad.clone() for n, p in model.named_parameters()})
        opt.step()
""")


def test_pass_k_of_a_against_pass_k_of_b_as_plain_pytorch_computes_them():
    # Two learning rates: the first pass is the same in both runs, the later ones drift apart.
    runs = [LOOP.replace("LR", lr) for lr in ("0.5", "0.1")]
    plain = []
    for code in runs:
        namespace = {}
        exec(code, namespace)
        plain.append(namespace["seen"])
    cap_a, cap_b = capture(runs[0]), capture(runs[1])
    diff = diff_captures(cap_a, cap_b)
    assert [p.changes for p in diff.passes] == [(), (), ()]
    for name in plain[0][0]:
        node = diff.for_a(cap_a.node_named(f"model.{name}"))
        assert node.b == cap_b.node_named(f"model.{name}")
        for k in range(3):
            gap = (plain[0][k][name].double() - plain[1][k][name].double()).abs().max().item()
            assert node.pass_grad(k).max_abs == gap
            assert torch.equal(node.pass_grad(k).a.data, plain[0][k][name])
        assert node.pass_grad(0).max_abs == 0 and node.pass_grad(2).max_abs > 0
    text = format_diff(diff)
    assert "largest pass 1 gradient difference" not in text and "pass 1 gradient: the same" in text
    assert "largest pass 3 gradient difference" in text


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cpu_against_cuda_shows_the_drift_and_the_placements(project):
    plain_a, plain_b, cap_a, diff = _both_ways(project, "--device", "cuda")
    assert diff.counts()["added"] == diff.counts()["removed"] == 0
    for name, grad_a in plain_a["grads"].items():
        node = diff.for_a(cap_a.node_named(f"model.{name}"))
        assert "device" in node.changes
        assert node.grad.max_abs == (grad_a.double() - plain_b["grads"][name].double()).abs().max().item()
    placements = {p.path: p.changes for p in diff.placements}
    assert placements["model.scale"] == ("device cpu -> cuda:0",)
    assert placements["model.head.weight"] == ("device cpu -> cuda:0",)


def _as_if_made_on_cuda(session_path, out_path):
    """The session with every device written as a cuda machine writes it (the values are CPU copies in any session)."""
    import zipfile

    with zipfile.ZipFile(session_path) as src, zipfile.ZipFile(out_path, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith((".json", ".jsonl")):
                data = data.replace(b'"cpu"', b'"cuda:0"')
            dst.writestr(name, data)


def test_a_session_from_a_cuda_machine_against_a_cpu_run_shows_placements_and_drift(project, tmp_path, capsys):
    # No GPU here: a cpu session is rewritten as a cuda machine writes it; the real cuda run is the test above.
    script, elsewhere = project
    cap = _captured(script, elsewhere)
    plain = _plain(script, elsewhere)
    cpu_path, cuda_path = tmp_path / "cpu.gxsession", tmp_path / "cuda.gxsession"
    save_session(session_from_capture(cap), cpu_path)
    _as_if_made_on_cuda(cpu_path, cuda_path)
    from gradexplorer import compare

    diff = compare(cpu_path, cuda_path).diff
    assert diff.counts()["added"] == diff.counts()["removed"] == 0
    for name, grad in plain["grads"].items():
        node = diff.for_a(cap.node_named(f"model.{name}"))
        assert "device" in node.changes and node.grad.max_abs == 0.0
        assert torch.equal(node.grad.b.data, grad) and node.grad.b.device == "cuda:0"
    assert {p.path: p.changes for p in diff.placements} == {
        path: ("device cpu -> cuda:0",) for path in ("model.scale", "model.embed.weight", "model.embed.bias",
                                                     "model.head.weight", "model.head.bias")}
    assert cli_main(["diff", str(cpu_path), str(cuda_path)]) == 1
    assert "model.head.weight: device cpu -> cuda:0" in capsys.readouterr().out


def test_the_cli_says_why_a_run_has_nothing_and_refuses_a_missing_device(tmp_path, capsys):
    good, broken = tmp_path / "alias.py", tmp_path / "broken.py"
    good.write_text(ALIAS, encoding="utf-8")
    broken.write_text("x = (\n", encoding="utf-8")
    assert cli_main(["diff", str(good), str(broken)]) == 1
    out = capsys.readouterr().out
    assert "B: broken.py (cpu): did not run: SyntaxError at line 1" in out
    assert "1 only in A (removed)" in out
    if not torch.cuda.is_available():
        assert cli_main(["diff", str(good), str(good), "--device-b", "cuda"]) == 2
        assert "cuda is not available" in capsys.readouterr().err

"""The recording API and the naming rules behind it (issue 26), each checked against plain PyTorch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch
from torch import nn

import gradexplorer
from gradexplorer import ScriptRun, capture, load_session


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.scale = torch.tensor(2.0)  # a plain tensor attribute

    def forward(self, x):
        hidden = self.fc(x) * self.scale
        return hidden.relu()


def _plain_step(seed: int = 0):
    """The truth: the same step in plain PyTorch (no gradexplorer)."""
    torch.manual_seed(seed)
    net = _Net()
    x = torch.randn(4, 3)
    loss = net(x).pow(2).sum()
    loss.backward()
    return net.fc.weight.grad.clone(), net.fc.bias.grad.clone(), loss.item()


def test_record_around_a_step_in_a_function_names_from_its_locals():
    def train_step():
        torch.manual_seed(0)
        net = _Net()
        x = torch.randn(4, 3)
        with gradexplorer.record() as rec:
            loss = net(x).pow(2).sum()
            loss.backward()
        return rec, loss

    rec, loss = train_step()
    weight, bias, value = _plain_step()
    cap = rec.capture
    assert cap.ok and len(cap.passes) == 1
    torch.testing.assert_close(cap.tensor("net.fc.weight").grad.data, weight)
    torch.testing.assert_close(cap.tensor("net.fc.bias").grad.data, bias)
    assert cap.tensor("loss").value.item() == pytest.approx(value)
    assert cap.tensor("loss").scope_of("loss").endswith("train_step()")
    # The forward ran in this file's class: its ops carry this file's lines (the program of a recording).
    hidden = cap.node_named("hidden")
    assert hidden is not None and cap.graph.nodes[hidden]["module"] == "net"
    assert cap.tensor("hidden").scope_of("hidden") == "_Net.forward()"
    assert any(w.code == "plain_tensor_attribute" and w.path == "net.scale" for a in cap.modules for w in a.warnings)
    # Nothing about the program changed: grad mode, its own result.
    assert torch.is_grad_enabled() and loss.grad_fn is not None


def test_record_keeps_the_users_exception_and_lets_it_go_on():
    w = torch.ones(2, requires_grad=True)
    rec = gradexplorer.record()
    with pytest.raises(RuntimeError, match="does not require grad"):
        with rec:
            y = (w * 2).sum()
            y.backward()
            torch.ones(1).backward()  # raises, as in plain PyTorch
    cap = rec.capture
    assert cap.error is not None and cap.error.exc_type == "RuntimeError"
    assert cap.error.line == _line_of("torch.ones(1).backward()")
    torch.testing.assert_close(cap.tensor("w").grad.data, torch.full((2,), 2.0))


def test_record_keeps_and_echoes_what_the_block_prints(capsys):
    with gradexplorer.record() as rec:
        print("inside the block")
    assert rec.capture.stdout == "inside the block\n"
    assert "inside the block" in capsys.readouterr().out


def test_a_module_no_variable_holds_is_named_by_its_class_and_audited():
    torch.manual_seed(0)
    x = torch.randn(4, 3)
    with gradexplorer.record() as rec:
        _Net()(x).sum().backward()
    cap = rec.capture
    leaves = {a["names"][0] for _, a in cap.graph.nodes(data=True) if a["kind"] == "leaf"}
    assert leaves == {"_Net.fc.weight", "_Net.fc.bias"}
    ops = [a for _, a in cap.graph.nodes(data=True) if a["kind"] != "leaf"]
    assert sum(a["module"] is not None for a in ops) >= 0.8 * len(ops)
    assert [a.path for a in cap.modules] == ["_Net"]


def test_a_parameter_is_named_by_its_module_path_first():
    cap = capture(textwrap.dedent("""
        w = nn.Parameter(torch.ones(2))
        def build():
            m = nn.Module()
            m.w = w
            return m
        model = build()
        (model.w * 3).sum().backward()
    """))
    leaf = next(a for _, a in cap.graph.nodes(data=True) if a["kind"] == "leaf")
    assert leaf["names"][0] == "model.w" and "w" in leaf["names"]


def test_show_walks_an_existing_graph_with_names_from_the_callers_scope():
    torch.manual_seed(0)
    net = _Net()
    other = torch.ones(3, requires_grad=True) * 5  # named in the scope, not on y's graph
    y = net(torch.randn(2, 3)).sum()
    rec = gradexplorer.show(y, app=False)
    cap = rec.capture
    assert cap.graph.graph["roots"] == (cap.node_named("y"),)
    names = {n for _, a in cap.graph.nodes(data=True) for n in a["names"]}
    assert {"y", "net.fc.weight", "net.fc.bias"} <= names and "other" not in names
    # Only what the graph holds: leaves' values, no forward values of ops that were never recorded.
    torch.testing.assert_close(cap.tensor("net.fc.weight").value.data, net.fc.weight.detach())
    relu = next(a for _, a in cap.graph.nodes(data=True) if a["op"] == "ReluBackward0")
    assert relu["value"] is None
    assert repr(rec).startswith("<gradexplorer.Recording>\n") and "net.fc.weight" in repr(rec)


def test_show_refuses_a_tensor_without_a_graph():
    with pytest.raises(ValueError, match="no autograd graph"):
        gradexplorer.show(torch.ones(2), app=False)


def test_a_recording_saves_and_opens_in_the_app_in_its_own_process(tmp_path, monkeypatch):
    w = torch.ones(2, requires_grad=True)
    with gradexplorer.record() as rec:
        (w * 3).sum().backward()
    path = rec.save(tmp_path / "step")
    assert path.suffix == ".gxsession"
    torch.testing.assert_close(load_session(path).capture.tensor("w").grad.data, torch.full((2,), 3.0))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    started = time.perf_counter()
    process = rec.show()
    try:
        assert time.perf_counter() - started < 5  # the script goes on at once
        time.sleep(8)
        assert process.poll() is None, "the app ended at once: it could not open the recording"
    finally:
        process.kill()
        process.wait()
    assert process.args[1:3] == ["-m", "gradexplorer"] and process.args[3].endswith(".gxsession")


def test_the_public_api_is_stable_and_typed():
    assert {"record", "show", "Recording", "capture", "Capture", "ScriptRun", "load_session",
            "save_session"} <= set(gradexplorer.__all__)
    for name in gradexplorer.__all__:
        assert getattr(gradexplorer, name) is not None
    assert (Path(gradexplorer.__file__).parent / "py.typed").exists()


def test_show_session_json_writes_the_capture_document(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("x = torch.ones(2, requires_grad=True)\n(x * 4).sum().backward()\n")
    session = tmp_path / "s.gxsession"
    run = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(script), "-o", str(session),
                          "--quiet"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = tmp_path / "s.json"
    shown = subprocess.run([sys.executable, "-m", "gradexplorer", "show", str(session), "--json", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(out.read_text())
    assert doc["format"] == "gradexplorer.capture"
    leaf = next(n for n in doc["nodes"] if n["kind"] == "leaf")
    assert leaf["grad"]["values"] == [4.0, 4.0]


def test_cli_input_reads_standard_input_and_says_why_when_there_is_none(tmp_path):
    script = tmp_path / "ask.py"
    script.write_text('name = input("name? ")\nprint("hello", name)\n')
    given = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(script), "--quiet", "--json", "-"],
                           input="Ada\n", capture_output=True, text=True, timeout=120)
    assert given.returncode == 0, given.stderr
    assert json.loads(given.stdout)["stdout"] == "name? hello Ada\n"
    empty = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(script), "--json", "-"],
                           input="", capture_output=True, text=True, timeout=120)
    error = json.loads(empty.stdout)["error"]
    assert error["exc_type"] == "NoInputError" and "end of standard input" in error["message"]
    piped = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", "-", "--json", "-"],
                           input=script.read_text(), capture_output=True, text=True, timeout=120)
    assert "the program itself came on standard input" in json.loads(piped.stdout)["error"]["message"]


def test_input_in_the_isolated_engine_says_why_it_cannot_read(tmp_path):
    from gradexplorer.core.isolated.engine import capture_isolated

    cap = capture_isolated('x = input("value? ")\n', memory_limit=None)
    assert cap.error.exc_type == "NoInputError" and "isolated engine" in cap.error.message
    assert isinstance(cap.error.message, str) and cap.stdout == "value? "


def test_a_cp950_script_runs_from_the_cli(tmp_path):
    script = tmp_path / "big5.py"
    script.write_bytes('# -*- coding: cp950 -*-\n損失 = torch.ones(2, requires_grad=True)\n'
                       '(損失 * 2).sum().backward()\nprint("損失", 損失.grad.tolist())\n'.encode("cp950"))
    plain = subprocess.run([sys.executable, "-c", "import torch, runpy; runpy.run_path(%r, {'torch': torch}, "
                            "'__main__')" % str(script)], capture_output=True, text=True, encoding="utf-8",
                           env={**os.environ, "PYTHONIOENCODING": "utf-8"}, timeout=120)
    out = tmp_path / "o.json"
    run = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(script), "--json", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["stdout"] == plain.stdout == "損失 [2.0, 2.0]\n"


def _line_of(text: str) -> int:
    """The line of this file holding ``text`` (the recording's program is this test file)."""
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line and "_line_of" not in line)


def test_a_recordings_objects_are_freed_without_a_collection():
    """The frames a recording keeps for names lead back to the caller's frame: they are let go at the end."""
    import gc
    import weakref

    def step():
        big = torch.ones(1000, requires_grad=True)
        with gradexplorer.record() as rec:
            (big * 2).sum().backward()
        return rec, weakref.ref(big)

    was = gc.isenabled()
    gc.disable()
    try:
        rec, watched = step()
        assert rec.capture.tensor("big") is not None
        assert watched() is None, "the recording keeps the program's tensors alive (a reference cycle)"
    finally:
        if was:
            gc.enable()

"""Real projects, not snippets (issue 26): each corpus project against a plain ``python SCRIPT ARGS`` run.

For every project of ``tests/projects/corpus.py`` (several files each:
argparse, ``main()``, a ``Trainer`` class, a package with relative imports,
a data module, a non-UTF-8 script, the recording API from a script and from
a notebook run by nbclient), run from the folder *above* the project:

* the truth is a plain ``python SCRIPT ARGS`` run (the probe only notes
  ``.grad`` around each backward call and where an exception came from);
* every per-pass leaf gradient (``.grad`` before and after each pass, leaf
  by leaf in breadth-first order from the pass's roots), what was printed,
  and the file and line of an exception must be the same in gradexplorer's
  capture;
* against the flattened top-level version of the same program (captured
  by gradexplorer too): the same leaf names (function scopes aside), the same
  module attribution on the last pass's graph, the same module-audit warnings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gradexplorer import ScriptRun, capture, load_session
from gradexplorer.core.capture.script import read_script
from tests.projects.corpus import (CORPUS, audit_warnings, copy_project, last_pass_modules, leaf_names, pass_leaves,
                                   plain_run)

SCRIPTS = [p for p in CORPUS if p.kind == "script"]


def _tensor(encoded):
    return None if encoded is None else torch.tensor(encoded["values"], dtype=torch.float64).reshape(encoded["shape"])


def _same(record, encoded, what: str) -> None:
    if encoded is None:
        assert record is None, f"{what}: PyTorch has None, gradexplorer {record}"
        return
    assert record is not None, f"{what}: PyTorch has {encoded['shape']}, gradexplorer None"
    ours = record.data
    assert ours is not None, f"{what}: values not kept"
    torch.testing.assert_close(ours.double().reshape(encoded["shape"]), _tensor(encoded), rtol=1e-6, atol=1e-7,
                               msg=f"{what} differs from plain PyTorch")


def assert_passes_agree(cap, plain: dict, *, first_plain: int = 0) -> None:
    """Every pass of ``cap`` against plain pass ``first_plain + k``: each reachable leaf's .grad before and after."""
    passes = plain["passes"][first_plain:]
    assert len(cap.passes) == len(passes), (len(cap.passes), len(passes))
    for k, truth in enumerate(passes):
        assert cap.passes[k].kind == truth["kind"]
        assert (cap.passes[k].error is None) == (truth["error"] is None), (cap.passes[k].error, truth["error"])
        leaves = pass_leaves(cap, k)
        assert len(leaves) == len(truth["leaves"]), f"pass {k}: {len(leaves)} leaves, PyTorch {len(truth['leaves'])}"
        for node, leaf in zip(leaves, truth["leaves"]):
            attrs = cap.graph.nodes[node]
            name = attrs["names"][0] if attrs["names"] else node
            assert list(attrs["variable"].shape) == leaf["shape"], name
            step = attrs["accumulation"].get(k)
            if step is None:  # the pass left this .grad alone
                assert leaf["before"] == leaf["after"], f"pass {k} changed {name}.grad, gradexplorer says it did not"
                continue
            _same(step.before, leaf["before"], f"{name}.grad before pass {k}")
            _same(step.after, leaf["after"], f"{name}.grad after pass {k}")


def assert_like_flat(cap, flat) -> None:
    """The same names (function scopes aside), module attribution and audit warnings as the top-level version."""
    assert leaf_names(cap) == leaf_names(flat)
    assert last_pass_modules(cap) == last_pass_modules(flat)
    assert audit_warnings(cap) == audit_warnings(flat)


def _capture_script(path: Path, args, cwd: Path, **options):
    return capture(read_script(path), filename=str(path), run=ScriptRun(tuple(args), str(cwd)), **options)


def test_the_corpus_is_real_projects():
    assert len(CORPUS) >= 8
    for project in CORPUS:
        files = [p for p in (Path(__file__).parent.parent / "projects" / project.name).rglob("*")
                 if p.suffix in (".py", ".ipynb", ".txt") and p.name != "flat.py"]
        assert len(files) >= 2, f"{project.name} is not several files"
    kinds = {p.kind for p in CORPUS}
    assert {"script", "api", "notebook"} <= kinds


@pytest.mark.parametrize("project", SCRIPTS, ids=lambda p: p.name)
def test_a_project_run_as_a_script_agrees_with_python(project, tmp_path):
    folder = copy_project(project, tmp_path)
    script = folder / project.script
    process, plain = plain_run(script, project.args, cwd=tmp_path, out=tmp_path / "plain.json")
    assert (process.returncode != 0) == project.raises, process.stderr

    cap = _capture_script(script, project.args, tmp_path)
    assert cap.stdout == process.stdout
    assert_passes_agree(cap, plain)
    if project.raises:
        truth = plain["error"]
        assert cap.error is not None and cap.error.exc_type == truth["type"]
        assert (cap.error.file, cap.error.line) == (truth["file"] if truth["file"] != script.name else None,
                                                    truth["line"])
    else:
        assert cap.ok, cap.error and cap.error.traceback

    flat = _capture_script(folder / project.flat, (), folder)
    assert flat.ok != project.raises, flat.error and flat.error.traceback
    assert_like_flat(cap, flat)
    # The model lives in a function's locals in the project, at top level in the flat program: said so.
    leaves = [cap.tensor(name) for name in leaf_names(cap)]
    assert all(info.scope_of(info.name) for info in leaves)
    assert not any(flat.tensor(name).scope_of(name) for name in leaf_names(flat))


def test_the_recording_api_in_a_users_script_agrees_with_python(tmp_path):
    project = next(p for p in CORPUS if p.kind == "api")
    folder = copy_project(project, tmp_path)
    script = folder / project.script
    process, plain = plain_run(script, ("--no-record",), cwd=tmp_path, out=tmp_path / "plain.json")
    assert process.returncode == 0, process.stderr
    session_path = tmp_path / "recorded.gxsession"
    recorded = subprocess.run([sys.executable, str(script), str(session_path)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
    assert recorded.returncode == 0, recorded.stderr
    # The same program: what it printed is the same, plus the recording's summary line.
    assert recorded.stdout.splitlines()[:2] == process.stdout.splitlines()
    cap = load_session(session_path).capture
    assert cap.stdout == process.stdout.splitlines(keepends=True)[1]  # what the recorded block printed
    assert_passes_agree(cap, plain, first_plain=1)  # the recording saw the second step only
    flat = _capture_script(folder / project.flat, (), folder)
    assert_like_flat(cap, flat)
    assert {info.scope_of(info.name) for info in cap.tensors if info.name.startswith("model.")} == {"train_step()"}


def test_a_notebook_recording_agrees_with_python(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    project = next(p for p in CORPUS if p.kind == "notebook")
    folder = copy_project(project, tmp_path)
    process, plain = plain_run(folder / project.flat, (), cwd=folder, out=tmp_path / "plain.json")
    assert process.returncode == 0, process.stderr

    notebook = nbformat.read(folder / project.script, as_version=4)
    nbclient.NotebookClient(notebook, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert printed.startswith(process.stdout)  # the prints reach the notebook while they are recorded
    html = [o["data"]["text/html"] for o in outputs if o.get("output_type") == "execute_result"]
    assert html and "gradexplorer" in html[0] and "net.hidden.weight" in html[0]  # the cell shows a summary

    cap = load_session(folder / "recording.gxsession").capture
    assert cap.stdout == process.stdout
    assert_passes_agree(cap, plain)
    flat = _capture_script(folder / project.flat, (), folder)
    assert_like_flat(cap, flat)
    # The model's forward is in model.py beside the notebook: its ops say so.
    files = {attrs["source"].file for _, attrs in cap.graph.nodes(data=True) if attrs["source"] is not None}
    assert "model.py" in files


def test_capture_from_another_folder_names_modules_and_files(tmp_path):
    """The CLI acceptance: ``gradexplorer capture proj/train.py --json OUT -- --steps 2`` from the folder above."""
    project = next(p for p in CORPUS if p.name == "package_relative")
    folder = copy_project(project, tmp_path)
    folder.rename(tmp_path / "proj")
    out = tmp_path / "out.json"
    result = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", "proj/train.py", "--json", str(out),
                             "--", "--steps", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    nodes = doc["nodes"]
    leaves = [n["names"][0] for n in nodes if n["kind"] == "leaf"]
    assert "model.blocks.0.lin.weight" in leaves
    ops = [n for n in nodes if n["kind"] != "leaf"]
    assert sum(n["module"] is not None for n in ops) >= 0.8 * len(ops)
    warnings = [w for m in doc["modules"] for w in m["warnings"]]
    assert any(w["code"] == "plain_tensor_attribute" and w["path"] == "model.offset" for w in warnings)
    assert {"pkg/model.py", "pkg/layers.py"} <= {n["source"]["file"] for n in nodes if n["source"]}
    assert doc["args"] == ["--steps", "2"] and doc["cwd"] == str(tmp_path)
    assert "class Block(nn.Module):" in doc["files"]["pkg/layers.py"]
    assert len(doc["passes"]) == 2


def test_an_edit_to_a_project_module_is_seen_by_the_next_run(tmp_path):
    """Project modules are imported afresh on every run and are gone from sys.modules afterwards."""
    project = next(p for p in CORPUS if p.name == "raises_in_model")
    folder = copy_project(project, tmp_path)
    script = folder / project.script
    first = _capture_script(script, ("4",), tmp_path)
    assert first.ok and "model" not in sys.modules
    model = folder / "model.py"
    model.write_text(model.read_text().replace("flat.sum()", "flat.sum() * 3"))
    second = _capture_script(script, ("4",), tmp_path)
    assert second.ok and "model" not in sys.modules
    grads = [cap.tensor("model.lin.weight").grad.data for cap in (first, second)]
    torch.testing.assert_close(grads[1], grads[0] * 3)
    assert "flat.sum() * 3" in second.files["model.py"] and "flat.sum() * 3" not in first.files["model.py"]


def test_a_script_runs_with_pythons_process_state_and_gives_it_back(tmp_path):
    script = tmp_path / "proj" / "show.py"
    script.parent.mkdir()
    (tmp_path / "proj" / "helper.py").write_text("VALUE = 42\n")
    script.write_text(
        "import os, sys\nimport helper\n"
        "print(__name__, os.path.basename(__file__), sys.argv[1:], os.path.basename(sys.path[0]),\n"
        "      os.path.basename(os.getcwd()), helper.VALUE, sys.modules['__main__'].__dict__ is globals())\n"
        "sys.path.append('/nowhere')\nsys.argv.append('more')\n")
    before = (list(sys.argv), list(sys.path), os.getcwd(), sys.modules.get("__main__"))
    cap = capture(script.read_text(), filename=str(script), run=ScriptRun(("--lr", "0.5"), str(tmp_path)))
    assert cap.ok, cap.error and cap.error.traceback
    plain = subprocess.run([sys.executable, str(script), "--lr", "0.5"], cwd=tmp_path, capture_output=True, text=True)
    assert cap.stdout == plain.stdout == f"__main__ show.py ['--lr', '0.5'] proj {tmp_path.name} 42 True\n"
    assert (list(sys.argv), list(sys.path), os.getcwd(), sys.modules.get("__main__")) == before
    assert "helper" not in sys.modules
    assert any("sys.path" in note for note in cap.restored) and any("sys.argv" in note for note in cap.restored)


def test_a_missing_working_folder_is_a_sentence_and_nothing_runs(tmp_path):
    from gradexplorer import GradexplorerError

    with pytest.raises(GradexplorerError, match="does not exist"):
        capture("print('ran')", run=ScriptRun((), str(tmp_path / "gone")))


def test_hooks_registered_in_a_project_module_are_seen(tmp_path):
    """model.py registers a tensor hook and a node hook (Node.register_hook, seen through the source rewrite)."""
    project = next(p for p in CORPUS if p.name == "hooks_and_grad")
    folder = copy_project(project, tmp_path)
    cap = _capture_script(folder / project.script, (), tmp_path)
    assert cap.ok, cap.error and cap.error.traceback
    hooks = [h for _, a in cap.graph.nodes(data=True) for h in a["hooks"] if not h.library]
    kinds = {(h.kind, h.source.file) for h in hooks}
    assert ("tensor", "model.py") in kinds and ("node_post", "model.py") in kinds
    halved = next(h for h in hooks if h.kind == "tensor")
    call = next(c for c in halved.calls if c.after is not None)
    torch.testing.assert_close(call.after[0].data, call.before[0].data * 0.5)
    # The program's own print of the node hook's calls is the same as in plain PyTorch (4).
    assert "node hook calls: 4" in cap.stdout

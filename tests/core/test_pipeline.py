"""The capture as a pipeline of named, timed steps (issue 30): order, timings, the preview, the data model's place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch

import gradexplorer
from gradexplorer import ScriptRun, capture
from gradexplorer.core.pipeline import STEPS, run_steps
from gradexplorer.core.pipeline.steps import Step
from tests.programs import SEED_LESSON
from tests.projects.corpus import CORPUS, copy_project

#: What the run hands the build (:func:`gradexplorer.core.pipeline.compose.build_capture`).
RUN_FACTS = {"trace", "namespace", "program", "text", "records"}

SEED = SEED_LESSON


def test_each_step_reads_only_the_run_and_earlier_steps():
    made = set(RUN_FACTS)
    for step in STEPS:
        assert step.reads, step.name
        assert set(step.reads) <= made, f"{step.name} reads {set(step.reads) - made} before it is made"
        made.add(step.makes)
    assert [s.name for s in STEPS] == ["names", "walk", "passes", "preview", "tensors", "modules", "assemble",
                                       "account", "explain"]


def test_a_step_that_reads_what_is_not_made_yet_fails_at_once():
    def late(explained):
        return explained

    with pytest.raises(KeyError, match="explained"):
        run_steps(dict.fromkeys(RUN_FACTS), (Step("early", "x", late),), timings={})


def test_every_step_is_timed_in_the_order_it_ran_and_the_seed_grads_are_pytorchs():
    seen: list[str] = []
    cap = capture(SEED, on_step=lambda name, made: seen.append(name))
    assert cap.ok, cap.error and cap.error.traceback
    assert seen == [s.name for s in STEPS]
    assert [k for k in cap.timings if k in seen] == seen
    assert cap.timings["build"] == pytest.approx(sum(cap.timings[s] for s in seen))
    assert {"run", "snapshot", "graph"} <= set(cap.timings)
    a, b, c = (torch.tensor(v, requires_grad=True) for v in (1.1, 1.2, 1.3))
    d = a * b
    seen_d = []
    d.register_hook(lambda g: seen_d.append(g.item()))
    (d * c).backward()
    for name, plain in (("a", a), ("b", b), ("c", c)):
        assert cap.graph.nodes[cap.node_named(name)]["grad"].data.item() == pytest.approx(plain.grad.item())
    assert cap.stdout.strip() == f"d {seen_d[0]}"  # 1.3: the intermediate's gradient, seen by its hook


def test_the_preview_is_the_capture_before_its_names_audit_and_explanations(tmp_path):
    """A real project: train.py, its model in main()'s locals, run from another folder with arguments."""
    folder = copy_project(next(p for p in CORPUS if p.name == "mlp_argparse"), tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    previews = []

    def on_step(name, made):
        if name == "preview":
            previews.append(made["preview"])
            assert "tensors" not in made and "explained" not in made  # nothing after it is made yet

    script = folder / "train.py"
    cap = capture(script.read_text(), filename=str(script), run=ScriptRun(("--steps", "1"), str(elsewhere)),
                  on_step=on_step)
    assert cap.ok, cap.error and cap.error.traceback
    (preview,) = previews
    assert preview.graph is cap.graph and preview.passes == cap.passes and preview.stdout == cap.stdout
    assert preview.tensors == preview.modules == preview.explanations == ()
    assert cap.tensors and cap.modules and cap.explanations
    assert cap.cwd == str(elsewhere) and cap.args == ("--steps", "1")
    # The picture's lines in model.py read already (the preview keeps the files the graph points into).
    files = {s.file for _, s in cap.graph.nodes(data="source") if s is not None and s.file is not None}
    assert files and files <= set(preview.files) and set(preview.files) <= set(cap.files)
    assert cap.tensor("loss").scope_of("loss") == "main()"


def test_the_recording_api_builds_through_the_same_steps():
    with gradexplorer.record() as rec:
        w = torch.ones(3, requires_grad=True)
        (w * 2).sum().backward()
    cap = rec.capture
    assert all(s.name in cap.timings for s in STEPS)
    assert cap.graph.nodes[cap.node_named("w")]["grad"].data.tolist() == w.grad.tolist() == [2.0, 2.0, 2.0]


def test_the_records_are_defined_at_the_bottom_and_the_graph_build_names_no_live_recorder():
    from gradexplorer.core.records.capture import Capture, PassSummary, TensorInfo
    from gradexplorer.core.records.explanations import Explanation
    from gradexplorer.core.records.modules import ModuleAudit

    for record in (Capture, PassSummary, TensorInfo, Explanation, ModuleAudit):
        assert record.__module__.startswith("gradexplorer.core.records."), record
    build = Path(gradexplorer.__file__).parent / "core" / "graph" / "build.py"
    imported = {node.module for node in ast.walk(ast.parse(build.read_text())) if isinstance(node, ast.ImportFrom)}
    assert not any(m and "capture" in m for m in imported), imported


def test_a_file_only_a_named_tensor_points_into_is_kept_beside_the_graphs(tmp_path):
    """consts.py makes a constant (no graph node): its line is told through the tensor, so its text is kept."""
    (tmp_path / "consts.py").write_text("import torch\nSCALE = torch.tensor(2.0)\n")
    script = tmp_path / "main.py"
    script.write_text("import torch\nimport consts\n\n\ndef main():\n    x = torch.ones(3, requires_grad=True)\n"
                      "    s = consts.SCALE\n    (x * s).sum().backward()\n    print(x.grad.tolist())\n\n\nmain()\n")
    previews = []
    cap = capture(script.read_text(), filename=str(script), run=ScriptRun((), str(tmp_path)),
                  on_step=lambda name, made: previews.append(made["preview"]) if name == "preview" else None)
    assert cap.ok, cap.error and cap.error.traceback
    x = torch.ones(3, requires_grad=True)
    (x * torch.tensor(2.0)).sum().backward()
    assert cap.stdout.strip() == str(x.grad.tolist())
    assert cap.tensor("s").origin.source.file == "consts.py"
    assert "consts.py" not in previews[0].files  # no node of the graph was made there
    assert cap.files["consts.py"] == (tmp_path / "consts.py").read_text()

"""The isolated engine draws first too: its child sends what the first picture needs before the rest.

The child's build makes the same ``preview`` the app's own engine draws
(graph, passes, output, error); it sends it in the part after the graph's
nodes, and the parent hands it to ``on_preview`` while the child still makes
the named tensors, the module audit and the explanations. Expected numbers
come from a plain PyTorch run of the same program.
"""

from __future__ import annotations

import io
import textwrap

import pytest
import torch

from gradexplorer.core.capture.script import ScriptRun
from gradexplorer.core.io.decode import PartialCapture
from gradexplorer.core.io.handover import read_capture_part, write_capture_part
from gradexplorer.core.isolated.engine import capture_isolated
from gradexplorer.core.records.errors import DocumentError
from tests.programs import SEED_LESSON

SEED = SEED_LESSON


def _plain_seed_grads():
    a, b, c = (torch.tensor(v, requires_grad=True) for v in (1.1, 1.2, 1.3))
    seen = []
    d = a * b
    d.register_hook(lambda g: seen.append(g.item()))
    (d * c).backward()
    return {"a": a.grad.item(), "b": b.grad.item(), "c": c.grad.item()}, seen[0]


def _leaf_grads(graph):
    return {attrs["names"][0]: attrs["grad"].item() for _, attrs in graph.nodes(data=True)
            if attrs["kind"] == "leaf" and attrs["names"] and attrs["grad"] is not None}


def test_the_preview_comes_first_with_the_graph_the_capture_keeps():
    previews = []
    cap = capture_isolated(SEED, on_preview=previews.append)
    assert cap.ok, cap.error
    assert len(previews) == 1
    preview = previews[0]
    assert preview.graph is cap.graph  # the picture drawn from it stays valid for the complete capture
    assert preview.explanations == () and preview.tensors == () and preview.modules == ()
    assert cap.explanations and cap.tensors
    assert [(p.kind, p.roots) for p in preview.passes] == [(p.kind, p.roots) for p in cap.passes]
    grads, hook_grad = _plain_seed_grads()
    assert _leaf_grads(preview.graph) == pytest.approx(grads)  # 1.56, 1.43, 1.32, as PyTorch computes them
    assert preview.stdout.strip() == f"d {hook_grad}"  # the program's output up to the preview


def test_a_projects_preview_from_another_folder_names_its_files(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "model.py").write_text("import torch.nn as nn\n\n\ndef make():\n    return nn.Linear(3, 2)\n",
                                      encoding="utf-8")
    (project / "train.py").write_text(textwrap.dedent("""\
        import argparse
        import torch
        from model import make


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--steps", type=int, default=1)
            args = parser.parse_args()
            torch.manual_seed(0)
            net = make()
            for _ in range(args.steps):
                net(torch.ones(4, 3)).pow(2).sum().backward()


        main()
    """), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = project / "train.py"
    previews = []
    cap = capture_isolated(script.read_text(encoding="utf-8"), filename=str(script),
                           run=ScriptRun(("--steps", "2"), str(elsewhere)), on_preview=previews.append)
    assert cap.ok, cap.error
    assert len(previews) == 1 and len(previews[0].passes) == 2
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 2)
    for _ in range(2):
        net(torch.ones(4, 3)).pow(2).sum().backward()
    weight = next(a for _, a in previews[0].graph.nodes(data=True) if a["kind"] == "leaf" and a["value"].shape == (2, 3))
    assert torch.allclose(weight["grad"].data, net.weight.grad)
    assert any(file.endswith("model.py") for file in previews[0].files)  # the node made in model.py can be shown


def test_a_preview_that_is_not_a_capture_document_is_refused_with_a_sentence():
    partial = PartialCapture()
    buffer = io.BytesIO()
    write_capture_part(buffer, [], [], {}, preview=b"[1, 2]")
    with pytest.raises(DocumentError, match="the preview should be an object"):
        read_capture_part(buffer.getvalue(), partial, name="part 1")
    buffer = io.BytesIO()
    write_capture_part(buffer, [], [], {}, preview=b'{"nodes": [{"id": "n0"}]}')
    with pytest.raises(DocumentError, match="holds nodes or records"):
        read_capture_part(buffer.getvalue(), PartialCapture(), name="part 1")

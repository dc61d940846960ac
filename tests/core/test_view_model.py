"""The view model (``core/view/model.py``): what is on screen and what to show next, without Qt.

Captures of a ``train.py``/``model.py`` project run from another folder (the
model in ``main()``'s locals), of a step recorded with ``gradexplorer.record()``
and of nested modules; truth from plain PyTorch runs of the same code.
"""

import sys

import torch
from torch import nn

import gradexplorer
from gradexplorer import capture
from gradexplorer.core.analysis.grouping import GROUP_PREFIX
from gradexplorer.core.capture.script import ScriptRun
from gradexplorer.core.view.model import PictureModel
from gradexplorer.core.view.picture import CaptureResult, pass_view, picture_of, prepare_view
from tests.core.test_replay import MODEL, TRAIN
from tests.programs import write_project


def _on_screen(cap, collapsed=None) -> CaptureResult:
    """The capture as the window first shows it (its last pass), or with ``collapsed`` modules folded."""
    if collapsed is None:
        display, layout, _note, pass_index, graph = picture_of(cap)
        return CaptureResult(cap, layout, 0.0, display, pass_index=pass_index, pass_graph=graph)
    display, layout = prepare_view(cap, frozenset(collapsed))
    return CaptureResult(cap, layout, 0.0, display)


def _project_capture(tmp_path):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    cap = capture(script.read_text(), filename=str(script), run=ScriptRun(("--steps", "2"), str(elsewhere)))
    assert cap.ok, cap.error and cap.error.traceback
    return cap


def _plain_ops_of_the_forward_line(tmp_path, monkeypatch) -> list[str]:
    """What plain PyTorch's ``Net.forward`` line (``return self.fc(x).tanh()``) makes: its output's node and the
    node below it, by name."""
    monkeypatch.syspath_prepend(str(tmp_path / "proj"))
    try:
        from model import Net

        torch.manual_seed(0)
        out = Net()(torch.ones(4, 3))
    finally:
        sys.modules.pop("model", None)  # the project's model.py: never the next test's "model"
    return sorted([out.grad_fn.name(), out.grad_fn.next_functions[0][0].name()])


def test_a_projects_forward_line_and_passes_as_plain_pytorch_made_them(tmp_path, monkeypatch):
    cap = _project_capture(tmp_path)
    model = PictureModel()
    model.result = _on_screen(cap)
    plain = _plain_ops_of_the_forward_line(tmp_path, monkeypatch)
    # model.py line 11 ran once per step: the same two ops each time, as plain PyTorch makes them.
    at_line = model.nodes_at_line(11, "model.py")
    ops = sorted(cap.graph.nodes[n]["op"] for n in at_line)
    assert ops == sorted(plain * 2), (ops, plain)
    assert model.nodes_at_line(11) == []  # the program's own line 11 (argparse) made no node
    # The window opens on the last of the two passes; the first is another picture, a third does not exist.
    assert model.result.pass_index == 1
    assert not model.is_new_pass(1) and model.is_new_pass(1, force=True)
    assert model.is_new_pass(0) and model.is_new_pass(None) and not model.is_new_pass(2)
    first_pass_nodes = [n for n in at_line if 0 in cap.graph.nodes[n]["on_path"] and 1 not in cap.graph.nodes[n]["on_path"]]
    assert len(first_pass_nodes) == 2
    assert all(model.needs_every_pass(n) for n in first_pass_nodes)
    assert not any(model.needs_every_pass(n) for n in at_line if n not in first_pass_nodes)
    # Collapse on a node folds its module: the addmm belongs to net.fc, the tanh to net.
    by_op = {cap.graph.nodes[n]["op"]: n for n in at_line if n not in first_pass_nodes}
    assert model.module_to_fold(by_op["AddmmBackward0"]) == "net.fc"
    assert model.module_to_fold(by_op["TanhBackward0"]) == "net"


def test_find_steps_through_its_matches_and_starts_again_on_another_capture(tmp_path):
    cap = _project_capture(tmp_path)
    model = PictureModel()
    model.result = _on_screen(cap)
    matches = ["n6", "n8", "n10"]
    shown = [model.next_match("tanh", matches) for _ in range(4)]
    assert [index for index, _ in shown] == [0, 1, 2, 0]
    assert shown[1][1] == ["n8", "n6", "n10"]  # the match shown first, the others after it
    assert model.next_match("addmm", matches)[0] == 0  # another text starts at its first match
    model.next_match("addmm", matches)
    model.result = _on_screen(capture("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n"))
    assert model.next_match("addmm", matches)[0] == 0


def test_a_hidden_node_is_found_in_its_box_and_the_boxes_to_open_show_it():
    code = ("torch.manual_seed(0)\nmodel = nn.Sequential(*[nn.Linear(2, 2) for _ in range(12)])\n"
            "model(torch.ones(1, 2)).sum().backward()\n")
    cap = capture(code)
    model = PictureModel()
    model.result = _on_screen(cap, {"model.1", "model.10"})
    graph = cap.graph
    inside_1 = [n for n, m in graph.nodes(data="module") if m == "model.1"]
    inside_10 = [n for n, m in graph.nodes(data="module") if m == "model.10"]
    # Plain PyTorch: model.1's forward makes an addmm, whose weight is a leaf of that layer.
    torch.manual_seed(0)
    plain = nn.Sequential(*[nn.Linear(2, 2) for _ in range(12)])
    assert len(inside_1) == len(inside_10) == len([p for p in plain[1].parameters()]) + 2  # addmm, t, weight, bias
    assert model.drawn_for(inside_1 + inside_10) == [GROUP_PREFIX + "model.1", GROUP_PREFIX + "model.10"]
    assert model.drawn_inside("model.1") == [GROUP_PREFIX + "model.1"]  # not model.10: exact paths
    # Collapse on a box folds its parent: the run of twelve layers, model.[0-11].
    assert model.module_to_fold(GROUP_PREFIX + "model.1") == "model.[0-11]"
    # The boxes to keep folded so that a node of model.10 shows: model.1 stays a box, model.10 opens.
    collapsed = model.boxes_to_open_for(inside_10[0])
    assert collapsed == frozenset({"model.1"})
    model.result = _on_screen(cap, collapsed)
    assert model.drawn_for(inside_10) == inside_10 and model.boxes_to_open_for(inside_10[0]) is None


def test_observers_see_each_change_and_only_another_capture_is_retired():
    replaced, seen = [], []
    model = PictureModel(on_replaced=replaced.append)
    model.observe(lambda old, new: seen.append((old, new)))
    with gradexplorer.record() as rec:
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        (w * 3).sum().backward()
    first = _on_screen(rec.capture)
    model.result = first
    model.set_filter("leaves", ["n0"])
    assert model.filter_nodes == ("n0",)
    graph, display, layout = pass_view(rec.capture, 0)
    shown = model.show(display=display, layout=layout, pass_index=0, pass_graph=graph)
    assert shown.capture is rec.capture and shown.pass_index == 0
    assert replaced == [] and seen == [(None, first), (first, shown)]
    assert model.filter_nodes == ("n0",)  # the same capture: the filter is the window's to clear
    # A run's complete capture shares its first picture's graph: the same capture, not retired.
    model.result = CaptureResult(rec.capture, layout, 0.0, display, pass_index=0, pass_graph=graph)
    assert replaced == []
    other = _on_screen(capture("x = torch.ones(1, requires_grad=True)\nx.sum().backward()\n"))
    model.result = other
    assert [r.capture for r in replaced] == [rec.capture]
    assert model.filter_key == "all" and model.filter_nodes is None and model.find_step == (None, -1)
    assert seen[-1][1] is other


def test_a_pass_graph_that_leaves_the_screen_is_handed_over_to_be_freed_and_the_model_keeps_none():
    import weakref

    dropped = []
    model = PictureModel(on_graph_dropped=lambda holder: dropped.append(holder.pop()))
    with gradexplorer.record() as rec:
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        (w * 3).sum().backward()
    model.result = _on_screen(rec.capture, frozenset())  # every pass: the capture's own graph, never handed over
    graph0, display, layout = pass_view(rec.capture, 0)
    model.show(display=display, layout=layout, pass_index=0, pass_graph=graph0)
    assert dropped == [] and graph0 is not rec.capture.graph
    # The same pass graph drawn again (a box opened, a run's complete capture after its first picture): kept.
    model.show(layout=layout)
    assert dropped == []
    graph1, display1, layout1 = pass_view(rec.capture, 1)
    model.show(display=display1, layout=layout1, pass_index=1, pass_graph=graph1)
    assert len(dropped) == 1 and dropped[0] is graph0
    alive = weakref.ref(graph0)
    del graph0, display, layout
    dropped.clear()
    assert alive() is None  # the model kept no reference of its own
    model.result = _on_screen(capture("x = torch.ones(1, requires_grad=True)\nx.sum().backward()\n"))
    assert len(dropped) == 1 and dropped[0] is graph1
    assert rec.capture.graph not in dropped

"""Modules, search, filters and NaN overlays in the app (issue 6)."""

import textwrap

import torch

from PySide6.QtCore import Qt

from tests.programs import MODEL

from gradexplorer.core.analysis.grouping import GROUP_PREFIX

from .conftest import run_and_wait
from .test_main_window import click_node



def test_collapse_and_expand_a_module_reads_counts_back(qtbot, window):
    window.editor.setPlainText(MODEL)
    result = run_and_wait(qtbot, window)
    graph = result.capture.graph
    total = graph.number_of_nodes()
    inside = [n for n, m in graph.nodes(data="module") if m and m.startswith("model.2")]
    click_node(qtbot, window, "model.2.0.weight")
    window.collapse_action.trigger()  # folds model.2.0 (the weight's module)
    box = window.graph_view.items_by_id[GROUP_PREFIX + "model.2.0"]
    window.graph_view.select_node(GROUP_PREFIX + "model.2.0")
    window.collapse_action.trigger()  # on a box: fold its parent, model.2
    box = window.graph_view.items_by_id[GROUP_PREFIX + "model.2"]
    assert box.names.startswith(f"Sequential · {len(inside)} nodes")
    assert len(window.graph_view.items_by_id) == total - len(inside) + 1
    assert window.graph_view.selected_node() == GROUP_PREFIX + "model.2"
    assert window.inspector.names.text().startswith(f"{len(inside)} nodes")
    # Double-click opens it one level: its two child modules become boxes.
    window.graph_view.centerOn(box)
    qtbot.mouseDClick(window.graph_view.viewport(), Qt.MouseButton.LeftButton,
                      pos=window.graph_view.mapFromScene(box.scenePos()))
    ids = set(window.graph_view.items_by_id)
    assert {GROUP_PREFIX + "model.2.0", GROUP_PREFIX + "model.2.1"} <= ids
    counts = sum(len(window.graph_view.items_by_id[g].group.members) for g in ids if g.startswith(GROUP_PREFIX))
    assert counts == len(inside)
    window.graph_view.select_node(GROUP_PREFIX + "model.2.0")
    window.expand_action.trigger()
    window.graph_view.select_node(GROUP_PREFIX + "model.2.1")
    window.expand_action.trigger()
    assert len(window.graph_view.items_by_id) == total


def test_search_selects_and_reveals(qtbot, window):
    window.editor.setPlainText(MODEL)
    run_and_wait(qtbot, window)
    window.picture.collapse_module("model.2")
    qtbot.keyClicks(window.search_box, "model.2.0.bias")
    qtbot.keyClick(window.search_box, Qt.Key.Key_Return)
    selected = window.graph_view.selected_node()
    assert selected == window.result.capture.node_named("model.2.0.bias")  # the box was opened to show it
    assert window.inspector.names.text() == "model.2.0.bias"
    assert "match 1 of" in window.status.text()


def test_filter_path_dims_the_rest_and_counts(qtbot, window):
    window.editor.setPlainText(MODEL)
    result = run_and_wait(qtbot, window)
    click_node(qtbot, window, "model.0.weight")
    index = window.filter_combo.findData("path")
    window.filter_combo.setCurrentIndex(index)
    window.filter_combo.activated.emit(index)  # the mode combo starts at "dim the rest"
    items = window.graph_view.items_by_id
    loss, bias = result.capture.node_named("loss"), result.capture.node_named("model.3.bias")
    assert items[loss].opacity() == 1.0 and items[bias].opacity() < 0.5
    assert items[bias].isVisible()  # dimmed, not hidden
    passing = sum(item.opacity() == 1.0 for item in items.values())
    assert window.filter_count.text().strip() == f"{passing} of {result.capture.graph.number_of_nodes()} nodes"
    assert window.graph_view.selected_node() == result.capture.node_named("model.0.weight")  # selection kept


def test_jump_to_first_nan_selects_the_op_and_its_line(qtbot, window):
    window.editor.setPlainText(textwrap.dedent("""\
        w = torch.tensor(2.0, requires_grad=True)
        h = w * 3
        bad = h * torch.log(torch.tensor(-1.0))
        loss = (bad + 1).sum()
        loss.backward()
    """))
    run_and_wait(qtbot, window)
    window.editor.go_to_line(1)
    window.nan_forward_action.trigger()
    node_id = window.graph_view.selected_node()
    attrs = window.result.capture.graph.nodes[node_id]
    assert attrs["op"] == "MulBackward0" and attrs["names"] == ("bad",)
    assert window.editor.current_line() == 3
    assert "First NaN/Inf in forward" in window.status.text() and "line 3" in window.status.text()
    window.nan_backward_action.trigger()
    assert window.result.capture.graph.nodes[window.graph_view.selected_node()]["names"] == ("bad",)


MASKED_ATTENTION = """\
torch.manual_seed(0)
q = torch.randn(2, 4, requires_grad=True)
k = torch.randn(3, 4)
scores = q @ k.T
mask = torch.tensor([[False, True, True], [True, True, True]])  # the second query may see no key
masked = scores.masked_fill(mask, float("-inf"))
weights = torch.softmax(masked, dim=-1)
loss = weights.nansum()
loss.backward()
"""


def test_first_nan_skips_an_intentional_minus_inf_mask_for_the_softmax(qtbot, window):
    """The first non-finite value of a masked attention is the -inf fill, on purpose; the NaN to find is the
    softmax of a row that is all -inf (issue 28). The truth is a plain PyTorch run of the same program."""
    namespace = {"torch": torch}
    exec(MASKED_ATTENTION, namespace)
    assert torch.isinf(namespace["masked"]).any() and not torch.isnan(namespace["masked"]).any()
    assert torch.isnan(namespace["weights"]).any()
    window.editor.setPlainText(MASKED_ATTENTION)
    run_and_wait(qtbot, window)
    window.nan_forward_action.trigger()
    attrs = window.result.capture.graph.nodes[window.graph_view.selected_node()]
    assert attrs["op"] == "SoftmaxBackward0" and attrs["names"] == ("weights",)
    assert window.editor.current_line() == 7
    status = window.status.text()
    assert "did not have" in status and "MaskedFillBackward0 at line 6 made Inf only" in status, status


def test_colour_by_gradient_norm_and_histogram(qtbot, window):
    window.editor.setPlainText(MODEL)
    run_and_wait(qtbot, window)
    node_id = click_node(qtbot, window, "model.0.weight")
    before = window.graph_view.items_by_id[node_id]._brush.color().name()
    index = window.colour_combo.findData("grad_norm")
    window.colour_combo.setCurrentIndex(index)
    window.colour_combo.activated.emit(index)
    after = window.graph_view.items_by_id[node_id]._brush.color().name()
    assert before != after
    assert window.graph_view.legend.mode == "grad_norm"
    assert window.inspector.value.histogram.isVisibleTo(window.inspector)
    assert sum(window.inspector.value.histogram.counts) == 32
    assert sum(window.inspector.grad.histogram.counts) == 32


def test_expanding_keeps_the_rest_in_place_and_a_stopped_drawing_is_reported(qtbot, window):
    from gradexplorer.core.view.picture import CaptureResult

    window.editor.setPlainText(MODEL)
    result = run_and_wait(qtbot, window)
    window.picture.collapse_module("model.2")
    box = GROUP_PREFIX + "model.2"
    box_y = window.result.layout.positions[box][1]
    above = {n: p for n, p in window.result.layout.positions.items() if p[1] < box_y}
    window.picture.expand_group("model.2")
    after = window.result.layout.positions
    assert above and all(after[n] == p for n, p in above.items())
    window.run_commands.on_returned(CaptureResult(result.capture, None, 0.0, None, "Drawing the graph was stopped"))
    assert "Drawing the graph was stopped" in window.console.toPlainText()
    assert window.status.text().startswith("Stopped while drawing")
    assert window.graph_view.items_by_id == {}


def test_worker_cancels_the_layout_when_stopped_after_the_code_finished(qtbot):
    from gradexplorer.ui.worker import CaptureJob, CaptureWorker

    worker = CaptureWorker(CaptureJob(MODEL, "cpu"))
    results, answers = [], []
    worker.returned.connect(results.append)
    # Stop as soon as the code has finished: not in user code, so it cancels the drawing instead.
    worker.user_code_finished.connect(lambda: answers.append(worker.request_stop()))
    worker.run()  # synchronously, in this thread
    (result,) = results
    assert answers == [False]
    assert result.capture.ok and result.layout is None and "stopped" in result.note


def test_worker_frees_the_program_after_the_picture_not_before(qtbot):
    """The finished program's objects are freed once the result is sent (the user no longer waits for that)."""
    import gc
    import sys
    import types

    from gradexplorer.ui.worker import CaptureJob, CaptureWorker

    probe = types.ModuleType("gx_probe")
    sys.modules["gx_probe"] = probe
    code = ("import gx_probe, weakref\nclass Box:\n    pass\nbox = Box()\ndef keep():\n    return box\n"
            "gx_probe.box = weakref.ref(box)\n" + MODEL)
    worker = CaptureWorker(CaptureJob(code, "cpu"))
    alive_at_result = []
    worker.returned.connect(lambda result: alive_at_result.append(probe.box() is not None))
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        worker.run()  # synchronously, in this thread
        assert alive_at_result == [True]  # the picture did not wait for the program's objects to be freed
        assert probe.box() is None  # and they were freed afterwards, without a collection
    finally:
        sys.modules.pop("gx_probe", None)
        if was_enabled:
            gc.enable()


def test_a_stop_before_the_code_starts_stops_it(qtbot):
    from gradexplorer.ui.worker import CaptureJob, CaptureWorker

    worker = CaptureWorker(CaptureJob(MODEL, "cpu"))
    results = []
    worker.returned.connect(results.append)
    assert worker.request_stop() is False
    worker.run()
    (result,) = results
    assert result.capture.error.kind == "stopped" and result.capture.graph.number_of_nodes() == 0


def test_nan_is_marked_on_nodes_and_on_module_boxes(qtbot, window):
    window.editor.setPlainText(textwrap.dedent("""\
        model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        with torch.no_grad():
            model[0].weight[0, 0] = float("nan")
        loss = model(torch.ones(1, 2)).sum()
        loss.backward()
    """))
    result = run_and_wait(qtbot, window)
    graph = result.capture.graph
    bad = [n for n, a in graph.nodes(data=True) if a["module"] == "model.0" and a["kind"] != "leaf"]
    assert any(window.graph_view.items_by_id[n].style[3] for n in bad)  # red border
    window.picture.collapse_module("model.0")
    assert window.graph_view.items_by_id[GROUP_PREFIX + "model.0"].group.nonfinite

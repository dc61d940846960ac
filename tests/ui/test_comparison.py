"""File > Compare with Session: one picture marked by status, both runs side by side in the inspector.

Read back as a user sees it: the fill each node is painted with, the dashed
border of a removed node, the edges drawn to it, the legend's lines, the
inspector's table for the chosen node, the console's report. Expected values
come from plain PyTorch runs of the same programs.
"""

import textwrap

import torch
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from gradexplorer import capture
from gradexplorer.core.capture.script import ScriptRun
from gradexplorer.core.io.session import save_session, session_from_capture
from gradexplorer.core.records.tensors import format_number
from gradexplorer.ui.legend import DIFF_FILLS, legend_texts

from ..core.test_diff import MODEL, TRAIN
from ..programs import write_project
from .conftest import run_and_wait

ALIAS = textwrap.dedent("""\
    a = torch.tensor(1.0, requires_grad=True)
    with torch.no_grad():
        b = a
    b.backward()
""")


def _saved_then(qtbot, window, tmp_path, before: str, after: str):
    """Run ``before`` in the window and save it, then run ``after``: the saved session's path."""
    saved = tmp_path / "before.gxsession"
    window.editor.setPlainText(before)
    run_and_wait(qtbot, window)
    save_session(window.files.current_session(), saved)
    window.editor.setPlainText(after)
    run_and_wait(qtbot, window)
    return saved


def _fill(window, node_id) -> str:
    return window.graph_view.items_by_id[node_id]._brush.color().name()


def _row(window, what):
    return next(row for row in window.inspector.comparison_table() if row[0] == what)


def test_the_seed_lesson_b_equals_a_compared_with_b_equals_a_plus_0(qtbot, window, tmp_path):
    plain = {}
    exec(ALIAS, {"torch": torch}, plain)
    saved = _saved_then(qtbot, window, tmp_path, ALIAS, ALIAS.replace("b = a\n", "b = a + 0\n"))
    assert window.compare_action.isEnabled() and not window.end_comparison_action.isEnabled()
    assert window.comparison.compare_with(saved)
    a = window.result.capture.node_named("a")
    # The one node both runs have is changed (it got a gradient in A and none in B): painted amber.
    assert _fill(window, a) == QColor(DIFF_FILLS["changed"][0]).name()
    assert window.graph_view.legend.mode == "diff"
    assert legend_texts("diff")[:4] == ["the same in both runs", "changed (value, gradient, op, dtype…)",
                                        "added: only in this run", "removed: only in the run compared with"]
    assert window.colour_combo.currentData() == "diff"
    window.graph_view.select_node(a)
    assert window.inspector.comparison_box.title() == "Compared: changed, matched by name"
    assert _row(window, ".grad at the end")[1:] == (format_number(plain["a"].grad.item()), "None", "in one run only")
    assert _row(window, "why `b`")[1:] == ("alias", "no_grad", "changed")
    assert _row(window, "why `a`")[1:] == ("leaf_grad", "leaf_unreachable", "changed")
    assert "b: alias -> no_grad" in window.console.toPlainText()
    assert "1 changed" in window.status.text()
    window.end_comparison_action.trigger()
    assert window.colour_combo.findData("diff") < 0 and window.graph_view.legend.mode == "kind"
    assert not window.inspector.comparison_box.isVisibleTo(window.inspector)
    assert not window.end_comparison_action.isEnabled()


def _session(script, elsewhere, path, *args):
    cap = capture(script.read_text(encoding="utf-8"), filename=str(script), run=ScriptRun(args, str(elsewhere)))
    assert cap.ok, cap.error
    save_session(session_from_capture(cap), path)
    return cap


def test_a_frozen_layer_shows_its_removed_nodes_where_they_hung(qtbot, window, tmp_path):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    plain = {}
    namespace = {"__name__": "plain"}
    exec(MODEL, namespace)
    torch.manual_seed(0)
    model = namespace["Net"]()
    x, target = torch.randn(5, 4), torch.randint(0, 3, (5,))
    torch.nn.functional.cross_entropy(model(x), target).backward()
    plain = {n: p.grad for n, p in model.named_parameters()}
    _session(script, elsewhere, tmp_path / "a.gxsession")
    frozen = _session(script, elsewhere, tmp_path / "b.gxsession", "--freeze")
    assert window.files.open_session(tmp_path / "b.gxsession")
    assert window.comparison.compare_with(tmp_path / "a.gxsession")
    view, graph = window.graph_view, window.result.shown_graph
    removed = sorted(n for n in view.items_by_id if n.startswith("A:"))
    assert len(removed) == 5
    for node_id in removed:
        assert _fill(window, node_id) == QColor(DIFF_FILLS["removed"][0]).name()
        assert view.items_by_id[node_id]._pen.style() == Qt.PenStyle.DashLine
    for node_id in frozen.graph:
        assert _fill(window, node_id) == QColor(DIFF_FILLS["same"][0]).name()
    # The removed tanh hangs below the head's addmm, as it did in run A: that edge is drawn.
    head = next(n for n in frozen.graph if frozen.graph.nodes[n]["op"] == "AddmmBackward0")
    tanh = next(n for n in removed if graph.nodes[n]["op"] == "TanhBackward0")
    assert (head, tanh) in view.drawn_edges()
    # A removed parameter: the inspector shows run A's node, and its gradient beside B's none.
    weight = next(n for n in removed if graph.nodes[n]["names"] == ("model.embed.weight",))
    view.select_node(weight)
    inspector = window.inspector
    assert inspector.title.text().startswith("AccumulateGrad") and "model.embed.weight" in inspector.names.text()
    grad_row = _row(window, ".grad at the end")
    truth = plain["embed.weight"]
    assert grad_row[1] == f"8x4 float32 {format_number(truth.min().item())}..{format_number(truth.max().item())}"
    assert grad_row[2:] == ("None", "in one run only")
    assert _row(window, "why `model.embed.weight`")[1:] == ("leaf_grad", "grad_switched_off", "changed")
    # A parameter in both runs: the same gradient, as plain PyTorch computes with the layer frozen or not.
    view.select_node(frozen.node_named("model.head.bias"))
    assert _row(window, ".grad at the end")[3] == "same"
    assert _row(window, ".grad at the end")[1] == "[" + ", ".join(format_number(v) for v in plain["head.bias"].tolist()) + "]"
    # Another pass (or a new run) ends the comparison; the picture is the run's own again.
    window.comparison.end()
    assert not any(n.startswith("A:") for n in window.graph_view.items_by_id)
    assert window.graph_view.legend.mode == "kind"


def test_a_session_that_cannot_be_read_leaves_the_picture_as_it_was(qtbot, window, tmp_path):
    bad = tmp_path / "broken.gxsession"
    bad.write_bytes(b"not a session")
    assert not window.comparison.compare_with(bad)  # nothing on screen yet
    window.editor.setPlainText(ALIAS)
    run_and_wait(qtbot, window)
    drawn = dict(window.graph_view.items_by_id)
    assert not window.comparison.compare_with(bad)
    assert "Cannot compare with broken.gxsession" in window.console.toPlainText()
    assert window.graph_view.items_by_id.keys() == drawn.keys() and window.graph_view.legend.mode == "kind"
    assert not window.comparison.active


def test_the_tensors_and_modules_tabs_show_what_changed_since_the_compared_run(qtbot, window, tmp_path):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    plain_run = _session(script, elsewhere, tmp_path / "a.gxsession")
    _session(script, elsewhere, tmp_path / "b.gxsession", "--freeze")
    assert window.files.open_session(tmp_path / "b.gxsession")
    tensors, modules = window.tensors_pane, window.modules_pane
    row = next(r for r in range(tensors.rowCount()) if tensors.cell_text(r, 0) == "model.embed.weight")
    assert tensors.cell_text(row, 1) == "grad_switched_off"
    assert modules.row_texts("model.embed.weight")[4] == "frozen; no .grad"
    assert window.comparison.compare_with(tmp_path / "a.gxsession")
    assert tensors.cell_text(row, 1) == "leaf_grad → grad_switched_off"
    before = plain_run.tensor("model.embed.weight")
    assert before is not None and "In the run compared with: " in tensors.table.data(
        tensors.table.index(row, 1), Qt.ItemDataRole.ToolTipRole)
    head = next(r for r in range(tensors.rowCount()) if tensors.cell_text(r, 0) == "model.head.weight")
    assert tensors.cell_text(head, 1) == "leaf_grad"  # unchanged: no arrow
    assert modules.row_texts("model.embed.weight")[4] == (
        "frozen; no .grad; compared: requires_grad True -> False, has .grad True -> False")
    assert modules.row_texts("model.head.weight")[4] == "requires grad; has .grad"
    window.end_comparison_action.trigger()
    assert tensors.cell_text(row, 1) == "grad_switched_off"
    assert modules.row_texts("model.embed.weight")[4] == "frozen; no .grad"


LOOP = textwrap.dedent("""\
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x, y = torch.randn(6, 3), torch.randn(6, 1)
    for step in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
""")


def _plain_loop(lr: str) -> list[dict]:
    """The loop run by PyTorch alone: each step's parameter gradients."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=float(lr))
    x, y = torch.randn(6, 3), torch.randn(6, 1)
    seen = []
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        seen.append({n: p.grad.clone() for n, p in model.named_parameters()})
        opt.step()
    return seen


def test_a_training_loop_is_compared_pass_by_pass(qtbot, window, tmp_path):
    plain_a, plain_b = _plain_loop("0.5"), _plain_loop("0.1")
    saved = _saved_then(qtbot, window, tmp_path, LOOP.replace("LR", "0.5"), LOOP.replace("LR", "0.1"))
    assert window.result.pass_index == 2  # a loop opens on its last pass
    assert window.comparison.compare_with(saved)
    cap = window.result.capture
    weight = cap.node_named("model.0.weight")
    view = window.graph_view

    def fills():
        return {n: _fill(window, n) for n in view.items_by_id}

    same, changed = QColor(DIFF_FILLS["same"][0]).name(), QColor(DIFF_FILLS["changed"][0]).name()
    # Pass 3: the learning rates have made the runs drift apart (plain PyTorch: the gradients differ).
    assert not torch.equal(plain_a[2]["0.weight"], plain_b[2]["0.weight"])
    assert window.result.pass_index == 2 and fills()[weight] == changed
    assert all(2 in window.result.shown_graph.nodes[n]["on_path"] for n in view.items_by_id)
    assert "pass 3 of 3 shown" in window.status.text()
    # Pass 1 ran on the same parameters in both runs: the same gradients, every node the same.
    assert all(torch.equal(plain_a[0][n], plain_b[0][n]) for n in plain_a[0])
    window.picture.set_pass(0)
    assert window.comparison.active and window.result.pass_index == 0
    assert set(fills().values()) == {same}
    view.select_node(weight)
    assert _row(window, "gradient, pass 1")[3] == "same"
    gap = (plain_a[2]["0.weight"].double() - plain_b[2]["0.weight"].double()).abs().max().item()
    assert _row(window, "gradient, pass 3")[3] == f"max |a-b| {gap:.3g}, rel " + _row(
        window, "gradient, pass 3")[3].split("rel ")[1]
    window.end_comparison_action.trigger()
    assert not window.comparison.active and window.result.pass_index == 0
    assert not any(n.startswith("A:") for n in view.items_by_id) and view.legend.mode == "kind"
    # Replaying a pass ends the comparison: the replay is of the run's own picture.
    assert window.comparison.compare_with(saved) and window.comparison.active
    window.replay.bar.forward_action.trigger()
    assert not window.comparison.active and window.inspector.replay_text().startswith("Step 1 of")
    assert not any(n.startswith("A:") for n in view.items_by_id)


def test_a_wide_inspector_shows_both_runs_side_by_side(qtbot, window, tmp_path):
    from gradexplorer.ui.comparison_box import COMPARISON_TABLE_WIDTH

    saved = _saved_then(qtbot, window, tmp_path, LOOP.replace("LR", "0.5"), LOOP.replace("LR", "0.1"))
    assert window.comparison.compare_with(saved)
    window.graph_view.select_node(window.result.capture.node_named("model.0.weight"))
    inspector = window.inspector
    dock = inspector.parentWidget()
    while dock is not None and not hasattr(dock, "setFloating"):
        dock = dock.parentWidget()
    dock.setFloating(True)
    dock.resize(400, 700)
    qtbot.waitUntil(lambda: inspector.viewport().width() < COMPARISON_TABLE_WIDTH)
    qtbot.wait(50)
    text = inspector.comparison.text()
    assert inspector.comparison_layout() == "lines" and "<table" not in text
    assert "&nbsp;&nbsp;A: 4x3 float32 -0.2454..0.2678<br>&nbsp;&nbsp;B: 4x3 float32 -0.3102..0.3671" in text
    dock.resize(1000, 700)
    qtbot.waitUntil(lambda: inspector.viewport().width() >= COMPARISON_TABLE_WIDTH)
    qtbot.wait(50)
    text = inspector.comparison.text()
    assert inspector.comparison_layout() == "table" and "<table" in text
    # .grad at the end: A's beside B's, then the difference.
    assert "<td>4x3 float32 -0.2454..0.2678</td><td>4x3 float32 -0.3102..0.3671</td>" in text


def test_a_comparisons_lookups_are_made_in_its_job_not_on_the_gui_thread(qtbot, window, tmp_path, monkeypatch):
    """The first click on a 50,000-node comparison built the node lookups on the GUI thread (30 ms)."""
    import threading

    from gradexplorer.core.records.diff import CaptureDiff

    built_in: list[int] = []
    original = CaptureDiff._index
    monkeypatch.setattr(CaptureDiff, "_index", lambda self: (
        None if "_by_id" in self.__dict__ else built_in.append(threading.get_ident()), original(self))[1])
    saved = _saved_then(qtbot, window, tmp_path, ALIAS, ALIAS.replace("b = a\n", "b = a + 0\n"))
    assert window.comparison.compare_with(saved)
    window.graph_view.select_node(window.result.capture.node_named("a"))
    assert _row(window, "why `b`")[1:] == ("alias", "no_grad", "changed")  # the click read the lookups
    assert len(built_in) == 1 and built_in[0] != threading.get_ident()


def test_an_ended_comparison_is_freed_in_steps_by_the_retirer(qtbot, window, tmp_path):
    """Run A's capture and the joint graph are as big as the run's: dropped at once they froze the window."""
    import weakref

    saved = _saved_then(qtbot, window, tmp_path, ALIAS, ALIAS.replace("b = a\n", "b = a + 0\n"))
    window.jobs.wait_all()
    qtbot.waitUntil(lambda: window.retirer.pending == 0, timeout=10_000)  # the first run's capture
    freed = window.retirer.freed
    assert window.comparison.compare_with(saved)
    capture_a = weakref.ref(window.comparison.current.capture_a)
    joint = weakref.ref(window.result.shown_graph)
    assert joint() is not window.result.capture.graph
    window.end_comparison_action.trigger()
    qtbot.waitUntil(lambda: window.retirer.freed == freed + 2, timeout=10_000)  # run A's capture, the joint graph
    assert capture_a() is None and joint() is None

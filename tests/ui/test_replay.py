"""The Replay toolbar steps through a backward pass as the engine ran it; the picture and inspector follow.

Read back as a user sees it: the inspector's step text, which nodes are
dimmed (painted at a lower opacity), which node is selected, and the
gradients painted on the edges the current node sends along. Expected
values come from a plain PyTorch run of the seed notes' program.
"""

import torch

from ..programs import EDITED_LOOP, SEED_LESSON
from .conftest import run_and_wait


def _plain_seed() -> dict[str, float]:
    """The seed lesson run by PyTorch alone: d's gradient (its hook) and the leaves' .grad."""
    a = torch.tensor(1.1, requires_grad=True)
    b = torch.tensor(1.2, requires_grad=True)
    c = torch.tensor(1.3, requires_grad=True)
    d = a * b
    seen = {}
    d.register_hook(lambda g: seen.update(d=g.item()))
    (d * c).backward()
    return {"d": seen["d"], "a": a.grad.item(), "b": b.grad.item(), "c": c.grad.item()}


def _step_forward(qtbot, window):
    window.replay.bar.forward_action.trigger()
    return window.inspector.replay_text()


def test_stepping_through_the_seed_lesson_lights_each_node_as_the_engine_ran_it(qtbot, window):
    truth = _plain_seed()
    window.editor.setPlainText(SEED_LESSON)
    run_and_wait(qtbot, window)
    cap = window.result.capture
    bar, view, inspector = window.replay.bar, window.graph_view, window.inspector
    assert bar.pass_combo.currentText() == "pass 1: backward line 7" and bar.forward_action.isEnabled()
    assert inspector.replay_text() == "" and not inspector.replay_box.isVisibleTo(inspector)

    texts = [_step_forward(qtbot, window)]
    e, d = cap.node_named("e"), cap.node_named("d")
    assert texts[0].startswith("Step 1 of 5 · MulBackward0 (e)")
    assert bar.step_label.text().strip() == "step 1 of 5" and bar.slider.value() == 0
    # Only the root has run: every other node is painted dimmed; the root is the one selected.
    assert view.items_by_id[e].opacity() == 1.0
    assert all(view.items_by_id[n].opacity() < 0.5 for n in cap.graph if n != e)
    assert view.selected_node() == e
    # What it sends is painted on its edges: d gets c's value 1.3, c gets d's value 1.32.
    labels = window.replay.flow_labels()
    assert labels[(e, d)] == f"{truth['d']:.4g}" and labels[(e, cap.node_named("c"))] == f"{truth['c']:.4g}"
    for _ in range(4):
        texts.append(_step_forward(qtbot, window))
    assert bar.step_label.text().strip() == "step 5 of 5"
    assert all(item.opacity() == 1.0 for item in view.items_by_id.values())  # every node has run

    def step_of(title):
        return next(i for i, t in enumerate(texts) if t.splitlines()[0].endswith(title))

    at_d, at_a, at_b = step_of("· MulBackward0 (d)"), step_of("· AccumulateGrad (a)"), step_of("· AccumulateGrad (b)")
    assert at_d < at_a and at_d < at_b  # d receives 1.3 before a and b receive theirs
    assert f"Receives: {truth['d']:.4g}" in texts[at_d]
    assert f"a.grad: None → {truth['a']:.4g}" in texts[at_a] and f"b.grad: None → {truth['b']:.4g}" in texts[at_b]
    # The node the step is at is the one the inspector details below the step.
    assert inspector.title.text().endswith(f"({cap.node_named('b')})") or inspector.title.text().endswith(
        f"({cap.node_named('a')})")

    bar.back_action.trigger()
    assert inspector.replay_text() == texts[3] and bar.slider.value() == 3
    bar.slider.setValue(1)
    assert inspector.replay_text() == texts[1]
    bar.stop_action.trigger()
    assert inspector.replay_text() == "" and window.replay.flow_labels() == {}
    assert all(item.opacity() == 1.0 for item in view.items_by_id.values())


def test_play_runs_to_the_last_step_and_a_second_pass_is_replayed_on_its_own_picture(qtbot, window):
    window.editor.setPlainText(EDITED_LOOP)
    run_and_wait(qtbot, window)
    bar = window.replay.bar
    assert bar.pass_combo.count() == 3
    bar.pass_combo.setCurrentIndex(1)
    bar.timer.setInterval(10)
    bar.play_action.setChecked(True)
    assert bar.play_action.text() == "■ Pause"
    qtbot.waitUntil(lambda: not bar.play_action.isChecked(), timeout=10_000)
    assert window.result.pass_index == 1  # the picture shows the pass replayed
    length = len(window.replay.replay)
    assert bar.step_label.text().strip() == f"step {length} of {length}"
    text = window.inspector.replay_text()
    assert text.startswith(f"Step {length} of {length}") and "w.grad: [" in text
    # Choosing another pass in the navigator leaves the replay.
    window.picture.set_pass(0)
    assert window.replay.replay is None and window.inspector.replay_text() == ""


def test_a_new_run_ends_the_replay(qtbot, window):
    window.editor.setPlainText(SEED_LESSON)
    run_and_wait(qtbot, window)
    window.replay.bar.forward_action.trigger()
    assert window.inspector.replay_text()
    window.editor.setPlainText("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    run_and_wait(qtbot, window)
    assert window.replay.replay is None and window.inspector.replay_text() == ""
    assert window.replay.bar.pass_combo.currentText() == "pass 1: backward line 2"


def test_a_model_folded_into_module_boxes_replays_without_opening_them(qtbot, window):
    from gradexplorer.core.analysis.replay import node_title
    from gradexplorer.resources import read_example

    window.editor.setPlainText(read_example("10_transformer_training"))
    run_and_wait(qtbot, window, timeout=120_000)
    bar = window.replay.bar
    bar.forward_action.trigger()  # the replay starts: the picture of its pass
    display = window.result.display
    assert window.result.pass_index == 0 and display is not None and display.groups  # module boxes
    for _ in range(29):
        bar.forward_action.trigger()
    replay = window.replay.replay
    node = replay.order[29]
    assert window.result.display is display  # nothing was opened or redrawn
    assert window.graph_view.selected_node() == display.owner.get(node, node)
    text = window.inspector.replay_text()
    assert text.startswith(f"Step 30 of {len(replay)} · {node_title(window.result.capture.graph, node)}")
    # Gradients sent between boxes are written on the drawn edges between them, none inside a box.
    drawn = set(display.edges)
    assert all(edge in drawn for edge in window.replay.flow_labels())


def test_playing_a_one_step_pass_stops_at_once(qtbot, window):
    window.editor.setPlainText("x = torch.tensor(2.0, requires_grad=True)\nx.backward()\n")
    run_and_wait(qtbot, window)
    bar = window.replay.bar
    bar.play_action.setChecked(True)
    assert len(window.replay.replay) == 1 and bar.step_label.text().strip() == "step 1 of 1"
    assert not bar.play_action.isChecked() and not bar.timer.isActive()
    assert window.inspector.replay_text().startswith("Step 1 of 1 · AccumulateGrad (x)")


def test_the_users_filter_is_painted_again_when_the_replay_ends(qtbot, window):
    """A replay dims what has not run yet; when it stops, the filter the combo still names is back on screen."""
    window.editor.setPlainText(EDITED_LOOP)
    run_and_wait(qtbot, window)
    cap, view, bar = window.result.capture, window.graph_view, window.replay.bar
    shown = window.result.pass_index
    assert shown == 2  # the last pass
    bar.pass_combo.setCurrentIndex(shown)  # the replay is of the pass on screen: the picture stays
    root = cap.passes[shown].roots[0][0]
    view.select_node(root)
    assert window.picture.apply_filter("path") == [root]  # the root's way to the roots is itself
    drawn = set(view.items_by_id)
    assert {n for n in drawn if view.items_by_id[n].opacity() < 0.5} == drawn - {root}
    for _ in range(3):
        _step_forward(qtbot, window)
    # The replay's own dimming: the nodes run so far are lit, not only the filter's one.
    assert {n for n in drawn if view.items_by_id[n].opacity() == 1.0} > {root}
    bar.stop_action.trigger()
    assert window.result.pass_index == shown and set(view.items_by_id) == drawn
    assert window.filter_combo.currentData() == "path" and window.clear_filter_action.isEnabled()
    assert {n for n in drawn if view.items_by_id[n].opacity() < 0.5} == drawn - {root}
    window.clear_filter_action.trigger()
    assert all(item.opacity() == 1.0 for item in view.items_by_id.values())


def test_a_picture_redrawn_during_a_replay_takes_the_replay_on(qtbot, window):
    """Find or a box opened redraws the picture in a new scene, whose old items Qt then deletes: the next
    step, Stop or a comparison ended in "Internal C++ object already deleted"."""
    window.editor.setPlainText(SEED_LESSON)
    run_and_wait(qtbot, window)
    first = _step_forward(qtbot, window)  # e: it sends d and c their gradients, painted on its edges
    sent = window.replay.flow_labels()
    window.picture.redisplay(frozenset())  # what opening or closing a box does
    qtbot.wait(20)  # the old scene and its items are deleted by the event loop
    assert _step_forward(qtbot, window).startswith("Step 2 of 5")
    window.replay.bar.back_action.trigger()
    assert window.inspector.replay_text() == first and window.replay.flow_labels() == sent and len(sent) == 2
    window.picture.redisplay(frozenset())
    qtbot.wait(20)
    window.replay.bar.stop_action.trigger()
    assert window.inspector.replay_text() == "" and window.replay.flow_labels() == {}

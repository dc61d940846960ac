"""Picture first (issue 30): a run's graph is drawn before its explanations exist; the panes fill in after.

A gate set by the test holds the build's last step (the explanations) until
the test has read what the window shows then: the picture, the panes saying
what they are still computing, the inspector of a clicked node. Released,
the panes fill in, and the picture (same items, same selection) stays.
"""

from __future__ import annotations

import threading

import pytest
import torch
from PySide6.QtCore import Qt

from gradexplorer.core.pipeline import steps
from gradexplorer.ui.capture_display import NOT_COMPUTED, PENDING_AUDIT, PENDING_EXPLANATIONS, PENDING_FLOW
from tests.projects.corpus import CORPUS, copy_project

from .conftest import run_and_wait

#: The seed notes' lesson: under no_grad, `b = a` is a second name; `c = a + 0` a new tensor without a graph.
SEED = """\
a = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    b = a
    c = a + 0
(b * 3).sum().backward()
"""


class Gate:
    """Holds the build's explanations step until :meth:`release` (or makes it raise)."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.released = threading.Event()
        self.fail = False

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def gate(monkeypatch):
    held = Gate()
    real = steps.explain_capture

    def gated(capture):
        held.reached.set()
        held.released.wait(30)
        if held.fail:
            raise RuntimeError("a bug of ours while explaining (made by the test)")
        return real(capture)

    monkeypatch.setattr(steps, "explain_capture", gated)
    yield held
    held.release()


def _start_and_wait_for_the_picture(qtbot, window, gate: Gate) -> None:
    window.run_action.trigger()
    qtbot.waitUntil(gate.reached.is_set, timeout=60_000)
    qtbot.wait(50)  # anything still queued for the window arrives
    assert window.is_running and window.result is not None and not window.result.complete


def _open_mlp_project(window, tmp_path):
    """Open the corpus's mlp_argparse/train.py, to run with ``--steps 1`` from another folder (returned)."""
    folder = copy_project(next(p for p in CORPUS if p.name == "mlp_argparse"), tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert window.files.open_path(folder / "train.py")
    window.run_commands.set_run_arguments(["--steps", "1"])
    window.run_commands.set_working_folder(str(elsewhere))
    return elsewhere


def _click(qtbot, window, node_id: str) -> None:
    window.picture.show_nodes([node_id])
    item = window.graph_view.items_by_id[node_id]
    window.graph_view.centerOn(item)
    qtbot.mouseClick(window.graph_view.viewport(), Qt.MouseButton.LeftButton,
                     pos=window.graph_view.mapFromScene(item.scenePos()))
    assert window.graph_view.selected_node() == node_id


def test_a_projects_picture_is_drawn_before_its_explanations_and_the_panes_fill_in(qtbot, window, tmp_path, gate):
    """train.py with its model in main()'s locals, run from another folder, with arguments."""
    elsewhere = _open_mlp_project(window, tmp_path)

    _start_and_wait_for_the_picture(qtbot, window, gate)
    preview = window.result.capture
    loss = preview.node_named("loss")
    assert loss is not None and loss in window.graph_view.items_by_id  # drawn: the loss node is in the scene
    assert window.status.text().endswith("nodes; explaining…")
    # The panes say what they compute: no rows of an earlier run, no empty table that reads "nothing here".
    assert window.tensors_pane.pending_text() == PENDING_EXPLANATIONS and window.tensors_pane.rowCount() == 0
    assert window.modules_pane.pending_text() == PENDING_AUDIT and window.modules_pane.audit.rowCount() == 0
    assert window.gradient_flow_pane.summary.text() == PENDING_FLOW and not window.gradient_flow_pane.series
    assert window.tensors_pane.pending.isVisible()  # its tab is the one shown
    # The picture answers already: a node's values and gradient are in the inspector.
    _click(qtbot, window, loss)
    assert window.inspector.names.text().startswith("loss")
    item = window.graph_view.items_by_id[loss]

    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        gate.release()
    result = window.result
    cap = result.capture
    assert result.complete and cap.ok, cap.error and cap.error.traceback
    assert cap.graph is preview.graph and cap.cwd == str(elsewhere.resolve()) and cap.args == ("--steps", "1")
    # Same picture (not drawn again), same selection; the inspector now knows where the name lives.
    assert window.graph_view.items_by_id[loss] is item and window.graph_view.selected_node() == loss
    assert window.inspector.names.text() == "loss in main()"
    assert window.tensors_pane.pending_text() == "" and window.tensors_pane.pending.isHidden()
    assert window.tensors_pane.rowCount() == len(cap.explanations) > 0
    assert window.modules_pane.pending_text() == ""
    assert window.modules_pane.row_texts("model.fc1.weight") is not None
    assert window.gradient_flow_pane.summary.text().startswith(f"{len(window.gradient_flow_pane.flows)} parameters")
    assert window.status.text().startswith("Done in")


def test_the_seed_lesson_is_drawn_then_explained_as_pytorch_sees_it(qtbot, window, gate):
    window.editor.setPlainText(SEED)
    _start_and_wait_for_the_picture(qtbot, window, gate)
    drawn = window.result.capture
    assert drawn.explanations == () and drawn.tensors == ()  # not made yet: the panes say so
    assert window.tensors_pane.explanation_for("b") is None
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        gate.release()
    cap = window.result.capture
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        b = a
        c = a + 0
    (b * 3).sum().backward()
    leaf = cap.graph.nodes[cap.node_named("a")]
    assert leaf["grad"].data.tolist() == a.grad.tolist() == [3.0, 3.0]
    assert c.grad_fn is None and not c.requires_grad
    assert window.tensors_pane.explanation_for("b").code == "alias"  # b is a: it got the gradient
    assert window.tensors_pane.explanation_for("c").code == "no_grad"  # a new tensor without a grad_fn
    codes = [window.tensors_pane.cell_text(row, 1) for row in range(window.tensors_pane.rowCount())]
    assert "alias" in codes and "no_grad" in codes


def test_save_waits_for_the_explanations_then_writes_them(qtbot, window, tmp_path, gate):
    window.editor.setPlainText(SEED)
    path = tmp_path / "seed.gxsession"
    window.ask_session_save_path = lambda: str(path)
    _start_and_wait_for_the_picture(qtbot, window, gate)
    assert window.files.save_as() is False and not path.exists()  # the file would lack the explanations
    assert "still being explained" in window.status.text()
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        gate.release()
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=10_000)
    assert window.files.save_as() is True
    from gradexplorer.core.io.session import load_session

    assert {e.name: e.code for e in load_session(path).capture.explanations}["b"] == "alias"


def test_a_failure_after_the_picture_leaves_it_and_says_what_was_not_computed(qtbot, window, gate):
    window.editor.setPlainText(SEED)
    _start_and_wait_for_the_picture(qtbot, window, gate)
    gate.fail = True
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        gate.release()
    assert "a bug of ours while explaining" in window.console.toPlainText()
    assert window.result is not None and not window.result.complete
    assert window.graph_view.items_by_id  # the picture stays
    assert window.tensors_pane.pending_text() == NOT_COMPUTED
    assert window.modules_pane.pending_text() == NOT_COMPUTED
    assert window.gradient_flow_pane.summary.text() == NOT_COMPUTED


def test_a_run_without_the_gate_shows_everything_as_before(qtbot, window):
    window.editor.setPlainText(SEED)
    result = run_and_wait(qtbot, window)
    assert result.complete and window.tensors_pane.pending_text() == ""
    assert window.tensors_pane.explanation_for("c").code == "no_grad"


def test_the_build_waits_for_the_window_to_draw_the_first_picture(qtbot, window, monkeypatch):
    """The rest of the build starts once the picture is on screen: the two never share the interpreter."""
    import time

    events: list[str] = []
    real_infos = steps.tensor_infos

    def tensors_step(*args, **kwargs):
        events.append("tensors")
        return real_infos(*args, **kwargs)

    monkeypatch.setattr(steps, "tensor_infos", tensors_step)
    real_shown = window.runs.picture_shown

    def shown() -> None:
        time.sleep(0.3)  # a slow first paint: the build must not start meanwhile
        events.append("shown")
        real_shown()

    window.runs.picture_shown = shown
    window.editor.setPlainText(SEED)
    result = run_and_wait(qtbot, window)
    assert result.complete
    assert events == ["shown", "tensors"]


def test_the_capture_a_run_replaces_is_freed_after_the_run_not_during_it(qtbot, window, gate):
    """Taking the old capture apart waits for the run's end (it would slow the build), and then completes."""
    import weakref

    window.editor.setPlainText(SEED)
    gate.release()  # the first run goes straight through
    first = run_and_wait(qtbot, window)
    old_graph = weakref.ref(first.capture.graph)
    del first
    gate.released.clear()
    gate.reached.clear()
    _start_and_wait_for_the_picture(qtbot, window, gate)
    # The second run's picture replaced the first capture: it is queued, and nothing is taken apart meanwhile.
    assert window.retirer.held and window.retirer.pending == 1
    qtbot.wait(300)
    assert window.retirer.freed == 0 and old_graph() is not None
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        gate.release()
    # Then it goes, and the second run's first picture (which shares its graph with the complete capture) is not
    # left waiting in the queue for a graph that stays on screen.
    qtbot.waitUntil(lambda: window.retirer.pending == 0 and window.retirer.freed == 1, timeout=10_000)
    assert old_graph() is None and not window.retirer.held


def _press_run_again_as_each_ends(qtbot, window, gate, *, before_third=None):
    """Run, then Run pressed the moment each run ends, the third held at the gate; weak references to the
    first two graphs, and how many captures were queued when the third was pressed."""
    import weakref

    window.editor.setPlainText(SEED)
    gate.release()
    first_graph = weakref.ref(run_and_wait(qtbot, window).capture.graph)
    pressed: list[int] = []

    def press_again(_result) -> None:
        if not pressed:  # at once, before the event loop gives the retirer a step
            pressed.append(window.retirer.pending)
            if before_third is not None:
                before_third()
            gate.released.clear()
            gate.reached.clear()
            window.run_action.trigger()

    window.run_finished.connect(press_again)
    second_graph = weakref.ref(run_and_wait(qtbot, window).capture.graph)
    window.run_finished.disconnect(press_again)
    assert pressed == [1] and window.is_running  # the first capture was still queued when Run was pressed
    qtbot.waitUntil(gate.reached.is_set, timeout=60_000)  # the third run's picture: the second capture is queued
    return first_graph, second_graph


def test_a_capture_still_queued_when_run_is_pressed_again_is_freed_by_that_run_before_its_program(
        qtbot, window, gate, monkeypatch):
    """Run pressed again the moment a run ends: the run takes the capture before the last apart, first.

    Held for the whole of the next run too, each capture waited for a run
    that left the retirer no time: four 50,000-node runs in a row held four
    captures (5.8 GB). Taken apart on the GUI thread during the run, the
    two threads' turns at the interpreter made those runs up to 1.4x slower.
    """
    import threading

    from gradexplorer.core.teardown import CaptureTeardown

    monkeypatch.setattr(window.recovery, "autosave_capture", lambda: None)  # nothing else holds the first capture
    on_gui_thread: list[bool] = []
    real_finish = CaptureTeardown.finish

    def finish(teardown):
        on_gui_thread.append(threading.current_thread() is threading.main_thread())
        return real_finish(teardown)

    monkeypatch.setattr(CaptureTeardown, "finish", finish)
    first_graph, second_graph = _press_run_again_as_each_ends(qtbot, window, gate)
    assert first_graph() is None and on_gui_thread == [False]  # in the run's thread, before its program
    assert window.is_running and window.retirer.held and window.retirer.freed == 1
    qtbot.wait(300)
    assert window.retirer.pending == 1 and second_graph() is not None  # the one this run replaced waits for its end
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        gate.release()
    qtbot.waitUntil(lambda: second_graph() is None and window.retirer.freed == 2, timeout=10_000)


def test_a_queued_capture_something_still_holds_when_run_is_pressed_is_freed_during_the_run_once_let_go(
        qtbot, window, gate):
    """A job that has not let go of the old capture yet: the retirer looks again and frees it during the run."""
    held: list = []
    first_graph, _ = _press_run_again_as_each_ends(
        qtbot, window, gate, before_third=lambda: held.append(window.retirer._queue[0][0]._capture))
    assert first_graph() is not None and window.retirer.pending == 2  # still held elsewhere: not handed to the run
    held.clear()  # the job lets go
    qtbot.waitUntil(lambda: first_graph() is None, timeout=10_000)  # taken apart during the run, in steps
    assert window.is_running and window.retirer.pending == 1
    gate.release()
    qtbot.waitUntil(lambda: not window.is_running, timeout=60_000)


def test_a_run_started_right_after_another_supersedes_its_autosave(qtbot, window, monkeypatch):
    """The first capture's autosave gives way to the second run (they shared the interpreter: 2x slower)."""
    written: list[str] = []
    slot = window.recovery.slot
    real = slot.write_session

    def recording_write(session, **kwargs):
        real(session, **kwargs)
        written.append(session.capture.code)  # only a write that completed

    monkeypatch.setattr(slot, "write_session", recording_write)
    window.editor.setPlainText(SEED)
    run_and_wait(qtbot, window)
    window.editor.setPlainText(SEED + "e = b * 2\n")
    second = run_and_wait(qtbot, window)  # pressed at once: within the first autosave's wait
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=20_000)
    assert written == [second.capture.code]  # the first was superseded, the second written
    from gradexplorer.core.io.session import load_session

    assert load_session(slot.session_path).capture.code == second.capture.code


def test_the_isolated_engine_draws_its_childs_preview_first_and_fills_the_panes_after(qtbot, window, tmp_path):
    """train.py with its model in main()'s locals, run from another folder, in the isolated engine's process."""
    elsewhere = _open_mlp_project(window, tmp_path)
    window.engine_combo.setCurrentIndex(window.engine_combo.findData("isolated"))
    seen: dict = {}

    def at_picture(result) -> None:  # connected after the window's own handler: what a user sees then
        loss = result.capture.node_named("loss")
        seen.update(complete=window.result.complete, running=window.is_running, graph=result.capture.graph,
                    drawn=loss is not None and loss in window.graph_view.items_by_id,
                    explained=result.capture.explanations, pending=window.tensors_pane.pending_text(),
                    rows=window.tensors_pane.rowCount(), audit=window.modules_pane.pending_text())

    window.runs.picture_ready.connect(at_picture)
    with qtbot.waitSignal(window.run_finished, timeout=120_000):
        window.run_action.trigger()
    window.runs.picture_ready.disconnect(at_picture)
    assert seen, "the isolated run drew no picture before its capture came"
    assert seen["complete"] is False and seen["running"] and seen["drawn"] and seen["explained"] == ()
    assert seen["pending"] == PENDING_EXPLANATIONS and seen["rows"] == 0 and seen["audit"] == PENDING_AUDIT
    result = window.result
    cap = result.capture
    assert result.complete and cap.ok, cap.error and cap.error.traceback
    assert cap.graph is seen["graph"]  # the picture drawn from the preview is the capture's
    assert window.tensors_pane.pending_text() == "" and window.tensors_pane.rowCount() == len(cap.explanations) > 0
    assert window.modules_pane.row_texts("model.fc1.weight") is not None
    assert cap.cwd == str(elsewhere.resolve()) and cap.args == ("--steps", "1")

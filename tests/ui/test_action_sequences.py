"""Long, seeded sequences of what a user does to a picture, checking after each step what the window shows.

Each feature's own tests press it on a fresh picture; a user presses them one
after the other: Replay, then Find (which opens a box and redraws the picture),
then Compare, then a new Run... Two bugs lived only in such sequences: a
replay step after a redraw touched items Qt had deleted ("Internal C++ object
already deleted"), and a replay's end left the filter the combo still named
unpainted. Here the same actions run in a fixed random order (the seed makes
a failure repeatable; pytest-qt fails the test on an exception in any slot),
and after each one the window must agree with itself:

* the filter the combo names is the one painted (or none);
* the inspector shows a node that is drawn, or none;
* a replay's gradients are painted only while a replay is on screen;
* the pass the navigator shows is the one drawn.
"""

import random

import pytest

from gradexplorer.core.analysis.grouping import GROUP_PREFIX
from gradexplorer.core.io.session import save_session

from ..programs import EDITED_LOOP, SEED_LESSON
from .conftest import run_and_wait

#: A model folded into boxes (Find and depth open and close them), with two passes.
SMALL_MODEL = """\
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(6)])
x = torch.randn(3, 4)
model(x).pow(2).mean().backward()
model(x).sum().backward()
"""


def _actions(window, qtbot, session, rng):
    def boxes():
        display = window.result.display if window.result is not None else None
        return [d for d in (display.nodes if display is not None else ()) if d.startswith(GROUP_PREFIX)]

    def drawn():
        return list(window.graph_view.items_by_id)

    def choose_pass():
        if window.result is not None:
            window.picture.set_pass(rng.choice([None, *range(len(window.result.capture.passes))]))

    return {
        "run": lambda: run_and_wait(qtbot, window),
        "open": lambda: window.files.open_path(session, prompt=False),
        "replay step": window.replay.bar.forward_action.trigger,
        "replay back": window.replay.bar.back_action.trigger,
        "replay stop": window.replay.bar.stop_action.trigger,
        "find": lambda: window.picture.find(rng.choice(["linear", "weight", "mul", "tanh", "nothing"])),
        "filter": lambda: window.picture.apply_filter(rng.choice(["all", "path", "requires_grad", "no_gradient"])),
        "open box": lambda: boxes() and window.picture.expand_group(rng.choice(boxes())[len(GROUP_PREFIX):]),
        "depth": lambda: window.picture.set_depth(rng.randint(0, 3)),
        "click": lambda: drawn() and window.graph_view.select_node(rng.choice(drawn())),
        "pass": choose_pass,
        "compare": lambda: window.comparison.compare_with(session),
        "end comparison": window.end_comparison_action.trigger,
        "colour": lambda: window.picture.set_colour_mode(rng.choice(["kind", "grad_norm"])),
        "go to": lambda: window.picture.step(rng.choice(["input", "consumer", "left", "right"])),
        "collapse": window.picture.collapse_selected,
    }


def _check(window):
    view = window.graph_view
    combo = window.filter_combo.currentData()
    assert (combo != "all") == (window.view.filter_nodes is not None) == window.clear_filter_action.isEnabled()
    if not window.replay.active:
        assert window.replay.flow_labels() == {}
        # The user's filter, or none, is what is painted (a replay dims with its own).
        wanted = None if window.view.filter_nodes is None else frozenset(window.view.filter_nodes)
        assert view.filter_ids == wanted
    current = view.selected_node()
    assert current is None or current in view.items_by_id
    assert window.view.current_node == current  # the view model's current node is the one drawn with a ring
    if window.result is not None:
        assert window.result.display is None or set(view.items_by_id) == set(window.result.display.nodes)


def _play(qtbot, window, tmp_path, seed: int) -> None:
    """Sixty actions chosen by ``seed`` on what the window shows, each followed by :func:`_check`."""
    session = tmp_path / "before.gxsession"
    save_session(window.files.current_session(), session)
    rng = random.Random(seed)
    actions = _actions(window, qtbot, session, rng)
    names = sorted(actions)
    done = []
    for _ in range(60):
        name = rng.choice(names)
        done.append(name)
        actions[name]()
        qtbot.wait(5)  # what the action queued (a deleted scene, a paint) happens before the next one
        try:
            _check(window)
        except AssertionError as exc:
            raise AssertionError(f"after {done[-6:]}: {exc}") from exc


@pytest.mark.parametrize("program, seed", [(SMALL_MODEL, 1), (SMALL_MODEL, 2), (EDITED_LOOP, 3), (SEED_LESSON, 4)])
def test_a_seeded_sequence_of_user_actions_leaves_the_window_consistent(qtbot, window, tmp_path, program, seed):
    window.editor.setPlainText(program)
    run_and_wait(qtbot, window)
    _play(qtbot, window, tmp_path, seed)


def test_the_same_on_a_project_run_from_another_folder_with_its_model_in_main(qtbot, window, tmp_path):
    """``train.py`` with ``main()``, argparse and ``model.py`` beside it, run as ``python train.py --double``
    would run it from another folder: Run runs the project again, Open and Compare read its sessions."""
    from ..core.test_diff import MODEL, TRAIN
    from ..programs import write_project

    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    window.files.open_path(script)
    window.run_commands.set_run_arguments(["--double"])
    window.run_commands.set_working_folder(str(elsewhere))
    cap = run_and_wait(qtbot, window).capture
    assert cap.ok and cap.node_named("model.embed.weight") is not None  # named in main()'s locals
    _play(qtbot, window, tmp_path, 5)


def test_the_same_on_a_step_recorded_from_the_users_own_script(qtbot, window, tmp_path):
    """A training step recorded with ``gradexplorer.record()`` inside a function, saved, opened in the window."""
    import torch

    import gradexplorer
    from gradexplorer.core.io.session import session_from_capture

    def train_step():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
        with gradexplorer.record() as recording:
            loss = model(torch.randn(2, 3)).pow(2).mean()
            loss.backward()
        return recording.capture

    recorded = tmp_path / "recorded.gxsession"
    save_session(session_from_capture(train_step()), recorded)
    assert window.files.open_path(recorded, prompt=False)
    assert window.result.capture.node_named("loss") is not None
    _play(qtbot, window, tmp_path, 6)

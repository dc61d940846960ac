"""The inspector shows per-node facts made once per capture, never recomputed on the GUI thread per click.

A leaf's pass-by-pass accounting (``.grad`` before, delivered, after) was
remade three times per click, comparing tensors pass by pass on the GUI
thread; the checks at a node once more. After a run they are made by the
pipeline's ``account`` step, in the worker; a reopened session makes each the
first time it is shown, once.
"""

import threading

from gradexplorer.core.analysis import accounting, verify
from gradexplorer.core.io.session import load_session, save_session, session_from_capture

from ..programs import EDITED_LOOP as LOOP
from .conftest import run_and_wait
from .test_main_window import click_node


def _count_calls(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(threading.current_thread() is threading.main_thread())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_clicks_and_pass_changes_read_the_leaf_accounting_made_by_the_run(qtbot, window, monkeypatch):
    steps_made = _count_calls(monkeypatch, accounting, "leaf_steps")
    window.editor.setPlainText(LOOP)
    run_and_wait(qtbot, window)
    assert steps_made and not any(steps_made), "the run made the accounting in its worker"
    steps_made.clear()
    checks_made = _count_calls(monkeypatch, verify, "_verify_leaf")
    inspector = window.inspector
    for _ in range(2):
        click_node(qtbot, window, "w")
        assert inspector.title.text().endswith(f"({window.result.capture.node_named('w')})")
        for row in range(inspector.pass_picker.count()):
            inspector.pass_picker.setCurrentIndex(row)
        click_node(qtbot, window, "y")  # another node between, so that w is shown again
    click_node(qtbot, window, "w")
    assert steps_made == []  # the GUI thread made none
    assert len(checks_made) == 1  # the checks at w: made the first time w was shown only
    # What a user reads is what it was (tests/ui/test_fidelity_inspector.py reads the same program).
    inspector.pass_picker.setCurrentIndex(0)
    assert inspector.leaf_pass_rows()[0][:4] == ["1", "[1, 1]", "[6, 8]", "[7, 9]"]
    assert inspector.pass_delta.text() == (".grad before [1, 1] + delivered [6, 8] → .grad after [7, 9]: added to .grad "
                                           "(.grad already held a value)")
    assert inspector.verification.text() == "Check: verified: .grad after = before + delivered"


def test_a_reopened_session_makes_a_leafs_accounting_once(qtbot, window, monkeypatch, tmp_path):
    window.editor.setPlainText(LOOP)
    result = run_and_wait(qtbot, window)
    path = tmp_path / "loop.gxsession"
    save_session(session_from_capture(result.capture), path)
    reopened = load_session(path).capture
    assert accounting.LEAF_STEPS_KEY not in reopened.graph.graph  # derived facts are never saved
    steps_made = _count_calls(monkeypatch, accounting, "leaf_steps")
    node = next(n for n, a in reopened.graph.nodes(data=True) if "w" in a["names"])
    first = accounting.leaf_steps_of(reopened.graph, node)
    again = accounting.leaf_steps_of(reopened.graph, node)
    assert again is first and len(steps_made) == 1
    assert [s.effect for s in first] == [s.effect for s in accounting.leaf_steps(reopened.graph.nodes[node]["accumulation"])]

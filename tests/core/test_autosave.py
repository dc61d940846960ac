"""What autosave writes is what recovery reads (issue 28: a slot written where recovery never looked passed)."""

from __future__ import annotations

import subprocess
import sys

from gradexplorer import capture
from gradexplorer.core.io.autosave import AutosaveSlot, find_orphans
from gradexplorer.core.io.session import session_from_capture


def _dead_pid() -> int:
    """The pid of a process that has ended (recovery offers only slots whose owner is gone)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def test_a_slot_left_by_a_process_that_died_is_offered_with_its_text_and_capture(tmp_path):
    cap = capture("a = torch.tensor(1.1, requires_grad=True)\nb = a * 2\nb.backward()\n")
    slot = AutosaveSlot(tmp_path)
    slot.write_text("print('the editor text')\n", "cpu")
    slot.write_session(session_from_capture(cap))
    assert find_orphans(tmp_path) == []  # this process is alive: its own slot is not offered
    lock = next((tmp_path / "autosave").glob("*.lock"))
    lock.write_text(str(_dead_pid()))  # as if the app had been killed
    orphans = find_orphans(tmp_path)
    assert len(orphans) == 1
    orphan = orphans[0]
    assert orphan.code == "print('the editor text')\n" and orphan.device == "cpu"
    reopened = orphan.session()
    assert reopened is not None
    leaf = reopened.capture.node_named("a")
    assert reopened.capture.graph.nodes[leaf]["grad"].item() == 2.0  # the capture PyTorch made: a.grad == 2
    orphan.discard()
    assert find_orphans(tmp_path) == [] and not any((tmp_path / "autosave").iterdir())

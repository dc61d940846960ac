"""Saved files behave as an editor's do, and recovery trusts an OS lock, not a pid (issue 29)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap

import pytest

from gradexplorer import capture
from gradexplorer.core.io import export
from gradexplorer.core.io.autosave import AutosaveSlot, find_orphans
from gradexplorer.core.io.session import load_session, save_session, session_from_capture

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes, symlinks and flock")


@pytest.fixture(scope="module")
def session():
    return session_from_capture(capture("a = torch.tensor(1.1, requires_grad=True)\nb = a * 2\nb.backward()\n"))


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_saving_over_a_0644_file_keeps_its_mode(tmp_path, session):
    target = tmp_path / "shared.gxsession"
    save_session(session, target)
    os.chmod(target, 0o644)
    save_session(session, target)
    assert _mode(target) == 0o644
    os.chmod(target, 0o640)
    save_session(session, target)
    assert _mode(target) == 0o640
    dot = target.with_suffix(".dot")
    export.write_dot(session.capture, dot)
    os.chmod(dot, 0o604)
    export.write_dot(session.capture, dot)  # an export written again keeps its mode too
    assert _mode(dot) == 0o604


def test_a_new_file_gets_the_umask_mode_not_0600(tmp_path, session):
    old = os.umask(0o022)
    try:
        save_session(session, tmp_path / "new.gxsession")
        export.write_dot(session.capture, tmp_path / "graph.dot")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new.gxsession") == 0o644
    assert _mode(tmp_path / "graph.dot") == 0o644
    old = os.umask(0o077)
    try:
        save_session(session, tmp_path / "mine.gxsession")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "mine.gxsession") == 0o600


def test_saving_to_a_symlink_writes_through_it_and_the_link_stays(tmp_path, session):
    real_folder = tmp_path / "real"
    real_folder.mkdir()
    real = real_folder / "lesson.gxsession"
    save_session(session, real)
    os.chmod(real, 0o664)
    link = tmp_path / "link.gxsession"
    link.symlink_to(os.path.relpath(real, tmp_path))  # relative, as `ln -s real/lesson.gxsession link`
    chain = tmp_path / "chain.gxsession"
    chain.symlink_to(link)
    other = session_from_capture(capture("z = torch.ones(2, requires_grad=True)\n"))
    save_session(other, chain)
    assert chain.is_symlink() and link.is_symlink()
    assert load_session(real).code.startswith("z = torch.ones")
    assert _mode(real) == 0o664
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left beside the link
    dangling = tmp_path / "dangling.gxsession"
    dangling.symlink_to(real_folder / "created.gxsession")
    save_session(other, dangling)
    assert dangling.is_symlink() and (real_folder / "created.gxsession").is_file()


def test_autosave_files_are_private(tmp_path, session):
    slot = AutosaveSlot(tmp_path)
    slot.write_text("secret = 1\n", "cpu")
    slot.write_session(session)
    for path in (tmp_path / "autosave").iterdir():
        assert _mode(path) == 0o600, path
    slot.remove()


_OWNER = textwrap.dedent("""
    import sys, time
    from gradexplorer.core.io.autosave import AutosaveSlot
    slot = AutosaveSlot(sys.argv[1])
    slot.write_text("print('work of the other instance')\\n", "cpu")
    print("ready", flush=True)
    time.sleep(60)
""")


def _start_owner(data_dir):
    owner = subprocess.Popen([sys.executable, "-c", _OWNER, str(data_dir)], stdout=subprocess.PIPE, text=True)
    assert owner.stdout.readline().strip() == "ready"
    return owner


def test_a_running_instance_is_not_offered_even_when_its_lock_names_a_dead_pid(tmp_path):
    owner = _start_owner(tmp_path)
    try:
        lock = next((tmp_path / "autosave").glob("*.lock"))
        pid, mark = lock.read_text().split()
        assert int(pid) == owner.pid and mark == "flock"
        assert find_orphans(tmp_path) == []
        done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
        lock.write_text(f"{done.stdout.strip()} flock")  # a pid that has gone: the lock still says alive
        assert find_orphans(tmp_path) == []
    finally:
        owner.kill()
        owner.wait()


def test_recovery_offers_the_work_of_a_killed_instance_whose_pid_was_reused(tmp_path):
    owner = _start_owner(tmp_path)
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    lock = next((tmp_path / "autosave").glob("*.lock"))
    # The pid now belongs to a live, unrelated process (here: the test's own parent).
    lock.write_text(f"{os.getppid()} flock")
    orphans = find_orphans(tmp_path)
    assert [o.code for o in orphans] == ["print('work of the other instance')\n"]
    orphans[0].discard()
    assert not any((tmp_path / "autosave").iterdir())


def test_a_cancelled_save_leaves_the_file_it_was_replacing_and_no_temporary(tmp_path):
    """The autosave of a capture that a new run supersedes stops within a piece of the file."""
    from gradexplorer.core.io.files import SaveCancelled

    big = session_from_capture(capture("import torch\nx = torch.randn(64, 64, requires_grad=True)\n"
                                       "y = x\nfor _ in range(300):\n    y = torch.tanh(y @ x)\ny.sum().backward()\n"))
    path = tmp_path / "slot.gxsession"
    save_session(big, path)
    before = path.read_bytes()

    def stop_once_writing() -> bool:
        # Asked while encoding too (test below): here the stop comes once the temporary file has its first bytes.
        return any(p.name.endswith(".tmp") and p.stat().st_size > 0 for p in tmp_path.iterdir())

    with pytest.raises(SaveCancelled):  # the next piece written raises: stopped at once, not at the end
        save_session(big, path, should_stop=stop_once_writing)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["slot.gxsession"]  # no temporary file left
    save_session(big, path, should_stop=lambda: False)  # never stopping: the whole file
    assert load_session(path).capture.graph.number_of_nodes() == big.capture.graph.number_of_nodes()


def test_a_cancelled_save_stops_while_it_encodes_before_a_byte_is_written(tmp_path):
    """Encoding comes first (2-4 s at 50,000 nodes): a superseded autosave must stop there, not only between pieces.

    With a file budget of no values, every record's statistics are written,
    and most were never computed during the run: the save computes them. A
    save cancelled at its second question computes almost none of them.
    """
    from gradexplorer.core.io.files import SaveCancelled
    from gradexplorer.core.records.tensors import TensorRecord

    big = session_from_capture(capture("import torch\nx = torch.randn(64, 64, requires_grad=True)\n"
                                       "y = x\nfor _ in range(300):\n    y = torch.tanh(y @ x)\ny.sum().backward()\n"))
    records = {id(r): r for _, attrs in big.capture.graph.nodes(data=True) for r in attrs.values()
               if type(r) is TensorRecord}
    records.update((id(r), r) for g in big.capture.graph.nodes.values() for pair in (g.get("grads") or ())
                   for r in (pair or ()) if type(r) is TensorRecord)

    def computed() -> int:
        return sum(r.summary is not None for r in records.values())

    before = computed()
    path = tmp_path / "slot.gxsession"
    asked = []

    def stop_at_the_second_question() -> bool:
        asked.append(1)
        return len(asked) > 1

    with pytest.raises(SaveCancelled):
        save_session(big, path, file_values=0, should_stop=stop_at_the_second_question)
    cancelled = computed()
    assert not path.exists() and list(tmp_path.iterdir()) == []
    save_session(big, path, file_values=0)
    after = computed()
    assert after - before > 200  # the whole save computes the statistics of hundreds of records
    assert cancelled - before < (after - before) / 4  # the cancelled one stopped early

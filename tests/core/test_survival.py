"""What users and files do that once broke a save or a start (issue 29, part)."""

from __future__ import annotations

import textwrap

from gradexplorer import capture
from gradexplorer.core.io.autosave import AutosaveSlot, find_orphans, process_alive
from gradexplorer.core.io.session import load_session, save_session, session_from_capture

NOT_UTF8 = textwrap.dedent("""\
    print("caf\\udce9")  # what os.listdir gives for a file name whose bytes are not UTF-8
    w = torch.ones(2, requires_grad=True)
    w.sum().backward()
    open("na\\udcefve.txt")
    """)


def test_output_with_a_non_utf8_file_name_saves_and_reopens(tmp_path):
    """Printing such a name once made every save fail (UnicodeEncodeError); its bytes are spelled out."""
    cap = capture(NOT_UTF8)
    assert cap.stdout == "caf\\xe9\n"  # the byte 0xE9, as ls shows it
    assert cap.error is not None and "na\\udcefve.txt" in cap.error.message
    path = tmp_path / "odd.gxs"
    save_session(session_from_capture(cap), path)
    again = load_session(path).capture
    assert again.stdout == cap.stdout and again.error.message == cap.error.message
    assert again.graph.nodes[again.node_named("w")]["grad"].values() == [1.0, 1.0]


def test_the_isolated_engine_brings_such_output_back():
    from gradexplorer.core.isolated.engine import capture_isolated

    cap = capture_isolated(NOT_UTF8)
    assert cap.stdout == "caf\\xe9\n" and cap.error is not None


def test_a_damaged_autosave_lock_does_not_stop_the_start(tmp_path):
    """``pid 99999999999999999999`` in a lock once raised OverflowError at every start."""
    assert process_alive(99999999999999999999) is False
    slot = AutosaveSlot(tmp_path)
    slot.write_text("x = 1\n", "cpu")
    lock = next((tmp_path / "autosave").glob("*.lock"))
    lock.write_text("99999999999999999999")
    orphans = find_orphans(tmp_path)  # no exception: the owner is taken for gone, the text is offered
    assert [o.code for o in orphans] == ["x = 1\n"]


def test_a_save_removes_what_a_killed_save_left_and_spares_one_in_progress(tmp_path):
    """A kill during a save leaves a hidden ``.NAME.xxxx.tmp``: the next save of that file removes it once
    it is stale; a fresh one (another save still writing) stays."""
    import os
    import time

    from gradexplorer.core.io.files import STALE_TEMPORARY_SECONDS

    target = tmp_path / "work.gxs"
    stale = tmp_path / ".work.gxs.abc123.tmp"
    fresh = tmp_path / ".work.gxs.def456.tmp"
    other = tmp_path / ".other.gxs.abc123.tmp"
    for path in (stale, fresh, other):
        path.write_bytes(b"half a session")
    old = time.time() - STALE_TEMPORARY_SECONDS - 60
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    save_session(session_from_capture(capture("x = torch.ones(1)\n")), target)
    assert target.exists() and not stale.exists()
    assert fresh.exists() and other.exists()  # another save's file, and another file's, are left alone

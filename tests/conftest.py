"""Test-suite wide settings: Qt runs offscreen, no display needed."""

import os

# Must be set before any QApplication exists (pytest-qt creates it lazily).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _earlier_isolated_runs_have_finished():
    """Each test starts once an earlier test's isolated run has ended its background work.

    After ``capture_isolated`` returns, a thread of the engine still gives the
    capture its statistics, then records the heap the run needed and starts
    the next spare child. In random order that thread, left by one test,
    rewrote the engine's state in the middle of another (a spare started with
    another heap size). Waiting costs nothing when no such thread is running.
    """
    import sys

    engine = sys.modules.get("gradexplorer.core.isolated.engine")
    late = getattr(engine, "_late_stats", None)
    if late is not None and late.is_alive():
        late.join(90)
    yield

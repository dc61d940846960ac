"""pytest-qt fixtures: an isolated settings file and a main window that cleans up."""

import gc
import pytest
from PySide6.QtCore import QSettings

from gradexplorer.ui.app import create_application


@pytest.fixture(scope="session")
def qapp_args():
    return []


@pytest.fixture(scope="session")
def qapp(qapp_args, tmp_path_factory):
    """The application, with QSettings redirected to a temporary folder."""
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path_factory.mktemp("settings")))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    return create_application(qapp_args)


@pytest.fixture
def settings(qapp, tmp_path):
    from gradexplorer.ui.settings import Settings

    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


def make_window(qtbot, settings, data_dir, *, register=True):
    """A shown main window whose dialogs answer without opening (tests replace them as needed).

    ``register``: let pytest-qt close it at teardown. The ``window`` fixture
    does not: pytest-qt closes registered widgets *before* fixture teardown,
    and closing stops everything, so no leak could ever be seen.
    """
    from gradexplorer.ui.main_window import MainWindow

    win = MainWindow(settings, data_dir=data_dir)
    win.ask_unsaved_changes = lambda: "discard"
    win.ask_export_scale = lambda: 2.0
    win.ask_restore = lambda saved_at, preview: False
    if register:
        qtbot.addWidget(win)
    win.resize(1300, 850)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def window(qtbot, settings, tmp_path):
    """A main window; the test fails if it leaves a capture run, a job or a run timer going.

    (As napari's fixtures do: what a test leaves running is a bug it hides.
    Everything is still stopped first, so one leak does not break the tests after it.)
    """
    win = make_window(qtbot, settings, tmp_path / "data", register=False)
    yield win
    leaked = []
    if win.is_running:
        leaked.append("a capture run (QThread)")
        win.stop_run()
        try:
            qtbot.waitUntil(lambda: not win.is_running, timeout=10_000)
        except qtbot.TimeoutError:
            leaked.append("a capture run that did not stop")
    # A job the test started (the autosave after a run) may still be finishing: only one
    # that never ends is a leak.
    try:
        qtbot.waitUntil(lambda: not win.jobs.busy, timeout=10_000)
    except qtbot.TimeoutError:
        leaked.append("a background job that does not end (QThread)")
    if win.runs.timers_active:
        leaked.append("a run's QTimer")
    win.ask_unsaved_changes = lambda: "discard"
    win.ask_export_scale = lambda: 2.0
    win.close()
    win.deleteLater()
    gc.unfreeze()  # the app froze its captures (core.collector); the next test starts as a fresh process would
    assert not leaked, f"the test left running: {', '.join(leaked)}"


def run_and_wait(qtbot, win, timeout=60_000):
    """Press Run and wait until the run's result is on screen."""
    with qtbot.waitSignal(win.run_finished, timeout=timeout):
        win.run_action.trigger()
    return win.result

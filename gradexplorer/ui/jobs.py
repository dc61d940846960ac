"""Long work off the GUI thread: one job runner for saving, opening, exporting and autosaving.

The capture worker's pattern (a ``QObject`` moved to a ``QThread``),
generalised: a :class:`Job` runs one plain function in its own thread and
reports with typed signals, ``returned(object)`` or ``errored(str, object)``
and always ``finished`` last. The :class:`JobRunner` keeps every live job and
thread in a registry until ``finished`` (as superqt does), instead of
parenting threads to the window, so no QThread is destroyed while running.

:meth:`JobRunner.run_and_wait` is for actions whose callers need the answer
(Save before closing, Open): the function runs in the job's thread while the
GUI thread spins a local event loop, so the window keeps painting and
answering (no frozen window on a 10,000-node session) and the call still
reads like a plain function call. Functions must only read plain, immutable
data (a :class:`Session`, a :class:`Capture`): never widgets.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, Qt, QThread, Signal, Slot

from ..core.collector import paused_collection

__all__ = ["Job", "JobRunner"]


class Job(QObject):
    """Runs ``fn()`` once, in the thread it was moved to."""

    returned = Signal(object)
    errored = Signal(str, object)  # message, the exception (for the caller to re-raise as data)
    finished = Signal()

    def __init__(self, name: str, fn: Callable[[], Any]) -> None:
        super().__init__()
        self.name = name
        self._fn = fn

    @Slot()
    def run(self) -> None:
        # The function's closure (a Session, a capture) is not kept after the
        # run: a finished job's wrapper lives until Qt deletes it, and a
        # capture that left the screen is freed in steps only once nothing
        # else holds it (ui.capture_retirer).
        fn, self._fn = self._fn, None
        try:
            # Jobs allocate many small objects; a full collection meanwhile
            # is one long C call holding the GIL: a frozen GUI thread.
            with paused_collection():
                result = fn()
                del fn
        except Exception as exc:  # noqa: BLE001 - reported to the GUI, never raised in a Qt slot
            self.errored.emit(f"{type(exc).__name__}: {exc}", exc)
        except BaseException:  # noqa: BLE001 - e.g. SystemExit from library code: still report
            self.errored.emit(traceback.format_exc(), None)
        else:
            self.returned.emit(result)
        finally:
            self.finished.emit()


class _Relay(QObject):
    """Lives in the GUI thread: the job's signals reach it queued, so callbacks run on the GUI thread.

    (A signal connected to a plain Python callable would be called in the
    emitting thread, the job's.)
    """

    def __init__(self, on_returned, on_errored, on_finished) -> None:
        super().__init__()
        self._callbacks = (on_returned, on_errored, on_finished)

    @Slot(object)
    def returned(self, value) -> None:
        if self._callbacks[0] is not None:
            self._callbacks[0](value)

    @Slot(str, object)
    def errored(self, message: str, exc) -> None:
        if self._callbacks[1] is not None:
            self._callbacks[1](message, exc)

    @Slot()
    def finished(self) -> None:
        # Last signal: the callbacks' closures (which may hold a session) go now.
        callbacks, self._callbacks = self._callbacks, (None, None, None)
        callbacks[2]()


class JobRunner(QObject):
    """Starts jobs and keeps them alive until they finish."""

    #: True when the first job starts, False when the last one has finished.
    busy_changed = Signal(bool)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._live: dict[Job, tuple[QThread, _Relay]] = {}

    @property
    def busy(self) -> bool:
        """True while any job runs."""
        return bool(self._live)

    def start(self, name: str, fn: Callable[[], Any], *, on_returned=None, on_errored=None,
              on_finished=None) -> Job:
        """Run ``fn`` in a new thread; the callbacks run in the GUI thread (``on_finished`` last)."""
        job = Job(name, fn)
        thread = QThread()
        thread.setObjectName(f"gradexplorer-{name}")

        def finished(j=job):
            self._forget(j)
            if on_finished is not None:
                on_finished()

        relay = _Relay(on_returned, on_errored, finished)
        job.moveToThread(thread)
        thread.started.connect(job.run)
        job.returned.connect(relay.returned)
        job.errored.connect(relay.errored)
        job.finished.connect(relay.finished)
        # Direct: QThread.quit is thread-safe, and the thread must end even
        # when the GUI loop is not running (at shutdown, wait_all).
        job.finished.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        self._live[job] = (thread, relay)
        thread.start()
        if len(self._live) == 1:
            self.busy_changed.emit(True)
        return job

    def _forget(self, job: Job) -> None:
        thread, _relay = self._live.pop(job, (None, None))
        if thread is not None:
            thread.quit()
            thread.wait()
            thread.deleteLater()
        job.deleteLater()
        if thread is not None and not self._live:
            self.busy_changed.emit(False)

    def run_and_wait(self, name: str, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` in a job while the GUI keeps handling events; return its result or raise its exception."""
        loop = QEventLoop()
        outcome: dict[str, Any] = {}
        self.start(name, fn, on_returned=lambda value: outcome.setdefault("value", value),
                   on_errored=lambda message, exc: outcome.setdefault("error", (message, exc)),
                   on_finished=loop.quit)
        loop.exec()  # the job's finished arrives queued, inside this loop
        if "error" in outcome:
            message, exc = outcome["error"]
            raise exc if exc is not None else RuntimeError(message)
        return outcome.get("value")

    def wait_all(self, timeout_ms: int = 30_000) -> bool:
        """Block until every job has ended (at shutdown); False if one is still running."""
        for thread, _relay in list(self._live.values()):
            if not thread.wait(timeout_ms):
                return False
        return True

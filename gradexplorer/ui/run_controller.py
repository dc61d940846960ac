"""One capture run at a time: the worker thread's life, Stop, elapsed-time ticks and the program's output.

The window only says what to run and shows what comes back. This object
keeps the ``QThread`` and its :class:`~gradexplorer.ui.worker.CaptureWorker`
until the thread has finished (dropping them earlier is the classic
"QThread: Destroyed while thread is still running" crash) and re-emits the
worker's queued signals on the GUI thread, in this order: ``output`` (what
the program printed, drained on a timer), ``picture_ready`` (the first
picture of a ``picture_first`` job, before its explanations), ``returned``
or ``errored``, then ``finished`` (always last).

Stop is repeated every :data:`STOP_RETRY_MS` while the run goes on (a
program's bare ``except:`` swallowed the single Stop it used to get); a run
still going :data:`STOP_GRACE_MS` after the first Stop emits ``stuck`` once,
with where the program is, so that the window can say why and offer to end
the app.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QObject, Qt, QThread, QTimer, Signal

from ..core.view.picture import CaptureResult
from .worker import CaptureJob, CaptureWorker

__all__ = ["STOP_GRACE_MS", "STOP_RETRY_MS", "RunController"]

#: Stop is sent again this often while the run goes on.
STOP_RETRY_MS = 100
#: After this long a run that was asked to stop and still goes is reported as stuck.
STOP_GRACE_MS = 2000


class RunController(QObject):
    """Starts, stops and reports capture runs (GUI thread).

    Signals
    -------
    ticked(float)
        Seconds since the run started, every 100 ms (not after Stop).
    output(str, str)
        ``(stream, text)`` the program printed since the last drain.
    picture_ready(object)
        The first picture: a :class:`CaptureResult` whose ``complete`` is False.
        Call :meth:`picture_shown` once it is on screen (the build waits for it).
    returned(object)
        The :class:`CaptureResult`.
    errored(str)
        A message (the run could not start, or gradexplorer failed).
    input_requested(str)
        The program called ``input(prompt)``; answer with :meth:`provide_input`.
    stuck(str)
        :data:`STOP_GRACE_MS` after the first Stop the run still goes; where
        the program is (``line 2 (`time.sleep(3600)`)``, or "").
    finished()
        The worker thread has ended; always last.
    """

    ticked = Signal(float)
    output = Signal(str, str)
    input_requested = Signal(str)
    picture_ready = Signal(object)
    returned = Signal(object)
    errored = Signal(str)
    stuck = Signal(str)
    finished = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._worker: CaptureWorker | None = None
        self.stop_requested = False
        self._elapsed = QElapsedTimer()
        self._tick = QTimer(self)
        self._tick.setInterval(100)
        self._tick.timeout.connect(self._on_tick_timeout)
        # The program's prints are drained from the worker on this GUI timer.
        self._output_timer = QTimer(self)
        self._output_timer.setInterval(40)
        self._output_timer.timeout.connect(self.drain_output)
        # Stop again and again, and say when it does not work.
        self._stop_timer = QTimer(self)
        self._stop_timer.setInterval(STOP_RETRY_MS)
        self._stop_timer.timeout.connect(self._on_stop_timer_timeout)
        self._stop_elapsed = QElapsedTimer()
        self._stuck_said = False
        #: The last run's Stop interrupted the program's finalizers (after its picture was shown).
        self.release_interrupted = False

    @property
    def is_running(self) -> bool:
        return self._thread is not None

    @property
    def timers_active(self) -> bool:
        """True while a run's tick or output timer runs (tests check that none is left behind)."""
        return self._tick.isActive() or self._output_timer.isActive() or self._stop_timer.isActive()

    def start(self, job: CaptureJob) -> bool:
        """Run ``job`` in a new worker thread; False if a run is already going."""
        if self._thread is not None:
            return False
        self.stop_requested = False
        thread = QThread()
        thread.setObjectName("gradexplorer-capture")
        worker = CaptureWorker(job)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.picture_ready.connect(self._on_worker_picture_ready)
        worker.returned.connect(self._on_worker_returned)
        worker.errored.connect(self._on_worker_errored)
        worker.input_requested.connect(self._on_worker_input_requested)
        # Direct: the thread must be able to end while the GUI thread waits on it
        # (closing during a run); QThread.quit is thread-safe.
        worker.finished.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        thread.finished.connect(self._on_thread_finished)
        self._thread, self._worker = thread, worker
        self._elapsed.start()
        self._tick.start()
        self._output_timer.start()
        self._on_tick_timeout()
        thread.start()
        return True

    def stop(self) -> bool | None:
        """Ask the run to stop: True if the user's code is interrupted, False if only the drawing
        is cancelled (the code had finished), None when nothing runs."""
        if self._worker is None:
            return None
        if not self.stop_requested:
            self.stop_requested = True
            self._stuck_said = False
            self._stop_elapsed.start()
            self._stop_timer.start()
        return self._worker.request_stop()

    def _on_stop_timer_timeout(self) -> None:
        if self._worker is None:
            self._stop_timer.stop()
            return
        self._worker.request_stop()
        if not self._stuck_said and self._stop_elapsed.elapsed() >= STOP_GRACE_MS:
            self._stuck_said = True
            self.stuck.emit(self._worker.blocked_at())

    def stop_and_wait(self, milliseconds: int) -> bool:
        """Stop, repeating it, and block until the run ends (at most ``milliseconds``); True when none runs.

        For closing, where the GUI loop does not run the retry timer.
        """
        deadline = QElapsedTimer()
        deadline.start()
        while self._thread is not None:
            self.stop()
            if self._worker is not None:
                self._worker.request_stop()
            if self.wait(min(STOP_RETRY_MS, max(1, milliseconds - deadline.elapsed()))):
                return True
            if deadline.elapsed() >= milliseconds:
                return False
        return True

    def blocked_at(self) -> str:
        """Where the running program is now (see :meth:`CaptureWorker.blocked_at`); "" when none runs."""
        return self._worker.blocked_at() if self._worker is not None else ""

    def wait(self, milliseconds: int) -> bool:
        """Block until the worker thread ends (at most ``milliseconds``); True when none runs any more."""
        if self._thread is None:
            return True
        self._thread.quit()  # only ends the thread's event loop once the worker has returned
        return self._thread.wait(milliseconds)

    def provide_input(self, line: str | None) -> None:
        """Answer the program's ``input()`` with ``line`` (None: no more input, an EOFError in the program)."""
        if self._worker is not None:
            self._worker.provide_input(line)

    def _on_worker_input_requested(self, prompt: str) -> None:
        self.drain_output()  # the prompt and what came before it show first
        self.input_requested.emit(prompt)

    def drain_output(self) -> None:
        """Emit what the program printed since the last drain (GUI thread)."""
        if self._worker is not None:
            for stream, text in self._worker.drain_output():
                self.output.emit(stream, text)

    def _on_tick_timeout(self) -> None:
        if self._thread is not None and not self.stop_requested:
            self.ticked.emit(self._elapsed.elapsed() / 1000)

    def _on_worker_picture_ready(self, result: CaptureResult) -> None:
        self._tick.stop()  # the window says what is drawn and what is still computed
        self.drain_output()
        self.picture_ready.emit(result)

    def picture_shown(self) -> None:
        """The first picture is on screen: the run's build goes on (:meth:`CaptureWorker.picture_shown`)."""
        if self._worker is not None:
            self._worker.picture_shown()

    def _on_worker_returned(self, result: CaptureResult) -> None:
        self._tick.stop()  # a queued tick must not overwrite the result's status
        self.drain_output()  # the program's output comes before its traceback
        self.returned.emit(result)

    def _on_worker_errored(self, message: str) -> None:
        self._tick.stop()
        self.drain_output()
        self.errored.emit(message)

    def _on_thread_finished(self) -> None:
        self._stop_timer.stop()
        self._tick.stop()
        self.drain_output()
        self._output_timer.stop()
        self.release_interrupted = self._worker is not None and self._worker.release_interrupted
        thread, self._thread = self._thread, None
        self._worker = None
        if thread is not None:
            thread.deleteLater()
        self.finished.emit()

"""Collect the cycles among frozen objects when nobody is looking.

The app freezes each capture once it is laid out
(:func:`gradexplorer.core.collector.freeze_survivors`), so that no
collection traverses it again while the user works. Frozen objects that
become garbage are still freed by reference counting; only cycles among them
(a program's model whose hooks refer back to it, say) wait. They are
collected here with one full collection, which holds the GIL for as long as
it takes (0.2 s with a 10,000-node capture alive): so only after the app has
seen no input, no run and no job for :data:`IDLE_SECONDS`, and only when
something was frozen since the last time.

Input is seen through an application-wide event filter, and that filter is
a Python call for every event of every object. While a run or a job keeps
another thread busy, each such call has to win the GIL back first (up to a
switch interval, 5 ms): the filter alone turned 50 ms GUI-thread stalls
into 140 ms ones during a 50,000-node graph build. So the filter is
installed only while nothing is busy (:meth:`IdleCollector.set_busy`); a
run or job ending restarts the wait anyway.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

from ..core.collector import collect_frozen, frozen_count

__all__ = ["IDLE_SECONDS", "IdleCollector"]

#: Seconds without input, run or job before the collection.
IDLE_SECONDS = 60

_INPUT_EVENTS = frozenset({
    QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove, QEvent.Type.Wheel,
    QEvent.Type.TouchBegin,
})


class IdleCollector(QObject):
    """Runs :func:`~gradexplorer.core.collector.collect_frozen` once the app has been idle a while.

    Parameters
    ----------
    app : QCoreApplication
        Its input events restart the wait (an application-wide event filter).
    busy : callable
        True while a run or a job is going: then it waits again. The owner
        also calls :meth:`set_busy` when that changes.
    """

    def __init__(self, app, busy: Callable[[], bool], *, seconds: float = IDLE_SECONDS, parent=None) -> None:
        super().__init__(parent)
        self._busy = busy
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(int(seconds * 1000))
        self._timer.timeout.connect(self._on_timer_timeout)
        self._collected_at = -1  # frozen_count() after the last collection
        #: Objects found unreachable by each collection (for tests and curious users).
        self.collections: list[int] = []
        self._app = app
        self._watching = False
        self._closed = False
        self.set_busy(busy())

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API; kept tiny (PySide6 hides errors here)
        if event.type() in _INPUT_EVENTS:
            self._timer.start()
        return False

    @property
    def watching_input(self) -> bool:
        """True while the application-wide input filter is installed (only when nothing is busy)."""
        return self._watching

    def set_busy(self, busy: bool) -> None:
        """A run or job started (True) or the last one ended (False): stop or start watching input."""
        if self._closed:
            return
        if busy and self._watching:
            self._app.removeEventFilter(self)
            self._watching = False
        elif not busy and not self._watching:
            self._app.installEventFilter(self)
            self._watching = True
        self._timer.start()

    def activity(self) -> None:
        """Something happened (a run or job ended): wait a full period again."""
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        if self._busy():
            self._timer.start()
            return
        if frozen_count() == self._collected_at:
            return  # nothing was frozen since: nothing new to find
        self.collections.append(collect_frozen())
        self._collected_at = frozen_count()

    def close(self) -> None:
        """Stop watching (the window is closing)."""
        self._closed = True
        self._timer.stop()
        if self._watching:
            self._app.removeEventFilter(self)
            self._watching = False

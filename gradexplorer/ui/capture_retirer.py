"""Free the captures that left the screen in short steps between GUI events.

When a new run's result or an opened session replaces the capture on screen,
the old one is handed to a :class:`CaptureRetirer` instead of being dropped:
dropping a 50,000-node capture froze the window for 0.2-0.4 s (one cascade
of deallocations with the GIL held, see :mod:`gradexplorer.core.teardown`),
and doing it in a job did not help, since the GUI thread waits for the GIL
all the same. Here a timer runs :meth:`CaptureTeardown.step
<gradexplorer.core.teardown.CaptureTeardown.step>` for a few milliseconds at a
time on the GUI thread, so input and paints go between the steps.

A capture that something else still holds (a save job writing it, say) is
looked at again every :data:`WAIT_MS` until it is the retirer's alone. Once
the last queued capture is freed, :data:`TRIM_QUIET_MS` later (and again
that much later while a run or a job goes), a short thread hands the freed
pages back to the OS (:func:`~gradexplorer.core.teardown.return_free_memory`):
without it the app's memory only ever grew from run to run. Not at once:
``malloc_trim`` holds the C heap's lock while it walks the free pages (0.1 s
after a 50,000-node capture), and every allocation of the GUI thread waits
for it meanwhile: a 117 ms frozen window when the next action came at once.

While a run goes the retirer is held (:meth:`CaptureRetirer.hold`): its steps
hold the GIL that the run's worker needs. Retiring the previous capture when
the run's first picture replaced it made the rest of that run's build twice
as slow on a 50,000-node step (the named tensors 0.42 s against 0.18 s, the
explanations 0.86 against 0.40); held, it waits for the run to end. The
captures still queued when a run starts (Run pressed again as soon as the
last one ended, before the steps had a chance) are handed to that run
instead, which takes them apart before the program starts
(:meth:`CaptureRetirer.hold`). Held too, they piled up, one more per run: a
50,000-node transformer run four times in a row held four captures, 5.8 GB
instead of 1.9. Taken apart here meanwhile, in steps, they slowed those runs
by up to 1.4x (the two threads taking turns at the interpreter); in one go
in the run's own thread it is the work it is (0.25 s at 50,000 nodes).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from ..core.teardown import CaptureTeardown, DroppedGraph, return_free_memory

__all__ = ["STEP_SECONDS", "TRIM_QUIET_MS", "WAIT_MS", "CaptureRetirer"]

#: Time budget of one step on the GUI thread.
STEP_SECONDS = 0.004
#: Wait before looking again at a capture that is still held elsewhere.
WAIT_MS = 250
#: Wait after the last capture is freed (and again while a run or job goes) before the pages go back to the OS.
TRIM_QUIET_MS = 1500
#: Give up waiting after this many looks (then plain reference counting frees
#: it whenever the other holder lets go): about two minutes.
MAX_WAITS = 480


class CaptureRetirer(QObject):
    """Takes captures that left the screen apart, a step per timer tick, on the GUI thread.

    Parameters
    ----------
    busy : callable, optional
        True while a run or a job is going: the freed pages are handed back
        to the OS only when it is False at the end of a :data:`TRIM_QUIET_MS` wait.
    """

    def __init__(self, parent=None, *, busy: Callable[[], bool] = lambda: False) -> None:
        super().__init__(parent)
        # [teardown, looks, overdue]: overdue ones were queued before the run that holds the retirer started.
        self._queue: collections.deque[list] = collections.deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._busy = busy
        self._trim_timer = QTimer(self)
        self._trim_timer.setSingleShot(True)
        self._trim_timer.setInterval(TRIM_QUIET_MS)
        self._trim_timer.timeout.connect(self._on_trim_timer_timeout)
        #: Captures freed so far, here or by the run they were handed to (:meth:`hold`); for tests and the curious.
        self.freed = 0
        #: Times the freed memory was handed back to the OS (after the queue emptied).
        self.trimmed = 0
        self._held = False

    @property
    def pending(self) -> int:
        """Captures handed over and not yet freed."""
        return len(self._queue)

    def retire(self, holder: list) -> None:
        """Take over the capture in ``holder`` (a one-item list, emptied) and free it in steps.

        The list lets the caller hand over its reference without keeping one.
        """
        self._queue.append([CaptureTeardown(holder.pop()), 0, False])
        if not self._timer.isActive() and not self._held:
            self._timer.start(0)

    def retire_graph(self, holder: list) -> None:
        """Take over the graph in ``holder`` (a pass's or a comparison's, emptied) and free it in steps."""
        self.retire([DroppedGraph(holder.pop())])

    @property
    def held(self) -> bool:
        """True while :meth:`hold` keeps the steps waiting."""
        return self._held

    def hold(self) -> list[CaptureTeardown]:
        """Take nothing apart until :meth:`resume` (a run is going: its worker needs the interpreter).

        Returns the captures still queued that nothing else holds, no longer
        queued: the run starting takes them apart (:meth:`CaptureTeardown.finish
        <gradexplorer.core.teardown.CaptureTeardown.finish>`) before its
        program, or they would wait for its end too (see the module
        docstring). They count as :attr:`freed`. A queued capture that
        something still holds (a job that has not let go of it yet) is looked
        at again meanwhile and taken apart here, in steps, once it is free.
        """
        self._held = True
        ready = [entry for entry in self._queue if entry[0].ready()]
        for entry in ready:
            self._queue.remove(entry)
        self.freed += len(ready)
        for entry in self._queue:
            entry[2] = True
        if not self._queue:
            self._timer.stop()
        elif not self._timer.isActive():
            self._timer.start(0)
        return [entry[0] for entry in ready]

    def resume(self) -> None:
        """Go on taking the queued captures apart."""
        self._held = False
        if self._queue and not self._timer.isActive():
            self._timer.start(0)

    def take_back(self, capture) -> bool:
        """Stop retiring ``capture`` (an Open that failed shows it again); False if already taken apart."""
        for entry in self._queue:
            if entry[0].holds(capture):
                self._queue.remove(entry)
                return True
        return False

    def _on_timer_timeout(self) -> None:
        if not self._queue:
            return
        if self._held:
            if not any(entry[2] for entry in self._queue):
                return
            while not self._queue[0][2]:
                self._queue.rotate(-1)
        entry = self._queue[0]
        teardown = entry[0]
        if teardown.step(STEP_SECONDS):
            self._queue.popleft()
            self.freed += 1
            if not self._queue:
                self._trim_timer.start()
        elif not teardown.started:
            entry[1] += 1
            if entry[1] >= MAX_WAITS:
                self._queue.popleft()  # still shared: reference counting frees it later
            else:
                self._queue.rotate(-1)  # others may be ready meanwhile
            if self._queue:
                self._timer.start(WAIT_MS if all(not e[0].started for e in self._queue) else 0)
            return
        if self._queue:
            self._timer.start(0)

    def _on_trim_timer_timeout(self) -> None:
        if self._queue:
            return  # the last step of the queue starts the wait again
        if self._busy() or self._held:
            self._trim_timer.start()
            return
        self.trimmed += 1
        threading.Thread(target=return_free_memory, name="gradexplorer-trim", daemon=True).start()

    def finish_now(self) -> None:
        """Free everything at once (the window is closing: nothing is on screen to stall)."""
        self._timer.stop()
        self._trim_timer.stop()
        self._queue.clear()

"""Run a capture in a worker thread and report back with plain data.

:class:`CaptureWorker` is a ``QObject`` moved to a ``QThread`` (only
``QThread.run`` would run in the new thread if we subclassed it). It adapts
the synchronous core: it calls :func:`gradexplorer.capture` and
:func:`gradexplorer.core.analysis.layout.layered_layout` in its thread and emits

``started``, ``user_code_finished``, ``picture_ready(CaptureResult)`` (the
first picture, before the named tensors, the module audit and the
explanations are made: see below), ``returned(CaptureResult)``,
``errored(str)`` and, always last, ``finished``. The program's output is
not sent by signal: it collects in the worker under a lock and the GUI drains
it with :meth:`CaptureWorker.drain_output` on a timer (qtconsole's way), so a
``print`` shows within one tick even when nothing else is printed after it.

Everything emitted is immutable plain data: a :class:`CaptureResult` holds the
capture (records with CPU tensors only) and the layout, never widgets, live
exceptions or device tensors. Grad mode, the default device and torch
function modes are thread-local in PyTorch; :func:`gradexplorer.capture` sets
them in this thread.

Stop
----
:meth:`CaptureWorker.request_stop` raises :class:`CaptureStopped` inside the
worker thread with ``PyThreadState_SetAsyncExc``. Python delivers it at the
next bytecode, so a pure-Python loop stops at once; a long native torch op
runs to its end first (the window says so).

The exception is *armed* only around the user's ``exec`` (``capture``'s
``exec_guard``) and around the release of what the program left (its
generators' ``finally`` blocks and its ``__del__`` methods run there), under a
lock that Stop takes too. Disarming clears a pending one
(``SetAsyncExc(tid, NULL)``), so it can land only in the user's code or, at
worst, in the few lines between the end of ``exec`` and the disarm, which are
inside ``capture``'s handler of the user's exceptions: never in the
recorder's exit or the graph build. Each Stop sends it again (the run
controller repeats it while the run goes on): a loop whose bare ``except:``
swallowed the one Stop used to run forever. A Stop after the code has
finished cancels the drawing (a flag the layout polls); the capture itself is
always kept. :meth:`CaptureWorker.blocked_at` says where a program that does
not stop is (a call Python cannot interrupt from outside, such as a sleep or
a read, never sees the exception).

Picture first
-------------
A job with ``picture_first`` (the window's runs) draws before it explains:
once the build has walked the graph and summarised the passes (the
pipeline's ``preview`` step, :mod:`gradexplorer.core.pipeline.steps`), the
worker lays out that preview and emits ``picture_ready`` with a result whose
``complete`` is False. It then waits, idle, until the window says the
picture is on screen (:meth:`CaptureWorker.picture_shown`, or
:data:`PICTURE_WAIT_SECONDS` at most), so that the window's drawing does not
compete with the rest of the build for the interpreter; then it makes the
named tensors, the module audit and the explanations, and ``returned``
brings the complete capture with the same graph and layout (the window only
fills its panes). The isolated engine does the same: its child sends the
preview as soon as its build has made it (after the graph's nodes,
:mod:`gradexplorer.core.io.handover`), and the worker draws it while the
child makes the rest.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from functools import partial

from PySide6.QtCore import QObject, Signal, Slot

from ..core.capture import process_state
from ..core.capture.run import release_leftovers
from ..core.capture.script import ScriptRun
from ..core.capture.streams import NoInputError
from ..core.isolated.engine import capture_isolated
from ..core.pipeline import capture
from ..core.records.errors import CaptureStopped, GradexplorerError
from ..core.teardown import return_free_memory
from ..core.view.picture import CaptureResult, first_picture, picture_of

from .language import error_text, phrase_text, translator_for

__all__ = ["PICTURE_WAIT_SECONDS", "CaptureJob", "CaptureWorker"]

_tr = translator_for(__name__)

#: The longest a worker waits for the window to say that the first picture is on screen before it goes on.
PICTURE_WAIT_SECONDS = 10.0


#: Worker threads whose program was asked to stop and has not stopped yet (see :class:`PersistentStop`).
_STOP_WANTED: set[int] = set()


def _send_stop(thread_id: int) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(PersistentStop))


class PersistentStop(CaptureStopped):
    """The Stop the worker raises: swallowed by the program, it is raised again at the program's next line.

    A loop such as ``while True: try: time.sleep(.001) except: pass``
    catches every exception, and a Stop sent from outside almost always
    lands in the ``try`` (the thread spends its time in the call there): the
    one Stop the worker used to send was swallowed and the program ran on.
    When the program drops a caught instance (the end of its ``except``
    block), this turns on a line tracer in the program's own thread that
    raises the next one at the next line Python reaches, which is outside
    the ``try`` or inside the ``except`` block: the loop ends. Only while the
    worker is armed for this thread; disarming turns the tracer off. Nothing
    is traced before a Stop: a run costs what it cost.
    """

    def __del__(self) -> None:
        if threading.get_ident() in _STOP_WANTED:
            _trace_until_stopped()


def _stop_at_next_line(frame, event, arg):
    """Line tracer of a thread asked to stop: raise there (a raise also turns the tracer off, until next time)."""
    if threading.get_ident() not in _STOP_WANTED:
        sys.settrace(None)
        return None
    if event == "line":
        raise PersistentStop("stopped by the user")
    return _stop_at_next_line


def _trace_until_stopped() -> None:
    """Trace this thread's running frames and the ones it starts (see :class:`PersistentStop`)."""
    try:
        frame = sys._getframe(2)  # the frame that dropped the exception, then its callers
    except ValueError:  # dropped where no Python frame runs (a collection): trace what starts next
        frame = None
    while frame is not None:
        frame.f_trace = _stop_at_next_line
        frame = frame.f_back
    sys.settrace(_stop_at_next_line)


@dataclass(frozen=True)
class CaptureJob:
    """What to run: the code, where, under which filename, and in which engine.

    ``isolated``: in a child process (:mod:`gradexplorer.core.isolated.engine`),
    which may die without taking the app along; Stop kills it at once.
    """

    code: str
    device: str
    filename: str = "<editor>"
    isolated: bool = False
    #: Bytes the isolated child may allocate (-1: half of the machine's memory).
    memory_limit: int | None = -1
    #: Emit ``picture_ready`` before the explanations are made, and wait for :meth:`CaptureWorker.picture_shown`
    #: (the window's runs; the module docstring's "Picture first"). The thread engine only.
    picture_first: bool = False
    #: The program's arguments and working folder (``python SCRIPT ARGS`` from that folder).
    run: ScriptRun = ScriptRun()
    #: Earlier captures to take apart before the program starts (:meth:`CaptureRetirer.hold
    #: <gradexplorer.ui.capture_retirer.CaptureRetirer.hold>`): Run was pressed before the GUI thread could.
    free_first: tuple = ()


class CaptureWorker(QObject):
    """Runs one :class:`CaptureJob` when its thread starts."""

    started = Signal()
    #: The user's code has returned (or raised); the graph build follows.
    user_code_finished = Signal()
    #: The program called ``input(prompt)``: the window asks the user for a line (:meth:`provide_input`).
    input_requested = Signal(str)
    #: The first picture (a :class:`CaptureResult` with ``complete`` False), for a ``picture_first`` job.
    picture_ready = Signal(object)
    returned = Signal(object)
    errored = Signal(str)
    finished = Signal()

    def __init__(self, job: CaptureJob) -> None:
        super().__init__()
        self.job = job
        self._thread_id: int | None = None
        self._armed = False  # the user's exec is running: Stop may interrupt it
        self._stop_sent = False
        self._stop_sent_in_release = False
        #: True when Stop interrupted what ran while the program's remains were freed (its finalizers).
        self.release_interrupted = False
        self._releasing = False
        self._cancel = threading.Event()
        self._child_done = False  # isolated engine: the child process has ended
        self._pending: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        #: The line the user typed for the program's input(), or None for "no more input" (the console's Ctrl+D).
        self._input_line: str | None = None
        self._input_given = threading.Event()
        self._picture_shown = threading.Event()

    @Slot()
    def run(self) -> None:
        """Capture, lay out, emit. Runs in the worker thread."""
        self._thread_id = threading.get_ident()
        self.started.emit()
        started = time.perf_counter()
        # The isolated child computes its remaining statistics once the picture is made (not meanwhile).
        picture_made = threading.Event()
        # The finished program's objects: freed once the picture is on its way, not before (core.capture.run).
        leftovers: list = []
        drawn: dict = {}  # the preview's picture (picture first), reused for the complete capture
        try:
            for teardown in self.job.free_first:
                teardown.finish()  # nothing else holds it (CaptureRetirer.hold checked): all of it goes
            # The capture lives until the next run replaces it: later
            # collections need not traverse it (core.collector explains).
            if self.job.isolated:
                result = capture_isolated(self.job.code, device=self.job.device, filename=self.job.filename,
                                          run=self.job.run, memory_limit=self.job.memory_limit,
                                          on_output=self._on_output,
                                          should_stop=self._cancel.is_set, stats_after=picture_made,
                                          on_preview=(partial(self._show_first, drawn, started)
                                                      if self.job.picture_first else None))
                with self._lock:
                    self._child_done = True
                    self._cancel.clear()  # a Stop that killed the child is spent; one from now cancels the drawing
                self.user_code_finished.emit()
            else:
                result = capture(self.job.code, device=self.job.device, filename=self.job.filename,
                                 run=self.job.run, on_output=self._on_output, read_input=self._read_input,
                                 exec_guard=self._armed_for_stop, freeze_result=True, leftovers=leftovers,
                                 on_step=self._draw_first(drawn, started) if self.job.picture_first else None)
            reuse = drawn.get("picture") if drawn.get("graph") is result.graph else None
            display, layout, note, rows, flow, pass_index, graph = first_picture(
                result, should_stop=self._cancel.is_set, drawn=reuse, say=phrase_text)
            self.returned.emit(CaptureResult(result, layout, time.perf_counter() - started, display, note, rows,
                                             flow, pass_index, graph))
        except GradexplorerError as exc:  # e.g. the device does not exist
            self.errored.emit(error_text(exc))
        except Exception:  # a bug of ours: report it, never crash the app
            self.errored.emit(_tr("gradexplorer failed while capturing:\n") + traceback.format_exc())
        finally:
            picture_made.set()  # the picture is made (or failed: the statistics must come all the same)
            self._release_armed(leftovers)
            self.finished.emit()

    def _draw_first(self, drawn: dict, started: float):
        """The build's ``on_step``: at the preview, show it first (:meth:`_show_first`)."""
        def on_step(step: str, made: dict) -> None:
            if step == "preview":
                self._show_first(drawn, started, made["preview"])

        return on_step

    def _show_first(self, drawn: dict, started: float, preview) -> None:
        """Lay the preview out, emit ``picture_ready``, wait for the window (the build, or the isolated child, goes on)."""
        picture = picture_of(preview, should_stop=self._cancel.is_set)
        drawn.update(graph=preview.graph, picture=picture)
        display, layout, note, pass_index, graph = picture
        self._picture_shown.clear()
        self.picture_ready.emit(CaptureResult(preview, layout, time.perf_counter() - started, display, note,
                                              None, None, pass_index, graph, complete=False))
        # Idle until the window has drawn it: its scene build and the rest of this build would share one
        # interpreter (each twice as slow, the window's freeze longer). A Stop ends the wait.
        deadline = time.monotonic() + PICTURE_WAIT_SECONDS
        while not self._picture_shown.wait(0.02) and not self._cancel.is_set() and time.monotonic() < deadline:
            pass

    def picture_shown(self) -> None:
        """The window has put the first picture on screen: the build goes on (any thread)."""
        self._picture_shown.set()

    def _release_armed(self, leftovers: list) -> None:
        """Free what the program left, with Stop armed: its finalizers are the user's code.

        A generator's ``finally`` or a ``__del__`` that loops runs here, after
        the program has ended. Stop interrupts it (an exception in a
        finalizer is reported and the freeing goes on); a Stop that lands in
        our own freeing code is caught and the freeing resumes where it was.
        """
        self._releasing = True
        while leftovers:
            try:
                with self._armed_for_stop(emit_finished=False):
                    release_leftovers(leftovers)
            except CaptureStopped:
                continue
            finally:
                if self._stop_sent_in_release:
                    self.release_interrupted = True
        return_free_memory()  # this is the worker thread: the program's freed memory goes back to the OS

    def _read_input(self, prompt: str) -> str:
        """``input()`` in the program (worker thread): ask the window for a line and wait for it.

        The wait is a loop of short waits in Python, so that Stop (an
        exception raised into this thread) ends it at once, as it ends any
        loop of the program's.
        """
        self._input_given.clear()
        self.input_requested.emit(prompt)
        while not self._input_given.wait(0.05):
            pass
        line, self._input_line = self._input_line, None
        if line is None:
            raise NoInputError(_tr("input(): the console's input was closed (no line was given)"))
        return line

    def provide_input(self, line: str | None) -> None:
        """The line the user typed for ``input()`` (any thread); None closes the input (EOFError)."""
        self._input_line = line
        self._input_given.set()

    def _on_output(self, stream: str, text: str) -> None:
        with self._lock:
            self._pending.append((stream, text))

    def drain_output(self) -> list[tuple[str, str]]:
        """The output collected since the last call, consecutive writes to a stream merged (any thread)."""
        with self._lock:
            pending, self._pending = self._pending, []
        merged: list[list[str]] = []
        for stream, text in pending:
            if merged and merged[-1][0] == stream:
                merged[-1][1] += text
            else:
                merged.append([stream, text])
        return [(stream, text) for stream, text in merged]

    @contextlib.contextmanager
    def _armed_for_stop(self, *, emit_finished: bool = True):
        """Around the user's ``exec`` (and the release of its remains): the window in which Stop raises here."""
        with self._lock:
            self._armed = True
            # Stop pressed before the code started; while freeing the remains, only a Stop pressed meanwhile counts.
            stop_now = emit_finished and self._cancel.is_set()
        try:
            if stop_now:
                raise CaptureStopped("stopped by the user")
            yield
        finally:
            with self._lock:
                self._armed = False
                if self._thread_id in _STOP_WANTED:
                    _STOP_WANTED.discard(self._thread_id)
                    sys.settrace(None)  # this is the worker thread: a tracer a swallowed Stop turned on goes
                if self._stop_sent:
                    # Not delivered yet (the code finished first): take it back.
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id), None)
                    self._stop_sent = False
            if emit_finished:
                self.user_code_finished.emit()

    def blocked_at(self) -> str:
        """Where the worker thread is now, for a program that does not stop: ``line 2 (`time.sleep(3600)`)``.

        The innermost line of the user's program (or of a project file) on
        the thread's stack; "" when the thread runs none of it.
        """
        frame = sys._current_frames().get(self._thread_id) if self._thread_id is not None else None
        program = self.job.filename
        while frame is not None:
            name = frame.f_code.co_filename
            if name == program or name == "<editor>":
                line = frame.f_lineno
                text = ""
                lines = self.job.code.splitlines()
                if 0 < line <= len(lines):
                    text = lines[line - 1].strip()
                return _tr("line {line}").format(line=line) + (f" (`{text}`)" if text else "")
            frame = frame.f_back
        return ""

    def request_stop(self) -> bool:
        """Stop the user code (True) or, once it has finished, cancel the layout (False)."""
        if self.job.isolated:  # the engine polls the flag and kills its child process at once
            with self._lock:
                self._cancel.set()
                return not self._child_done
        with self._lock:
            if not self._armed:
                self._cancel.set()  # polled by the layout between its phases
                return False
            if self._thread_id is None:
                return True
            self._stop_sent = True  # sent again on every call: a bare except: may have swallowed the last one
            self._stop_sent_in_release = self._releasing
            _STOP_WANTED.add(self._thread_id)
            _send_stop(self._thread_id)
        # Threads the program started stop too: the program may be waiting for them (join()).
        process_state.interrupt_program_threads(PersistentStop, timeout=0.0)
        return True

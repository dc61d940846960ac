"""The isolated engine: run the user's code in a child process that may die without taking the app along.

Thread mode (:func:`gradexplorer.capture`) runs the program in the app's own
process: fast, live, but ``os._exit``, a crash in native code or an
allocation far beyond memory end the app. :func:`capture_isolated` runs the
same capture in a fresh ``python -m gradexplorer.core.isolated.child``
process and reads its result back as a session file, with the same safe
codec as any file the user opens (nothing is unpickled). Then:

* the program's prints arrive as they happen (``on_output``);
* ``should_stop()`` turning true kills the child at once, even inside a long
  native op (thread mode has to wait for the op);
* a child that dies becomes an :class:`~gradexplorer.core.records.errors.ErrorReport`
  of kind ``"crashed"``: "the program's process died with SIGSEGV at line 3
  (as far as it got: its output is kept)", or "called os._exit(3) at line 2";
* the child's data segment is capped (:func:`default_memory_limit`: half
  of the machine's memory, settable), so a runaway allocation fails with
  torch's own out-of-memory error at the program's line.

What it costs: the capture is written and read as a session file, and a
process has to import torch (about two seconds). The file's graph nodes
come ahead of it in parts of 2,000 (:func:`~gradexplorer.core.io.handover.write_capture_part`),
which the parent checks on the other core while the child writes the rest,
so that the reading mostly overlaps the writing. The import is done
ahead: after each isolated run a *spare* child is started that imports
everything and waits for the next job (:func:`discard_spare` ends it; it
also ends with the app). Of the first part, the statistics of the records
saved without values (numpy over every large tensor: as long as writing the
rest) are not waited for: the file carries those records' norms, which is
all the first picture reads, and the child computes the statistics once the
app has read the file and made the picture (``stats_after``); a thread gives
them to the records
(:class:`~gradexplorer.core.records.tensors.LateStats`), and whoever reads
one before then waits for it. A fresh process also gets each page of its
memory from the kernel on first touch (180,000 page faults, a fifth of a
10,000-node training step's run and build); the spare touches as much heap
as the last run needed before it waits (:func:`gradexplorer.core.isolated.child._prefault`),
so a run that repeats the last one finds it ready. ``benchmarks/bench_isolated.py``
prints the cost beside thread mode.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..capture.devices import resolve_device
from ..capture.run import versions
from ..capture.script import ScriptRun, checked_working_folder
from ..capture.streams import DEFAULT_MAX_OUTPUT_CHARS, OutputCollector
from ..collector import paused_collection
from ..io.decode import PartialCapture
from ..io.files import not_a_regular_file
from ..io.handover import add_late_stats, read_capture_part
from ..io.session import load_session
from ..records.capture import Capture
from ..records.errors import DocumentError, ErrorReport
from ..records.notes import NO_STATISTICS, NO_STATISTICS_ENDED
from ..records.notes import joined, note_text
from ..records.nodes import CaptureGraph
from ..records.phrases import phrase
from ..records.tensors import LateStats

__all__ = ["KILLED", "capture_isolated", "default_memory_limit", "discard_spare", "wait_for_spare"]

#: ``ErrorReport.exc_type`` of a run whose child Stop killed: no capture came back.
KILLED = "ProcessKilled"
#: How often the parent looks at the child and at ``should_stop`` (seconds).
_POLL = 0.02


_spare: subprocess.Popen | None = None
#: Longest piece of the child's channel read at once (bytes): a line longer than this is raw output, read in pieces.
_MAX_LINE = 16 << 20
#: The thread giving the last isolated capture its statistics (:func:`_receive_late_stats`).
_late_stats: threading.Thread | None = None
#: Longest the app waits for a child's statistics after reading its capture (seconds).
LATE_STATS_LIMIT = 60.0
_spare_lock = threading.Lock()


#: The heap the last isolated run needed (bytes: the child's ``need``, see ``child._next_prefault``).
_last_need = 0
#: glibc settings of the child (unless the user set them): blocks under 32 MB come from the heap, and the heap
#: is not given back to the kernel while the process lives (it is one run long). Together they let the memory
#: a spare touched ahead (:func:`gradexplorer.core.isolated.child._prefault`) serve the program's tensors.
_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 40)}


def _prefault_bytes() -> int:
    """How much memory a new spare touches ahead: what the last run needed, at most an eighth of the machine's."""
    limit = default_memory_limit()
    return min(_last_need, limit // 4) if limit else 0


#: Names of the :data:`_MALLOC_ENV` settings the engine added (the child takes them out of the program's sight).
MALLOC_ADDED = "GRADEXPLORER_MALLOC_ADDED"


def _child_environment() -> dict[str, str]:
    """The child's environment: ours, unbuffered, with :data:`_MALLOC_ENV` where the user set nothing else."""
    added = [name for name in _MALLOC_ENV if name not in os.environ]
    return {**_MALLOC_ENV, **os.environ, "PYTHONUNBUFFERED": "1", MALLOC_ADDED: ",".join(added)}


def _spawn() -> subprocess.Popen:
    command = [sys.executable, "-m", "gradexplorer.core.isolated.child", "--wait"]
    prefault = _prefault_bytes()
    if prefault:
        command += ["--prefault", str(prefault)]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_child_environment())


def _take_child() -> subprocess.Popen:
    """The spare child if one is waiting (imports done), else a new one."""
    global _spare
    with _spare_lock:
        child, _spare = _spare, None
    if child is not None and child.poll() is None:
        return child
    return _spawn()


def _start_spare() -> None:
    """Start a child that imports torch now and waits for the next job (about a second saved per run)."""
    global _spare
    with _spare_lock:
        if _spare is None or _spare.poll() is not None:
            _spare = _spawn()


def wait_for_spare(timeout: float = 60.0) -> bool:
    """Block until the waiting child has finished its imports (True), or ``timeout`` passes (False).

    For measurements: a spare importing torch takes a core for about two
    seconds, which would slow whatever is timed meanwhile. The lock is held
    while waiting on purpose: a run taking the spare meanwhile would read
    its output beside this reader, and one of them could take the other's line.
    """
    global _spare
    deadline = time.monotonic() + timeout  # one limit for both waits
    late = _late_stats
    if late is not None:  # the last run's child may still be computing statistics; the spare starts after
        late.join(timeout)
    with _spare_lock:
        child = _spare
        if child is None or child.poll() is not None or getattr(child, "gradexplorer_ready", False):
            return child is not None and child.poll() is None
        ready = threading.Event()

        def read_ready() -> None:
            if child.stdout.readline().strip():  # the child's first line is {"ready": true}
                ready.set()

        threading.Thread(target=read_ready, daemon=True).start()
        if not ready.wait(max(0.0, deadline - time.monotonic())):  # end it: its reader must not race the next run's
            _spare = None
            child.kill()
            child.wait()
            return False
        child.gradexplorer_ready = True
        return True


def discard_spare() -> None:
    """End the waiting child (at exit, or to free its memory: about 300 MB, plus the heap it made ready).

    The last run's child may still be sending its statistics, after which a
    spare is started: that is waited for first (a few seconds at most).
    """
    global _spare
    late = _late_stats
    if late is not None:
        late.join(5)
    with _spare_lock:
        child, _spare = _spare, None
    if child is not None and child.poll() is None:
        child.kill()
        child.wait()


atexit.register(discard_spare)


def default_memory_limit() -> int | None:
    """Half of this machine's physical memory, in bytes (None where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return None


def _fault_line(text: str, filename: str) -> int | None:
    """The innermost line of the program in a faulthandler dump ("most recent call first")."""
    match = re.search(r'File "' + re.escape(filename) + r'", line (\d+)', text)
    return int(match.group(1)) if match else None


def _crash_report(returncode: int, exit_line: tuple[int | None, int] | None, fault: str, child_stderr: str,
                  filename: str) -> ErrorReport:
    if exit_line is not None:
        line, code = exit_line
        where = phrase(" at line {line}", line=line) if line else ""
        said = phrase("the program called os._exit({code}){where}; its process ended there (as far as it got: its "
                      "output is kept, the graph is not)", code=code, where=where)
        message = said.render()
        return ErrorReport("crashed", "os._exit", message, line, traceback=message, said=said)
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        line = _fault_line(fault, filename)
        where = phrase(" at line {line}", line=line) if line else ""
        why = phrase(" (killed: most likely out of memory, by the system)") if name == "SIGKILL" else ""
        said = phrase("the program's process died with {signal}{where}{why}; as far as it got: its output is kept, "
                      "the graph is not", signal=name, where=where, why=why)
        message = said.render()
        frames = [row.strip() for row in fault.splitlines() if f'File "{filename}"' in row]
        detail = ("\n\nwhere it was (innermost first):\n  " + "\n  ".join(frames)) if frames else ""
        return ErrorReport("crashed", name, message, line, traceback=message + detail, said=said)
    said = phrase("the program's process exited with code {code} before sending its capture", code=returncode)
    message = said.render()
    tail = child_stderr.strip()[-4000:]
    return ErrorReport("crashed", "ProcessExited", message, None,
                       traceback=message + ("\n\n" + tail if tail else ""), said=said)


def _finish(process: subprocess.Popen, readers: list[threading.Thread]) -> None:
    """Wait for the child to end (it exits right after its last message) and for its output to be read."""
    _send(process, b"", close=True)  # a child waiting for its next line sees the end of its input
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:  # something keeps it alive after it said it was done
        process.kill()
        process.wait()
    for reader in readers:
        reader.join(5)


class _Parts:
    """The parts of the child's hand-over read so far (the graph nodes sent ahead of its file).

    The cyclic collector is paused from the first part until :meth:`release`
    (after the file that follows them is read, or when the run ends
    otherwise): the hand-over, not the program, so a few seconds at most.
    Paused part by part, the objects of the parts read so far piled up in the
    collector's middle generation, and its collections (every tenth young one)
    traversed all of them with the GIL held: the GUI thread stalled for
    130-160 ms, several times during a 50,000-node hand-over. Left in one
    pause, they are frozen when it ends, as a session read in one go is
    (:func:`~gradexplorer.core.collector.freeze_after_pauses`).
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern  # the job's ``part_path``: part i is pattern.format(i)
        self.partial = PartialCapture()
        self.read = 0
        self.seconds = 0.0
        self.refused = ""
        self._pause = contextlib.ExitStack()

    def release(self) -> None:
        """End the collector's pause (idempotent)."""
        self._pause.close()

    def hand_preview(self, on_preview: Callable[[Capture], None] | None) -> None:
        """Give the preview a part brought to ``on_preview``, once (nothing after a refused part)."""
        preview, self.partial.preview = self.partial.preview, None
        if preview is not None and on_preview is not None and not self.refused:
            on_preview(preview)

    def read_announced(self, announced: int) -> None:
        """Check every part the child said it wrote (``announced`` of them), in order, until one is refused.

        The parent names each part's file itself; the child only says how many there are.
        """
        while not self.refused and self.read < announced:
            begun = time.perf_counter()
            path = Path(self.pattern.format(self.read))
            name = f"part {self.read + 1} of the program's capture"
            try:
                problem = not_a_regular_file(path.stat())  # a FIFO would block the reading forever
                if problem:
                    raise DocumentError(f"{name} is {problem}")
                if self.read == 0:
                    self._pause.enter_context(paused_collection())
                read_capture_part(path.read_bytes(), self.partial, name=name)
            except (DocumentError, OSError) as exc:
                self.refused = f"the program's process sent a capture that cannot be read: {exc}"
            self.read += 1
            self.seconds += time.perf_counter() - begun


def _read_handover(job: dict, state: dict, started: float,
                   parts: _Parts) -> tuple[Capture | None, str, LateStats, list]:
    """The child's capture, its records without values or statistics waiting for those.

    ``(capture, "", late, records)``: ``records`` are the document's, in
    order, ``late`` what those without statistics wait on; ``(None, why,
    late, [])`` when what the child sent cannot be read.
    """
    reading = time.perf_counter()
    records: list = []
    try:
        capture = load_session(job["result_path"], records_out=records, partial=parts.partial).capture
    except DocumentError as exc:  # a child that wrote something we refuse: say so, keep the output
        return None, f"the program's process sent a capture that cannot be read: {exc}", LateStats(), []
    late = LateStats()
    for record in records:
        record.await_stats(late)
    now = time.perf_counter()
    # "hand-over read": the parent's time on the parts (while the child wrote) and on the file after them.
    timings = {**capture.timings, "hand-over write": state["write"], "hand-over read": now - reading + parts.seconds,
               "hand-over after write": now - reading, "isolated": now - started}
    return replace(capture, timings=timings), "", late, records


def _receive_late_stats(process: subprocess.Popen, readers: list[threading.Thread], state: dict, job: dict,
                        folder: Path, late: LateStats, records: list, stats_after: threading.Event | None) -> None:
    """Wait for the child's statistics, give them to the records, then end the child and tidy up.

    Runs in a thread of its own after :func:`capture_isolated` returned. The
    records' readers wait on ``late`` meanwhile (:attr:`TensorRecord.stats`),
    so it is told in every case. Statistics that cannot be had (the child
    died, or sent something we refuse) leave those records without them, and
    each such record's note says why (the inspector shows it).
    """
    missing = note_text(NO_STATISTICS_ENDED)
    try:
        if stats_after is not None:  # wait for the picture, unless the child dies meanwhile
            limit = time.monotonic() + LATE_STATS_LIMIT
            while not stats_after.wait(_POLL) and process.poll() is None and time.monotonic() < limit:
                pass
        _send(process, b"statistics\n", close=True)  # the child computes them now
        deadline = time.monotonic() + LATE_STATS_LIMIT
        while process.poll() is None and not state["done"] and time.monotonic() < deadline:
            time.sleep(_POLL)
        if not state["done"]:  # it ended: its last line may still be on its way through the pipe
            readers[0].join(5)
        if state["done"]:
            try:
                with paused_collection():  # thousands of new objects next to the whole capture
                    add_late_stats(records, Path(job["stats_path"]).read_bytes(),
                                   name="the program's statistics file")
            except (DocumentError, OSError) as exc:
                missing = note_text(NO_STATISTICS, error=exc)
    finally:
        for record in records:
            if record.stats_pending:
                record.note = joined(record.note, missing)
        late.arrived()
        if process.poll() is None and not state["done"]:
            process.kill()
        _finish(process, readers)
        _start_spare()
        shutil.rmtree(folder, ignore_errors=True)


def _send(process: subprocess.Popen, line: bytes, *, close: bool = False) -> None:
    """A line to the child's standard input (it may have died: then nothing)."""
    try:
        process.stdin.write(line)
        process.stdin.flush()
        if close:
            process.stdin.close()
    except (OSError, ValueError):
        pass


class _ChildLink:
    """What the parent hears from one child: its channel's messages (read by a thread), its stderr, what they said.

    ``state`` holds what the messages said (``written``, ``done``, ``parts``
    announced, ``exit_line``, the child's own timings) and ``stopped`` (Stop
    killed it); ``news`` is set whenever something the waiting loop acts on
    arrives. The program's output goes to ``out``, capped as in the app's own
    engine (head and tail kept): output the child wrote straight to its
    descriptor 1 was once kept without limit (349 MB of it took the app to
    6.3 GB in 15 s).
    """

    def __init__(self, process: subprocess.Popen, on_output: Callable[[str, str], None] | None,
                 max_output_chars: int) -> None:
        self.process = process
        self.on_output = on_output
        self.out = {name: OutputCollector(name, max_chars=max_output_chars) for name in ("stdout", "stderr")}
        self.state: dict = {"written": False, "done": False, "stopped": False, "exit_line": None, "parts": 0}
        self.news = threading.Event()
        self.child_stderr: list[str] = []
        self.readers = [threading.Thread(target=self._read_channel, daemon=True),
                        threading.Thread(target=self._read_errors, daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read_channel(self) -> None:
        process = self.process
        long_line = False  # the piece before was a cut of a line longer than _MAX_LINE: raw output
        while raw := process.stdout.readline(_MAX_LINE):
            text = raw.decode("utf-8", "replace")
            message = None
            if not long_line:
                try:
                    message = json.loads(text)
                except ValueError:  # native code printing straight to the descriptor
                    pass
            long_line = not raw.endswith(b"\n")
            if not isinstance(message, dict):
                message = {"out": "stdout", "text": text}
            self._take(message)

    def _take(self, message: dict) -> None:
        """Act on one message of the child's channel."""
        state = self.state
        if "out" in message:
            stream = "stderr" if message["out"] == "stderr" else "stdout"
            piece = str(message.get("text", ""))
            self.out[stream].write(piece)
            if self.on_output is not None:
                self.on_output(stream, piece)
        elif "ready" in message:  # a spare announcing its imports; nobody waited for it
            pass
        elif "exit_line" in message:
            state["exit_line"] = (message["exit_line"], message.get("code", 0))
        elif "part" in message:
            if type(message["part"]) is int:
                state["parts"] = max(state["parts"], message["part"])
                self.news.set()
        elif message.get("written"):
            write = message.get("write")
            state["write"] = float(write) if type(write) in (int, float) else 0.0
            state["written"] = True
            self.news.set()
        elif message.get("done"):
            stats = message.get("stats")
            state["stats"] = float(stats) if type(stats) in (int, float) else 0.0
            need = message.get("need")
            if type(need) is int and need >= 0:
                global _last_need
                _last_need = need
            state["done"] = True

    def _read_errors(self) -> None:
        for raw in self.process.stderr:
            self.child_stderr.append(raw.decode("utf-8", "replace"))

    def wait_for(self, key: str, parts: _Parts, should_stop: Callable[[], bool] | None,
                 on_preview: Callable[[Capture], None] | None = None) -> bool:
        """Poll until the child says ``key``, reading the parts it sends meanwhile; False when it ended
        first, or Stop killed it. ``on_preview(capture)`` as soon as a part brings the preview."""
        process, state, news = self.process, self.state, self.news
        while process.poll() is None and not state[key]:
            if parts.refused:  # no use waiting for the rest
                return False
            if should_stop is not None and should_stop():
                process.kill()  # at once, even inside a native op
                process.wait()
                state["stopped"] = True
                return False
            news.clear()
            if parts.read < state["parts"]:  # one part (about 0.1 s), then look at Stop again
                parts.read_announced(parts.read + 1)
                parts.hand_preview(on_preview)
                continue
            news.wait(_POLL)
        if not state[key]:  # it ended: its last lines may still be on their way through the pipe
            self.readers[0].join(5)
        if state[key]:
            parts.read_announced(state["parts"])  # those announced before it said ``key``
            parts.hand_preview(on_preview)  # it came with the rest: shown first all the same, as in the app's engine
        return state[key]

    def output(self) -> dict[str, str]:
        """The program's output so far, as ``Capture`` fields."""
        return {"stdout": self.out["stdout"].text(), "stderr": self.out["stderr"].text()}


def _write_job(folder: Path, code: str, device: str, filename: str, memory_limit: int | None, cwd: str,
               run: ScriptRun) -> dict:
    """The job file the child reads (``job.json`` in ``folder``): the program and where to put what it sends."""
    job = {"code": code, "device": device, "filename": filename, "memory_limit": memory_limit,
           "result_path": str(folder / "result.gxsession"), "stats_path": str(folder / "stats.jsonl"),
           "part_path": str(folder / "part-{}.gxpart"),
           "fault_path": str(folder / "fault.txt")}
    job["cwd"] = cwd
    job["args"] = list(run.args)
    (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
    return job


def _without_capture(link: _ChildLink, job: dict, base: Capture, refused: str, filename: str) -> Capture:
    """The capture of a run whose child sent nothing readable: refused, stopped or crashed, with its output."""
    process = link.process
    if refused:
        process.kill()
        _finish(process, link.readers)
        _start_spare()
        return replace(base, **link.output(),
                       error=ErrorReport("crashed", "DocumentError", refused, None, traceback=refused))
    _finish(process, link.readers)
    _start_spare()  # the next run finds a child with its imports done
    base = replace(base, **link.output())
    if link.state["stopped"]:
        said = phrase("stopped by the user (the program's process was killed)")
        return replace(base, error=ErrorReport("stopped", KILLED, said.render(), None, said=said))
    fault = ""
    fault_path = Path(job["fault_path"])
    if fault_path.exists():
        fault = fault_path.read_text(encoding="utf-8", errors="replace")
    return replace(base, error=_crash_report(process.returncode, link.state["exit_line"], fault,
                                             "".join(link.child_stderr), filename))


def capture_isolated(
    code: str,
    *,
    device: str = "cpu",
    filename: str = "<editor>",
    run: ScriptRun | None = None,
    memory_limit: int | None = -1,
    on_output: Callable[[str, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    stats_after: threading.Event | None = None,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    on_preview: Callable[[Capture], None] | None = None,
) -> Capture:
    """Run ``code`` in a child process and return its capture (or what happened to the process).

    Parameters
    ----------
    code, device, filename, run
        As for :func:`gradexplorer.capture`: the child runs the program as
        ``python SCRIPT ARGS`` would, in the same working folder. Its
        ``input()`` has no console (it says so).
    memory_limit : int or None, keyword-only
        Bytes the child may allocate; ``-1`` (default) is
        :func:`default_memory_limit`, None no limit.
    on_output : callable, optional
        ``on_output(stream, text)`` as the program prints, in a reader thread.
    should_stop : callable, optional
        Polled every 20 ms; when it returns True the child is killed and the
        capture says "stopped".
    stats_after : threading.Event, optional
        The child computes the statistics it left out of the capture once
        this is set (the app's worker sets it when the first picture is
        made, so that the two do not share the cores); by default at once.
    max_output_chars : int, keyword-only
        Output kept per stream, head and tail, as in :func:`gradexplorer.capture`
        (what the child writes straight to its descriptor included).
    on_preview : callable, optional
        ``on_preview(capture)``, in this thread, as soon as the child has sent
        what the first picture needs (its graph, passes, output and error:
        the pipeline's ``preview`` step), while it still makes the rest. The
        capture returned later has the same graph object. Called once
        (before the capture is read) even when the child was done first.

    Raises
    ------
    DeviceUnavailableError
        The device does not exist here; nothing was started.
    """
    device = str(resolve_device(device))
    run = run if run is not None else ScriptRun()
    cwd = checked_working_folder(run, filename)  # resolved here: the child's own folder is not the user's
    if memory_limit == -1:
        memory_limit = default_memory_limit()
    folder = Path(tempfile.mkdtemp(prefix="gradexplorer-isolated-"))
    started = time.perf_counter()
    parts = None
    try:
        job = _write_job(folder, code, device, filename, memory_limit, cwd, run)
        process = _take_child()
        # Open until the capture is read: the next line tells the child to compute the statistics.
        _send(process, (str(folder / "job.json") + "\n").encode("utf-8"))
        link = _ChildLink(process, on_output, max_output_chars)
        parts = _Parts(job["part_path"])
        base = Capture(code=code, filename=filename, device=device, graph=CaptureGraph(), stdout="",
                       stderr="", executed=True, versions=versions(), args=tuple(run.args), cwd=cwd,
                       root=run.project_folder(filename))
        result_path = Path(job["result_path"])
        # Read the graph's parts as the child announces them, and the rest as soon as it says it is written
        # (a process that held a few GB takes a tenth of a second to end, which the parent spends reading
        # instead). Then the child computes the statistics the file left out, while the app lays out and
        # shows the picture: after the reading, not during it (on two cores the two slowed each other down
        # by a third).
        written = link.wait_for("written", parts, should_stop, on_preview)
        refused = parts.refused
        if written and not refused and result_path.exists():
            capture, refused, late, records = _read_handover(job, link.state, started, parts)
            if capture is not None:
                global _late_stats
                _late_stats = threading.Thread(target=_receive_late_stats, name="gradexplorer-late-stats",
                                               args=(process, link.readers, link.state, job, folder, late,
                                                     records, stats_after), daemon=True)
                _late_stats.start()
                folder = None  # the thread removes it
                return capture
        return _without_capture(link, job, base, refused, filename)
    finally:
        if parts is not None:
            parts.release()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

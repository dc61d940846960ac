"""The child process of the isolated engine: run one capture, write it as a session file, exit.

Started by :func:`gradexplorer.core.isolated.engine.capture_isolated` as
``python -m gradexplorer.core.isolated.child --wait``: it imports torch and
gradexplorer first, then reads the path of its job file from its standard
input, so that a child started ahead of time (a *spare*) has the second of
importing behind it when the user presses Run. It talks to the parent on its
standard output, one JSON object per line:

* ``{"ready": true}``: the imports are done, the child waits for its job;
* ``{"out": "stdout" | "stderr", "text": ...}``: the program printed;
* ``{"exit_line": k, "code": n}``: the program called ``os._exit(n)`` at line k;
* ``{"part": n}``: ``n`` parts of the capture's graph nodes are written, the
  files ``job["part_path"]`` formatted with 0 to ``n - 1`` (see
  :func:`~gradexplorer.core.io.handover.write_capture_part`); the parent
  checks each while the child writes the next, and the first ones while the
  child still builds the rest of the capture (they are sent as soon as the
  graph is built);
* ``{"written": true, "write": s}``: the capture is in the session file (``s`` seconds of writing, the
  parts included),
  without the statistics of records saved without values; the child then
  waits for the parent's next line (``--wait`` mode) before computing them;
* ``{"done": true, "stats": s, "need": b}``: those statistics are in the statistics file (``s``
  seconds); the run needed a heap of ``b`` bytes (see :func:`_prefault`).

The capture travels as a session file, through the same safe codec as a
file the user opens (no pickle): the parent never unpickles anything the
child wrote. The statistics come second (numpy over every large tensor, a
third of the hand-over): the parent makes its first picture first (the file
carries the norms it needs), then lets the child compute them, as a thread
run computes them when they are first shown. A crash in native code leaves a Python traceback in the fault
file (``faulthandler``), from which the parent reads the line.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["main"]


def _limit_memory(limit: int | None) -> None:
    """Cap the process's data segment (heap and private writable mappings) at ``limit`` bytes.

    ``RLIMIT_DATA``, not ``RLIMIT_AS``: CUDA reserves tens of GB of address
    space it never writes, which an address-space cap would refuse. A torch
    allocation past the cap fails with torch's own "can't allocate memory"
    error, at the program's line, instead of the machine swapping.
    """
    if not limit:
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    cap = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))


#: Size of the blocks :func:`_prefault` touches: under glibc's largest mmap threshold (32 MB), so they come
#: from the heap and stay there when freed (the engine sets ``MALLOC_MMAP_THRESHOLD_`` and
#: ``MALLOC_TRIM_THRESHOLD_`` for the child).
_PREFAULT_BLOCK = 16 << 20
#: Longest text of one ``{"out": ...}`` message (characters; one print of 100 MB goes in pieces).
OUTPUT_PIECE = 1 << 18


def _prefault(size: int) -> int:
    """Touch ``size`` bytes of heap and free them again, so that the program's allocations find them ready.

    A fresh process gets its memory from the kernel a page at a time, on
    first touch: a 10,000-node training step touches about 700 MB, 180,000
    page faults, a fifth of its run and build, which a thread run in the
    long-lived app never pays again. The spare waits idle for seconds, so it
    takes those faults ahead (``size`` is what the last isolated run needed,
    capped by the engine). With glibc's thresholds set as the engine sets
    them, the freed blocks stay in the heap and torch's allocations reuse
    them. Elsewhere it is only memory touched and given back. Returns the
    bytes touched.
    """
    blocks = [bytearray(_PREFAULT_BLOCK) for _ in range(size // _PREFAULT_BLOCK)]
    touched = len(blocks) * _PREFAULT_BLOCK
    del blocks
    return touched


def _heap_size() -> int:
    """Bytes of glibc's main heap (``mallinfo2().arena``), 0 where that cannot be read.

    With the trim threshold the engine sets, the heap never shrinks, so at
    the end of a run this is the most heap the program and its capture held
    at once (or the prefault, if larger): what the next spare should have
    ready. Python's own small objects and blocks over 32 MB are mapped
    separately and not counted: touching memory ahead cannot serve those.
    """
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                         "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2  # glibc 2.33 and later
    except (OSError, AttributeError):
        return 0
    mallinfo2.restype = MallInfo2
    return int(mallinfo2().arena)


def _next_prefault(prefaulted: int) -> int:
    """The heap the next run should find ready: this run's, unless it grew by less than a quarter past the prefault.

    A prefaulted heap ends a little larger than it began even when the
    program needs no more (fragmentation: about a tenth on a training
    step); taking that as the new need would grow every spare by as much.
    """
    heap = _heap_size()
    return heap if not prefaulted or heap > prefaulted * 5 // 4 else prefaulted


def _give_back_heap() -> None:
    """Return the freed heap to the kernel (glibc's ``malloc_trim``), where it is available."""
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _hide_our_settings() -> None:
    """Take the glibc settings the engine added out of ``os.environ``.

    glibc read them when this process started; the program should see the
    environment it would see in the app, and the processes it starts should
    not inherit a heap that is never given back.
    """
    added = os.environ.pop("GRADEXPLORER_MALLOC_ADDED", "")
    for name in filter(None, added.split(",")):
        os.environ.pop(name, None)


def _no_input(prompt: str) -> str:
    """``input()`` in the isolated engine: its process has no console to type into."""
    from ..capture.streams import NoInputError

    raise NoInputError("input() cannot read a line in the isolated engine (its process has no console); choose "
                       "the engine 'in the app' to type the line into the console, or pass the value as an "
                       "argument (Run > Arguments…)")


def _exit_with_parent(interval: float = 0.2) -> None:
    """End this process when the app that started it is gone (killed, crashed), instead of running on.

    A child whose app was killed kept running its program (an orphan at 35%
    CPU). The parent's death is seen as this process being handed to
    another parent; a daemon thread looks every ``interval`` seconds.
    (``PR_SET_PDEATHSIG`` would follow the thread that started the child,
    and the app starts its spare child from a worker thread that ends.)
    """
    parent = os.getppid()
    end = os._exit  # the real one: the program's os._exit is wrapped later

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                end(KILLED_WITH_PARENT)

    threading.Thread(target=watch, name="gradexplorer-parent-watch", daemon=True).start()


#: The exit status of a child that ended because its app was gone.
KILLED_WITH_PARENT = 75


class _Channel:
    """The JSON lines this process sends the parent on its own copy of descriptor 1, from any thread."""

    def __init__(self) -> None:
        self._file = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()

    def emit(self, message: dict) -> None:
        with self._lock:
            self._file.write(json.dumps(message) + "\n")
            self._file.flush()

    def emit_output(self, stream: str, text: str) -> None:
        """The program's output, in pieces of at most :data:`OUTPUT_PIECE` characters (the parent reads bounded lines)."""
        for start in range(0, len(text), OUTPUT_PIECE):
            self.emit({"out": stream, "text": text[start:start + OUTPUT_PIECE]})

    def close(self) -> None:
        self._file.close()


class _GraphSender:
    """Sends the graph nodes ahead of the file, in parts, each announced as soon as it is written.

    Plain writes: the files are read once by the parent and deleted; nothing
    to make atomic or durable. The parent checks the parts on the other core
    while this process encodes the rest (one file read after the writing was
    0.3-0.5 s more).
    """

    def __init__(self, job: dict, channel: _Channel) -> None:
        self.job = job
        self.channel = channel
        self.parts = 0
        self.sink = None  # the TensorSink the nodes went with; None until the graph is sent
        self.seconds = 0.0

    def send_part(self, node_lines: list, records: list, values: dict) -> None:
        from ..io.handover import write_capture_part

        with open(self.job["part_path"].format(self.parts), "wb") as fh:
            write_capture_part(fh, node_lines, records, values)
        self.parts += 1
        self.channel.emit({"part": self.parts})

    def send_graph(self, graph, pass_count: int) -> None:
        """Send the nodes as soon as the graph is built: the parent, whose checking of them is the longer
        part of the hand-over, starts while this process makes the named tensors, the module audit and the
        explanations (0.1 s at 10,000 nodes)."""
        from ..analysis.gradient_flow import parameter_gradients
        from ..io.capture_json import TensorSink, send_nodes
        from ..io.session import DEFAULT_FILE_VALUES

        started = time.perf_counter()
        # The statistics the app's first picture reads go with the nodes (the others follow the file): those
        # of the parameters' gradients, for the gradient-flow pane (the overview needs norms only, which
        # always go).
        sink = TensorSink(DEFAULT_FILE_VALUES, defer_stats=True, stats_first=parameter_gradients(graph, pass_count))
        send_nodes(graph, sink, self.send_part)
        self.sink, self.seconds = sink, time.perf_counter() - started

    def on_step(self, step: str, made: dict) -> None:
        """The build's ``on_step``: after the ``preview`` step, send the preview (see :meth:`send_preview`)."""
        if step == "preview":
            self.send_preview(made["preview"])

    def send_preview(self, preview) -> None:
        """What the first picture needs besides the nodes (passes, output, error), in a part of its own.

        The app draws it while this process makes the named tensors, the
        module audit and the explanations (the app's own engine draws at the
        same step). Its records (the passes' results) are numbered on from the
        nodes', in the part; the container that follows refers to them.
        """
        from ..io.capture_json import capture_to_dict
        from ..io.handover import write_capture_part

        if self.sink is None:  # no graph was sent (cannot happen after a walk): nothing to preview
            return
        started = time.perf_counter()
        document = capture_to_dict(preview, sink=self.sink, nodes_sent=True)
        records, values = self.sink.take()
        document["records"] = []
        with open(self.job["part_path"].format(self.parts), "wb") as fh:
            write_capture_part(fh, [], records, values,
                               preview=json.dumps(document, ensure_ascii=False, allow_nan=False).encode("utf-8"))
        self.parts += 1
        self.channel.emit({"part": self.parts})
        self.seconds += time.perf_counter() - started


def _take_job(argv: list[str]) -> tuple[str, int, BinaryIO | None]:
    """The job file's path (from the arguments or the parent's first line), the heap made ready, and the go line.

    ``--prefault N`` makes an N-byte heap ready first; ``--wait`` (a spare
    child) says it is ready and reads its job from standard input, then keeps
    that pipe to learn when to compute the statistics. The program gets an
    empty standard input: ``input()`` must not wait for the parent.
    """
    prefaulted = 0
    if argv[2:3] == ["--prefault"]:
        prefaulted = _prefault(int(argv[3]))
        argv = argv[:2]
    if len(argv) > 1 and argv[1] == "--wait":
        sys.stdout.write('{"ready": true}\n')  # imports done (see isolated.wait_for_spare)
        sys.stdout.flush()
    job_path = argv[1] if len(argv) > 1 and argv[1] != "--wait" else sys.stdin.readline().strip()
    go = None
    if job_path and argv[1:2] == ["--wait"]:
        # The parent's next line says when to compute the statistics (after it has read the capture).
        # The program gets an empty standard input, as before: input() must not wait for the parent.
        go = os.fdopen(os.dup(0), "rb", buffering=0)
        empty = os.open(os.devnull, os.O_RDONLY)
        os.dup2(empty, 0)
        os.close(empty)
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the program's stdin until the end
    return job_path, prefaulted, go


def _report_exit_line(filename: str, channel: _Channel) -> Callable[[int], None]:
    """Make ``os._exit`` tell the parent the program's line first (nothing else runs after it); return the real one."""
    real_exit = os._exit

    def exit_with_line(code: int = 0) -> None:
        """``os._exit`` that first tells the parent the program's line (nothing else runs after it)."""
        frame, line = sys._getframe(1), None
        while frame is not None:
            if frame.f_code.co_filename == filename:
                line = frame.f_lineno
                break
            frame = frame.f_back
        channel.emit({"exit_line": line, "code": int(code)})
        real_exit(code)

    os._exit = exit_with_line
    return real_exit


def main(argv: list[str]) -> int:
    """Run one job: the program under the recorder, then its capture handed to the parent (parts, file, statistics)."""
    _hide_our_settings()
    _exit_with_parent()
    from ..pipeline import capture
    from ..capture.script import ScriptRun
    from ..collector import freeze_after_pauses, paused_collection
    from ..io.session import Session, write_session_container
    # What the hand-over imports (_GraphSender) is loaded now, before the memory limit: importing it after a
    # program that used the limit up crashed the process (SIGSEGV) instead of reporting the program's error.
    from ..analysis import gradient_flow  # noqa: F401
    from ..io import capture_json, handover  # noqa: F401

    job_path, prefaulted, go = _take_job(argv)
    if not job_path:  # the parent went away before giving a job (a spare that was not needed)
        return 0
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    channel = _Channel()
    fault = open(job["fault_path"], "w", encoding="utf-8")  # noqa: SIM115 - open until the process ends
    faulthandler.enable(file=fault, all_threads=False)
    if prefaulted and job.get("memory_limit") and prefaulted > job["memory_limit"] // 2:
        _give_back_heap()  # the ready heap would let the program past a small limit unseen
    _limit_memory(job.get("memory_limit"))
    filename = job["filename"]
    real_exit = _report_exit_line(filename, channel)
    sender = _GraphSender(job, channel)
    # As in the app: the objects the graph build made are frozen, not traversed by a collection, when it ends.
    freeze_after_pauses()
    # The program's objects are never freed (this process ends with os._exit): 0.03 s saved at 10k nodes.
    leftovers: list = []
    cap = capture(job["code"], device=job["device"], filename=filename,
                  run=ScriptRun(tuple(job.get("args", ())), job.get("cwd") or None),
                  on_output=channel.emit_output, read_input=_no_input,
                  leftovers=leftovers, on_graph=sender.send_graph, on_step=sender.on_step)
    session = Session(code=job["code"], device=cap.device, capture=cap, filename=filename)
    started = time.perf_counter()
    # No cyclic GC meanwhile: encoding makes many small objects next to the whole capture (as save_session).
    with paused_collection():
        with open(job["result_path"], "wb") as fh:
            # sender.sink is None when no graph was built (a syntax error: the program never ran); the
            # container then holds the empty graph itself, with a sink of its own.
            sink = write_session_container(session, fh, compress=False, sink=sender.sink, defer_stats=True)
        channel.emit({"written": True, "write": time.perf_counter() - started + sender.seconds})
        if go is not None:
            go.readline()  # the parent has read the capture (or went away: its end of the pipe closed)
        started = time.perf_counter()
        with open(job["stats_path"], "wb") as fh:
            for line in sink.late_stats_lines():
                fh.write(line + b"\n")
    channel.emit({"done": True, "stats": time.perf_counter() - started, "need": _next_prefault(prefaulted)})
    channel.close()
    # Threads the program left running must not keep this process alive: the capture is written.
    real_exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

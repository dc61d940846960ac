"""Capture the user's ``print`` output without stealing other threads' output; answer its ``input()``.

``sys.stdout`` is one object for the whole process, but the user's code runs
in a worker thread while the GUI (or pytest) keeps printing from others. So
instead of swapping ``sys.stdout`` for the duration of a run, gradexplorer
installs a :class:`ThreadRoutedStream` once: writes from a thread that is
inside :func:`collect_output` go to that run's :class:`OutputCollector`,
writes from every other thread go where they always went.

Progress bars (``tqdm``, ``print(..., end="\r")``) rewrite their line with a
carriage return: the collector keeps what a terminal would show, one line
per bar (:class:`OutputCollector`), not every state it went through.

``input()`` in the user's code (:func:`answering_input`) reads a line from
whatever the caller gives (the app's console, the CLI's standard input), and
where there is nothing to read from it raises an ``EOFError`` that says why
(:class:`NoInputError`), never a bare one.
"""

from __future__ import annotations

import builtins
import codecs
import collections
import contextlib
import io
import sys
import threading
from collections.abc import Callable, Iterator

__all__ = ["routed_to", "DEFAULT_MAX_OUTPUT_CHARS", "NoInputError", "OutputCollector", "ThreadRoutedStream",
           "answering_input", "collect_output", "savable_text", "stdin_reader"]

#: Characters kept per stream and run; the rest is dropped with a notice.
DEFAULT_MAX_OUTPUT_CHARS = 1_000_000


def savable_text(text: str) -> str:
    """``text`` with lone surrogates spelled out, so that it can be written as UTF-8.

    A file name that is not UTF-8 reaches Python as surrogates
    (``os.listdir`` gives ``"caf\\udce9"`` for the bytes ``caf\\xe9``); printed,
    it made every save of the capture fail. Its bytes come back as
    ``\\xe9`` escapes (``"caf\\\\xe9"``), the way ``ls`` would show them.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # surrogates that are not escaped bytes
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class OutputCollector:
    """Accumulates one run's stdout or stderr text, capped, keeping its head and its tail.

    A flood (a million prints) keeps its first ``max_chars / 2`` characters
    and its last ``max_chars / 2`` (whole lines), with a notice between them
    saying how much was left out: the last lines (``done``, the final loss, a
    traceback the program printed) are usually what a user looks for.

    Parameters
    ----------
    name : str
        ``"stdout"`` or ``"stderr"``, passed to ``on_text``.
    max_chars : int
        Text beyond this is counted but not kept.
    on_text : callable, optional
        ``on_text(name, text)`` for each write, so a GUI can stream output
        live (it keeps its own head and tail). Called in the writing thread.
    """

    def __init__(self, name: str, *, max_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
                 on_text: Callable[[str, str], None] | None = None) -> None:
        self.name = name
        self.max_chars = max_chars
        self.on_text = on_text
        self._head_budget = max_chars - max_chars // 2
        self._tail_budget = max_chars // 2
        #: Finished lines of the head (each ending in a newline).
        self._parts: list[str] = []
        self._kept = 0
        self._head_full = False
        #: Finished lines after the head is full, the oldest dropped first.
        self._tail: collections.deque[str] = collections.deque()
        self._tail_chars = 0
        #: The line being written, in pieces: a carriage return starts it over, as on a terminal.
        self._line: list[str] = []
        self._line_chars = 0
        #: The last write ended in "\r": the next one decides whether it was half of a "\r\n".
        self._pending_cr = False
        self.dropped = 0

    def write(self, text: str) -> int:
        if not text:
            return 0
        count = len(text)
        if not text.isascii():
            text = savable_text(text)
        self._rewrite(text)
        if self.on_text is not None:
            self.on_text(self.name, text)
        return count

    def _rewrite(self, text: str) -> None:
        """Apply ``text`` to the kept output as a terminal would.

        A carriage return not followed by a newline starts the current line
        over (a progress bar's next state replaces its last one); the cap
        counts finished lines only, so a bar that updates 10,000 times takes
        the room of one line.
        """
        if self._pending_cr:
            self._pending_cr = False
            if text.startswith("\n"):
                text = text[1:]
                self._finish_line()
            else:
                self._line, self._line_chars = [], 0
        if text.endswith("\r"):
            self._pending_cr = True
            text = text[:-1]
        text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        for i, segment in enumerate(lines):
            if "\r" in segment:
                segment = segment.rsplit("\r", 1)[1]
                self._line, self._line_chars = [], 0
            room = self._tail_budget - self._line_chars
            if len(segment) > room:  # one endless line: keep what fits, count the rest
                self.dropped += len(segment) - max(room, 0)
                segment = segment[:max(room, 0)]
            if segment:
                self._line.append(segment)
                self._line_chars += len(segment)
            if i < len(lines) - 1:
                self._finish_line()

    def _finish_line(self) -> None:
        line = "".join(self._line) + "\n"
        self._line, self._line_chars = [], 0
        if not self._head_full:
            if self._kept + len(line) <= self._head_budget:
                self._parts.append(line)
                self._kept += len(line)
                return
            self._head_full = True  # from here on everything goes to the tail, in order
        self._tail.append(line)
        self._tail_chars += len(line)
        while self._tail_chars > self._tail_budget and self._tail:
            gone = self._tail.popleft()
            self._tail_chars -= len(gone)
            self.dropped += len(gone)

    def text(self) -> str:
        """Everything kept (the line being written included), a notice where output was left out."""
        notice = ""
        if self.dropped:
            notice = f"[gradexplorer: {self.dropped:,} characters of {self.name} were not kept here]\n"
        return "".join(self._parts) + notice + "".join(self._tail) + "".join(self._line)


class ThreadRoutedStream(io.TextIOBase):
    """A text stream that sends each thread's writes to that thread's collector.

    Programs use more of ``sys.stdout`` than ``write``: bytes through
    ``sys.stdout.buffer`` (``io.TextIOWrapper(sys.stdout.buffer,
    encoding="utf-8")``, binary output) and ``sys.stdout.reconfigure(...)``,
    which scripts written for a Windows console (cp950) call first. Under
    ``python SCRIPT`` both work; here :attr:`buffer` decodes a routed
    thread's bytes as UTF-8 into its collector, and :meth:`reconfigure` is the
    real stream's for other threads and changes nothing a collector keeps
    (it holds text, not bytes).
    """

    def __init__(self, fallback) -> None:
        super().__init__()
        self.fallback = fallback
        self.routes: dict[int, OutputCollector] = {}
        self._buffer = _RoutedBuffer(self)

    @property
    def buffer(self) -> _RoutedBuffer:
        """The binary side: a routed thread's bytes go to its collector, other threads' to the real stream's."""
        return self._buffer

    def reconfigure(self, **settings) -> None:
        """``TextIOWrapper.reconfigure``: applied to the real stream for other threads, accepted for a routed one."""
        if threading.get_ident() not in self.routes:
            self.fallback.reconfigure(**settings)

    @property
    def errors(self):
        return getattr(self.fallback, "errors", "strict")

    def write(self, text: str) -> int:
        collector = self.routes.get(threading.get_ident())
        if collector is None:
            return self.fallback.write(text)
        return collector.write(text)

    def flush(self) -> None:
        if threading.get_ident() not in self.routes:
            self.fallback.flush()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self):  # some libraries look at sys.stdout.encoding
        return getattr(self.fallback, "encoding", "utf-8")

    def isatty(self) -> bool:
        return False


class _RoutedBuffer(io.BufferedIOBase):
    """``sys.stdout.buffer`` under a :class:`ThreadRoutedStream`: bytes of a routed thread decoded into its collector.

    Decoded as UTF-8 (what ``python SCRIPT`` writes to a pipe on Linux and
    macOS), incrementally, so a character split across two writes arrives
    whole; undecodable bytes become U+FFFD, as text the console can show.
    """

    def __init__(self, text: ThreadRoutedStream) -> None:
        super().__init__()
        self._text = text
        # Thread id -> (its collector, the decoder of its bytes): a new run (a new collector) starts afresh.
        self._decoders: dict[int, tuple[OutputCollector, codecs.IncrementalDecoder]] = {}

    def write(self, data) -> int:
        data = bytes(data)
        ident = threading.get_ident()
        collector = self._text.routes.get(ident)
        if collector is None:
            self._decoders.pop(ident, None)
            return self._text.fallback.buffer.write(data)
        known = self._decoders.get(ident)
        if known is None or known[0] is not collector:
            known = self._decoders[ident] = (collector, codecs.getincrementaldecoder("utf-8")("replace"))
        collector.write(known[1].decode(data))
        return len(data)

    def flush(self) -> None:
        if threading.get_ident() not in self._text.routes:
            self._text.fallback.buffer.flush()

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        """Never closed: one object for the whole process, and a program's ``TextIOWrapper`` around it closes
        it when the wrapper is freed (the next run's wrapper would then write to a closed file)."""


_install_lock = threading.Lock()


def _router(attr: str) -> ThreadRoutedStream:
    current = getattr(sys, attr)
    if isinstance(current, ThreadRoutedStream):
        return current
    router = ThreadRoutedStream(current)
    setattr(sys, attr, router)
    return router


@contextlib.contextmanager
def collect_output(*, max_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
                   on_text: Callable[[str, str], None] | None = None
                   ) -> Iterator[tuple[OutputCollector, OutputCollector]]:
    """Route this thread's ``sys.stdout``/``sys.stderr`` writes into collectors.

    Yields
    ------
    (OutputCollector, OutputCollector)
        stdout and stderr collectors of the calling thread.
    """
    out = OutputCollector("stdout", max_chars=max_chars, on_text=on_text)
    err = OutputCollector("stderr", max_chars=max_chars, on_text=on_text)
    with routed_to(out, err):
        yield out, err


@contextlib.contextmanager
def routed_to(out: OutputCollector, err: OutputCollector) -> Iterator[None]:
    """Send the calling thread's writes to existing collectors (a thread the user's code started)."""
    ident = threading.get_ident()
    with _install_lock:
        out_router, err_router = _router("stdout"), _router("stderr")
        out_router.routes[ident] = out
        err_router.routes[ident] = err
    try:
        yield
    finally:
        with _install_lock:
            out_router.routes.pop(ident, None)
            err_router.routes.pop(ident, None)


class NoInputError(EOFError):
    """``input()`` had nothing to read from; the message says why and what to do instead.

    An ``EOFError``, so a program that handles the end of its input (``except
    EOFError:``) behaves as it would at the end of a pipe.
    """


_original_input = builtins.input
_input_lock = threading.Lock()
#: Thread id -> the reader of the run in that thread (see :func:`answering_input`).
_input_routes: dict[int, Callable[[str], str | None]] = {}


def _routed_input(prompt: object = "") -> str:
    """``builtins.input`` while a capture runs: the capturing thread's reader, everybody else's own input."""
    reader = _input_routes.get(threading.get_ident())
    if reader is None:
        return _original_input(prompt)
    if prompt != "":
        sys.stdout.write(str(prompt))
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    return reader(str(prompt))


class ThreadRoutedStdin(io.TextIOBase):
    """``sys.stdin`` while a capture answers input: lines come from the run's reader, in its threads only.

    A program that reads ``sys.stdin`` directly (``sys.stdin.readline()``,
    ``for line in sys.stdin``) blocked the app's worker in a read of the
    app's own terminal or pipe, where Stop cannot reach it. In a thread with
    a reader, a line is asked for as ``input()`` asks (the app's console)
    and the end of input is ``""``; every other thread reads the real
    standard input.
    """

    def __init__(self, fallback) -> None:
        super().__init__()
        self.fallback = fallback

    def _reader(self):
        return _input_routes.get(threading.get_ident())

    def readline(self, size: int | None = -1) -> str:
        reader = self._reader()
        if reader is None:
            return self.fallback.readline(size) if self.fallback is not None else ""
        try:
            return reader("") + "\n"
        except NoInputError:
            return ""

    def read(self, size: int | None = -1) -> str:
        if self._reader() is None:
            return self.fallback.read(size) if self.fallback is not None else ""
        lines = []
        while size is None or size < 0 or sum(map(len, lines)) < size:
            line = self.readline()
            if not line:
                break
            lines.append(line)
        return "".join(lines)

    def readlines(self, hint: int = -1) -> list[str]:
        return list(iter(self.readline, ""))

    def __iter__(self):
        return iter(self.readline, "")

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False if self._reader() is not None else bool(self.fallback is not None and self.fallback.isatty())

    def fileno(self) -> int:
        if self._reader() is not None or self.fallback is None:
            raise io.UnsupportedOperation("the program's standard input is the app's console: it has no file number")
        return self.fallback.fileno()

    @property
    def encoding(self):
        return getattr(self.fallback, "encoding", "utf-8")

    @property
    def buffer(self):
        if self._reader() is not None:
            raise io.UnsupportedOperation("the program's standard input is the app's console: read text lines")
        return self.fallback.buffer


@contextlib.contextmanager
def answering_input(reader: Callable[[str], str]) -> Iterator[None]:
    """Answer the calling thread's ``input()`` calls and ``sys.stdin`` reads with ``reader(prompt)``.

    ``reader`` returns the line (without its newline) and raises
    :class:`NoInputError` (or :class:`CaptureStopped`) where there is no
    line to give. The prompt has been written to the thread's
    ``sys.stdout`` already. ``builtins.input`` and ``sys.stdin``
    (:class:`ThreadRoutedStdin`) are replaced for the process while any
    capture answers input (routed by thread, like the streams), and put
    back after the last.
    """
    ident = threading.get_ident()
    with _input_lock:
        if not _input_routes:
            builtins.input = _routed_input
            if not isinstance(sys.stdin, ThreadRoutedStdin):
                sys.stdin = ThreadRoutedStdin(sys.stdin)
        _input_routes[ident] = reader
    try:
        yield
    finally:
        with _input_lock:
            _input_routes.pop(ident, None)
            if not _input_routes:
                builtins.input = _original_input
                if isinstance(sys.stdin, ThreadRoutedStdin):
                    sys.stdin = sys.stdin.fallback


def stdin_reader(*, source: str = "") -> Callable[[str], str]:
    """A reader for :func:`answering_input` that reads this process's standard input (the CLI's terminal or pipe).

    ``source``, when given, says why there is none to read (``"the program
    itself came on standard input"``): every ``input()`` then raises
    :class:`NoInputError` with it.
    """
    def read(prompt: str) -> str:
        if source:
            raise NoInputError(f"input() cannot read a line: {source}; pass the value as an argument instead "
                               f"(gradexplorer capture SCRIPT -- ARGS...)")
        stream = sys.__stdin__
        line = stream.readline() if stream is not None else ""  # the real one, never the routed sys.stdin
        if not line:
            raise NoInputError("input() found the end of standard input: nothing more to read (gradexplorer ran "
                               "the program with its standard input at its end); type the line into a terminal "
                               "or pass the value as an argument")
        return line[:-1] if line.endswith("\n") else line

    return read

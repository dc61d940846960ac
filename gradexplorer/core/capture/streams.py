"""Capture the user's ``print`` output without stealing other threads' output.

``sys.stdout`` is one object for the whole process, but the user's code runs
in a worker thread while the GUI (or pytest) keeps printing from others. So
instead of swapping ``sys.stdout`` for the duration of a run, gradexplorer
installs a :class:`ThreadRoutedStream` once: writes from a thread that is
inside :func:`collect_output` go to that run's :class:`OutputCollector`,
writes from every other thread go where they always went.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
from collections.abc import Callable, Iterator

__all__ = ["routed_to", "DEFAULT_MAX_OUTPUT_CHARS", "OutputCollector", "ThreadRoutedStream", "collect_output"]

#: Characters kept per stream and run; the rest is dropped with a notice.
DEFAULT_MAX_OUTPUT_CHARS = 1_000_000


class OutputCollector:
    """Accumulates one run's stdout or stderr text, capped.

    Parameters
    ----------
    name : str
        ``"stdout"`` or ``"stderr"``, passed to ``on_text``.
    max_chars : int
        Text beyond this is counted but not kept.
    on_text : callable, optional
        ``on_text(name, text)`` for each accepted write, so a GUI can stream
        output live. Called in the writing thread.
    """

    def __init__(self, name: str, *, max_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
                 on_text: Callable[[str, str], None] | None = None) -> None:
        self.name = name
        self.max_chars = max_chars
        self.on_text = on_text
        self._parts: list[str] = []
        self._kept = 0
        self.dropped = 0

    def write(self, text: str) -> int:
        room = self.max_chars - self._kept
        if room <= 0:
            self.dropped += len(text)
            return len(text)
        piece = text[:room]
        self.dropped += len(text) - len(piece)
        self._parts.append(piece)
        self._kept += len(piece)
        if self.on_text is not None:
            self.on_text(self.name, piece)
        return len(text)

    def text(self) -> str:
        """Everything kept, plus a notice when output was dropped."""
        body = "".join(self._parts)
        if self.dropped:
            body += f"\n[gradexplorer: {self.dropped:,} more characters of {self.name} were not kept]\n"
        return body


class ThreadRoutedStream(io.TextIOBase):
    """A text stream that sends each thread's writes to that thread's collector."""

    def __init__(self, fallback) -> None:
        super().__init__()
        self.fallback = fallback
        self.routes: dict[int, OutputCollector] = {}

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

"""Exceptions raised by the gradexplorer core, and the record of a failed run.

Exceptions raised *by gradexplorer* (bad arguments, missing devices) are Python
exceptions. Exceptions raised *by the user's code* never escape
:func:`gradexplorer.core.capture.run.capture`: they become an :class:`ErrorReport`
inside the returned capture, so that the partial graph survives.

Exception tree::

    Exception
     └── GradexplorerError            anything the core refuses to do
          ├── DeviceUnavailableError  the requested device does not exist here
          └── DocumentError           a capture document could not be read
    BaseException
     └── CaptureStopped               raised *into* a running capture to stop it

``CaptureStopped`` derives from ``BaseException`` (like ``KeyboardInterrupt``)
so that a bare ``except Exception`` in the user's code does not swallow a Stop
request.
"""

from __future__ import annotations

from dataclasses import dataclass

from .phrases import Phrase, phrase, place_of

__all__ = [
    "CaptureStopped",
    "DeviceUnavailableError",
    "ErrorReport",
    "GradexplorerError",
    "DocumentError",
]


class GradexplorerError(Exception):
    """Base class of every error the core raises on purpose.

    Raised with a :class:`~gradexplorer.core.records.phrases.Phrase`, it keeps
    it as ``said`` (the app says it in the reader's language) and its English
    words as the message (the CLI, logs, ``str()``).
    """

    def __init__(self, message="", *args) -> None:
        self.said = message if isinstance(message, Phrase) else None
        super().__init__(str(message) if self.said is not None else message, *args)


class DeviceUnavailableError(GradexplorerError):
    """The requested device cannot be used on this machine.

    The message names the device, why it cannot be used, and which devices
    do exist, so a user can pick another one without reading docs.
    """


class DocumentError(GradexplorerError):
    """A saved capture (JSON capture document or session) could not be read."""


class CaptureStopped(BaseException):
    """Raised asynchronously inside the capturing thread to stop user code.

    The GUI's Stop button uses ``PyThreadState_SetAsyncExc`` to raise this in
    the worker thread; Python delivers it between bytecodes, so pure-Python
    loops stop at once while a long native op finishes first.
    """


@dataclass(frozen=True)
class ErrorReport:
    """What went wrong while running the user's code.

    Attributes
    ----------
    kind : str
        ``"syntax"`` (nothing was executed), ``"exception"`` (the code raised
        at ``line``), or ``"stopped"`` (the user pressed Stop).
    exc_type : str
        Qualified exception class name, e.g. ``"RuntimeError"``.
    message : str
        ``str(exc)``; for syntax errors the parser's message.
    line : int or None
        1-based line in the user's code (the innermost user frame, as the
        last line of Python's own traceback).
    column : int or None
        1-based column, known for syntax errors.
    traceback : str
        A traceback showing only frames of the user's code (the program and
        the project's other files), formatted like Python's, with the files'
        real paths.
    frames : tuple of (int, str, str or None)
        ``(line, function name, file)`` for each user frame, outermost first;
        ``file`` is None for the program and the path relative to the project
        folder for another project file (``"pkg/model.py"``). Lets a console
        make each traceback line clickable. (Files of earlier versions have
        ``(line, function name)`` pairs: read as the program's.)
    file : str or None
        The file of ``line``: None for the program, else as in ``frames``.
    said : Phrase or None
        ``message`` as a phrase when gradexplorer wrote it (the isolated
        process died, was stopped): the app says it in the reader's language;
        None for Python's own messages, which stay as Python wrote them.
    """

    kind: str
    exc_type: str
    message: str
    line: int | None
    column: int | None = None
    traceback: str = ""
    frames: tuple[tuple, ...] = ()
    file: str | None = None
    said: Phrase | None = None

    @property
    def program_line(self) -> int | None:
        """The innermost line of the program itself (where the editor marks the error), None if none."""
        if self.file is None:
            return self.line
        for frame in reversed(self.frames):
            if len(frame) < 3 or frame[2] is None:
                return frame[0]
        return None

    def where(self) -> str:
        """``"line 4"``, ``"line 12 of pkg/model.py"``, or ``""`` with no line."""
        if self.line is None:
            return ""
        return f"line {self.line}" if self.file is None else f"line {self.line} of {self.file}"

    def headline(self) -> str:
        """One line for a status bar: ``RuntimeError at line 4: ...``."""
        return self.headline_phrase().render()

    def headline_phrase(self) -> Phrase:
        """:meth:`headline` as a phrase, for the app to say in the reader's language (the message stays Python's)."""
        where = phrase(" at {place}", place=place_of(self)) if self.line is not None else ""
        first = self.said if self.said is not None else self.message.splitlines()[0] if self.message else ""
        if first:
            return phrase("{exc_type}{where}: {message}", exc_type=self.exc_type, where=where, message=first)
        return phrase("{exc_type}{where}", exc_type=self.exc_type, where=where)

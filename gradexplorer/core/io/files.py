"""Files on disk: atomic replacement, saves that can be cancelled, and refusing what is not a regular file.

Shared by sessions, the autosave, exports and the CLI: a save never leaves a
half-written file where the user's was, and opening never blocks on a FIFO.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from collections.abc import Callable
from glob import escape as glob_escape
from pathlib import Path
from typing import BinaryIO

from ..capture.process_state import current_umask

__all__ = ["STALE_TEMPORARY_SECONDS", "SaveCancelled", "not_a_regular_file", "write_atomic"]


class SaveCancelled(Exception):
    """A save stopped by its ``should_stop`` (:func:`~gradexplorer.core.io.session.save_session`); the file it was replacing is untouched."""


class _CancellableFile:
    """A binary file whose next write raises :class:`SaveCancelled` once ``should_stop()`` is true.

    The container goes to the file in pieces of about a megabyte, so a
    cancelled save stops within one piece.
    """

    def __init__(self, fh: BinaryIO, should_stop: Callable[[], bool]) -> None:
        self._fh = fh
        self._should_stop = should_stop

    def write(self, data) -> int:
        if self._should_stop():
            raise SaveCancelled("the save was cancelled")
        return self._fh.write(data)

    def __getattr__(self, name: str):
        return getattr(self._fh, name)


#: A temporary file of a save older than this (seconds) was left by a writer that died (killed mid-save).
STALE_TEMPORARY_SECONDS = 600.0


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    """Remove the hidden ``.NAME.*.tmp`` files an earlier save of ``name`` left when it was killed.

    A fresh one may be another save still writing: only those untouched for
    :data:`STALE_TEMPORARY_SECONDS` go. Errors are ignored (the save itself
    decides whether the folder is writable).
    """
    now = time.time()
    try:
        candidates = list(folder.glob(f".{glob_escape(name)}.*.tmp"))
    except OSError:
        return
    for path in candidates:
        try:
            if now - path.lstat().st_mtime > STALE_TEMPORARY_SECONDS and path.is_file():
                path.unlink()
        except OSError:
            pass


def write_atomic(target: Path, content: str | bytes | Callable[[BinaryIO], None], *,
                 private: bool = False) -> None:
    """Serialised text or bytes -> temp file in the same folder -> fsync -> ``os.replace``.

    ``content`` may also be a function that writes into the open temporary
    file (a binary file object), so that a big file is never built in memory
    first.

    As editors do, a symlink is written through (its target is replaced, the
    link stays a link), an existing file keeps its permission bits (a 0644
    file stayed 0644, not the temporary file's 0600) and a new one gets the
    usual ``0666 & ~umask``; ``private`` makes a new file 0600 (the autosave
    of unsaved work, like an editor's swap file).
    """
    target = _written_through(Path(target))
    folder = target.parent if str(target.parent) else Path(".")
    _remove_stale_temporaries(folder, target.name)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) & 0o777  # its permissions, never a set-id bit
    except FileNotFoundError:
        mode = 0o600 if private else 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            if callable(content):
                content(fh)
            else:
                fh.write(content.encode("utf-8") if isinstance(content, str) else content)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


#: Longest chain of symlinks followed before a save gives up (as the kernel's ELOOP limit).
_MAX_LINKS = 40


def _written_through(target: Path) -> Path:
    """The file a save to ``target`` must replace: ``target`` itself, or what its symlinks lead to.

    A link's relative target is read from the link's own folder. A dangling
    link is written through too (the file it names is created).
    """
    for _ in range(_MAX_LINKS):
        if not target.is_symlink():
            return target
        link = Path(os.readlink(target))
        target = link if link.is_absolute() else target.parent / link
    raise OSError(errno.ELOOP, f"too many levels of symbolic links at {target}")


def not_a_regular_file(info: os.stat_result) -> str:
    """What a path is when it is not a regular file ("a named pipe (FIFO)", ...), else "".

    Reading a FIFO or a terminal blocks forever and a device never ends, so
    every file gradexplorer opens (sessions, scripts) is checked first.
    """
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"

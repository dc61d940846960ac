"""Crash recovery: one autosave slot per running instance of the app.

Two windows (or two app processes) used to share one autosave file: after a
crash the app restored the other window's work, and a clean exit of either
deleted it. Now every instance writes its own *slot* in ``DATA/autosave/``:

``<id>.lock``       the owner's pid, written when the slot is made, and held
                    under an OS lock (``flock``) for the owner's lifetime;
``<id>.text.json``  the editor text and device, rewritten on a timer
                    (milliseconds: no capture in it);
``<id>.gxsession``  the last capture as a session, written once per run.

A slot whose owner process is gone is an *orphan*: the next start offers each
one (its time and first lines) and a clean exit removes only its own slot.
Whether the owner is gone is the OS lock's answer, not the pid's: a pid is
reused by an unrelated process after a reboot or a long uptime, and the
crashed instance's work was then never offered. The kernel drops the lock
when its holder dies however it dies. (Where ``fcntl`` is missing, and for
slots written by versions before the lock, the pid still decides.)
Qt-free, so it is tested without a window.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from dataclasses import dataclass

try:
    import fcntl
except ImportError:  # Windows: the pid decides
    fcntl = None
from pathlib import Path

from .files import write_atomic
from .session import SESSION_SUFFIX, Session, load_session, save_session

__all__ = ["AutosaveSlot", "Orphan", "find_orphans", "process_alive"]

_LOCK, _TEXT = ".lock", ".text.json"
#: Written after the pid in a lock file held under ``flock``: its lock, not the pid, tells whether it is alive.
_FLOCK_MARK = "flock"


def process_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (signal 0 probes without sending)."""
    try:
        os.kill(pid, 0)
    except (OverflowError, ValueError):  # a damaged lock (pid 99999999999999999999): no such process
        return False
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _now() -> str:
    return _dt.datetime.now().isoformat(timespec="seconds")


class AutosaveSlot:
    """This process's slot (made on first use)."""

    def __init__(self, data_dir: str | os.PathLike) -> None:
        self.folder = Path(data_dir) / "autosave"
        self.slot_id = f"{os.getpid()}-{int(time.time() * 1000)}"
        self._made = False
        #: The lock file, open and locked while this slot lives (None before it is made, or without fcntl).
        self._lock_fd: int | None = None

    def _path(self, suffix: str) -> Path:
        return self.folder / f"{self.slot_id}{suffix}"

    @property
    def session_path(self) -> Path:
        return self._path(SESSION_SUFFIX)

    @property
    def text_path(self) -> Path:
        return self._path(_TEXT)

    def _ensure(self) -> None:
        if not self._made:
            self.folder.mkdir(parents=True, exist_ok=True)
            if fcntl is None:
                write_atomic(self._path(_LOCK), str(os.getpid()), private=True)
            else:
                # Locked before anything is written: another instance looking at the
                # folder meanwhile sees a live slot, never an empty orphan to discard.
                fd = os.open(self._path(_LOCK), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    os.ftruncate(fd, 0)
                    os.write(fd, f"{os.getpid()} {_FLOCK_MARK}".encode("ascii"))
                except BaseException:
                    os.close(fd)
                    raise
                self._lock_fd = fd
            self._made = True

    def write_text(self, code: str, device: str) -> None:
        """The editor text and device: cheap, for the timer. Raises OSError."""
        self._ensure()
        write_atomic(self.text_path, json.dumps({"code": code, "device": device, "saved_at": _now()}),
                     private=True)

    def write_session(self, session: Session, *, should_stop=None) -> None:
        """The capture of the last run (any thread: the session is plain data). Raises OSError, ValueError,
        and :class:`~gradexplorer.core.io.files.SaveCancelled` once ``should_stop()`` is true (nothing written)."""
        self._ensure()
        save_session(session, self.session_path, private=True, should_stop=should_stop)

    def remove(self) -> None:
        """A clean exit: this slot's files go (the lock file last, then its lock), other instances' stay."""
        for suffix in (_TEXT, SESSION_SUFFIX, _LOCK):
            try:
                self._path(suffix).unlink()
            except OSError:
                pass
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing drops the flock
            self._lock_fd = None
        self._made = False


@dataclass(frozen=True)
class Orphan:
    """A slot whose owner process is gone: work to offer back."""

    slot_id: str
    folder: Path
    saved_at: str
    code: str
    device: str

    @property
    def preview(self) -> str:
        """The first lines of the text, for the offer."""
        lines = [line for line in self.code.splitlines() if line.strip()][:3]
        return "\n".join(lines) or "(empty editor)"

    def session(self) -> Session | None:
        """The last capture, if one was written and still reads (raises DocumentError if damaged)."""
        path = self.folder / f"{self.slot_id}{SESSION_SUFFIX}"
        return load_session(path) if path.exists() else None

    def discard(self) -> None:
        for suffix in (_TEXT, SESSION_SUFFIX, _LOCK, ".pid"):
            try:
                (self.folder / f"{self.slot_id}{suffix}").unlink()
            except OSError:
                pass


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _owner_alive(lock: Path) -> bool:
    """Whether the instance that made the slot of ``lock`` still runs.

    A slot held under ``flock`` is alive exactly while someone holds the lock
    (its pid may since belong to another process). Older slots, and systems
    without ``fcntl``, fall back to the pid.
    """
    try:
        text = lock.read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    if fcntl is not None and (_FLOCK_MARK in text or not text.strip()):
        try:
            fd = os.open(lock, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True  # held: its owner runs
        except OSError:
            return False
        finally:
            os.close(fd)  # also drops the probe's own lock
        return False  # nobody holds it: its owner is gone, whatever its pid is now
    pid = _read_pid(lock)
    return pid is not None and (pid == os.getpid() or process_alive(pid))


def find_orphans(data_dir: str | os.PathLike) -> list[Orphan]:
    """Every slot (newest first) whose owner is not running, including the single-file autosave of older versions."""
    data_dir = Path(data_dir)
    found = []
    folder = data_dir / "autosave"
    for lock in folder.glob(f"*{_LOCK}") if folder.is_dir() else ():
        slot_id = lock.name[: -len(_LOCK)]
        if _owner_alive(lock):
            continue
        code, device, saved_at = "", "", ""
        try:
            doc = json.loads((folder / f"{slot_id}{_TEXT}").read_text())
            code, device, saved_at = str(doc.get("code", "")), str(doc.get("device", "")), str(doc.get("saved_at", ""))
        except (OSError, ValueError, AttributeError):
            session_path = folder / f"{slot_id}{SESSION_SUFFIX}"
            if not session_path.exists():
                Orphan(slot_id, folder, "", "", "").discard()  # nothing worth offering
                continue
        found.append(Orphan(slot_id, folder, saved_at, code, device))
    legacy = data_dir / f"autosave{SESSION_SUFFIX}"
    if legacy.exists():
        pid = _read_pid(data_dir / "autosave.pid")
        if pid is None or (pid != os.getpid() and not process_alive(pid)):
            try:
                session = load_session(legacy)
                found.append(Orphan("autosave", data_dir, session.saved_at, session.code, session.device))
            except Exception:  # noqa: BLE001 - a damaged legacy file is dropped, never fatal
                Orphan("autosave", data_dir, "", "", "").discard()
    return sorted(found, key=lambda o: o.saved_at, reverse=True)

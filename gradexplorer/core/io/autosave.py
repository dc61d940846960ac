"""Crash recovery: one autosave slot per running instance of the app.

Two windows (or two app processes) used to share one autosave file: after a
crash the app restored the other window's work, and a clean exit of either
deleted it. Now every instance writes its own *slot* in ``DATA/autosave/``:

``<id>.lock``       the owner's pid, written when the slot is made;
``<id>.text.json``  the editor text and device, rewritten on a timer
                    (milliseconds: no capture in it);
``<id>.gxsession``  the last capture as a session, written once per run.

A slot whose owner process is gone is an *orphan*: the next start offers each
one (its time and first lines) and a clean exit removes only its own slot.
Qt-free, so it is tested without a window.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from .session import SESSION_SUFFIX, Session, load_session, save_session, write_atomic

__all__ = ["AutosaveSlot", "Orphan", "find_orphans", "process_alive"]

_LOCK, _TEXT = ".lock", ".text.json"


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
            write_atomic(self._path(_LOCK), str(os.getpid()))
            self._made = True

    def write_text(self, code: str, device: str) -> None:
        """The editor text and device: cheap, for the timer. Raises OSError."""
        self._ensure()
        write_atomic(self.text_path, json.dumps({"code": code, "device": device, "saved_at": _now()}))

    def write_session(self, session: Session) -> None:
        """The capture of the last run (any thread: the session is plain data). Raises OSError, ValueError."""
        self._ensure()
        save_session(session, self.session_path)

    def remove(self) -> None:
        """A clean exit: this slot's files go, other instances' stay."""
        for suffix in (_TEXT, SESSION_SUFFIX, _LOCK):
            try:
                self._path(suffix).unlink()
            except OSError:
                pass
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
        return int(path.read_text())
    except (OSError, ValueError):
        return None


def find_orphans(data_dir: str | os.PathLike) -> list[Orphan]:
    """Every slot (newest first) whose owner is not running, including the single-file autosave of older versions."""
    data_dir = Path(data_dir)
    found = []
    folder = data_dir / "autosave"
    for lock in folder.glob(f"*{_LOCK}") if folder.is_dir() else ():
        slot_id = lock.name[: -len(_LOCK)]
        pid = _read_pid(lock)
        if pid is not None and pid != os.getpid() and process_alive(pid):
            continue
        if pid == os.getpid():
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

"""Crash recovery: the window's work autosaved to its slot, and orphaned slots offered back at start.

One slot per running instance (:mod:`gradexplorer.core.io.autosave`): a timer
writes the editor text and device (milliseconds), and the capture is written
once per run, in a background job, and only when it changed. A window that
did not close properly leaves its slot behind; the next start offers each
such slot's work back, newest first. A failing autosave is said, in the
console once per reason and in the status bar until it works again.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer

from ..core.io.autosave import AutosaveSlot, find_orphans
from ..core.io.files import SaveCancelled
from ..core.records.errors import DocumentError
from .language import translator_for
from .session_files import prepare_session

__all__ = ["AUTOSAVE_SECONDS", "AUTOSAVE_SETTLE_SECONDS", "CrashRecovery"]

_tr = translator_for(__name__)

#: How often the editor text is autosaved.
AUTOSAVE_SECONDS = 45
#: How long a capture's autosave waits before writing (the new picture's first paint goes first).
AUTOSAVE_SETTLE_SECONDS = 0.5


class CrashRecovery:
    """Keeps ``window``'s work in its autosave slot, and offers orphaned slots back.

    Parameters
    ----------
    window : MainWindow
        Its editor, device, capture on screen, console, status line, job
        runner and its ``ask_restore`` dialog are used; ``window.runs_started``
        tells a capture's autosave that a newer run superseded it.
    """

    def __init__(self, window) -> None:
        self.window = window
        #: This window's slot in the app's data folder.
        self.slot = AutosaveSlot(window.data_dir)
        self._problem: str | None = None
        self.timer = QTimer(window)
        self.timer.setInterval(AUTOSAVE_SECONDS * 1000)
        self.timer.timeout.connect(self.autosave_now)
        self.timer.start()

    def autosave_now(self) -> bool:
        """Write the editor text and device to this window's slot (every 45 s and before runs)."""
        window = self.window
        try:
            self.slot.write_text(window.editor.toPlainText(), window.device)
        except OSError as exc:
            self.show_problem(getattr(exc, "strerror", None) or str(exc))
            return False
        self.show_problem(None)
        return True

    def autosave_capture(self) -> None:
        """After a run: the new capture goes to the slot, off the GUI thread."""
        window = self.window
        if window.result is None:
            return
        session = window.files.current_session()  # plain data: safe to serialise in another thread
        slot = self.slot
        run = window.runs_started

        def superseded() -> bool:
            return window.runs_started != run  # an int read from the job's thread: no widget is touched

        def write() -> None:
            # Waiting releases the GIL: the new picture's first paint goes first. A run started meanwhile, or
            # while the file is written, supersedes this capture (its own autosave follows): the two shared the
            # interpreter and a second Run pressed right after a 10,000-node picture took twice as long.
            deadline = time.monotonic() + AUTOSAVE_SETTLE_SECONDS
            while time.monotonic() < deadline:
                if superseded():
                    return
                time.sleep(0.02)
            try:
                slot.write_session(session, should_stop=superseded)
            except SaveCancelled:
                pass

        window.jobs.start("autosave", write, on_errored=lambda message, exc: self.show_problem(
            (getattr(exc, "strerror", None) or str(exc)) if isinstance(exc, OSError) else message))

    def show_problem(self, why: str | None) -> None:
        """Say (once per reason, and in the status bar until it works again) that crash recovery is not writing.

        A failing autosave was silent: the user learnt that their work was
        unprotected only after the crash.
        """
        window = self.window
        if why is None:
            if self._problem is not None:
                self._problem = None
                window.autosave_label.setText("")
                window.autosave_label.setToolTip("")
            return
        if why != self._problem:
            window.console.append_message(_tr("Autosave failed: {why} (in {folder}). Your work is not protected "
                                              "against a crash until it works again: save it (Ctrl+S).").format(
                why=why, folder=self.slot.folder), error=True)
        self._problem = why
        window.autosave_label.setText(_tr("Autosave failed"))
        window.autosave_label.setToolTip(_tr("Autosave to {folder} failed: {why}").format(
            folder=self.slot.folder, why=why))

    def discard(self) -> None:
        """Remove this window's slot (a clean exit: nothing to recover), once the running jobs are done."""
        self.window.jobs.wait_all()
        self.slot.remove()

    def check_recovery(self) -> bool:
        """Offer each orphaned autosave (its owner process is gone), newest first; restore the one accepted."""
        window = self.window
        for orphan in find_orphans(window.data_dir):
            if not window.ask_restore(orphan.saved_at, orphan.preview):
                orphan.discard()
                continue
            try:  # a job: the autosaved capture may be a big one
                session, prepared = window.jobs.run_and_wait("recover", lambda o=orphan: prepare_session(o.session()))
            except DocumentError as exc:
                window.console.append_message(_tr("The autosaved capture could not be read ({exc}); restoring the "
                                                  "text.").format(exc=exc), error=True)
                session = prepared = None
            if session is not None and session.code == orphan.code:
                window.files.show_session(session, prepared)
            else:  # the text is newer than the last capture (or there was none)
                window.editor.setPlainText(orphan.code or (session.code if session is not None else ""))
                window.display.clear()
            if orphan.device:
                window.select_device(orphan.device)
            orphan.discard()
            window.files.session_path = None
            window.files.update_title()
            window.setWindowModified(True)
            self.autosave_now()  # it is this window's work now
            window.status.setText(_tr("Restored the autosaved work (not saved yet)"))
            return True
        return False

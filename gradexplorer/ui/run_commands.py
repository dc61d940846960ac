"""What the window does as a run goes: start it from the editor, say how it goes, show what it brings, end it.

:class:`RunCommands` is the window's side of a run (the worker side is
:class:`~gradexplorer.ui.run_controller.RunController`, ``window.runs``):
Run makes the :class:`~gradexplorer.ui.worker.CaptureJob` from the editor,
the device, the engine and the run settings; the controller's signals bring
the ticks, the first picture, the complete capture or the error, and the
end, which this shows through the window's
:class:`~gradexplorer.ui.capture_display.CaptureDisplay` and its status
line. Stop, a program that does not stop, and quitting while one runs are
handled here too; the dialogs that ask the user stay the window's.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer

from ..core.capture import process_state
from ..core.capture.script import ScriptRun, is_file_name
from ..core.isolated.engine import KILLED
from ..core.records.errors import CaptureStopped
from ..core.view.picture import CaptureResult
from .language import phrase_text, place_text, translator_for
from .worker import CaptureJob

__all__ = ["RunCommands"]

_tr = translator_for(__name__)


class RunCommands:
    """Runs ``window``'s program and shows what the run brings.

    Parameters
    ----------
    window : MainWindow
        Its run controller (``window.runs``), editor, console, status line,
        actions and combos, capture display and crash recovery are used; its
        ``run_finished`` signal is emitted at the end of each run.
    """

    def __init__(self, window) -> None:
        self.window = window
        #: GUI-thread seconds the last run's first picture took to show (picture first).
        self.first_picture_seconds = 0.0
        runs = window.runs
        runs.ticked.connect(self.on_ticked)
        runs.output.connect(window.console.append_output)
        runs.picture_ready.connect(self.on_picture_ready)
        runs.returned.connect(self.on_returned)
        runs.errored.connect(self.on_errored)
        runs.finished.connect(self.on_finished)
        runs.stuck.connect(self.on_stuck)
        runs.input_requested.connect(window.console_pane.ask)
        window.console_pane.input_entered.connect(runs.provide_input)

    def start_run(self, *, device: str | None = None) -> bool:
        """Run the editor's code in the worker thread; False if a run is already going."""
        window = self.window
        if window.runs.is_running:
            return False
        window.recovery.autosave_now()
        filename = window.program_filename
        limit_gb = window.settings.isolated_memory_gb
        # Taking old captures apart on this thread would slow the run; those still queued go with it (capture_retirer).
        backlog = tuple(window.retirer.hold())
        job = CaptureJob(window.editor.toPlainText(), device or window.device, filename,
                         isolated=window.engine_combo.currentData() == "isolated",
                         memory_limit=int(limit_gb * 2**30) if limit_gb > 0 else -1, run=window.run_settings,
                         picture_first=True, free_first=backlog)
        window.console.reset(filename, window.run_settings.project_folder(filename))
        window.console_pane.cancel()
        window.editor.set_error_line(None)
        self.set_running(True)
        window.runs_started += 1  # the previous capture's autosave gives way (CrashRecovery.autosave_capture)
        started = window.runs.start(job)
        if not started:
            for teardown in job.free_first:
                teardown.finish()
            window.retirer.resume()
        return started

    def stop_run(self) -> None:
        """Interrupt the running code (pure-Python loops stop at once), and threads a program left running."""
        window = self.window
        if not window.runs.is_running:
            self.stop_program_threads()
            return
        interrupted = window.runs.stop()
        if interrupted is True:
            window.status.setText(_tr("Stopping… (a running torch operation finishes first)"))
        elif interrupted is False:
            window.status.setText(_tr("Stopping… (cancelling the graph drawing)"))

    def stuck_reason(self, where: str) -> str:
        """The sentence for a program that keeps running after Stop: where it is, why, and what can be done."""
        at = _tr(" It is at {where}.").format(where=where) if where else ""
        return (_tr("The program does not stop.{at} It is either in a call that Python cannot interrupt from outside "
                    "(a sleep, a read from a terminal or a socket, a lock, a long native op) or it catches every Stop "
                    "(a bare `except:`). Stop keeps trying. You can wait, or quit gradexplorer (unsaved work is "
                    "offered for saving first). Programs like this stop at once in the isolated engine (the Engine "
                    "box: isolated process).").format(at=at))

    def on_stuck(self, where: str) -> None:
        window = self.window
        why = self.stuck_reason(where)
        window.console.append_message(why, error=True)
        window.status.setText(_tr("The program does not stop")
                              + (_tr(" ({where})").format(where=where) if where else ""))
        if window.ask_quit_stuck(why):
            self.quit_despite_run()

    def quit_despite_run(self, *, prompt: bool = True) -> bool:
        """End the app although the program's thread cannot be stopped; False if the user cancels the save prompt.

        Unsaved work is offered for saving, the settings are written and this
        window's autosave removed (a clean exit); then the process ends with
        ``os._exit``, since a thread stuck in the user's code can be neither
        joined nor destroyed (Qt aborts on a running QThread's destruction).
        """
        window = self.window
        if prompt and not window.files.maybe_save():
            return False
        window.recovery.timer.stop()
        window.retirer.finish_now()
        window.recovery.slot.remove()  # the work was saved or discarded: nothing to recover
        window.settings.geometry = window.saveGeometry()
        window.settings.window_state = window.saveState()
        window.settings.sync()
        print("gradexplorer: quitting while the program still runs (it did not stop)", file=sys.stderr, flush=True)
        window.exit_process(0)
        return True

    def set_memory_limit_with_dialog(self) -> None:
        window = self.window
        value = window.ask_memory_limit()
        if value is not None:
            window.settings.isolated_memory_gb = value
            window.status.setText(_tr("Isolated engine memory limit: ") +
                                  (_tr("{value:g} GiB").format(value=value) if value > 0
                                   else _tr("half of this machine's memory")))

    def stop_program_threads(self) -> list[str]:
        """Interrupt the threads earlier programs left running; the names of those that did not stop."""
        window = self.window
        stuck = process_state.interrupt_program_threads(CaptureStopped)
        if stuck:
            window.console.append_message(_tr("gradexplorer: these threads of your code did not stop (inside a long "
                                              "native call?): ") + ", ".join(stuck), error=True)
        else:
            window.console.append_message(_tr("gradexplorer: the threads your code left running were stopped"))
        self.set_running(False)
        return stuck

    def set_running(self, running: bool) -> None:
        window = self.window
        window.run_action.setEnabled(not running)
        # After a run, Stop stays on while threads the program started still run.
        window.stop_action.setEnabled(running or bool(process_state.program_threads()))
        window.device_combo.setEnabled(not running)
        window.engine_combo.setEnabled(not running)
        window.idle_collector.set_busy(running or window.jobs.busy)

    def on_ticked(self, seconds: float) -> None:
        self.window.status.setText(_tr("Running… {seconds:.1f} s").format(seconds=seconds))

    def on_picture_ready(self, result: CaptureResult) -> None:
        """A run's first picture: draw it now; the panes say what is still being computed (worker, "Picture first")."""
        window = self.window
        started = time.perf_counter()
        window.display.show_first_picture(result)
        self.first_picture_seconds = time.perf_counter() - started
        window.status.setText(_tr("Drawn in {ms:.0f} ms: {nodes} nodes; explaining…").format(
            ms=result.seconds * 1000, nodes=result.capture.graph.number_of_nodes()))
        # The build waits for this: the picture's first paint goes before it (a queued call runs after it).
        QTimer.singleShot(0, window.runs.picture_shown)

    def on_returned(self, result: CaptureResult) -> None:
        window = self.window
        cap = result.capture
        if cap.error is not None and (cap.error.kind == "crashed" or cap.error.exc_type == KILLED):
            # The isolated engine's process died or was killed: nothing to draw. The previous
            # capture stays on screen; the program's output has been shown as it came.
            window.console.append_message(cap.error.traceback or cap.error.message, error=True)
            window.editor.set_error_line(cap.error.program_line)
            if window.result is not None and not window.result.complete:
                kept = _tr(" (its first picture is shown; the rest was not computed)")
            else:
                kept = _tr(" (the previous capture is still shown)") if window.result is not None else ""
            said = _tr("Stopped") if cap.error.kind == "stopped" else phrase_text(cap.error.headline_phrase())
            window.status.setText(said + kept)
            return
        window.display.show_result(result)
        window.recovery.autosave_capture()
        # A run of unchanged code adds nothing that cannot be made again by
        # pressing Run: only edited code makes the session dirty (the editor's
        # modification flag does that).
        cap = result.capture
        if result.layout is None:
            window.status.setText(_tr("Stopped while drawing the graph (the capture itself is complete)"))
        elif cap.error is None:
            window.status.setText(_tr("Done in {ms:.0f} ms: {nodes} nodes, {count} backward pass(es)").format(
                ms=result.seconds * 1000, nodes=cap.graph.number_of_nodes(), count=len(cap.passes)))
        else:
            if cap.error.kind == "stopped":
                window.status.setText(_tr("Stopped at {where}").format(where=place_text(cap.error)) if cap.error.line
                                      else _tr("Stopped"))
            else:
                where = _tr(" at {where}").format(where=place_text(cap.error)) if cap.error.line is not None else ""
                window.status.setText(_tr("Error{where}: {exc_type}").format(where=where, exc_type=cap.error.exc_type))

    def on_errored(self, message: str) -> None:
        window = self.window
        window.console.append_message(message, error=True)
        window.status.setText(_tr("Stopped") if message == "Stopped." else _tr("Error: {message}").format(
            message=message.splitlines()[0]))

    def on_finished(self) -> None:
        window = self.window
        window.console_pane.cancel()
        if window.runs.release_interrupted:
            window.console.append_message(_tr("gradexplorer: the program's code still ran after it ended (a "
                                              "generator's `finally` or a `__del__`, run as its objects were freed); "
                                              "Stop ended it."), error=True)
        stopping = (_tr("Stopping… (a running torch operation finishes first)"),
                    _tr("Stopping… (cancelling the graph drawing)"), _tr("The program does not stop"))
        if window.runs.stop_requested and window.status.text().startswith(stopping):
            window.status.setText(_tr("Stopped"))
        if window.result is not None and not window.result.complete:  # drawn, then the run failed before explaining
            window.display.show_not_computed()
        self.set_running(False)
        window.retirer.resume()
        window.idle_collector.activity()
        window.run_finished.emit(window.result)

    def set_program(self, filename: str, run: ScriptRun) -> None:
        """The program's filename and run settings (from a script, a session, or none)."""
        window = self.window
        window.program_filename = filename or "<editor>"
        window.run_settings = run
        self.show_run_settings()
        window.files.update_title()

    def show_run_settings(self) -> None:
        """The status bar's note of how Run starts the program: ``python train.py --steps 2 (in proj/)``."""
        window = self.window
        filename = window.program_filename
        if not is_file_name(filename) and not window.run_settings.args and not window.run_settings.cwd:
            window.run_settings_label.setText("")
            window.run_settings_label.setToolTip("")
            return
        name = Path(filename).name if is_file_name(filename) else "<editor>"
        args = " ".join(shlex.quote(a) for a in window.run_settings.args)
        folder = window.run_settings.working_folder(filename)
        window.run_settings_label.setText(_tr("python {command}  (in {folder})").format(
            command=f"{name} {args}" if args else name, folder=Path(folder).name or folder))
        window.run_settings_label.setToolTip(_tr("Run starts the program as python {filename} {args}\nfrom {folder}\n"
                                                 "(Run > Arguments… and Run > Working Folder… change it)").format(
            filename=filename, args=args, folder=folder))

    def set_run_arguments(self, args) -> None:
        """The arguments the next Run gives the program (``sys.argv[1:]``); part of the session."""
        window = self.window
        args = tuple(str(a) for a in args)
        if args != tuple(window.run_settings.args):
            window.run_settings = dataclasses.replace(window.run_settings, args=args)
            window.setWindowModified(True)
        self.show_run_settings()

    def set_working_folder(self, folder: str | None) -> None:
        """The folder the next Run starts the program in (None: the script's own); part of the session."""
        window = self.window
        folder = str(Path(folder).resolve()) if folder else None
        if folder != window.run_settings.cwd:
            window.run_settings = dataclasses.replace(window.run_settings, cwd=folder)
            window.setWindowModified(True)
        self.show_run_settings()

    def set_run_arguments_with_dialog(self) -> None:
        window = self.window
        text = window.ask_run_arguments()
        if text is None:
            return
        try:
            args = shlex.split(text)
        except ValueError as exc:  # an unclosed quote: say so, keep the old arguments
            window.console.append_message(_tr("Arguments not changed: {exc} in {text!r}").format(
                exc=exc, text=text), error=True)
            return
        self.set_run_arguments(args)
        window.status.setText(_tr("Arguments: ") + (" ".join(shlex.quote(a) for a in args) or _tr("none")))

    def set_working_folder_with_dialog(self) -> None:
        window = self.window
        folder = window.ask_working_folder()
        if folder is not None:
            self.set_working_folder(folder)
            window.status.setText(_tr("The program runs in {folder}").format(folder=folder))

"""The main window: lays out the panes and composes the parts that do the work.

Layout: the editor above the console on the left, the graph in the middle,
the inspector docked on the right, tensors and modules tabbed at the bottom.

What is on screen is the core's view model (:class:`~gradexplorer.core.view.model.PictureModel`,
``window.view``); the work is done by the window's parts, one module each:
``window.picture`` (:mod:`.picture_actions`: what the user does to the
picture), ``window.files`` (:mod:`.session_files`: New, Open, Save, Export),
``window.recovery`` (:mod:`.crash_recovery`), ``window.display``
(:mod:`.capture_display`: a capture put on screen) and ``window.run_commands``
(:mod:`.run_commands`: a run from Run to its end). Runs go through
:class:`~gradexplorer.ui.run_controller.RunController` (the worker thread's
life, Stop, output) and long work on files and big graphs through
:class:`~gradexplorer.ui.jobs.JobRunner`; both hand plain data back on the
GUI thread, where only the window and its parts touch widgets. The dialogs
that ask the user are the window's methods, so that tests replace them.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from PySide6.QtCore import QSize, QStandardPaths, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.capture import process_state
from ..core.capture.devices import resolve_device
from ..core.capture.script import ScriptRun, read_script
from ..core.io.session import SESSION_SUFFIX
from ..core.isolated.engine import default_memory_limit
from ..core.records.errors import CaptureStopped, DeviceUnavailableError
from ..core.view.model import PictureModel
from ..core.view.picture import CaptureResult
from ..resources import read_example
from .capture_display import CaptureDisplay
from .capture_retirer import CaptureRetirer
from .comparison import ComparisonController
from .console import Console, ConsolePane
from .crash_recovery import CrashRecovery
from .editor import CodeEditor
from .gradient_flow_pane import GradientFlowPane
from .graph_navigator import GraphNavigator
from .graph_view import GraphView
from .idle_collector import IdleCollector
from .inspector import Inspector
from .jobs import JobRunner
from .language import LANGUAGES, N_, active_language, choose_language, error_text, translator_for
from .modules_pane import ModulesPane
from .picture_actions import PictureActions
from .plots_pane import PlotsPane
from .replay import ReplayController
from .run_commands import RunCommands
from .run_controller import STOP_GRACE_MS, RunController
from .session_files import SessionFiles
from .settings import Settings
from .source_tabs import SourceTabs
from .tensors_pane import TensorsPane
from .window_menus import setup_menus

__all__ = ["MainWindow"]

_tr = translator_for(__name__)
_WELCOME_HEADER = N_("""# Welcome to gradexplorer.
# Type PyTorch code (torch, nn and `device` are predefined), then press
# Ctrl+Enter or Run. The Examples menu has more; this is the first lesson.
""")


class MainWindow(QMainWindow):
    """The gradexplorer window.

    Signals
    -------
    run_finished(object)
        Emitted on the GUI thread after a run's result (or error) was shown;
        carries the :class:`CaptureResult` or None. Tests wait on it.
    """

    run_finished = Signal(object)

    def __init__(self, settings: Settings | None = None, *, data_dir: str | Path | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else Settings()
        if data_dir is None:
            data_dir = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
        self.data_dir = Path(data_dir)
        #: Frees captures that left the screen in short steps (see :meth:`_retire`).
        self.retirer = CaptureRetirer(self, busy=lambda: self.is_running or self.jobs.busy)
        #: What is on screen, and the rules of what to show next (Qt-free: ``core.view.model``).
        self.view = PictureModel(on_replaced=self._retire, on_graph_dropped=self.retirer.retire_graph)
        #: Puts captures on screen: picture, panes, figures (ui.capture_display).
        self.display = CaptureDisplay(self)
        #: Runs started in this window (a pending autosave of an older capture sees it change and gives up).
        self.runs_started = 0
        #: The program's compile filename: the script's path when it came from a file, else "<editor>".
        self.program_filename = "<editor>"
        #: How the next Run starts the program (Run > Arguments…, Run > Working Folder…); part of the session.
        self.run_settings = ScriptRun()

        self.editor = CodeEditor()
        self.sources = SourceTabs(self.editor)
        self.console = Console()
        self.console_pane = ConsolePane(self.console)
        self.graph_view = GraphView()
        self.inspector = Inspector()
        self.tensors_pane = TensorsPane()
        self.modules_pane = ModulesPane()
        self.gradient_flow_pane = GradientFlowPane()
        self.plots_pane = PlotsPane()

        self._lay_out_panes()

        setup_menus(self)
        #: Replay a backward pass node by node (its own toolbar, on a row of its own).
        self.replay = ReplayController(self)
        self.addToolBarBreak()
        self.addToolBar(self.replay.bar)
        #: File > Compare with Session (ui.comparison).
        self.comparison = ComparisonController(self)
        self.device_combo.currentIndexChanged.connect(self._on_device_combo_changed)
        self._make_status_bar()
        #: The capture runs: worker thread, Stop, ticks and the program's output.
        self.runs = RunController(self)
        self._connect_panes()

        self.editor.setPlainText(_tr(_WELCOME_HEADER) + read_example("03_next_functions", active_language()))
        self.editor.document().setModified(False)
        #: Which file the work belongs to, and the File menu's New, Open and Save (ui.session_files).
        self.files = SessionFiles(self)
        self.files.update_title()
        #: Every long job (save, open, export, autosave) runs here, off the GUI thread.
        self.jobs = JobRunner(self)
        #: The work autosaved to this window's slot; orphaned slots offered back (ui.crash_recovery).
        self.recovery = CrashRecovery(self)
        self.idle_collector = IdleCollector(QApplication.instance(), lambda: self.is_running or self.jobs.busy,
                                            parent=self)
        self.jobs.busy_changed.connect(self._on_jobs_busy_changed)
        self.resize(initial_size(QApplication.primaryScreen().availableGeometry()
                                 if QApplication.primaryScreen() is not None else None))
        if not self.settings.geometry.isEmpty():
            self.restoreGeometry(self.settings.geometry)
        if not self.settings.window_state.isEmpty():
            self.restoreState(self.settings.window_state)
        self.select_device(self.settings.last_device)
        self.run_commands.set_running(False)
        self.run_commands.show_run_settings()

    def _lay_out_panes(self) -> None:
        """The editor and console on the left, the graph in the middle, the inspector and the bottom tabs docked."""
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.sources)
        left.addWidget(self.console_pane)
        left.setSizes([520, 200])
        self.navigator = GraphNavigator()
        graph_area = QWidget()
        graph_column = QVBoxLayout(graph_area)
        graph_column.setContentsMargins(0, 0, 0, 0)
        graph_column.setSpacing(0)
        graph_column.addWidget(self.navigator)
        graph_column.addWidget(self.graph_view, 1)
        center = QSplitter(Qt.Orientation.Horizontal)
        center.addWidget(left)
        center.addWidget(graph_area)
        center.setSizes([480, 720])
        self.setCentralWidget(center)

        inspector_dock = QDockWidget(_tr("Inspector"), self)
        inspector_dock.setObjectName("inspector_dock")
        inspector_dock.setWidget(self.inspector)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, inspector_dock)
        self.inspector.setMinimumWidth(340)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.addTab(self.tensors_pane, _tr("Tensors"))
        self.bottom_tabs.addTab(self.modules_pane, _tr("Modules"))
        self.bottom_tabs.addTab(self.gradient_flow_pane, _tr("Gradient flow"))
        self.bottom_tabs.addTab(self.plots_pane, _tr("Plots"))
        bottom_dock = QDockWidget(_tr("Tensors and modules"), self)
        bottom_dock.setObjectName("bottom_dock")
        bottom_dock.setWidget(self.bottom_tabs)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, bottom_dock)
        self.resizeDocks([inspector_dock], [420], Qt.Orientation.Horizontal)
        self.resizeDocks([bottom_dock], [190], Qt.Orientation.Vertical)

    def _make_status_bar(self) -> None:
        """The run status, how the program runs (arguments, folder) and an autosave problem, if any."""
        self.status = QLabel(_tr("Idle"))
        self.status.setAccessibleName(_tr("Run status"))
        self.statusBar().addWidget(self.status, 1)
        self.run_settings_label = QLabel("")
        self.run_settings_label.setAccessibleName(_tr("How the program runs"))
        self.statusBar().addPermanentWidget(self.run_settings_label)
        #: Says "Autosave failed" while crash recovery cannot write (see CrashRecovery.show_problem).
        self.autosave_label = QLabel("")
        self.autosave_label.setStyleSheet("color: #d73a49")
        self.statusBar().addPermanentWidget(self.autosave_label)

    def _connect_panes(self) -> None:
        """The runs' signals to the window, and the panes to each other (clicks that show nodes and lines)."""
        #: The window's side of each run: start, progress, first picture, result, end (ui.run_commands).
        self.run_commands = RunCommands(self)
        #: What the user does to the picture (clicks, boxes, depth, passes, Find, filters, colours).
        self.picture = PictureActions(self)
        self.inspector.source_requested.connect(self.show_source)
        self.console.line_requested.connect(self.show_source)
        self.tensors_pane.line_requested.connect(self.show_source)

    # -- the capture on screen -----------------------------------------------------------
    @property
    def result(self) -> CaptureResult | None:
        """What is on screen: the last run's or the opened session's capture, laid out (``self.view.result``)."""
        return self.view.result

    @result.setter
    def result(self, value: CaptureResult | None) -> None:
        self.view.result = value

    def _retire(self, old: CaptureResult) -> None:
        """The view model's ``on_replaced``: the capture that left the screen is freed in steps between events.

        Dropped at once, a 50,000-node capture froze the window for 0.2-0.4 s.
        A run's first picture shares its graph with the complete capture that
        replaces it: the model does not call this for it (retired, that small
        record would wait for the shared graph forever and keep it from ever
        being freed).
        """
        holder = [old.capture]
        del old
        self.retirer.retire(holder)

    # -- device ------------------------------------------------------------------------
    @property
    def device(self) -> str:
        return self.device_combo.currentData() or "cpu"

    def select_device(self, name: str) -> bool:
        """Pick ``name`` in the device list; if it is not available here, say why and use cpu."""
        try:
            resolved = str(resolve_device(name))
        except DeviceUnavailableError as exc:
            self.console.append_message(error_text(exc), error=True)
            self.status.setText(_tr("Device {name} is not available; using cpu").format(name=name))
            resolved = "cpu"
        index = self.device_combo.findData(resolved)
        self.device_combo.setCurrentIndex(max(index, 0))
        return resolved == name or (name == "cuda" and resolved == "cuda:0")

    def _on_device_combo_changed(self, _index: int) -> None:
        self.settings.last_device = self.device

    # -- files and sessions ---------------------------------------------------------------


    def ask_unsaved_changes(self) -> str:
        """Ask what to do with unsaved work: "save", "discard" or "cancel" (tests replace it)."""
        box = QMessageBox(QMessageBox.Icon.Question, _tr("Unsaved changes"),
                          _tr("This session has unsaved changes. Save them first?"),
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            QMessageBox.StandardButton(answer), "cancel")


    def ask_session_save_path(self) -> str:
        """The save dialog (a method, so tests can replace it)."""
        path, _ = QFileDialog.getSaveFileName(self, _tr("Save session"), "",
                                              _tr("gradexplorer sessions (*{suffix})").format(suffix=SESSION_SUFFIX))
        if path and not path.endswith(SESSION_SUFFIX):
            path += SESSION_SUFFIX
        return path


    def ask_open_path(self) -> str:
        """The file dialog (a method, so tests can replace it)."""
        path, _ = QFileDialog.getOpenFileName(
            self, _tr("Open"), "", _tr("Sessions and scripts (*{suffix} *.py *.json);;All files (*)").format(
                suffix=SESSION_SUFFIX))
        return path

    def ask_export_path(self, kind: str) -> str:
        """The export dialog (a method, so tests can replace it)."""
        filters = {"script": _tr("Python (*.py)"), "dot": _tr("DOT (*.dot)"), "graphml": _tr("GraphML (*.graphml)"),
                   "json": _tr("JSON (*.json)"), "png": _tr("PNG image (*.png)"), "svg": _tr("SVG image (*.svg)")}
        path, _ = QFileDialog.getSaveFileName(self, _tr("Export"), "", filters[kind])
        return path


    def ask_export_scale(self) -> float | None:
        """The PNG resolution dialog (a method, so tests can replace it); None when cancelled."""
        from PySide6.QtWidgets import QInputDialog

        choices = [_tr("1× (screen size)"), _tr("2× (sharp on high-DPI screens and slides)"), _tr("4× (print)")]
        choice, ok = QInputDialog.getItem(self, _tr("PNG resolution"), _tr("Pixels per unit of the drawing:"), choices,
                                          1, False)
        return float(choice[0]) if ok else None


    # -- autosave and recovery -----------------------------------------------------------


    def ask_restore(self, saved_at: str, preview: str) -> bool:
        """Offer to restore one orphaned slot's work after a crash (tests replace it)."""
        answer = QMessageBox.question(
            self, _tr("Restore unsaved work?"),
            _tr("A gradexplorer window did not close properly. Restore the work it autosaved at "
                "{value}?\n\n{preview}").format(
                value=saved_at or _tr("an unknown time"), preview=preview))
        return answer == QMessageBox.StandardButton.Yes


    # -- how the program runs: arguments, working folder ---------------------------------


    def ask_run_arguments(self) -> str | None:
        """The arguments dialog (a method, so tests can replace it); None when cancelled."""
        from PySide6.QtWidgets import QInputDialog

        text, ok = QInputDialog.getText(
            self, _tr("Arguments"), _tr("What follows python SCRIPT on the command line (quoted as in a shell):"),
            text=" ".join(shlex.quote(a) for a in self.run_settings.args))
        return text if ok else None


    def ask_working_folder(self) -> str | None:
        """The working-folder dialog (a method, so tests can replace it); None when cancelled."""
        folder = QFileDialog.getExistingDirectory(self, _tr("Working folder"),
                                                  self.run_settings.working_folder(self.program_filename))
        return folder or None


    # -- the user's source: the program, and the project's other files ------------------------
    def show_source(self, file: str, line: int) -> None:
        """Show a line of the user's code: in the editor (``file`` ""), else the project file in a read-only tab.

        The file's text is the one the capture kept (what ran), else the file
        on disk under the project folder.
        """
        if not file:
            self.sources.show_program(line)
            return
        cap = self.result.capture if self.result is not None else None
        text = cap.files.get(file) if cap is not None else None
        if text is None:
            root = cap.root if cap is not None and cap.root else self.run_settings.project_folder(self.program_filename)
            path = Path(root) / file
            try:
                text = read_script(path)
            except OSError as exc:
                self.console.append_message(_tr("Cannot show {file}: {exc}").format(file=file, exc=exc), error=True)
                return
        self.sources.show_file(file, text, line)
        self.status.setText(_tr("{file}, line {line}").format(file=file, line=line))

    # -- running ---------------------------------------------------------------------------
    @property
    def is_running(self) -> bool:
        return self.runs.is_running

    def start_run(self, *, device: str | None = None) -> bool:
        """Run the editor's code (Run); False if a run is already going (:meth:`RunCommands.start_run`)."""
        return self.run_commands.start_run(device=device)

    def stop_run(self) -> None:
        """Stop the running code, or the threads a program left running (Stop; :meth:`RunCommands.stop_run`)."""
        self.run_commands.stop_run()


    def ask_quit_stuck(self, why: str) -> bool:
        """Offer to quit the app while a program that does not stop runs (tests replace it); True: quit."""
        box = QMessageBox(QMessageBox.Icon.Warning, _tr("The program does not stop"), why, parent=self)
        quit_button = box.addButton(_tr("Quit gradexplorer"), QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(_tr("Keep waiting"), QMessageBox.ButtonRole.RejectRole)
        box.exec()
        return box.clickedButton() is quit_button


    def exit_process(self, code: int) -> None:
        """End the process now (tests replace it)."""
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    def ask_memory_limit(self) -> float | None:
        """The isolated engine's memory limit dialog, in GiB (0: half of this machine's); None when cancelled."""
        from PySide6.QtWidgets import QInputDialog

        total = (default_memory_limit() or 0) * 2 / 2**30
        value, ok = QInputDialog.getDouble(
            self, _tr("Isolated engine memory limit"),
            _tr("GiB the isolated process may allocate (this machine has {total:.0f} GiB;\n0 = half of it). A bigger "
                "allocation fails with an out-of-memory error at its line.").format(total=total),
            self.settings.isolated_memory_gb, 0.0, 4096.0, 1)
        return value if ok else None


    def _on_jobs_busy_changed(self, busy: bool) -> None:
        self.idle_collector.set_busy(busy or self.is_running)


    def about_text(self) -> str:
        """What Help > About says: the versions this window runs with."""
        import platform

        import networkx
        import PySide6
        import torch

        from .._version import __version__

        return (_tr("gradexplorer {version}\nShows what PyTorch autograd really does with your code.\n\n")
                .format(version=__version__)
                + f"PyTorch {torch.__version__}\nPython {platform.python_version()}\n"
                  f"Qt {PySide6.QtCore.qVersion()} (PySide6 {PySide6.__version__})\nnetworkx {networkx.__version__}")

    def set_language(self, code: str) -> None:
        """View > Language: keep ``code`` (``""``: the system's) for the next start; the window's texts were set
        when it was built, so the status bar says when it applies (no dialog to dismiss)."""
        self.settings.language = code
        self.settings.sync()
        chosen = choose_language(code)
        if chosen == active_language():
            self.status.setText(_tr("Language: {language}").format(language=LANGUAGES[chosen]))
        else:
            self.status.setText(_tr("Language: {language} from the next start of gradexplorer").format(
                language=LANGUAGES[chosen]))

    def show_about(self) -> None:
        QMessageBox.about(self, _tr("About gradexplorer"), self.about_text())


    # -- closing ---------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        if not self.files.maybe_save():
            event.ignore()
            return
        if self.runs.is_running:
            if not self.runs.stop_and_wait(STOP_GRACE_MS):
                # The program does not stop (a call Python cannot interrupt, or
                # it catches every Stop): destroying the window now would
                # destroy a running QThread and abort the process, and hiding
                # to wait for it once left a process that never ended. Say why
                # and let the user choose: quit now, or keep the window.
                why = self.run_commands.stuck_reason(self.runs.blocked_at())
                self.console.append_message(why, error=True)
                event.ignore()
                if self.ask_quit_stuck(why):
                    self.run_commands.quit_despite_run(prompt=False)  # the unsaved-work prompt was answered above
                return
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop a running capture and the threads programs left, drop the autosave, save the window layout."""
        if self.runs.is_running:
            self.run_commands.stop_run()
            self.runs.wait(timeout_ms)
        if process_state.program_threads():  # a non-daemon one would keep the process from exiting
            process_state.interrupt_program_threads(CaptureStopped)
        self.recovery.timer.stop()
        self.idle_collector.close()
        self.retirer.finish_now()
        self.recovery.discard()  # a clean exit: nothing to recover
        self.settings.geometry = self.saveGeometry()
        self.settings.window_state = self.saveState()
        self.settings.sync()


def initial_size(available) -> QSize:
    """The window's size at its first start: 90% of the screen's free area (1400x900 without a screen).

    On a 1366x768 laptop screen the old fixed 1400x900 put the status bar and
    the inspector's Copy button off-screen. Later starts restore the size
    the user left (``Settings.geometry``).
    """
    if available is None or available.width() <= 0 or available.height() <= 0:
        return QSize(1400, 900)
    return QSize(int(available.width() * 0.9), int(available.height() * 0.9))

"""The main window: composes the panes and owns the run controller.

Layout: the editor above the console on the left, the graph in the middle,
the inspector docked on the right, tensors and modules tabbed at the bottom.

The controller keeps the ``QThread`` and its :class:`CaptureWorker` as
attributes until the thread has finished (dropping them earlier is the
classic "QThread: Destroyed while thread is still running" crash). The worker
talks to the window only through queued signals carrying plain data; widgets
are touched only here, on the GUI thread.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QThread, QTimer, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QSplitter,
    QTabWidget,
    QWidget,
)

from ..core.devices import list_devices, resolve_device
from ..core.errors import DeviceUnavailableError
from ..resources import example_paths
from .console import Console
from .editor import CodeEditor
from .graph_view import GraphView
from .inspector import Inspector
from .modules_pane import ModulesPane
from .settings import Settings
from .tensors_pane import TensorsPane
from .worker import CaptureJob, CaptureResult, CaptureWorker

__all__ = ["MainWindow"]

_WELCOME = """# Welcome to gradexplorer.
# Type PyTorch code (torch, nn and `device` are predefined), then press
# Ctrl+Enter or Run. Pick an example from the Examples menu to start.
a = torch.tensor(1.1, requires_grad=True)
b = torch.tensor(1.2, requires_grad=True)
c = torch.tensor(1.3, requires_grad=True)
d = a * b
e = d * c
e.backward()
"""


class MainWindow(QMainWindow):
    """The gradexplorer window.

    Signals
    -------
    run_finished(object)
        Emitted on the GUI thread after a run's result (or error) was shown;
        carries the :class:`CaptureResult` or None. Tests wait on it.
    """

    run_finished = Signal(object)

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else Settings()
        self.setWindowTitle("gradexplorer")
        self.result: CaptureResult | None = None
        self.last_gui_seconds = 0.0
        self._thread: QThread | None = None
        self._worker: CaptureWorker | None = None
        self._script_path: Path | None = None
        self._stop_requested = False

        self.editor = CodeEditor()
        self.console = Console()
        self.graph_view = GraphView()
        self.inspector = Inspector()
        self.tensors_pane = TensorsPane()
        self.modules_pane = ModulesPane()

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.editor)
        left.addWidget(self.console)
        left.setSizes([520, 200])
        center = QSplitter(Qt.Orientation.Horizontal)
        center.addWidget(left)
        center.addWidget(self.graph_view)
        center.setSizes([480, 720])
        self.setCentralWidget(center)

        inspector_dock = QDockWidget("Inspector", self)
        inspector_dock.setObjectName("inspector_dock")
        inspector_dock.setWidget(self.inspector)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, inspector_dock)
        self.inspector.setMinimumWidth(340)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.addTab(self.tensors_pane, "Tensors")
        self.bottom_tabs.addTab(self.modules_pane, "Modules")
        bottom_dock = QDockWidget("Tensors and modules", self)
        bottom_dock.setObjectName("bottom_dock")
        bottom_dock.setWidget(self.bottom_tabs)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, bottom_dock)
        self.resizeDocks([inspector_dock], [420], Qt.Orientation.Horizontal)
        self.resizeDocks([bottom_dock], [190], Qt.Orientation.Vertical)

        self._build_actions()
        self._build_menus_and_toolbar()
        self.status = QLabel("Idle")
        self.status.setAccessibleName("Run status")
        self.statusBar().addWidget(self.status, 1)
        self._elapsed = QElapsedTimer()
        self._tick = QTimer(self)
        self._tick.setInterval(100)
        self._tick.timeout.connect(self._on_tick_timeout)

        self.graph_view.node_selected.connect(self._on_graph_view_node_selected)
        self.editor.line_activated.connect(self._on_editor_line_activated)
        self.inspector.source_requested.connect(self.editor.go_to_line)
        self.console.line_requested.connect(self.editor.go_to_line)
        self.tensors_pane.node_requested.connect(self._on_tensors_pane_node_requested)
        self.tensors_pane.line_requested.connect(self.editor.go_to_line)

        self.editor.setPlainText(_WELCOME)
        self.resize(1400, 900)
        if not self.settings.geometry.isEmpty():
            self.restoreGeometry(self.settings.geometry)
        if not self.settings.window_state.isEmpty():
            self.restoreState(self.settings.window_state)
        self.select_device(self.settings.last_device)
        self._set_running(False)

    # -- construction ----------------------------------------------------------------
    def _build_actions(self) -> None:
        self.run_action = QAction("Run", self)
        self.run_action.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.run_action.setToolTip("Run the code and capture its autograd graph (Ctrl+Enter)")
        self.run_action.triggered.connect(self._on_run_action_triggered)
        self.stop_action = QAction("Stop", self)
        self.stop_action.setShortcut(QKeySequence("Ctrl+."))
        self.stop_action.setToolTip("Stop the running code (Ctrl+.)")
        self.stop_action.triggered.connect(self.stop_run)
        self.open_action = QAction("Open Script…", self)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_action.triggered.connect(self._on_open_action_triggered)
        self.save_as_action = QAction("Save Script As…", self)
        self.save_as_action.setShortcut(QKeySequence.StandardKey.SaveAs)
        self.save_as_action.triggered.connect(self._on_save_as_action_triggered)
        self.quit_action = QAction("Quit", self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.zoom_in_action = QAction("Zoom In", self)
        self.zoom_in_action.setShortcut(QKeySequence.StandardKey.ZoomIn)
        self.zoom_in_action.triggered.connect(lambda: self.graph_view.zoom_by(1.25))
        self.zoom_out_action = QAction("Zoom Out", self)
        self.zoom_out_action.setShortcut(QKeySequence.StandardKey.ZoomOut)
        self.zoom_out_action.triggered.connect(lambda: self.graph_view.zoom_by(0.8))
        self.fit_action = QAction("Fit Graph", self)
        self.fit_action.setShortcut(QKeySequence("Ctrl+0"))
        self.fit_action.triggered.connect(self.graph_view.fit)

    def _build_menus_and_toolbar(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addAction(self.open_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self.examples_menu = menu.addMenu("&Examples")
        self.example_actions: dict[str, QAction] = {}
        for path in example_paths():
            action = self.examples_menu.addAction(path.stem.replace("_", " "))
            action.setData(str(path))
            action.triggered.connect(lambda _checked=False, p=path: self.load_example(p))
            self.example_actions[path.stem] = action
        run_menu = menu.addMenu("&Run")
        run_menu.addAction(self.run_action)
        run_menu.addAction(self.stop_action)
        view_menu = menu.addMenu("&View")
        for action in (self.zoom_in_action, self.zoom_out_action, self.fit_action):
            view_menu.addAction(action)

        toolbar = self.addToolBar("Run")
        toolbar.setObjectName("run_toolbar")
        toolbar.addAction(self.run_action)
        toolbar.addAction(self.stop_action)
        toolbar.addSeparator()
        device_label = QLabel(" Device: ")
        toolbar.addWidget(device_label)
        self.device_combo = QComboBox()
        self.device_combo.setAccessibleName("Device")
        self.device_combo.setToolTip("Where the code runs; unavailable devices say why")
        model = QStandardItemModel(self.device_combo)
        self.device_combo.setModel(model)
        for info in list_devices():
            self.device_combo.addItem(info.label, info.name)
            item = model.item(self.device_combo.count() - 1)
            if not info.available:
                item.setEnabled(False)
                item.setToolTip(info.reason)
                item.setText(f"{info.label} (unavailable)")
        device_label.setBuddy(self.device_combo)
        self.device_combo.currentIndexChanged.connect(self._on_device_combo_changed)
        toolbar.addWidget(self.device_combo)
        toolbar.addSeparator()
        for action in (self.zoom_in_action, self.zoom_out_action, self.fit_action):
            toolbar.addAction(action)
        spacer = QWidget()
        toolbar.addWidget(spacer)

    # -- device ------------------------------------------------------------------------
    @property
    def device(self) -> str:
        return self.device_combo.currentData() or "cpu"

    def select_device(self, name: str) -> bool:
        """Pick ``name`` in the device list; if it is not available here, say why and use cpu."""
        try:
            resolved = str(resolve_device(name))
        except DeviceUnavailableError as exc:
            self.console.append_message(str(exc), error=True)
            self.status.setText(f"Device {name} is not available; using cpu")
            resolved = "cpu"
        index = self.device_combo.findData(resolved)
        self.device_combo.setCurrentIndex(max(index, 0))
        return resolved == name or (name == "cuda" and resolved == "cuda:0")

    def _on_device_combo_changed(self, _index: int) -> None:
        self.settings.last_device = self.device

    # -- files ---------------------------------------------------------------------------
    def open_path(self, path: Path) -> bool:
        """Load a script into the editor (nothing runs); False with a message on failure."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            self.console.append_message(f"Cannot open {path}: {reason}", error=True)
            self.status.setText(f"Cannot open {Path(path).name}")
            return False
        self.editor.setPlainText(text)
        self.editor.set_error_line(None)
        self._script_path = Path(path)
        self.setWindowTitle(f"{Path(path).name} - gradexplorer")
        self.settings.add_recent_file(str(path))
        self.status.setText(f"Opened {Path(path).name}: press Run")
        return True

    def load_example(self, path: Path) -> None:
        """Put an example into the editor (it runs when the user presses Run)."""
        self.open_path(path)

    def ask_open_path(self) -> str:
        """The file dialog (a method, so tests can replace it)."""
        path, _ = QFileDialog.getOpenFileName(self, "Open script", "", "Python files (*.py);;All files (*)")
        return path

    def ask_save_path(self) -> str:
        path, _ = QFileDialog.getSaveFileName(self, "Save script", "", "Python files (*.py)")
        return path

    def _on_open_action_triggered(self) -> None:
        path = self.ask_open_path()
        if path:
            self.open_path(Path(path))

    def _on_save_as_action_triggered(self) -> None:
        path = self.ask_save_path()
        if not path:
            return
        target = Path(path)
        tmp = target.with_name(f".{target.name}.tmp")
        try:
            tmp.write_text(self.editor.toPlainText(), encoding="utf-8")
            tmp.replace(target)
        except OSError as exc:
            self.console.append_message(f"Cannot save {target}: {exc.strerror or exc}", error=True)
            return
        self._script_path = target
        self.setWindowTitle(f"{target.name} - gradexplorer")
        self.status.setText(f"Saved {target.name}")

    # -- running ---------------------------------------------------------------------------
    @property
    def is_running(self) -> bool:
        return self._thread is not None

    def start_run(self, *, device: str | None = None) -> bool:
        """Run the editor's code in the worker thread; False if a run is already going."""
        if self._thread is not None:
            return False
        filename = "<editor>"
        job = CaptureJob(self.editor.toPlainText(), device or self.device, filename)
        self.console.reset(filename)
        self.editor.set_error_line(None)
        self._stop_requested = False
        thread = QThread(self)
        worker = CaptureWorker(job)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progressed.connect(self._on_worker_progressed)
        worker.returned.connect(self._on_worker_returned)
        worker.errored.connect(self._on_worker_errored)
        worker.finished.connect(thread.quit)
        thread.finished.connect(self._on_thread_finished)
        self._thread, self._worker = thread, worker
        self._set_running(True)
        self._elapsed.start()
        self._tick.start()
        self._on_tick_timeout()
        thread.start()
        return True

    def stop_run(self) -> None:
        """Interrupt the running code (pure-Python loops stop at once)."""
        if self._worker is None:
            return
        self._stop_requested = True
        if self._worker.request_stop():
            self.status.setText("Stopping… (a running torch operation finishes first)")
        else:
            self.status.setText("Stopping… (building the graph; it will be shown)")

    def _set_running(self, running: bool) -> None:
        self.run_action.setEnabled(not running)
        self.stop_action.setEnabled(running)
        self.device_combo.setEnabled(not running)

    def _on_tick_timeout(self) -> None:
        if self._thread is not None and not self._stop_requested:
            self.status.setText(f"Running… {self._elapsed.elapsed() / 1000:.1f} s")

    def _on_run_action_triggered(self) -> None:
        self.start_run()

    def _on_worker_progressed(self, stream: str, text: str) -> None:
        self.console.append_output(stream, text)

    def _on_worker_returned(self, result: CaptureResult) -> None:
        started = time.perf_counter()
        cap = result.capture
        self.result = result
        self.graph_view.show_graph(cap.graph, result.layout, passes_ran=bool(cap.passes))
        self.inspector.show_node(None, None)
        self.tensors_pane.show_explanations(cap.explanations)
        self.modules_pane.show_audits(cap.modules)
        self.last_gui_seconds = time.perf_counter() - started
        if cap.error is None:
            self.status.setText(f"Done in {result.seconds * 1000:.0f} ms: {cap.graph.number_of_nodes()} nodes, "
                                f"{len(cap.passes)} backward pass(es)")
        else:
            self.console.append_message(cap.error.traceback, error=True)
            if cap.error.line is not None:
                self.editor.set_error_line(cap.error.line)
            if cap.error.kind == "stopped":
                self.status.setText(f"Stopped at line {cap.error.line}" if cap.error.line else "Stopped")
            else:
                where = f" at line {cap.error.line}" if cap.error.line is not None else ""
                self.status.setText(f"Error{where}: {cap.error.exc_type}")

    def _on_worker_errored(self, message: str) -> None:
        self.console.append_message(message, error=True)
        self.status.setText("Stopped" if message == "Stopped." else f"Error: {message.splitlines()[0]}")

    def _on_thread_finished(self) -> None:
        self._tick.stop()
        thread, self._thread = self._thread, None
        self._worker = None
        if thread is not None:
            thread.deleteLater()
        self._set_running(False)
        self.run_finished.emit(self.result)

    # -- cross-pane navigation -----------------------------------------------------------
    def _on_graph_view_node_selected(self, node_id: str) -> None:
        if not node_id or self.result is None:
            self.inspector.show_node(None, None)
            return
        cap = self.result.capture
        self.inspector.show_node(node_id, cap.graph.nodes[node_id], cap.passes)

    def _on_editor_line_activated(self, line: int) -> None:
        if self.result is None:
            return
        ids = [n for n, source in self.result.capture.graph.nodes(data="source")
               if source is not None and source.line == line]
        if ids:
            self.graph_view.select_nodes(ids)

    def _on_tensors_pane_node_requested(self, node_id: str) -> None:
        self.graph_view.select_node(node_id)

    # -- closing ---------------------------------------------------------------------------
    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop a running capture, wait for its thread, save the window layout."""
        if self._thread is not None:
            self.stop_run()
            self._thread.quit()
            self._thread.wait(timeout_ms)
        self.settings.geometry = self.saveGeometry()
        self.settings.window_state = self.saveState()
        self.settings.sync()

"""Sessions and scripts in and out of the window: New, Open, Save, Save As, Export, recent files, the title.

:class:`SessionFiles` owns which file the window's work belongs to (the
session's path, or the script's) and carries out the File menu's commands
on the window's widgets. Reading a session and laying it out, and writing
one, run in jobs off the GUI thread; an Open either completes or leaves the
window exactly as it was. The dialogs that ask the user (unsaved changes,
where to save, what to open) stay methods of the window, so that tests
replace them there.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..core.analysis.grouping import GROUP_PREFIX
from ..core.analysis.modules import audit_rows
from ..core.analysis.passes import default_pass
from ..core.capture.run import versions
from ..core.capture.script import ScriptRun, is_file_name, read_script
from ..core.collector import freeze_survivors
from ..core.io import export
from ..core.io.files import not_a_regular_file, write_atomic
from ..core.io.session import SESSION_SUFFIX, Session, ViewState, load_session, save_session
from ..core.records.capture import Capture
from ..core.records.errors import DocumentError
from ..core.records.nodes import CaptureGraph
from ..core.view.picture import CaptureResult, flow_of, pass_view
from .language import error_text, phrase_text, translator_for

__all__ = ["EXPORT_SUFFIXES", "SessionFiles", "prepare_session"]

_tr = translator_for(__name__)

#: The extension each export kind gets when the chosen name has none.
EXPORT_SUFFIXES = {"script": ".py", "dot": ".dot", "graphml": ".graphml", "json": ".json", "png": ".png",
                   "svg": ".svg"}


class SessionFiles:
    """The File menu's work on ``window``: which file the work belongs to, opening and saving it.

    Parameters
    ----------
    window : MainWindow
        Its editor, console, source tabs, panes, status line, settings and
        job runner are used, and its dialogs ask the user.
    """

    def __init__(self, window) -> None:
        self.window = window
        #: The session file the work was opened from or saved to, else None.
        self.session_path: Path | None = None
        #: The script the work was opened from (File > Open of a .py), else None.
        self.script_path: Path | None = None
        #: The session file an Open is reading (its job runs), else None.
        self._opening: Path | None = None
        window.recent_menu.aboutToShow.connect(self._rebuild_recent_menu)
        window.editor.document().modificationChanged.connect(self._on_document_modification_changed)

    def update_title(self) -> None:
        window = self.window
        name = self.session_path.name if self.session_path is not None else (
            self.script_path.name if self.script_path is not None else _tr("untitled"))
        window.setWindowTitle(f"{name}[*] - gradexplorer")
        program = window.program_filename
        window.sources.set_program_title(Path(program).name if is_file_name(program)
                                         else (self.script_path.name if self.script_path is not None
                                               else _tr("untitled")))

    def _on_document_modification_changed(self, changed: bool) -> None:
        if changed:
            self.window.setWindowModified(True)

    def mark_clean(self) -> None:
        window = self.window
        window.editor.document().setModified(False)
        window.setWindowModified(False)

    def maybe_save(self) -> bool:
        """True when it is fine to replace the current work (saved, discarded, or clean)."""
        window = self.window
        if not window.isWindowModified():
            return True
        answer = window.ask_unsaved_changes()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new_session(self) -> bool:
        """An empty editor and no capture (after the unsaved-changes prompt)."""
        window = self.window
        if not self.maybe_save():
            return False
        window.editor.setPlainText("")
        window.display.clear()
        self.session_path = None
        self.script_path = None
        window.run_commands.set_program("<editor>", ScriptRun())
        self.mark_clean()
        self.update_title()
        window.status.setText(_tr("New session"))
        return True

    def open_path(self, path: Path, *, prompt: bool = True, as_script: bool = True) -> bool:
        """Open a session (shown at once, nothing runs) or a script; False with a message on failure.

        A script runs as ``python SCRIPT`` would, from its own folder (the
        Run menu sets arguments and another folder); ``as_script=False`` puts
        its text into the editor as untitled code (the bundled examples).
        """
        window = self.window
        path = Path(path)
        if path.suffix in (SESSION_SUFFIX, ".json"):
            return self.open_session(path, prompt=prompt)
        try:
            problem = not_a_regular_file(path.stat())
            if problem:  # a FIFO would block the GUI thread forever
                raise OSError(_tr("it is {problem}, not a Python file").format(problem=problem))
            text = read_script(path)  # its coding line honoured, as Python does
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            window.console.append_message(_tr("Cannot open {path}: {reason}").format(
                path=path, reason=reason), error=True)
            window.status.setText(_tr("Cannot open {name}").format(name=path.name))
            return False
        if prompt and not self.maybe_save():
            return False
        window.editor.setPlainText(text)
        window.display.clear()
        self.script_path = path
        window.run_commands.set_program(str(path.resolve()) if as_script else "<editor>", ScriptRun())
        self.session_path = None
        self.mark_clean()
        self.update_title()
        window.settings.add_recent_file(str(path))
        window.status.setText(_tr("Opened {name}: press Run").format(name=path.name))
        return True

    def open_session(self, path: Path, *, prompt: bool = True) -> bool:
        """Show a saved session: code in the editor, graph and values as saved. Runs nothing.

        Reading the file and laying out its graph run in a job: the window
        keeps answering while a big session opens. An Open either completes
        or leaves the window exactly as it was (code, title, save path,
        picture, console): a session that fails half-way through showing
        once left the new code under the old file's name, and Ctrl+S then
        overwrote that file with it. While one Open reads its file, the Open
        actions are off and another Open is refused with a message (the
        older one would otherwise finish last and replace the newer).
        """
        window = self.window
        path = Path(path)
        if self._opening is not None:
            window.status.setText(_tr("Still opening {name}: {name2} was not opened").format(
                name=self._opening.name, name2=path.name))
            window.console.append_message(_tr("Cannot open {name} now: {name2} is still being opened.").format(
                name=path.name, name2=self._opening.name), error=True)
            return False
        window.status.setText(_tr("Opening {name}…").format(name=path.name))
        self._set_opening(path)
        try:
            session, prepared = window.jobs.run_and_wait("open", lambda: _read_and_prepare(path))
        except Exception as exc:  # noqa: BLE001 - any failure is a message; the current work stays as it is
            why = error_text(exc) if isinstance(exc, DocumentError) else f"{type(exc).__name__}: {exc}"
            window.console.append_message(_tr("Cannot open {name}: {why}").format(name=path.name, why=why), error=True)
            window.status.setText(_tr("Cannot open {name}").format(name=path.name))
            return False
        finally:
            self._set_opening(None)
        if prompt and not self.maybe_save():
            return False
        before = self._window_state()
        try:
            self.show_session(session, prepared)
        except Exception as exc:  # noqa: BLE001 - the window goes back to what it showed before
            del session, prepared
            self._restore_window_state(before)
            window.console.append_message(_tr("Cannot open {name}: showing it failed ({error_type}: {exc}); the window "
                                              "shows what it showed before.").format(
                name=path.name, error_type=type(exc).__name__, exc=exc), error=True)
            window.status.setText(_tr("Cannot open {name}").format(name=path.name))
            return False
        self.session_path = path
        self.script_path = None
        self.mark_clean()
        self.update_title()
        window.settings.add_recent_file(str(path))
        made = session.versions.get("gradexplorer", "?")
        window.status.setText(_tr("Opened session {name} (made by gradexplorer {made}; nothing was run)").format(
            name=path.name, made=made))
        return True

    def _set_opening(self, path: Path | None) -> None:
        """Mark an Open under way (its actions off) or over."""
        window = self.window
        self._opening = path
        for action in (window.open_action, window.recent_menu.menuAction()):
            action.setEnabled(path is None)

    def _window_state(self) -> _WindowState:
        """What the window shows now, for :meth:`_restore_window_state`."""
        window = self.window
        return _WindowState(
            code=window.editor.toPlainText(), modified=window.isWindowModified(), session_path=self.session_path,
            script_path=self.script_path, program_filename=window.program_filename, run_settings=window.run_settings,
            device=window.device, result=window.result, console=window.console.state(),
            files=tuple((f, window.sources.file_view(f).toPlainText()) for f in window.sources.open_files))

    def _restore_window_state(self, state: _WindowState) -> None:
        """Show ``state`` again: the failed Open's half-shown session goes, the previous work comes back."""
        window = self.window
        if state.result is not None:
            window.retirer.take_back(state.result.capture)
        window.display.clear()
        if window.editor.toPlainText() != state.code:  # untouched, it keeps its undo history
            window.editor.setPlainText(state.code)
        window.select_device(state.device)
        window.run_commands.set_program(state.program_filename, state.run_settings)
        if state.result is not None:
            try:
                window.display.show_result(state.result)
            except Exception:  # noqa: BLE001 - it was on screen a moment ago; if it cannot be again, no picture
                window.result = None
                window.graph_view.clear_graph()
        for file, text in state.files:
            window.sources.show_file(file, text, 0)
        window.sources.show_program()
        window.console.restore(state.console)
        self.session_path = state.session_path
        self.script_path = state.script_path
        self.mark_clean()
        self.update_title()
        window.setWindowModified(state.modified)

    def show_session(self, session: Session, prepared: CaptureResult | None = None) -> None:
        """Show a session; ``prepared`` is its capture laid out when a job has done that already."""
        window = self.window
        window.display.clear()
        window.editor.setPlainText(session.code)
        if session.device:
            window.select_device(session.device)
        window.run_commands.set_program(session.filename, ScriptRun(tuple(session.args), session.cwd))
        cap = session.capture
        window.console.reset(cap.filename, cap.root)
        if cap.stdout:
            window.console.append_output("stdout", cap.stdout)
        if cap.stderr:
            window.console.append_output("stderr", cap.stderr)
        if prepared is None:
            pass_index = default_pass(len(cap.passes))
            graph, display, layout = pass_view(cap, pass_index)
            prepared = CaptureResult(cap, layout, 0.0, display, pass_index=pass_index, pass_graph=graph)
        window.display.show_result(prepared)
        if session.view.selected_node and session.view.selected_node in cap.graph:
            # Through show_nodes: a node inside a folded module box opens the boxes that hide it.
            window.picture.show_nodes([session.view.selected_node])
        if session.view.zoom:
            window.graph_view.zoom.restore(session.view.zoom, fitted=False)

    def current_session(self) -> Session:
        """The work as a session: the editor's code, the last capture, the view state."""
        window = self.window
        if window.result is not None:
            cap = window.result.capture
        else:
            cap = Capture(code=window.editor.toPlainText(), filename=window.program_filename, device=window.device,
                          graph=CaptureGraph(), executed=False, versions=versions())
        selected = window.view.current_node
        if selected is not None and selected not in cap.graph and not selected.startswith(GROUP_PREFIX):
            selected = None  # a compared session's node (File > Compare with Session) is not this capture's
        view = ViewState(selected, window.graph_view.zoom.level() if window.result else None)
        return Session(code=window.editor.toPlainText(), device=window.device, capture=cap, view=view,
                       filename=window.program_filename, versions=versions(), args=tuple(window.run_settings.args),
                       cwd=window.run_settings.cwd)

    def save(self) -> bool:
        if self.session_path is None:
            return self.save_as()
        return self._save_to(self.session_path)

    def save_as(self) -> bool:
        path = self.window.ask_session_save_path()
        return bool(path) and self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        window = self.window
        if window.result is not None and not window.result.complete and window.is_running:
            # The picture is drawn, the explanations are not made yet: the file would lack them (for a moment).
            window.status.setText(_tr("Not saved: the run is still being explained; save {name} when it is "
                                      "done").format(name=path.name))
            return False
        session = self.current_session()  # read the widgets here; the job only reads this plain data
        window.status.setText(_tr("Saving {name}…").format(name=path.name))
        try:
            window.jobs.run_and_wait("save", lambda: save_session(session, path))
        except Exception as exc:  # noqa: BLE001 - any failure is a message; the work stays in the window
            why = getattr(exc, "strerror", None) or (str(exc) if isinstance(exc, (OSError, ValueError))
                                                     else f"{type(exc).__name__}: {exc}")
            window.console.append_message(_tr("Cannot save {name}: {why}").format(name=path.name, why=why), error=True)
            window.status.setText(_tr("Not saved: {name}").format(name=path.name))
            return False
        self.session_path = path
        self.mark_clean()
        self.update_title()
        window.settings.add_recent_file(str(path))
        window.status.setText(_tr("Saved {name}").format(name=path.name))
        return True

    def _rebuild_recent_menu(self) -> None:
        window = self.window
        window.recent_menu.clear()
        files = window.settings.recent_files
        if not files:
            window.recent_menu.addAction(_tr("(none)")).setEnabled(False)
        for name in files:
            action = window.recent_menu.addAction(name)
            action.triggered.connect(lambda _checked=False, n=name: self.open_path(Path(n)))

    def load_example(self, path: Path) -> None:
        """Put an example into the editor as untitled code (it runs when the user presses Run)."""
        self.open_path(path, as_script=False)

    def open_with_dialog(self) -> None:
        """Ask for a session or script and open it."""
        path = self.window.ask_open_path()
        if path:
            self.open_path(Path(path))

    def export(self, kind: str, path: Path, *, scale: float = 2.0) -> bool:
        """Write the script, the graph (DOT, GraphML, JSON) or the whole drawing (PNG, SVG) to ``path``.

        The drawing is every box and node of the graph as it is drawn now
        (folded boxes, filter and colouring included, the selection left out)
        with the legend under it; a PNG has ``scale`` pixels per unit, reduced
        so that no side exceeds 16,000 pixels (the status bar says so).

        A name without an extension gets the kind's (``graph`` -> ``graph.png``): file dialogs on some
        platforms return the name as typed, and a PNG without ``.png`` was written as nothing.
        """
        window = self.window
        path = Path(path)
        if not path.suffix:
            path = path.with_name(path.name + EXPORT_SUFFIXES[kind])
        try:
            if kind == "script":
                write_atomic(path, window.editor.toPlainText())
            elif window.result is None:
                window.status.setText(_tr("Nothing to export yet: run the code first"))
                return False
            elif kind in ("dot", "graphml", "json"):
                writer = {"dot": export.write_dot, "graphml": export.write_graphml,
                          "json": export.write_node_link}[kind]
                cap = window.result.capture
                window.status.setText(_tr("Exporting {name}…").format(name=path.name))
                window.jobs.run_and_wait(f"export-{kind}", lambda: writer(cap, path))
            elif kind == "png":
                used = window.graph_view.exporter.export_scale(scale)
                if not window.graph_view.exporter.save_png(path, scale):
                    raise OSError(_tr("could not write {path}").format(path=path))
                if used < scale:
                    width, height = window.graph_view.exporter.export_size(used)
                    window.status.setText(_tr("Exported {name} at {used:.2f}× ({width}×{height} px, the most a PNG "
                                              "gets here; SVG keeps every detail)").format(
                        name=path.name, used=used, width=width, height=height))
                    return True
            elif kind == "svg":
                window.graph_view.exporter.save_svg(path)
        except Exception as exc:  # noqa: BLE001 - any failure is a message; the picture stays
            why = getattr(exc, "strerror", None) or (str(exc) if isinstance(exc, OSError)
                                                     else f"{type(exc).__name__}: {exc}")
            window.console.append_message(_tr("Cannot export {name}: {why}").format(name=path.name, why=why),
                                          error=True)
            return False
        window.status.setText(_tr("Exported {name}").format(name=path.name))
        return True

    def export_with_dialog(self, kind: str) -> None:
        """Ask where to export ``kind`` and write it."""
        window = self.window
        path = window.ask_export_path(kind)
        if not path:
            return
        scale = 2.0
        if kind == "png":
            scale = window.ask_export_scale()
            if scale is None:
                return
        self.export(kind, Path(path), scale=scale)


@dataclasses.dataclass(frozen=True)
class _WindowState:
    """What the window showed before an Open, kept until the Open has shown its session."""

    code: str
    modified: bool
    session_path: Path | None
    script_path: Path | None
    program_filename: str
    run_settings: ScriptRun
    device: str
    result: CaptureResult | None
    console: tuple
    files: tuple[tuple[str, str], ...]


def prepare_session(session: Session | None) -> tuple[Session | None, CaptureResult | None]:
    """In a job: lay out a loaded session's graph and make its module rows (plain data in, plain data out)."""
    if session is None:
        return None, None
    pass_index = default_pass(len(session.capture.passes))
    graph, display, layout = pass_view(session.capture, pass_index)
    rows = tuple(audit_rows(session.capture.modules, phrase_text))
    flow = flow_of(session.capture)
    freeze_survivors()  # kept until replaced: out of later collections (core.collector)
    return session, CaptureResult(session.capture, layout, 0.0, display, module_rows=rows, flow=flow,
                                  pass_index=pass_index, pass_graph=graph)


def _read_and_prepare(path: Path) -> tuple[Session, CaptureResult]:
    """In a job: read a session file and prepare it for showing."""
    return prepare_session(load_session(path))

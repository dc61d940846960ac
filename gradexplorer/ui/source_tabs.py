"""The program's editor and, beside it, read-only tabs of the project's other files.

A node made in ``model.py``'s ``forward`` points at a line of ``model.py``,
not of the script in the editor. Clicking its source (in the inspector, the
console's traceback or the Tensors tab) opens that file in a read-only tab
of its own, at that line, with the text the run saw (the capture keeps it,
so a reopened session shows it too). The first tab is always the program's
editor; the others close with their tab's button.
"""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget

from .editor import CodeEditor
from .language import translator_for

__all__ = ["SourceTabs"]

_tr = translator_for(__name__)


class SourceTabs(QTabWidget):
    """The program's :class:`CodeEditor` first, then one read-only :class:`CodeEditor` per project file shown."""

    def __init__(self, program: CodeEditor, parent=None) -> None:
        super().__init__(parent)
        self.program = program
        self.setDocumentMode(True)
        self.setTabsClosable(True)
        self.setAccessibleName(_tr("Source files"))
        self.addTab(program, _tr("untitled"))
        # The program's tab has no close button.
        bar = self.tabBar()
        for side in (bar.ButtonPosition.RightSide, bar.ButtonPosition.LeftSide):
            button = bar.tabButton(0, side)
            if button is not None:
                button.resize(0, 0)
                button.hide()
        self.tabCloseRequested.connect(self._on_tab_close_requested)
        #: Shown path -> its read-only view.
        self._views: dict[str, CodeEditor] = {}

    def set_program_title(self, title: str) -> None:
        """The first tab's text: the script's file name, or "untitled"."""
        self.setTabText(0, title)

    def show_file(self, file: str, text: str, line: int) -> CodeEditor:
        """Show ``file`` (its text as the run saw it) read-only, scrolled to ``line``; returns its view."""
        view = self._views.get(file)
        if view is None:
            view = CodeEditor()
            view.setReadOnly(True)
            view.setAccessibleName(_tr("Source of {file}").format(file=file))
            self._views[file] = view
            self.addTab(view, file)
            self.setTabToolTip(self.indexOf(view), _tr("{file} (read-only: the text the last run saw)").format(
                file=file))
        if view.toPlainText() != text:
            view.setPlainText(text)
        self.setCurrentWidget(view)
        if line:
            view.go_to_line(line)
        return view

    def show_program(self, line: int | None = None) -> None:
        """Bring the program's editor to the front (at ``line``)."""
        self.setCurrentIndex(0)
        if line:
            self.program.go_to_line(line)

    def file_view(self, file: str) -> CodeEditor | None:
        """The open view of ``file``, if any."""
        return self._views.get(file)

    @property
    def open_files(self) -> list[str]:
        """The files shown in tabs, in tab order."""
        return [self.tabText(i) for i in range(1, self.count())]

    def close_files(self) -> None:
        """Close every file tab (another program is in the editor now)."""
        for file in list(self._views):
            self._close(file)

    def _close(self, file: str) -> None:
        view = self._views.pop(file, None)
        if view is not None:
            self.removeTab(self.indexOf(view))
            view.deleteLater()

    def _on_tab_close_requested(self, index: int) -> None:
        if index > 0:
            self._close(self.tabText(index))

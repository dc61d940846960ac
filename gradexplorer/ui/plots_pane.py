"""The Plots tab: the figures the program drew with matplotlib, as images.

The program runs in a worker thread with a window-less matplotlib backend
(:mod:`gradexplorer.core.capture.figures`): ``plt.show()`` hands its figures
to the capture as PNGs instead of opening a window from that thread (which
Qt forbids). This pane shows them one under the other, with their titles,
at their own size (scroll for more). The PNGs are decoded when the tab is
first shown, not when a run ends.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from .language import N_, translator_for

__all__ = ["PlotsPane"]

_tr = translator_for(__name__)

#: What the pane says when the capture has no figure.
EMPTY_TEXT = N_("No figures. A program that draws with matplotlib (plt.plot(...), then plt.show()) shows its "
                "figures here: they are drawn off-screen, never in a window of their own.")


class PlotsPane(QScrollArea):
    """The capture's matplotlib figures, one under the other."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName(_tr("Plots"))
        self.setWidgetResizable(True)
        self.figures: tuple = ()
        self._stale = False
        self._build(())

    def show_figures(self, figures) -> None:
        """Show these :class:`~gradexplorer.core.records.figures.FigureImage` s (decoded once the tab shows)."""
        self.figures = tuple(figures)
        if self.isVisible():
            self._build(self.figures)
        else:
            self._build(())  # nothing from the previous capture meanwhile
            self._stale = True

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if self._stale:
            self._build(self.figures)

    def _build(self, figures) -> None:
        self._stale = False
        content = QWidget()
        column = QVBoxLayout(content)
        column.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        #: The title label and the image label of each figure shown (tests read them).
        self.title_labels: list[QLabel] = []
        self.image_labels: list[QLabel] = []
        if not self.figures:
            empty = QLabel(_tr(EMPTY_TEXT))
            empty.setWordWrap(True)
            empty.setObjectName("plots_empty")
            column.addWidget(empty)
        for figure in figures:
            note = "" if figure.shown else _tr(" (still open when the program ended)")
            title = QLabel(_tr("<b>Figure {number}</b> · {title}{note}").format(
                number=figure.number, title=_escape(figure.title), note=note))
            image = QLabel()
            pixmap = QPixmap()
            if pixmap.loadFromData(figure.png, "PNG"):
                image.setPixmap(pixmap)
            else:
                image.setText(_tr("This figure's image could not be read."))
            image.setToolTip(_tr("{width}×{height} px").format(width=figure.width, height=figure.height))
            column.addWidget(title)
            column.addWidget(image)
            self.title_labels.append(title)
            self.image_labels.append(image)
        self.setWidget(content)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

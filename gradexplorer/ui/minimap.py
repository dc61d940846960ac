"""A small picture of the whole drawing, with the part on screen marked; click or drag to move there.

The whole drawing is painted once into a pixmap when it changes, straight
from the positions: each box a filled rectangle in its colour, each edge a
straight line, batched by colour (about 10 ms for 10,000 boxes; rendering
the scene itself took 0.18 s). Scrolling and zooming only repaint the pixmap
and the frame, so the minimap costs nothing while the user pans.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from .language import translator_for

__all__ = ["Minimap"]

_tr = translator_for(__name__)


class Minimap(QWidget):
    """The overview in a corner of the graph view, top-right unless that covers a box (View > Show Minimap)."""

    SIZE = QSize(160, 160)

    def __init__(self, view) -> None:
        super().__init__(view)
        self.view = view
        self.setAccessibleName(_tr("Minimap"))
        self.setToolTip(_tr("The whole graph; the blue frame is what is on screen (click or drag to move)"))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._pixmap: QPixmap | None = None
        self._source = QRectF()  # the scene rectangle the pixmap shows
        self._target = QRectF()  # where the pixmap is drawn in this widget
        #: The view's corner it sits in (``CornerOverlays.place``).
        self.corner = "top-right"
        self.resize(self.SIZE)

    def refresh(self) -> None:
        """Render the drawing anew (after a new graph, a box opened, a filter or colouring)."""
        rect = self.view.drawing_rect()
        if rect.isEmpty():
            self._pixmap = None
            self.update()
            return
        scale = min(self.width() / rect.width(), self.height() / rect.height())
        width, height = max(int(rect.width() * scale), 1), max(int(rect.height() * scale), 1)
        pixmap = QPixmap(width, height)
        pixmap.fill(QColor(255, 255, 255, 0))
        painter = QPainter(pixmap)
        painter.scale(scale, scale)
        painter.translate(-rect.left(), -rect.top())
        positions = self.view.positions()
        lines = [QLineF(*positions[u], *positions[v]) for u, v in self.view.drawn_edges()]
        painter.setPen(QPen(QColor("#8c959f"), 0))
        painter.drawLines(lines)
        by_colour: dict[int, tuple[QColor, list[QRectF]]] = {}
        for item in self.view.items_by_id.values():
            if not item.isVisible():
                continue
            colour = item._brush.color()
            if item.opacity() < 1.0:  # dimmed by a filter
                colour = QColor(colour)
                colour.setAlpha(60)
            entry = by_colour.setdefault(colour.rgba(), (colour, []))
            entry[1].append(item._rect.translated(item.pos()))
        painter.setPen(QPen(QColor("#8b949e" if self.view.dark else "#57606a"), 0))
        for colour, rects in by_colour.values():
            painter.setBrush(colour)
            painter.drawRects(rects)
        painter.end()
        self._pixmap = pixmap
        self._source = rect
        self._target = QRectF((self.width() - width) / 2, (self.height() - height) / 2, width, height)
        self.update()

    def visible_frame(self) -> QRectF:
        """The part of the drawing on screen, in this widget's coordinates."""
        if self._pixmap is None:
            return QRectF()
        shown = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        sx = self._target.width() / self._source.width()
        sy = self._target.height() / self._source.height()
        return QRectF(self._target.left() + (shown.left() - self._source.left()) * sx,
                      self._target.top() + (shown.top() - self._source.top()) * sy,
                      shown.width() * sx, shown.height() * sy).intersected(QRectF(self.rect()))

    def scene_point(self, point: QPointF) -> QPointF:
        """The scene point under a point of this widget."""
        sx = self._source.width() / max(self._target.width(), 1e-9)
        sy = self._source.height() / max(self._target.height(), 1e-9)
        return QPointF(self._source.left() + (point.x() - self._target.left()) * sx,
                       self._source.top() + (point.y() - self._target.top()) * sy)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("#8c959f"), 1.0))
        # The palette's background (dark or light), as the legend's.
        painter.setBrush(QColor(22, 27, 34, 245) if self.view.dark else QColor(255, 255, 255, 245))
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5)
        if self._pixmap is not None:
            painter.drawPixmap(self._target.topLeft(), self._pixmap)
            painter.setPen(QPen(QColor("#0969da"), 1.5))
            painter.setBrush(QColor(9, 105, 218, 30))
            painter.drawRect(self.visible_frame())
        painter.end()

    def _move_view(self, event) -> None:
        if self._pixmap is not None:
            self.view.centerOn(self.scene_point(event.position()))

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt API
        self._move_view(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt API
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._move_view(event)

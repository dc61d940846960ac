"""The whole drawing as a file: PNG at a chosen resolution, or SVG, each with its legend under it.

File > Export of a picture is every box and node of the graph as it is
drawn now (folded boxes, filter and colouring included; the selection left
out), not only what the window shows, with the legend of the colouring in
force under it. A PNG has ``scale`` pixels per unit of the drawing, reduced
so that no side exceeds :data:`MAX_EXPORT_PIXELS`.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QColor, QPainter

from .language import translator_for
from .legend import legend_size, paint_legend

__all__ = ["MAX_EXPORT_PIXELS", "GraphExport"]

_tr = translator_for(__name__)

#: An exported image is at most this many pixels on its longest side.
MAX_EXPORT_PIXELS = 16000


class GraphExport:
    """Renders ``view``'s whole drawing to an image or an SVG file.

    Parameters
    ----------
    view : GraphView
        Its scene, drawing rectangle, colouring and selection are read (the
        selection is taken off while rendering and put back).
    """

    #: The same limit, where code reads it from an exporter.
    MAX_EXPORT_PIXELS = MAX_EXPORT_PIXELS

    def __init__(self, view) -> None:
        self.view = view

    def _export_extent(self) -> tuple[float, float]:
        """The exported picture's size in scene units: the drawing, and the legend under it."""
        rect = self.view.drawing_rect()
        legend = legend_size(self.view.colour_mode)
        return max(rect.width(), legend.width() + 16), rect.height() + legend.height() + 16

    def export_scale(self, scale: float) -> float:
        """``scale`` reduced so that the image stays within :data:`MAX_EXPORT_PIXELS` on its longest side.

        The same extent as :meth:`export_size` (legend and margin included),
        and half a pixel to spare, so that rounding up never passes the limit.
        """
        longest = max(*self._export_extent(), 1.0)
        return min(scale, (self.MAX_EXPORT_PIXELS - 0.5) / longest)

    def _paint_export(self, painter: QPainter, scale: float) -> None:
        """The whole graph, without selection marks, and the legend under it."""
        rect = self.view.drawing_rect()
        legend = legend_size(self.view.colour_mode)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(QRectF(0, 0, rect.width() * scale, (rect.height() + legend.height() + 16) * scale),
                         QColor("#0d1117" if self.view.dark else "#ffffff"))
        selected = self.view.selected_nodes()
        current = self.view.current
        scene = self.view.scene()
        scene.blockSignals(True)
        scene.clearSelection()
        self.view.set_current(None)
        try:
            scene.render(painter, QRectF(0, 0, rect.width() * scale, rect.height() * scale), rect)
        finally:
            for node_id in selected:
                self.view.items_by_id[node_id].setSelected(True)
            scene.blockSignals(False)
            self.view.set_current(current)
        painter.save()
        painter.scale(scale, scale)
        paint_legend(painter, 8, rect.height() + 8, self.view.colour_mode, dark=self.view.dark)
        painter.restore()

    def export_size(self, scale: float = 1.0) -> tuple[int, int]:
        width, height = self._export_extent()
        return math.ceil(width * scale), math.ceil(height * scale)

    def save_png(self, path, scale: float = 2.0) -> bool:
        """The whole graph (not only what is visible) as a PNG, ``scale`` pixels per unit, with its legend."""
        from PySide6.QtGui import QImage

        scale = self.export_scale(scale)
        width, height = self.export_size(scale)
        image = QImage(max(width, 1), max(height, 1), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QColor("#0d1117" if self.view.dark else "#ffffff"))
        painter = QPainter(image)
        self._paint_export(painter, scale)
        painter.end()
        return image.save(str(path), "PNG")

    def save_svg(self, path) -> None:
        """The whole graph as SVG (vector: boxes, text and edges stay sharp), with its legend."""
        from PySide6.QtSvg import QSvgGenerator

        width, height = self.export_size(1.0)
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(QSize(width, height))
        generator.setViewBox(QRectF(0, 0, width, height))
        generator.setTitle(_tr("gradexplorer autograd graph"))
        painter = QPainter(generator)
        self._paint_export(painter, 1.0)
        painter.end()

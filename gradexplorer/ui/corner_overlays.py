"""Where the legend and the minimap sit on the graph view: the first corner where they cover no box.

The legend (what the colours mean) and the minimap (where the view is in a
drawing bigger than it) float over the picture. Each goes to the first of
its corners where it covers no box and not the other one; the legend folds
to a small tab where it would cover a box in every corner, and whatever
still covers one is faded. Boxes are looked up by the layout's rows, not by
the scene (which keeps no index: a query over 10,000 items took 19 ms, and
the overlays ask a few times per scroll step).
"""

from __future__ import annotations

import bisect

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QGraphicsOpacityEffect

__all__ = ["CornerOverlays"]


class CornerOverlays:
    """Places ``view``'s legend and minimap, and says which boxes a rectangle of the view covers.

    Parameters
    ----------
    view : GraphView
        Its viewport, items, layout, legend and minimap are used.
    row_slack, caption_width : float
        The view's box height and caption width, in scene units.
    """

    #: Where the legend and the minimap may sit, in the order they are tried.
    CORNERS = {"legend": ("bottom-left", "bottom-right", "top-left", "top-right"),
               "minimap": ("top-right", "bottom-right", "top-left", "bottom-left")}
    #: How opaque an overlay is drawn when every corner would cover a box.
    FADED_OPACITY = 0.25

    def __init__(self, view, *, row_slack: float, caption_width: float) -> None:
        self.view = view
        #: How far above and below a box's centre row a rectangle may reach it (a box's height), and how far
        #: left a box's caption reaches (the view's sizes, in scene units).
        self._row_slack = row_slack
        self._caption_width = caption_width
        self._rows: tuple | None = None  # the boxes by layer, for boxes_under (computed once per drawing)

    def forget(self) -> None:
        """The drawing changed: the boxes' rows are computed again when next asked."""
        self._rows = None

    def set_legend_wanted(self, wanted: bool) -> None:
        """Show or hide the legend in the corner (exports always carry one)."""
        self.view.legend_wanted = wanted
        self.view.legend.setVisible(wanted and bool(self.view.items_by_id))
        self.place()

    def corner_rect(self, widget, corner: str, size: QSize | None = None) -> QRect:
        """Where ``widget`` (at ``size``, default its own) sits in ``corner`` of the viewport, in view coordinates."""
        size = size if size is not None else widget.size()
        area = self.view.viewport().geometry()  # inside the frame, above the scroll bar
        x = area.left() + 8 if corner.endswith("left") else area.right() - size.width() - 8
        y = area.top() + 8 if corner.startswith("top") else max(area.bottom() - size.height() - 8, area.top() + 8)
        return QRect(x, y, size.width(), size.height())

    def boxes_under(self, rect: QRect) -> list[str]:
        """The shown boxes and nodes that ``rect`` (view coordinates) would cover."""
        if not self.view.items_by_id or self.view.drawn_layout is None:
            return []
        inside = rect.translated(-self.view.viewport().geometry().topLeft())
        area = self.view.mapToScene(inside).boundingRect()
        # The layout's rows, not the scene: the scene keeps no index (building one made 10,000-item
        # drawings slow to show), so scene.items(rect) looked at every item, 19 ms a query at 10k nodes,
        # and the overlays ask a few times per scroll step.
        if self._rows is None:
            rows: dict[float, list] = {}
            for node_id, item in self.view.items_by_id.items():
                box = item.mapRectToScene(item._rect)
                rows.setdefault(box.center().y(), []).append((box.left(), box.right(), box, node_id))
            ordered = sorted(rows.items())
            self._rows = ([y for y, _ in ordered], [sorted(row, key=lambda entry: entry[0]) for _, row in ordered])
        ys, by_row = self._rows
        first = bisect.bisect_left(ys, area.top() - self._row_slack)
        last = bisect.bisect_right(ys, area.bottom() + self._row_slack)
        under = []
        for row in by_row[first:last]:
            start = max(bisect.bisect_left(row, (area.left() - self._caption_width * 2,)) - 1, 0)
            for left, right, box, node_id in row[start:]:
                if left > area.right():
                    break
                if box.intersects(area) and self.view.items_by_id[node_id].isVisible():
                    under.append(node_id)
        return under

    def _free_corner(self, widget, corners, size: QSize | None = None) -> str | None:
        """The first of ``corners`` where ``widget`` (at ``size``) covers no box, or None."""
        return next((c for c in corners if not self.boxes_under(self.corner_rect(widget, c, size))), None)

    def place(self) -> None:
        """The legend and the minimap go to the first corner where they cover no box (never onto
        each other); the legend folds to a small tab where it would cover one in every corner, and
        what still covers a box is faded to :attr:`FADED_OPACITY`."""
        taken: list[QRect] = []
        for name, widget in (("legend", self.view.legend), ("minimap", self.view.minimap)):
            corners = [c for c in self.CORNERS[name]
                       if not any(self.corner_rect(widget, c).intersects(t) for t in taken)]
            corners = corners or list(self.CORNERS[name])
            if not widget.isVisible():
                widget.corner = corners[0]
                widget.move(self.corner_rect(widget, widget.corner).topLeft())
                continue
            if widget is self.view.legend:  # the whole legend where it fits, else its tab
                free = self._free_corner(widget, corners, widget.full_size())
                widget.set_compact(free is None)
                if free is None:
                    free = self._free_corner(widget, corners)
            else:
                free = self._free_corner(widget, corners)
            widget.corner = free or corners[0]
            rect = self.corner_rect(widget, widget.corner)
            widget.move(rect.topLeft())
            _set_opacity(widget, 1.0 if free else self.FADED_OPACITY)
            taken.append(rect)

    def set_minimap_wanted(self, wanted: bool) -> None:
        """Show or hide the minimap (it shows only when the drawing is bigger than the view)."""
        self.view.minimap_wanted = wanted
        self.update_minimap()

    def update_minimap(self) -> None:
        shown = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        drawing = self.view.drawing_rect()
        # Bigger than the view: less than 90% of its width or height on screen (its margins aside).
        bigger = not drawing.isEmpty() and (shown.width() < 0.9 * drawing.width() or
                                            shown.height() < 0.9 * drawing.height())
        self.view.minimap.setVisible(self.view.minimap_wanted and bigger and bool(self.view.items_by_id))
        self.view.minimap.update()
        self.place()

    def on_view_moved(self, _value: int = 0) -> None:
        if self.view.minimap.isVisible():
            self.view.minimap.update()
        self.place()


def _set_opacity(widget, opacity: float) -> None:
    """Draw ``widget`` (the legend, the minimap) at ``opacity``; 1.0 drops the effect."""
    effect = widget.graphicsEffect()
    if opacity >= 1.0:
        if effect is not None:
            widget.setGraphicsEffect(None)
        return
    if not isinstance(effect, QGraphicsOpacityEffect):
        effect = QGraphicsOpacityEffect(widget)
        widget.setGraphicsEffect(effect)
    effect.setOpacity(opacity)

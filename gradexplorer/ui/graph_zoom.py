"""The graph view's zoom: Fit, a first picture that stays readable, the user's zoom, and going back to one.

A first picture (and Fit) shows the whole drawing if its text stays
readable so; otherwise it fits the drawing's width, never below
:attr:`ViewZoom.READABLE`, and shows its top, starting from the root: a tall
autograd graph fitted whole is a sliver of unreadable boxes. Until the user
zooms, the picture is fitted again as the window grows or shrinks.
"""

from __future__ import annotations

from .graph_sizes import CAPTION_PIXELS, LABEL_PIXELS, MIN_TEXT_PIXELS

__all__ = ["ViewZoom"]


class ViewZoom:
    """Zooms ``view`` (a ``QGraphicsView``) and remembers whether it shows Fit's picture.

    Parameters
    ----------
    view : GraphView
        Its transform, viewport, drawing, layout, legend and overlays are used.
    """

    #: Below this zoom, text is under :data:`MIN_TEXT_PIXELS` on screen: Fit and a first picture never go
    #: smaller (a drawing wider than the view then scrolls sideways; it opens on its root).
    READABLE = MIN_TEXT_PIXELS / min(LABEL_PIXELS, CAPTION_PIXELS)
    #: Small graphs are not blown up beyond this.
    LARGEST_FIT = 1.5

    def __init__(self, view) -> None:
        self.view = view
        #: Whether the view shows Fit's picture and fits again on resize: no zoom by the user since.
        self.fitted = False

    def level(self) -> float:
        """The zoom now (1.0: one scene unit per pixel)."""
        return self.view.transform().m11()

    def scale_by(self, factor: float) -> None:
        """Zoom by ``factor``, kept between 2% and 800%."""
        current = self.level()
        target = min(max(current * factor, 0.02), 8.0)
        self.view.scale(target / current, target / current)
        self.view.overlays.update_minimap()

    def fit(self) -> None:
        """The whole drawing if it is readable so; otherwise fit its width (readably) and show its top.

        A tall autograd graph fitted whole is a sliver of unreadable boxes;
        fitted by width it reads, and the height scrolls (roots first).
        """
        view = self.view
        rect = view.drawing_rect()
        if rect.isEmpty():
            return
        area = view.viewport().rect()
        if view.legend_wanted and view.items_by_id:  # keep the bottom of the drawing clear of the legend
            area = area.adjusted(0, 0, 0, -(view.legend.height() + 8))
        whole = min(area.width() / rect.width(), area.height() / rect.height())
        zoom = min(whole, self.LARGEST_FIT)
        if zoom < self.READABLE:  # fitted by width, at most 100%: a chain would come out huge
            zoom = min(max(area.width() / rect.width(), self.READABLE), max(1.0, self.READABLE))
        # Room to scroll on every side, so that the drawing can sit clear of the legend even
        # when it is smaller than the view (Qt centres a scene that fits and ignores centerOn).
        margin_x, margin_y = view.viewport().width() / zoom, view.viewport().height() / zoom
        view.setSceneRect(rect.adjusted(-margin_x, -margin_y, margin_x, margin_y))
        self.scale_by(zoom / self.level())
        visible = view.mapToScene(view.viewport().rect()).boundingRect()
        usable = area.height() / zoom  # the part above the legend, in scene units
        x = rect.center().x()
        layout = view.drawn_layout
        if rect.width() * zoom > area.width():  # wider than the view: start from the root (the top row's first)
            top = layout.layers[0] if layout is not None and layout.layers else ()
            roots = sorted(layout.positions[n][0] for n in top if n in layout.positions)
            if roots:
                x = min(max(roots[0], rect.left() + visible.width() / 2), rect.right() - visible.width() / 2)
        if usable >= rect.height():  # all of it fits: its top at the top of the usable part
            view.centerOn(x, rect.top() - (usable - rect.height()) / 2 + visible.height() / 2)
        else:
            view.centerOn(x, rect.top() + visible.height() / 2)
        self.fitted = True
        view.overlays.update_minimap()

    def by_user(self, factor: float) -> None:
        """Zoom because the user asked (wheel, keys, View menu): the view stops re-fitting on resize."""
        self.fitted = False
        self.scale_by(factor)

    def restore(self, level: float, *, fitted: bool) -> None:
        """Back to an earlier zoom ``level`` (a redraw, a reopened session); ``fitted``: whether it was Fit's."""
        self.scale_by(level / max(self.level(), 1e-9))
        self.fitted = fitted

    def smallest_text_pixels(self) -> float:
        """The size on screen, in pixels, of the smallest text drawn now (labels and value captions)."""
        return self.level() * min(LABEL_PIXELS, CAPTION_PIXELS)

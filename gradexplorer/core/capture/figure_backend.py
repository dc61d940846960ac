"""A matplotlib backend for the user's program: Agg rendering, and ``plt.show()`` hands the figures over.

Selected by :func:`gradexplorer.core.capture.figures.collecting_figures` as
``module://gradexplorer.core.capture.figure_backend`` while a program runs. The
program runs in a worker thread: a GUI backend (QtAgg, TkAgg) would open its
window from that thread, which Qt forbids and which froze or crashed the app.
Agg draws into memory; ``plt.show()`` passes every open figure to the capture
as a PNG (the app's Plots tab shows them) and closes it, as closing the window
of a blocking ``show()`` would.

matplotlib imports this module itself (never gradexplorer on its own), so it
may import matplotlib at the top.
"""

from __future__ import annotations

from matplotlib.backend_bases import FigureManagerBase
from matplotlib.backends.backend_agg import FigureCanvasAgg

__all__ = ["FigureCanvas", "FigureManager"]


class FigureManager(FigureManagerBase):
    """A window-less manager whose ``pyplot_show`` hands the open figures to the capture."""

    @classmethod
    def pyplot_show(cls, *, block=None) -> None:  # noqa: ARG003 - matplotlib's signature
        from .figures import hand_over_open_figures

        hand_over_open_figures(shown=True)


class FigureCanvas(FigureCanvasAgg):
    """Agg's canvas with :class:`FigureManager` (no interactive framework: safe in any thread)."""

    manager_class = FigureManager

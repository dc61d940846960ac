"""The figures a program draws with matplotlib: rendered off-screen, handed to the capture.

While a program runs, matplotlib's backend is
:mod:`gradexplorer.core.capture.figure_backend` (Agg, no window): set through
``MPLBACKEND`` for a program that imports matplotlib itself, and with
``matplotlib.use`` when an earlier run already imported it. ``plt.show()``
hands every open figure over as a PNG (:class:`~gradexplorer.core.records.figures.FigureImage`)
and closes it; figures still open when the program ends are handed over too
(as a notebook shows a cell's figures), marked ``shown=False``.

matplotlib is never imported here unless the program imported it: a program
that draws nothing pays nothing.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import struct
import sys
import threading
from collections.abc import Iterator

from ..records.figures import PNG_SIGNATURE, FigureImage

__all__ = ["BACKEND", "MAX_FIGURES", "MAX_PIXELS", "FigureCollector", "collecting_figures", "hand_over_open_figures"]

#: The backend the program's matplotlib uses while it runs.
BACKEND = "module://gradexplorer.core.capture.figure_backend"
#: A capture keeps at most this many figures (a loop calling plt.show() each step keeps its first ones).
MAX_FIGURES = 50
#: A figure is rendered with at most this many pixels (its dpi is lowered to fit).
MAX_PIXELS = 4_000_000


class FigureCollector:
    """The figures handed over during one run, and how many were left out."""

    def __init__(self) -> None:
        self.images: list[FigureImage] = []
        self.dropped = 0
        #: One sentence per figure that could not be rendered (it raised while drawing).
        self.failures: list[str] = []

    def add(self, figure, number: int, *, shown: bool) -> None:
        if len(self.images) >= MAX_FIGURES:
            self.dropped += 1
            return
        try:
            self.images.append(render_figure(figure, number, shown=shown))
        except Exception as exc:  # a figure that cannot draw must not lose the capture
            self.failures.append(f"figure {number} could not be drawn: {type(exc).__name__}: {exc}")

    def notes(self) -> tuple[str, ...]:
        """Sentences for the console: figures left out or that failed to draw."""
        notes = list(self.failures)
        if self.dropped:
            notes.append(f"{self.dropped} more figure(s) were not kept (a capture keeps the first {MAX_FIGURES})")
        return tuple(notes)


_active: FigureCollector | None = None
_active_lock = threading.Lock()


def render_figure(figure, number: int, *, shown: bool) -> FigureImage:
    """``figure`` as a PNG at its own size and dpi (lowered when over :data:`MAX_PIXELS`)."""
    dpi = float(figure.dpi)
    width_in, height_in = figure.get_size_inches()
    pixels = width_in * height_in * dpi * dpi
    if pixels > MAX_PIXELS:
        dpi *= math.sqrt(MAX_PIXELS / pixels)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    png = buffer.getvalue()
    if not png.startswith(PNG_SIGNATURE):
        raise ValueError("matplotlib did not write a PNG")
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    return FigureImage(number=int(number), title=_title(figure, number), png=png, width=width, height=height,
                       shown=shown)


def _title(figure, number: int) -> str:
    suptitle = figure.get_suptitle() if hasattr(figure, "get_suptitle") else ""
    if suptitle:
        return suptitle
    for axes in figure.axes:
        if axes.get_title():
            return axes.get_title()
    return f"Figure {number}"


def hand_over_open_figures(*, shown: bool) -> None:
    """Render every open pyplot figure into the running capture, then close it (``plt.show()``)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    collector = _active
    if pyplot is None or collector is None:
        return
    from matplotlib._pylab_helpers import Gcf

    for manager in sorted(Gcf.get_all_fig_managers(), key=lambda m: m.num):
        collector.add(manager.canvas.figure, manager.num, shown=shown)
        pyplot.close(manager.canvas.figure)


@contextlib.contextmanager
def collecting_figures() -> Iterator[FigureCollector]:
    """Run a program with the window-less backend; collect what it shows (and leaves open)."""
    global _active
    collector = FigureCollector()
    previous_env = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = BACKEND  # read when the program imports matplotlib
    matplotlib = sys.modules.get("matplotlib")
    previous_backend = None
    if matplotlib is not None:  # imported before (an earlier run): switch it now
        previous_backend = dict.__getitem__(matplotlib.rcParams, "backend")  # as set, without resolving it
        if previous_backend != BACKEND:
            matplotlib.use(BACKEND, force=True)
    with _active_lock:
        _active = collector
    try:
        yield collector
    finally:
        try:
            hand_over_open_figures(shown=False)
        finally:
            with _active_lock:
                _active = None
            if previous_env is None:
                os.environ.pop("MPLBACKEND", None)
            else:
                os.environ["MPLBACKEND"] = previous_env
            if previous_backend is not None and previous_backend != BACKEND:
                with contextlib.suppress(Exception):  # the caller's own backend, as it was
                    matplotlib.use(previous_backend, force=True)

"""The figures a program made with matplotlib, as plain data: a PNG per figure.

The run renders them (:mod:`gradexplorer.core.capture.figures`); the app shows
them in its Plots tab, sessions and the capture JSON keep them. Only bytes
and strings: a record crosses threads and processes and is saved as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PNG_SIGNATURE", "FigureImage"]

#: The first bytes of every PNG file: what a figure read back from a file must start with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class FigureImage:
    """One matplotlib figure, rendered when the program handed it over.

    Attributes
    ----------
    number : int
        matplotlib's figure number (``plt.figure(3)`` is 3).
    title : str
        Its suptitle, else its first axes' title, else "Figure N": what the Plots tab writes above it.
    png : bytes
        The figure rendered by the Agg backend at its own size and dpi (scaled down when huge).
    width, height : int
        The PNG's size in pixels.
    shown : bool
        True when ``plt.show()`` handed it over; False when it was still open as the program ended
        (as a notebook shows a cell's figures).
    """

    number: int
    title: str
    png: bytes
    width: int
    height: int
    shown: bool = True

"""The Plots tab: a program's matplotlib figures, drawn off-screen and shown in the window (issue 27)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from .conftest import run_and_wait

pytest.importorskip("matplotlib")

PROGRAM = """\
import matplotlib.pyplot as plt
import torch

w = torch.tensor([3.0, -1.0], requires_grad=True)
norms = []
for step in range(5):
    loss = (w ** 2).sum()
    loss.backward()
    norms.append(w.grad.norm().item())
    with torch.no_grad():
        w -= 0.2 * w.grad
    w.grad = None
plt.plot(norms)
plt.title("gradient norm")
plt.show()
"""


def test_plt_show_leaves_its_figure_in_the_plots_tab_and_opens_no_window(qtbot, window):
    windows_before = {id(w) for w in QApplication.topLevelWidgets() if w.isVisible()}
    window.editor.setPlainText(PROGRAM)
    result = run_and_wait(qtbot, window)
    assert result.capture.ok, result.capture.error
    tabs = window.bottom_tabs
    index = tabs.indexOf(window.plots_pane)
    assert tabs.tabText(index) == "Plots (1)"
    tabs.setCurrentIndex(index)
    pane = window.plots_pane
    qtbot.waitUntil(lambda: len(pane.image_labels) == 1)
    assert "gradient norm" in pane.title_labels[0].text()
    pixmap = pane.image_labels[0].pixmap()
    assert (pixmap.width(), pixmap.height()) == (640, 480)
    # What is painted is the figure: the same pixels as the PNG the capture holds.
    painted = pixmap.toImage().convertToFormat(QImage.Format.Format_RGB32)
    expected = QImage.fromData(result.capture.figures[0].png).convertToFormat(QImage.Format.Format_RGB32)
    assert painted == expected
    windows_after = {id(w) for w in QApplication.topLevelWidgets() if w.isVisible()}
    assert windows_after == windows_before  # no matplotlib window opened


def test_a_run_without_figures_empties_the_tab(qtbot, window):
    window.editor.setPlainText(PROGRAM)
    run_and_wait(qtbot, window)
    window.editor.setPlainText("import torch\nx = torch.ones(2, requires_grad=True)\nx.sum().backward()\n")
    run_and_wait(qtbot, window)
    tabs = window.bottom_tabs
    index = tabs.indexOf(window.plots_pane)
    assert tabs.tabText(index) == "Plots"
    tabs.setCurrentIndex(index)
    pane = window.plots_pane
    assert pane.image_labels == []
    from PySide6.QtWidgets import QLabel

    assert pane.widget().findChild(QLabel, "plots_empty").text().startswith("No figures")

"""The inspector shows per-pass leaf accounting and raised passes as a user reads them (issue 9)."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from ..programs import EDITED_LOOP as LOOP
from .conftest import run_and_wait
from .test_main_window import click_node



def test_leaf_shows_each_pass_delta_and_the_pass_that_raised(qtbot, window):
    window.editor.setPlainText(LOOP)
    result = run_and_wait(qtbot, window)
    assert result.capture.error.line == 8
    click_node(qtbot, window, "w")
    inspector = window.inspector
    rows = inspector.leaf_pass_rows()
    assert rows[0][:4] == ["1", "[1, 1]", "[6, 8]", "[7, 9]"]  # passes are counted from 1
    assert rows[0][4] == "had a value, added"
    assert rows[1][:3] == ["2", "[0.6139, 0.7894]", "[2, 2]"]
    assert rows[1][4] == "edited before, added"
    # The picker lists the raised pass, marked; choosing it says where it raised.
    labels = [inspector.pass_picker.itemText(i) for i in range(inspector.pass_picker.count())]
    assert labels == ["pass 1 (line 3)", "pass 2 (line 5)", "pass 3 (line 8) — raised"]
    assert window.result.pass_index == 2  # the picture opens on the last pass (the one that raised)...
    assert inspector.pass_picker.currentIndex() == 2  # ...and the inspector follows it
    window.picture.set_pass(None)  # every pass drawn: the inspector opens on the last pass that brought w a gradient
    click_node(qtbot, window, "w")
    assert inspector.pass_picker.currentIndex() == 1
    inspector.pass_picker.setCurrentIndex(2)
    assert inspector.pass_status.isVisible()
    assert inspector.pass_status.text().startswith("This pass raised at line 8: RuntimeError")
    assert "It raised before reaching this node." in inspector.pass_status.text()
    inspector.pass_picker.setCurrentIndex(0)
    assert not inspector.pass_status.isVisible()
    assert inspector.pass_delta.text() == (".grad before [1, 1] + delivered [6, 8] → .grad after [7, 9]: added to .grad "
                                           "(.grad already held a value)")
    assert inspector.verification.text() == "Check: verified: .grad after = before + delivered"
    assert inspector.created.text().startswith("a leaf (requires_grad set on the tensor")


def painted_text_colour(qtbot, view, index) -> QColor:
    """The colour the view painted a cell's text in: its ink, the pixel farthest from the cell's background."""
    from PySide6.QtWidgets import QAbstractItemView

    def shown() -> bool:  # rows sized to their text are laid out late: scroll until the cell is on screen
        view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
        return not view.visualRect(index).intersected(view.viewport().rect()).isEmpty()

    qtbot.waitUntil(shown, timeout=3000)
    rect = view.visualRect(index).intersected(view.viewport().rect())
    image = view.viewport().grab().toImage()
    background = image.pixelColor(rect.left() + 1, rect.top() + 1)
    ink, farthest = None, 0
    for x in range(rect.left() + 2, rect.right() - 1):
        for y in range(rect.top() + 2, rect.bottom() - 1):
            colour = image.pixelColor(x, y)
            distance = sum(abs(a - b) for a, b in zip(colour.getRgb()[:3], background.getRgb()[:3]))
            if distance > farthest:
                ink, farthest = colour, distance
    assert ink is not None and farthest > 120, "nothing painted in the cell"
    return ink


def _is_red(colour: QColor) -> bool:
    hue = colour.hsvHue()
    return (hue < 15 or hue > 345) and colour.hsvSaturation() > 120


def _is_grey(colour: QColor) -> bool:
    return colour.hsvSaturation() < 60 and 70 < colour.value() < 190


def test_tensors_pane_paints_problems_red_and_harmless_rows_grey(qtbot, window):
    """What is painted, not what data() returns: a Qt.GlobalColor there used to be painted black."""
    window.editor.setPlainText("bn = nn.BatchNorm1d(2)\nx = torch.randn(4, 2)\nfrozen = torch.ones(2, requires_grad=True)\n"
                               "unused = torch.ones(2, requires_grad=True)\n(bn(x).sum() + frozen.sum()).backward()\n")
    run_and_wait(qtbot, window)
    window.bottom_tabs.setCurrentWidget(window.tensors_pane)
    pane = window.tensors_pane
    qtbot.waitExposed(pane)
    model = pane.model()
    row = {pane.cell_text(r, 0): r for r in range(pane.rowCount())}
    assert pane.cell_text(row["unused"], 1) == "leaf_unreachable"
    assert _is_red(painted_text_colour(qtbot, pane, model.index(row["unused"], 1)))
    assert pane.cell_text(row["bn.running_mean"], 1) == "buffer"
    assert _is_grey(painted_text_colour(qtbot, pane, model.index(row["bn.running_mean"], 1)))
    assert _is_grey(painted_text_colour(qtbot, pane, model.index(row["x"], 1)))
    plain = painted_text_colour(qtbot, pane, model.index(row["bn.weight"], 1))  # fine: the palette's own text colour
    assert not _is_red(plain) and not _is_grey(plain)


def test_the_modules_tab_warns_about_a_frozen_layer_with_the_line_that_froze_it(qtbot, window):
    window.editor.setPlainText("model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))\n"
                               "model[0].requires_grad_(False)\n"
                               "model(torch.ones(4, 2)).sum().backward()\n")
    run_and_wait(qtbot, window)
    pane = window.modules_pane
    window.bottom_tabs.setCurrentWidget(pane)
    qtbot.waitExposed(pane)
    texts = pane.warning_texts()
    frozen = next(text for text in texts if text.startswith("⚠ frozen_parameters"))
    assert "`model.0` is frozen by `model[0].requires_grad_(False)` at line 2" in frozen
    assert "`weight`, `bias`" in frozen
    row = next(i for i, r in enumerate(pane.audit.rows) if r.path == "model.0.weight")
    assert _is_red(painted_text_colour(qtbot, pane, pane.audit.index_of_row(row)))  # stands out, painted
    trained = next(i for i, r in enumerate(pane.audit.rows) if r.path == "model.1.weight")
    assert not _is_red(painted_text_colour(qtbot, pane, pane.audit.index_of_row(trained)))


def test_the_node_a_pass_raised_in_shows_the_gradient_it_was_handed(qtbot, window):
    """Its gradient is there (what a pre-hook sees in plain PyTorch: 3 per element, from `out = s * 3`), and
    the inspector says the pass raised while running it, not "before reaching this node" (issue 28)."""
    window.editor.setPlainText("w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\ns = torch.sigmoid(w)\n"
                               "out = s * 3\ns.detach().mul_(2)\nout.sum().backward()\n")
    result = run_and_wait(qtbot, window)
    assert result.capture.error is not None
    click_node(qtbot, window, "s")
    inspector = window.inspector
    assert "It raised while running this node" in inspector.pass_status.text()
    assert "min 3  max 3" in inspector.gradient_text(), inspector.gradient_text()

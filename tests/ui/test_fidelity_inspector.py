"""The inspector shows per-pass leaf accounting and raised passes as a user reads them (issue 9)."""

from PySide6.QtCore import Qt

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
    assert rows[0][:4] == ["0", "[1, 1]", "[6, 8]", "[7, 9]"]
    assert rows[0][4] == "had a value, added"
    assert rows[1][:3] == ["1", "[0.6139, 0.7894]", "[2, 2]"]
    assert rows[1][4] == "edited before, added"
    # The picker lists the raised pass, marked; choosing it says where it raised.
    labels = [inspector.pass_picker.itemText(i) for i in range(inspector.pass_picker.count())]
    assert labels == ["pass 0 (line 3)", "pass 1 (line 5)", "pass 2 (line 8) — raised"]
    assert inspector.pass_picker.currentIndex() == 1  # the last pass that brought w a gradient
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


def test_tensors_pane_greys_out_tensors_that_need_no_gradient(qtbot, window):
    window.editor.setPlainText("bn = nn.BatchNorm1d(2)\nx = torch.randn(4, 2)\nbn(x).sum().backward()\n")
    run_and_wait(qtbot, window)
    pane = window.tensors_pane
    model = pane.model()
    rows = {pane.cell_text(r, 0): (pane.cell_text(r, 1), model.data(model.index(r, 1), Qt.ItemDataRole.ForegroundRole))
            for r in range(pane.rowCount())}
    assert rows["bn.running_mean"] == ("buffer", Qt.GlobalColor.darkGray)
    assert rows["x"] == ("no_requires_grad", Qt.GlobalColor.darkGray)
    assert rows["bn.weight"][0] == "leaf_grad"

"""Every command in a menu, keys that move around the graph, a window that fits the screen (issue 27)."""

from __future__ import annotations

import torch
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAction

from gradexplorer.ui.main_window import initial_size
from gradexplorer.ui.window_menus import ACTIONS

from .conftest import run_and_wait


def _menu_actions(menu) -> list[QAction]:
    found = []
    for action in menu.actions():
        found.append(action)
        if action.menu() is not None:
            found.extend(_menu_actions(action.menu()))
    return found


def test_every_command_is_in_a_menu(qtbot, window):
    in_menus = {id(a) for top in window.menuBar().actions() for a in [top, *_menu_actions(top.menu())]}
    missing = [spec.text for spec in ACTIONS if id(getattr(window, spec.attribute)) not in in_menus]
    assert not missing, missing
    for attribute in ("values_action", "legend_action", "minimap_action", "wrap_action", "arguments_action",
                      "working_folder_action", "memory_limit_action", "clear_selection_action"):
        assert id(getattr(window, attribute)) in in_menus, attribute
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles == ["File", "Examples", "Run", "Graph", "View", "Help"]


def test_ctrl_f_goes_to_find(qtbot, window):
    window.activateWindow()
    window.editor.setFocus()
    qtbot.waitUntil(window.editor.hasFocus, timeout=3000)
    qtbot.keyClick(window.editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.search_box.hasFocus, timeout=3000)


def test_arrow_keys_walk_the_graph_and_escape_clears(qtbot, window):
    window.example_actions["03_next_functions"].trigger()
    cap = run_and_wait(qtbot, window).capture
    graph = cap.graph
    view = window.graph_view
    e = cap.node_named("e")
    view.select_node(e)
    view.setFocus()
    qtbot.keyClick(view.viewport(), Qt.Key.Key_Down)
    down = view.selected_node()
    assert down == next(iter(graph.succ[e]))  # e.grad_fn.next_functions[0][0]: the d node
    assert window.inspector.names.text() == "d"
    qtbot.keyClick(view.viewport(), Qt.Key.Key_Right)
    assert view.selected_node() == down  # nothing drawn to the right of d: it stays
    qtbot.keyClick(view.viewport(), Qt.Key.Key_Left)
    assert view.selected_node() == cap.node_named("c")  # the other input of e, beside d in its row
    qtbot.keyClick(view.viewport(), Qt.Key.Key_Up)
    assert view.selected_node() == e
    qtbot.keyClick(view.viewport(), Qt.Key.Key_Escape)
    assert view.selected_node() is None and window.inspector.title.text() == "Click a node to inspect it."
    # The arrows are the editor's when it has the focus: the graph does not move.
    view.select_node(e)
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key.Key_Down)
    assert view.selected_node() == e


def test_about_says_the_versions(qtbot, window):
    text = window.about_text()
    assert f"PyTorch {torch.__version__}" in text and text.startswith("gradexplorer ")


def test_the_window_fits_a_small_laptop_screen(qtbot, window):
    size = initial_size(QRect(0, 0, 1366, 768))
    assert (size.width(), size.height()) == (1229, 691)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1229 and hint.height() <= 691, hint
    window.resize(size)
    qtbot.waitUntil(lambda: window.width() <= 1366, timeout=3000)
    copy = window.inspector.copy_path
    corner = copy.mapTo(window, copy.rect().bottomRight())
    assert corner.x() <= window.width() and window.statusBar().geometry().bottom() <= window.height()


def test_a_png_export_of_a_tall_graph_stays_within_the_stated_size(qtbot, window, tmp_path):
    from PySide6.QtGui import QImage

    window.editor.setPlainText("x = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(400):\n"
                               "    y = y * 1.0001\ny.sum().backward()\n")
    run_and_wait(qtbot, window)
    view = window.graph_view
    assert view.exporter.export_size(2.0)[1] > view.exporter.MAX_EXPORT_PIXELS  # the drawing is taller than the limit at 2x
    assert window.files.export("png", tmp_path / "tall", scale=2.0)
    image = QImage(str(tmp_path / "tall.png"))
    assert 0 < image.height() <= view.exporter.MAX_EXPORT_PIXELS and image.width() <= view.exporter.MAX_EXPORT_PIXELS
    assert image.height() >= view.exporter.MAX_EXPORT_PIXELS - 2  # scaled down to the limit, not far below it


def test_a_reopened_session_selects_its_node_inside_a_folded_box(qtbot, window, tmp_path):
    window.example_actions["10_transformer_training"].trigger()
    cap = run_and_wait(qtbot, window).capture
    inner = next(n for n, a in cap.graph.nodes(data=True) if (a["module"] or "").startswith("model.layers.1.linear1")
                 and a["kind"] == "op")
    window.picture.show_nodes([inner])
    assert window.graph_view.selected_node() == inner
    path = tmp_path / "t.gxsession"
    window.ask_session_save_path = lambda: str(path)
    assert window.files.save_as()
    window.files.new_session()
    assert window.files.open_path(path)
    assert window.result.display.owner.get(inner, inner) == inner  # its box was opened
    assert window.graph_view.selected_node() == inner

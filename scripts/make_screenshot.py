"""Render the README and docs screenshots: real windows, real runs.

Usage::

    python scripts/make_screenshot.py [OUT.png]    (default docs/screenshot.png)
    python scripts/make_screenshot.py --docs [DIR] (every English docs picture, default docs/)
    python scripts/make_screenshot.py --replay [DIR] (the replay pictures only)
    python scripts/make_screenshot.py --compare [DIR] (the comparison pictures only)
    python scripts/make_screenshot.py --zh-TW [DIR] (the app in Traditional Chinese)

The first form draws the next_functions example with node c selected. The
second also draws a real multi-file project, a 3-step CNN loop on its last
pass (the drawing only, to set beside torchviz's), the overview of the real
models among the examples (a
2-layer and a 40-layer transformer training step, a ResNet-like CNN, an
unrolled LSTM), what a user sees when they open them, and a few views after
clicks (a stage opened, gradient-norm colouring, a filter).

Runs offscreen unless a display is set (QT_QPA_PLATFORM decides).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QDockWidget  # noqa: E402

from gradexplorer.resources import read_example, resource_root  # noqa: E402
from gradexplorer.ui.app import create_application  # noqa: E402
from tests.programs import CNN_LOOP  # noqa: E402  (also scripts/make_torchviz_picture.py's program)

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _run(window, code: str) -> None:
    window.editor.setPlainText(code)
    _press_run(window)


def _press_run(window) -> None:
    """Run what the window holds and wait for the picture."""
    loop = QEventLoop()
    window.run_finished.connect(lambda _result: loop.quit())
    QTimer.singleShot(120_000, loop.quit)
    window.start_run()
    loop.exec()
    window.run_finished.disconnect()


def _settle(app) -> None:
    for _ in range(5):
        app.processEvents()


def _save(window, app, out: Path) -> None:
    _settle(app)
    window.grab().save(str(out))
    print(f"wrote {out}")


def readme_picture(window, app, out: Path) -> None:
    window.files.load_example(resource_root() / "examples" / "03_next_functions.py")
    _run(window, window.editor.toPlainText())
    window.graph_view.select_node(window.result.capture.node_named("c"))
    _save(window, app, out)


def project_pictures(window, app, folder: Path) -> None:
    """A real multi-file project: train.py with arguments, a node made in pkg/model.py, its file opened."""
    import shutil

    project = Path(tempfile.mkdtemp()) / "proj"
    shutil.copytree(Path(__file__).resolve().parent.parent / "tests" / "projects" / "package_relative", project,
                    ignore=shutil.ignore_patterns("__pycache__", "flat.py"))
    window.files.open_path(project / "train.py")
    window.run_commands.set_run_arguments(["--steps", "2"])
    _press_run(window)
    cap = window.result.capture
    node = next(n for n, a in cap.graph.nodes(data=True) if a["source"] is not None
                and a["source"].file == "pkg/layers.py" and a["op"] == "ReluBackward0")
    window.picture.show_nodes([node])
    source = cap.graph.nodes[node]["source"]
    window.show_source(source.file, source.line)
    _save(window, app, folder / "project-model-file.png")
    window.sources.show_program()
    window.picture.show_nodes([cap.node_named("loss")])
    window.bottom_tabs.setCurrentWidget(window.modules_pane)
    _save(window, app, folder / "project-train-main.png")
    window.bottom_tabs.setCurrentIndex(0)
    window.files.new_session()  # the next pictures are untitled editor code, not this script


def docs_pictures(window, app, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    project_pictures(window, app, folder)
    _run(window, CNN_LOOP)  # opens on its last pass, as torchviz draws one
    _settle(app)
    window.graph_view.grab().save(str(folder / "pass-view-cnn.png"))
    print(f"wrote {folder / 'pass-view-cnn.png'}")
    window.shapes_action.trigger()  # View > Shapes on Edges
    _settle(app)
    window.graph_view.grab().save(str(folder / "shapes-on-edges-cnn.png"))
    print(f"wrote {folder / 'shapes-on-edges-cnn.png'}")
    window.shapes_action.trigger()
    transformer = read_example("10_transformer_training")
    _run(window, transformer)
    _save(window, app, folder / "overview-transformer-2-layers.png")
    window.picture.expand_group("model.layers.1")
    _save(window, app, folder / "overview-transformer-layer-opened.png")
    _run(window, re.sub(r"^NUM_LAYERS = \d+$", "NUM_LAYERS = 40", transformer, flags=re.M))
    _save(window, app, folder / "overview-transformer-40-layers.png")
    _run(window, read_example("11_resnet_cnn"))
    _save(window, app, folder / "overview-resnet.png")
    window.picture.expand_group("model.stage2")
    window.picture.expand_group("model.stage2.0")
    window.colour_combo.setCurrentIndex(window.colour_combo.findData("grad_norm"))
    window.colour_combo.activated.emit(window.colour_combo.currentIndex())
    _save(window, app, folder / "resnet-block-gradient-norm.png")
    window.colour_combo.setCurrentIndex(window.colour_combo.findData("kind"))
    window.colour_combo.activated.emit(window.colour_combo.currentIndex())
    dock = window.findChild(QDockWidget, "bottom_dock")
    window.resizeDocks([dock], [430], Qt.Orientation.Vertical)
    window.bottom_tabs.setCurrentWidget(window.gradient_flow_pane)
    _save(window, app, folder / "gradient-flow-resnet.png")
    window.resizeDocks([dock], [190], Qt.Orientation.Vertical)
    window.bottom_tabs.setCurrentIndex(0)
    _run(window, read_example("12_lstm_unrolled"))
    _save(window, app, folder / "overview-lstm.png")
    _run(window, PLOTTING_LOOP)
    window.resizeDocks([dock], [560], Qt.Orientation.Vertical)
    window.bottom_tabs.setCurrentWidget(window.plots_pane)
    _save(window, app, folder / "plots-tab.png")
    window.resizeDocks([dock], [190], Qt.Orientation.Vertical)
    window.bottom_tabs.setCurrentIndex(0)
    dark_pictures(window, app, folder)


#: A small training loop that plots its loss and each layer's gradient norm (the Plots tab's picture).
PLOTTING_LOOP = """\
import matplotlib.pyplot as plt
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 8), torch.randn(64, 1)
losses, norms = [], {name: [] for name, _ in model.named_parameters()}
for step in range(30):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    for name, p in model.named_parameters():
        norms[name].append(p.grad.norm().item())
    optimizer.step()
    losses.append(loss.item())

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
left.plot(losses)
left.set_title("loss")
for name, values in norms.items():
    right.semilogy(values, label=name)
right.set_title("gradient norm per parameter")
right.legend(fontsize=7)
fig.suptitle("30 SGD steps")
plt.show()
"""


def replay_pictures(window, app, folder: Path) -> None:
    """The seed lesson's backward pass replayed: one picture per step (``replay-seed-1.png`` ...)."""
    from tests.programs import SEED_LESSON

    folder.mkdir(parents=True, exist_ok=True)
    _run(window, SEED_LESSON)
    window.graph_view.zoom.fit()
    bar = window.replay.bar
    for step in range(5):
        bar.forward_action.trigger()
        _save(window, app, folder / f"replay-seed-{step + 1}.png")
    window.replay.stop()


def comparison_pictures(window, app, folder: Path) -> None:
    """File > Compare with Session: the seed's ``b = a`` against ``b = a + 0``, a frozen layer, float32 vs float64,
    a training loop with another learning rate (its last pass)."""
    from gradexplorer import capture
    from gradexplorer.core.capture.script import ScriptRun
    from gradexplorer.core.io.session import save_session, session_from_capture
    from tests.core.test_diff import MODEL, TRAIN

    folder.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp())
    alias = "a = torch.tensor(1.0, requires_grad=True)\nwith torch.no_grad():\n    b = a\nb.backward()\n"
    _run(window, alias)
    save_session(window.files.current_session(), work / "alias.gxsession")
    _run(window, alias.replace("b = a\n", "b = a + 0\n"))
    window.comparison.compare_with(work / "alias.gxsession")
    window.graph_view.select_node(window.result.capture.node_named("a"))
    _save(window, app, folder / "compare-seed-alias.png")

    project = work / "proj"
    project.mkdir()
    (project / "model.py").write_text(MODEL, encoding="utf-8")
    (project / "train.py").write_text(TRAIN, encoding="utf-8")
    for name, args in (("plain", ()), ("frozen", ("--freeze",)), ("double", ("--double",))):
        cap = capture((project / "train.py").read_text(encoding="utf-8"), filename=str(project / "train.py"),
                      run=ScriptRun(args, str(work)))
        save_session(session_from_capture(cap), work / f"{name}.gxsession")
    window.files.open_session(work / "frozen.gxsession", prompt=False)
    window.comparison.compare_with(work / "plain.gxsession")
    graph = window.result.shown_graph
    window.graph_view.select_node(next(n for n in graph if graph.nodes[n]["names"] == ("model.embed.weight",)))
    _save(window, app, folder / "compare-frozen-layer.png")
    window.files.open_session(work / "double.gxsession", prompt=False)
    window.comparison.compare_with(work / "plain.gxsession")
    window.graph_view.select_node(window.result.capture.node_named("model.head.weight"))
    _save(window, app, folder / "compare-float64.png")
    from tests.ui.test_comparison import LOOP

    _run(window, LOOP.replace("LR", "0.5"))
    save_session(window.files.current_session(), work / "lr05.gxsession")
    _run(window, LOOP.replace("LR", "0.1"))
    window.comparison.compare_with(work / "lr05.gxsession")
    window.graph_view.select_node(window.result.capture.node_named("model.0.weight"))
    _save(window, app, folder / "compare-training-loop.png")
    dock = window.inspector.parentWidget()
    while not isinstance(dock, QDockWidget):
        dock = dock.parentWidget()
    dock.setFloating(True)  # a wide inspector: A and B side by side
    dock.resize(1000, 640)
    _settle(app)
    dock.grab().save(str(folder / "compare-side-by-side.png"))
    print(f"wrote {folder / 'compare-side-by-side.png'}")
    dock.setFloating(False)
    window.files.new_session()


def chinese_pictures(window, app, folder: Path) -> None:
    """The app in Traditional Chinese (View > Language): the seed's ``b = a`` lesson with its explanation, the
    module audit of the register_buffer lesson, and the View menu (``zh-TW-*.png``)."""
    folder.mkdir(parents=True, exist_ok=True)
    window.example_actions["01_no_grad_alias"].trigger()  # Examples menu: the lesson with its comments in Chinese
    _press_run(window)
    window.graph_view.select_node(window.result.capture.node_named("a"))
    window.bottom_tabs.setCurrentWidget(window.tensors_pane)
    _save(window, app, folder / "zh-TW-seed-alias.png")
    window.example_actions["05_register_buffer"].trigger()
    _press_run(window)
    window.bottom_tabs.setCurrentWidget(window.modules_pane)
    window.modules_pane.expandAll()
    _save(window, app, folder / "zh-TW-module-audit.png")
    from PySide6.QtGui import QPainter, QPixmap

    view = window.language_menu.parentWidget()  # the View menu, and its Language submenu beside it
    view.popup(window.mapToGlobal(window.rect().topLeft()))
    window.language_menu.popup(view.mapToGlobal(view.actionGeometry(window.language_menu.menuAction()).topRight()))
    _settle(app)
    parts = [view.grab(), window.language_menu.grab()]
    top = view.actionGeometry(window.language_menu.menuAction()).top()
    picture = QPixmap(parts[0].width() + parts[1].width(), max(parts[0].height(), top + parts[1].height()))
    picture.fill(window.palette().window().color())
    painter = QPainter(picture)
    painter.drawPixmap(0, 0, parts[0])
    painter.drawPixmap(parts[0].width(), top, parts[1])
    painter.end()
    picture.save(str(folder / "zh-TW-view-menu.png"))
    print(f"wrote {folder / 'zh-TW-view-menu.png'}")
    window.language_menu.hide()
    view.hide()


def dark_pictures(window, app, folder: Path) -> None:
    """The ResNet overview with a dark palette: boxes, legend and minimap follow it."""
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#161b22"), (QPalette.ColorRole.WindowText, "#e6edf3"),
                         (QPalette.ColorRole.Base, "#0d1117"), (QPalette.ColorRole.AlternateBase, "#161b22"),
                         (QPalette.ColorRole.Text, "#e6edf3"), (QPalette.ColorRole.Button, "#21262d"),
                         (QPalette.ColorRole.ButtonText, "#e6edf3")):
        palette.setColor(role, QColor(colour))
    app.setStyle("Fusion")
    app.setPalette(palette)
    _run(window, read_example("11_resnet_cnn"))
    window.picture.set_depth(3)
    _save(window, app, folder / "overview-resnet-dark.png")


def main() -> int:
    args = sys.argv[1:]
    app = create_application([])
    # A throw-away settings file: the picture must not depend on this user's layout.
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    from gradexplorer.ui.main_window import MainWindow

    if args and args[0] == "--zh-TW":
        from gradexplorer.ui.language import install_language

        install_language("zh_TW")  # before the window takes its texts, as View > Language's next start does
    window = MainWindow()
    window.ask_unsaved_changes = lambda: "discard"  # no dialog: the pictures' runs are thrown away
    window.resize(1500, 950)
    window.show()
    if args and args[0] == "--docs":
        docs_pictures(window, app, Path(args[1]) if len(args) > 1 else DOCS)
        replay_pictures(window, app, Path(args[1]) if len(args) > 1 else DOCS)
        comparison_pictures(window, app, Path(args[1]) if len(args) > 1 else DOCS)
    elif args and args[0] == "--compare":
        comparison_pictures(window, app, Path(args[1]) if len(args) > 1 else DOCS)
    elif args and args[0] == "--zh-TW":
        chinese_pictures(window, app, Path(args[1]) if len(args) > 1 else DOCS)
    elif args and args[0] == "--replay":
        replay_pictures(window, app, Path(args[1]) if len(args) > 1 else DOCS)
    else:
        readme_picture(window, app, Path(args[0]) if args else DOCS / "screenshot.png")
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())

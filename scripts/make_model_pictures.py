"""gradexplorer's first picture of real models beside torchviz's and torchview's pictures of the same model.

Usage::

    python scripts/make_model_pictures.py [--only NAME] [OUT_DIR]   (default docs/models/)

For each model: ``NAME-gradexplorer.png`` (the window as a user sees it after
Run), ``NAME-torchviz.png`` (``make_dot`` of the same loss, with parameter
names) and ``NAME-torchview.png`` (``draw_graph`` of the same model and
input, depth 3). The torchvision models (ViT-B/16, DenseNet-121) need
torchvision; torchviz, torchview and Graphviz's ``dot`` are needed for their
pictures. None of them is a dependency of gradexplorer: what is missing is
said and skipped. Runs offscreen unless a display is set (QT_QPA_PLATFORM).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.programs import CNN_LOOP  # noqa: E402

#: One classification step of a torchvision model, as a user would write it.
_TORCHVISION_STEP = """\
import torchvision
torch.manual_seed(0)
model = torchvision.models.{builder}()
images, labels = torch.randn(1, 3, {size}, {size}), torch.tensor([3])
loss = nn.functional.cross_entropy(model(images), labels)
loss.backward()
"""

#: name -> (program, model variable, input expression for torchview, needs torchvision)
MODELS = {
    "cnn-3-steps": (CNN_LOOP, "model", "images", False),
    "transformer-6-layers": ("""\
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
model = nn.TransformerEncoder(layer, num_layers=6)
head = nn.Linear(32, 1)
x, target = torch.randn(4, 10, 32), torch.randn(4, 1)
loss = nn.functional.mse_loss(head(model(x).mean(dim=1)), target)
loss.backward()
""", "model", "x", False),
    "mlp-200-steps": ("""\
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(64, 8), torch.randn(64, 1)
for step in range(200):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
""", "model", "x", False),
    "t5-like-shared-embedding": ("""\
class Seq2Seq(nn.Module):
    def __init__(self, vocabulary=100, width=32):
        super().__init__()
        self.shared = nn.Embedding(vocabulary, width)  # encoder, decoder and output head share it (as T5)
        self.transformer = nn.Transformer(width, 4, num_encoder_layers=2, num_decoder_layers=2,
                                          dim_feedforward=64, batch_first=True)
        self.head = nn.Linear(width, vocabulary, bias=False)
        self.head.weight = self.shared.weight

    def forward(self, source, target):
        return self.head(self.transformer(self.shared(source), self.shared(target)))


torch.manual_seed(0)
model = Seq2Seq()
source, target = torch.randint(0, 100, (2, 7)), torch.randint(0, 100, (2, 5))
logits = model(source, target[:, :-1])
loss = nn.functional.cross_entropy(logits.reshape(-1, 100), target[:, 1:].reshape(-1))
loss.backward()
""", "model", "(source, target[:, :-1])", False),
    "vit-b-16": (_TORCHVISION_STEP.format(builder="vit_b_16", size=224), "model", "images", True),
    "densenet-121": (_TORCHVISION_STEP.format(builder="densenet121", size=64), "model", "images", True),
}


def _run_in_window(window, code: str) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    window.editor.setPlainText(code)
    loop = QEventLoop()
    window.run_finished.connect(lambda _result: loop.quit())
    QTimer.singleShot(600_000, loop.quit)
    window.start_run()
    loop.exec()
    window.run_finished.disconnect()


def gradexplorer_picture(window, app, code: str, out: Path) -> str:
    started = time.perf_counter()
    _run_in_window(window, code)
    for _ in range(5):
        app.processEvents()
    window.grab().save(str(out))
    cap = window.result.capture
    return f"{cap.graph.number_of_nodes()} nodes, {len(cap.passes)} pass(es), {time.perf_counter() - started:.1f} s"


def _namespace(code: str) -> dict:
    import torch
    from torch import nn

    namespace = {"torch": torch, "nn": nn, "__name__": "__main__"}
    exec(code.replace("loss.backward()", "loss.backward(retain_graph=True)"), namespace)  # torchviz reads it after
    return namespace


def torchviz_picture(code: str, model: str, out: Path) -> str:
    try:
        from torchviz import make_dot
    except ImportError:
        return "skipped: torchviz is not installed"
    namespace = _namespace(code)
    dot = make_dot(namespace["loss"], params=dict(namespace[model].named_parameters()))
    dot.format = "png"
    started = time.perf_counter()
    dot.render(str(out.with_suffix("")), cleanup=True)
    return f"dot {time.perf_counter() - started:.1f} s"


def torchview_picture(code: str, model: str, inputs: str, out: Path) -> str:
    try:
        from torchview import draw_graph
    except ImportError:
        return "skipped: torchview is not installed"
    namespace = _namespace(code)
    data = eval(inputs, namespace)  # noqa: S307 - the script's own expressions
    graph = draw_graph(namespace[model], input_data=list(data) if isinstance(data, tuple) else data, depth=3,
                       expand_nested=True, save_graph=False)
    graph.visual_graph.format = "png"
    started = time.perf_counter()
    graph.visual_graph.render(str(out.with_suffix("")), cleanup=True)
    return f"dot {time.perf_counter() - started:.1f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=str(Path(__file__).resolve().parent.parent / "docs" / "models"))
    parser.add_argument("--only", help="only the model whose name contains this")
    parser.add_argument("--ours-only", action="store_true",
                        help="only gradexplorer's pictures (torchviz's dot takes minutes on DenseNet)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QSettings

    from gradexplorer.ui.app import create_application

    app = create_application([])
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    from gradexplorer.ui.main_window import MainWindow

    window = MainWindow()
    window.ask_unsaved_changes = lambda: "discard"
    window.resize(1500, 950)
    window.show()
    try:
        import torchvision  # noqa: F401
        have_torchvision = True
    except ImportError:
        have_torchvision = False
    for name, (code, model, inputs, needs_torchvision) in MODELS.items():
        if args.only and args.only not in name:
            continue
        if needs_torchvision and not have_torchvision:
            print(f"{name}: skipped (needs torchvision)")
            continue
        print(f"{name}: gradexplorer {gradexplorer_picture(window, app, code, out / f'{name}-gradexplorer.png')}",
              flush=True)
        if args.ours_only:
            continue
        print(f"{name}: torchviz {torchviz_picture(code, model, out / f'{name}-torchviz.png')}", flush=True)
        print(f"{name}: torchview {torchview_picture(code, model, inputs, out / f'{name}-torchview.png')}",
              flush=True)
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())

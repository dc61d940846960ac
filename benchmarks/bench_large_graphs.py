"""Big graphs in the view: first picture, expanding a module, GUI-thread stalls.

Usage::

    python benchmarks/bench_large_graphs.py                 # 10k and 50k nodes
    python benchmarks/bench_large_graphs.py --sizes 10000 --dot

For an ``nn.TransformerEncoder`` and a ResNet-like CNN scaled to about N
autograd nodes, with the capture already done (as when the worker returns):

* ``first``: from the capture result to the first drawn picture: grouping and
  layout in a worker thread (as the app does), then the scene build and the
  first paint on the GUI thread;
* ``boxes``: what that first picture holds (module boxes and loose nodes);
* ``expand``: opening the biggest module box one level (the box's part of the
  display graph, a layout of only its content put in its place, the scene),
  GUI thread;
* ``stall``: the longest gap between ticks of a 10 ms QTimer heartbeat on the
  GUI thread while the worker lays out (Python threads share the GIL, so this
  is what a user feels), and the longest single GUI-thread step;
* ``dot``: Graphviz ``dot`` on the full graph, when installed and ``--dot`` is
  given (it takes tens of seconds at 10k nodes), as a ratio to ``first``.

Targets (issue 6): first picture of a 50k-node graph under 3 s; no GUI-thread
block over 100 ms during layout; expanding one module under 200 ms. Each
figure is the median of ``--repeat`` passes over the same capture (after one
warm-up pass), with its spread; the script exits non-zero when a target is
missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer  # noqa: E402

from bench_capture import transformer_code  # noqa: E402
from bench_graph_view import render, time_dot  # noqa: E402
from gradexplorer import capture  # noqa: E402
from gradexplorer.core.analysis.grouping import expand_display, forget  # noqa: E402
from gradexplorer.ui.app import create_application  # noqa: E402
from gradexplorer.ui.graph_view import GraphView  # noqa: E402
from gradexplorer.core.view.picture import expanded_layout, prepare_view  # noqa: E402

TARGET_FIRST_S = 3.0
TARGET_STALL_S = 0.100
TARGET_EXPAND_S = 0.200


def resnet_code(nodes: int) -> str:
    blocks = max(1, nodes // 14)
    return f"""
torch.manual_seed(0)

class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(out)) + x)

model = nn.Sequential(*[Block(4) for _ in range({blocks})])
x = torch.randn(2, 4, 6, 6)
loss = model(x).mean()
loss.backward()
"""


WORKLOADS = {"transformer": transformer_code, "resnet": resnet_code}


class Heartbeat:
    """Ticks every 10 ms on the GUI thread and remembers the longest gap."""

    def __init__(self) -> None:
        self.clock = QElapsedTimer()
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.longest = 0.0
        self._last = 0

    def start(self) -> None:
        self.longest = 0.0
        self.clock.start()
        self._last = 0
        self.timer.start()

    def _tick(self) -> None:
        now = self.clock.elapsed()
        self.longest = max(self.longest, (now - self._last) / 1000)
        self._last = now

    def stop(self) -> float:
        self.timer.stop()
        self._tick()
        return self.longest


def measure(app, cap, use_dot: bool) -> dict:
    """One pass from a finished capture to its first picture, then opening its biggest box."""
    graph = cap.graph
    forget(graph)  # as on a fresh capture: the module tree and the boxes' gradient norms are not known yet
    view = GraphView()
    view.resize(1200, 800)
    view.show()
    app.processEvents()
    beat = Heartbeat()

    start = time.perf_counter()
    beat.start()
    done: dict = {}
    loop = QEventLoop()

    def work() -> None:  # the worker thread's part, as in CaptureWorker.run
        done["view"] = prepare_view(cap)
        QTimer.singleShot(0, loop.quit)

    thread = threading.Thread(target=work)
    thread.start()
    while thread.is_alive():
        loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    thread.join()
    layout_stall = beat.stop()
    layout_s = time.perf_counter() - start
    display, layout = done["view"]
    gui_start = time.perf_counter()
    view.show_graph(graph, layout, passes_ran=True, display=display)
    app.processEvents()
    paint_s = render(view)
    gui_s = time.perf_counter() - gui_start
    first_s = time.perf_counter() - start

    # Expand the largest module box one level.
    group = max(display.groups.values(), key=lambda g: len(g.members)) if display.groups else None
    expand_s = None
    if group is not None:
        t = time.perf_counter()
        new_display = expand_display(graph, display, group.path)  # what PictureActions.expand_group does
        new_layout = expanded_layout(graph, display, layout, new_display, group.node_id)
        view.show_graph(graph, new_layout, passes_ran=True, display=new_display)
        app.processEvents()
        expand_s = time.perf_counter() - t
    dot_s = time_dot(graph) if use_dot else None
    view.close()
    return {"nodes": graph.number_of_nodes(), "boxes": len(display.nodes), "first": first_s,
            "layout": layout_s, "gui": gui_s, "paint": paint_s, "stall": layout_stall, "expand": expand_s,
            "expanded": group.path if group else "-", "dot": dot_s}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--workloads", default="transformer,resnet")
    parser.add_argument("--dot", action="store_true", help="also time Graphviz dot (slow)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    app = create_application([])
    print(f"median of {args.repeat} (min..max) after a warm-up pass, the capture made once per graph")
    header = (f"{'workload':12} {'nodes':>7} {'boxes':>6} {'first s':>19} {'layout s':>9} {'gui s':>6} "
              f"{'stall ms':>14} {'expand s':>19}  expanded / dot")
    print(header)
    print("-" * len(header))
    missed = []
    for name in args.workloads.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            cap = capture(WORKLOADS[name](size))
            assert cap.ok, cap.error
            measure(app, cap, False)  # warm-up: first-time costs of the view and the layout code
            runs = [measure(app, cap, args.dot and i == 0) for i in range(args.repeat)]
            del cap

            def med(key):
                return statistics.median(r[key] for r in runs)

            def span(key, scale=1.0, digits=3):
                values = [r[key] * scale for r in runs]
                return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}..{max(values):.{digits}f})"

            r = runs[0]
            has_expand = r["expand"] is not None
            expand = span("expand") if has_expand else "-"
            dot = "" if r["dot"] is None else f"; dot {r['dot']:.1f} s = {r['dot'] / med('first'):.0f}x first"
            print(f"{name:12} {r['nodes']:7d} {r['boxes']:6d} {span('first'):>19} {med('layout'):9.3f} "
                  f"{med('gui'):6.3f} {span('stall', 1000, 0):>14} {expand:>19}  {r['expanded']}{dot}", flush=True)
            if r["nodes"] >= 40_000 and med("first") > TARGET_FIRST_S:
                missed.append(f"{name}@{r['nodes']}: first picture {med('first'):.2f} s > {TARGET_FIRST_S} s")
            if med("stall") > TARGET_STALL_S:
                missed.append(f"{name}@{r['nodes']}: GUI stall {med('stall') * 1000:.0f} ms > 100 ms")
            if has_expand and med("expand") > TARGET_EXPAND_S:
                missed.append(f"{name}@{r['nodes']}: expand {med('expand'):.3f} s > {TARGET_EXPAND_S} s")
            if med("gui") > TARGET_STALL_S:
                print(f"  note: the GUI-thread scene build + first paint is one {med('gui') * 1000:.0f} ms step")
    print()
    if missed:
        print("targets missed: " + "; ".join(missed))
        return 1
    print("targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())

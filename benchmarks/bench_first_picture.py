"""Run to first picture, and to everything, against a plain forward+backward of the same step (issue 30).

Usage::

    python benchmarks/bench_first_picture.py                          # 10k and 50k nodes, transformer and MLP
    python benchmarks/bench_first_picture.py --sizes 10000 --models mlp --rounds 5
    python benchmarks/bench_first_picture.py --memory                 # also peak memory (50k step, one 2 GiB tensor)

Every figure is a whole process, started fresh for each measurement, in
alternating pairs (plain, app, plain, app, ...) so that a machine that gets
busier halfway loads both sides alike:

* ``plain``: the program run by Python with torch, timed from the start of
  its code to the end of its ``backward()`` (interpreter and ``import
  torch`` not counted: the app has them loaded too);
* ``app``: the real :class:`~gradexplorer.ui.main_window.MainWindow`
  (offscreen), its Run pressed: ``picture`` is the time until the first
  picture is drawn (the window's ``picture_ready`` handler has returned),
  ``all`` until the run has finished with every pane filled; then Run is
  pressed again at once and ``2nd picture`` is the same measure for it.

The run's worker is left to wait on an idle event loop (``QEventLoop.exec``),
never a loop that spins ``processEvents``: spinning made the worker 2.6x
slower. torch's thread count is printed (``--threads`` pins it in both
processes), and the 1-minute load average is printed beside each figure.

Targets: picture <= 2.0x plain and all <= 3.0x plain at every size and
model; the second run's picture within 1.1x of the first's. With
``--memory``: peak RSS <= 2.5x plain for the 50k transformer step and
<= 1.5x plain for a program whose memory is one 2 GiB tensor, in the app and
in ``gradexplorer.capture()``; and the 50k step Run four times in a row, each
the moment the last ended: peak RSS <= 2.5x one run's, the later pictures
within 1.3x of the first's (median). Medians over ``--rounds`` (at least 5 for
the targets to count), with min..max; exits non-zero when one is missed.

With ``--peers``, the same step drawn by the peers that are installed, as
a user of each would do it after the same program, in the same alternating
rounds (each skipped with a note when missing): ``torchviz`` (``make_dot``
of the loss with the model's parameters, rendered to PNG by Graphviz's
``dot``) and ``torchview`` (``draw_graph`` of the model on the input,
rendered to PNG); TorchLens is looked for and named when absent (not
measured yet). Their ratio is program plus picture over the plain program.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

TARGET_PICTURE_RATIO = 2.0
TARGET_ALL_RATIO = 3.0
TARGET_SECOND_RUN_RATIO = 1.1
TARGET_PEAK_RATIO_50K = 2.5
TARGET_PEAK_RATIO_BIG_TENSOR = 1.5
MIN_ROUNDS_FOR_TARGETS = 5
#: ``--memory``: Run pressed this many times, each the moment the last one ended.
RUNS_IN_A_ROW = 4
#: Their peak RSS over one run's: the capture on screen, the one a run replaces and one being freed, not one
#: more per run.
TARGET_PEAK_RATIO_RUNS_IN_A_ROW = 2.5
#: The median of the later runs' pictures over the first's. Each run after the second takes apart the capture
#: before the last first (0.25 s at 50k) and faults in fresh pages; one more capture held per run, with the
#: last capture's autosave still encoding beside it, made the third and fourth 1.5x and 2.0x (2026-12-07).
TARGET_RUNS_IN_A_ROW_MEDIAN = 1.3

#: One tensor of 2 GiB (float32), used once: the program the memory target is about.
BIG_TENSOR_CODE = """
big = torch.ones(2**29)
total = big.sum()
"""


def program(model: str, size: int) -> str:
    from bench_capture import mlp_code, transformer_code

    return {"mlp": mlp_code, "transformer": transformer_code}[model](size)


def _peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_plain(code: str) -> dict:
    import torch

    namespace = {"__name__": "__main__", "torch": torch, "nn": torch.nn, "device": torch.device("cpu")}
    compiled = compile(code, "<bench>", "exec")
    started = time.perf_counter()
    exec(compiled, namespace)
    return {"seconds": time.perf_counter() - started, "peak_mib": _peak_rss_mib(), "threads": torch.get_num_threads()}


def child_capture(code: str) -> dict:
    from gradexplorer import capture

    started = time.perf_counter()
    cap = capture(code)
    return {"seconds": time.perf_counter() - started, "peak_mib": _peak_rss_mib(), "ok": cap.ok}


def child_peer(code: str, peer: str) -> dict:
    """Run the program, then draw its picture as a user of ``peer`` would; seconds from the program's start."""
    import tempfile

    import torch

    namespace = {"__name__": "__main__", "torch": torch, "nn": torch.nn, "device": torch.device("cpu")}
    compiled = compile(code, "<bench>", "exec")
    out = Path(tempfile.mkdtemp()) / "picture"
    started = time.perf_counter()
    exec(compiled, namespace)
    if peer == "torchviz":
        from torchviz import make_dot

        make_dot(namespace["loss"], params=dict(namespace["model"].named_parameters())).render(str(out), format="png")
    else:
        from torchview import draw_graph

        draw_graph(namespace["model"], input_data=namespace["x"], save_graph=False).visual_graph.render(
            str(out), format="png")
    return {"seconds": time.perf_counter() - started, "peak_mib": _peak_rss_mib()}


def child_app(code: str, runs: int) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import tempfile

    import torch
    from PySide6.QtCore import QEventLoop, QSettings, QTimer

    from gradexplorer.ui.app import create_application

    app = create_application([])
    from gradexplorer.ui.main_window import MainWindow
    from gradexplorer.ui.settings import Settings

    folder = tempfile.mkdtemp()
    window = MainWindow(Settings(QSettings(f"{folder}/s.ini", QSettings.Format.IniFormat)), data_dir=Path(folder))
    window.ask_unsaved_changes = lambda: "discard"
    window.resize(1400, 900)
    window.show()
    window.editor.setPlainText(code)
    app.processEvents()
    out: dict = {"threads": torch.get_num_threads()}
    for index in range(runs):
        marks: dict[str, float] = {}
        loop = QEventLoop()
        # Connected after the window's own handler: it runs once the picture is drawn.
        on_picture = lambda _result: marks.setdefault("picture", time.perf_counter())  # noqa: E731
        on_finished = lambda _result: (marks.setdefault("all", time.perf_counter()), loop.quit())  # noqa: E731
        window.runs.picture_ready.connect(on_picture)
        window.run_finished.connect(on_finished)
        QTimer.singleShot(900_000, loop.quit)
        started = time.perf_counter()
        window.start_run()
        loop.exec()
        window.runs.picture_ready.disconnect(on_picture)
        window.run_finished.disconnect(on_finished)
        cap = window.result.capture
        out[f"run{index + 1}"] = {"picture": marks.get("picture", marks["all"]) - started,
                                  "all": marks["all"] - started, "nodes": cap.graph.number_of_nodes(),
                                  "ok": cap.ok, "timings": {k: round(v, 3) for k, v in cap.timings.items()}}
    # The autosave of the last capture is part of what a run costs: its peak counts too.
    idle = QEventLoop()
    poll = QTimer()
    poll.timeout.connect(lambda: None if window.jobs.busy else idle.quit())
    poll.start(20)
    idle.exec()
    out["peak_mib"] = _peak_rss_mib()
    window.shutdown()
    return out


def installed_peers() -> list[str]:
    """The peers this machine can run (torchviz needs Graphviz's ``dot`` too)."""
    return [name for name, ok in (("torchviz", importlib.util.find_spec("torchviz") is not None
                                   and shutil.which("dot") is not None),
                                  ("torchview", importlib.util.find_spec("torchview") is not None
                                   and shutil.which("dot") is not None)) if ok]


def run_child(kind: str, code: str, *, threads: int | None, runs: int = 2) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    command = [sys.executable, __file__, "--child", kind, "--runs", str(runs)]
    done = subprocess.run(command, input=code, capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"the {kind} child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["load"] = os.getloadavg()[0]
    return result


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} ({min(values):.2f}..{max(values):.2f})"


def measure_speed(model: str, size: int, rounds: int, threads: int | None, missed: list[str],
                  peers: list[str]) -> None:
    code = program(model, size)
    plain, app = [], []
    drawn: dict[str, list[dict]] = {peer: [] for peer in peers}
    for _ in range(rounds):
        plain.append(run_child("plain", code, threads=threads))
        app.append(run_child("app", code, threads=threads))
        for peer in peers:
            drawn[peer].append(run_child(peer, code, threads=threads))
    nodes = app[0]["run1"]["nodes"]
    seconds = [p["seconds"] for p in plain]
    picture = [a["run1"]["picture"] / p["seconds"] for a, p in zip(app, plain)]
    everything = [a["run1"]["all"] / p["seconds"] for a, p in zip(app, plain)]
    second = [a["run2"]["picture"] / a["run1"]["picture"] for a in app]
    loads = [p["load"] for p in plain] + [a["load"] for a in app]
    print(f"{model:<12}{nodes:>7}  plain {_spread(seconds)} s   picture {_spread(picture)}x   "
          f"all {_spread(everything)}x   2nd run's picture {_spread(second)}x of the 1st   "
          f"load {min(loads):.1f}..{max(loads):.1f}  torch threads {plain[0]['threads']}/{app[0]['threads']}",
          flush=True)
    phases = {k: statistics.median(a["run1"]["timings"].get(k, 0.0) for a in app)
              for k in ("run", "walk", "passes", "tensors", "modules", "explain")}
    print(" " * 20 + "app's first run, median s: " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()))
    for peer, results in drawn.items():
        ratios = [r["seconds"] / p["seconds"] for r, p in zip(results, plain)]
        print(" " * 20 + f"{peer}: program + picture {_spread(ratios)}x of plain "
              f"(load {min(r['load'] for r in results):.1f}..{max(r['load'] for r in results):.1f})", flush=True)
    if rounds >= MIN_ROUNDS_FOR_TARGETS:
        for name, values, target in (("picture", picture, TARGET_PICTURE_RATIO), ("all", everything, TARGET_ALL_RATIO),
                                     ("2nd run", second, TARGET_SECOND_RUN_RATIO)):
            if statistics.median(values) > target:
                missed.append(f"{model} {nodes} {name} {statistics.median(values):.2f}x > {target}x")


def measure_memory(threads: int | None, missed: list[str]) -> None:
    for label, code, target in (("transformer 50k", program("transformer", 50_000), TARGET_PEAK_RATIO_50K),
                                ("one 2 GiB tensor", BIG_TENSOR_CODE, TARGET_PEAK_RATIO_BIG_TENSOR)):
        plain = run_child("plain", code, threads=threads)
        in_app = run_child("app", code, threads=threads, runs=1)
        in_capture = run_child("capture", code, threads=threads)
        for where, peak in (("app", in_app["peak_mib"]), ("capture()", in_capture["peak_mib"])):
            ratio = peak / plain["peak_mib"]
            print(f"peak RSS {label:<17} {where:<10} {peak:8.0f} MiB vs plain {plain['peak_mib']:6.0f} MiB: "
                  f"{ratio:.2f}x (target <= {target}x; load {in_app['load']:.1f})", flush=True)
            if ratio > target:
                missed.append(f"peak RSS {label} in {where} {ratio:.2f}x > {target}x")
        if label.startswith("transformer"):
            measure_runs_in_a_row(code, in_app, threads, missed)


def measure_runs_in_a_row(code: str, one_run: dict, threads: int | None, missed: list[str]) -> None:
    """Run pressed again the moment each run ends: memory stays bounded and the runs do not slow down.

    Each capture a run replaces is freed in steps after that run; a Run
    pressed at once used to hold it for the whole of the next run too, one
    more capture per run (four 50,000-node runs: 5.8 GB against 1.9).
    """
    runs = run_child("app", code, threads=threads, runs=RUNS_IN_A_ROW)
    ratio = runs["peak_mib"] / one_run["peak_mib"]
    later = [runs[f"run{i}"]["picture"] / runs["run1"]["picture"] for i in range(2, RUNS_IN_A_ROW + 1)]
    print(f"{RUNS_IN_A_ROW} Runs in a row, transformer 50k: peak RSS {runs['peak_mib']:.0f} MiB, {ratio:.2f}x one "
          f"run's (target <= {TARGET_PEAK_RATIO_RUNS_IN_A_ROW}x); later pictures "
          f"{', '.join(f'{r:.2f}' for r in later)}x the first's, median {statistics.median(later):.2f}x "
          f"(target <= {TARGET_RUNS_IN_A_ROW_MEDIAN}x; load {runs['load']:.1f})", flush=True)
    if ratio > TARGET_PEAK_RATIO_RUNS_IN_A_ROW:
        missed.append(f"peak RSS of {RUNS_IN_A_ROW} runs in a row {ratio:.2f}x > {TARGET_PEAK_RATIO_RUNS_IN_A_ROW}x")
    if statistics.median(later) > TARGET_RUNS_IN_A_ROW_MEDIAN:
        missed.append(f"the later runs of {RUNS_IN_A_ROW} in a row {statistics.median(later):.2f}x > "
                      f"{TARGET_RUNS_IN_A_ROW_MEDIAN}x")


def peers_note(measured: bool) -> str:
    found = installed_peers()
    absent = sorted({"torchview", "torchviz"} - set(found))
    parts = [f"measured above: {', '.join(found)}" if measured and found else
             f"installed, measured with --peers: {', '.join(found)}" if found else ""]
    if absent:
        parts.append(f"skipped, not installed (or no Graphviz dot): {', '.join(absent)}")
    parts.append("TorchLens: " + ("installed, not measured by this script yet"
                                  if importlib.util.find_spec("torchlens") is not None else "not installed"))
    return "peers: " + "; ".join(p for p in parts if p)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--models", default="transformer,mlp")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="pin torch's threads (OMP_NUM_THREADS) in both")
    parser.add_argument("--memory", action="store_true", help="also the peak-memory targets (takes minutes)")
    parser.add_argument("--peers", action="store_true", help="also torchviz and torchview, where installed")
    parser.add_argument("--child", choices=("plain", "app", "capture", "torchviz", "torchview"), help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        code = sys.stdin.read()
        result = {"plain": lambda: child_plain(code), "capture": lambda: child_capture(code),
                  "app": lambda: child_app(code, args.runs), "torchviz": lambda: child_peer(code, "torchviz"),
                  "torchview": lambda: child_peer(code, "torchview")}[args.child]()
        print(json.dumps(result), flush=True)
        os._exit(0)  # the app's threads and Qt's teardown are not what is measured
    missed: list[str] = []
    print(f"whole processes, alternating plain/app pairs, median of {args.rounds} (min..max); ratios are the app's "
          f"time over the plain program's; targets: picture <= {TARGET_PICTURE_RATIO}x, all <= {TARGET_ALL_RATIO}x, "
          f"2nd run <= {TARGET_SECOND_RUN_RATIO}x" + ("" if args.rounds >= MIN_ROUNDS_FOR_TARGETS else
                                                     f" (not checked below {MIN_ROUNDS_FOR_TARGETS} rounds)"))
    for size in (int(s) for s in args.sizes.split(",")):
        for model in args.models.split(","):
            measure_speed(model, size, args.rounds, args.threads, missed, installed_peers() if args.peers else [])
    if args.memory:
        measure_memory(args.threads, missed)
    print(peers_note(args.peers))
    if missed:
        print("targets missed: " + "; ".join(missed))
        return 1
    if args.rounds < MIN_ROUNDS_FOR_TARGETS:
        # Saying "all targets met" here once read as a pass of the speed targets, which were never looked at.
        print(f"speed targets not checked (fewer than {MIN_ROUNDS_FOR_TARGETS} rounds)"
              + ("; memory targets met" if args.memory else ""))
        return 0
    print("all targets met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

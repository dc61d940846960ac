"""``capture --json`` against a session file of the same capture: peak memory, time and size (issue 30).

Usage::

    python benchmarks/bench_capture_json.py                 # a 2,600-node CNN step and a 12,600-node transformer
    python benchmarks/bench_capture_json.py --rounds 3

Each figure is a whole ``gradexplorer capture SCRIPT`` process (``-o
OUT.gxsession`` or ``--json OUT.json``), alternating, so that both pay the
same run; peak RSS is the child's ``ru_maxrss``. The JSON document keeps
values inline (numbers as text) within the same 5,000,000-value budget as a
session, so it is several times the session's size; what it must not do is
hold the document in memory: before it was streamed, the CNN step took
2.06 GB and 16.8 s for a 283 MB file, and the transformer 5.9 GB and 61 s
for 1.24 GB.

Target: the JSON process's peak RSS <= 1.5x the session process's (medians
over ``--rounds``); exits non-zero on a miss. The load average is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_capture import transformer_code  # noqa: E402

TARGET_PEAK_RATIO = 1.5

CNN = """
import torch
import torch.nn as nn
torch.manual_seed(0)
def block(c):
    return nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(),
                         nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c))
layers = [nn.Conv2d(3, 32, 3, padding=1)] + [block(32) for _ in range(60)]
model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
x = torch.randn(4, 3, 32, 32)
loss = nn.functional.cross_entropy(model(x), torch.tensor([1, 2, 3, 4]))
loss.backward()
"""

PROGRAMS = {
    "cnn": CNN,
    "transformer": "import torch\nimport torch.nn as nn\n" + transformer_code(12_600),
}


def run_child(script: Path, output: list[str]) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one ``gradexplorer capture`` process."""
    code = ("import resource, sys, time\n"
            "from gradexplorer.cli import main\n"
            "start = time.perf_counter()\n"
            "status = main(sys.argv[1:])\n"
            "print('BENCH', time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
            "sys.exit(status)\n")
    done = subprocess.run([sys.executable, "-c", code, "capture", str(script), "--max-rows", "0", *output],
                          capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise SystemExit(f"{script.name} {' '.join(output)} failed:\n{done.stderr[-2000:]}")
    line = next(row for row in done.stdout.splitlines() if row.startswith("BENCH"))
    _, seconds, peak_kib = line.split()
    return float(seconds), float(peak_kib) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--programs", nargs="+", default=list(PROGRAMS), choices=list(PROGRAMS))
    args = parser.parse_args(argv)
    missed = []
    with tempfile.TemporaryDirectory(prefix="bench-json-") as folder:
        folder = Path(folder)
        for name in args.programs:
            script = folder / f"{name}.py"
            script.write_text(PROGRAMS[name], encoding="utf-8")
            session_path, json_path = folder / f"{name}.gxsession", folder / f"{name}.json"
            figures: dict[str, list[tuple[float, float]]] = {"session": [], "json": []}
            loads = []
            for _ in range(args.rounds):
                loads.append(os.getloadavg()[0])
                figures["session"].append(run_child(script, ["-o", str(session_path)]))
                figures["json"].append(run_child(script, ["--json", str(json_path)]))
            session_s = statistics.median(s for s, _ in figures["session"])
            json_s = statistics.median(s for s, _ in figures["json"])
            session_mib = statistics.median(m for _, m in figures["session"])
            json_mib = statistics.median(m for _, m in figures["json"])
            peaks = [j[1] / s[1] for s, j in zip(figures["session"], figures["json"])]
            ratio = json_mib / session_mib
            print(f"{name:<12} session {session_path.stat().st_size / 2**20:7.1f} MB {session_s:6.2f} s "
                  f"peak {session_mib:6.0f} MiB   json {json_path.stat().st_size / 2**20:7.1f} MB {json_s:6.2f} s "
                  f"peak {json_mib:6.0f} MiB   peak ratio {ratio:.2f} ({min(peaks):.2f}..{max(peaks):.2f})x "
                  f"(target <= {TARGET_PEAK_RATIO}x)   load {min(loads):.1f}..{max(loads):.1f}", flush=True)
            if ratio > TARGET_PEAK_RATIO:
                missed.append(f"{name} peak {ratio:.2f}x > {TARGET_PEAK_RATIO}x")
    if missed:
        print("targets missed: " + "; ".join(missed))
        return 1
    print("targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A program's output through ``sys.stdout.buffer`` and ``reconfigure`` is kept as ``python SCRIPT`` shows it.

Scripts written for a Windows console in Taiwan start with
``sys.stdout.reconfigure(encoding="utf-8")`` or wrap ``sys.stdout.buffer``
in a ``TextIOWrapper``; both raised ``AttributeError`` under the capture's
per-thread stream. Expected output comes from a plain ``python train.py`` run
of the same project.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from gradexplorer import capture
from gradexplorer.core.capture.script import ScriptRun

from ..programs import write_project

MODEL = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)

        def forward(self, x):
            return self.fc(x)
""")

TRAIN = textwrap.dedent("""\
    import argparse
    import io
    import sys

    import torch

    from model import Net

    sys.stdout.reconfigure(encoding="utf-8")


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--steps", type=int, default=1)
        args = parser.parse_args()
        torch.manual_seed(0)
        net = Net()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for step in range(args.steps):
            opt.zero_grad()
            loss = net(torch.ones(4, 3)).pow(2).mean()
            loss.backward()
            opt.step()
            print(f"第 {step} 步 損失 {loss.item():.6f}")
        sys.stdout.flush()
        out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", write_through=True)
        out.write("梯度 " + str(round(net.fc.bias.grad.item(), 6)) + "\\n")
        out.detach()  # freed without it, the wrapper would close sys.stdout.buffer
        sys.stdout.buffer.write("變數".encode("utf-8")[:4])
        sys.stdout.buffer.write("變數".encode("utf-8")[4:] + b" done\\n")


    if __name__ == "__main__":
        main()
""")


def test_a_project_that_reconfigures_and_writes_bytes_prints_what_python_prints(tmp_path):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    plain = subprocess.run([sys.executable, str(script), "--steps", "2"], cwd=elsewhere, capture_output=True,
                           timeout=300, env={"PYTHONPATH": "", "PATH": "/usr/bin:/bin"})
    assert plain.returncode == 0, plain.stderr
    expected = plain.stdout.decode("utf-8")
    assert "第 1 步" in expected and "變數 done" in expected
    for _ in range(2):
        cap = capture(script.read_text(encoding="utf-8"), filename=str(script),
                      run=ScriptRun(("--steps", "2"), str(elsewhere)))
        assert cap.ok, cap.error and cap.error.traceback
        assert cap.stdout == expected
        # The model lived in main()'s locals: the capture still names its parameters.
        names = {name for info in cap.tensors for name in info.names}
        assert "net.fc.bias" in names or any(name.endswith("fc.bias") for name in names), sorted(names)[:20]


def test_bytes_of_a_character_split_across_writes_arrive_whole_and_other_threads_write_through(capfd):
    code = textwrap.dedent("""\
        import sys
        data = "自動微分".encode("utf-8")
        for i in range(len(data)):
            sys.stdout.buffer.write(data[i:i + 1])
        sys.stdout.buffer.write(b"\\n\\xff!\\n")
    """)
    cap = capture(code)
    assert cap.ok, cap.error
    assert cap.stdout == "自動微分\n\ufffd!\n"
    # A wrapper freed without detach() closes what it wraps: in its own run only (each python SCRIPT is a
    # process of its own), never the next run's sys.stdout.buffer.
    freed = capture("import io, sys, gc\nw = io.TextIOWrapper(sys.stdout.buffer)\nw.write('a\\n')\nw.flush()\n"
                    "del w\ngc.collect()\n")
    assert freed.ok and freed.stdout == "a\n", freed.error
    again = capture("import io, sys\nw = io.TextIOWrapper(sys.stdout.buffer, write_through=True)\n"
                    "w.write('next run\\n')\nw.detach()\n")
    assert again.ok and again.stdout == "next run\n", again.error
    # A thread outside any run (pytest's own) still writes to the real stream.
    sys.stdout.buffer.write(b"outside the run\n")
    sys.stdout.flush()
    assert "outside the run" in capfd.readouterr().out

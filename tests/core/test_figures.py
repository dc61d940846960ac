"""Figures the program draws with matplotlib: rendered off-screen, handed over by plt.show(), kept in sessions.

The truth is a plain run of the same program with matplotlib's own Agg
backend, whose ``plt.show`` is replaced by saving each open figure as a PNG.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gradexplorer import ScriptRun, capture
from gradexplorer.core.io.session import Session, load_session, save_session
from gradexplorer.core.records.errors import DocumentError

pytest.importorskip("matplotlib")

PROGRAM = textwrap.dedent("""\
    import matplotlib.pyplot as plt
    import torch

    w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    losses = []
    for step in range(4):
        loss = (w ** 2).sum()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
        w.grad = None
        losses.append(loss.item())
    plt.plot(losses, marker="o")
    plt.title("loss per step")
    plt.show()
    fig, ax = plt.subplots(figsize=(3, 2), dpi=80)
    ax.bar(range(3), w.detach().tolist())
    fig.suptitle("weights after 4 steps")
    """)

# The plain run: Agg, and every open figure saved (as our backend renders it) where plt.show() is called
# and at the end; their PNG bytes go to stdout as JSON (hex).
_PLAIN = textwrap.dedent("""\
    import io, json, sys
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pngs = []
    def _save_open(shown):
        for number in plt.get_fignums():
            fig = plt.figure(number)
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=fig.dpi)
            pngs.append([number, shown, buffer.getvalue().hex()])
            plt.close(fig)
    plt.show = lambda *a, **k: _save_open(True)
    sys.path.insert(0, sys.argv[1].rpartition("/")[0])  # as `python SCRIPT` does
    sys.argv = sys.argv[1:]
    exec(compile(open(sys.argv[0]).read(), sys.argv[0], "exec"), {"__name__": "__main__"})
    _save_open(False)
    print(json.dumps(pngs))
    """)


def _plain_figures(program: str, tmp_path: Path) -> list[tuple[int, bool, bytes]]:
    script = tmp_path / "plain_program.py"
    script.write_text(program, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    done = subprocess.run([sys.executable, "-c", _PLAIN, str(script)], capture_output=True, text=True, env=env,
                          timeout=120, check=True)
    return [(number, shown, bytes.fromhex(png)) for number, shown, png in json.loads(done.stdout)]


def test_figures_are_the_pngs_a_plain_agg_run_makes(tmp_path):
    cap = capture(PROGRAM)
    assert cap.ok, cap.error
    plain = _plain_figures(PROGRAM, tmp_path)
    assert [(f.number, f.shown) for f in cap.figures] == [(n, s) for n, s, _ in plain] == [(1, True), (1, False)]  # a closed figure's number is free again
    for figure, (_, _, png) in zip(cap.figures, plain):
        assert figure.png == png  # the same figure, pixel for pixel
    assert [f.title for f in cap.figures] == ["loss per step", "weights after 4 steps"]
    assert [(f.width, f.height) for f in cap.figures] == [(640, 480), (240, 160)]
    assert "Matplotlib is currently using" not in cap.stderr and "non-interactive" not in cap.stderr


def test_a_program_without_matplotlib_does_not_import_it(tmp_path):
    code = ("import sys\nfrom gradexplorer import capture\n"
            "cap = capture('import torch\\nx = torch.ones(2, requires_grad=True)\\nx.sum().backward()')\n"
            "print(cap.ok, 'matplotlib' in sys.modules, cap.figures)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["True", "False", "()"]


def test_figures_of_a_project_script_with_main_run_from_another_folder(tmp_path):
    """The figures of a real project: ``train.py`` with main() and argparse, its model in model.py."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "model.py").write_text(textwrap.dedent("""\
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 1)

            def forward(self, x):
                return self.fc(x)
        """), encoding="utf-8")
    (project / "train.py").write_text(textwrap.dedent("""\
        import argparse

        import matplotlib.pyplot as plt
        import torch

        from model import Net


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--steps", type=int, default=2)
            args = parser.parse_args()
            torch.manual_seed(0)
            model = Net()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            losses = []
            for _ in range(args.steps):
                optimizer.zero_grad()
                loss = model(torch.ones(4, 3)).pow(2).mean()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            plt.plot(losses)
            plt.title(f"{args.steps} steps")
            plt.show()


        if __name__ == "__main__":
            main()
        """), encoding="utf-8")
    script = project / "train.py"
    cap = capture(script.read_text(encoding="utf-8"), filename=str(script),
                  run=ScriptRun(args=("--steps", "3"), cwd=str(tmp_path)))
    assert cap.ok, cap.error
    assert [(f.title, f.shown) for f in cap.figures] == [("3 steps", True)]
    plain = _plain_figures(script.read_text(encoding="utf-8").replace("default=2", "default=3"), project)
    assert cap.figures[0].png == plain[0][2]


def test_figures_are_kept_in_a_session_and_a_forged_one_is_refused(tmp_path):
    cap = capture(PROGRAM)
    path = tmp_path / "plots.gxs"
    save_session(Session(code=cap.code, device=cap.device, capture=cap), path)
    again = load_session(path).capture
    assert again.figures == cap.figures
    # A document whose "png" is not a PNG is refused with a sentence, not opened half-way.
    from gradexplorer.core.io.capture_json import capture_to_dict

    doc = capture_to_dict(cap)
    doc["figures"][0]["png"] = "bm90IGEgcG5n"  # "not a png"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DocumentError, match=r"figures\[0\]\.png"):
        load_session(forged)


def test_the_isolated_engine_brings_the_figures_back():
    from gradexplorer.core.isolated.engine import capture_isolated

    cap = capture_isolated(PROGRAM)
    assert cap.ok, cap.error
    assert [(f.title, f.width, f.height) for f in cap.figures] == [("loss per step", 640, 480),
                                                                  ("weights after 4 steps", 240, 160)]

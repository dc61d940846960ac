"""Explanations of names in a real project: functions that share a variable name, and a model replaced after training.

A project run as ``python train.py --save ...`` from another folder, with its
model in ``model.py`` and its data helpers in functions (as
pytorch/examples' word_language_model has them: ``data`` is a local of
``batchify()`` and of ``get_batch()``). What PyTorch did is read from a plain
run of the same project, which dumps its parameters' ``.grad``; the
explanations must agree with it and quote statements of the right function.
The same steps recorded through ``gradexplorer.record()`` inside ``main()``
are explained the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.capture.script import ScriptRun

from ..programs import write_project

MODEL = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(4, 8)
            self.head = nn.Linear(8, 2)
            self.unused = nn.Linear(8, 8)  # built, never called in forward

        def forward(self, x):
            return self.head(torch.tanh(self.encoder(x)))
""")

#: The data helpers: ``data`` is a local of each (read by slicing, viewing, and from a dict).
HELPERS = textwrap.dedent("""\


    def batchify(data, rows):
        data = data[: (len(data) // rows) * rows]
        data = data.view(rows, -1).t().contiguous()
        return data


    def get_batch(source, i):
        data = source[i:i + 2]
        return data


    def scale_of(store):
        data = store["scale"]
        if data.isnan():
            raise ValueError("the scale is NaN")
        return data
""")

TRAIN = "import argparse\n\nimport torch\n\nfrom model import Net\n" + HELPERS + textwrap.dedent("""\


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--save", required=True)
        parser.add_argument("--dump")
        args = parser.parse_args()
        torch.manual_seed(0)
        model = Net()
        stream = batchify(torch.randn(48), 4)
        x = get_batch(stream, 0)
        scale = scale_of({"scale": torch.tensor(2.0, requires_grad=True)})
        loss = model(x).pow(2).sum() * scale
        loss.backward()
        torch.save(model.state_dict(), args.save)
        trained = model
        model = Net()  # the model "reloaded" for evaluation: a new object
        model.load_state_dict(torch.load(args.save))
        if args.dump:
            torch.save({"trained": {n: p.grad for n, p in trained.named_parameters()},
                        "final": {n: p.grad for n, p in model.named_parameters()},
                        "scale": scale.grad}, args.dump)


    if __name__ == "__main__":
        main()
""")

#: The same steps, recorded from inside main() through the Python API; prints the explanations as JSON.
RECORDED = "import argparse\nimport json\n\nimport torch\n\nimport gradexplorer\nfrom model import Net\n" + HELPERS \
    + textwrap.dedent("""\


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--save", required=True)
        args = parser.parse_args()
        torch.manual_seed(0)
        with gradexplorer.record() as recording:
            model = Net()
            stream = batchify(torch.randn(48), 4)
            x = get_batch(stream, 0)
            loss = model(x).pow(2).sum()
            loss.backward()
            torch.save(model.state_dict(), args.save)
            trained = model
            model = Net()  # the model "reloaded" for evaluation: a new object
            model.load_state_dict(torch.load(args.save))
        print(json.dumps([[e.code, str(e.sentence)] for e in recording.capture.explanations]))


    if __name__ == "__main__":
        main()
""")


def _lines(text: str, fragment: str) -> list[int]:
    return [number for number, line in enumerate(text.splitlines(), start=1) if fragment in line]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    folder = tmp_path_factory.mktemp("explain-project")
    script, elsewhere = write_project(folder, {"model.py": MODEL, "train.py": TRAIN})
    dump, saved = elsewhere / "plain.pt", elsewhere / "plain-weights.pt"
    subprocess.run([sys.executable, str(script), "--save", str(saved), "--dump", str(dump)], cwd=elsewhere,
                   check=True, timeout=300)
    cap = capture(script.read_text(encoding="utf-8"), filename=str(script),
                  run=ScriptRun(("--save", str(elsewhere / "captured-weights.pt")), str(elsewhere)))
    assert cap.ok, cap.error
    return cap, torch.load(dump)


def _scope(explanation) -> str:
    """The function the explained name is held in, as its sentence says it (``data (in batchify())``; "": top level)."""
    text = str(explanation.sentence)
    head = f"{explanation.name} (in "
    return text[len(head):text.index(")", len(head)) + 1] if text.startswith(head) else ""


def _said(cap, name: str, scope: str = ""):
    found = [e for e in cap.explanations if e.name == name and _scope(e) == scope]
    assert len(found) == 1, [(e.name, _scope(e)) for e in cap.explanations if e.name == name]
    return found[0].code, str(found[0].sentence)


def test_plain_pytorch_gave_gradients_to_the_trained_model_only(project):
    _, plain = project
    assert all(plain["trained"][n] is not None for n in ("encoder.weight", "encoder.bias", "head.weight"))
    assert plain["trained"]["unused.weight"] is None
    assert all(grad is None for grad in plain["final"].values())
    assert plain["scale"] is not None  # the tensor scale_of() handed back is the one in the loss


def test_a_parameter_of_the_replaced_model_names_the_one_the_loss_used(project):
    cap, plain = project
    built = {"encoder": _lines(MODEL, "self.encoder = nn.Linear(4, 8)")[0], "head": _lines(MODEL, "self.head =")[0]}
    for name in ("encoder.weight", "encoder.bias", "head.weight", "head.bias"):
        assert plain["final"][name] is None and plain["trained"][name] is not None
        code, text = _said(cap, f"model.{name}", "main()")
        assert code == "leaf_unreachable", text
        assert f"The passes did reach trained.{name}, the leaf at the same place in another object" in text, text
        layer = name.split(".")[0]
        assert f"this one was made at line {built[layer]} of model.py (`self.{layer} = nn.Linear(" in text, text
    # The layer left out of forward has no twin that got a gradient: the old advice stands.
    code, text = _said(cap, "model.unused.weight", "main()")
    assert plain["final"]["unused.weight"] is None and plain["trained"]["unused.weight"] is None
    assert code == "leaf_unreachable" and "Check that it is used to compute the loss." in text
    assert "did reach" not in text
    code, text = _said(cap, "trained.unused.weight", "main()")
    assert code == "leaf_unreachable" and "did reach" not in text


def test_a_local_is_explained_by_a_statement_of_its_own_function(project):
    cap, _ = project
    batchify_line = _lines(TRAIN, "data = data.view(rows, -1).t().contiguous()")[0]
    get_batch_line = _lines(TRAIN, "data = source[i:i + 2]")[0]
    code, text = _said(cap, "data", "batchify()")
    assert code == "alias", text
    assert f"`data = data.view(rows, -1).t().contiguous()` at line {batchify_line} made this object, which " \
           f"reached stream as the object itself" in text, text
    assert "source[i:i + 2]" not in text
    # Bound by reading a dict item in scale_of(): not by batchify's slice, the first such statement of the file.
    code, text = _said(cap, "data", "scale_of()")
    assert code == "alias", text
    assert f'`data = store["scale"]` at line {_lines(TRAIN, "data = store[")[0]} binds data to the object stored ' \
           f"there" in text, text
    assert "data[:" not in text
    code, text = _said(cap, "data", "get_batch()")
    assert code == "alias", text
    assert f"`data = source[i:i + 2]` at line {get_batch_line} made this object, which reached x" in text, text
    assert "data.view" not in text


def test_the_same_steps_recorded_inside_main_are_explained_the_same(tmp_path):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": RECORDED})
    done = subprocess.run([sys.executable, str(script), "--save", str(elsewhere / "w.pt")], cwd=elsewhere,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    unreached = [text for code, text in said if text.startswith("model.encoder.weight (in main())")]
    assert unreached and "The passes did reach trained.encoder.weight" in unreached[0], said
    local = [text for code, text in said if text.startswith("data (in batchify())")]
    line = _lines(RECORDED, "data = data.view(rows, -1)")[0]
    assert local and f"`data = data.view(rows, -1).t().contiguous()` at line {line} made this object" in local[0], said

"""``capture --json`` written an item at a time, within the file's value budget.

The streamed document must be the documented one (the same as
``capture_to_dict`` while the budget lasts), spend the budget in document
order as a session does, open again, and never hold anything the size of the
document while it is written.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import textwrap
import tracemalloc

import pytest

from gradexplorer import capture
from gradexplorer.core.io.capture_json import capture_to_dict, write_capture_document
from gradexplorer.core.io.session import read_session_text
from tests.programs import SEED_LESSON

#: The seed lesson, then values JSON has no numbers for, and complex ones.
SEED_AND_ODD_VALUES = SEED_LESSON + textwrap.dedent("""\
    odd = torch.tensor([float("nan"), float("inf"), -float("inf"), 2.0], requires_grad=True)
    (odd * 2).sum().backward()
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    (z * z.conj()).real.sum().backward()
""")


def _streamed(cap, **kwargs) -> tuple[dict, int, bytes]:
    buffer = io.BytesIO()
    summarised = write_capture_document(cap, buffer, **kwargs)
    return json.loads(buffer.getvalue()), summarised, buffer.getvalue()


def test_the_streamed_document_is_the_documented_one():
    cap = capture(SEED_AND_ODD_VALUES)
    assert cap.ok, cap.error
    streamed, summarised, _ = _streamed(cap)
    assert summarised == 0
    expected = json.loads(json.dumps(capture_to_dict(cap), allow_nan=False))
    assert streamed == expected
    assert list(streamed) == list(expected)  # the keys in the documented order
    # The seed's numbers, read from the document as a consumer would.
    leaves = {n["names"][0]: n for n in streamed["nodes"] if n["kind"] == "leaf" and n["names"]}
    for name, grad in (("a", 1.56), ("b", 1.43), ("c", 1.32)):
        assert leaves[name]["grad"]["values"] == pytest.approx(grad)
    odd = leaves["odd"]["variable"]["values"]
    assert odd[0] == "nan" and odd[1:3] == ["inf", "-inf"]


def test_values_past_the_budget_are_left_out_in_document_order_and_the_document_opens():
    cap = capture(SEED_AND_ODD_VALUES)
    streamed, summarised, raw = _streamed(cap, file_values=6)
    assert summarised > 0
    records = []

    def walk(item):
        stack = [item]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                if {"dtype", "shape", "values", "stats", "note"} <= item.keys():
                    records.append(item)
                    continue
                stack.extend(reversed(list(item.values())))
            elif isinstance(item, list):
                stack.extend(reversed(item))

    walk(streamed)
    budget_note = "values not saved: the file's 6-value budget was used"
    dropped = [r for r in records if budget_note in (r["note"] or "")]
    kept = [r for r in records if r["values"] is not None]
    assert len(dropped) == summarised
    assert sum(math.prod(r["shape"]) for r in kept) <= 6
    # Spent in document order: no record keeps values after the first one that was dropped.
    first_dropped = records.index(dropped[0])
    assert all(r["values"] is None for r in records[first_dropped:])
    assert all(r["stats"] is not None for r in dropped)  # what the budget leaves: the statistics
    session = read_session_text(raw.decode("utf-8"))
    reopened = session.capture
    assert reopened.graph.number_of_nodes() == cap.graph.number_of_nodes()
    assert [e.code for e in reopened.explanations] == [e.code for e in cap.explanations]


def test_writing_never_holds_the_whole_document():
    code = "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n" \
           "model = nn.Sequential(*[nn.Linear(40, 40) for _ in range(150)])\n" \
           "model(torch.randn(64, 40)).pow(2).mean().backward()\n"
    cap = capture(code)
    assert cap.ok, cap.error

    class Sink(io.RawIOBase):
        size = 0

        def write(self, data) -> int:
            self.size += len(data)
            return len(data)

    sink = Sink()
    tracemalloc.start()
    try:
        write_capture_document(cap, sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sink.size > 20 * 2**20, sink.size  # a document worth streaming
    # Python objects alive at once: a piece and one item, not the document (its dict form was 10x its text).
    assert peak < sink.size / 4, (peak, sink.size)


def test_the_cli_streams_to_standard_output_and_to_a_file(tmp_path):
    script = tmp_path / "seed.py"
    script.write_text("import torch\n" + SEED_AND_ODD_VALUES, encoding="utf-8")  # as python would run it
    out = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(script), "--json", "-"],
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert document["format"] == "gradexplorer.capture" and document["ok"] is True
    target = tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(script), "--json", str(target),
                           "--max-rows", "0"], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(target.read_bytes()) == document | {"timings": json.loads(target.read_bytes())["timings"]}

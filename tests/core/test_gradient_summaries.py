"""Gradients over the value cap are summarised when autograd hands them over, and not held (issue 30).

A backward pass frees each gradient once the node it was sent to has run; a
capture that kept them all for their statistics later held a whole pass of
them at once (1.8 GB at 50,000 nodes, where the program holds a few MB at a
time). The program itself can see it: weak references to the gradients
autograd sent are dead after ``backward()`` in ``python train.py``, and must
be dead under the capture too. The statistics shown for those gradients, and
for a leaf's per-pass delivery over two passes, are the ones a plain PyTorch
run of the same project computes.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap

import pytest

from gradexplorer import capture
from gradexplorer.core.capture.script import ScriptRun
from gradexplorer.core.records.tensors import DEFAULT_VALUE_ELEMENTS, GradientSummaries, summarize_tensor

from ..programs import write_project

MODEL = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Rows(nn.Module):
        \"\"\"Each row of the weight used on its own: autograd sends every row's select the whole weight's shape.\"\"\"

        def __init__(self, rows, width):
            super().__init__()
            self.weight = nn.Parameter(torch.linspace(-1.0, 1.0, rows * width).reshape(rows, width))

        def forward(self, x):
            total = 0
            for i in range(self.weight.shape[0]):
                total = total + (self.weight[i] * x).sin().sum() * (i + 1)
            return total
""")

TRAIN = textwrap.dedent("""\
    import argparse
    import gc
    import json
    import weakref

    import torch

    from model import Rows


    def stats(t):
        t = t.detach().double()
        return [t.min().item(), t.max().item(), t.mean().item(), t.std().item()]


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--rows", type=int, default=6)
        parser.add_argument("--width", type=int, default=4000)
        parser.add_argument("--passes", type=int, default=2)
        args = parser.parse_args()
        net = Rows(args.rows, args.width)
        x = torch.linspace(0.0, 2.0, args.width)
        sent, seen = [], {"select": [], "delivered": []}
        net.weight.register_hook(lambda g: seen["delivered"].append(stats(g)))
        for _ in range(args.passes):  # no zero_grad: .grad accumulates in place
            loss = net(x)
            selects = []
            stack, done = [loss.grad_fn], set()
            while stack:
                node = stack.pop()
                if node is None or node in done:
                    continue
                done.add(node)
                if type(node).__name__ == "SelectBackward0":
                    selects.append(node)
                stack.extend(child for child, _ in node.next_functions)
            for node in selects:
                node.register_hook(lambda gi, go: (sent.append(weakref.ref(gi[0])),
                                                   seen["select"].append(stats(gi[0]))) and None)
            loss.backward()
            del loss, selects, node, stack, done
        gc.collect()
        alive = sum(ref() is not None for ref in sent)
        print(f"alive {alive} of {len(sent)}")
        print("STATS " + json.dumps(seen))


    if __name__ == "__main__":
        main()
""")


def _printed_stats(stdout: str) -> dict:
    line = next(line for line in stdout.splitlines() if line.startswith("STATS "))
    return json.loads(line.removeprefix("STATS "))


def _close(record, expected) -> None:
    stats = record.stats
    got = [stats.min, stats.max, stats.mean, stats.std]
    assert all(math.isclose(g, e, rel_tol=1e-5, abs_tol=1e-6) for g, e in zip(got, expected)), (got, expected)


def test_a_projects_gradients_over_the_cap_are_let_go_and_shown_as_pytorch_computes_them(tmp_path):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    args = ("--rows", "6", "--width", "4000", "--passes", "2")  # each select sends 24,000 values: over the cap
    assert 6 * 4000 > DEFAULT_VALUE_ELEMENTS
    plain = subprocess.run([sys.executable, str(script), *args], cwd=elsewhere, capture_output=True, text=True,
                           timeout=300)
    assert plain.returncode == 0, plain.stderr
    assert "alive 0 of 12" in plain.stdout  # python train.py holds none of them after backward()
    expected = _printed_stats(plain.stdout)

    cap = capture(script.read_text(encoding="utf-8"), filename=str(script), run=ScriptRun(args, str(elsewhere)))
    assert cap.ok, cap.error and cap.error.traceback
    # Under the capture, the program sees what it sees without it.
    assert "alive 0 of 12" in cap.stdout, cap.stdout
    assert len(cap.passes) == 2
    # Every select's gradient, in the order the engine ran them, has PyTorch's statistics.
    shown = []
    for p in cap.passes:
        order = [n for n, attrs in cap.graph.nodes(data=True)
                 if attrs["op"] == "SelectBackward0" and p.index in attrs["grads"]]
        records = [cap.graph.nodes[n]["grads"][p.index].inputs[0] for n in order]
        shown.extend(sorted(records, key=lambda r: (r.stats.mean, r.stats.min, r.stats.max)))
    assert len(shown) == len(expected["select"]) == 12
    def by_mean(found):
        return sorted(found, key=lambda s: (s[2], s[0], s[1]))

    for record, want in zip(shown, by_mean(expected["select"][:6]) + by_mean(expected["select"][6:])):
        assert record.data is None and record.shape == (6, 4000)
        _close(record, want)
    # The weight's accumulator: what each pass delivered, not the final sum (.grad grows in place).
    weight = cap.graph.nodes[cap.node_named("net.weight")]["accumulation"]
    for index, want in enumerate(expected["delivered"]):
        _close(weight[index].delivered, want)
    # .grad after the second pass is the sum of both deliveries (a mean adds up).
    assert math.isclose(weight[1].after.stats.mean, expected["delivered"][0][2] + expected["delivered"][1][2],
                        rel_tol=1e-5)


def test_one_tensor_sent_and_received_is_one_record_and_a_later_version_is_another():
    import torch

    summaries = GradientSummaries(value_elements=4)
    big = torch.arange(10.0)
    small = torch.ones(3)
    sent = summaries((big, small, None))
    assert sent[1] is small and sent[2] is None  # under the cap: kept as it is
    received = summaries((big,))
    assert received[0] is sent[0]  # the child's record is the parent's
    assert sent[0].data is None and sent[0].stats == summarize_tensor(big, value_elements=4).stats
    big.add_(1)  # a later version of the same tensor (AccumulateGrad adds into .grad in place)
    later = summaries.record(big)
    assert later is not sent[0] and later.stats.min == 1.0 and sent[0].stats.min == 0.0
    assert summaries((small,)) == (small,)


@pytest.mark.parametrize("grads", [None, ()])
def test_nothing_to_summarise_is_handed_back(grads):
    assert GradientSummaries(value_elements=4)(grads) is grads


def test_a_view_in_the_same_memory_shares_the_statistics_with_its_own_first_and_last_values():
    import torch

    summaries = GradientSummaries(value_elements=100)
    grad = torch.linspace(-3.0, 5.0, 20 * 30).reshape(20, 30)
    first = summaries.record(grad)
    for view in (grad.t(), grad.reshape(600), grad.reshape(2, 10, 30).permute(2, 0, 1)):
        shared = summaries.record(view)
        alone = summarize_tensor(view.contiguous(), value_elements=100)  # what it is, computed on its own
        assert shared is not first and shared.shape == tuple(view.shape)
        assert (shared.stats.head, shared.stats.tail) == (alone.stats.head, alone.stats.tail)
        assert shared.stats.min == first.stats.min and shared.stats.max == first.stats.max
        assert math.isclose(shared.stats.mean, alone.stats.mean, rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(shared.stats.std, alone.stats.std, rel_tol=1e-6)
    # At the same address with as many elements, but not the same values (a row expanded): computed on its own.
    row = summaries.record(grad[0].expand(20, 30))
    assert row.stats.max == grad[0].max().item() < first.stats.max
    # Fewer elements from the same address: computed on its own.
    assert summaries.record(grad.reshape(-1)[:150]).stats.max == grad.reshape(-1)[149].item()
    # A tensor freed, then new values (perhaps at its address): never the old statistics.
    gone = torch.full((600,), 7.0)
    summaries.record(gone)
    del gone
    assert summaries.record(torch.full((600,), -1.0)).stats.max == -1.0
    # Changed in place since (the version moved): computed again.
    grad.mul_(2)
    assert summaries.record(grad.t()).stats.max == 10.0


def test_a_gradient_over_the_cap_with_inf_and_nan_is_counted_and_found_first_in_backward():
    import torch

    from gradexplorer.core.analysis.query import first_nonfinite

    program = """\
x = torch.cat([torch.zeros(10000), torch.linspace(1.0, 2.0, 10000), torch.full((5000,), -1.0)]).requires_grad_()
y = x.sqrt()
loss = (y * 2).sum()
loss.backward()
"""
    namespace = {"torch": torch}
    exec(program, namespace)  # noqa: S102 - our own program: the truth is PyTorch's
    sent = (2 * 0.5 / namespace["x"].detach().sqrt())  # what SqrtBackward0 sends: inf at 0, NaN below 0
    cap = capture(program)
    assert cap.ok, cap.error
    sqrt = next(n for n, a in cap.graph.nodes(data=True) if a["op"] == "SqrtBackward0")
    record = cap.graph.nodes[sqrt]["grads"][0].inputs[0]
    assert record.data is None  # 25,000 values: over the cap, statistics only
    assert record.stats.inf_count == int(torch.isinf(sent).sum()) == 10000
    assert record.stats.nan_count == int(torch.isnan(sent).sum()) == 5000
    finite = sent[torch.isfinite(sent)].double()
    assert math.isclose(record.stats.min, finite.min().item(), rel_tol=1e-6)
    assert math.isclose(record.stats.mean, finite.mean().item(), rel_tol=1e-6)
    assert first_nonfinite(cap.graph)[1] == sqrt  # where the Inf/NaN was made, as the graph's search says

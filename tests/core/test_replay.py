"""The replay's order is the order PyTorch's engine ran the nodes in (issue 31, "Replay the backward pass").

The truth is a plain PyTorch run of the same program with a pre-hook on
every node of each pass's graph (a pre-hook fires as the engine is about to
run its node): per pass, the nodes' ops and the gradients they were handed,
in the order the hooks fired. The replay must list the same nodes with the
same gradients in the same order, for the seed notes' chain, a diamond, a
program with hooks of every kind over two passes, a pass run on a thread
the program starts, a project run from another folder, and a step recorded
with ``gradexplorer.record()``.
"""

from __future__ import annotations

import sys
import textwrap

import pytest
import torch

import gradexplorer
from gradexplorer import capture
from gradexplorer.core.analysis.replay import replay_of, step_text
from gradexplorer.core.capture.script import ScriptRun
from ..programs import SEED_LESSON, write_project

DIAMOND = """\
x = torch.tensor([1.0, 2.0], requires_grad=True)
a = x * 2
b = a.sin()
c = a.cos()
d = (b * c + a).sum()
d.backward()
"""

HOOKS = """\
w = torch.tensor([0.5, -1.0], requires_grad=True)
v = torch.tensor([2.0, 3.0], requires_grad=True)
h = w * v
h.register_hook(lambda g: g * 2)
y = h.exp() + v
y.grad_fn.register_prehook(lambda grads: (grads[0] + 1,))
w.register_post_accumulate_grad_hook(lambda p: None)
y.sum().backward(retain_graph=True)
(y * 3).sum().backward()
"""

THREAD = """\
import threading
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum() + x.prod()
worker = threading.Thread(target=y.backward)
worker.start()
worker.join()
"""


def _plain_passes(program: str, start, hook_for) -> list:
    """Run ``program`` in plain PyTorch with a pre-hook on every node of each pass's graph (a pre-hook fires
    as the engine is about to run its node, on the thread it runs it on): per pass, what ``start()`` made
    when the pass began, filled by the hooks ``hook_for(record, node)`` made."""
    namespace = {"torch": torch, "nn": torch.nn}
    passes: list = []
    backward = torch.Tensor.backward

    def hooked(tensor, *args, **kwargs):
        record = start()
        passes.append(record)
        stack, seen, handles = [tensor.grad_fn], set(), []
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            handles.append(node.register_prehook(hook_for(record, node)))
            stack.extend(n for n, _ in node.next_functions)
        try:
            return backward(tensor, *args, **kwargs)
        finally:
            for handle in handles:
                handle.remove()

    torch.Tensor.backward = hooked
    try:
        exec(compile(textwrap.dedent(program), "<plain>", "exec"), namespace)  # noqa: S102 - our own programs
    finally:
        torch.Tensor.backward = backward
    return passes


def _op(node) -> str:
    return node.name().rsplit("::", 1)[-1]


def _plain_order(program: str) -> list[list[tuple[str, tuple]]]:
    """Per pass, ``(op, gradients handed to it)`` as the engine ran the nodes, from pre-hooks on every node."""
    return _plain_passes(program, list, lambda calls, node: lambda grads: calls.append(
        (_op(node), tuple(None if g is None else g.detach().clone() for g in grads))))


def _replayed(cap, pass_index: int) -> list[tuple[str, tuple]]:
    replay = replay_of(cap, pass_index)
    out = []
    for position in range(len(replay)):
        step = replay.step(position)
        op = cap.graph.nodes[step.node]["op"].rsplit("::", 1)[-1]
        out.append((op, step.received))
    return out


def _same(plain: list[tuple[str, tuple]], replayed: list[tuple[str, tuple]], *, values: bool = True) -> None:
    assert [op for op, _ in replayed] == [op for op, _ in plain]
    if not values:
        return
    for (op, handed), (_, received) in zip(plain, replayed):
        assert len(received) == len(handed), op
        for got, want in zip(received, handed):
            assert (got is None) == (want is None), op
            if want is not None:
                assert torch.allclose(got.data.double(), want.double(), rtol=1e-6), (op, got.data, want)


@pytest.mark.parametrize("program", [SEED_LESSON, DIAMOND, THREAD], ids=["seed", "diamond", "thread"])
def test_the_replay_runs_the_nodes_in_the_engines_order_with_what_it_handed_them(program):
    plain = _plain_order(program)
    cap = capture(program)
    assert cap.ok, cap.error
    assert len(cap.passes) == len(plain) == 1
    _same(plain[0], _replayed(cap, 0))
    first = step_text(replay_of(cap, 0), 0)
    # The thread's name is Python's (Thread-N (backward)), numbered by the threads started before.
    assert ("Run on the thread 'Thread-" in first and " (backward)'" in first) == (program is THREAD)


def test_a_program_with_hooks_over_two_passes_replays_each_pass_in_its_order():
    plain = _plain_order(HOOKS)
    cap = capture(HOOKS)
    assert cap.ok, cap.error
    assert len(cap.passes) == len(plain) == 2
    for index in range(2):
        # The user's pre-hook changes what its node is handed after the observing pre-hook saw it: compare the
        # order, and the values where no hook of the user's stands between.
        _same(plain[index], _replayed(cap, index), values=False)
    replay = replay_of(cap, 0)
    texts = [step_text(replay, i) for i in range(len(replay))]
    def titled(title: str, among: list[str]) -> str:
        return next(t for t in among if t.splitlines()[0].endswith(title))

    add = titled("· AddBackward0 (y)", texts)
    assert add.index("Hook before it ran: pre-hook <lambda> got [1, 1], changed it to [2, 2]") < add.index(
        "Receives: [2, 2]")
    mul = titled("· MulBackward0 (h)", texts)
    assert "Hook before it ran: tensor hook" in mul and "changed it to" in mul
    leaf = titled("· AccumulateGrad (w)", texts)
    assert "w.grad: None →" in leaf and "Hook after it ran: post-accumulate hook" in leaf
    second = replay_of(cap, 1)
    texts2 = [step_text(second, i) for i in range(len(second))]
    assert "w.grad: None" not in titled("· AccumulateGrad (w)", texts2)  # the second pass adds to the first's
    assert "next_functions[1] is None (that input needs no gradient): nothing sent" in titled("· MulBackward0", texts2)


def test_the_seed_lesson_reads_as_the_notes_walk_it():
    cap = capture(SEED_LESSON)
    replay = replay_of(cap, 0)
    texts = [step_text(replay, i) for i in range(len(replay))]
    assert texts[0].startswith("Step 1 of 5 · MulBackward0 (e)")
    assert "Sends next_functions[0] → MulBackward0 (d): 1.3" in texts[0]
    d_step = next(i for i, t in enumerate(texts) if "· MulBackward0 (d)" in t)
    a_step = next(i for i, t in enumerate(texts) if "· AccumulateGrad (a)" in t)
    b_step = next(i for i, t in enumerate(texts) if "· AccumulateGrad (b)" in t)
    assert d_step < a_step and d_step < b_step  # d receives 1.3 before a and b receive theirs
    assert "Receives: 1.3" in texts[d_step]
    assert "Hook before it ran: tensor hook <lambda> got 1.3, left it unchanged" in texts[d_step]
    assert "a.grad: None → 1.56" in texts[a_step] and "b.grad: None → 1.43" in texts[b_step]
    assert replay.reached(0) == {replay.order[0]}
    assert replay.sent_edges(0) == {(replay.order[0], v) for v in cap.graph.successors(replay.order[0])}


def test_a_pass_that_raised_ends_at_the_node_it_raised_in():
    program = """\
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
s = torch.sigmoid(w)
out = s * 3
s.detach().mul_(2)
out.sum().backward()
"""
    cap = capture(program)
    replay = replay_of(cap, 0)
    last = step_text(replay, len(replay) - 1)
    assert "SigmoidBackward0" in last and "The pass raised here:" in last and "modified by an inplace" in last


MODEL = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x).tanh()
"""

TRAIN = """\
import argparse

import torch

from model import Net


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    net = Net()
    for _ in range(args.steps):
        loss = net(torch.ones(4, 3)).pow(2).mean()
        loss.backward()


if __name__ == "__main__":
    main()
"""


def test_a_projects_passes_replay_in_the_engines_order(tmp_path, monkeypatch):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    project = script.parent
    cap = capture(script.read_text(), filename=str(script), run=ScriptRun(("--steps", "2"), str(elsewhere)))
    assert cap.ok, cap.error and cap.error.traceback
    assert len(cap.passes) == 2
    # The truth: the same project run by plain PyTorch, as python train.py --steps 2 would.
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr("sys.argv", ["train.py", "--steps", "2"])
    try:
        plain = _plain_order(TRAIN.replace('if __name__ == "__main__":\n    main()\n', "main()\n"))
    finally:
        sys.modules.pop("model", None)  # the project's model.py: never the next test's "model"
    for index in range(2):
        _same(plain[index], _replayed(cap, index))
        texts = [step_text(replay_of(cap, index), i) for i in range(len(replay_of(cap, index)))]
        assert any("AccumulateGrad (net.fc.weight)" in t for t in texts), texts


def test_a_recorded_step_replays_in_the_engines_order():
    plain = _plain_order(DIAMOND)
    with gradexplorer.record() as rec:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = a.sin()
        c = a.cos()
        d = (b * c + a).sum()
        d.backward()
    _same(plain[0], _replayed(rec.capture, 0))


def test_a_reopened_session_replays_as_the_run_did(tmp_path):
    from gradexplorer.core.io.session import load_session, save_session, session_from_capture

    cap = capture(HOOKS)
    save_session(session_from_capture(cap), tmp_path / "hooks.gxsession")
    reopened = load_session(tmp_path / "hooks.gxsession").capture
    for index in range(2):
        ran, read = replay_of(cap, index), replay_of(reopened, index)
        assert [step_text(read, i) for i in range(len(read))] == [step_text(ran, i) for i in range(len(ran))]


def _plain_threads(program: str) -> list[dict[str, str]]:
    """Per pass, ``op -> name of the thread that ran it`` where that is not the thread that called ``backward()``,
    from pre-hooks on every node of a plain PyTorch run."""
    import threading

    def start():
        return {"caller": threading.get_ident(), "ran": {}}

    def hook_for(record, node):
        def note(grads):
            if threading.get_ident() != record["caller"]:
                record["ran"][_op(node)] = threading.current_thread().name
        return note

    return [record["ran"] for record in _plain_passes(program, start, hook_for)]


def _recorded_threads(cap, pass_index: int) -> dict[str, str]:
    nodes = cap.graph.nodes
    return {nodes[n]["op"].rsplit("::", 1)[-1]: nodes[n]["grad_threads"][pass_index] for n in nodes
            if pass_index in nodes[n].get("grad_threads", ())}


@pytest.mark.parametrize("program", [SEED_LESSON, DIAMOND, HOOKS, THREAD])
def test_each_node_is_told_the_thread_it_ran_on_as_plain_pytorch_ran_it(program):
    plain = _plain_threads(program)
    cap = capture(program)
    assert len(cap.passes) == len(plain)
    for index, threads in enumerate(plain):
        # CPU work runs on the thread that calls backward(): no node of these passes ran elsewhere, in
        # plain PyTorch or in the capture, and no step says it did.
        assert _recorded_threads(cap, index) == {} and threads == {}
        replay = replay_of(cap, index)
        assert replay.threads == () and all(replay.step(i).thread is None for i in range(len(replay)))
        assert not any("engine thread" in step_text(replay, i) for i in range(len(replay)))


def test_a_node_stored_from_another_thread_is_noted_with_that_threads_name():
    import threading

    from gradexplorer.core.capture.trace_records import _PassGradients

    grads = _PassGradients()  # made on the thread that starts the pass
    grads["here"] = ((), ())
    worker = threading.Thread(target=grads.__setitem__, args=("there", ((), ())), name="cuda-engine-0")
    worker.start()
    worker.join()
    assert list(grads) == ["here", "there"] and grads.threads == {"there": "cuda-engine-0"}


def test_a_pass_that_ran_on_two_engine_threads_says_so_at_its_first_step_and_at_each_node(tmp_path):
    from gradexplorer.core.io.session import load_session, save_session, session_from_capture

    cap = capture(SEED_LESSON)
    nodes = cap.graph.nodes
    # What a cpu + cuda pass records (the cuda nodes ran on the device's engine thread): one node, here.
    mul = next(n for n in nodes if nodes[n]["names"] and nodes[n]["names"][0] == "e")
    nodes[mul]["grad_threads"] = {0: "Dummy-3"}
    save_session(session_from_capture(cap), tmp_path / "two.gxsession")
    reopened = load_session(tmp_path / "two.gxsession").capture
    assert reopened.graph.nodes[mul]["grad_threads"] == {0: "Dummy-3"}
    replay = replay_of(reopened, 0)
    assert replay.threads == ("Dummy-3",)
    first = step_text(replay, 0).splitlines()
    assert ("The engine ran this pass on 2 threads: the one that started it and 'Dummy-3' (each device has an "
            "engine thread of its own)") in first
    at = replay.order.index(mul)
    assert "This node ran on the engine thread 'Dummy-3', not on the one that started the pass" in \
        step_text(replay, at).splitlines()
    others = [i for i in range(len(replay)) if i != at]
    assert not any("This node ran on" in step_text(replay, i) for i in others)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_pass_over_cpu_and_cuda_records_the_device_threads_plain_pytorch_ran_the_nodes_on():
    program = """\
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.to("cuda") * 3).sin()
    z = (y.to("cpu") * x).sum()
    z.backward()
    """
    plain = _plain_threads(program)
    cap = capture(textwrap.dedent(program))
    recorded = _recorded_threads(cap, 0)
    assert recorded and set(recorded) == set(plain[0])  # the cuda nodes, off the calling thread
    replay = replay_of(cap, 0)
    assert len(replay.threads) >= 1 and "threads: the one that started it" in step_text(replay, 0)

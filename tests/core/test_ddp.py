"""DistributedDataParallel's reducer, invisible to Python, told as such (issue 28): two processes on gloo.

The reducer's C++ hooks on every parameter's gradient accumulator average
``.grad`` across the processes during backward. The capture once called that
"a hook changed .grad" and its own verification said "wrong". The truth is
the same program run with plain python in two processes (``.grad`` after
DDP) and each process's own gradient without DDP.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

import pytest
import torch

from gradexplorer import load_session

pytestmark = pytest.mark.skipif(
    not (torch.distributed.is_available() and torch.distributed.is_gloo_available()), reason="needs gloo")

PROGRAM = textwrap.dedent("""\
    import sys
    import torch
    import torch.distributed as dist
    from torch import nn

    rank, port = int(sys.argv[1]), sys.argv[2]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Linear(3, 1))
    x = torch.arange(6.0).reshape(2, 3) * (rank + 1)
    loss = model(x).sum()
    loss.backward()
    dist.destroy_process_group()
    """)

PLAIN_TAIL = textwrap.dedent("""\
    import json, copy
    torch.manual_seed(0)
    alone = nn.Linear(3, 1)  # the same weights, this process's gradient without the reducer
    alone(torch.arange(6.0).reshape(2, 3) * (rank + 1)).sum().backward()
    print(json.dumps({"reduced": model.module.weight.grad.tolist(), "alone": alone.weight.grad.tolist()}))
    """)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _two_ranks(command) -> list[subprocess.CompletedProcess]:
    port = str(_free_port())
    ranks = [subprocess.Popen(command(rank, port), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in (0, 1)]
    done = []
    for process in ranks:
        out, err = process.communicate(timeout=180)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def test_a_ddp_step_tells_the_reducer_and_agrees_with_plain_pytorch(tmp_path):
    plain_script = tmp_path / "plain.py"
    plain_script.write_text(PROGRAM.replace("dist.destroy_process_group()\n", "") + PLAIN_TAIL +
                            "dist.destroy_process_group()\n", encoding="utf-8")
    plain = _two_ranks(lambda rank, port: [sys.executable, str(plain_script), str(rank), port])
    truth = [json.loads(p.stdout.strip().splitlines()[-1]) for p in plain]
    assert truth[0]["reduced"] == truth[1]["reduced"] != truth[0]["alone"]  # the mean, not this process's
    script = tmp_path / "train_ddp.py"
    script.write_text(PROGRAM, encoding="utf-8")
    ours = _two_ranks(lambda rank, port: [sys.executable, "-m", "gradexplorer", "capture", str(script),
                                          "--json", str(tmp_path / f"rank{rank}.json"), "--", str(rank), port])
    for rank, (done, expected) in enumerate(zip(ours, truth)):
        assert done.returncode == 0, done.stderr
        assert " 0 wrong" in done.stdout, done.stdout  # our own verification no longer calls the reducer wrong
        cap = load_session(tmp_path / f"rank{rank}.json").capture
        attrs = cap.graph.nodes[cap.node_named("model.module.weight")]
        (step,) = attrs["accumulation"].values()
        assert step.delivered.values()[0] == pytest.approx(expected["alone"][0])
        assert step.after.values()[0] == pytest.approx(expected["reduced"][0])
        assert step.reduced_by == "DistributedDataParallel over 2 processes"
        explanation = next(e for e in cap.explanations if e.name == "model.module.weight")
        assert explanation.code == "grad_reduced" and "over the processes" in explanation.sentence
        warnings = [w for audit in cap.modules for w in audit.warnings]
        assert any(w.code == "ddp_reducer" and w.path == "model" for w in warnings), warnings

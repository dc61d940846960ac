"""The isolated hand-over sends statistics after the capture (issue 13): same numbers as plain PyTorch, checked input.

The child writes the capture with the statistics of records saved without
values left out (their norm goes with them), the app reads it and shows the
picture, and the child sends those statistics afterwards. Expected values
come from plain PyTorch on the same tensors.
"""

from __future__ import annotations

import io
import textwrap
import time
import threading

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.io.handover import add_late_stats
from gradexplorer.core.io.session import Session, read_session_bytes, write_session_container
from gradexplorer.core.isolated.engine import capture_isolated, wait_for_spare
from gradexplorer.core.records.errors import DocumentError
from gradexplorer.core.records.tensors import LateStats, TensorRecord

PROGRAM = textwrap.dedent("""\
    torch.manual_seed(0)
    w = torch.randn(200, 300, requires_grad=True)
    x = torch.randn(64, 200)
    layer = torch.nn.Linear(300, 120)
    h = (x @ w).tanh()
    bad = torch.randn(150, 150)
    bad[3, 4] = float("nan")
    loss = layer(h).pow(2).mean()
    loss.backward()
""")


def _plain():
    """The same program run by plain PyTorch (no gradexplorer): the values the statistics must describe."""
    namespace = {"torch": torch}
    exec(PROGRAM, namespace)  # noqa: S102 - our own test program
    return {"h": namespace["h"].detach(), "w.grad": namespace["w"].grad, "bad": namespace["bad"],
            "weight.grad": namespace["layer"].weight.grad}


def _describe(t: torch.Tensor) -> tuple:
    finite = t[t.isfinite()].double()
    return finite.min().item(), finite.max().item(), finite.mean().item(), finite.std().item()


def test_statistics_that_arrive_after_the_capture_equal_plain_pytorchs():
    cap = capture_isolated(PROGRAM)
    assert cap.ok, cap.error and cap.error.traceback
    plain = _plain()
    weight = next(a for _, a in cap.graph.nodes(data=True) if a["kind"] == "leaf" and a["module"] == "layer"
                  and a["value"].shape == (120, 300))
    # What the first picture reads came with the file: a parameter's gradient statistics (gradient flow).
    record = weight["grads"][0].outputs[0]
    assert record.data is None and record.known_norm is None  # no norm sent: it did not wait for statistics
    assert (record.summary.min, record.summary.max) == pytest.approx(_describe(plain["weight.grad"])[:2], rel=1e-5)
    h = next(t for t in cap.tensors if "h" in t.names).value
    assert h.data is None and h.known_norm == pytest.approx(plain["h"].norm().item(), rel=1e-5)
    low, high, mean, std = _describe(plain["h"])
    assert (h.stats.min, h.stats.max, h.stats.std) == pytest.approx((low, high, std), rel=1e-5)
    # The mean of these tanh values is near zero (0.005 of values up to 1): float32 matmuls summed in another
    # order in the child (another thread count) move it by ~2e-7, 4e-5 of itself (seen once in a CI run).
    assert h.stats.mean == pytest.approx(mean, rel=1e-5, abs=1e-5 * max(abs(low), abs(high)))
    wgrad = next(t for t in cap.tensors if "w" in t.names).grad
    assert (wgrad.stats.min, wgrad.stats.max) == pytest.approx(_describe(plain["w.grad"])[:2], rel=1e-5)
    bad = next(t for t in cap.tensors if "bad" in t.names).value
    assert bad.known_norm is None and bad.stats.nan_count == 1  # NaN/Inf: the statistics came with the file
    assert bad.stats.mean == pytest.approx(_describe(plain["bad"])[2], rel=1e-5, abs=1e-7)
    wait_for_spare()  # the child has ended and the next one is ready


def _handover(program: str):
    cap = capture(program)
    buffer = io.BytesIO()
    sink = write_session_container(Session(code=program, device="cpu", capture=cap), buffer, defer_stats=True)
    lines = b"\n".join(sink.late_stats_lines())
    records: list = []
    read = read_session_bytes(buffer.getvalue(), records_out=records).capture
    return read, records, lines


def test_records_wait_for_late_statistics_and_get_them_from_valid_lines_only():
    read, records, lines = _handover(PROGRAM)
    waiting = [r for r in records if r.known_norm is not None]
    assert waiting and all(r.summary is None and r.data is None for r in waiting)
    late = LateStats()
    for record in records:
        record.await_stats(late)
    assert not late.wait(0.01)
    number = records.index(waiting[0])
    for bad, why in ((b"[1, 2, 3]", "not .the number"), (b"{\"a\": 1}", "not .the number"),
                     (b"[%d, {\"min\": \"x\"}]" % number, "statistics"), (b"[-1, {}]", "not .the number"),
                     (b"[%d, {}]" % len(records), "not .the number"), (b"not json", "not valid JSON")):
        with pytest.raises(DocumentError, match=why):
            add_late_stats(records, lines + b"\n" + bad)
        assert all(r.summary is None for r in waiting)  # a refusal changes nothing
    with pytest.raises(DocumentError, match="does not wait"):
        add_late_stats(records, lines + b"\n" + lines.splitlines()[0])  # twice
    not_waiting = next(i for i, r in enumerate(records) if r.data is not None)
    with pytest.raises(DocumentError, match="does not wait"):
        add_late_stats(records, b"[%d, {}]" % not_waiting)
    seen = []
    reader = threading.Thread(target=lambda: seen.append(waiting[0].stats))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive()  # reading the statistics waits for them
    assert add_late_stats(records, lines) == len(lines.splitlines()) > 0
    late.arrived()
    reader.join(5)
    assert seen == [waiting[0].summary] and seen[0] is not None
    assert all(r.stats is not None for r in waiting)


def test_a_norm_is_only_accepted_on_a_record_without_values_or_statistics():
    from gradexplorer.core.io.decode import record_from_dict

    base = {"shape": [2], "dtype": "float32", "device": "cpu", "requires_grad": False}
    assert record_from_dict({**base, "norm": 2.5}, "r").known_norm == 2.5
    for norm in (-1.0, "nan", True, [1.0]):
        with pytest.raises(DocumentError, match="norm"):
            record_from_dict({**base, "norm": norm}, "r")
    with pytest.raises(DocumentError, match="norm"):
        record_from_dict({**base, "norm": 1.0, "values": [1.0, 2.0]}, "r")
    stats = {"min": 0, "max": 1, "mean": 0.5, "std": 0.1, "nan_count": 0, "inf_count": 0, "head": [], "tail": []}
    with pytest.raises(DocumentError, match="norm"):
        record_from_dict({**base, "norm": 1.0, "stats": stats}, "r")


def test_a_record_with_its_norm_needs_no_statistics_for_the_overview():
    record = TensorRecord((3,), "float32", "cpu", False, known_norm=5.0)
    late = LateStats()
    record.await_stats(late)
    assert record.norm_and_nonfinite() == (5.0, False) and not late.wait(0)  # no waiting for the norm
    late.arrived()
    assert record.stats is None  # nothing came: the record says so instead of waiting again



def test_the_child_computes_its_statistics_once_the_caller_says_so():
    picture_made = threading.Event()
    cap = capture_isolated(PROGRAM, stats_after=picture_made)
    h = next(t for t in cap.tensors if "h" in t.names).value
    time.sleep(1.0)
    assert h.stats_pending  # the child waits (the app's picture is being made meanwhile)
    picture_made.set()
    plain = _plain()["h"]
    assert h.stats.max == pytest.approx(plain.max().item(), rel=1e-6)  # waits for them, then reads them
    wait_for_spare()


def test_statistics_that_never_come_are_said_missing_on_their_records():
    # A thread the program leaves running ends the process after the capture was sent, before the statistics.
    picture_made = threading.Event()  # never set: the child's death must end the wait by itself
    code = PROGRAM + "import os, threading\nthreading.Timer(1.5, os._exit, (0,)).start()\n"
    cap = capture_isolated(code, stats_after=picture_made)
    assert cap.ok, cap.error and cap.error.traceback
    h = next(t for t in cap.tensors if "h" in t.names).value
    assert h.stats_pending
    started = time.perf_counter()
    assert h.stats is None  # waits for the end of the child, not for a minute
    assert time.perf_counter() - started < 10
    assert "statistics not received: the program's process ended before sending them" in h.note
    assert h.known_norm is not None  # the norm it came with stays
    wait_for_spare()

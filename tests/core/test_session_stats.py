"""Statistics written for records saved without their values: computed together, equal to plain PyTorch's."""

import io
import zipfile

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.io.session import Session, read_session_bytes, write_session_container
from gradexplorer.core.io.capture_json import TensorSink
from gradexplorer.core.records.tensors import TensorRecord, fill_stats


def _record(data: torch.Tensor) -> TensorRecord:
    return TensorRecord(tuple(data.shape), str(data.dtype).removeprefix("torch."), "cpu", False, data=data)


def _torch_stats(t: torch.Tensor) -> tuple[float, float, float, float]:
    t = t.double()
    return t.min().item(), t.max().item(), t.mean().item(), t.std().item()


def test_records_on_one_view_share_statistics_and_other_views_get_their_own():
    base = torch.linspace(-3.0, 5.0, 4096)
    same, again, head, strided = _record(base), _record(base), _record(base[:100]), _record(base[::2])
    fill_stats([same, again, head, strided])
    assert again.summary is same.summary  # one computation for the same memory, shape, strides and dtype
    for record, plain in ((same, base), (head, base[:100]), (strided, base[::2])):  # same address, other views
        s = record.summary
        assert (s.min, s.max, s.mean, s.std) == pytest.approx(_torch_stats(plain), rel=1e-6)


def test_statistics_asked_to_stop_leave_the_rest_lazy_and_still_right_when_asked():
    """A superseded autosave stops computing at once; what it left is computed when asked, the same numbers."""
    tensors = [torch.linspace(-1.0, float(i), 2048) for i in range(600)]
    records = [_record(t) for t in tensors]
    questions = []

    def stop_at_the_third_question() -> bool:
        questions.append(1)
        return len(questions) >= 3

    assert fill_stats(records, should_stop=stop_at_the_third_question) is False
    done = sum(r.summary is not None for r in records)
    assert 0 < done <= 2 * 256  # asked every 256 records: two batches at most
    assert fill_stats(records, should_stop=lambda: False) is True
    assert all(r.summary is not None for r in records)
    s = records[-1].stats
    assert (s.min, s.max, s.mean, s.std) == pytest.approx(_torch_stats(tensors[-1]), rel=1e-6)


def test_a_sink_asked_to_stop_raises_while_it_fills_statistics():
    """The statistics a session computes before writing (1.8 s at 50,000 nodes) stop with the save."""
    from gradexplorer.core.io.files import SaveCancelled

    asked = []
    sink = TensorSink(budget=0, should_stop=lambda: bool(asked))
    records = [_record(torch.linspace(0.0, float(i + 1), 1000)) for i in range(600)]
    for record in records:
        sink.encode(record)  # over the budget: statistics awaited
    asked.append(1)
    with pytest.raises(SaveCancelled):
        sink.fill_stats()
    assert sum(r.summary is not None for r in records) == 0


def test_a_sink_asked_to_stop_raises_while_it_encodes():
    """Encoding a 50,000-node capture's records is about 2 s: a superseded save stops within a few hundred."""
    from gradexplorer.core.io.files import SaveCancelled
    from gradexplorer.core.records.tensors import STOP_POLL_RECORDS

    asked = []
    sink = TensorSink(budget=10**6, should_stop=lambda: bool(asked))
    record = _record(torch.ones(3))
    asked.append(1)
    with pytest.raises(SaveCancelled):
        for _ in range(STOP_POLL_RECORDS):
            sink.encode(record)  # the same record again: nothing new to write, still a question


def test_a_record_met_twice_is_written_once_and_read_back_as_one():
    record = _record(torch.arange(10.0))
    sink = TensorSink(budget=100)
    assert (sink.encode(record), sink.encode(record), sink.encode(_record(torch.ones(2)))) == (0, 0, 1)
    assert [r["data"] for r in sink.records] == ["t0", "t1"] and len(sink.tensors) == 2 and sink.budget == 88
    cap = capture("x = torch.ones(3, requires_grad=True)\ny = x * 2\nz = y.exp()\nz.sum().backward()\n")
    buffer = io.BytesIO()
    write_session_container(Session(code=cap.code, device="cpu", capture=cap, filename="<editor>"), buffer)
    reopened = read_session_bytes(buffer.getvalue()).capture
    y, z = (reopened.graph.nodes[reopened.node_named(n)] for n in "yz")
    # y's output gradient is z's input gradient: one record in the capture, one in the file, one again.
    assert cap.graph.nodes[cap.node_named("y")]["grads"][0].outputs[0] is \
        cap.graph.nodes[cap.node_named("z")]["grads"][0].inputs[0]
    assert y["grads"][0].outputs[0] is z["grads"][0].inputs[0]


def test_summaries_in_a_file_equal_plain_torch_statistics():
    code = ("x = torch.linspace(-2.0, 6.0, 30000, requires_grad=True)\n"  # over the value cap: a summary
            "y = (x * x).sum()\n"
            "y.backward()\n")
    cap = capture(code)
    buffer = io.BytesIO()
    write_session_container(Session(code=code, device="cpu", capture=cap, filename="<editor>"), buffer,
                            compress=False, file_values=10)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as zf:
        assert {info.compress_type for info in zf.infolist()} == {zipfile.ZIP_STORED}
    reopened = read_session_bytes(buffer.getvalue()).capture
    x = torch.linspace(-2.0, 6.0, 30000)  # what plain PyTorch computes for the same program
    for record, plain in ((reopened.tensor("x").value, x), (reopened.tensor("x").grad, 2 * x)):
        assert record.data is None
        s = record.stats
        assert (s.min, s.max, s.mean, s.std) == pytest.approx(_torch_stats(plain), rel=1e-5)
        assert list(s.head) == pytest.approx(plain[:5].tolist())

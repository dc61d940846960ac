"""The isolated hand-over sends the graph nodes ahead in parts, read while the child writes the rest (issue 13).

A capture sent in parts must read back as the same capture as the whole
file, with every check of the file applied to each part; the leaf gradients
are compared with plain PyTorch running the same program.
"""

from __future__ import annotations

import gc
import io
import os
import textwrap
import threading
import time
import zipfile

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.analysis.gradient_flow import parameter_gradients
from gradexplorer.core.io import capture_json
from gradexplorer.core.io.decode import PartialCapture
from gradexplorer.core.io.handover import read_capture_part, write_capture_part
from gradexplorer.core.io.session import DEFAULT_FILE_VALUES, Session, read_session_bytes, write_session_container
from gradexplorer.core.isolated import engine
from gradexplorer.core.isolated.engine import capture_isolated, wait_for_spare
from gradexplorer.core.records.errors import DocumentError

PROGRAM = textwrap.dedent("""\
    torch.manual_seed(0)
    # The second weight (12,000 numbers) is past the per-tensor value cap: its gradient goes without values.
    model = torch.nn.Sequential(torch.nn.Linear(6, 120), torch.nn.Tanh(), torch.nn.Linear(120, 100))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(5, 6)
    big = torch.randn(200, 120, requires_grad=True)  # past the per-tensor value cap: saved without values
    for step in range(2):
        opt.zero_grad()
        h = model(x)
        h.register_hook(lambda g: g * 2)
        loss = h.pow(2).mean() + (big * 3).sum() * 1e-3
        loss.backward()
        opt.step()
""")


def _plain_grads() -> dict[str, torch.Tensor]:
    """The same program run by plain PyTorch: the gradients the read-back capture must hold."""
    namespace = {"torch": torch}
    exec(PROGRAM, namespace)  # noqa: S102 - our own test program
    return {name: p.grad.clone() for name, p in namespace["model"].named_parameters()} | {
        "big": namespace["big"].grad.clone()}


def _written(cap, *, in_parts: bool) -> tuple[list[bytes], bytes]:
    """The hand-over as the child writes it: the parts (if any), then the container."""
    parts: list[bytes] = []

    def send(node_lines, records, values):
        fh = io.BytesIO()
        write_capture_part(fh, node_lines, records, values)
        parts.append(fh.getvalue())

    buffer = io.BytesIO()
    first = parameter_gradients(cap.graph, len(cap.passes))
    sink = None
    if in_parts:
        sink = capture_json.TensorSink(DEFAULT_FILE_VALUES, defer_stats=True, stats_first=first)
        capture_json.send_nodes(cap.graph, sink, send)
    write_session_container(Session(code=PROGRAM, device="cpu", capture=cap), buffer, compress=False,
                            defer_stats=True, stats_first=first, sink=sink)
    return parts, buffer.getvalue()


def _captured_and_sent_early() -> tuple:
    """As the isolated child does it: the nodes sent in parts as soon as the graph is built, then the rest.

    Returns the capture, the parts, the container, and what had been built of the rest of the capture when
    the nodes went (the names of the capture steps that had run).
    """
    parts: list[bytes] = []
    steps_before_sending: list[str] = []
    sink_of: dict = {}

    def send(node_lines, records, values):
        fh = io.BytesIO()
        write_capture_part(fh, node_lines, records, values)
        parts.append(fh.getvalue())

    def graph_built(graph, pass_count):
        steps_before_sending.extend(_STEPS_RUN)
        sink = sink_of["sink"] = capture_json.TensorSink(
            DEFAULT_FILE_VALUES, defer_stats=True, stats_first=parameter_gradients(graph, pass_count))
        capture_json.send_nodes(graph, sink, send)

    _STEPS_RUN.clear()
    cap = capture(PROGRAM, on_graph=graph_built)
    buffer = io.BytesIO()
    write_session_container(Session(code=PROGRAM, device="cpu", capture=cap), buffer, compress=False,
                            sink=sink_of["sink"])
    return cap, parts, buffer.getvalue(), steps_before_sending


#: The capture steps after the graph build that have run (filled by the ``capture_steps`` fixture).
_STEPS_RUN: list[str] = []


@pytest.fixture
def capture_steps(monkeypatch):
    """Note in :data:`_STEPS_RUN` when the capture makes its named tensors, module audit and explanations."""
    from gradexplorer.core.pipeline import steps

    _STEPS_RUN.clear()
    for name in ("tensor_infos", "audit_modules", "explain_capture"):
        real = getattr(steps, name)

        def step(*args, _real=real, _name=name, **kwargs):
            _STEPS_RUN.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(steps, name, step)
    yield _STEPS_RUN
    _STEPS_RUN.clear()


@pytest.mark.parametrize("per_part", [1, 7, 100_000])
def test_nodes_sent_as_soon_as_the_graph_is_built_read_back_as_the_whole_file(monkeypatch, capture_steps,
                                                                              per_part):
    """The child's way: the parts go before the named tensors, the audit and the explanations exist."""
    whole, whole_records = _read(*_written(capture(PROGRAM), in_parts=False))
    monkeypatch.setattr(capture_json, "NODES_PER_PART", per_part)
    cap, parts, container, steps_before = _captured_and_sent_early()
    assert cap.ok, cap.error and cap.error.traceback
    assert steps_before == []  # nothing of the rest had been built when the nodes went
    assert capture_steps == ["tensor_infos", "audit_modules", "explain_capture"]  # and all of it after
    assert len(parts) == -(-cap.graph.number_of_nodes() // per_part)
    got, got_records = _read(parts, container)

    got_doc, whole_doc = capture_json.capture_to_dict(got), capture_json.capture_to_dict(whole)
    del got_doc["timings"], whole_doc["timings"]  # two runs
    assert got_doc == whole_doc
    assert got.explanations and got.tensors and got.modules
    assert [_record_key(r) for r in got_records] == [_record_key(r) for r in whole_records]
    first = parameter_gradients(got.graph, len(got.passes))
    assert any(r.data is None for r in first) and all(r.stats is not None for r in first)
    for name, grad in _plain_grads().items():
        record = got.graph.nodes[got.node_named(name if name == "big" else f"model.{name}")]["grad"]
        norm = record.known_norm if record.summary is None and record.data is None else record.finite_norm()
        assert norm == pytest.approx(grad.double().norm().item(), rel=1e-5)


def test_the_time_spent_sending_the_nodes_is_not_counted_as_the_build(monkeypatch):
    def slow_sender(graph, pass_count):
        time.sleep(0.5)

    cap = capture(PROGRAM, on_graph=slow_sender)
    assert cap.ok
    assert cap.timings["build"] < 0.4


def _read(parts: list[bytes], container: bytes) -> tuple:
    partial = PartialCapture()
    for i, part in enumerate(parts):
        read_capture_part(part, partial, name=f"part {i + 1}")
    records: list = []
    session = read_session_bytes(container, records_out=records, partial=partial if parts else None)
    return session.capture, records


def _record_key(record) -> tuple:
    data = None if record.data is None else record.data.tolist()
    return record.shape, record.dtype, record.note, record.known_norm, record.summary, data


@pytest.mark.parametrize("per_part", [1, 7, 100_000])
def test_a_capture_sent_in_parts_reads_back_as_the_whole_file(monkeypatch, per_part):
    # A capture for each writing: the first would leave the statistics it computed cached in the records.
    whole, whole_records = _read(*_written(capture(PROGRAM), in_parts=False))
    cap = capture(PROGRAM)
    assert cap.ok, cap.error and cap.error.traceback
    monkeypatch.setattr(capture_json, "NODES_PER_PART", per_part)
    parts, container = _written(cap, in_parts=True)
    assert len(parts) == -(-cap.graph.number_of_nodes() // per_part)
    got, got_records = _read(parts, container)

    got_doc, whole_doc = capture_json.capture_to_dict(got), capture_json.capture_to_dict(whole)
    del got_doc["timings"], whole_doc["timings"]  # two runs
    assert got_doc == whole_doc
    assert [_record_key(r) for r in got_records] == [_record_key(r) for r in whole_records]
    assert any(r.known_norm is not None for r in got_records)  # the hand-over's norms went along
    # The parameters' gradients keep their statistics (the first picture's gradient flow reads them).
    first = parameter_gradients(got.graph, len(got.passes))
    assert any(r.data is None for r in first) and all(r.stats is not None for r in first)
    expected = _plain_grads()
    for name, grad in expected.items():
        node = got.graph.nodes[got.node_named(name if name == "big" else f"model.{name}")]
        record = node["grad"]
        assert record.shape == tuple(grad.shape)
        if record.data is not None:
            assert torch.allclose(record.data, grad)
        elif record.summary is None:  # past the value cap: its norm now (its statistics follow), summed in float32
            assert record.known_norm == pytest.approx(grad.double().norm().item(), rel=1e-5)
        else:  # the same tensor as the gradient the pass delivered: one record, whose statistics came with it
            assert record.finite_norm() == pytest.approx(grad.double().norm().item(), rel=1e-5)


def _parts(monkeypatch, per_part: int = 5) -> tuple[list[bytes], bytes]:
    monkeypatch.setattr(capture_json, "NODES_PER_PART", per_part)
    cap = capture(PROGRAM)
    parts, container = _written(cap, in_parts=True)
    assert len(parts) >= 3
    return parts, container


def _members(part: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(part)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _zip(members: dict[str, bytes]) -> bytes:
    fh = io.BytesIO()
    with zipfile.ZipFile(fh, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return fh.getvalue()


def test_parts_in_the_wrong_order_are_refused(monkeypatch):
    parts, _ = _parts(monkeypatch)
    partial = PartialCapture()
    with pytest.raises(DocumentError, match=r"capture\.(records|nodes)\[\d+\]"):
        read_capture_part(parts[1], partial, name="part 2")  # its nodes name records of part 1


def test_a_node_sent_twice_is_refused(monkeypatch):
    parts, _ = _parts(monkeypatch)
    partial = PartialCapture()
    read_capture_part(parts[0], partial, name="part 1")
    members = _members(parts[0])
    again = _zip({"records.jsonl": b"", "nodes.jsonl": members["nodes.jsonl"], "values.safetensors": _empty_table()})
    with pytest.raises(DocumentError, match="appears twice"):
        read_capture_part(again, partial, name="part 2")


def _empty_table() -> bytes:
    fh = io.BytesIO()
    write_capture_part(fh, [], [], {})
    return _members(fh.getvalue())["values.safetensors"]


def test_values_sent_twice_are_refused(monkeypatch):
    parts, _ = _parts(monkeypatch)
    partial = PartialCapture()
    read_capture_part(parts[0], partial, name="part 1")
    assert partial.table  # part 1 has values to send twice
    with pytest.raises(DocumentError, match="a second time"):
        read_capture_part(parts[0], partial, name="part 2")


@pytest.mark.parametrize("damage", ["truncated", "extra member", "missing member", "bad record", "not json"])
def test_a_damaged_part_is_refused_with_one_sentence(monkeypatch, damage):
    parts, _ = _parts(monkeypatch)
    members = _members(parts[0])
    if damage == "truncated":
        data = parts[0][: len(parts[0]) // 2]
    elif damage == "extra member":
        data = _zip({**members, "session.json": b"{}"})
    elif damage == "missing member":
        data = _zip({k: v for k, v in members.items() if k != "values.safetensors"})
    elif damage == "bad record":
        data = _zip({**members, "records.jsonl": b'{"shape": "3", "dtype": "float32"}\n'})
    else:
        data = _zip({**members, "nodes.jsonl": b"{nope\n"})
    with pytest.raises(DocumentError) as info:
        read_capture_part(data, PartialCapture(), name="part 1")
    assert "\n" not in str(info.value) and "part 1" in str(info.value)


def test_parts_count_towards_the_size_limit(monkeypatch):
    parts, container = _parts(monkeypatch)
    partial = PartialCapture()
    sizes = [sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(p)).infolist()) for p in parts]
    limit = sizes[0] + sizes[1] // 2
    read_capture_part(parts[0], partial, name="part 1", max_bytes=limit)
    with pytest.raises(DocumentError, match="past"):
        read_capture_part(parts[1], partial, name="part 2", max_bytes=limit)
    # The container counts what its parts unpacked to as well.
    partial = PartialCapture()
    for part in parts:
        read_capture_part(part, partial, name="a part")
    with pytest.raises(DocumentError, match="unpacks to"):
        read_session_bytes(container, partial=partial, max_bytes=partial.size + 10)


def test_a_part_that_is_a_fifo_is_refused_at_once(tmp_path):
    pattern = str(tmp_path / "part-{}.gxpart")
    os.mkfifo(pattern.format(0))
    parts = engine._Parts(pattern)  # noqa: SLF001 - the parent's part reader itself
    reader = threading.Thread(target=parts.read_announced, args=(1,), daemon=True)
    reader.start()
    reader.join(1.0)
    if reader.is_alive():  # blocked opening the FIFO: let it go before failing
        os.close(os.open(pattern.format(0), os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
        pytest.fail("reading a part that is a FIFO blocked")
    assert "named pipe" in parts.refused and parts.read == 1


#: A 60-node chain; the programs below run it in the isolated child after slowing part of the hand-over.
CHAIN = textwrap.dedent("""\
    torch.manual_seed(0)
    x = torch.randn(4, requires_grad=True)
    y = x
    for _ in range(30):
        y = (y * 1.01).tanh()
    y.sum().backward()
""")

SLOW_WRITER = textwrap.dedent("""\
    # Slows this child's writing down after the first part (the program runs in the child, so it can):
    # the parent must read part 1 before part 2 exists.
    import time
    from gradexplorer.core.io import capture_json
    capture_json.NODES_PER_PART = 20
    taken = capture_json.TensorSink.take
    def slow_take(self, _calls=[0]):
        _calls[0] += 1
        if _calls[0] > 1:
            time.sleep(0.5)
        return taken(self)
    capture_json.TensorSink.take = slow_take
""") + CHAIN


def _plain_slow_writer_grad() -> torch.Tensor:
    """:data:`CHAIN` run by plain PyTorch: the gradient of ``x`` the isolated captures must hold."""
    namespace = {"torch": torch}
    exec(CHAIN, namespace)  # noqa: S102 - our own test program
    return namespace["x"].grad


def test_the_app_reads_the_parts_while_the_child_still_writes(monkeypatch):
    seen = []
    real = engine.read_capture_part

    def reading(data, partial, *, name, **kw):
        folder = engine.Path(seen_pattern[0]).parent if seen_pattern else None
        seen.append((name, sorted(p.name for p in folder.glob("part-*")) if folder else None))
        return real(data, partial, name=name, **kw)

    seen_pattern: list[str] = []
    real_parts = engine._Parts  # noqa: SLF001

    class Parts(real_parts):
        def __init__(self, pattern):
            super().__init__(pattern)
            seen_pattern.append(pattern)

    monkeypatch.setattr(engine, "read_capture_part", reading)
    monkeypatch.setattr(engine, "_Parts", Parts)
    cap = capture_isolated(SLOW_WRITER)
    assert cap.ok, cap.error and cap.error.traceback
    assert cap.graph.number_of_nodes() > 40
    assert len(seen) == -(-cap.graph.number_of_nodes() // 20) + 1  # the nodes' parts, then the preview's
    name, files = seen[0]
    assert name == "part 1 of the program's capture" and files == ["part-0.gxpart"]  # part 2 not written yet
    assert cap.timings["hand-over after write"] < cap.timings["hand-over read"]
    grad = cap.graph.nodes[cap.node_named("x")]["grad"].data
    assert torch.allclose(grad, _plain_slow_writer_grad())


SLOW_EXPLAINER = textwrap.dedent("""\
    # Slows this child's explanations down (the program runs in the child, so it can): the nodes, sent as
    # soon as the graph is built, must all be read by the app while the child is still explaining.
    import time
    from gradexplorer.core.io import capture_json
    from gradexplorer.core.pipeline import steps
    capture_json.NODES_PER_PART = 20
    explain = steps.explain_capture
    def slow_explain(result):
        time.sleep(1.5)
        return explain(result)
    steps.explain_capture = slow_explain
""") + CHAIN


def test_the_app_reads_the_nodes_while_the_child_still_builds_the_rest(monkeypatch):
    """The child sends the nodes as soon as the graph is built: the app has read them all before the file."""
    events = []
    real_part, real_file = engine.read_capture_part, engine.load_session

    def reading_part(data, partial, *, name, **kw):
        result = real_part(data, partial, name=name, **kw)
        events.append(("part", time.perf_counter()))
        return result

    def reading_file(*args, **kw):
        events.append(("file", time.perf_counter()))
        return real_file(*args, **kw)

    monkeypatch.setattr(engine, "read_capture_part", reading_part)
    monkeypatch.setattr(engine, "load_session", reading_file)
    cap = capture_isolated(SLOW_EXPLAINER)
    assert cap.ok, cap.error and cap.error.traceback
    kinds = [kind for kind, _ in events]
    assert kinds == ["part"] * (-(-cap.graph.number_of_nodes() // 20) + 1) + ["file"]  # + the preview's part
    last_part, file_read = events[-2][1], events[-1][1]
    assert file_read - last_part > 1.0  # every part was read while the child still explained
    assert cap.explanations
    grad = cap.graph.nodes[cap.node_named("x")]["grad"].data
    assert torch.allclose(grad, _plain_slow_writer_grad())


def test_a_part_the_app_refuses_ends_the_run_at_once_with_a_clear_error():
    wait_for_spare()
    started = time.perf_counter()
    cap = capture_isolated(textwrap.dedent("""\
        # The first part this child sends is damaged, and the next ones would take seconds each.
        import time
        from gradexplorer.core.io import capture_json
        capture_json.NODES_PER_PART = 1
        taken = capture_json.TensorSink.take
        def bad_take(self, _calls=[0]):
            _calls[0] += 1
            if _calls[0] > 1:
                time.sleep(5)
            records, values = taken(self)
            if records:
                records[0] = {"shape": "3", "dtype": "float32", "device": "cpu", "requires_grad": False}
            return records, values
        capture_json.TensorSink.take = bad_take
        a = torch.tensor(1.1, requires_grad=True)
        (a * 2).backward()
    """))
    assert time.perf_counter() - started < 4.0  # the app did not wait for the parts after the refused one
    assert gc.isenabled()  # paused at the first part, running again after the refusal
    assert cap.error is not None and cap.error.exc_type == "DocumentError"
    assert "part 1 of the program's capture" in cap.error.message and "capture.records[0].shape" in cap.error.message
    assert cap.graph.number_of_nodes() == 0


def test_the_collector_stays_paused_from_the_first_part_to_the_end_of_the_hand_over(monkeypatch, tmp_path):
    # Paused part by part, the parts' objects piled up in the collector's middle generation and its
    # collections stalled the GUI thread for 130-160 ms at 50,000 nodes.
    parts, _ = _parts(monkeypatch)
    pattern = str(tmp_path / "part-{}.gxpart")
    for i, part in enumerate(parts[:2]):
        with open(pattern.format(i), "wb") as fh:
            fh.write(part)
    assert gc.isenabled()
    reader = engine._Parts(pattern)  # noqa: SLF001 - the parent's part reader itself
    try:
        reader.read_announced(1)
        assert not gc.isenabled()  # between two parts too
        reader.read_announced(2)
        assert not reader.refused and not gc.isenabled()
    finally:
        reader.release()
    assert gc.isenabled()
    reader.release()  # a second time changes nothing
    assert gc.isenabled()


def test_the_collector_runs_again_when_an_isolated_run_ends(monkeypatch):
    # Not only once the part reader is freed (a generator's finally would end the pause then): it is
    # kept alive here, as a traceback or a cycle could keep it.
    readers = []

    class KeptParts(engine._Parts):  # noqa: SLF001
        def __init__(self, pattern):
            super().__init__(pattern)
            readers.append(self)

    monkeypatch.setattr(engine, "_Parts", KeptParts)
    assert gc.isenabled()
    cap = capture_isolated("(torch.ones(3, requires_grad=True) * 2).sum().backward()\n")
    assert cap.ok and readers and readers[0].read == 2  # the nodes, then the preview
    assert gc.isenabled()


def test_a_child_that_dies_between_two_parts_is_a_crash_report_with_its_line():
    cap = capture_isolated(textwrap.dedent("""\
        # This child sends one part of the capture, then crashes in native code while encoding the next.
        import ctypes
        from gradexplorer.core.io import capture_json
        capture_json.NODES_PER_PART = 1
        taken = capture_json.TensorSink.take
        def crashing_take(self, _calls=[0]):
            _calls[0] += 1
            if _calls[0] > 1:
                ctypes.string_at(0)
            return taken(self)
        capture_json.TensorSink.take = crashing_take
        print("ran")
        (torch.ones(3, requires_grad=True) * 2).sum().backward()
    """))
    assert (cap.error.kind, cap.error.exc_type, cap.error.line) == ("crashed", "SIGSEGV", 9)
    assert cap.stdout == "ran\n" and cap.graph.number_of_nodes() == 0
    assert gc.isenabled()


def test_a_child_that_dies_writing_the_file_after_its_parts_is_a_crash_report_with_its_line():
    """The parts went, the file was begun: still a crash, not a capture read from half a file."""
    cap = capture_isolated(textwrap.dedent("""\
        # This child sends its parts, opens the file, then crashes in native code before writing it.
        import ctypes
        from gradexplorer.core.io import session
        def crashing_document(*args, **kwargs):
            ctypes.string_at(0)
        session.session_to_dict = crashing_document
        print("ran")
        (torch.ones(3, requires_grad=True) * 2).sum().backward()
    """))
    assert (cap.error.kind, cap.error.exc_type, cap.error.line) == ("crashed", "SIGSEGV", 5)
    assert cap.stdout == "ran\n" and cap.graph.number_of_nodes() == 0
    assert gc.isenabled()


def test_a_forged_part_with_a_ten_million_character_op_is_refused_before_it_is_kept(monkeypatch):
    """A part is checked as a whole file is (issue 29: a forged part once took the app to 4.3 GB)."""
    import re

    parts, _ = _parts(monkeypatch)
    members = _members(parts[0])
    nodes = members["nodes.jsonl"]
    members["nodes.jsonl"] = re.sub(rb'"op":"[^"]+"', b'"op":"' + b"A" * 10_000_000 + b'"', nodes, count=1)
    partial = PartialCapture()
    with pytest.raises(DocumentError, match=r"capture\.nodes\[0\]\.op is 10,000,000 characters long"):
        read_capture_part(_zip(members), partial, name="part 1")

"""Session files: round trip, safe loading, bad input, fuzzing (issue 5)."""

import json
import random
import subprocess
import sys

import pytest
import torch

from gradexplorer import capture
from gradexplorer.cli import main
from gradexplorer.core.records.errors import DocumentError
from gradexplorer.core.io.session import (
    FORMAT,
    SCHEMA_VERSION,
    ViewState,
    load_session,
    read_session_text,
    save_session,
    session_from_capture,
    session_to_dict,
)
from gradexplorer.core.io.capture_json import capture_to_dict
from gradexplorer.resources import example_paths, read_example

from .conftest import capture_file_with_cli


def _comparable(doc):
    doc = dict(doc)
    doc.pop("timings")  # a reopened capture keeps the saved timings; equal anyway, but not data
    return doc


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_round_trip_every_example(path, tmp_path):
    cap = capture(read_example(path.stem))
    target = tmp_path / "s.gxsession"
    save_session(session_from_capture(cap, view=ViewState("n1", 1.5)), target)
    session = load_session(target)
    assert session.code == cap.code
    assert session.view == ViewState("n1", 1.5)
    assert _comparable(capture_to_dict(session.capture)) == _comparable(capture_to_dict(cap))
    assert session.capture.explanations == cap.explanations
    assert session.capture.modules == cap.modules


def test_reopened_session_answers_like_the_capture(tmp_path):
    cap = capture(read_example("03_next_functions"))
    save_session(session_from_capture(cap), tmp_path / "s.gxsession")
    reopened = load_session(tmp_path / "s.gxsession").capture
    c = reopened.graph.nodes[reopened.node_named("c")]
    assert c["variable"].item() == pytest.approx(1.3)
    assert c["grad"].item() == pytest.approx(1.32)
    assert c["path"] == "e.grad_fn.next_functions[1][0]"


def test_opening_never_runs_code_or_unpickles(tmp_path):
    """A session whose code would raise (and write a file) opens in a clean process with an audit hook."""
    marker = tmp_path / "ran.txt"
    cap = capture("x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n")
    session = session_from_capture(cap)
    doc = session_to_dict(session)
    doc["code"] = f"open({str(marker)!r}, 'w').write('ran')\nraise SystemExit('executed!')\n"
    path = tmp_path / "evil.gxsession"
    path.write_text(json.dumps(doc), encoding="utf-8")
    probe = f"""
import sys
import gradexplorer.core.io.session as s
events = []
def hook(event, args):
    # Libraries compile and import code of their own (networkx builds
    # decorators lazily); what must never happen is the file's code being
    # compiled or run, or anything being unpickled.
    if event == "compile" and "executed!" in str(args[0]):
        events.append(event)
    elif event == "exec" and getattr(args[0], "co_filename", "") in ("<editor>", "<session>"):
        events.append(event)
    elif event == "pickle.find_class" or (event == "open" and "ran.txt" in str(args[0])):
        events.append(event)
sys.addaudithook(hook)
session = s.load_session({str(path)!r})
assert session.code.startswith("open(")
assert session.capture.node_named("y")
print("events:", events)
"""
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "events: []"
    assert not marker.exists()


def test_capture_snapshot_opens_as_a_session(tmp_path, capsys):
    snap = tmp_path / "snap.json"
    assert main(["capture", str(example_paths()[2]), "--json", str(snap)]) == 0
    session = load_session(snap)
    assert session.notes and "capture document" in session.notes[0]
    assert session.capture.node_named("c")


def test_cli_capture_to_session_and_show(tmp_path, capsys):
    out = tmp_path / "x.gxsession"
    assert main(["capture", str(example_paths()[2]), "-o", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    text = capsys.readouterr().out
    assert "nothing was run" in text and "1.32" in text


def _valid_doc():
    cap = capture(read_example("04_register_hook"))
    return session_to_dict(session_from_capture(cap))


def _expect_clear(text, fragment):
    with pytest.raises(DocumentError) as info:
        read_session_text(text)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message  # one sentence, no traceback
    return message


def test_truncated_file():
    text = json.dumps(_valid_doc())
    _expect_clear(text[: len(text) // 2], "truncated")


def test_wrong_json_and_not_a_session():
    _expect_clear("{this is not json", "invalid JSON")
    _expect_clear("[1, 2, 3]", "not a gradexplorer session")
    _expect_clear(json.dumps({"hello": "world"}), "not a gradexplorer session")


def test_wrong_types_and_missing_keys():
    doc = _valid_doc()
    doc["capture"]["nodes"][0]["op"] = 42
    _expect_clear(json.dumps(doc), "capture.nodes[0].op should be text")
    doc = _valid_doc()
    del doc["capture"]["nodes"][1]["kind"]
    _expect_clear(json.dumps(doc), "lacks 'kind'")
    doc = _valid_doc()
    del doc["capture"]
    _expect_clear(json.dumps(doc), "lacks 'capture'")


def test_newer_major_version_is_refused():
    doc = _valid_doc()
    doc["schema_version"] = SCHEMA_VERSION + 1
    doc["app_version"] = "9.0"
    message = _expect_clear(json.dumps(doc), "made by gradexplorer 9.0 or newer")
    assert "upgrade" in message


def test_payload_that_does_not_match_its_shape():
    doc = _valid_doc()
    node = next(n for n in doc["capture"]["nodes"] if n["value"] is not None)
    node["value"]["shape"] = [3]
    _expect_clear(json.dumps(doc), "does not match its shape")


def test_deeply_nested_json():
    _expect_clear("[" * 100_000 + "]" * 100_000, "nested too deeply")
    doc = _valid_doc()
    doc["capture"]["stdout"] = json.loads("[" * 500 + "]" * 500)
    _expect_clear(json.dumps(doc), "capture.stdout should be text")


def test_huge_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.gxsession"
    with open(big, "wb") as fh:  # a sparse 2 GB file: costs no disk
        fh.truncate(2 * 1024**3)
    with pytest.raises(DocumentError) as info:
        load_session(big)
    assert "2,048 MiB" in str(info.value) and "not opened" in str(info.value)


def _document(path):
    import zipfile

    from gradexplorer.core.io.container import _nested_modules

    lists = ("records", "nodes", "edges", "tensors", "explanations", "modules")
    with zipfile.ZipFile(path) as zf:
        assert set(zf.namelist()) == {"session.json", "values.safetensors", *(f"{key}.jsonl" for key in lists)}
        assert zf.getinfo("values.safetensors").compress_type == zipfile.ZIP_STORED
        doc = json.loads(zf.read("session.json"))
        assert doc["capture"]["members"] == {key: f"{key}.jsonl" for key in lists}
        for key in lists:
            assert doc["capture"][key] == []
            doc["capture"][key] = [json.loads(line) for line in zf.read(f"{key}.jsonl").decode().splitlines()]
        # One module per line, each naming its parent's line: nest them as the document has them.
        doc["capture"]["modules"] = _nested_modules(doc["capture"]["modules"], "modules.jsonl")
        return doc


_RECORD_KEYS = {"value", "variable", "grad", "outputs", "inputs", "delivered", "before", "after", "tensor", "results",
                "record"}


def _inline_records(doc):
    """The format-2 form of a format-3 document: every record written where it appears (no record list)."""
    records = doc["capture"].pop("records")
    doc["capture"]["members"].pop("records", None)

    def inline(item, key=None):
        if isinstance(item, dict):
            return {k: inline(v, k) for k, v in item.items()}
        if isinstance(item, list):
            return [inline(v, key) for v in item]
        if key in _RECORD_KEYS and type(item) is int:
            return records[item]
        return item

    doc["capture"] = inline(doc["capture"])
    doc["schema_version"] = 2
    return doc


def test_session_file_is_a_container_with_a_value_table(tmp_path):
    cap = capture("w = torch.arange(6.0).reshape(2, 3).requires_grad_()\n(w * w).sum().backward()\n",
                  value_elements=1000)
    path = tmp_path / "s.gxsession"
    save_session(session_from_capture(cap), path)
    doc = _document(path)
    assert doc["schema_version"] == 3
    assert doc["limits"]["value_elements"] == 1000  # the capture's cap, not a constant
    node = next(n for n in doc["capture"]["nodes"] if "w" in n["names"])
    value = doc["capture"]["records"][node["value"]]  # format 3: records are written once, by number
    assert "values" not in value and value["data"].startswith("t")
    back = load_session(path).capture
    assert back.value_elements == 1000
    w = back.graph.nodes[back.node_named("w")]
    assert torch.equal(w["grad"].data, 2 * torch.arange(6.0).reshape(2, 3))


def test_budget_goes_to_graph_nodes_first(tmp_path):
    # Each value of w appears on its node and again in the tensors list: the node keeps it.
    cap = capture("w = torch.ones(40, requires_grad=True)\nv = torch.ones(40)\n(w * 2).sum().backward()\n")
    path = tmp_path / "s.gxsession"
    save_session(session_from_capture(cap), path, file_values=150)
    back = load_session(path).capture
    w = back.graph.nodes[back.node_named("w")]
    assert w["value"].data is not None and w["grad"].data is not None
    assert back.tensor("v").value.data is None and "budget" in back.tensor("v").value.note


def test_a_format_1_json_session_still_opens(tmp_path):
    cap = capture("w = torch.tensor([1.0, 2.0], requires_grad=True)\n(w * 3).sum().backward()\n")
    doc = session_to_dict(session_from_capture(cap))
    doc["schema_version"] = 1
    path = tmp_path / "old.gxsession"
    path.write_text(json.dumps(doc), encoding="utf-8")
    back = load_session(path).capture
    assert back.tensor("w").grad.data.tolist() == [3.0, 3.0]


def test_a_damaged_value_table_is_refused_clearly(tmp_path):
    import zipfile

    cap = capture("w = torch.tensor([1.0, 2.0], requires_grad=True)\n")
    good = tmp_path / "good.gxsession"
    save_session(session_from_capture(cap), good)
    with zipfile.ZipFile(good) as zf:
        members = {name: zf.read(name) for name in zf.namelist() if name != "values.safetensors"}
    for name, table in (("garbage", b"\xff" * 40), ("empty", b"")):
        bad = tmp_path / f"{name}.gxsession"
        with zipfile.ZipFile(bad, "w") as zf:
            for member, content in members.items():
                zf.writestr(member, content)
            zf.writestr("values.safetensors", table)
        with pytest.raises(DocumentError) as info:
            load_session(bad)
        assert "value table is damaged" in str(info.value)
    truncated = tmp_path / "truncated.gxsession"
    truncated.write_bytes(good.read_bytes()[:60])
    with pytest.raises(DocumentError):
        load_session(truncated)


def test_file_value_budget_keeps_summaries(tmp_path):
    cap = capture("x = torch.randn(50, 50, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n")
    path = tmp_path / "small.gxsession"
    save_session(session_from_capture(cap), path, file_values=100)
    doc = _document(path)
    assert doc["limits"]["summarised_records"] > 0
    session = load_session(path)
    x = session.capture.graph.nodes[session.capture.node_named("x")]
    assert x["value"].data is None and x["value"].stats is not None
    assert "budget" in x["value"].note


def test_atomic_save_leaves_old_file_on_failure(tmp_path, monkeypatch):
    cap = capture("x = torch.ones(1, requires_grad=True)\n")
    path = tmp_path / "s.gxsession"
    save_session(session_from_capture(cap), path)
    before = path.read_bytes()
    import os

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        save_session(session_from_capture(capture("y = torch.zeros(3)\n")), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.gxsession"]  # no temp file left


def _mutate(rng, doc):
    """One random structural mutation of a JSON document (in place)."""
    containers = []
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict) and item:
            containers.append(item)
            stack.extend(item.values())
        elif isinstance(item, list) and item:
            containers.append(item)
            stack.extend(item)
    target = rng.choice(containers)
    key = rng.choice(list(target.keys())) if isinstance(target, dict) else rng.randrange(len(target))
    choice = rng.randrange(7)
    replacements = [None, True, -1, 10**30, 1.5, "nan", "x", [], {}, [[[]]], "n0", 2**63]
    if choice == 0:
        target[key] = rng.choice(replacements)
    elif choice == 1 and isinstance(target, dict):
        del target[key]
    elif choice == 2 and isinstance(target, list):
        target.append(rng.choice(replacements))
    elif choice == 3:
        target[key] = [target[key]]
    elif choice == 4 and isinstance(target[key], (int, float)) and not isinstance(target[key], bool):
        target[key] = -target[key] * 7
    elif choice == 5 and isinstance(target[key], str):
        target[key] = target[key][::-1]
    else:
        target[key] = {"format": FORMAT}


def test_fuzzed_sessions_never_crash_or_run_code():
    base = [_valid_doc(), session_to_dict(session_from_capture(capture(read_example("06_mlp_training_step"))))]
    texts = [json.dumps(d) for d in base]
    rng = random.Random(20261202)
    executed = []

    marker = "GX_FUZZ_MARKER"
    for d in base:
        d["code"] = f"raise SystemExit({marker!r})\n"
        d["capture"]["code"] = d["code"]
    texts = [json.dumps(d) for d in base]

    watching = [True]

    def audit(event, args):
        if not watching[0]:  # an audit hook cannot be removed: after this test it does nothing
            return
        if event == "compile" and marker in str(args[0]):
            executed.append(event)
        elif event == "exec" and getattr(args[0], "co_filename", "") == "<editor>":
            executed.append(event)
        elif event == "pickle.find_class":
            executed.append(event)

    sys.addaudithook(audit)
    try:
        _fuzz(rng, texts, executed)
    finally:
        watching[0] = False
    seen = len(executed)
    compile(f"x = {marker!r}", "<probe>", "exec")
    assert len(executed) == seen  # the hook records nothing for the tests after this one


def _fuzz(rng, texts, executed):
    cases = 0
    outcomes = {"ok": 0, "refused": 0}
    start = len(executed)
    for i in range(2000):
        doc = json.loads(texts[i % 2])
        for _ in range(rng.randint(1, 4)):
            _mutate(rng, doc)
        text = json.dumps(doc)
        if rng.random() < 0.1:
            text = text[: rng.randrange(len(text))]  # truncation
        try:
            read_session_text(text)
            outcomes["ok"] += 1
        except DocumentError as exc:
            assert "\n" not in str(exc)
            outcomes["refused"] += 1
        cases += 1
    assert cases == 2000
    assert executed[start:] == [], "loading ran code"
    assert outcomes["refused"] > 100 and outcomes["ok"] > 10, outcomes


def test_first_format_2_files_with_only_a_nodes_member_still_open(tmp_path):
    """The first format-2 release kept only the nodes in a member of their own (``capture.nodes_member``)."""
    import zipfile

    cap = capture("w = torch.tensor([1.0, 2.0], requires_grad=True)\n(w * w).sum().backward()\n")
    path = tmp_path / "new.gxsession"
    save_session(session_from_capture(cap), path)
    doc = _inline_records(_document(path))
    nodes = doc["capture"].pop("nodes")
    del doc["capture"]["members"]
    doc["capture"]["nodes"], doc["capture"]["nodes_member"] = [], "nodes.jsonl"
    old = tmp_path / "old.gxsession"
    with zipfile.ZipFile(path) as new, zipfile.ZipFile(old, "w") as zf:
        zf.writestr("session.json", json.dumps(doc))
        zf.writestr("nodes.jsonl", "\n".join(json.dumps(node) for node in nodes))
        zf.writestr("values.safetensors", new.read("values.safetensors"))
    back = load_session(old).capture
    assert back.tensor("w").grad.data.tolist() == [2.0, 4.0]
    assert back.graph.number_of_nodes() == cap.graph.number_of_nodes()
    assert back.graph.number_of_edges() == cap.graph.number_of_edges()
    with zipfile.ZipFile(old, "a") as zf:  # a member the document does not name
        zf.writestr("edges.jsonl", "")
    with pytest.raises(DocumentError, match="members do not match"):
        load_session(old)


def test_module_tree_is_one_module_per_line_and_round_trips(tmp_path):
    import zipfile

    cap = capture("model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))\n"
                  "model(torch.ones(4, 2)).sum().backward()\n")
    path = tmp_path / "m.gxsession"
    save_session(session_from_capture(cap), path)
    with zipfile.ZipFile(path) as zf:
        lines = [json.loads(line) for line in zf.read("modules.jsonl").decode().splitlines()]
        members = {name: zf.read(name) for name in zf.namelist()}
    assert [(line["path"], line["parent"]) for line in lines] == [
        ("model", -1), ("model.0", 0), ("model.1", 0), ("model.1.0", 2), ("model.1.1", 2)]

    def tree(audit):
        return (audit.path, audit.type_name, [e.path for e in audit.entries], [tree(c) for c in audit.children])

    assert [tree(a) for a in load_session(path).capture.modules] == [tree(a) for a in cap.modules]
    lines[3]["parent"] = 4  # a parent that comes later
    bad = tmp_path / "bad.gxsession"
    with zipfile.ZipFile(bad, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, "\n".join(json.dumps(line) for line in lines) if name == "modules.jsonl" else content)
    with pytest.raises(DocumentError, match="line 4 of modules.jsonl names no earlier parent"):
        load_session(bad)


def test_integers_beyond_64_bits_are_refused_by_both_readers(tmp_path):
    """JSON lines are parsed by orjson, which would turn such an integer into a float: refuse it everywhere."""
    import zipfile

    cap = capture("w = torch.tensor([1.0, 2.0], requires_grad=True)\n(w * w).sum().backward()\n")
    doc = session_to_dict(session_from_capture(cap))
    doc["capture"]["nodes"][0]["seq"] = 2**70
    with pytest.raises(DocumentError, match="does not fit in 64 bits"):
        read_session_text(json.dumps(doc))  # format 1: the json module
    path = tmp_path / "s.gxsession"
    save_session(session_from_capture(cap), path)
    with zipfile.ZipFile(path) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    first, rest = members["nodes.jsonl"].split(b"\n", 1)
    node = json.loads(first)
    node["seq"] = 2**70
    members["nodes.jsonl"] = json.dumps(node).encode() + b"\n" + rest
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    with pytest.raises(DocumentError, match=r"capture\.nodes\[0\]\.seq should be an integer"):
        load_session(path)  # orjson made it a float: the check refuses it
    node["seq"] = 2**64 - 1  # the largest uint64 a tensor can hold still opens
    members["nodes.jsonl"] = json.dumps(node).encode() + b"\n" + rest
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    assert load_session(path).capture.graph.nodes[node["id"]]["seq"] == 2**64 - 1


def test_json_lines_are_written_as_json_would_and_refuse_nan_like_it():
    import json
    import math

    from gradexplorer.core.io.container import _dumps_line

    items = [{"a": 1, "b": [1.5, None, "x"], "c": {0: "zero", 2: [True, False]}}, {"text": "ü ✓ \u2028"},
             {"big": 2**63 - 1, "small": -(2**63), "tiny": 5e-324}]
    for item in items:
        assert json.loads(_dumps_line(item)) == json.loads(json.dumps(item, allow_nan=False))
    for bad in ({"x": math.nan}, {"y": [1.0, math.inf]}, {"z": {"w": -math.inf}}):
        with pytest.raises(ValueError):
            _dumps_line(bad)


def test_a_root_node_is_an_op_with_is_root_and_older_files_saying_root_read_the_same():
    from gradexplorer.core.graph.schema import node_role

    cap = capture(read_example("03_next_functions"))
    e, a = cap.graph.nodes[cap.node_named("e")], cap.graph.nodes[cap.node_named("a")]
    assert (e["kind"], e["is_root"], node_role(e)) == ("op", True, "root")
    assert (a["kind"], node_role(a)) == ("leaf", "leaf")
    doc = session_to_dict(session_from_capture(cap))
    for item in doc["capture"]["nodes"]:
        if item["is_root"]:
            item["kind"] = "root"  # what files written before the kind/is_root split say
    reopened = read_session_text(json.dumps(doc)).capture
    assert reopened.graph.nodes[reopened.node_named("e")]["kind"] == "op"
    assert node_role(reopened.graph.nodes[reopened.node_named("e")]) == "root"


def test_a_capture_json_with_named_bool_tensors_opens(tmp_path):
    """``capture --json`` of a program with a bool mask once failed to open ("stats should be a number"),
    though the README says these documents open; the values read back are the program's own."""
    out = tmp_path / "masks.json"
    capture_file_with_cli(tmp_path, "masks.py", "small = torch.tensor([True, False, True])\n"
                          "big = torch.arange(300) % 3 == 0\nw = torch.ones(3, requires_grad=True)\n"
                          "(w * small).sum().backward()\n", "--json", out)
    cap = load_session(out).capture
    plain = {"small": torch.tensor([True, False, True]), "big": torch.arange(300) % 3 == 0}
    for name, truth in plain.items():
        info = next(i for i in cap.tensors if name in i.names)
        assert info.value.dtype == "bool"
        assert info.value.stats.head[:3] == tuple(truth[:3].tolist())
        assert info.value.stats.mean == pytest.approx(truth.double().mean().item())
        if info.value.data is not None:
            assert torch.equal(info.value.data, truth)


def test_a_records_values_are_each_checked_even_when_read_in_one_pass():
    """Plain numbers are read in one pass; any other value still goes through the per-number check.

    A 10,000-node document holds 5 million numbers, so the common case skips the per-number look
    (measured: 1.7 s of a 3.7 s read). What that look caught must still be caught.
    """
    from gradexplorer.core.io.decode import record_from_dict

    base = {"shape": [2, 2], "dtype": "float32", "device": "cpu", "requires_grad": False}
    plain = record_from_dict({**base, "values": [[1.5, -2], [0.25, 3.0]]}, "r")
    assert plain.data.tolist() == [[1.5, -2.0], [0.25, 3.0]] and plain.data.dtype == torch.float32
    spelled = record_from_dict({**base, "values": [["nan", "inf"], ["-inf", 1.0]]}, "r").data
    assert spelled[0, 0].isnan() and spelled[0, 1] == float("inf") and spelled[1, 0] == float("-inf")
    for odd in (True, None, "1.0", {"v": 1}):
        with pytest.raises(DocumentError, match=r"r\.values"):
            record_from_dict({**base, "values": [[1.0, odd], [0.0, 0.0]]}, "r")
    mask = record_from_dict({**base, "dtype": "bool", "values": [[True, False], [1, 0]]}, "r").data
    assert mask.dtype == torch.bool and mask.tolist() == [[True, False], [True, False]]
    with pytest.raises(DocumentError, match=r"r\.values"):
        record_from_dict({**base, "dtype": "bool", "values": [[True, "x"], [False, False]]}, "r")


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": [2.5, -0.0, 1e-07, true, false, null], "s": "x\\u0000y"}',
    '{"a": NaN, "b": [Infinity, -Infinity]}',  # literals the json module reads and orjson refuses
    '[1e400]',  # an infinity orjson refuses
    '{"n": 18446744073709551615, "m": -9223372036854775808}',  # the 64-bit range's ends
    '{"n": 18446744073709551616}', '{"m": -9223372036854775809}', '123456789012345678901234',  # past them
    '{"x": 0.000123456789012345678901}',  # 21 digits after a decimal point: a float, read by orjson
    '{"id": "12345678901234567890123"}',  # a long digit run in text: read by the json module, the same
    '{"s": "\\ud800"}', '\ufeff{}', '{"a": 1} x', '{"a": 1,}', '[' * 5000 + ']' * 5000, '{"a":1,"a":2}',
    '{"a": "x\ty"}', '[01]', '[1e5000]', '[-1e-400]', '["\\uDFFF"]', '"\\ud83d\\ude00"',
])
def test_the_document_parser_reads_and_refuses_as_the_json_module_does(text):
    """orjson reads a document where it gives what ``json.loads(text, parse_int=_json_int)`` gives; else json does."""
    from gradexplorer.core.io.session import _parse_json
    from gradexplorer.core.io.validate import _json_int

    def outcome(parse):
        try:
            return "read", repr(parse(text))
        except RecursionError:
            return "too deep", ""
        except ValueError as exc:  # json.JSONDecodeError too
            return type(exc).__name__, str(exc)

    assert outcome(_parse_json) == outcome(lambda t: json.loads(t, parse_int=_json_int))


def test_a_capture_document_reads_the_same_by_either_parser():
    from gradexplorer.core.io.session import _parse_json

    doc = json.dumps(capture_to_dict(capture(read_example("03_next_functions"))))
    assert _parse_json(doc) == json.loads(doc)


def _places(doc, at=()):
    """Every place in a document (the first three items of each list), as key paths."""
    yield at
    items = doc.items() if isinstance(doc, dict) else enumerate(doc[:3]) if isinstance(doc, list) else ()
    for key, value in items:
        yield from _places(value, (*at, key))


def test_nesting_orjson_reads_and_the_json_module_would_not_is_checked_like_any_value():
    """orjson reads up to 1,024 levels, the json module about 1,000: what lies between is read, then checked.

    Anywhere in a valid document, a list nested 1,020 deep is refused with a
    sentence or, only where the reader ignores the value, read as a list
    nested 5 deep is: never another exception (a check that recursed would
    raise RecursionError here).
    """
    from gradexplorer.core.io.session import _parse_json

    deep, depth = _parse_json("[" * 1020 + "]" * 1020), 1
    while deep:
        deep, depth = deep[0], depth + 1
    assert depth == 1020
    _expect_clear("[" * 1025 + "]" * 1025, "nested too deeply")  # past orjson's limit: the json module's words
    doc = _valid_doc()

    def outcome(at, depth):
        changed = json.loads(json.dumps(doc))
        holder = changed
        for key in at[:-1]:
            holder = holder[key]
        holder[at[-1]] = "HERE"
        text = json.dumps(changed).replace('"HERE"', "[" * depth + "]" * depth)
        try:
            read_session_text(text)
        except DocumentError:
            return "refused"
        return "read"

    places = list(_places(doc))[1:]
    assert len(places) > 500
    outcomes = {at: outcome(at, 1020) for at in places}
    assert "read" in outcomes.values() and "refused" in outcomes.values()
    assert {at for at, said in outcomes.items() if said == "read"} <= \
        {at for at in places if outcome(at, 5) == "read"}

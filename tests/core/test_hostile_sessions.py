"""Hostile session files: what decoding builds is bounded, not only what is read (issue 29).

Each file is opened in a child process that reports its peak memory growth
and time. The bound is stated here: opening may grow the process by at most
``BASE_MIB`` plus ``PER_DECLARED`` times the file's declared (unpacked) size,
and take at most ``SECONDS``; a file that would need more is refused with a
sentence. Before the fixes, a 20,000-node chain whose links were forged to
claim 0 hops took 4.3 GB (every path text held its whole chain), and a
10-million-character op name opened and froze the app for 38 s.
"""

from __future__ import annotations

import io
import json
import re
import struct
import subprocess
import sys
import textwrap
import zipfile

import pytest

from gradexplorer import capture
from gradexplorer.core.graph.build import MAX_PATH_HOPS, path_expression
from gradexplorer.core.io.session import load_session, save_session, session_from_capture
from gradexplorer.core.io.validate import MAX_NAME_CHARS

BASE_MIB = 150
PER_DECLARED = 30
SECONDS = 30.0

_OPEN = textwrap.dedent("""
    import json, resource, sys, time, zipfile
    from gradexplorer.core.io.session import load_session
    from gradexplorer.core.records.errors import DocumentError
    path = sys.argv[1]
    try:
        declared = sum(info.file_size for info in zipfile.ZipFile(path).infolist())
    except zipfile.BadZipFile:
        import os
        declared = os.path.getsize(path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    try:
        session = load_session(path)
        outcome = "opened"
        longest = max((len(d.get("path") or "") for _, d in session.capture.graph.nodes(data=True)), default=0)
    except DocumentError as exc:
        outcome, longest = "refused: " + str(exc), 0
    seconds = time.perf_counter() - started
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(json.dumps({"outcome": outcome, "declared": declared, "grown_mib": grown, "seconds": seconds,
                      "longest_path": longest}))
""")


def _open_measured(path) -> dict:
    done = subprocess.run([sys.executable, "-c", _OPEN, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    bound = BASE_MIB + PER_DECLARED * report["declared"] / 2**20
    assert report["grown_mib"] <= bound, (report, f"bound {bound:.0f} MiB")
    assert report["seconds"] <= SECONDS, report
    return report


def _rewrite_members(source, target, edit) -> None:
    """Copy a session container, passing each member's bytes through ``edit(name, data)``."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, edit(info.filename, zin.read(info.filename)))


@pytest.fixture(scope="module")
def chain_session(tmp_path_factory):
    """A real 20,000-node chain saved as a session container."""
    folder = tmp_path_factory.mktemp("hostile")
    cap = capture("x = torch.ones(1, requires_grad=True)\ny = x\nfor _ in range(20_000):\n    y = y * 1.0\n",
                  value_elements=0)
    path = folder / "chain.gxsession"
    save_session(session_from_capture(cap), path)
    return path


@pytest.mark.slow
def test_forged_path_links_cannot_make_path_texts_quadratic(chain_session, tmp_path):
    def forge(name, data):
        # Ids that sort parent-first, and every link claiming 0 hops: the old rebuild trusted both.
        data = re.sub(rb'"n(\d+)"', lambda m: b'"n%06d"' % int(m.group(1)), data)
        if name == "nodes.jsonl":
            data = re.sub(rb'("path_via":\["n\d+",\d+,)\d+\]', rb"\g<1>0]", data)
        return data

    forged = tmp_path / "forged.gxsession"
    _rewrite_members(chain_session, forged, forge)
    assert forged.stat().st_size < 2 * 2**20
    report = _open_measured(forged)
    assert report["outcome"] == "opened"
    # Paths stop at MAX_PATH_HOPS hops, as in a capture made here.
    assert report["longest_path"] <= len("y.grad_fn") + MAX_PATH_HOPS * len(".next_functions[0][0]")
    assert report["longest_path"] > 0


def test_the_paths_a_session_rebuilds_are_the_ones_the_capture_made(tmp_path):
    cap = capture("x = torch.ones(1, requires_grad=True)\nw = torch.ones(1, requires_grad=True)\ny = x\n"
                  "for _ in range(300):\n    y = y * w + x\nz = y.sum()\n")
    path = tmp_path / "p.gxsession"
    save_session(session_from_capture(cap), path)
    reopened = load_session(path).capture.graph
    assert {n: d.get("path") for n, d in reopened.nodes(data=True)} == \
        {n: d.get("path") for n, d in cap.graph.nodes(data=True)}


def test_path_links_that_loop_give_no_expression_instead_of_looping(tmp_path):
    cap = capture("a = torch.ones(1, requires_grad=True)\nb = a * 2\nc = b * 3\n")
    graph = cap.graph
    b_node, c_node = cap.node_named("b"), cap.node_named("c")
    assert path_expression(graph, b_node) == "c.grad_fn.next_functions[0][0]"
    graph.nodes[c_node]["path_via"] = (b_node, 0, 1)  # c <- b <- c: a loop a forged file could hold
    assert path_expression(graph, b_node) is None


def test_a_ten_million_character_op_name_is_refused_with_a_sentence(tmp_path, chain_session):
    def forge(name, data):
        if name == "nodes.jsonl":
            data = data.replace(b'"op":"MulBackward0"', b'"op":"' + b"A" * 10_000_000 + b'"', 1)
        return data

    forged = tmp_path / "long-op.gxsession"
    _rewrite_members(chain_session, forged, forge)
    report = _open_measured(forged)
    assert report["outcome"].startswith("refused: not a valid session: capture.nodes[")
    assert f"is 10,000,000 characters long (a name, an op or an id is at most {MAX_NAME_CHARS:,})" in report["outcome"]


def test_a_member_that_inflates_past_its_declared_size_is_refused_with_little_memory(tmp_path, chain_session):
    buffer = io.BytesIO()
    with zipfile.ZipFile(chain_session) as zin, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "edges.jsonl":
                data = data + b" " * (600 * 2**20)  # inflates to 600 MiB more than it will claim
            zout.writestr(info.filename, data)
    raw = bytearray(buffer.getvalue())
    # Claim the member's old size in its local header and in the central directory.
    with zipfile.ZipFile(chain_session) as zin:
        honest = zin.getinfo("edges.jsonl").file_size
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as zcheck:
        local_header = zcheck.getinfo("edges.jsonl").header_offset
    struct.pack_into("<I", raw, local_header + 22, honest)
    position = 0
    while (position := raw.find(b"PK\x01\x02", position)) != -1:
        name_length = struct.unpack_from("<H", raw, position + 28)[0]
        if raw[position + 46:position + 46 + name_length] == b"edges.jsonl":
            struct.pack_into("<I", raw, position + 24, honest)
        position += 4
    bomb = tmp_path / "bomb.gxsession"
    bomb.write_bytes(bytes(raw))
    assert bomb.stat().st_size < 4 * 2**20
    report = _open_measured(bomb)
    assert report["outcome"].startswith("refused: bomb.gxsession is a damaged session container"), report
    assert report["grown_mib"] < 200


#: Deep enough to overflow the C stack of a parser without a depth limit (orjson before 3.9.15 crashed at
#: 2,000,000 levels here; the json module and newer orjson stop at about 1,000).
_DEEP = 2_000_000


@pytest.mark.parametrize("member", ["records.jsonl", "nodes.jsonl", "modules.jsonl"])
def test_a_line_nested_two_million_deep_is_refused_not_a_crash(tmp_path, member):
    cap = capture("a = torch.ones(2, requires_grad=True)\nb = (a * 3).sum()\nb.backward()\n")
    honest = tmp_path / "honest.gxsession"
    save_session(session_from_capture(cap), honest)

    def deepen(name, data):
        return b"[" * _DEEP + b"]" * _DEEP + b"\n" + data if name == member else data

    deep = tmp_path / "deep.gxsession"
    _rewrite_members(honest, deep, deepen)
    assert deep.stat().st_size < 2**20
    report = _open_measured(deep)  # the child process must come back: a segfault fails here
    assert report["outcome"].startswith(f"refused: deep.gxsession: line 1 of {member} is not valid JSON ("), report
    assert "depth" in report["outcome"], report

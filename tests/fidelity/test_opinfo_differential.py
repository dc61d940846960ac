"""PyTorch's own op corpus, captured by gradexplorer and compared with plain runs (issue 9).

Every OpInfo of ``op_db`` that supports autograd, on CPU, float64 and
complex128, first sample (see ``opinfo_chunk.py`` for what is compared). The
cases run in :data:`CHUNKS` subprocesses, two at a time, so that a crash of one
case fails this test with the chunk's output instead of killing pytest.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("expecttest", reason="torch.testing._internal needs expecttest (in the test extra)")

HERE = Path(__file__).parent
CHUNKS = 4
PARALLEL = 2


def _run_chunks(folder: Path) -> list[dict]:
    results = []
    pending = list(range(CHUNKS))
    while pending:
        batch, pending = pending[:PARALLEL], pending[PARALLEL:]
        running = []
        for index in batch:
            out = folder / f"chunk{index}.json"
            proc = subprocess.Popen([sys.executable, str(HERE / "opinfo_chunk.py"), str(index), str(CHUNKS), str(out)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            running.append((index, out, proc))
        for index, out, proc in running:
            try:
                _, stderr = proc.communicate(timeout=600)
            except subprocess.TimeoutExpired:
                proc.kill()
                pytest.fail(f"OpInfo chunk {index} hung for 10 minutes")
            done = json.loads(out.read_text()) if out.exists() else []
            last = done[-1]["op"] if done else "none"
            assert proc.returncode == 0, (f"OpInfo chunk {index} died with {proc.returncode} after {len(done)} cases "
                                          f"(last: {last}):\n{stderr[-3000:]}")
            results.extend(done)
    return results


def test_every_autograd_opinfo_agrees_with_pytorch(tmp_path, capsys):
    results = _run_chunks(tmp_path)
    counts = collections.Counter(r["status"] for r in results)
    with capsys.disabled():
        print(f"\nOpInfo differential: {len(results)} ops, {counts['agree']} agree, "
              f"{counts['mismatch']} mismatch, {counts['engine_error']} engine errors, {counts['skip']} skipped")
        for r in results:
            if r["status"] == "skip":
                print(f"  skipped {r['op']} ({r['dtype']}): {r['detail']}")
    assert len(results) >= 800, "the corpus shrank: op_db or the chunking changed"
    bad = [f"{r['op']} ({r['dtype']}): {r['status']}: {r['detail']}" for r in results
           if r["status"] in ("mismatch", "engine_error")]
    assert not bad, "\n".join(bad)
    assert counts["skip"] <= 5, [r for r in results if r["status"] == "skip"]

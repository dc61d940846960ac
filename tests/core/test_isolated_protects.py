"""The isolated engine protects the app (issue 29): bounded output, no orphan child."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from gradexplorer.core.isolated.engine import capture_isolated

pytestmark = pytest.mark.slow


_FLOOD = textwrap.dedent("""
    import json, resource, sys
    from gradexplorer.core.isolated.engine import capture_isolated
    code = (
        "import os\\n"
        "os.write(1, b'first line\\\\n')\\n"
        "chunk = b'x' * (1 << 20)\\n"
        "for _ in range(300):\\n"
        "    os.write(1, chunk)\\n"
        "os.write(1, b'\\\\nlast line\\\\n')\\n"
        "print('printed normally')\\n"
    )
    seen = []
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cap = capture_isolated(code, memory_limit=None, on_output=lambda stream, text: seen.append(len(text)))
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(json.dumps({"grown_mib": grown, "stdout": cap.stdout, "error": cap.error is not None,
                      "longest_piece": max(seen), "streamed": sum(seen)}))
""")


def test_output_written_straight_to_descriptor_1_is_read_in_pieces_and_not_kept_without_limit():
    """300 MB written to fd 1 (as native code would), most of it one line: the app stays small."""
    done = subprocess.run([sys.executable, "-c", _FLOOD], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert not report["error"]
    assert report["streamed"] >= 300 << 20  # the console saw it all, in pieces
    assert report["longest_piece"] <= 16 << 20
    assert report["grown_mib"] < 150, report["grown_mib"]  # 300 MB and more were kept before
    assert "printed normally" in report["stdout"]


_APP = textwrap.dedent("""
    import sys
    from gradexplorer.core.isolated.engine import capture_isolated
    code = "import os, time\\nprint(os.getpid(), flush=True)\\nwhile True:\\n    time.sleep(0.05)\\n"
    capture_isolated(code, memory_limit=None,
                     on_output=lambda stream, text: (sys.stdout.write("child " + text), sys.stdout.flush()))
""")


def test_the_child_ends_when_the_app_is_killed():
    app = subprocess.Popen([sys.executable, "-c", _APP], stdout=subprocess.PIPE, text=True)
    try:
        line = app.stdout.readline()
        assert line.startswith("child "), line
        child = int(re.search(r"child (\d+)", line).group(1))
        os.kill(child, 0)  # it runs
        app.send_signal(signal.SIGKILL)
        app.wait(timeout=30)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            # A zombie reaped by init no longer exists; one not yet reaped still answers: look at its state.
            try:
                with open(f"/proc/{child}/stat") as fh:
                    if fh.read().split(") ")[1].startswith("Z"):
                        break
            except OSError:
                break
            time.sleep(0.1)
        else:
            os.kill(child, signal.SIGKILL)
            pytest.fail("the isolated child kept running after its app was killed")
    finally:
        if app.poll() is None:
            app.kill()

"""A chain of hundreds of thousands of ops captures and is freed without overflowing the C stack (issue 29).

Once Python has touched autograd nodes (our graph walk does, as torchviz's
does), freeing the head of a chain frees each next node from inside the
previous one's deallocation: a 50,000-op chain kept alive to the end of the
program crashed the CLI and the app (SIGSEGV) where plain PyTorch runs
300,000. Each test runs in a child process, so a crash is a failure, not
the end of the suite; the expected gradient comes from a plain PyTorch run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

CHAIN = textwrap.dedent("""\
    import sys
    import torch
    x = torch.ones(3, requires_grad=True)
    y = x
    for _ in range(int(sys.argv[1])):
        y = y + 1
    print(y.tolist())  # the chain stays alive to the end of the program (no backward frees it)
""")


@pytest.fixture(scope="module")
def chain_script(tmp_path_factory):
    path = tmp_path_factory.mktemp("chain") / "chain.py"
    path.write_text(CHAIN)
    return path


def _plain(chain_script, n: int) -> str:
    done = subprocess.run([sys.executable, str(chain_script), str(n)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_300000_op_chain_captures_in_process_and_exits_cleanly(chain_script, tmp_path):
    done = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(chain_script), "--max-rows", "2",
                           "--", "300000"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "| 300001 nodes, 300000 edges, 0 backward pass(es)" in done.stdout.splitlines()[0]
    assert done.stdout.rstrip().endswith(_plain(chain_script, 300_000))
    assert _plain(chain_script, 300_000) == "[300001.0, 300001.0, 300001.0]"


THREAD_MODE = textwrap.dedent("""\
    import sys, threading
    from gradexplorer import capture
    from gradexplorer.core.capture.run import release_leftovers
    from gradexplorer.core.capture.script import ScriptRun
    code = open(sys.argv[1]).read()
    answer = {}

    def work():  # as the app's worker: a thread of default stack size, the program's remains freed after
        leftovers = []
        cap = capture(code, filename=sys.argv[1], run=ScriptRun((sys.argv[2],)), leftovers=leftovers)
        answer["nodes"] = cap.graph.number_of_nodes()
        answer["stdout"] = cap.stdout.strip()
        release_leftovers(leftovers)
        answer["freed"] = True

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    print(answer["nodes"], answer["stdout"], answer["freed"])
""")


def test_a_300000_op_chain_captures_in_a_thread_as_the_app_runs_it(chain_script, tmp_path):
    script = tmp_path / "thread_mode.py"
    script.write_text(THREAD_MODE)
    done = subprocess.run([sys.executable, str(script), str(chain_script), "300000"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split(maxsplit=1)[0] == "300001"
    assert done.stdout.strip().endswith(f"{_plain(chain_script, 300_000)} True")

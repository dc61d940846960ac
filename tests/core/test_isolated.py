"""The isolated engine survives what would end the app (issue 13): real crashes in a child process."""

import os
import subprocess
import sys
import textwrap
import time

import pytest
import torch

from gradexplorer.core.isolated import child, engine
from gradexplorer.core.isolated.engine import KILLED, capture_isolated, default_memory_limit, wait_for_spare

def test_a_normal_program_gives_the_capture_the_seed_notes_expect():
    cap = capture_isolated(textwrap.dedent("""\
        a = torch.tensor(1.1, requires_grad=True)
        b = torch.tensor(1.2, requires_grad=True)
        c = torch.tensor(1.3, requires_grad=True)
        e = a * b * c
        print("e", round(e.item(), 3))
        e.backward()
    """))
    assert cap.ok, cap.error and cap.error.traceback
    assert cap.stdout == "e 1.716\n"
    grads = {name: cap.graph.nodes[cap.node_named(name)]["grad"].item() for name in "abc"}
    assert grads == pytest.approx({"a": 1.56, "b": 1.43, "c": 1.32})  # the notes' numbers
    assert "isolated" in cap.timings


def test_a_syntax_error_comes_back_with_pythons_line_and_nothing_run():
    """No graph is built, so the child sends no parts ahead: the file alone carries the report."""
    code = "x = torch.ones(2)\nprint('ran')\ny = (x +\n"
    with pytest.raises(SyntaxError) as python:
        compile(code, "<editor>", "exec")
    cap = capture_isolated(code)
    assert (cap.error.kind, cap.error.line) == ("syntax", python.value.lineno)
    assert not cap.executed and cap.stdout == "" and cap.graph.number_of_nodes() == 0


def test_a_segfault_is_an_error_with_its_line_and_the_output_so_far():
    cap = capture_isolated("import ctypes\nprint('before')\nctypes.string_at(0)\nprint('after')\n")
    assert (cap.error.kind, cap.error.exc_type, cap.error.line) == ("crashed", "SIGSEGV", 3)
    assert "died with SIGSEGV at line 3" in cap.error.message
    assert cap.stdout == "before\n"


def test_os_exit_is_an_error_with_its_line():
    cap = capture_isolated("import os\nprint('x')\n\nos._exit(3)\n")
    assert (cap.error.kind, cap.error.exc_type, cap.error.line) == ("crashed", "os._exit", 4)
    assert "os._exit(3) at line 4" in cap.error.message and cap.stdout == "x\n"


def test_a_runaway_allocation_meets_the_memory_limit_at_its_line():
    cap = capture_isolated("x = torch.ones(3)\ny = torch.empty(16 * 1024**3, dtype=torch.uint8)\n",
                           memory_limit=2 * 1024**3)
    assert cap.error.kind == "exception" and cap.error.line == 2
    assert "allocate" in cap.error.message
    assert default_memory_limit() > 2 * 1024**3


def test_a_killed_process_is_said_to_be_most_likely_out_of_memory():
    cap = capture_isolated("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert cap.error.exc_type == "SIGKILL" and "out of memory" in cap.error.message


def test_stop_kills_the_child_inside_a_long_native_op():
    started = time.perf_counter()
    stop_at = started + 1.5  # after the child's torch import, inside the op
    # Well conditioned: inv(x @ x.T + 1) of its own result went singular on some random draws (a LinAlgError
    # that ended the program before the Stop).
    cap = capture_isolated("x = torch.randn(3000, 3000)\nfor _ in range(10000):\n"
                           "    y = torch.linalg.inv(x @ x.T + 3000 * torch.eye(3000))\n",
                           should_stop=lambda: time.perf_counter() > stop_at)
    assert (cap.error.kind, cap.error.exc_type) == ("stopped", KILLED)
    assert time.perf_counter() - stop_at < 1.0


def test_what_the_child_changes_stays_in_the_child():
    cap = capture_isolated("torch.set_default_dtype(torch.float64)\nimport os\nos.chdir('/')\n")
    assert cap.ok and any("set_default_dtype" in s for s in cap.restored)
    assert torch.get_default_dtype() == torch.float32


def test_a_thread_left_running_does_not_keep_the_child_alive():
    started = time.perf_counter()
    cap = capture_isolated(textwrap.dedent("""
        import threading, time
        def spin():
            while True:
                time.sleep(0.01)
        threading.Thread(target=spin, name="spinner").start()
        x = torch.ones(2, requires_grad=True)
        (x * 2).sum().backward()
    """))
    assert cap.ok and any("'spinner' running" in sentence for sentence in cap.restored)
    assert time.perf_counter() - started < 60  # it came back: the child exited after writing the capture


@pytest.mark.parametrize("code", ["torch.set_grad_enabled(False)\n", "nn.Module.__call__ = lambda *a: 0\n",
                                  "import sys\nsys.setrecursionlimit(99999)\n"])
def test_what_a_program_changes_in_the_child_is_named_too(code):
    cap = capture_isolated(code)
    assert cap.ok and cap.restored  # said, as in thread mode; the app's own process is untouched


def test_the_spare_child_says_when_its_imports_are_done_and_then_takes_the_next_run():
    from gradexplorer.core.isolated.engine import discard_spare, wait_for_spare

    capture_isolated("x = 1\n")  # leaves a spare child importing
    assert wait_for_spare(60)
    assert wait_for_spare(1)  # asked again: still ready, nothing left to read
    cap = capture_isolated("a = torch.tensor(2.0, requires_grad=True)\n(a * a).backward()\nprint('ok')\n")
    assert cap.ok and cap.stdout == "ok\n" and cap.graph.nodes[cap.node_named("a")]["grad"].item() == 4.0
    assert {"hand-over write", "hand-over read"} <= set(cap.timings)
    discard_spare()
    assert not wait_for_spare(1)  # no spare: nothing to wait for


# -- the heap a spare makes ready (glibc: a fresh process's page faults were a fifth of a training step's run) --

needs_glibc_heap = pytest.mark.skipif(not sys.platform.startswith("linux") or child._heap_size() == 0,
                                      reason="the heap figures are glibc's (Linux)")


@needs_glibc_heap
def test_the_next_spare_is_started_with_the_heap_the_last_run_needed():
    cap = capture_isolated("x = [torch.ones(1024, 1024) for _ in range(64)]\n")  # 64 blocks of 4 MB on the heap
    assert cap.ok, cap.error and cap.error.traceback
    wait_for_spare()
    assert engine._last_need >= 256 * 2**20
    assert engine._spare.args[-2:] == ["--prefault", str(engine._last_need)]
    program = ("a = torch.tensor(1.1, requires_grad=True)\nb = torch.tensor(1.2, requires_grad=True)\n"
               "c = torch.tensor(1.3, requires_grad=True)\n(a * b * c).backward()\n")
    cap = capture_isolated(program)
    plain = {"torch": torch}
    exec(program, plain)  # noqa: S102 - our own test program, run by plain PyTorch
    grads = {name: cap.graph.nodes[cap.node_named(name)]["grad"].item() for name in "abc"}
    # The same capture from a prefaulted child: PyTorch's gradients (the notes' 1.56, 1.43, 1.32).
    assert grads == pytest.approx({name: plain[name].grad.item() for name in "abc"})
    assert grads == pytest.approx({"a": 1.56, "b": 1.43, "c": 1.32})


@needs_glibc_heap
def test_a_prefaulted_heap_serves_later_allocations_without_page_faults():
    probe = textwrap.dedent("""\
        import resource, sys
        from gradexplorer.core.isolated.child import _prefault
        if sys.argv[1] == "prefault":
            _prefault(512 * 2**20)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        blocks = [bytearray(4 * 2**20) for _ in range(100)]  # 400 MB, as a program's tensors would take it
        print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """)
    env = engine._child_environment()  # the child's, as _spawn gives it
    faults = {mode: int(subprocess.run([sys.executable, "-c", probe, mode], env=env, capture_output=True, text=True,
                                       check=True).stdout) for mode in ("cold", "prefault")}
    assert faults["cold"] > 90_000  # 400 MB in 4 kB pages
    assert faults["prefault"] < faults["cold"] / 10


def test_a_prefaulted_heap_does_not_grow_from_fragmentation_alone(monkeypatch):
    monkeypatch.setattr(child, "_heap_size", lambda: 1090)
    assert child._next_prefault(1000) == 1000  # a tenth over: the same need
    assert child._next_prefault(0) == 1090  # no prefault: what the run used
    monkeypatch.setattr(child, "_heap_size", lambda: 1300)
    assert child._next_prefault(1000) == 1300  # the program grew


@needs_glibc_heap
def test_a_memory_limit_below_the_prefault_still_holds(monkeypatch):
    # An earlier isolated run's threads (its statistics, its reader) may still be setting _last_need and
    # starting a spare: wait for them first, or they rewrite what this test sets (a flake in random order).
    wait_for_spare()
    monkeypatch.setattr(engine, "_last_need", 1536 * 2**20)
    engine.discard_spare()
    engine._start_spare()
    assert wait_for_spare() and engine._spare.args[-2:] == ["--prefault", str(1536 * 2**20)]
    # 1.4 GB in 8 MB tensors: all of it fits the ready heap, none of it the 1.2 GB limit
    cap = capture_isolated("x = []\nfor _ in range(175):\n    x.append(torch.ones(2 * 1024**2))\n",
                           memory_limit=1200 * 2**20)
    assert cap.error is not None and cap.error.line == 3 and "allocate" in cap.error.message


def test_waiting_for_the_spare_ends_within_its_timeout(monkeypatch):
    """One limit for both waits: the last run's statistics thread, then the spare's imports."""
    import threading

    busy = threading.Thread(target=time.sleep, args=(0.8,), daemon=True)  # a statistics thread still working
    busy.start()
    silent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # a spare that never says ready
    engine.discard_spare()
    monkeypatch.setattr(engine, "_late_stats", busy)
    monkeypatch.setattr(engine, "_spare", silent)
    started = time.perf_counter()
    assert wait_for_spare(timeout=1.0) is False
    assert time.perf_counter() - started < 1.5  # not 0.8 s and then a whole second more
    assert silent.poll() is not None and engine._spare is None  # the silent one was ended


def test_the_program_does_not_see_the_engines_glibc_settings():
    assert "MALLOC_TRIM_THRESHOLD_" not in os.environ  # the user set none here
    cap = capture_isolated("import os\nprint(sorted(k for k in os.environ if k.startswith(('MALLOC_', 'GRADEXPLORER_'))))\n")
    assert cap.ok and cap.stdout == "[]\n"


def test_the_isolated_engine_runs_a_script_as_python_does(tmp_path):
    """The child process gets the script's arguments, folder, sys.path[0] and its project's modules."""
    from gradexplorer import ScriptRun
    from gradexplorer.core.isolated.engine import capture_isolated

    project = tmp_path / "proj"
    project.mkdir()
    (project / "helper.py").write_text("import torch\n\ndef double(t):\n    return t * 2\n")
    script = project / "run.py"
    script.write_text("import os, sys\nimport torch\nfrom helper import double\n"
                      "x = torch.ones(2, requires_grad=True)\ndouble(x).sum().backward()\n"
                      "print(sys.argv[1:], os.path.basename(os.getcwd()), x.grad.tolist())\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cap = capture_isolated(script.read_text(), filename=str(script), run=ScriptRun(("--lr", "0.5"), str(elsewhere)),
                           memory_limit=None)
    assert cap.ok, cap.error and cap.error.traceback
    assert cap.stdout == "['--lr', '0.5'] elsewhere [2.0, 2.0]\n"
    assert cap.args == ("--lr", "0.5") and cap.cwd == str(elsewhere)
    files = {a["source"].file for _, a in cap.graph.nodes(data=True) if a["source"] is not None}
    assert "helper.py" in files and "def double(t):" in cap.files["helper.py"]

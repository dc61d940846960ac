"""Thread mode gives every run a fresh process (issue 13): what a program changes is put back and named.

For each careless program, the same probe program prints the state a run
sees; its output after the careless run must equal its output before it
(a fresh run), and the capture must name what was restored.
"""

import os
import textwrap
import threading

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.records.errors import CaptureStopped
from gradexplorer.core.capture.process_state import WATCHED_ATTRIBUTES, interrupt_program_threads, program_threads

PROBE = textwrap.dedent("""
    import os, sys, warnings
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    print("dtype", torch.get_default_dtype(), "grad", torch.is_grad_enabled(), "device", torch.get_default_device())
    print("anomaly", torch.is_anomaly_enabled(), "deterministic", torch.are_deterministic_algorithms_enabled())
    print("recursion", sys.getrecursionlimit(), "cwd", os.getcwd(), "filters", len(warnings.filters))
    print("backward", torch.Tensor.backward.__qualname__, "call", nn.Module.__call__.__qualname__)
    print("stdout", type(sys.stdout).__name__, "x.grad", x.grad.tolist(), "y", y.grad_fn.name())
    print("linear", nn.Linear(2, 1)(torch.ones(1, 2)).grad_fn.name())
    print("threads", torch.get_num_threads(), "argv", sys.argv, "path", sys.path[:3])
    print("stderr", type(sys.stderr).__name__, "showwarning", warnings.showwarning.__qualname__)
    print("hook", torch.Tensor.register_hook.__qualname__, "retain", torch.Tensor.retain_grad.__qualname__)
    import builtins, gc, threading
    print("gc", gc.isenabled(), "len", len([1, 2]), "abs", builtins.abs(-2), "extra", hasattr(builtins, "gx_extra"))
    print("hooks", id(sys.excepthook), id(sys.unraisablehook), id(threading.excepthook))
    print("trace", threading.gettrace(), threading.getprofile())
    print("env", os.environ.get("GX_PROBE_VAR"), os.environ.get("HOME") is not None)
    mask = os.umask(0o022); os.umask(mask); print("umask", oct(mask))
""")

CARELESS = {
    "grad mode off at top level": ("torch.set_grad_enabled(False)\n", "torch.set_grad_enabled(False)"),
    "default dtype": ("torch.set_default_dtype(torch.float64)\n", "torch.set_default_dtype(torch.float64)"),
    "default device": ("torch.set_default_device('meta')\n", "torch.set_default_device('meta')"),
    "recursion limit": ("import sys\nsys.setrecursionlimit(123456)\n", "sys.setrecursionlimit(123456)"),
    "working directory": ("import os, tempfile\nos.chdir(tempfile.gettempdir())\n", "os.chdir("),
    "Tensor.backward patched": ("torch.Tensor.backward = lambda self, *a, **k: None\n", "Tensor.backward"),
    "Module.__call__ patched": ("nn.Module.__call__ = lambda self, *a, **k: 0\n", "Module.__call__"),
    "anomaly detection": ("torch.autograd.set_detect_anomaly(True)\n", "set_detect_anomaly(True)"),
    "deterministic algorithms": ("torch.use_deterministic_algorithms(True)\n", "use_deterministic_algorithms(True)"),
    "warnings filters": ("import warnings\nwarnings.simplefilter('ignore')\n", "warnings.simplefilter (line 2)"),
    "sys.stdout replaced": ("import sys, io\nsys.stdout = io.StringIO()\n", "sys.stdout"),
    "sys.stderr replaced": ("import sys, io\nsys.stderr = io.StringIO()\n", "sys.stderr"),
    "intra-op threads": ("torch.set_num_threads(1 if torch.get_num_threads() > 1 else 2)\n", "torch.set_num_threads("),
    "sys.argv rewritten": ("import sys\nsys.argv[:] = ['x', '--flag']\n", "sys.argv"),
    "sys.path extended": ("import sys\nsys.path.insert(0, '/nowhere')\n", "sys.path (added '/nowhere')"),
    "warnings.showwarning replaced": ("import warnings\nwarnings.showwarning = print\n", "warnings.showwarning"),
    "Tensor.register_hook patched": ("torch.Tensor.register_hook = lambda self, hook: None\n", "Tensor.register_hook"),
    "collector off": ("import gc\ngc.disable()\n", "gc.disable()"),
    "sys.excepthook replaced": ("import sys\nsys.excepthook = print\n", "sys.excepthook"),
    "sys.unraisablehook replaced": ("import sys\nsys.unraisablehook = print\n", "sys.unraisablehook"),
    "threading.excepthook replaced": ("import threading\nthreading.excepthook = print\n", "threading.excepthook"),
    "threading.settrace": ("import threading\nthreading.settrace(lambda *a: None)\n", "threading.settrace()"),
    "threading.setprofile": ("import threading\nthreading.setprofile(lambda *a: None)\n", "threading.setprofile()"),
    "environment changed": ("import os\nos.environ['GX_PROBE_VAR'] = '1'\ndel os.environ['HOME']\n",
                            "os.environ (GX_PROBE_VAR, HOME)"),
    "umask changed": ("import os\nos.umask(0o077 if os.umask(0o022) != 0o077 else 0o027)\n", "os.umask(0o"),
    "builtins.len replaced": ("import builtins\nbuiltins.len = lambda x: 0\nbuiltins.gx_extra = 1\n", "builtins (len)"),
    "builtins.abs removed": ("import builtins\ndel builtins.abs\n", "builtins (abs)"),
}


@pytest.mark.parametrize("name", list(CARELESS))
def test_the_next_run_sees_a_fresh_process_and_the_change_is_named(name):
    code, named = CARELESS[name]
    fresh = capture(PROBE)
    assert fresh.ok, fresh.error and fresh.error.traceback
    careless = capture(code)
    assert any(named in sentence for sentence in careless.restored), careless.restored
    after = capture(PROBE)
    assert after.ok, after.error and after.error.traceback
    assert after.stdout == fresh.stdout
    assert after.restored == ()
    assert torch.get_default_dtype() == torch.float32 and os.getcwd() == fresh_cwd()  # the test process too


_OWNERS = {torch.Tensor: "torch.Tensor", torch.autograd: "torch.autograd", torch.nn.Module: "torch.nn.Module"}


@pytest.mark.parametrize("owner, name", WATCHED_ATTRIBUTES, ids=[f"{_OWNERS[o]}.{n}" for o, n in WATCHED_ATTRIBUTES])
def test_every_watched_attribute_comes_back_and_is_named(owner, name):
    """Each attribute the restore claims to watch: patched by a program, named, and the original back."""
    before = getattr(owner, name)
    careless = capture(f"{_OWNERS[owner]}.{name} = lambda *args, **kwargs: None\n")
    assert getattr(owner, name) is before or getattr(owner, name) == before
    assert any(f".{name};" in sentence and "original is back" in sentence for sentence in careless.restored), \
        careless.restored


def fresh_cwd():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_program_that_changes_nothing_reports_nothing():
    assert capture("x = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n").restored == ()


def test_a_thread_left_running_is_named_and_stop_interrupts_it():
    cap = capture(textwrap.dedent("""
        import threading, time
        def spin():
            while True:
                time.sleep(0.01)
        worker = threading.Thread(target=spin, name="spinner")
        worker.start()
    """))
    try:
        assert any("'spinner' running" in sentence for sentence in cap.restored), cap.restored
        assert [t.name for t in program_threads()] == ["spinner"]
        assert interrupt_program_threads(CaptureStopped) == []
        assert program_threads() == [] and not any(t.name == "spinner" for t in threading.enumerate())
    finally:  # a failing assertion must not leave a non-daemon thread that keeps pytest from exiting
        interrupt_program_threads(CaptureStopped)


def test_the_calling_threads_default_device_is_put_back_too():
    capture("torch.set_default_device('meta')\n")  # library use: the same thread runs the next program
    assert torch.get_default_device() == torch.device("cpu")
    assert torch.ones(1).device.type == "cpu"


def test_filters_a_module_adds_on_its_first_import_are_undone_without_blaming_the_program():
    import warnings

    before = list(warnings.filters)
    cap = capture("import warnings\n# a library's first import adds a filter, the program does not\n"
                  "warnings.filters.insert(0, ('ignore', None, UserWarning, None, 0))\n")
    assert cap.restored == () and list(warnings.filters) == before


def test_a_thread_that_takes_the_ident_of_one_that_ended_is_still_named():
    """A thread alive when the run started ends during it; the program's thread then gets its ident (glibc
    reuses a finished thread's stack): it once went unnamed, taken for the one that ran before."""
    done = threading.Event()
    helper = threading.Thread(target=done.wait, name="helper-before-the-run")
    helper.start()
    import builtins

    builtins._gx_test_helper = (done, helper)  # the program ends the helper, then starts its own thread
    try:
        cap = capture(textwrap.dedent("""
            import builtins, threading, time
            done, helper = builtins._gx_test_helper
            old_ident = helper.ident
            done.set()
            helper.join()
            def spin():
                while True:
                    time.sleep(0.01)
            worker = threading.Thread(target=spin, name="reuser")
            worker.start()
            print(worker.ident == old_ident)
        """))
        assert cap.ok, cap.error
        assert any("'reuser' running" in sentence for sentence in cap.restored), (cap.stdout, cap.restored)
    finally:
        del builtins._gx_test_helper
        interrupt_program_threads(CaptureStopped)


def test_an_optimizer_made_in_a_fresh_process_is_not_told_as_the_program_changing_the_environment(tmp_path):
    """torch sets TORCHINDUCTOR_CACHE_DIR itself the first time any optimizer is made (it loads torch._dynamo)."""
    import subprocess
    import sys
    import textwrap

    probe = textwrap.dedent("""\
        import os
        from gradexplorer import capture
        assert "TORCHINDUCTOR_CACHE_DIR" not in os.environ
        cap = capture("w = torch.zeros(3, requires_grad=True)\\nopt = torch.optim.SGD([w], lr=0.1)\\n"
                      "(w * 2).sum().backward()\\nopt.step()\\n")
        print(repr(cap.restored), "TORCHINDUCTOR_CACHE_DIR" in os.environ, cap.ok)
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["()", "True", "True"]  # nothing said; torch's own setting stays

"""Fresh state for every run: what a program may change in the process, put back after it.

The user's code runs in a thread of the app's process (thread mode), so a
top-level ``torch.set_default_dtype(torch.float64)``, an ``os.chdir`` or a
monkeypatched ``torch.Tensor.backward`` would otherwise still be in force
for the next run, and change what it shows. :func:`read_state` records the
process-wide state such a program can change; :func:`restore` puts it back
after the program has run (before the graph is built) and returns one
sentence per change, which the capture keeps and the console shows
("your code called torch.set_default_dtype(torch.float64); restored for the
next run").

What is covered, and how:

* process-wide torch settings: default dtype, anomaly detection (and its
  NaN check), deterministic algorithms (and warn-only), intra-op threads;
* the running thread's autograd modes and default device, which the program
  may switch at top level (``torch.set_grad_enabled(False)``): the capture
  sets them for the run and the next run starts from them afresh; reported
  so the user knows their code did it;
* ``sys.argv`` and ``sys.path`` (as :mod:`~gradexplorer.core.capture.script`
  gave them to the program);
* Python's recursion limit, the working directory, ``sys.stdout`` and
  ``sys.stderr``, the warnings filters (named only when the program itself
  called ``warnings.simplefilter``/``filterwarnings``: a module's first import
  may add filters too) and ``warnings.showwarning``;
* :data:`WATCHED_ATTRIBUTES`: torch, ``Tensor`` and ``nn.Module`` functions
  that programs monkeypatch (``backward``, ``__call__``, ...); the originals
  come back;
* the cyclic garbage collector switched off (``gc.disable()``), the
  exception hooks (``sys.excepthook``, ``sys.unraisablehook``,
  ``threading.excepthook``), the trace and profile functions of threads to
  come (``threading.settrace``/``setprofile``), the environment
  (``os.environ``), the file mode mask (``os.umask``) and the builtins
  (``builtins.len = ...`` broke every later run);
* threads the program started and left running are *listed* (a running
  thread cannot be undone; Stop and closing the window interrupt them).
"""

from __future__ import annotations

import builtins
import ctypes
import gc
import os
import sys
import threading
import time
import warnings
from dataclasses import dataclass

import torch

from ..records.phrases import Phrase, phrase

__all__ = ["ProcessState", "ThreadFlags", "WATCHED_ATTRIBUTES", "current_umask", "interrupt_program_threads",
           "program_threads", "read_state", "restore", "thread_flags", "threads_left_running"]

#: Attributes programs monkeypatch, as (owner, name): the originals are put back after a run.
WATCHED_ATTRIBUTES: tuple[tuple[object, str], ...] = (
    (torch.Tensor, "backward"),
    (torch.Tensor, "register_hook"),
    (torch.Tensor, "retain_grad"),
    (torch.Tensor, "to"),
    (torch.Tensor, "__repr__"),
    (torch.autograd, "backward"),
    (torch.autograd, "grad"),
    (torch.nn.Module, "__call__"),
    (torch.nn.Module, "_call_impl"),
    (torch.nn.Module, "to"),
    (torch.nn.Module, "register_buffer"),
    (torch.nn.Module, "register_parameter"),
    (torch.nn.Module, "register_forward_hook"),
    (torch.nn.Module, "register_full_backward_hook"),
)
# Not torch.manual_seed and friends: torch itself rewraps some functions when a
# submodule is first imported (torch._dynamo wraps torch.manual_seed), which is
# not the program's doing and must not be undone.


def _owner_name(owner: object) -> str:
    return getattr(owner, "__qualname__", None) or getattr(owner, "__name__", repr(owner))


@dataclass(frozen=True)
class ProcessState:
    """The process-wide state before a run (see the module docstring)."""

    default_dtype: torch.dtype
    #: The capturing thread's default device (thread-local in torch; a program may set it at top level).
    default_device: torch.device
    anomaly: bool
    anomaly_check_nan: bool
    deterministic: bool
    deterministic_warn_only: bool
    num_threads: int
    recursion_limit: int
    cwd: str
    stdout: object
    stderr: object
    warning_filters: tuple
    showwarning: object
    #: Calls of warnings.simplefilter/filterwarnings/resetwarnings made from the program's file.
    warning_calls: list
    #: The warnings functions before they were wrapped to note those calls.
    warning_functions: tuple
    #: (owner, name, original, whether the owner itself defined it or inherited it)
    attributes: tuple[tuple[object, str, object, bool], ...]
    #: The threads alive when the run started (objects: see read_state).
    threads: frozenset[threading.Thread]
    #: ``sys.argv`` and ``sys.path`` as the run started (the script's own, see :mod:`.script`).
    argv: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    #: The ``sys.argv`` list object the program was given (replaced or changed in place: both restored).
    argv_list: list | None = None
    gc_enabled: bool = True
    #: sys.excepthook, sys.unraisablehook, threading.excepthook.
    hooks: tuple = ()
    #: threading's trace and profile functions for threads to come.
    thread_trace: tuple = (None, None)
    environ: dict | None = None
    umask: int | None = None
    builtins: dict | None = None


@dataclass(frozen=True)
class ThreadFlags:
    """The running thread's autograd modes and default device when the program ended."""

    grad_enabled: bool
    inference_mode: bool
    default_device: torch.device


_WARNING_FUNCTIONS = ("simplefilter", "filterwarnings", "resetwarnings")

#: Environment variables torch writes itself, lazily, the first time a part of it loads: creating any
#: optimizer imports torch._dynamo, whose inductor cache sets TORCHINDUCTOR_CACHE_DIR. Not the program's
#: doing, so neither reported ("your code changed os.environ" on every app session's first training run)
#: nor put back (torch would only set it again).
TORCH_OWN_ENVIRON = frozenset({"TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"})


def _watch_warning_calls(filename: str | None, calls: list) -> tuple:
    """Wrap the warnings functions so that calls from ``filename`` are noted (torch's own lazy imports
    add filters too: only the program's calls are named; every change is undone either way)."""
    originals = tuple(getattr(warnings, name) for name in _WARNING_FUNCTIONS)
    if filename is None:
        return originals
    for name, original in zip(_WARNING_FUNCTIONS, originals):
        def watched(*args, _original=original, _name=name, **kwargs):
            caller = sys._getframe(1)
            if caller.f_code.co_filename == filename:
                calls.append((_name, caller.f_lineno))
            return _original(*args, **kwargs)

        setattr(warnings, name, watched)
    return originals


def read_state(filename: str | None = None) -> ProcessState:
    """Record what a program may change (call right before it runs, in the thread that runs it).

    ``filename``: the program's compile filename, to tell its own
    ``warnings.simplefilter`` calls from those of modules it imports.
    """
    try:
        cwd = os.getcwd()
    except OSError:  # the directory was removed under us
        cwd = ""
    calls: list = []
    originals = _watch_warning_calls(filename, calls)
    return ProcessState(
        default_dtype=torch.get_default_dtype(),
        default_device=torch.get_default_device(),
        anomaly=torch.is_anomaly_enabled(),
        anomaly_check_nan=torch.is_anomaly_check_nan_enabled(),
        deterministic=torch.are_deterministic_algorithms_enabled(),
        deterministic_warn_only=torch.is_deterministic_algorithms_warn_only_enabled(),
        num_threads=torch.get_num_threads(),
        recursion_limit=sys.getrecursionlimit(),
        cwd=cwd,
        stdout=sys.stdout,
        stderr=sys.stderr,
        warning_filters=tuple(warnings.filters),
        showwarning=warnings.showwarning,
        warning_calls=calls,
        attributes=tuple((owner, name, owner.__dict__.get(name, getattr(owner, name)), name in owner.__dict__)
                         for owner, name in WATCHED_ATTRIBUTES),
        warning_functions=originals,
        # The thread objects, not their idents: a thread that ends during the run frees its ident, and a
        # thread the program starts may get it (such a thread was once taken for one that ran before).
        threads=frozenset(threading.enumerate()),
        argv=tuple(sys.argv),
        path=tuple(sys.path),
        argv_list=sys.argv,
        gc_enabled=gc.isenabled(),
        hooks=(sys.excepthook, sys.unraisablehook, threading.excepthook),
        thread_trace=(threading.gettrace(), threading.getprofile()),
        environ=dict(os.environ),
        umask=current_umask(),
        builtins=dict(vars(builtins)),
    )


def current_umask() -> int:
    """The process's umask, read without changing it where the OS allows (other threads may create files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def thread_flags() -> ThreadFlags:
    """Read the running thread's modes (call right after the program, in its thread)."""
    return ThreadFlags(torch.is_grad_enabled(), torch.is_inference_mode_enabled(), torch.get_default_device())


def restore(before: ProcessState, flags: ThreadFlags | None = None, *,
            device: torch.device | None = None) -> tuple[Phrase, ...]:
    """Put back everything in ``before`` that the program changed; one sentence per change.

    Threads the program left running cannot be put back: each gets a
    sentence too (:func:`interrupt_program_threads` ends them).

    ``flags`` (from :func:`thread_flags`) and ``device`` (the device the run
    was set to) only report: the capture's own contexts reset those when
    they exit.
    """
    notes: list[Phrase] = []
    if flags is not None:
        _note_flags(flags, device, notes)
    _restore_torch(before, notes)
    _restore_sys(before, notes)
    _restore_warnings(before, notes)
    _restore_interpreter(before, notes)
    for thread in threads_left_running(before):
        notes.append(phrase("your code left the thread {thread} running; Stop or closing the window interrupts it",
                            thread=repr(thread.name)))
    _restore_attributes(before, notes)
    return tuple(notes)


def _restored(call: str) -> Phrase:
    """The sentence for a setting the program changed by calling ``call``."""
    return phrase("your code called {call}; restored for the next run", call=call)


def _note_flags(flags: ThreadFlags, device: torch.device | None, notes: list[Phrase]) -> None:
    """Say which of the run thread's modes the program left changed (the capture's contexts reset them)."""
    if not flags.grad_enabled:
        notes.append(phrase("your code turned gradient recording off (torch.set_grad_enabled(False) or "
                            "torch.no_grad().__enter__() at top level); the next run starts with it on"))
    if flags.inference_mode:
        notes.append(phrase("your code left inference mode on; the next run starts with it off"))
    if device is not None and flags.default_device != device:
        notes.append(phrase("your code called torch.set_default_device({device}); the next run starts on {home} "
                            "again", device=repr(str(flags.default_device)), home=repr(str(device))))


def _restore_torch(before: ProcessState, notes: list[Phrase]) -> None:
    """Put back torch's process-wide settings: default device and dtype, anomaly mode, determinism, threads."""
    if torch.get_default_device() != before.default_device:  # still set in this thread after the run
        torch.set_default_device(None if before.default_device == torch.device("cpu") else before.default_device)
    if torch.get_default_dtype() != before.default_dtype:
        notes.append(_restored(f"torch.set_default_dtype({torch.get_default_dtype()})"))
        torch.set_default_dtype(before.default_dtype)
    if (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) != \
            (before.anomaly, before.anomaly_check_nan):
        notes.append(_restored(f"torch.autograd.set_detect_anomaly({torch.is_anomaly_enabled()})"))
        torch.autograd.set_detect_anomaly(before.anomaly, before.anomaly_check_nan)
    if (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()) != \
            (before.deterministic, before.deterministic_warn_only):
        notes.append(_restored(f"torch.use_deterministic_algorithms({torch.are_deterministic_algorithms_enabled()})"))
        torch.use_deterministic_algorithms(before.deterministic, warn_only=before.deterministic_warn_only)
    if torch.get_num_threads() != before.num_threads:
        notes.append(_restored(f"torch.set_num_threads({torch.get_num_threads()})"))
        torch.set_num_threads(before.num_threads)


def _restore_sys(before: ProcessState, notes: list[Phrase]) -> None:
    """Put back the interpreter's process state: recursion limit, working folder, argv, path, streams."""
    if sys.getrecursionlimit() != before.recursion_limit:
        notes.append(_restored(f"sys.setrecursionlimit({sys.getrecursionlimit()})"))
        sys.setrecursionlimit(before.recursion_limit)
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    if before.cwd and cwd != before.cwd:
        notes.append(_restored(f"os.chdir({cwd!r})") if cwd else
                     phrase("your code called os.chdir() into a folder that is gone; restored for the next run"))
        try:
            os.chdir(before.cwd)
        except OSError as exc:
            notes.append(phrase("the working directory {folder} could not be restored: {why}",
                                folder=repr(before.cwd), why=str(exc)))
    if before.argv_list is not None and (sys.argv is not before.argv_list or tuple(sys.argv) != before.argv):
        # argparse scripts sometimes rewrite sys.argv; the next run is given its own.
        notes.append(phrase("your code changed sys.argv; restored for the next run"))
        before.argv_list[:] = list(before.argv)
        sys.argv = before.argv_list
    if before.path and tuple(sys.path) != before.path:
        added = [p for p in sys.path if p not in before.path]
        what = phrase(" (added {paths})", paths=", ".join(repr(p) for p in added[:3]) + (", ..." if len(added) > 3
                                                                                         else "")) if added else ""
        notes.append(phrase("your code changed sys.path{what}; restored for the next run", what=what))
        sys.path[:] = list(before.path)
    for stream in ("stdout", "stderr"):
        if getattr(sys, stream) is not getattr(before, stream):
            notes.append(phrase("your code replaced sys.{stream}; restored for the next run", stream=stream))
            setattr(sys, stream, getattr(before, stream))


def _restore_warnings(before: ProcessState, notes: list[Phrase]) -> None:
    """Put back the warnings machinery: its functions, filters and ``showwarning``."""
    for name, original in zip(_WARNING_FUNCTIONS, before.warning_functions):
        setattr(warnings, name, original)
    if tuple(warnings.filters) != before.warning_filters:
        if before.warning_calls:  # the program's own calls; a module's first import may add filters too
            name, line = before.warning_calls[0]
            notes.append(phrase("your code called warnings.{name} (line {line}); the warnings filters are restored "
                                "for the next run", name=name, line=line))
        warnings.filters[:] = list(before.warning_filters)
        warnings._filters_mutated()  # noqa: SLF001 - the documented way filters take effect again
    if warnings.showwarning is not before.showwarning:
        notes.append(phrase("your code replaced warnings.showwarning; restored for the next run"))
        warnings.showwarning = before.showwarning


def _restore_attributes(before: ProcessState, notes: list[Phrase]) -> None:
    """Put back the library attributes the program replaced (a patched ``torch.Tensor.to``, ...)."""
    for owner, name, original, own in before.attributes:
        current = owner.__dict__.get(name, getattr(owner, name, None))
        if current is not original:
            notes.append(phrase("your code replaced {owner}.{name}; the original is back for the next run",
                                owner=_owner_name(owner), name=name))
            if own:
                setattr(owner, name, original)
            else:  # it was inherited (torch.Tensor.to comes from TensorBase): remove the override
                try:
                    delattr(owner, name)
                except AttributeError:
                    setattr(owner, name, original)


def _restore_interpreter(before: ProcessState, notes: list[Phrase]) -> None:
    """The collector, the exception hooks, threading's trace functions, the environment, umask and builtins."""
    if before.gc_enabled and not gc.isenabled():
        notes.append(phrase("your code called gc.disable(); the garbage collector is on again for the next run"))
        gc.enable()
    for (owner, name), original in zip(((sys, "excepthook"), (sys, "unraisablehook"), (threading, "excepthook")),
                                       before.hooks):
        if getattr(owner, name) is not original:
            notes.append(phrase("your code replaced {owner}.{name}; restored for the next run", owner=owner.__name__,
                                name=name))
            setattr(owner, name, original)
    trace, profile = before.thread_trace
    if threading.gettrace() is not trace:
        notes.append(_restored("threading.settrace()"))
        threading.settrace(trace)
    if threading.getprofile() is not profile:
        notes.append(_restored("threading.setprofile()"))
        threading.setprofile(profile)
    changed = [] if before.environ is None or os.environ == before.environ else sorted(
        k for k in set(os.environ) | set(before.environ)
        if os.environ.get(k) != before.environ.get(k) and not (k in TORCH_OWN_ENVIRON and k not in before.environ))
    if changed:
        notes.append(phrase("your code changed os.environ ({keys}); restored for the next run",
                            keys=", ".join(changed[:3]) + (", ..." if len(changed) > 3 else "")))
        for key in changed:
            if key in before.environ:
                os.environ[key] = before.environ[key]
            else:
                os.environ.pop(key, None)
    if before.umask is not None:
        now = current_umask()
        if now != before.umask:
            notes.append(_restored(f"os.umask(0o{now:03o})"))
            os.umask(before.umask)
    if before.builtins is not None:
        table = vars(builtins)
        replaced = sorted(k for k, v in before.builtins.items() if table.get(k, _GONE) is not v)
        added = [k for k in table if k not in before.builtins]
        if replaced:
            notes.append(phrase("your code replaced or removed builtins ({names}); restored for the next run",
                                names=", ".join(replaced[:3]) + (", ..." if len(replaced) > 3 else "")))
        for key in replaced:
            table[key] = before.builtins[key]
        for key in added:
            del table[key]


#: A marker for a name that is not there.
_GONE = object()


def threads_left_running(before: ProcessState) -> list[threading.Thread]:
    """Threads this run's program started (the recorder marks them) that are still alive after it."""
    return [t for t in program_threads() if t not in before.threads]


def program_threads() -> list[threading.Thread]:
    """Threads a program started (under the recorder) that are still running, whichever run it was."""
    return [t for t in threading.enumerate() if getattr(t, "_gradexplorer_followed", False) and t.is_alive()]


def interrupt_program_threads(exception: type[BaseException], *, timeout: float = 2.0) -> list[str]:
    """Raise ``exception`` in every thread a program left running and wait for them; names of those still alive.

    Python delivers it at the thread's next bytecode: a thread in a Python
    loop or a ``time.sleep``/``Event.wait`` slice stops; one blocked in a
    long native call stops when that call returns. Without this, a
    non-daemon thread left running would keep the app from exiting.
    """
    threads = program_threads()
    for thread in threads:
        if thread.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exception))
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(deadline - time.monotonic(), 0.0))
    return [t.name for t in threads if t.is_alive()]

"""Command line: ``gradexplorer capture SCRIPT`` and friends (never imports Qt).

Usage::

    gradexplorer capture SCRIPT [--device D] [--isolated [--memory-limit GB]] [--json OUT] [-o SESSION]
                                [--max-rows N] [--cwd FOLDER] [-- ARGS...]
    gradexplorer show SESSION [--json OUT]   print a saved session's summary (runs nothing)
    gradexplorer diff A B [--json OUT] [--device-a D] [--device-b D]
                                      compare two runs (sessions, or scripts it runs)
    gradexplorer devices              list devices and why some are missing
    gradexplorer examples             list the bundled example scripts

``capture`` runs SCRIPT as ``python SCRIPT ARGS...`` would from the current
folder: ``sys.argv == [SCRIPT, *ARGS]``, ``__file__``, the script's folder as
``sys.path[0]`` (so ``from model import Net`` beside it works), its
``# -*- coding: ... -*-`` line honoured. Everything after ``--`` is the
script's own (``gradexplorer capture train.py --json out.json -- --lr 0.5``).

Bad arguments and unreadable files print one line to stderr and exit with
status 2; a script that raises still prints its capture (the error is part of
it) and exits with status 1. ``diff`` exits as ``diff(1)`` does: 0 when the
two runs recorded the same, 1 when they differ.

Opening the desktop app (``gradexplorer`` alone, or with a file) is decided
in :mod:`gradexplorer.launch`, so that this module never imports Qt.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .resources import example_paths

# Everything under gradexplorer.core imports torch (a second and a half): it
# is imported inside the command that needs it, so ``gradexplorer --help``
# answers at once.

__all__ = ["COMMANDS", "main", "split_script_args"]

#: The sub-commands this module handles (the launcher sends the rest to the app).
COMMANDS = frozenset({"capture", "show", "diff", "devices", "examples"})

EXIT_OK, EXIT_SCRIPT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_DIFFERENT = 1  # diff: the two runs differ


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments in one line and exit status 2."""

    def error(self, message: str):  # noqa: D102 - argparse API
        self.exit(EXIT_USAGE, f"gradexplorer: {message} (see 'gradexplorer --help')\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gradexplorer", description="See what autograd really does with your PyTorch code.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="the desktop app:\n"
               "  gradexplorer                open the app\n"
               "  gradexplorer FILE           open the app with FILE: a session (.gxsession) or a script (.py)\n"
               "  gradexplorer SCRIPT -- ARGS open the app with SCRIPT and the arguments it runs with\n"
               "  gradexplorer -style fusion FILE\n"
               "                              Qt's own options (-style, -platform, -stylesheet, ...) go to Qt")
    from ._version import __version__

    parser.add_argument("--version", action="version", version=f"gradexplorer {__version__}")
    sub = parser.add_subparsers(dest="command")
    cap = sub.add_parser("capture", help="run a script, print its autograd graph, optionally write JSON",
                         usage="gradexplorer capture SCRIPT [options] [-- ARGS...]",
                         description="Run SCRIPT as 'python SCRIPT ARGS...' would (from the current folder, or "
                                     "--cwd), recording what autograd does. Everything after -- goes to the "
                                     "script: gradexplorer capture train.py --json out.json -- --lr 0.5")
    cap.add_argument("script", help="a Python file (or - for standard input)")
    cap.add_argument("--cwd", metavar="FOLDER",
                     help="the folder the script runs in (default: the current one, as 'python SCRIPT' would)")
    cap.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or mps (default: cpu)")
    cap.add_argument("--json", metavar="OUT", help="write the capture document as JSON to OUT (- for stdout)")
    cap.add_argument("-o", "--session", metavar="SESSION", help="save the capture as a session file (.gxsession)")
    cap.add_argument("--max-rows", type=int, default=200, metavar="N", help="node rows to print (default 200)")
    cap.add_argument("--isolated", action="store_true",
                     help="run the script in a child process: os._exit, a crash in native code or running out of "
                          "memory becomes an error report instead of ending gradexplorer")
    cap.add_argument("--memory-limit", type=float, metavar="GB",
                     help="with --isolated: memory the child may allocate (default: half of this machine's; 0: none)")
    cap.add_argument("--quiet", action="store_true", help="print nothing but errors")
    show = sub.add_parser("show", help="print the summary of a saved session without running its code")
    show.add_argument("session", help="a .gxsession file (or a capture --json document)")
    show.add_argument("--max-rows", type=int, default=200, metavar="N", help="node rows to print (default 200)")
    show.add_argument("--json", metavar="OUT", help="write the session's capture document as JSON to OUT (- for "
                                                    "stdout) instead of printing the summary")
    diff = sub.add_parser("diff", help="compare two runs node by node: what was added, removed and changed",
                          description="Compare run B with run A: each a saved session (.gxsession), a capture "
                                      "--json document, or a script (.py) run here as 'python SCRIPT' would. Nodes "
                                      "are matched by name, module and op, then graph position (docs/diff.md). "
                                      "Exit status 0: the runs recorded the same; 1: they differ.")
    diff.add_argument("a", help="run A, the reference: a session, a capture --json document or a .py script")
    diff.add_argument("b", help="run B, compared with A")
    diff.add_argument("--device-a", default="cpu", metavar="D", help="the device a script A runs on (default cpu)")
    diff.add_argument("--device-b", default="cpu", metavar="D", help="the device a script B runs on (default cpu)")
    diff.add_argument("--json", metavar="OUT", help="write the comparison as JSON to OUT (- for stdout)")
    diff.add_argument("--max-rows", type=int, default=200, metavar="N", help="node rows to print (default 200)")
    sub.add_parser("devices", help="list the devices code can run on here")
    sub.add_parser("examples", help="list the bundled examples")
    return parser


def _fail(message: str) -> int:
    print(f"gradexplorer: {message}", file=sys.stderr)
    return EXIT_USAGE


def _read_script(path: str) -> tuple[str, str]:
    """The script's text (decoded as Python decodes it) and its compile filename (its absolute path)."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    file = Path(path)
    from .core.capture.script import read_script
    from .core.io.files import not_a_regular_file

    problem = not_a_regular_file(file.stat())
    if problem:
        raise OSError(f"{path} is {problem}, not a Python file")
    # As CPython 3.9+ does for the main script: __file__ and tracebacks carry the absolute path.
    return read_script(file), str(file.resolve())


def split_script_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` before the first ``--`` (gradexplorer's), and after it (the script's own arguments)."""
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1:]
    return argv, []


def _write_json(capture, out: str) -> None:
    """Write ``capture``'s JSON document to ``out`` (``-``: standard output), a piece at a time."""
    from .core.io.capture_json import write_capture_document

    if out == "-":
        sys.stdout.flush()  # the report printed before goes first
        write_capture_document(capture, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    from .core.io.files import write_atomic

    write_atomic(Path(out), lambda fh: write_capture_document(capture, fh))


def _run_capture(args) -> int:
    from .core.pipeline import capture
    from .core.records.errors import GradexplorerError
    from .core.io.session import save_session, session_from_capture
    from .core.io.report import format_capture

    from .core.capture.script import ScriptRun
    from .core.capture.streams import stdin_reader

    try:
        code, filename = _read_script(args.script)
    except OSError as exc:
        reason = exc.strerror if getattr(exc, "strerror", None) else str(exc)
        return _fail(f"cannot read {args.script}: {reason}")
    # The output files are where the user pointed from here, whatever folder the script runs in.
    for attr in ("json", "session"):
        value = getattr(args, attr)
        if value and value != "-":
            setattr(args, attr, str(Path(value).resolve()))
    run = ScriptRun(tuple(args.script_args), str(Path(args.cwd).resolve()) if args.cwd else os.getcwd())
    try:
        if args.isolated:
            from .core.isolated.engine import capture_isolated

            limit = -1 if args.memory_limit is None else (int(args.memory_limit * 2**30) or None)
            result = capture_isolated(code, device=args.device, filename=filename, run=run, memory_limit=limit)
        else:
            reader = stdin_reader(source="the program itself came on standard input" if args.script == "-" else "")
            result = capture(code, device=args.device, filename=filename, run=run, read_input=reader)
    except GradexplorerError as exc:
        return _fail(str(exc))
    if not args.quiet and args.json != "-":
        sys.stdout.write(format_capture(result, max_rows=args.max_rows))
    elif result.error is not None:
        print(result.error.traceback, file=sys.stderr)
    if args.json:
        try:
            _write_json(result, args.json)
        except OSError as exc:
            return _fail(f"cannot write {args.json}: {exc.strerror or exc}")
        except ValueError as exc:
            return _fail(f"cannot write {args.json}: {exc}")
    if args.session:
        try:
            save_session(session_from_capture(result), args.session)
        except OSError as exc:
            return _fail(f"cannot write {args.session}: {exc.strerror or exc}")
    return EXIT_OK if result.ok else EXIT_SCRIPT_FAILED


def _run_show(args) -> int:
    from .core.records.errors import DocumentError
    from .core.io.session import load_session
    from .core.io.report import format_capture

    try:
        session = load_session(args.session)
    except DocumentError as exc:
        return _fail(str(exc))
    if args.json:
        try:
            _write_json(session.capture, args.json)
        except OSError as exc:
            return _fail(f"cannot write {args.json}: {exc.strerror or exc}")
        except ValueError as exc:
            return _fail(f"cannot write {args.json}: {exc}")
        return EXIT_OK
    saved = f", saved {session.saved_at}" if session.saved_at else ""
    print(f"session {args.session}: made by gradexplorer {session.versions.get('gradexplorer', '?')}"
          f" with torch {session.versions.get('torch', '?')}{saved}; nothing was run")
    for note in session.notes:
        print(f"note: {note}")
    sys.stdout.write(format_capture(session.capture, max_rows=args.max_rows))
    return EXIT_OK


def _load_run(path: str, device: str):
    """The capture of one side of ``diff``: a script is run (in this process), a session is read."""
    if path.endswith(".py"):
        from .core.capture.script import ScriptRun
        from .core.pipeline import capture

        code, filename = _read_script(path)
        return capture(code, device=device, filename=filename, run=ScriptRun((), os.getcwd()))
    from .core.io.session import load_session

    return load_session(path).capture  # a DocumentError says what is wrong with the file


def _run_diff(args) -> int:
    import json

    from .core.analysis.diff import diff_captures, run_labels
    from .core.io.diff_report import diff_to_dict, format_diff
    from .core.records.errors import DocumentError, GradexplorerError

    runs = []
    for path, device in ((args.a, args.device_a), (args.b, args.device_b)):
        try:
            runs.append(_load_run(path, device))
        except (OSError, DocumentError) as exc:
            return _fail(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
        except GradexplorerError as exc:  # a device that is not here
            return _fail(f"{path}: {exc}")
    label_a, label_b = run_labels(*runs, where_a=args.a, where_b=args.b)
    diff = diff_captures(*runs, a_label=label_a, b_label=label_b)
    if args.json != "-":
        sys.stdout.write(format_diff(diff, max_rows=args.max_rows))
    if args.json:
        text = json.dumps(diff_to_dict(diff), indent=1, allow_nan=False) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            try:
                Path(args.json).write_text(text, encoding="utf-8")
            except OSError as exc:
                return _fail(f"cannot write {args.json}: {exc.strerror or exc}")
    return EXIT_DIFFERENT if diff.differs else EXIT_OK


def _run_devices() -> int:
    from .core.capture.devices import list_devices

    for info in list_devices():
        state = "available" if info.available else f"not available: {info.reason}"
        print(f"{info.name:8} {state}" + (f"  ({info.label})" if info.available and info.label != info.name else ""))
    return EXIT_OK


def _run_examples() -> int:
    for path in example_paths():
        print(path.name)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gradexplorer`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    script_args: list[str] = []
    if argv[:1] == ["capture"]:
        argv, script_args = split_script_args(argv)
    args = _parser().parse_args(argv)
    args.script_args = script_args
    if args.command == "capture":
        return _run_capture(args)
    if args.command == "show":
        return _run_show(args)
    if args.command == "diff":
        return _run_diff(args)
    if args.command == "devices":
        return _run_devices()
    if args.command == "examples":
        return _run_examples()
    _parser().print_help()
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

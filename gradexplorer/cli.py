"""Command line: ``gradexplorer capture SCRIPT`` and friends (never imports Qt).

Usage::

    gradexplorer capture SCRIPT [--device D] [--isolated [--memory-limit GB]] [--json OUT] [-o SESSION]
                                [--max-rows N]
    gradexplorer show SESSION         print a saved session's summary (runs nothing)
    gradexplorer devices              list devices and why some are missing
    gradexplorer examples             list the bundled example scripts

Bad arguments and unreadable files print one line to stderr and exit with
status 2; a script that raises still prints its capture (the error is part of
it) and exits with status 1.

Opening the desktop app (``gradexplorer`` alone, or with a file) is decided
in :mod:`gradexplorer.launch`, so that this module never imports Qt.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .resources import example_paths

# Everything under gradexplorer.core imports torch (a second and a half): it
# is imported inside the command that needs it, so ``gradexplorer --help``
# answers at once.

__all__ = ["COMMANDS", "main"]

#: The sub-commands this module handles (the launcher sends the rest to the app).
COMMANDS = frozenset({"capture", "show", "devices", "examples"})

EXIT_OK, EXIT_SCRIPT_FAILED, EXIT_USAGE = 0, 1, 2


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
               "  gradexplorer -style fusion FILE\n"
               "                              Qt's own options (-style, -platform, -stylesheet, ...) go to Qt")
    from ._version import __version__

    parser.add_argument("--version", action="version", version=f"gradexplorer {__version__}")
    sub = parser.add_subparsers(dest="command")
    cap = sub.add_parser("capture", help="run a script, print its autograd graph, optionally write JSON")
    cap.add_argument("script", help="a Python file (or - for standard input)")
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
    sub.add_parser("devices", help="list the devices code can run on here")
    sub.add_parser("examples", help="list the bundled examples")
    return parser


def _fail(message: str) -> int:
    print(f"gradexplorer: {message}", file=sys.stderr)
    return EXIT_USAGE


def _read_script(path: str) -> tuple[str, str]:
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    file = Path(path)
    from .core.io.session import not_a_regular_file

    problem = not_a_regular_file(file.stat())
    if problem:
        raise OSError(f"{path} is {problem}, not a Python file")
    data = file.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise OSError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text, str(file)


def _write_json(document: dict, out: str) -> None:
    text = json.dumps(document, ensure_ascii=False, allow_nan=False)
    if out == "-":
        sys.stdout.write(text + "\n")
        return
    from .core.io.session import write_atomic

    write_atomic(Path(out), text)


def _run_capture(args) -> int:
    from .core.capture.run import capture
    from .core.records.errors import GradexplorerError
    from .core.io.session import save_session, session_from_capture
    from .core.io.capture_json import capture_to_dict
    from .core.io.report import format_capture

    try:
        code, filename = _read_script(args.script)
    except OSError as exc:
        reason = exc.strerror if getattr(exc, "strerror", None) else str(exc)
        return _fail(f"cannot read {args.script}: {reason}")
    try:
        if args.isolated:
            from .core.isolated.engine import capture_isolated

            limit = -1 if args.memory_limit is None else (int(args.memory_limit * 2**30) or None)
            result = capture_isolated(code, device=args.device, filename=filename, memory_limit=limit)
        else:
            result = capture(code, device=args.device, filename=filename)
    except GradexplorerError as exc:
        return _fail(str(exc))
    if not args.quiet and args.json != "-":
        sys.stdout.write(format_capture(result, max_rows=args.max_rows))
    elif result.error is not None:
        print(result.error.traceback, file=sys.stderr)
    if args.json:
        try:
            _write_json(capture_to_dict(result), args.json)
        except OSError as exc:
            return _fail(f"cannot write {args.json}: {exc.strerror or exc}")
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
    saved = f", saved {session.saved_at}" if session.saved_at else ""
    print(f"session {args.session}: made by gradexplorer {session.versions.get('gradexplorer', '?')}"
          f" with torch {session.versions.get('torch', '?')}{saved}; nothing was run")
    for note in session.notes:
        print(f"note: {note}")
    sys.stdout.write(format_capture(session.capture, max_rows=args.max_rows))
    return EXIT_OK


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
    args = _parser().parse_args(argv)
    if args.command == "capture":
        return _run_capture(args)
    if args.command == "show":
        return _run_show(args)
    if args.command == "devices":
        return _run_devices()
    if args.command == "examples":
        return _run_examples()
    _parser().print_help()
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

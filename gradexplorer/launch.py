"""The ``gradexplorer`` command: the CLI for sub-commands, else the desktop app.

``gradexplorer capture ...``, ``show``, ``diff``, ``devices``, ``examples``,
``-h``/``--help`` and ``--version`` go to :mod:`gradexplorer.cli` (neither
Qt nor torch is imported for ``--help``); everything else opens the desktop
app, which is imported only then: ``gradexplorer`` alone, ``gradexplorer
FILE``, ``gradexplorer SCRIPT -- ARGS...`` (the script's own arguments
after ``--``), and Qt's own options (``-style fusion``, ``-platform
offscreen``), which Qt takes out of the arguments before the app reads its
file.
"""

from __future__ import annotations

import sys

from . import cli

__all__ = ["CLI_OPTIONS", "main"]

#: Options the command line answers; any other leading option is Qt's (``-style``, ``-platform``).
CLI_OPTIONS = frozenset({"-h", "--help", "--version"})


def main(argv: list[str] | None = None) -> int:
    """Dispatch to the CLI or the app; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and (argv[0] in cli.COMMANDS or argv[0] in CLI_OPTIONS):
        return cli.main(argv)
    try:
        from .ui.app import main as app_main
    except ImportError as exc:
        print(f"gradexplorer: the desktop app cannot start ({exc}); "
              "'gradexplorer capture SCRIPT' works without it", file=sys.stderr)
        return cli.EXIT_USAGE
    return app_main(argv)

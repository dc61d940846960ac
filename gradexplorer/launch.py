"""The ``gradexplorer`` command: the CLI for sub-commands, else the desktop app.

``gradexplorer capture ...``, ``devices``, ``examples``, ``--help`` and
``--version`` go to :mod:`gradexplorer.cli` (no Qt is imported);
``gradexplorer`` alone or ``gradexplorer FILE`` opens the desktop app, which
is imported only then.
"""

from __future__ import annotations

import sys

from . import cli

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Dispatch to the CLI or the app; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and (argv[0] in cli.COMMANDS or argv[0].startswith("-")):
        return cli.main(argv)
    try:
        from .ui.app import main as app_main
    except ImportError as exc:
        print(f"gradexplorer: the desktop app cannot start ({exc}); "
              "'gradexplorer capture SCRIPT' works without it", file=sys.stderr)
        return cli.EXIT_USAGE
    return app_main(argv)

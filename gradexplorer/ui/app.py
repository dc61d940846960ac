"""The QApplication: names, style, and ``main()`` for ``gradexplorer [FILE]``."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from .._version import __version__
from ..core.collector import freeze_after_pauses
from ..resources import resource_root
from .gui_thread_guard import guard_gui_thread
from .language import choose_language, install_language
from .settings import Settings

__all__ = ["app_files", "create_application", "main"]

ORGANIZATION = "gradexplorer"
APPLICATION = "gradexplorer"
#: resources/gradexplorer.desktop, without its suffix (as Qt wants it).
DESKTOP_FILE_NAME = "gradexplorer"


def create_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once, with names QSettings and the OS use."""
    app = QApplication.instance()
    if app is None:
        # High-DPI: Qt 6 scales by default; pass fractional factors through
        # instead of rounding them (crisp at 150 %).
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0], *(argv or [])])
    freeze_after_pauses()  # core.collector: no long collection when a paused job ends
    guard_gui_thread()  # a program's QLabel(...).show() or quit() in the worker: a sentence, not a crash
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QCoreApplication.setApplicationVersion(__version__)
    # The .desktop file's name (resources/gradexplorer.desktop): Wayland finds the window's icon through it.
    QGuiApplication.setDesktopFileName(DESKTOP_FILE_NAME)
    icon = resource_root() / "icons" / "gradexplorer.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    return app


def app_files(app: QApplication, argv: list[str]) -> list[str]:
    """The file arguments: what Qt left after taking its own options (``-style fusion``) out.

    Qt removes the options it understands from its copy of the arguments
    (:meth:`QCoreApplication.arguments`); when the application was made
    before (tests), the given ``argv`` is read with Qt's options skipped.
    """
    remaining = app.arguments()[1:]
    if remaining and all(arg in argv for arg in remaining):
        return [arg for arg in remaining if not arg.startswith("-")]
    files, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _QT_OPTIONS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            files.append(arg)
    return files


#: Qt options that take a value (``-style fusion``), for :func:`app_files` when Qt did not parse argv.
_QT_OPTIONS_WITH_VALUE = frozenset({"-style", "-stylesheet", "-platform", "-platformpluginpath", "-platformtheme",
                                    "-plugin", "-qmljsdebugger", "-session", "-display", "-geometry", "-title",
                                    "-name", "-qwindowgeometry", "-qwindowtitle", "-qwindowicon"})


def main(argv: list[str] | None = None) -> int:
    """Open the main window (with the file in ``argv`` loaded, if given) and run the event loop.

    ``gradexplorer SCRIPT -- ARGS...``: what follows ``--`` are the script's
    own arguments (Run > Arguments… shows them), never Qt's.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    from ..cli import split_script_args

    argv, script_args = split_script_args(argv)
    app = create_application(argv)
    install_language(choose_language(Settings().language))  # before any widget takes its text
    from .main_window import MainWindow  # after the QApplication exists

    window = MainWindow()
    window.show()
    files = app_files(app, argv)
    if files:
        if not window.files.open_path(Path(files[0]), prompt=False):
            print(f"gradexplorer: {window.status.text()}", file=sys.stderr)
        elif script_args:
            window.run_commands.set_run_arguments(script_args)
            window.setWindowModified(False)  # given on the command line: nothing to save yet
    else:
        window.recovery.check_recovery()
    return app.exec()

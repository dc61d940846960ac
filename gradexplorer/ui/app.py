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

__all__ = ["create_application", "main"]

ORGANIZATION = "gradexplorer"
APPLICATION = "gradexplorer"


def create_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once, with names QSettings and the OS use."""
    app = QApplication.instance()
    if app is None:
        # High-DPI: Qt 6 scales by default; pass fractional factors through
        # instead of rounding them (crisp at 150 %).
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0], *(argv or [])])
    freeze_after_pauses()  # core.collector: no long collection when a paused job ends
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QCoreApplication.setApplicationVersion(__version__)
    icon = resource_root() / "icons" / "gradexplorer.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    return app


def main(argv: list[str] | None = None) -> int:
    """Open the main window (with ``argv[0]`` loaded, if given) and run the event loop."""
    argv = sys.argv[1:] if argv is None else list(argv)
    app = create_application(argv)
    from .main_window import MainWindow  # after the QApplication exists

    window = MainWindow()
    window.show()
    if argv:
        if not window.open_path(Path(argv[0]), prompt=False):
            print(f"gradexplorer: {window.status.text()}", file=sys.stderr)
    else:
        window.check_recovery()
    return app.exec()

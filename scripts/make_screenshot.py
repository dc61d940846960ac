"""Render the README screenshot: the next_functions example, run, with node c selected.

Usage::

    python scripts/make_screenshot.py [OUT.png]    (default docs/screenshot.png)

Runs offscreen unless a display is set (QT_QPA_PLATFORM decides).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402

from gradexplorer.resources import resource_root  # noqa: E402
from gradexplorer.ui.app import create_application  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "screenshot.png"
    app = create_application([])
    # A throw-away settings file: the picture must not depend on this user's layout.
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    from gradexplorer.ui.main_window import MainWindow

    window = MainWindow()
    window.resize(1500, 950)
    window.show()
    window.load_example(resource_root() / "examples" / "03_next_functions.py")
    loop = QEventLoop()
    window.run_finished.connect(lambda _result: loop.quit())
    QTimer.singleShot(60_000, loop.quit)
    window.start_run()
    loop.exec()
    cap = window.result.capture
    window.graph_view.select_node(cap.node_named("c"))
    app.processEvents()
    window.grab().save(str(out))
    print(f"wrote {out}")
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())

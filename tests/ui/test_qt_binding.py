"""Guard against a Qt binding that corrupts None's reference count.

PySide6 6.12.0 under Python 3.11 decrements None's refcount on each call of
a method returning void; after a few thousand calls (one graph draw) the
interpreter aborts with "deallocating None". pyproject.toml excludes it.
"""

import sys

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath


def test_void_calls_keep_none_alive(qapp):
    path = QPainterPath()
    before = sys.getrefcount(None)
    for _ in range(2000):
        path.moveTo(QPointF(0, 0))
    after = sys.getrefcount(None)
    assert after - before >= -50, f"None lost {before - after} references: a broken PySide6 build"


def test_the_app_reads_its_file_after_qt_options(qapp):
    from gradexplorer.ui.app import app_files

    assert app_files(qapp, ["-style", "fusion", "model.py"]) == ["model.py"]
    assert app_files(qapp, ["-platform", "offscreen", "-reverse", "s.gxsession"]) == ["s.gxsession"]
    assert app_files(qapp, []) == []

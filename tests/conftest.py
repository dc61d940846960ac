"""Test-suite wide settings: Qt runs offscreen, no display needed."""

import os

# Must be set before any QApplication exists (pytest-qt creates it lazily).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

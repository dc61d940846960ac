"""A note laid over a pane while what it will show is still being computed ("Computing the explanations…").

The window draws a run's picture before the named tensors, the module audit
and the explanations exist (:mod:`gradexplorer.ui.worker`, "Picture first").
Meanwhile a pane must not show the previous run's rows (a wrong answer) nor
an empty table (which reads as "nothing to explain"): it is emptied and
this note covers it until its rows arrive.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QWidget

from .language import translator_for

__all__ = ["PendingNote"]

_tr = translator_for(__name__)


class PendingNote(QLabel):
    """A centred, word-wrapped label that covers ``host`` (kept to its size) while shown."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setAccessibleName(_tr("Pending"))
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setAutoFillBackground(True)
        self.setStyleSheet("color: palette(placeholder-text); font-style: italic; padding: 12px")
        self.hide()
        host.installEventFilter(self)

    def show_text(self, text: str) -> None:
        """Cover the host with ``text``."""
        self.setText(text)
        self.setGeometry(self.parentWidget().rect())
        self.show()
        self.raise_()

    def clear(self) -> None:  # noqa: D102 - QLabel.clear, also hides
        super().clear()
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self.setGeometry(self.parentWidget().rect())
        return False

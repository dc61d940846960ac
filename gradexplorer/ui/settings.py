"""Typed access to the user's preferences (QSettings).

Every read passes ``type=`` (QSettings returns strings for booleans and
numbers otherwise, depending on the platform's backend).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QByteArray, QSettings

__all__ = ["Settings"]

MAX_RECENT = 10


class Settings:
    """The app's preferences: last device, window geometry, recent files."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings if settings is not None else QSettings()

    @property
    def last_device(self) -> str:
        return self._settings.value("run/device", "cpu", type=str)

    @last_device.setter
    def last_device(self, name: str) -> None:
        self._settings.setValue("run/device", name)

    @property
    def isolated_memory_gb(self) -> float:
        """Memory the isolated engine's child may allocate, in GiB; 0 means half of the machine's."""
        return self._settings.value("run/isolated_memory_gb", 0.0, type=float)

    @isolated_memory_gb.setter
    def isolated_memory_gb(self, value: float) -> None:
        self._settings.setValue("run/isolated_memory_gb", float(value))

    @property
    def language(self) -> str:
        """The language chosen in View > Language (``"en"``, ``"zh_TW"``); ``""``: the system's."""
        return self._settings.value("ui/language", "", type=str)

    @language.setter
    def language(self, code: str) -> None:
        self._settings.setValue("ui/language", code)

    @property
    def geometry(self) -> QByteArray:
        return self._settings.value("window/geometry", QByteArray(), type=QByteArray)

    @geometry.setter
    def geometry(self, data: QByteArray) -> None:
        self._settings.setValue("window/geometry", data)

    @property
    def window_state(self) -> QByteArray:
        return self._settings.value("window/state", QByteArray(), type=QByteArray)

    @window_state.setter
    def window_state(self, data: QByteArray) -> None:
        self._settings.setValue("window/state", data)

    @property
    def recent_files(self) -> list[str]:
        value = self._settings.value("files/recent", [], type=list)
        return [str(v) for v in value][:MAX_RECENT]

    def add_recent_file(self, path: str) -> None:
        """Put ``path`` first in Open Recent, as an absolute path (a relative one fails from another folder)."""
        path = os.path.abspath(path)
        files = [path] + [f for f in self.recent_files if f != path]
        self._settings.setValue("files/recent", files[:MAX_RECENT])

    def sync(self) -> None:
        self._settings.sync()

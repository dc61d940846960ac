"""gradexplorer: see what autograd really does with your PyTorch code.

The public API is Qt-free: importing :mod:`gradexplorer` never imports
PySide6, so it works in scripts, notebooks and tests without a display.
The desktop app lives in :mod:`gradexplorer.ui`.
"""

from ._version import __version__

_CORE = ("Capture", "CaptureStopped", "DeviceUnavailableError", "ErrorReport", "GradexplorerError", "TensorRecord",
         "capture", "list_devices", "resolve_device")

__all__ = [*_CORE, "__version__"]


def __getattr__(name: str):
    """The core's names, loaded on first use: ``gradexplorer --help`` does not import torch."""
    if name in _CORE:
        from . import core

        value = getattr(core, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

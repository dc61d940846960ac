"""gradexplorer: see what autograd really does with your PyTorch code.

The public API is Qt-free: importing :mod:`gradexplorer` never imports
PySide6, so it works in scripts, notebooks and tests without a display.
The desktop app lives in :mod:`gradexplorer.ui`.
"""

from ._version import __version__
from .core import (
    Capture,
    CaptureStopped,
    DeviceUnavailableError,
    ErrorReport,
    GradexplorerError,
    TensorRecord,
    capture,
    list_devices,
    resolve_device,
)

__all__ = [
    "Capture",
    "CaptureStopped",
    "DeviceUnavailableError",
    "ErrorReport",
    "GradexplorerError",
    "TensorRecord",
    "__version__",
    "capture",
    "list_devices",
    "resolve_device",
]

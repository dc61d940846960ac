"""gradexplorer: see what autograd really does with your PyTorch code.

The public API is Qt-free: importing :mod:`gradexplorer` never imports
PySide6, so it works in scripts, notebooks and tests without a display.
The desktop app lives in :mod:`gradexplorer.ui`.
"""

__version__ = "0.1.0"

from .core import (  # noqa: E402  (the version must exist before the core imports it)
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

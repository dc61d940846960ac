"""The Qt-free core: capture, graph, tensor records, devices.

Only torch, networkx and the standard library are imported here (a test
enforces that PySide6 is never imported, directly or indirectly).
"""

from .capture import Capture, PassSummary, TensorInfo, capture
from .devices import DeviceInfo, available_devices, list_devices, resolve_device
from .errors import CaptureStopped, DeviceUnavailableError, ErrorReport, GradexplorerError, SnapshotError
from .tensors import TensorRecord, TensorStats

__all__ = [
    "Capture",
    "CaptureStopped",
    "DeviceInfo",
    "DeviceUnavailableError",
    "ErrorReport",
    "GradexplorerError",
    "PassSummary",
    "SnapshotError",
    "TensorInfo",
    "TensorRecord",
    "TensorStats",
    "available_devices",
    "capture",
    "list_devices",
    "resolve_device",
]

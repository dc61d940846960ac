"""The Qt-free core: records, graph, analysis, capture, io, the isolated engine (see the README's code map).

Only torch, networkx and the standard library are imported here (a test
enforces that PySide6 is never imported, directly or indirectly).
"""

from .capture.devices import DeviceInfo, available_devices, list_devices, resolve_device
from .capture.script import ScriptRun
from .io.session import load_session, save_session
from .pipeline import capture
from .records.capture import Capture, PassSummary, TensorInfo
from .records.errors import CaptureStopped, DeviceUnavailableError, DocumentError, ErrorReport, GradexplorerError
from .records.tensors import TensorRecord, TensorStats

__all__ = [
    "Capture",
    "CaptureStopped",
    "DeviceInfo",
    "DeviceUnavailableError",
    "DocumentError",
    "ErrorReport",
    "GradexplorerError",
    "PassSummary",
    "ScriptRun",
    "TensorInfo",
    "TensorRecord",
    "TensorStats",
    "available_devices",
    "capture",
    "list_devices",
    "load_session",
    "resolve_device",
    "save_session",
]

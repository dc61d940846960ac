"""Which devices can run user code here, and why the others cannot.

Used by the capture (to refuse a missing device *before* any user code runs)
and by the GUI's device picker (to list what exists and explain what does not).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..records.errors import DeviceUnavailableError
from ..records.phrases import Phrase, phrase

__all__ = ["DeviceInfo", "available_devices", "list_devices", "resolve_device"]


@dataclass(frozen=True)
class DeviceInfo:
    """One entry of the device picker.

    Attributes
    ----------
    name : str
        What to pass to ``capture(device=...)``: ``"cpu"``, ``"cuda:0"``, ``"mps"``.
    label : str
        Human text, e.g. ``"cuda:0 - NVIDIA H200"``.
    available : bool
    reason : str
        Why it is not available (empty when it is).
    """

    name: str
    label: str
    available: bool
    reason: Phrase | str = ""


def _cuda_reason() -> Phrase:
    if torch.version.cuda is None:
        return phrase("this PyTorch build ({version}) has no CUDA support", version=torch.__version__)
    return phrase("no CUDA GPU is visible (driver missing or CUDA_VISIBLE_DEVICES hides them)")


def _mps_reason() -> Phrase:
    backend = getattr(torch.backends, "mps", None)
    if backend is None or not backend.is_built():
        return phrase("MPS exists only on Apple-silicon Macs with an MPS-enabled PyTorch")
    return phrase("MPS is built in but not usable on this machine (needs macOS 12.3+ on Apple silicon)")


def list_devices() -> list[DeviceInfo]:
    """Every device kind gradexplorer knows, available or not, in picker order.

    Returns
    -------
    list of DeviceInfo
        ``cpu`` first, then each ``cuda:N`` (or one unavailable ``cuda`` entry
        with the reason), then ``mps``.
    """
    devices = [DeviceInfo("cpu", "cpu", True)]
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            devices.append(DeviceInfo(f"cuda:{index}", f"cuda:{index} - {torch.cuda.get_device_name(index)}", True))
    else:
        devices.append(DeviceInfo("cuda", "cuda", False, _cuda_reason()))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append(DeviceInfo("mps", "mps - Apple GPU", True))
    else:
        devices.append(DeviceInfo("mps", "mps", False, _mps_reason()))
    return devices


def available_devices() -> list[str]:
    """Names of the devices that can run code here, e.g. ``["cpu", "cuda:0"]``."""
    return [d.name for d in list_devices() if d.available]


def resolve_device(spec: str | torch.device) -> torch.device:
    """Turn ``"cuda"``, ``"cuda:1"``, ``"mps"``... into a usable ``torch.device``.

    Parameters
    ----------
    spec : str or torch.device

    Returns
    -------
    torch.device
        With an explicit index for CUDA (``"cuda"`` means ``cuda:0``).

    Raises
    ------
    DeviceUnavailableError
        When the device is malformed or absent; the message lists the
        devices that do exist.
    """
    present = ", ".join(available_devices())
    try:
        device = torch.device(spec)
    except (RuntimeError, TypeError) as exc:
        raise DeviceUnavailableError(phrase("{spec} is not a device name ({error}). Devices present: {present}",
                                            spec=repr(spec), error=str(exc), present=present)) from None
    if device.type == "cpu":
        return torch.device("cpu")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceUnavailableError(phrase("{spec} is not available: {why}. Devices present: {present}",
                                                spec=str(spec), why=_cuda_reason(), present=present))
        index = 0 if device.index is None else device.index
        count = torch.cuda.device_count()
        if index >= count:
            raise DeviceUnavailableError(phrase(
                "{spec} is not available: this machine has {count} CUDA device(s). Devices present: {present}",
                spec=str(spec), count=count, present=present))
        return torch.device("cuda", index)
    if device.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise DeviceUnavailableError(phrase("{spec} is not available: {why}. Devices present: {present}",
                                                spec=str(spec), why=_mps_reason(), present=present))
        return torch.device("mps")
    raise DeviceUnavailableError(phrase("{spec} is not a device gradexplorer runs code on. Devices present: {present}",
                                        spec=str(spec), present=present))

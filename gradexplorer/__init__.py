"""gradexplorer: see what autograd really does with your PyTorch code.

The public API is Qt-free: importing :mod:`gradexplorer` never imports
PySide6, so it works in scripts, notebooks and tests without a display.
The desktop app lives in :mod:`gradexplorer.ui`.

Stable names (``__all__``), documented in ``docs/api.md``:

* :func:`record` (``with gradexplorer.record() as rec: ...``) and
  :func:`show` (``gradexplorer.show(loss)``), giving a :class:`Recording`;
* :func:`compare` (two recordings, captures or sessions side by side: a :class:`Comparison`);
* :func:`capture` (run a program's text, as the app does) and the records
  it returns (:class:`Capture`, :class:`TensorRecord`, :class:`ErrorReport`);
* :func:`load_session` / :func:`save_session` for ``.gxsession`` files;
* :class:`ScriptRun` (arguments and working folder of a run);
* the devices (:func:`list_devices`, :func:`resolve_device`) and the errors.
"""

from ._version import __version__

_CORE = ("Capture", "CaptureStopped", "DeviceUnavailableError", "DocumentError", "ErrorReport", "GradexplorerError",
         "ScriptRun", "TensorRecord", "capture", "list_devices", "load_session", "resolve_device", "save_session")
_RECORDING = ("Comparison", "Recording", "compare", "record", "show")

__all__ = [*_CORE, *_RECORDING, "__version__"]


def __getattr__(name: str):
    """The API's names, loaded on first use: ``gradexplorer --help`` does not import torch."""
    if name in _CORE:
        from . import core

        value = getattr(core, name)
    elif name in _RECORDING:
        from . import recording

        value = getattr(recording, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

"""Qt calls that belong to the GUI thread, refused with a sentence when a program makes them from the worker.

The user's code runs in the app's process, in a worker thread (the default
engine). A program that made a widget there (``QLabel("hi").show()``)
crashed the app with a segmentation fault, and one that called
``QApplication.instance().quit()`` ended the app's event loop under a running
worker and froze it. Qt forbids both outside the GUI thread but does not
check in a release build. :func:`guard_gui_thread` wraps every widget class's
constructor and the application's ``quit``/``exit`` so that, called from any
other thread, they raise a :class:`RuntimeError` that says why and what to do
instead; on the GUI thread they are what they were. The wrapper costs one
thread comparison per widget made, never anything per tensor op.
"""

from __future__ import annotations

import functools

from PySide6 import QtWidgets
from PySide6.QtCore import QCoreApplication, QThread
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from .language import translator_for

__all__ = ["guard_gui_thread", "on_gui_thread"]

_tr = translator_for(__name__)

_GUARDED = "_gradexplorer_gui_thread_guard"


def on_gui_thread() -> bool:
    """True in the thread that runs the application's event loop (or before there is an application)."""
    app = QCoreApplication.instance()
    return app is None or QThread.currentThread() is app.thread()


def _refuse(what: str) -> RuntimeError:
    return RuntimeError(
        _tr("{what} was refused: the program runs in gradexplorer's worker thread, and Qt lets only the app's "
            "GUI thread make widgets or end the application (it crashed or froze the app). Run the program in "
            "the isolated engine (the Engine box: isolated process), where it has a process of its own, or "
            "outside gradexplorer.").format(what=what))


def _guarded_init(cls: type, original):
    @functools.wraps(original)
    def __init__(self, *args, **kwargs):  # noqa: N807 - replaces a constructor
        if not on_gui_thread():
            raise _refuse(_tr("Making a {name}").format(name=cls.__name__))
        original(self, *args, **kwargs)

    setattr(__init__, _GUARDED, True)
    return __init__


def _guarded_static(name: str, original):
    @functools.wraps(original)
    def call(*args, **kwargs):
        if not on_gui_thread():
            raise _refuse(f"QApplication.{name}()")
        return original(*args, **kwargs)

    setattr(call, _GUARDED, True)
    return staticmethod(call)


def guard_gui_thread() -> int:
    """Install the guards (once; later calls do nothing); returns how many callables were wrapped."""
    wrapped = 0
    for name in dir(QtWidgets):
        cls = getattr(QtWidgets, name)
        if isinstance(cls, type) and issubclass(cls, QWidget) and "__init__" in cls.__dict__:
            original = cls.__dict__["__init__"]
            if not getattr(original, _GUARDED, False):
                cls.__init__ = _guarded_init(cls, original)
                wrapped += 1
    for cls in (QCoreApplication, QGuiApplication, QApplication):
        for name in ("quit", "exit"):
            original = cls.__dict__.get(name)
            if original is not None and not getattr(getattr(original, "__func__", original), _GUARDED, False):
                setattr(cls, name, _guarded_static(name, getattr(cls, name)))
                wrapped += 1
    return wrapped

"""The user's own files: the program and the modules it imports from its folder tree.

A training script is rarely one file: ``train.py`` imports ``model.py`` and
``data/loader.py`` from beside it, and the ops a user wants to see are made in
``model.py``'s ``forward``. :class:`Project` tells which frames are the
user's code:

* the program itself (its compile filename: the script's path, or
  ``"<editor>"``);
* every other Python file under the project folder (the script's folder,
  ``sys.path[0]``), except what lies under the standard library,
  site-packages (a virtual environment inside the project included), torch
  and gradexplorer itself.

Each file of the second kind is shown by its path relative to the project
folder (``pkg/model.py``), the ``file`` of a
:class:`~gradexplorer.core.records.source.SourceLine`. The text of each file is
read once, when a frame of it is first seen, so that a session keeps the
lines that ran (:attr:`Project.texts`).

:func:`fresh_project_modules` makes the project's modules the user's code
in the import system too: they are imported afresh on every run (an edit to
``model.py`` is seen by the next Run, as with ``python train.py``) with the
same source rewrite as the program (node hooks registered there are seen,
:func:`~gradexplorer.core.capture.recording.rewrite_node_hook_calls`), and
removed from ``sys.modules`` afterwards. The modules a run did not import
from the project (torch, numpy, the standard library) stay imported, as
they would in a fresh interpreter that has imported them once.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.machinery
import os
import site
import sys
import sysconfig
import threading
import weakref
from collections.abc import Iterator

import torch

from .recording import HOOK_HELPER_NAME, FileLine, route_node_hook, rewrite_node_hook_calls
from .script import is_file_name

__all__ = ["FileLine", "Project", "fresh_project_modules", "library_folders"]

#: Project files kept in a capture (characters, all files together); past it a file's text is not kept.
MAX_KEPT_TEXT = 4_000_000


def library_folders() -> tuple[str, ...]:
    """Folders whose files are never the user's: the standard library, site-packages, torch, gradexplorer."""
    paths = sysconfig.get_paths()
    folders = [paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    with contextlib.suppress(Exception):  # site may be trimmed in embedded interpreters
        folders.extend(site.getsitepackages())
    with contextlib.suppress(Exception):
        folders.append(site.getusersitepackages())
    folders.append(os.path.dirname(torch.__file__))
    folders.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # gradexplorer
    result = []
    for folder in folders:
        if folder:
            real = os.path.realpath(folder)
            result.append(real.rstrip(os.sep) + os.sep)
    return tuple(dict.fromkeys(result))


_LIBRARY_FOLDERS: tuple[str, ...] | None = None
#: ``(project folders, path) -> whether the path is the project's`` (see :meth:`Project.owns_path`).
_OWNED: dict[tuple[tuple[str, ...], str], bool] = {}


def _library_folders() -> tuple[str, ...]:
    global _LIBRARY_FOLDERS
    if _LIBRARY_FOLDERS is None:
        _LIBRARY_FOLDERS = library_folders()
    return _LIBRARY_FOLDERS


class Project:
    """Which frames are the user's code, and how their files are shown.

    Parameters
    ----------
    filename : str
        The program's compile filename.
    roots : sequence of str
        Project folders: files under any of them (outside the library
        folders) are the user's, shown relative to the innermost one that
        holds them. The first one is :attr:`root`.
    """

    def __init__(self, filename: str, roots) -> None:
        self.filename = filename
        self.roots = tuple(os.path.realpath(r).rstrip(os.sep) + os.sep for r in roots if r)
        # The folders as given too: paths under them are only then resolved (symlinks), the rest is
        # told apart by their text alone (a run asks about every imported module, 1,500 with torch).
        self._prefixes = tuple(dict.fromkeys([*self.roots, *(os.path.abspath(r).rstrip(os.sep) + os.sep
                                                             for r in roots if r)]))
        #: ``co_filename`` -> shown path (``"pkg/model.py"``), or None when it is not the user's
        #: (files seen so far; the recorder reads it directly on its hot path).
        self.known_files: dict[str, str | None] = {}
        #: Shown path -> the file's text as it was when the run first reached it.
        self.texts: dict[str, str] = {}
        self._kept = 0
        self._lock = threading.Lock()

    @property
    def root(self) -> str:
        """The project folder files are shown relative to ("" when there is none)."""
        return self.roots[0].rstrip(os.sep) if self.roots else ""

    def shown_path(self, co_filename: str) -> str | None:
        """The shown path of a frame's file when it is a project file other than the program; else None."""
        shown = self.known_files.get(co_filename, False)
        if shown is False:
            shown = self._classify(co_filename)
        return shown

    def is_user_file(self, co_filename: str) -> bool:
        """Whether a frame with this ``co_filename`` runs the user's code (the program or a project file)."""
        return co_filename == self.filename or self.shown_path(co_filename) is not None

    def owns_path(self, path: str | None) -> bool:
        """Whether a file or folder lies in the project, outside the library folders.

        Answers are remembered across runs (:data:`_OWNED`): whether a module's
        file is the user's does not change between two Runs of a project.
        """
        # Only real paths: a built-in or frozen module's origin is "built-in" / "frozen", a name, not a file.
        if not path or not self.roots or not is_file_name(path) or not os.path.isabs(path):
            return False
        key = (self._prefixes, path)
        owned = _OWNED.get(key)
        if owned is None:
            owned = self._owns(path)
            if len(_OWNED) > 50_000:
                _OWNED.clear()
            _OWNED[key] = owned
        return owned

    def _owns(self, path: str) -> bool:
        libraries = _library_folders()
        if path.startswith(libraries) or not path.startswith(self._prefixes):
            return False
        real = os.path.realpath(path)
        probe = real + (os.sep if os.path.isdir(real) else "")
        if not probe.startswith(self.roots):
            return False
        return not probe.startswith(libraries)

    def _classify(self, co_filename: str) -> str | None:
        shown = None
        if co_filename != self.filename and co_filename.endswith((".py", ".pyw")) and self.owns_path(co_filename):
            real = os.path.realpath(co_filename)
            root = max((r for r in self.roots if real.startswith(r)), key=len)  # the innermost folder holding it
            shown = os.path.relpath(real, root).replace(os.sep, "/")
            self._keep_text(shown, real)
        with self._lock:
            self.known_files[co_filename] = shown
        return shown

    def _keep_text(self, shown: str, path: str) -> None:
        from .script import read_script  # the same decoding as the program's

        try:
            text = read_script(path)
        except OSError:
            return
        with self._lock:
            if self._kept + len(text) <= MAX_KEPT_TEXT:
                self.texts[shown] = text
                self._kept += len(text)

    def owns_module(self, module) -> bool:
        """Whether an imported module is one of the project's (its file or package folder is in it)."""
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None) or getattr(module, "__file__", None)
        if origin and self.owns_path(origin):
            return True
        locations = getattr(spec, "submodule_search_locations", None) or ()
        return bool(origin is None or origin == "namespace") and any(self.owns_path(p) for p in list(locations))


class _ProjectLoader(importlib.machinery.SourceFileLoader):
    """Loads a project module as the program is compiled: node-hook calls rewritten, never from a stale .pyc."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)

    def source_to_code(self, data, path, *, _optimize=-1):  # noqa: D102 - importlib API
        tree = ast.parse(data, filename=path)  # bytes: the coding line is honoured
        return compile(rewrite_node_hook_calls(tree), path, "exec", dont_inherit=True, optimize=_optimize)

    def exec_module(self, module) -> None:
        module.__dict__[HOOK_HELPER_NAME] = route_node_hook
        super().exec_module(module)


class _ProjectFinder(importlib.abc.MetaPathFinder):
    """Finds modules as the path finder does and loads the project's own with :class:`_ProjectLoader`."""

    def __init__(self, project: Project) -> None:
        self.project = project

    def find_spec(self, fullname, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        if not self.project.owns_path(spec.origin):
            return spec
        spec.loader = _ProjectLoader(fullname, spec.origin)
        return spec


#: ``module name -> (weak reference to the module, project folders, whether it is the project's)``: the
#: answer for the same module object and the same project is reused by the next run (the scan of
#: ``sys.modules`` at each run's start and end costs a dictionary lookup a module, not a path check).
_MODULES: dict[str, tuple] = {}


def _owned(project: Project, name: str, module) -> bool:
    entry = _MODULES.get(name)
    if entry is not None and entry[1] == project._prefixes and entry[0]() is module:
        return entry[2]
    owned = name != "__main__" and project.owns_module(module)
    try:
        _MODULES[name] = (weakref.ref(module), project._prefixes, owned)
    except TypeError:  # an object in sys.modules that takes no weak reference
        pass
    return owned


@contextlib.contextmanager
def fresh_project_modules(project: Project) -> Iterator[None]:
    """Import the project's modules afresh during the run and forget them afterwards.

    Modules of the project that were imported before (by an earlier run that
    left a thread holding them, or by the host process) are set aside and
    put back when the run ends, so the run imports its own copies.
    """
    # Not __main__: the program's own module (its __file__ is the script, in the project) is the caller's.
    # sys.modules.copy(), not list(sys.modules.items()): a copy is one C call, while a list built item by item
    # can let a collection's finalizers run, and with them another capture's thread importing (a test's two
    # threads did: "dictionary changed size during iteration").
    set_aside = {name: module for name, module in sys.modules.copy().items() if _owned(project, name, module)}
    for name in set_aside:
        sys.modules.pop(name, None)
    before = set(sys.modules.copy())
    finder = _ProjectFinder(project)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
        for name, module in sys.modules.copy().items():
            if name not in before and name != "__main__" and project.owns_module(module):
                sys.modules.pop(name, None)
                _MODULES.pop(name, None)
        for name, module in set_aside.items():
            sys.modules.setdefault(name, module)

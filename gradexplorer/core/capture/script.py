"""Start a program as ``python SCRIPT ARGS...`` would: its file, arguments, folder and ``__main__``.

People debug ``train.py`` as they run it: ``python train.py --lr 0.1`` from
the project's folder, with ``from model import Net`` beside it and
``argparse`` reading ``sys.argv``. :class:`ScriptRun` says how a program is
started; :func:`started_as_script` gives it, for the length of the run,
what CPython's ``python SCRIPT`` gives a script (``runpy.run_path`` does the
same for ``python -m runpy``):

* ``sys.argv == [SCRIPT, *ARGS]`` (``["<editor>", *ARGS]`` for editor text
  that never came from a file, as ``python -c`` gives ``["-c", ...]``);
* ``sys.path[0]`` is the script's folder (the working folder for editor
  text), so the project's own modules import;
* ``sys.modules["__main__"]`` is a module whose ``__dict__`` is the
  program's namespace (``pickle``, ``dataclasses`` and ``typing.get_type_hints``
  look a class up there), with ``__file__`` set when there is a file;
* the working directory is the run's working folder (the script's own
  folder by default, as a user running it from its folder would expect);
* the program's text is what :mod:`linecache` gives for its file name, so
  ``inspect.getsource`` and warnings show the text that ran (the editor's,
  which may differ from the file on disk).

Everything is put back when the run ends (the rest of the process's state is
:mod:`~gradexplorer.core.capture.process_state`'s). :func:`read_script`
decodes a file as Python does (PEP 263 ``coding:`` lines, a UTF-8 BOM).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import linecache
import os
import sys
import tokenize
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..records.errors import GradexplorerError

__all__ = ["ScriptRun", "checked_working_folder", "is_file_name", "read_script", "started_as_script"]


def is_file_name(filename: str) -> bool:
    """Whether a compile filename names a file (``"/p/train.py"``), not a pseudo-file (``"<editor>"``)."""
    return bool(filename) and not (filename.startswith("<") and filename.endswith(">"))


@dataclass(frozen=True)
class ScriptRun:
    """How a program is started: the arguments after the script and the folder it runs in.

    Attributes
    ----------
    args : tuple of str
        ``sys.argv[1:]``: what would follow ``python SCRIPT`` on a command line.
    cwd : str or None
        The working folder; None: the script's own folder (editor text that
        never came from a file: the process's current folder).
    """

    args: tuple[str, ...] = ()
    cwd: str | None = None

    def working_folder(self, filename: str) -> str:
        """The folder the program runs in (absolute)."""
        if self.cwd:
            return os.path.abspath(self.cwd)
        if is_file_name(filename):
            return os.path.dirname(os.path.abspath(filename))
        return os.getcwd()

    def project_folder(self, filename: str) -> str:
        """``sys.path[0]`` for the run: the script's folder, or the working folder for editor text.

        The project's own modules are the ones under this folder.
        """
        if is_file_name(filename):
            return os.path.dirname(os.path.abspath(filename))
        return self.working_folder(filename)

    def argv(self, filename: str) -> list[str]:
        """``sys.argv`` as ``python SCRIPT ARGS`` gives it."""
        return [filename, *self.args]


def read_script(path: str | os.PathLike) -> str:
    """The text of a Python file, decoded as the interpreter decodes it.

    A PEP 263 ``# -*- coding: cp950 -*-`` line (first or second line) or a
    UTF-8 byte order mark says the encoding; otherwise UTF-8.

    Raises
    ------
    OSError
        The file cannot be read, or its bytes are not text in its encoding
        (the message says which encoding and where; callers name the file).
    """
    data = Path(path).read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # bytes that are not UTF-8 with no coding line, an unknown codec, a BOM that disagrees
        why = str(exc.msg if hasattr(exc, "msg") else exc).split(" for ")[0]
        if why.startswith("unknown encoding"):
            raise OSError(f"its coding line names an encoding Python does not know ({why})") from None
        if why.startswith("encoding problem"):
            raise OSError(f"its UTF-8 byte order mark and its coding line disagree ({why})") from None
        raise OSError(f"it is not UTF-8 text, and no '# -*- coding: ... -*-' line says which encoding it is in "
                      f"({why})") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise OSError(f"it is not {encoding} text ({exc.reason} at byte {exc.start})") from None
    # As the tokenizer does: universal newlines, and the BOM is not part of the text.
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def checked_working_folder(run: ScriptRun, filename: str) -> str:
    """The run's working folder; :class:`GradexplorerError` when it is not a folder one can run in."""
    folder = run.working_folder(filename)
    if not os.path.isdir(folder):
        raise GradexplorerError(f"the working folder {folder} does not exist (Run > Working Folder… or --cwd sets "
                                f"another); nothing was run")
    return folder


@contextlib.contextmanager
def started_as_script(run: ScriptRun, *, filename: str, code: str) -> Iterator[dict]:
    """Give the program ``python SCRIPT ARGS``'s process state; put everything back afterwards.

    Parameters
    ----------
    run : ScriptRun
    filename : str, keyword-only
        The program's compile filename: its path when it came from a file.
    code : str, keyword-only
        The program's text, registered with :mod:`linecache` under ``filename``.

    Yields
    ------
    dict
        The program's globals: the ``__dict__`` of the run's ``__main__``
        module, holding ``__name__``, ``__file__`` (for a file), ``__builtins__``.

    Raises
    ------
    GradexplorerError
        The working folder does not exist or cannot be entered; nothing ran.

    Notes
    -----
    ``sys.argv``, ``sys.path``, ``sys.modules["__main__"]`` and the working
    directory are process-wide: in thread mode other threads see them during
    the run (the app's own threads use none of them).
    """
    folder = checked_working_folder(run, filename)
    main = types.ModuleType("__main__")
    namespace = main.__dict__
    namespace["__builtins__"] = builtins
    if is_file_name(filename):
        namespace["__file__"] = filename
    saved_argv, saved_path = sys.argv, list(sys.path)
    saved_main = sys.modules.get("__main__")
    try:
        saved_cwd = os.getcwd()
    except OSError:  # the folder we ran in was removed
        saved_cwd = None
    saved_lines = linecache.cache.get(filename)
    try:
        os.chdir(folder)
    except OSError as exc:
        raise GradexplorerError(f"cannot run in {folder}: {exc.strerror or exc}; nothing was run") from None
    sys.argv = run.argv(filename)
    sys.path.insert(0, run.project_folder(filename))
    sys.modules["__main__"] = main
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    try:
        yield namespace
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        else:
            sys.modules.pop("__main__", None)
        if saved_lines is not None:
            linecache.cache[filename] = saved_lines
        else:
            linecache.cache.pop(filename, None)
        if saved_cwd is not None:
            with contextlib.suppress(OSError):
                os.chdir(saved_cwd)

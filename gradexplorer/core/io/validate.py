"""Typed reading of untrusted JSON: every check of a session or capture document goes through here.

Opening a file must never trust it: a value of the wrong type, a name a million
characters long or a nesting too deep is refused with one sentence naming
where in the document it is (:class:`~gradexplorer.core.records.errors.DocumentError`).
Places are kept as nested pairs and formatted only when something is wrong
(see :func:`_at`), because a 10,000-node session has a million of them.
"""

from __future__ import annotations

from ..records.errors import DocumentError
from ..records.phrases import phrase

__all__ = ["MAX_NAME_CHARS"]

#: Longest name, op, id, path or other short text a session may hold (code, output and messages may be longer).
MAX_NAME_CHARS = 65_536


class _Reader:
    """Typed access to untrusted JSON with a path for error messages."""

    def fail(self, path, expected: str) -> DocumentError:
        # The place and what it should be are the file's facts (a JSON path, a type's English name).
        return DocumentError(phrase("not a valid session: {where} should be {expected}",
                                    where=_at(path) or "the document", expected=expected))

    def obj(self, value, path: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, "an object")
        return value

    def key(self, d: dict, name: str, path: str):
        if name not in d:
            raise DocumentError(phrase("not a valid session: {where} lacks '{name}'", where=_at(path) or "the document",
                                       name=name))
        return d[name]

    def str_(self, value, path: str, *, optional: bool = False, long: bool = False) -> str | None:
        """Text; at most :data:`MAX_NAME_CHARS` characters unless ``long`` (code, output, messages, files).

        A name, an op or an id millions of characters long is no capture's:
        a 10-million-character op name froze the app for 38 s while it was
        measured and drawn.
        """
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self.fail(path, "text")
        if not long and len(value) > MAX_NAME_CHARS:
            raise DocumentError(f"not a valid session: {_at(path) or 'the document'} is {len(value):,} characters "
                                f"long (a name, an op or an id is at most {MAX_NAME_CHARS:,})")
        return value

    def int_(self, value, path: str, *, optional: bool = False) -> int | None:
        if value is None and optional:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(path, "an integer")
        return value

    def bool_(self, value, path: str, *, optional: bool = False) -> bool | None:
        if value is None and optional:
            return None
        if not isinstance(value, bool):
            raise self.fail(path, "true or false")
        return value

    def num(self, value, path: str, *, optional: bool = False):
        if type(value) is float or type(value) is int:  # the common case first (opening is per number)
            return value
        if value is None and optional:
            return None
        if isinstance(value, str) and value in ("nan", "inf", "-inf"):
            return float(value)
        if isinstance(value, list) and len(value) == 2:  # complex
            return complex(self.num(value[0], path), self.num(value[1], path))
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise self.fail(path, "a number")
        return value

    def list_(self, value, path: str) -> list:
        if not isinstance(value, list):
            raise self.fail(path, "a list")
        return value

    def nums(self, value, path: str) -> tuple:
        """A list of numbers (see :meth:`num`) as a tuple; one type check per item when all are plain."""
        items = self.list_(value, path)
        if all(type(v) is float or type(v) is int for v in items):
            return tuple(items)
        return tuple(self.num(v, path) for v in items)

    def elements(self, value, path: str) -> tuple:
        """A tensor's values as a list: numbers (see :meth:`num`), or true/false for a bool tensor."""
        items = self.list_(value, path)
        return tuple(v if type(v) is bool else self.num(v, path) for v in items)

    def strs(self, value, path: str, *, long: bool = False) -> tuple[str, ...]:
        items = self.list_(value, path)
        if all(type(v) is str and (long or len(v) <= MAX_NAME_CHARS) for v in items):
            return tuple(items)
        return tuple(self.str_(v, (path, i), long=long) for i, v in enumerate(items))


_R = _Reader()


def _flatten(values, shape: tuple[int, ...], path: str) -> list:
    """Flatten nested lists exactly ``len(shape)`` deep, checking every length."""
    if not shape:
        return [values]
    flat = []
    stack = [(values, 0)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, list) or len(item) != shape[depth]:
            raise DocumentError(f"not a valid session: {path}.values does not match its shape {list(shape)}")
        if depth == len(shape) - 1:
            flat.extend(item)
        else:
            stack.extend((child, depth + 1) for child in reversed(item))
    return flat


def _at(path) -> str:
    """A place in the document, for error messages.

    ``path`` is text, or a pair ``(parent, index)`` (``parent[index]``) or
    ``(parent, suffix)`` (``parent`` + ``suffix``, e.g. ``".grads"``), nested
    as deep as needed. Opening a 10,000-node session reads 80,000 records and
    every field of every node; formatting each place up front (about twenty
    f-strings a node) was a third of the time, so places are formatted only
    when something is wrong.
    """
    parts = []
    while not isinstance(path, str):
        path, last = path
        parts.append(f"[{last}]" if isinstance(last, int) else last)
    return path + "".join(reversed(parts))


_PLAIN = frozenset({float, int})
_PLAIN_OR_NONE = frozenset({float, int, type(None)})


def _severity(value, path: str) -> str:
    value = _R.str_(value, path)
    if value not in ("problem", "note", "ok"):
        raise _R.fail(path, "problem, note or ok")
    return value


def _by_pass(d, path, read) -> dict:
    """A node's ``{pass number: value}`` (JSON keys are text), each value checked by ``read`` (``_R.int_``, ...)."""
    found = {}
    for key, value in _R.obj(d, path).items():
        if not key.isdigit():
            raise _R.fail(path, "keyed by pass numbers")
        found[int(key)] = read(value, (path, f".{key}"))
    return found


def _grad_order(d, path: str) -> dict[int, int]:
    return _by_pass(d, path, _R.int_)


def _each(items: list, *, consume: bool):
    """``enumerate(items)``; with ``consume``, each item leaves the list as it is handed out.

    A caller that owns a parsed document frees it item by item this way:
    freeing a 50,000-node document at once is one cascade of deallocations
    that holds the GIL for 0.3 s (a frozen window while a job opens it).
    """
    for i in range(len(items)):
        item = items[i]
        if consume:
            items[i] = None
        yield i, item


def _json_int(text: str) -> int:
    """An integer of the document; only the 64-bit range is accepted.

    The JSON-lines members are read by orjson, which turns integers outside
    [-2**63, 2**64) into floats: refusing them here too keeps "every document
    that opens can be saved and opened again, unchanged" true for both readers.
    """
    value = int(text)
    if not -(1 << 63) <= value < (1 << 64):
        raise ValueError(f"the integer {text if len(text) <= 24 else text[:24] + '…'} does not fit in 64 bits")
    return value

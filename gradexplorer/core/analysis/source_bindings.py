"""Which statements of the user's source bind a name, and in which function they run.

The explanations quote the statement that made a second name of a tensor
(``w = model.fc.weight``, ``for p in model.parameters():``). A name is
bound in many places of a real project: ``data`` is a parameter of
``batchify()``, a local of ``get_batch()`` and of ``train()``. What the
capture names carries the function it was read in (``data`` in
``batchify()``: the ``co_qualname`` of the frame, with ``()``), so each
binding here carries the same: the qualified name of the code object its
statement runs in, ``""`` at module level. A statement of another function
is never quoted for it.

Qualified names follow Python's ``__qualname__``: ``batchify``,
``RNNModel.forward``, ``main.<locals>.step``, ``f.<locals>.<lambda>``,
``repackage_hidden.<locals>.<genexpr>``; list, set and dict comprehensions
have a scope of their own before Python 3.12 and run in the enclosing
function from 3.12 on (PEP 709), as their frames do.

Parsed once per text and kept for the last few texts: the explanations of a
1,700-layer model ask for thousands of names.
"""

from __future__ import annotations

import ast
import sys

__all__ = ["Binding", "bindings", "parsed", "plain_assignments", "scoped_nodes"]

#: ``(how, line, text)``: see :func:`bindings`.
Binding = tuple[str, int, str]

#: Comprehensions with a code object (and so a frame and a qualified name) of their own.
_OWN_SCOPE_COMPREHENSIONS: tuple[type, ...] = (ast.GeneratorExp,) if sys.version_info >= (3, 12) else (
    ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)
_COMPREHENSION_NAMES = {ast.GeneratorExp: "<genexpr>", ast.ListComp: "<listcomp>", ast.SetComp: "<setcomp>",
                        ast.DictComp: "<dictcomp>"}
_KEPT_TEXTS = 8

_parse_cache: dict[str, ast.Module | None] = {}
_assignments_cache: dict[str, dict[tuple[str, str, str], int]] = {}
_bindings_cache: dict[str, dict[tuple[str, str], list[Binding]]] = {}


def _remember(cache: dict, key: str, value):
    if len(cache) > _KEPT_TEXTS:
        cache.clear()
    cache[key] = value
    return value


def parsed(code: str) -> ast.Module | None:
    """The text's syntax tree, or None when it does not parse."""
    if code not in _parse_cache:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            tree = None
        _remember(_parse_cache, code, tree)
    return _parse_cache[code]


def scoped_nodes(tree: ast.AST):
    """Every node of ``tree`` with the qualified name of the code object it runs in (``""``: module level).

    Iterative (a deeply nested expression does not reach the recursion
    limit), parents before children.
    """
    stack: list[tuple[ast.AST, str, str]] = [(tree, "", "")]  # node, its scope, the prefix of names defined in it
    while stack:
        node, scope, prefix = stack.pop()
        yield node, scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            name = prefix + ("<lambda>" if isinstance(node, ast.Lambda) else node.name)
            inner = (name, name + ".<locals>.")
        elif isinstance(node, ast.ClassDef):
            name = prefix + node.name
            inner = (name, name + ".")
        elif isinstance(node, _OWN_SCOPE_COMPREHENSIONS):
            name = prefix + _COMPREHENSION_NAMES[type(node)]
            inner = (name, name + ".<locals>.")
        else:
            inner = (scope, prefix)
        for child in reversed(list(ast.iter_child_nodes(node))):
            stack.append((child, *inner))


def plain_assignments(code: str) -> dict[tuple[str, str, str], int]:
    """``(target, value, scope) -> line`` of every plain ``target = value`` between two names (the first in order).

    Built once per text: asked per tensor object, one walk of the whole tree
    each time was most of the explanations of a 1,700-layer model.
    """
    found = _assignments_cache.get(code)
    if found is None:
        found = {}
        tree = parsed(code)
        for node, scope in scoped_nodes(tree) if tree is not None else ():
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault((target.id, node.value.id, scope), node.lineno)
        _remember(_assignments_cache, code, found)
    return found


def bindings(code: str) -> dict[tuple[str, str], list[Binding]]:
    """``(name, scope) -> [(how, line, text)]``: the statements that bind each name in each function, in order.

    ``how`` is ``"loop"`` (a ``for`` or comprehension target), ``"with"``
    (``with ... as name``), ``"inplace"`` (``name = x.mul_(2)``: an in-place
    method returns its input object), ``"read"`` (``name = model.fc.weight``,
    ``name = pair[0]``: the value of an attribute, item or name) or
    ``"assign"`` (any other assignment). ``scope`` is the qualified name of
    the function the binding happens in (a comprehension's target: the
    comprehension's, where it has a frame of its own): a name of one
    function is looked up with its own, never with another's.
    """
    found = _bindings_cache.get(code)
    if found is None:
        found = {}
        tree = parsed(code)
        lines = code.splitlines()

        def note(target, how, node, scope):
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    text = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
                    found.setdefault((sub.id, scope), []).append((how, node.lineno, text))

        for node, scope in scoped_nodes(tree) if tree is not None else ():
            if isinstance(node, (ast.For, ast.AsyncFor)):
                note(node.target, "loop", node, scope)
            elif isinstance(node, ast.comprehension):  # a child of its comprehension: in its scope
                note(node.target, "loop", node.iter, scope)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        note(item.optional_vars, "with", node, scope)
            elif isinstance(node, ast.Assign):
                value = node.value
                inplace = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr.endswith("_") and not value.func.attr.endswith("__")
                # `w = model.fc.weight`, `x = batch[0]`, `y = x`: reading a stored object, no op at all.
                read = isinstance(value, (ast.Attribute, ast.Subscript, ast.Name))
                for target in node.targets:
                    note(target, "inplace" if inplace else "read" if read else "assign", node, scope)
        for entries in found.values():
            entries.sort(key=lambda entry: entry[1])
        _remember(_bindings_cache, code, found)
    return found

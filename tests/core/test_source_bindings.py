"""The function each binding statement runs in, read from the source, against what Python compiles it to.

The explanations quote a statement only from the function the name was read
in (its frame's ``co_qualname``), so :mod:`gradexplorer.core.analysis.source_bindings`
must name a statement's function exactly as Python does. The truth here is
the bytecode: every ``STORE_*`` of a name, with its line and the qualified
name of the code object that executes it.
"""

from __future__ import annotations

import ast
import dis
import textwrap
import types

from gradexplorer.core.analysis.source_bindings import bindings, plain_assignments

PROGRAM = textwrap.dedent("""\
    import torch
    data = torch.ones(3)
    def batchify(data, rows):
        data = data.view(rows, -1)
        return data
    def get_batch(source, i):
        data = source[i:i + 2]
        return data
    class RNNModel(torch.nn.Module):
        scale = 2
        def forward(self, x):
            w = self.weight
            parts = tuple(v * w for v in x)
            return parts
        def grads(self):
            def inner():
                found = [p.grad for p in self.parameters()]
                pick = lambda q: [k for k in q]
                return found, pick
            return inner()
    def repackage_hidden(h):
        return tuple(repackage_hidden(v) for v in h)
    def main():
        with torch.no_grad() as guard:
            for step in range(2):
                a, b = data, step
                alias = a
        table = {k: v for k, v in {"x": data}.items()}
        squares = {n * n for n in range(3)}
        return table, squares, alias, guard
    totals = [t for t in range(3)]
""")


def _stores(code: types.CodeType):
    """``(name, line, qualname)`` of every store of a name, in ``code`` and the code objects it makes."""
    found = set()
    stack = [code]
    while stack:
        current = stack.pop()
        for instruction in dis.get_instructions(current):
            if instruction.opname in ("STORE_NAME", "STORE_FAST", "STORE_DEREF", "STORE_GLOBAL") \
                    and instruction.positions is not None and instruction.positions.lineno is not None:
                qualname = "" if current.co_name == "<module>" else current.co_qualname
                found.add((instruction.argval, instruction.positions.lineno, qualname))
        stack.extend(const for const in current.co_consts if isinstance(const, types.CodeType))
    return found


def test_every_binding_is_placed_in_the_function_python_runs_it_in():
    truth = _stores(compile(PROGRAM, "train.py", "exec"))
    read = {(name, line, scope) for (name, scope), entries in bindings(PROGRAM).items() for _, line, _ in entries}
    assert read <= truth, sorted(read - truth)
    # Every store Python makes is one of them, but for the names an import, a def or a class binds.
    defined = {node.name for node in ast.walk(ast.parse(PROGRAM)) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    missing = {item for item in truth - read if item[0] not in defined | {"torch"} and not item[0].startswith("__")}
    assert missing == set(), sorted(missing)
    scopes = {scope for _, _, scope in read}
    assert {"", "batchify", "get_batch", "RNNModel.forward", "RNNModel.forward.<locals>.<genexpr>",
            "RNNModel.grads.<locals>.inner", "repackage_hidden.<locals>.<genexpr>", "main"} <= scopes, scopes


def test_a_plain_assignment_is_keyed_by_its_function():
    found = plain_assignments(PROGRAM)
    line = next(n for n, text in enumerate(PROGRAM.splitlines(), start=1) if "alias = a" in text)
    assert found[("alias", "a", "main")] == line
    assert ("alias", "a", "") not in found

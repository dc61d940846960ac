"""A plain-text report of a capture, for the terminal (``gradexplorer capture``).

One row per node (id, kind, op, names, forward value, gradient, line), then
the passes, the tensor explanations, the module warnings, the error and the
program's own output. Long graphs are cut at ``max_rows`` with a count of
what was left out, so a 50,000-node graph does not flood the terminal.
"""

from __future__ import annotations

import shlex

from ..analysis.accounting import leaf_steps
from ..analysis.verify import verify_capture
from ..graph.schema import node_gradient, short_op
from ..records.capture import Capture

__all__ = ["format_capture"]


#: What a step's effect means, in the per-pass table.
_EFFECTS = {"filled": "filled .grad", "added": "added to .grad", "consumed": "a hook took it (.grad None)",
            "changed": ".grad changed by a hook", "none": "nothing arrived",
            "reduced": ".grad = mean over processes (DDP)"}
_BEFORE = {"first": "", "preexisting": ".grad already set; ", "kept": "", "reset": "reset before; ",
           "edited": "edited before; "}


def _leaf_pass_rows(capture: Capture) -> list[str]:
    """Per leaf and pass: .grad before, what the pass delivered, .grad after."""
    rows = [["leaf", "pass", ".grad before", "delivered", ".grad after", "what happened"]]
    for node_id, attrs in capture.graph.nodes(data=True):
        if attrs["kind"] != "leaf" or not attrs.get("accumulation"):
            continue
        name = ", ".join(attrs["names"]) or node_id
        for step in leaf_steps(attrs["accumulation"]):
            raised = step.index < len(capture.passes) and capture.passes[step.index].raised
            rows.append([name, str(step.index + 1),
                         "None" if step.before is None else step.before.short(width=24),
                         "None" if step.delivered is None else step.delivered.short(width=24),
                         "None" if step.after is None else step.after.short(width=24),
                         _BEFORE[step.before_change] + _EFFECTS[step.effect] + (" (pass raised)" if raised else "")])
    if len(rows) == 1:
        return []
    return ["", "Leaf gradients per pass:", *("  " + row for row in _table(rows))]


def _verification_lines(capture: Capture) -> list[str]:
    checks = verify_capture(capture)
    if not checks:
        return []
    counts = {status: sum(1 for c in checks if c.status == status) for status in ("verified", "unverified", "wrong")}
    lines = ["", f"Verification: {counts['verified']} checks verified, {counts['unverified']} unverified, "
                 f"{counts['wrong']} wrong (gradients checked against .grad copies and input-buffer sums)"]
    names = capture.graph.nodes
    for c in checks:
        if c.status == "wrong":
            label = ", ".join(names[c.node]["names"]) or c.node
            where = "end of run" if c.pass_index is None else f"pass {c.pass_index + 1}"
            lines.append(f"  WRONG at {label} ({where}, {c.check}): {c.detail}")
    return lines


def _quoted(arg: str) -> str:
    return shlex.quote(arg)


def _place(source) -> str:
    """A node's line for the table: ``12`` in the program, ``pkg/model.py:12`` in another file."""
    if source is None:
        return "-"
    return str(source.line) if source.file is None else f"{source.file}:{source.line}"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def format_capture(capture: Capture, *, max_rows: int = 200) -> str:
    """Render ``capture`` as text.

    Parameters
    ----------
    capture : Capture
    max_rows : int, keyword-only
        Most node rows to print.

    Returns
    -------
    str
    """
    graph = capture.graph
    lines = [
        f"gradexplorer {capture.versions.get('gradexplorer', '?')} | torch {capture.versions.get('torch', '?')}"
        f" | device {capture.device} | {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges,"
        f" {len(capture.passes)} backward pass(es)"
    ]
    if capture.args or (capture.cwd and capture.filename != "<editor>"):
        args = " ".join(_quoted(a) for a in capture.args)
        lines.append(f"ran: python {_quoted(capture.filename)}{' ' + args if args else ''}"
                     + (f"  (in {capture.cwd})" if capture.cwd else ""))
    if graph.number_of_nodes():
        rows = [["id", "kind", "op", "names", "value", "grad", "line"]]
        for node_id, attrs in list(graph.nodes(data=True))[:max_rows]:
            grad = node_gradient(attrs)
            source = attrs.get("source")
            rows.append([
                node_id,
                attrs["kind"],
                short_op(attrs["op"]),
                ", ".join(attrs["names"]) or "-",
                attrs["value"].short(width=32) if attrs["value"] is not None else "-",
                grad.short(width=32) if grad is not None else "-",
                _place(source),
            ])
        lines.append("")
        lines.extend(_table(rows))
        hidden = graph.number_of_nodes() - max_rows
        if hidden > 0:
            lines.append(f"... {hidden:,} more nodes (use --max-rows or --json for all)")
    if capture.dropped_ops:
        lines.append(f"note: {capture.dropped_ops:,} ops were not recorded (max_ops reached)")
    for sentence in capture.restored:
        lines.append(f"note: {sentence}")
    if capture.passes:
        lines.append("")
        lines.append("Backward passes:")
        for p in capture.passes:
            where = f" at {p.source.where()}" if p.source is not None else ""
            roots = ", ".join(p.root_names) or ", ".join(r for r, _ in p.roots if r) or "-"
            flags = [f for f, on in (("retain_graph", p.retain_graph), ("create_graph", p.create_graph)) if on]
            if p.input_names:
                flags.append(f"inputs={', '.join(p.input_names)}")
            text = f"  #{p.index + 1} {p.kind}{where} from {roots}"
            if p.thread:
                text += f" in thread {p.thread}"
            if flags:
                text += f" ({', '.join(flags)})"
            if p.error:
                text += f" -> raised{f' at {p.source.where()}' if p.source is not None else ''}: " \
                        f"{p.error.splitlines()[0]}"
            lines.append(text)
        lines.extend(_leaf_pass_rows(capture))
        lines.extend(_verification_lines(capture))
    explanations = capture.explanations
    if explanations:
        lines.append("")
        lines.append("Why (no) gradient:")
        for exp in explanations:
            lines.append(f"  {exp.name}: [{exp.code}] {exp.sentence}")
    warnings = [w for audit in capture.modules for w in audit.warnings]
    if warnings:
        lines.append("")
        lines.append("Module warnings:")
        for warning in warnings:
            lines.append(f"  [{warning.code}{'' if warning.severity == 'warning' else ', info'}] {warning.message}")
            if warning.fix:
                lines.append(f"      fix: {warning.fix}")
    lines.append("")
    if capture.error is None:
        lines.append("Errors: none")
    else:
        lines.append(f"Error: {capture.error.headline()}")
        lines.append(capture.error.traceback)
    for name, text in (("stdout", capture.stdout), ("stderr", capture.stderr)):
        if text:
            lines.append("")
            lines.append(f"--- {name} ---")
            lines.append(text.rstrip("\n"))
    return "\n".join(lines) + "\n"

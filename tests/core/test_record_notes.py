"""A tensor record's note, written by the code that makes it and read back into a phrase for the reader's language.

The inspector shows a record's note ("219,232 elements is over the
10,000-element cap: summary only"): to a zh_TW reader in Chinese. Notes are
English text in memory and in files, so each kind is a template of
:mod:`gradexplorer.core.records.notes` that its writer fills and
:func:`~gradexplorer.core.records.notes.note_phrase` reads back. These tests
take the notes from the writers themselves (a tensor past the cap, a sparse,
a quantized and a meta tensor, a reentrant checkpoint's gradient, a file's
value budget) and check that every part reads back, to the same English.
"""

from __future__ import annotations

import json
import re

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.capture.backward_passes import _summed
from gradexplorer.core.io.capture_json import write_capture_document
from gradexplorer.core.records import notes
from gradexplorer.core.records.phrases import Phrase, template_slots
from gradexplorer.core.records.tensors import summarize_tensor


def _reads_back(note: str) -> Phrase:
    said = notes.note_phrase(note)
    assert type(said) is Phrase, f"no template reads {note!r}"
    parts = [value for key, value in said.args] if said.template.startswith("{p0}") else [said]
    assert all(type(p) is Phrase for p in parts if p != notes.SEPARATOR), note  # every part read, none left as text
    assert str(said) == note  # the same English as written
    return said


def _templates_of(said: Phrase) -> set[str]:
    parts = [value for _, value in said.args] if said.template.startswith("{p0}") else [said]
    return {p.template for p in parts if type(p) is Phrase}


def test_the_notes_tensors_get_read_back():
    seen = set()
    big = summarize_tensor(torch.randn(20_000))
    seen |= _templates_of(_reads_back(big.note))
    assert str(notes.note_phrase(big.note)) == "20,000 elements is over the 10,000-element cap: summary only"
    seen |= _templates_of(_reads_back(summarize_tensor(torch.empty(3, device="meta")).note))
    seen |= _templates_of(_reads_back(summarize_tensor(torch.eye(3).to_sparse()).note))
    seen |= _templates_of(_reads_back(summarize_tensor(torch.eye(3).to_sparse(), value_elements=2).note))
    quantized = torch.quantize_per_tensor(torch.randn(30), 0.1, 0, torch.quint8)
    seen |= _templates_of(_reads_back(summarize_tensor(quantized).note))
    two = _reads_back(summarize_tensor(quantized, value_elements=10).note)  # two parts, joined by "; "
    assert _templates_of(two) == {notes.DEQUANTIZED, notes.CAPPED}
    capped = summarize_tensor(torch.randn(20), value_elements=5)
    seen |= _templates_of(_reads_back(_summed([capped, capped]).note))
    assert seen == {notes.CAPPED, notes.META, notes.DENSE, notes.LAYOUT_NOT_CAPTURED, notes.DEQUANTIZED,
                    notes.SUM_UNKNOWN}


def test_a_checkpoints_delivery_and_a_files_budget_are_read_back(tmp_path):
    code = ("import torch.utils.checkpoint as cp\n"
            "lin = torch.nn.Linear(3, 3)\n"
            "x = torch.ones(3, requires_grad=True)\n"
            "y = cp.checkpoint(lin, x, use_reentrant=True)\n"
            "y.sum().backward()\n"
            "big = torch.randn(300, requires_grad=True)\n"
            "(big * 2).sum().backward()\n")
    cap = capture(code)
    assert cap.ok, cap.error
    delivered = [step.delivered.note for _, attrs in cap.graph.nodes(data=True)
                 for step in (attrs.get("accumulation") or {}).values()
                 if step.delivered is not None and step.delivered.note]
    assert delivered and all(_templates_of(_reads_back(n)) == {notes.DELIVERED_BY_CHECKPOINT} for n in delivered)
    out = tmp_path / "doc.json"
    with open(out, "wb") as fh:
        write_capture_document(cap, fh, file_values=10)
    written, stack = [], [json.loads(out.read_text(encoding="utf-8"))]
    while stack:  # every record's note, wherever the document holds records
        item = stack.pop()
        if isinstance(item, dict):
            written.extend(n for n in (item.get("note"),) if isinstance(n, str) and n)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    budget = [n for n in written if "budget" in n]
    assert budget and all(notes.FILE_BUDGET_OF in _templates_of(_reads_back(n)) for n in budget)


@pytest.mark.parametrize("template", notes._TEMPLATES)
def test_every_template_reads_back_what_it_writes(template):
    facts = {slot: f"x{index}: a; b" if slot == "error" else f"{index},000" for index, slot in
             enumerate(sorted(template_slots(template)))}
    written = notes.note_text(template, **facts)
    said = notes.note_phrase(written)
    assert str(said) == written
    if "error" not in facts:  # an error's own "; " leaves its rest as text: still shown, in its words
        assert type(said) is Phrase and said.template == template and dict(said.args) == facts


def test_a_note_no_template_reads_is_shown_as_it_is():
    assert notes.note_phrase("a note an older version wrote") == "a note an older version wrote"
    mixed = notes.note_phrase("an older note; " + notes.note_text(notes.META))
    assert str(mixed) == "an older note; " + notes.note_text(notes.META) and type(mixed) is Phrase
    assert notes.note_phrase("") == ""


def test_every_writer_of_a_note_uses_a_template():
    """No record note is written as an English literal outside notes.py (it could not be translated)."""
    from pathlib import Path

    import gradexplorer

    core = Path(gradexplorer.__file__).parent / "core"
    written = re.compile(r"(note\s*=\s*f?\"[a-z]|TensorRecord\([^)]*?, f?\"[a-z])")
    found = [f"{path.name}: {match.group(0)}" for path in core.rglob("*.py") if path.name != "notes.py"
             for match in written.finditer(path.read_text(encoding="utf-8"))]
    assert found == []

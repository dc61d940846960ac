"""The capture document's machine-readable schema (resources/schemas/capture-json.schema.json) against real documents.

The schema is a second statement of the format (the first is the producer,
:mod:`gradexplorer.core.io.capture_json`, and its reader). These tests keep
the three in agreement: every document the CLI and the recording API write,
for the bundled examples, projects run from another folder and a program
that reaches the rare fields, validates; documents with a single thing
wrong do not; and the key lists of docs/capture-json.md name exactly the
schema's keys.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from gradexplorer import capture
from gradexplorer.core.io.capture_json import write_capture_document
from gradexplorer.resources import capture_schema_path, example_paths, read_example

from ..projects.corpus import CORPUS, copy_project

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCHEMA = json.loads(capture_schema_path().read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

#: A program that reaches the fields the examples leave empty: a figure, complex and bool values, NaN,
#: a 0-d tensor, autograd.grad's results, a hook that changes its gradient, a pass that raises, a cut
#: through .item(), a switched-off tensor, retain_grad.
CORNERS = """\
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import torch

a = torch.tensor([1.0, float("nan"), 3.0], requires_grad=True)
z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
mask = a > 1
scalar = (a * 2).sum()
h = a * 3
h.retain_grad()
h.register_hook(lambda g: g * 2)
(h.sum() + (z * z.conj()).real.sum()).backward(retain_graph=True)
(g,) = torch.autograd.grad(scalar, a)
w = torch.ones(2, requires_grad=True)
w.requires_grad_(False)
c = torch.ones(3, requires_grad=True)
k = torch.tensor(c.sum().item())


class Boom(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        raise ValueError("boom")


try:
    Boom.apply(c).sum().backward()
except ValueError:
    pass
plt.plot([1, 2, 3])
plt.title("loss")
plt.show()
"""


def _strict(raw: bytes):
    """The document, refusing NaN tokens (docs/capture-json.md: strict JSON)."""
    def refuse(token):
        raise ValueError(f"a {token} token")
    return json.loads(raw, parse_constant=refuse)


def _document(code: str, filename: str = "<program>", **options) -> dict:
    out = io.BytesIO()
    write_capture_document(capture(code, filename=filename), out, **options)
    return _strict(out.getvalue())


def _problems(doc: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in VALIDATOR.iter_errors(doc)]


def _walk(value):
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.name)
def test_every_examples_document_validates(path):
    # A small value budget: the validator is pure Python, and a value list is checked number by number
    # (the transformer's document took a minute); the records past it keep their statistics, as checked.
    assert _problems(_document(path.read_text(encoding="utf-8"), str(path), file_values=2_000)) == []


def test_a_document_with_the_rare_fields_filled_validates():
    doc = _document(CORNERS)
    assert _problems(doc) == []
    # What the examples never reach, reached here (else the schema's parts for them were never tried).
    records = [v for v in _walk(doc) if isinstance(v, dict) and "note" in v and "stats" in v]
    assert {"complex64", "bool"} <= {r["dtype"] for r in records}
    assert any(r["shape"] == [] and r["values"] is not None for r in records)  # a 0-d tensor's value
    assert any("nan" in (r["stats"] or {}).get("head", []) for r in records)
    assert doc["figures"] and doc["figures"][0]["title"] == "loss"
    assert [p["kind"] for p in doc["passes"]] == ["backward", "grad", "backward"]
    assert doc["passes"][1]["results"][0] is not None
    assert doc["passes"][2]["error"] and doc["passes"][2]["raised_at"] is not None
    calls = [call for node in doc["nodes"] for hook in node["hooks"] for call in hook["calls"]]
    assert any(call["after"] is not None for call in calls)  # the hook changed its gradient
    tensors = {info["names"][0]: info for info in doc["tensors"]}
    assert tensors["k"]["cut"]["escaped"] and tensors["w"]["switched_off"] is not None


def test_a_document_past_its_value_budget_and_one_of_a_syntax_error_validate():
    budgeted = _document(CORNERS, file_values=4)
    assert _problems(budgeted) == []
    assert any("value budget was used" in r["note"] for r in _walk(budgeted)
               if isinstance(r, dict) and "note" in r and "dtype" in r)
    broken = _document("x = (1,\n")
    assert _problems(broken) == [] and broken["error"]["kind"] == "syntax" and not broken["executed"]


def _capture_project(name: str, tmp_path: Path, *args: str) -> dict:
    """``gradexplorer capture proj/SCRIPT --json OUT -- ARGS`` from the folder above the project."""
    project = next(p for p in CORPUS if p.name == name)
    copy_project(project, tmp_path)
    out = tmp_path / f"{name}.json"
    done = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", f"{name}/{project.script}", "--json",
                           str(out), "--", *project.args], cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == (1 if project.raises else 0), done.stderr  # 1: the program raised
    return _strict(out.read_bytes())


def test_the_clis_documents_of_projects_run_from_another_folder_validate(tmp_path):
    raised = _capture_project("raises_in_model", tmp_path)
    assert _problems(raised) == []
    # The exception is in model.py, inside main()'s call: the error names the file and the frames.
    assert raised["error"]["kind"] == "exception" and raised["error"]["file"] == "model.py"
    assert "model.py" in raised["files"] and raised["args"] == ["4", "5"]
    hooked = _capture_project("hooks_and_grad", tmp_path)
    assert _problems(hooked) == []
    assert "grad" in {p["kind"] for p in hooked["passes"]}
    assert any(node["hooks"] for node in hooked["nodes"])


def test_the_recording_apis_session_shown_as_a_document_validates(tmp_path):
    """A step recorded from the user's own script, saved, then ``gradexplorer show SESSION --json OUT``."""
    project = next(p for p in CORPUS if p.name == "script_api")
    folder = copy_project(project, tmp_path)
    session = tmp_path / "step.gxsession"
    done = subprocess.run([sys.executable, str(folder / project.script), str(session)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "step.json"
    shown = subprocess.run([sys.executable, "-m", "gradexplorer", "show", str(session), "--json", str(out)],
                           capture_output=True, text=True, timeout=180)
    assert shown.returncode == 0, shown.stderr
    doc = _strict(out.read_bytes())
    assert _problems(doc) == []
    assert any(node["module"] for node in doc["nodes"]) and len(doc["passes"]) == 1


@pytest.mark.parametrize("name, change", [
    ("a node without its op", lambda d: d["nodes"][0].pop("op")),
    ("a record with a key of its own", lambda d: d["nodes"][0]["value"].update(extra=1)),
    ("a NaN count that is not a count", lambda d: d["nodes"][0]["value"]["stats"].update(nan_count=-1)),
    ("a value spelled as a word", lambda d: d["nodes"][0]["value"].update(values=["one"])),
    ("an edge to something that is no node id", lambda d: d["edges"][0].update(target="7")),
    ("an explanation of unknown severity", lambda d: d["explanations"][0].update(severity="fatal")),
    ("a newer schema", lambda d: d.update(schema_version=2)),
    ("a top-level key of its own", lambda d: d.update(comment="hi")),
    ("a pass keyed by a name", lambda d: next(n for n in d["nodes"] if n["grads"])["grads"].update(first={})),
])
def test_a_document_with_one_thing_wrong_is_refused(name, change):
    doc = _document(read_example("03_next_functions"))
    assert _problems(doc) == []
    change(doc)
    assert _problems(doc), name


def _backticked(text: str) -> set[str]:
    """The key names in ``text``'s code spans (a span may list several: `{"delivered", "before"}`)."""
    return {word for span in re.findall(r"`([^`]+)`", text) for word in re.findall(r"[a-z_]+", span)}


def _section(markdown: str, title: str) -> str:
    return markdown.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_pages_key_lists_name_exactly_the_schemas_keys():
    """docs/capture-json.md says what each key means; each of its lists names the schema's keys, no more, no less."""
    page = (DOCS / "capture-json.md").read_text(encoding="utf-8")
    rows = {}
    for line in _section(page, "Top level").splitlines():
        match = re.match(r"\| (`[^|]+`) \|", line)
        if match:
            rows.update(dict.fromkeys(re.findall(r"`([a-z_]+)`", match.group(1)), line))
    defs = SCHEMA["$defs"]
    assert set(rows) == set(SCHEMA["properties"])
    # Each row that lists an item's keys lists all of them (a row may name more: values, older files' keys).
    for key, item in (("error", "error"), ("passes", "pass"), ("tensors", "tensor"), ("explanations", "explanation"),
                      ("modules", "module"), ("modules", "state_entry"), ("modules", "module_warning"),
                      ("tensors", "origin"), ("tensors", "cut"), ("figures", "figure")):
        missing = set(defs[item]["properties"]) - _backticked(rows[key])
        assert not missing, f"the {key} row of docs/capture-json.md does not name {item}'s {sorted(missing)}"
    nodes = _backticked(_section(page, "Nodes"))
    for item in ("node", "leaf_pass", "saved", "hook", "hook_call", "source", "grad_flow"):
        missing = set(defs[item]["properties"]) - nodes
        assert not missing, f"the Nodes section does not name {item}'s {sorted(missing)}"
    assert set(defs["record"]["properties"]) <= _backticked(_section(page, "Tensor records"))
    assert set(defs["stats"]["properties"]) <= set(re.findall(r'"([a-z_]+)":', _section(page, "Tensor records")))

"""The comparison document's machine-readable schema (resources/schemas/diff-json.schema.json) against real ones.

``gradexplorer diff A B --json OUT`` is what a CI job reads to fail a build
on a gradient that drifted, so its shape is stated twice: by the producer
(:func:`gradexplorer.core.io.diff_report.diff_to_dict`) and by the schema.
These tests keep them in agreement on comparisons made the ways a user makes
them: the CLI on two scripts (one raising, one a syntax error), on two
sessions of a project run with arguments from another folder, two
recordings of a project's ``main()`` through the Python API, and programs
that reach the rare fields (NaN, values over the cap, a shape change, a
float64 overflow, passes in one run only); documents with a single thing
wrong are refused; and docs/diff.md's document names exactly the schema's
keys.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest

from gradexplorer import capture
from gradexplorer.cli import main as cli_main
from gradexplorer.core.analysis.diff import diff_captures
from gradexplorer.core.io.diff_report import diff_to_dict
from gradexplorer.resources import diff_schema_path

from ..programs import write_project
from .test_diff import ALIAS, LOOP, MODEL, NEW_TENSOR, RECORDED, TRAIN

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCHEMA = json.loads(diff_schema_path().read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

#: Run A of a pair that reaches the fields ordinary comparisons leave empty; run B is :data:`CORNERS_B`.
CORNERS_A = textwrap.dedent("""\
    import torch
    a = torch.tensor([1.0, float("nan"), 3.0], requires_grad=True)
    big = torch.linspace(0, 1, 20_000, requires_grad=True)   # past the value cap: statistics only
    far = torch.tensor([1.7e308, 1.0], dtype=torch.float64, requires_grad=True)
    shaped = torch.ones(3, requires_grad=True)
    (a * 2).sum().backward()
    (big * 3).sum().backward()
    (far * 0.5).sum().backward()
    (shaped * 2).sum().backward()
""")
CORNERS_B = textwrap.dedent("""\
    import torch
    a = torch.tensor([1.0, 2.0, float("inf")], requires_grad=True)
    big = torch.linspace(0, 2, 20_000, requires_grad=True)
    far = torch.tensor([-1.7e308, 3.0], dtype=torch.float64, requires_grad=True)
    shaped = torch.ones(4, requires_grad=True)
    (a * 2).sum().backward()
    (big * 3).sum().backward()
    (far * 0.5).sum().backward()
    (shaped * 2).sum().backward()
    extra = torch.ones(2, requires_grad=True)
    (extra * extra).sum().backward()
""")


def _valid(doc: dict) -> dict:
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    return doc


def _read(path: Path) -> dict:
    """A written document, refusing NaN and Infinity tokens (they are not JSON)."""
    def refuse(token):
        raise AssertionError(f"{path.name} holds {token}")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def _comparisons(doc: dict):
    """Every value comparison of the document."""
    for item in (*doc["names"], *doc["nodes"]):
        for key in ("value", "grad"):
            if item[key] is not None:
                yield item[key]
        for outputs in item.get("grads", {}).values():
            yield from (c for c in outputs if c is not None)


def test_the_cli_on_the_seed_lesson_and_on_a_syntax_error(tmp_path, capsys):
    alias, new, broken = tmp_path / "alias.py", tmp_path / "new_tensor.py", tmp_path / "broken.py"
    alias.write_text(ALIAS, encoding="utf-8")
    new.write_text(NEW_TENSOR, encoding="utf-8")
    broken.write_text("x = (\n", encoding="utf-8")
    out = tmp_path / "lesson.json"
    assert cli_main(["diff", str(alias), str(new), "--json", str(out)]) == 1
    doc = _valid(_read(out))
    assert doc["error_a"] == "" and "does not require grad" in doc["error_b"]
    assert [p["changes"] for p in doc["passes"]] == [["raised in B", "roots a -> b"]]
    assert doc["passes"][0]["error_a"] is None and "does not require grad" in doc["passes"][0]["error_b"]
    assert {n["name"]: (n["code_a"], n["code_b"]) for n in doc["names"]}["b"] == ("alias", "no_grad")
    assert cli_main(["diff", str(alias), str(broken), "--json", str(out)]) == 1
    doc = _valid(_read(out))
    assert "SyntaxError at line 1" in doc["error_b"] and doc["counts"]["removed"] >= 1
    assert {n["status"] for n in doc["nodes"]} == {"removed"} and all(n["b"] is None for n in doc["nodes"])
    capsys.readouterr()


def test_two_sessions_of_a_project_run_with_arguments_from_another_folder(tmp_path, capsys):
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    sessions = []
    for args in ((), ("--freeze",), ("--double",)):
        path = elsewhere / f"run{len(sessions)}.gxsession"
        command = [sys.executable, "-m", "gradexplorer", "capture", str(script.relative_to(tmp_path)), "-o", str(path),
                   "--quiet", "--", *args]
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        sessions.append(path)
    seen_rules, seen_changes = set(), set()
    for other in sessions[1:]:
        out = elsewhere / f"{other.stem}.json"
        assert cli_main(["diff", str(sessions[0]), str(other), "--json", str(out)]) == 1
        doc = _valid(_read(out))
        seen_rules |= {n["rule"] for n in doc["nodes"]}
        seen_changes |= {c for n in doc["nodes"] for c in n["changes"]}
        if other.stem == "run1":  # frozen: the embedding's parameters get no gradient and move in the audit
            assert {p["path"] for p in doc["placements"]} >= {"model.embed.weight", "model.embed.bias"}
            assert doc["counts"]["removed"] > 0
    assert {"name", "module"} <= seen_rules and {"dtype", "value", "gradient", ".grad"} <= seen_changes
    capsys.readouterr()


def test_two_recordings_of_a_projects_main_through_the_python_api(tmp_path):
    out = tmp_path / "recorded.json"
    program = RECORDED.replace(
        "    print(json.dumps(",
        f"    open({str(out)!r}, 'w').write(json.dumps(comparison.to_dict()))\n    print(json.dumps(")
    assert program != RECORDED
    script, elsewhere = write_project(tmp_path, {"model.py": MODEL, "train.py": program})
    subprocess.run([sys.executable, str(script)], cwd=elsewhere, capture_output=True, text=True, check=True)
    doc = _valid(_read(out))
    assert doc["counts"]["removed"] == 5


def test_several_passes_and_the_rare_fields():
    loops = [capture(LOOP.replace("LR", lr)) for lr in ("0.5", "0.1")]
    doc = _valid(json.loads(json.dumps(diff_to_dict(diff_captures(*loops)), allow_nan=False)))
    assert any(set(n["grads"]) == {"0", "1", "2"} for n in doc["nodes"])
    cap_a, cap_b = capture(CORNERS_A), capture(CORNERS_B)
    assert cap_a.ok and cap_b.ok, (cap_a.error, cap_b.error)
    doc = _valid(json.loads(json.dumps(diff_to_dict(diff_captures(cap_a, cap_b)), allow_nan=False)))
    kinds = {c["kind"] for c in _comparisons(doc)}
    assert {"values", "statistics", "shape", "missing"} <= kinds, kinds
    assert {n["status"] for n in doc["nodes"]} >= {"changed", "added"}
    assert any(c["nonfinite_mismatch"] > 0 for c in _comparisons(doc))
    # 1.7e308 against -1.7e308: the gap overflows float64 ("inf"), the relative gap is 2, not infinite.
    overflow = [c for c in _comparisons(doc) if c["max_abs"] == "inf"]
    assert overflow and all(c["max_rel"] == 2.0 for c in overflow)
    assert any(p["changes"] == ["only in B"] for p in doc["passes"])


def _a_document() -> dict:
    return diff_to_dict(diff_captures(capture(LOOP.replace("LR", "0.5")), capture(LOOP.replace("LR", "0.1"))))


def _first_comparison(doc):
    return next(n for n in doc["nodes"] if n["value"] is not None)["value"]


@pytest.mark.parametrize("damage", [
    "extra top-level key", "unknown status", "node id not ours", "added with an id in A", "same with changes",
    "unknown change", "pass keyed by a name", "negative count", "relative gap over 2", "infinity as a word",
    "extra comparison key", "version 2",
])
def test_a_document_with_one_thing_wrong_is_refused(damage):
    doc = json.loads(json.dumps(_a_document()))
    assert not list(VALIDATOR.iter_errors(doc))
    node = doc["nodes"][0]
    if damage == "extra top-level key":
        doc["differs"] = True
    elif damage == "unknown status":
        node["status"] = "moved"
    elif damage == "node id not ours":
        node["a"] = "7"
    elif damage == "added with an id in A":
        node["status"], node["rule"] = "added", ""
    elif damage == "same with changes":
        node["status"], node["changes"] = "same", ["value"]
    elif damage == "unknown change":
        node["changes"] = ["colour"]
    elif damage == "pass keyed by a name":
        node["grads"] = {"first": []}
    elif damage == "negative count":
        doc["counts"]["same"] = -1
    elif damage == "relative gap over 2":
        _first_comparison(doc)["max_rel"] = 2.5
    elif damage == "infinity as a word":
        _first_comparison(doc)["max_abs"] = "Infinity"
    elif damage == "extra comparison key":
        _first_comparison(doc)["mean"] = 0.0
    else:
        doc["version"] = 2
    assert list(VALIDATOR.iter_errors(doc)), damage


def _page_document() -> dict:
    """The example document of docs/diff.md, read as JSON (its ``{...}`` placeholders as empty objects)."""
    text = (DOCS / "diff.md").read_text(encoding="utf-8")
    return json.loads(text.split("## The JSON document", 1)[1].split("```json", 1)[1].split("```", 1)[0]
                      .replace("{...}", "{}"))


def test_the_pages_document_names_exactly_the_schemas_keys():
    """docs/diff.md's example document and its sentence on value comparisons name every key, and no other."""
    page, defs = _page_document(), SCHEMA["$defs"]
    assert set(page) == set(SCHEMA["properties"])
    assert set(page["statuses"]) == set(page["counts"]) == set(SCHEMA["properties"]["counts"]["properties"])
    for name, key in (("pass", "passes"), ("name", "names"), ("placement", "placements"), ("node", "nodes")):
        assert set(page[key][0]) == set(defs[name]["properties"]), name
    text = (DOCS / "diff.md").read_text(encoding="utf-8")
    comparison, record = re.findall(r"`\{(.*?)\}`", text.split("A value comparison is", 1)[1], re.S)[:2]
    assert set(re.findall(r'"([a-z_]+)"', comparison)) == set(defs["comparison"]["properties"])
    assert set(re.findall(r'"([a-z_]+)"', record)) == set(defs["record"]["properties"])
    assert "resources/schemas/diff-json.schema.json" in text

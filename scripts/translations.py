"""Keep the translation catalogues in step with the code: find the strings, update the .ts, compile the .qm.

    python scripts/translations.py update    # add new strings to every .ts, drop gone ones
    python scripts/translations.py compile   # .ts -> .qm (pyside6-lrelease)
    python scripts/translations.py check     # what a CI check finds wrong (exit 1 when anything is)

The strings are found by reading the source, never by running it:
``_tr("...")`` and ``N_("...")`` calls in ``gradexplorer/ui/`` (context: the module's file
name, as :func:`gradexplorer.ui.language.translator_for` makes it) and
``phrase("...")`` calls anywhere in ``gradexplorer/`` (context ``explain``:
the explanations and the other sentences the core makes). A ``_tr`` or
``phrase`` whose text is not a plain string literal (an f-string, a
variable) is reported: a catalogue can only hold fixed text, so the facts
go in ``{slots}`` filled after translating.

Why our own scanner rather than ``pyside6-lupdate``: lupdate knows
``self.tr`` and ``QCoreApplication.translate`` but not the core's
``phrase()``, and the core may not import Qt. The ``.ts`` files it writes
are ordinary Qt Linguist files (open them in ``pyside6-linguist``), and
``pyside6-lrelease`` compiles them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gradexplorer"
TRANSLATIONS = ROOT / "resources" / "translations"
#: The translation context of the core's phrases (gradexplorer.core.records.phrases.PHRASE_CONTEXT).
PHRASE_CONTEXT = "explain"
#: Languages with a catalogue (English is the source language).
LANGUAGES = ("zh_TW",)


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def scan_file(path: Path, context: str | None, names: tuple[str, ...]):
    """``(messages, problems)`` of one file: ``[(context, text, line)]`` and ``["file:line: why"]``.

    ``context`` None: the context is ``PHRASE_CONTEXT`` (the core's phrases).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    messages, problems = [], []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _call_name(node) not in names or not node.args:
            continue
        first = node.args[0]
        where = f"{path.relative_to(ROOT)}:{node.lineno}"
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            messages.append((context or PHRASE_CONTEXT, first.value, node.lineno))
        elif isinstance(first, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            continue  # ``_tr(EMPTY_TEXT)``: text marked where it is written (``N_``), found there
        else:
            problems.append(f"{where}: {_call_name(node)}() of {type(first).__name__}, not a string literal: "
                            f"a catalogue holds fixed text (put the facts in {{slots}})")
    messages.sort(key=lambda m: m[2])
    return messages, problems


def collect() -> tuple[dict[tuple[str, str], str], list[str]]:
    """Every translatable string of the code: ``{(context, text): "file:line"}`` in source order, and problems."""
    found: dict[tuple[str, str], str] = {}
    problems: list[str] = []
    for path in sorted((PACKAGE / "ui").glob("*.py")):
        messages, wrong = scan_file(path, path.stem, ("_tr", "N_"))
        problems += wrong
        for context, text, line in messages:
            found.setdefault((context, text), f"{path.relative_to(ROOT)}:{line}")
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent == PACKAGE / "ui" and path.name == "language.py":
            continue
        messages, wrong = scan_file(path, None, ("phrase",))
        problems += [p for p in wrong if "records/phrases.py" not in p]  # phrase()'s own definition passes a name
        for context, text, line in messages:
            found.setdefault((context, text), f"{path.relative_to(ROOT)}:{line}")
    return found, problems


def ts_path(language: str) -> Path:
    return TRANSLATIONS / f"gradexplorer_{language}.ts"


def qm_path(language: str) -> Path:
    return TRANSLATIONS / f"gradexplorer_{language}.qm"


def read_ts(path: Path) -> dict[tuple[str, str], tuple[str, bool]]:
    """``{(context, source): (translation, finished)}`` of a .ts file (empty when it does not exist)."""
    if not path.exists():
        return {}
    result = {}
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            text = "" if translation is None else (translation.text or "")
            finished = translation is not None and translation.get("type") not in ("unfinished", "obsolete",
                                                                                    "vanished")
            result[(name, message.findtext("source") or "")] = (text, finished and bool(text))
    return result


def write_ts(path: Path, language: str, found, translations) -> None:
    """The .ts with every string of ``found`` (in its order), each with its translation or marked unfinished."""
    root = ET.Element("TS", version="2.1", language=language, sourcelanguage="en")
    contexts: dict[str, ET.Element] = {}
    for (context, text), where in found.items():
        element = contexts.get(context)
        if element is None:
            element = contexts[context] = ET.SubElement(root, "context")
            ET.SubElement(element, "name").text = context
        message = ET.SubElement(element, "message")
        file = where.rpartition(":")[0]
        ET.SubElement(message, "location", filename=f"../../{file}")  # no line: an edit above it would churn the file
        ET.SubElement(message, "source").text = text
        translated, finished = translations.get((context, text), ("", False))
        element_t = ET.SubElement(message, "translation")
        element_t.text = translated
        if not finished:
            element_t.set("type", "unfinished")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")


def slots(text: str) -> set[str]:
    """The ``{slot}`` names of a text (``{{`` is a brace)."""
    from string import Formatter

    try:
        return {name for _, name, _, _ in Formatter().parse(text) if name}
    except ValueError:
        return {"<unbalanced braces>"}


def check(language: str) -> list[str]:
    """What is wrong with ``language``'s catalogue: missing, unfinished, slots that differ, gone, not compiled."""
    found, problems = collect()
    translations = read_ts(ts_path(language))
    for key, where in found.items():
        translated, finished = translations.get(key, ("", False))
        if not finished:
            problems.append(f"{where}: no {language} translation of {key[1]!r} (context {key[0]})")
        elif slots(translated) != slots(key[1]):
            problems.append(f"{where}: the {language} translation of {key[1]!r} has slots {sorted(slots(translated))}, "
                            f"the text {sorted(slots(key[1]))}")
    for key in translations.keys() - found.keys():
        problems.append(f"{ts_path(language).name}: {key[1]!r} (context {key[0]}) is no longer in the code: "
                        f"run `python scripts/translations.py update`")
    if not qm_path(language).exists():  # that it says what the .ts says is tests/ui/test_language.py's to check
        problems.append(f"{qm_path(language).name} is missing: run `python scripts/translations.py compile`")
    return problems


def update() -> None:
    found, problems = collect()
    for problem in problems:
        print(problem)
    for language in LANGUAGES:
        path = ts_path(language)
        translations = read_ts(path)
        gone = translations.keys() - found.keys()
        path.parent.mkdir(parents=True, exist_ok=True)
        write_ts(path, language, found, translations)
        todo = sum(1 for key in found if not translations.get(key, ("", False))[1])
        print(f"{path.relative_to(ROOT)}: {len(found)} strings, {todo} to translate, {len(gone)} dropped")


def compile_catalogues() -> None:
    for language in LANGUAGES:
        subprocess.run(["pyside6-lrelease", "-silent", "-nounfinished",
                        str(ts_path(language)), "-qm", str(qm_path(language))], check=True)
        print(f"{qm_path(language).relative_to(ROOT)}: compiled")


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        update()
    elif command == "compile":
        compile_catalogues()
    elif command == "check":
        problems = [p for language in LANGUAGES for p in check(language)]
        for problem in problems:
            print(problem)
        print(f"{len(problems)} problems")
        return 1 if problems else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

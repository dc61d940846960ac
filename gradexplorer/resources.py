"""Find the bundled assets (examples, icons, styles) in a checkout or a wheel.

The assets live in the top-level ``resources/`` folder of the repository. The
wheel build copies that folder into the package as ``gradexplorer/_resources``
(see ``[tool.hatch.build.targets.wheel.force-include]`` in pyproject.toml), so an
installed gradexplorer finds them there; a source checkout (or an editable
install) finds them beside the package.
"""

from __future__ import annotations

from importlib import resources as _importlib_resources
from pathlib import Path

__all__ = ["capture_schema_path", "diff_schema_path", "example_paths", "read_example", "resource_root"]


def resource_root() -> Path:
    """The folder holding ``examples/``, ``icons/``, ``schemas/``, ``translations/``."""
    packaged = Path(str(_importlib_resources.files("gradexplorer"))) / "_resources"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "resources"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"gradexplorer's resources are missing (looked in {packaged} and {checkout})")


def example_paths(language: str = "en") -> list[Path]:
    """Every bundled example script, sorted by file name; in ``language`` where a translation exists.

    A translated example (``examples/zh_TW/01_no_grad_alias.py``) is the same
    code with its comments in that language, line for line (a test checks
    it), so the lessons' line numbers hold in every language.
    """
    return [_in_language(path, language) for path in sorted((resource_root() / "examples").glob("*.py"))]


def read_example(name: str, language: str = "en") -> str:
    """The text of the example ``name`` (with or without ``.py``), in ``language`` where a translation exists."""
    filename = name if name.endswith(".py") else f"{name}.py"
    return _in_language(resource_root() / "examples" / filename, language).read_text(encoding="utf-8")


def _in_language(path: Path, language: str) -> Path:
    translated = path.parent / language / path.name
    return translated if language != "en" and translated.is_file() else path


def capture_schema_path() -> Path:
    """The JSON Schema of the capture document (``capture --json``, docs/capture-json.md).

    Shipped with the package so that a tool reading gradexplorer's documents
    can check them against the schema of the version that wrote them.
    """
    return resource_root() / "schemas" / "capture-json.schema.json"


def diff_schema_path() -> Path:
    """The JSON Schema of the comparison document (``diff A B --json``, ``compare(a, b).to_dict()``, docs/diff.md).

    Shipped beside the capture document's, for the same reason: a CI job that
    fails a build on a gradient that drifted reads this document, and can
    check it against the schema of the version that wrote it.
    """
    return resource_root() / "schemas" / "diff-json.schema.json"

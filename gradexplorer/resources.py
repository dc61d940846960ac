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

__all__ = ["example_paths", "read_example", "resource_root"]


def resource_root() -> Path:
    """The folder holding ``examples/``, ``icons/``, ``styles/``."""
    packaged = Path(str(_importlib_resources.files("gradexplorer"))) / "_resources"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "resources"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"gradexplorer's resources are missing (looked in {packaged} and {checkout})")


def example_paths() -> list[Path]:
    """Every bundled example script, sorted by file name."""
    return sorted((resource_root() / "examples").glob("*.py"))


def read_example(name: str) -> str:
    """The text of the example ``name`` (with or without ``.py``)."""
    filename = name if name.endswith(".py") else f"{name}.py"
    return (resource_root() / "examples" / filename).read_text(encoding="utf-8")

"""The core and the CLI never import Qt (napari enforces the same split)."""

import ast
import subprocess
import sys
from pathlib import Path

import gradexplorer

PACKAGE = Path(gradexplorer.__file__).resolve().parent


def test_core_and_cli_import_with_pyside6_blocked():
    code = (
        "import sys; sys.modules['PySide6'] = None\n"
        "import gradexplorer, gradexplorer.core, gradexplorer.cli, gradexplorer.launch\n"
        "import gradexplorer.core.io.report, gradexplorer.core.io.capture_json\n"
        "cap = gradexplorer.capture('x = torch.ones(1, requires_grad=True) * 2')\n"
        "assert cap.ok\n"
        "import torch\n"
        "w = torch.ones(1, requires_grad=True)\n"
        "with gradexplorer.record() as rec:\n"
        "    (w * 2).sum().backward()\n"
        "assert rec.capture.ok and gradexplorer.show(w * 3, app=False).capture.graph.number_of_nodes() == 2\n"
        "assert not any(m.startswith(('PySide6.', 'gradexplorer.ui')) for m in sys.modules), "
        "[m for m in sys.modules if 'PySide6' in m or 'gradexplorer.ui' in m]\n"
        "print('clean')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "clean"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
    return names


def test_no_module_outside_ui_mentions_qt_or_ui():
    outside_ui = [p for p in PACKAGE.rglob("*.py") if "ui" not in p.relative_to(PACKAGE).parts]
    assert outside_ui
    for path in outside_ui:
        if path.name == "launch.py":  # the launcher opens the app lazily, by design
            continue
        for name in _imports(path):
            assert not name.startswith("PySide6"), f"{path} imports {name}"
            assert ".ui" not in name and not name.startswith("gradexplorer.ui"), f"{path} imports {name}"


"""The project corpus: realistic multi-file projects, and how each is checked.

Each project lives in a folder of its own under ``tests/projects/``; the
tests copy it to a temporary folder and run it *from the folder above it*
("from another folder"), once as ``python SCRIPT ARGS`` under the plain
probe (``plain_probe/sitecustomize.py``: the truth) and once through
gradexplorer. ``flat`` names a one-file, top-level version of the same
program (what gradexplorer understood before it ran scripts as scripts):
the names, module attribution and module-audit warnings of the project's
capture must match it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PROBE = ROOT / "plain_probe"


@dataclass(frozen=True)
class Project:
    """One project of the corpus.

    Attributes
    ----------
    name : str
        Its folder under ``tests/projects``.
    script : str
        The script to run, relative to the folder.
    args : tuple of str
        Its command-line arguments.
    flat : str or None
        The flattened top-level version, relative to the folder.
    raises : bool
        The plain run ends with an exception (the error line is compared).
    kind : str
        ``"script"`` (run as a script), ``"api"`` (a script that records itself with
        ``gradexplorer.record``) or ``"notebook"`` (a notebook run by nbclient using the API).
    what : str
        What the project has that a snippet does not.
    """

    name: str
    script: str
    args: tuple[str, ...] = ()
    flat: str | None = "flat.py"
    raises: bool = False
    kind: str = "script"
    what: str = ""


CORPUS = (
    Project("mlp_argparse", "train.py", ("--steps", "3", "--lr", "0.1"),
            what="argparse, main(), a model module and a data module, a plain tensor attribute"),
    Project("trainer_class", "train.py", ("--freeze",),
            what="a Trainer class holding the model and optimizer, a frozen layer, an unused head, BatchNorm"),
    Project("package_relative", "train.py", ("--steps", "2"),
            what="a package with relative imports (pkg.model -> .layers, .utils.init), model built in main()"),
    Project("data_module", "train.py", (),
            what="a data package with a Dataset and DataLoader, a models package (GRU), a \\r progress bar"),
    Project("nonutf8_cp950", "train.py", (),
            what="a script saved in cp950 (PEP 263 coding line) with Chinese names and output"),
    Project("raises_in_model", "train.py", ("4", "5"), raises=True,
            what="an exception raised in model.py's forward on the second batch"),
    Project("hooks_and_grad", "train.py", (),
            what="autograd.grad with create_graph in a function, a tensor hook and a node hook in model.py"),
    Project("script_api", "run.py", (), kind="api",
            what="the user's own script records its second training step with gradexplorer.record()"),
    Project("notebook_api", "analysis.ipynb", (), flat="plain.py", kind="notebook",
            what="a notebook run by nbclient that records two steps with gradexplorer.record()"),
)


def copy_project(project: Project, where: Path) -> Path:
    """Copy the project's folder under ``where``; returns the copy's folder."""
    target = where / project.name
    shutil.copytree(ROOT / project.name, target, ignore=shutil.ignore_patterns("__pycache__", "*.gxsession"))
    return target


def plain_run(script: Path, args, *, cwd: Path, out: Path, timeout: float = 120) -> tuple[subprocess.CompletedProcess,
                                                                                              dict]:
    """``python SCRIPT ARGS`` from ``cwd`` under the plain probe; the process and what the probe wrote."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PROBE), *filter(None, [env.get("PYTHONPATH")])])
    env["GX_PLAIN_OUT"] = str(out)
    env["GX_PLAIN_ROOT"] = str(script.parent)
    env["PYTHONIOENCODING"] = "utf-8"
    process = subprocess.run([sys.executable, str(script), *args], cwd=cwd, env=env, capture_output=True,
                             text=True, encoding="utf-8", timeout=timeout)
    return process, json.loads(out.read_text(encoding="utf-8"))


def pass_leaves(capture, index: int) -> list[str]:
    """Node ids of the leaves pass ``index`` can reach, breadth-first over ``next_functions`` in slot order.

    The order the probe walks a plain run's graph in: the two lists pair up
    leaf by leaf.
    """
    graph = capture.graph
    roots = [node for node, _ in capture.passes[index].roots if node is not None]
    order, seen, queue = [], set(), []
    for node in roots:
        if node not in seen:
            seen.add(node)
            queue.append(node)
    while queue:
        node = queue.pop(0)
        if graph.nodes[node]["kind"] == "leaf":
            order.append(node)
        for child in graph.succ[node]:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def last_pass_modules(capture) -> Counter:
    """How many op nodes of the last pass's graph each module path made (None: outside modules)."""
    last = len(capture.passes) - 1
    return Counter(attrs["module"] for _, attrs in capture.graph.nodes(data=True)
                   if attrs["kind"] != "leaf" and last in attrs["on_path"])


def leaf_names(capture) -> set[str]:
    """The first name of every leaf of the graph."""
    return {attrs["names"][0] for _, attrs in capture.graph.nodes(data=True) if attrs["kind"] == "leaf" and attrs["names"]}


def audit_warnings(capture) -> set[tuple[str, str]]:
    """``(code, path)`` of every module-audit warning."""
    return {(w.code, w.path) for audit in capture.modules for w in audit.warnings}

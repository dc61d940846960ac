"""Assets load from a wheel installed outside the repository, not only from a checkout."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_ships_resources(tmp_path):
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(REPO)],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("gradexplorer-*.whl")
    site = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=600,
    )
    assert install.returncode == 0, install.stderr
    probe = (
        "import gradexplorer, gradexplorer.resources as r\n"
        "print(gradexplorer.__file__)\n"
        "print(r.resource_root())\n"
        "print(len(r.example_paths()))\n"
        "print(r.read_example('03_next_functions').splitlines()[0])\n"
        "import pathlib; print((pathlib.Path(gradexplorer.__file__).parent / 'py.typed').exists())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    package_file, root, count, first_line, typed = result.stdout.splitlines()
    assert typed == "True"  # the package says it is typed (PEP 561)
    assert package_file.startswith(str(site))
    assert root == str(site / "gradexplorer" / "_resources")
    assert int(count) == len(list((REPO / "resources" / "examples").glob("*.py")))
    assert first_line.startswith("# From the notes")

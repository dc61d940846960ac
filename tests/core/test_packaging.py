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


@pytest.mark.slow
def test_the_sdist_carries_what_the_readme_install_uses_and_installs_with_it(tmp_path):
    """The sdist holds LICENSE and requirements/ci-constraints.txt; the README's command installs from it."""
    import tarfile

    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(REPO)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("gradexplorer-*.whl")
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        metadata = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))).decode()
        names = zf.namelist()
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Typing :: Typed" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "gradexplorer/_resources/gradexplorer.desktop" in names
    assert "gradexplorer/_resources/translations/gradexplorer_zh_TW.qm" in names  # View > Language's catalogue
    assert "gradexplorer/_resources/schemas/capture-json.schema.json" in names  # for tools reading --json documents
    assert "gradexplorer/_resources/schemas/diff-json.schema.json" in names  # for CI jobs reading diff --json
    sdist_build = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(dist), str(REPO)],
                                 capture_output=True, text=True, timeout=600)
    assert sdist_build.returncode == 0, sdist_build.stderr[-3000:]
    (sdist,) = dist.glob("gradexplorer-*.tar.gz")
    with tarfile.open(sdist) as tf:
        members = tf.getnames()
        tf.extractall(tmp_path / "unpacked", filter="data")
    top = sdist.name[: -len(".tar.gz")]
    for needed in ("requirements/ci-constraints.txt", "LICENSE", "README.md", "resources/gradexplorer.desktop",
                   ".ci/run", "scripts/floor_constraints.py"):
        assert f"{top}/{needed}" in members, needed
    source = tmp_path / "unpacked" / top
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    # The README's command, from the unpacked sdist (the dependencies are already here: --system-site-packages).
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-c",
                              "requirements/ci-constraints.txt", "-e", ".[test]"],
                             capture_output=True, text=True, timeout=900, cwd=source)
    assert install.returncode == 0, install.stderr[-3000:]
    probe = subprocess.run([str(venv / "bin" / "python"), "-c", "import gradexplorer; print(gradexplorer.__file__)"],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert probe.stdout.strip().startswith(str(source)), probe


def test_the_app_names_its_desktop_file():
    import configparser
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gradexplorer.ui.app import DESKTOP_FILE_NAME, create_application

    app = create_application([])
    assert app.desktopFileName() == DESKTOP_FILE_NAME == "gradexplorer"
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(REPO / "resources" / f"{DESKTOP_FILE_NAME}.desktop")
    desktop = entry["Desktop Entry"]
    assert desktop["Exec"].split()[0] == "gradexplorer" and desktop["Icon"] == "gradexplorer"
    assert (REPO / "resources" / "icons" / f"{desktop['Icon']}.svg").exists()

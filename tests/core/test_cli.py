"""The headless command line."""

import json
import subprocess
import sys

import pytest

from gradexplorer.cli import main
from gradexplorer.resources import resource_root

EXAMPLES = resource_root() / "examples"


def test_capture_prints_table(capsys):
    status = main(["capture", str(EXAMPLES / "03_next_functions.py")])
    out = capsys.readouterr().out
    assert status == 0
    assert "5 nodes, 4 edges" in out
    row_c = next(line for line in out.splitlines() if line.split()[:1] == ["n2"])
    assert "AccumulateGrad" in row_c and " c " in f" {row_c} " and "1.3" in row_c and "1.32" in row_c
    assert "Errors: none" in out


def test_capture_writes_strict_json(tmp_path, capsys):
    out = tmp_path / "snap.json"
    status = main(["capture", str(EXAMPLES / "03_next_functions.py"), "--json", str(out)])
    assert status == 0
    doc = json.loads(out.read_text(encoding="utf-8"), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert doc["format"] == "gradexplorer.capture" and doc["schema_version"] == 1
    by_name = {n["names"][0]: n for n in doc["nodes"] if n["names"]}
    assert by_name["c"]["variable"]["values"] == pytest.approx(1.3)
    assert by_name["c"]["grad"]["values"] == pytest.approx(1.32)
    assert by_name["a"]["path"] == "e.grad_fn.next_functions[0][0].next_functions[0][0]"
    assert {(e["source"], e["target"], e["slot"]) for e in doc["edges"]} >= {(by_name["e"]["id"], by_name["c"]["id"], 1)}
    assert not list(tmp_path.glob(".*tmp*")), "no temp file left behind"


def test_nan_values_are_valid_json(tmp_path, capsys):
    script = tmp_path / "nan.py"
    script.write_text("x = torch.tensor([-1.0, 0.0], requires_grad=True)\ny = torch.log(x)\n", encoding="utf-8")
    out = tmp_path / "snap.json"
    assert main(["capture", str(script), "--json", str(out)]) == 0
    doc = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    y = next(n for n in doc["nodes"] if n["names"] == ["y"])
    assert y["value"]["values"] == ["nan", "-inf"]


def test_failing_script_prints_error_and_exits_1(capsys):
    status = main(["capture", str(EXAMPLES / "02_no_grad_new_tensor.py")])
    out = capsys.readouterr().out
    assert status == 1
    assert "RuntimeError at line 4" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["capture", "/no/such/file.py"], "cannot read /no/such/file.py"),
        (["capture", str(EXAMPLES)], "is a folder"),
        (["capture", str(EXAMPLES / "03_next_functions.py"), "--device", "cuda:7"], "Devices present: cpu"),
        (["capture"], "the following arguments are required"),
        (["capture", "x.py", "--max-rows", "many"], "invalid int value"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_gets_one_line_and_status_2(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        code = main(argv)
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert message in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_binary_file_is_refused(tmp_path, capsys):
    script = tmp_path / "bin.py"
    script.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["capture", str(script)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_python_dash_m_and_devices():
    result = subprocess.run([sys.executable, "-m", "gradexplorer", "capture", str(EXAMPLES / "01_no_grad_alias.py")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "a, b" in result.stdout
    result = subprocess.run([sys.executable, "-m", "gradexplorer", "devices"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith("cpu")


def test_capture_and_show_refuse_a_fifo_at_once(tmp_path, capsys):
    import os

    from gradexplorer.cli import main

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert main(["capture", str(fifo)]) == 2
    assert "named pipe" in capsys.readouterr().err
    assert main(["show", str(fifo)]) == 2
    assert "named pipe" in capsys.readouterr().err


def test_help_names_the_app_commands_and_imports_neither_torch_nor_qt():
    code = ("import sys, gradexplorer.launch as launch\n"
            "try:\n    launch.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules, 'PySide6' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "gradexplorer FILE" in result.stdout and "-style" in result.stdout
    assert result.stdout.strip().endswith("False False")  # lazy: --help loads no torch, no Qt


def test_qt_options_go_to_the_app_not_to_the_command_line(monkeypatch):
    import gradexplorer.ui.app as app_module
    from gradexplorer import launch

    seen = []
    monkeypatch.setattr(app_module, "main", lambda argv: seen.append(argv) or 0)
    assert launch.main(["-style", "fusion", "model.py"]) == 0
    assert seen == [["-style", "fusion", "model.py"]]

"""The shape that issue 30 asks for: records at the bottom, short functions, the session split by job.

These are facts about the source, read from it: a function that grows past
the limit, a record type defined above the floors that read it, or the
session's jobs folded back into one module fail here.
"""

import ast
import io
import tokenize
from pathlib import Path

import gradexplorer

PACKAGE = Path(gradexplorer.__file__).resolve().parent
CORE = PACKAGE / "core"

#: Code lines a function may have (docstrings, comments and blank lines not counted).
MAX_FUNCTION_LINES = 80

_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
             tokenize.ENDMARKER, tokenize.STRING}


def _code_lines(source: str) -> set[int]:
    """Line numbers holding a token that is code (not a comment, not a string such as a docstring)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines


def long_functions(root: Path, limit: int) -> list[str]:
    """``"file:line name (n lines)"`` for every function under ``root`` with more than ``limit`` code lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        code = _code_lines(source)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                count = sum(1 for line in range(node.lineno, node.end_lineno + 1) if line in code)
                if count > limit:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({count} lines)")
    return found


def test_no_function_is_longer_than_80_code_lines():
    """The core (issue 30 asks it there), and the UI too: the window, the inspector and the menus compose."""
    assert long_functions(PACKAGE, MAX_FUNCTION_LINES) == []


def test_the_line_count_sees_a_long_function_and_ignores_docstrings_and_comments(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(81))
    (tmp_path / "long.py").write_text(f"def long():\n{body}")
    words = '    """' + "\n".join(["text"] * 200) + '"""\n' + "    # a comment\n" * 50
    (tmp_path / "short.py").write_text(f"def short():\n{words}" + "".join(f"    y{i} = {i}\n" for i in range(79)))
    assert long_functions(tmp_path, MAX_FUNCTION_LINES) == ["long.py:1 long (82 lines)"]


def test_the_capture_and_its_records_are_defined_at_the_bottom():
    from gradexplorer.core.records.capture import Capture, CutRecord, OriginRecord, PassSummary, TensorInfo
    from gradexplorer.core.records.explanations import Explanation
    from gradexplorer.core.records.modules import ModuleAudit
    from gradexplorer.core.records.nodes import CaptureGraph, GradFlow, LeafPass, SavedValue

    for record in (Capture, CutRecord, OriginRecord, PassSummary, TensorInfo, Explanation, ModuleAudit,
                   CaptureGraph, GradFlow, LeafPass, SavedValue):
        assert record.__module__.startswith("gradexplorer.core.records."), record
    # The records import nothing from the floors above them.
    for path in (CORE / "records").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                assert node.module is None or node.module.split(".")[0] in ("records",), (path.name, node.module)


def test_the_session_is_split_by_job():
    """The container, the decoder, the checks, the hand-over and the file handling each have a module."""
    from gradexplorer.core.io import container, decode, files, handover, session, validate

    jobs = {
        container: ("_write_value_table", "_read_lines"),
        decode: ("capture_from_dict", "record_from_dict"),
        validate: ("_Reader",),
        handover: ("write_capture_part", "read_capture_part", "add_late_stats"),
        files: ("write_atomic", "not_a_regular_file"),
        session: ("save_session", "load_session", "read_session_bytes"),
    }
    for module, names in jobs.items():
        for name in names:
            assert getattr(module, name).__module__ == module.__name__, (module.__name__, name)
    assert len((CORE / "io" / "session.py").read_text(encoding="utf-8").splitlines()) < 700


#: Lines a class of the window's may span (issue 30: the window composes; no class over about 400 lines).
MAX_WINDOW_CLASS_LINES = 400


def long_classes(path: Path, limit: int) -> list[str]:
    """``"name (n lines)"`` for every class in ``path`` that spans more than ``limit`` lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > limit]


def test_the_window_composes_its_parts_and_its_view_model_is_qt_free():
    """MainWindow lays out the panes and hands the work to its parts, each a module of its own; what is on
    screen is the core's view model, which imports no Qt (the import contracts check the whole core)."""
    ui = PACKAGE / "ui"
    for name in ("main_window", "picture_actions", "session_files", "crash_recovery", "capture_display",
                 "run_commands", "inspector", "node_facts", "leaf_passes", "comparison_box", "graph_view",
                 "graph_export", "corner_overlays", "edge_drawing", "graph_zoom"):
        assert long_classes(ui / f"{name}.py", MAX_WINDOW_CLASS_LINES) == [], name
    window = ast.parse((ui / "main_window.py").read_text(encoding="utf-8"))
    parts = {alias.name for node in ast.walk(window) if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert {"PictureModel", "PictureActions", "SessionFiles", "CrashRecovery", "CaptureDisplay",
            "RunCommands"} <= parts
    model = (CORE / "view" / "model.py").read_text(encoding="utf-8")
    assert "PySide6" not in model and "PictureModel" in model


def test_the_class_count_sees_a_long_class(tmp_path):
    (tmp_path / "big.py").write_text("class Big:\n" + "".join(f"    x{i} = {i}\n" for i in range(400)))
    (tmp_path / "small.py").write_text("class Small:\n" + "".join(f"    x{i} = {i}\n" for i in range(399)))
    assert long_classes(tmp_path / "big.py", MAX_WINDOW_CLASS_LINES) == ["Big (401 lines)"]
    assert long_classes(tmp_path / "small.py", MAX_WINDOW_CLASS_LINES) == []

"""Every bundled example captures (pyqtgraph tests its examples the same way)."""

import pytest

from gradexplorer.resources import example_paths, read_example

#: Examples that fail on purpose, with the line they fail at.
EXPECTED_ERRORS = {"02_no_grad_new_tensor": 4}


def test_there_are_examples():
    assert len(example_paths()) >= 9


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_example_captures(path, example):
    cap = example(path.stem)
    assert cap.executed
    if path.stem in EXPECTED_ERRORS:
        assert cap.error is not None and cap.error.line == EXPECTED_ERRORS[path.stem]
    else:
        assert cap.ok, cap.error and cap.error.traceback
    assert cap.graph.number_of_nodes() > 0


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_example_has_a_what_to_look_at_text(path):
    text = read_example(path.stem)
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert len(comments) >= 3, "each example says what to look at"

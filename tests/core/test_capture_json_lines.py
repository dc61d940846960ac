"""Lines written by orjson from the capture's objects equal the ``to_jsonable`` form (session containers).

:func:`~gradexplorer.core.io.capture_json.encode_line` lets orjson write the
dataclasses, tuples and dicts of a capture itself. That is only right while
(1) orjson writes each object as ``to_jsonable`` would and (2) no float sits
outside a tensor record (orjson writes NaN as ``null``; the document spells
it ``"nan"``). Both are checked here: on every bundled example, and on the
type annotations of every record type the long lists hold.
"""

from __future__ import annotations

import dataclasses
import io
import math
import typing

import orjson
import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.io.capture_json import TensorSink, encode_line, to_jsonable
from gradexplorer.core.io.session import Session, read_session_bytes, write_session_container
from gradexplorer.core.records import nodes
from gradexplorer.core.records.capture import TensorInfo
from gradexplorer.core.records.explanations import Explanation
from gradexplorer.core.records.source import SourceLine
from gradexplorer.core.records.tensors import TensorRecord, TensorStats
from gradexplorer.resources import example_paths

EXAMPLES = [path.stem for path in example_paths()]


def _items(cap):
    for node_id, attrs in cap.graph.nodes(data=True):
        yield {"id": node_id, **attrs, "path": None}
    yield from cap.tensors
    yield from cap.explanations


@pytest.mark.parametrize("name", EXAMPLES)
def test_native_lines_equal_the_to_jsonable_lines_on_every_example(name):
    from gradexplorer.resources import read_example

    cap = capture(read_example(name))
    native, walked = TensorSink(5_000_000), TensorSink(5_000_000)
    for item in _items(cap):
        expected = orjson.dumps(to_jsonable(item, walked), option=orjson.OPT_NON_STR_KEYS)
        assert encode_line(item, native) == expected
    assert native.records == walked.records  # same records, same numbers, same order


def _dataclasses_reachable(roots: list[type]) -> set[type]:
    """Every dataclass named in the field annotations of ``roots``, recursively (TensorRecord is a leaf)."""
    seen: set[type] = set()
    stack = list(roots)
    while stack:
        kind = stack.pop()
        if kind in seen:
            continue
        seen.add(kind)
        hints = typing.get_type_hints(kind, localns={"TensorRecord": TensorRecord, "TensorStats": TensorStats})
        for hint in hints.values():
            pending = [hint]
            while pending:
                h = pending.pop()
                if dataclasses.is_dataclass(h) and isinstance(h, type):
                    stack.append(h)
                pending.extend(typing.get_args(h))
    return seen


def _float_fields(kind: type) -> list[str]:
    out = []
    for name, hint in typing.get_type_hints(kind, localns={"TensorRecord": TensorRecord, "TensorStats": TensorStats}).items():
        pending = [hint]
        while pending:
            h = pending.pop()
            if h is float or h is complex or h is typing.Any or h is object:
                out.append(name)
            pending.extend(typing.get_args(h))
    return out


def test_no_float_outside_tensor_records_in_the_natively_written_lists():
    node_types = [nodes.GradFlow, nodes.LeafPass, nodes.SavedValue, nodes.HookCallRecord, nodes.HookRecord,
                  SourceLine]
    reachable = _dataclasses_reachable(node_types + [TensorInfo, Explanation])
    assert TensorStats not in reachable  # statistics are only reached through a record (the sink's hook)
    assert {kind.__name__: _float_fields(kind) for kind in reachable if _float_fields(kind)} == {}


def test_non_finite_values_survive_a_container_written_natively():
    cap = capture("x = torch.tensor([1.0, float('nan'), float('inf')], requires_grad=True)\n"
                  "y = (x * 2).sum()\ny.backward()\nbig = torch.full((20000,), float('nan'))\n")
    buffer = io.BytesIO()
    write_session_container(Session(code=cap.code, device="cpu", capture=cap), buffer)
    back = read_session_bytes(buffer.getvalue()).capture
    leaf = next(a for _, a in back.graph.nodes(data=True) if a["kind"] == "leaf")
    plain = torch.tensor([1.0, float("nan"), float("inf")])
    assert torch.equal(leaf["value"].data.isnan(), plain.isnan()) and leaf["value"].data[2].item() == math.inf
    big = next(t for t in back.tensors if "big" in t.names).value
    assert big.data is None and big.stats.nan_count == 20000 and big.stats.mean is None

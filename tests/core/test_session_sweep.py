"""Every field of a real session, swept through wrong types and odd values (issue 13).

Each mutated document must be refused with one clear sentence, or load, save
again (format 2), load again to the same thing, and print with ``show``'s
formatter without an exception.
"""

from __future__ import annotations

import copy
import json
import os
import random
import threading
import time

import pytest

from gradexplorer import capture
from gradexplorer.core.records.errors import DocumentError
from gradexplorer.core.io.session import (
    load_session,
    read_session_bytes,
    read_session_text,
    session_from_capture,
    session_to_bytes,
    session_to_dict,
)
from gradexplorer.core.io.report import format_capture

PROGRAM = """\
torch.manual_seed(0)
lin = nn.Linear(3, 2)
x = torch.randn(4, 3)
h = lin(x)
h.register_hook(lambda g: g * 2)
loss = h.pow(2).mean()
loss.backward()
with torch.no_grad():
    y = x * 2
"""

ODD_VALUES = (None, True, 0, -1, 2**70, 1.5, 1e308 * 10, "x", "", [], {}, [1, "a"], {"a": 1})


def _paths(doc, prefix=()):
    """Every (path, value) in a JSON document, depth first."""
    yield prefix, doc
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from _paths(value, prefix + (index,))


def _copied_along(doc, path):
    """``doc`` with the containers on ``path`` copied (the rest shared): a mutation there leaves ``doc`` as it
    was, without a deep copy of the whole document per case."""
    root = copy.copy(doc)
    target = root
    for key in path[:-1]:
        try:
            child = target[key]
        except (KeyError, IndexError, TypeError):
            break
        if not isinstance(child, (dict, list)):
            break
        target[key] = copy.copy(child)
        target = target[key]
    return root


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def _delete(doc, path):
    target = doc
    for key in path[:-1]:
        target = target[key]
    if isinstance(target, dict):
        del target[path[-1]]
    else:
        target.pop(path[-1])


def _facts(session):
    cap = session.capture
    return (session.code, cap.passes, cap.tensors, cap.explanations, cap.modules, cap.error,
            sorted(cap.graph.nodes), sorted(cap.graph.edges))


def _check(text: str, outcomes: dict) -> None:
    try:
        session = read_session_text(text)
    except DocumentError as exc:
        assert "\n" not in str(exc) and str(exc), repr(exc)
        outcomes["refused"] += 1
        return
    data = session_to_bytes(session)  # every document that loads can be saved again
    again = read_session_bytes(data)
    assert _facts(again) == _facts(session)
    format_capture(again.capture)  # `gradexplorer show` never raises on what loads
    outcomes["round_trip"] += 1


def test_type_sweep_of_every_field_refuses_or_round_trips():
    base = session_to_dict(session_from_capture(capture(PROGRAM)))
    paths = [p for p, _ in _paths(base) if p]
    rng = random.Random(20261203)
    # Every kind of field (its path with list positions as "*": nodes.*.value.stats.std) with every odd
    # value and missing, each time at one of its places picked at random; every kind of list item (values,
    # heads) with one odd value. The reader checks a field the same way wherever it is: sweeping each
    # of the 40-odd nodes' copies of a field (as this test once did) took 9 minutes for the same coverage.
    by_kind: dict[tuple, list[tuple]] = {}
    for p in paths:
        by_kind.setdefault(tuple("*" if isinstance(k, int) else k for k in p), []).append(p)
    fields = [places for kind, places in by_kind.items() if isinstance(kind[-1], str)]
    items = [places for kind, places in by_kind.items() if not isinstance(kind[-1], str)]
    cases = [(rng.choice(places), value) for places in fields for value in (*ODD_VALUES, "<delete>")]
    cases += [(rng.choice(places), rng.choice(ODD_VALUES)) for places in items]
    assert len(by_kind) > 150, len(by_kind)  # the document's every kind of field is swept
    outcomes = {"refused": 0, "round_trip": 0}
    for path, value in cases:
        doc = _copied_along(base, path)
        if value == "<delete>":
            _delete(doc, path)
        else:
            _set(doc, path, value)
        if isinstance(doc.get("capture"), dict):
            doc["capture"] = {**doc["capture"], "extra_field": {"ignored": True}}  # extra fields are ignored
        _check(json.dumps(doc), outcomes)
    assert outcomes["refused"] > 100 and outcomes["round_trip"] > 100, outcomes


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_a_device_and_a_folder_are_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.gxsession"
    os.mkfifo(fifo)
    for path, word in ((fifo, "named pipe"), ("/dev/zero", "device"), (tmp_path, "folder")):
        errors = []

        def attempt(p=path):
            try:
                load_session(p)
            except DocumentError as exc:
                errors.append(str(exc))

        worker = threading.Thread(target=attempt, daemon=True)
        started = time.perf_counter()
        worker.start()
        worker.join(5)
        assert not worker.is_alive(), f"{path} blocked the loader"
        assert time.perf_counter() - started < 1.0
        assert errors and word in errors[0], errors


def _outlined(doc):
    """The format-3 form of a document: each tensor record moved to ``capture.records``, referred to by number."""
    records = []

    def outline(item):
        if isinstance(item, dict):
            if {"shape", "dtype", "device", "requires_grad", "values"} <= item.keys() and "id" not in item:
                records.append(item)
                return len(records) - 1
            return {k: outline(v) for k, v in item.items()}
        if isinstance(item, list):
            return [outline(v) for v in item]
        return item

    doc["capture"] = outline(doc["capture"])
    doc["capture"]["records"] = records
    doc["schema_version"] = 3
    return doc


def test_record_numbers_of_format_3_refuse_or_round_trip():
    base = _outlined(session_to_dict(session_from_capture(capture(PROGRAM))))
    assert read_session_text(json.dumps(base)).capture.tensor("lin.weight").grad is not None
    count = len(base["capture"]["records"])
    references = [p for p, v in _paths(base["capture"]) if type(v) is int and p and p[0] != "records"
                  and any(isinstance(k, str) and k in ("value", "grad", "variable", "outputs", "inputs", "tensor",
                                                       "record", "results", "delivered", "before", "after")
                          for k in p)]
    assert len(references) > 20
    outcomes = {"refused": 0, "round_trip": 0}
    for path in references:
        for value in (count, -1, True, "0", 1.0, [0], {"n": 0}):
            doc = copy.deepcopy(base)
            _set(doc["capture"], path, value)
            _check(json.dumps(doc), outcomes)
    doc = copy.deepcopy(base)
    doc["capture"]["records"][0] = 0  # a record that is a number itself
    _check(json.dumps(doc), outcomes)
    # None of them names a record: past the end, negative, a bool, text, a float, a list, an object that is no record.
    assert outcomes == {"refused": len(references) * 7 + 1, "round_trip": 0}, outcomes

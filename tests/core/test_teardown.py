"""A capture that left the screen is freed a slice at a time, and never while something still holds it."""

import weakref

from gradexplorer.core.capture.run import capture
from gradexplorer.core.teardown import CaptureTeardown

PROGRAM = """
import torch
a = torch.ones(3, requires_grad=True)
h = a
for _ in range(40):
    h = (h * 1.5).tanh()
h.sum().backward()
"""


def _graph_and_tensor_refs(cap):
    graph = weakref.ref(cap.graph)
    record = next(attrs["value"] for _, attrs in cap.graph.nodes(data=True)
                  if attrs.get("value") is not None and attrs["value"].data is not None)
    return graph, weakref.ref(record.data)


def test_a_capture_is_freed_over_several_steps_each_freeing_something():
    cap = capture(PROGRAM)
    nodes = cap.graph.number_of_nodes()
    graph, tensor = _graph_and_tensor_refs(cap)
    teardown = CaptureTeardown(cap)
    del cap
    steps = 1
    while not teardown.step(0.0):  # a zero budget still frees one item per step
        steps += 1
        assert steps < 10_000
    assert teardown.started
    assert graph() is None and tensor() is None
    assert steps > nodes  # one item at a time: the work was spread over the steps


def test_a_capture_still_held_elsewhere_is_left_whole_until_it_is_released():
    cap = capture(PROGRAM)
    nodes = cap.graph.number_of_nodes()
    graph, tensor = _graph_and_tensor_refs(cap)
    teardown = CaptureTeardown(cap)  # and ``cap`` is still ours
    for _ in range(3):
        assert teardown.step(1.0) is False
    assert not teardown.started
    assert cap.graph.number_of_nodes() == nodes and tensor() is not None  # untouched while we use it
    kept_graph = cap.graph
    del cap
    assert teardown.step(1.0) is False  # the graph alone is still held
    assert kept_graph.number_of_nodes() == nodes
    del kept_graph
    assert teardown.step(1.0) is True
    assert graph() is None and tensor() is None

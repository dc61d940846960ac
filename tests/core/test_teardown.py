"""A capture that left the screen is freed a slice at a time, and never while something still holds it."""

import subprocess
import sys
import weakref

import pytest

from gradexplorer.core.pipeline import capture
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


_FRAGMENTED = """
import sys
from gradexplorer.core.teardown import return_free_memory

def rss_mib():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20

base = rss_mib()  # the interpreter and what it imported
blocks = [bytes(1000) + i.to_bytes(4, "little") for i in range(300_000)]  # ~300 MB from malloc, not pymalloc
kept = blocks[::50]  # one in 50 stays: the heap cannot shrink from its top
del blocks
before = rss_mib()
trimmed = return_free_memory()
print(trimmed, round(before - base), round(rss_mib() - base))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_freed_memory_goes_back_to_the_os_after_a_teardown():
    done = subprocess.run([sys.executable, "-c", _FRAGMENTED], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    trimmed, held, after = done.stdout.split()  # MiB above what the interpreter held before the blocks
    assert trimmed == "True"
    assert int(held) > 250 and int(after) < int(held) / 4, (held, after)


def test_what_the_boxes_cached_for_a_graph_is_taken_apart_in_steps_with_it():
    """The boxes' health and module tree are kept per graph (weakly): they used to go in one callback."""
    from gradexplorer.core.analysis import grouping
    from gradexplorer.core.teardown import DroppedGraph

    cap = capture(PROGRAM)
    grouping.hierarchy(cap.graph)  # the module tree, cached
    grouping._member_health(cap.graph, list(cap.graph))  # what a box holding every node caches
    health = grouping._health_cache[cap.graph]
    assert len(health) == cap.graph.number_of_nodes() and cap.graph in grouping._hierarchy_cache
    nodes_left = []
    teardown = CaptureTeardown(DroppedGraph(cap.graph))
    graph = weakref.ref(cap.graph)
    del cap
    cached = len(grouping._health_cache), len(grouping._hierarchy_cache)
    assert teardown.step(0.0) is False  # split: the graph object goes, the cache's entries are the teardown's
    assert graph() is None and len(health) > 0
    assert (len(grouping._health_cache), len(grouping._hierarchy_cache)) == (cached[0] - 1, cached[1] - 1)
    while not teardown.step(0.0):
        nodes_left.append(len(health))
    assert len(health) == 0
    assert len(set(nodes_left)) > 10  # the health entries went a few at a time, not at once

"""Free a big capture a piece at a time, so that no single step holds the GIL for long.

Dropping the last reference to a 50,000-node capture frees it in one
cascade of deallocations (every node's attributes, records and value
tensors) inside a single C call: 0.36 s with the GIL held, measured as a
frozen window when a new run's result replaced the previous one. Taking the
graph apart node by node in a job instead lets the GUI thread have the GIL
between nodes.
"""

from __future__ import annotations

import sys
import time

__all__ = ["take_apart"]

_NODES_BETWEEN_PAUSES = 500
_PAUSE_SECONDS = 0.001


def take_apart(holder: list) -> bool:
    """Empty ``holder`` (a one-item list with a :class:`~gradexplorer.core.capture.Capture`) and free
    the capture's graph node by node.

    Only a capture that nothing else refers to is taken apart (a test, a
    job or a pane that still holds it keeps it whole, and reference counting
    frees it later). The capture is passed in a list so that the caller
    keeps no reference of its own.

    Returns
    -------
    bool
        True when the graph was taken apart.
    """
    capture = holder.pop()
    graph = capture.graph
    # References expected: to the capture, this frame's and getrefcount's
    # argument; to the graph, also the capture's field.
    if sys.getrefcount(capture) > 2 or sys.getrefcount(graph) > 3:
        return False
    # networkx's documented storage (DiGraph: _succ is _adj); one node's
    # attributes and edges at a time.
    for store in (graph._succ, graph._pred, graph._node):
        while store:
            store.popitem()
            if len(store) % _NODES_BETWEEN_PAUSES == 0:
                # Freeing a tensor releases and retakes the GIL; a thread that
                # does that thousands of times in a row keeps a waiting thread
                # from ever getting it (the "convoy effect": the window stayed
                # frozen 0.45 s although every step here is short). A real
                # sleep lets it in.
                time.sleep(_PAUSE_SECONDS)
    return True

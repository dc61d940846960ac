"""The view model: which picture of which capture is on screen, and what follows from it, Qt-free.

:class:`PictureModel` holds the :class:`~gradexplorer.core.view.picture.CaptureResult`
on screen (the capture, the pass drawn, its boxes and layout), the current
node, the Find position and the filter in force, and answers the window's questions about
them that need no widget: which nodes a source line made, which boxes must
open to show a node, what a box holds, which module a Collapse folds, where
the next Find match is. The window observes it (:meth:`PictureModel.observe`)
and does the drawing; what takes long (a layout, a search over 50,000 nodes)
the window still runs in a job with the functions of
:mod:`gradexplorer.core.view.picture` and :mod:`gradexplorer.core.analysis.query`,
then hands the product here. Kept apart from Qt so that the rules of what is
shown are tested without a window, on real captures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..analysis.grouping import GROUP_PREFIX, expand_to_show, parent_box
from .picture import CaptureResult

__all__ = ["PictureModel"]

#: ``observer(old, new)``: the picture on screen changed from ``old`` to ``new`` (either may be None).
Observer = Callable[[CaptureResult | None, CaptureResult | None], None]


class PictureModel:
    """What is on screen of a capture, with the rules of what to show next.

    Parameters
    ----------
    on_replaced : callable, optional
        ``on_replaced(old)`` when the capture on screen is replaced by another
        one (not when the same capture is drawn otherwise: another pass, a
        box opened): the window frees the old one in steps
        (:class:`~gradexplorer.ui.capture_retirer.CaptureRetirer`).
    on_graph_dropped : callable, optional
        ``on_graph_dropped(holder)`` when a graph drawn instead of the
        capture's own (a pass's graph, a comparison's joint graph) leaves the
        screen; ``holder`` is a one-item list to take it from, so that the
        model keeps no reference: the window frees it in steps too.
    """

    def __init__(self, on_replaced: Callable[[CaptureResult], None] | None = None,
                 on_graph_dropped: Callable[[list], None] | None = None) -> None:
        self._result: CaptureResult | None = None
        self._on_replaced = on_replaced
        self._on_graph_dropped = on_graph_dropped
        self._observers: list[Observer] = []
        #: The last Find: ``(text, index of the match shown)``; the next Find of the same text shows the next one.
        self.find_step: tuple[str | None, int] = (None, -1)
        #: The filter in force (a key of :data:`~gradexplorer.core.analysis.query.FILTERS`, ``"all"``: none)
        #: and the nodes that pass it (None: no filter).
        self.filter_key = "all"
        self.filter_nodes: tuple[str, ...] | None = None
        #: The node or module box (``GROUP_PREFIX`` + path) the user is on: what the inspector shows and what
        #: Collapse, Expand, the path filters, Go To's steps and a saved session start from (None: none).
        #: The picture's view reports every change (:meth:`set_current`).
        self.current_node: str | None = None

    # -- the picture on screen --------------------------------------------------------------
    @property
    def result(self) -> CaptureResult | None:
        """The capture on screen, laid out (None: nothing run or opened yet)."""
        return self._result

    @result.setter
    def result(self, value: CaptureResult | None) -> None:
        old, self._result = self._result, value
        if old is not None and (value is None or value.capture.graph is not old.capture.graph):
            # Another capture (a run's first picture shares its graph with the complete capture that replaces
            # it: that is the same capture). Its Find position and filter were about nodes that are gone.
            self.find_step = (None, -1)
            self.set_filter("all", None)
            if self._on_replaced is not None:
                self._on_replaced(old)
        for observer in tuple(self._observers):
            observer(old, value)
        if old is not None and self._on_graph_dropped is not None:
            dropped = old.pass_graph
            if dropped is not None and dropped is not old.capture.graph and (
                    value is None or (dropped is not value.pass_graph and dropped is not value.capture.graph)):
                self._on_graph_dropped([dropped])  # the retirer frees it later, once nothing else holds it

    def observe(self, observer: Observer) -> None:
        """Call ``observer(old, new)`` after every change of the picture on screen."""
        self._observers.append(observer)

    def show(self, **changes) -> CaptureResult:
        """The same capture drawn otherwise (``display``, ``layout``, ``pass_index``, ``pass_graph``), now on screen."""
        if self._result is None:
            raise ValueError("no capture is on screen")
        self.result = replace(self._result, **changes)
        return self._result

    def set_current(self, node_id: str | None) -> None:
        """The user is now on ``node_id`` (``""`` or None: on nothing)."""
        self.current_node = node_id or None

    def set_filter(self, key: str, nodes) -> bool:
        """Keep the filter in force; returns whether one is (``"all"`` or no nodes: none)."""
        active = key != "all" and nodes is not None
        self.filter_key = key if active else "all"
        self.filter_nodes = tuple(nodes) if active else None
        return active

    # -- questions about it ------------------------------------------------------------------
    def is_new_pass(self, index: int | None, *, force: bool = False) -> bool:
        """Whether drawing pass ``index`` (None: every pass) changes the picture: a pass that exists, not the one
        shown (unless ``force``)."""
        if self._result is None or (index == self._result.pass_index and not force):
            return False
        return index is None or 0 <= index < len(self._result.capture.passes)

    def nodes_at_line(self, line: int, file: str | None = None) -> list[str]:
        """The nodes made at ``line`` of the program (``file`` None) or of a project file, in graph order."""
        if self._result is None:
            return []
        return [n for n, source in self._result.capture.graph.nodes(data="source")
                if source is not None and source.line == line and source.file == file]

    def scopes_of(self, node_id: str) -> dict[str, str]:
        """Where each name of a node's tensor is held, for names held in a function (``{"loss": "main()"}``)."""
        scopes: dict[str, str] = {}
        if self._result is None:
            return scopes
        for info in self._result.capture.tensors:
            if info.node == node_id and info.scopes:
                for name, scope in zip(info.names, info.scopes):
                    if scope:
                        scopes.setdefault(name, scope)
        return scopes

    def needs_every_pass(self, node_id: str) -> bool:
        """Whether ``node_id`` is a node of the capture that the pass on screen does not have."""
        result = self._result
        return result is not None and node_id not in result.shown_graph and node_id in result.capture.graph

    def boxes_to_open_for(self, node_id: str) -> frozenset[str] | None:
        """The modules to keep folded so that ``node_id`` shows, when a box hides it now; else None."""
        result = self._result
        display = result.display if result is not None else None
        if display is None or display.owner.get(node_id, node_id) == node_id:
            return None
        graph = result.shown_graph
        return expand_to_show(graph, display.collapsed, graph.nodes[node_id].get("module"))

    def drawn_for(self, node_ids: list[str]) -> list[str]:
        """What is drawn for each of ``node_ids``: the node, or the box that holds it (each once, in order)."""
        display = self._result.display if self._result is not None else None
        if display is None:
            return list(node_ids)
        return list(dict.fromkeys(display.owner.get(n, n) for n in node_ids))

    def drawn_inside(self, path: str) -> list[str]:
        """The boxes and nodes on screen that belong to module ``path`` (exact paths: ``model.1`` holds
        ``model.1.fc``, not ``model.10``)."""
        result = self._result
        if result is None or result.display is None:
            return []

        def inside(module: str) -> bool:
            return module == path or module.startswith(path + ".")

        nodes = result.capture.graph.nodes
        return [d for d in result.display.nodes
                if inside(d[len(GROUP_PREFIX):] if d.startswith(GROUP_PREFIX) else nodes[d].get("module") or "")]

    def module_to_fold(self, selected: str) -> str | None:
        """The module Collapse folds for the node or box ``selected``: a node's module, a box's parent (None: none)."""
        result = self._result
        if result is None or not selected:
            return None
        graph = result.shown_graph
        if selected.startswith(GROUP_PREFIX):
            return parent_box(graph, selected[len(GROUP_PREFIX):]) or None
        return graph.nodes[selected].get("module") or None

    def next_match(self, text: str, matches: list[str]) -> tuple[int, list[str]]:
        """Find's next step: the index of the match to show and the matches with it first.

        The same text again steps to the next match (and round to the first);
        another text starts at its first.
        """
        last_text, last_index = self.find_step
        index = (last_index + 1 if last_text == text else 0) % len(matches)
        self.find_step = (text, index)
        return index, [matches[index]] + [m for m in matches if m != matches[index]]

"""The window's commands on the picture: inspect, show nodes, pass, module boxes, depth, Find, filters, colours.

:class:`PictureActions` carries out what the user asks of the graph on
screen (a click, a double-click on a box, the depth slider, the pass
picker, Find, a filter, Colour, the first NaN): it asks the view model
(:class:`~gradexplorer.core.view.model.PictureModel`, ``window.view``) what
to show, computes what takes long in a job off the GUI thread
(:meth:`PictureActions.view_job`), hands the new picture to the view model
and draws it in the window's widgets. The window makes one and connects
nothing of this itself (the menus call ``window.picture``).
"""

from __future__ import annotations

from ..core.analysis.accounting import leaf_steps_of
from ..core.analysis.grouping import (
    GROUP_PREFIX,
    breadcrumbs,
    collapse_at_depth,
    collapse_one,
    deepest_level,
    depth_of,
    drawn_count,
    expand_display,
)
from ..core.analysis.query import FILTERS, filter_nodes, first_new_nan, first_nonfinite, nonfinite_kind, search_nodes
from ..core.analysis.verify import verify_node
from ..core.view.picture import expanded_layout, pass_view, prepare_view
from .language import N_, phrase_text, place_text, translator_for

__all__ = ["PictureActions"]

_tr = translator_for(__name__)

#: The two directions a NaN search goes (:meth:`PictureActions.jump_to_first_nonfinite`), said in the reader's
#: language (marked here: ``_tr(where)`` looks them up in this module's context).
_DIRECTIONS = (N_("forward"), N_("backward"))


class PictureActions:
    """What the user does to the picture, carried out on ``window``'s widgets with its view model.

    Parameters
    ----------
    window : MainWindow
        Its graph view, navigator, inspector, panes, Find box, filter and
        colour combos, status line and job runner are used; its ``view`` is
        the view model.
    """

    def __init__(self, window) -> None:
        self.window = window
        self.view = window.view
        self._view_job_running = False  # see view_job
        # The window's widgets this works on (made before it; the job runner is read from the window when used).
        self.graph_view, self.navigator, self.inspector = window.graph_view, window.navigator, window.inspector
        self.status, self.comparison, self.search_box = window.status, window.comparison, window.search_box
        self.filter_combo, self.filter_mode_combo = window.filter_combo, window.filter_mode_combo
        self.clear_filter_action, self.filter_count = window.clear_filter_action, window.filter_count
        self.colour_combo = window.colour_combo
        window.graph_view.node_selected.connect(self.view.set_current)  # first: the slots below read it
        window.graph_view.node_selected.connect(self.inspect)
        window.graph_view.group_activated.connect(self.expand_group)
        window.navigator.crumb_clicked.connect(self.collapse_module)
        window.navigator.depth_chosen.connect(self.set_depth)
        window.navigator.pass_chosen.connect(self.set_pass)
        window.editor.line_activated.connect(self._on_editor_line_activated)
        window.tensors_pane.node_requested.connect(self._on_tensors_pane_node_requested)
        window.gradient_flow_pane.node_requested.connect(self._on_tensors_pane_node_requested)
        window.search_box.returnPressed.connect(self._on_search_box_return_pressed)
        window.filter_combo.activated.connect(self._on_filter_combo_activated)
        window.filter_mode_combo.activated.connect(self._on_filter_combo_activated)
        window.colour_combo.activated.connect(self._on_colour_combo_activated)

    def inspect(self, node_id: str) -> None:
        """Show the node or module box ``node_id`` (``""``: none) in the inspector and the breadcrumbs."""
        if not node_id or self.view.result is None:
            self.inspector.show_node(None, None)
            self.navigator.set_crumbs(())
            return
        graph = self.view.result.shown_graph
        if node_id.startswith(GROUP_PREFIX):
            self.inspector.show_group(self.view.result.display.groups[node_id])
            self.navigator.set_crumbs(breadcrumbs(graph, node_id[len(GROUP_PREFIX):]))
            return
        module = graph.nodes[node_id].get("module")
        self.navigator.set_crumbs(breadcrumbs(graph, module),
                                  hint=_tr("This node was not made inside an nn.Module"))
        cap = self.view.result.capture
        if not self.comparison.owns(node_id):  # a node only the compared session has: shown from it
            self.inspector.show_node(node_id, cap.graph.nodes[node_id], cap.passes, verify_node(cap, node_id),
                                     self.view.scopes_of(node_id), prefer_pass=self.view.result.pass_index,
                                     leaf_steps=leaf_steps_of(cap.graph, node_id))
        self.comparison.inspect(node_id)

    def show_nodes(self, node_ids: list[str]) -> None:
        """Select graph nodes, opening the module boxes that hide them; the first is inspected."""
        if self.view.result is None or not node_ids:
            return
        if self.view.needs_every_pass(node_ids[0]):
            self.set_pass(None)  # a node of another pass: every pass is drawn, then it is shown
        collapsed = self.view.boxes_to_open_for(node_ids[0])
        if collapsed is not None:
            self.redisplay(collapsed)
        self.graph_view.select_nodes(self.view.drawn_for(node_ids))

    def _on_editor_line_activated(self, line: int) -> None:
        ids = self.view.nodes_at_line(line)
        if ids:
            self.show_nodes(ids)

    def _on_tensors_pane_node_requested(self, node_id: str) -> None:
        self.show_nodes([node_id])

    def view_job(self, name: str, fn):
        """Compute something about the capture on screen in a job, while the window keeps painting.

        Returns None (with a word in the status bar) when another such job
        is still running (a second Find pressed meanwhile: the local event
        loop of :meth:`JobRunner.run_and_wait` would otherwise start it
        inside the first), or when the capture on screen changed while it
        ran (a run finished): its answer would be about another capture.
        """
        if self._view_job_running:
            self.status.setText(_tr("Still working on the previous request…"))
            return None
        shown = self.view.result
        self._view_job_running = True
        try:
            value = self.window.jobs.run_and_wait(name, fn)
        finally:
            self._view_job_running = False
        return value if self.view.result is shown else None

    def redisplay(self, collapsed: frozenset[str]) -> None:
        """Draw the capture again with another set of collapsed modules, keeping the zoom."""
        if self.view.result is None:
            return
        cap, graph = self.view.result.capture, self.view.result.shown_graph
        self._redraw("redisplay", lambda: prepare_view(cap, frozenset(collapsed), graph=graph))

    def _redraw(self, name: str, make) -> bool:
        """Draw the graph on screen with the ``(display, layout)`` that ``make`` computes in a job, keeping the
        zoom; False when the job gave nothing (another one was running, or the capture changed meanwhile)."""
        result = self.view.result
        zoom, fitted = self.graph_view.zoom.level(), self.graph_view.zoom.fitted
        prepared = self.view_job(name, make)
        if prepared is None:
            return False
        display, layout = prepared
        self.view.show(display=display, layout=layout)
        self.graph_view.show_graph(result.shown_graph, layout, passes_ran=bool(result.capture.passes),
                                   display=display)
        self.graph_view.zoom.restore(zoom, fitted=fitted)
        self.update_navigator()
        return True

    def set_pass(self, index: int | None, *, force: bool = False) -> None:
        """Draw one backward pass (0-based ``index``), or every pass (None), in a job; the zoom is fitted again.

        The picture, its colours and captions, the filters and Find follow
        the pass shown; the inspector opens a node on that pass. While a
        comparison is on screen, its picture of that pass. ``force``: draw
        it again even when it is the pass shown.
        """
        if not self.view.is_new_pass(index, force=force):
            return
        cap = self.view.result.capture
        self.window.replay.stop()  # a replay is of the pass it showed
        if self.comparison.active:
            self.comparison.show_pass(index)
            return
        prepared = self.view_job("pass", lambda: pass_view(cap, index))
        if prepared is None:
            return
        graph, display, layout = prepared
        self.view.show(display=display, layout=layout, pass_index=index, pass_graph=graph)
        self.show_filter("all", None)  # a filter belongs to the picture it was made on
        self.graph_view.show_graph(self.view.result.shown_graph, layout, passes_ran=bool(cap.passes), display=display)
        self.update_navigator()
        self.navigator.set_passes(len(cap.passes), index)
        self.inspector.show_node(None, None)
        which = _tr("every pass") if index is None else _tr("pass {number} of {count}").format(
            number=index + 1, count=len(cap.passes))
        self.status.setText(_tr("Showing {which}: {nodes} nodes").format(
            which=which, nodes=self.view.result.shown_graph.number_of_nodes()))

    def expand_group(self, path: str) -> None:
        """Open a module box one level (only that box is recomputed) and centre on what it held."""
        if self.view.result is None or self.view.result.display is None:
            return
        graph = self.view.result.shown_graph
        old_display, old_layout = self.view.result.display, self.view.result.layout

        def expand():
            display = expand_display(graph, old_display, path)
            return display, expanded_layout(graph, old_display, old_layout, display, GROUP_PREFIX + path)

        if not self._redraw("expand", expand):
            return
        shown = self.view.drawn_inside(path)
        if shown:
            self.graph_view.select_nodes(shown[:1])
        self.status.setText(_tr("Expanded {path}: {count} boxes and nodes on screen").format(
            path=path, count=len(self.view.result.display.nodes)))

    #: The depth slider refuses a picture with more boxes and nodes than this (open boxes one by one).
    MAX_DRAWN = 10_000

    def update_navigator(self) -> None:
        """The depth slider's range and position for the picture on screen."""
        if self.view.result is None or self.view.result.display is None:
            self.navigator.set_levels(0, 0)
            return
        graph = self.view.result.shown_graph
        self.navigator.set_levels(deepest_level(graph), depth_of(graph, self.view.result.display.collapsed))

    def set_depth(self, depth: int) -> None:
        """Open every module box down to ``depth`` levels (the slider); refused above :data:`MAX_DRAWN`."""
        if self.view.result is None or self.view.result.display is None:
            return
        graph = self.view.result.shown_graph

        def plan():
            collapsed = collapse_at_depth(graph, depth)
            return collapsed, drawn_count(graph, collapsed)

        planned = self.view_job("depth", plan)
        if planned is None:
            return
        collapsed, count = planned
        if count > self.MAX_DRAWN:
            self.update_navigator()  # back to where the picture is
            self.status.setText(_tr("Depth {depth} would draw {count:,} boxes and nodes (more than {most:,}): "
                                    "open the boxes you need by double-click instead").format(
                depth=depth, count=count, most=self.MAX_DRAWN))
            return
        self.redisplay(collapsed)
        self.status.setText(_tr("Depth {depth}: {count} boxes and nodes").format(
            depth=depth, count=len(self.view.result.display.nodes)))

    def collapse_module(self, path: str) -> None:
        if self.view.result is None or self.view.result.display is None:
            return
        self.redisplay(collapse_one(self.view.result.shown_graph, self.view.result.display.collapsed, path))
        self.graph_view.select_node(GROUP_PREFIX + path)
        self.status.setText(_tr("Collapsed {path}").format(path=path))

    def collapse_selected(self) -> None:
        """Fold the selected node's module (on a box: its parent module) into one box."""
        selected = self.view.current_node
        if self.view.result is None or not selected:
            return
        module = self.view.module_to_fold(selected)
        if module:
            self.collapse_module(module)
        elif not selected.startswith(GROUP_PREFIX):
            self.status.setText(_tr("This node was not made inside an nn.Module"))

    def expand_selected(self) -> None:
        """Open the selected module box one level."""
        selected = self.view.current_node
        if selected and selected.startswith(GROUP_PREFIX):
            self.expand_group(selected[len(GROUP_PREFIX):])

    def _on_search_box_return_pressed(self) -> None:
        self.find(self.search_box.text())

    def find(self, text: str) -> list[str]:
        """Select the nodes matching ``text`` and centre on the first; repeated calls step through them."""
        if self.view.result is None:
            return []
        graph = self.view.result.shown_graph
        matches = self.view_job("find", lambda: search_nodes(graph, text))
        if matches is None:
            return []
        if not matches:
            self.status.setText(_tr("No node matches {text!r}").format(text=text))
            return []
        index, ordered = self.view.next_match(text, matches)
        self.show_nodes(ordered)
        self.status.setText(_tr("{text!r}: match {number} of {count}").format(
            text=text, number=index + 1, count=len(matches)))
        return matches

    def apply_filter(self, key: str) -> list[str]:
        """Dim or hide (the mode combo) everything that does not pass a filter of :data:`FILTERS`.

        ``"all"`` clears the filter. The count of passing nodes shows beside
        the combo, with a Clear button; the filter stays while boxes are
        opened and closed, and a new run or session clears it.
        """
        if self.view.result is None:
            return []
        cap, shown = self.view.result.capture, self.view.result.shown_graph
        current = self.view.current_node
        if current and current.startswith(GROUP_PREFIX):
            current = None
        nodes = self.view_job(
            "filter", lambda: filter_nodes(shown, key, selected=current, passes_ran=bool(cap.passes)))
        if nodes is None:
            return []
        self.show_filter(key, nodes)
        return nodes

    def show_filter(self, key: str, nodes: list[str] | None) -> None:
        active = self.view.set_filter(key, nodes)
        self.paint_filter()
        self.filter_combo.setCurrentIndex(max(self.filter_combo.findData(key if active else "all"), 0))
        self.clear_filter_action.setEnabled(active)
        if not active:
            self.filter_count.setText("")
            if nodes is not None:
                self.status.setText(_tr("Filter cleared: every node shown"))
            return
        total = self.view.result.shown_graph.number_of_nodes()
        self.filter_count.setText(_tr(" {count} of {total} nodes ").format(count=len(nodes), total=total))
        rest = _tr("dimmed") if self.filter_mode_combo.currentData() == "dim" else _tr("hidden")
        self.status.setText(_tr("{value}: {count} node(s); the rest {rest}").format(
            value=phrase_text(FILTERS[key]), count=len(nodes), rest=rest))

    def paint_filter(self) -> None:
        """Dim or hide what the filter in force (the view model's) leaves out; nothing when there is none.

        Also after something else dimmed the picture for a while: a replay
        dims the nodes not run yet, and when it stops the user's filter,
        which the combo still names, is painted again.
        """
        nodes = self.view.filter_nodes
        self.graph_view.set_filter(nodes, self.filter_mode_combo.currentData())

    def _on_filter_combo_activated(self, _index: int) -> None:
        self.apply_filter(self.filter_combo.currentData())

    def _on_colour_combo_activated(self, _index: int) -> None:
        self.graph_view.set_colour_mode(self.colour_combo.currentData())

    def set_colour_mode(self, key: str) -> None:
        """Colour the nodes by ``"kind"``, ``"grad_norm"`` or, while comparing, ``"diff"`` (Graph > Colour, the
        combo)."""
        self.colour_combo.setCurrentIndex(max(self.colour_combo.findData(key), 0))
        self.graph_view.set_colour_mode(self.colour_combo.currentData())

    def focus_find(self) -> None:
        """Ctrl+F: the Find box, its text selected to type over."""
        self.search_box.setFocus()
        self.search_box.selectAll()

    def step(self, direction: str) -> str | None:
        """Graph > Go To: make a neighbour of the current node current: ``"input"`` (down the graph, the first
        of its ``next_functions`` drawn), ``"consumer"`` (up), ``"left"``/``"right"`` (the next drawn node in
        its row).

        Without a current node, the top-left node becomes current. Returns the
        new current node (None when there is none that way: nothing changes).
        """
        view = self.graph_view
        layout = view.drawn_layout
        if layout is None:
            return None
        positions = layout.positions
        visible = [n for n in view.visible_node_ids() if n in positions]
        current = self.view.current_node
        if current is None:
            target = min(visible, key=lambda n: (positions[n][1], positions[n][0]), default=None)
        elif direction in ("input", "consumer"):
            edges = view.edges_of(current)
            near = [v for u, v in edges if u == current] if direction == "input" else \
                [u for u, v in edges if v == current]
            target = next((n for n in near if n in visible), None)
        else:
            y = positions[current][1]
            row = [n for _, n in sorted((positions[n][0], n) for n in visible if abs(positions[n][1] - y) < 1e-6)]
            index = row.index(current) + (1 if direction == "right" else -1)
            target = row[index] if 0 <= index < len(row) else None
        if target is not None:
            view.select_node(target)
        return target

    def jump_to_first_nonfinite(self, where: str) -> str | None:
        """Select the first node with NaN/Inf in ``"forward"`` or ``"backward"``, and its source line."""
        if self.view.result is None:
            return None
        graph = self.view.result.capture.graph

        def find():
            forward, backward = first_nonfinite(graph)
            kind = nonfinite_kind(graph.nodes[forward]) if forward is not None else ""
            # An Inf first (a -inf attention mask, on purpose): the first NaN its inputs did not have.
            new_nan = first_new_nan(graph) if where == "forward" and kind == "Inf" else None
            return forward, backward, kind, new_nan

        found = self.view_job("first-nonfinite", find)
        if found is None:
            return None
        forward, backward, kind, new_nan = found
        node_id = forward if where == "forward" else backward
        if node_id is None:
            self.status.setText(_tr("No NaN or Inf in the {where} pass").format(where=_tr(where)))
            return None
        earlier = ""
        if new_nan is not None and new_nan != forward:
            earlier = _tr(" (before it, {node} made Inf only, often on purpose, such as a -inf attention mask: its NaN "
                          "comes later)").format(node=self._node_words(forward))
            node_id = new_nan
        self.show_nodes([node_id])
        source = self.view.result.capture.graph.nodes[node_id].get("source")
        if source is not None:
            self.window.show_source(source.file or "", source.line)
        if earlier:
            self.status.setText(_tr("First NaN in forward that its inputs did not have: {node}{earlier}").format(
                node=self._node_words(node_id), earlier=earlier))
        else:
            what = _tr(" ({kind})").format(kind=kind) if where == "forward" and kind else ""
            self.status.setText(_tr("First NaN/Inf in {where}: {node}{what}").format(
                where=_tr(where), node=self._node_words(node_id), what=what))
        return node_id

    def _node_words(self, node_id: str) -> str:
        """``n12 SoftmaxBackward0 at line 6``: a node as the status bar names it."""
        attrs = self.view.result.capture.graph.nodes[node_id]
        source = attrs.get("source")
        line = _tr(" at {where}").format(where=place_text(source)) if source is not None else ""
        return f"{node_id} {attrs.get('op', '')}{line}"

"""File > Compare with Session: the run on screen beside a saved one, in one picture and side by side.

The saved session is run A, the reference (the run before the edit); the run
on screen is run B. Reading the session, matching the two graphs
(:mod:`gradexplorer.core.analysis.matching`), comparing every value and
gradient and laying out the joint picture all happen in a job: the window
keeps answering. The picture is run B's graph with run A's removed nodes put
back (:mod:`gradexplorer.core.analysis.diff_graph`), coloured by status
(same, changed, added, removed: the legend says which is which); the
inspector shows the chosen node of both runs side by side with their
difference; the Tensors tab shows the reason codes that changed
(``alias → no_grad``), the Modules tab the placements that changed, and the
console the comparison's report. A program with several passes is compared
on the pass on screen (:func:`~gradexplorer.core.analysis.diff_graph.pass_status`),
and the pass picker moves the comparison to another. A replay, a new run or
End Comparison ends it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from ..core.analysis.accounting import leaf_steps_of
from ..core.analysis.diff import diff_captures, run_label
from ..core.analysis.diff_graph import REMOVED_PREFIX, comparison_graph, warm_box_statuses
from ..core.io.diff_report import comparison_rows, format_diff
from ..core.io.session import SESSION_SUFFIX, load_session
from ..core.records.capture import Capture
from ..core.records.diff import STATUSES, CaptureDiff
from ..core.records.errors import DocumentError
from ..core.view.picture import prepare_view
from .language import N_, error_text, phrase_text, translator_for

__all__ = ["Comparison", "ComparisonController", "prepare_comparison"]

_tr = translator_for(__name__)


@dataclass(frozen=True)
class Comparison:
    """A comparison on screen: the session compared with, its capture (run A) and the records."""

    path: Path
    capture_a: Capture
    diff: CaptureDiff


def prepare_comparison(path: Path, capture_b: Capture, pass_index: int | None):
    """In a job: read the session, compare it with ``capture_b``, lay out the joint picture of ``pass_index``.

    Returns ``(capture_a, diff, (graph, display, layout), report)``: ``report`` is the console's text.
    """
    capture_a = load_session(path).capture
    diff = diff_captures(capture_a, capture_b, a_label=f"{path.name} ({capture_a.device})",
                         b_label=run_label(capture_b, _tr("this run"))).warm()
    picture = comparison_picture(diff, capture_a, capture_b, pass_index)
    return capture_a, diff, picture, format_diff(diff, nodes=False, say=phrase_text)


def comparison_picture(diff: CaptureDiff, capture_a: Capture, capture_b: Capture, pass_index: int | None):
    """In a job: the joint graph of one pass (None: every pass), its boxes and layout: ``(graph, display, layout)``."""
    graph = comparison_graph(diff, capture_a.graph, capture_b.graph, pass_index)
    display, layout = prepare_view(capture_b, None, graph=graph)
    warm_box_statuses(graph, display.groups.values())
    return graph, display, layout


#: A comparison's statuses, alone (the inspector's heading) and counted (the status bar).
_STATUS_WORDS = {"same": N_("same"), "changed": N_("changed"), "added": N_("added"), "removed": N_("removed")}
_STATUS_COUNTS = {"same": N_("{count} same"), "changed": N_("{count} changed"), "added": N_("{count} added"),
                  "removed": N_("{count} removed")}


def _counted(counts: dict[str, int]) -> str:
    """``"7 same, 0 changed, 0 added, 5 removed"``."""
    return ", ".join(_tr(_STATUS_COUNTS[status]).format(count=count) for status, count in counts.items())


class ComparisonController(QObject):
    """Connects File > Compare with Session / End Comparison to a main window's picture, inspector and console."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.current: Comparison | None = None

    @property
    def active(self) -> bool:
        """True while a comparison is on screen."""
        return self.current is not None

    def ask_session_path(self) -> str:
        """The open dialog (a method, so tests can replace it)."""
        path, _ = QFileDialog.getOpenFileName(self.window, _tr("Compare with session"), "",
                                              _tr("gradexplorer sessions (*{suffix} *.json)").format(
                                                  suffix=SESSION_SUFFIX))
        return path

    def compare_with_dialog(self) -> bool:
        path = self.ask_session_path()
        return bool(path) and self.compare_with(Path(path))

    def compare_with(self, path: Path) -> bool:
        """Compare the run on screen (run B) with the session at ``path`` (run A); False with a message on failure."""
        window = self.window
        result = window.result
        if result is None or not result.complete:
            window.status.setText(_tr("Nothing to compare yet: run the code (or open a session) first"))
            return False
        path = Path(path)
        window.status.setText(_tr("Comparing with {name}…").format(name=path.name))
        try:
            prepared = window.picture.view_job(
                "compare", lambda: prepare_comparison(path, result.capture, result.pass_index))
        except Exception as exc:  # noqa: BLE001 - any failure is a message; the picture stays as it is
            why = error_text(exc) if isinstance(exc, (DocumentError, OSError)) else f"{type(exc).__name__}: {exc}"
            window.console.append_message(_tr("Cannot compare with {name}: {why}").format(
                name=path.name, why=why), error=True)
            window.status.setText(_tr("Cannot compare with {name}").format(name=path.name))
            return False
        if prepared is None:
            return False
        capture_a, diff, picture, report = prepared
        window.replay.stop()
        self.current = Comparison(path, capture_a, diff)
        self._show_picture(result.pass_index, picture)
        self._offer_colour(True)
        window.picture.set_colour_mode("diff")
        window.inspector.show_node(None, None)
        window.end_comparison_action.setEnabled(True)
        window.tensors_pane.show_previous({n.name: (n.code_a or "-", phrase_text(n.sentence_a) if n.sentence_a
                                                    else _tr("(not bound there)"))
                                           for n in diff.names if n.reason_changed and n.code_b is not None})
        window.modules_pane.show_changes({p.path: ", ".join(p.changes) for p in diff.placements})
        window.console.append_message(_tr("Compared with {name}:\n{report}").format(name=path.name, report=report))
        shown = "" if result.pass_index is None else \
            _tr("; pass {number} of {count} shown: {counts}").format(
                number=result.pass_index + 1, count=len(result.capture.passes), counts=self._counts_text())
        window.status.setText(_tr("Compared with {name}: {counts}{shown}").format(
            name=path.name, counts=_counted(diff.counts()), shown=shown))
        return True

    def _show_picture(self, pass_index: int | None, picture) -> None:
        window = self.window
        graph, display, layout = picture
        window.view.show(display=display, layout=layout, pass_index=pass_index, pass_graph=graph)
        window.picture.show_filter("all", None)
        passes = len(window.result.capture.passes)
        window.graph_view.show_graph(graph, layout, passes_ran=bool(passes), display=display)
        window.navigator.set_passes(passes, pass_index)

    def show_pass(self, pass_index: int | None) -> bool:
        """The comparison's picture of another pass (the pass picker while comparing); False if it was not made."""
        current, window = self.current, self.window
        cap = window.result.capture
        picture = window.picture.view_job(
            "compare", lambda: comparison_picture(current.diff, current.capture_a, cap, pass_index))
        if picture is None or self.current is not current:
            return False
        self._show_picture(pass_index, picture)
        window.inspector.show_node(None, None)
        window.inspector.show_comparison(None)
        which = _tr("every pass") if pass_index is None else _tr("pass {number} of {count}").format(
            number=pass_index + 1, count=len(cap.passes))
        window.status.setText(_tr("Compared with {name}, {which}: {counts}").format(
            name=current.path.name, which=which, counts=self._counts_text()))
        return True

    def _counts_text(self) -> str:
        """How many nodes of the picture have each status."""
        found = dict.fromkeys(STATUSES, 0)
        for _, status in self.window.result.shown_graph.nodes(data="diff"):
            found[status or "same"] += 1
        return _counted(found)

    def end(self) -> None:
        """End Comparison: the run's own picture again, on the pass shown."""
        if self.current is not None:
            index = self.window.result.pass_index
            self.forget()
            self.window.picture.set_pass(index, force=True)

    def forget(self) -> None:
        """The picture no longer shows the comparison (a new run, a replay, End Comparison): drop it and its marks."""
        if self.current is None:
            return
        # Run A's capture goes to the retirer, freed in steps between events: dropped here, a 50,000-node
        # session's records froze the window 50-100 ms (Open or a new run after a comparison).
        holder = [self.current.capture_a]
        self.current = None
        window = self.window
        window.retirer.retire(holder)
        self._offer_colour(False)
        if window.graph_view.colour_mode == "diff":
            window.picture.set_colour_mode("kind")
        window.inspector.show_comparison(None)
        window.tensors_pane.show_previous(None)
        window.modules_pane.show_changes(None)
        window.end_comparison_action.setEnabled(False)

    def _offer_colour(self, offered: bool) -> None:
        combo = self.window.colour_combo
        at = combo.findData("diff")
        if offered and at < 0:
            combo.addItem(_tr("Colour: compared with another run"), "diff")
        elif not offered and at >= 0:
            combo.removeItem(at)

    def owns(self, node_id: str) -> bool:
        """True for a node only the compared session has (``"A:n8"``): the window cannot inspect it itself."""
        return self.current is not None and node_id.startswith(REMOVED_PREFIX)

    def inspect(self, node_id: str) -> None:
        """Show a node of the comparison: run A's own node where B has none, and the side-by-side table."""
        window = self.window
        current = self.current
        if current is None or node_id not in window.result.shown_graph:
            window.inspector.show_comparison(None)
            return
        attrs = window.result.shown_graph.nodes[node_id]
        a_id = attrs.get("diff_of")
        if self.owns(node_id):
            graph_a = current.capture_a.graph
            window.inspector.show_node(node_id, graph_a.nodes[a_id], current.capture_a.passes,
                                       leaf_steps=leaf_steps_of(graph_a, a_id))
        item = current.diff.for_a(a_id) if a_id is not None else current.diff.for_b(node_id)
        attrs_a = current.capture_a.graph.nodes[a_id] if a_id is not None else None
        attrs_b = None if self.owns(node_id) else window.result.capture.graph.nodes[node_id]
        rows = comparison_rows(current.diff, item, attrs_a, attrs_b, phrase_text)
        how = _tr(", matched by {rule}").format(rule=item.rule) if item.rule else ""
        window.inspector.show_comparison(
            _tr(_STATUS_WORDS[item.status]) + how, rows, a_label=current.diff.a_label, b_label=current.diff.b_label)

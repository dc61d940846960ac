"""Putting a capture on screen: its picture, its panes, its figures, and forgetting the previous one.

:class:`CaptureDisplay` shows a :class:`~gradexplorer.core.view.picture.CaptureResult`
in the window's widgets: a run's first picture (the panes say what is still
being computed, the worker's "Picture first"), the complete capture (the
first picture is kept with what the user did to it meanwhile; the panes
fill in), a reopened session's, or nothing (:meth:`CaptureDisplay.clear`).
Scene builds make thousands of items: a cyclic collection in the middle
would stall the GUI thread, so they run with the collector paused.
"""

from __future__ import annotations

import dataclasses
import time

from ..core.analysis.modules import audit_rows
from ..core.collector import paused_collection
from ..core.view.picture import CaptureResult, flow_of
from .language import N_, error_report_text, phrase_text, translator_for

__all__ = ["NOT_COMPUTED", "PENDING_AUDIT", "PENDING_EXPLANATIONS", "PENDING_FLOW", "CaptureDisplay"]

_tr = translator_for(__name__)

#: What the panes say between a run's first picture and its explanations (the worker's "Picture first").
PENDING_EXPLANATIONS = N_("Computing why each name gets a gradient or not…")
PENDING_AUDIT = N_("Computing where each module's parameters, buffers and tensors live…")
PENDING_FLOW = N_("Computing the gradient flow…")
#: What they say when the run ended before they were computed (gradexplorer failed after drawing).
NOT_COMPUTED = N_("Not computed: the run ended before this was made (the console says why). Press Run again.")


class CaptureDisplay:
    """Shows captures in ``window``'s graph view, inspector, panes, console and Plots tab.

    Parameters
    ----------
    window : MainWindow
        Its widgets are drawn in; its view model (``window.view``) is told
        what is on screen.
    """

    def __init__(self, window) -> None:
        self.window = window
        #: GUI-thread seconds the last complete capture took to show.
        self.last_gui_seconds = 0.0

    def clear(self) -> None:
        """Forget the previous program's picture: graph, inspector, panes, console, Find and filter."""
        window = self.window
        window.console.reset("<editor>")
        window.console_pane.cancel()
        window.editor.set_error_line(None)
        window.sources.close_files()
        window.result = None
        window.graph_view.clear_graph()
        window.inspector.show_node(None, None)
        window.tensors_pane.show_explanations(())
        window.tensors_pane.clearSelection()
        window.modules_pane.show_audits(())
        window.gradient_flow_pane.show_flows((), [])
        self.show_figures(())
        window.search_box.clear()
        window.picture.show_filter("all", None)
        window.replay.set_capture(None)
        window.comparison.forget()

    def show_result(self, result: CaptureResult) -> None:
        # The scene build makes thousands of items: a full GC pass in the middle
        # would add a long GUI-thread stall (see core.collector).
        with paused_collection():
            self._show_result_now(result)

    def _show_result_now(self, result: CaptureResult) -> None:
        window = self.window
        started = time.perf_counter()
        cap = result.capture
        drawn = window.result
        if drawn is not None and not drawn.complete and drawn.capture.graph is cap.graph:
            # The run's first picture is on screen: keep it (and what the user did with it meanwhile: the pass
            # shown, the boxes opened, the selection, the zoom); the panes fill in.
            window.result = dataclasses.replace(result, display=drawn.display, layout=drawn.layout,
                                                pass_index=drawn.pass_index, pass_graph=drawn.pass_graph)
            window.picture.inspect(window.view.current_node or "")
        else:
            self.show_picture(result)
            self.show_figures(cap.figures)
        window.tensors_pane.show_explanations(cap.explanations)
        window.modules_pane.show_rows(result.module_rows if result.module_rows is not None
                                      else audit_rows(cap.modules, phrase_text))
        window.gradient_flow_pane.show_flows(*(result.flow if result.flow is not None else flow_of(cap)))
        self.last_gui_seconds = time.perf_counter() - started
        window.editor.set_error_line(cap.error.program_line if cap.error is not None else None)
        if cap.error is not None:
            window.console.append_message(error_report_text(cap.error), error=True)
        for sentence in cap.restored:  # what the program changed in the process, put back
            window.console.append_message(_tr("gradexplorer: {sentence}").format(sentence=phrase_text(sentence)))

    def show_picture(self, result: CaptureResult) -> None:
        """Draw a result's graph (or say why there is none) and reset the picture's companions."""
        window = self.window
        cap = result.capture
        window.result = result
        window.comparison.forget()  # a comparison is of the picture it was made on
        window.replay.set_capture(cap)
        window.picture.show_filter("all", None)  # a filter belongs to the capture it was made on
        if result.layout is None:  # drawing was stopped
            window.graph_view.clear_graph()
            window.console.append_message(phrase_text(result.note), error=True)
        else:
            window.graph_view.show_graph(result.shown_graph, result.layout, passes_ran=bool(cap.passes),
                                         display=result.display)
        window.picture.update_navigator()
        window.navigator.set_passes(len(cap.passes), result.pass_index)
        window.inspector.show_node(None, None)

    def show_figures(self, figures) -> None:
        """The Plots tab: the program's matplotlib figures, their count in the tab's name."""
        window = self.window
        window.plots_pane.show_figures(figures)
        index = window.bottom_tabs.indexOf(window.plots_pane)
        window.bottom_tabs.setTabText(index, _tr("Plots ({count})").format(count=len(figures)) if figures
                                      else _tr("Plots"))

    def show_first_picture(self, result: CaptureResult) -> None:
        """A run's first picture: drawn now, the panes saying what is still being computed."""
        window = self.window
        with paused_collection():
            self.show_picture(result)
            self.show_figures(result.capture.figures)
            window.tensors_pane.show_pending(_tr(PENDING_EXPLANATIONS))
            window.modules_pane.show_pending(_tr(PENDING_AUDIT))
            window.gradient_flow_pane.show_pending(_tr(PENDING_FLOW))

    def show_not_computed(self) -> None:
        """The panes of a first picture whose run ended before they were computed say so."""
        window = self.window
        for pane in (window.tensors_pane, window.modules_pane, window.gradient_flow_pane):
            pane.show_pending(_tr(NOT_COMPUTED))

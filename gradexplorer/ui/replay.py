"""Replay a backward pass step by step: the Replay toolbar and what it does to the picture and the inspector.

The order is the engine's own, recorded while the pass ran
(:mod:`gradexplorer.core.analysis.replay`). At each step the picture shows
the pass, dims the nodes the engine had not run yet, selects the node it is
running and draws the gradients it sends along their edges (in the accent
colour, each with its value); the inspector shows the step above the node's
details: what the node received, the hooks that fired around it, what it
sent down each ``next_functions`` slot, and a leaf's ``.grad`` before and
after.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QPen
from PySide6.QtWidgets import QComboBox, QGraphicsPathItem, QLabel, QSlider, QToolBar
from shiboken6 import isValid

from ..core.analysis.replay import Replay, replay_of, step_text
from .edge_drawing import EdgeLabels
from .language import phrase_text, translator_for

__all__ = ["ReplayBar", "ReplayController"]

_tr = translator_for(__name__)

#: Milliseconds between steps while playing.
PLAY_INTERVAL_MS = 900
#: The colour of the gradients being sent at the current step (edges and their values).
FLOW_COLOUR = "#d9480f"


class ReplayBar(QToolBar):
    """The Replay toolbar: which pass, play/pause, a step back and forward, a slider, "step k of n".

    Signals
    -------
    position_wanted(int)
        The user moved to a step (0-based) of the pass in :attr:`pass_combo`.
    stop_wanted()
        The user left the replay.
    """

    position_wanted = Signal(int)
    stop_wanted = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(_tr("Replay"), parent)
        self.setObjectName("replay_toolbar")
        self.addWidget(QLabel(_tr(" Replay backward: ")))
        self.pass_combo = QComboBox()
        self.pass_combo.setAccessibleName(_tr("Pass to replay"))
        self.pass_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.pass_combo.setToolTip(_tr("The backward pass to replay, node by node, in the order the engine ran it"))
        self.addWidget(self.pass_combo)
        self.back_action = QAction(_tr("◁ Step back"), self)
        self.back_action.setStatusTip(_tr("The step before (the engine's previous node)"))
        self.play_action = QAction(_tr("▶ Play"), self)
        self.play_action.setCheckable(True)
        self.play_action.setStatusTip(_tr("Run the pass node by node, as the engine did"))
        self.forward_action = QAction(_tr("Step ▷"), self)
        self.forward_action.setStatusTip(_tr("The next node the engine ran"))
        self.stop_action = QAction(_tr("Stop replay"), self)
        self.stop_action.setStatusTip(_tr("Leave the replay: every node shown again"))
        for action in (self.back_action, self.play_action, self.forward_action):
            self.addAction(action)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setAccessibleName(_tr("Replay step"))
        self.slider.setMinimumWidth(160)
        self.slider.setPageStep(1)
        self.addWidget(self.slider)
        self.step_label = QLabel("")
        self.step_label.setAccessibleName(_tr("Replay position"))
        self.step_label.setMinimumWidth(90)
        self.addWidget(self.step_label)
        self.addAction(self.stop_action)
        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_INTERVAL_MS)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.back_action.triggered.connect(lambda: self.position_wanted.emit(max(self.slider.value() - 1, 0)))
        self.forward_action.triggered.connect(self._step_forward)
        self.play_action.toggled.connect(self._on_play_toggled)
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.stop_action.triggered.connect(self.stop_wanted.emit)
        self._length = 0
        self._active = False
        self.set_passes(())

    def set_passes(self, labels) -> None:
        """The passes that can be replayed (their labels); none disables the bar."""
        self.pass_combo.blockSignals(True)
        self.pass_combo.clear()
        for index, label in enumerate(labels):
            self.pass_combo.addItem(label, index)
        self.pass_combo.blockSignals(False)
        self.show_position(None, 0)
        for widget in (self.pass_combo, self.back_action, self.play_action, self.forward_action, self.slider):
            widget.setEnabled(bool(labels))

    def show_position(self, position: int | None, length: int) -> None:
        """Say where the replay is (None: not replaying), without asking for it again."""
        self._active = position is not None
        self._length = length
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(length - 1, 0))
        self.slider.setValue(position or 0)
        self.slider.blockSignals(False)
        self.step_label.setText(_tr(" step {position} of {length} ").format(
            position=position + 1, length=length) if position is not None else "")
        self.stop_action.setEnabled(position is not None)
        if position is None or position >= length - 1:
            self.play_action.setChecked(False)

    def _step_forward(self) -> None:
        self.position_wanted.emit(min(self.slider.value() + 1, max(self._length - 1, 0)) if self._active else 0)

    def _on_slider_value_changed(self, value: int) -> None:
        self.position_wanted.emit(value)

    def _on_play_toggled(self, playing: bool) -> None:
        self.play_action.setText(_tr("■ Pause") if playing else _tr("▶ Play"))
        if playing:
            if not self._active or self.slider.value() >= self._length - 1:
                self.position_wanted.emit(0)  # from the start (the root)
            if self.play_action.isChecked():  # a one-step pass is over at once
                self.timer.start()
        else:
            self.timer.stop()

    def _on_timer_timeout(self) -> None:
        if not self._active or self.slider.value() >= self._length - 1:
            self.timer.stop()
            self.play_action.setChecked(False)
            return
        self.position_wanted.emit(self.slider.value() + 1)


class ReplayController(QObject):
    """Connects the Replay toolbar to a :class:`~gradexplorer.ui.main_window.MainWindow`'s picture and inspector."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.bar = ReplayBar(window)
        self.replay: Replay | None = None
        self._flow_items: list = []
        self.bar.position_wanted.connect(self.show_step)
        self.bar.stop_wanted.connect(self.stop)
        self.bar.pass_combo.activated.connect(lambda _row: self.show_step(0) if self.replay is not None else None)

    def set_capture(self, capture) -> None:
        """A capture is on screen (None: none): its passes can be replayed; a replay of another one ends."""
        self.stop()
        labels = []
        for p in capture.passes if capture is not None else ():
            where = ""
            if p.source is not None and p.source.line:
                where = f" {p.source.file}:{p.source.line}" if p.source.file else _tr(" line {line}").format(
                    line=p.source.line)
            kind = _tr("torch.autograd.grad") if p.kind == "grad" else _tr("backward")
            labels.append(_tr("pass {number}: {kind}{where}").format(number=p.index + 1, kind=kind, where=where))
        self.bar.set_passes(labels)

    @property
    def active(self) -> bool:
        """Whether a replay is on screen."""
        return self.replay is not None

    def show_step(self, position: int) -> None:
        """Show step ``position`` of the pass chosen in the bar (the replay starts if it had not)."""
        window = self.window
        if window.result is None or self.bar.pass_combo.count() == 0:
            return
        pass_index = self.bar.pass_combo.currentData()
        cap = window.result.capture
        if self.replay is None or self.replay.pass_index != pass_index or self.replay.graph is not cap.graph:
            window.comparison.end()  # a replay is of the run's own picture
            if window.result.pass_index != pass_index:
                window.picture.set_pass(pass_index)  # the picture of that pass (a job: the window keeps painting)
                if window.result is None or window.result.pass_index != pass_index:
                    return
            # The steps of a 50,000-node pass take 70 ms to gather: a job, the window keeps painting meanwhile.
            replay = window.picture.view_job("replay", lambda: replay_of(cap, pass_index))
            if replay is None:
                return
            self.replay = replay
        if not len(self.replay):
            window.status.setText(_tr("Nothing ran in this pass: no node to replay"))
            return
        position = max(0, min(position, len(self.replay) - 1))
        node = self.replay.order[position]
        window.graph_view.set_filter(self.replay.reached(position), "dim")
        # A node folded into a module box: the box is selected (opening boxes at every step would redraw the
        # picture under the user's eyes); the step's text still names the node.
        window.graph_view.select_nodes([self._drawn(node)])
        self._draw_flow(position)
        window.inspector.show_replay(step_text(self.replay, position, phrase_text))
        self.bar.show_position(position, len(self.replay))

    def _draw_flow(self, position: int) -> None:
        """The gradients the current node sends: its edges in the accent colour, each with its value."""
        view = self.window.graph_view
        self._clear_flow()
        step = self.replay.step(position)
        display = self.window.result.display
        drawn = set(display.edges) if display is not None else None
        sent = []
        for s in step.sent:
            edge = (self._drawn(step.node), self._drawn(s.to)) if s.to is not None else None
            if edge is not None and edge[0] != edge[1] and (drawn is None or edge in drawn):
                sent.append((*edge, s.gradient))
        edges = [(u, v) for u, v, _ in sent]
        colour = QColor(FLOW_COLOUR)
        pen = QPen(colour, 3.0)
        pen.setCosmetic(True)
        path_item = QGraphicsPathItem(view.edges.edge_path(edges))
        path_item.setPen(pen)
        path_item.setZValue(-0.25)
        labels = [((u, v), point, "none" if g is None else g.short(width=24)) for u, v, g in sent
                  if (point := view.edges.edge_label_point(u, v)) is not None]
        label_item = EdgeLabels(labels, dark=False, colour=colour)
        for item in (path_item, label_item):
            view.scene().addItem(item)
        self._flow_items = [path_item, label_item]

    def _clear_flow(self) -> None:
        """Take the current step's gradients off the picture (a scene drawn since has none of them).

        A picture redrawn meanwhile (Find or a box opened during the replay)
        is a new scene: Qt deletes the old one with its items, whose Python
        wrappers are then empty and must not be asked anything.
        """
        scene = self.window.graph_view.scene()
        for item in self._flow_items:
            if isValid(item) and item.scene() is scene:
                scene.removeItem(item)
        self._flow_items = []

    def _drawn(self, node: str) -> str:
        """The box drawn for ``node``: itself, or the module box it is folded into."""
        display = self.window.result.display
        return display.owner.get(node, node) if display is not None else node

    def flow_labels(self) -> dict[tuple[str, str], str]:
        """The gradients drawn on edges now (edge -> text), for tests and the screenshot."""
        return dict(self._flow_items[1].labels) if len(self._flow_items) > 1 else {}

    def stop(self) -> None:
        """Leave the replay: every node shown, the flow and the inspector's step gone."""
        if self.replay is None:
            return
        self.replay = None
        self._clear_flow()
        self.window.picture.paint_filter()  # the user's filter, if one is in force, replaces the replay's dimming
        self.window.inspector.show_replay(None)
        self.bar.show_position(None, 0)

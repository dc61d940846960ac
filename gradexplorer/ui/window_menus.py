"""The window's actions, menus and toolbars, from one table (Qt Designer's ``setupUi`` pattern, by hand).

:func:`setup_menus` creates every ``QAction`` of :data:`ACTIONS` as an
attribute of the window (``window.run_action``, ...) connected to what the
row names, then fills the menu bar and the two toolbars. The window keeps
the behaviour; this module only says where each command lives and how it
is called.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QWidget

from ..core.analysis.query import FILTERS
from ..core.capture.devices import list_devices
from ..resources import example_paths
from .language import LANGUAGES, N_, active_language, phrase_text, translator_for

__all__ = ["ACTIONS", "ActionSpec", "EXAMPLE_TITLES", "EXPORTS", "setup_menus"]

_tr = translator_for(__name__)


@dataclass(frozen=True)
class ActionSpec:
    """One command: the window attribute it becomes, its text, keys, tooltip, and what it calls."""

    attribute: str
    text: str
    keys: tuple = ()
    tip: str = ""
    #: Called with the window when the action is triggered.
    call: Callable = lambda window: None


ACTIONS = (
    ActionSpec("run_action", N_("Run"), ("Ctrl+Return", "Ctrl+Enter"),
               N_("Run the code and capture its autograd graph (Ctrl+Enter)"), lambda w: w.start_run()),
    ActionSpec("stop_action", N_("Stop"), ("Ctrl+.",), N_("Stop the running code (Ctrl+.)"), lambda w: w.stop_run()),
    ActionSpec("new_action", N_("New"), (QKeySequence.StandardKey.New,), "", lambda w: w.files.new_session()),
    ActionSpec("open_action", N_("Open…"), (QKeySequence.StandardKey.Open,),
               N_("Open a session (.gxsession) or a Python script"), lambda w: w.files.open_with_dialog()),
    ActionSpec("compare_action", N_("Compare with Session…"), (),
               N_("Compare the run on screen with a saved session: what was added, removed and changed, node by node"),
               lambda w: w.comparison.compare_with_dialog()),
    ActionSpec("end_comparison_action", N_("End Comparison"), (), N_("Show the run's own picture again"),
               lambda w: w.comparison.end()),
    ActionSpec("save_action", N_("Save"), (QKeySequence.StandardKey.Save,), "", lambda w: w.files.save()),
    ActionSpec("save_as_action", N_("Save As…"), (QKeySequence.StandardKey.SaveAs,), "", lambda w: w.files.save_as()),
    ActionSpec("quit_action", N_("Quit"), (QKeySequence.StandardKey.Quit,), "", lambda w: w.close()),
    ActionSpec("zoom_in_action", N_("Zoom In"), (QKeySequence.StandardKey.ZoomIn,), "",
               lambda w: w.graph_view.zoom.by_user(1.25)),
    ActionSpec("zoom_out_action", N_("Zoom Out"), (QKeySequence.StandardKey.ZoomOut,), "",
               lambda w: w.graph_view.zoom.by_user(0.8)),
    ActionSpec("fit_action", N_("Fit Graph"), ("Ctrl+0",), "", lambda w: w.graph_view.zoom.fit()),
    ActionSpec("nan_forward_action", N_("First NaN (forward)"), (),
               N_("Select the first op, in execution order, whose value has NaN/Inf"),
               lambda w: w.picture.jump_to_first_nonfinite("forward")),
    ActionSpec("nan_backward_action", N_("First NaN (backward)"), (),
               N_("Select the first node, in backward order, with a NaN/Inf gradient"),
               lambda w: w.picture.jump_to_first_nonfinite("backward")),
    ActionSpec("collapse_action", N_("Collapse Module"), ("Ctrl+K",),
               N_("Fold the selected node's module into one box (Ctrl+K)"), lambda w: w.picture.collapse_selected()),
    ActionSpec("expand_action", N_("Expand Module"), ("Ctrl+E",),
               N_("Open the selected module box one level (or double-click it)"), lambda w: w.picture.expand_selected()),
    ActionSpec("clear_filter_action", N_("Clear Filter"), (),
               N_("Show every node again (the filter dims or hides the rest)"), lambda w: w.picture.apply_filter("all")),
    ActionSpec("find_action", N_("Find…"), (QKeySequence.StandardKey.Find,),
               N_("Find nodes by name, op, module or shape (Ctrl+F)"), lambda w: w.picture.focus_find()),
    ActionSpec("about_action", N_("About gradexplorer"), (), N_("Versions of gradexplorer, PyTorch, Python and Qt"),
               lambda w: w.show_about()),
)

#: Graph > Go To: keys that act in the drawing only (arrows stay the editor's when it has the focus).
#: Roots are drawn at the top, so Down goes to a node's inputs.
GRAPH_STEPS = (("input", N_("Go to Input"), "Down"), ("consumer", N_("Go to Consumer"), "Up"),
               ("left", N_("Previous in Row"), "Left"), ("right", N_("Next in Row"), "Right"))

#: The Examples menu's entries, by the example's file name (one not listed is named by its file name).
EXAMPLE_TITLES = {
    "01_no_grad_alias": N_("01 no_grad: b = a is only a second name"),
    "02_no_grad_new_tensor": N_("02 no_grad: b = a + 0 is a new tensor"),
    "03_next_functions": N_("03 next_functions: walking the backward graph"),
    "04_register_hook": N_("04 register_hook: an intermediate's gradient"),
    "05_register_buffer": N_("05 register_buffer: what moves with .to()"),
    "06_mlp_training_step": N_("06 An MLP's training steps"),
    "07_custom_function": N_("07 A custom autograd.Function"),
    "08_double_backward": N_("08 Double backward"),
    "09_views_and_inplace": N_("09 Views and in-place ops"),
    "10_transformer_training": N_("10 A Transformer training step"),
    "11_resnet_cnn": N_("11 A ResNet-like CNN"),
    "12_lstm_unrolled": N_("12 An LSTM unrolled by hand"),
}

#: File > Export entries: the kind :meth:`SessionFiles.export` takes, and the menu text.
EXPORTS = (("script", N_("Script (.py)…")), ("dot", N_("Graph as DOT…")), ("graphml", N_("Graph as GraphML…")),
           ("json", N_("Graph as node-link JSON…")), ("png", N_("Drawing as PNG…")), ("svg", N_("Drawing as SVG…")))


def _make_actions(window) -> None:
    for spec in ACTIONS:
        action = QAction(_tr(spec.text), window)
        if spec.keys:
            action.setShortcuts([QKeySequence(key) for key in spec.keys])
        if spec.tip:
            action.setToolTip(_tr(spec.tip))
        action.triggered.connect(lambda _checked=False, call=spec.call: call(window))
        setattr(window, spec.attribute, action)
    window.export_actions = {}
    for kind, text in EXPORTS:
        action = QAction(_tr(text), window)
        action.triggered.connect(lambda _checked=False, k=kind: window.files.export_with_dialog(k))
        window.export_actions[kind] = action


def setup_menus(window) -> None:
    """Give ``window`` its actions, menus, the Run toolbar (with the device picker) and the Find toolbar.

    Widgets made here become window attributes: ``device_combo``,
    ``search_box``, ``filter_combo``, ``colour_combo``, ``recent_menu``,
    ``examples_menu`` and ``example_actions``; the window connects their signals.
    """
    _make_actions(window)
    menu = window.menuBar()
    _file_menu(window, menu)
    _examples_menu(window, menu)
    _run_menu(window, menu)
    _graph_menu(window, menu)
    _view_menu(window, menu)
    help_menu = menu.addMenu(_tr("&Help"))
    help_menu.addAction(window.about_action)
    _run_toolbar(window)
    _find_toolbar(window)


def _file_menu(window, menu) -> None:
    """File: New, Open, Open Recent, Compare, Save, Save As, Export, Quit."""
    file_menu = menu.addMenu(_tr("&File"))
    file_menu.addAction(window.new_action)
    file_menu.addAction(window.open_action)
    window.recent_menu = file_menu.addMenu(_tr("Open &Recent"))
    file_menu.addAction(window.compare_action)
    file_menu.addAction(window.end_comparison_action)
    window.end_comparison_action.setEnabled(False)
    file_menu.addAction(window.save_action)
    file_menu.addAction(window.save_as_action)
    export_menu = file_menu.addMenu(_tr("&Export"))
    for action in window.export_actions.values():
        export_menu.addAction(action)
    file_menu.addSeparator()
    file_menu.addAction(window.quit_action)


def _examples_menu(window, menu) -> None:
    """Examples: one action per bundled example."""
    window.examples_menu = menu.addMenu(_tr("&Examples"))
    window.example_actions = {}
    for path in example_paths(active_language()):
        title = EXAMPLE_TITLES.get(path.stem)
        action = window.examples_menu.addAction(_tr(title) if title else path.stem.replace("_", " "))
        action.setData(str(path))
        action.triggered.connect(lambda _checked=False, p=path: window.files.load_example(p))
        window.example_actions[path.stem] = action


def _run_menu(window, menu) -> None:
    """Run: Run, Stop, the program's arguments and folder, the isolated engine's memory limit."""
    run_menu = menu.addMenu(_tr("&Run"))
    run_menu.addAction(window.run_action)
    run_menu.addAction(window.stop_action)
    run_menu.addSeparator()
    window.arguments_action = run_menu.addAction(_tr("Arguments…"))
    window.arguments_action.setStatusTip(_tr("The command-line arguments the program runs with (sys.argv[1:])"))
    window.arguments_action.triggered.connect(lambda _checked=False: window.run_commands.set_run_arguments_with_dialog())
    window.working_folder_action = run_menu.addAction(_tr("Working Folder…"))
    window.working_folder_action.setStatusTip(_tr("The folder the program runs in (default: the script's own)"))
    window.working_folder_action.triggered.connect(
        lambda _checked=False: window.run_commands.set_working_folder_with_dialog())
    window.script_folder_action = run_menu.addAction(_tr("Run in the Script's Folder"))
    window.script_folder_action.setStatusTip(_tr("Run the program in its own folder again, as python SCRIPT from there"))
    window.script_folder_action.triggered.connect(lambda _checked=False: window.run_commands.set_working_folder(None))
    run_menu.addSeparator()
    window.memory_limit_action = run_menu.addAction(_tr("Isolated Engine Memory Limit…"))
    window.memory_limit_action.setStatusTip(_tr("How much memory code run in an isolated process may allocate"))
    window.memory_limit_action.triggered.connect(
        lambda _checked=False: window.run_commands.set_memory_limit_with_dialog())


def _graph_menu(window, menu) -> None:
    """Graph: Find, Filter, Colour, the NaN searches, Collapse/Expand and Go To (with their keys)."""
    graph_menu = menu.addMenu(_tr("&Graph"))
    graph_menu.addAction(window.find_action)
    filters = graph_menu.addMenu(_tr("&Filter"))
    window.filter_actions = {}
    for key, text in FILTERS.items():
        action = filters.addAction(phrase_text(text))
        action.triggered.connect(lambda _checked=False, k=key: window.picture.apply_filter(k))
        window.filter_actions[key] = action
    graph_menu.addAction(window.clear_filter_action)
    colours = graph_menu.addMenu(_tr("&Colour"))
    window.colour_actions = {}
    for key, text in (("kind", _tr("By Node Kind")), ("grad_norm", _tr("By Gradient Norm (log)"))):
        action = colours.addAction(text)
        action.triggered.connect(lambda _checked=False, k=key: window.picture.set_colour_mode(k))
        window.colour_actions[key] = action
    graph_menu.addSeparator()
    for action in (window.nan_forward_action, window.nan_backward_action):
        graph_menu.addAction(action)
    graph_menu.addSeparator()
    for action in (window.collapse_action, window.expand_action):
        graph_menu.addAction(action)
    graph_menu.addSeparator()
    go_to = graph_menu.addMenu(_tr("&Go To"))
    window.step_actions = {}
    for direction, text, key in GRAPH_STEPS:
        action = go_to.addAction(_tr(text))
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        window.graph_view.addAction(action)  # the shortcut works where the drawing has the focus
        action.triggered.connect(lambda _checked=False, d=direction: window.picture.step(d))
        window.step_actions[direction] = action
    window.clear_selection_action = go_to.addAction(_tr("Clear Selection"))
    window.clear_selection_action.setShortcut(QKeySequence("Esc"))
    window.clear_selection_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    window.graph_view.addAction(window.clear_selection_action)
    window.clear_selection_action.triggered.connect(lambda _checked=False: window.graph_view.select_node(None))


def _view_menu(window, menu) -> None:
    """View: zoom, what the drawing shows (values, shapes, legend, minimap), the editor's wrapping."""
    view_menu = menu.addMenu(_tr("&View"))
    for action in (window.zoom_in_action, window.zoom_out_action, window.fit_action):
        view_menu.addAction(action)
    view_menu.addSeparator()
    window.values_action = _toggle(window, _tr("Values on the Graph"), False, window.graph_view.set_show_values,
                                   _tr("Show each node's forward value (shape, range) and gradient norm above it"))
    window.values_action.setShortcut(QKeySequence("Ctrl+Shift+V"))
    window.legend_action = _toggle(window, _tr("Show Legend"), True, window.graph_view.overlays.set_legend_wanted,
                                   _tr("What the colours and borders of the graph mean (drawn into exports too)"))
    window.minimap_action = _toggle(window, _tr("Show Minimap"), True, window.graph_view.overlays.set_minimap_wanted,
                                    _tr("A small picture of the whole graph when it is bigger than the view"))
    window.shapes_action = _toggle(window, _tr("Shapes on Edges"), False, window.graph_view.edges.set_show_shapes,
                                   _tr("Write the shape of the tensor each edge carries in the forward pass beside it"))
    for action in (window.values_action, window.shapes_action, window.legend_action, window.minimap_action):
        view_menu.addAction(action)
    view_menu.addSeparator()
    window.wrap_action = _toggle(window, _tr("Wrap Long Lines"), False, window.editor.set_word_wrap,
                                 _tr("Wrap the editor's long lines at its edge instead of scrolling sideways"))
    view_menu.addAction(window.wrap_action)
    view_menu.addSeparator()
    _language_menu(window, view_menu)


def _language_menu(window, view_menu) -> None:
    """View > Language: the system's, or one of :data:`LANGUAGES` (each named in itself); the choice is kept."""
    window.language_menu = view_menu.addMenu(_tr("&Language"))
    group = QActionGroup(window.language_menu)
    window.language_actions = {}
    chosen = window.settings.language
    for code, name in (("", _tr("System Default")), *LANGUAGES.items()):
        action = window.language_menu.addAction(name)
        action.setCheckable(True)
        action.setChecked(code == chosen or (code == "" and chosen not in LANGUAGES))
        action.setActionGroup(group)
        action.triggered.connect(lambda _checked=False, c=code: window.set_language(c))
        window.language_actions[code] = action


def _run_toolbar(window) -> None:
    """The Run toolbar: Run, Stop, the device and engine pickers, zoom."""
    toolbar = window.addToolBar(_tr("Run"))
    toolbar.setObjectName("run_toolbar")
    toolbar.addAction(window.run_action)
    toolbar.addAction(window.stop_action)
    toolbar.addSeparator()
    device_label = QLabel(_tr(" Device: "))
    toolbar.addWidget(device_label)
    window.device_combo = _device_combo()
    device_label.setBuddy(window.device_combo)
    toolbar.addWidget(window.device_combo)
    engine_label = QLabel(_tr(" Engine: "))
    toolbar.addWidget(engine_label)
    window.engine_combo = QComboBox()
    engine_label.setBuddy(window.engine_combo)
    window.engine_combo.setAccessibleName(_tr("Engine"))
    window.engine_combo.addItem(_tr("in the app"), "thread")
    window.engine_combo.addItem(_tr("isolated process"), "isolated")
    window.engine_combo.setToolTip(_tr(
        "In the app: fast, live inspection (the default).\nIsolated process: the code runs in a child process; "
        "os._exit, a crash in native code or running out of memory becomes an error report and the app, "
        "the editor and the previous capture stay; Stop ends it at once. About a second more per run."))
    toolbar.addWidget(window.engine_combo)
    toolbar.addSeparator()
    for action in (window.zoom_in_action, window.zoom_out_action, window.fit_action):
        toolbar.addAction(action)
    toolbar.addWidget(QWidget())


def _find_toolbar(window) -> None:
    """The Find toolbar: the search box, the filter and what it does with the rest, the colouring."""
    find = window.addToolBar(_tr("Find"))
    find.setObjectName("find_toolbar")
    window.search_box = QLineEdit()
    window.search_box.setPlaceholderText(_tr("Find: name, op, module, shape (Enter)"))
    window.search_box.setAccessibleName(_tr("Find nodes"))
    window.search_box.setClearButtonEnabled(True)
    window.search_box.setMaximumWidth(320)
    find.addWidget(window.search_box)
    window.filter_combo = QComboBox()
    window.filter_combo.setAccessibleName(_tr("Filter"))
    for key, text in FILTERS.items():
        window.filter_combo.addItem(phrase_text(text), key)
    find.addWidget(window.filter_combo)
    window.filter_mode_combo = QComboBox()
    window.filter_mode_combo.setAccessibleName(_tr("What a filter does with the rest"))
    window.filter_mode_combo.addItem(_tr("dim the rest"), "dim")
    window.filter_mode_combo.addItem(_tr("hide the rest"), "hide")
    find.addWidget(window.filter_mode_combo)
    window.filter_count = QLabel("")
    window.filter_count.setAccessibleName(_tr("Filter count"))
    find.addWidget(window.filter_count)
    find.addAction(window.clear_filter_action)
    window.clear_filter_action.setEnabled(False)
    window.colour_combo = QComboBox()
    window.colour_combo.setAccessibleName(_tr("Colour nodes by"))
    window.colour_combo.addItem(_tr("Colour: kind"), "kind")
    window.colour_combo.addItem(_tr("Colour: gradient norm (log)"), "grad_norm")
    find.addWidget(window.colour_combo)
    for action in (window.nan_forward_action, window.nan_backward_action, window.collapse_action,
                   window.expand_action, window.values_action):
        find.addAction(action)


def _toggle(window, text: str, checked: bool, slot, tip: str) -> QAction:
    """A checkable View action that calls ``slot(checked)`` when toggled."""
    action = QAction(text, window)
    action.setCheckable(True)
    action.setChecked(checked)
    action.setStatusTip(tip)
    action.toggled.connect(slot)
    return action


def _device_combo() -> QComboBox:
    """The device picker: every device torch knows of; unavailable ones greyed out, saying why."""
    combo = QComboBox()
    combo.setAccessibleName(_tr("Device"))
    combo.setToolTip(_tr("Where the code runs; unavailable devices say why"))
    model = QStandardItemModel(combo)
    combo.setModel(model)
    for info in list_devices():
        combo.addItem(info.label, info.name)
        item = model.item(combo.count() - 1)
        if not info.available:
            item.setEnabled(False)
            item.setToolTip(phrase_text(info.reason))
            item.setText(_tr("{device} (unavailable)").format(device=info.label))
    return combo

"""The app in Traditional Chinese, and every user-visible string through Qt's catalogue (issue 31, part 3).

Three kinds of check: the catalogue is complete and compiled (what CI
checks), no string the window shows escapes it (a pseudo-locale run, plus a
scan of the sources for text given to Qt without ``_tr``), and a reader of
zh_TW sees the menus, the legend and the seed lesson's explanations in
Chinese, with the facts from a plain PyTorch run of the same program.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch
from PySide6.QtCore import QCoreApplication, QLocale, QModelIndex, Qt, QTranslator
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QComboBox, QDockWidget, QLabel, QLineEdit, QMenu,
                               QTabWidget, QToolBar, QWidget)

from gradexplorer.ui import language
from gradexplorer.ui.legend import legend_texts
from gradexplorer.ui.language import LANGUAGES, catalogue_path, choose_language, install_language, system_language

from ..programs import ALIAS_LESSON, PLAIN_ATTRIBUTE
from .conftest import make_window, run_and_wait

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "gradexplorer" / "ui"


def _translations_script():
    spec = importlib.util.spec_from_file_location("translations_script", ROOT / "scripts" / "translations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def speaks():
    """``speaks("zh_TW")`` installs a language for one test; English again afterwards."""
    yield install_language
    install_language("en")


class PseudoTranslator(QTranslator):
    """Every string through the catalogue comes back in brackets: one that is not bracketed escaped it."""

    def translate(self, context, source, disambiguation=None, n=-1):  # noqa: ARG002 - Qt's signature
        return f"⟦{source}⟧" if source else source

    def isEmpty(self):  # noqa: N802 - Qt API
        return False


# --- the catalogue -------------------------------------------------------------------------------------------

def test_every_string_has_a_translation_and_the_compiled_catalogue_says_what_the_ts_says(qapp):
    script = _translations_script()
    assert script.check("zh_TW") == []  # found in the code, translated, same {slots}, nothing stale
    found, _ = script.collect()
    assert len(found) > 600  # the UI's strings and the explanations', not a handful
    translator = QTranslator()
    assert translator.load(str(catalogue_path("zh_TW")))
    pairs = [(c.findtext("name"), m.findtext("source"), m.findtext("translation"))
             for c in ET.parse(script.ts_path("zh_TW")).getroot().iter("context") for m in c.iter("message")]
    assert len(pairs) == len(found)
    stale = [(ctx, src) for ctx, src, text in pairs if translator.translate(ctx, src) != text]
    assert stale == [], "run `python scripts/translations.py compile`"


def test_the_check_finds_a_string_without_translation_and_a_translation_that_lost_a_slot(qapp, tmp_path,
                                                                                        monkeypatch):
    script = _translations_script()
    ts = script.ts_path("zh_TW").read_text(encoding="utf-8")
    broken = ts.replace("<translation>無法開啟 {name}</translation>", "<translation>無法開啟</translation>", 1)
    broken = broken.replace("<translation>檔案(&amp;F)</translation>", '<translation type="unfinished" />', 1)
    assert broken.count("無法開啟</translation>") == 1 and broken != ts
    (tmp_path / "gradexplorer_zh_TW.ts").write_text(broken, encoding="utf-8")
    (tmp_path / "gradexplorer_zh_TW.qm").write_bytes(b"")
    monkeypatch.setattr(script, "TRANSLATIONS", tmp_path)
    problems = script.check("zh_TW")
    assert any("'&File'" in p and "no zh_TW translation" in p for p in problems), problems
    assert any("'Cannot open {name}'" in p and "slots []" in p for p in problems), problems


# --- nothing escapes the catalogue ----------------------------------------------------------------------------

#: Qt calls whose text arguments a user reads.
_TEXT_CALLS = {"setText", "setWindowTitle", "setToolTip", "setStatusTip", "setPlaceholderText", "setAccessibleName",
               "addMenu", "addAction", "addTab", "setTabText", "setTabToolTip", "setTitle", "addItem", "addButton",
               "setHorizontalHeaderLabels", "setLabel", "append_message", "show_pending", "showMessage",
               "QLabel", "QAction", "QGroupBox", "QDockWidget", "QPushButton", "QToolButton", "QCheckBox",
               "QMessageBox", "getSaveFileName", "getOpenFileName", "getExistingDirectory", "getItem", "getText",
               "getDouble", "addToolBar"}
#: Calls whose text is only their second argument (the first is an axis or a widget), or only their first (the
#: second is the item's data).
_TEXT_SECOND = {"setLabel", "addTab", "setTabText", "setTabToolTip"}
_TEXT_FIRST = {"addItem"}
#: Texts given to Qt that are data, not words (a symbol, a file suffix, a Python expression).
_DATA = re.compile(r"^[\W\d_]*$|^(NaN|PNG|None|—|‖x‖.*|1e.*)$")


def unwrapped_texts(source: str, filename: str = "<source>") -> list[str]:
    """``file:line: text`` for each literal (or f-string) with words handed straight to a text-taking Qt call."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name not in _TEXT_CALLS:
            continue
        args = node.args[1:2] if name in _TEXT_SECOND else node.args[:1] if name in _TEXT_FIRST else node.args
        for arg in args:
            if isinstance(arg, ast.IfExp):
                candidates = [arg.body, arg.orelse]
            elif isinstance(arg, ast.BinOp):
                candidates = [arg.left, arg.right]
            else:
                candidates = [arg]
            for value in candidates:
                if isinstance(value, ast.JoinedStr):
                    text = "".join(v.value for v in value.values if isinstance(v, ast.Constant))
                elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                    text = value.value
                else:
                    continue
                words = re.sub(r"<[^>]+>|gradexplorer", " ", text)  # HTML markup and the app's name are no words
                if re.search(r"[A-Za-z]{2}", words) and not _DATA.match(words.strip()):
                    found.append(f"{filename}:{node.lineno}: {text!r}")
    return found


def test_no_user_visible_string_of_the_ui_is_handed_to_qt_unwrapped():
    found = [hit for path in sorted(UI.glob("*.py")) for hit in unwrapped_texts(path.read_text("utf-8"), path.name)]
    assert found == []


def test_the_scan_finds_an_unwrapped_string():
    planted = textwrap.dedent("""\
        label = QLabel("Gradient flow")
        box.setTitle(f"Compared: {status}")
        button.setToolTip("Copy" if wide else _tr("Copy"))
        ok = QLabel(_tr("Gradient flow"))
        sign = QLabel("—")
    """)
    assert [hit.split(": ", 1)[1] for hit in unwrapped_texts(planted)] == ["'Gradient flow'", "'Compared: '",
                                                                           "'Copy'"]


def _columns(model) -> int:
    try:
        return model.columnCount(QModelIndex())
    except TypeError:  # a list model (a combo's popup) keeps columnCount private: one column
        return 1


def _shown_texts(window) -> list[tuple[str, str]]:
    """Every text the window shows or reads out: ``(where, text)`` for menus, toolbars, docks, tabs, labels,
    buttons, boxes, combos, headers, tooltips and accessible names."""
    texts = []

    def menu_texts(menu: QMenu, where: str):
        for action in menu.actions():
            if action.isSeparator():
                continue
            texts.append((f"{where} > action", action.text()))
            texts.extend((f"{where} > {action.text()} tip", t) for t in (action.statusTip(),) if t)
            if action.menu() is not None:
                menu_texts(action.menu(), f"{where} > {action.text()}")

    for action in window.menuBar().actions():
        texts.append(("menu", action.text()))
        menu_texts(action.menu(), action.text())
    for bar in window.findChildren(QToolBar):
        texts.append(("toolbar", bar.windowTitle()))
        texts.extend(("toolbar action tip", a.toolTip()) for a in bar.actions() if a.toolTip())
    texts.extend(("dock", dock.windowTitle()) for dock in window.findChildren(QDockWidget))
    for tabs in window.findChildren(QTabWidget):
        texts.extend(("tab", tabs.tabText(i)) for i in range(tabs.count()) if tabs.objectName() != "source_tabs")
    for widget in window.findChildren(QWidget):
        kind = type(widget).__name__
        if isinstance(widget, QLabel) and widget.text():
            texts.append((f"{kind} text", widget.text()))
        if isinstance(widget, QAbstractButton) and widget.text():
            texts.append((f"{kind} text", widget.text()))
        if isinstance(widget, QLineEdit) and widget.placeholderText():
            texts.append((f"{kind} placeholder", widget.placeholderText()))
        if isinstance(widget, QComboBox):
            texts.extend((f"{kind} item", widget.itemText(i)) for i in range(widget.count()))
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            texts.extend((f"{kind} header", str(model.headerData(c, Qt.Orientation.Horizontal)))
                         for c in range(_columns(model)) if model.headerData(c, Qt.Orientation.Horizontal))
        if widget.toolTip():
            texts.append((f"{kind} tooltip", widget.toolTip()))
        if widget.accessibleName():
            texts.append((f"{kind} accessible name", widget.accessibleName()))
    return texts

#: What the window shows that is data, not words: the languages (each named in itself), the devices, numbers,
#: file names and a node's title (its op and id).
_SHOWN_DATA = re.compile(r"^(English|繁體中文|cpu.*|cuda.*|mps.*|meta.*|[\W\d_]*|.*\.py|\w+  \(n\d+\))$")


def test_a_pseudo_locale_window_shows_no_text_that_escaped_the_catalogue(qtbot, settings, tmp_path, qapp):
    pseudo = PseudoTranslator()
    qapp.installTranslator(pseudo)
    try:
        window = make_window(qtbot, settings, tmp_path / "data")
        window.editor.setPlainText("a = torch.tensor([1.0, 2.0], requires_grad=True)\nb = (a * 3).sum()\n"
                                   "b.backward()\n")
        run_and_wait(qtbot, window)
        window.graph_view.select_node(window.result.capture.node_named("a"))
        texts = _shown_texts(window)
        escaped = sorted({(where, text) for where, text in texts
                          if not text.strip().startswith("⟦") and not _SHOWN_DATA.match(text.strip())
                          and re.search(r"[A-Za-z]{2}", text)})
        assert len(texts) > 150
        assert escaped == []
    finally:
        qapp.removeTranslator(pseudo)


# --- the app in Traditional Chinese ---------------------------------------------------------------------------

ALIAS = ALIAS_LESSON


def test_a_zh_tw_reader_sees_the_menus_the_legend_and_the_seed_lesson_in_chinese(qtbot, settings, tmp_path, speaks):
    plain = {}
    exec(ALIAS, {"torch": torch}, plain)
    assert speaks("zh_TW")
    window = make_window(qtbot, settings, tmp_path / "data")
    assert [a.text() for a in window.menuBar().actions()] == ["檔案(&F)", "範例(&X)", "執行(&R)", "圖(&G)",
                                                              "檢視(&V)", "說明(&H)"]
    assert window.run_action.text() == "執行" and window.language_menu.title() == "語言(&L)"
    assert legend_texts("kind")[:2] == ["葉節點（參數或輸入）", "運算（反向節點）"]
    window.editor.setPlainText(ALIAS)
    run_and_wait(qtbot, window)
    pane = window.tensors_pane
    rows = {pane.table.data(pane.table.index(r, 0)): r for r in range(pane.rowCount())}
    why_b = pane.table.data(pane.table.index(rows["b"], 2))
    # Plain PyTorch: a.grad is 1.0 after b.backward(), so `b = a` under no_grad made no new tensor.
    assert plain["a"].grad.item() == 1.0
    assert why_b.startswith("b 與 a 是同一個張量物件：第 3 行的 `b = a` 只是多加一個名稱")
    assert why_b.endswith("所以 b 仍然得到梯度，和 a 完全一樣。")
    why_a = pane.table.data(pane.table.index(rows["a"], 2))
    assert why_a == (f"a 是需要梯度的葉節點：那次反向傳播（第 4 行）把它的 .grad 填入了 "
                     f"{format(plain['a'].grad.item(), 'g')}。")
    assert window.bottom_tabs.tabText(0) == "張量" and window.status.text().startswith("完成")


def test_the_module_audit_warns_of_a_plain_tensor_attribute_in_chinese(qtbot, settings, tmp_path, speaks):
    code = PLAIN_ATTRIBUTE
    plain = {}
    exec(code, {"torch": torch, "nn": torch.nn}, plain)
    assert plain["layer"].w.device.type == "meta" and plain["layer"].a.device.type == "cpu"  # plain PyTorch
    speaks("zh_TW")
    window = make_window(qtbot, settings, tmp_path / "data")
    window.editor.setPlainText(code)
    run_and_wait(qtbot, window)
    texts = [row.texts for row in window.modules_pane.audit.rows]
    assert ("layer.a", "一般屬性", "純量 float32", "cpu", "未註冊：不會跟著 .to() 移動，也不在 state_dict 中") in texts
    warning = next(t[4] for t in texts if t[0] == "⚠ plain_tensor_attribute")
    assert warning.startswith("`layer.a` 是一般的張量屬性：模組移到 meta 時它仍留在 cpu")
    assert "修正方法：請在 Layer.__init__ 中使用 `self.register_buffer('a', ...)`" in warning


def test_the_first_nan_is_said_in_chinese(qtbot, settings, tmp_path, speaks):
    code = "x = torch.tensor([-1.0, 4.0], requires_grad=True)\ny = x.sqrt()\ny.sum().backward()\n"
    plain = {}
    exec(code, {"torch": torch}, plain)
    assert plain["y"].isnan().tolist() == [True, False]  # plain PyTorch: the sqrt makes the NaN, line 2
    speaks("zh_TW")
    window = make_window(qtbot, settings, tmp_path / "data")
    window.editor.setPlainText(code)
    run_and_wait(qtbot, window)
    node = window.picture.jump_to_first_nonfinite("forward")
    assert window.result.capture.graph.nodes[node]["op"] == plain["y"].grad_fn.name()
    assert window.status.text().startswith("前向傳播中第一個 NaN/Inf：") and "第 2 行" in window.status.text()


def test_a_marked_text_is_translated_in_the_context_it_was_marked_in_whoever_shows_it(qapp, speaks):
    from xml.etree import ElementTree

    from gradexplorer.ui.capture_display import PENDING_AUDIT
    from gradexplorer.ui.language import translator_for

    catalogue = ElementTree.parse(catalogue_path("zh_TW").with_suffix(".ts")).getroot()
    context = next(c for c in catalogue.iter("context") if c.findtext("name") == "capture_display")
    wanted = next(m.findtext("translation") for m in context.iter("message") if m.findtext("source") == PENDING_AUDIT)
    speaks("zh_TW")
    assert translator_for("gradexplorer.ui.main_window")(PENDING_AUDIT) == wanted != PENDING_AUDIT
    assert translator_for("gradexplorer.ui.main_window")(str(PENDING_AUDIT)) == PENDING_AUDIT  # unmarked: its own


def test_view_language_is_remembered_and_said_to_apply_at_the_next_start(window, settings):
    assert set(window.language_actions) == {"", *LANGUAGES}
    assert window.language_actions[""].isChecked()  # nothing chosen yet: the system's
    window.language_actions["zh_TW"].trigger()
    assert settings.language == "zh_TW" and choose_language(settings.language) == "zh_TW"
    assert window.status.text() == "Language: 繁體中文 from the next start of gradexplorer"
    assert window.language_actions["zh_TW"].isChecked() and not window.language_actions["en"].isChecked()
    window.language_actions["en"].trigger()
    assert settings.language == "en" and window.status.text() == "Language: English"


def test_the_language_comes_from_the_system_locale_when_none_was_chosen(qapp):
    assert system_language(QLocale("zh_TW")) == "zh_TW"
    assert system_language(QLocale("zh_HK")) == "zh_TW"
    assert system_language(QLocale(QLocale.Language.Chinese, QLocale.Script.TraditionalHanScript,
                                   QLocale.Country.Singapore)) == "zh_TW"
    assert system_language(QLocale("zh_CN")) == "en"  # Simplified Chinese readers get no Traditional text
    assert system_language(QLocale("en_US")) == "en" and system_language(QLocale("de_DE")) == "en"
    assert choose_language("zh_TW") == "zh_TW" and choose_language("en") == "en"
    assert choose_language("xx") == system_language()


def test_installing_a_language_gives_qt_s_own_buttons_in_it_too(qapp, speaks):
    assert speaks("zh_TW") and language.active_language() == "zh_TW"
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"  # qtbase_zh_TW.qm
    assert speaks("en") and language.active_language() == "en"
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"


def test_the_errors_we_write_are_said_in_chinese_and_python_s_own_stay_as_python_wrote_them(qtbot, settings,
                                                                                          tmp_path, speaks):
    from gradexplorer.core.isolated.engine import capture_isolated
    from gradexplorer.ui.language import error_report_text, phrase_text

    speaks("zh_TW")
    window = make_window(qtbot, settings, tmp_path / "data")
    damaged = tmp_path / "damaged.gxsession"
    damaged.write_text('{"format": "gradexplorer.session", "schema_version": 99, "app_version": "9.9"}',
                       encoding="utf-8")
    assert not window.files.open_session(damaged, prompt=False)
    console = window.console.toPlainText()
    assert ("無法開啟 damaged.gxsession：這個工作階段是由 gradexplorer 9.9 或更新版本建立的（工作階段格式 99）"
            in console)
    crashed = capture_isolated("import os\nprint('x')\n\nos._exit(3)\n")  # the isolated engine's own words
    assert crashed.error.message.startswith("the program called os._exit(3) at line 4")
    assert phrase_text(crashed.error.headline_phrase()).startswith("os._exit（第 4 行）：程式呼叫了 os._exit(3)（第 4 行）")
    assert error_report_text(crashed.error).startswith("程式呼叫了 os._exit(3)（第 4 行）；它的行程就此結束")
    window.editor.setPlainText("x = (1 +\n")  # Python's own message is Python's: only our words around it change
    run_and_wait(qtbot, window)
    assert window.result.capture.error.said is None
    assert window.status.text().startswith("錯誤（第 1 行）：SyntaxError")


def test_a_comparison_and_a_restored_setting_are_said_in_chinese(qtbot, settings, tmp_path, speaks):
    from gradexplorer.core.io.session import save_session

    speaks("zh_TW")
    window = make_window(qtbot, settings, tmp_path / "data")
    window.editor.setPlainText("torch.set_default_dtype(torch.float64)\n" + ALIAS)
    run_and_wait(qtbot, window)
    assert torch.get_default_dtype() == torch.float32  # put back, as the console says
    assert ("gradexplorer：你的程式碼呼叫了 torch.set_default_dtype(torch.float64)；已為下一次執行還原"
            in window.console.toPlainText())
    saved = tmp_path / "alias.gxsession"
    save_session(window.files.current_session(), saved)
    window.editor.setPlainText(ALIAS.replace("b = a\n", "b = a + 0\n"))
    run_and_wait(qtbot, window)
    assert window.comparison.compare_with(saved)
    window.graph_view.select_node(window.result.capture.node_named("a"))
    assert window.inspector.comparison_box.title() == "比較結果：有變，依「name」配對"
    rows = {row[0]: row[1:] for row in window.inspector.comparison_table()}
    assert rows["執行結束時的 .grad"] == ("1", "None", "只在其中一次執行")
    assert "節點：1 個兩次都有（0 個相同，1 個有變），0 個只在 B（新增），0 個只在 A（移除）" in window.console.toPlainText()
    assert window.status.text().startswith("已與 alias.gxsession 比較：0 個相同, 1 個有變")
    window.comparison.end()


def test_a_zh_tw_reader_gets_the_welcome_and_the_lessons_comments_in_chinese(qtbot, settings, tmp_path, speaks):
    speaks("zh_TW")
    window = make_window(qtbot, settings, tmp_path / "data")
    assert window.editor.toPlainText().startswith("# 歡迎使用 gradexplorer。")
    assert "# 出自筆記〈PyTorch 如何追蹤 backward 路徑〉。" in window.editor.toPlainText()
    from gradexplorer.resources import example_paths
    from gradexplorer.ui.window_menus import EXAMPLE_TITLES

    assert set(EXAMPLE_TITLES) == {path.stem for path in example_paths()}  # every lesson has its menu title
    assert [a.text() for a in window.examples_menu.actions()][:2] == ["01 no_grad：b = a 只是第二個名字",
                                                                     "02 no_grad：b = a + 0 是新的張量"]
    window.example_actions["01_no_grad_alias"].trigger()
    text = window.editor.toPlainText()
    assert text.startswith("a = torch.tensor(1.0, requires_grad=True)\nwith torch.no_grad():\n    b = a\n")
    assert "# `b = a` 只是替張量多取一個名字" in text
    run_and_wait(qtbot, window)
    assert window.result.capture.node_named("a") == window.result.capture.node_named("b")  # one node, two names


def test_a_tensor_past_the_value_cap_is_said_so_in_chinese(qtbot, settings, tmp_path, speaks):
    """The inspector's note on a large tensor ("summary only") is a record's note, written in English in files."""
    code = "w = torch.randn(20_000, requires_grad=True)\nloss = (w * 2).sum()\nloss.backward()\n"
    plain = {}
    exec(code, {"torch": torch}, plain)
    assert plain["w"].numel() == 20_000 and plain["w"].grad.eq(2).all()  # plain PyTorch: 20,000 values, grad 2
    speaks("zh_TW")
    window = make_window(qtbot, settings, tmp_path / "data")
    window.editor.setPlainText(code)
    run_and_wait(qtbot, window)
    window.graph_view.select_node(window.result.capture.node_named("w"))
    shown = window.inspector.value_text()
    assert "20,000 個元素，超過 10,000 個元素的上限：只保留摘要" in shown, shown
    assert "elements is over" not in shown and "summary only" not in shown
    gradient = window.inspector.gradient_text()
    assert "只保留摘要" in gradient and "summary only" not in gradient, gradient

"""The language the app speaks: Qt's translation catalogue, which language is chosen, and how to ask it.

Every user-visible string of the UI goes through Qt's translation system.
A module asks with ``_tr = translator_for(__name__)`` and ``_tr("&File")``
(or marks it with ``N_("&File")`` in a table built at import, and translates
it with ``_tr`` where it is shown): the module's own name (``main_window``)
is the catalogue's *context*, so the scanner (``scripts/translations.py``)
and the running app agree on it without a string to keep in step. Texts with facts in them keep named slots
and are filled after translating (``_tr("{count} nodes").format(count=n)``),
because a translation may need the facts in another order.

The sentences the core writes (explanations, module-audit warnings, checks,
replay steps, its errors) come as :class:`~gradexplorer.core.records.phrases.Phrase`
records (a template and its facts); :func:`phrase_text` renders one through
the same catalogue, in the ``explain`` context.

Catalogues are ``resources/translations/gradexplorer_<lang>.qm``, compiled
from the ``.ts`` files beside them; Qt's own ``qtbase_<lang>.qm`` (shipped
with PySide6) translates the standard buttons and dialogs. English is the
source language: it needs no catalogue.

Which language: the one chosen in View > Language (remembered in the
settings), else the system's locale when a catalogue exists for it (a
Traditional Chinese system, zh_TW / zh_HK / zh_Hant, gets ``zh_TW``), else
English. Changing it takes effect at the next start: the window's texts
are set when it is built.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from ..core.records.phrases import PHRASE_CONTEXT, place_of
from ..resources import resource_root

__all__ = ["LANGUAGES", "N_", "Marked", "active_language", "catalogue_path", "choose_language", "install_language",
           "error_report_text", "error_text", "phrase_text", "place_text", "system_language", "translator_for"]

#: The languages the app speaks, each named in itself (a menu entry a reader of it recognises).
LANGUAGES = {"en": "English", "zh_TW": "繁體中文"}

#: The translators installed now (kept referenced: Qt does not own them) and their language.
_installed: list[QTranslator] = []
_active = ["en"]


def translator_for(module_name: str):
    """``_tr(text)`` for a module: ``text`` translated in the context named after the module's file.

    Parameters
    ----------
    module_name : str
        The module's ``__name__`` (``"gradexplorer.ui.main_window"``); its
        last part is the context.
    """
    context = module_name.rsplit(".", 1)[-1]

    def _tr(text: str) -> str:
        # A marked text is translated in the context it was marked in, whichever module shows it.
        return QCoreApplication.translate(text.context if type(text) is Marked else context, text)

    return _tr


class Marked(str):
    """A text marked with :func:`N_`: the text itself, which remembers the catalogue context it was marked in.

    (A ``str`` subclass cannot have ``__slots__``: ``context`` lives in the instance's dict.)
    """

    context: str


def N_(text: str) -> Marked:
    """Mark ``text`` for the catalogue where it is written, translated later by ``_tr(text)`` where it is shown.

    For tables made when a module is imported (a menu's entries), before a
    language is installed; the scanner finds ``N_("...")`` like ``_tr``, in
    the context of the module it is written in, so the marked text keeps that
    context: any module's ``_tr`` translates it there (a table or a pending
    text used by another module than its own was once shown in English).
    """
    marked = Marked(text)
    marked.context = sys._getframe(1).f_globals["__name__"].rsplit(".", 1)[-1]
    return marked


def _translate_phrase(template: str) -> str:
    return QCoreApplication.translate(PHRASE_CONTEXT, template)


def phrase_text(phrase) -> str:
    """A :class:`Phrase` from the core (an explanation, a label) in the language installed now; text as it is."""
    return phrase if type(phrase) is str else phrase.render(_translate_phrase)


def error_text(exc: BaseException) -> str:
    """An error of ours in the reader's language (its phrase, when it was raised with one); others as they are."""
    said = getattr(exc, "said", None)
    return phrase_text(said) if said is not None else str(exc)


def error_report_text(report) -> str:
    """An :class:`~gradexplorer.core.records.errors.ErrorReport`'s traceback for the console, its first words in
    the reader's language when gradexplorer wrote them (the process died) and Python's own otherwise."""
    if report.said is None or not report.traceback.startswith(report.message):
        return report.traceback
    return phrase_text(report.said) + report.traceback[len(report.message):]


def place_text(source) -> str:
    """Where a line is (a ``SourceLine`` or an ``ErrorReport``: ``line`` and ``file``), in the reader's language."""
    return phrase_text(place_of(source))


def catalogue_path(language: str) -> Path:
    """Where our compiled catalogue for ``language`` lives (``resources/translations/gradexplorer_zh_TW.qm``)."""
    return resource_root() / "translations" / f"gradexplorer_{language}.qm"


def system_language(locale: QLocale | None = None) -> str:
    """The language the system's locale asks for, among :data:`LANGUAGES` (English when none fits).

    Qt gives Traditional Chinese as the Traditional Han script or a territory that
    writes it (Taiwan, Hong Kong, Macao); Simplified Chinese is not offered
    a Traditional translation.
    """
    locale = QLocale.system() if locale is None else locale
    if locale.language() == QLocale.Language.Chinese:
        traditional = locale.script() == QLocale.Script.TraditionalHanScript or locale.territory() in (
            QLocale.Country.Taiwan, QLocale.Country.HongKong, QLocale.Country.Macao)
        if traditional:
            return "zh_TW"
    return "en"


def choose_language(saved: str) -> str:
    """The language to start in: ``saved`` (View > Language) when known, else the system's."""
    return saved if saved in LANGUAGES else system_language()


def active_language() -> str:
    """The language installed now (``"en"`` until :func:`install_language` installs another)."""
    return _active[0]


def install_language(language: str) -> bool:
    """Make the application speak ``language``: our catalogue and Qt's own; False (English) when one is missing.

    Replaces what an earlier call installed. Call it before the window is
    built: widgets take their texts when they are made.
    """
    app = QCoreApplication.instance()
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    _active[0] = "en"
    if language == "en" or language not in LANGUAGES:
        return language == "en"
    ours = QTranslator()
    if not ours.load(str(catalogue_path(language))):
        return False
    qt_own = QTranslator()
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for translator, loaded in ((ours, True), (qt_own, qt_own.load(f"qtbase_{language}", qt_folder))):
        if loaded:
            app.installTranslator(translator)
            _installed.append(translator)
    _active[0] = language
    return True

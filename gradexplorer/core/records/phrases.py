"""A sentence kept as its template and facts, made into words in the reader's language when read.

An explanation ("b is the same tensor object as a: ...") is stored as a
:class:`Phrase`: an English template with named slots (``"{name} is a view of
{base}"``) and the facts that fill them, which are plain text (names, values,
code), numbers, or phrases themselves. A saved session keeps the facts, never
the finished sentence, so a session saved in English reads in Traditional
Chinese on a reader's machine: the app hands :meth:`Phrase.render` a
``translate`` function (Qt's catalogue, ``QCoreApplication.translate``),
the CLI and tests leave it out and read English.

The templates are the catalogue's source strings:
``scripts/translations.py`` finds every ``phrase("...")`` call in
``gradexplorer/core`` and writes it into the ``.ts`` files beside the UI's
strings, and a test checks that each has a translation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PHRASE_CONTEXT", "Phrase", "concat", "phrase", "place_of", "template_slots"]

#: The translation context of every phrase template (Qt's catalogue groups strings by context).
PHRASE_CONTEXT = "explain"

#: ``{name}``-style slots (``{{`` is a literal brace, as in :meth:`str.format`).
_SLOT = re.compile(r"(?<!\{)\{(\w+)\}(?!\})")
#: A field as :meth:`Phrase.render` fills it: a doubled brace, or a slot.
_FIELD = re.compile(r"\{\{|\}\}|\{(\w+)\}")
#: A template that is only slots (what :func:`concat` makes): not in the catalogue, never translated.
_ONLY_SLOTS = re.compile(r"(?:\{\w+\})*")


@dataclass(frozen=True)
class Phrase:
    """A template with named slots and the facts that fill them.

    Attributes
    ----------
    template : str
        The English text with ``{slot}`` fields; the key in the catalogue.
        With no ``args`` it is the text itself (an explanation read from a
        session saved before phrases existed), braces and all.
    args : tuple of (str, str or int or Phrase)
        The facts by slot name. A nested :class:`Phrase` is rendered in the
        same language first.
    scopes : tuple of (str, str)
        ``(name, function)`` for names held in a function (``loss`` in
        ``train_step()``): after rendering, the first mention of each name
        gets "(in train_step())", translated like the rest.
    """

    template: str
    args: tuple[tuple[str, str | int | Phrase], ...] = ()
    scopes: tuple[tuple[str, str], ...] = ()

    def render(self, translate: Callable[[str], str] | None = None) -> str:
        """The sentence in words: English, or through ``translate`` (template -> translated template).

        A translation that lost or misspelt a slot falls back to English
        rather than failing in front of the reader; a slot with no fact (a
        damaged file) stays written as ``{slot}``, and anything else in braces
        stays as it is.
        """
        text = self.template
        if translate is not None and not _ONLY_SLOTS.fullmatch(text):  # concat()'s "{p0}{p1}" is no sentence
            translated = translate(self.template) or self.template
            if translated is not self.template and template_slots(translated) != template_slots(self.template):
                translated = self.template  # a translation that lost or misspelt a slot: English
            text = translated
        if self.args:
            values = {key: value.render(translate) if type(value) is Phrase else str(value) for key, value in self.args}
            text = _FIELD.sub(lambda match: _fill(match, values), text)
        for name, scope in self.scopes:
            text = _scope_first(text, name, scope, translate)
        return text

    def __str__(self) -> str:
        return self.render()

    def __contains__(self, text: str) -> bool:
        """``"freeze" in warning.fix``: a search of the English words, as of the text the phrase replaced."""
        return text in self.render()


def _fill(match: re.Match, values: dict[str, str]) -> str:
    """One field of a template: a fact by its slot's name (a slot without one stays ``{slot}``), or a brace.

    Only ``{name}`` fields: a template can come from a file, and ``str.format``
    would also obey ``{name:>999999999}`` (a gigabyte of spaces) or
    ``{name.__class__}``; here those are left as text.
    """
    slot = match.group(1)
    if slot is None:
        return match.group(0)[0]  # "{{" or "}}"
    return values.get(slot, match.group(0))


def phrase(template: str, **args) -> Phrase:
    """A :class:`Phrase` of ``template`` filled with ``args`` (the form the catalogue's scanner finds)."""
    return Phrase(template, tuple(args.items()))


def concat(*parts) -> Phrase:
    """Phrases (or plain text) one after the other, each translated alone: sentences that are added to."""
    parts = tuple(part for part in parts if part != "")
    if len(parts) == 1 and type(parts[0]) is Phrase:
        return parts[0]
    return Phrase("".join(f"{{p{i}}}" for i in range(len(parts))), tuple((f"p{i}", part) for i, part in enumerate(parts)))


def place_of(source) -> Phrase:
    """Where a :class:`~gradexplorer.core.records.source.SourceLine` is, in words: ``line 12`` in the program,
    ``line 12 of pkg/model.py`` in another file (what ``SourceLine.where()`` says in English)."""
    if source.file is None:
        return phrase("line {line}", line=source.line)
    return phrase("line {line} of {file}", line=source.line, file=source.file)


def template_slots(template: str) -> set[str]:
    """The slot names of ``template`` (a translation must keep exactly these)."""
    return set(_SLOT.findall(template))


def _scope_first(text: str, name: str, scope: str, translate) -> str:
    """``text`` with the first mention of ``name`` said to be ``name`` in ``scope``."""
    said = (translate(_SCOPED) if translate is not None else _SCOPED) or _SCOPED
    try:
        said = said.format(name=name, scope=scope)
    except (KeyError, IndexError, ValueError):
        said = _SCOPED.format(name=name, scope=scope)
    pattern = re.compile(r"(?<![\w.\[])" + re.escape(name) + r"(?![\w\[(])(?!\.\w)")
    return pattern.sub(lambda _match: said, text, count=1)


#: How a name held in a function is said (written as a ``phrase()`` call so the catalogue's scanner sees it).
_SCOPED = phrase("{name} (in {scope})").template

"""The notes a tensor record carries ("219,232 elements is over the 10,000-element cap: summary only"), in words.

A :class:`~gradexplorer.core.records.tensors.TensorRecord` says in its
``note`` why its values are not all there or not as they were: past the value
cap, a sparse or quantized tensor shown another way, a meta tensor, values a
file could not keep. The note is plain English text in memory and in files
(sessions and ``capture --json`` documents of every version hold it so), and
several join with ``"; "``. The inspector shows it to a reader who may read
Traditional Chinese, so each kind of note is a template here, used twice:
the code that writes a note fills it (:func:`note_text`, :func:`joined`), and :func:`note_phrase`
reads a note back into the template and its facts, which the app translates
like any other phrase. A part no template reads (an older version's words)
is shown as it is.
"""

from __future__ import annotations

import re

from .phrases import Phrase, concat, phrase

__all__ = ["CAPPED", "CHANGED_LATER", "DELIVERED_BY_CHECKPOINT", "DELIVERED_BY_FUNCTION", "DENSE", "DEQUANTIZED",
           "END_VALUE", "FILE_BUDGET", "FILE_BUDGET_OF", "LAYOUT_NOT_CAPTURED", "LAYOUT_UNREADABLE", "META",
           "NO_STATISTICS", "NO_STATISTICS_ENDED", "NOT_IN_FILES", "QUANTIZED_UNREADABLE", "SEPARATOR", "SUM_UNKNOWN",
           "UNREADABLE", "joined", "note_phrase", "note_text"]

# Each template is written once, as a phrase() call (the form the catalogue's scanner finds).
CAPPED = phrase("{count} elements is over the {cap}-element cap: summary only").template
META = phrase("meta tensor: it has a shape but no values").template
LAYOUT_NOT_CAPTURED = phrase("{layout} tensor: values are not captured").template
LAYOUT_UNREADABLE = phrase("{layout} tensor: values not readable ({error})").template
DENSE = phrase("{layout} tensor, shown dense").template
QUANTIZED_UNREADABLE = phrase("quantized tensor: values not readable ({error})").template
DEQUANTIZED = phrase("quantized tensor ({dtype}): values shown dequantized").template
UNREADABLE = phrase("values could not be read: {error}").template
CHANGED_LATER = phrase("changed in place after the op (by code gradexplorer could not see): this is the later "
                       "value").template
END_VALUE = phrase("value at the end of the run (the op that made it was not recorded)").template
DELIVERED_BY_CHECKPOINT = phrase("delivered by a backward that a reentrant torch.utils.checkpoint ran inside this "
                                 "pass (the change in .grad)").template
DELIVERED_BY_FUNCTION = phrase("delivered by a backward that a custom Function ran inside this pass (the change in "
                               ".grad)").template
SUM_UNKNOWN = phrase("the sum of the {count} gradients sent here: they were over the value cap, kept as statistics "
                     "only, so their sum is not known").template
FILE_BUDGET = phrase("values not saved: the file's value budget was used").template
FILE_BUDGET_OF = phrase("values not saved: the file's {budget}-value budget was used").template
NOT_IN_FILES = phrase("values of dtype {dtype} are not kept in files (statistics only)").template
NO_STATISTICS = phrase("statistics not received: {error}").template
NO_STATISTICS_ENDED = phrase("statistics not received: the program's process ended before sending them").template

_TEMPLATES = (CAPPED, META, LAYOUT_NOT_CAPTURED, LAYOUT_UNREADABLE, DENSE, QUANTIZED_UNREADABLE, DEQUANTIZED,
              UNREADABLE, CHANGED_LATER, END_VALUE, DELIVERED_BY_CHECKPOINT, DELIVERED_BY_FUNCTION, SUM_UNKNOWN,
              FILE_BUDGET, FILE_BUDGET_OF, NOT_IN_FILES, NO_STATISTICS_ENDED, NO_STATISTICS)
_SLOT = re.compile(r"\{(\w+)\}")
#: How the parts of a note are joined.
SEPARATOR = "; "


def _pattern(template: str) -> re.Pattern:
    pieces, at = [], 0
    for match in _SLOT.finditer(template):
        pieces.append(re.escape(template[at:match.start()]))
        pieces.append(f"(?P<{match.group(1)}>.+?)")
        at = match.end()
    pieces.append(re.escape(template[at:]))
    return re.compile("".join(pieces) + r"\Z", re.S)


_READERS = tuple((_pattern(template), template) for template in _TEMPLATES)


def note_text(template: str, **facts) -> str:
    """A note of ``template`` (one of this module's) with its facts, in English: what records and files keep."""
    return template.format(**facts)


def joined(note: str, more: str) -> str:
    """``note`` with ``more`` after it, as :func:`note_phrase` splits them (``more`` alone for an empty note)."""
    return f"{note}{SEPARATOR}{more}" if note else more


def note_phrase(text: str) -> Phrase | str:
    """``text`` (a record's note) as phrases, part by part, to be said in the reader's language.

    A part that no template reads stays as it is (``str``), as does a note
    with none: the words of an older version, or the rest of an error
    message that held ``"; "`` itself.
    """
    if not text:
        return text
    parts: list[Phrase | str] = []
    read_any = False
    for number, part in enumerate(text.split(SEPARATOR)):
        if number:
            parts.append(SEPARATOR)
        for pattern, template in _READERS:
            match = pattern.match(part)
            if match is not None:
                parts.append(phrase(template, **match.groupdict()))
                read_any = True
                break
        else:
            parts.append(part)
    return concat(*parts) if read_any else text

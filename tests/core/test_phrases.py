"""Sentences kept as templates and facts (issue 31, part 3): said in the reader's language, saved as facts.

The seed lesson's explanations are checked against a plain PyTorch run of
the same program; the translation is stood in for by a function, as the
app's Qt catalogue is a function of the template.
"""

from __future__ import annotations

import json

import torch

from gradexplorer import capture
from gradexplorer.core.io.session import read_session_text, session_from_capture, session_to_bytes, session_to_dict
from gradexplorer.core.io.session import read_session_bytes
from gradexplorer.core.records.phrases import Phrase, concat, phrase

from ..programs import ALIAS_LESSON as ALIAS
from ..programs import PLAIN_ATTRIBUTE


def _marked(template: str) -> str:
    """A stand-in catalogue: every template translated as itself in brackets (slots kept)."""
    return f"«{template}»"


def test_the_seed_alias_explanation_is_kept_as_facts_and_said_through_the_catalogue():
    plain = {}
    exec(ALIAS, {"torch": torch}, plain)
    assert plain["a"].grad.item() == 1.0  # plain PyTorch: b = a is only a second name, a still gets its gradient
    cap = capture(ALIAS)
    b = next(e for e in cap.explanations if e.name == "b")
    assert b.code == "alias"
    english = b.sentence
    assert english.startswith("b is the same tensor object as a: `b = a` at line 3 only adds a name")
    assert english.endswith("so b still gets a gradient, exactly like a.")
    said = b.phrase.render(_marked)
    # Every template on the way (the sentence, the reason, the gradient part) went through the catalogue ...
    assert said.startswith("«b is the same tensor object as a: «`b = a` at line 3 only adds a name")
    assert "«b still gets a gradient, exactly like a»" in said
    # ... and the facts did not: names, code and line numbers are the program's.
    assert said.count("«") == said.count("»") and "torch.no_grad()" in said


def test_a_lost_slot_or_a_missing_fact_never_fails_in_front_of_the_reader():
    sentence = phrase("{name} is a leaf{where}.", name="w", where=phrase(" at {place}", place="line 3"))
    assert sentence.render() == "w is a leaf at line 3."
    assert sentence.render(lambda t: t.replace("{name}", "{nom}")) == "w is a leaf at line 3."  # English instead
    assert phrase("{name} and {other}", name="x").render() == "x and {other}"  # a damaged file's phrase
    assert Phrase("a {b} with braces and no facts").render() == "a {b} with braces and no facts"  # old sessions
    # A template read from a file is filled slot by slot, never by str.format: no format specs, no attributes.
    hostile = phrase("{x:>999999999} {x.__class__} {{x}} {x}", x="v")
    assert hostile.render() == "{x:>999999999} {x.__class__} {x} v"
    assert concat("a", "", phrase(" b")).render() == "a b"
    assert "leaf" in sentence and "root" not in sentence


def test_a_name_held_in_a_function_is_said_so_in_the_reader_s_language():
    cap = capture("def main():\n    w = torch.ones(2, requires_grad=True)\n    (w * 2).sum().backward()\n    return w\n"
                  "main()\n")
    w = next(e for e in cap.explanations if e.name == "w")
    assert w.sentence.startswith("w (in main()) is a leaf that requires grad")
    said = w.phrase.render(lambda t: "{name}〔{scope}〕" if t == "{name} (in {scope})" else t)
    assert said.startswith("w〔main()〕 is a leaf that requires grad")


def test_a_session_keeps_the_facts_not_the_words_and_reads_them_back_equal():
    cap = capture(ALIAS + PLAIN_ATTRIBUTE)
    doc = session_to_dict(session_from_capture(cap))
    saved = doc["capture"]["explanations"]
    assert all("sentence" not in e and "template" in e["phrase"] for e in saved)
    layer = next(m for m in doc["capture"]["modules"] if m["path"] == "layer")
    warning = next(w for w in layer["warnings"] if w["code"] == "plain_tensor_attribute")
    assert warning["message"]["template"].startswith("`{path}` is a plain tensor attribute")
    again = read_session_bytes(session_to_bytes(session_from_capture(cap))).capture
    assert again.explanations == cap.explanations
    assert again.modules[0].warnings == cap.modules[0].warnings or again.modules == cap.modules


def test_a_session_saved_before_phrases_still_opens_with_its_english_words():
    cap = capture(ALIAS + PLAIN_ATTRIBUTE)
    doc = session_to_dict(session_from_capture(cap))
    for e in doc["capture"]["explanations"]:  # what an older gradexplorer wrote: the sentence itself
        e["sentence"] = next(x.sentence for x in cap.explanations if x.name == e["name"])
        del e["phrase"]
    for module in doc["capture"]["modules"]:
        for w in module["warnings"]:
            w["message"] = Phrase(w["message"]["template"], tuple(map(tuple, w["message"]["args"]))).render()
            w["fix"] = "" if w.get("fix") is None else "an old fix"
    old = read_session_text(json.dumps(doc)).capture
    assert [e.sentence for e in old.explanations] == [e.sentence for e in cap.explanations]
    warning = next(w for m in old.modules for w in m.warnings if w.code == "plain_tensor_attribute")
    assert str(warning.message) == str(next(w for m in cap.modules for w in m.warnings
                                            if w.code == "plain_tensor_attribute").message)
    assert str(warning.fix) == "an old fix"


def test_an_error_gradexplorer_wrote_keeps_its_phrase_through_a_session():
    from gradexplorer.core.isolated.engine import capture_isolated

    cap = capture_isolated("import os\nos._exit(3)\n")
    assert cap.error.said is not None and str(cap.error.said) == cap.error.message
    again = read_session_bytes(session_to_bytes(session_from_capture(cap))).capture
    assert again.error == cap.error
    # Our words through the catalogue (the headline, the place, the sentence), the exit code and line as facts.
    assert again.error.headline_phrase().render(_marked).startswith(
        "«os._exit« at «line 2»»: «the program called os._exit(3)« at line 2»; its process ended there")

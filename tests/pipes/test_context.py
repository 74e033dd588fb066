"""Tests for ``semgap_context``: negation and hedge scope over term spans."""
import json
from functools import lru_cache

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Span
from spacy.util import load_model_from_config

import semgap_spacy.pipes.context  # noqa: F401  (registers the factory and the cue loader)
from semgap_spacy.pipes.extensions import pack_span_id
from semgap_spacy.lang import LanguagePackError
from semgap_spacy.lang.cues import (HEDGE, NEGATION, CueError, CueRecord, CueSet, cue_sets_from_arg,
                                    load_packaged_cues)
from semgap_spacy.pipes.context import Context

PHRASE_ID = pack_span_id("mortgage", "clear", "en", "approved", "phrase")
FRAME_NEG_ID = pack_span_id("medical_logistics", "clear", "en", "approved", "frame")
FRAME_POS_ID = pack_span_id("medical_logistics", "critical_block", "en", "approved", "frame")


@lru_cache(maxsize=None)
def _nlp(lang: str, config: tuple) -> Language:
    nlp = spacy.blank(lang)
    nlp.add_pipe("semgap_context", config={k: list(v) if isinstance(v, tuple) else v for k, v in config})
    return nlp


def nlp_for(lang: str, **config) -> Language:
    """A blank pipeline with only semgap_context, cached per (lang, config)."""
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in config.items()))
    return _nlp(lang, key)


def assess(nlp: Language, text: str, term: str, *, label: str = "T", span_id: str = PHRASE_ID,
           occurrence: int = 0):
    """Run the component on ``text`` with ``term`` (a substring) as the only term span."""
    doc = nlp.make_doc(text)
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(term, start + 1)
    span = doc.char_span(start, start + len(term))
    assert span is not None, f"{term!r} does not align with the tokens of {text!r}"
    doc.spans["semgap_terms"] = [Span(doc, span.start, span.end, label=label, span_id=span_id)]
    for name, proc in nlp.pipeline:
        doc = proc(doc)
    assert doc._.semgap_component_errors is None
    return doc, doc.spans["semgap_terms"][0]


# (lang, text, term, negated, hedged); terms are plain phrase matches.
PHRASE_CASES = [
    # forward negation
    ("en", "no crossmatch positive", "crossmatch positive", True, False),
    ("en", "not clear to close", "clear to close", True, False),
    ("en", "File is not clear to close.", "clear to close", True, False),
    ("en", "File isn't clear to close", "clear to close", True, False),
    ("en", "Patient denies title defect", "title defect", True, False),
    ("en", "Loan without title defect", "title defect", True, False),
    ("en", "Never grounded", "grounded", True, False),
    ("en", "Report negative for title defect", "title defect", True, False),
    ("en", "No result yet; crossmatch positive", "crossmatch positive", False, False),
    # spec §4: a cue reaches both directions within its own clause ...
    ("en", "crossmatch positive no delays", "crossmatch positive", True, False),
    ("en", "CTC withdrawn", "CTC", True, False),
    ("en", "withdrawn CTC", "CTC", True, False),
    ("es", "prueba cruzada positiva sin retraso", "prueba cruzada positiva", True, False),
    ("fr", "crossmatch positif sans retard", "crossmatch positif", True, False),
    ("en", "crossmatch positive, no delays", "crossmatch positive", False, False),
    # ... and a pseudo cue holds a cue word and negates nothing, either way
    ("en", "crossmatch positive without delay", "crossmatch positive", False, False),
    ("en", "without delay crossmatch positive", "crossmatch positive", False, False),
    ("es", "prueba cruzada positiva sin demora", "prueba cruzada positiva", False, False),
    ("fr", "crossmatch positif sans délai", "crossmatch positif", False, False),
    ("de", "Kreuzprobe positiv ohne Verzögerung", "Kreuzprobe positiv", False, False),
    # spec §4: a list (commas, a conjunction before the last item) is one clause for a cue before it
    ("en", "no title defect, cloud on title or appraisal gap", "appraisal gap", True, False),
    ("en", "no title defect, cloud on title or appraisal gap", "cloud on title", True, False),
    ("en", "No delays, crossmatch positive, title defect", "title defect", False, False),
    ("en", "No delays; crossmatch positive or title defect", "title defect", False, False),
    ("es", "sin brecha de tasación, amortización negativa o defecto de título", "defecto de título", True, False),
    ("fr", "aucun écart d'évaluation, vice de titre ou amortissement négatif", "amortissement négatif", True, False),
    ("de", "kein Titelmangel, Bewertungslücke oder negative Tilgung", "negative Tilgung", True, False),
    ("en", "title defect or appraisal gap, no delays", "title defect", False, False),
    # backward negation, multi-token cues
    ("en", "crossmatch positive ruled out", "crossmatch positive", True, False),
    ("en", "clear to close not yet", "clear to close", True, False),
    ("en", "Clear to close NOT YET issued", "Clear to close", True, False),
    ("en", "CTC not issued", "CTC", True, False),
    # "negative" and "clear" are outcome/term words, never cues
    ("en", "negative crossmatch", "negative crossmatch", False, False),
    ("en", "Negative. Crossmatch negative", "Crossmatch negative", False, False),
    ("en", "all clear, clear to close", "clear to close", False, False),
    # a cue straddling the term's edge is part of the term's words
    ("en", "crossmatch negative for donor antibodies", "crossmatch negative", False, False),
    # pseudo-cue: the longest match wins
    ("en", "not only clear to close", "clear to close", False, False),
    # hedges
    ("en", "clear to close pending appraisal", "clear to close", False, True),
    ("en", "once CTC is issued", "CTC", False, True),
    ("en", "if the crossmatch is negative", "crossmatch is negative", False, True),
    ("en", "possible open defect", "open defect", False, True),
    ("en", "open defect suspected", "open defect", False, True),
    ("en", "clear to close to be confirmed", "clear to close", False, True),
    ("en", "CTC TBD", "CTC", False, True),
    ("en", "clear to close expected Friday", "clear to close", False, True),
    ("en", "Awaiting clear to close", "clear to close", False, True),
    ("en", "dispatch unless crossmatch positive", "crossmatch positive", False, True),
    ("en", "may be airworthy", "airworthy", False, True),
    ("en", "no, possibly airworthy", "airworthy", False, True),
    ("en", "not likely airworthy", "airworthy", True, True),
    # clause breaks (en)
    ("en", "No delays, crossmatch positive", "crossmatch positive", False, False),
    ("en", "No delays; crossmatch positive", "crossmatch positive", False, False),
    ("en", "No delays. Crossmatch positive", "Crossmatch positive", False, False),
    ("en", "No delays! Crossmatch positive", "Crossmatch positive", False, False),
    ("en", "No delays? Crossmatch positive", "Crossmatch positive", False, False),
    # a line break is whitespace, not a clause break (spec §4.1: one space)
    ("en", "No delays\ncrossmatch positive", "crossmatch positive", True, False),
    ("en", "No delays\n\ncrossmatch positive", "crossmatch positive", True, False),
    ("en", "No delays - crossmatch positive", "crossmatch positive", False, False),
    ("en", "No delays – crossmatch positive", "crossmatch positive", False, False),
    ("en", "No delays — crossmatch positive", "crossmatch positive", False, False),
    ("en", "No delays but crossmatch positive", "crossmatch positive", False, False),
    ("en", "No delays however crossmatch positive", "crossmatch positive", False, False),
    ("en", "No delays although crossmatch positive", "crossmatch positive", False, False),
    ("en", "clear to close, pending nothing", "clear to close", False, False),
    # a colon is not a break
    ("en", "Denies: title defect", "title defect", True, False),
    ("en", "Pending: clear to close", "clear to close", False, True),
    # an intra-word hyphen is not a break (and its parts are no cues)
    ("en", "no re-test crossmatch positive", "crossmatch positive", True, False),
    ("en", "no retest - crossmatch positive", "crossmatch positive", False, False),
    ("en", "non-urgent open defect", "open defect", False, False),
    # Spanish
    ("es", "sin prueba cruzada positiva", "prueba cruzada positiva", True, False),
    ("es", "ningún defecto abierto", "defecto abierto", True, False),
    ("es", "NINGÚN defecto abierto", "defecto abierto", True, False),
    ("es", "ningun defecto abierto", "defecto abierto", True, False),
    ("es", "Ninguna prueba cruzada positiva", "prueba cruzada positiva", True, False),
    ("es", "no está listo para el cierre", "listo para el cierre", True, False),
    ("es", "aún no listo para el cierre", "listo para el cierre", True, False),
    ("es", "prueba cruzada positiva descartada", "prueba cruzada positiva", True, False),
    ("es", "listo para el cierre pendiente de tasación", "listo para el cierre", False, True),
    ("es", "posible defecto abierto", "defecto abierto", False, True),
    ("es", "probable defecto de título", "defecto de título", False, True),
    ("es", "si la prueba cruzada es negativa", "prueba cruzada es negativa", False, True),
    ("es", "prueba cruzada negativa sin confirmar", "prueba cruzada negativa", False, True),
    ("es", "no retraso pero prueba cruzada positiva", "prueba cruzada positiva", False, False),
    ("es", "sin retraso, prueba cruzada positiva", "prueba cruzada positiva", False, False),
    ("es", "sin retraso; prueba cruzada positiva", "prueba cruzada positiva", False, False),
    ("es", "sin retraso. Prueba cruzada positiva", "Prueba cruzada positiva", False, False),
    ("es", "sin retraso - prueba cruzada positiva", "prueba cruzada positiva", False, False),
    ("es", "sin retraso sin embargo prueba cruzada positiva", "prueba cruzada positiva", False, False),
    ("es", "no hay retraso aunque prueba cruzada positiva", "prueba cruzada positiva", False, False),
    # French
    ("fr", "pas de crossmatch positif", "crossmatch positif", True, False),
    ("fr", "aucun crossmatch positif", "crossmatch positif", True, False),
    ("fr", "AUCUNE épreuve de compatibilité positive", "épreuve de compatibilité positive", True, False),
    ("fr", "sans crossmatch positif", "crossmatch positif", True, False),
    ("fr", "Non autorisé à clôturer", "autorisé à clôturer", True, False),
    ("fr", "Dossier pas encore autorisé à clôturer", "autorisé à clôturer", True, False),
    ("fr", "crossmatch positif exclu", "crossmatch positif", True, False),
    ("fr", "n'importe quel crossmatch positif", "crossmatch positif", False, False),
    # elided "n'" also when the tokenizer keeps "n'est" whole
    ("fr", "Le dossier n'est plus autorisé à clôturer", "autorisé à clôturer", True, False),
    ("fr", "crossmatch négatif en attente", "crossmatch négatif", False, True),
    ("fr", "En attente : autorisé à clôturer", "autorisé à clôturer", False, True),
    ("fr", "si le crossmatch est négatif", "crossmatch est négatif", False, True),
    ("fr", "probable défaut ouvert", "défaut ouvert", False, True),
    ("fr", "pas de retard mais crossmatch positif", "crossmatch positif", False, False),
    ("fr", "Pas de retard, crossmatch positif", "crossmatch positif", False, False),
    ("fr", "pas de retard; crossmatch positif", "crossmatch positif", False, False),
    ("fr", "pas de retard. Crossmatch positif", "Crossmatch positif", False, False),
    ("fr", "pas de retard — crossmatch positif", "crossmatch positif", False, False),
    ("fr", "pas de retard cependant crossmatch positif", "crossmatch positif", False, False),
    # German
    ("de", "keine positive Kreuzprobe", "positive Kreuzprobe", True, False),
    ("de", "kein Titelmangel", "Titelmangel", True, False),
    ("de", "KEINEN Titelmangel", "Titelmangel", True, False),
    ("de", "ohne offenen Mangel", "offenen Mangel", True, False),
    ("de", "nicht abschlussbereit", "abschlussbereit", True, False),
    ("de", "noch nicht abschlussbereit", "abschlussbereit", True, False),
    ("de", "Flugzeug am Boden ausgeschlossen", "Flugzeug am Boden", True, False),
    ("de", "Kreuzprobe positiv ausstehend", "Kreuzprobe positiv", False, True),
    ("de", "falls Kreuzprobe negativ", "Kreuzprobe negativ", False, True),
    ("de", "wenn die Kreuzprobe negativ ist", "Kreuzprobe negativ", False, True),
    ("de", "möglicher offener Mangel", "offener Mangel", False, True),
    ("de", "MOGLICHER offener Mangel", "offener Mangel", False, True),
    ("de", "wahrscheinlich Titelmangel", "Titelmangel", False, True),
    ("de", "keine Verzögerung, aber Kreuzprobe positiv", "Kreuzprobe positiv", False, False),
    ("de", "keine Verzögerung aber Kreuzprobe positiv", "Kreuzprobe positiv", False, False),
    ("de", "keine Verzögerung; Kreuzprobe positiv", "Kreuzprobe positiv", False, False),
    ("de", "keine Verzögerung. Kreuzprobe positiv", "Kreuzprobe positiv", False, False),
    ("de", "keine Verzögerung – Kreuzprobe positiv", "Kreuzprobe positiv", False, False),
    ("de", "keine Verzögerung jedoch Kreuzprobe positiv", "Kreuzprobe positiv", False, False),
    ("de", "Kreuzprobe positiv, keine Verzögerung", "Kreuzprobe positiv", False, False),
]

# (lang, text, term, label, span_id, negated, hedged); terms are head ... value frames, so a
# cue between head and value applies unless it is one of the frame's own words.
FRAME_CASES = [
    ("en", "crossmatch not positive", "crossmatch not positive", "MED.XM_POSITIVE", FRAME_POS_ID, True, False),
    ("en", "crossmatch is not negative", "crossmatch is not negative", "MED.XM_NEGATIVE", FRAME_NEG_ID, True, False),
    ("en", "crossmatch may be positive", "crossmatch may be positive", "MED.XM_POSITIVE", FRAME_POS_ID, False, True),
    ("en", "crossmatch result: positive", "crossmatch result: positive", "MED.XM_POSITIVE", FRAME_POS_ID, False, False),
    ("en", "crossmatch non-reactive", "crossmatch non-reactive", "MED.XM_NEGATIVE", FRAME_NEG_ID, False, False),
    ("en", "crossmatch non reactive", "crossmatch non reactive", "MED.XM_NEGATIVE", FRAME_NEG_ID, False, False),
    ("en", "crossmatch non-negative", "crossmatch non-negative", "MED.XM_NEGATIVE", FRAME_NEG_ID, True, False),
    ("es", "prueba cruzada no negativa", "prueba cruzada no negativa", "MED.XM_NEGATIVE", FRAME_NEG_ID, True, False),
    ("fr", "le crossmatch n'est pas positif", "crossmatch n'est pas positif", "MED.XM_POSITIVE", FRAME_POS_ID, True, False),
    ("fr", "le crossmatch n'est pas positif", "crossmatch n'est pas positif", "UNKNOWN.LABEL", FRAME_POS_ID, True, False),
    ("de", "Kreuzprobe nicht positiv", "Kreuzprobe nicht positiv", "MED.XM_POSITIVE", FRAME_POS_ID, True, False),
]


@pytest.mark.parametrize("tok", ["own", "en", "xx"])
@pytest.mark.parametrize("lang,text,term,negated,hedged", PHRASE_CASES)
def test_context_phrase_cases(tok, lang, text, term, negated, hedged):
    nlp = nlp_for(lang if tok == "own" else tok)
    _, span = assess(nlp, text, term)
    assert (span._.semgap_negated, span._.semgap_hedged) == (negated, hedged)
    assert (span._.semgap_negation_cue is not None) == negated
    assert (span._.semgap_hedge_cue is not None) == hedged


@pytest.mark.parametrize("tok", ["own", "en", "xx"])
@pytest.mark.parametrize("lang,text,term,label,span_id,negated,hedged", FRAME_CASES)
def test_context_frame_cases(tok, lang, text, term, label, span_id, negated, hedged):
    nlp = nlp_for(lang if tok == "own" else tok)
    _, span = assess(nlp, text, term, label=label, span_id=span_id)
    assert (span._.semgap_negated, span._.semgap_hedged) == (negated, hedged)


def test_context_phrase_kind_ignores_cue_inside_span():
    # A glossary phrase that itself contains a cue word is not negated by it.
    nlp = nlp_for("en")
    _, span = assess(nlp, "status: no delays reported", "no delays")
    assert not span._.semgap_negated
    # The same words matched by a frame do negate.
    _, span = assess(nlp, "status: no delays reported", "no delays", span_id=FRAME_POS_ID)
    assert span._.semgap_negated


def test_context_cue_offsets_and_cue_group():
    nlp = nlp_for("en")
    text = "Title defect ruled out; CTC pending"
    doc = nlp.make_doc(text)
    defect = doc.char_span(0, 12)
    ctc = doc.char_span(text.index("CTC"), text.index("CTC") + 3)
    other = Span(doc, 0, 1, label="someone_else")
    doc.spans["semgap_cues"] = [other]
    doc.spans["semgap_terms"] = [Span(doc, defect.start, defect.end, label="MTG.TITLE_DEFECT", span_id=PHRASE_ID),
                                 Span(doc, ctc.start, ctc.end, label="MTG.CTC", span_id=PHRASE_ID)]
    doc = nlp.get_pipe("semgap_context")(doc)
    d, c = doc.spans["semgap_terms"]
    assert d._.semgap_negated and not d._.semgap_hedged
    assert d._.semgap_negation_cue == [text.index("ruled"), text.index("ruled out") + len("ruled out")]
    assert c._.semgap_hedged and not c._.semgap_negated
    assert c._.semgap_hedge_cue == [text.index("pending"), len(text)]
    cues = {(s.text, s.label_) for s in doc.spans["semgap_cues"]}
    assert cues == {("Title", "someone_else"), ("ruled out", "negation"), ("pending", "hedge")}
    # Running twice neither duplicates cue spans nor changes the result.
    doc = nlp.get_pipe("semgap_context")(doc)
    assert len(doc.spans["semgap_cues"]) == 3
    assert doc.ents == ()


def test_context_nearest_cue_is_reported():
    nlp = nlp_for("en")
    text = "no, not yet clear to close"
    _, span = assess(nlp, text, "clear to close")
    assert span._.semgap_negation_cue == [text.index("not yet"), text.index("not yet") + 7]


def test_context_unused_cues_not_in_group():
    nlp = nlp_for("en")
    doc, span = assess(nlp, "No delays, crossmatch positive", "crossmatch positive")
    assert "semgap_cues" not in doc.spans or len(doc.spans["semgap_cues"]) == 0


@pytest.mark.parametrize("window,gap,negated", [
    (6, 5, True),   # the term is the 6th token after the cue
    (6, 6, False),  # the 7th is out of reach
    (3, 2, True),
    (3, 3, False),
    (0, 0, False),  # window 0: only cues inside the span count
])
def test_context_window_limit(window, gap, negated):
    nlp = nlp_for("en", window=window)
    text = "no " + " ".join(["word"] * gap) + (" " if gap else "") + "crossmatch positive"
    _, span = assess(nlp, text, "crossmatch positive")
    assert span._.semgap_negated is negated


@pytest.mark.parametrize("window,gap,hedged", [(4, 3, True), (4, 4, False)])
def test_context_window_limit_backward(window, gap, hedged):
    nlp = nlp_for("en", window=window)
    text = "clear to close " + " ".join(["word"] * gap) + " pending"
    _, span = assess(nlp, text, "clear to close")
    assert span._.semgap_hedged is hedged


def test_context_window_counts_words_not_spaces():
    nlp = nlp_for("en", window=2)
    _, span = assess(nlp, "no    word crossmatch positive", "crossmatch positive")
    assert span._.semgap_negated


def test_context_sentence_boundaries_are_used_when_present():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("semgap_context")
    doc = nlp.make_doc("No delays Crossmatch positive")
    doc[2].is_sent_start = True
    for i in (1, 3):
        doc[i].is_sent_start = False
    doc.spans["semgap_terms"] = [Span(doc, 2, 4, label="T", span_id=PHRASE_ID)]
    doc = nlp.get_pipe("semgap_context")(doc)
    assert not doc.spans["semgap_terms"][0]._.semgap_negated
    _, span = assess(nlp, "No crossmatch positive here.", "crossmatch positive")
    assert span._.semgap_negated


def test_context_negation_switch_off():
    nlp = nlp_for("en", negation=False)
    doc, span = assess(nlp, "not clear to close, possible open defect", "clear to close")
    assert not span._.semgap_negated and span._.semgap_negation_cue is None
    _, span = assess(nlp, "not possibly clear to close", "clear to close")
    assert not span._.semgap_negated and span._.semgap_hedged


def test_context_hedge_switch_off():
    nlp = nlp_for("en", hedges=False)
    _, span = assess(nlp, "not possibly clear to close", "clear to close")
    assert span._.semgap_negated and not span._.semgap_hedged
    assert span._.semgap_hedge_cue is None


def test_context_both_switches_off_reset_values():
    nlp = nlp_for("en", negation=False, hedges=False)
    doc = nlp.make_doc("not possibly clear to close")
    span = Span(doc, 2, 5, label="T", span_id=PHRASE_ID)
    span._.semgap_negated = True
    doc.spans["semgap_terms"] = [span]
    doc = nlp.get_pipe("semgap_context")(doc)
    out = doc.spans["semgap_terms"][0]
    assert not out._.semgap_negated and not out._.semgap_hedged


def test_context_enabled_false_does_nothing():
    nlp = nlp_for("en", enabled=False)
    doc, span = assess(nlp, "not clear to close pending", "clear to close")
    assert not span._.semgap_negated and not span._.semgap_hedged
    assert "semgap_cues" not in doc.spans


def test_context_languages_subset():
    nlp = nlp_for("en", languages=["en"])
    _, span = assess(nlp, "sin prueba cruzada positiva", "prueba cruzada positiva")
    assert not span._.semgap_negated
    _, span = assess(nlp, "without crossmatch positive", "crossmatch positive")
    assert span._.semgap_negated


def test_context_misspelt_cue_is_not_repaired():
    nlp = nlp_for("en")
    doc = nlp.make_doc("nto clear to close")
    doc[0].norm_ = "not"
    doc.spans["semgap_terms"] = [Span(doc, 1, 4, label="MTG.CTC", span_id=PHRASE_ID)]
    doc = nlp.get_pipe("semgap_context")(doc)
    assert not doc.spans["semgap_terms"][0]._.semgap_negated


def test_context_same_offsets_share_the_result():
    nlp = nlp_for("en")
    doc = nlp.make_doc("crossmatch no reactive")
    doc.spans["semgap_terms"] = [Span(doc, 0, 3, label="MED.XM_POSITIVE", span_id=FRAME_POS_ID),
                                 Span(doc, 0, 3, label="OTHER", span_id=PHRASE_ID)]
    doc = nlp.get_pipe("semgap_context")(doc)
    assert all(s._.semgap_negated for s in doc.spans["semgap_terms"])


def test_context_word_cache_is_bounded():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_context", config={"cache_size": 6})
    for text, expected in [("no crossmatch positive", True), ("alpha beta gamma, crossmatch positive", False),
                           ("delta epsilon zeta eta no crossmatch positive", True)]:
        _, span = assess(nlp, text, "crossmatch positive")
        assert span._.semgap_negated is expected
    assert pipe.table.cached <= 7  # the last doc's own token texts only


@pytest.mark.parametrize("lang", ["en", "es", "fr", "de"])
def test_context_multi_word_cues_apply_once_their_words_are_known(lang):
    """Every multi-word negation or hedge cue governs a target after the pipe has read each of
    its words in other texts (the words it then knows must not hide the cue)."""
    nlp = spacy.blank(lang)
    pipe = nlp.add_pipe("semgap_context", config={"languages": [lang]})
    checked = 0
    for record in pipe.cue_sets[lang].records:
        words = [t.text for t in nlp.make_doc(record.cue) if not t.is_space]
        if record.category not in (NEGATION, HEDGE) or len(words) < 2 or record.cue.endswith("'"):
            continue  # an elision ("n'") is a cue at the start of a word, not before one
        for word in words:
            assess(nlp, f"{word} target", "target")
        _, span = assess(nlp, f"{record.cue} target", "target")
        assert (span._.semgap_negated if record.category == NEGATION else span._.semgap_hedged), record.cue
        checked += 1
    assert checked


def test_context_doc_without_span_group():
    nlp = nlp_for("en")
    doc = nlp("not clear to close")
    assert "semgap_terms" not in doc.spans
    assert doc._.semgap_component_errors is None
    doc = nlp.make_doc("not clear to close")
    doc.spans["semgap_terms"] = []
    doc = nlp.get_pipe("semgap_context")(doc)
    assert doc._.semgap_component_errors is None
    assert nlp("")._.semgap_component_errors is None


def test_context_add_pipe_on_blank_en():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_context")
    assert isinstance(pipe, Context)
    assert nlp.pipe_names == ["semgap_context"]
    assigns = nlp.get_pipe_meta("semgap_context").assigns
    assert "span._.semgap_negated" in assigns and "span._.semgap_hedged" in assigns
    analysis = nlp.analyze_pipes(pretty=False)
    assert analysis["summary"]["semgap_context"]["assigns"] == assigns


def test_context_config_holds_reference_not_data():
    nlp = nlp_for("en")
    cfg = nlp.config["components"]["semgap_context"]
    assert cfg["cues"] == {"@misc": "semgap.context_cues.v1"}
    text = nlp.config.to_str()
    assert "ruled out" not in text and "ningún" not in text


def _results(nlp, texts_terms):
    out = []
    for text, term in texts_terms:
        _, span = assess(nlp, text, term)
        out.append((span._.semgap_negated, span._.semgap_hedged,
                    span._.semgap_negation_cue, span._.semgap_hedge_cue))
    return out


ROUND_TRIP = [("not clear to close", "clear to close"),
              ("clear to close pending appraisal", "clear to close"),
              ("No delays, crossmatch positive", "crossmatch positive"),
              ("sin prueba cruzada positiva", "prueba cruzada positiva")]


def test_context_config_round_trip():
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_context", config={"window": 4, "hedges": False, "languages": ["en", "es"]})
    nlp2 = load_model_from_config(nlp.config, auto_fill=True)
    pipe = nlp2.get_pipe("semgap_context")
    assert (pipe.window, pipe.hedges, pipe.languages) == (4, False, ["en", "es"])
    assert nlp2.config.to_str() == nlp.config.to_str()
    assert _results(nlp2, ROUND_TRIP) == _results(nlp, ROUND_TRIP)


def test_context_to_disk_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_context", config={"window": 5})
    nlp.to_disk(tmp_path / "pipe")
    saved = json.loads((tmp_path / "pipe" / "semgap_context" / "cues.json").read_text(encoding="utf8"))
    assert sorted(saved) == ["de", "en", "es", "fr"]
    nlp2 = spacy.load(tmp_path / "pipe")
    assert nlp2.get_pipe("semgap_context").window == 5
    assert _results(nlp2, ROUND_TRIP) == _results(nlp, ROUND_TRIP)
    assert nlp2.get_pipe("semgap_context").to_bytes() == nlp.get_pipe("semgap_context").to_bytes()
    # A config override at load time wins over the saved cfg (ablation).
    nlp3 = spacy.load(tmp_path / "pipe", config={"components": {"semgap_context": {"enabled": False}}})
    assert not nlp3.get_pipe("semgap_context").enabled


def test_context_bytes_round_trip_carries_cues():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_context")
    custom = {lang: cs.to_payload() for lang, cs in pipe.cue_sets.items()}
    custom["en"]["semgap_context_cues"]["cues"].append(
        {"cue": "zorblax", "category": "negation", "direction": "forward"})
    pipe.initialize(cues=custom)
    data = pipe.to_bytes()
    nlp2 = spacy.blank("en")
    pipe2 = nlp2.add_pipe("semgap_context")
    _, span = assess(nlp2, "zorblax clear to close", "clear to close")
    assert not span._.semgap_negated
    pipe2.from_bytes(data)
    _, span = assess(nlp2, "zorblax clear to close", "clear to close")
    assert span._.semgap_negated
    assert pipe2.cue_info == pipe.cue_info


def test_context_initialize_from_directory(tmp_path):
    for lang in ("en", "es", "fr", "de"):
        payload = load_packaged_cues(lang).to_payload()
        if lang == "en":
            payload["semgap_context_cues"]["cues"] = [
                {"cue": "nope", "category": "negation", "direction": "backward"}]
        (tmp_path / f"{lang}.json").write_text(json.dumps(payload), encoding="utf8")
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_context")
    nlp.initialize()
    nlp.get_pipe("semgap_context").initialize(cues=str(tmp_path))
    _, span = assess(nlp, "clear to close nope", "clear to close")
    assert span._.semgap_negated
    _, span = assess(nlp, "not clear to close", "clear to close")
    assert not span._.semgap_negated


def test_context_entry_point_declared():
    from importlib.metadata import entry_points
    names = {ep.name: ep.value for ep in entry_points(group="spacy_factories")}
    assert names.get("semgap_context") == "semgap_spacy.pipes.context:make_context"


# -- cue data ------------------------------------------------------------

SPEC_CUES = {
    "en": {"negation": ["no", "not", "without", "denies", "negative for", "never", "ruled out"],
           "hedge": ["possible", "possibly", "probable", "likely", "suspected", "pending", "awaiting",
                     "once", "if", "unless", "may", "might", "to be confirmed", "expected"],
           "break": ["but"]},
    "es": {"negation": ["no", "sin", "ningún", "ninguna"],
           "hedge": ["posible", "probable", "pendiente", "si"], "break": ["pero"]},
    "fr": {"negation": ["pas", "non", "aucun", "aucune", "sans"],
           "hedge": ["possible", "probable", "en attente", "si"], "break": ["mais"]},
    "de": {"negation": ["nicht", "kein", "keine", "keinen", "keiner", "ohne"],
           "hedge": ["möglich", "wahrscheinlich", "ausstehend", "falls", "wenn"], "break": ["aber"]},
}


@pytest.mark.parametrize("lang", sorted(SPEC_CUES))
def test_context_packaged_cues_cover_spec(lang):
    cue_set = load_packaged_cues(lang)
    assert cue_set.lang == lang
    by_category = {}
    for rec in cue_set.records:
        by_category.setdefault(rec.category, set()).add(rec.cue)
    for category, cues in SPEC_CUES[lang].items():
        assert set(cues) <= by_category[category], (lang, category)
    everything = {rec.cue.casefold() for rec in cue_set.records if rec.category in ("negation", "hedge")}
    assert "negative" not in everything and "clear" not in everything
    assert CueSet.from_payload(cue_set.to_payload(), lang=lang) == cue_set


@pytest.mark.parametrize("record,message", [
    ({"cue": "no", "category": "negation", "direction": "forward", "scope": 3}, "unknown key"),
    ({"cue": "no", "category": "negation"}, "needs a direction"),
    ({"cue": "no", "category": "negation", "direction": "sideways"}, "needs a direction"),
    ({"cue": "no", "category": "denial", "direction": "forward"}, "category"),
    ({"cue": "", "category": "hedge", "direction": "forward"}, "non-empty"),
    ({"cue": "but", "category": "break", "direction": "forward"}, "takes no direction"),
    ({"category": "break"}, "missing key"),
    ("no", "must be an object"),
    ({"cue": "no", "category": "negation", "direction": "forward", "max_scope": 0}, "max_scope"),
    ({"cue": "no", "category": "negation", "direction": "forward", "max_scope": "far"}, "max_scope"),
    ({"cue": "but", "category": "break", "max_scope": 3}, "takes no direction or max_scope"),
])
def test_context_cue_record_validation(record, message):
    with pytest.raises(CueError, match=message):
        CueRecord.from_dict(record, "test")


@pytest.mark.parametrize("payload,message", [
    ({"cues": []}, "single key"),
    ({"semgap_context_cues": {"lang": "en", "version": "1", "cues": [], "extra": 1}}, "unknown key"),
    ({"semgap_context_cues": {"lang": "en", "version": "1", "cues": []}}, "non-empty list"),
    ({"semgap_context_cues": {"lang": "es", "version": "1",
                              "cues": [{"cue": "no", "category": "break"}]}}, "expected 'en'"),
    ({"semgap_context_cues": {"lang": "en", "version": "1",
                              "cues": [{"cue": "No", "category": "break"},
                                       {"cue": "no", "category": "pseudo"}]}}, "both break and pseudo"),
])
def test_context_cue_file_validation(payload, message):
    with pytest.raises(CueError, match=message):
        CueSet.from_payload(payload, "test", lang="en")


def _scoped(scope, cues=({"cue": "no", "category": "negation"},)):
    return {"semgap_context_cues": {"lang": "en", "version": "1", "scope": scope, "cues": list(cues)}}


@pytest.mark.parametrize("scope,message", [
    ({"direction": "sideways"}, "direction"),
    ({"direction": "both", "window": 3}, "unknown key"),
    ({"direction": "both", "section_headers": "yes"}, "section_headers"),
    ({"direction": "both", "short_items": -1}, "short_items"),
    ({"direction": "both", "max_scope": 0}, "max_scope"),
    ({}, "needs a direction"),
])
def test_context_scope_block_validation(scope, message):
    with pytest.raises(CueError, match=message):
        CueSet.from_payload(_scoped(scope), "test", lang="en")


def test_context_scope_block_fills_record_defaults_and_round_trips():
    cue_set = CueSet.from_payload(_scoped({"direction": "forward", "max_scope": 5, "section_headers": True},
                                          [{"cue": "no", "category": "negation"},
                                           {"cue": "negative", "category": "negation", "direction": "backward",
                                            "max_scope": 2}]), "test", lang="en")
    assert [(r.direction, r.max_scope) for r in cue_set.records] == [("forward", 5), ("backward", 2)]
    assert cue_set.profile == "spec" and not cue_set.whole_clause
    assert CueSet.from_payload(cue_set.to_payload(), lang="en") == cue_set
    with pytest.raises(CueError, match="expected 'clinical'"):
        CueSet.from_payload(cue_set.to_payload(), "test", lang="en", profile="clinical")


def test_context_bad_config_fails_clearly():
    nlp = spacy.blank("en")
    with pytest.raises(LanguagePackError, match="no language pack for 'it'"):
        nlp.add_pipe("semgap_context", config={"languages": ["en", "it"]})
    with pytest.raises(ValueError, match="window"):
        nlp.add_pipe("semgap_context", name="ctx2", config={"window": -1})
    with pytest.raises(CueError, match="no language 'de'"):
        cue_sets_from_arg({"en": load_packaged_cues("en").to_payload()}, ["en", "de"])


# -- multiprocessing and speed -------------------------------------------

@Language.component("semgap_test_mark_terms")
def _mark_terms(doc):
    """Stand-in for semgap_terms: mark a few fixed phrases."""
    spans = []
    low = doc.text.lower()
    for phrase in ("clear to close", "crossmatch positive"):
        start = low.find(phrase)
        if start >= 0:
            span = doc.char_span(start, start + len(phrase))
            spans.append(Span(doc, span.start, span.end, label="T", span_id=PHRASE_ID))
    doc.spans["semgap_terms"] = spans
    return doc


TEXTS = ["not clear to close", "clear to close pending appraisal", "No delays, crossmatch positive",
         "no crossmatch positive", "clear to close"] * 4


def _flags(docs):
    return [[(s._.semgap_negated, s._.semgap_hedged, s._.semgap_negation_cue, s._.semgap_hedge_cue)
             for s in d.spans["semgap_terms"]] for d in docs]


@pytest.mark.parametrize("n_process", [2])
def test_context_multiprocessing(n_process):
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_test_mark_terms")
    nlp.add_pipe("semgap_context")
    single = _flags(nlp.pipe(TEXTS))
    multi = _flags(nlp.pipe(TEXTS, n_process=n_process, batch_size=4))
    assert multi == single
    assert single[0] == [(True, False, [0, 3], None)]

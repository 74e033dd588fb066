"""Checks behind two shortcuts the pipes take for speed."""
import json
from importlib import resources

import spacy

from semgap_spacy.pipes.extensions import doc_get, doc_set, doc_text, span_get, span_set, token_set
from semgap_spacy.glossary.models import load_glossaries
from semgap_spacy.core.vocabulary import FORM_CACHE_FILE, build_vocabulary, compute_form_cache


def test_fast_accessors_agree_with_underscore():
    nlp = spacy.blank("en")
    doc = nlp("Clear to close now")
    doc_set(doc, "semgap_domain", "mortgage")
    assert doc._.semgap_domain == doc_get(doc, "semgap_domain") == "mortgage"
    doc._.semgap_now = "2026-11-30T10:00:00Z"
    assert doc_get(doc, "semgap_now") == "2026-11-30T10:00:00Z"
    span = doc[0:3]
    span_set(span, "semgap_negated", True)
    assert span._.semgap_negated is True and span_get(span, "semgap_negated") is True
    span._.semgap_hedge_cue = [0, 2]
    assert span_get(span, "semgap_hedge_cue") == [0, 2]
    token_set(doc[1], "semgap_original", "ot")
    assert doc[1]._.semgap_original == "ot"
    assert doc_get(doc, "semgap_readings") is None  # the registered default
    assert doc_text(doc) == doc.text


def test_span_value_rows_are_read_through_underscore(monkeypatch):
    """Values written by rows, stored directly or (when some extension has a setter of another's)
    through each span's ``._``, read back through spaCy's own ``span._``."""
    from semgap_spacy.pipes import extensions

    names = ("semgap_negated", "semgap_hedged", "semgap_negation_cue", "semgap_hedge_cue")
    for direct in (True, False):
        monkeypatch.setattr(extensions, "_direct_span_writes", lambda: direct)
        doc = spacy.blank("en")("No fever or cough today")
        extensions.set_span_value_rows(doc, names, [(3, 8, True, False, [0, 2], None),
                                                    (12, 17, False, True, None, [18, 23])])
        fever, cough = doc.char_span(3, 8), doc.char_span(12, 17)
        assert (fever._.semgap_negated, fever._.semgap_hedged, fever._.semgap_negation_cue) == (True, False, [0, 2])
        assert (cough._.semgap_negated, cough._.semgap_hedged, cough._.semgap_hedge_cue) == (False, True, [18, 23])
        assert doc.char_span(0, 2)._.semgap_negated is False  # no row for it: the default


def test_shipped_form_index_matches_a_fresh_computation():
    """The precomputed inflection index must be what the lemma tables give now."""
    shipped = json.loads((resources.files("semgap_spacy.data") / FORM_CACHE_FILE).read_text(encoding="utf8"))
    fresh = compute_form_cache(build_vocabulary(load_glossaries(), spacy.blank("en").tokenizer))
    assert shipped["digest"] == fresh["digest"], "glossary words changed: run python -m scripts.build_form_cache"
    assert shipped["forms"] == fresh["forms"]
    assert [list(r) for r in shipped["rules"]] == fresh["rules"]

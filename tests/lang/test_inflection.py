"""Inflection groups: forms of one glossary word share a key, and folding never joins two words."""
import spacy

from semgap_spacy import assess, build_pipeline
from semgap_spacy.core.vocabulary import build_vocabulary, form_index_for
from semgap_spacy.glossary.models import load_glossaries


def _index():
    return form_index_for(build_vocabulary(load_glossaries(), spacy.blank("en").tokenizer))


def test_a_word_that_only_folds_to_a_glossary_word_does_not_join_its_group():
    # "stünden" (a form of "stehen") folds to "stunden"; the glossary's "Stunden" is "Stunde"
    index = _index()
    assert index.key("stunden") == index.key("stunde")
    assert index.key("stunden") != index.key("stehen")
    assert index.key("standing") != index.key("stunden")


def test_inflections_still_share_a_key():
    index = _index()
    assert index.key("crossmatches") == index.key("crossmatch")
    assert index.key("positivas") == index.key("positiva")


def test_an_english_word_is_not_explained_by_a_german_phrase_it_does_not_inflect():
    nlp = build_pipeline()
    doc = assess(nlp, "Airworthy. Tow crew standing by.", domain="aviation_maintenance")
    standing = [t for t in doc if t.text == "standing"][0]
    assert standing._.semgap_explained_by is None
    assert doc._.semgap_decision["decision"] == "escalate"
    german = assess(nlp, "Stunden seit Inspektion 40 h", domain="aviation_maintenance")
    assert "AVN.HOURS_SINCE_INSPECTION" in [s.label_ for s in german.spans["semgap_terms"]]

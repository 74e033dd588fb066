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


def test_the_pipes_of_a_pipeline_share_one_index_and_another_glossary_gets_its_own():
    from semgap_spacy import build_pipeline
    from semgap_spacy.glossary.models import GlossarySet

    nlp = build_pipeline()
    index = nlp.get_pipe("semgap_typo_repair").index
    assert nlp.get_pipe("semgap_coverage").rules.form_key.__self__ is index
    assert nlp.get_pipe("semgap_terms").keys.index is index
    assert index.key("qzxsharedvks") == "qzxsharedvks" and "qzxsharedvks" in index._cache  # worked out once
    smaller = GlossarySet.from_dict({"mortgage": load_glossaries().to_dict()["mortgage"]})
    other = form_index_for(build_vocabulary(smaller, spacy.blank("en").tokenizer))
    assert other is not index and other.forms != index.forms
    assert form_index_for(build_vocabulary(smaller, spacy.blank("en").tokenizer)) is other

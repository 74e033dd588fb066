"""Term matching: phrases, abbreviations, translations, frames, inflection,
case/accent/hyphen variants, routing, ambiguity and dangling heads."""
import pytest
import spacy

from semgap_spacy import build_pipeline
from semgap_spacy.api import case_doc


@pytest.fixture(scope="module")
def terms_nlp():
    return build_pipeline(exclude=("semgap_context", "semgap_quantities", "semgap_decision"))


def spans(nlp, text, domain="medical_logistics"):
    doc = nlp(case_doc(nlp, {"text": text, "domain": domain}))
    return [(s.text, s.label_, s._.semgap_match_kind, s._.semgap_lang) for s in doc.spans["semgap_terms"]]


@pytest.mark.parametrize("text,span_text,term,kind,lang", [
    ("negative crossmatch confirmed", "negative crossmatch", "MED.XM_NEGATIVE", "phrase", "en"),
    ("Compatible Crossmatch", "Compatible Crossmatch", "MED.XM_NEGATIVE", "phrase", "en"),
    ("xm neg", "xm neg", "MED.XM_NEGATIVE", "abbreviation", "en"),
    ("XM POS", "XM POS", "MED.XM_POSITIVE", "abbreviation", "en"),
    ("prueba cruzada positiva", "prueba cruzada positiva", "MED.XM_POSITIVE", "translation", "es"),
    ("crossmatch négatif", "crossmatch négatif", "MED.XM_NEGATIVE", "translation", "fr"),
    ("CROSSMATCH NEGATIF", "CROSSMATCH NEGATIF", "MED.XM_NEGATIVE", "translation", "fr"),
    ("Kreuzprobe positiv", "Kreuzprobe positiv", "MED.XM_POSITIVE", "translation", "de"),
    ("órgano rechazado", "órgano rechazado", "MED.ORGAN_DECLINED", "translation", "es"),
    ("organo rechazado", "organo rechazado", "MED.ORGAN_DECLINED", "translation", "es"),
    ("kalte Ischämiezeit 5 h", "kalte Ischämiezeit", "MED.COLD_ISCHEMIA", "translation", "de"),
    ("cold ischaemia 5 h", "cold ischaemia", "MED.COLD_ISCHEMIA", "phrase", "en"),
    ("cold ischemia time 5 h", "cold ischemia time", "MED.COLD_ISCHEMIA", "phrase", "en"),
    ("CIT 5 h", "CIT", "MED.COLD_ISCHEMIA", "abbreviation", "en"),
])
def test_medical_phrases(terms_nlp, text, span_text, term, kind, lang):
    found = spans(terms_nlp, text)
    if lang == "fr":
        # "négatif" and "negative" share an inflection key, so the English
        # phrase (preferred on equal offsets) may be the one reported
        assert any(f[:2] == (span_text, term) for f in found)
    else:
        assert (span_text, term, kind, lang) in found


@pytest.mark.parametrize("text", ["cross-match negative", "cross match negative", "crossmatch negative",
                                  "negative cross-match", "negative cross match"])
def test_hyphen_space_variants(terms_nlp, text):
    assert [s[1] for s in spans(terms_nlp, text)] == ["MED.XM_NEGATIVE"]


@pytest.mark.parametrize("text,term", [
    ("crossmatches negative", "MED.XM_NEGATIVE"),        # plural via the English rule table
    ("organs declined", "MED.ORGAN_DECLINED"),
    ("offers declined", "MED.ORGAN_DECLINED"),
    ("title defects found", "MTG.TITLE_DEFECT"),
    ("lots released", "PHA.RELEASED"),
    ("pruebas cruzadas positivas", "MED.XM_POSITIVE"),
    ("open defects remain", "AVN.OPEN_DEFECT"),
])
def test_inflection(terms_nlp, text, term):
    assert term in [s[1] for s in spans(terms_nlp, text)]


def test_inflection_off_needs_exact_forms():
    nlp = build_pipeline(config={"semgap_terms": {"inflection": False}},
                         exclude=("semgap_context", "semgap_quantities", "semgap_decision"))
    assert spans(nlp, "organs declined") == []
    assert [s[1] for s in spans(nlp, "organ declined")] == ["MED.ORGAN_DECLINED"]


def test_one_word_phrases_are_not_inflected(terms_nlp):
    assert spans(terms_nlp, "ground crew ready", "aviation_maintenance") == []
    assert [s[1] for s in spans(terms_nlp, "aircraft grounded", "aviation_maintenance")] == ["AVN.AOG"]


@pytest.mark.parametrize("text", ["xm negative", "the crossmatch came back negative", "crossmatch result: negative",
                                  "negative on the crossmatch", "cross-match was non-reactive"])
def test_frames_either_order_within_window(terms_nlp, text):
    assert [s[1] for s in spans(terms_nlp, text) if s[2] == "frame" or s[1] == "MED.XM_NEGATIVE"][0] == "MED.XM_NEGATIVE"


@pytest.mark.parametrize("text", ["crossmatch, negative", "crossmatch; negative", "crossmatch - negative",
                                  "crossmatch but negative", "crossmatch. Negative",
                                  "crossmatch was sent to the lab and came back negative"])
def test_frames_stop_at_clause_breaks_and_window(terms_nlp, text):
    labels = [s[1] for s in spans(terms_nlp, text)]
    assert "MED.XM_NEGATIVE" not in labels
    assert "HEAD:MED.XM_FRAME" in labels and "OUTCOME:MED.XM_FRAME" in labels


def test_frames_off(terms_nlp):
    nlp = build_pipeline(config={"semgap_terms": {"frames": False}},
                         exclude=("semgap_context", "semgap_quantities", "semgap_decision"))
    assert spans(nlp, "crossmatch result: positive") == []


@pytest.mark.parametrize("text,label", [("crossmatch result pending", "HEAD:MED.XM_FRAME"),
                                        ("crossmatch attached", "HEAD:MED.XM_FRAME"),
                                        ("result: positive", "OUTCOME:MED.XM_FRAME")])
def test_dangling_head_and_outcome(terms_nlp, text, label):
    assert [s[1] for s in spans(terms_nlp, text)] == [label]


def test_abbreviations_are_whole_tokens(terms_nlp):
    assert spans(terms_nlp, "CTCs pending", "mortgage") == []
    assert [s[1] for s in spans(terms_nlp, "CTC issued", "mortgage")] == ["MTG.CTC"]


def test_other_domains_are_matched_for_routing(terms_nlp):
    found = spans(terms_nlp, "clear to close", "medical_logistics")
    assert found and found[0][1] == "MTG.CTC"


def test_cross_domain_off_keeps_own_domain_only():
    nlp = build_pipeline(config={"semgap_terms": {"cross_domain": False}},
                         exclude=("semgap_context", "semgap_quantities", "semgap_decision"))
    assert spans(nlp, "clear to close", "medical_logistics") == []


def test_ambiguous_abbreviations_and_switch(terms_nlp):
    assert [s[1] for s in spans(terms_nlp, "OOS on assay", "pharma_qa")] == ["AMBIGUOUS:OOS"]
    nlp = build_pipeline(config={"semgap_terms": {"ambiguity": False}},
                         exclude=("semgap_context", "semgap_quantities", "semgap_decision"))
    assert spans(nlp, "OOS on assay", "pharma_qa") == []


def test_span_extensions(terms_nlp):
    doc = terms_nlp(case_doc(terms_nlp, {"text": "Charge freigegeben", "domain": "pharma_qa"}))
    span = doc.spans["semgap_terms"][0]
    assert (span._.semgap_term_id, span._.semgap_signal, span._.semgap_domain, span._.semgap_lang,
            span._.semgap_status, span._.semgap_repaired) == ("PHA.RELEASED", "clear", "pharma_qa", "de", "draft", False)


def test_repaired_match_is_marked(terms_nlp):
    doc = terms_nlp(case_doc(terms_nlp, {"text": "Clear to clsoe", "domain": "mortgage"}))
    span = doc.spans["semgap_terms"][0]
    assert span.label_ == "MTG.CTC" and span._.semgap_repaired
    assert doc.text == "Clear to clsoe"


def test_existing_entities_are_never_touched():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "ORG", "pattern": "Northgate"}, {"label": "TEST", "pattern": "crossmatch"}])
    from semgap_spacy import add_semgap_pipes
    add_semgap_pipes(nlp)
    doc = nlp("Northgate crossmatch negative, organ declined")
    assert [(e.text, e.label_) for e in doc.ents] == [("Northgate", "ORG"), ("crossmatch", "TEST")]
    assert {s.label_ for s in doc.spans["semgap_terms"]} == {"MED.XM_NEGATIVE", "MED.ORGAN_DECLINED"}


def test_annotate_ents_adds_only_where_free():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "TEST", "pattern": "crossmatch"}])
    nlp.add_pipe("semgap_terms", config={"annotate_ents": True})
    doc = nlp("crossmatch negative, organ declined")
    assert [(e.text, e.label_) for e in doc.ents] == [("crossmatch", "TEST"), ("organ declined", "MED.ORGAN_DECLINED")]


def test_user_spans_and_text_untouched():
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_terms")
    doc = nlp.make_doc("Crossmatches négatives")
    doc.spans["mine"] = [doc[0:1]]
    doc = nlp(doc)
    assert [s.text for s in doc.spans["mine"]] == ["Crossmatches"]
    assert doc.text == "Crossmatches négatives" and [t.lemma_ for t in doc] == ["", ""]


@pytest.mark.parametrize("text,domain,term", [
    ("clear-to-close", "mortgage", "MTG.CTC"),
    ("negative-amortization on this one", "mortgage", "MTG.NEG_AM"),
    ("QP-certified", "pharma_qa", "PHA.RELEASED"),
    ("aircraft-on-ground", "aviation_maintenance", "AVN.AOG"),
    ("cold-chain temperature 5 C", "pharma_qa", "PHA.STORAGE_TEMP"),
    ("out of spec", "pharma_qa", "PHA.OUT_OF_SPEC"),
])
def test_spaces_may_be_written_as_hyphens(terms_nlp, text, domain, term):
    assert term in [s[1] for s in spans(terms_nlp, text, domain)]


def test_a_spaced_dash_is_not_a_hyphen(terms_nlp):
    assert "MTG.CTC" not in [s[1] for s in spans(terms_nlp, "clear - to close", "mortgage")]


def test_clitics_on_abbreviations(terms_nlp):
    assert [s[1] for s in spans(terms_nlp, "patient DC'd yesterday")] == ["AMBIGUOUS:DC"]
    assert "MTG.CTC" in [s[1] for s in spans(terms_nlp, "the CTC's date", "mortgage")]


def _pipeline_with_norm_table(table):
    """A blank English pipeline whose vocab maps spellings the way a trained pipeline's
    ``lexeme_norm`` table does: keyed by the lower-case word only."""
    from spacy.attrs import NORM
    from spacy.util import add_lookups

    nlp = spacy.blank("en")
    nlp.vocab.lex_attr_getters[NORM] = add_lookups(nlp.vocab.lex_attr_getters[NORM], table)
    from semgap_spacy import add_semgap_pipes
    return add_semgap_pipes(nlp, exclude=("semgap_context", "semgap_quantities", "semgap_coverage",
                                          "semgap_decision"))


@pytest.mark.parametrize("text", ["tyre pressure 200 psi", "Tyre pressure 200 psi", "TYRE PRESSURE 200 PSI",
                                  "tire pressure 200 psi", "TIRE PRESSURE 200 PSI"])
def test_a_vocab_norm_table_gives_every_case_one_key(text):
    # en_core_web_sm's vocab gives "tyre" the norm "tire" but leaves "TYRE" at "tyre": the term
    # must be found in every case all the same, as on a blank pipeline.
    nlp = _pipeline_with_norm_table({"tyre": "tire", "pressure": "pressure"})
    doc = nlp(case_doc(nlp, {"text": text, "domain": "aviation_maintenance"}))
    assert doc[0].norm_ in ("tire", "tyre")
    assert [(s.text, s.label_) for s in doc.spans["semgap_terms"]] == [(text[:13], "AVN.TIRE_PRESSURE")]


@pytest.mark.parametrize("lead", ["", "Donor arrived at the unit this morning after the long transfer and "])
def test_a_frame_gap_and_its_words_are_read_at_their_characters(lead):
    # a short and a long text: the gap's offsets, and the words coverage leaves to the gap
    nlp = build_pipeline()
    text = lead + "crossmatch qzxword was negative per lab"
    doc = nlp(case_doc(nlp, {"text": text, "domain": "medical_logistics"}))
    frame = next(s for s in doc.spans["semgap_terms"] if s._.semgap_match_kind == "frame")
    start, end = frame._.semgap_frame_gap
    assert text[frame.start_char:frame.end_char] == "crossmatch qzxword was negative"
    assert text[start:end] == "qzxword was"
    finding = doc._.semgap_coverage["findings"][-1]
    assert "qzxword" in finding["words"] and (text.index("qzxword"), text.index("qzxword") + 7) in finding["word_spans"]


@pytest.mark.parametrize("lead", ["", "the buyer and the seller both signed every page of it and "])
def test_a_mixed_script_word_is_recorded_at_its_characters(terms_nlp, lead):
    text = lead + "Cl\u0435ar to close - wire in"
    doc = terms_nlp(case_doc(terms_nlp, {"text": text, "domain": "mortgage"}))
    (record,) = doc._.semgap_suspicious
    assert text[record["start_char"]:record["end_char"]] == record["evidence"] == "Cl\u0435ar"
    assert "MTG.CTC" in [s.label_ for s in doc.spans["semgap_terms"]]
    assert [t.norm_ for t in doc] == [t.norm_ for t in terms_nlp.make_doc(text)]  # the user's norms stay

"""A question does not assert, and a withdrawn or requested clearance is no clearance."""
import pytest

from semgap_spacy import build_pipeline


@pytest.mark.parametrize("domain,text", [
    ("aviation_maintenance", "airworthy?"),
    ("medical_logistics", "is the crossmatch negative?"),
    ("pharma_qa", "Batch released? Please confirm"),
    ("medical_logistics", "¿prueba cruzada negativa?"),
    ("pharma_qa", "Lote liberado, ¿y el laboratorio"),  # a "¿" that no "?" closes still asks
    ("mortgage", "CTC cancelled"),
    ("mortgage", "CTC requested"),
    ("mortgage", "CTC on hold"),
    ("mortgage", "should be clear to close"),
    ("aviation_maintenance", "will be airworthy after repair"),
    ("medical_logistics", "negative crossmatch required before dispatch"),
    # a question mark the tokenizer left on the word (a compatibility character, read as "?")
    ("aviation_maintenance", "Airworthy⁇"), ("pharma_qa", "Batch released︖"), ("mortgage", "CTC⁈"),
    ("medical_logistics", "xm neg?⁇"),
    # stop words that only report an impression, hearsay or a no (spaCy lists them all)
    ("aviation_maintenance", "Seems airworthy"), ("mortgage", "Soll abschlussbereit sein"),
    ("mortgage", "Abschlussbereit: nein"),
])
def test_not_asserted_clearances_escalate(decide, domain, text):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate", decision["reasons"]
    assert {r["code"] for r in decision["reasons"]} & {"clearance_hedged", "clearance_negated"}


@pytest.mark.parametrize("domain,text", [
    ("pharma_qa", "Any update? Batch released."),      # the question is another sentence
    ("mortgage", "Clear to close. Fund today?"),
    ("pharma_qa", "Lote liberado. ¿Y el laboratorio"),
])
def test_question_in_another_sentence_does_not_hedge(decide, domain, text):
    # the clearance stays one; the question, about no term, leaves something open (coverage)
    decision = decide(text, domain=domain)
    codes = {r["code"] for r in decision["reasons"]}
    assert "clearance" in codes and "clearance_hedged" not in codes
    assert decision["decision"] == "escalate" and "unattached_hedge" in codes


def test_a_question_mark_inside_a_token_asks_nothing(decide):
    assert decide("Clear to close, see https://x.org/a?b=1", domain="mortgage")["decision"] == "proceed"


def test_a_question_mark_left_on_the_word_is_the_cue(decide):
    text = "Airworthy⁇"
    decision = decide(text, domain="aviation_maintenance")
    reason = next(r for r in decision["reasons"] if r["code"] == "clearance_hedged")
    assert reason["cue"] == [0, len(text)]


def test_hedge_cue_points_at_the_question_mark(decide):
    text = "crossmatch negative?"
    decision = decide(text)
    reason = next(r for r in decision["reasons"] if r["code"] == "clearance_hedged")
    assert reason["cue"] == [len(text) - 1, len(text)]


def test_questions_switch_off():
    from semgap_spacy import assess
    # Off widens what may proceed: only an explicit ablation lets it, and says so.
    nlp = build_pipeline(config={"semgap_context": {"questions": False}})
    decision = assess(nlp, "airworthy?", domain="aviation_maintenance")._.semgap_decision
    assert decision["decision"] == "escalate"
    assert "pipeline_incomplete" in [r["code"] for r in decision["reasons"]]
    nlp = build_pipeline(config={"semgap_context": {"questions": False}, "semgap_decision": {"ablation": True}})
    decision = assess(nlp, "airworthy?", domain="aviation_maintenance")._.semgap_decision
    assert decision["decision"] == "proceed"
    assert decision["ablation"]["switched_off"] == {"semgap_context": ["questions"]}

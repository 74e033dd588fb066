"""The decision policy of spec §4, end to end through the five pipes."""
import pytest

from semgap_spacy.core.reasons import REASON_CODES, outcome_for, strictest
from semgap_spacy.core.reasons import decide

NOW = "2026-11-30T10:00:00Z"


def codes(decision):
    return [r["code"] for r in decision["reasons"]]


# (domain, text, readings, expected decision, a code that must be among the reasons)
POLICY = [
    # critical terms
    ("medical_logistics", "crossmatch positive", None, "block", "critical_term"),
    ("medical_logistics", "posative crossmatch", None, "block", "critical_term"),        # after repair
    ("medical_logistics", "no positive crossmatch", None, "escalate", "critical_negated"),
    ("medical_logistics", "possible positive crossmatch", None, "escalate", "critical_hedged"),
    # clearances
    ("medical_logistics", "negative crossmatch", None, "proceed", "clearance"),
    ("mortgage", "File is not clear to close", None, "escalate", "clearance_negated"),
    ("mortgage", "clear to close pending appraisal", None, "escalate", "clearance_hedged"),
    ("mortgage", "Clear to clsoe", None, "escalate", "clearance_repaired"),
    ("pharma_qa", "Batch release today", None, "escalate", "clearance_inflected"),      # a plan
    ("pharma_qa", "Batch released tomorrow", None, "escalate", "clearance_hedged"),     # a time to come
    ("mortgage", "Clear to close tonight", None, "escalate", "clearance_hedged"),
    ("pharma_qa", "Lote liberado mañana", None, "escalate", "clearance_hedged"),
    ("pharma_qa", "Lote liberado esta mañana", None, "proceed", "clearance"),         # this morning: gone by
    ("aviation_maintenance", "Morgen lufttüchtig", None, "escalate", "clearance_hedged"),
    ("aviation_maintenance", "Guten Morgen, lufttüchtig", None, "proceed", "clearance"),  # a greeting
    ("mortgage", "TODO: Clear to close", None, "escalate", "clearance_hedged"),       # a step not done
    ("pharma_qa", "Todo listo, lote liberado.", None, "proceed", "clearance"),       # es: everything
    ("aviation_maintenance", "Release to service pls", None, "escalate", "clearance_inflected"),  # a request
    ("mortgage", "Clearing to close", None, "escalate", "clearance_inflected"),        # under way
    ("pharma_qa", "BATCHES RELEASED", None, "proceed", "clearance"),                    # agreement only
    ("pharma_qa", "Lote liberada", None, "proceed", "clearance"),
    # strictest wins
    ("medical_logistics", "negative crossmatch; organ declined", None, "block", "critical_term"),
    ("medical_logistics", "No delays, crossmatch positive", None, "block", "critical_term"),
    # drafts, ambiguity, routing, dangling
    ("pharma_qa", "Charge freigegeben", None, "escalate", "draft_term"),
    ("pharma_qa", "batch released, OOS on assay", None, "escalate", "ambiguous_abbreviation"),
    ("medical_logistics", "negative crossmatch, clear to close", None, "escalate", "other_domain_term"),
    # another domain's outcome word, head or ambiguous abbreviation: no word of this one
    ("pharma_qa", "Batch released; assay positive", None, "escalate", "other_domain_term"),
    ("mortgage", "Clear to close; OOS", None, "escalate", "other_domain_term"),
    ("medical_logistics", "crossmatch result pending", None, "escalate", "dangling_head"),
    ("medical_logistics", "crossmatch attached", None, "escalate", "dangling_head"),
    ("medical_logistics", "result: positive", None, "escalate", "dangling_outcome"),
    # nothing recognised / no clearance
    ("medical_logistics", "courier is on the way", None, "escalate", "no_recognised_term"),
    ("medical_logistics", "", None, "escalate", "no_recognised_term"),
    # readings
    ("medical_logistics", "negative crossmatch", {"cold_ischemia_elapsed": {"value": 24, "unit": "h"}}, "proceed",
     "reading_in_contract"),
    ("medical_logistics", "courier ready", {"cold_ischemia_elapsed": {"value": 20, "unit": "h"}}, "proceed",
     "reading_in_contract"),
    ("medical_logistics", "negative crossmatch", {"cold_ischemia_elapsed": {"value": 30, "unit": "h"}}, "block",
     "limit_exceeded"),
    ("medical_logistics", "negative crossmatch", {"transport_temperature": {"value": 1.5, "unit": "degC"}}, "block",
     "outside_band"),
    ("pharma_qa", "batch released", {"remaining_shelf_life": {"value": 179, "unit": "day"}}, "block", "below_minimum"),
    ("pharma_qa", "batch released", {"remaining_shelf_life": {"value": 180, "unit": "days"}}, "proceed",
     "reading_in_contract"),
    ("medical_logistics", "negative crossmatch", {"cold_ischemia_elapsed": {"value": "30", "unit": "h"}}, "escalate",
     "malformed_reading"),
    ("medical_logistics", "negative crossmatch", {"cold_ischemia_elapsed": {"value": 3, "unit": "m"}}, "escalate",
     "ambiguous_unit"),
    # quantities in text
    ("medical_logistics", "negative crossmatch, cold ischemia 30 hours", None, "block", "limit_exceeded"),
    ("medical_logistics", "cold ischemia 10 hours", None, "escalate", "text_quantity_unconfirmed"),
    ("medical_logistics", "negative crossmatch, cold ischemia 12 h",
     {"cold_ischemia_elapsed": {"value": 10, "unit": "h"}}, "escalate", "quantity_mismatch"),
    ("medical_logistics", "negative crossmatch, cold ischemia noted", None, "escalate", "field_without_value"),
    ("aviation_maintenance", "airworthy, tire pressure 16 bar", None, "block", "outside_band"),
]


@pytest.mark.parametrize("domain,text,readings,expected,code", POLICY)
def test_policy(decide, domain, text, readings, expected, code):
    decision = decide(text, domain=domain, readings=readings, now=NOW)
    assert decision["decision"] == expected, decision["reasons"]
    assert code in codes(decision)


def test_proceed_needs_positive_evidence(decide):
    decision = decide("nothing unusual to report", domain="mortgage")
    assert decision["decision"] == "escalate"


def test_reason_spans_point_at_the_evidence(decide):
    text = "xm neg, cold ischemia 30 hours"
    decision = decide(text, readings={"cold_ischemia_elapsed": {"value": 30, "unit": "h"}})
    assert decision["decision"] == "block"
    for reason in decision["reasons"]:
        if "start_char" in reason:
            assert 0 <= reason["start_char"] < reason["end_char"] <= len(text)
    clearance = next(r for r in decision["reasons"] if r["code"] == "clearance")
    assert text[clearance["start_char"]:clearance["end_char"]] == "xm neg"


def test_reasons_ordered_strictest_first(decide):
    decision = decide("negative crossmatch; organ declined")
    outcomes = [r["outcome"] for r in decision["reasons"]]
    rank = {"block": 2, "escalate": 1, "proceed": 0}
    assert outcomes == sorted(outcomes, key=lambda o: -rank[o])


def test_decision_carries_glossary_and_text_hash(decide):
    import hashlib
    decision = decide("negative crossmatch")
    assert decision["glossary_version"] == "2026.12.1" and len(decision["glossary_sha256"]) == 64
    assert decision["text_sha256"] == hashlib.sha256(b"negative crossmatch").hexdigest()
    assert decision["schema"] == "semgap/decision/v1"
    assert decision["language_packs"] == {"de": "bundled", "en": "bundled", "es": "bundled", "fr": "bundled"}


def test_every_reason_code_is_in_the_closed_set(decide):
    for domain, text, readings, _, _ in POLICY:
        for reason in decide(text, domain=domain, readings=readings, now=NOW)["reasons"]:
            assert reason["code"] in REASON_CODES
            assert reason["outcome"] == REASON_CODES[reason["code"]]


def test_unknown_code_blocks():
    assert outcome_for("no_such_code") == "block"
    assert decide([{"code": "clearance"}, {"code": "made_up"}]) == "block"
    assert decide([{"code": "clearance"}]) == "proceed"
    assert decide([]) == "escalate"
    assert strictest(["proceed", "escalate"]) == "escalate"


def test_ambiguity_offers_reviewer_options(decide):
    decision = decide("batch released, OOS on assay", domain="pharma_qa")
    reason = next(r for r in decision["reasons"] if r["code"] == "ambiguous_abbreviation")
    meanings = {o["meaning"]: o for o in reason["options"]}
    assert meanings["out of specification"]["term_id"] == "PHA.OUT_OF_SPEC"
    assert meanings["out of specification"]["outcome"] == "block"
    assert meanings["out of stock"]["outcome"] == "proceed"
    assert meanings["out of stock"]["risk"].startswith("high")
    assert {"other (free text)", "leave open", "reject"} <= set(meanings)
    assert "start_char" in meanings["out of stock"]["evidence"]


def test_only_the_most_consequential_ambiguity_gets_options(decide):
    decision = decide("batch released, OOS and COC noted", domain="pharma_qa")
    ambiguous = [r for r in decision["reasons"] if r["code"] == "ambiguous_abbreviation"]
    assert len(ambiguous) == 2
    with_options = [r for r in ambiguous if "options" in r]
    assert [r["abbreviation"] for r in with_options] == ["OOS"]
    assert any(r.get("deferred") for r in ambiguous)


def test_disabled_decision_still_decides(nlp):
    import spacy
    from semgap_spacy import add_semgap_pipes, assess
    pipeline = add_semgap_pipes(spacy.blank("en"), config={"semgap_decision": {"enabled": False}})
    decision = assess(pipeline, "negative crossmatch", domain="medical_logistics")._.semgap_decision
    assert decision["decision"] == "escalate"


def test_evidence_spans_verify_against_the_text(decide):
    from semgap_spacy.pipes.decision import verify_evidence
    text = "Batch released, OOS on assay, storage temperature 9 C"
    decision = decide(text, domain="pharma_qa")
    assert any("evidence" in r for r in decision["reasons"])
    assert verify_evidence(decision, text) == []
    edited = text.replace("Batch", "Lot  ")
    problems = verify_evidence(decision, edited)
    assert problems and "text_sha256" in problems[0]
    shifted = dict(decision, text_sha256=None)
    assert any("not 'OOS'" in p for p in verify_evidence(shifted, "XX" + text))


@pytest.mark.parametrize("text,code,wording", [
    ("Clear to close", "clearance", "'Clear to close' asserts MTG.CTC"),
    ("File is not clear to close", "clearance_negated", "'clear to close' (MTG.CTC) is negated"),
    ("clear to close pending appraisal", "clearance_hedged",
     "'clear to close' (MTG.CTC) is hedged or conditional"),
    ("Clear to clsoe", "clearance_repaired",
     "'Clear to clsoe' matched MTG.CTC only after spelling correction; a clearance must be exact"),
    ("Clearing to close", "clearance_inflected",
     "'Clearing to close' matched MTG.CTC only in another form of its words (a plan, a request or a step "
     "under way is no clearance); a clearance must be stated in one of its own forms"),
])
def test_a_term_reason_quotes_the_text_and_names_the_term(decide, text, code, wording):
    reason = next(r for r in decide(text, domain="mortgage")["reasons"] if r["code"] == code)
    assert reason["message"] == wording
    assert reason["term_id"] == "MTG.CTC" and reason["evidence"] == text[reason["start_char"]:reason["end_char"]]


def test_term_reasons_follow_a_new_glossary():
    """The wording of term reasons is made when the glossary loads: a glossary set later,
    with the term under another id, is the one the messages name."""
    from semgap_spacy import assess, build_pipeline
    from semgap_spacy.glossary.models import GlossarySet, load_glossaries

    data = load_glossaries().to_dict()
    for term in data["mortgage"]["terms"]:
        if term["id"] == "MTG.CTC":
            term["id"] = "MTG.CLEAR_TO_CLOSE"
    nlp = build_pipeline()
    for _, pipe in nlp.pipeline:
        pipe.set_glossary(GlossarySet.from_dict(data))
    decision = assess(nlp, "File is not clear to close", domain="mortgage")._.semgap_decision
    reason = next(r for r in decision["reasons"] if r["code"] == "clearance_negated")
    assert reason["message"] == "'clear to close' (MTG.CLEAR_TO_CLOSE) is negated"
    assert reason["term_id"] == "MTG.CLEAR_TO_CLOSE"


def _over_the_limit(clause):
    from semgap_spacy.core.cases import MAX_TEXT_CHARS
    text = "Courier booked. " * (MAX_TEXT_CHARS // 16 + 1) + clause
    assert len(text) > MAX_TEXT_CHARS
    return text


def test_a_text_over_the_limit_is_not_read_where_a_decision_is_made():
    from semgap_spacy import build_pipeline
    nlp = build_pipeline(config={"semgap_decision": {"default_domain": "medical_logistics"}})
    doc = nlp(_over_the_limit("Negative crossmatch."))
    assert codes(doc._.semgap_decision) == ["text_too_long"]
    assert {entry["status"] for entry in doc._.semgap_pipeline if entry["factory"] != "semgap_decision"} == {"skipped"}


def test_a_decision_run_after_pipes_that_read_a_long_text_still_escalates_it():
    # the pipes read the whole text in a pipeline without the decision; the decision, run on
    # the doc afterwards, still holds the case limit
    from semgap_spacy import build_pipeline
    nlp = build_pipeline()
    doc = nlp.make_doc(_over_the_limit("Negative crossmatch."))
    doc._.semgap_domain = "medical_logistics"
    with nlp.select_pipes(disable=["semgap_decision"]):
        doc = nlp(doc)
    assert len(doc.spans["semgap_terms"]) == 1  # read, not skipped
    doc = nlp.get_pipe("semgap_decision")(doc)
    assert codes(doc._.semgap_decision) == ["text_too_long"]

"""``semgap_context`` on anyone's targets: doc.ents or any span group, no glossary, the clinical
profile, the public attributes and the bulk reader, and what the decision makes of a narrowed read."""
import json

import pytest
import spacy
from spacy.tokens import Span

from semgap_spacy import assess, build_pipeline, context_records
from semgap_spacy.views import CONTEXT_COLUMNS

CLINICAL = {"@misc": "semgap.context_cues.clinical.v1"}
PROBLEMS = ["fever", "chills", "night sweats", "pneumonia", "cough", "retroperitoneal hematoma", "rash"]


def ner_pipeline(**config):
    """A blank pipeline, a team's own entity ruler and semgap_context reading doc.ents: no glossary."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": "LOWER"})
    ruler.add_patterns([{"label": "PROBLEM", "pattern": p} for p in PROBLEMS])
    nlp.add_pipe("semgap_context", config={"targets": "ents", **config})
    return nlp


def states(doc):
    return [(r["text"], r["state"]) for r in context_records(doc)]


def test_after_an_entity_ruler_with_no_glossary():
    nlp = ner_pipeline(cues=CLINICAL, languages=["en"])
    doc = nlp("No fever, chills, or night sweats. CT cannot exclude a small retroperitoneal hematoma; cough.")
    assert states(doc) == [("fever", "negated"), ("chills", "negated"), ("night sweats", "negated"),
                           ("retroperitoneal hematoma", "hedged"), ("cough", "asserted")]
    fever = doc.ents[0]
    assert fever._.semgap_negated and not fever._.semgap_hedged
    assert [(c.text, c.label_) for c in fever._.semgap_cue_spans] == [("No", "negation")]
    hematoma = doc.ents[3]
    assert [(c.text, c.label_) for c in hematoma._.semgap_cue_spans] == [("cannot exclude", "hedge")]
    assert doc.ents[4]._.semgap_cue_spans == []
    assert {(s.text, s.label_) for s in doc.spans["semgap_cues"]} == {("No", "negation"), ("cannot exclude", "hedge")}


def test_records_are_plain_rows_of_fixed_columns():
    doc = ner_pipeline(cues=CLINICAL, languages=["en"])("Findings suggestive of pneumonia.")
    rows = context_records(doc)
    assert len(rows) == 1 and tuple(rows[0]) == CONTEXT_COLUMNS
    assert rows[0]["hedged"] and rows[0]["hedge_cue"] == "suggestive of"
    assert doc.text[rows[0]["hedge_cue_start"]:rows[0]["hedge_cue_end"]] == "suggestive of"
    assert rows[0]["negation_cue"] is None
    json.dumps(rows)  # plain values only
    pandas = pytest.importorskip("pandas")
    assert list(pandas.DataFrame(rows).columns) == list(CONTEXT_COLUMNS)


def test_any_span_group_by_key():
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_context", config={"spans_key": "findings"})
    doc = nlp.make_doc("no rash today")
    doc.spans["findings"] = [Span(doc, 1, 2, label="FINDING")]
    doc = nlp.get_pipe("semgap_context")(doc)
    assert doc.spans["findings"][0]._.semgap_negated
    assert states(doc) == [("rash", "negated")]  # the reader follows the run's config


def test_the_spec_profile_reaches_back_the_clinical_one_does_not():
    text = "Cough, no fever today. Rash no longer present."
    spec = ner_pipeline()(text)
    clinical = ner_pipeline(cues=CLINICAL, languages=["en"])(text)
    assert states(spec) == [("Cough", "asserted"), ("fever", "negated"), ("Rash", "negated")]
    assert states(clinical) == [("Cough", "asserted"), ("fever", "negated"), ("Rash", "negated")]
    both = "cough no fever"
    assert states(ner_pipeline()(both)) == [("cough", "negated"), ("fever", "negated")]
    assert states(ner_pipeline(cues=CLINICAL, languages=["en"])(both)) == [("cough", "asserted"), ("fever", "negated")]


def test_a_doc_in_a_memory_zone_and_one_after_read_the_same():
    nlp = ner_pipeline(cues=CLINICAL, languages=["en"])
    texts = ["Zorblatic rash, no fever or qwixotic chills.", "Probable pneumonia; flembic cough resolved."]
    with nlp.memory_zone():
        inside = [states(doc) for doc in nlp.pipe(texts)]
    assert "zorblatic" not in nlp.vocab.strings  # the zone freed the strings it made
    after = [states(doc) for doc in nlp.pipe(texts)]
    assert inside == after
    assert after[0] == [("rash", "asserted"), ("fever", "negated"), ("chills", "negated")]


def test_profile_and_reach_are_in_the_run_record():
    spec = spacy.blank("en").add_pipe("semgap_context")
    assert (spec.profile, spec.reach) == ("spec", "clause")
    clinical = spacy.blank("en").add_pipe("semgap_context", config={"cues": CLINICAL})
    assert (clinical.profile, clinical.reach) == ("clinical", "narrowed")
    capped = spacy.blank("en").add_pipe("semgap_context", config={"window": 6})
    assert capped.reach == "narrowed" and capped.cfg["reach"] == "narrowed"


@pytest.mark.parametrize("config,message", [
    ({"targets": "noun_chunks"}, "targets"),
    ({"cache_size": 0}, "cache_size"),
    ({"window": -1}, "window"),
])
def test_bad_config_fails_clearly(config, message):
    with pytest.raises(ValueError, match=message):
        spacy.blank("en").add_pipe("semgap_context", config=config)


@pytest.mark.parametrize("overrides,switch", [
    ({"cues": CLINICAL}, "reach"),
    ({"window": 6}, "reach"),
    ({"targets": "ents"}, "targets"),
    ({"languages": ["en"]}, "cue_languages"),
])
def test_a_narrowed_read_is_incomplete_unless_ablation(overrides, switch):
    nlp = build_pipeline(config={"semgap_context": overrides})
    decision = assess(nlp, "Clear to close.", domain="mortgage")._.semgap_decision
    assert decision["decision"] == "escalate"
    assert [r["code"] for r in decision["reasons"]] == ["pipeline_incomplete", "clearance"]
    nlp = build_pipeline(config={"semgap_context": overrides, "semgap_decision": {"ablation": True}})
    decision = assess(nlp, "Clear to close.", domain="mortgage")._.semgap_decision
    assert decision["decision"] == "proceed"
    assert switch in decision["ablation"]["switched_off"]["semgap_context"]


def test_the_clinical_profile_round_trips(tmp_path):
    nlp = ner_pipeline(cues=CLINICAL, languages=["en"])
    nlp.to_disk(tmp_path / "p")
    saved = json.loads((tmp_path / "p" / "semgap_context" / "cues.json").read_text(encoding="utf8"))
    assert saved["en"]["semgap_context_cues"]["profile"] == "clinical"
    loaded = spacy.load(tmp_path / "p")
    text = "Probable pneumonia. No fever, chills or cough."
    assert states(loaded(text)) == states(nlp(text))
    assert loaded.get_pipe("semgap_context").reach == "narrowed"


def test_a_note_longer_than_a_case_is_read_where_no_decision_is_made():
    # a case over 4,000 characters escalates unread; a team's notes, with no decision pipe, are read whole
    from semgap_spacy.core.cases import MAX_TEXT_CHARS
    text = "Patient seen on the ward today. " * (MAX_TEXT_CHARS // 32 + 1) + "No fever; cough."
    assert len(text) > MAX_TEXT_CHARS
    doc = ner_pipeline(cues=CLINICAL, languages=["en"])(text)
    assert states(doc) == [("fever", "negated"), ("cough", "asserted")]
    assert [entry["status"] for entry in doc._.semgap_pipeline] == ["ran"]

"""A decision survives the ways spaCy moves Docs: DocBin and worker processes."""
import json
from pathlib import Path

import pytest
from spacy.tokens import DocBin

from semgap_spacy import assess, decision_of
from semgap_spacy.api import case_doc

DEV = Path(__file__).resolve().parents[1] / "heldout" / "dev.jsonl"


@pytest.fixture(scope="module")
def dev_cases():
    cases = [json.loads(line) for line in DEV.read_text("utf-8").splitlines() if line.strip()]
    return cases[::17][:30]  # spread over the file: every category, not the first few


def round_trip(nlp, docs, **kwargs):
    data = DocBin(docs=docs, **kwargs).to_bytes()
    return list(DocBin().from_bytes(data).get_docs(nlp.vocab))


def test_reasons_are_lists_after_a_docbin_round_trip(nlp):
    doc = assess(nlp, "File is not clear to close", domain="mortgage")
    back = round_trip(nlp, [doc], store_user_data=True)[0]
    decision = decision_of(back)
    assert isinstance(decision["reasons"], list)
    assert isinstance(decision["reasons"][0]["cue"], list)
    assert decision["language_packs"] == {"de": "bundled", "en": "bundled", "es": "bundled", "fr": "bundled"}
    assert decision == decision_of(doc)


def test_decision_json_is_identical_after_docbin_and_n_process(nlp, dev_cases):
    assert len(dev_cases) == 30
    single = [decision_of(d) for d in nlp.pipe(case_doc(nlp, c) for c in dev_cases)]
    as_json = [json.dumps(d, sort_keys=True) for d in single]
    assert len({d["decision"] for d in single}) == 3  # the sample holds every outcome

    stored = round_trip(nlp, list(nlp.pipe(case_doc(nlp, c) for c in dev_cases)), store_user_data=True)
    assert [json.dumps(decision_of(d), sort_keys=True) for d in stored] == as_json
    assert [decision_of(d) for d in stored] == single  # lists, not msgpack's tuples

    multi = [decision_of(d) for d in
             nlp.pipe([case_doc(nlp, c) for c in dev_cases], n_process=2, batch_size=8)]
    assert [json.dumps(d, sort_keys=True) for d in multi] == as_json
    assert multi == single


def test_spacys_default_docbin_loses_the_decision(nlp):
    """What the README warns about: without store_user_data, nothing of ours but the spans."""
    doc = assess(nlp, "File is not clear to close", domain="mortgage")
    back = round_trip(nlp, [doc])[0]
    assert back._.semgap_decision is None
    assert decision_of(back)["decision"] == "escalate"  # fails closed, never a stale proceed
    assert [s.label_ for s in back.spans["semgap_terms"]] == ["MTG.CTC"]
    assert back.spans["semgap_terms"][0]._.semgap_negated is False  # the flag is gone too

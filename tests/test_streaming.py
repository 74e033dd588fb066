"""Cases stream through the pipes: a doc is handed on as soon as the pipes are
done with it, and a user pipe that raises marks only the case it raised on."""
import gc

import pytest
import spacy

from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.api import assess_cases

CASES = [{"id": f"c{i}", "domain": "mortgage", "text": text} for i, text in enumerate([
    "Clear to close issued", "Not clear to close yet - appraisal gap pending", "File is clear to close, DTI 41%",
    "BOOM clear to close", "Title defect found", "Clear to close issued", "appraisal gap", "DTI 38%",
    "BOOM again", "Clear to close; rate lock expired"])]


@spacy.Language.component("semgap_test_seen")
def _seen(doc):
    _SEEN.append(doc.text)
    return doc


@spacy.Language.component("semgap_test_boom")
def _boom(doc):
    if doc.text.startswith("BOOM"):
        raise RuntimeError("user pipe failed")
    return doc


_SEEN = []


@spacy.Language.component("semgap_test_keep_docs")
def _keep(doc):
    _KEPT.append(doc)  # as a trained pipe holds a whole batch of docs until the last is done
    return doc


_KEPT = []


def test_a_doc_is_handed_on_before_the_rest_of_its_batch_is_made():
    nlp = build_pipeline()
    nlp.add_pipe("semgap_test_seen", first=True)
    _SEEN.clear()
    docs = assess_cases(nlp, CASES, batch_size=64)
    first = next(docs)
    assert first.text == CASES[0]["text"] and _SEEN == [CASES[0]["text"]]
    assert [d.text for d in docs] == [c["text"] for c in CASES[1:]]


def test_a_user_pipe_that_raises_marks_only_its_own_cases():
    plain = list(decide_cases(build_pipeline(), CASES))
    nlp = build_pipeline()
    nlp.add_pipe("semgap_test_boom", before="semgap_quantities")
    for batch_size in (1, 3, 256):
        got = list(decide_cases(nlp, CASES, batch_size=batch_size))
        assert [d["id"] for d in got] == [c["id"] for c in CASES]
        for case, want, decision in zip(CASES, plain, got):
            if case["text"].startswith("BOOM"):
                assert decision["decision"] == "escalate"
                assert [r["code"] for r in decision["reasons"]] == ["component_error"]
                assert "user pipe failed" in decision["reasons"][0]["message"]
                assert decision["language_packs"] == want["language_packs"]  # made without the pipes, still named
            else:
                assert decision == want, case


def test_a_zone_of_decisions_waiting_to_be_handed_on_brings_on_no_full_collection():
    nlp = build_pipeline()
    cases = CASES * 300
    list(decide_cases(nlp, cases))  # every word learnt once
    full = []

    def count(phase, info):
        if phase == "stop" and info["generation"] == 2:
            full.append(info)
    gc.collect()
    gc.callbacks.append(count)
    try:
        for _ in decide_cases(nlp, cases):
            pass
    finally:
        gc.callbacks.remove(count)
    assert full == []


def test_decisions_streamed_are_the_decisions_of_single_cases():
    """What a zone holds until it is handed on comes back as the decision itself, a case
    whose values are of other types (an id that subclasses str) included."""
    from semgap_spacy import assess, decision_of

    class CaseId(str):
        pass

    nlp = build_pipeline()
    cases = CASES + [dict(CASES[0], id=CaseId("own"))]
    streamed = list(decide_cases(nlp, cases))
    assert streamed == [decision_of(assess(nlp, c["text"], domain=c["domain"], case_id=c["id"])) for c in cases]
    assert type(streamed[-1]["id"]) is CaseId


def test_the_docs_decide_cases_makes_hold_nothing_once_decided_and_given_docs_keep_everything():
    from semgap_spacy.api import case_doc

    nlp = build_pipeline()
    nlp.add_pipe("semgap_test_keep_docs", first=True)
    _KEPT.clear()
    decisions = list(decide_cases(nlp, CASES))
    made, _KEPT[:] = list(_KEPT), []
    assert len(made) == len(CASES) and [d["id"] for d in decisions] == [c["id"] for c in CASES]
    assert all(not doc.user_data and not doc.spans for doc in made)
    given = [case_doc(nlp, case) for case in CASES[:2]]
    got = list(decide_cases(nlp, given))
    assert [doc._.semgap_decision for doc in given] == got == decisions[:2]
    assert all(doc.spans["semgap_terms"] for doc in given)


@pytest.mark.parametrize("n_process", [1, 2])
@pytest.mark.parametrize("given", [3, 300])
def test_a_source_that_fails_loses_none_of_the_cases_it_gave(n_process, given):
    # the cases read before the source raised are decided and handed on, then its error is raised;
    # before, a zone's worth was held unread (n_process=1) or the error was dropped (n_process=2)
    def source():
        for i in range(given):
            yield {"id": f"c{i}", "domain": "mortgage", "text": "Clear to close"}
        raise RuntimeError("the source broke")

    out = []
    with pytest.raises(RuntimeError, match="the source broke"):
        for decision in decide_cases(build_pipeline(), source(), n_process=n_process):
            out.append(decision["id"])
    assert out == [f"c{i}" for i in range(given)]

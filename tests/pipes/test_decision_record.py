"""The decision a doc keeps and the JSON written from it when it is first read.

The JSON is written on the first read of ``doc._.semgap_decision``, from a
record the pipe keeps; these tests pin down that this changes nothing a user
can see: the JSON is the one written at once, it is fixed when the pipe runs,
and no doc's decision shares anything a user could change with another's.
"""
import copy
import json

import pytest

from semgap_spacy import build_pipeline, decision_of
from semgap_spacy.api import case_doc
from semgap_spacy.core.decision_record import make_record
from semgap_spacy.glossary.models import GlossarySet, load_glossaries
from semgap_spacy.pipes.extensions import store_decision_record

# unexplained words in two clauses (teaching options on each), a clearance, a negated critical term
TEXT = "Clara Moreau says: batch released. Retention samples are in the cabinet, no OOS"
DOMAIN = "pharma_qa"


def _doc(nlp, text=TEXT, domain=DOMAIN, case_id="c-1"):
    return nlp(case_doc(nlp, {"id": case_id, "domain": domain, "text": text}))


def test_the_json_is_the_one_the_policy_writes_at_once(nlp):
    doc = _doc(nlp)
    eager = nlp.get_pipe("semgap_decision").reasons(doc)
    decision = doc._.semgap_decision
    assert [r["code"] for r in decision["reasons"]].count("unexplained_content") == 2
    assert json.dumps(decision["reasons"]) == json.dumps(eager)
    assert list(decision) == ["schema", "id", "decision", "reasons", "glossary_version", "glossary_sha256",
                              "text_sha256", "coverage", "language_packs"]
    assert decision["coverage"] == {"enabled": True, "name_sources": ["known_names"]}
    assert decision["language_packs"] == {"de": "bundled", "en": "bundled", "es": "bundled", "fr": "bundled"}


def test_the_language_packs_travel_in_the_record_as_plain_values(nlp):
    """The record holds (code, identity) pairs of str, which marshal, msgpack and pickle carry;
    a record kept before the packs were recorded writes them as null (not known)."""
    import marshal

    from semgap_spacy.pipes.extensions import decision_record

    doc = _doc(nlp)
    record = decision_record(doc)
    assert record[-1] == (("de", "bundled"), ("en", "bundled"), ("es", "bundled"), ("fr", "bundled"))
    assert marshal.loads(marshal.dumps(record)) == record
    expected = doc._.semgap_decision
    older = _doc(nlp)
    store_decision_record(older, decision_record(older)[:-1])  # a record of the last version: no packs
    assert older._.semgap_decision == {**expected, "language_packs": None}


def test_every_read_returns_the_same_decision_and_a_set_one_replaces_it(nlp):
    doc = _doc(nlp)
    first = doc._.semgap_decision
    first["reasons"][0]["note"] = "seen"
    assert doc._.semgap_decision is first and decision_of(doc) is first
    doc._.semgap_decision = {"decision": "escalate", "reasons": []}
    assert doc._.semgap_decision == {"decision": "escalate", "reasons": []}
    doc._.semgap_decision = None
    assert doc._.semgap_decision is None
    assert decision_of(doc)["decision"] == "escalate"  # no decision: fails closed


def test_changing_one_docs_decision_leaves_every_other_alone(nlp):
    one, two, three = (_doc(nlp, case_id=f"c-{i}") for i in range(3))
    untouched = copy.deepcopy(decision_of(three))
    mine = one._.semgap_decision
    unexplained = [r for r in mine["reasons"] if r["code"] == "unexplained_content"]
    unexplained[0]["options"][0]["scopes"].append("everywhere")
    unexplained[0]["options"][2]["term_ids"].clear()
    unexplained[0]["words"].append("extra")
    unexplained[0]["word_spans"][0][0] = 99
    mine["coverage"]["name_sources"].append("ner")
    mine["reasons"].clear()
    for doc in (two, three):
        got = decision_of(doc)
        assert {k: v for k, v in got.items() if k != "id"} == {k: v for k, v in untouched.items() if k != "id"}


def test_the_decision_is_fixed_when_the_pipe_runs():
    """Editing the doc or changing the glossary after the pipe ran does not reach the decision read later."""
    nlp = build_pipeline()
    expected = decision_of(_doc(nlp))
    later = _doc(nlp)
    finding = later._.semgap_coverage["findings"][0]
    finding["words"] = ("Someone",) + tuple(finding["words"][1:])  # a finding's words are a tuple
    later._.semgap_coverage["name_sources"].append("titlecase")
    data = load_glossaries().to_dict()
    data[DOMAIN]["terms"] = [t for t in data[DOMAIN]["terms"] if t["id"] != "PHA.SHELF_LIFE"]
    smaller = GlossarySet.from_dict(data)
    assert smaller.sha256 != expected["glossary_sha256"]
    for _, pipe in nlp.pipeline:
        pipe.set_glossary(smaller)
    got = later._.semgap_decision
    assert got == expected
    options = [r for r in got["reasons"] if r["code"] == "unexplained_content"][0]["options"]
    assert "PHA.SHELF_LIFE" in options[2]["term_ids"]
    assert "PHA.SHELF_LIFE" not in [r for r in decision_of(_doc(nlp))["reasons"]
                                    if r["code"] == "unexplained_content"][0]["options"][2]["term_ids"]


@pytest.mark.parametrize("reasons,deferred", [
    (5, None),                                                      # reasons that are not a list
    ([{"code": "unexplained_content", "outcome": "escalate"}],      # a clause finding cut short
     (DOMAIN, (), (("unexplained_content", 0, 5),), ((0, 0),))),
])
def test_a_damaged_record_escalates(nlp, reasons, deferred):
    doc = _doc(nlp)
    store_decision_record(doc, make_record("c-1", "proceed", reasons, deferred, "1", "0" * 64, "0" * 64, None))
    decision = doc._.semgap_decision
    assert decision["decision"] == "escalate"
    assert [r["code"] for r in decision["reasons"]] == ["component_error"]
    assert decision["glossary_version"] is None and decision["language_packs"] is None


def test_decide_cases_gives_the_bytes_a_docs_first_read_gives(nlp):
    """``decide_cases`` writes each JSON from its record outside the memory zone, as it is taken;
    the same bytes as a doc's first read, key order included."""
    from semgap_spacy import decide_cases
    from semgap_spacy.api import assess_cases
    from tests.test_docbin import DEV

    cases = [json.loads(line) for line in DEV.read_text("utf-8").splitlines() if line.strip()][::7]
    at_once = [json.dumps(d) for d in decide_cases(nlp, cases)]
    docs = list(assess_cases(nlp, cases))
    assert [json.dumps(doc._.semgap_decision) for doc in docs] == at_once
    assert {json.loads(d)["decision"] for d in at_once} == {"proceed", "escalate", "block"}


def test_decisions_streamed_from_one_zone_share_nothing_a_user_could_change(nlp):
    """``decide_cases`` holds a zone's records until the zone ends; each decision handed on
    still owns every list and dict in it, also when the cases are the same."""
    from semgap_spacy import decide_cases

    plain = "Clear to close issued"  # a clearance and nothing else: no list or dict inside a reason
    cases = [{"id": f"c-{i}", "domain": "mortgage", "text": plain} for i in range(3)]
    cases += [{"id": f"t-{i}", "domain": DOMAIN, "text": TEXT} for i in range(2)]
    decisions = list(decide_cases(nlp, cases))
    untouched = copy.deepcopy(decisions)
    for decision in decisions[0], decisions[3]:
        for reason in decision["reasons"]:
            reason["message"] = "changed"
            for value in reason.values():
                if isinstance(value, list):
                    value.clear()
        decision["reasons"].append({"code": "clearance"})
        decision["coverage"]["name_sources"].clear()
    assert decisions[1:3] == untouched[1:3] and decisions[4] == untouched[4]
    assert untouched[0] == decision_of(_doc(nlp, plain, "mortgage", "c-0"))


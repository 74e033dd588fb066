"""What users read of the run record, the case problems and the checked readings, and what
they cost a held doc: kept as tuples, read as lists."""
import gc

import spacy
from spacy.tokens import DocBin

from semgap_spacy import decision_of
from semgap_spacy.api import PIPE_NAMES, case_doc
from semgap_spacy.core.decision_record import as_lists

CASE = {"id": "r1", "domain": "mortgage", "text": "Clear to close issued"}


def _tracked(doc) -> int:
    """Containers the collector walks that a doc's extension values hold (a tuple is let go
    once its items are: a second collection catches one whose items went in the first)."""
    gc.collect()
    gc.collect()
    seen, stack = set(), list(doc.user_data.values())
    while stack:
        value = stack.pop()
        if not gc.is_tracked(value) or id(value) in seen:
            continue
        seen.add(id(value))
        stack.extend(value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ())
    return len(seen)


def _record(nlp):
    return nlp(case_doc(nlp, CASE))._.semgap_pipeline


def test_the_record_reads_as_one_dict_per_pipe(nlp):
    record = nlp(case_doc(nlp, CASE))._.semgap_pipeline
    assert isinstance(record, list) and all(type(e) is dict for e in record)
    assert [e["factory"] for e in record] == list(PIPE_NAMES)
    assert all(e["status"] == "ran" and e["name"] == e["factory"] for e in record)
    assert record[2]["config"] == {**nlp.get_pipe("semgap_context").cfg, "enabled": True}
    assert isinstance(record[2]["config"]["languages"], (list, type(None)))


def test_the_record_costs_the_collector_nothing_until_it_is_read(nlp):
    doc = nlp(case_doc(nlp, CASE))
    before = _tracked(doc)
    record = doc._.semgap_pipeline
    # once read it is a list of dicts, kept on the doc
    assert _tracked(doc) >= before + 1 + len(record)
    assert doc._.semgap_pipeline is record


def test_reading_the_record_changes_no_decision(nlp):
    read = nlp(case_doc(nlp, CASE))
    assert len(read._.semgap_pipeline) == len(PIPE_NAMES)
    assert decision_of(read) == decision_of(nlp(case_doc(nlp, CASE)))


def test_setting_the_record_replaces_it(nlp):
    doc = nlp(case_doc(nlp, CASE))
    doc._.semgap_pipeline = None
    assert doc._.semgap_pipeline is None
    doc._.semgap_pipeline = [{"name": "x"}]
    assert doc._.semgap_pipeline == [{"name": "x"}]


def test_the_record_is_the_same_after_docbin_and_workers(nlp):
    expected = _record(nlp)
    docs = [nlp(case_doc(nlp, CASE)) for _ in range(2)]
    read_first = docs[1]._.semgap_pipeline  # a record read before saving is kept as it was read
    data = DocBin(docs=docs, store_user_data=True).to_bytes()
    back = list(DocBin().from_bytes(data).get_docs(nlp.vocab))
    assert back[0]._.semgap_pipeline == expected
    assert as_lists(back[1]._.semgap_pipeline) == read_first  # msgpack's tuples, as any stored list
    multi = list(nlp.pipe([case_doc(nlp, CASE) for _ in range(4)], n_process=2, batch_size=2))
    assert all(d._.semgap_pipeline == expected for d in multi)


def test_switches_changed_on_a_held_cfg_show_in_the_next_record():
    nlp = spacy.blank("en")
    context = nlp.add_pipe("semgap_context")
    cfg = context.cfg
    assert nlp("no crossmatch")._.semgap_pipeline[0]["config"]["negation"] is True
    cfg["negation"] = False
    assert nlp("no crossmatch")._.semgap_pipeline[0]["config"]["negation"] is False
    context.enabled = False
    entry = nlp("no crossmatch")._.semgap_pipeline[0]
    assert entry["status"] == "disabled" and entry["config"]["enabled"] is False


def test_switches_json_cannot_hold_are_recorded_as_they_are():
    nlp = spacy.blank("en")
    context = nlp.add_pipe("semgap_context")
    context.cfg.update(keyed={1: ["a"]}, pair=("a", "b"))
    first = nlp("no crossmatch")._.semgap_pipeline[0]["config"]
    assert first["keyed"] == {1: ["a"]} and first["pair"] == ("a", "b")
    first["keyed"][1].append("b")  # a copy: neither the pipe nor the next doc sees it
    assert context.cfg["keyed"] == {1: ["a"]}
    assert nlp("no crossmatch")._.semgap_pipeline[0]["config"]["keyed"] == {1: ["a"]}


def test_case_problems_and_checked_readings_read_as_lists(nlp):
    doc = nlp(case_doc(nlp, CASE))
    assert doc._.semgap_case_problems == [] and doc._.semgap_readings_checked == []
    doc._.semgap_case_problems.append({"code": "mine"})  # an edit stays, as on a stored list
    assert doc._.semgap_case_problems == [{"code": "mine"}]
    bad = nlp(case_doc(nlp, dict(CASE, now=5, readings=[{"field": "nope"}])))
    assert [r["code"] for r in bad._.semgap_case_problems] == ["invalid_case"]
    assert isinstance(bad._.semgap_readings_checked, list) and len(bad._.semgap_readings_checked) == 1
    assert nlp("Clear to close issued")._.semgap_case_problems is None  # nothing checked wrong
    made = nlp.make_doc("Clear to close issued")
    made._.semgap_now = 5  # found by the first pipe's check
    problems = nlp(made)._.semgap_case_problems
    assert isinstance(problems, list) and [r["code"] for r in problems] == ["invalid_case"]


def test_empty_case_values_cost_the_collector_nothing(nlp):
    doc = nlp(case_doc(nlp, CASE))
    before = _tracked(doc)
    assert doc._.semgap_case_problems == [] and doc._.semgap_readings_checked == []
    assert _tracked(doc) == before + 2

"""The run-record check and the case checks, on plain values."""
import json
from importlib import resources

import pytest
from spacy.language import Language

from semgap_spacy.core.cases import MAX_TEXT_CHARS, check_case, merge_problems, nothing_to_check
from semgap_spacy.core.pipeline import (DISABLED, FAILED, RAN, SKIPPED, check_runs, contract, contract_from_dict,
                                        order_problem)


def _entry(factory, status=RAN, **config):
    full = dict(next((r.full_read for r in contract().required if r.factory == factory), ()))
    return {"name": factory, "factory": factory, "status": status, "config": {**full, **config}}


def _full():
    return [_entry(r.factory) for r in contract().required]


def test_a_full_run_has_no_problem():
    assert check_runs(_full()) == ([], None)
    assert check_runs(_full(), ablation=True).ablation == {"missing": [], "disabled": [], "switched_off": {}}


def test_skipped_counts_as_run_but_unknown_status_does_not():
    record = _full()
    record[1] = dict(record[1], status=SKIPPED)
    assert check_runs(record).reasons == []
    record[1] = dict(record[1], status="half")
    assert check_runs(record).reasons[0]["pipes"] == ["semgap_terms"]


def test_each_kind_of_gap_is_named():
    record = _full()
    record[0] = dict(record[0], status=DISABLED)
    record[1] = dict(record[1], status=FAILED)
    del record[3]
    record[2]["config"]["negation"] = False
    reason = check_runs(record).reasons[0]
    assert reason["code"] == "pipeline_incomplete" and reason["outcome"] == "escalate"
    assert reason["pipes"] == ["semgap_quantities", "semgap_typo_repair", "semgap_context", "semgap_terms"]
    for part in ("semgap_quantities did not run", "semgap_typo_repair is disabled",
                 "semgap_context ran with negation off", "semgap_terms failed"):
        assert part in reason["message"]


def test_ablation_excuses_switches_off_but_not_failures_or_order():
    record = _full()
    record[2]["config"]["hedges"] = False
    assert check_runs(record, ablation=True) == ([], {"missing": [], "disabled": [],
                                                      "switched_off": {"semgap_context": ["hedges"]}})
    swapped = [record[0], record[2], record[1], record[3]]
    assert "ran in the order" in check_runs(swapped, ablation=True).reasons[0]["message"]
    record[1] = dict(record[1], status=FAILED)
    assert check_runs(record, ablation=True).reasons[0]["pipes"] == ["semgap_terms"]


def test_a_record_after_a_round_trip_is_read_the_same():
    record = json.loads(json.dumps(_full()))
    as_tuples = tuple(dict(e, config=dict(e["config"])) for e in record)
    assert check_runs(as_tuples) == check_runs(record) == ([], None)
    assert check_runs(None).reasons[0]["pipes"] == [r.factory for r in contract().required]
    assert check_runs(["junk", 3, {"factory": "someone_else"}]).reasons  # noise is not a run


def test_a_new_pipe_is_one_more_entry_of_data():
    data = json.loads(resources.files("semgap_spacy.data").joinpath("pipeline.json").read_text("utf8"))
    data["required"].append({"factory": "semgap_extra", "signature": "doc._.semgap_extra",
                             "full_read": {"enabled": True}})
    spec = contract_from_dict(data)
    assert spec.order[-2:] == ("semgap_extra", "semgap_decision")
    reason = check_runs(_full(), spec=spec).reasons[0]
    assert reason["pipes"] == ["semgap_extra"] and "semgap_extra → semgap_decision" in reason["message"]
    assert check_runs(_full() + [_entry("semgap_extra")], spec=spec).reasons == []
    assert order_problem(["semgap_terms", "semgap_extra", "semgap_quantities"], spec)


def test_order_problem_judges_only_our_pipes_present():
    assert order_problem(["tok2vec", "semgap_terms", "ner", "semgap_decision"]) is None
    assert order_problem(["semgap_decision"]) is None
    assert "semgap_context → semgap_terms" in order_problem(["semgap_context", "semgap_terms"])


def test_factories_declare_the_contract_signatures():
    for req in contract().required:
        assert req.signature in Language.get_factory_meta(req.factory).assigns, req.factory
    assert Language.get_factory_meta("semgap_decision").requires == [r.signature for r in contract().required]
    for factory in contract().order:
        assert "doc._.semgap_pipeline" in Language.get_factory_meta(factory).assigns, factory


def test_case_check_values():
    check = check_case(10, ["x"], ["mortgage"], 12)
    assert check.case_id == "['x']" and check.domain == "['mortgage']" and check.now is None
    assert [r["code"] for r in check.problems] == ["invalid_case"]
    assert check_case(MAX_TEXT_CHARS, 1, "mortgage", None).problems == []
    assert [r["code"] for r in check_case(MAX_TEXT_CHARS + 1, None, "m", None).problems] == ["text_too_long"]
    assert check_case(1, True, None, "2026-01-01T00:00:00Z").case_id == "True"


def test_default_domain_only_when_none_given():
    used = check_case(1, None, None, None, default_domain="mortgage")
    assert (used.domain, used.default_domain) == ("mortgage", "mortgage")
    given = check_case(1, None, "pharma_qa", None, default_domain="mortgage")
    assert (given.domain, given.default_domain) == ("pharma_qa", None)
    assert check_case(1, None, 5, None, default_domain="mortgage").domain == "5"


def test_checking_twice_adds_nothing():
    problems = check_case(MAX_TEXT_CHARS + 5, None, "mortgage", 1).problems
    assert merge_problems(problems, problems) == problems
    assert merge_problems(None, problems) == problems


def test_a_pipe_on_another_span_group_is_not_a_full_read():
    record = _full()
    for entry in record:
        entry["config"]["spans_key"] = "semgap_terms"
    assert check_runs(record, spans_key="semgap_terms").reasons == []
    record[2]["config"]["spans_key"] = "mine"      # context marks a group the decision never reads
    reason = check_runs(record, ablation=True, spans_key="semgap_terms").reasons[0]
    assert reason["pipes"] == ["semgap_context"] and "another span group" in reason["message"]


@pytest.mark.parametrize("chars,default", [(0, None), (MAX_TEXT_CHARS, None), (MAX_TEXT_CHARS + 1, None),
                                           (10, "mortgage"), (10, 3)])
def test_nothing_to_check_agrees_with_check_case_on_a_case_without_values(chars, default):
    check = check_case(chars, None, None, None, default_domain=default)
    unchanged = check == (None, None, None, [], None)
    assert nothing_to_check(chars, default) is unchanged

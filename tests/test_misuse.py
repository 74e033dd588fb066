"""Misuse a spaCy user can commit, and what it gives: never a silent proceed,
never an exception or a hang, one answer whichever way a Doc enters.

Each test names the defect of issue 13 it holds down; each failed before the
run record, the case checks in the pipes and ``default_domain`` existed.
"""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Span
from thinc.api import Config

from semgap_spacy import add_semgap_pipes, assess, build_pipeline, decide_cases, decision_of
from semgap_spacy.api import PIPE_NAMES

ROOT = Path(__file__).resolve().parents[1]
NEGATED = ("File is not clear to close", "mortgage")          # proceeds without semgap_context
HEDGED = ("Aircraft may be airworthy pending inspection", "aviation_maintenance")


def _codes(decision):
    return [r["code"] for r in decision["reasons"]]


def _incomplete(decision):
    return next(r for r in decision["reasons"] if r["code"] == "pipeline_incomplete")


def _dev_cases():
    with open(ROOT / "heldout" / "dev.jsonl", encoding="utf8") as f:
        return [json.loads(line) for line in f]


def _by_hand(nlp, case):
    """The route the README offers besides ``assess``: make the doc, set ``doc._``."""
    doc = nlp.make_doc(case["text"])
    doc._.semgap_case_id = case.get("id")
    doc._.semgap_domain = case.get("domain")
    doc._.semgap_readings = case.get("readings")
    doc._.semgap_now = case.get("now")
    return doc


# -- defect 1: a missing, disabled or misplaced pipe -----------------------------------------

@pytest.mark.parametrize("text,domain", [NEGATED, HEDGED])
def test_select_pipes_disable_escalates_naming_the_pipe(nlp, text, domain):
    with nlp.select_pipes(disable=["semgap_context"]):
        decision = decision_of(assess(nlp, text, domain=domain))
    assert decision["decision"] == "escalate"
    reason = _incomplete(decision)
    assert reason["pipes"] == ["semgap_context"] and reason["expected_order"] == list(PIPE_NAMES)
    assert "semgap_context" in reason["message"] and " → ".join(PIPE_NAMES) in reason["message"]
    assert decision_of(assess(nlp, text, domain=domain))["decision"] == "escalate"  # and back on: no reason
    assert "pipeline_incomplete" not in _codes(decision_of(assess(nlp, text, domain=domain)))


def test_spacy_load_disable_and_exclude_escalate(nlp, tmp_path):
    nlp.to_disk(tmp_path / "p")
    for kwargs in ({"disable": ["semgap_context"]}, {"exclude": ["semgap_context"]},
                   {"config": {"components": {"semgap_context": {"enabled": False}}}}):
        loaded = spacy.load(tmp_path / "p", **kwargs)
        decision = decision_of(assess(loaded, *NEGATED))
        assert decision["decision"] == "escalate", kwargs
        assert "semgap_context" in _incomplete(decision)["pipes"], kwargs


def test_missing_pipes_escalate_in_any_pipeline(blank):
    add_semgap_pipes(blank, exclude=("semgap_context", "semgap_quantities"))
    decision = decision_of(assess(blank, "Clear to close issued", domain="mortgage"))
    assert decision["decision"] == "escalate"
    assert _incomplete(decision)["pipes"] == ["semgap_context", "semgap_quantities"]


def test_a_failing_pipe_is_named(monkeypatch):
    nlp = build_pipeline()

    def boom(doc):
        raise RuntimeError("broken")
    monkeypatch.setattr(nlp.get_pipe("semgap_context"), "process", boom)
    decision = decision_of(assess(nlp, *NEGATED))
    assert decision["decision"] == "escalate"
    assert "component_error" in _codes(decision)
    assert _incomplete(decision)["pipes"] == ["semgap_context"]


def test_misordered_pipes_refused_when_built():
    nlp = spacy.blank("en")
    for name in ("semgap_typo_repair", "semgap_context", "semgap_terms"):
        nlp.add_pipe(name)
    with pytest.raises(ValueError, match=" → ".join(PIPE_NAMES)):
        nlp.add_pipe("semgap_quantities")


def test_misordered_config_refused_when_loaded():
    config = Config().from_disk(ROOT / "configs" / "pipeline.cfg")
    config["nlp"]["pipeline"] = ["semgap_typo_repair", "semgap_context", "semgap_terms",
                                 "semgap_quantities", "semgap_decision"]
    with pytest.raises(ValueError, match="out of order"):
        spacy.util.load_model_from_config(config, auto_fill=True)


@pytest.mark.parametrize("text,domain", [NEGATED, HEDGED])
def test_misordered_at_run_time_escalates(text, domain):
    # ``before=`` puts context ahead of terms after both were built: only the run shows it
    nlp = build_pipeline(exclude=("semgap_context",))
    nlp.add_pipe("semgap_context", before="semgap_terms")
    decision = decision_of(assess(nlp, text, domain=domain))
    assert decision["decision"] == "escalate"
    assert "ran in the order" in _incomplete(decision)["message"]
    with pytest.raises(ValueError, match="out of order"):
        nlp.initialize()


def test_user_pipes_around_ours_are_fine():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    ruler = nlp.add_pipe("entity_ruler")
    add_semgap_pipes(nlp, config={"semgap_coverage": {"ner": True}})  # the name is explained by the entity
    nlp.add_pipe("merge_entities")
    nlp.initialize()
    ruler.add_patterns([{"label": "PERSON", "pattern": "Priya"}])
    doc = assess(nlp, "Priya: clear to close", domain="mortgage")
    assert decision_of(doc)["decision"] == "proceed", decision_of(doc)
    assert [e.label_ for e in doc.ents] == ["PERSON"]


def test_analyze_pipes_flags_a_missing_pipe():
    full = build_pipeline()
    assert not any(full.analyze_pipes()["problems"].values())
    without = build_pipeline(exclude=("semgap_context",))
    problems = without.analyze_pipes()["problems"]
    assert problems["semgap_decision"] == ["span._.semgap_negated"]
    alone = spacy.blank("en")
    alone.add_pipe("semgap_decision")
    assert len(alone.analyze_pipes()["problems"]["semgap_decision"]) == len(PIPE_NAMES) - 1


def test_disabled_decision_is_incomplete_not_no_term():
    nlp = build_pipeline(config={"semgap_decision": {"enabled": False}})
    decision = decision_of(assess(nlp, "Clear to close issued", domain="mortgage"))
    assert decision["decision"] == "escalate" and _codes(decision) == ["pipeline_incomplete"]


def test_ablation_is_explicit_and_said_in_every_decision():
    # coverage off too: its unattached-negation rule would otherwise still catch the cue
    off = {"semgap_context": {"negation": False}, "semgap_coverage": {"enabled": False}}
    assert decision_of(assess(build_pipeline(config=off), *NEGATED))["decision"] == "escalate"
    nlp = build_pipeline(config={**off, "semgap_decision": {"ablation": True}})
    for text, domain in (NEGATED, ("Title defect noted", "mortgage")):
        decision = decision_of(assess(nlp, text, domain=domain))
        assert decision["ablation"] == {"missing": [], "disabled": ["semgap_coverage"],
                                        "switched_off": {"semgap_context": ["negation"]}}
    assert decision_of(assess(nlp, *NEGATED))["decision"] == "proceed"  # what the ablation measures
    # a failure is never excused by ablation
    broken = build_pipeline(config={"semgap_decision": {"ablation": True}})
    broken.get_pipe("semgap_terms").process = lambda doc: 1 / 0
    assert "pipeline_incomplete" in _codes(decision_of(assess(broken, "Clear to close issued", domain="mortgage")))


def test_evaluate_variants_are_marked_ablation():
    from scripts import evaluate
    for table in (evaluate.COMPONENTS, evaluate.ABLATIONS):
        for name, overrides in table.items():
            assert bool(overrides.get("components.semgap_decision.ablation")) == bool(overrides), name


def test_running_a_doc_twice_gives_the_same_decision(nlp):
    doc = nlp.make_doc("Clear to close issued")
    doc._.semgap_domain = "mortgage"
    first = dict(decision_of(nlp(doc)))
    assert decision_of(nlp(doc)) == first and first["decision"] == "proceed"
    assert [e["factory"] for e in doc._.semgap_pipeline] == list(PIPE_NAMES)


@pytest.mark.parametrize("read_between", [False, True])
def test_a_doc_fed_again_after_a_run_without_the_decision_gets_a_new_record(nlp, read_between):
    """The first pipe finds its own entry in the record (kept, or read as dicts), so the
    record starts again rather than holding the first run twice."""
    doc = nlp.make_doc("Clear to close issued")
    doc._.semgap_domain = "mortgage"
    with nlp.select_pipes(disable=["semgap_decision"]):
        doc = nlp(doc)
    if read_between:
        assert [e["factory"] for e in doc._.semgap_pipeline] == list(PIPE_NAMES)[:-1]
    assert decision_of(nlp(doc))["decision"] == "proceed"
    assert [e["factory"] for e in doc._.semgap_pipeline] == list(PIPE_NAMES)


@pytest.mark.parametrize("read_first", [False, True])
def test_a_run_without_the_decision_leaves_no_earlier_decision(nlp, read_first):
    """A doc decided once and run again without the decision pipe (``select_pipes``, another
    pipeline) holds no decision, not the first run's proceed; a user pipe between the semgap
    pipes of the new run sees none either."""
    doc = nlp.make_doc("Clear to close issued")
    doc._.semgap_domain = "mortgage"
    nlp(doc)
    if read_first:
        assert doc._.semgap_decision["decision"] == "proceed"
    doc._.semgap_domain = "pharma_qa"  # the case has changed: the earlier proceed is not its answer
    with nlp.select_pipes(disable=["semgap_decision"]):
        nlp(doc)
    assert doc._.semgap_decision is None
    assert decision_of(doc)["decision"] == "escalate"
    assert decision_of(nlp(doc))["decision"] != "proceed"


def test_each_run_record_is_judged_after_full_reads():
    """A record like a full read's but with a switch off, a pipe failed or an entry that is not
    a plain dict escalates, however many full reads the same decision pipe saw before."""
    nlp = build_pipeline()
    decide = nlp.get_pipe("semgap_decision")
    clean = ("Clear to close issued", "mortgage")

    def read(edit):
        doc = nlp.make_doc(clean[0])
        doc._.semgap_domain = clean[1]
        with nlp.select_pipes(disable=["semgap_decision"]):
            doc = nlp(doc)
        edit(doc._.semgap_pipeline)
        return decision_of(decide(doc))

    def switch_off(record):
        record[2]["config"]["negation"] = False

    def fail(record):
        record[1]["status"] = "failed"

    class Entry(dict):
        pass

    def not_a_dict(record):
        record[0] = Entry(record[0])

    for edit in (switch_off, fail, not_a_dict):
        assert read(lambda record: None)["decision"] == "proceed"
        assert "pipeline_incomplete" in _codes(read(edit)), edit.__name__
    # the same full record, now read by an ablation run (past the guard on built switches, to
    # reach the decision's memo of clean records, which is keyed by the switch)
    object.__setattr__(decide, "ablation", True)
    assert read(lambda record: None)["ablation"] == {"missing": [], "disabled": [], "switched_off": {}}


@pytest.mark.parametrize("pipe, switch, value", [
    ("semgap_context", "questions", False), ("semgap_context", "hedges", False),
    ("semgap_quantities", "readings", False), ("semgap_decision", "ablation", True),
    ("semgap_coverage", "titlecase", True),
])
def test_a_switch_of_a_built_pipe_is_refused_with_a_message(pipe, switch, value):
    # the run record holds the switches as the config gave them: a changed attribute would not be seen
    nlp = build_pipeline()
    with pytest.raises(AttributeError, match=f"{pipe}: '{switch}' is a config value"):
        setattr(nlp.get_pipe(pipe), switch, value)
    assert decision_of(assess(nlp, "Negative crossmatch?", domain="medical_logistics"))["decision"] == "escalate"


@pytest.mark.parametrize("pipe, switch, value", [
    ("semgap_typo_repair", "min_length", "5"), ("semgap_typo_repair", "short_max", 0),
    ("semgap_typo_repair", "cache_size", -1), ("semgap_terms", "cache_size", 0),
    ("semgap_context", "cache_size", 0), ("semgap_coverage", "cache_size", 0),
    ("semgap_coverage", "cache_size", -1),
])
def test_a_size_that_is_no_positive_integer_stops_the_build(pipe, switch, value):
    """spaCy lets "5" through an int switch; accepted, it failed every doc (component_error)."""
    with pytest.raises(ValueError, match=f"{pipe}: {switch} must be a positive integer, not {value!r}"):
        build_pipeline(config={pipe: {switch: value}})


@pytest.mark.parametrize("switches, said", [
    ({"min_length": 3}, "min_length = 3 (a full read needs 5)"),
    ({"short_max": 5}, "short_max = 5 (a full read needs 7)"),
    ({"protect_dictionary_words": False}, "protect_dictionary_words off"),
])
def test_typo_repair_other_than_the_specs_escalates(switches, said):
    # repairing shorter or dictionary words reads more than the spec allows; fewer, less
    nlp = build_pipeline(config={"semgap_typo_repair": switches})
    decision = decision_of(assess(nlp, "Clear to close", domain="mortgage"))
    assert decision["decision"] == "escalate" and said in _incomplete(decision)["message"]


def test_enabled_is_read_at_every_run():
    nlp = build_pipeline()
    nlp.get_pipe("semgap_context").enabled = False
    decision = decision_of(assess(nlp, "Clear to close", domain="mortgage"))
    assert decision["decision"] == "escalate" and _incomplete(decision)["pipes"] == ["semgap_context"]


def test_tokens_merged_or_split_between_the_semgap_pipes_escalate():
    @spacy.Language.component("split_slash_between")
    def split_slash(doc):
        with doc.retokenize() as retokenizer:
            for token in doc:
                if token.text.count("/") == 1 and len(token.text) > 2:
                    a, b = token.text.split("/")
                    retokenizer.split(token, [a, "/", b], heads=[(token, 0), (token, 0), token.head])
        return doc
    split = build_pipeline()
    split.add_pipe("split_slash_between", before="semgap_context")
    merged = build_pipeline(config={"semgap_terms": {"annotate_ents": True}})
    merged.add_pipe("merge_entities", before="semgap_context")
    for nlp, text in ((split, "4821/22 not clear to close"), (merged, "Clear to close; pending"),
                      (merged, "Clear to close")):
        decision = decision_of(assess(nlp, text, domain="mortgage"))
        assert decision["decision"] == "escalate"
        # the rules after the change read misplaced spans too (and may add reasons of their own)
        assert any("tokens changed after an earlier semgap pipe ran" in r["message"] for r in decision["reasons"])
    before = build_pipeline()
    before.add_pipe("split_slash_between", first=True)  # before the first semgap pipe: nothing changes under it
    assert decision_of(assess(before, "4821/22 clear to close", domain="mortgage"))["decision"] == "proceed"


def test_editing_one_docs_run_record_changes_no_other_record_nor_the_pipe():
    nlp = spacy.blank("en")
    context = nlp.add_pipe("semgap_context")
    languages = list(context.cfg["languages"])
    first = nlp("no crossmatch")
    entry = first._.semgap_pipeline[0]
    entry["config"]["languages"].append("xx")
    entry["config"]["negation"] = False
    entry["status"] = "failed"
    second = nlp("no crossmatch")
    assert context.cfg["languages"] == languages
    assert second._.semgap_pipeline[0]["config"]["languages"] == languages
    assert second._.semgap_pipeline[0]["config"]["negation"] is True
    assert second._.semgap_pipeline[0]["status"] == "ran"
    # a switch changed on the pipe shows in the next doc's record
    context.cfg["languages"] = ["en"]
    assert nlp("no crossmatch")._.semgap_pipeline[0]["config"]["languages"] == ["en"]


# -- defect 2: a non-string domain crashed, and hung n_process=2 -----------------------------

@pytest.mark.parametrize("domain", [["mortgage"], {"d": 1}, 5, b"mortgage"])
def test_non_string_domain_on_the_doc_escalates(nlp, domain):
    doc = nlp.make_doc("Clear to close issued")
    doc._.semgap_domain = domain
    decision = decision_of(nlp(doc))
    assert decision["decision"] == "escalate" and "unknown_domain" in _codes(decision)


@pytest.mark.parametrize("field,value,code", [("semgap_now", 12, "invalid_case"),
                                              ("semgap_readings", [1], "malformed_reading")])
def test_bad_values_on_the_doc_escalate(nlp, field, value, code):
    doc = nlp.make_doc("Clear to close issued")
    doc._.semgap_domain = "mortgage"
    setattr(doc._, field, value)
    decision = decision_of(nlp(doc))
    assert decision["decision"] == "escalate" and code in _codes(decision)


def test_dev_cases_by_hand_through_two_processes_match_one():
    script = textwrap.dedent("""
        import json, sys
        from semgap_spacy import build_pipeline, decision_of
        sys.path.insert(0, %r)
        from tests.test_misuse import _by_hand, _dev_cases
        nlp = build_pipeline()
        cases = [c for c in _dev_cases() if isinstance(c.get("text"), str)]
        cases[0] = dict(cases[0], domain=["mortgage"])   # the value that crashed a worker
        one = [decision_of(d) for d in nlp.pipe(_by_hand(nlp, c) for c in cases)]
        two = [decision_of(d) for d in nlp.pipe((_by_hand(nlp, c) for c in cases), n_process=2, batch_size=32)]
        print(json.dumps({"n": len(cases), "same": one == two, "first": two[0]["decision"]}))
    """ % str(ROOT))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"n": result["n"], "same": True, "first": "escalate"} and result["n"] > 480


# -- defect 4: two routes, two answers --------------------------------------------------------

def test_every_route_gives_the_same_decision_on_dev(nlp):
    cases = [c for c in _dev_cases() if isinstance(c.get("text"), str)]
    via_assess = [decision_of(assess(nlp, c["text"], domain=c.get("domain"), readings=c.get("readings"),
                                     now=c.get("now"), case_id=c.get("id"))) for c in cases]
    via_cases = list(decide_cases(nlp, cases))
    via_hand = [decision_of(nlp(_by_hand(nlp, c))) for c in cases]
    assert via_assess == via_cases
    differ = [c["id"] for c, a, b in zip(cases, via_assess, via_hand) if a != b]
    assert differ == []


@pytest.mark.parametrize("case_id", ["dev-0357", "dev-0358", "dev-0359"])
def test_over_long_dev_cases_escalate_text_too_long_on_every_route(nlp, case_id):
    case = next(c for c in _dev_cases() if c["id"] == case_id)
    routes = [decision_of(assess(nlp, case["text"], domain=case["domain"], case_id=case_id)),
              next(decide_cases(nlp, [case])),
              decision_of(nlp(_by_hand(nlp, case))),
              decision_of(next(nlp.pipe([_by_hand(nlp, case)], n_process=2)))]
    for decision in routes:
        assert decision["decision"] == "escalate" and _codes(decision) == ["text_too_long"]
    assert all(d == routes[0] for d in routes)


# -- defect 5: plain nlp(text) always escalated unknown_domain -------------------------------

def test_default_domain_makes_plain_nlp_text_work():
    assert _codes(decision_of(build_pipeline()("Clear to close issued"))) == ["unknown_domain"]
    nlp = build_pipeline(config={"semgap_decision": {"default_domain": "mortgage"}})
    decision = decision_of(nlp("Clear to close issued"))
    assert decision["decision"] == "proceed" and decision["default_domain"] == "mortgage"
    # a domain given with the case wins, and is not marked as the default
    other = decision_of(assess(nlp, "Clear to close issued", domain="pharma_qa"))
    assert other["decision"] == "escalate" and "default_domain" not in other


def test_default_domain_reaches_every_pipe_that_reads_the_domain():
    # quantities read the domain to tie a text value to its field: the default must reach them too
    cases = [c for c in _dev_cases() if c.get("domain") == "medical_logistics" and c["category"] == "text_quantity"]
    nlp = build_pipeline(config={"semgap_decision": {"default_domain": "medical_logistics"}})
    plain = build_pipeline()
    assert cases
    for case in cases:
        by_default = dict(decision_of(nlp(case["text"])))
        assert by_default.pop("default_domain") == "medical_logistics"
        assert by_default == dict(decision_of(assess(plain, case["text"], domain="medical_logistics"))), case["id"]


@pytest.mark.parametrize("build", ["build_pipeline", "add_pipe"])
def test_an_unknown_default_domain_is_refused_when_the_pipeline_is_built(build):
    config = {"default_domain": "nonsense"}
    with pytest.raises(ValueError, match=r"default_domain 'nonsense' is not a domain of glossary .*; known domains: "
                                         r"aviation_maintenance, medical_logistics, mortgage, pharma_qa"):
        if build == "build_pipeline":
            build_pipeline(config={"semgap_decision": config})
        else:
            nlp = build_pipeline(exclude=["semgap_decision"])
            nlp.add_pipe("semgap_decision", config=config)


def test_a_glossary_without_the_default_domain_is_refused_and_the_old_one_kept():
    from semgap_spacy.glossary.models import GlossarySet, load_glossaries

    nlp = build_pipeline(config={"semgap_decision": {"default_domain": "pharma_qa"}})
    pipe = nlp.get_pipe("semgap_decision")
    bundled = pipe.glossary
    mortgage_only = GlossarySet({"mortgage": load_glossaries().domains["mortgage"]})
    with pytest.raises(ValueError, match="'pharma_qa' is not a domain .*; known domains: mortgage$"):
        pipe.initialize(glossary=mortgage_only)
    assert pipe.glossary is bundled
    assert decision_of(nlp("Batch released"))["default_domain"] == "pharma_qa"


# -- issue 13.3 (span getters): answer only for our spans ------------------------------------

def test_span_getters_are_none_on_other_spans(nlp):
    doc = assess(nlp, "Priya says clear to close", domain="mortgage")
    ours = doc.spans["semgap_terms"][0]
    assert ours._.semgap_term_id == "MTG.CTC" and ours._.semgap_domain == "mortgage"
    assert ours._.semgap_repaired is False
    person = Span(doc, 0, 1, label="PERSON")
    doc.ents = [person]
    ent = doc.ents[0]
    for name in ("semgap_term_id", "semgap_domain", "semgap_signal", "semgap_lang", "semgap_status",
                 "semgap_match_kind", "semgap_field", "semgap_repaired"):
        assert getattr(ent._, name) is None, name


def test_context_on_another_span_group_escalates():
    nlp = build_pipeline(config={"semgap_context": {"spans_key": "elsewhere"}})
    decision = decision_of(assess(nlp, *NEGATED))
    assert decision["decision"] == "escalate" and _incomplete(decision)["pipes"] == ["semgap_context"]


@pytest.mark.parametrize("pipe, key, group", [
    ("semgap_coverage", "unexplained_key", "semgap_quantities"),
    ("semgap_coverage", "unexplained_key", "semgap_terms"),
    ("semgap_context", "cues_key", "semgap_terms"),
    ("semgap_context", "cues_key", "semgap_quantities"),
])
def test_cues_or_unexplained_words_kept_in_a_group_the_decision_reads_escalate(pipe, key, group):
    """Unexplained words written into the quantity group took its quantities' place ("Clear to
    close 85 %" proceeded); any pipe keeping its own spans in a group the decision reads is no
    full read."""
    nlp = build_pipeline(config={pipe: {key: group}})
    for text in ("Clear to close 85 %", "Clear to close issued"):
        decision = decision_of(assess(nlp, text, domain="mortgage"))
        assert decision["decision"] == "escalate" and pipe in _incomplete(decision)["pipes"], text


_PIPES_WITH_A_TERM_GROUP = ("semgap_terms", "semgap_context", "semgap_quantities", "semgap_coverage",
                            "semgap_decision")


@pytest.mark.parametrize("text, expected", [
    ("Negative crossmatch, cold ischemia 30 h", "block"),
    ("Negative crossmatch, CIT >24 h", "escalate"),
    ("Negative crossmatch, 30 h", "escalate"),
])
def test_span_groups_renamed_in_every_pipe_read_the_same(text, expected):
    # the decision reads the groups it is configured for, quantity findings included
    nlp = build_pipeline(config={**{p: {"spans_key": "my_terms"} for p in _PIPES_WITH_A_TERM_GROUP},
                                 "semgap_quantities": {"spans_key": "my_terms", "quantities_key": "my_q"},
                                 "semgap_coverage": {"spans_key": "my_terms", "quantities_key": "my_q"},
                                 "semgap_decision": {"spans_key": "my_terms", "quantities_key": "my_q"}})
    renamed = decision_of(assess(nlp, text, domain="medical_logistics"))
    default = decision_of(assess(build_pipeline(), text, domain="medical_logistics"))
    assert renamed["decision"] == default["decision"] == expected
    assert _codes(renamed) == _codes(default)


def test_a_quantity_group_the_decision_does_not_read_escalates():
    nlp = build_pipeline(config={"semgap_quantities": {"quantities_key": "my_q"},
                                 "semgap_coverage": {"quantities_key": "my_q"}})
    decision = decision_of(assess(nlp, "Negative crossmatch, 30 h", domain="medical_logistics"))
    assert decision["decision"] == "escalate"
    assert set(_incomplete(decision)["pipes"]) == {"semgap_quantities", "semgap_coverage"}


def test_a_second_context_that_reads_less_escalates_wherever_it_sits():
    # a clinical semgap_context on doc.ents after the spec one writes over the term's marks
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": "LOWER"})
    ruler.add_patterns([{"label": "STATUS", "pattern": "clear to close"}])
    add_semgap_pipes(nlp)
    nlp.add_pipe("semgap_context", name="clinical_context", after="semgap_context",
                 config={"targets": "ents", "languages": ["en"], "cues_key": "clinical_cues",
                         "cues": {"@misc": "semgap.context_cues.clinical.v1"}})
    for text in ["Used to be clear to close", "Clear to close if", "Clear to close not"]:
        decision = decision_of(assess(nlp, text, domain="mortgage"))
        assert decision["decision"] == "escalate" and "clinical_context" in _incomplete(decision)["pipes"]


def test_a_second_copy_that_reads_in_full_is_no_problem():
    nlp = build_pipeline()
    nlp.add_pipe("semgap_context", name="context_again", after="semgap_context")
    assert decision_of(assess(nlp, "Clear to close", domain="mortgage"))["decision"] == "proceed"


def test_a_doc_redone_after_a_user_pipe_failed_starts_a_new_record():
    failing = {"now": True}

    @spacy.Language.component("fails_once")
    def fails_once(doc):
        if failing["now"]:
            raise RuntimeError("user pipe failed")
        return doc
    nlp = build_pipeline()
    nlp.add_pipe("fails_once", before="semgap_quantities")
    doc = nlp.make_doc("Clear to close issued")
    doc._.semgap_domain = "mortgage"
    with pytest.raises(RuntimeError):
        nlp(doc)                      # typo repair, terms and context ran; then the user pipe raised
    failing["now"] = False
    assert decision_of(nlp(doc))["decision"] == "proceed"
    assert [e["factory"] for e in doc._.semgap_pipeline] == list(PIPE_NAMES)


def test_a_tokenizer_that_does_not_cut_words_is_refused_with_a_message():
    # spacy.blank("zh") cuts "Clear" into letters, each an explained shape: "Clear to close,
    # assay failed" proceeded there; the pipes now refuse such a pipeline when they are added
    nlp = spacy.blank("zh")
    with pytest.raises(ValueError, match="tokenizer of this 'zh' pipeline"):
        add_semgap_pipes(nlp)
    assert not nlp.pipe_names
    for lang in ("xx", "nl", "ru"):  # tokenizers that split words at spaces are read as ever
        assert assess(add_semgap_pipes(spacy.blank(lang)), "Clear to close, assay failed.",
                      domain="mortgage")._.semgap_decision["decision"] == "escalate"


def test_a_semgap_pipe_after_the_decision_is_named_as_a_cause_of_no_decision():
    # it starts a new run, which drops the decision: the message said the pipeline had no decision pipe
    nlp = build_pipeline()
    nlp.add_pipe("semgap_context", name="semgap_context_again")
    decision = decision_of(assess(nlp, "Clear to close", domain="mortgage"))
    assert decision["decision"] == "escalate"
    assert "a semgap pipe after it started a new run" in decision["reasons"][0]["message"]

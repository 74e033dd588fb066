"""Every feature earns its place: on the dev split, switching any one off
lowers accuracy or lets more unsafe proceeds through. Also the evaluation
script end to end on a tiny fixture, and the README's results block."""
import json

import pytest
import spacy

from heldout import load_cases
from heldout.metrics import evaluate as score
from scripts import evaluate


@pytest.fixture(scope="module")
def dev_results():
    cases = load_cases("dev")
    return {name: score(cases, evaluate.run_variant(overrides, cases))["overall"]
            for name, overrides in evaluate.ABLATIONS.items()}


def _costs(ablated: dict, full: dict) -> bool:
    return ablated["accuracy"]["p"] < full["accuracy"]["p"] or ablated["unsafe_proceeds"] > full["unsafe_proceeds"]


_BEHIND_COVERAGE = {}


def _without_coverage(name: str) -> dict:
    """A variant with coverage off as well, on dev (computed once per variant)."""
    if name not in _BEHIND_COVERAGE:
        cases = load_cases("dev")
        overrides = {**evaluate.ABLATIONS["coverage"], **evaluate.ABLATIONS[name]}
        _BEHIND_COVERAGE[name] = score(cases, evaluate.run_variant(overrides, cases))["overall"]
    return _BEHIND_COVERAGE[name]


@pytest.mark.parametrize("feature", [name for name in evaluate.ABLATIONS
                                     if name not in ("full", "coverage") and not name.startswith("+")])
def test_switching_a_feature_off_costs_something_on_dev(dev_results, feature):
    """Where coverage (spec §4.1) already escalates what the feature would catch (a foreign
    term, an ambiguous abbreviation are words it leaves unexplained), the feature still
    has to earn its place in the layer that coverage backs up: the pipeline without coverage."""
    full, ablated = dev_results["full"], dev_results[feature]
    if not _costs(ablated, full):
        assert _costs(_without_coverage(feature), _without_coverage("full")), (feature, ablated, full)


def test_switching_coverage_off_lets_unsafe_proceeds_through_on_v2_dev():
    """The v1 labels predate spec §4.1 (they count an unexplained problem as a proceed), so
    coverage is judged on the v2 dev split, whose oracle implements it."""
    cases = load_cases("v2/dev")
    full = score(cases, evaluate.run_variant({}, cases))["overall"]
    off = score(cases, evaluate.run_variant(evaluate.ABLATIONS["coverage"], cases))["overall"]
    assert full["unsafe_proceeds"] == 0 and off["unsafe_proceeds"] > 0


@pytest.mark.parametrize("source", [name for name in evaluate.ABLATIONS if name.startswith("+")])
def test_a_wider_name_source_never_removes_a_proceed(dev_results, source):
    """Switching a name source on (spec §4.1 rule 6) can only explain more words: it may
    regain proceeds and let unsafe ones through, but never escalates what proceeded."""
    full, wider = dev_results["full"], dev_results[source]
    assert wider["unsafe_proceeds"] >= full["unsafe_proceeds"]
    assert wider["crashes"] == 0


def test_full_pipeline_has_no_crash_on_dev(dev_results):
    assert dev_results["full"]["crashes"] == 0


def test_engine_never_sees_labels_or_facts():
    case = {"id": "x", "domain": "mortgage", "text": "t", "now": None, "expected": "proceed",
            "category": "control", "facts": {"mentions": []}}
    assert set(evaluate.engine_case(case)) == {"id", "domain", "text", "now"}


def test_evaluate_script_on_a_tiny_fixture(tmp_path, monkeypatch):
    cases = [
        {"id": "f1", "domain": "mortgage", "text": "clear to close", "category": "control", "expected": "proceed"},
        {"id": "f2", "domain": "mortgage", "text": "title defect", "category": "control", "expected": "block"},
        {"id": "f3", "domain": "mortgage", "text": "not clear to close", "category": "negation",
         "expected": "escalate"},
        {"id": "f4", "domain": "mortgage", "text": "funding is fine", "category": "novel_paraphrase",
         "expected": "proceed"},
    ]
    monkeypatch.setattr(evaluate, "load_cases", lambda split: cases)
    monkeypatch.setattr(evaluate, "COMPONENTS", {"semgap (full)": {}})
    evaluate.main(["--splits", "fixture", "--out", str(tmp_path)])
    payload = json.loads((tmp_path / "heldout_eval.json").read_text())
    row = payload["fixture"]["table"]["semgap (full)"]
    assert row["n"] == 4 and row["crashes"] == 0 and row["unsafe_proceeds"] == 0
    assert row["accuracy"]["p"] == pytest.approx(0.75)      # the novel paraphrase escalates
    assert row["accuracy_excluding_novel"]["p"] == pytest.approx(1.0)
    baseline = payload["fixture"]["table"]["keyword baseline"]
    assert baseline["unsafe_proceeds"] == 1                  # "not clear to close" proceeds
    assert "f4" in (tmp_path / "heldout_eval.md").read_text()


def test_readme_results_block_matches_a_fresh_run():
    from scripts import readme_results
    assert readme_results.check() == []


_FIXTURE = [
    {"id": "n1", "domain": "mortgage", "text": "Clear to close. Larkspur signed.", "category": "control",
     "expected": "escalate"},
    {"id": "n2", "domain": "mortgage", "text": "clear to close", "category": "control", "expected": "proceed"},
]


def test_the_ner_rows_run_inside_a_trained_pipeline(tmp_path, monkeypatch):
    """``--ablate-trained`` appends the pipes to the trained pipeline it finds; a saved pipeline
    whose entity ruler tags "Larkspur" stands in for one, so ``ner`` explains the name."""
    trained = spacy.blank("en")
    trained.add_pipe("entity_ruler").add_patterns([{"label": "ORG", "pattern": "Larkspur"}])
    trained.to_disk(tmp_path / "trained")
    monkeypatch.setattr(evaluate, "load_cases", lambda split: _FIXTURE)
    monkeypatch.setattr(evaluate, "installed_trained", lambda: str(tmp_path / "trained"))
    evaluate.main(["--ablate-trained", "--splits", "fixture", "--out", str(tmp_path)])
    payload = json.loads((tmp_path / "ablation_trained.json").read_text())
    assert payload["trained_pipeline"] == str(tmp_path / "trained")
    table = payload["fixture"]["table"]
    full, ner = (table[f"{row} ({tmp_path / 'trained'})"] for row in evaluate.TRAINED_ABLATIONS)
    assert full["accuracy"]["p"] == pytest.approx(1.0) and full["unsafe_proceeds"] == 0
    assert ner["unsafe_proceeds"] == 1          # the unknown name now explained: n1 proceeds


def test_the_ner_rows_are_skipped_without_a_trained_pipeline(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(evaluate, "installed_trained", lambda: None)
    evaluate.main(["--ablate-trained", "--splits", "dev", "--out", str(tmp_path)])
    assert "skipped: no trained English pipeline is installed" in capsys.readouterr().out
    assert not (tmp_path / "ablation_trained.json").exists()

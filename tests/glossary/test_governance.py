"""Glossary governance: validate, diff, changelog, replay and the ``glossary`` CLI."""
import copy
import json
import shutil
import sys
import types
from pathlib import Path

import pytest
import srsly

from semgap_spacy.glossary import governance
from semgap_spacy.glossary import (GlossaryError, GlossarySet, bundled_glossary_dir,
                                   load_domain_file, load_glossaries)
from semgap_spacy.ops.glossary_cli import main
from semgap_spacy.glossary.governance import (FINDING_CODES, Finding, GovernanceError, changelog, diff,
                                     has_errors, load_cues, replay, validate)

FIXTURES = Path(__file__).parent / "fixtures" / "glossaries"
VALID = FIXTURES / "valid"
BASE = srsly.read_yaml(VALID / "demo.yaml")


@pytest.fixture
def spec_cues_only(monkeypatch, tmp_path):
    """Pin the cue list to the spec's, so fixture results do not depend on
    whatever data/negation/*.json holds today."""
    monkeypatch.setattr(governance, "NEGATION_DIR", tmp_path / "no-negation-files")


def _codes(findings, severity=None):
    return {f.code for f in findings if severity is None or f.severity == severity}


def _only(findings, code):
    hits = [f for f in findings if f.code == code]
    assert hits, f"no {code} in {[str(f) for f in findings]}"
    return hits


# --------------------------------------------------------------------------
# validate: one fixture per finding code
# --------------------------------------------------------------------------

# (fixture dir, code, severity, term, words the message must contain)
CASES = [
    ("duplicate_phrase", "duplicate_phrase", "error", "DEMO.STOP", ["Good-To-Go", "DEMO.GO"]),
    ("shared_phrase_across_domains", "shared_phrase_across_domains", "warning", "OTH.HALT",
     ["hard-stop", "DEMO.STOP", "demo"]),
    ("phrase_is_cue", "phrase_is_cue", "error", "DEMO.STOP", ["NON", "negation cue"]),
    ("phrase_contains_cue", "phrase_contains_cue", "warning", "DEMO.GO", ["no hold", '"no"']),
    ("missing_approver", "missing_approver", "error", "DEMO.STOP", ["no approver"]),
    ("approver_is_owner", "approver_is_owner", "error", "DEMO.GO", ["ANN OWNER", "owner"]),
    ("field_without_contract", "field_without_contract", "error", "DEMO.AGE", ["no contract"]),
    ("translation_without_reviewer", "translation_without_reviewer", "error", "DEMO.STOP",
     ["es", "no reviewer"]),
    ("draft_translation", "draft_translation", "warning", "DEMO.GO", ["es", "draft"]),
    ("draft_dependency", "draft_dependency", "error", "DEMO.GO", ["DEMO.CHECKED", "draft"]),
    ("draft_dependency", "draft_term", "warning", "DEMO.CHECKED", ["draft"]),
    ("fuzzy_collision", "fuzzy_collision", "warning", "DEMO.GO",
     ['"accepted"', '"excepted"', "DEMO.STOP", "2 edits"]),
    ("unknown_signal", "unknown_signal", "error", "DEMO.STOP", ["stop_everything"]),
    ("bad_version", "bad_version", "error", None, ["v2-final", "YYYY.MM.N"]),
    ("schema", "schema", "error", "DEMO.AGE", ["contract without unit"]),
    ("unknown_reference", "unknown_reference", "error", "DEMO.GONE", ["DEMO.GONE", "frame"]),
    ("duplicate_term_id", "duplicate_term_id", "error", "DEMO.AGE", ["DEMO.AGE", "twice"]),
    ("second_approver_not_independent", "second_approver_not_independent", "error", "DEMO.STOP",
     ["Bob Approver"]),
    ("unreadable", "unreadable", "error", None, ["not valid YAML"]),
    ("bad_person_name", "bad_person_name", "error", "DEMO.GO", ["owner", "U+200B"]),
    ("bad_domain_name", "bad_domain_name", "error", None, ["'../demo'", "never a path"]),
    ("phrase_without_content", "phrase_without_content", "error", "DEMO.GO",
     ["'.'", "punctuation only"]),
    ("phrase_not_printable", "phrase_not_printable", "error", "DEMO.STOP", ["U+200B"]),
    ("bad_abbreviation", "bad_abbreviation", "error", "DEMO.STOP", ["'ok'", "common word"]),
    ("dependency_cycle", "dependency_cycle", "error", "DEMO.GO",
     ["DEMO.GO -> DEMO.STOP -> DEMO.GO"]),
]


@pytest.mark.parametrize("folder,code,severity,term,words", CASES,
                         ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_each_fixture_reports_its_code(spec_cues_only, folder, code, severity, term, words):
    findings = validate(FIXTURES / folder)
    hits = _only(findings, code)
    assert any(f.term == term for f in hits), [str(f) for f in hits]
    hit = next(f for f in hits if f.term == term)
    assert hit.severity == severity == FINDING_CODES[code]
    assert hit.domain in ("demo", "other", "../demo")  # a domain is named as written
    for word in words:
        assert word in hit.message, (word, hit.message)
    assert has_errors(findings) == (severity == "error" or folder == "draft_dependency")


def test_every_listed_code_has_a_fixture():
    covered = {c[1] for c in CASES}
    diff_only = {"version_not_bumped", "weakening_without_second_approver", "duplicate_domain",
                 "duplicate_field"}
    assert set(FINDING_CODES) - diff_only <= covered


def test_valid_fixture_has_no_findings(spec_cues_only):
    assert validate(VALID) == []
    # and it really loads: the fixtures are the same shape as the real glossaries
    load_domain_file(VALID / "demo.yaml")


def test_all_problems_reported_not_just_the_first(spec_cues_only):
    findings = validate(FIXTURES / "many_problems")
    by_code = {f.code: f for f in findings}
    assert {"bad_version", "unknown_signal", "field_without_contract", "missing_approver",
            "duplicate_phrase"} <= set(by_code)
    assert by_code["unknown_signal"].term == "DEMO.STOP"
    assert by_code["field_without_contract"].term == "DEMO.AGE"
    assert by_code["missing_approver"].term == "DEMO.LIFE"
    assert by_code["duplicate_phrase"].term == "DEMO.LIFE"
    # errors come before warnings
    severities = [f.severity for f in findings]
    assert severities == sorted(severities, key=lambda s: s != "error")


def test_draft_critical_term_without_approver_is_refused_by_loader_and_validate(spec_cues_only):
    # a term that could clear or block once approved needs an approver even as a
    # draft; the loader and governance agree on it (one rule, in the model)
    with pytest.raises(GlossaryError, match="DEMO.STOP: missing approver"):
        load_domain_file(FIXTURES / "missing_approver" / "demo.yaml")
    assert "missing_approver" in _codes(validate(FIXTURES / "missing_approver"), "error")


def test_duplicate_phrase_collapses_hyphen_space_and_case(spec_cues_only):
    payload = copy.deepcopy(BASE)
    payload["terms"][1]["phrases"].append("Go0d TO go")  # not a duplicate: a digit differs
    assert "duplicate_phrase" not in _codes(validate(payload))
    payload["terms"][1]["phrases"][-1] = "GOOD - to  go"
    assert "duplicate_phrase" in _codes(validate(payload))


def test_fuzzy_collision_thresholds(spec_cues_only):
    def with_words(clear_phrase, critical_phrase):
        payload = copy.deepcopy(BASE)
        payload["terms"][0]["phrases"].append(clear_phrase)
        payload["terms"][1]["phrases"].append(critical_phrase)
        return [f for f in validate(payload) if f.code == "fuzzy_collision"]

    assert with_words("lab positive", "lab negative") == []      # distance 3
    assert with_words("seal sealed", "seal healer") == []        # 6 letters: only 1 edit allowed
    assert with_words("box sealed", "box healed")                # 6 letters, 1 edit
    assert with_words("lot accepted", "lot excepted")            # 8 letters, 2 edits
    assert with_words("ok good", "ok goad") == []                # under 5 letters: never repaired
    # same signal: not a collision
    payload = copy.deepcopy(BASE)
    payload["terms"][0]["phrases"] += ["box sealed", "box healed"]
    assert "fuzzy_collision" not in _codes(validate(payload))


def test_cues_are_read_from_negation_json(monkeypatch, tmp_path):
    folder = tmp_path / "negation"
    folder.mkdir()
    # the layout of semgap_spacy/data/negation/<lang>.json
    (folder / "en.json").write_text(json.dumps({"semgap_context_cues": {"lang": "en", "cues": [
        {"cue": "halted", "category": "negation", "direction": "forward"},
        {"cue": "not only", "category": "pseudo"},
        {"cue": "but", "category": "break"},
        {"cue": "hmm"}]}}), encoding="utf8")
    (folder / "fr.json").write_text("{half-written", encoding="utf8")  # ignored, not fatal
    cues = load_cues(folder)
    assert cues["en"]["halted"] == "negation cue" and cues["en"]["hmm"] == "cue"
    assert "not only" not in cues["en"] and "but" not in cues["en"]
    assert "not" in cues["en"] and "ohne" in cues["de"]  # the spec's list is always there
    monkeypatch.setattr(governance, "NEGATION_DIR", folder)
    findings = validate(FIXTURES / "shared_phrase_across_domains" / "other.yaml")
    hit = _only(findings, "phrase_is_cue")[0]
    assert hit.term == "OTH.HALT" and '"halted"' in hit.message


def test_validate_accepts_a_loaded_glossary_set(spec_cues_only):
    gs = GlossarySet.from_dir(VALID)
    assert validate(gs) == []


def test_validate_refuses_a_missing_path():
    with pytest.raises(GovernanceError, match="no such glossary"):
        validate("/nonexistent/glossaries")


def test_bundled_glossaries_have_no_errors():
    findings = validate(bundled_glossary_dir())
    assert not has_errors(findings), [str(f) for f in findings if f.severity == "error"]
    drafts = [f for f in findings if f.code == "draft_translation"]
    assert {f.term for f in drafts} == {"PHA.RELEASED", "PHA.OUT_OF_SPEC", "PHA.QUARANTINE",
                                        "PHA.STORAGE_TEMP", "PHA.EXCURSION", "PHA.SHELF_LIFE"}
    assert all(f.domain == "pharma_qa" and "de translation" in f.message for f in drafts)


def test_bundled_compatible_incompatible_collision_is_reported():
    hits = [f for f in validate(bundled_glossary_dir()) if f.code == "fuzzy_collision"]
    assert any('"compatible"' in f.message and '"incompatible"' in f.message for f in hits)


def test_archive_holds_the_first_version():
    folder = bundled_glossary_dir() / "archive" / "2026.11.0"
    gs = GlossarySet.from_dir(folder)
    assert gs.version == "2026.11.0"
    assert set(gs.domains) == {"medical_logistics", "mortgage", "pharma_qa",
                               "aviation_maintenance"}
    assert not has_errors(validate("2026.11.0"))  # an archived version resolves by name


# --------------------------------------------------------------------------
# diff and changelog
# --------------------------------------------------------------------------

def _variant(tmp_path, mutate, version="2026.12.0", name="new"):
    payload = copy.deepcopy(BASE)
    mutate(payload)
    if version:
        payload["version"] = version
    folder = tmp_path / name
    folder.mkdir()
    srsly.write_yaml(folder / "demo.yaml", payload)
    return folder


def _term(payload, tid):
    return next(t for t in payload["terms"] if t["id"] == tid)


def test_diff_identical_is_unchanged_and_ok():
    report = diff(VALID, VALID)
    assert not report.changed and report.ok
    assert report.domains["demo"].status == "unchanged"


def test_diff_lists_added_and_removed_phrases_and_terms(tmp_path):
    def mutate(p):
        _term(p, "DEMO.GO")["phrases"].append("all clear")
        _term(p, "DEMO.GO")["translations"]["es"]["phrases"] = ["listo"]
        p["terms"] = [t for t in p["terms"] if t["id"] != "DEMO.LIFE"]
        p["terms"].append({"id": "DEMO.NEW", "signal": "critical_block", "definition": "x",
                           "owner": "Ann Owner", "approver": "Bob Approver",
                           "status": "approved", "phrases": ["new hold"]})
    report = diff(VALID, _variant(tmp_path, mutate))
    dd = report.domains["demo"]
    assert dd.added_terms == ["DEMO.NEW"] and dd.removed_terms == ["DEMO.LIFE"]
    assert dd.changed_terms == ["DEMO.GO"]
    added = {(t, p.lang, p.text) for t, p in dd.added_phrases}
    removed = {(t, p.lang, p.text) for t, p in dd.removed_phrases}
    assert ("DEMO.GO", "en", "all clear") in added and ("DEMO.GO", "es", "listo") in added
    assert ("DEMO.NEW", "en", "new hold") in added
    assert ("DEMO.GO", "es", "listo para salir") in removed
    assert ("DEMO.LIFE", "en", "life left") in removed
    # removing a field term and adding phrases to a clearance are not weakenings
    assert report.ok, [str(f) for f in report.findings]


def test_diff_requires_a_version_bump(tmp_path):
    def mutate(p):
        _term(p, "DEMO.GO")["definition"] = "Reworded."
    same = diff(VALID, _variant(tmp_path, mutate, version=None, name="same"))
    hit = _only(same.findings, "version_not_bumped")[0]
    assert hit.domain == "demo" and "2026.11.0" in hit.message and not same.ok
    bumped = diff(VALID, _variant(tmp_path, mutate, name="bumped"))
    assert bumped.ok and "version_not_bumped" not in _codes(bumped.findings)
    backwards = diff(VALID, _variant(tmp_path, mutate, version="2026.10.5", name="back"))
    assert "version_not_bumped" in _codes(backwards.findings)


def test_critical_to_clear_refused_without_second_approver(tmp_path):
    report = diff(VALID, _variant(tmp_path, lambda p: _term(p, "DEMO.STOP").update(
        signal="clear")))
    hit = _only(report.findings, "weakening_without_second_approver")[0]
    assert hit.term == "DEMO.STOP" and "critical_block → clear" in hit.message
    assert [w.kind for w in report.weakenings] == ["signal_weakened"]
    assert not report.ok


def test_critical_to_clear_accepted_with_independent_second_approver(tmp_path):
    report = diff(VALID, _variant(tmp_path, lambda p: _term(p, "DEMO.STOP").update(
        signal="clear", second_approver="Dora Second")))
    assert report.ok, [str(f) for f in report.findings]
    (w,) = report.weakenings
    assert w.accepted and w.second_approver == "Dora Second"


@pytest.mark.parametrize("who", ["Ann Owner", "bob approver", "  "])
def test_second_approver_must_differ_from_owner_and_approver(tmp_path, who):
    report = diff(VALID, _variant(tmp_path, lambda p: _term(p, "DEMO.STOP").update(
        signal="field", second_approver=who)))
    assert "weakening_without_second_approver" in _codes(report.findings)


@pytest.mark.parametrize("term,contract,kind", [
    ("DEMO.TEMP", {"kind": "temperature", "unit": "degC", "min": 2, "max": 10}, "band_widened"),
    ("DEMO.TEMP", {"kind": "temperature", "unit": "degC", "min": 0, "max": 8}, "band_widened"),
    ("DEMO.AGE", {"kind": "duration", "unit": "h", "max": 30}, "max_raised"),
    ("DEMO.AGE", {"kind": "duration", "unit": "min", "max": 1500}, "max_raised"),
    ("DEMO.LIFE", {"kind": "duration", "unit": "day", "min": 90}, "min_lowered"),
    ("DEMO.LIFE", {"kind": "duration", "unit": "h", "min": 4000}, "min_lowered"),
    ("DEMO.AGE", {"kind": "ratio", "unit": "percent", "max": 24}, "contract_incomparable"),
])
def test_contract_loosening_is_a_weakening(tmp_path, term, contract, kind):
    report = diff(VALID, _variant(tmp_path, lambda p: _term(p, term).update(contract=contract)))
    assert [w.kind for w in report.weakenings] == [kind]
    hit = _only(report.findings, "weakening_without_second_approver")[0]
    assert hit.term == term
    ok = diff(VALID, _variant(tmp_path, lambda p: _term(p, term).update(
        contract=contract, second_approver="Dora Second"), name="approved"))
    assert ok.ok, [str(f) for f in ok.findings]


@pytest.mark.parametrize("term,contract", [
    ("DEMO.TEMP", {"kind": "temperature", "unit": "degC", "min": 3, "max": 7}),
    ("DEMO.AGE", {"kind": "duration", "unit": "h", "max": 20}),
    ("DEMO.AGE", {"kind": "duration", "unit": "min", "max": 1440}),  # same limit, new unit
    ("DEMO.TEMP", {"kind": "temperature", "unit": "degF", "min": 35.6, "max": 46.4}),
    ("DEMO.LIFE", {"kind": "duration", "unit": "day", "min": 365}),
])
def test_contract_tightening_or_same_limit_is_not_a_weakening(tmp_path, term, contract):
    report = diff(VALID, _variant(tmp_path, lambda p: _term(p, term).update(contract=contract)))
    assert report.weakenings == [] and report.ok, [str(f) for f in report.findings]
    assert report.domains["demo"].changed_terms == [term]


def test_removing_a_critical_term_needs_a_second_approver(tmp_path):
    def drop(p):
        p["terms"] = [t for t in p["terms"] if t["id"] != "DEMO.STOP"]
        p["frames"] = []
    report = diff(VALID, _variant(tmp_path, drop))
    assert [w.kind for w in report.weakenings] == ["critical_removed"]
    assert _only(report.findings, "weakening_without_second_approver")[0].term == "DEMO.STOP"

    def retire(p):
        drop(p)
        p["retired"] = [{"id": "DEMO.STOP", "second_approver": "Dora Second"}]
    assert diff(VALID, _variant(tmp_path, retire, name="retired")).ok


def test_removing_a_critical_phrase_or_demoting_it_is_a_weakening(tmp_path):
    report = diff(VALID, _variant(tmp_path, lambda p: _term(p, "DEMO.STOP").update(
        phrases=["hard stop"])))
    assert [w.kind for w in report.weakenings] == ["critical_phrase_removed"]
    assert "dead stop" in report.weakenings[0].detail
    demoted = diff(VALID, _variant(tmp_path, lambda p: _term(p, "DEMO.STOP").update(
        status="draft"), name="demoted"))
    assert "critical_demoted_to_draft" in [w.kind for w in demoted.weakenings]


def test_draft_to_approved_is_not_a_weakening(tmp_path):
    old = _variant(tmp_path, lambda p: _term(p, "DEMO.GO")["translations"]["es"].update(
        status="draft", reviewer=None), version=None, name="old")
    report = diff(old, _variant(tmp_path, lambda p: None, name="new2"))
    assert report.ok and report.weakenings == []
    assert any("es translation status: draft → approved" in c
               for c in report.domains["demo"].terms["DEMO.GO"].changes)


def test_changelog_contains_the_changes(tmp_path):
    def mutate(p):
        _term(p, "DEMO.GO")["phrases"].append("all clear")
        _term(p, "DEMO.TEMP")["contract"]["max"] = 10
        _term(p, "DEMO.TEMP")["second_approver"] = "Dora Second"
        _term(p, "DEMO.STOP")["phrases"] = ["hard stop"]
    text = changelog(VALID, _variant(tmp_path, mutate))
    assert text.startswith("# Glossary changelog: 2026.11.0 → 2026.12.0")
    assert "## demo — 2026.11.0 → 2026.12.0" in text
    assert 'added phrase "all clear" (en)' in text
    assert 'removed phrase "dead stop" (en)' in text
    assert "contract max: 8 → 10" in text
    assert "band widened: 2–8 degC → 2–10 degC" in text
    assert "approved by second approver Dora Second" in text
    assert "**NOT APPROVED**" in text and "weakening_without_second_approver" in text
    assert "No changes." in changelog(VALID, VALID)


def test_bundled_equals_its_archive_or_is_bumped():
    # the current glossaries may move on, but never past the archive without a bump
    report = diff("2026.11.0", bundled_glossary_dir())
    assert "version_not_bumped" not in _codes(report.findings)


# --------------------------------------------------------------------------
# replay
# --------------------------------------------------------------------------

def _fake_decide(calls):
    """A stand-in pipeline: block on a critical phrase, proceed on a clear one."""
    def decide(cases, glossary_dir):
        calls.append(Path(glossary_dir))
        gs = GlossarySet.from_dir(glossary_dir)
        out = []
        for case in cases:
            text = case["text"].lower()
            found = {t.signal for _, t in gs.terms() for p in t.phrases if p.lower() in text}
            decision = ("block" if "critical_block" in found else
                        "proceed" if "clear" in found else "escalate")
            out.append({"id": case["id"], "decision": decision,
                        "reasons": [{"code": "fake_" + decision}]})
        return out
    return decide


@pytest.fixture
def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    rows = [{"id": "c1", "domain": "demo", "text": "dead stop on the dock"},
            {"id": "c2", "domain": "demo", "text": "good to go"},
            {"id": "c3", "domain": "demo", "text": "nothing known"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf8")
    return path


def test_replay_shows_what_a_change_would_have_done(tmp_path, cases_file):
    archive = tmp_path / "archive"
    (archive / "2026.11.0").mkdir(parents=True)
    srsly.write_yaml(archive / "2026.11.0" / "demo.yaml", BASE)
    current = _variant(tmp_path, lambda p: _term(p, "DEMO.STOP").update(phrases=["hard stop"]))
    calls = []
    report = replay(cases_file, "2026.11.0", _fake_decide(calls), glossary_dir=current,
                    archive_root=archive)
    assert calls == [archive / "2026.11.0", current]
    assert [(r.id, r.old, r.new) for r in report.rows] == [
        ("c1", "block", "escalate"), ("c2", "proceed", "proceed"), ("c3", "escalate", "escalate")]
    assert [r.id for r in report.changed] == ["c1"]
    assert report.changed[0].old_codes == ["fake_block"]
    assert report.transitions() == {"block→escalate": 1}
    assert "1 decision would change" in report.to_text()
    assert report.to_dict()["changed"][0]["id"] == "c1"


def test_replay_against_the_bundled_archive(cases_file):
    report = replay(cases_file, "2026.11.0", _fake_decide([]))
    assert len(report.rows) == 3 and report.archived_version == "2026.11.0"


def test_replay_refuses_unknown_version_and_bad_decide_fn(cases_file):
    with pytest.raises(GovernanceError, match="not archived.*2026.11.0"):
        replay(cases_file, "2001.01.0", _fake_decide([]))
    with pytest.raises(GovernanceError, match="not a glossary version"):
        replay(cases_file, "../../etc", _fake_decide([]))
    with pytest.raises(GovernanceError, match="2 decisions for 3 cases"):
        replay(cases_file, "2026.11.0", lambda cases, d: [{"decision": "block"}] * 2)


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

def test_cli_validate_exit_codes(capsys, spec_cues_only):
    assert main(["glossary", "validate", str(VALID)]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out

    assert main(["glossary", "validate", str(FIXTURES / "field_without_contract")]) == 1
    out, err = capsys.readouterr()
    assert "field_without_contract" in out and "DEMO.AGE" in out
    assert "error: 1 glossary error" in err and "Traceback" not in err

    assert main(["glossary", "validate", str(FIXTURES / "draft_translation")]) == 0  # warnings only

    assert main(["glossary", "validate", "/nonexistent"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith("error: ") and "Traceback" not in err


def test_cli_validate_defaults_to_bundled_and_json(capsys):
    assert main(["glossary", "validate"]) == 0
    assert str(bundled_glossary_dir()) in capsys.readouterr().out
    assert main(["glossary", "validate", "--json", str(FIXTURES / "bad_version")]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["code"] == "bad_version" and rows[0]["severity"] == "error"


def test_cli_diff_and_changelog(tmp_path, capsys):
    new = _variant(tmp_path, lambda p: _term(p, "DEMO.STOP").update(signal="clear"),
                   version=None)
    assert main(["glossary", "diff", str(VALID), str(new)]) == 1
    out, err = capsys.readouterr()
    assert "signal: critical_block → clear" in out
    assert "version_not_bumped" in err and "weakening_without_second_approver" in err
    assert main(["glossary", "diff", str(VALID), str(VALID)]) == 0
    out_file = tmp_path / "CHANGELOG.md"
    assert main(["glossary", "changelog", str(VALID), str(new), "--out", str(out_file)]) == 1
    assert "signal: critical_block → clear" in out_file.read_text(encoding="utf8")
    assert main(["glossary", "diff", str(VALID), "/nonexistent"]) == 1
    assert "Traceback" not in capsys.readouterr().err


def _bundled_with(tmp_path, edit):
    """A copy of the bundled glossaries (archives and drafts left out) and one with every version
    bumped and ``edit`` applied to mortgage's payload."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(bundled_glossary_dir(), old, ignore=shutil.ignore_patterns("archive", "drafts"))
    shutil.copytree(old, new)
    for path in new.glob("*.yaml"):
        payload = srsly.read_yaml(path)
        year, month, n = payload["version"].split(".")
        payload["version"] = f"{year}.{month}.{int(n) + 1}"
        if path.stem == "mortgage":
            edit(payload)
        srsly.write_yaml(path, payload)
    return old, new


@pytest.mark.parametrize("word", ["over", "not", "clear to close"])
def test_diff_and_changelog_refuse_a_version_the_loader_refuses(tmp_path, capsys, word):
    """A neutral word the loader refuses (never neutral, a cue, a critical phrase) was shown
    as an approved weakening with exit 0: the release check passed what cannot load."""
    old, new = _bundled_with(tmp_path, lambda p: p["vocabulary"]["neutral"]["domain"]["en"].append(word))
    with pytest.raises(GlossaryError):
        load_glossaries(new)
    assert main(["glossary", "diff", str(old), str(new)]) == 1
    assert main(["glossary", "changelog", str(old), str(new)]) == 1
    err = capsys.readouterr().err
    assert repr(word) in err and "Traceback" not in err


def test_what_the_diff_says_itself_is_not_said_twice(tmp_path):
    old, new = _bundled_with(tmp_path, lambda p: p.update(version="2026.x"))
    codes = [f.code for f in diff(old, new).findings if f.domain == "mortgage"]
    assert codes.count("bad_version") == 1


def test_an_unreadable_domain_is_not_reported_as_removed(tmp_path, capsys):
    old, new = _bundled_with(tmp_path, lambda p: None)
    (new / "mortgage.yaml").write_text("domain: mortgage\nversion: [unclosed\nowner: x\n", encoding="utf8")
    report = diff(old, new)
    assert "mortgage" not in report.domains and not report.weakenings
    (finding,) = [f for f in report.findings if f.domain == "mortgage"]
    # the file and where in it the parser stopped, as `assess` says it
    assert finding.code == "unreadable" and f"{new / 'mortgage.yaml'}, line 3, column " in finding.message


def test_cli_replay_without_api_fails_cleanly(monkeypatch, cases_file, capsys):
    monkeypatch.setitem(sys.modules, "semgap_spacy.api", None)  # import raises ImportError
    assert main(["glossary", "replay", "--cases", str(cases_file), "--version",
                 "2026.11.0"]) == 1
    err = capsys.readouterr().err
    assert "replay needs semgap_spacy.api" in err and "Traceback" not in err


def test_cli_replay_with_api(monkeypatch, cases_file, capsys):
    fake = types.ModuleType("semgap_spacy.api")
    decide = _fake_decide([])
    fake.build_pipeline = lambda glossary_dir=None: glossary_dir
    fake.decide_cases = lambda nlp, cases: iter(decide(cases, nlp))
    monkeypatch.setitem(sys.modules, "semgap_spacy.api", fake)
    assert main(["glossary", "replay", "--cases", str(cases_file), "--version", "2026.11.0",
                 "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["cases"] == 3 and payload["archived_version"] == "2026.11.0"
    assert main(["glossary", "replay", "--cases", str(cases_file), "--version", "1999.1.0"]) == 1
    assert "not archived" in capsys.readouterr().err


def test_the_replay_report_escapes_what_the_cases_give():
    """A case id with a line break and an escape sequence forged a "block → proceed" row and hid
    the real one; the CLI writes each value as ``field`` does."""
    from semgap_spacy.glossary.governance.case_replay import ReplayReport, ReplayRow
    from semgap_spacy.ops.cli_support import field

    forged = "x\n  c-999            block → proceed\x1b[8m"
    report = ReplayReport("2026.11.0", "old", "new",
                          [ReplayRow(0, forged, "escalate", "proceed", ["unexplained_content"], ["clearance"]),
                           ReplayRow(1, None, "escalate", "proceed")])
    text = report.to_text(cell=field)
    assert len(text.splitlines()) == 5 and "\x1b" not in text
    assert "x\\x0a" in text and "\\x1b[8m" in text and "#2 " in text


def test_finding_is_printable():
    f = Finding("bad_version", "error", "demo", None, "version 'x' is not YYYY.MM.N")
    assert "bad_version" in str(f) and f.to_dict()["term"] is None


def test_a_folder_is_compared_with_a_folder_and_a_file_with_a_file(tmp_path, capsys):
    old, new = _bundled_with(tmp_path, lambda p: None)
    with pytest.raises(GovernanceError, match="compare a folder with a folder, or a file with a file"):
        diff(old, new / "mortgage.yaml")
    assert main(["glossary", "diff", str(old), str(new / "mortgage.yaml")]) == 1
    assert "compare a folder with a folder" in capsys.readouterr().err
    assert diff(old / "mortgage.yaml", new / "mortgage.yaml").ok


def test_versions_are_listed_in_version_order(tmp_path):
    from semgap_spacy.glossary.governance.sources import archive_dir
    for version in ("2026.12.10", "2026.12.2", "2026.9.0"):
        (tmp_path / version).mkdir()
    with pytest.raises(GovernanceError, match=r"archived: 2026\.9\.0, 2026\.12\.2, 2026\.12\.10\)"):
        archive_dir("2026.12.3", tmp_path)


def test_a_changelog_of_domains_at_different_versions_says_so(tmp_path):
    old, new = _bundled_with(tmp_path, lambda payload: None)
    payload = srsly.read_yaml(new / "pharma_qa.yaml")
    payload["version"] = "2026.12.1"  # left at the old version
    srsly.write_yaml(new / "pharma_qa.yaml", payload)
    title = changelog(old, new).splitlines()[0]
    assert title == "# Glossary changelog: 2026.12.1 → 2026.12.1, 2026.12.2 (domains at different versions)"

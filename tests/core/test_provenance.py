"""Provenance that can be checked alone: each tamper of a logged decision fails verification."""
import copy
import json
import os
import subprocess
import sys

import pytest

from semgap_spacy import decide_cases
from semgap_spacy.core.provenance import expected_outcome, sign_decision, verify_evidence

KEY = b"s" * 32
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLOCKED = ("mortgage", "Clear to close, but an unreleased lien is noted")
ESCALATED = ("pharma_qa", "Batch released, OOS noted on assay")


@pytest.fixture(scope="module")
def made(nlp):
    """(text, decision) for a block and an escalate straight from the pipeline."""
    out = {}
    for name, (domain, text) in (("block", BLOCKED), ("escalate", ESCALATED)):
        out[name] = (text, list(decide_cases(nlp, [{"id": name, "domain": domain, "text": text}]))[0])
    assert out["block"][1]["decision"] == "block" and out["escalate"][1]["decision"] == "escalate"
    return out


def test_untouched_decisions_verify(made):
    for text, decision in made.values():
        assert verify_evidence(decision, text) == []
        assert verify_evidence(sign_decision(decision, KEY), text, key=KEY) == []


def test_hash_removed_and_text_extended(made):
    text, decision = made["block"]
    forged = dict(decision)
    del forged["text_sha256"]
    problems = verify_evidence(forged, text + " Lien released.")
    assert any("no text_sha256" in p for p in problems)
    assert any("no text_sha256" in p for p in verify_evidence(dict(decision, text_sha256=None), text))


def test_spans_removed(made):
    text, decision = made["block"]
    forged = copy.deepcopy(decision)
    for reason in forged["reasons"]:
        for k in ("start_char", "end_char"):
            reason.pop(k, None)
    problems = verify_evidence(forged, text)
    assert any("lost its span" in p for p in problems)
    stripped = copy.deepcopy(decision)
    for reason in stripped["reasons"]:
        for k in ("start_char", "end_char", "evidence", "term_id"):
            reason.pop(k, None)
    assert any("lost its span" in p for p in verify_evidence(stripped, text))


def _critical(decision):
    return next(r for r in decision["reasons"] if r["code"] == "critical_term")


def test_span_moved_with_evidence_rewritten(made):
    text, decision = made["block"]
    forged = copy.deepcopy(decision)
    reason = _critical(forged)
    start = text.index("noted")
    reason["start_char"], reason["end_char"] = start, start + len("noted")
    reason["evidence"] = "noted"
    assert reason["evidence"] == text[reason["start_char"]:reason["end_char"]]
    problems = verify_evidence(forged, text)
    assert any("does not quote" in p for p in problems)


def test_span_moved_into_a_word(made):
    text, decision = made["block"]
    forged = copy.deepcopy(decision)
    reason = _critical(forged)
    reason["start_char"] += 2
    reason["evidence"] = text[reason["start_char"]:reason["end_char"]]
    assert any("inside a word" in p for p in verify_evidence(forged, text))


def test_span_moved_only(made):
    text, decision = made["block"]
    forged = copy.deepcopy(decision)
    _critical(forged)["start_char"] = 0
    assert any("not 'unreleased lien'" in p for p in verify_evidence(forged, text))


def test_careful_forgery_of_a_span_is_caught_only_by_the_signature(made):
    """Moved to other whole words with evidence and message rewritten: self-consistent,
    so only the key can tell (the documented limit of text + spans)."""
    text, decision = made["block"]
    signed = sign_decision(decision, KEY)
    forged = copy.deepcopy(signed)
    reason = _critical(forged)
    old = reason["evidence"]
    start = text.index("noted")
    reason.update(start_char=start, end_char=start + 5, evidence="noted",
                  message=reason["message"].replace(repr(old), repr("noted")))
    assert verify_evidence(forged, text) == []
    assert any("signature does not match" in p for p in verify_evidence(forged, text, key=KEY))


@pytest.mark.parametrize("which", ["block", "escalate"])
def test_outcome_flipped_to_proceed(made, which):
    text, decision = made[which]
    forged = dict(decision, decision="proceed")
    assert any("says 'proceed', but its reasons give" in p for p in verify_evidence(forged, text))


def test_reason_outcome_flipped(made):
    text, decision = made["block"]
    forged = copy.deepcopy(decision)
    _critical(forged)["outcome"] = "proceed"
    assert any("its code implies 'block'" in p for p in verify_evidence(forged, text))


def test_critical_reason_dropped_and_outcome_lowered_needs_the_signature(made):
    text, decision = made["block"]
    signed = sign_decision(decision, KEY)
    forged = copy.deepcopy(signed)
    forged["reasons"] = [r for r in forged["reasons"] if r["code"] != "critical_term"]
    forged["decision"] = expected_outcome(forged["reasons"])
    assert forged["decision"] == "proceed"
    assert verify_evidence(forged, text) == []  # self-consistent: nothing in text + spans shows it
    assert verify_evidence(forged, text, key=KEY) != []


def test_outcome_rules():
    assert expected_outcome([]) == "escalate"
    assert expected_outcome([{"code": "reading_in_contract"}]) == "proceed"
    assert expected_outcome([{"code": "clearance"}, {"code": "made_up"}]) == "block"
    assert expected_outcome([{"code": "clearance"}, "junk"]) == "block"
    assert expected_outcome("junk") == "block"


@pytest.mark.parametrize("decision,text,expected", [
    (["not", "a", "dict"], "x", "must be a JSON object, not list"),
    (None, "x", "must be a JSON object, not NoneType"),
    ({"decision": "escalate", "reasons": "junk", "text_sha256": "0" * 64}, "x", "reasons must be a list"),
    ({"decision": "escalate", "reasons": [3, None], "text_sha256": "0" * 64}, "x", "reason 0 must be a JSON object"),
    ({"decision": "escalate", "reasons": [{"code": 5}]}, "x", "has no code"),
    ({"decision": "maybe", "reasons": []}, "x", "is not one of"),
    ({"decision": "escalate", "reasons": [{"code": "clearance", "outcome": "proceed", "message": "'x'",
                                           "start_char": "0", "end_char": 1, "evidence": "x"}]},
     "x", "outside the text"),
    ({"decision": "block", "reasons": []}, 7, "text must be a string"),
])
def test_bad_input_is_a_problem_never_an_exception(decision, text, expected):
    problems = verify_evidence(decision, text)
    assert any(expected in p for p in problems), problems


def test_signature_required_when_a_key_is_given(made):
    text, decision = made["escalate"]
    assert any("not signed" in p for p in verify_evidence(decision, text, key=KEY))
    assert any("signature does not match" in p
               for p in verify_evidence(sign_decision(decision, b"o" * 32), text, key=KEY))


def test_old_import_still_works():
    from semgap_spacy.pipes.decision import verify_evidence as old
    assert old is verify_evidence


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "semgap_spacy", *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT, **(env or {})), cwd=ROOT, timeout=180)


def test_verify_cli_reports_each_tampered_line(tmp_path):
    cases = [{"id": "a", "domain": BLOCKED[0], "text": BLOCKED[1]},
             {"id": "b", "domain": ESCALATED[0], "text": ESCALATED[1]},
             {"id": "c", "domain": "mortgage", "text": "Clear to close"}]
    cpath, dpath, spath = tmp_path / "c.jsonl", tmp_path / "d.jsonl", tmp_path / "s.jsonl"
    cpath.write_text("".join(json.dumps(c) + "\n" for c in cases) + "not json\n", encoding="utf-8")
    assert cli("assess", "--cases", str(cpath), "--out", str(dpath)).returncode == 0
    clean = cli("verify", "--decisions", str(dpath), "--cases", str(cpath))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "checked 4 decisions: 4 ok" in clean.stdout

    env = {"DECISION_KEY": KEY.decode()}
    assert cli("sign", "--decisions", str(dpath), "--out", str(spath), "--key-env", "DECISION_KEY",
               env=env).returncode == 0
    signed = [json.loads(line) for line in spath.read_text(encoding="utf-8").splitlines()]
    signed[0]["decision"] = "proceed"
    del signed[1]["text_sha256"]
    lines = [json.dumps(d) for d in signed]
    lines.append('{"id": "c", "decision": "escalate", "decision": "proceed", "reasons": []}')
    lines.append("[1, 2]")
    fpath = tmp_path / "forged.jsonl"
    fpath.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = cli("verify", "--decisions", str(fpath), "--cases", str(cpath), "--key-env", "DECISION_KEY", env=env)
    assert out.returncode == 1
    assert "forged.jsonl:1 (id a): the decision says 'proceed'" in out.stdout
    assert "forged.jsonl:2 (id b): the decision has no text_sha256" in out.stdout
    assert "forged.jsonl:5" in out.stdout and "appears twice" in out.stdout
    assert "forged.jsonl:6 (id None): the decision must be a JSON object" in out.stdout
    assert "4 ok" not in out.stdout and "Traceback" not in out.stderr
    nokey = cli("verify", "--decisions", str(fpath), "--cases", str(cpath), "--key-env", "UNSET_VARIABLE")
    assert nokey.returncode == 1 and "UNSET_VARIABLE is not set" in nokey.stderr


def test_quoted_words_are_checked_against_their_spans():
    """A reviewer teaches the words an unexplained_content reason quotes: words the text does
    not hold at ``word_spans`` would become drafts of something no case says."""
    from semgap_spacy import build_pipeline

    text = "Clear to close. Scans uploaded to the portal."
    decided = next(decide_cases(build_pipeline(), [{"id": "c", "domain": "mortgage", "text": text}]))
    assert verify_evidence(decided, text) == []
    forged = copy.deepcopy(decided)
    reason = next(r for r in forged["reasons"] if r["code"] == "unexplained_content")
    reason["words"] = ["rejected"]
    assert any("are not the text at word_spans" in p for p in verify_evidence(forged, text))
    reason["words"], reason["word_spans"] = ["Scans"], [[0, 999]]
    assert any("word_spans must be" in p for p in verify_evidence(forged, text))

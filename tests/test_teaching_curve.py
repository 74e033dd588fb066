"""The simulated reviewer of ``scripts.teaching_curve``: it marks only harmless roles, names as names."""
import shutil
from collections import Counter

from scripts import teaching_curve as tc
from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.glossary import bundled_glossary_dir
from semgap_spacy.glossary.drafts import load_drafts
from semgap_spacy.ops.review_queue import ReviewQueue

TEXT = "Yuki Tanabe: clear to close. Scans uploaded to the portal; escrow shortfall unresolved."


def _token(text, role):
    return {"text": text, "role": role}


CASE = {"id": "t-1", "domain": "mortgage", "text": TEXT, "expected": "escalate", "category": "control",
        "facts": {"harmless": True, "tokens": [
            _token("Yuki", "name"), _token("Tanabe", "name"), _token(":", "template"),
            *[_token(w, "term") for w in ("clear", "to", "close")], _token(".", "template"),
            *[_token(w, "filler") for w in ("Scans", "uploaded", "to", "the", "portal")], _token(";", "filler"),
            *[_token(w, "problem") for w in ("escrow", "shortfall", "unresolved")], _token(".", "problem")]}}


def test_the_reviewer_marks_names_and_neutral_words_never_a_problem_word(tmp_path):
    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    (decision,) = decide_cases(build_pipeline(str(glossaries)), [{k: CASE[k] for k in ("id", "domain", "text")}])
    clauses = [r for r in decision["reasons"] if r["code"] == "unexplained_content"]
    assert [r["words"] for r in clauses] == [["Yuki", "Tanabe"], ["Scans", "uploaded", "portal"],
                                             ["shortfall", "unresolved"]]
    stats, refused = Counter(), Counter()
    with ReviewQueue(tmp_path / "q.sqlite3") as queue:
        seq = queue.enqueue(decision, TEXT).seq
        for number, reason in enumerate(clauses, 1):
            tc.review_clause(queue, seq, number, reason, CASE, glossaries, stats, refused)
    drafts = {(d.kind, d.text) for d in load_drafts(glossaries, "mortgage").drafts}
    assert drafts == {("name", "Yuki Tanabe"), ("neutral", "scans"), ("neutral", "uploaded"), ("neutral", "portal")}
    assert stats["words left unmarked (not a harmless role)"] == 2 and not refused


def test_dev_halves_counts_a_case_reached_when_its_words_were_taught_on_the_other_half():
    def case(i, harmless=True):
        return {"id": i, "domain": "mortgage", "facts": {"harmless": harmless}}

    def escalated(*words):
        return {"decision": "escalate", "reasons": [{"code": "unexplained_content", "words": list(words)}]}

    dev = [case(i) for i in range(4)]
    decisions = [escalated("portal")] * 4
    assert tc.dev_halves(dev, decisions, seeds=2)["reached"]["per domain, harmless cases"] == 1.0
    decisions = [escalated(f"word{i}") for i in range(4)]
    assert tc.dev_halves(dev, decisions, seeds=2)["reached"]["shared, every case"] == 0.0

"""The simulated reviewer of ``scripts.teaching_curve``: it marks only harmless roles, names as names."""
import shutil
from collections import Counter

from heldout import coverage, load_cases
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


def _review(tmp_path, case, **kwargs):
    """Decide ``case`` on a copy of the bundle, review each clause as the script does; (drafts by file, stats)."""
    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    (decision,) = decide_cases(build_pipeline(str(glossaries)), [{k: case[k] for k in ("id", "domain", "text")}])
    clauses = [r for r in decision["reasons"] if r["code"] == "unexplained_content"]
    stats, refused = Counter(), Counter()
    with ReviewQueue(tmp_path / "q.sqlite3") as queue:
        seq = queue.enqueue(decision, case["text"]).seq
        for number, reason in enumerate(clauses, 1):
            tc.review_clause(queue, seq, number, reason, case, glossaries, stats, refused, **kwargs)
        choices = [r["choice"] for r in queue.clause_reviews(seq)]
    drafts = {name: {(d.kind, d.text) for d in load_drafts(glossaries, name).drafts} for name in ("mortgage", "all")}
    return drafts, stats, refused, choices


def test_per_clause_a_problem_clause_is_marked_problem_and_scope_all_drafts_for_every_domain(tmp_path):
    drafts, stats, refused, choices = _review(tmp_path, CASE, per_clause=True, scope="all")
    assert drafts == {"mortgage": set(), "all": {("name", "Yuki Tanabe"), ("neutral", "scans"),
                                                 ("neutral", "uploaded"), ("neutral", "portal")}}
    assert choices == ["name", "neutral", "neutral", "neutral", "problem"] and not refused
    assert stats["problem choices"] == 1 and stats["words left unmarked (not a harmless role)"] == 0


def test_per_clause_a_clause_with_a_word_of_another_role_is_left_open(tmp_path):
    case = {**CASE, "facts": {**CASE["facts"], "tokens": [
        {**t, "role": "quantity"} if t["text"] == "uploaded" else t for t in CASE["facts"]["tokens"]]}}
    drafts, stats, _, choices = _review(tmp_path, case, per_clause=True)
    assert drafts["mortgage"] == {("name", "Yuki Tanabe")} and choices == ["name", "problem"]
    assert stats["clauses left open (a word of another role)"] == 1


def test_unsafe_is_counted_against_the_oracle_given_the_same_taught_words():
    dev = load_cases("v2/dev")
    taught = next(c for c in dev if c["facts"].get("harmless") and c["expected"] == "escalate")
    other = next(c for c in dev if not c["facts"].get("harmless") and c["category"] == "unlisted_problem")
    words = coverage.unexplained_words(taught["facts"])
    names = {taught["domain"]: [w["text"] for w in words if w["role"] == "name"]}
    neutral = {taught["domain"]: [w["text"] for w in words if w["role"] != "name"]}
    lists = coverage.with_taught(coverage.lists(), neutral, names)
    decisions = [{"decision": "proceed", "reasons": []}] * 2
    bundled = tc._summary([taught, other], decisions)
    assert (bundled["unsafe_proceeds"], bundled["proceeds_not_harmless"]) == (2, 1)
    relabelled = tc._summary([taught, other], decisions, lists)
    assert (relabelled["unsafe_proceeds"], relabelled["proceeds_not_harmless"]) == (1, 1)
    assert relabelled["unsafe_by_category"] == {"unlisted_problem": 1}
    assert relabelled["oracle_proceeds"] == relabelled["oracle_proceeds_that_proceed"] == 1


def test_never_neutral_filler_is_listed_as_unteachable():
    case = {"facts": {"harmless": True, "domain": "mortgage", "tokens": [
        *[_token(w, "term") for w in ("clear", "to", "close")], _token(".", "template"),
        *[_token(w, "filler") for w in ("Borrower", "prefers", "email", "over", "phone")], _token(".", "filler")]}}
    found = tc.unteachable({"dev": [case, {"facts": {"harmless": False}}]})["dev"]
    assert found == {"harmless_cases_holding_one": 1, "words": {"over": {"occurrences": 1, "cases": 1}}}

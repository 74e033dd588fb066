"""The teaching loop of spec §4.2 end to end, on a real SQLite queue file and the CLI as a user runs it.

A case escalates with ``unexplained_content``; a reviewer marks the clause
*neutral* (``queue teach``, a subprocess); the drafts exist and change no
decision; the reviewer cannot approve them, a second person can (``glossary
approve``, a subprocess: the version bumps); ``glossary replay`` then shows
this case, and only the cases whose every unexplained word was taught,
turning to proceed. Refusals run the CLI's ``main`` in process.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.glossary import bundled_glossary_dir
from semgap_spacy.glossary.drafts import load_drafts
from semgap_spacy.glossary.governance import diff
from semgap_spacy.ops.glossary_cli import main as glossary_main
from semgap_spacy.ops.queue_cli import main as queue_main
from semgap_spacy.ops.review_queue import QueueError, ReviewQueue, text_sha256

ROOT = Path(__file__).resolve().parents[2]
CASES = [
    {"id": "c-001", "domain": "mortgage", "text": "Clear to close. Scans uploaded to the portal."},
    {"id": "c-002", "domain": "mortgage", "text": "Clear to close; deferred interest will be added to the principal."},
    {"id": "c-003", "domain": "mortgage", "text": "Clear to close, docs uploaded to the portal."},
    {"id": "c-004", "domain": "mortgage", "text": "Clear to close. Portal rejected the wire."},
    {"id": "c-005", "domain": "mortgage", "text": "Clear to close."},
    {"id": "c-006", "domain": "mortgage", "text": "Title defect; scans uploaded to the portal."},
    {"id": "c-007", "domain": "pharma_qa", "text": "Batch released. Scans uploaded to the portal."},
]


def _cli(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SEMGAP_QUEUE_ROSTER", None)
    return subprocess.run([sys.executable, "-m", "semgap_spacy", *args], cwd=str(cwd), env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=300)


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _decide(glossaries):
    return list(decide_cases(build_pipeline(str(glossaries)), [dict(c) for c in CASES]))


@pytest.fixture
def workdir(tmp_path):
    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    return tmp_path


def test_teaching_loop_end_to_end(workdir, capsys):
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    before = _decide(glossaries)
    assert [d["decision"] for d in before] == ["escalate"] * 4 + ["proceed", "block", "escalate"]
    assert [r["code"] for r in before[0]["reasons"]] == ["unexplained_content", "clearance"]
    (workdir / "decisions.jsonl").write_text("".join(json.dumps(d) + "\n" for d in before), encoding="utf-8")

    with ReviewQueue(db) as queue:
        entry = queue.enqueue(before[0], CASES[0]["text"]).seq
        for case, decision in zip(CASES[1:], before[1:]):
            if decision["decision"] != "proceed":
                queue.enqueue(decision, case["text"])

    # the reviewer marks clause 1 of c-001 neutral: drafts, and not one decision moves
    taught = _cli("queue", "teach", str(entry), "--clause", "1", "--choice", "neutral",
                  "--reviewer", "Ruth Lindqvist", "--db", db.name, "--glossaries", "glossaries", cwd=workdir)
    assert taught.returncode == 0, taught.stderr
    assert "marked neutral by Ruth Lindqvist" in taught.stdout and "decide nothing" in taught.stdout
    drafts = load_drafts(glossaries, "mortgage").open()
    assert [d.text for d in drafts] == ["scans", "uploaded", "portal"]
    for draft in drafts:
        (evidence,) = draft.evidence
        assert evidence.reviewer == "Ruth Lindqvist" and evidence.clause == "Scans uploaded to the portal"
        assert evidence.text_sha256 == text_sha256(CASES[0]["text"]) and evidence.case_id == "c-001"
    assert _decide(glossaries) == before  # a draft changes no decision, nor the glossary hash
    with ReviewQueue(db) as queue:
        (review,) = queue.clause_reviews(entry)
        assert review["choice"] == "neutral" and review["drafts"] == [d.id for d in drafts]
        assert queue.verify().ok

    # bad input: a clear error, and nothing changes in the queue or the glossaries
    with ReviewQueue(db) as queue:
        head = queue.head()
    files = _snapshot(glossaries)
    for main, args, needle in [
        (queue_main, ("queue", "teach", str(entry), "--choice", "nuetral", "--reviewer", "Ruth Lindqvist"),
         "unknown reviewer option 'nuetral'"),
        (queue_main, ("queue", "teach", str(entry), "--choice", "means_term", "--term", "MTG.NOPE",
                      "--reviewer", "Ruth Lindqvist"), "unknown term id 'MTG.NOPE'"),
        (glossary_main, ("glossary", "approve", "--all", "--approver", "Ruth Lindqvist"),
         "a draft needs a second person"),
    ]:
        where = ("--db", str(db), "--glossaries", str(glossaries)) if args[0] == "queue" \
            else ("--glossaries", str(glossaries))
        assert main([*args, *where]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: ") and needle in err and "Traceback" not in err, err
    with ReviewQueue(db) as queue:
        assert queue.head() == head and queue.verify().ok
    assert _snapshot(glossaries) == files

    # a second person approves: the version bumps and the diff shows the weakenings as approved
    approved = _cli("glossary", "approve", "--all", "--approver", "Marcus Feld", "--glossaries", "glossaries",
                    cwd=workdir)
    assert approved.returncode == 0, approved.stderr
    assert "glossary 2026.12.1 -> 2026.12.2" in approved.stdout
    report = diff(glossaries / "archive" / "2026.12.1", glossaries)
    assert report.ok and {w.kind for w in report.weakenings} == {"neutral_added"}
    assert all(w.accepted and w.second_approver == "Marcus Feld" for w in report.weakenings)

    # replay: c-001 and c-003 (every unexplained word taught) turn to proceed, nothing else moves
    assert glossary_main(["glossary", "replay", "--cases", str(workdir / "cases.jsonl"), "--version", "2026.12.1",
                          "--glossaries", str(glossaries), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["id"], r["old"], r["new"]) for r in rows if r["changed"]] == [
        ("c-001", "escalate", "proceed"), ("c-003", "escalate", "proceed")]
    assert [r["old"] for r in rows] == [d["decision"] for d in before]
    after = _decide(glossaries)
    assert after[0]["glossary_version"] == "2026.12.2" and after[0]["decision"] == "proceed"
    assert [r["code"] for r in after[3]["reasons"]] == ["unexplained_content", "clearance"]
    assert after[3]["reasons"][0]["words"] == ["rejected"]  # "Portal" is taught; "rejected" still escalates


def test_problem_keeps_the_case_escalated_with_the_note(workdir):
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    decision = _decide(glossaries)[1]
    with ReviewQueue(db) as queue:
        entry = queue.enqueue(decision, CASES[1]["text"]).seq
        files = _snapshot(glossaries)
        result = queue.teach(entry, "Tobias Wren", 1, "problem", note="deferred interest is not allowed",
                             glossary_dir=glossaries)
        assert result.drafts == () and result.words == ("deferred", "interest", "added", "principal")
        (review,) = queue.clause_reviews(entry)
        assert review["note"] == "deferred interest is not allowed"
        assert queue.list()[0]["status"] == "open"  # still escalated, waiting for a resolution
    # no glossary file and no draft changes; the objection waits for any draft of those words
    assert {k: v for k, v in _snapshot(glossaries).items() if k.parts[0] != "drafts"} == files
    mine = load_drafts(glossaries, "mortgage")
    assert mine.drafts == [] and [(o.reviewer, o.words, o.note) for o in mine.objections] == [
        ("Tobias Wren", ["deferred", "interest", "added", "principal"], "deferred interest is not allowed")]


def test_scope_all_teaches_every_domain_through_the_cli(workdir, capsys):
    """``queue teach --scope all``: one draft for every domain, approved once; a pharma case moves too."""
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    before = _decide(glossaries)
    with ReviewQueue(db) as queue:
        entry = queue.enqueue(before[0], CASES[0]["text"]).seq
        head = queue.head()
    where = ["--reviewer", "Ruth Lindqvist", "--db", str(db), "--glossaries", str(glossaries)]
    files = _snapshot(glossaries)
    for args, needle in [(("--choice", "neutral", "--scope", "every"), "unknown scope 'every': choose domain"),
                         (("--choice", "means_term", "--term", "MTG.CTC", "--scope", "all"),
                          "scope all is for neutral and name only")]:
        assert queue_main(["queue", "teach", str(entry), *args, *where]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: teaching refused: ") and needle in err, err
    with ReviewQueue(db) as queue:
        assert queue.head() == head
    assert _snapshot(glossaries) == files

    assert queue_main(["queue", "teach", str(entry), "--choice", "neutral", "--scope", "all", *where]) == 0
    assert "drafts all/1, all/2, all/3 for every domain" in capsys.readouterr().out
    drafts = load_drafts(glossaries, "all").open()
    assert [(d.text, d.scope) for d in drafts] == [("scans", "all"), ("uploaded", "all"), ("portal", "all")]
    assert {(e.scope, e.domain, e.case_id) for d in drafts for e in d.evidence} == {("all", "mortgage", "c-001")}
    assert load_drafts(glossaries, "mortgage").drafts == []
    with ReviewQueue(db) as queue:
        (review,) = queue.clause_reviews(entry)
        assert review["scope"] == "all" and review["drafts"] == ["all/1", "all/2", "all/3"]
    assert queue_main(["queue", "clauses", str(entry), "--db", str(db)]) == 0
    assert "-> neutral, every domain by Ruth Lindqvist" in capsys.readouterr().out
    assert _decide(glossaries) == before

    assert glossary_main(["glossary", "approve", "--all", "--approver", "Marcus Feld",
                          "--glossaries", str(glossaries)]) == 0
    out = capsys.readouterr().out
    assert "approved all/1: neutral word 'scans' (en, every domain)" in out
    assert "(aviation_maintenance, medical_logistics, mortgage, pharma_qa)" in out
    assert glossary_main(["glossary", "replay", "--cases", str(workdir / "cases.jsonl"), "--version", "2026.12.1",
                          "--glossaries", str(glossaries), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["id"], r["new"]) for r in rows if r["changed"]] == [
        ("c-001", "proceed"), ("c-003", "proceed"), ("c-007", "proceed")]


def test_a_name_taught_with_its_spellings_is_known_as_chat_writes_it(workdir, capsys):
    """``queue teach --choice name --spellings``: one draft per casing; approved, the name is known
    in capitals and in lower case too, while a name taught without them stays case-sensitive."""
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    nlp = build_pipeline(str(glossaries))
    first = {"id": "n-1", "domain": "mortgage", "text": "Clear to close, says Marek Nowicki."}
    later = [{"id": "n-2", "domain": "mortgage", "text": "Clear to close, says MAREK NOWICKI."},
             {"id": "n-3", "domain": "mortgage", "text": "Clear to close, says marek nowicki."},
             {"id": "n-4", "domain": "mortgage", "text": "Clear to close, says Marek."}]
    (decision,) = decide_cases(nlp, [dict(first)])
    assert decision["decision"] == "escalate"
    with ReviewQueue(db) as queue:
        entry = queue.enqueue(decision, first["text"]).seq
    where = ["--reviewer", "Ruth Lindqvist", "--db", str(db), "--glossaries", str(glossaries)]
    assert queue_main(["queue", "teach", str(entry), "--choice", "neutral", "--spellings", *where]) == 1
    assert "spellings (true or false) are for name only" in capsys.readouterr().err
    assert load_drafts(glossaries, "mortgage").drafts == []

    assert queue_main(["queue", "teach", str(entry), "--choice", "name", "--spellings", *where]) == 0
    capsys.readouterr()
    assert [d.text for d in load_drafts(glossaries, "mortgage").open()] == [
        "Marek Nowicki", "MAREK NOWICKI", "marek nowicki"]
    assert glossary_main(["glossary", "approve", "--all", "--approver", "Marcus Feld",
                          "--glossaries", str(glossaries)]) == 0
    capsys.readouterr()
    taught = build_pipeline(str(glossaries))
    assert [d["decision"] for d in decide_cases(taught, [dict(first), *map(dict, later)])] == [
        "proceed", "proceed", "proceed", "escalate"]  # "Marek" alone was never taught


def test_a_name_taught_without_spellings_stays_case_sensitive(workdir):
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    cases = [{"id": "n-1", "domain": "mortgage", "text": "Clear to close, says Marek Nowicki."},
             {"id": "n-2", "domain": "mortgage", "text": "Clear to close, says MAREK NOWICKI."}]
    decisions = list(decide_cases(build_pipeline(str(glossaries)), [dict(c) for c in cases]))
    with ReviewQueue(db) as queue:
        entry = queue.enqueue(decisions[0], cases[0]["text"]).seq
        queue.teach(entry, "Ruth Lindqvist", 1, "name", glossary_dir=glossaries)
    assert [d.text for d in load_drafts(glossaries, "mortgage").open()] == ["Marek Nowicki"]
    assert glossary_main(["glossary", "approve", "--all", "--approver", "Marcus Feld",
                          "--glossaries", str(glossaries)]) == 0
    taught = build_pipeline(str(glossaries))
    assert [d["decision"] for d in decide_cases(taught, [dict(c) for c in cases])] == ["proceed", "escalate"]


def test_a_domain_other_than_the_decisions_is_refused(workdir, capsys):
    """``--domain`` is for a decision that names none: teaching a mortgage case's word as a
    pharma term would draft evidence that no pharma case gave."""
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    with ReviewQueue(db) as queue:
        entry = queue.enqueue(_decide(glossaries)[0], CASES[0]["text"]).seq
        head = queue.head()
    files = _snapshot(glossaries)
    where = ["--reviewer", "Ruth Lindqvist", "--db", str(db), "--glossaries", str(glossaries)]
    assert queue_main(["queue", "teach", str(entry), "--choice", "means_term", "--term", "PHA.RELEASED",
                       "--domain", "pharma_qa", *where]) == 1
    err = capsys.readouterr().err
    assert "the decision names its domain 'mortgage'" in err and "not 'pharma_qa'" in err, err
    with ReviewQueue(db) as queue:
        assert queue.head() == head
    assert _snapshot(glossaries) == files
    assert queue_main(["queue", "teach", str(entry), "--choice", "neutral", "--domain", "mortgage", *where]) == 0


def test_a_choice_refused_for_one_word_names_the_words_the_glossary_would_take(workdir):
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    text = "Clear to close. Scans still uploading to the portal."
    (decision,) = decide_cases(build_pipeline(str(glossaries)), [{"id": "s-1", "domain": "mortgage", "text": text}])
    with ReviewQueue(db) as queue:
        entry = queue.enqueue(decision, text).seq
        with pytest.raises(QueueError, match="'still' .* never-neutral .* would take the others alone: .*"
                                             "'scans', 'uploading', 'portal'"):
            queue.teach(entry, "Ruth Lindqvist", 1, "neutral", glossary_dir=glossaries)
        result = queue.teach(entry, "Ruth Lindqvist", 1, "neutral", words=["scans", "uploading", "portal"],
                             glossary_dir=glossaries)
    assert len(result.drafts) == 3


def test_a_phrase_taught_is_what_the_message_says_was_marked(workdir, capsys):
    """``--phrase "courier Yuki"`` was reported as the clause's words ("Yuki, Tanabe, way marked
    name"), while the one draft is the phrase."""
    glossaries, db = workdir / "glossaries", workdir / "queue.sqlite3"
    case = {"id": "p-1", "domain": "mortgage", "text": "Clear to close, says Marek Nowicki of Pinecrest."}
    (decision,) = decide_cases(build_pipeline(str(glossaries)), [dict(case)])
    with ReviewQueue(db) as queue:
        entry = queue.enqueue(decision, case["text"]).seq
    assert queue_main(["queue", "teach", str(entry), "--choice", "name", "--phrase", "Marek Nowicki",
                       "--reviewer", "Ruth Lindqvist", "--db", str(db), "--glossaries", str(glossaries)]) == 0
    out = capsys.readouterr().out
    assert ": Marek Nowicki marked name" in out and "Pinecrest" not in out
    assert [d.text for d in load_drafts(glossaries, "mortgage").open()] == ["Marek Nowicki"]

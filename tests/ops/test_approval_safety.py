"""An approval takes reviewed drafts and nothing else (spec §4.2).

Each test is a way a glossary could widen without the review it claims: an
edit made by hand riding along with approved drafts, an approver invented
in a roster file, a draft approved over another reviewer's *problem* mark,
a half-written approval, and two processes teaching into one glossary
folder at once. Real glossary folders, real SQLite queue files, real processes.
"""
import json
import multiprocessing
import shutil

import pytest

from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.glossary import bundled_glossary_dir
from semgap_spacy.glossary.drafts import load_drafts
from semgap_spacy.glossary.governance import approval as approval_module
from semgap_spacy.glossary.governance import diff
from semgap_spacy.glossary.governance.approval import ApprovalError
from semgap_spacy.ops.draft_evidence import approve
from semgap_spacy.glossary.roster import Roster
from semgap_spacy.ops.glossary_cli import main as glossary_main
from semgap_spacy.ops.review_queue import QueueError, ReviewQueue

CASES = [
    {"id": "c-001", "domain": "mortgage", "text": "Clear to close. Scans uploaded to the portal."},
    {"id": "c-002", "domain": "mortgage", "text": "Clear to close, scans uploaded."},
    {"id": "c-003", "domain": "mortgage", "text": "Clear to close. Docket filed."},
]


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def work(tmp_path):
    """A copy of the bundled glossaries and a queue holding the cases' escalations."""
    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    decisions = list(decide_cases(build_pipeline(str(glossaries)), [dict(c) for c in CASES]))
    assert [d["decision"] for d in decisions] == ["escalate"] * 3
    db = tmp_path / "queue.sqlite3"
    with ReviewQueue(db) as queue:
        seqs = [queue.enqueue(d, c["text"]).seq for d, c in zip(decisions, CASES)]
    return glossaries, db, seqs


def _teach(db, glossaries, seq, reviewer, choice, **kwargs):
    with ReviewQueue(db) as queue:
        return queue.teach(seq, reviewer, 1, choice, glossary_dir=glossaries, **kwargs)


def test_a_hand_edit_does_not_ride_along_with_an_approval(work):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral")
    path = glossaries / "mortgage.yaml"
    text = path.read_text(encoding="utf-8")
    assert "      en: [borrower," in text
    path.write_text(text.replace("      en: [borrower,", "      en: [rejected, borrower,", 1), encoding="utf-8")
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match=r"mortgage.yaml in .* differs from the archived version 2026.12.1"):
        approve(glossaries, "Marcus Feld")
    assert _snapshot(glossaries) == before
    # undone, the same approval goes through, and its diff holds the drafts only
    path.write_text(text, encoding="utf-8")
    approve(glossaries, "Marcus Feld")
    words = {w.detail.split('"')[1] for w in diff(glossaries / "archive" / "2026.12.1", glossaries).weakenings}
    assert words == {"scans", "uploaded", "portal"}


def test_a_hand_edit_with_its_own_version_bump_does_not_ride_along(work):
    """The editor also raised ``version:``: no archive of that version to compare with, so the
    files are compared with the newest archived one, versions aside."""
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral")
    originals = {path: path.read_text(encoding="utf-8") for path in glossaries.glob("*.yaml")}
    for path, text in originals.items():
        assert "version: 2026.12.1" in text
        edited = text.replace("version: 2026.12.1", "version: 2026.12.5", 1)
        if path.name == "mortgage.yaml":
            edited = edited.replace("      en: [borrower,", "      en: [rejected, borrower,", 1)
        path.write_text(edited, encoding="utf-8")
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match=r"mortgage.yaml in .* differs from the newest archived version "
                                            r"2026.12.1 .* names version 2026.12.5, which was never archived"):
        approve(glossaries, "Marcus Feld")
    assert _snapshot(glossaries) == before
    # the bump alone is no edit: the same approval goes through
    for path, text in originals.items():
        path.write_text(text.replace("version: 2026.12.1", "version: 2026.12.5", 1), encoding="utf-8")
    assert approve(glossaries, "Marcus Feld").old_version == "2026.12.5"


def test_a_roster_file_narrows_who_approves_and_adds_nobody(work, tmp_path, capsys):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral")
    roster = tmp_path / "roster.txt"
    roster.write_text("Ruth Lindqvist\nSock Puppet\n", encoding="utf-8")
    before = _snapshot(glossaries)
    assert glossary_main(["glossary", "approve", "--all", "--approver", "Sock Puppet", "--roster", str(roster),
                          "--glossaries", str(glossaries)]) == 1
    err = capsys.readouterr().err
    assert "not one of the governance people" in err and "can narrow who approves but not add anyone" in err
    # Marcus Feld approves the vocabulary, but a roster that leaves him out is obeyed
    with pytest.raises(ApprovalError, match="not a reviewer on the roster"):
        approve(glossaries, "Marcus Feld", roster=Roster.from_file(roster))
    assert _snapshot(glossaries) == before
    approve(glossaries, "Marcus Feld", roster=Roster(["Marcus Feld"], "test roster"))
    assert load_drafts(glossaries, "mortgage").open() == []


def test_a_problem_mark_holds_back_the_drafts_of_its_words(work, capsys):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral")   # scans, uploaded, portal
    _teach(db, glossaries, seqs[2], "Ruth Lindqvist", "neutral")   # docket, filed
    _teach(db, glossaries, seqs[0], "Tobias Wren", "problem", note="portal upload means originals were refused")
    ids = {d.text: d.id for d in load_drafts(glossaries, "mortgage").open()}
    assert glossary_main(["glossary", "drafts", "--glossaries", str(glossaries)]) == 0
    out = capsys.readouterr().out
    assert out.count("DISPUTED: Tobias Wren marked") == 3 and "portal upload means originals" in out
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match=rf"{ids['portal']} .* is disputed: Tobias Wren"):
        approve(glossaries, "Marcus Feld", [ids["portal"], ids["docket"]])
    assert _snapshot(glossaries) == before
    done = approve(glossaries, "Marcus Feld")    # every open draft: the disputed ones stay open
    assert sorted(d.text for d in done.drafts) == ["docket", "filed"]
    assert sorted(d.text for d, _ in done.held_back) == ["portal", "scans", "uploaded"]
    assert sorted(d.text for d in load_drafts(glossaries, "mortgage").open()) == ["portal", "scans", "uploaded"]


def test_a_problem_mark_reaches_other_clauses_only_for_words_it_names(work):
    glossaries, db, seqs = work
    # c-002's "scans" is drafted from another clause; the objection to c-001's clause does not reach it ...
    _teach(db, glossaries, seqs[1], "Ruth Lindqvist", "neutral", words=["scans"])
    _teach(db, glossaries, seqs[0], "Tobias Wren", "problem", note="not here")
    (draft,) = load_drafts(glossaries, "mortgage").open()
    assert draft.text == "scans" and not approval_module.objections_to(glossaries, "mortgage", draft)
    # ... until the reviewer names the word: then it is a problem wherever it is drafted
    _teach(db, glossaries, seqs[0], "Tobias Wren", "problem", words=["Scans"], note="scans are never enough")
    (objection,) = approval_module.objections_to(glossaries, "mortgage", draft)
    assert objection.words_named and objection.note == "scans are never enough"
    # the reviewer's later choice replaced the first mark for "Scans"; it stands for the other words
    assert [o.words for o in load_drafts(glossaries, "mortgage").objections] == [["uploaded", "portal"], ["Scans"]]
    with pytest.raises(ApprovalError, match="every open draft is disputed"):
        approve(glossaries, "Marcus Feld")
    # the same reviewer's choice about other words of the clause leaves the mark on "Scans" standing ...
    assert _teach(db, glossaries, seqs[0], "Tobias Wren", "neutral", words=["portal"]).withdrawn == ("portal",)
    assert [o.words for o in load_drafts(glossaries, "mortgage").objections] == [["uploaded"], ["Scans"]]
    # ... and teaching its words another way withdraws it, and says so
    assert _teach(db, glossaries, seqs[0], "Tobias Wren", "neutral", words=["Scans"]).withdrawn == ("Scans",)
    assert [o.words for o in load_drafts(glossaries, "mortgage").objections] == [["uploaded"]]
    assert sorted(d.text for d in approve(glossaries, "Marcus Feld").drafts) == ["portal", "scans"]


def test_an_approval_that_cannot_write_everything_writes_nothing(work, monkeypatch):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral")
    before = _snapshot(glossaries)

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    # the domain files and the new archive are written by now; the drafts file is the last write
    monkeypatch.setattr(approval_module, "save_drafts", full_disk)
    with pytest.raises(ApprovalError, match="No space left on device.*every file is as it was"):
        approve(glossaries, "Marcus Feld")
    assert _snapshot(glossaries) == before
    assert not (glossaries / "archive" / "2026.12.2").exists()
    monkeypatch.undo()
    assert approve(glossaries, "Marcus Feld").new_version == "2026.12.2"


def _teach_words(db, glossaries, seqs, reviewer, words):
    with ReviewQueue(db) as queue:
        for seq, word in zip(seqs, words):
            queue.teach(seq, reviewer, 1, "neutral", words=[word], glossary_dir=glossaries)


def test_two_queues_teaching_into_one_glossary_folder_lose_no_draft(tmp_path):
    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    words = [f"qz{chr(97 + i)}ux" for i in range(16)]
    cases = [{"id": f"k{i}", "domain": "mortgage", "text": f"Clear to close. {w} uploaded."} for i, w in enumerate(words)]
    decisions = list(decide_cases(build_pipeline(str(glossaries)), [dict(c) for c in cases]))
    dbs = [tmp_path / "team1.sqlite3", tmp_path / "team2.sqlite3"]
    for db in dbs:
        with ReviewQueue(db) as queue:
            for d, c in zip(decisions, cases):
                queue.enqueue(d, c["text"])
    context = multiprocessing.get_context("spawn")
    teams = [context.Process(target=_teach_words, args=(dbs[0], glossaries, range(1, 17, 2), "Ruth Lindqvist",
                                                        words[0::2])),
             context.Process(target=_teach_words, args=(dbs[1], glossaries, range(2, 17, 2), "Tobias Wren",
                                                        words[1::2]))]
    for team in teams:
        team.start()
    for team in teams:
        team.join(timeout=240)
        assert team.exitcode == 0
    by_id = {d.id: d for d in load_drafts(glossaries, "mortgage").drafts}
    assert sorted(d.text for d in by_id.values()) == sorted(words)
    for db in dbs:   # every queue row names the draft of its own word
        with ReviewQueue(db) as queue:
            for review in queue.clause_reviews():
                (draft_id,) = review["drafts"]
                assert by_id[draft_id].text == review["words"][0].lower()


def test_the_diff_after_an_approval_names_the_version_every_domain_moved_to(work, capsys):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral")
    approve(glossaries, "Marcus Feld")
    assert glossary_main(["glossary", "diff", str(glossaries / "archive" / "2026.12.1"), str(glossaries)]) == 0
    out = capsys.readouterr().out
    assert "aviation_maintenance: unchanged (2026.12.1 → 2026.12.2)" in out
    assert "mortgage: changed (2026.12.1 → 2026.12.2)" in out


@pytest.mark.parametrize("text,kwargs,needle", [
    ("File is not good to go.", {"choice": "means_term", "term_id": "MTG.CTC", "phrase": "not good to go"},
     "never-neutral word 'not'"),
    ("Good to go yet.", {"choice": "means_term", "term_id": "MTG.CTC", "phrase": "Good to go yet"},
     "never-neutral word 'yet'"),
    ("Good to go pending wire.", {"choice": "means_term", "term_id": "MTG.CTC", "phrase": "Good to go pending"},
     "hedge cue 'pending'"),
    ("Clear to close. Over budget.", {"choice": "name"}, "'Over budget' holds the never-neutral word 'Over'"),
])
def test_a_draft_that_would_read_a_denial_as_a_clearance_is_refused(tmp_path, text, kwargs, needle):
    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    (decision,) = decide_cases(build_pipeline(str(glossaries)), [{"id": "t", "domain": "mortgage", "text": text}])
    with ReviewQueue(tmp_path / "q.sqlite3") as queue:
        seq = queue.enqueue(decision, text).seq
        choice = kwargs.pop("choice")
        with pytest.raises(QueueError, match=needle):
            queue.teach(seq, "Ruth Lindqvist", 1, choice, glossary_dir=glossaries, **kwargs)
    assert load_drafts(glossaries, "mortgage").drafts == []


def test_a_name_written_as_a_name_may_hold_a_never_neutral_word(work, tmp_path):
    glossaries, db, _ = work
    text = "Clear to close. Over Budget Lending called."
    (decision,) = decide_cases(build_pipeline(str(glossaries)), [{"id": "n", "domain": "mortgage", "text": text}])
    with ReviewQueue(db) as queue:
        seq = queue.enqueue(decision, text).seq
    _teach(db, glossaries, seq, "Ruth Lindqvist", "name", phrase="Over Budget Lending")
    approve(glossaries, "Marcus Feld")
    (after,) = decide_cases(build_pipeline(str(glossaries)), [{"id": "n", "domain": "mortgage", "text": text}])
    assert after["decision"] == "proceed"
    (still,) = decide_cases(build_pipeline(str(glossaries)),
                            [{"id": "o", "domain": "mortgage", "text": "Clear to close. Over budget."}])
    assert still["decision"] == "escalate"


def test_a_hand_written_taught_phrase_that_holds_a_cue_does_not_load():
    from semgap_spacy.glossary.models import GlossaryError, GlossarySet, load_glossaries
    payloads = load_glossaries(str(bundled_glossary_dir())).to_dict()
    ctc = next(t for t in payloads["mortgage"]["terms"] if t["id"] == "MTG.CTC")
    ctc["phrases"].append("not good to go")
    payloads["mortgage"]["taught"] = [{"draft": "mortgage/1", "kind": "phrase", "text": "not good to go",
                                       "lang": "en", "term": "MTG.CTC", "drafted_by": ["Ruth Lindqvist"],
                                       "approver": "Marcus Feld", "cases": []}]
    with pytest.raises(GlossaryError, match="holds the never-neutral word 'not'"):
        GlossarySet.from_dict(payloads, source="hand-edited")


def test_review_never_writes_into_the_bundled_glossaries(tmp_path):
    """Drafts, objections and approvals go to a governed copy, never into the package's own files."""
    bundled = bundled_glossary_dir()
    before = _snapshot(bundled)
    text = "Clear to close. Scans uploaded to the portal."
    (decision,) = decide_cases(build_pipeline(), [{"id": "b", "domain": "mortgage", "text": text}])
    with ReviewQueue(tmp_path / "q.sqlite3") as queue:
        seq = queue.enqueue(decision, text).seq
        for choice, extra in (("neutral", {}), ("problem", {"note": "not here"})):
            with pytest.raises(QueueError, match="bundled glossaries .* package's own files"):
                queue.teach(seq, "Ruth Lindqvist", 1, choice, **extra)
        assert queue.clause_reviews() == []
    with pytest.raises(ApprovalError, match="bundled glossaries .*--glossaries DIR"):
        approve(bundled, "Marcus Feld")
    assert _snapshot(bundled) == before


@pytest.mark.parametrize("phrase,found", [
    ("libération des lots", None),                 # "des" (of the) is a stop word; only "dès" is never neutral
    ("libéré dès demain", "the never-neutral word 'dès'"),
    ("good to go", None),
    ("not good to go", "the never-neutral word 'not'"),
    ("good to go pending", "the hedge cue 'pending'"),
])
def test_the_words_a_taught_clearance_phrase_may_not_hold(phrase, found):
    from semgap_spacy.glossary.models import stating_word
    assert stating_word(phrase) == found


def test_a_resolution_says_what_it_stands_over(work, capsys):
    """A proceed over another reviewer's problem mark, or over an earlier resolution, was recorded
    without a word: the CLI now names both (the resolution is still the reviewer's to make)."""
    from semgap_spacy.ops.queue_cli import main as queue_main

    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Tobias Wren", "problem", note="portal upload means originals were refused")
    args = ["--db", str(db), "--glossaries", str(glossaries)]
    assert queue_main(["queue", "resolve", str(seqs[0]), *args, "--reviewer", "Ruth Lindqvist",
                       "--outcome", "block"]) == 0
    out = capsys.readouterr().out
    assert "note: Tobias Wren marked its words" in out and "originals were refused" in out
    assert queue_main(["queue", "resolve", str(seqs[0]), *args, "--reviewer", "Marcus Feld",
                       "--outcome", "proceed"]) == 0
    out = capsys.readouterr().out
    assert "note: it replaces the resolution block by Ruth Lindqvist" in out and "Tobias Wren marked" in out


def _forge(glossaries, change):
    """Edit the mortgage drafts file by hand, as anyone who can write the folder could."""
    path = glossaries / "drafts" / "mortgage.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _evidence_of(data):
    return data["drafts"][0]["evidence"][0]


@pytest.mark.parametrize("change,needle", [
    # a draft "by" a reviewer that no queue records (the drafter approves it under another name)
    (lambda d: d["drafts"].append(dict(d["drafts"][0], id="mortgage/4", text="lien", evidence=[
        dict(_evidence_of(d), queue_seq=999, row_hash=None)])), "the queue holds no such entry"),
    (lambda d: d["drafts"].append(dict(d["drafts"][0], id="mortgage/4", text="lien", evidence=[
        dict(_evidence_of(d), queue=None, queue_seq=None, row_hash=None)])), "names no review queue"),
    # a recorded choice relabelled: another reviewer, another word, another text
    (lambda d: _evidence_of(d).update(reviewer="Marcus Feld"), "another reviewer's choice"),
    (lambda d: d["drafts"][0].update(text="rejected"), "for another draft"),
    (lambda d: _evidence_of(d).update(text_sha256="0" * 64), "about another text"),
    (lambda d: _evidence_of(d).update(queue_seq=1, row_hash=None), "is no reviewer's choice for a clause"),
])
def test_an_approval_takes_only_drafts_whose_evidence_the_queue_records(work, change, needle):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral", words=["portal"])
    _forge(glossaries, change)
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match=needle):
        approve(glossaries, "Tobias Wren")
    assert _snapshot(glossaries) == before


def test_an_approval_follows_a_queue_that_moved_only_when_named(work, tmp_path, capsys):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral", words=["portal"])
    moved = tmp_path / "moved.sqlite3"
    shutil.move(str(db), moved)
    for suffix in ("-wal", "-shm"):  # a closed WAL queue leaves none, but a copy must take them along
        if db.with_name(db.name + suffix).exists():
            shutil.move(str(db) + suffix, str(moved) + suffix)
    before = _snapshot(glossaries)
    assert glossary_main(["glossary", "approve", "--all", "--approver", "Tobias Wren",
                          "--glossaries", str(glossaries)]) == 1
    assert f"there is no queue file {db}" in capsys.readouterr().err and _snapshot(glossaries) == before
    assert glossary_main(["glossary", "approve", "--all", "--approver", "Tobias Wren",
                          "--glossaries", str(glossaries), "--db", str(tmp_path / "other.sqlite3")]) == 1
    assert "there is no queue file" in capsys.readouterr().err and _snapshot(glossaries) == before
    assert glossary_main(["glossary", "approve", "--all", "--approver", "Tobias Wren",
                          "--glossaries", str(glossaries), "--db", str(moved)]) == 0
    assert "approved mortgage/1: neutral word 'portal' (en) (drafted by Ruth Lindqvist)" in capsys.readouterr().out


def test_an_approval_refuses_evidence_in_a_queue_whose_chain_is_broken(work):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral", words=["portal"])
    import sqlite3
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER entries_no_update")  # an edit the append-only triggers would stop
    conn.execute("UPDATE entries SET case_id = 'other' WHERE seq = 1")
    conn.commit()
    conn.close()
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match="fails its check"):
        approve(glossaries, "Tobias Wren")
    assert _snapshot(glossaries) == before


def test_teaching_some_words_withdraws_the_problem_mark_on_those_words_only(work):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral")   # scans, uploaded, portal
    _teach(db, glossaries, seqs[0], "Tobias Wren", "problem", note="uploads are not originals")
    # Tobias then says "portal" is only a place: his mark stands for "Scans" and "uploaded"
    assert _teach(db, glossaries, seqs[0], "Tobias Wren", "neutral", words=["portal"]).withdrawn == ("portal",)
    (objection,) = load_drafts(glossaries, "mortgage").objections
    assert objection.words == ["Scans", "uploaded"] and objection.note == "uploads are not originals"
    done = approve(glossaries, "Marcus Feld")
    assert [d.text for d in done.drafts] == ["portal"]
    assert sorted(d.text for d, _ in done.held_back) == ["scans", "uploaded"]


def test_evidence_in_a_keyed_queue_counts_only_checked_with_its_key(tmp_path):
    """Without the key, anyone could append a row with a made-up MAC: a keyed queue vouches for
    a draft only when the approval checks its rows with the key."""
    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    (decided,) = decide_cases(build_pipeline(str(glossaries)), [dict(CASES[0])])
    key, db = b"k" * 32, tmp_path / "keyed.sqlite3"
    with ReviewQueue(db, key=key) as queue:
        seq = queue.enqueue(decided, CASES[0]["text"]).seq
        queue.teach(seq, "Ruth Lindqvist", 1, "neutral", words=["portal"], glossary_dir=glossaries)
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match="is keyed .* no key was given"):
        approve(glossaries, "Marcus Feld")
    with pytest.raises(ApprovalError, match="fails its check .*row_mac that does not match"):
        approve(glossaries, "Marcus Feld", key=b"w" * 32)
    assert _snapshot(glossaries) == before
    (keyfile := tmp_path / "key.txt").write_text(key.decode(), encoding="utf-8")
    assert glossary_main(["glossary", "approve", "--all", "--approver", "Marcus Feld", "--glossaries",
                          str(glossaries), "--key-file", str(keyfile)]) == 0
    assert load_drafts(glossaries, "mortgage").open() == []


def test_a_problem_mark_deleted_from_the_drafts_file_still_holds_in_the_queue(work):
    glossaries, db, seqs = work
    _teach(db, glossaries, seqs[0], "Ruth Lindqvist", "neutral", words=["portal"])
    _teach(db, glossaries, seqs[0], "Tobias Wren", "problem", words=["portal"], note="the portal rejects originals")
    _forge(glossaries, lambda d: d.update(objections=[]))  # the mark deleted by hand
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match=r"disputed in the queue .*Tobias Wren marked 'portal' a problem"):
        approve(glossaries, "Marcus Feld")
    assert _snapshot(glossaries) == before
    # a mark the reviewer withdrew in the queue no longer stands there either
    _teach(db, glossaries, seqs[0], "Tobias Wren", "neutral", words=["portal"])
    assert [d.text for d in approve(glossaries, "Marcus Feld").drafts] == ["portal"]

"""Review queue: append-only, hash-chained, idempotent, safe across processes."""
import hashlib
import io
import json
import multiprocessing
import sqlite3

import pytest

from semgap_spacy.ops.queue_cli import main as queue_main
from semgap_spacy.ops.review_queue import (
    GENESIS_HASH,
    QueueError,
    ReviewQueue,
    _SCHEMA,
    _split_sql,
    compute_row_hash,
)

GLOSSARY_SHA = "ab" * 32


def make_decision(case_id, outcome="escalate", code="no_recognised_term", **extra):
    decision = {
        "id": case_id,
        "decision": outcome,
        "reasons": [{"code": code, "outcome": outcome, "message": f"{code} in {case_id}",
                     "term_id": None, "start_char": 0, "end_char": 4}],
        "glossary_version": "2026.11.0",
        "glossary_sha256": GLOSSARY_SHA,
    }
    decision.update(extra)
    return decision


@pytest.fixture
def db(tmp_path):
    return tmp_path / "queue.sqlite3"


@pytest.fixture
def filled(db):
    """A queue with five decisions and one resolution (six rows)."""
    with ReviewQueue(db) as queue:
        for i in range(1, 6):
            queue.enqueue(make_decision(f"c-{i}"), f"text number {i}")
        queue.resolve(2, "Ruth Lindqvist", "block", "confirmed positive by phone")
    return db


def raw(db):
    """A raw connection with the append-only triggers dropped, as a tamperer would."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("DROP TRIGGER entries_no_update")
    conn.execute("DROP TRIGGER entries_no_delete")
    return conn


def restore_triggers(conn):
    """A careful tamperer puts the triggers back after editing, so only the chain can tell."""
    for statement in _split_sql(_SCHEMA):
        if statement.startswith("CREATE TRIGGER"):
            conn.execute(statement)


def verify(db):
    with ReviewQueue(db) as queue:
        return queue.verify()


def test_review_queue_chain_is_valid_and_linked(filled):
    result = verify(filled)
    assert result.ok and result.first_bad_seq is None and result.rows == 6
    conn = sqlite3.connect(str(filled))
    conn.row_factory = sqlite3.Row
    rows = conn.execute("SELECT * FROM entries ORDER BY seq").fetchall()
    assert [r["seq"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[0]["prev_hash"] == GENESIS_HASH
    for prev, row in zip(rows, rows[1:]):
        assert row["prev_hash"] == prev["row_hash"]
    for row in rows:
        assert compute_row_hash(dict(row)) == row["row_hash"]


def test_review_queue_is_append_only(filled):
    conn = sqlite3.connect(str(filled), isolation_level=None)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE entries SET case_id = 'x' WHERE seq = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM entries WHERE seq = 1")
    assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 6


def test_review_queue_verify_finds_edited_row(filled):
    conn = raw(filled)
    conn.execute("UPDATE entries SET decision_json = replace(decision_json, 'escalate', 'proceed') "
                 "WHERE seq = 3")
    conn.close()
    result = verify(filled)
    assert not result.ok
    assert result.first_bad_seq == 3
    assert "altered" in result.message


def test_review_queue_verify_finds_edited_resolution(filled):
    conn = raw(filled)
    conn.execute("UPDATE entries SET payload_json = replace(payload_json, 'Ruth Lindqvist', 'Eve') "
                 "WHERE seq = 6")
    conn.close()
    result = verify(filled)
    assert (result.ok, result.first_bad_seq) == (False, 6)


def test_review_queue_verify_finds_deleted_row(filled):
    conn = raw(filled)
    conn.execute("DELETE FROM entries WHERE seq = 4")
    conn.close()
    result = verify(filled)
    assert not result.ok
    assert result.first_bad_seq == 4
    assert "missing" in result.message


def test_review_queue_verify_finds_deleted_and_renumbered_rows(filled):
    conn = raw(filled)
    conn.execute("DELETE FROM entries WHERE seq = 2")
    conn.execute("UPDATE entries SET seq = seq - 1 WHERE seq > 2")
    conn.close()
    result = verify(filled)
    assert (result.ok, result.first_bad_seq) == (False, 2)


def test_review_queue_verify_finds_truncated_tail(filled):
    conn = raw(filled)
    conn.execute("DELETE FROM entries WHERE seq = 6")
    conn.close()
    result = verify(filled)
    assert (result.ok, result.first_bad_seq) == (False, 6)


def test_review_queue_verify_finds_reordered_rows(filled):
    conn = raw(filled)
    # Swap rows 2 and 3 in place: same rows, same hashes, other order.
    conn.execute("UPDATE entries SET seq = 1000 WHERE seq = 2")
    conn.execute("UPDATE entries SET seq = 2 WHERE seq = 3")
    conn.execute("UPDATE entries SET seq = 3 WHERE seq = 1000")
    conn.close()
    result = verify(filled)
    assert (result.ok, result.first_bad_seq) == (False, 2)
    assert "does not follow" in result.message


def test_review_queue_verify_anchor_catches_full_rewrite(filled):
    with ReviewQueue(filled) as queue:
        anchor = queue.head()
    conn = raw(filled)
    conn.row_factory = sqlite3.Row
    # Rewrite row 5 and re-hash everything after it: the chain alone looks fine.
    prev = conn.execute("SELECT row_hash FROM entries WHERE seq = 4").fetchone()[0]
    for seq in (5, 6):
        row = dict(conn.execute("SELECT * FROM entries WHERE seq = ?", (seq,)).fetchone())
        if seq == 5:
            row["case_id"] = "forged"
        row["prev_hash"] = prev
        row["row_hash"] = compute_row_hash(row)
        conn.execute("UPDATE entries SET case_id = ?, prev_hash = ?, row_hash = ? WHERE seq = ?",
                     (row["case_id"], row["prev_hash"], row["row_hash"], seq))
        prev = row["row_hash"]
    restore_triggers(conn)
    conn.close()
    with ReviewQueue(filled) as queue:
        assert queue.verify().ok
        result = queue.verify(anchor=anchor)
    assert (result.ok, result.first_bad_seq) == (False, 6)


def test_review_queue_enqueue_is_idempotent(db):
    with ReviewQueue(db) as queue:
        first = queue.enqueue(make_decision("c-1"), "xm pending")
        again = queue.enqueue(make_decision("c-1"), "xm pending")
        other_text = queue.enqueue(make_decision("c-1"), "xm pending, call back")
        other_glossary = queue.enqueue(make_decision("c-1", glossary_sha256="cd" * 32), "xm pending")
        assert first.created and first.seq == 1
        assert not again.created and again.seq == 1
        assert other_text.created and other_text.seq == 2
        assert other_glossary.created and other_glossary.seq == 3
        assert len(queue.list("all")) == 3
        assert queue.verify().ok


def test_review_queue_keeps_whole_decision(db):
    decision = make_decision("c-9", outcome="block", code="critical_term",
                             schema="semgap.decision.v1", options={"x": 1})
    with ReviewQueue(db) as queue:
        seq = queue.enqueue(decision, "xm pos").seq
        assert queue.show(seq)["decision_record"] == decision


@pytest.mark.parametrize("outcome", ["proceed"])
def test_review_queue_refuses_proceed(db, outcome):
    with ReviewQueue(db) as queue:
        with pytest.raises(ValueError, match="proceed decision needs no review"):
            queue.enqueue(make_decision("c-1", outcome=outcome, code="clearance"), "xm neg")
        assert queue.list("all") == []


@pytest.mark.parametrize("bad", [None, "maybe", "", "ESCALATE"])
def test_review_queue_refuses_unknown_outcome(db, bad):
    with ReviewQueue(db) as queue:
        with pytest.raises(ValueError, match="must be 'escalate' or 'block'"):
            queue.enqueue(make_decision("c-1", outcome=bad), "text")


def test_review_queue_refuses_mismatched_text_hash(db):
    decision = make_decision("c-1", text_sha256=hashlib.sha256(b"other").hexdigest())
    with ReviewQueue(db) as queue:
        with pytest.raises(ValueError, match="does not match"):
            queue.enqueue(decision, "this text")


@pytest.mark.parametrize("reviewer", ["", "   ", None])
def test_review_queue_refuses_anonymous_resolution(filled, reviewer):
    with ReviewQueue(filled) as queue:
        with pytest.raises(ValueError, match="named human reviewer is required"):
            queue.resolve(1, reviewer, "proceed")
        with pytest.raises(ValueError, match="named human reviewer is required"):
            queue.clarify(1, reviewer, "MS", "mitral stenosis")
        assert queue.head()[0] == 6


def test_review_queue_refuses_bad_resolution_target(filled):
    with ReviewQueue(filled) as queue:
        with pytest.raises(QueueError, match="no queue entry 99"):
            queue.resolve(99, "Ruth Lindqvist", "block")
        with pytest.raises(QueueError, match="is a resolution, not a decision"):
            queue.resolve(6, "Ruth Lindqvist", "block")
        with pytest.raises(QueueError, match="outcome must be one of"):
            queue.resolve(1, "Ruth Lindqvist", "approve")


def test_review_queue_list_status(filled):
    with ReviewQueue(filled) as queue:
        assert [i["seq"] for i in queue.list("open")] == [1, 3, 4, 5]
        resolved = queue.list("resolved")
        assert [i["seq"] for i in resolved] == [2]
        assert resolved[0]["resolution"]["reviewer"] == "Ruth Lindqvist"
        assert len(queue.list("all")) == 5
        # A later resolution supersedes the earlier one; both stay in the chain.
        queue.resolve(2, "Dana Okafor", "escalate", "needs a second look")
        assert queue.list("resolved")[0]["resolution"]["outcome"] == "escalate"
        assert [f["seq"] for f in queue.show(2)["followups"]] == [6, 7]


def test_review_queue_raw_text_only_with_opt_in(tmp_path):
    secret = "patient Jane Roe, xm pending"
    plain, opted = tmp_path / "plain.sqlite3", tmp_path / "opted.sqlite3"
    with ReviewQueue(plain) as queue:
        queue.enqueue(make_decision("c-1"), secret)
    with ReviewQueue(opted, store_raw_text=True) as queue:
        queue.enqueue(make_decision("c-1"), secret)
    for path, expected in ((plain, None), (opted, secret)):
        conn = sqlite3.connect(str(path))
        assert conn.execute("SELECT raw_text FROM entries").fetchone()[0] == expected
        conn.close()
    # Nowhere in the plain file, not even in the WAL.
    for f in tmp_path.glob("plain.sqlite3*"):
        assert b"Jane Roe" not in f.read_bytes()


def _ms_decision(case_id):
    decision = make_decision(case_id)
    decision["reasons"] = [{"code": "ambiguous_abbreviation", "outcome": "escalate", "message": "'MS' …",
                            "abbreviation": "MS", "start_char": 0, "end_char": 2}]
    return decision


def test_review_queue_clarifications_are_offered_not_applied(db):
    with ReviewQueue(db) as queue:
        seqs = [queue.enqueue(_ms_decision(f"c-{i}"), f"MS noted, case {i}").seq for i in range(3)]
        queue.clarify(seqs[0], "Ruth Lindqvist", "MS", "mitral stenosis", "cardiology note",
                      domain="medical_logistics")
        queue.clarify(seqs[1], "Dana Okafor", "ms", "other: multiple sites", domain="medical_logistics")
        queue.clarify(seqs[2], "Dana Okafor", "MS", "leave open", domain="mortgage")
        with pytest.raises(QueueError, match="needs the meaning"):
            queue.clarify(seqs[2], "Dana Okafor", "MS", "other:   ")
        found = queue.clarifications_for("MS", domain="medical_logistics")
        assert [c["choice"] for c in found] == ["other: multiple sites", "mitral stenosis"]
        assert len(queue.clarifications_for("ms")) == 3
        # Offering a choice changes no decision: the first entry is still open.
        assert seqs[0] in [i["seq"] for i in queue.list("open")]
        assert queue.verify().ok


def test_a_decision_with_no_ambiguous_abbreviation_takes_no_clarification(filled):
    """A reading recorded on a plain entry ("CTC read as 'cancelled'") would be offered for every
    later case with that abbreviation."""
    with ReviewQueue(filled) as queue:
        with pytest.raises(QueueError, match="has no ambiguous abbreviation to clarify"):
            queue.clarify(1, "Tobias Wren", "CTC", "cancelled, do not close")
        assert queue.clarifications_for("CTC") == []


def test_review_queue_clarify_holds_to_offered_meanings(db):
    reason = {"code": "ambiguous_abbreviation", "outcome": "escalate", "message": "CD",
              "abbreviation": "CD", "start_char": 0, "end_char": 2,
              "options": [{"meaning": "closing disclosure", "term_id": None},
                          {"meaning": "certificate of deposit", "term_id": None},
                          {"choice": "other", "meaning": "other (free text)"},
                          {"choice": "leave_open", "meaning": "leave open"},
                          {"choice": "reject", "meaning": "reject"}]}
    decision = make_decision("c-4")
    decision["reasons"] = [reason]
    with ReviewQueue(db) as queue:
        seq = queue.enqueue(decision, "CD attached").seq
        with pytest.raises(QueueError, match="not a meaning offered"):
            queue.clarify(seq, "Ruth Lindqvist", "CD", "closing disclosre")
        with pytest.raises(QueueError, match="has no ambiguous abbreviation 'DOT'"):
            queue.clarify(seq, "Ruth Lindqvist", "DOT", "deed of trust")
        queue.clarify(seq, "Ruth Lindqvist", "cd", "Closing Disclosure")
        queue.clarify(seq, "Ruth Lindqvist", "CD", "leave_open")
        assert [c["choice"] for c in queue.clarifications_for("CD")] == [
            "leave open", "Closing Disclosure"]


def test_review_queue_export_is_rehashable(filled):
    buf = io.StringIO()
    with ReviewQueue(filled) as queue:
        assert queue.export(buf) == 6
    rows = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert [r["seq"] for r in rows] == list(range(1, 7))
    prev = GENESIS_HASH
    for row in rows:
        assert row["prev_hash"] == prev
        assert compute_row_hash(row) == row["row_hash"]
        prev = row["row_hash"]


def _enqueue_worker(path, worker, count, start):
    # Runs in a child process: its own connection, same file.
    start.wait(30)
    with ReviewQueue(path) as queue:
        for i in range(count):
            result = queue.enqueue(make_decision(f"w{worker}-{i}"), f"worker {worker} text {i}")
            assert result.created


def test_review_queue_concurrent_enqueue_loses_nothing(db):
    ReviewQueue(db).close()  # create the schema once, as a deployment would
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_enqueue_worker, args=(str(db), w, 50, start)) for w in range(4)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    with ReviewQueue(db) as queue:
        items = queue.list("all")
        result = queue.verify()
    assert result.ok, result.message
    assert len(items) == 200
    assert sorted(i["seq"] for i in items) == list(range(1, 201))
    assert {i["case_id"] for i in items} == {f"w{w}-{i}" for w in range(4) for i in range(50)}


# -- CLI ---------------------------------------------------------------------


@pytest.fixture
def jsonl_inputs(tmp_path):
    cases = [
        {"id": "c-1", "domain": "medical_logistics", "text": "crossmatch result pending"},
        {"id": "c-2", "domain": "medical_logistics", "text": "xm pos"},
        {"id": "c-3", "domain": "medical_logistics", "text": "xm neg"},
    ]
    decisions = [
        make_decision("c-1", code="dangling_head"),
        make_decision("c-2", outcome="block", code="critical_term"),
        make_decision("c-3", outcome="proceed", code="clearance"),
    ]
    cpath, dpath = tmp_path / "cases.jsonl", tmp_path / "decisions.jsonl"
    cpath.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    dpath.write_text("".join(json.dumps(d) + "\n" for d in decisions), encoding="utf-8")
    return cpath, dpath


def test_queue_cli_enqueue_list_resolve_verify(db, jsonl_inputs, capsys):
    cpath, dpath = jsonl_inputs
    args = ["--db", str(db)]
    assert queue_main(["queue", "enqueue", *args, "--decisions", str(dpath), "--cases", str(cpath)]) == 0
    assert "queued 2 new, 0 already queued, 1 proceed skipped" in capsys.readouterr().out
    assert queue_main(["queue", "enqueue", *args, "--decisions", str(dpath), "--cases", str(cpath)]) == 0
    assert "queued 0 new, 2 already queued" in capsys.readouterr().out

    assert queue_main(["queue", "list", *args]) == 0
    out = capsys.readouterr().out
    assert "c-1" in out and "c-2" in out and "c-3" not in out

    assert queue_main(["queue", "resolve", "2", *args, "--reviewer", "Ruth Lindqvist",
                       "--outcome", "block", "--rationale", "phoned lab"]) == 0
    assert "resolved as block by Ruth Lindqvist" in capsys.readouterr().out

    assert queue_main(["queue", "list", *args, "--status", "resolved", "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(i["seq"], i["resolution"]["reviewer"]) for i in listed] == [(2, "Ruth Lindqvist")]

    assert queue_main(["queue", "show", "2", *args]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["decision_record"]["id"] == "c-2"
    assert shown["followups"][0]["payload"]["rationale"] == "phoned lab"

    assert queue_main(["queue", "verify", *args]) == 0
    assert capsys.readouterr().out.startswith("ok: chain intact: 3 entries")


def test_queue_cli_enqueue_finds_each_case_of_a_repeated_id_by_its_text(db, tmp_path, capsys):
    from semgap_spacy import build_pipeline, decide_cases

    cases = [{"id": "c-001", "domain": "mortgage", "text": "Clear to close, scans uploaded"},
             {"id": "c-001", "domain": "mortgage", "text": "Title defect found"}]
    cpath, dpath = tmp_path / "cases.jsonl", tmp_path / "decisions.jsonl"
    cpath.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    decisions = list(decide_cases(build_pipeline(), cases))
    dpath.write_text("".join(json.dumps(d) + "\n" for d in decisions), encoding="utf-8")
    assert queue_main(["queue", "enqueue", "--db", str(db), "--decisions", str(dpath), "--cases", str(cpath)]) == 0
    assert "queued 2 new, 0 already queued, 0 proceed skipped, 0 refused" in capsys.readouterr().out


def test_queue_cli_enqueue_refuses_a_repeated_id_it_cannot_tell_apart(tmp_path, capsys):
    """Without the text hash, two cases of one id cannot be told apart: the block must not be
    filed under the escalation's text and counted as already queued."""
    from semgap_spacy import build_pipeline, decide_cases

    cases = [{"id": "c-001", "domain": "mortgage", "text": "Clear to close. Scans uploaded to the portal."},
             {"id": "c-001", "domain": "mortgage", "text": "Title defect. Scans uploaded to the portal."}]
    cpath, dpath = tmp_path / "cases.jsonl", tmp_path / "decisions.jsonl"
    cpath.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    decisions = list(decide_cases(build_pipeline(), cases))
    assert [d["decision"] for d in decisions] == ["escalate", "block"]
    for d in decisions:
        del d["text_sha256"]
    dpath.write_text("".join(json.dumps(d) + "\n" for d in decisions), encoding="utf-8")
    db = tmp_path / "q.sqlite3"
    assert queue_main(["queue", "enqueue", "--db", str(db), "--decisions", str(dpath), "--cases", str(cpath),
                       "--store-raw-text"]) == 1
    captured = capsys.readouterr()
    assert "queued 0 new, 0 already queued, 0 proceed skipped, 2 refused" in captured.out
    assert captured.err.count("2 cases with different texts share that id") == 2
    # the same id twice with one text is no ambiguity
    cpath.write_text("".join(json.dumps(cases[0]) + "\n" for _ in range(2)), encoding="utf-8")
    dpath.write_text(json.dumps(decisions[0]) + "\n", encoding="utf-8")
    assert queue_main(["queue", "enqueue", "--db", str(db), "--decisions", str(dpath), "--cases", str(cpath)]) == 0


@pytest.mark.parametrize("reviewer_args", [[], ["--reviewer", ""], ["--reviewer", "  "]])
def test_queue_cli_refuses_anonymous_resolve(db, jsonl_inputs, capsys, reviewer_args):
    cpath, dpath = jsonl_inputs
    queue_main(["queue", "enqueue", "--db", str(db), "--decisions", str(dpath), "--cases", str(cpath)])
    capsys.readouterr()
    code = queue_main(["queue", "resolve", "1", "--db", str(db), "--outcome", "proceed", *reviewer_args])
    captured = capsys.readouterr()
    assert code == 1
    assert "named human reviewer is required" in captured.err
    assert "Traceback" not in captured.err
    with ReviewQueue(db) as queue:
        assert queue.list("resolved") == []


def test_queue_cli_refuses_missing_queue_file(db, capsys):
    assert queue_main(["queue", "verify", "--db", str(db)]) == 1
    assert "no review queue at" in capsys.readouterr().err
    assert not db.exists()


def test_queue_cli_refuses_unknown_seq(db, capsys):
    ReviewQueue(db).close()
    assert queue_main(["queue", "resolve", "7", "--db", str(db), "--reviewer", "Ruth Lindqvist",
                       "--outcome", "block"]) == 1
    err = capsys.readouterr().err
    assert "no queue entry 7" in err and "Traceback" not in err


@pytest.mark.parametrize("verb, rest", [
    ("show", []), ("clauses", []),
    ("resolve", ["--reviewer", "Ruth Lindqvist", "--outcome", "block"]),
    ("teach", ["--reviewer", "Ruth Lindqvist", "--choice", "neutral"]),
])
def test_an_entry_number_sqlite_cannot_hold_is_a_usage_error(db, capsys, verb, rest):
    """99999999999999999999 was "internal error (OverflowError)" from deep inside the queue."""
    ReviewQueue(db).close()
    try:
        code = queue_main(["queue", verb, "99999999999999999999", "--db", str(db), *rest])
    except SystemExit as stop:  # argparse's own exit, where the parser is argparse's
        code = stop.value.code
    assert code == 2
    err = capsys.readouterr().err
    assert "must be at most 9223372036854775807" in err and "Traceback" not in err


@pytest.mark.parametrize("verb", ["verify", "list", "export"])
def test_a_read_command_writes_nothing_into_a_file_that_is_no_queue(tmp_path, capsys, verb):
    """An empty file or another application's database was given the queue's tables (and WAL
    mode), and verify said "ok: chain intact: 0 entries"."""
    import sqlite3

    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE foo (a)")
    conn.commit()
    conn.close()
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for path in (other, empty):
        before = path.read_bytes()
        assert queue_main(["queue", verb, "--db", str(path)]) == 1
        assert "is not a review queue" in capsys.readouterr().err
        assert path.read_bytes() == before and not (tmp_path / f"{path.name}-wal").exists()


def test_queue_cli_verify_fails_on_tampering(filled, capsys):
    conn = raw(filled)
    conn.execute("UPDATE entries SET case_id = 'c-x' WHERE seq = 2")
    conn.close()
    assert queue_main(["queue", "verify", "--db", str(filled)]) == 1
    err = capsys.readouterr().err
    assert "chain broken at entry 2" in err


def test_queue_cli_enqueue_reports_missing_case(db, tmp_path, capsys):
    dpath, cpath = tmp_path / "d.jsonl", tmp_path / "c.jsonl"
    dpath.write_text(json.dumps(make_decision("c-404")) + "\n"
                     + json.dumps(make_decision("c-1")) + "\n", encoding="utf-8")
    cpath.write_text(json.dumps({"id": "c-1", "text": "x"}) + "\n", encoding="utf-8")
    assert queue_main(["queue", "enqueue", "--db", str(db), "--decisions", str(dpath),
                       "--cases", str(cpath)]) == 1
    captured = capsys.readouterr()
    assert "no case with that id" in captured.err and "'c-404'" in captured.err
    assert "queued 1 new, 0 already queued, 0 proceed skipped, 1 refused" in captured.out


def test_queue_cli_enqueue_reports_bad_json(db, tmp_path, capsys):
    dpath = tmp_path / "d.jsonl"
    dpath.write_text(json.dumps(make_decision("c-1")) + "\n{not json\n", encoding="utf-8")
    assert queue_main(["queue", "enqueue", "--db", str(db), "--decisions", str(dpath)]) == 1
    err = capsys.readouterr().err
    assert "d.jsonl:2" in err and "not JSON" in err and "Traceback" not in err


def test_queue_cli_export(filled, tmp_path, capsys):
    out = tmp_path / "queue.jsonl"
    assert queue_main(["queue", "export", "--db", str(filled), "--out", str(out)]) == 0
    assert "exported 6 entries" in capsys.readouterr().out
    assert len(out.read_text(encoding="utf-8").splitlines()) == 6


def test_review_queue_stores_odd_unicode(db):
    text = "Kreuzprobe négativ \ud800 ✓"
    decision = make_decision("c-ü\udc00", message_extra="ß")
    with ReviewQueue(db, store_raw_text=True) as queue:
        seq = queue.enqueue(decision, text).seq
        entry = queue.show(seq)
        assert entry["decision_record"] == decision
        assert entry["raw_text"] == "Kreuzprobe négativ \ufffd ✓"
        assert entry["text_sha256"] == hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        assert queue.verify().ok

"""A review queue a forger cannot rewrite quietly: what each verify mode catches.

Every tamper is done the way someone holding the SQLite file would do it:
drop the append-only triggers, edit with plain SQL, put the triggers back
(except where the triggers are the tamper). The modes: the plain chain, an
anchor (head hash kept elsewhere), a keyed chain (HMAC), and both.
"""
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from semgap_spacy.util import signing
from semgap_spacy.ops.review_queue import _SCHEMA, QueueError, ReviewQueue, _split_sql, compute_row_hash
from semgap_spacy.glossary.roster import Roster, RosterError, check_name

KEY = b"k" * 32
WRONG_KEY = b"w" * 32
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def decision(case_id, outcome="escalate", code="no_recognised_term"):
    return {"id": case_id, "decision": outcome,
            "reasons": [{"code": code, "outcome": outcome, "message": code}],
            "glossary_version": "2026.11.0", "glossary_sha256": "ab" * 32}


def fill(db, key=None):
    """Five decisions and one resolution (six rows); returns the head."""
    with ReviewQueue(db, key=key) as queue:
        for i in range(1, 6):
            queue.enqueue(decision(f"c-{i}"), f"text number {i}")
        queue.resolve(2, "Ruth Lindqvist", "block", "confirmed positive by phone")
        return queue.head()


def open_raw(db):
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("DROP TRIGGER IF EXISTS entries_no_update")
    conn.execute("DROP TRIGGER IF EXISTS entries_no_delete")
    return conn


def restore_triggers(conn):
    for statement in _split_sql(_SCHEMA):
        if statement.startswith("CREATE TRIGGER"):
            conn.execute(statement)


def rehash_from(conn, first, change):
    """Apply ``change`` to row ``first`` and re-hash every row from there on."""
    prev = conn.execute("SELECT row_hash FROM entries WHERE seq = ?", (first - 1,)).fetchone()[0]
    for row in conn.execute("SELECT * FROM entries WHERE seq >= ? ORDER BY seq", (first,)).fetchall():
        row = dict(row)
        if row["seq"] == first:
            change(row)
        row["prev_hash"] = prev
        row["row_hash"] = compute_row_hash(row)
        conn.execute("UPDATE entries SET case_id = ?, payload_json = ?, prev_hash = ?, row_hash = ? "
                     "WHERE seq = ?", (row["case_id"], row["payload_json"], row["prev_hash"],
                                       row["row_hash"], row["seq"]))
        prev = row["row_hash"]


def forged_append(conn):
    """A resolution nobody made, with a correct unkeyed hash; on a keyed queue the
    forger, lacking the key, copies the previous row's MAC (a fresh one made with
    a wrong key fails the same way)."""
    last = dict(conn.execute("SELECT * FROM entries ORDER BY seq DESC LIMIT 1").fetchone())
    target = dict(conn.execute("SELECT * FROM entries WHERE seq = 1").fetchone())
    row = {name: None for name in last}
    row.update(seq=last["seq"] + 1, kind="resolution", ref_seq=1, case_id=target["case_id"],
               decision="proceed", text_sha256=target["text_sha256"],
               glossary_version=target["glossary_version"], glossary_sha256=target["glossary_sha256"],
               payload_json=signing.canonical_json({"reviewer": "Ruth Lindqvist", "outcome": "proceed",
                                                    "rationale": "forged"}),
               created_at=last["created_at"], prev_hash=last["row_hash"])
    row["row_hash"] = compute_row_hash(row)
    row["row_mac"] = last["row_mac"]
    cols = list(row)
    conn.execute(f"INSERT INTO entries ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                 [row[c] for c in cols])


def t_edit_decision(conn):
    conn.execute("UPDATE entries SET decision_json = replace(decision_json, 'escalate', 'proceed') "
                 "WHERE seq = 3")


def t_edit_resolution(conn):
    conn.execute("UPDATE entries SET payload_json = replace(payload_json, 'block', 'proceed') WHERE seq = 6")


def t_delete_middle(conn):
    conn.execute("DELETE FROM entries WHERE seq = 4")


def t_delete_renumber(conn):
    conn.execute("DELETE FROM entries WHERE seq = 2")
    conn.execute("UPDATE entries SET seq = seq - 1 WHERE seq > 2")


def t_delete_last(conn):
    conn.execute("DELETE FROM entries WHERE seq = 6")


def t_truncate_fix_sequence(conn):
    conn.execute("DELETE FROM entries WHERE seq >= 5")
    conn.execute("UPDATE sqlite_sequence SET seq = 4 WHERE name = 'entries'")


def t_reorder(conn):
    conn.execute("UPDATE entries SET seq = 1000 WHERE seq = 2")
    conn.execute("UPDATE entries SET seq = 2 WHERE seq = 3")
    conn.execute("UPDATE entries SET seq = 3 WHERE seq = 1000")


def t_rewrite_from_middle(conn):
    rehash_from(conn, 3, lambda row: row.update(case_id="forged"))


def t_rewrite_resolution_reviewer(conn):
    rehash_from(conn, 6, lambda row: row.update(
        payload_json=row["payload_json"].replace("Ruth Lindqvist", "Dana Okafor")))


def t_forged_append(conn):
    forged_append(conn)


def t_drop_triggers(conn):
    pass  # open_raw dropped them; they are not put back


def t_neuter_trigger(conn):
    conn.execute("CREATE TRIGGER entries_no_update BEFORE UPDATE ON entries BEGIN SELECT 1; END")
    conn.execute("CREATE TRIGGER entries_no_delete BEFORE DELETE ON entries BEGIN SELECT 1; END")


MODES = ("plain", "anchor", "key", "anchor+key")
ALL = set(MODES)
# tamper -> the modes that must catch it (every other mode must NOT: that is
# the documented limit of the mode, and the test fails if it silently changes)
TAMPERS = {
    t_edit_decision: ALL,
    t_edit_resolution: ALL,
    t_delete_middle: ALL,
    t_delete_renumber: ALL,
    t_delete_last: ALL,                                   # sqlite_sequence still remembers seq 6
    t_truncate_fix_sequence: {"anchor", "anchor+key"},    # a clean cut: only an anchor knows
    t_reorder: ALL,
    t_rewrite_from_middle: {"anchor", "key", "anchor+key"},
    t_rewrite_resolution_reviewer: {"anchor", "key", "anchor+key"},
    t_forged_append: {"key", "anchor+key"},               # after the anchor: only a key knows
    t_drop_triggers: ALL,
    t_neuter_trigger: ALL,
}
KEEPS_TRIGGERS_OFF = {t_drop_triggers, t_neuter_trigger}


def run_tamper(db, tamper, mode):
    key = KEY if "key" in mode else None
    head = fill(db, key=key)
    conn = open_raw(db)
    tamper(conn)
    if tamper not in KEEPS_TRIGGERS_OFF:
        restore_triggers(conn)
    conn.close()
    with ReviewQueue(db, key=key) as queue:
        return queue.verify(anchor=head if "anchor" in mode else None)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tamper", list(TAMPERS), ids=[t.__name__[2:] for t in TAMPERS])
def test_queue_tamper_caught_by_the_modes_that_promise_it(tmp_path, tamper, mode):
    result = run_tamper(tmp_path / "q.sqlite3", tamper, mode)
    assert result.ok is (mode not in TAMPERS[tamper]), (mode, result.message)


def test_queue_tamper_table_totals(tmp_path):
    """The figures the README quotes, measured: what each mode catches of the list above."""
    caught = {mode: 0 for mode in MODES}
    for i, tamper in enumerate(TAMPERS):
        for mode in MODES:
            if not run_tamper(tmp_path / f"q{i}-{mode.replace('+', '_')}.sqlite3", tamper, mode).ok:
                caught[mode] += 1
    assert len(TAMPERS) == 12
    assert caught == {"plain": 8, "anchor": 11, "key": 11, "anchor+key": 12}


def test_untampered_queue_verifies_in_every_mode(tmp_path):
    for mode in MODES:
        db = tmp_path / f"{mode.replace('+', '_')}.sqlite3"
        key = KEY if "key" in mode else None
        head = fill(db, key=key)
        with ReviewQueue(db, key=key) as queue:
            result = queue.verify(anchor=head if "anchor" in mode else None)
        assert result.ok, result.message


def test_dropped_triggers_are_not_silently_recreated_and_writes_stop(tmp_path):
    db = tmp_path / "q.sqlite3"
    fill(db)
    open_raw(db).close()
    with ReviewQueue(db) as queue:  # opening must not repair (and so hide) the damage
        assert "missing" in queue.verify().message
        with pytest.raises(QueueError, match="writing refused"):
            queue.enqueue(decision("c-9"), "new text")
    with ReviewQueue(db) as queue:
        assert not queue.verify().ok


def test_keyed_queue_refuses_unkeyed_appends_and_wrong_key(tmp_path):
    db = tmp_path / "q.sqlite3"
    fill(db, key=KEY)
    with ReviewQueue(db) as queue:
        assert queue.verify().ok and "not checked" in queue.verify().message
        with pytest.raises(QueueError, match="written with a key"):
            queue.enqueue(decision("c-9"), "new text")
    with ReviewQueue(db, key=WRONG_KEY) as queue:
        result = queue.verify()
        assert (result.ok, result.first_bad_seq) == (False, 1)
    unkeyed = tmp_path / "u.sqlite3"
    fill(unkeyed)
    with ReviewQueue(unkeyed, key=KEY) as queue:
        with pytest.raises(QueueError, match="without a key"):
            queue.enqueue(decision("c-9"), "new text")


def test_anchor_formats_and_bad_anchor(tmp_path):
    db = tmp_path / "q.sqlite3"
    seq, digest = fill(db)
    with ReviewQueue(db) as queue:
        assert queue.verify(anchor=digest).ok
        assert queue.verify(anchor=f"{seq}:{digest}").ok
        assert not queue.verify(anchor=f"{seq - 1}:{digest}").ok
        assert not queue.verify(anchor="f" * 64).ok
        with pytest.raises(QueueError, match="not a 64-hex-digit"):
            queue.verify(anchor="abc")


def test_version1_queue_gains_the_mac_column(tmp_path):
    db = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(str(db), isolation_level=None)
    old_schema = _SCHEMA.replace("row_hash TEXT NOT NULL UNIQUE,\n    row_mac TEXT", "row_hash TEXT NOT NULL UNIQUE")
    assert old_schema != _SCHEMA
    for statement in _split_sql(old_schema):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with ReviewQueue(db) as queue:
        queue.enqueue(decision("c-1"), "x")
        assert queue.verify().ok


# -- keys ---------------------------------------------------------------------


def test_keys_come_from_a_file_or_a_named_variable_never_silently_missing(tmp_path):
    path = tmp_path / "key"
    path.write_bytes(KEY + b"\n")
    assert signing.load_key(key_file=str(path)) == KEY
    assert signing.load_key(key_env="QK", environ={"QK": KEY.decode()}) == KEY
    assert signing.load_key(environ={signing.KEY_ENV_CONFIG: "QK", "QK": KEY.decode()}) == KEY
    assert signing.load_key(environ={}) is None
    for kwargs, match in [({"key_env": "QK", "environ": {}}, "not set"),
                          ({"key_env": "QK", "environ": {"QK": "short"}}, "at least"),
                          ({"key_file": str(tmp_path / "none")}, "cannot read"),
                          ({"key_file": str(path), "key_env": "QK"}, "not both")]:
        with pytest.raises(signing.SigningKeyError, match=match):
            signing.load_key(**kwargs)


# -- reviewers ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["\u200b", "\x1b[8m", "automated-agent", "Automated_Agent", "", "   ",
                                  "Ruth\u200bLindqvist", "Ruth Lindqvist\x1b[8m", "\u202eRuth", "1234",
                                  "Ruth L\u0456ndqvist", "Mallory", None])
def test_reviewer_not_a_listed_person_is_refused(tmp_path, name):
    db = tmp_path / "q.sqlite3"
    fill(db)
    with ReviewQueue(db) as queue:
        with pytest.raises(QueueError, match="refused"):
            queue.resolve(1, name, "proceed")
        with pytest.raises(QueueError, match="refused"):
            queue.clarify(1, name, "MS", "leave open")
        assert queue.list("resolved")[0]["seq"] == 2  # only the fixture's resolution


def test_reviewer_matches_roster_spelling(tmp_path):
    db = tmp_path / "q.sqlite3"
    fill(db)
    with ReviewQueue(db) as queue:
        seq = queue.resolve(1, "  ruth   lindqvist ", "block")
        assert queue.show(seq)["payload"]["reviewer"] == "Ruth Lindqvist"
        # translation reviewers are governance people too
        assert queue.show(queue.resolve(3, "Diego Salas", "block"))["payload"]["reviewer"] == "Diego Salas"


def test_roster_file_replaces_the_glossary_people(tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_text("# on call this week\nMallory Quinn\n\n", encoding="utf-8")
    db = tmp_path / "q.sqlite3"
    fill(db)
    with ReviewQueue(db, roster=Roster.from_file(roster)) as queue:
        assert queue.resolve(1, "Mallory Quinn", "block")
        with pytest.raises(QueueError, match="not a reviewer on the roster"):
            queue.resolve(1, "Ruth Lindqvist", "block")


@pytest.mark.parametrize("content", ["automated-agent\n", "Ann\u200bBell\n", "# nobody\n"])
def test_roster_file_that_lists_no_person_is_refused(tmp_path, content):
    roster = tmp_path / "roster.txt"
    roster.write_text(content, encoding="utf-8")
    with pytest.raises(RosterError):
        Roster.from_file(roster)


def test_check_name_cleans_but_never_invents():
    assert check_name(" Ruth  Lindqvist ") == "Ruth Lindqvist"
    assert check_name("Zo\u0065\u0301") == "Zo\u00e9"  # NFC
    with pytest.raises(RosterError, match="U\\+200B"):
        check_name("Ann\u200b")


# -- the CLI, as a reviewer runs it -------------------------------------------


def cli(*args, env=None):
    full_env = dict(os.environ, PYTHONPATH=ROOT, **(env or {}))
    return subprocess.run([sys.executable, "-m", "semgap_spacy", *args], capture_output=True,
                          text=True, encoding="utf-8", errors="surrogateescape", env=full_env, cwd=ROOT,
                          timeout=120)


def test_cli_verify_fails_without_triggers_and_anchor_catches_truncation(tmp_path):
    db = tmp_path / "q.sqlite3"
    fill(db)
    head = cli("queue", "head", "--db", str(db))
    assert head.returncode == 0
    anchor = head.stdout.strip()
    assert len(anchor) == 64
    conn = open_raw(db)
    t_truncate_fix_sequence(conn)
    conn.close()
    dropped = cli("queue", "verify", "--db", str(db))
    assert dropped.returncode == 1 and "trigger" in dropped.stderr and "missing" in dropped.stderr
    conn = open_raw(db)
    restore_triggers(conn)
    conn.close()
    plain = cli("queue", "verify", "--db", str(db))
    assert plain.returncode == 0  # a clean cut fools the chain alone: the documented limit
    anchored = cli("queue", "verify", "--db", str(db), "--anchor", anchor)
    assert anchored.returncode == 1 and "cut off" in anchored.stderr and "Traceback" not in anchored.stderr


def test_cli_keyed_queue_catches_forged_append(tmp_path):
    db = tmp_path / "q.sqlite3"
    env = {"QUEUE_KEY": KEY.decode()}
    made = cli("queue", "enqueue", "--db", str(db), "--key-env", "QUEUE_KEY", "--decisions",
               str(_decisions_file(tmp_path)), env=env)
    assert made.returncode == 0, made.stderr
    conn = open_raw(db)
    forged_append(conn)
    restore_triggers(conn)
    conn.close()
    assert cli("queue", "verify", "--db", str(db)).returncode == 0  # no key: not caught
    keyed = cli("queue", "verify", "--db", str(db), "--key-env", "QUEUE_KEY", env=env)
    assert keyed.returncode == 1 and "without the key" in keyed.stderr
    missing = cli("queue", "verify", "--db", str(db), "--key-env", "NO_SUCH_VARIABLE")
    assert missing.returncode == 1 and "NO_SUCH_VARIABLE is not set" in missing.stderr


def _decisions_file(tmp_path):
    path = tmp_path / "decisions.jsonl"
    rows = [dict(decision("c-1"), text_sha256="11" * 32),
            dict(decision("c-2\n    9  forged-row escalate  resolved  -> proceed by Ruth Lindqvist\x1b[8m"),
                 text_sha256="22" * 32)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_cli_escapes_case_ids_and_names(tmp_path):
    db = tmp_path / "q.sqlite3"
    assert cli("queue", "enqueue", "--db", str(db), "--decisions", str(_decisions_file(tmp_path))).returncode == 0
    listed = cli("queue", "list", "--db", str(db))
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert len(lines) == 3  # header + two entries: the newline in the id forged nothing
    assert "\x1b" not in listed.stdout and "\\x0a" in lines[2] and "\\x1b[8m" in lines[2]
    for args in (["list", "--json"], ["show", "2"]):
        out = cli("queue", *args, "--db", str(db)).stdout
        assert "\x1b" not in out
        assert "\\u001b" in out
    refused = cli("queue", "resolve", "1", "--db", str(db), "--outcome", "proceed",
                  "--reviewer", "Eve\x1b[2J\u202e")
    assert refused.returncode == 1
    assert "\x1b" not in refused.stderr and "\u202e" not in refused.stderr
    assert "not a reviewer on the roster" in refused.stderr or "do not print" in refused.stderr
    roster = tmp_path / "roster.txt"
    roster.write_text("Mallory Quinn\n", encoding="utf-8")
    ok = cli("queue", "resolve", "1", "--db", str(db), "--outcome", "block", "--reviewer", "mallory quinn",
             "--roster", str(roster))
    assert ok.returncode == 0 and "by Mallory Quinn" in ok.stdout


def test_cli_list_warns_when_the_rows_it_shows_were_edited(tmp_path):
    """A reviewer works from ``queue list``: a row edited to "proceed" behind the queue's back is
    still listed, but the command says the chain is broken and exits 1."""
    db = tmp_path / "q.sqlite3"
    fill(db)
    assert cli("queue", "list", "--db", str(db)).returncode == 0
    conn = open_raw(db)
    t_edit_decision(conn)
    restore_triggers(conn)
    conn.close()
    for extra in ((), ("--json",)):
        listed = cli("queue", "list", "--db", str(db), *extra)
        assert listed.returncode == 1 and listed.stdout.strip()
        assert "chain is broken" in listed.stderr and "entry 3" in listed.stderr, listed.stderr
        assert "Traceback" not in listed.stderr


def _real_escalation():
    from semgap_spacy import build_pipeline, decide_cases

    text = "Clear to close. Scans uploaded to the portal."
    decided = next(decide_cases(build_pipeline(), [{"id": "c-1", "domain": "mortgage", "text": text}]))
    assert decided["decision"] == "escalate"
    return decided, text


@pytest.mark.parametrize("forge, needle", [
    # words the text does not hold at their spans: teaching would draft them
    (lambda d: next(r for r in d["reasons"] if r["code"] == "unexplained_content").update(words=["rejected"]),
     "are not the text at word_spans"),
    # an outcome its reasons do not give
    (lambda d: d.update(decision="block"), "its reasons give 'escalate'"),
    # no reasons at all, said to block
    (lambda d: d.update(decision="block", reasons=[]), "its reasons give 'escalate'"),
])
def test_a_decision_its_own_reasons_and_text_contradict_is_not_queued(tmp_path, forge, needle):
    decided, text = _real_escalation()
    with ReviewQueue(tmp_path / "q.db") as queue:
        assert queue.enqueue(json.loads(json.dumps(decided)), text).created  # the real one is fine
        forged = json.loads(json.dumps(decided))
        forge(forged)
        forged["id"] = "c-2"  # not the real one's row, already queued
        with pytest.raises(QueueError, match=needle):
            queue.enqueue(forged, text)
        assert queue.verify().ok


def test_a_decision_is_queued_under_its_own_case_id_only(tmp_path):
    decided, text = _real_escalation()
    with ReviewQueue(tmp_path / "q.db") as queue:
        with pytest.raises(QueueError, match="the case id 'c-2' is not the decision's own id 'c-1'"):
            queue.enqueue(decided, text, case_id="c-2")
        assert queue.enqueue(decided, text, case_id="c-1").created
        numbered = dict(decided, id=7)
        assert queue.enqueue(numbered, text, case_id="7").created  # a numbered id is stored as its string

"""An append-only, hash-chained review queue for decisions a person must see.

Escalate and block decisions are only useful if someone reviews them, and
the record of that review is only useful if nobody can quietly rewrite it
afterwards. So the queue is one SQLite table that refuses UPDATE and DELETE
(triggers), where every row carries the SHA-256 of its own content and of the
row before it. Dropping the triggers and editing, deleting or reordering rows
is still possible for anyone with the file, but ``ReviewQueue.verify`` then
names the first row where the chain breaks.

A resolution or a clarification is a new row that points at the decision
row it is about; nothing is ever changed in place. The latest resolution of
a decision is its current one.

The raw text of a case is NOT stored unless the queue is opened with
``store_raw_text=True``: domain text may carry personal data, and the text's
SHA-256 is enough to prove which text was decided on.

What each way of checking guarantees (see also the README):

* ``verify()``: every row agrees with its own hash and with the row before
  it, seqs have no gap, no row was cut off behind SQLite's record of the
  highest seq, and the append-only triggers are in place, unaltered.
  Someone with write access can still cut the tail and fix
  ``sqlite_sequence``, or re-hash every row from a forged one onwards.
* ``verify(anchor=...)``: also, the head recorded earlier (``head()``, kept
  outside this file) is still in the chain, so a cut or re-hashed tail up to
  that point is caught; rows appended after the anchor are not covered.
* ``verify(key=...)`` on a queue written with a key: every row also carries
  an HMAC of its hash (``signing.py``), so a forged or re-hashed row made
  without the key is caught. A key cannot tell that rows were cut off the
  end; only an anchor can.

Resolutions and clarifications must name a person on the roster
(``roster.py``): the glossaries' governance people, or a roster file.
"""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, TextIO, Tuple, Union

from ..core.provenance import expected_outcome, word_problems
from ..util import signing
from ..glossary.drafts import (MEANS_TERM, PROBLEM, SCOPE_ALL, Evidence, Objection, TeachingError, check_entries,
                               clause_entries, drafts_lock, governed_dir, load_drafts, normal_choice, normal_scope,
                               save_drafts)
from ..glossary.models import GlossaryError, bundled_glossary_dir, load_glossaries
from ..glossary.roster import Roster, RosterError, load_roster
from ..util.signing import canonical_json

GENESIS_HASH = "0" * 64
SCHEMA_VERSION = 2  # 2: row_mac (keyed chain)
KINDS = ("decision", "resolution", "concept_clarified")
OUTCOMES = ("proceed", "escalate", "block")
QUEUEABLE = ("escalate", "block")
STATUSES = ("open", "resolved", "all")
# Reviewer choices for an ambiguous abbreviation that are not a meaning.
CHOICE_LEAVE_OPEN = "leave open"
CHOICE_REJECT = "reject"
CHOICE_OTHER_PREFIX = "other:"
# Long enough for four writers hammering one file on a slow CI disk.
BUSY_TIMEOUT_MS = 30_000

# The columns that row_hash covers, in the order they are stored.
HASHED_FIELDS = (
    "seq",
    "kind",
    "ref_seq",
    "case_id",
    "decision",
    "text_sha256",
    "glossary_version",
    "glossary_sha256",
    "decision_json",
    "raw_text",
    "payload_json",
    "created_at",
    "prev_hash",
)
COLUMNS = HASHED_FIELDS + ("row_hash", "row_mac")
TRIGGERS = ("entries_no_update", "entries_no_delete")

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SURROGATE = re.compile("[\ud800-\udfff]")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('decision', 'resolution', 'concept_clarified')),
    ref_seq INTEGER,
    case_id TEXT,
    decision TEXT,
    text_sha256 TEXT,
    glossary_version TEXT,
    glossary_sha256 TEXT,
    decision_json TEXT,
    raw_text TEXT,
    payload_json TEXT,
    created_at TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    row_hash TEXT NOT NULL UNIQUE,
    row_mac TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_decision_key
    ON entries (ifnull(case_id, ''), text_sha256, ifnull(glossary_sha256, ''))
    WHERE kind = 'decision';
CREATE INDEX IF NOT EXISTS entries_ref ON entries (ref_seq) WHERE ref_seq IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN
    SELECT RAISE(ABORT, 'review queue is append-only: UPDATE is refused');
END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN
    SELECT RAISE(ABORT, 'review queue is append-only: DELETE is refused');
END;
"""


class QueueError(ValueError):
    """An action the queue refuses; the message says why, for a person to read."""


@dataclass(frozen=True)
class EnqueueResult:
    """Where a decision sits in the queue.

    seq (int): The decision row's sequence number.
    created (bool): False if the same decision (case id, text hash, glossary
        hash) was already queued and ``seq`` is that earlier row.
    """

    seq: int
    created: bool


@dataclass(frozen=True)
class TeachResult:
    """A reviewer's recorded choice for a clause.

    seq (int): The ``concept_clarified`` row.
    choice (str): The normalised option.
    domain (str): The case's domain.
    drafts (Tuple[str, ...]): The draft ids written (none for *problem*).
    words (Tuple[str, ...]): The clause's words the choice covers.
    scope (str): "domain" (the drafts hold in ``domain``) or "all" (in every domain).
    withdrawn (Tuple[str, ...]): The words of this reviewer's earlier *problem* marks on this
        clause that the choice withdraws (the marks stand for their other words).
    """

    seq: int
    choice: str
    domain: str
    drafts: Tuple[str, ...]
    words: Tuple[str, ...]
    scope: str = "domain"
    withdrawn: Tuple[str, ...] = ()


@dataclass(frozen=True)
class VerifyResult:
    """The outcome of walking the hash chain.

    ok (bool): True if every row is intact and in place.
    first_bad_seq (Optional[int]): The first row where the chain breaks: an
        edited or moved row, or, for a deleted row, the seq that is missing.
    message (str): What was found, for a person to read.
    rows (int): How many rows were checked.
    """

    ok: bool
    first_bad_seq: Optional[int]
    message: str
    rows: int = 0


def text_sha256(text: str) -> str:
    """SHA-256 of the UTF-8 bytes of a text, exactly as given (no normalising).

    Lone surrogates are encoded, not refused, the same way the decision
    component hashes them, so a decision's own ``text_sha256`` agrees.

    text (str): The case text.
    RETURNS (str): 64 lowercase hex digits.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def compute_row_hash(fields: Dict[str, Any]) -> str:
    """The hash a row must carry, so anyone can re-check an export without this code.

    fields (Dict[str, Any]): At least every name in ``HASHED_FIELDS``, with the
        stored values (JSON columns as their stored strings).
    RETURNS (str): SHA-256 hex of the canonical JSON of those fields.
    """
    content = {name: fields[name] for name in HASHED_FIELDS}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _storable(text: str) -> str:
    # SQLite stores UTF-8 only; a lone surrogate becomes U+FFFD in a stored
    # column (the hashed JSON columns keep it, escaped), and text_sha256
    # still names the exact text that was decided on.
    return _SURROGATE.sub("\ufffd", text)


def _storable_opt(text: Optional[str]) -> Optional[str]:
    return None if text is None else _storable(text)


def _require_reviewer(reviewer: Any, action: str, roster: Optional[Roster] = None) -> str:
    if not isinstance(reviewer, str) or not reviewer.strip():
        raise QueueError(
            f"{action} refused: a named human reviewer is required "
            "(got an empty or missing reviewer name)"
        )
    if roster is None:
        return reviewer.strip()
    try:
        return roster.person(reviewer, action)
    except RosterError as exc:
        message = str(exc)
        if not message.startswith(action):
            message = f"{action} refused: {message}"
        raise QueueError(message) from None


def parse_anchor(anchor: Any) -> "Tuple[Optional[int], str]":
    """An anchor as (seq or None, row hash): from ``head()``, "HASH" or "SEQ:HASH".

    RAISES (QueueError): Not a 64-hex-digit hash (with an optional seq).
    """
    if isinstance(anchor, tuple) and len(anchor) == 2:
        seq, digest = anchor
    elif isinstance(anchor, str):
        seq_text, _, digest = anchor.strip().rpartition(":")
        if seq_text and not seq_text.isdigit():
            raise QueueError(f"anchor {anchor!r}: the part before ':' must be a seq number")
        seq = int(seq_text) if seq_text else None
    else:
        raise QueueError(f"an anchor is a row hash from 'queue head', got {type(anchor).__name__}")
    if not (isinstance(digest, str) and _SHA256.match(digest.lower())):
        raise QueueError(f"anchor {anchor!r} is not a 64-hex-digit row hash from 'queue head'")
    if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int) or seq < 0):
        raise QueueError(f"anchor seq must be a non-negative integer, got {seq!r}")
    return seq, digest.lower()


def is_queue_file(path: Union[str, Path]) -> bool:
    """Whether an existing file is a review queue: an SQLite database holding the queue's
    ``entries`` table, looked at read-only, so nothing is written to a file that is not one.

    RAISES (sqlite3.DatabaseError): The file is no SQLite database at all.
    """
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone()
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return True  # cannot be looked at read-only (a locked or unwritable WAL queue): the open says why
    return found is not None


class ReviewQueue:
    """The review queue in one SQLite file (WAL mode, safe across processes).

    path (Union[str, Path]): The SQLite file; created if missing.
    store_raw_text (bool): Keep the case text itself, not only its SHA-256.
        Off by default because domain text may carry personal data; turn it
        on only where the reviewers need the text and may hold it.
        Defaults to False.
    clock (Optional[Callable[[], str]]): Returns the UTC ISO timestamp for a
        new row; for tests. Defaults to the system clock.
    roster (Optional[Roster]): Who may sign resolutions and clarifications.
        Defaults to ``roster.load_roster()``: the roster file configured in
        ``SEMGAP_QUEUE_ROSTER``, else the bundled glossaries' governance
        people (read when first needed).
    key (Optional[bytes]): The HMAC key of a keyed chain: every new row gets
        a ``row_mac`` and ``verify`` checks them. Defaults to the key the
        configuration names (``signing.load_key()``), else unkeyed. A keyed
        queue refuses unkeyed appends and the reverse, so a chain never mixes.
    """

    def __init__(self, path: Union[str, Path], *, store_raw_text: bool = False,
                 clock: Optional[Callable[[], str]] = None, roster: Optional[Roster] = None,
                 key: Optional[bytes] = None) -> None:
        self.path = Path(path)
        self.store_raw_text = bool(store_raw_text)
        self._clock = clock or _utc_now
        self._roster = roster
        try:
            self._key = key if key is not None else signing.load_key()
        except signing.SigningKeyError as exc:
            raise QueueError(str(exc)) from None
        if self._key is not None and len(self._key) < signing.MIN_KEY_BYTES:
            raise QueueError(f"the queue key must be at least {signing.MIN_KEY_BYTES} bytes")
        # What is wrong with the append-only protection of an existing file;
        # found when it is opened, before anything could re-create it.
        self.trigger_problems: List[str] = []
        # isolation_level=None: we issue BEGIN IMMEDIATE ourselves, so the
        # write lock is taken before the last row hash is read.
        self._conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000,
                                     isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._init_schema()

    # -- lifecycle -------------------------------------------------------

    def _init_schema(self) -> None:
        # Switching to WAL needs a moment of exclusive access, and several
        # processes may open a fresh file at once; the busy handler does not
        # cover this pragma, so retry briefly.
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        if str(mode).lower() != "wal":
            raise QueueError(f"{self.path}: could not switch the queue to WAL mode (got {mode})")
        # FULL: an acknowledged review must survive a power cut.
        self._conn.execute("PRAGMA synchronous = FULL")
        with self._write():
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise QueueError(
                    f"{self.path}: queue schema {version} is newer than this package "
                    f"understands ({SCHEMA_VERSION}); upgrade semgap_spacy"
                )
            existed = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone()
            for statement in _split_sql(_SCHEMA):
                # The triggers are made with the table, never again: silently
                # re-creating dropped ones would hide that someone dropped them.
                if existed and statement.startswith("CREATE TRIGGER"):
                    continue
                self._conn.execute(statement)
            if existed and version < 2:
                columns = {r["name"] for r in self._conn.execute("PRAGMA table_info(entries)")}
                if "row_mac" not in columns:
                    self._conn.execute("ALTER TABLE entries ADD COLUMN row_mac TEXT")
            if version < SCHEMA_VERSION:
                self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.trigger_problems = self._check_triggers()

    def _check_triggers(self) -> List[str]:
        """What is missing or changed in the append-only triggers, compared with the schema."""
        expected = {}
        for statement in _split_sql(_SCHEMA):
            if statement.startswith("CREATE TRIGGER"):
                name = statement.split()[5]
                expected[name] = _normal_sql(statement.replace("IF NOT EXISTS ", "", 1))
        found = {r["name"]: r["sql"] for r in self._conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'entries'")}
        problems = []
        for name, sql in expected.items():
            if name not in found:
                problems.append(f"the append-only trigger {name} is missing")
            elif _normal_sql(found[name]) != sql:
                problems.append(f"the append-only trigger {name} was altered")
        for name in sorted(set(found) - set(expected)):
            problems.append(f"an unexpected trigger {name!r} is on the entries table")
        return problems

    def _reviewer(self, reviewer: Any, action: str) -> str:
        if self._roster is None and isinstance(reviewer, str) and reviewer.strip():
            try:
                self._roster = load_roster()
            except RosterError as exc:
                raise QueueError(f"{action} refused: {exc}") from None
        return _require_reviewer(reviewer, action, self._roster)

    def close(self) -> None:
        """Close the connection. The queue object cannot be used afterwards."""
        self._conn.close()

    def __enter__(self) -> "ReviewQueue":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _write(self) -> "_WriteTx":
        return _WriteTx(self._conn)

    # -- appending -------------------------------------------------------

    def _append(self, row: Dict[str, Any]) -> int:
        """Insert one row at the end of the chain. Call inside ``_write()``.

        Refused when the append-only triggers are gone (a review written on
        top of a queue someone has opened for editing would lend it trust),
        and when the row would mix keyed and unkeyed rows in one chain.
        """
        if self.trigger_problems:
            raise QueueError(f"{self.path}: writing refused, {self.trigger_problems[0]}; "
                             "the queue may have been edited (run 'queue verify')")
        last = self._conn.execute(
            "SELECT seq, row_hash, row_mac FROM entries ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        if last is not None and (last["row_mac"] is None) != (self._key is None):
            raise QueueError(
                f"{self.path}: writing refused, the queue was written "
                + ("without a key and cannot take keyed rows" if self._key is not None
                   else "with a key; give the same key (--key-file or --key-env)"))
        seq = (last["seq"] + 1) if last else 1
        prev_hash = last["row_hash"] if last else GENESIS_HASH
        fields = {name: None for name in HASHED_FIELDS}
        fields.update(row)
        fields.update(seq=seq, prev_hash=prev_hash, created_at=self._clock())
        fields["row_hash"] = compute_row_hash(fields)
        fields["row_mac"] = (signing.mac(self._key, signing.PURPOSE_QUEUE_ROW, fields["row_hash"])
                             if self._key is not None else None)
        placeholders = ", ".join("?" for _ in COLUMNS)
        self._conn.execute(
            f"INSERT INTO entries ({', '.join(COLUMNS)}) VALUES ({placeholders})",
            [fields[c] for c in COLUMNS],
        )
        return seq

    def _follow_up(self, kind: str, target: sqlite3.Row, payload: Dict[str, Any], **columns: Any) -> int:
        """Append a row about a decision row (inside ``_write()``): a resolution or a clarification."""
        return self._append({
            "kind": kind,
            "ref_seq": target["seq"],
            "case_id": target["case_id"],
            "text_sha256": target["text_sha256"],
            "glossary_version": target["glossary_version"],
            "glossary_sha256": target["glossary_sha256"],
            "payload_json": canonical_json(payload),
            **columns,
        })

    def enqueue(self, decision: Dict[str, Any], text: Optional[str],
                case_id: Optional[str] = None) -> EnqueueResult:
        """Queue an escalate or block decision for a person to review.

        Enqueuing is idempotent on (case id, text SHA-256, glossary SHA-256),
        so a retried batch never creates a second review for the same thing.

        decision (Dict[str, Any]): A decision as in spec §5. Kept whole,
            including extra keys.
        text (Optional[str]): The case text the decision was made on. May be
            None only if the decision carries its own ``text_sha256``.
        case_id (Optional[str]): The case id. Defaults to ``decision["id"]``;
            an integer id is stored as its decimal string.
        RETURNS (EnqueueResult): The row's seq and whether it is new.
        """
        if not isinstance(decision, dict):
            raise QueueError(f"a decision must be a JSON object, not {type(decision).__name__}")
        outcome = decision.get("decision")
        if outcome == "proceed":
            raise QueueError(
                "enqueue refused: a proceed decision needs no review; only "
                "escalate and block decisions are queued"
            )
        if outcome not in QUEUEABLE:
            raise QueueError(
                f"enqueue refused: decision must be 'escalate' or 'block', got {outcome!r}"
            )
        own = decision.get("id")
        if case_id is None:
            case_id = own
        if isinstance(case_id, int) and not isinstance(case_id, bool):
            case_id = str(case_id)  # JSONL cases may number their ids
        if own is not None and case_id != (str(own) if isinstance(own, int) and not isinstance(own, bool) else own):
            # the row is found again, and taught from, by its case id: it must be the decision's own
            raise QueueError(f"enqueue refused: the case id {case_id!r} is not the decision's own id {own!r}")
        if case_id is not None and not isinstance(case_id, str):
            raise QueueError(f"case id must be a string, got {type(case_id).__name__}")
        if case_id is not None:
            case_id = _storable(case_id)
        claimed = decision.get("text_sha256")
        if text is not None:
            if not isinstance(text, str):
                raise QueueError(f"text must be a string, got {type(text).__name__}")
            digest = text_sha256(text)
            if claimed is not None and claimed != digest:
                raise QueueError(
                    f"enqueue refused for case {case_id!r}: the decision's text_sha256 "
                    "does not match the text given (was it decided on another text?)"
                )
        elif isinstance(claimed, str) and _SHA256.match(claimed):
            digest = claimed
        else:
            raise QueueError(
                f"enqueue refused for case {case_id!r}: the text (or a valid "
                "text_sha256 in the decision) is needed to identify what was decided"
            )
        for key in ("glossary_version", "glossary_sha256"):
            if decision.get(key) is not None and not isinstance(decision.get(key), str):
                raise QueueError(f"decision {key} must be a string")
        # what a reviewer will act on must be what the decision's reasons say, on this text
        implied = expected_outcome(decision.get("reasons"))
        if outcome != implied:
            raise QueueError(f"enqueue refused for case {case_id!r}: the decision says {outcome!r}, but its "
                             f"reasons give {implied!r}")
        if text is not None:
            for i, reason in enumerate(decision.get("reasons") or []):
                for problem in word_problems(i, reason, text):
                    raise QueueError(f"enqueue refused for case {case_id!r}: {problem}")
        try:
            decision_json = canonical_json(decision)
        except (TypeError, ValueError) as err:
            raise QueueError(f"decision is not plain JSON: {err}") from None
        glossary_sha = _storable_opt(decision.get("glossary_sha256"))
        with self._write():
            existing = self._conn.execute(
                "SELECT seq FROM entries WHERE kind = 'decision' "
                "AND ifnull(case_id, '') = ifnull(?, '') AND text_sha256 = ? "
                "AND ifnull(glossary_sha256, '') = ifnull(?, '')",
                (case_id, digest, glossary_sha),
            ).fetchone()
            if existing:
                return EnqueueResult(existing["seq"], False)
            seq = self._append({
                "kind": "decision",
                "case_id": case_id,
                "decision": outcome,
                "text_sha256": digest,
                "glossary_version": _storable_opt(decision.get("glossary_version")),
                "glossary_sha256": glossary_sha,
                "decision_json": decision_json,
                "raw_text": _storable(text) if (self.store_raw_text and text is not None) else None,
            })
        return EnqueueResult(seq, True)

    def _decision_row(self, seq: Any, action: str) -> sqlite3.Row:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise QueueError(f"{action} refused: seq must be an integer, got {seq!r}")
        row = self._conn.execute("SELECT * FROM entries WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise QueueError(f"{action} refused: there is no queue entry {seq}")
        if row["kind"] != "decision":
            raise QueueError(
                f"{action} refused: entry {seq} is a {row['kind']}, not a decision"
            )
        return row

    def resolve(self, seq: int, reviewer: str, outcome: str, rationale: str = "") -> int:
        """Record a person's resolution of a queued decision.

        A later resolution of the same decision supersedes an earlier one;
        both stay in the chain.

        seq (int): The decision row being resolved.
        reviewer (str): The human reviewer's name; anonymous resolutions are
            refused, because a review nobody owns is not a review.
        outcome (str): "proceed", "escalate" or "block".
        rationale (str): Why. Defaults to "".
        RETURNS (int): The seq of the new resolution row.
        """
        reviewer = self._reviewer(reviewer, "resolution")
        if outcome not in OUTCOMES:
            raise QueueError(
                f"resolution refused: outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}"
            )
        if not isinstance(rationale, str):
            raise QueueError("resolution refused: rationale must be text")
        with self._write():
            target = self._decision_row(seq, "resolution")
            payload = {"reviewer": reviewer, "outcome": outcome, "rationale": rationale}
            return self._follow_up("resolution", target, payload, decision=outcome)

    def clarify(self, seq: int, reviewer: str, abbreviation: str, choice: str,
                rationale: str = "", domain: Optional[str] = None) -> int:
        """Record a reviewer's reading of an ambiguous abbreviation in a decision.

        Clarifications are kept so a review UI can offer them again for the
        same abbreviation; they are never applied automatically, because the
        same letters can mean something else in the next case.

        seq (int): The decision row the abbreviation appeared in.
        reviewer (str): The human reviewer's name (required).
        abbreviation (str): The abbreviation as written, e.g. "MS".
        choice (str): A meaning (e.g. "mitral stenosis"; one of the
            decision's offered options where it lists them), "other: <free
            text>", "leave open" or "reject".
        rationale (str): Why. Defaults to "".
        domain (Optional[str]): The domain; defaults to the decision's
            ``domain`` key if it has one.
        RETURNS (int): The seq of the new ``concept_clarified`` row.
        """
        reviewer = self._reviewer(reviewer, "clarification")
        if not isinstance(abbreviation, str) or not abbreviation.strip():
            raise QueueError("clarification refused: the abbreviation is empty")
        if not isinstance(choice, str) or not choice.strip():
            raise QueueError(
                "clarification refused: choose a meaning, 'other: <text>', "
                "'leave open' or 'reject'"
            )
        choice = choice.strip()
        special = choice.lower().replace("_", " ")
        if special.startswith(CHOICE_OTHER_PREFIX):
            free = choice[len(CHOICE_OTHER_PREFIX):].strip()
            if not free:
                raise QueueError("clarification refused: 'other:' needs the meaning written out")
            choice = f"{CHOICE_OTHER_PREFIX} {free}"
        elif special in (CHOICE_LEAVE_OPEN, CHOICE_REJECT):
            choice = special
        if not isinstance(rationale, str):
            raise QueueError("clarification refused: rationale must be text")
        with self._write():
            target = self._decision_row(seq, "clarification")
            decision = json.loads(target["decision_json"])
            _check_choice(decision, seq, abbreviation.strip(), choice)
            if domain is None:
                dom = decision.get("domain")
                domain = dom if isinstance(dom, str) else None
            payload = {
                "reviewer": reviewer,
                "abbreviation": abbreviation.strip(),
                "choice": choice,
                "rationale": rationale,
                "domain": domain,
            }
            return self._follow_up("concept_clarified", target, payload)

    def teach(self, seq: int, reviewer: str, clause: int, choice: str, *,
              words: Optional[Sequence[str]] = None, phrase: Optional[str] = None,
              term_id: Optional[str] = None, lang: Optional[str] = None, note: str = "",
              domain: Optional[str] = None, scope: Optional[str] = None, spellings: bool = False,
              glossary_dir: Optional[Union[str, Path]] = None) -> "TeachResult":
        """Record a reviewer's choice for one clause of an ``unexplained_content`` escalation (spec §4.2).

        *neutral*, *name* and *means_term* also write drafts to
        ``<glossary_dir>/drafts/<domain>.json`` (scope "all":
        ``drafts/all.json``) with the reviewer, the case's text hash, the
        clause and the scope as evidence; a draft decides nothing until a
        second person approves it (``glossary approve``). *problem* writes no
        draft: the case stays escalated, and an objection with the note goes
        to the domain's drafts file, so a draft of the same words (from this
        clause, or anywhere when ``words`` names them) is held back from
        approval while it stands; the same reviewer's later choice for that
        clause withdraws it. The choice is a
        ``concept_clarified`` row pointing at the decision; the decision
        itself is never changed. A refusal writes nothing, to the queue or the drafts.

        seq (int): The decision row.
        reviewer (str): The human reviewer, on the roster.
        clause (int): Which clause: 1 for the decision's first
            ``unexplained_content`` reason, 2 for the second, ...
        choice (str): "neutral", "name", "means_term" or "problem".
        words (Optional[Sequence[str]]): The clause's unexplained words the
            choice is about. Defaults to all of them.
        phrase (Optional[str]): The name (*name*) or the phrase (*means_term*)
            as the clause writes it. Defaults to the chosen words.
        term_id (Optional[str]): The term X of *means_term*.
        lang (Optional[str]): The language list of a neutral word or phrase. Defaults to "en".
        note (str): What the reviewer saw; required for *problem*.
        domain (Optional[str]): Only for a decision that names no domain (refused when it
            names another one); defaults to the domain the reason names.
        scope (Optional[str]): For *neutral* and *name*: "domain" (the case's
            domain; the default, as spec §4.2 says) or "all" (every domain:
            "thanks", a staff member's name).
        glossary_dir (str | Path | None): The governed glossaries the drafts are for; the
            bundled ones (the default) are the package's own files and are refused (``governed_dir``).
        RETURNS (TeachResult): The new row's seq and the draft ids.
        """
        reviewer = self._reviewer(reviewer, "teaching")
        try:
            choice = normal_choice(choice)
            scope_given, scope = scope, normal_scope(scope)
        except TeachingError as exc:
            raise QueueError(f"teaching refused: {exc}") from None
        if not isinstance(note, str):
            raise QueueError("teaching refused: the note must be text")
        if choice == PROBLEM and not note.strip():
            raise QueueError("teaching refused: a problem needs a note that says what the problem is "
                             "(--note, or note over MCP); the note is kept with the escalated case")
        gdir = Path(glossary_dir) if glossary_dir else bundled_glossary_dir()
        with self._write():
            target = self._decision_row(seq, "teaching")
            reasons = [r for r in json.loads(target["decision_json"]).get("reasons") or []
                       if isinstance(r, dict) and r.get("code") == "unexplained_content"]
            if not reasons:
                raise QueueError(f"teaching refused: entry {seq} has no unexplained_content reason; "
                                 "there is no clause to teach")
            if isinstance(clause, bool) or not isinstance(clause, int) or not 1 <= clause <= len(reasons):
                raise QueueError(f"teaching refused: entry {seq} has {len(reasons)} clause"
                                 f"{'s' if len(reasons) != 1 else ''} with unexplained words "
                                 f"(1..{len(reasons)}), not {clause!r}")
            reason = reasons[clause - 1]
            named = reason.get("domain")
            domain = domain or named
            try:
                if not isinstance(domain, str) or not domain:
                    raise TeachingError("the decision does not name its domain; give the domain")
                if isinstance(named, str) and named and domain != named:
                    # the evidence is a case of its own domain: drafts for another would be unseen there
                    raise TeachingError(f"the decision names its domain {named!r}; a domain is given only for a "
                                        f"decision that names none, not {domain!r}")
                entries, covered = clause_entries(reason, choice, words=words, phrase=phrase,
                                                  term_id=term_id, lang=lang, scope=scope_given,
                                                  spellings=spellings)
                if entries:
                    check_entries(load_glossaries(gdir), domain, entries, reviewer)
                # the drafts are read, added to and written under one lock: another queue may teach meanwhile
                with drafts_lock(governed_dir(gdir)):
                    drafts = load_drafts(gdir, SCOPE_ALL if scope == SCOPE_ALL else domain)
                    disputes = drafts if scope != SCOPE_ALL else load_drafts(gdir, domain)
                    # a reviewer's new choice about words of a clause replaces their own objection to those
                    # words there; the objection stands for the clause's other words it named
                    kept, lifted = [], []
                    for o in disputes.objections:
                        now = o.after_choice(reviewer, target["text_sha256"], reason.get("start_char"), covered)
                        if now is not o:
                            lifted.extend(w for w in o.words if now is None or w not in now.words)
                        if now is not None:
                            kept.append(now)
                    withdrawn, disputes.objections = len(lifted), kept
                    if entries:
                        evidence = Evidence(reviewer=reviewer, text_sha256=target["text_sha256"],
                                            clause=reason.get("evidence", ""), case_id=target["case_id"],
                                            start_char=reason.get("start_char"),
                                            end_char=reason.get("end_char"), words=covered, at=self._clock(),
                                            domain=domain, scope=scope)
                        ids = drafts.add(entries, evidence)
                    else:  # problem: an objection the approver of any draft of these words must see
                        evidence = Objection(reviewer=reviewer, text_sha256=target["text_sha256"],
                                             clause=reason.get("evidence", ""), words=covered,
                                             words_named=words is not None, note=note.strip(),
                                             case_id=target["case_id"], start_char=reason.get("start_char"),
                                             end_char=reason.get("end_char"), at=self._clock())
                        drafts.objections.append(evidence)
                        ids = []
                    payload = {"subject": "clause", "reviewer": reviewer, "clause": clause, "choice": choice,
                               "words_named": words is not None,
                               "start_char": reason.get("start_char"), "end_char": reason.get("end_char"),
                               "evidence": reason.get("evidence"), "words": covered, "domain": domain,
                               "scope": scope, "term_id": term_id if choice == MEANS_TERM else None,
                               "entries": [e.describe() for e in entries], "drafts": ids, "note": note}
                    row = self._follow_up("concept_clarified", target, payload)
                    evidence.queue_seq, evidence.queue = row, str(self.path.resolve())
                    evidence.row_hash = self._conn.execute(
                        "SELECT row_hash FROM entries WHERE seq = ?", (row,)).fetchone()["row_hash"]
                    try:
                        save_drafts(gdir, drafts)
                        if withdrawn and disputes is not drafts:
                            save_drafts(gdir, disputes)
                    except OSError as exc:
                        raise TeachingError(f"cannot write the drafts: {exc}") from None
            except (TeachingError, GlossaryError) as exc:
                raise QueueError(f"teaching refused: {exc}") from None
        return TeachResult(row, choice, domain, tuple(ids), tuple(covered), scope, tuple(dict.fromkeys(lifted)))

    # -- reading ---------------------------------------------------------

    def clause_reviews(self, seq: Optional[int] = None) -> List[Dict[str, Any]]:
        """Reviewers' choices for clauses (``teach``), oldest first.

        seq (Optional[int]): Only those about this decision row. Defaults to all.
        RETURNS (List[Dict[str, Any]]): The payloads, with the row's ``seq``, ``ref_seq`` and ``created_at``.
        """
        where, params = "WHERE kind = 'concept_clarified'", ()
        if seq is not None:
            where, params = where + " AND ref_seq = ?", (seq,)
        found = []
        for row in self._rows(where, params):
            payload = json.loads(row["payload_json"])
            if payload.get("subject") == "clause":
                found.append({"seq": row["seq"], "ref_seq": row["ref_seq"], "case_id": row["case_id"],
                              "text_sha256": row["text_sha256"], "created_at": row["created_at"], **payload})
        return found

    def standing_objections(self) -> List[Tuple[int, Objection]]:
        """The *problem* marks of this queue that stand, with their rows: each reviewer's later
        choice about words of the same clause withdraws the mark on those words, as ``teach``
        does in the drafts file, so a mark deleted there by hand is still found here."""
        standing: List[Tuple[int, Objection]] = []
        for review in self.clause_reviews():
            after = ((seq, o.after_choice(review.get("reviewer"), review["text_sha256"], review.get("start_char"),
                                          review.get("words") or ())) for seq, o in standing)
            standing = [(seq, o) for seq, o in after if o is not None]
            if review.get("choice") == PROBLEM and review.get("words"):
                standing.append((review["seq"], Objection(
                    reviewer=review["reviewer"], text_sha256=review["text_sha256"],
                    clause=review.get("evidence") or "", words=review["words"],
                    words_named=bool(review.get("words_named")), note=review.get("note") or "",
                    case_id=review.get("case_id"), start_char=review.get("start_char"),
                    end_char=review.get("end_char"))))
        return standing

    def _rows(self, where: str = "", params: Iterable[Any] = ()) -> Iterator[sqlite3.Row]:
        return iter(self._conn.execute(f"SELECT * FROM entries {where} ORDER BY seq", tuple(params)))

    def clarifications_for(self, abbreviation: str,
                           domain: Optional[str] = None) -> List[Dict[str, Any]]:
        """Past reviewer choices for an abbreviation, newest first, to offer again.

        These are suggestions for a person; the pipeline never applies them.

        abbreviation (str): Matched case-insensitively.
        domain (Optional[str]): Only choices made in this domain (or with no
            domain recorded). Defaults to every domain.
        RETURNS (List[Dict[str, Any]]): One dict per clarification.
        """
        wanted = abbreviation.strip().casefold()
        found = []
        for row in self._rows("WHERE kind = 'concept_clarified'"):
            payload = json.loads(row["payload_json"])
            if "abbreviation" not in payload or payload["abbreviation"].casefold() != wanted:
                continue
            if domain is not None and payload.get("domain") not in (domain, None):
                continue
            found.append({"seq": row["seq"], "ref_seq": row["ref_seq"],
                          "case_id": row["case_id"], "created_at": row["created_at"], **payload})
        found.reverse()
        return found

    def list(self, status: str = "open") -> List[Dict[str, Any]]:
        """Queued decisions with their review status.

        status (str): "open" (no resolution yet), "resolved" or "all".
            Defaults to "open".
        RETURNS (List[Dict[str, Any]]): One summary dict per decision, by seq.
        """
        if status not in STATUSES:
            raise QueueError(f"status must be one of {', '.join(STATUSES)}, got {status!r}")
        latest: Dict[int, Dict[str, Any]] = {}
        for row in self._rows("WHERE kind = 'resolution'"):
            latest[row["ref_seq"]] = {"seq": row["seq"], "created_at": row["created_at"],
                                      **json.loads(row["payload_json"])}
        items = []
        for row in self._rows("WHERE kind = 'decision'"):
            resolution = latest.get(row["seq"])
            item_status = "resolved" if resolution else "open"
            if status != "all" and status != item_status:
                continue
            decision = json.loads(row["decision_json"])
            codes = [r.get("code") for r in decision.get("reasons") or [] if isinstance(r, dict)]
            items.append({
                "seq": row["seq"],
                "case_id": row["case_id"],
                "decision": row["decision"],
                "codes": codes,
                "created_at": row["created_at"],
                "status": item_status,
                "resolution": resolution,
            })
        return items

    def show(self, seq: int) -> Dict[str, Any]:
        """One entry in full, with every row that refers to it.

        seq (int): Any entry's seq.
        RETURNS (Dict[str, Any]): The entry, with ``decision_json`` parsed as
            "decision_record" and ``payload_json`` as "payload", and under
            "followups" its resolutions and clarifications in order.
        """
        row = self._conn.execute("SELECT * FROM entries WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise QueueError(f"there is no queue entry {seq}")
        entry = _entry_dict(row)
        entry["followups"] = [_entry_dict(r) for r in self._rows("WHERE ref_seq = ?", (seq,))]
        return entry

    def export(self, target: Union[str, Path, TextIO]) -> int:
        """Write every row as JSONL, columns exactly as stored.

        JSON columns stay strings, so the export can be re-hashed with
        ``compute_row_hash`` by someone who does not trust this file.

        target (Union[str, Path, TextIO]): A path or a text stream.
        RETURNS (int): The number of rows written.
        """
        if isinstance(target, (str, Path)):
            with open(target, "w", encoding="utf-8", newline="\n") as fh:
                return self.export(fh)
        n = 0
        for row in self._rows():
            # ASCII-only: a value holding a terminal escape or a bidi mark
            # cannot act on the screen of whoever reads the export
            target.write(json.dumps({c: row[c] for c in COLUMNS}, ensure_ascii=True) + "\n")
            n += 1
        return n

    @property
    def keyed(self) -> bool:
        """Whether rows of this queue carry a MAC (a keyed chain): only its key can vouch for them."""
        return self._conn.execute("SELECT 1 FROM entries WHERE row_mac IS NOT NULL LIMIT 1").fetchone() is not None

    @property
    def has_key(self) -> bool:
        """Whether this queue was opened with a key, so ``verify`` checks the rows' MACs."""
        return self._key is not None

    def head(self) -> "tuple[int, str]":
        """The last row's (seq, row_hash), to record outside the file as an anchor.

        The chain alone cannot catch someone who rewrites every row from the
        tampered one onwards; a copy of the head kept elsewhere can.

        RETURNS (Tuple[int, str]): (0, GENESIS_HASH) for an empty queue.
        """
        row = self._conn.execute(
            "SELECT seq, row_hash FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
        return (row["seq"], row["row_hash"]) if row else (0, GENESIS_HASH)

    def verify(self, anchor: Any = None, key: Optional[bytes] = None) -> VerifyResult:
        """Walk the chain from the start and report the first row that breaks it.

        Seqs must run 1, 2, 3, ... with no gap; each row's ``prev_hash`` must
        be the previous row's ``row_hash``; each ``row_hash`` must match its
        content. The seq is inside the hash, so a row moved to another place
        fails too. A row cut off the end is caught from SQLite's record of the
        highest seq ever used (``sqlite_sequence``), unless that was edited too;
        missing or altered append-only triggers fail as well.

        anchor (Any): A head recorded earlier: ``head()``'s (seq, row_hash),
            or its row hash as text ("HASH" or "SEQ:HASH"). That row must
            still be in the chain with that hash. Defaults to None.
        key (Optional[bytes]): Check every row's ``row_mac`` with this key;
            defaults to the key the queue was opened with (if any). Without
            a key, MACs are not checked (the message says so).
        RETURNS (VerifyResult): ok, the first bad seq and a message.
        """
        key = key if key is not None else self._key
        anchor_seq, anchor_hash = parse_anchor(anchor) if anchor is not None else (None, None)
        anchor_seen = anchor is None or (anchor_hash == GENESIS_HASH and anchor_seq in (None, 0))
        expected_seq, expected_prev, n, macs = 1, GENESIS_HASH, 0, 0
        for row in self._rows():
            n += 1
            seq = row["seq"]
            if seq != expected_seq:
                return VerifyResult(False, expected_seq,
                                    f"entry {expected_seq} is missing (next entry is {seq}): "
                                    "a row was deleted or renumbered", n)
            if row["prev_hash"] != expected_prev:
                return VerifyResult(False, seq,
                                    f"entry {seq} does not follow entry {seq - 1} "
                                    "(prev_hash mismatch): a row was deleted, inserted or moved", n)
            if row["kind"] not in KINDS:
                return VerifyResult(False, seq, f"entry {seq} has an unknown kind {row['kind']!r}", n)
            fields = {name: row[name] for name in HASHED_FIELDS}
            if compute_row_hash(fields) != row["row_hash"]:
                return VerifyResult(False, seq,
                                    f"entry {seq} was altered after it was written "
                                    "(its content no longer matches its row_hash)", n)
            if key is not None and not signing.mac_ok(key, signing.PURPOSE_QUEUE_ROW,
                                                      row["row_hash"], row["row_mac"]):
                what = "has no row_mac" if row["row_mac"] is None else "has a row_mac that does not match"
                return VerifyResult(False, seq,
                                    f"entry {seq} {what} under the key: it was written or "
                                    "re-hashed by someone without the key", n)
            macs += row["row_mac"] is not None
            if anchor is not None and not anchor_seen:
                if anchor_seq == seq and row["row_hash"] != anchor_hash:
                    return VerifyResult(False, seq,
                                        f"entry {seq} does not match the recorded anchor: "
                                        "the chain was rewritten from here or earlier", n)
                anchor_seen = row["row_hash"] == anchor_hash and anchor_seq in (None, seq)
            expected_seq, expected_prev = seq + 1, row["row_hash"]
        if not anchor_seen:
            where = f"entry {anchor_seq}" if anchor_seq is not None else "entry"
            return VerifyResult(False, expected_seq,
                                f"the anchored {where} ({anchor_hash[:12]}...) is not in the chain: "
                                "rows were cut off the end of the queue, or the chain was rewritten", n)
        top = self._conn.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = 'entries'"
        ).fetchone()
        if top is not None and top["seq"] > expected_seq - 1:
            return VerifyResult(False, expected_seq,
                                f"entries {expected_seq}..{top['seq']} are missing: "
                                "rows were cut off the end of the queue", n)
        if self.trigger_problems:
            return VerifyResult(False, None, "; ".join(self.trigger_problems)
                                + ": the queue is no longer append-only and may have been edited", n)
        if key is not None:
            mode = ", every row keyed (HMAC-SHA256)"
        elif macs:
            mode = " (rows carry MACs that were not checked: no key given)"
        else:
            mode = " (unkeyed)"
        if anchor is not None:
            mode += ", anchor found"
        return VerifyResult(True, None, f"chain intact: {n} entries{mode}", n)


def _normal_sql(sql: str) -> str:
    return " ".join(sql.strip().rstrip(";").split())


def _check_choice(decision: Dict[str, Any], seq: int, abbreviation: str, choice: str) -> None:
    """Hold a clarification to what the decision offered.

    A decision is only clarified for the ambiguous abbreviations it names
    (``abbreviation`` on an ``ambiguous_abbreviation`` reason), and a chosen
    meaning must be one of its ``options``; a typo in a meaning would
    otherwise be offered to the next reviewer as if it were a reading, and a
    reading recorded on a decision with no such abbreviation ("CTC read as
    'cancelled'" on a plain clearance) would be offered for every later case.
    """
    reasons = [r for r in decision.get("reasons") or []
               if isinstance(r, dict) and r.get("code") == "ambiguous_abbreviation"
               and isinstance(r.get("abbreviation"), str)]
    if not reasons:
        raise QueueError(f"clarification refused: entry {seq} has no ambiguous abbreviation to clarify "
                         f"(no ambiguous_abbreviation reason names {abbreviation!r})")
    wanted = abbreviation.casefold()
    mine = [r for r in reasons if r["abbreviation"].casefold() == wanted]
    if not mine:
        named = ", ".join(sorted({r["abbreviation"] for r in reasons}))
        raise QueueError(f"clarification refused: entry {seq} has no ambiguous "
                         f"abbreviation {abbreviation!r} (it has: {named})")
    if choice in (CHOICE_LEAVE_OPEN, CHOICE_REJECT) or choice.startswith(CHOICE_OTHER_PREFIX):
        return
    meanings = [o["meaning"] for r in mine for o in r.get("options") or []
                if isinstance(o, dict) and isinstance(o.get("meaning"), str) and "choice" not in o]
    if meanings and choice.casefold() not in {m.casefold() for m in meanings}:
        raise QueueError(
            f"clarification refused: {choice!r} is not a meaning offered for {abbreviation!r} "
            f"(offered: {'; '.join(meanings)}; or 'other: <text>', 'leave open', 'reject')"
        )


class _WriteTx:
    """BEGIN IMMEDIATE ... COMMIT, so reading the chain's tail and appending to
    it happen under one write lock and concurrent writers cannot fork the chain."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self._conn.execute("BEGIN IMMEDIATE")
        return self._conn

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self._conn.execute("COMMIT")
        else:
            self._conn.execute("ROLLBACK")


def _split_sql(script: str) -> List[str]:
    # sqlite3.executescript would COMMIT our open transaction first, so run
    # statements one by one; triggers contain ';' inside BEGIN ... END.
    statements, buf = [], []
    for line in script.strip().splitlines():
        buf.append(line)
        joined = "\n".join(buf).strip()
        if joined.endswith(";") and sqlite3.complete_statement(joined):
            statements.append(joined)
            buf = []
    return statements


def _entry_dict(row: sqlite3.Row) -> Dict[str, Any]:
    entry = {c: row[c] for c in COLUMNS}
    # "decision" is already the outcome column, so the parsed JSON gets its own key.
    for col, key in (("decision_json", "decision_record"), ("payload_json", "payload")):
        raw = entry.pop(col)
        entry[key] = json.loads(raw) if raw is not None else None
    return entry


__all__ = [
    "ReviewQueue",
    "EnqueueResult",
    "TeachResult",
    "VerifyResult",
    "QueueError",
    "canonical_json",
    "text_sha256",
    "compute_row_hash",
    "GENESIS_HASH",
]

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
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, TextIO, Union

GENESIS_HASH = "0" * 64
SCHEMA_VERSION = 1
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
COLUMNS = HASHED_FIELDS + ("row_hash",)

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
    row_hash TEXT NOT NULL UNIQUE
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


def canonical_json(obj: Any) -> str:
    """The one JSON spelling that is hashed, so equal content hashes equally.

    obj (Any): A JSON-serialisable value. NaN and infinities are refused,
        because they have no JSON spelling another tool would agree on.
    RETURNS (str): Sorted keys, no whitespace, non-ASCII as \\u escapes (so a
        lone surrogate from a JSON input can still be stored and hashed).
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)


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


def _require_reviewer(reviewer: Any, action: str) -> str:
    if not isinstance(reviewer, str) or not reviewer.strip():
        raise QueueError(
            f"{action} refused: a named human reviewer is required "
            "(got an empty or missing reviewer name)"
        )
    return reviewer.strip()


class ReviewQueue:
    """The review queue in one SQLite file (WAL mode, safe across processes).

    path (Union[str, Path]): The SQLite file; created if missing.
    store_raw_text (bool): Keep the case text itself, not only its SHA-256.
        Off by default because domain text may carry personal data; turn it
        on only where the reviewers need the text and may hold it.
        Defaults to False.
    clock (Optional[Callable[[], str]]): Returns the UTC ISO timestamp for a
        new row; for tests. Defaults to the system clock.
    """

    def __init__(self, path: Union[str, Path], *, store_raw_text: bool = False,
                 clock: Optional[Callable[[], str]] = None) -> None:
        self.path = Path(path)
        self.store_raw_text = bool(store_raw_text)
        self._clock = clock or _utc_now
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
            for statement in _split_sql(_SCHEMA):
                self._conn.execute(statement)
            if version < SCHEMA_VERSION:
                self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

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
        """Insert one row at the end of the chain. Call inside ``_write()``."""
        last = self._conn.execute(
            "SELECT seq, row_hash FROM entries ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        seq = (last["seq"] + 1) if last else 1
        prev_hash = last["row_hash"] if last else GENESIS_HASH
        fields = {name: None for name in HASHED_FIELDS}
        fields.update(row)
        fields.update(seq=seq, prev_hash=prev_hash, created_at=self._clock())
        fields["row_hash"] = compute_row_hash(fields)
        placeholders = ", ".join("?" for _ in COLUMNS)
        self._conn.execute(
            f"INSERT INTO entries ({', '.join(COLUMNS)}) VALUES ({placeholders})",
            [fields[c] for c in COLUMNS],
        )
        return seq

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
        if case_id is None:
            case_id = decision.get("id")
        if isinstance(case_id, int) and not isinstance(case_id, bool):
            case_id = str(case_id)  # JSONL cases may number their ids
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
        reviewer = _require_reviewer(reviewer, "resolution")
        if outcome not in OUTCOMES:
            raise QueueError(
                f"resolution refused: outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}"
            )
        if not isinstance(rationale, str):
            raise QueueError("resolution refused: rationale must be text")
        with self._write():
            target = self._decision_row(seq, "resolution")
            payload = {"reviewer": reviewer, "outcome": outcome, "rationale": rationale}
            return self._append({
                "kind": "resolution",
                "ref_seq": seq,
                "case_id": target["case_id"],
                "decision": outcome,
                "text_sha256": target["text_sha256"],
                "glossary_version": target["glossary_version"],
                "glossary_sha256": target["glossary_sha256"],
                "payload_json": canonical_json(payload),
            })

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
        reviewer = _require_reviewer(reviewer, "clarification")
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
            return self._append({
                "kind": "concept_clarified",
                "ref_seq": seq,
                "case_id": target["case_id"],
                "text_sha256": target["text_sha256"],
                "glossary_version": target["glossary_version"],
                "glossary_sha256": target["glossary_sha256"],
                "payload_json": canonical_json(payload),
            })

    # -- reading ---------------------------------------------------------

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
            if payload.get("abbreviation", "").casefold() != wanted:
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
            target.write(json.dumps({c: row[c] for c in COLUMNS}, ensure_ascii=False) + "\n")
            n += 1
        return n

    def head(self) -> "tuple[int, str]":
        """The last row's (seq, row_hash), to record outside the file as an anchor.

        The chain alone cannot catch someone who rewrites every row from the
        tampered one onwards; a copy of the head kept elsewhere can.

        RETURNS (Tuple[int, str]): (0, GENESIS_HASH) for an empty queue.
        """
        row = self._conn.execute(
            "SELECT seq, row_hash FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
        return (row["seq"], row["row_hash"]) if row else (0, GENESIS_HASH)

    def verify(self, anchor: "Optional[tuple[int, str]]" = None) -> VerifyResult:
        """Walk the chain from the start and report the first row that breaks it.

        Seqs must run 1, 2, 3, ... with no gap; each row's ``prev_hash`` must
        be the previous row's ``row_hash``; each ``row_hash`` must match its
        content. The seq is inside the hash, so a row moved to another place
        fails too. A row cut off the end is caught from SQLite's record of the
        highest seq ever used (``sqlite_sequence``), unless that was edited too.

        anchor (Optional[Tuple[int, str]]): A (seq, row_hash) from ``head()``
            recorded earlier; that row must still carry that hash.
            Defaults to None (no anchor check).
        RETURNS (VerifyResult): ok, the first bad seq and a message.
        """
        expected_seq, expected_prev, n = 1, GENESIS_HASH, 0
        anchor_seen = anchor is None or anchor[0] == 0
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
            if anchor is not None and seq == anchor[0]:
                if row["row_hash"] != anchor[1]:
                    return VerifyResult(False, seq,
                                        f"entry {seq} does not match the recorded anchor: "
                                        "the chain was rewritten from here or earlier", n)
                anchor_seen = True
            expected_seq, expected_prev = seq + 1, row["row_hash"]
        if not anchor_seen:
            return VerifyResult(False, expected_seq,
                                f"the anchored entry {anchor[0]} is missing: "
                                "rows were cut off the end of the queue", n)
        top = self._conn.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = 'entries'"
        ).fetchone()
        if top is not None and top["seq"] > expected_seq - 1:
            return VerifyResult(False, expected_seq,
                                f"entries {expected_seq}..{top['seq']} are missing: "
                                "rows were cut off the end of the queue", n)
        triggers = {r["name"] for r in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'entries'")}
        note = "" if {"entries_no_update", "entries_no_delete"} <= triggers else \
            " (warning: the append-only triggers are missing)"
        return VerifyResult(True, None, f"chain intact: {n} entries{note}", n)


def _check_choice(decision: Dict[str, Any], seq: int, abbreviation: str, choice: str) -> None:
    """Hold a clarification to what the decision offered, where it offered anything.

    A decision that names its ambiguous abbreviations (``abbreviation`` on an
    ``ambiguous_abbreviation`` reason) is only clarified for those, and a
    chosen meaning must be one of its ``options``; a typo in a meaning would
    otherwise be offered to the next reviewer as if it were a reading.
    """
    reasons = [r for r in decision.get("reasons") or []
               if isinstance(r, dict) and r.get("code") == "ambiguous_abbreviation"
               and isinstance(r.get("abbreviation"), str)]
    if not reasons:
        return
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
    "VerifyResult",
    "QueueError",
    "canonical_json",
    "text_sha256",
    "compute_row_hash",
    "GENESIS_HASH",
]

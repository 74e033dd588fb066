"""The ``queue`` command: list, show, resolve, verify, export and fill the review queue.

It is meant for the people who review escalations, so every refusal is one
line on stderr and exit code 1, never a traceback. ``register`` plugs it into
the package's main CLI; ``main`` runs it alone (and in tests):

    python -m semgap_spacy.queue_cli queue verify --db semgap_queue.sqlite3
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

from .cli_support import Command, err, field, guard, json_line, positive_int, printable, standalone_main
from ..util.jsonl import read_jsonl
from ..util.safe_output import output_file, refuse_clash
from .review_queue import OUTCOMES, STATUSES, QueueError, ReviewQueue, is_queue_file, text_sha256
from ..glossary.roster import ROSTER_CONFIG, RosterError, load_roster
from ..util.signing import KEY_ENV_CONFIG, KEY_FILE_CONFIG, SigningKeyError, load_key

DEFAULT_DB = "semgap_queue.sqlite3"


def register(subparsers: "argparse._SubParsersAction") -> argparse.ArgumentParser:
    """Add the ``queue`` command and its sub-commands to an argparse CLI.

    subparsers (argparse._SubParsersAction): From ``parser.add_subparsers()``.
    RETURNS (argparse.ArgumentParser): The ``queue`` parser.
    """
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=DEFAULT_DB,
                        help=f"review queue SQLite file (default: {DEFAULT_DB})")
    common.add_argument("--key-file", default=None,
                        help=f"file holding the HMAC key of a keyed queue (default: ${KEY_FILE_CONFIG})")
    common.add_argument("--key-env", default=None, metavar="NAME",
                        help="NAME of the environment variable holding the key (never the key "
                             f"itself; default: ${KEY_ENV_CONFIG})")
    signers = argparse.ArgumentParser(add_help=False)
    signers.add_argument("--roster", default=None, metavar="FILE",
                         help="who may sign: one name per line (default: $" + ROSTER_CONFIG
                              + ", else the glossaries' owners, approvers and reviewers)")
    signers.add_argument("--glossaries", default=None,
                         help="glossary directory whose governance lists the reviewers (default: bundled)")
    queue = subparsers.add_parser(
        "queue", help="the review queue of escalate/block decisions",
        description="Review queue: an append-only, hash-chained record of decisions "
                    "a person must look at, and of their resolutions.")
    sub = queue.add_subparsers(dest="queue_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("list", parents=[common], help="list queued decisions")
    p.add_argument("--status", choices=STATUSES, default="open")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=_guard(_cmd_list))

    p = sub.add_parser("show", parents=[common], help="show one entry and its follow-ups")
    p.add_argument("seq", type=positive_int)
    p.set_defaults(func=_guard(_cmd_show))

    p = sub.add_parser("resolve", parents=[common, signers], help="record a reviewer's resolution")
    p.add_argument("seq", type=positive_int)
    p.add_argument("--reviewer", default="", help="the human reviewer's name (required)")
    p.add_argument("--outcome", required=True, choices=OUTCOMES)
    p.add_argument("--rationale", default="")
    p.set_defaults(func=_guard(_cmd_resolve))

    p = sub.add_parser("clarify", parents=[common, signers],
                       help="record a reviewer's meaning for an ambiguous abbreviation in an entry")
    p.add_argument("seq", type=positive_int)
    p.add_argument("--reviewer", default="", help="the human reviewer's name (required)")
    p.add_argument("--abbreviation", required=True, help='as written, e.g. "OOS"')
    p.add_argument("--choice", required=True,
                   help="one of the offered meanings, 'other: <text>', 'leave open' or 'reject'")
    p.add_argument("--rationale", default="")
    p.set_defaults(func=_guard(_cmd_clarify))

    p = sub.add_parser("clauses", parents=[common],
                       help="show an entry's clauses with unexplained words, their options and reviews")
    p.add_argument("seq", type=positive_int)
    p.set_defaults(func=_guard(_cmd_clauses))

    p = sub.add_parser("teach", parents=[common, signers],
                       help="record a reviewer's choice for a clause with unexplained words (spec §4.2)",
                       description="neutral, name and means_term write drafts to <--glossaries DIR>/drafts/ "
                                   "(a governed copy; the bundled glossaries are refused), which decide "
                                   "nothing until a second person runs 'glossary approve'; problem keeps the "
                                   "case escalated with the note and holds back drafts of its words.")
    p.add_argument("seq", type=positive_int)
    p.add_argument("--clause", type=int, default=1,
                   help="which clause with unexplained words: 1, 2, ... ('queue clauses SEQ' lists them)")
    p.add_argument("--choice", required=True, help="neutral, name, means_term or problem")
    p.add_argument("--reviewer", default="", help="the human reviewer's name (required)")
    p.add_argument("--words", nargs="+", default=None, metavar="WORD",
                   help="the clause's unexplained words this choice is about (default: all)")
    p.add_argument("--phrase", default=None,
                   help="name: the name as written; means_term: the phrase as written (default: the words)")
    p.add_argument("--term", default=None, dest="term_id", help="means_term: the term id X, e.g. MTG.CTC")
    p.add_argument("--lang", default=None, choices=("en", "es", "fr", "de"),
                   help="the language list of a neutral word or phrase (default: en)")
    p.add_argument("--scope", default=None, metavar="domain|all",
                   help="neutral, name: where the choice holds: domain (the case's domain, the default) or all "
                        "(every domain: the word is neutral, the name known, wherever it is met)")
    p.add_argument("--spellings", action="store_true",
                   help="name: also draft the name in capitals, with capital initials and (several words) in "
                        "lower case, each a draft of its own (names match case-sensitively)")
    p.add_argument("--note", default="", help="what the reviewer saw; required for problem")
    p.add_argument("--domain", default=None,
                   help="only for decisions that do not name their domain (refused when it names another)")
    p.set_defaults(func=_guard(_cmd_teach))

    p = sub.add_parser("verify", parents=[common], help="check the hash chain")
    p.add_argument("--anchor", default=None, metavar="HASH",
                   help="a head printed earlier by 'queue head' and kept elsewhere; catches a "
                        "truncated or rewritten tail")
    p.set_defaults(func=_guard(_cmd_verify))

    p = sub.add_parser("head", parents=[common],
                       help="print the last entry's hash, to keep elsewhere as an anchor")
    p.add_argument("--with-seq", action="store_true", help="print SEQ:HASH")
    p.set_defaults(func=_guard(_cmd_head))

    p = sub.add_parser("export", parents=[common], help="write every entry as JSONL")
    p.add_argument("--out", default=None, help="output file (default: stdout)")
    p.set_defaults(func=_guard(_cmd_export))

    p = sub.add_parser("enqueue", parents=[common], help="queue escalate/block decisions")
    p.add_argument("--decisions", required=True, help="decisions JSONL (spec §5)")
    p.add_argument("--cases", default=None,
                   help="cases JSONL; supplies each decision's text, matched by id")
    p.add_argument("--store-raw-text", action="store_true",
                   help="also keep the case text itself (off by default: it may hold personal data)")
    p.set_defaults(func=_guard(_cmd_enqueue, inputs=("decisions", "cases")))
    return queue


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``queue ...`` as a stand-alone CLI.

    argv (Optional[Sequence[str]]): Arguments, starting with "queue".
        Defaults to ``sys.argv[1:]``.
    RETURNS (int): The exit code.
    """
    return standalone_main(register, argv)


def _guard(func: Callable[[argparse.Namespace], int], inputs: Sequence[str] = ()) -> Command:
    return guard(func, (QueueError, RosterError, SigningKeyError, ValueError, OSError), _describe_db_error,
                 inputs=inputs)


def _describe_db_error(exc: BaseException, args: argparse.Namespace) -> Optional[str]:
    if isinstance(exc, sqlite3.Error):
        return f"database error on {args.db}: {exc}"
    return None


def _open(args: argparse.Namespace, create: bool = False, **kwargs: Any) -> ReviewQueue:
    # Only enqueue may create a queue: "verify" on a mistyped path must not
    # report an empty, intact chain.
    if not create and not os.path.exists(args.db):
        raise QueueError(f"no review queue at {args.db} (enqueue creates it; check --db)")
    if not create and not is_queue_file(args.db):
        # opened as a queue, another application's database (or an empty file) would get its tables
        raise QueueError(f"{args.db} is not a review queue: it has no queue entries table "
                         "(enqueue creates a queue; check --db)")
    key = load_key(args.key_file, args.key_env)
    if hasattr(args, "roster"):
        kwargs["roster"] = load_roster(args.roster, args.glossaries)
    return ReviewQueue(args.db, key=key, **kwargs)


def _cmd_list(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        items = queue.list(args.status)
        # a reviewer works from this list: rows edited behind the queue's back must not look like any other
        check = queue.verify()
    if args.json:
        for item in items:
            print(json_line(item, sort_keys=True))
        return _chain_warning(check)
    if not items:
        print(f"no {args.status} entries" if args.status != "all" else "queue is empty")
        return _chain_warning(check)
    print(f"{'SEQ':>5}  {'CASE':<16} {'DECISION':<9} {'STATUS':<9} CODES / RESOLUTION")
    for item in items:
        # every value from the file is escaped: a case id holding a newline
        # or a terminal escape must not forge or hide a row
        tail = ", ".join(field(c) for c in item["codes"] if c) or "-"
        res = item["resolution"]
        if res:
            tail += f"  -> {field(res.get('outcome'))} by {field(res.get('reviewer'))}"
        print(f"{item['seq']:>5}  {field(item['case_id'] or '-'):<16} {field(item['decision']):<9} "
              f"{item['status']:<9} {tail}")
    return _chain_warning(check)


def _chain_warning(check) -> int:
    """Exit 1 with a warning when the listed queue fails ``verify``: the rows may not say what was written."""
    if check.ok:
        return 0
    err(f"the queue's chain is broken ({check.message}); the rows above may have been edited after "
        "they were written: run 'queue verify' and resolve nothing before it is settled")
    return 1


def _cmd_show(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        entry = queue.show(args.seq)
    print(json_line(entry, indent=2, sort_keys=True))
    return 0


def _cmd_resolve(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        before = queue.show(args.seq).get("followups") or []
        seq = queue.resolve(args.seq, args.reviewer, args.outcome, args.rationale)
        reviewer = queue.show(seq)["payload"]["reviewer"]
    print(f"entry {args.seq} resolved as {args.outcome} by {field(reviewer)} "
          f"(resolution entry {seq})")
    # what this resolution stands over is said, never passed over in silence
    resolutions = [row for row in before if row.get("kind") == "resolution"]
    if resolutions:
        last = resolutions[-1].get("payload") or {}
        print(f"  note: it replaces the resolution {field(last.get('outcome'))} by "
              f"{field(last.get('reviewer'))} (entry {resolutions[-1].get('seq')}); both stay in the chain")
    for row in before:
        payload = row.get("payload") or {}
        if row.get("kind") == "concept_clarified" and payload.get("choice") == "problem":
            print(f"  note: {field(payload.get('reviewer'))} marked its words "
                  f"{', '.join(field(w) for w in payload.get('words') or []) or '(a clause)'} as a problem "
                  f"(entry {row.get('seq')}): {field(payload.get('note') or '')}")
    return 0


def _cmd_clarify(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        seq = queue.clarify(args.seq, args.reviewer, args.abbreviation, args.choice, args.rationale)
        reviewer = queue.show(seq)["payload"]["reviewer"]
    print(f"entry {args.seq}: {field(args.abbreviation)} read as {ascii(args.choice)} by {field(reviewer)} "
          f"(concept_clarified entry {seq}); it will be offered again, never applied automatically")
    return 0


def _cmd_clauses(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        entry = queue.show(args.seq)
        reviews = queue.clause_reviews(args.seq) if entry["kind"] == "decision" else []
    if entry["kind"] != "decision":
        raise QueueError(f"entry {args.seq} is a {entry['kind']}, not a decision")
    reasons = [r for r in (entry["decision_record"] or {}).get("reasons") or []
               if isinstance(r, dict) and r.get("code") == "unexplained_content"]
    if not reasons:
        print(f"entry {args.seq} has no clause with unexplained words")
        return 0
    for number, reason in enumerate(reasons, 1):
        words = ", ".join(field(w) for w in reason.get("words") or [])
        print(f"clause {number}: {ascii(reason.get('evidence'))}")
        print(f"  unexplained: {words}")
        for option in reason.get("options") or []:
            terms = option.get("term_ids")
            extra = f" (terms: {', '.join(field(t) for t in terms)})" if terms else ""
            print(f"  option {field(option.get('choice'))}: {field(option.get('meaning'))}{extra}")
        for review in (r for r in reviews if r.get("clause") == number):
            drafts = ", ".join(field(d) for d in review.get("drafts") or []) or "no draft"
            note = f"; note {ascii(review['note'])}" if review.get("note") else ""
            everywhere = ", every domain" if review.get("scope") == "all" else ""
            print(f"  -> {field(review.get('choice'))}{everywhere} by {field(review.get('reviewer'))} "
                  f"(entry {review['seq']}): {drafts}{note}")
    return 0


def _cmd_teach(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        result = queue.teach(args.seq, args.reviewer, args.clause, args.choice, words=args.words,
                             phrase=args.phrase, term_id=args.term_id, lang=args.lang, note=args.note,
                             domain=args.domain, scope=args.scope, spellings=args.spellings,
                             glossary_dir=args.glossaries)
        reviewer = queue.show(result.seq)["payload"]["reviewer"]
    # a phrase taught is what was marked, not the clause's words around it
    words = field(args.phrase) if args.phrase else ", ".join(field(w) for w in result.words)
    if result.withdrawn:
        print(f"{field(reviewer)}'s problem mark on {', '.join(field(w) for w in result.withdrawn)} in this clause "
              "is withdrawn: this choice replaces it")
    if result.drafts:
        where = "every domain" if result.scope == "all" else result.domain
        print(f"entry {args.seq} clause {args.clause}: {words} marked {result.choice} by {field(reviewer)} "
              f"(concept_clarified entry {result.seq}); drafts {', '.join(result.drafts)} for "
              f"{where}: they decide nothing until a second person approves them "
              "('glossary approve')")
    else:
        print(f"entry {args.seq} clause {args.clause}: {words} marked {result.choice} by {field(reviewer)} "
              f"(concept_clarified entry {result.seq}); the case stays escalated, the note is kept")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        result = queue.verify(anchor=args.anchor)
    if result.ok:
        print(f"ok: {printable(result.message)}")
        return 0
    where = f"at entry {result.first_bad_seq}" if result.first_bad_seq is not None else "(append-only)"
    err(f"chain broken {where}: {result.message}")
    return 1


def _cmd_head(args: argparse.Namespace) -> int:
    with _open(args) as queue:
        seq, digest = queue.head()
    print(f"{seq}:{digest}" if args.with_seq else digest)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    refuse_clash(args.out, [args.db])
    with _open(args) as queue:
        with output_file(args.out or "-") as out:  # a failed export leaves OUT as it was
            n = queue.export(out)
    if args.out:
        print(f"exported {n} entries to {args.out}")
    return 0


def _read_jsonl(path: str, what: str) -> List[Any]:
    return read_jsonl(path, what, QueueError)


def _case_texts(path: str) -> Dict[Any, List[Optional[str]]]:
    """Each case id's texts, in file order: ids may repeat, and the decision's text hash
    then says which case it was (``_text_for``)."""
    texts: Dict[Any, List[Optional[str]]] = {}
    for case in _read_jsonl(path, "case"):
        if isinstance(case, dict) and "id" in case:
            text = case.get("text")
            texts.setdefault(_id_key(case["id"]), []).append(text if isinstance(text, str) else None)
    return texts


def _text_for(decision: Any, candidates: List[Optional[str]]) -> Optional[str]:
    """The text of the case a decision was made on, among the cases with its id: the one
    whose hash the decision carries, else the only one.

    RAISES (ValueError): Cases with that id differ and the decision carries no hash to choose
        by: pairing it with the first could file a block under an escalation's text.
    """
    wanted = decision.get("text_sha256") if isinstance(decision, dict) else None
    for text in candidates:
        if wanted and text_sha256(text if text is not None else "") == wanted:
            return text
    if not wanted and len(set(candidates)) > 1:
        raise ValueError(f"{len(candidates)} cases with different texts share that id and the decision "
                         "carries no text_sha256 to tell which it was made on (decisions from 'assess' carry it)")
    return candidates[0]


def _id_key(case_id: Any) -> Any:
    return case_id if isinstance(case_id, (str, int)) and not isinstance(case_id, bool) else repr(case_id)


def _cmd_enqueue(args: argparse.Namespace) -> int:
    decisions = _read_jsonl(args.decisions, "decision")
    texts = _case_texts(args.cases) if args.cases else {}
    created = existing = skipped = failed = 0
    with _open(args, create=True, store_raw_text=args.store_raw_text) as queue:
        for lineno, decision in enumerate(decisions, 1):
            if isinstance(decision, dict) and decision.get("decision") == "proceed":
                skipped += 1
                continue
            case_id = decision.get("id") if isinstance(decision, dict) else None
            has_hash = isinstance(decision, dict) and bool(decision.get("text_sha256"))
            key = _id_key(case_id)
            if args.cases and key not in texts and not has_hash:
                err(f"decision {lineno} (id {case_id!r}): no case with that id in {args.cases}")
                failed += 1
                continue
            try:
                text = _text_for(decision, texts[key]) if key in texts else None
            except ValueError as exc:
                err(f"decision {lineno} (id {case_id!r}): {exc}")
                failed += 1
                continue
            if text is None and key in texts and not has_hash:
                # A case whose text is not a string escalates with invalid_text
                # and is decided on the empty text; hash what was decided on.
                text = ""
            try:
                result = queue.enqueue(decision, text)
            except QueueError as exc:
                err(f"decision {lineno}: {exc}")
                failed += 1
                continue
            if result.created:
                created += 1
            else:
                existing += 1
    print(f"queued {created} new, {existing} already queued, {skipped} proceed skipped, "
          f"{failed} refused")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Approval looks up each draft's evidence in the review queue that records it (spec §4.2).

A drafts file is a plain file. Were its evidence taken on trust, anyone who
can write it could add a draft "by" a reviewer and approve it themselves, and
"nothing is learned without a reviewer's choice" would hold only on paper. So,
before an approval writes anything, every evidence row of every chosen draft
must point at a queue whose chain verifies (with its key, when its rows
carry MACs), and at a row there that is that reviewer's choice for that clause
of that case and that names the draft and its entry; and no *problem* mark
standing in those queues may dispute the draft, whatever the drafts file
still holds. A queue that moved can be named instead (``queues``).

What this proves is that the choice was recorded through the queue under that
reviewer's name, in order and unaltered; it does not authenticate the person.
"""
from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from ..glossary.drafts import KIND_OF_CHOICE, Draft, Evidence
from ..glossary.governance import approval
from ..util.textnorm import fold
from .review_queue import QueueError, ReviewQueue, is_queue_file


def approve(glossary_dir: Union[str, Path], approver: str, draft_ids: Optional[Sequence[str]] = None, *,
            queues: Optional[Sequence[Union[str, Path]]] = None, key: Optional[bytes] = None,
            **options: Any) -> approval.Approval:
    """Approve drafts (``glossary.governance.approval.approve``, which takes the same ``options``)
    whose every evidence row is a choice recorded in a review queue (``evidence_problems``).

    queues (Optional[Sequence[str | Path]]): The review queues to look in; defaults to the
        queue each evidence row names.
    key (Optional[bytes]): The HMAC key of keyed queues; defaults to the configured one.
    RAISES (ApprovalError): Nothing is written.
    """
    return approval.approve(glossary_dir, approver, draft_ids,
                            vouch=functools.partial(evidence_problems, queues=queues, key=key), **options)


def evidence_problems(drafts: Sequence[Draft], queues: Optional[Sequence[Union[str, Path]]] = None,
                      key: Optional[bytes] = None) -> List[str]:
    """What keeps these drafts' evidence from being a reviewer's recorded choice (empty: nothing).

    drafts (Sequence[Draft]): The drafts an approval would take.
    queues (Optional[Sequence[str | Path]]): The review queues to look in; defaults to the
        queue each evidence row names (the queue the reviewer taught through).
    key (Optional[bytes]): The HMAC key of keyed queues; defaults to the configured one
        (``util.signing.load_key``). A keyed queue is trusted only with its key: without it,
        anyone could append a row with a made-up MAC.
    RETURNS (List[str]): One message per evidence row that no queue vouches for.
    """
    opened: Dict[Path, Union[ReviewQueue, str]] = {}
    try:
        problems = []
        for draft in drafts:
            for evidence in draft.evidence:
                problem = _unvouched(draft, evidence, queues, opened, key)
                if problem:
                    problems.append(problem)
        if not problems:
            problems = _disputed(drafts, [q for q in opened.values() if isinstance(q, ReviewQueue)])
        return problems
    finally:
        for queue in opened.values():
            if isinstance(queue, ReviewQueue):
                queue.close()


def _disputed(drafts: Sequence[Draft], queues: List[ReviewQueue]) -> List[str]:
    """The drafts a *problem* mark standing in one of the queues objects to: the drafts file is
    where an approval finds marks to hold drafts back, and a mark deleted from it by hand, or a
    draft copied into another glossary folder without its marks, would otherwise pass."""
    problems = []
    for queue in queues:
        for seq, objection in queue.standing_objections():
            for draft in drafts:
                if objection.objects_to(draft):
                    problems.append(f"{draft.id} ({draft.entry.describe()}) is disputed in the queue {queue.path} "
                                    f"(entry {seq}: {objection.describe()}), a mark the drafts file no longer holds")
    return problems


def _unvouched(draft: Draft, evidence: Evidence, queues, opened, key: Optional[bytes]) -> Optional[str]:
    cited = (f"{draft.id} ({draft.entry.describe()}) cites entry {evidence.queue_seq} "
             f"by {evidence.reviewer}")
    paths = [Path(q) for q in queues] if queues else [Path(evidence.queue)] if evidence.queue else []
    if not paths:
        return (f"{draft.id} ({draft.entry.describe()}) names no review queue for {evidence.reviewer}'s "
                "choice (name the queue that records it with --db QUEUE)")
    seen = []
    for path in paths:
        queue = _open(path.resolve(), opened, key)
        if isinstance(queue, str):
            seen.append(queue)
            continue
        problem = _row_problem(queue, draft, evidence)
        if problem is None:
            return None
        seen.append(f"{problem} in {path}")
    moved = "" if queues else " (a queue that moved is named with --db QUEUE)"
    return f"{cited}: {'; '.join(seen)}{moved}"


def _open(path: Path, opened, key: Optional[bytes]) -> Union[ReviewQueue, str]:
    """The queue at ``path``, checked once per approval; a message when it is none or fails its check."""
    if path not in opened:
        opened[path] = _open_checked(path, key)
    return opened[path]


def _open_checked(path: Path, key: Optional[bytes]) -> Union[ReviewQueue, str]:
    if not path.is_file():
        return f"there is no queue file {path}"
    try:
        if not is_queue_file(path):
            return f"{path} is not a review queue"
        queue = ReviewQueue(path, key=key)
    except (sqlite3.DatabaseError, QueueError) as exc:
        return f"{path} cannot be read as a review queue ({exc})"
    result = queue.verify()
    if not result.ok:
        queue.close()
        return f"the queue {path} fails its check ({result.message})"
    if queue.keyed and not queue.has_key:
        queue.close()
        return (f"the queue {path} is keyed (its rows carry MACs) and no key was given to check them "
                "(--key-file, --key-env, or $SEMGAP_QUEUE_KEY_FILE)")
    return queue


def _row_problem(queue: ReviewQueue, draft: Draft, evidence: Evidence) -> Optional[str]:
    if evidence.queue_seq is None:
        return "no queue entry is named"
    try:
        row = queue.show(evidence.queue_seq)
    except QueueError:
        return "the queue holds no such entry"
    payload = row.get("payload") or {}
    if row["kind"] != "concept_clarified" or payload.get("subject") != "clause":
        return f"entry {evidence.queue_seq} is no reviewer's choice for a clause"
    if evidence.row_hash is not None and row["row_hash"] != evidence.row_hash:
        return f"entry {evidence.queue_seq} is not the row the draft recorded (its hash differs)"
    checks = (
        (fold(str(payload.get("reviewer", ""))) == fold(evidence.reviewer), "another reviewer's choice"),
        (row["text_sha256"] == evidence.text_sha256, "about another text"),
        (payload.get("start_char") == evidence.start_char, "about another clause"),
        (KIND_OF_CHOICE.get(payload.get("choice")) == draft.kind
         and draft.id in (payload.get("drafts") or ())
         and draft.entry.describe() in (payload.get("entries") or ()), "for another draft"),
    )
    for ok, what in checks:
        if not ok:
            return f"entry {evidence.queue_seq} is {what}"
    return None


__all__ = ["approve", "evidence_problems"]

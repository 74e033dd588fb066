"""approve: a second person moves reviewers' drafts into the glossary (spec §4.2).

A draft (``glossary.drafts``) explains and decides nothing. It counts once a
person on the roster who did not draft it approves it: the entry is added to
its domain's file (a neutral word, a known name, a phrase of a term) with a
``taught`` record naming who drafted and who approved it, every domain file
moves to one new version, and both versions are archived under
``<glossaries>/archive/<version>/``, so ``glossary diff`` shows the change as
a weakening and ``glossary replay`` lists the decisions it turns. A draft of
scope "all" is added to every domain that does not hold it yet, each with
its own ``taught`` record, after the drafts of single domains.

Everything is checked before anything is written: an approver who drafted a
chosen draft, an unknown or already approved draft id, an approver who is
not among the glossaries' governance people, a draft a reviewer objected to
(a *problem* choice on its words), a glossary in force that differs from its
archived version (an edit nobody approved would ride along under the
approver's name), or a glossary that would not load leaves every file as it
was. The drafts folder is locked for the whole approval, so a reviewer
teaching meanwhile waits, and a file that cannot be written puts back the
ones already written.
"""
from __future__ import annotations

import io
import json
import shutil
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from srsly.ruamel_yaml import YAML

from ..drafts import (DRAFTS_DIR, SCOPE_ALL, Draft, DraftFile, Objection, TeachingError, apply_entry,
                      drafts_lock, drafts_path, entry_domains, governed_dir, load_drafts, objections_to, save_drafts)
from ..models import _VERSION as VERSION_RE
from ..models import GlossaryError, GlossarySet, version_order
from ..roster import Roster, RosterError, check_name, shown
from ...util.safe_output import output_file
from ...util.textnorm import fold
from .sources import _ARCHIVE


class ApprovalError(TeachingError):
    """An approval that is refused; nothing was written."""


@dataclass
class Approval:
    """What an approval did."""

    approver: str
    old_version: str
    new_version: str
    drafts: List[Draft] = field(default_factory=list)
    domains: List[str] = field(default_factory=list)
    archived: List[str] = field(default_factory=list)
    #: open drafts left out of an "all open drafts" approval because a reviewer objected to them
    held_back: List[Tuple[Draft, List[Objection]]] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"approver": self.approver, "old_version": self.old_version, "new_version": self.new_version,
                "domains": list(self.domains), "archived": list(self.archived),
                "drafts": [d.model_dump(mode="json", exclude_none=True) for d in self.drafts],
                "held_back": [{"draft": d.id, "objections": [o.model_dump(mode="json", exclude_none=True)
                                                             for o in objs]} for d, objs in self.held_back]}


def next_version(old: str, today: Optional[date] = None) -> str:
    """The version after ``old`` (YYYY.MM.N): the next N this month, else this month's first.

    old (str): The current version.
    today (Optional[date]): Defaults to today (UTC).
    RETURNS (str): A version higher than ``old``.
    """
    year, month, patch = (int(x) for x in old.split("."))
    today = today or datetime.now(timezone.utc).date()
    if (today.year, today.month) > (year, month):
        return f"{today.year}.{today.month}.0"
    return f"{year}.{month}.{patch + 1}"


def _yaml() -> YAML:
    # round trip: comments, key order and flow lists of the hand-written files survive
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _domain_files(glossary_dir: Path, yaml: YAML) -> Dict[str, Tuple[Path, Any]]:
    """domain -> (file, round-trip payload) for every domain file of a directory."""
    out: Dict[str, Tuple[Path, Any]] = {}
    for path in sorted(p for p in glossary_dir.glob("*.yaml") if p.is_file()):
        payload = yaml.load(path.read_text(encoding="utf-8"))
        name = payload.get("domain") if isinstance(payload, dict) else None
        out[name if isinstance(name, str) else path.stem] = (path, payload)
    return out


def _select(drafts: Dict[str, DraftFile], ids: Optional[Sequence[str]]) -> List[Tuple[str, Draft]]:
    """(domain, draft) for the ids asked for, or every open draft."""
    by_id = {d.id: (domain, d) for domain, f in drafts.items() for d in f.drafts}
    if ids is None:
        chosen = [(domain, d) for domain, f in drafts.items() for d in f.open()]
        if not chosen:
            raise ApprovalError("approval refused: there are no open drafts")
        return chosen
    if not ids:
        raise ApprovalError("approval refused: name the drafts to approve (or all open drafts)")
    chosen = []
    for draft_id in dict.fromkeys(ids):
        if draft_id not in by_id:
            known = ", ".join(d.id for f in drafts.values() for d in f.open()) or "none"
            raise ApprovalError(f"approval refused: there is no draft {draft_id!r} (open drafts: {known})")
        domain, draft = by_id[draft_id]
        if draft.status != "open":
            raise ApprovalError(f"approval refused: draft {draft_id} was already approved by "
                                f"{draft.approved_by} in {draft.approved_in}")
        chosen.append((domain, draft))
    return chosen


def _hold_back(gdir: Path, chosen: List[Tuple[str, Draft]], named: bool
               ) -> Tuple[List[Tuple[str, Draft]], List[Tuple[Draft, List[Objection]]]]:
    """Split the chosen drafts into those free of objections and those a reviewer objected to.

    A draft named by id with an objection against it is refused outright; from
    "every open draft" it is left out and reported, and stays open.
    """
    free, held = [], []
    for domain, draft in chosen:
        objections = objections_to(gdir, domain, draft)
        if not objections:
            free.append((domain, draft))
        elif named:
            raise ApprovalError(f"approval refused: {draft.id} ({draft.entry.describe()}) is disputed: "
                                + "; ".join(o.describe() for o in objections)
                                + ". It stands until that reviewer teaches the clause another way; the "
                                "other drafts can be approved by id")
        else:
            held.append((draft, objections))
    if not free:
        raise ApprovalError("approval refused: every open draft is disputed by a reviewer's problem choice: "
                            + "; ".join(f"{d.id} ({o[0].describe()})" for d, o in held))
    return free, held


def _unapproved_edits(archive: Path, old: str, files: Dict[str, Tuple[Path, Any]],
                      yaml: YAML) -> Tuple[Optional[str], List[str]]:
    """The archived version the domain files in force are compared with, and those that differ.

    An approval archives the files in force as the new version, and the diff
    from the old one credits the approver with every weakening in it; an
    edit made by hand since the old version was archived would ride along
    unseen. The files are compared with the archived copy of their own
    version; when that version was never archived (the editor also raised
    ``version:``), with the newest archived version, their versions aside: a
    release made by hand is archived once reviewed, or the approval would
    archive it as approved. No archive at all (a first approval): nothing to
    compare with.
    RETURNS (Tuple[Optional[str], List[str]]): The version compared with (None: none) and
        the names of the files that differ from it.
    """
    base, own = archive / old, True
    if not base.is_dir():
        kept = ([p.name for p in archive.iterdir() if p.is_dir() and VERSION_RE.match(p.name)]
                if archive.is_dir() else [])
        if not kept:
            return None, []
        base, own = archive / max(kept, key=version_order), False

    def content(payload: Any) -> Any:
        plain = _plain(payload)
        if not own and isinstance(plain, dict):
            plain.pop("version", None)
        return plain

    archived = {path.name for path in base.glob("*.yaml")}
    changed = sorted(archived ^ {path.name for path, _ in files.values()})
    for path, payload in files.values():
        if path.name in archived and content(payload) != content(yaml.load((base / path.name).read_text(
                encoding="utf-8"))):
            changed.append(path.name)
    return base.name, sorted(set(changed))


def _taught(draft: Draft, approver: str) -> Dict[str, Any]:
    record: Dict[str, Any] = {"draft": draft.id, "kind": draft.kind, "text": draft.text}
    if draft.kind != "name":
        record["lang"] = draft.lang
    if draft.term:
        record["term"] = draft.term
    if draft.scope == SCOPE_ALL:
        record["scope"] = SCOPE_ALL
    record["drafted_by"] = draft.authors
    record["approver"] = approver
    record["cases"] = list(dict.fromkeys(e.text_sha256 for e in draft.evidence))
    return record


def _plain(payload: Any) -> Any:
    return json.loads(json.dumps(payload, ensure_ascii=False))


def approve(glossary_dir: Union[str, Path], approver: str, draft_ids: Optional[Sequence[str]] = None, *,
            vouch: Callable[[Sequence[Draft]], List[str]], roster: Optional[Roster] = None,
            new_version: Optional[str] = None, today: Optional[date] = None,
            clock: Optional[str] = None) -> Approval:
    """Approve drafts: add them to their domains, bump the version, archive both versions.

    glossary_dir (str | Path): The glossary directory whose ``drafts/`` hold the drafts.
    approver (str): The second person: one of the glossaries' governance people
        (owners, approvers, reviewers), and no author of any chosen draft.
    draft_ids (Optional[Sequence[str]]): Drafts to approve ("mortgage/3"); None: every open draft
        that no reviewer objected to (the others are held back and reported).
    vouch (Callable[[Sequence[Draft]], List[str]]): What keeps the chosen drafts' evidence from
        being reviewers' choices recorded in a review queue (empty: nothing); any message refuses
        the approval. Required, since a drafts file is a plain file: ``ops.draft_evidence.approve``
        is this function with the queues' check.
    roster (Optional[Roster]): Narrows who may approve: the approver must be on it as well.
        A roster cannot add anyone, since an approval widens what may proceed.
    new_version (Optional[str]): The new version; defaults to ``next_version``.
    today (Optional[date]): For the default new version.
    clock (Optional[str]): The timestamp recorded on the drafts; defaults to now (UTC).
    RETURNS (Approval): What was approved and the versions.
    RAISES (ApprovalError): Nothing is written.
    """
    try:
        gdir = governed_dir(glossary_dir)
        with drafts_lock(gdir):
            return _approve(gdir, approver, draft_ids, vouch, roster, new_version, today, clock)
    except TeachingError as exc:
        if isinstance(exc, ApprovalError):
            raise
        raise ApprovalError(f"approval refused: {exc}") from None


def _approve(gdir: Path, approver: str, draft_ids: Optional[Sequence[str]],
             vouch: Callable[[Sequence[Draft]], List[str]], roster: Optional[Roster],
             new_version: Optional[str], today: Optional[date], clock: Optional[str]) -> Approval:
    try:
        current = GlossarySet.from_dir(gdir)
        people = Roster.from_glossaries(current, f"governance of the glossaries in {gdir}")
        if roster is not None:
            roster.person(approver, "approval")
        if check_name(approver) not in people:
            raise ApprovalError(
                f"approval refused: {shown(approver)} is not one of the governance people of the glossaries in "
                f"{gdir} (their owners, approvers and reviewers); an approval widens what may proceed, so a "
                "roster file can narrow who approves but not add anyone")
        approver = people.person(approver, "approval")
    except (GlossaryError, RosterError) as exc:
        message = str(exc)
        raise ApprovalError(message if message.startswith("approval") else f"approval refused: {message}") from None
    drafts = {domain: load_drafts(gdir, domain) for domain in [*current.domains, SCOPE_ALL]}
    chosen, held = _hold_back(gdir, _select(drafts, draft_ids), named=draft_ids is not None)
    for _, draft in chosen:
        if any(fold(approver) == fold(author) for author in draft.authors):
            raise ApprovalError(
                f"approval refused: {approver} drafted {draft.id} ({draft.entry.describe()}); a draft "
                "needs a second person: someone other than the reviewer who drafted it must approve it")
    unvouched = vouch([draft for _, draft in chosen])
    if unvouched:
        raise ApprovalError("approval refused: a draft counts only as a reviewer's choice recorded in a "
                            "review queue, and " + "; ".join(unvouched))
    versions = sorted({d.version for d in current.domains.values()}, key=version_order)
    old = versions[-1]
    if len(versions) > 1:
        raise ApprovalError(f"approval refused: the domains are at different versions ({', '.join(versions)}); "
                            "an approval moves them all to one new version")
    new = new_version or next_version(old, today)
    if not isinstance(new, str) or not VERSION_RE.match(new) or version_order(new) <= version_order(old):
        raise ApprovalError(f"approval refused: the new version {new!r} must be YYYY.MM.N and higher than {old}")
    archive = gdir / _ARCHIVE
    if (archive / new).exists():
        raise ApprovalError(f"approval refused: version {new} is already archived in {archive}")

    yaml = _yaml()
    files = _domain_files(gdir, yaml)
    compared, edits = _unapproved_edits(archive, old, files, yaml)
    if edits:
        differ = 'differs' if len(edits) == 1 else 'differ'
        if compared == old:
            what = f"{differ} from the archived version {old} ({archive / old}) while still naming that version"
        else:
            what = (f"{differ} from the newest archived version {compared} ({archive / compared}) and "
                    f"{'names' if len(edits) == 1 else 'name'} version {old}, which was never archived")
        raise ApprovalError(
            f"approval refused: {', '.join(edits)} in {gdir} {what}: an edit nobody approved would go out "
            f"under {approver}'s name. See it with 'glossary diff {archive / compared} {gdir}'; release it as "
            f"its own version (reviewed, then archived as {archive}/<its version>) or undo it, then approve")
    edited: Dict[str, Any] = {domain: payload for domain, (_, payload) in files.items()}
    for payload in edited.values():
        payload["version"] = new
    touched = set()
    # a domain's own drafts first: a draft of scope all then skips the domains that hold its entry
    for dom, draft in sorted(chosen, key=lambda pair: pair[0] == SCOPE_ALL):
        for target in entry_domains(edited, dom, draft.entry):
            apply_entry(edited[target], draft.entry, approver)
            if edited[target].get("taught") is None:
                edited[target]["taught"] = []
            edited[target]["taught"].append(_taught(draft, approver))
            touched.add(target)
    try:
        GlossarySet.from_dict({name: _plain(p) for name, p in edited.items()}, source="approved glossary")
    except GlossaryError as exc:
        raise ApprovalError(f"approval refused: the glossary would not load with these drafts: {exc}") from None

    approval = Approval(approver, old, new, [d for _, d in chosen], sorted(touched), held_back=held)
    stamp = clock or datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    for domain in sorted({dom for dom, _ in chosen}):
        for draft in drafts[domain].drafts:
            if any(draft is d for _, d in chosen):
                draft.status, draft.approved_by = "approved", approver
                draft.approved_in, draft.approved_at = new, stamp
    texts = {}
    for domain, payload in edited.items():
        text = io.StringIO()
        yaml.dump(payload, text)
        texts[files[domain][0]] = text.getvalue()
    try:
        _write_all(gdir, archive, old, new, texts, [drafts[d] for d in sorted({dom for dom, _ in chosen})],
                   approval)
    except OSError as exc:
        raise ApprovalError(f"approval refused: cannot write the glossary ({exc}); every file is as it was") \
            from None
    return approval


def _write_all(gdir: Path, archive: Path, old: str, new: str, texts: Dict[Path, str],
               draft_files: List[DraftFile], approval: Approval) -> None:
    """Write the domain files, the archives and the drafts, or put every file back as it was.

    The pipeline loads whatever the domain files say, so a half-written
    approval (one file at the new version, one at the old, drafts still open)
    must never be left behind.
    """
    originals = {path: path.read_bytes() for path in texts}
    drafts_before = {f.domain: (drafts_path(gdir, f.domain).read_bytes() if drafts_path(gdir, f.domain).is_file()
                                else None) for f in draft_files}
    made: List[Path] = []
    written: List[Path] = []
    try:
        if not (archive / old).exists():
            made.append(archive / old)
            _archive(list(texts), archive / old)
            approval.archived.append(str(archive / old))
        for path, text in texts.items():
            with output_file(path) as out:
                out.write(text)
            written.append(path)
        made.append(archive / new)
        _archive(list(texts), archive / new)
        approval.archived.append(str(archive / new))
        for draft_file in draft_files:
            save_drafts(gdir, draft_file)
    except OSError:
        for path in written:
            path.write_bytes(originals[path])
        for domain, before in drafts_before.items():
            if before is not None:
                drafts_path(gdir, domain).write_bytes(before)
            else:
                drafts_path(gdir, domain).unlink(missing_ok=True)
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)
        raise


def _archive(paths, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for path in paths:
        shutil.copy2(path, target / Path(path).name)


def open_drafts(glossary_dir: Union[str, Path]) -> List[Tuple[str, Draft]]:
    """(domain, draft) for every open draft of a glossary directory, by domain."""
    gdir = Path(glossary_dir)
    out = []
    for path in sorted((gdir / DRAFTS_DIR).glob("*.json")):
        out.extend((path.stem, d) for d in load_drafts(gdir, path.stem).open())
    return out


__all__ = ["Approval", "ApprovalError", "approve", "next_version", "open_drafts"]

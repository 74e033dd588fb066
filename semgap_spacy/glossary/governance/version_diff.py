"""diff: compare two glossary versions and enforce the release rules.

Anything changed needs a version bump, and any change that makes the
pipeline less strict (a weakening) needs a second approver, independent of the
term's owner and approver. ``changelog`` is the same comparison, rendered for
people.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..models import GlossarySet
from ..models import _VERSION as VERSION_RE
from .contracts import _contract_changes
from .diff_report import DiffReport, DomainDiff, TermDiff, Weakening
from .findings import ERROR, GovernanceError, _finding
from .payload import _dict, _fmt, _frame_values, _list, _same_person, _str, _terms, _variants
from ..models import phrase_key
from ...util.textnorm import fold
from .sources import Source, load_raw
from .validation import validate


def _version_key(version: Any) -> Optional[Tuple[int, ...]]:
    if isinstance(version, str) and VERSION_RE.match(version):
        return tuple(int(x) for x in version.split("."))
    return None


def _label(source: Any) -> str:
    if isinstance(source, (str, Path)):
        return str(source)
    if isinstance(source, GlossarySet):
        return f"glossary set {source.version}"
    if isinstance(source, (list, tuple)):
        return ", ".join(str(s) for s in source)
    return f"<{type(source).__name__}>"


def _domains_of(source: Source, side: str, report: DiffReport, unreadable: set) -> Dict[str, dict]:
    out: Dict[str, dict] = {}
    for raw in load_raw(source):
        if raw.error or not isinstance(raw.payload, dict):
            report.findings.append(_finding("unreadable", raw.name, None,
                                            f"{side}: {raw.error or 'not a mapping'}", raw.path))
            unreadable.add(raw.name)
            continue
        if raw.name in out:
            report.findings.append(_finding("duplicate_domain", raw.name, None,
                                            f"{side}: domain {raw.name} is given twice", raw.path))
            continue
        out[raw.name] = raw.payload
    return out


_TERM_KEYS = ("signal", "status", "definition", "owner", "approver", "second_approver",
              "field", "depends_on")


def _diff_term(tid: str, ot: dict, nt: dict, o_vals: List[str], n_vals: List[str]
               ) -> Tuple[TermDiff, List[Tuple[str, str]]]:
    td = TermDiff(tid, "changed", nt.get("signal"))
    for key in _TERM_KEYS:
        if ot.get(key) != nt.get(key):
            td.changes.append(f"{key}: {_fmt(ot.get(key))} → {_fmt(nt.get(key))}")
    otr, ntr = _dict(ot.get("translations")), _dict(nt.get("translations"))
    for lang in sorted(set(otr) | set(ntr), key=str):
        a, b = _dict(otr.get(lang)), _dict(ntr.get(lang))
        for key in ("status", "reviewer"):
            if lang in otr and lang in ntr and a.get(key) != b.get(key):
                td.changes.append(f"{lang} translation {key}: {_fmt(a.get(key))} → {_fmt(b.get(key))}")
    ov, nv = _variants(ot), _variants(nt)
    td.added_phrases = [p for p in nv if p not in ov]
    td.removed_phrases = [p for p in ov if p not in nv]
    for w in sorted(set(o_vals) - set(n_vals)):
        td.changes.append(f'frame value "{w}" removed')
    for w in sorted(set(n_vals) - set(o_vals)):
        td.changes.append(f'frame value "{w}" added')
    c_changes, weak = _contract_changes(ot.get("contract"), nt.get("contract")) \
        if ot.get("contract") is not None or nt.get("contract") is not None else ([], [])
    td.changes += c_changes

    osig, nsig = ot.get("signal"), nt.get("signal")
    if osig != nsig and (osig == "critical_block" or nsig == "clear"):
        weak.insert(0, ("signal_weakened", f"signal weakened: {osig} → {nsig}"))
    elif osig == "critical_block":
        if ot.get("status") == "approved" and nt.get("status") != "approved":
            weak.append(("critical_demoted_to_draft",
                         f"critical term status {ot.get('status')} → {nt.get('status')}: "
                         "it will escalate instead of block"))
        for p in td.removed_phrases:
            weak.append(("critical_phrase_removed", f"critical phrase {p} removed"))
        for lang in sorted(set(otr) & set(ntr), key=str):
            if _dict(otr[lang]).get("status") == "approved" and _dict(ntr[lang]).get("status") != "approved":
                weak.append(("critical_phrase_removed", f"{lang} translation of a critical term "
                             "demoted to draft"))
        for w in sorted(set(o_vals) - set(n_vals)):
            weak.append(("critical_phrase_removed", f'critical frame value "{w}" removed'))
    return td, weak


def _diff_other(old: dict, new: dict) -> List[str]:
    lines: List[str] = []
    if old.get("description") != new.get("description"):
        lines.append("description changed")
    oc, nc = _dict(old.get("compounds")), _dict(new.get("compounds"))
    for k in sorted(set(oc) | set(nc), key=str):
        if oc.get(k) != nc.get(k):
            lines.append(f"compound {k}: {_fmt(oc.get(k))} → {_fmt(nc.get(k))}")
    of = {_dict(f).get("id"): _dict(f) for f in _list(old.get("frames"))}
    nf = {_dict(f).get("id"): _dict(f) for f in _list(new.get("frames"))}
    for fid in sorted(set(of) | set(nf), key=str):
        a, b = of.get(fid), nf.get(fid)
        if a is None:
            lines.append(f"frame {fid} added")
        elif b is None:
            lines.append(f"frame {fid} removed")
        elif a != b:
            for key in ("heads", "window"):
                if a.get(key) != b.get(key):
                    lines.append(f"frame {fid} {key}: {_fmt(a.get(key))} → {_fmt(b.get(key))}")
            if a.get("values") != b.get("values"):
                lines.append(f"frame {fid} values changed")
    oa = {_dict(a).get("abbreviation"): _dict(a) for a in _list(old.get("ambiguous"))}
    na = {_dict(a).get("abbreviation"): _dict(a) for a in _list(new.get("ambiguous"))}
    for ab in sorted(set(oa) | set(na), key=str):
        if ab not in na:
            lines.append(f"ambiguous abbreviation {ab} removed")
        elif ab not in oa:
            lines.append(f"ambiguous abbreviation {ab} added")
        elif oa[ab] != na[ab]:
            lines.append(f"ambiguous abbreviation {ab}: meanings changed")
    if old.get("retired") != new.get("retired"):
        lines.append("retired terms changed")
    known = {"domain", "version", "description", "compounds", "terms", "frames", "ambiguous",
             "retired", "vocabulary", "taught"}
    for key in sorted((set(old) | set(new)) - known, key=str):
        if old.get(key) != new.get(key):
            lines.append(f"{key} changed")
    return lines


def _vocabulary_words(domain: dict) -> Tuple[set, set]:
    """(neutral words as "word (list lang)", known names) of a raw domain payload."""
    vocab = _dict(_dict(domain).get("vocabulary"))
    neutral = set()
    for which in ("common", "domain"):
        for lang, words in _dict(_dict(vocab.get("neutral")).get(which)).items():
            neutral.update((str(w), f"{which} {lang}") for w in _list(words))
    return neutral, {str(n) for n in _list(vocab.get("known_names"))}


def _no_authority(domain: dict) -> set:
    """The parties without authority of a raw domain payload, as (party, lang)."""
    vocab = _dict(_dict(domain).get("vocabulary"))
    return {(str(w), str(lang)) for lang, words in _dict(vocab.get("no_authority")).items() for w in _list(words)}


def _taught_key(kind: str, text: str, term: Any = None, lang: Any = None) -> Tuple[str, ...]:
    if kind == "name":
        return ("name", text)
    if kind == "neutral":
        return ("neutral", fold(text))
    return ("phrase", str(term), str(lang or "en"), phrase_key(text))


def _taught(domain: dict) -> Dict[Tuple[str, ...], dict]:
    """The ``taught`` records of a raw payload (spec §4.2), by the entry they added."""
    out = {}
    for record in _list(_dict(domain).get("taught")):
        record = _dict(record)
        if isinstance(record.get("text"), str) and isinstance(record.get("kind"), str):
            out[_taught_key(record["kind"], record["text"], record.get("term"), record.get("lang"))] = record
    return out


def _by_review(record: Optional[dict]) -> str:
    if not record:
        return ""
    drafted = ", ".join(str(n) for n in _list(record.get("drafted_by"))) or "?"
    cases = len(_list(record.get("cases")))
    where = " for every domain" if record.get("scope") == "all" else ""
    return (f"; taught in review{where} (draft {record.get('draft')}, drafted by {drafted} "
            f"from {cases} case{'s' if cases != 1 else ''})")


def _diff_vocabulary(old: dict, new: dict) -> Tuple[List[str], List[Tuple[str, str, Tuple[str, ...]]]]:
    """Changes of the neutral vocabulary and known names (spec §4.1 rules 6 and 7).

    An added word or name can explain a word that escalated before, so it can
    turn an escalate into a proceed: a weakening. A removed one only escalates more.
    A party taken off ``no_authority`` lets a clearance in its words proceed
    (``core.hearsay``): a weakening too; an added one only escalates more.
    RETURNS: (change lines, weakenings as (kind, detail, taught key)).
    """
    (on, onames), (nn, nnames) = _vocabulary_words(old), _vocabulary_words(new)
    taught = _taught(new)
    lines, weak = [], []
    for word, where in sorted(nn - on):
        key = _taught_key("neutral", word)
        weak.append(("neutral_added", f'neutral word "{word}" added ({where}){_by_review(taught.get(key))}', key))
    for word, where in sorted(on - nn):
        lines.append(f'neutral word "{word}" removed ({where})')
    for name in sorted(nnames - onames):
        key = _taught_key("name", name)
        weak.append(("known_name_added", f'known name "{name}" added{_by_review(taught.get(key))}', key))
    for name in sorted(onames - nnames):
        lines.append(f'known name "{name}" removed')
    oparties, nparties = _no_authority(old), _no_authority(new)
    for party, lang in sorted(oparties - nparties):
        weak.append(("no_authority_removed", f'party without authority "{party}" removed ({lang})',
                     ("no_authority", party, lang)))
    for party, lang in sorted(nparties - oparties):
        lines.append(f'party without authority "{party}" added ({lang})')
    ov, nv = _dict(_dict(old).get("vocabulary")), _dict(_dict(new).get("vocabulary"))
    for key in ("owner", "approver"):
        if ov.get(key) != nv.get(key):
            lines.append(f"vocabulary {key}: {_fmt(ov.get(key))} → {_fmt(nv.get(key))}")
    return lines + [detail for _, detail, _ in weak], weak


def _taught_phrases(tid: str, td: TermDiff, taught: Dict[Tuple[str, ...], dict]
                    ) -> List[Tuple[str, str, dict]]:
    """Phrases a review round added to a clearance or field term: a weakening (spec §4.2).

    A phrase its owner adds is vouched for by the term's owner and approver;
    a taught phrase was written by a reviewer, so its approver is the second
    person, and an added clearance phrase can turn an escalate into a proceed.
    """
    out = []
    if td.signal not in ("clear", "field"):
        return out
    for phrase in td.added_phrases:
        record = taught.get(_taught_key("phrase", phrase.text, tid, phrase.lang))
        if record:
            what = "it can clear a case" if td.signal == "clear" else "its words are explained (spec §4.1 rule 1)"
            out.append(("taught_phrase_added",
                        f"phrase {phrase} added to a {td.signal} term: {what}{_by_review(record)}", record))
    return out


def _independent(name: Any, others: Iterable[Any], taught: bool = False) -> Tuple[bool, str]:
    if not _str(name):
        return False, "no second approver is named"
    for other in others:
        if _same_person(name, other):
            who = "a reviewer who drafted it" if taught else "the term's owner or approver"
            return False, f"second approver {_str(name)!r} is already {who}"
    return True, ""


def diff(old: Source, new: Source) -> DiffReport:
    """Compare two versions of the glossaries and apply the release rules.

    old, new: Directories, files or archived versions (see ``load_raw``).
    RETURNS (DiffReport): Per-domain term and phrase changes, weakenings, and
        findings: ``version_not_bumped`` when a domain changed without a higher
        version, ``weakening_without_second_approver`` when a change makes the
        pipeline less strict and the new version names no independent second
        approver (``second_approver`` on the term; for a removed critical term,
        an entry ``{id, second_approver}`` in the domain's ``retired`` list).
    """
    if Path(old).is_file() != Path(new).is_file():
        # a folder against one of its files would report every other domain removed or added
        raise GovernanceError(f"compare a folder with a folder, or a file with a file: {old} is a "
                              f"{'file' if Path(old).is_file() else 'folder'}, {new} is not")
    report = DiffReport(_label(old), _label(new))
    unreadable: set = set()
    olds, news = _domains_of(old, "old", report, unreadable), _domains_of(new, "new", report, unreadable)
    for name in sorted(set(olds) | set(news)):
        if name in unreadable:  # an unreadable side says nothing of what changed: its error stands alone
            continue
        o, n = olds.get(name), news.get(name)
        dd = DomainDiff(name, "changed", _dict(o).get("version"), _dict(n).get("version"))
        report.domains[name] = dd
        if o is None:
            dd.status = "added"
            for _, tid, t in _terms(n):
                dd.terms[tid] = TermDiff(tid, "added", t.get("signal"), added_phrases=_variants(t))
            continue
        ot = {tid: t for _, tid, t in _terms(o)}
        nt = {tid: t for _, tid, t in _terms(n)} if n is not None else {}
        retired = {_dict(r).get("id"): _dict(r) for r in _list(_dict(n).get("retired"))}
        o_vals, n_vals = _frame_values(o), _frame_values(n or {})
        taught = _taught(n or {})
        # (term, kind, detail, second approver, people it must differ from, taught in review)
        weak: List[Tuple[str, str, str, Any, List[Any], bool]] = []
        for tid, t in ot.items():
            if tid not in nt:
                dd.terms[tid] = TermDiff(tid, "removed", t.get("signal"), removed_phrases=_variants(t))
                if t.get("signal") == "critical_block":
                    entry = retired.get(tid, {})
                    weak.append((tid, "critical_removed",
                                 f"critical term {tid} removed" + (" with its domain" if n is None else ""),
                                 entry.get("second_approver"), [t.get("owner"), t.get("approver")], False))
        for tid, t in nt.items():
            if tid not in ot:
                dd.terms[tid] = TermDiff(tid, "added", t.get("signal"), added_phrases=_variants(t))
                continue
            if ot[tid] == t and o_vals.get(tid, []) == n_vals.get(tid, []):
                continue
            td, tw = _diff_term(tid, ot[tid], t, o_vals.get(tid, []), n_vals.get(tid, []))
            if td.changes or td.added_phrases or td.removed_phrases:
                dd.terms[tid] = td
            people = [ot[tid].get("owner"), ot[tid].get("approver"), t.get("owner"), t.get("approver")]
            weak += [(tid, kind, detail, t.get("second_approver"), people, False) for kind, detail in tw]
            weak += [(tid, kind, detail, record.get("approver"), _list(record.get("drafted_by")), True)
                     for kind, detail, record in _taught_phrases(tid, td, taught)]
        if n is None:
            dd.status = "removed"
        else:
            dd.other_changes = _diff_other(o, n)
            vocab_lines, vocab_weak = _diff_vocabulary(o, n)
            dd.other_changes += vocab_lines
            vocab = _dict(n.get("vocabulary"))
            for kind, detail, key in vocab_weak:
                record = taught.get(key)
                # a taught entry is approved by its own second person; any other by the vocabulary's approver
                sa, people = ((record.get("approver"), _list(record.get("drafted_by"))) if record
                              else (vocab.get("approver"), [vocab.get("owner")]))
                weak.append(("vocabulary", kind, detail, sa, people, bool(record)))
            strip = lambda p: {k: v for k, v in p.items() if k != "version"}  # noqa: E731
            if strip(o) == strip(n):
                dd.status = "unchanged"
            ko, kn = _version_key(o.get("version")), _version_key(n.get("version"))
            if kn is None:
                report.findings.append(_finding(
                    "bad_version", name, None,
                    f"new version {n.get('version')!r} is not YYYY.MM.N"))
            elif dd.status == "changed" and (ko is None or kn <= ko):
                report.findings.append(_finding(
                    "version_not_bumped", name, None,
                    f"domain {name} changed but its version went {o.get('version')} → "
                    f"{n.get('version')}; a changed glossary needs a higher version"))
            elif ko is not None and kn < ko:
                report.findings.append(_finding(
                    "version_not_bumped", name, None,
                    f"domain {name}: version went backwards, {o.get('version')} → {n.get('version')}"))
        for tid, kind, detail, sa, people, by_review in weak:
            ok, why = _independent(sa, people, by_review)
            report.weakenings.append(Weakening(name, tid, kind, detail, _str(sa) or None, ok))
            if not ok:
                where = (f"an entry {{id: {tid}, second_approver: ...}} in the domain's `retired` list"
                         if kind == "critical_removed" else
                         "the `taught` record's approver, someone other than the reviewers who drafted it"
                         if by_review else
                         "`vocabulary.approver`, someone other than `vocabulary.owner`" if tid == "vocabulary"
                         else "`second_approver` on the term")
                report.findings.append(_finding(
                    "weakening_without_second_approver", name, tid,
                    f"{tid}: {detail}. A weakening needs a second approver, different from the "
                    f"owner and the approver, named in the new version ({where}): {why}"))
    # what the loader refuses in the new version is no release, however the diff reads; what the
    # diff said itself ("bad_version") and an unreadable file's own error are not said twice
    said = {(f.code, f.domain) for f in report.findings}
    report.findings += [f for f in validate(new) if f.severity == ERROR and f.domain not in unreadable
                        and f.code != "unreadable" and (f.code, f.domain) not in said]
    return report


def changelog(old: Source, new: Source) -> str:
    """A Markdown changelog of what changed between two glossary versions."""
    return diff(old, new).to_markdown()

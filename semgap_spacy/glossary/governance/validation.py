"""validate: every problem and risk in some glossaries at once.

Loading a glossary (``semgap_spacy.glossary``) refuses the first hard error it
meets, which is right for the pipeline and wrong for the person editing the
YAML: they want every problem at once, plus the risks a loader cannot refuse
(a phrase that is also a negation cue, two words of opposite signals one typo
apart). So ``validate`` reads the raw YAML and runs its own checks, then runs
the pydantic models only to catch whatever else they refuse.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..models import SIGNALS, phrase_key
from ..rules import (dependency_problems, draft_dependency_problems, rule_of,
                     version_problem)
from .findings import ERROR, WARNING, Finding, _finding
from .model_findings import _pydantic_findings
from .payload import Phrase, _dict, _frame_values, _list, _same_person, _str, _terms, _variants
from .phrase_risks import _cue_findings, _fuzzy_findings
from .rules import load_cues
from .sources import RawDomain, Source, load_raw


def validate(source: Source) -> List[Finding]:
    """Report every problem and risk in some glossaries, not just the first.

    source: See ``load_raw``: a directory, files, an archived version, a
        GlossarySet or raw payloads.
    RETURNS (List[Finding]): Errors first, then warnings. The glossaries are
        fit to ship iff no finding has severity "error".
    """
    raws = load_raw(source)
    cues = load_cues()
    findings: List[Finding] = []
    usable: List[RawDomain] = []
    for raw in raws:
        if raw.error:
            findings.append(_finding("unreadable", raw.name, None, raw.error, raw.path))
            continue
        if not isinstance(raw.payload, dict):
            findings.append(_finding(
                "unreadable", raw.name, None,
                f"a glossary must be a mapping, not {type(raw.payload).__name__}", raw.path))
            continue
        own = _check_domain(raw, cues)
        findings += own
        findings += _pydantic_findings(raw, own)
        usable.append(raw)
    findings += _check_across(usable)
    order = {ERROR: 0, WARNING: 1}
    return sorted(findings, key=lambda f: order.get(f.severity, 0))


def _check_domain(raw: RawDomain, cues: Dict[str, Dict[str, str]]) -> List[Finding]:
    payload, dom, path = raw.payload, raw.name, raw.path
    out: List[Finding] = []

    def add(code: str, term: Optional[str], message: str) -> None:
        out.append(_finding(code, dom, term, message, path))

    problem = version_problem(payload.get("version"))
    if problem:
        add("bad_version", None, problem)

    terms = _terms(payload)
    ids: Dict[str, int] = {}
    fields: Dict[str, str] = {}
    for i, tid, term in terms:
        if tid in ids:
            add("duplicate_term_id", tid, f"term id {tid} is used twice (terms #{ids[tid]} and #{i})")
        ids.setdefault(tid, i)
        signal, status = term.get("signal"), term.get("status")
        if signal not in SIGNALS:
            add("unknown_signal", tid, f"term {tid}: unknown signal {signal!r} "
                f"(one of {', '.join(SIGNALS)})")
        owner, approver = term.get("owner"), term.get("approver")
        if not _str(approver) and (status == "approved" or signal in ("clear", "critical_block")):
            why = f"a {signal} term" if signal in ("clear", "critical_block") else "an approved term"
            add("missing_approver", tid, f"term {tid} has no approver; {why} needs one, "
                "different from its owner")
        if _same_person(owner, approver):
            add("approver_is_owner", tid, f"term {tid}: approver {_str(approver)!r} is also its "
                "owner; the approver must be a second person")
        second = term.get("second_approver")
        if second is not None and (not _str(second) or _same_person(second, owner)
                                   or _same_person(second, approver)):
            add("second_approver_not_independent", tid,
                f"term {tid}: second approver {second!r} must be named and differ from "
                "the owner and the approver")
        if signal == "field":
            if term.get("contract") is None:
                add("field_without_contract", tid, f"field term {tid} has no contract; "
                    "a reading of it could never be checked against a limit")
            fname = term.get("field")
            if isinstance(fname, str) and fname:
                if fname in fields:
                    add("duplicate_field", tid, f"term {tid}: field {fname} is also named by "
                        f"{fields[fname]}")
                fields.setdefault(fname, tid)
        if status == "draft":
            add("draft_term", tid, f"term {tid} is a draft: it escalates and can never "
                "clear or block")
        for lang, tr in _dict(term.get("translations")).items():
            tr = _dict(tr)
            if tr.get("status") == "approved" and not _str(tr.get("reviewer")):
                add("translation_without_reviewer", tid, f"term {tid}: the approved {lang} "
                    "translation has no reviewer")
            elif tr.get("status") == "draft":
                add("draft_translation", tid, f"term {tid}: the {lang} translation is a draft "
                    f"(reviewer: {_str(tr.get('reviewer')) or 'none yet'}); it escalates and "
                    "can never clear or block")

    known = set(ids)
    for frame in _list(payload.get("frames")):
        for tid in _dict(_dict(frame).get("values")):
            if tid not in known:
                add("unknown_reference", str(tid), f"frame {_dict(frame).get('id')}: unknown "
                    f"term {tid}")
    for amb in _list(payload.get("ambiguous")):
        for m in _list(_dict(amb).get("meanings")):
            ref = _dict(m).get("term")
            if ref and ref not in known:
                add("unknown_reference", str(ref), f"ambiguous {_dict(amb).get('abbreviation')}: "
                    f"unknown term {ref}")

    # duplicate_phrase: one folded, hyphen/space-collapsed phrase, two terms
    seen: Dict[str, Tuple[str, Phrase]] = {}
    reported: Set[Tuple[str, str, str]] = set()
    for _, tid, term in terms:
        for ph in _variants(term):
            key = phrase_key(ph.text)
            if not key:
                continue
            if key in seen and seen[key][0] != tid:
                other, first = seen[key]
                if (key, other, tid) not in reported:
                    reported.add((key, other, tid))
                    add("duplicate_phrase", tid, f"term {tid}: phrase {ph} is also a phrase of "
                        f"{other} ({first}); a match could not tell them apart")
            seen.setdefault(key, (tid, ph))

    out += _cue_findings(dom, path, terms, _frame_values(payload), cues)
    out += _fuzzy_findings(dom, path, terms, _frame_values(payload))
    return out


def _check_across(raws: List[RawDomain]) -> List[Finding]:
    out: List[Finding] = []
    domains: Dict[str, str] = {}
    term_home: Dict[str, Tuple[str, dict]] = {}
    for raw in raws:
        if raw.name in domains:
            out.append(_finding("duplicate_domain", raw.name, None,
                                f"domain {raw.name} is loaded twice ({domains[raw.name]} "
                                f"and {raw.path})", raw.path))
            continue
        domains[raw.name] = raw.path or raw.name
        for _, tid, term in _terms(raw.payload):
            if tid in term_home and term_home[tid][0] != raw.name:
                out.append(_finding("duplicate_term_id", raw.name, tid,
                                    f"term id {tid} is also used in domain {term_home[tid][0]}",
                                    raw.path))
            term_home.setdefault(tid, (raw.name, term))

    # depends_on: resolvable and acyclic across the set (the loader's own
    # check), and an approved term must not rest on a draft term
    paths = {raw.name: raw.path for raw in raws}
    every = [(raw.name, tid, term) for raw in raws for _, tid, term in _terms(raw.payload)]
    problems = dependency_problems((d, t, term.get("depends_on")) for d, t, term in every)
    problems += draft_dependency_problems(
        (d, t, term.get("status"), term.get("depends_on")) for d, t, term in every)
    for dom, tid, message in problems:
        out.append(_finding(rule_of(message) or "unknown_reference", dom, tid, message,
                            paths.get(dom)))

    # the same phrase in two domains: routing by domain may be wrong
    homes: Dict[str, Dict[str, Tuple[str, Phrase]]] = {}
    for raw in raws:
        if raw.name not in domains or domains[raw.name] != (raw.path or raw.name):
            continue
        for _, tid, term in _terms(raw.payload):
            for ph in _variants(term):
                homes.setdefault(phrase_key(ph.text), {}).setdefault(raw.name, (tid, ph))
    for key, where in sorted(homes.items()):
        if len(where) < 2 or not key:
            continue
        (d1, (t1, p1)), *rest = sorted(where.items())
        for d2, (t2, p2) in rest:
            out.append(_finding(
                "shared_phrase_across_domains", d2, t2,
                f"phrase {p2} of {t2} is also {p1} of {t1} in domain {d1}; in {d1} text it "
                f"will read as another domain's term", None))
    return out

"""Glossary governance: validate, diff, changelog and replay.

Loading a glossary (``semgap_spacy.glossary``) refuses the first hard error it
meets, which is right for the pipeline and wrong for the person editing the
YAML: they want every problem at once, plus the risks a loader cannot refuse
(a phrase that is also a negation cue, two words of opposite signals one typo
apart). So ``validate`` reads the raw YAML and runs its own checks, then runs
the pydantic models only to catch whatever else they refuse.

``diff`` compares two versions of the glossaries and enforces the release
rules: anything changed needs a version bump, and any change that makes the
pipeline less strict (a weakening) needs a second approver, independent of the
term's owner and approver. ``replay`` re-decides logged cases under an archived
version and under the current one, to show what a change would have done.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import (Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set,
                    Tuple, Union)

import srsly
from pydantic import ValidationError
from rapidfuzz.distance import OSA

from .glossary import (LANGUAGES, SIGNALS, DomainGlossary, GlossarySet, bundled_glossary_dir,
                       phrase_key)
from .glossary import _VERSION as VERSION_RE
from .textnorm import fold

ERROR = "error"
WARNING = "warning"

#: Every finding code ``validate`` and ``diff`` can report, with its severity.
FINDING_CODES: Dict[str, str] = {
    "unreadable": ERROR,
    "schema": ERROR,
    "bad_version": ERROR,
    "unknown_signal": ERROR,
    "missing_approver": ERROR,
    "approver_is_owner": ERROR,
    "second_approver_not_independent": ERROR,
    "field_without_contract": ERROR,
    "translation_without_reviewer": ERROR,
    "duplicate_term_id": ERROR,
    "duplicate_field": ERROR,
    "duplicate_domain": ERROR,
    "duplicate_phrase": ERROR,
    "unknown_reference": ERROR,
    "draft_dependency": ERROR,
    "phrase_is_cue": ERROR,
    "phrase_contains_cue": WARNING,
    "shared_phrase_across_domains": WARNING,
    "fuzzy_collision": WARNING,
    "draft_term": WARNING,
    "draft_translation": WARNING,
    # diff
    "version_not_bumped": ERROR,
    "weakening_without_second_approver": ERROR,
}

_DATA = Path(__file__).parent / "data"
#: Where the context component's cue lists live (one <lang>.json per language).
NEGATION_DIR = _DATA / "negation"
_ARCHIVE = "archive"

Source = Union[str, Path, GlossarySet, Mapping[str, Any], Sequence[Union[str, Path]]]


class GovernanceError(ValueError):
    """Input that governance cannot work on (no such path, no glossary files...)."""


@dataclass(frozen=True)
class Finding:
    """One problem (error) or risk (warning) found in a glossary."""

    code: str
    severity: str
    domain: Optional[str]
    term: Optional[str]
    message: str
    path: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "domain": self.domain,
                "term": self.term, "message": self.message, "path": self.path}

    def __str__(self) -> str:
        where = "/".join(x for x in (self.domain, self.term) if x) or "-"
        return f"{self.severity:<7} {self.code:<32} {where:<40} {self.message}"


def _finding(code: str, domain: Optional[str], term: Optional[str], message: str,
             path: Optional[str] = None) -> Finding:
    return Finding(code, FINDING_CODES[code], domain, term, message, path)


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)


# --------------------------------------------------------------------------
# Sources: directories, files, archived versions, loaded sets, dicts
# --------------------------------------------------------------------------

@dataclass
class RawDomain:
    """One domain file as parsed YAML, before any validation."""

    name: str
    payload: Any
    path: Optional[str] = None
    error: Optional[str] = None


def archive_dir(version: str, archive_root: Optional[Union[str, Path]] = None) -> Path:
    """The directory of an archived glossary version.

    version (str): A version such as "2026.11.0".
    archive_root (str | Path | None): Where versions are archived; defaults to
        ``<bundled glossaries>/archive``.
    RETURNS (Path): The version's directory.
    RAISES (GovernanceError): If the version is malformed or not archived.
    """
    root = Path(archive_root) if archive_root else bundled_glossary_dir() / _ARCHIVE
    if not isinstance(version, str) or not VERSION_RE.match(version):
        raise GovernanceError(f"{version!r} is not a glossary version (YYYY.MM.N)")
    path = root / version
    if not path.is_dir():
        known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        raise GovernanceError(
            f"glossary version {version} is not archived in {root} "
            f"(archived: {', '.join(known) if known else 'none'})")
    return path


def _read_yaml(path: Path) -> RawDomain:
    try:
        payload = srsly.read_yaml(path)
    except Exception as exc:  # the YAML parser's own errors vary by version
        first = str(exc).strip().splitlines()
        return RawDomain(path.stem, None, str(path), f"not valid YAML ({first[0] if first else exc})")
    name = payload.get("domain") if isinstance(payload, dict) else None
    return RawDomain(name if isinstance(name, str) and name else path.stem, payload, str(path))


def _paths(source: Union[str, Path]) -> List[Path]:
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.yaml") if p.is_file())
        if not files:
            raise GovernanceError(f"{path}: no *.yaml glossary files")
        return files
    if path.is_file():
        return [path]
    if isinstance(source, str) and VERSION_RE.match(source):
        return _paths(archive_dir(source))
    raise GovernanceError(f"{path}: no such glossary file or directory")


def load_raw(source: Source) -> List[RawDomain]:
    """Parse glossary YAML without validating it.

    source: A directory or file (str | Path), an archived version ("2026.11.0"),
        a list of those, a GlossarySet, a single domain payload (dict with
        "domain" and "terms") or a mapping of domain name to payload.
    RETURNS (List[RawDomain]): One entry per domain file.
    RAISES (GovernanceError): If a path does not exist or holds no glossary.
    """
    if isinstance(source, GlossarySet):
        return [RawDomain(name, dom.model_dump(mode="json"), f"<loaded:{name}>")
                for name, dom in source.domains.items()]
    if isinstance(source, Mapping):
        if "terms" in source or "domain" in source:
            name = source.get("domain")
            return [RawDomain(name if isinstance(name, str) else "<dict>", dict(source), "<dict>")]
        return [RawDomain(str(name), payload, f"<dict:{name}>") for name, payload in source.items()]
    if isinstance(source, (str, Path)):
        return [_read_yaml(p) for p in _paths(source)]
    if isinstance(source, Iterable):
        out: List[RawDomain] = []
        for item in source:
            out.extend(load_raw(item))
        if not out:
            raise GovernanceError("no glossary files given")
        return out
    raise GovernanceError(f"cannot read glossaries from a {type(source).__name__}")


# --------------------------------------------------------------------------
# Rules: cue words and the typo repair's reach
# --------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _rules() -> Dict[str, Any]:
    return srsly.read_yaml(_DATA / "governance.yaml")


def _cue_records(payload: Any, default_kind: str) -> Iterable[Tuple[str, str]]:
    """(cue, kind) from a negation/<lang>.json file, tolerant of its exact layout."""
    if isinstance(payload, list):
        for rec in payload:
            if isinstance(rec, str):
                yield rec, default_kind
            elif isinstance(rec, dict) and isinstance(rec.get("cue"), str):
                kind = rec.get("category") or rec.get("kind") or rec.get("type") or default_kind
                yield rec["cue"], str(kind)
    elif isinstance(payload, dict):
        for key, value in payload.items():
            named = isinstance(value, list) and key not in ("cues", "records", "items")
            yield from _cue_records(value, key if named else default_kind)


_NOT_CUES = ("pseudo", "break", "scope_break", "terminator", "termination")


def load_cues(negation_dir: Optional[Union[str, Path]] = None) -> Dict[str, Dict[str, str]]:
    """Negation and hedge cues per language: {lang: {folded cue: kind}}.

    The spec's list (data/governance.yaml) is always included; cues from
    ``data/negation/<lang>.json`` are added when those files exist.
    """
    cues: Dict[str, Dict[str, str]] = {lang: {} for lang in LANGUAGES}
    for lang, kinds in (_rules().get("cues") or {}).items():
        for kind, words in (kinds or {}).items():
            for word in words or []:
                cues.setdefault(lang, {})[_norm(str(word))] = f"{kind} cue"
    folder = Path(negation_dir) if negation_dir else NEGATION_DIR
    for lang in LANGUAGES:
        path = folder / f"{lang}.json"
        if not path.is_file():
            continue
        try:
            payload = srsly.read_json(path)
        except Exception:  # a half-written file must not break validation
            continue
        for cue, kind in _cue_records(payload, "cue"):
            key = _norm(cue)
            # "pseudo" cues ("not only") negate nothing and "break" cues ("but")
            # only end a scope: neither turns a phrase into "not" or "maybe"
            if key and kind not in _NOT_CUES:
                cues[lang].setdefault(key, kind if kind.endswith("cue") else f"{kind} cue")
    return cues


def max_edits(letters: int) -> int:
    """How many edits the typo repair allows for a word of this many letters."""
    rule = _rules()["fuzzy"]
    if letters < int(rule["min_letters"]):
        return 0
    for band in rule.get("bands") or []:
        if letters <= int(band["up_to"]):
            return int(band["max_edits"])
    return int(rule["longer"])


# --------------------------------------------------------------------------
# Raw accessors, tolerant of anything YAML can hold
# --------------------------------------------------------------------------

def _norm(text: str) -> str:
    """Folded, with runs of whitespace as one space."""
    return " ".join(fold(text).split())


def _words(text: str) -> List[str]:
    return [w for w in re.split(r"[^\w]+", fold(text)) if w]


def _letters(word: str) -> int:
    return sum(ch.isalpha() for ch in word)


def _str(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _terms(payload: Any) -> List[Tuple[int, str, dict]]:
    """(index, id, term dict) for every mapping in ``terms``."""
    out = []
    for i, term in enumerate(_list(_dict(payload).get("terms"))):
        if isinstance(term, dict):
            tid = term.get("id")
            out.append((i, tid if isinstance(tid, str) and tid else f"#{i}", term))
    return out


@dataclass(frozen=True)
class Phrase:
    """One surface form of a term: an English phrase, an abbreviation or a translation."""

    lang: str
    kind: str  # "phrase" | "abbreviation" | "translation"
    text: str

    def __str__(self) -> str:
        tag = "abbrev." if self.kind == "abbreviation" else self.lang
        return f'"{self.text}" ({tag})'


def _variants(term: dict) -> List[Phrase]:
    out = [Phrase("en", "phrase", p) for p in _list(term.get("phrases")) if isinstance(p, str)]
    out += [Phrase("en", "abbreviation", a) for a in _list(term.get("abbreviations"))
            if isinstance(a, str)]
    for lang, tr in _dict(term.get("translations")).items():
        out += [Phrase(str(lang), "translation", p) for p in _list(_dict(tr).get("phrases"))
                if isinstance(p, str)]
    return out


def _frame_values(payload: Any) -> Dict[str, List[str]]:
    """{term id: outcome words} from every frame of a domain."""
    out: Dict[str, List[str]] = {}
    for frame in _list(_dict(payload).get("frames")):
        for tid, words in _dict(_dict(frame).get("values")).items():
            out.setdefault(str(tid), []).extend(w for w in _list(words) if isinstance(w, str))
    return out


def _same_person(a: Any, b: Any) -> bool:
    return bool(_str(a)) and bool(_str(b)) and fold(_str(a)) == fold(_str(b))


# --------------------------------------------------------------------------
# validate
# --------------------------------------------------------------------------

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

    version = payload.get("version")
    if not isinstance(version, str) or not VERSION_RE.match(version):
        add("bad_version", None, f"version {version!r} is not YYYY.MM.N (e.g. 2026.11.0)"
            if version is not None else "no version (expected YYYY.MM.N, e.g. 2026.11.0)")

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


def _cue_findings(dom: str, path: Optional[str], terms, frame_values,
                  cues: Dict[str, Dict[str, str]]) -> List[Finding]:
    out: List[Finding] = []
    by_key: Dict[str, List[Tuple[str, str, str]]] = {}
    for lang, table in cues.items():
        for cue, kind in table.items():
            by_key.setdefault(phrase_key(cue), []).append((cue, lang, kind))
    for _, tid, term in terms:
        forms = [(ph, str(ph)) for ph in _variants(term)]
        forms += [(Phrase("en", "frame value", w), f'frame value "{w}"')
                  for w in frame_values.get(tid, [])]
        for ph, label in forms:
            hits = by_key.get(phrase_key(ph.text))
            if hits:
                cue, lang, kind = hits[0]
                langs = ", ".join(sorted({h[1] for h in hits}))
                out.append(_finding(
                    "phrase_is_cue", dom, tid,
                    f"term {tid}: {label} is also a {kind} ({langs}: \"{cue}\"); the context "
                    "reader would take it as negating or hedging, not as the term", path))
                continue
            words = _words(ph.text)
            lang = ph.lang if ph.lang in cues else "en"
            for cue, kind in cues[lang].items():
                cw = _words(cue)
                if cw and any(words[i:i + len(cw)] == cw for i in range(len(words) - len(cw) + 1)):
                    out.append(_finding(
                        "phrase_contains_cue", dom, tid,
                        f"term {tid}: {label} contains the {lang} {kind} \"{cue}\"; check the "
                        "context reader does not negate or hedge the term with its own word",
                        path))
                    break
    return out


def _fuzzy_findings(dom: str, path: Optional[str], terms, frame_values) -> List[Finding]:
    """Words of terms with different signals within the typo repair's reach.

    The typo repair works token by token, so two phrases can only be repaired
    into each other through their words: comparing every word of one term with
    every word of another covers whole phrases too (a one-word phrase is a word).
    A word both terms share is not a collision; the other words tell them apart.
    """
    out: List[Finding] = []
    vocab: List[Tuple[str, str, Set[str]]] = []  # (id, signal, words)
    for _, tid, term in terms:
        signal = term.get("signal")
        if signal not in SIGNALS:
            continue
        texts = [ph.text for ph in _variants(term)] + frame_values.get(tid, [])
        vocab.append((tid, signal, {w for t in texts for w in _words(t)}))

    def close(a: str, b: str) -> Optional[int]:
        la, lb = _letters(a), _letters(b)
        if a == b or min(la, lb) < int(_rules()["fuzzy"]["min_letters"]):
            return None
        limit = max_edits(max(la, lb))
        if abs(len(a) - len(b)) > limit:
            return None
        d = OSA.distance(a, b, score_cutoff=limit)
        return d if d <= limit else None

    for n, (t1, s1, w1) in enumerate(vocab):
        for t2, s2, w2 in vocab[n + 1:]:
            if s1 == s2:
                continue
            hits = [(a, b, d) for a in sorted(w1 - w2) for b in sorted(w2 - w1)
                    if (d := close(a, b)) is not None]
            for a, b, d in hits:
                out.append(_finding(
                    "fuzzy_collision", dom, t1,
                    f"{t1} ({s1}) \"{a}\" and {t2} ({s2}) \"{b}\" are {d} edit"
                    f"{'s' if d != 1 else ''} apart, within the typo repair's reach: a "
                    "misspelling of one can be repaired into the other", path))
    return out


# pydantic messages that a raw check above already reports, by finding code
_MESSAGE_CODES = (
    ("missing approver", "missing_approver"),
    ("approver equal to owner", "approver_is_owner"),
    ("field term without a contract", "field_without_contract"),
    ("approved translation without a reviewer", "translation_without_reviewer"),
    ("duplicate term id", "duplicate_term_id"),
    ("two terms name the same field", "duplicate_field"),
    ("is also a phrase of", "duplicate_phrase"),
    ("unknown term", "unknown_reference"),
)


# Keys the release rules read that the pydantic models may not accept yet.
_PENDING_KEYS = {
    "second_approver": "add `second_approver: Optional[str] = None` to glossary.Term",
    "retired": "add `retired: List[Retirement] = []` to glossary.DomainGlossary",
}


def _pydantic_findings(raw: RawDomain, own: List[Finding]) -> List[Finding]:
    """What the models refuse that the raw checks did not already report."""
    try:
        DomainGlossary.model_validate(raw.payload)
        return []
    except ValidationError as err:
        errors = err.errors()
    covered = {(f.code, f.term) for f in own} | {(f.code, None) for f in own}
    terms = _list(raw.payload.get("terms"))
    out: List[Finding] = []
    for e in errors:
        loc = list(e["loc"])
        msg = str(e["msg"]).removeprefix("Value error, ")
        tid: Optional[str] = None
        where = ".".join(str(x) for x in loc)
        if len(loc) >= 2 and loc[0] == "terms" and isinstance(loc[1], int):
            t = terms[loc[1]] if loc[1] < len(terms) else None
            tid = t.get("id") if isinstance(t, dict) and isinstance(t.get("id"), str) else f"#{loc[1]}"
            where = f"term {tid}" + (f" ({'.'.join(str(x) for x in loc[2:])})" if loc[2:] else "")
        code = "schema"
        if loc and loc[0] == "version":
            code = "bad_version"
        elif loc[2:3] == ["signal"]:
            code = "unknown_signal"
        else:
            code = next((c for text, c in _MESSAGE_CODES if text in msg), "schema")
        if code != "schema" and ((code, tid) in covered or (code, None) in covered):
            continue
        if e.get("type") == "extra_forbidden" and loc and loc[-1] in _PENDING_KEYS:
            msg += f" (the glossary model does not know `{loc[-1]}` yet: {_PENDING_KEYS[loc[-1]]})"
        out.append(_finding(code, raw.name, tid, f"{where + ': ' if where else ''}{msg}", raw.path))
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

    # depends_on: an approved term must not rest on a draft (or missing) term
    for raw in raws:
        for _, tid, term in _terms(raw.payload):
            for dep in _list(term.get("depends_on")):
                if dep not in term_home:
                    out.append(_finding("unknown_reference", raw.name, tid,
                                        f"term {tid} depends on unknown term {dep}", raw.path))
                elif term.get("status") == "approved" and term_home[dep][1].get("status") != "approved":
                    out.append(_finding(
                        "draft_dependency", raw.name, tid,
                        f"approved term {tid} depends on {dep}, which is a draft; approve "
                        f"{dep} first or make {tid} a draft", raw.path))

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


# --------------------------------------------------------------------------
# diff
# --------------------------------------------------------------------------

@dataclass
class TermDiff:
    """What happened to one term between two versions."""

    term: str
    status: str  # "added" | "removed" | "changed"
    signal: Optional[str] = None
    changes: List[str] = field(default_factory=list)
    added_phrases: List[Phrase] = field(default_factory=list)
    removed_phrases: List[Phrase] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"term": self.term, "status": self.status, "signal": self.signal,
                "changes": list(self.changes),
                "added_phrases": [vars(p) for p in self.added_phrases],
                "removed_phrases": [vars(p) for p in self.removed_phrases]}


@dataclass
class DomainDiff:
    domain: str
    status: str  # "added" | "removed" | "changed" | "unchanged"
    old_version: Optional[str] = None
    new_version: Optional[str] = None
    terms: Dict[str, TermDiff] = field(default_factory=dict)
    other_changes: List[str] = field(default_factory=list)

    def _ids(self, status: str) -> List[str]:
        return [t for t, d in self.terms.items() if d.status == status]

    @property
    def added_terms(self) -> List[str]:
        return self._ids("added")

    @property
    def removed_terms(self) -> List[str]:
        return self._ids("removed")

    @property
    def changed_terms(self) -> List[str]:
        return self._ids("changed")

    @property
    def added_phrases(self) -> List[Tuple[str, Phrase]]:
        return [(t, p) for t, d in self.terms.items() for p in d.added_phrases]

    @property
    def removed_phrases(self) -> List[Tuple[str, Phrase]]:
        return [(t, p) for t, d in self.terms.items() for p in d.removed_phrases]

    def to_dict(self) -> Dict[str, Any]:
        return {"domain": self.domain, "status": self.status, "old_version": self.old_version,
                "new_version": self.new_version,
                "terms": {t: d.to_dict() for t, d in self.terms.items()},
                "other_changes": list(self.other_changes)}


@dataclass
class Weakening:
    """A change that makes the pipeline less strict; it needs a second approver."""

    domain: str
    term: str
    kind: str  # critical_removed, signal_weakened, band_widened, max_raised, ...
    detail: str
    second_approver: Optional[str] = None
    accepted: bool = False

    def to_dict(self) -> Dict[str, Any]:
        return dict(vars(self))


@dataclass
class DiffReport:
    old: str
    new: str
    domains: Dict[str, DomainDiff] = field(default_factory=dict)
    weakenings: List[Weakening] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(d.status != "unchanged" for d in self.domains.values())

    @property
    def errors(self) -> List[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> Dict[str, Any]:
        return {"old": self.old, "new": self.new, "changed": self.changed, "ok": self.ok,
                "domains": {n: d.to_dict() for n, d in self.domains.items()},
                "weakenings": [w.to_dict() for w in self.weakenings],
                "findings": [f.to_dict() for f in self.findings]}

    def to_markdown(self) -> str:
        return _markdown(self)


_TO_CANONICAL = {
    "duration": {"h": lambda x: x, "min": lambda x: x / 60.0, "day": lambda x: x * 24.0},
    "temperature": {"degC": lambda x: x, "degF": lambda x: (x - 32.0) * 5.0 / 9.0,
                    "K": lambda x: x - 273.15},
    "ratio": {"percent": lambda x: x},
    "pressure": {"psi": lambda x: x, "bar": lambda x: x * 14.5037738,
                 "kPa": lambda x: x * 0.145037738},
}


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


def _domains_of(source: Source, side: str, report: DiffReport) -> Dict[str, dict]:
    out: Dict[str, dict] = {}
    for raw in load_raw(source):
        if raw.error or not isinstance(raw.payload, dict):
            report.findings.append(_finding("unreadable", raw.name, None,
                                            f"{side}: {raw.error or 'not a mapping'}", raw.path))
            continue
        if raw.name in out:
            report.findings.append(_finding("duplicate_domain", raw.name, None,
                                            f"{side}: domain {raw.name} is given twice", raw.path))
            continue
        out[raw.name] = raw.payload
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _contract_changes(old: Any, new: Any) -> Tuple[List[str], List[Tuple[str, str]]]:
    """(change lines, weakenings as (kind, detail)) between two contracts."""
    old, new = _dict(old), _dict(new)
    if old == new:
        return [], []
    changes = [f"contract {k}: {_fmt(old.get(k))} → {_fmt(new.get(k))}"
               for k in ("kind", "unit", "min", "max") if old.get(k) != new.get(k)]
    weak: List[Tuple[str, str]] = []
    kind = old.get("kind")
    conv_old = _TO_CANONICAL.get(kind, {}).get(old.get("unit"))
    conv_new = _TO_CANONICAL.get(new.get("kind"), {}).get(new.get("unit"))
    if new.get("kind") != kind or conv_old is None or conv_new is None:
        weak.append(("contract_incomparable",
                     f"contract {_fmt(old)} → {_fmt(new)} cannot be compared; treated as a weakening"))
        return changes, weak

    def num(c: dict, key: str, conv) -> Optional[float]:
        v = c.get(key)
        return conv(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    o_min, o_max = num(old, "min", conv_old), num(old, "max", conv_old)
    n_min, n_max = num(new, "min", conv_new), num(new, "max", conv_new)
    band = o_min is not None and o_max is not None
    unit_o, unit_n = old.get("unit"), new.get("unit")

    def desc(c: dict, unit: str) -> str:
        lo, hi = c.get("min"), c.get("max")
        if lo is not None and hi is not None:
            return f"{_fmt(lo)}–{_fmt(hi)} {unit}"
        return f"{'max' if hi is not None else 'min'} {_fmt(hi if hi is not None else lo)} {unit}"

    eps = 1e-9
    loosened_max = o_max is not None and (n_max is None or n_max > o_max + eps)
    loosened_min = o_min is not None and (n_min is None or n_min < o_min - eps)
    if band and (loosened_max or loosened_min):
        weak.append(("band_widened", f"band widened: {desc(old, unit_o)} → {desc(new, unit_n)}"))
    else:
        if loosened_max:
            weak.append(("max_raised" if n_max is not None else "bound_removed",
                         f"max raised: {_fmt(old.get('max'))} {unit_o} → "
                         f"{_fmt(new.get('max')) + ' ' + unit_n if n_max is not None else 'no max'}"))
        if loosened_min:
            weak.append(("min_lowered" if n_min is not None else "bound_removed",
                         f"min lowered: {_fmt(old.get('min'))} {unit_o} → "
                         f"{_fmt(new.get('min')) + ' ' + unit_n if n_min is not None else 'no min'}"))
    return changes, weak


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
             "retired"}
    for key in sorted((set(old) | set(new)) - known, key=str):
        if old.get(key) != new.get(key):
            lines.append(f"{key} changed")
    return lines


def _independent(name: Any, others: Iterable[Any]) -> Tuple[bool, str]:
    if not _str(name):
        return False, "no second approver is named"
    for other in others:
        if _same_person(name, other):
            return False, f"second approver {_str(name)!r} is already the term's owner or approver"
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
    report = DiffReport(_label(old), _label(new))
    olds, news = _domains_of(old, "old", report), _domains_of(new, "new", report)
    for name in sorted(set(olds) | set(news)):
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
        weak: List[Tuple[str, str, str, Any, List[Any]]] = []  # (term, kind, detail, sa, people)
        for tid, t in ot.items():
            if tid not in nt:
                dd.terms[tid] = TermDiff(tid, "removed", t.get("signal"), removed_phrases=_variants(t))
                if t.get("signal") == "critical_block":
                    entry = retired.get(tid, {})
                    weak.append((tid, "critical_removed",
                                 f"critical term {tid} removed" + (" with its domain" if n is None else ""),
                                 entry.get("second_approver"), [t.get("owner"), t.get("approver")]))
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
            weak += [(tid, kind, detail, t.get("second_approver"), people) for kind, detail in tw]
        if n is None:
            dd.status = "removed"
        else:
            dd.other_changes = _diff_other(o, n)
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
        for tid, kind, detail, sa, people in weak:
            ok, why = _independent(sa, people)
            report.weakenings.append(Weakening(name, tid, kind, detail, _str(sa) or None, ok))
            if not ok:
                where = (f"an entry {{id: {tid}, second_approver: ...}} in the domain's `retired` list"
                         if kind == "critical_removed" else "`second_approver` on the term")
                report.findings.append(_finding(
                    "weakening_without_second_approver", name, tid,
                    f"{tid}: {detail}. A weakening needs a second approver, different from the "
                    f"owner and the approver, named in the new version ({where}): {why}"))
    return report


def changelog(old: Source, new: Source) -> str:
    """A Markdown changelog of what changed between two glossary versions."""
    return diff(old, new).to_markdown()


def _versions(report: DiffReport, attr: str) -> str:
    vs = sorted({getattr(d, attr) for d in report.domains.values() if getattr(d, attr)}, key=str)
    return "+".join(str(v) for v in vs) or "none"


def _markdown(report: DiffReport) -> str:
    lines = [f"# Glossary changelog: {_versions(report, 'old_version')} → "
             f"{_versions(report, 'new_version')}", ""]
    unchanged = [n for n, d in report.domains.items() if d.status == "unchanged"]
    weak_by = {}
    for w in report.weakenings:
        weak_by.setdefault(w.domain, []).append(w)
    for name, dd in report.domains.items():
        if dd.status == "unchanged":
            continue
        head = {"added": f"{dd.new_version} (new domain)", "removed": f"{dd.old_version} (domain removed)"}
        lines += [f"## {name} — {head.get(dd.status, f'{dd.old_version} → {dd.new_version}')}", ""]
        for title, status in (("Added terms", "added"), ("Removed terms", "removed")):
            ids = dd._ids(status)
            if ids:
                lines.append(f"### {title}")
                for tid in ids:
                    td = dd.terms[tid]
                    phrases = td.added_phrases if status == "added" else td.removed_phrases
                    lines.append(f"- `{tid}` ({td.signal}): " + ", ".join(str(p) for p in phrases))
                lines.append("")
        if dd.changed_terms:
            lines.append("### Changed terms")
            for tid in dd.changed_terms:
                td = dd.terms[tid]
                lines.append(f"- `{tid}` ({td.signal})")
                lines += [f"  - {c}" for c in td.changes]
                lines += [f"  - added phrase {p}" for p in td.added_phrases]
                lines += [f"  - removed phrase {p}" for p in td.removed_phrases]
            lines.append("")
        if dd.other_changes:
            lines.append("### Other changes")
            lines += [f"- {c}" for c in dd.other_changes]
            lines.append("")
        if weak_by.get(name):
            lines.append("### Weakenings (second approval required)")
            for w in weak_by[name]:
                status = (f"approved by second approver {w.second_approver}" if w.accepted
                          else "**NOT APPROVED**: no independent second approver")
                lines.append(f"- `{w.term}`: {w.detail} — {status}")
            lines.append("")
    if not report.changed:
        lines += ["No changes.", ""]
    if unchanged and report.changed:
        lines += [f"Unchanged: {', '.join(unchanged)}.", ""]
    if report.findings:
        lines.append("## Problems")
        lines += [f"- **{f.severity}** `{f.code}` {f.domain or ''}{'/' + f.term if f.term else ''}: "
                  f"{f.message}" for f in report.findings]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------
# replay
# --------------------------------------------------------------------------

DecideFn = Callable[[List[Any], Path], Iterable[Dict[str, Any]]]


@dataclass
class ReplayRow:
    index: int
    id: Any
    old: str
    new: str
    old_codes: List[str] = field(default_factory=list)
    new_codes: List[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def to_dict(self) -> Dict[str, Any]:
        return {"index": self.index, "id": self.id, "old": self.old, "new": self.new,
                "changed": self.changed, "old_codes": self.old_codes, "new_codes": self.new_codes}


@dataclass
class ReplayReport:
    archived_version: str
    archived_dir: str
    current_dir: str
    rows: List[ReplayRow] = field(default_factory=list)

    @property
    def changed(self) -> List[ReplayRow]:
        return [r for r in self.rows if r.changed]

    def transitions(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for r in self.changed:
            out[f"{r.old}→{r.new}"] = out.get(f"{r.old}→{r.new}", 0) + 1
        return dict(sorted(out.items()))

    def to_dict(self) -> Dict[str, Any]:
        return {"archived_version": self.archived_version, "archived_dir": self.archived_dir,
                "current_dir": self.current_dir, "cases": len(self.rows),
                "changed": [r.to_dict() for r in self.changed],
                "transitions": self.transitions(), "rows": [r.to_dict() for r in self.rows]}

    def to_text(self) -> str:
        lines = [f"replayed {len(self.rows)} cases: archived {self.archived_version} "
                 f"({self.archived_dir}) vs current ({self.current_dir})",
                 f"{len(self.changed)} decision{'' if len(self.changed) == 1 else 's'} would change"]
        for k, v in self.transitions().items():
            lines.append(f"  {k}: {v}")
        for r in self.changed:
            lines.append(f"  {str(r.id):<16} {r.old:<8} → {r.new:<8} "
                         f"[{', '.join(r.old_codes) or '-'}] → [{', '.join(r.new_codes) or '-'}]")
        return "\n".join(lines)


def read_cases(path: Union[str, Path]) -> List[Any]:
    """The cases of a JSONL file, one JSON value per non-blank line."""
    cases: List[Any] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                cases.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise GovernanceError(f"{path}:{lineno}: case line is not JSON ({err.msg})") from None
    return cases


def _decisions(decide_fn: DecideFn, cases: List[Any], folder: Path) -> List[Dict[str, Any]]:
    out = list(decide_fn(cases, folder))
    if len(out) != len(cases):
        raise GovernanceError(f"decide_fn returned {len(out)} decisions for {len(cases)} cases "
                              f"under {folder}")
    for i, d in enumerate(out):
        if not isinstance(d, dict) or not isinstance(d.get("decision"), str):
            raise GovernanceError(f"decide_fn under {folder}: decision {i + 1} has no 'decision'")
    return out


def _codes(decision: Dict[str, Any]) -> List[str]:
    return [str(r.get("code")) for r in _list(decision.get("reasons")) if isinstance(r, dict)]


def replay(cases_jsonl: Union[str, Path, Sequence[Any]], archived_version: str,
           decide_fn: DecideFn, glossary_dir: Optional[Union[str, Path]] = None,
           archive_root: Optional[Union[str, Path]] = None) -> ReplayReport:
    """Decide logged cases under an archived glossary version and under the current one.

    cases_jsonl (str | Path | list): A cases JSONL file (spec §5), or the cases.
    archived_version (str): A version under ``glossaries/archive/``.
    decide_fn (Callable): ``decide_fn(cases, glossary_dir) -> decisions``, in
        case order; the lead wires it to the real pipeline.
    glossary_dir (str | Path | None): The "new" glossaries; default bundled.
    archive_root (str | Path | None): Where versions are archived.
    RETURNS (ReplayReport): Per case the archived (old) and current (new)
        decision; ``report.changed`` lists the ones that differ.
    """
    cases = read_cases(cases_jsonl) if isinstance(cases_jsonl, (str, Path)) else list(cases_jsonl)
    old_dir = archive_dir(archived_version, archive_root)
    new_dir = Path(glossary_dir) if glossary_dir else bundled_glossary_dir()
    if not new_dir.is_dir():
        raise GovernanceError(f"{new_dir}: not a glossary directory")
    old = _decisions(decide_fn, cases, old_dir)
    new = _decisions(decide_fn, cases, new_dir)
    report = ReplayReport(archived_version, str(old_dir), str(new_dir))
    for i, (case, a, b) in enumerate(zip(cases, old, new)):
        cid = case.get("id") if isinstance(case, dict) else None
        report.rows.append(ReplayRow(i, cid if cid is not None else a.get("id", f"#{i + 1}"),
                                     a["decision"], b["decision"], _codes(a), _codes(b)))
    return report

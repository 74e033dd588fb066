"""Glossary rules a reviewer would demand, shared by the loader and ``validate``.

The pydantic models of ``semgap_spacy.glossary`` call these checks when a
glossary is loaded, and ``semgap_spacy.governance.validate`` reports the very
same refusals (through the models, or by calling these functions on the raw
YAML where a rule spans files), so a glossary that ``validate`` rejects can
never be loaded for ``assess`` and the other way round.

Each check returns ``None`` when the value is fine, else one sentence that
names the value, what is wrong with it and the rule, as ``[rule <code>]``,
where ``<code>`` is the finding code ``validate`` reports. The words a rule
compares with (stop words, cues, common words) are data: spaCy's
``STOP_WORDS``, the language packs' ``cues.json`` plus the spec's cues in
``data/governance.yaml``, and ``data/glossary_rules.yaml``.

This module imports nothing of the glossary models, so both the models and
the governance package can import it without a cycle.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple, Union

import srsly

from ..util.spacy_lists import spacy_stop_words
from ..util.textnorm import fold
from ..util.yaml_files import read_yaml

_DATA = Path(__file__).resolve().parents[1] / "data"
#: The context reader's cue lists, one <lang>.json per language.
RULE_LANGUAGES = ("en", "es", "fr", "de")

# cue kinds that negate or hedge nothing: "pseudo" cues ("not only") and
# "break" cues ("but"), which only end a cue's scope
NOT_CUES = ("pseudo", "break", "scope_break", "terminator", "termination")


def rule_tag(code: str) -> str:
    """How a message names the rule it reports, e.g. ``[rule bad_version]``."""
    return f"[rule {code}]"


_RULE_IN_MESSAGE = re.compile(r"\[rule ([a-z_]+)\]")


def rule_of(message: str) -> Optional[str]:
    """The rule code a message from this module names, or None."""
    hit = _RULE_IN_MESSAGE.search(message)
    return hit.group(1) if hit else None


@lru_cache(maxsize=1)
def rule_data() -> Dict[str, Any]:
    return read_yaml(_DATA / "glossary_rules.yaml")


def phrase_key(text: str) -> str:
    """Folded phrase with hyphen/space variants collapsed, for duplicate checks."""
    return re.sub(r"[\s\-]+", "", fold(text))


def _norm(text: str) -> str:
    return " ".join(fold(text).split())


def _words(text: str) -> List[str]:
    return [w for w in re.split(r"[^\w]+", fold(text)) if w]


# --------------------------------------------------------------------------
# word lists
# --------------------------------------------------------------------------

@lru_cache(maxsize=1)
def stop_words() -> frozenset:
    """spaCy's STOP_WORDS of en, es, fr and de, folded: one union, as spec §4.1."""
    return frozenset(fold(w) for lang in ("en", "es", "fr", "de") for w in spacy_stop_words(lang))


@lru_cache(maxsize=1)
def common_words() -> frozenset:
    """Words an abbreviation must not be: stop words plus data/glossary_rules.yaml."""
    listed = {fold(str(w)) for group in (rule_data().get("common_words") or {}).values()
              for words in (group or {}).values() for w in words or []}
    return stop_words() | frozenset(listed) | frozenset(re.sub(r"[.\s\-']+", "", w) for w in listed)


def cue_records(payload: Any, default_kind: str) -> Iterable[Tuple[str, str]]:
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
            yield from cue_records(value, key if named else default_kind)


def read_cues(negation_dir: Optional[Union[str, Path]] = None) -> Dict[str, Dict[str, str]]:
    """Negation and hedge cues per language: {lang: {folded cue: kind}}.

    The spec's list (data/governance.yaml) is always included; cues from
    ``<negation_dir>/<lang>.json`` are added when those files exist (a
    half-written file is skipped, never fatal); without a folder, the cue
    files of the language packs (``semgap_spacy/lang/<lang>/cues.json``).
    """
    cues: Dict[str, Dict[str, str]] = {lang: {} for lang in RULE_LANGUAGES}
    spec = read_yaml(_DATA / "governance.yaml").get("cues") or {}
    for lang, kinds in spec.items():
        for kind, words in (kinds or {}).items():
            for word in words or []:
                cues.setdefault(lang, {})[_norm(str(word))] = f"{kind} cue"
    folder = Path(negation_dir) if negation_dir else None
    for lang in RULE_LANGUAGES:
        if folder is None:
            payload = _pack_cues(lang)
        else:
            path = folder / f"{lang}.json"
            if not path.is_file():
                continue
            try:
                payload = srsly.read_json(path)
            except Exception:  # a half-written file must not break validation
                continue
        for cue, kind in cue_records(payload, "cue"):
            key = _norm(cue)
            if key and kind not in NOT_CUES:
                cues[lang].setdefault(key, kind if kind.endswith("cue") else f"{kind} cue")
    return cues


def _pack_cues(lang: str) -> Any:
    """The cue file of a language pack, as written; {} when the language has no pack."""
    from ..lang import LanguagePackError, get_pack

    try:
        return get_pack(lang).cues.to_payload()
    except LanguagePackError:
        return {}


@lru_cache(maxsize=1)
def _cue_index() -> Tuple[Dict[str, Tuple[str, str, str]], frozenset]:
    """({phrase key: (cue, lang, kind)}, single cue words) of the bundled cues."""
    by_key: Dict[str, Tuple[str, str, str]] = {}
    single: Set[str] = set()
    for lang, table in read_cues().items():
        for cue, kind in table.items():
            by_key.setdefault(phrase_key(cue), (cue, lang, kind))
            words = _words(cue)
            if len(words) == 1:
                single.add(words[0])
    return by_key, frozenset(single)


# --------------------------------------------------------------------------
# the rules
# --------------------------------------------------------------------------

def name_problem(value: Any) -> Optional[str]:
    """A person (owner, approver, reviewer) must be named in printable text.

    A blank name, or one holding control, format or escape characters
    ("\\u200b", "\\x1b[8m"), looks named to a reader of the YAML or of a
    terminal while naming nobody. Only the plain space separates words
    (``str.isprintable``), and a name needs at least one letter.
    """
    if not isinstance(value, str):
        return None  # the type check reports it
    tag = rule_tag("bad_person_name")
    if not value.strip():
        return f"name {value!r} is blank; a person must be named {tag}"
    if not value.isprintable():
        bad = sorted({f"U+{ord(ch):04X}" for ch in value if not ch.isprintable()})
        return (f"name {value!r} holds control, format or escape characters "
                f"({', '.join(bad)}) {tag}")
    if value != value.strip():
        return f"name {value!r} has leading or trailing spaces {tag}"
    if not any(ch.isalpha() for ch in value):
        return f"name {value!r} holds no letter; a person must be named {tag}"
    mixed = _mixed_scripts(value)
    if mixed:  # "Priyа" with a Cyrillic "а" reads as "Priya" and passed for another person
        return f"name {value!r} {mixed}; look-alike letters could pass one person for another {tag}"
    return None


#: the scripts whose letters look like one another ("а" and "a"); "µ" (MICRO SIGN) or "º" are no such letters
_LOOKALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})


def _mixed_scripts(text: str) -> Optional[str]:
    """What mixes scripts within a word of a text ("Priyа": Latin and a Cyrillic "а"), or None."""
    for word in text.split():
        scripts = {unicodedata.name(ch, "?").split()[0] for ch in word if ch.isalpha()} & _LOOKALIKE_SCRIPTS
        if len(scripts) > 1:
            return f"mixes scripts in {word!r} ({', '.join(sorted(scripts))})"
    return None


def phrase_problem(text: Any) -> Optional[str]:
    """A phrase must say something the text could only mean on purpose.

    A phrase is matched wherever its words occur, so "." or "the" would match
    almost every text ("File reviewed." would read as a clearance). It needs
    a word with a letter that is neither a stop word of the four languages
    nor a cue word; it must not be a negation/hedge cue itself (the context
    reader would take it as "not" or "maybe"); and it must be printable.
    """
    if not isinstance(text, str):
        return None
    if not text.isprintable():
        bad = sorted({f"U+{ord(ch):04X}" for ch in text if not ch.isprintable()})
        return (f"phrase {text!r} holds control, format or non-space whitespace characters "
                f"({', '.join(bad)}) {rule_tag('phrase_not_printable')}")
    tag = rule_tag("phrase_without_content")
    if not text.strip():
        return f"phrase {text!r} is empty {tag}"
    if not any(ch.isalnum() for ch in text):
        return f"phrase {text!r} is punctuation only {tag}"
    mixed = _mixed_scripts(text)
    if mixed:  # "fоo" with a Cyrillic "о" is read as "foo" everywhere
        return f"phrase {text!r} {mixed}; write it in the letters a text would use {tag}"
    by_key, single = _cue_index()
    hit = by_key.get(phrase_key(text))
    if hit:
        cue, lang, kind = hit
        return (f"phrase {text!r} is the {lang} {kind} \"{cue}\"; the context reader would "
                f"take it as negating or hedging, not as the term {rule_tag('phrase_is_cue')}")
    stops = stop_words()
    content = [w for w in _words(text)
               if any(ch.isalpha() for ch in w) and w not in stops and w not in single]
    if not content:
        return (f"phrase {text!r} has no word that is not a stop word (en, es, fr, de) "
                f"or a cue {tag}")
    return None


def abbreviation_problem(text: Any) -> Optional[str]:
    """An abbreviation is matched as a token, so it must not be a common word.

    At least ``abbreviation_min_chars`` letters or digits, not a stop word of
    the four languages and not one of data/glossary_rules.yaml's common words
    (dots, spaces, hyphens and apostrophes ignored: "O.K." is "ok"); it must
    also pass every phrase rule.
    """
    if not isinstance(text, str):
        return None
    tag = rule_tag("bad_abbreviation")
    least = int(rule_data().get("abbreviation_min_chars", 2))
    chars = sum(ch.isalnum() for ch in text)
    if chars < least and text.isprintable():
        return f"abbreviation {text!r} has {chars} letters or digits; at least {least} {tag}"
    common = common_words()
    compact = re.sub(r"[.\s\-']+", "", fold(text))
    if text.isprintable() and (_norm(text) in common or compact in common):
        return (f"abbreviation {text!r} is a common word (a stop word or listed in "
                f"data/glossary_rules.yaml); it would match ordinary text {tag}")
    problem = phrase_problem(text)
    return problem.replace("phrase ", "abbreviation ", 1) if problem else None


def version_problem(version: Any) -> Optional[str]:
    """A version is YEAR.MONTH.PATCH with a month that exists (1-12)."""
    tag = rule_tag("bad_version")
    if version is None:
        return f"no version (expected YYYY.MM.N, e.g. 2026.11.0) {tag}"
    if not isinstance(version, str) or not version_pattern().match(version):
        return (f"version {version!r} is not YYYY.MM.N with a month 1-12 "
                f"(e.g. 2026.11.0) {tag}")
    return None


@lru_cache(maxsize=1)
def version_pattern() -> "re.Pattern[str]":
    return re.compile(rule_data()["version_pattern"])


@lru_cache(maxsize=1)
def _domain_pattern() -> "re.Pattern[str]":
    return re.compile(rule_data()["domain_pattern"])


def domain_problem(name: Any) -> Optional[str]:
    """A domain name is a plain identifier: it names files, folders and decisions."""
    if not isinstance(name, str):
        return None
    if not _domain_pattern().match(name):
        return (f"domain name {name!r} is not a safe identifier "
                f"({rule_data()['domain_pattern']}: lower-case letters, digits and "
                f"underscores, never a path) {rule_tag('bad_domain_name')}")
    if name in (rule_data().get("reserved_domain_names") or ()):
        return (f"domain name {name!r} is reserved: it is the scope of a reviewer's choice "
                f"that holds in every domain {rule_tag('bad_domain_name')}")
    return None


def draft_dependency_problems(terms: Iterable[Tuple[str, str, Any, Any]]
                              ) -> List[Tuple[str, str, str]]:
    """An approved term must not rest on a draft term (it would vouch for it).

    terms: (domain, term id, status, depends_on) for every term of the set;
        unknown dependencies are ``dependency_problems``' to report.
    RETURNS: (domain, term id, message) per approved term resting on a draft.
    """
    rows = list(terms)
    status = {}
    for _, tid, st, _ in rows:
        status.setdefault(tid, st)
    out: List[Tuple[str, str, str]] = []
    for dom, tid, st, deps in rows:
        if st != "approved" or not isinstance(deps, list):
            continue
        for dep in deps:
            if isinstance(dep, str) and dep in status and status[dep] != "approved":
                out.append((dom, tid, f"approved term {tid} depends on {dep}, which is a "
                                      f"draft; approve {dep} first or make {tid} a draft "
                                      f"{rule_tag('draft_dependency')}"))
    return out


def dependency_problems(terms: Iterable[Tuple[str, str, Any]]) -> List[Tuple[str, str, str]]:
    """Every unknown or cyclic ``depends_on`` across a whole set of domains.

    terms: (domain, term id, depends_on) for every term of every loaded
        domain; depends_on may be anything YAML holds (non-strings are left
        to the type check).
    RETURNS: (domain, term id, message) per problem: an unknown term, or a
        cycle (a term that depends on itself, directly or through others),
        reported once, at the term where the cycle was entered.
    """
    rows = list(terms)
    home: Dict[str, str] = {}
    graph: Dict[str, List[str]] = {}
    for dom, tid, deps in rows:
        home.setdefault(tid, dom)
        graph.setdefault(tid, [])
        if isinstance(deps, list):
            graph[tid] += [d for d in deps if isinstance(d, str)]
    out: List[Tuple[str, str, str]] = []
    for dom, tid, _ in rows:
        for dep in graph.get(tid, []):
            if dep not in graph:
                out.append((dom, tid, f"term {tid} depends on unknown term {dep} "
                                      f"{rule_tag('unknown_reference')}"))
    # cycles: iterative depth-first search, colouring 0 new, 1 on path, 2 done
    colour: Dict[str, int] = {}
    seen_cycles: Set[frozenset] = set()
    for start in graph:
        if colour.get(start):
            continue
        path: List[str] = [start]
        stack: List[Tuple[str, int]] = [(start, 0)]
        colour[start] = 1
        while stack:
            node, i = stack[-1]
            deps = [d for d in graph[node] if d in graph]
            if i < len(deps):
                stack[-1] = (node, i + 1)
                nxt = deps[i]
                if colour.get(nxt) == 1:
                    cycle = path[path.index(nxt):] + [nxt]
                    key = frozenset(cycle)
                    if key not in seen_cycles:
                        seen_cycles.add(key)
                        out.append((home[nxt], nxt,
                                    f"term {nxt}: depends_on forms a cycle "
                                    f"({' -> '.join(cycle)}) {rule_tag('dependency_cycle')}"))
                elif not colour.get(nxt):
                    colour[nxt] = 1
                    path.append(nxt)
                    stack.append((nxt, 0))
            else:
                colour[node] = 2
                path.pop()
                stack.pop()
    return out

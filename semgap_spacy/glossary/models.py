"""The governed glossary: pydantic models, loading, validation and hashing.

A glossary is the only place the pipeline learns what a phrase means, so a bad
one must fail when it is loaded, with the file, the term and the problem named,
rather than later as a wrong decision. Every decision carries the version and
the SHA-256 of the canonical form, so a decision can always be traced back to
the exact glossary that produced it.
"""
import hashlib
import json
import math
import re
import unicodedata
import weakref
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Dict, Iterator, List, Literal, Optional, Tuple, Union

import srsly
from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, ValidationError,
                      field_validator, model_validator)

from . import rules
from .rules import phrase_key
from ..util.textnorm import exact, fold
from ..util.yaml_files import read_yaml

SIGNALS = ("clear", "critical_block", "field")
LANGUAGES = ("en", "es", "fr", "de")
QUANTITY_KINDS = ("duration", "temperature", "ratio", "pressure")
# The canonical unit a contract may be written in, per quantity kind.
CONTRACT_UNITS = {
    "duration": ("h", "min", "day"),
    "temperature": ("degC", "degF", "K"),
    "ratio": ("percent",),
    "pressure": ("psi", "bar", "kPa"),
}
# calendar versions, month 1-12 (data/glossary_rules.yaml)
_VERSION = rules.version_pattern()


def version_order(version: str) -> tuple:
    """A sort key that puts "2026.12.2" before "2026.12.10", and text that is no version after every version."""
    return (0, tuple(int(p) for p in version.split("."))) if _VERSION.match(version) else (1, version)


def stating_word(text: str) -> Optional[str]:
    """The first never-neutral word, clause-break word or negation/hedge cue of a phrase, quoted, or None.

    A phrase of a clearance that holds one ("not good to go", "good to go yet")
    would match the very text that denies or defers the clearance and read it
    as asserted: a cue inside a matched term is the term's own word.
    """
    from ..lang import accented_never_neutral, break_cue_words, never_neutral_words, packs  # the language
    # layer sits below the glossary; words an accent tells apart ("dès", not "des") are compared as written
    accented = accented_never_neutral()
    avoid = {fold(w) for w in never_neutral_words() if exact(w) not in accented} | {
        fold(w) for w in break_cue_words()}
    written = re.findall(r"[\w'’]+", text)
    words = [fold(w) for w in written]
    for word, key in zip(written, words):
        if key in avoid or exact(word) in accented:
            return f"the never-neutral word {word!r}"
    joined = f" {' '.join(words)} "
    for pack in packs().values():
        for record in pack.cues.records:
            if record.category in ("negation", "hedge"):
                cue = " ".join(fold(w) for w in re.findall(r"[\w'’]+", record.cue))
                if cue and f" {cue} " in joined:
                    return f"the {record.category} cue {record.cue!r}"
    return None


def _rule(check):
    """A pydantic after-validator from a glossary.rules check (None = fine)."""
    def run(value):
        problem = check(value)
        if problem:
            raise ValueError(problem)
        return value
    return AfterValidator(run)


# The rules every name, phrase and abbreviation meets (see glossary/rules.py).
PersonName = Annotated[str, _rule(rules.name_problem)]
Phrase = Annotated[str, _rule(rules.phrase_problem)]
Abbreviation = Annotated[str, _rule(rules.abbreviation_problem)]


class GlossaryError(ValueError):
    """A glossary file that cannot be used; the message names file, term, problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Contract(_Strict):
    """What a field's value must satisfy. Limits are inclusive (spec §4)."""

    kind: Literal["duration", "temperature", "ratio", "pressure"]
    unit: Optional[str] = None
    min: Optional[float] = None
    max: Optional[float] = None

    @model_validator(mode="after")
    def _check(self) -> "Contract":
        if not self.unit:
            raise ValueError("contract without unit")
        if self.unit not in CONTRACT_UNITS[self.kind]:
            raise ValueError(
                f"contract unit {self.unit!r} is not a {self.kind} unit "
                f"(one of {', '.join(CONTRACT_UNITS[self.kind])})"
            )
        if self.min is None and self.max is None:
            raise ValueError("contract without min or max")
        for name, bound in (("min", self.min), ("max", self.max)):
            if bound is not None and not math.isfinite(bound):
                # NaN compares false with every reading, so no reading would ever break the limit
                raise ValueError(f"contract {name} {bound} is not a finite number")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"contract min {self.min} is above max {self.max}")
        return self

    @property
    def is_band(self) -> bool:
        return self.min is not None and self.max is not None

    def describe(self) -> str:
        """Human wording of the contract, as used in reason messages."""
        if self.is_band:
            return f"band {_num(self.min)}–{_num(self.max)} {self.unit}"
        if self.max is not None:
            return f"limit of {_num(self.max)} {self.unit}"
        return f"minimum of {_num(self.min)} {self.unit}"

    def tolerance(self) -> float:
        """1 % of the limit (for a band, of its upper bound): spec §4's agreement rule."""
        bound = self.max if self.max is not None else self.min
        return abs(bound) * 0.01


def _num(x: float) -> str:
    return f"{x:g}"


class Translation(_Strict):
    status: Literal["approved", "draft"]
    reviewer: Optional[PersonName] = None
    phrases: List[Phrase] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> "Translation":
        if self.status == "approved" and not (self.reviewer or "").strip():
            raise ValueError("approved translation without a reviewer")
        return self


#: a term's, frame's or retirement's id: a word at least, printable, no space at either end
TermId = Annotated[str, Field(min_length=1, pattern=r"^\S(?:.*\S)?$")]


class Term(_Strict):
    id: TermId
    signal: Literal["clear", "critical_block", "field"]
    definition: str
    owner: PersonName
    approver: Optional[PersonName] = None
    status: Literal["approved", "draft"]
    phrases: List[Phrase] = Field(min_length=1)
    abbreviations: List[Abbreviation] = []
    translations: Dict[Literal["es", "fr", "de"], Translation] = {}
    field: Optional[str] = None
    contract: Optional[Contract] = None
    depends_on: List[str] = []
    # the person who approved a weakening of this term (governance diff rule)
    second_approver: Optional[PersonName] = None

    @model_validator(mode="after")
    def _check(self) -> "Term":
        # a clear or critical term decides alone, so it needs an approver even as a draft
        if (self.status == "approved" or self.signal != "field") and not (self.approver or "").strip():
            raise ValueError("missing approver [rule missing_approver]")
        if self.approver and fold(self.approver.strip()) == fold(self.owner.strip()):
            raise ValueError("approver equal to owner [rule approver_is_owner]")
        if self.second_approver and any(
                fold(self.second_approver.strip()) == fold(p.strip())
                for p in (self.owner, self.approver or "")):
            raise ValueError(f"second approver {self.second_approver!r} must differ from the "
                             "owner and the approver [rule second_approver_not_independent]")
        if self.signal == "field":
            if not self.field:
                raise ValueError("field term without a field name")
            if self.contract is None:
                raise ValueError("field term without a contract")
        elif self.field or self.contract:
            raise ValueError(f"{self.signal} term must not have a field or contract")
        return self

    def variants(self) -> Iterator[Tuple[str, str, str, str]]:
        """Every phrase of the term as (text, language, status, kind)."""
        for p in self.phrases:
            yield p, "en", self.status, "phrase"
        for a in self.abbreviations:
            yield a, "en", self.status, "abbreviation"
        for lang, tr in self.translations.items():
            status = "draft" if "draft" in (self.status, tr.status) else "approved"
            for p in tr.phrases:
                yield p, lang, status, "translation"


class Frame(_Strict):
    """Head word plus outcome word, in either order, a few tokens apart."""

    id: TermId
    heads: List[str] = Field(min_length=1)
    window: int = Field(default=3, ge=0, le=10)
    values: Dict[str, List[str]] = Field(min_length=1)


class Meaning(_Strict):
    meaning: str
    term: Optional[str] = None


class Ambiguous(_Strict):
    abbreviation: str
    meanings: List[Meaning] = Field(min_length=2)


class Retirement(_Strict):
    """A removed critical term, with the second approver who allowed it."""

    id: TermId
    second_approver: PersonName
    reason: str = ""


_LangLists = Dict[Literal["en", "es", "fr", "de"], List[str]]


class NeutralVocabulary(_Strict):
    """Spec §4.1 rule 7: the common lists (the same in every bundled domain) and the domain's own."""

    common: _LangLists = {}
    domain: _LangLists = {}

    def words(self) -> Iterator[Tuple[str, str, str]]:
        """Every neutral word as (word, language, list)."""
        for which, lists in (("common", self.common), ("domain", self.domain)):
            for lang, words in lists.items():
                for word in words:
                    yield word, lang, which


class Vocabulary(_Strict):
    """Words that explain a text without saying anything (spec §4.1 rules 6 and 7), and the
    parties whose word does not clear (``no_authority``, ``core.hearsay``).

    Governed like terms: a word added here can turn an escalate into a proceed,
    so the approver must be someone other than the owner who wrote it, and the
    diff reports every addition as a weakening (spec §4.2).
    """

    owner: Optional[str] = None
    approver: Optional[str] = None
    neutral: NeutralVocabulary = NeutralVocabulary()
    #: names of parties, sites and people, matched as whole phrases, case-sensitively
    known_names: List[str] = []
    #: parties of the domain who do not give its clearances ("borrower", "driver"): a clearance in
    #: their words ("Borrower says we are clear to close") is hearsay and escalates
    #: (``core.hearsay``); taking a party off this list is a weakening
    no_authority: _LangLists = {}

    @model_validator(mode="after")
    def _check(self) -> "Vocabulary":
        if (self.approver or "").strip() and fold(self.approver.strip()) == fold((self.owner or "").strip()):
            raise ValueError("vocabulary: approver equal to owner")
        for word, lang, which in self.neutral.words():
            if not word.strip() or len(word.split()) != 1:
                raise ValueError(f"neutral word {word!r} ({which} {lang}): a neutral entry is one word")
            _check_as_read(word, f"neutral word {word!r} ({which} {lang})")
        for name in self.known_names:
            if not name.strip():
                raise ValueError("known name: empty name")
            _check_as_read(name, f"known name {name!r}")
        for lang, parties in self.no_authority.items():
            for party in parties:
                if not party.strip() or len(party.split()) != 1:
                    raise ValueError(f"no_authority {party!r} ({lang}): a party is one word")
                _check_as_read(party, f"no_authority {party!r} ({lang})")
        return self


def _check_as_read(entry: str, where: str) -> None:
    """A taught entry is written as the text it explains is read (spec §4.1): no invisible
    character (category Cf: soft hyphen, zero-width space, bidi marks), no variation selector,
    and nothing NFKC would change. The checks against never-neutral and critical words
    compare what is written, while texts are read without such characters, so "agai\xadnst"
    would pass the checks and then explain "against"."""
    odd = sorted({f"U+{ord(ch):04X}" for ch in entry
                  if unicodedata.category(ch) == "Cf" or 0xFE00 <= ord(ch) <= 0xFE0F
                  or 0xE0100 <= ord(ch) <= 0xE01EF})
    if odd:
        raise ValueError(f"{where} holds invisible characters ({', '.join(odd)}): write it as it reads")
    if unicodedata.normalize("NFKC", entry) != entry:
        raise ValueError(f"{where} is not in NFKC form (it reads as "
                         f"{unicodedata.normalize('NFKC', entry)!r}): write it as it reads")


class Taught(_Strict):
    """An entry a review round added (spec §4.2): who drafted it, who approved it, from which cases.

    The record is what lets ``glossary diff`` accept the weakening: the
    approver must be someone other than every reviewer who drafted it.
    """

    draft: str
    kind: Literal["neutral", "name", "phrase"]
    text: str = Field(min_length=1)
    lang: Literal["en", "es", "fr", "de"] = "en"
    term: Optional[str] = None
    #: "all": the reviewer taught it for every domain (a record in each domain it was added to)
    scope: Literal["domain", "all"] = "domain"
    drafted_by: List[PersonName] = Field(min_length=1)
    approver: PersonName
    #: the SHA-256 of the texts of the reviewed cases
    cases: List[str] = []

    @model_validator(mode="after")
    def _check(self) -> "Taught":
        if (self.kind == "phrase") != bool(self.term):
            raise ValueError(f"taught {self.draft}: a phrase names its term, and only a phrase does")
        if self.scope == "all" and self.kind == "phrase":
            raise ValueError(f"taught {self.draft}: a phrase belongs to its term's domain, not to scope all")
        if any(fold(self.approver.strip()) == fold(a.strip()) for a in self.drafted_by):
            raise ValueError(f"taught {self.draft}: approver {self.approver!r} also drafted it; a draft "
                             "needs a second person")
        return self


class DomainGlossary(_Strict):
    domain: str
    version: str
    description: str = ""
    compounds: Dict[str, List[str]] = {}
    terms: List[Term] = Field(min_length=1)
    frames: List[Frame] = []
    ambiguous: List[Ambiguous] = []
    retired: List[Retirement] = []
    vocabulary: Vocabulary = Vocabulary()
    #: entries added by review rounds, with who drafted and who approved them (spec §4.2)
    taught: List[Taught] = []

    @field_validator("version", "domain")
    @classmethod
    def _version_and_domain(cls, v: str, info) -> str:
        check = rules.version_problem if info.field_name == "version" else rules.domain_problem
        problem = check(v)
        if problem:
            raise ValueError(problem)
        return v

    @model_validator(mode="after")
    def _check(self) -> "DomainGlossary":
        ids = [t.id for t in self.terms]
        dupes = {i for i in ids if ids.count(i) > 1}
        if dupes:
            raise ValueError(f"duplicate term id {sorted(dupes)[0]}")
        seen: Dict[str, str] = {}
        for term in self.terms:
            for text, _, _, _ in term.variants():
                key = phrase_key(text)
                if key in seen and seen[key] != term.id:
                    raise ValueError(
                        f"term {term.id}: phrase {text!r} is also a phrase of {seen[key]}"
                    )
                seen[key] = term.id
        fields = [t.field for t in self.terms if t.field]
        if len(fields) != len(set(fields)):
            raise ValueError("two terms name the same field")
        known = set(ids)
        for frame in self.frames:
            for term_id in frame.values:
                if term_id not in known:
                    raise ValueError(f"frame {frame.id}: unknown term {term_id}")
        for amb in self.ambiguous:
            for m in amb.meanings:
                if m.term and m.term not in known:
                    raise ValueError(f"ambiguous {amb.abbreviation}: unknown term {m.term}")
        self._check_neutral()
        self._check_taught()
        return self

    def _check_taught(self) -> None:
        """Every taught record names an entry the glossary holds."""
        neutral = {fold(w) for w, _, _ in self.vocabulary.neutral.words()}
        names = set(self.vocabulary.known_names)
        for record in self.taught:
            where = f"taught {record.draft} ({record.kind} {record.text!r})"
            if record.kind == "neutral" and fold(record.text) not in neutral:
                raise ValueError(f"{where} is not a neutral word of the domain")
            if record.kind == "name" and record.text not in names:
                raise ValueError(f"{where} is not a known name of the domain")
            if record.kind == "phrase":
                term = next((t for t in self.terms if t.id == record.term), None)
                if term is None:
                    raise ValueError(f"{where}: unknown term {record.term}")
                if phrase_key(record.text) not in {phrase_key(t) for t, _, _, _ in term.variants()}:
                    raise ValueError(f"{where} is not a phrase of {record.term}")
                stating = stating_word(record.text) if term.signal in ("clear", "field") else None
                if stating:
                    raise ValueError(f"{where}: a phrase taught to the {term.signal} term {term.id} holds "
                                     f"{stating}, which says the term is not so or not yet; such a "
                                     "phrase is never taught (rule: a taught clearance states only the clearance)")

    def _check_neutral(self) -> None:
        """A neutral word must not be able to hide a problem (spec §4.1).

        Three rules, each with its own message: a word that a language pack lists
        as never neutral (the spec's "not", "sin", "kein", or one the pack adds,
        "seulement", "offen": ``lang.never_neutral_words``), a one-word clause-break cue of a
        pack ("but", "salvo": ``lang.break_cue_words``), and a word that is by itself a
        critical phrase of this domain: a one-word critical phrase, abbreviation
        or translation ("declined", "AOG") or an outcome word of a critical
        frame value ("positive"). Words of longer critical phrases may be
        neutral ("aircraft" of "aircraft on ground", "title" of "title defect",
        as the spec's own lists have them): the phrase itself is still matched
        as a term, and the word alone states no problem.
        """
        from ..lang import (accented_never_neutral, break_cue_words, never_neutral_words,  # the language
                            union)  # layer sits below the glossary

        accented = accented_never_neutral()  # "dès" is never neutral, "des" may be: compared as written
        spec_never = {fold(w) for w in union("never_neutral") if exact(w) not in accented}
        never = {fold(w) for w in never_neutral_words() if exact(w) not in accented}
        breaks = {fold(w) for w in break_cue_words()}
        critical = self.critical_words()
        for word, lang, which in self.vocabulary.neutral.words():
            key = fold(word.strip())
            where = f"neutral word {word!r} ({which} {lang})"
            if key in spec_never:
                raise ValueError(f"{where} is a never-neutral word (rule: spec §4.1 never neutral)")
            if key in never or exact(word.strip()) in accented:
                raise ValueError(f"{where} is a never-neutral word (rule: a language pack's "
                                 "never_neutral_added)")
            if key in breaks:
                raise ValueError(f"{where} is a clause-break cue: it opposes or excepts what comes before "
                                 "(rule: a break cue is never neutral)")
            if key in critical:
                raise ValueError(f"{where} is a critical phrase: {critical[key]} "
                                 "(rule: a critical phrase word is never neutral)")
        self._check_names(never | spec_never | breaks | set(critical))

    def _check_names(self, not_neutral: set) -> None:
        """A name explains its words, never-neutral ones too, wherever the phrase occurs: a name
        made only of such words and stop words ("Over", "Not Yet") would explain them in any text.

        not_neutral (set): Folded words no neutral entry may be (``_check_neutral``).
        """
        from ..lang import packs
        from ..util.spacy_lists import spacy_stop_words

        stop = {fold(w) for pack in packs().values() for w in spacy_stop_words(pack.spacy_lang)}
        for name in self.vocabulary.known_names:
            written = [w.strip(".,;:!?'\"()") for w in name.split()]
            words = [fold(w) for w in written]
            if all(not w or w in not_neutral or w in stop for w in words):
                raise ValueError(f"known name {name!r} holds no word of its own: each is a never-neutral, "
                                 "stop, clause-break or critical word (rule: a name explains its words "
                                 "wherever it occurs)")
            held = [w for w, key in zip(written, words) if key in not_neutral]
            if held and any(w[:1].islower() for w in written if w):
                # "Over Budget Lending" is written as a name; "Over budget" is a clause that says a problem
                raise ValueError(f"known name {name!r} holds the never-neutral word {held[0]!r} and a word "
                                 "in lower case: a name that holds such a word is written as a name, every "
                                 "word capitalised (rule: a name explains its words wherever it occurs)")

    def critical_words(self) -> Dict[str, str]:
        """Words that by themselves state a problem here, folded, each with where it comes from:
        one-word critical phrases, abbreviations and translations ("declined", "AOG") and the
        outcome words of critical frame values ("positive")."""
        critical: Dict[str, str] = {}
        for term in self.terms:
            if term.signal != "critical_block":
                continue
            for text, _, _, _ in term.variants():
                if len(text.split()) == 1:
                    critical.setdefault(fold(text), f"{text!r} ({term.id})")
        for frame in self.frames:
            for term_id, values in frame.values.items():
                if self.term_signal(term_id) == "critical_block":
                    for value in values:
                        critical.setdefault(fold(value), f"{value!r} (frame {frame.id}, {term_id})")
        return critical

    def term_signal(self, term_id: str) -> Optional[str]:
        for term in self.terms:
            if term.id == term_id:
                return term.signal
        return None

    def to_dict(self) -> dict:
        """The domain as plain JSON data. A domain nothing was taught to has no ``taught`` key,
        and a record taught for the domain alone no ``scope``, so the hash is the one it had
        before review rounds (and scopes) existed."""
        data = self.model_dump(mode="json")
        if not data.get("taught"):
            data.pop("taught", None)
        for record in data.get("taught") or []:
            if record.get("scope") == "domain":
                del record["scope"]
        return data

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True,
                          separators=(",", ":"), ensure_ascii=False)


class GlossarySet:
    """All domains the pipeline knows, with one version and one hash.

    Cross-domain routing needs every domain at once, so the unit that a decision
    cites is the whole set, not one file.
    """

    def __init__(self, domains: Dict[str, DomainGlossary],
                 sources: Optional[Dict[str, str]] = None):
        if not domains:
            raise GlossaryError("no glossary domains loaded")
        self.domains = dict(sorted(domains.items()))
        self._terms: Dict[str, Tuple[str, Term]] = {}
        for name, dom in self.domains.items():
            for term in dom.terms:
                if term.id in self._terms:
                    raise GlossaryError(
                        f"term {term.id}: id used in {self._terms[term.id][0]} and {name}"
                    )
                self._terms[term.id] = (name, term)
        # depends_on may cross domains, so it can only be resolved for the set
        problems = rules.dependency_problems(
            (name, term.id, term.depends_on) for name, term in self.terms())
        problems += rules.draft_dependency_problems(
            (name, term.id, term.status, term.depends_on) for name, term in self.terms())
        if problems:
            where = sources or {}
            raise GlossaryError("\n".join(
                f"{where.get(dom, dom)}: {msg}"
                for dom, tid, msg in problems))
        self.sha256 = _sha256_of(self.to_dict())
        _BY_SHA256[self.sha256] = self
        versions = sorted({d.version for d in self.domains.values()})
        self.version = versions[0] if len(versions) == 1 else "+".join(versions)

    def __repr__(self) -> str:
        return f"<GlossarySet {self.version} {list(self.domains)} {self.sha256[:12]}>"

    def term(self, term_id: str) -> Optional[Tuple[str, Term]]:
        """(domain, Term) for a term id, or None."""
        return self._terms.get(term_id)

    def terms(self) -> Iterator[Tuple[str, Term]]:
        for name, dom in self.domains.items():
            for term in dom.terms:
                yield name, term

    def field_term(self, domain: str, field: str) -> Optional[Term]:
        dom = self.domains.get(domain)
        if dom is None:
            return None
        for term in dom.terms:
            if term.field == field:
                return term
        return None

    def version_of(self, domain: Optional[str]) -> str:
        dom = self.domains.get(domain or "")
        return dom.version if dom else self.version

    def to_dict(self) -> dict:
        return {name: dom.to_dict() for name, dom in self.domains.items()}

    @classmethod
    def from_dict(cls, data: dict, source: str = "<dict>") -> "GlossarySet":
        return cls({name: _validate(payload, f"{source}:{name}") for name, payload in data.items()},
                   {name: f"{source}:{name}" for name in data})

    @classmethod
    def from_paths(cls, paths: List[Union[str, Path]]) -> "GlossarySet":
        domains: Dict[str, DomainGlossary] = {}
        sources: Dict[str, str] = {}
        for path in paths:
            dom = load_domain_file(path)
            if dom.domain in domains:
                raise GlossaryError(f"{path}: domain {dom.domain} is loaded twice")
            domains[dom.domain] = dom
            sources[dom.domain] = str(path)
        return cls(domains, sources)

    @classmethod
    def from_dir(cls, path: Union[str, Path]) -> "GlossarySet":
        path = Path(path)
        if not path.is_dir():
            raise GlossaryError(f"{path}: not a glossary directory")
        files = sorted(path.glob("*.yaml"))
        odd = [p.name for p in files if not p.is_file()]
        if odd:  # a folder named "mortgage.yaml" left the domain out, and every case of it escalated
            raise GlossaryError(f"{path}: {', '.join(odd)} {'is' if len(odd) == 1 else 'are'} no file")
        if not files:
            raise GlossaryError(f"{path}: no *.yaml glossary files")
        return cls.from_paths(files)


def _sha256_of(data: dict) -> str:
    """The hash a glossary set is known by: of its ``to_dict`` as canonical JSON."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf8")).hexdigest()


#: every glossary set alive in the process, by its sha256 (``glossary_from_json``)
_BY_SHA256: "weakref.WeakValueDictionary[str, GlossarySet]" = weakref.WeakValueDictionary()


def _validate(payload, source: str) -> DomainGlossary:
    if not isinstance(payload, dict):
        raise GlossaryError(f"{source}: a glossary must be a mapping, not {type(payload).__name__}")
    try:
        return DomainGlossary.model_validate(payload)
    except ValidationError as err:
        raise GlossaryError(_explain(err, payload, source)) from None


def _explain(err: ValidationError, payload: dict, source: str) -> str:
    lines = []
    for e in err.errors():
        loc = list(e["loc"])
        where = ""
        if len(loc) >= 2 and loc[0] == "terms" and isinstance(loc[1], int):
            terms = payload.get("terms") or []
            term_id = terms[loc[1]].get("id", f"#{loc[1]}") if loc[1] < len(terms) and isinstance(terms[loc[1]], dict) else f"#{loc[1]}"
            where = f"term {term_id}"
            rest = [str(x) for x in loc[2:]]
            if rest:
                where += f" ({'.'.join(rest)})"
        elif loc:
            where = ".".join(str(x) for x in loc)
        msg = e["msg"].removeprefix("Value error, ")
        lines.append(f"{source}: {where + ': ' if where else ''}{msg}")
    return "\n".join(lines)


def load_domain_file(path: Union[str, Path]) -> DomainGlossary:
    """Load and validate one domain glossary file.

    path (str | Path): A YAML file.
    RETURNS (DomainGlossary): The validated glossary.
    RAISES (GlossaryError): Naming the file, the term and the problem.
    """
    path = Path(path)
    try:
        payload = read_yaml(path)
    except FileNotFoundError:
        raise GlossaryError(f"{path}: file not found") from None
    except Exception as exc:  # the YAML parser's own errors vary by version
        raise GlossaryError(f"{path}: not valid YAML ({exc})") from None
    return _validate(payload, str(path))


#: glossary sets by the JSON text they were read from (``glossary_from_json``), newest last
_FROM_JSON: Dict[str, GlossarySet] = {}
_FROM_JSON_KEPT = 4


def glossary_from_json(text: str, source: str = "<json>") -> GlossarySet:
    """The glossary set of a ``GlossarySet.to_dict`` JSON text, read and validated once per
    process for the same text: every component of a saved pipeline carries the same one. A text
    with the content of a set alive in the process (the same sha256) is that set, not validated
    again: what it holds was validated when the set was made.

    text (str): The JSON text. source (str): Named in errors.
    RETURNS (GlossarySet): The set (shared by the callers that give the same text).
    RAISES (GlossaryError): Naming the source and the problem.
    """
    glossary = _FROM_JSON.get(text)
    if glossary is None:
        data = srsly.json_loads(text)
        # the same content as a set already validated in this process (a pipeline saved with the
        # bundled glossaries, loaded by ``spacy.load``, which made its components from them): that set
        glossary = _BY_SHA256.get(_sha256_of(data)) if isinstance(data, dict) else None
        if glossary is None:
            glossary = GlossarySet.from_dict(data, source=source)
        if len(_FROM_JSON) >= _FROM_JSON_KEPT:
            del _FROM_JSON[next(iter(_FROM_JSON))]
        _FROM_JSON[text] = glossary
    return glossary


def bundled_glossary_dir() -> Path:
    """Where the glossaries shipped with the package live (also in a wheel).

    Run from a source tree (``PYTHONPATH=<checkout>``, a test run, a second
    worktree), they are that tree's ``glossaries/``, which ``setup.cfg`` maps
    to the package ``semgap_spacy.glossaries``: without an install that package
    cannot be imported, and with an editable install of another tree it would
    be the other tree's files.
    """
    tree = Path(__file__).resolve().parents[2]
    if (tree / "setup.cfg").is_file() and (tree / "glossaries" / "__init__.py").is_file():
        return tree / "glossaries"
    return Path(str(resources.files("semgap_spacy.glossaries")))


@lru_cache(maxsize=8)
def _cached_dir(path: str, signature: Tuple[Tuple[str, int, int], ...]) -> GlossarySet:
    return GlossarySet.from_dir(path)


def _signature(path: Path) -> Tuple[Tuple[str, int, int], ...]:
    """Name, size and modification time of each domain file: a changed file is read again."""
    out = []
    for p in sorted(path.glob("*.yaml")):
        try:
            st = p.stat()
        except OSError:
            continue
        out.append((p.name, st.st_size, st.st_mtime_ns))
    return tuple(out)


def load_glossaries(path: Optional[Union[str, Path]] = None) -> GlossarySet:
    """Load a glossary set, the bundled one by default; cached per process until a file changes.

    An approval (spec §4.2) rewrites the domain files, and a process that
    replays cases before and after it must read the new version.

    path (str | Path | None): A directory of domain YAML files.
    RETURNS (GlossarySet): The validated set.
    """
    target = (Path(path) if path else bundled_glossary_dir()).resolve()
    return _cached_dir(str(target), _signature(target))

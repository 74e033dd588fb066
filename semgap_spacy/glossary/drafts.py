"""Drafts from review: what a reviewer says a clause's unexplained words are (spec §4.2).

An ``unexplained_content`` escalation offers the reviewer, per clause:
*neutral* (the words carry no fact that matters here), *name* (they name a
party, site or person), *means term X* (another way to say term X) or
*problem* (they state something that must stop the action). The first three
become **drafts**: neutral words of the domain, a known name, a phrase of
term X, each with the reviewer, the case's text hash and the clause as
evidence. A draft lives in ``<glossaries>/drafts/<domain>.json``, outside
the glossary the pipeline loads, so it explains and decides nothing. It
counts only once a second person approves it (``governance.approval``): the
entry then moves into the domain's glossary under a new version, and a
``taught`` record in that glossary names who drafted and who approved it.

A *neutral* or *name* choice has a scope: ``domain`` (the spec's default:
the word is neutral, the name known, in the case's domain) or ``all``
(everywhere: "thanks", "portal", a staff member's name). A draft of scope
``all`` is one draft in ``<glossaries>/drafts/all.json``; approved, it joins
the common neutral list (or the known names) of every domain that does not
hold it yet, with a ``taught`` record in each, so every domain it touches
reports the weakening in its diff.

Nothing here reads a Doc or the queue: a clause is a decision's reason
(plain JSON), and a draft file is plain JSON validated by pydantic.
"""
from __future__ import annotations

import copy
import json
import os
import re
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Literal, NamedTuple, Optional, Sequence, Tuple, Union

try:
    import fcntl
    msvcrt = None
except ImportError:  # Windows
    fcntl = None
    import msvcrt

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..util.safe_output import output_file
from ..util.textnorm import fold
from .models import GlossaryError, GlossarySet, PersonName, bundled_glossary_dir, phrase_key, stating_word

NEUTRAL, NAME, MEANS_TERM, PROBLEM = "neutral", "name", "means_term", "problem"
#: (choice, what it says of the words, what it drafts), in the spec's order
TEACHING_CHOICES: Tuple[Tuple[str, str, Optional[str]], ...] = (
    (NEUTRAL, "the words carry no fact that matters here", "neutral words of the domain"),
    (NAME, "the words are the name of a party, site or person", "a known name of the domain"),
    (MEANS_TERM, "the words are another way to say a term of the domain (name it)", "a phrase of that term"),
    (PROBLEM, "the words state something that must stop the action", None),
)
CHOICES = tuple(c for c, _, _ in TEACHING_CHOICES)
SCOPE_DOMAIN, SCOPE_ALL = "domain", "all"
#: where a neutral word or known name holds: the case's domain (default) or every domain
SCOPES = (SCOPE_DOMAIN, SCOPE_ALL)
#: what each drafting choice drafts
KIND_OF_CHOICE = {NEUTRAL: "neutral", NAME: "name", MEANS_TERM: "phrase"}
DRAFTS_DIR = "drafts"
_SPACES = re.compile(r"\s+")
_LANGS = ("en", "es", "fr", "de")


class TeachingError(ValueError):
    """A reviewer's choice or an approval that is refused; the message says why."""


def normal_choice(choice: Any) -> str:
    """A reviewer option as one of ``CHOICES`` ("means term", "Means-Term" -> "means_term").

    RAISES (TeachingError): Not one of the four options.
    """
    if isinstance(choice, str):
        key = re.sub(r"[\s\-]+", "_", choice.strip().lower())
        if key in CHOICES:
            return key
    raise TeachingError(f"unknown reviewer option {choice!r}: choose one of {', '.join(CHOICES)}")


def normal_scope(scope: Any) -> str:
    """A choice's scope as one of ``SCOPES``; None is the spec's default, the case's domain.

    RAISES (TeachingError): Not a scope.
    """
    if scope is None:
        return SCOPE_DOMAIN
    if isinstance(scope, str) and scope.strip().lower() in SCOPES:
        return scope.strip().lower()
    raise TeachingError(f"unknown scope {scope!r}: choose {SCOPE_DOMAIN} (the case's domain, the default) "
                        f"or {SCOPE_ALL} (every domain)")


class Entry(NamedTuple):
    """One thing a draft would add to a domain's glossary."""

    kind: str            # "neutral" | "name" | "phrase"
    text: str            # the neutral word (lower case), the name as written, or the phrase
    lang: str            # the language list it joins ("en" for a name)
    term: Optional[str]  # the term of a phrase
    scope: str = SCOPE_DOMAIN  # "all": neutral or known in every domain

    def key(self) -> Tuple[str, str, str, str, str]:
        """Two entries with the same key are the same draft."""
        text = self.text if self.kind == "name" else phrase_key(self.text)
        return self.kind, text, self.lang if self.kind != "name" else "", self.term or "", self.scope

    def describe(self) -> str:
        where = ", every domain" if self.scope == SCOPE_ALL else ""
        if self.kind == "neutral":
            return f"neutral word {self.text!r} ({self.lang}{where})"
        if self.kind == "name":
            return f"known name {self.text!r}" + (" (every domain)" if where else "")
        return f"phrase {self.text!r} ({self.lang}) of {self.term}"


# -- from a clause to entries -----------------------------------------------------


def _norm_space(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def clause_entries(reason: Dict[str, Any], choice: str, *, words: Optional[Sequence[str]] = None,
                   phrase: Optional[str] = None, term_id: Optional[str] = None,
                   lang: Optional[str] = None, scope: Optional[str] = None,
                   spellings: bool = False) -> Tuple[List[Entry], List[str]]:
    """What a reviewer's choice for one clause would draft.

    reason (Dict[str, Any]): An ``unexplained_content`` reason of a decision.
    choice (str): One of ``CHOICES``.
    words (Optional[Sequence[str]]): The clause's unexplained words the choice
        is about; defaults to all of them. A clause may need two choices
        ("Yuki Tanabe" a name, "scanned" neutral).
    phrase (Optional[str]): For *name* and *means_term*: the name or phrase
        as written in the clause; it must hold an unexplained word. Defaults
        to each run of adjacent chosen words (name) or the text from the
        first to the last chosen word (means_term).
    term_id (Optional[str]): For *means_term*: the term X (required).
    lang (Optional[str]): The language list a neutral word or phrase joins.
        Defaults to "en".
    scope (Optional[str]): For *neutral* and *name*: "domain" (the case's
        domain, the default) or "all" (every domain).
    spellings (bool): For *name*: also draft the name's other casings
        (``name_spellings``); each is a draft of its own, shown to the approver.
    RETURNS (Tuple[List[Entry], List[str]]): The entries (none for *problem*)
        and the words the choice covers.
    RAISES (TeachingError): A word that is not one of the clause's
        unexplained words, a phrase that is not in the clause, a missing term,
        an unknown scope, or scope "all" with *means_term* or *problem*.
    """
    choice = normal_choice(choice)
    scope = normal_scope(scope)
    if scope == SCOPE_ALL and choice not in (NEUTRAL, NAME):
        raise TeachingError(f"scope {SCOPE_ALL} is for {NEUTRAL} and {NAME} only; {choice} holds in the "
                            "case's domain (a term belongs to one domain)")
    if spellings is not False and (spellings is not True or choice != NAME):
        raise TeachingError(f"spellings (true or false) are for {NAME} only: a neutral word or a phrase "
                            "already matches in any casing")
    clause = reason.get("evidence")
    unexplained = [w for w in reason.get("words") or [] if isinstance(w, str)]
    if not isinstance(clause, str) or not unexplained:
        raise TeachingError("the clause has no unexplained words to teach (is it an unexplained_content reason?)")
    lang = lang or "en"
    if lang not in _LANGS:
        raise TeachingError(f"unknown language {lang!r}: one of {', '.join(_LANGS)}")
    chosen = _chosen_words(words, unexplained)
    tokens = _clause_tokens(reason, clause, unexplained)
    if choice != MEANS_TERM and term_id is not None:
        raise TeachingError(f"a term id is given only with {MEANS_TERM}, not with {choice}")
    if choice == PROBLEM:
        return [], chosen
    if choice == NEUTRAL:
        if phrase is not None:
            raise TeachingError("neutral takes words (--words), not a phrase: each word is drafted alone")
        return [Entry("neutral", w, lang, None, scope) for w in dict.fromkeys(w.lower() for w in chosen)], chosen
    if choice == NAME:
        if phrase is not None:
            name, chosen = _in_clause(phrase, clause, tokens, case_sensitive=True)
            names = [name]
        else:
            names = _runs(tokens, chosen, clause)
        if not names:
            raise TeachingError(f"none of {', '.join(map(repr, chosen))} is found in the clause {clause!r}; "
                                "give the name as written (--phrase)")
        if spellings:
            names = [s for n in names for s in name_spellings(n)]
        return [Entry("name", n, "en", None, scope) for n in dict.fromkeys(names)], chosen
    if not isinstance(term_id, str) or not term_id.strip():
        raise TeachingError(f"{MEANS_TERM} needs the term id X the words mean (e.g. --term MTG.CTC)")
    if phrase is None:
        picked = [(s, e) for s, e, w in tokens if w in chosen]
        text = _norm_space(clause[picked[0][0]:picked[-1][1]]) if picked else " ".join(chosen)
    else:
        text, chosen = _in_clause(phrase, clause, tokens, case_sensitive=False)
    return [Entry("phrase", text, lang, term_id.strip())], chosen


def name_spellings(name: str) -> List[str]:
    """A name as written, then in capitals and with capital initials; a name of several
    words also in lower case.

    Known names match case-sensitively (spec §4.1 rule 6), while chat writes
    the same name "Marek Nowicki", "MAREK NOWICKI" or "north wind aviation".
    A single word in lower case is left out: "green" or "parts" alone is far
    more often a word than a name.
    """
    words = name.split(" ")
    forms = [name, name.upper(), " ".join(w[:1].upper() + w[1:].lower() for w in words)]
    if len(words) > 1:
        forms.append(name.lower())
    return list(dict.fromkeys(forms))


def _chosen_words(words: Optional[Sequence[str]], unexplained: List[str]) -> List[str]:
    if words is None:
        return list(unexplained)
    if isinstance(words, str) or not all(isinstance(w, str) for w in words):
        raise TeachingError("words must be a list of the clause's unexplained words")
    out = []
    for word in words:
        if word in unexplained:
            out.append(word)
            continue
        same = [u for u in unexplained if fold(u) == fold(word.strip())]
        if not same:
            raise TeachingError(f"{word!r} is not an unexplained word of this clause "
                                f"(its unexplained words: {', '.join(map(repr, unexplained))})")
        out.append(same[0])
    if not out:
        raise TeachingError("no words chosen: name at least one of the clause's unexplained words")
    return list(dict.fromkeys(out))


def _clause_tokens(reason: Dict[str, Any], clause: str, unexplained: List[str]) -> List[Tuple[int, int, str]]:
    """(start, end, text) of every unexplained token, offsets within the clause.

    A token may run past the clause's end ("St." where the clause ends at the
    period): its text is then the whole word, its end the clause's.
    """
    start = reason.get("start_char")
    spans = reason.get("word_spans")
    out = []
    if isinstance(start, int) and isinstance(spans, (list, tuple)):
        for span in spans:
            if isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(x, int) for x in span):
                s, e = span[0] - start, span[1] - start
                if 0 <= s < e <= len(clause):
                    out.append((s, e, clause[s:e]))
                elif 0 <= s < len(clause) < e:
                    whole = next((w for w in unexplained if w.startswith(clause[s:]) and len(w) == e - s), None)
                    if whole is not None:
                        out.append((s, len(clause), whole))
    if not out:  # a decision without word spans: find the words in the clause, in order
        pos = 0
        for word in unexplained:
            at = clause.find(word, pos)
            if at >= 0:
                out.append((at, at + len(word), word))
                pos = at + len(word)
    return out


def _runs(tokens: List[Tuple[int, int, str]], chosen: List[str], clause: str) -> List[str]:
    """Each run of chosen words with only spaces between them, as written."""
    runs: List[List[Any]] = []  # [start, start of the last token, its text, its end]
    for s, e, w in tokens:
        if w not in chosen:
            runs.append(None)
            continue
        if runs and runs[-1] is not None and clause[runs[-1][3]:s].strip() == "":
            runs[-1][1:] = [s, w, e]
        else:
            runs.append([s, s, w, e])
    return [_norm_space(clause[r[0]:r[1]] + r[2]) for r in runs if r is not None]


def _in_clause(phrase: Any, clause: str, tokens: List[Tuple[int, int, str]],
               case_sensitive: bool) -> Tuple[str, List[str]]:
    """The phrase as the clause writes it, and the unexplained words it holds (at least one):
    those are the words the choice covers, whatever ``words`` said."""
    if not isinstance(phrase, str) or not _norm_space(phrase):
        raise TeachingError("the phrase is empty")
    wanted = _norm_space(phrase)
    pattern = re.compile(r"\s+".join(re.escape(w) for w in wanted.split()), 0 if case_sensitive else re.IGNORECASE)
    found = None
    for match in pattern.finditer(clause):
        if any(s < match.end() and match.start() < e for s, e, _ in tokens):
            found = match
            break
        found = found or False
    if found is None:
        raise TeachingError(f"{wanted!r} is not in the clause {clause!r}"
                            + (" (a name is matched case-sensitively)" if case_sensitive else ""))
    if found is False:
        raise TeachingError(f"{wanted!r} holds none of the clause's unexplained words")
    held = [w for s, e, w in tokens if s < found.end() and found.start() < e]
    return _norm_space(found.group(0)), list(dict.fromkeys(held))


# -- checks against the glossary in force ----------------------------------------


def check_entries(glossary: GlossarySet, domain: str, entries: Sequence[Entry], signer: str) -> None:
    """Refuse entries the glossary already holds or could not take.

    The candidate glossary (with the entries added, as an approval would add
    them) is validated by the same models the loader uses, so a never-neutral
    word ("not"), a critical phrase word ("declined") or a phrase of another
    term is refused now, with the models' message, not at approval. An entry
    of scope "all" is added to every domain that does not hold it, so a word
    that is critical in any one domain ("positive") is refused whole.

    glossary (GlossarySet): The glossary in force.
    domain (str): The case's domain.
    entries (Sequence[Entry]): From ``clause_entries``.
    signer (str): Named as reviewer of a translation the phrase would create.
    RAISES (TeachingError): Unknown domain or term, an entry already in force, or one the models refuse.
    """
    dom = glossary.domains.get(domain)
    if dom is None:
        raise TeachingError(f"unknown domain {domain!r}: the glossary has {', '.join(glossary.domains)}")
    ids = [t.id for t in dom.terms]
    payloads = glossary.to_dict()
    for entry in entries:
        if entry.kind == "phrase" and entry.term not in ids:
            elsewhere = glossary.term(entry.term or "")
            where = f"it is a term of {elsewhere[0]}, not {domain}" if elsewhere else "no such term"
            raise TeachingError(f"unknown term id {entry.term!r} for {domain} ({where}); "
                                f"the terms of {domain}: {', '.join(ids)}")
        if entry.kind == "phrase" and dom.term_signal(entry.term) in ("clear", "field"):
            stating = stating_word(entry.text)
            if stating:
                raise TeachingError(f"{entry.describe()} holds {stating}: as a phrase of {entry.term} it would "
                                    "read the text that denies or defers the term as asserting it; mark the "
                                    "clause problem, or teach the phrase without that word")
        targets = entry_domains(payloads, domain, entry)
        if not targets:
            where = "every domain's glossary" if entry.scope == SCOPE_ALL else f"the {domain} glossary"
            raise TeachingError(f"{entry.describe()} is already in {where} ({dom.version}); nothing to draft")
        for target in targets:
            apply_entry(payloads[target], entry, signer)
    try:
        GlossarySet.from_dict(payloads, source="glossary with the draft")
    except GlossaryError as exc:
        raise TeachingError(f"the glossary could not take this draft: {exc}{_others(glossary, domain, entries)}") \
            from None


def _others(glossary: GlossarySet, domain: str, entries: Sequence[Entry]) -> str:
    """For a refused choice of several words: the words the glossary would take alone, so the
    reviewer can teach those and give the refused one another choice ("still" is never neutral)."""
    if len(entries) < 2:
        return ""
    fine = []
    for entry in entries:
        payloads = glossary.to_dict()
        for target in entry_domains(payloads, domain, entry):
            apply_entry(payloads[target], entry, "check")
        try:
            GlossarySet.from_dict(payloads, source="glossary with the draft")
        except GlossaryError:
            continue
        fine.append(entry.text)
    if not fine or len(fine) == len(entries):
        return ""
    return (f". The glossary would take the others alone: teach them with their words (--words, or words "
            f"over MCP): {', '.join(map(repr, fine))}")


def holds(payload: Dict[str, Any], entry: Entry) -> bool:
    """Whether a raw domain payload already holds an entry (a neutral word in any of its lists)."""
    vocab = _mapping(_mapping(payload).get("vocabulary"))
    if entry.kind == "neutral":
        neutral = _mapping(vocab.get("neutral"))
        return any(fold(str(w)) == fold(entry.text) for which in ("common", "domain")
                   for words in _mapping(neutral.get(which)).values() for w in words or [])
    if entry.kind == "name":
        return _norm_space(entry.text) in {_norm_space(str(n)) for n in vocab.get("known_names") or []}
    for term in _mapping(payload).get("terms") or []:
        if isinstance(term, dict) and term.get("id") == entry.term:
            texts = list(term.get("phrases") or []) + list(term.get("abbreviations") or [])
            for translation in _mapping(term.get("translations")).values():
                texts += list(_mapping(translation).get("phrases") or [])
            return any(phrase_key(str(text)) == phrase_key(entry.text) for text in texts)
    return False


def entry_domains(payloads: Dict[str, Any], domain: str, entry: Entry) -> List[str]:
    """The domains an entry would be added to: the case's, or (scope "all") every domain not holding it yet."""
    names = list(payloads) if entry.scope == SCOPE_ALL else [domain]
    return [name for name in names if name in payloads and not holds(payloads[name], entry)]


def apply_entry(payload: Dict[str, Any], entry: Entry, signer: str) -> None:
    """Add an entry to a raw domain payload (a dict, or ruamel's round-trip map) in place.

    A neutral word of scope "all" joins the domain's common list, the
    words "common to every domain" (spec §4.1). A phrase in a language the
    term has no translation for creates an approved translation with
    ``signer`` as its reviewer.
    """
    if entry.kind in ("neutral", "name"):
        vocab = _child(payload, "vocabulary", {})
        if entry.kind == "name":
            _child(vocab, "known_names", []).append(entry.text)
        else:
            which = "common" if entry.scope == SCOPE_ALL else "domain"
            lists = _child(_child(vocab, "neutral", {}), which, {})
            _child(lists, entry.lang, []).append(entry.text)
        return
    for term in payload.get("terms") or []:
        if isinstance(term, dict) and term.get("id") == entry.term:
            if entry.lang == "en":
                _child(term, "phrases", []).append(entry.text)
            else:
                translations = _child(term, "translations", {})
                if entry.lang in translations:
                    _child(translations[entry.lang], "phrases", []).append(entry.text)
                else:
                    translations[entry.lang] = {"status": "approved", "reviewer": signer,
                                                "phrases": [entry.text]}
            return
    raise TeachingError(f"unknown term id {entry.term!r}")


def _mapping(value: Any) -> Dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _child(mapping: Dict[str, Any], key: str, empty: Any) -> Any:
    if mapping.get(key) is None:
        mapping[key] = copy.copy(empty)
    return mapping[key]


# -- the drafts file ----------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Evidence(_Strict):
    """Why a draft exists: one reviewer's choice for one clause of one case."""

    reviewer: PersonName
    text_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    clause: str
    case_id: Optional[str] = None
    start_char: Optional[int] = None
    end_char: Optional[int] = None
    words: List[str] = []
    queue_seq: Optional[int] = None
    #: the review queue file that holds the choice, and the hash of its row there: approval
    #: looks the choice up (``ops.draft_evidence``), so a draft nobody chose through a queue never counts
    queue: Optional[str] = None
    row_hash: Optional[str] = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    at: Optional[str] = None
    #: the case's domain, and where the reviewer said the choice holds
    domain: Optional[str] = None
    scope: Literal["domain", "all"] = SCOPE_DOMAIN


class Draft(_Strict):
    """One entry a reviewer proposed; ``open`` until a second person approves it."""

    id: str
    kind: Literal["neutral", "name", "phrase"]
    text: str = Field(min_length=1)
    lang: Literal["en", "es", "fr", "de"] = "en"
    term: Optional[str] = None
    scope: Literal["domain", "all"] = SCOPE_DOMAIN
    status: Literal["open", "approved"] = "open"
    evidence: List[Evidence] = Field(min_length=1)
    approved_by: Optional[PersonName] = None
    approved_in: Optional[str] = None
    approved_at: Optional[str] = None

    @model_validator(mode="after")
    def _check(self) -> "Draft":
        if (self.kind == "phrase") != bool(self.term):
            raise ValueError(f"draft {self.id}: a phrase names its term, and only a phrase does")
        if self.scope == SCOPE_ALL and self.kind == "phrase":
            raise ValueError(f"draft {self.id}: a phrase belongs to its term's domain, not to scope all")
        if self.status == "approved":
            if not self.approved_by or not self.approved_in:
                raise ValueError(f"draft {self.id}: approved without approved_by and approved_in")
            if any(fold(self.approved_by) == fold(e.reviewer) for e in self.evidence):
                raise ValueError(f"draft {self.id}: approved by {self.approved_by!r}, who drafted it; "
                                 "a draft needs a second person")
        return self

    @property
    def entry(self) -> Entry:
        return Entry(self.kind, self.text, self.lang if self.kind != "name" else "en", self.term, self.scope)

    @property
    def authors(self) -> List[str]:
        return list(dict.fromkeys(e.reviewer for e in self.evidence))


class Objection(_Strict):
    """A reviewer's *problem* choice: these words of this clause state something that must stop the action.

    It drafts nothing, but an approver must see it: a draft that says the
    same words are neutral, a name or a term's phrase is held back while an
    objection stands against it (``objects_to``).
    """

    reviewer: PersonName
    text_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    clause: str
    words: List[str] = Field(min_length=1)
    #: the reviewer named the words (``--words``): they are a problem in any clause, not only in this one
    words_named: bool = False
    note: str = ""
    case_id: Optional[str] = None
    start_char: Optional[int] = None
    end_char: Optional[int] = None
    queue_seq: Optional[int] = None
    queue: Optional[str] = None
    row_hash: Optional[str] = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    at: Optional[str] = None

    def objects_to(self, draft: "Draft") -> bool:
        """Whether this objection stands against a draft: one of its words, from the same clause
        (two reviewers read one clause two ways) or anywhere when the words were named."""
        mine = {fold(w) for w in self.words}
        if not mine & {fold(w) for w in draft.text.split()}:
            return False
        return self.words_named or any(e.text_sha256 == self.text_sha256 and e.start_char == self.start_char
                                       for e in draft.evidence)

    def after_choice(self, reviewer: str, text_sha256: str, start_char: Optional[int],
                     words: Iterable[str]) -> Optional["Objection"]:
        """This mark as it stands after a reviewer's later choice about ``words`` of a clause: the
        same reviewer's choice on the same clause withdraws the mark on those words, and the mark
        stands for its other words (None: none left). Another reviewer's or clause's leaves it."""
        if self.reviewer != reviewer or self.text_sha256 != text_sha256 or self.start_char != start_char:
            return self
        chosen = {fold(w) for w in words}
        rest = [w for w in self.words if fold(w) not in chosen]
        if len(rest) == len(self.words):
            return self
        return self.model_copy(update={"words": rest}) if rest else None

    def describe(self) -> str:
        note = f" ({ascii(self.note)})" if self.note else ""
        return (f"{self.reviewer} marked {', '.join(map(repr, self.words))} a problem in the clause "
                f"{ascii(self.clause)}{note}")


class DraftFile(_Strict):
    """``<glossaries>/drafts/<domain>.json``: every draft of one domain, open and approved,
    and the reviewers' objections (*problem* choices) in that domain.

    ``drafts/all.json`` (domain "all") holds the drafts of scope "all", and only those.
    """

    domain: str
    drafts: List[Draft] = []
    objections: List[Objection] = []

    @model_validator(mode="after")
    def _check(self) -> "DraftFile":
        ids = [d.id for d in self.drafts]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"draft id {twice[0]} is used twice")
        wanted = SCOPE_ALL if self.domain == SCOPE_ALL else SCOPE_DOMAIN
        for draft in self.drafts:
            if draft.scope != wanted:
                raise ValueError(f"draft {draft.id} has scope {draft.scope}: the drafts of "
                                 f"{self.domain!r} have scope {wanted}")
        return self

    def open(self) -> List[Draft]:
        return [d for d in self.drafts if d.status == "open"]

    def find(self, entry: Entry) -> Optional[Draft]:
        """The open draft of the same entry, if any."""
        for draft in self.open():
            if draft.entry.key() == entry.key():
                return draft
        return None

    def next_id(self) -> str:
        numbers = [int(d.id.rsplit("/", 1)[1]) for d in self.drafts
                   if d.id.startswith(self.domain + "/") and d.id.rsplit("/", 1)[1].isdigit()]
        return f"{self.domain}/{max(numbers, default=0) + 1}"

    def add(self, entries: Iterable[Entry], evidence: Evidence) -> List[str]:
        """Add entries as drafts (or as more evidence for an open draft of the same entry).

        RETURNS (List[str]): The draft ids, one per entry.
        """
        ids = []
        for entry in entries:
            draft = self.find(entry)
            if draft is None:
                draft = Draft(id=self.next_id(), kind=entry.kind, text=entry.text, lang=entry.lang,
                              term=entry.term, scope=entry.scope, evidence=[evidence])
                self.drafts.append(draft)
            elif not any(e.text_sha256 == evidence.text_sha256 and e.reviewer == evidence.reviewer
                         and e.start_char == evidence.start_char for e in draft.evidence):
                draft.evidence.append(evidence)
            ids.append(draft.id)
        return ids


def drafts_path(glossary_dir: Union[str, Path], domain: str) -> Path:
    """Where a domain's drafts (or, for "all", the drafts of scope all) live: a folder the loader never reads.

    The tools write drafts, people read them (``glossary drafts``), so the
    file is JSON with one draft a line: easy to read, and quick to rewrite
    after every choice even when a review round has left thousands of drafts.
    """
    return Path(glossary_dir) / DRAFTS_DIR / f"{domain}.json"


def load_drafts(glossary_dir: Union[str, Path], domain: str) -> DraftFile:
    """A domain's drafts; an empty file when there are none yet.

    RAISES (TeachingError): The file exists but does not validate (named, with the problem).
    """
    path = drafts_path(glossary_dir, domain)
    if not path.is_file():
        return DraftFile(domain=domain)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TeachingError(f"{path}: not a readable JSON drafts file ({exc})") from None
    try:
        drafts = DraftFile.model_validate(payload)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(file)'}: "
                             f"{e['msg'].removeprefix('Value error, ')}" for e in err.errors())
        raise TeachingError(f"{path}: {problems}") from None
    if drafts.domain != domain:
        raise TeachingError(f"{path}: holds drafts of {drafts.domain!r}, not {domain!r}")
    return drafts


def save_drafts(glossary_dir: Union[str, Path], drafts: DraftFile) -> Path:
    """Write a domain's drafts file whole (or not at all)."""
    path = drafts_path(glossary_dir, drafts.domain)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = drafts.model_dump(mode="json", exclude_none=True)
    lines = ",\n".join(json.dumps(d, ensure_ascii=False) for d in payload["drafts"])
    objections = ""
    if payload["objections"]:
        objections = ', "objections": [\n' + ",\n".join(json.dumps(o, ensure_ascii=False)
                                                      for o in payload["objections"]) + "\n]"
    with output_file(path) as out:
        out.write(f'{{"domain": {json.dumps(drafts.domain, ensure_ascii=False)}, "drafts": [\n{lines}\n]'
                  f'{objections}}}\n')
    return path


def objections_to(glossary_dir: Union[str, Path], domain: str, draft: Draft) -> List[Objection]:
    """The objections standing against a draft: of its domain, or of any domain for a draft of scope all."""
    if domain == SCOPE_ALL:
        files = [load_drafts(glossary_dir, p.stem) for p in sorted((Path(glossary_dir) / DRAFTS_DIR).glob("*.json"))
                 if p.stem != SCOPE_ALL]
    else:
        files = [load_drafts(glossary_dir, domain)]
    return [o for f in files for o in f.objections if o.objects_to(draft)]


def governed_dir(glossary_dir: Union[str, Path]) -> Path:
    """The glossary directory a review writes to, refused when it is the package's bundled one.

    The bundled glossaries are the package's files: in a wheel they are
    replaced by the next upgrade, in a checkout they are the project's
    sources. Drafts, objections and approvals belong to the glossary an
    organisation governs, a copy it keeps (``--glossaries DIR``).

    RAISES (TeachingError): The directory is the bundled one.
    """
    gdir = Path(glossary_dir)
    bundled = bundled_glossary_dir()
    try:
        same = gdir.resolve() == bundled.resolve()
    except OSError:
        same = False
    if same:
        raise TeachingError(f"the bundled glossaries ({bundled}) are the package's own files; review writes "
                            "to the glossaries your organisation governs: copy them once "
                            f"(cp -r {bundled} DIR) and give that directory (--glossaries DIR)")
    return gdir


#: seconds a writer waits for another process (teaching, approving) to finish with the drafts
LOCK_WAIT = 30.0


@contextmanager
def drafts_lock(glossary_dir: Union[str, Path], wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the drafts of a glossary directory for one read-change-write.

    Two review queues (two teams, or the MCP server and the CLI) may teach
    into one glossary directory, and an approval may run meanwhile; each
    reads a drafts file, adds to it and writes it whole, so without one lock
    for the folder, one writer's drafts are lost under the other's or two get
    the same id. The lock is the OS's (``flock`` on the drafts folder itself,
    so no lock file is left behind; on Windows ``msvcrt`` on a ``.lock``
    file), released by the system if the process dies.

    RAISES (TeachingError): The folder cannot be written, or another process holds it for ``wait`` seconds.
    """
    folder = Path(glossary_dir) / DRAFTS_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = os.open(folder, os.O_RDONLY) if fcntl is not None else \
            os.open(folder / ".lock", os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        raise TeachingError(f"cannot write the drafts in {folder}: {exc}") from None
    try:
        deadline = time.monotonic() + wait
        while not _try_lock(handle):
            if time.monotonic() > deadline:
                raise TeachingError(f"the drafts in {folder} are held by another process (teaching or "
                                    f"approving) for over {wait:.0f} s; nothing was written, try again")
            time.sleep(0.05)
        try:
            yield
        finally:
            _unlock(handle)
    finally:
        os.close(handle)


def _try_lock(handle: int) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # Windows
            os.lseek(handle, 0, os.SEEK_SET)
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _unlock(handle: int) -> None:
    if fcntl is not None:
        fcntl.flock(handle, fcntl.LOCK_UN)
    else:
        os.lseek(handle, 0, os.SEEK_SET)
        msvcrt.locking(handle, msvcrt.LK_UNLCK, 1)


__all__ = ["CHOICES", "DRAFTS_DIR", "Draft", "DraftFile", "Entry", "Evidence", "KIND_OF_CHOICE", "MEANS_TERM",
           "NAME", "NEUTRAL", "Objection", "PROBLEM", "SCOPES", "SCOPE_ALL", "SCOPE_DOMAIN", "TEACHING_CHOICES",
           "TeachingError", "apply_entry", "check_entries", "clause_entries", "drafts_lock", "drafts_path",
           "entry_domains", "governed_dir", "holds", "load_drafts", "normal_choice", "normal_scope",
           "objections_to", "save_drafts"]

"""Negation, hedge, pseudo and clause-break cues: the records a language pack's
cue files hold, validated on load.

A cue file is a flat list of records (``cue``, ``category``, ``direction``,
``max_scope``, ``note``) under one self-describing key, read with a key
whitelist so a typo in a record is an error rather than a cue that silently
does nothing. Each file belongs to a **profile**, the cue rules of one way of
reading scope, and carries the profile's ``scope`` settings:

- ``spec`` (``cues.json``, the default): the decision policy of spec §4. A cue
  reaches both directions within its own clause, lists extended, with no
  window: for the decision an extra escalation is safe and a missed one is not.
- ``clinical`` (``cues_clinical.json``): NegEx/ConText-style rules for
  clinical text, each cue with its own direction and reach in words, and
  section headers ("DIAGNOSIS:") ending a scope.

The ``scope`` block gives the defaults a record may leave out (``direction``,
``max_scope``) and the file-wide switch ``section_headers``. Records keep the
resolved values, so what a component reads is what ``to_payload`` writes.

Symbols that refuse, warn or doubt ("❌", "🚫", "⚠", "⏳") belong to no
language, so they are kept once, in ``semgap_spacy/data/symbol_cues.json``, and
join the ``spec`` cue set of every pack as it loads (``with_symbol_cues``):
spec §4.1 explains a symbol by its shape (rule 5), but a cue (rule 2) comes
first, and "Clear to close ❌" must not proceed.
"""
import hashlib
import json
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable, Dict, Iterable, Optional, Sequence, Tuple, Union

from spacy.util import registry

from ..util.textnorm import fold

CUES_TOP_KEY = "semgap_context_cues"
SYMBOLS_TOP_KEY = "semgap_symbol_cues"
SYMBOLS_FILE = "symbol_cues.json"
PAYLOAD_KEYS = frozenset({"lang", "version", "description", "profile", "scope", "cues"})
RECORD_KEYS = frozenset({"cue", "category", "direction", "max_scope", "note"})
REQUIRED_RECORD_KEYS = frozenset({"cue", "category"})
SCOPE_KEYS = frozenset({"direction", "max_scope", "section_headers", "parentheticals", "open_lists",
                        "short_items", "note"})
NEGATION = "negation"
HEDGE = "hedge"
BREAK = "break"
PSEUDO = "pseudo"
#: the category of a question mark among a doc's cue matches (no cue file lists it: the
#: ``questions`` switch of ``semgap_context`` makes a question hedge its sentence's terms)
QUESTION = "question"
CATEGORIES = (NEGATION, HEDGE, BREAK, PSEUDO)
SCOPED = frozenset({NEGATION, HEDGE})
FORWARD, BACKWARD, BOTH = "forward", "backward", "both"
DIRECTIONS = (FORWARD, BACKWARD, BOTH)
SPEC_PROFILE = "spec"
CLINICAL_PROFILE = "clinical"
#: the file of each profile in a language pack's folder
PROFILE_FILES = {SPEC_PROFILE: "cues.json", CLINICAL_PROFILE: "cues_clinical.json"}


class CueError(ValueError):
    """A cue file or record that cannot be used; the message names source, record, problem."""


def _max_scope(value, where: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise CueError(f"{where}: 'max_scope' must be a positive number of words or null, not {value!r}")
    return value


@dataclass(frozen=True)
class ScopeSettings:
    """A cue file's scope block: record defaults and the file-wide switches.

    direction (Optional[str]): The direction of a negation or hedge record that names none.
    max_scope (Optional[int]): The reach in words of a record that names none; None is the whole clause.
    section_headers (bool): Whether a section header ("DIAGNOSIS:", "Allergies:" at a line
        start) ends a scope, as clinical notes need; the spec reads a colon as no break.
    parentheticals (bool): Whether a forward cue that ends its clause reaches on past the
        commas after it, within its reach ("Al parecer, presentó un síncope", "does not,
        according to her daughter, have any memory problems"); the spec stops it at the comma.
    open_lists (bool): Whether the cue's own clause may hold a conjunction and still open
        a list ("no nausea or vomiting, diarrhea, or constipation"); the spec keeps the
        cue in that clause.
    short_items (int): Comma-separated items of at most this many words, up to a break
        that is not a comma, are a list without a conjunction ("no rashes, lesions,
        ulcers."); 0 (the spec): a comma without a conjunction ends the scope.
    note (Optional[str]): Why; documentation only.
    """

    direction: Optional[str] = None
    max_scope: Optional[int] = None
    section_headers: bool = False
    parentheticals: bool = False
    open_lists: bool = False
    short_items: int = 0
    note: Optional[str] = None

    @classmethod
    def from_dict(cls, data, source: str = "<cues>") -> "ScopeSettings":
        """Validate a ``scope`` block against its key whitelist.

        data (dict | None): The block; None for the defaults (both directions need naming per record).
        source (str): Where it comes from, for the error message.
        RETURNS (ScopeSettings): The settings.
        """
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise CueError(f"{source}: 'scope' must be an object")
        unknown = sorted(set(data) - SCOPE_KEYS)
        if unknown:
            raise CueError(f"{source}: scope: unknown key(s) {unknown}; allowed keys are {sorted(SCOPE_KEYS)}")
        direction = data.get("direction")
        if direction is not None and direction not in DIRECTIONS:
            raise CueError(f"{source}: scope: direction must be one of {list(DIRECTIONS)}, not {direction!r}")
        switches = {}
        for key in ("section_headers", "parentheticals", "open_lists"):
            switches[key] = data.get(key, False)
            if not isinstance(switches[key], bool):
                raise CueError(f"{source}: scope: {key} must be true or false")
        short = switches["short_items"] = data.get("short_items", 0)
        if isinstance(short, bool) or not isinstance(short, int) or short < 0:
            raise CueError(f"{source}: scope: short_items must be a number of words (0 for none)")
        note = data.get("note")
        if note is not None and not isinstance(note, str):
            raise CueError(f"{source}: scope: 'note' must be a string")
        return cls(direction, _max_scope(data.get("max_scope"), f"{source}: scope"), note=note, **switches)

    @property
    def spec_clauses(self) -> bool:
        """Whether the file-wide switches read clauses and lists as the spec does."""
        return not (self.section_headers or self.parentheticals or self.open_lists or self.short_items)

    def to_dict(self) -> dict:
        """The block as written (the inverse of ``from_dict``)."""
        out = {"direction": self.direction, "max_scope": self.max_scope, "section_headers": self.section_headers,
               "parentheticals": self.parentheticals, "open_lists": self.open_lists, "short_items": self.short_items}
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class CueRecord:
    """One cue: its text, what it signals, which way and how far it reaches.

    cue (str): The cue words as written ("ruled out"); folded when matched.
    category (str): "negation", "hedge", "break" (ends a clause; ConText's
        terminate) or "pseudo" (holds a cue word and is none: "not only").
    direction (Optional[str]): "forward" (cue before the term), "backward"
        (cue after it) or "both"; negation and hedge only.
    max_scope (Optional[int]): How many words away the term may start (forward)
        or end (backward) and still be reached; None: anywhere in the clause.
        Negation and hedge only.
    note (Optional[str]): Why the cue is there, or its source; documentation only.
    """

    cue: str
    category: str
    direction: Optional[str] = None
    max_scope: Optional[int] = None
    note: Optional[str] = None

    @classmethod
    def from_dict(cls, data: dict, source: str = "<cues>",
                  defaults: Optional[ScopeSettings] = None) -> "CueRecord":
        """Validate one record against the key whitelist.

        data (dict): A record such as {"cue": "no", "category": "negation", "direction": "forward"}.
        source (str): Where the record comes from, for the error message.
        defaults (Optional[ScopeSettings]): The file's scope block, for a direction or
            reach the record leaves out.
        RETURNS (CueRecord): The record, with the defaults filled in.
        """
        if not isinstance(data, dict):
            raise CueError(f"{source}: a cue record must be an object, not {type(data).__name__}")
        label = repr(data.get("cue", "?"))
        unknown = sorted(set(data) - RECORD_KEYS)
        if unknown:
            raise CueError(f"{source}: cue {label}: unknown key(s) {unknown}; "
                           f"allowed keys are {sorted(RECORD_KEYS)}")
        missing = sorted(REQUIRED_RECORD_KEYS - set(data))
        if missing:
            raise CueError(f"{source}: cue {label}: missing key(s) {missing}")
        defaults = defaults or ScopeSettings()
        cue, category = data["cue"], data["category"]
        direction, note = data.get("direction"), data.get("note")
        if not isinstance(cue, str) or not cue.strip():
            raise CueError(f"{source}: cue {label}: 'cue' must be a non-empty string")
        if category not in CATEGORIES:
            raise CueError(f"{source}: cue {label}: category {category!r} is not one of {list(CATEGORIES)}")
        max_scope = None
        if category in SCOPED:
            direction = direction if direction is not None else defaults.direction
            if direction not in DIRECTIONS:
                raise CueError(f"{source}: cue {label}: a {category} cue needs a direction, "
                               f"one of {list(DIRECTIONS)} (got {direction!r})")
            max_scope = _max_scope(data["max_scope"], f"{source}: cue {label}") if "max_scope" in data \
                else defaults.max_scope
        elif direction is not None or "max_scope" in data:
            raise CueError(f"{source}: cue {label}: a {category} cue takes no direction or max_scope")
        if note is not None and not isinstance(note, str):
            raise CueError(f"{source}: cue {label}: 'note' must be a string")
        return cls(cue=cue.strip(), category=category, direction=direction, max_scope=max_scope, note=note)

    def to_dict(self) -> dict:
        """The record as written in the data files (the inverse of ``from_dict``).

        RETURNS (dict): The record.
        """
        out = {"cue": self.cue, "category": self.category}
        if self.category in SCOPED:
            out["direction"] = self.direction
            out["max_scope"] = self.max_scope
        if self.note is not None:
            out["note"] = self.note
        return out

    @property
    def whole_clause(self) -> bool:
        """Whether the cue reaches its whole clause both ways (the spec's rule)."""
        return self.direction == BOTH and self.max_scope is None


@dataclass(frozen=True)
class CueSet:
    """The validated cues of one language in one profile, with the version and hash of the payload."""

    lang: str
    version: str
    description: str
    records: Tuple[CueRecord, ...]
    profile: str = SPEC_PROFILE
    scope: ScopeSettings = field(default_factory=ScopeSettings)

    @classmethod
    def from_payload(cls, payload: dict, source: str = "<cues>",
                     lang: Optional[str] = None, profile: Optional[str] = None) -> "CueSet":
        """Validate a cue file's content: ``{"semgap_context_cues": {...}}``.

        payload (dict): The parsed JSON.
        source (str): Where it comes from, for error messages.
        lang (Optional[str]): The language the file must declare, if known.
        profile (Optional[str]): The profile the file must declare, if known; a
            file that declares none is a ``spec`` file.
        RETURNS (CueSet): The cue set.
        """
        if not isinstance(payload, dict) or set(payload) != {CUES_TOP_KEY}:
            found = sorted(payload) if isinstance(payload, dict) else type(payload).__name__
            raise CueError(f"{source}: a cue file is an object with the single key "
                           f"{CUES_TOP_KEY!r} (found {found})")
        body = payload[CUES_TOP_KEY]
        if not isinstance(body, dict):
            raise CueError(f"{source}: {CUES_TOP_KEY!r} must be an object")
        unknown = sorted(set(body) - PAYLOAD_KEYS)
        if unknown:
            raise CueError(f"{source}: unknown key(s) {unknown}; allowed keys are {sorted(PAYLOAD_KEYS)}")
        for key in ("lang", "version", "cues"):
            if key not in body:
                raise CueError(f"{source}: missing key {key!r}")
        if lang is not None and body["lang"] != lang:
            raise CueError(f"{source}: declares lang {body['lang']!r}, expected {lang!r}")
        declared = body.get("profile", SPEC_PROFILE)
        if not isinstance(declared, str) or not declared.strip():
            raise CueError(f"{source}: 'profile' must be a non-empty string")
        if profile is not None and declared != profile:
            raise CueError(f"{source}: declares profile {declared!r}, expected {profile!r}")
        scope = ScopeSettings.from_dict(body.get("scope"), source)
        if not isinstance(body["cues"], list) or not body["cues"]:
            raise CueError(f"{source}: 'cues' must be a non-empty list")
        records = tuple(CueRecord.from_dict(r, f"{source} record {i}", scope) for i, r in enumerate(body["cues"]))
        seen: Dict[str, str] = {}
        for r in records:
            key = " ".join(fold(r.cue).split())
            if key in seen and seen[key] != r.category:
                raise CueError(f"{source}: cue {r.cue!r} is both {seen[key]} and {r.category}")
            seen[key] = r.category
        return cls(lang=str(body["lang"]), version=str(body["version"]),
                   description=str(body.get("description", "")), records=records, profile=declared,
                   scope=scope)

    def to_payload(self) -> dict:
        """The file content (the inverse of ``from_payload``).

        RETURNS (dict): ``{"semgap_context_cues": {...}}``.
        """
        return {CUES_TOP_KEY: {"lang": self.lang, "version": self.version,
                               "description": self.description, "profile": self.profile,
                               "scope": self.scope.to_dict(),
                               "cues": [r.to_dict() for r in self.records]}}

    @property
    def sha256(self) -> str:
        canonical = json.dumps(self.to_payload(), sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf8")).hexdigest()

    @property
    def whole_clause(self) -> bool:
        """Whether every negation and hedge cue reaches its whole clause both ways, no section
        header ends a scope and no cue reaches past a comma: the spec's reading, which the
        decision needs."""
        return self.scope.spec_clauses and all(r.whole_clause for r in self.records if r.category in SCOPED)


def symbol_cue_records(payload: dict, source: str = "<symbol cues>") -> Tuple[dict, ...]:
    """Validate the language-neutral symbol cues: ``{"semgap_symbol_cues": {"version", "description",
    "cues"}}``, whose records are cue records (``CueRecord``) of category negation or hedge.

    payload (dict): The parsed JSON.
    source (str): Where it comes from, for error messages.
    RETURNS (Tuple[dict, ...]): The records as written (each pack fills in its own scope defaults).
    """
    if not isinstance(payload, dict) or set(payload) != {SYMBOLS_TOP_KEY}:
        raise CueError(f"{source}: a symbol cue file is an object with the single key {SYMBOLS_TOP_KEY!r}")
    body = payload[SYMBOLS_TOP_KEY]
    if not isinstance(body, dict) or set(body) - {"version", "description", "cues"} or "cues" not in body:
        raise CueError(f"{source}: {SYMBOLS_TOP_KEY!r} holds 'version', 'description' and 'cues' only")
    records = body["cues"]
    if not isinstance(records, list):
        raise CueError(f"{source}: 'cues' must be a list")
    for i, data in enumerate(records):
        record = CueRecord.from_dict(data, f"{source} record {i}", ScopeSettings(direction=BOTH))
        if record.category not in SCOPED:
            raise CueError(f"{source} record {i}: cue {record.cue!r}: a symbol cue is a negation or a hedge")
        if any(ch.isalnum() for ch in record.cue):
            raise CueError(f"{source} record {i}: cue {record.cue!r}: a symbol cue holds no letter or digit "
                           f"(words belong to a language pack's cues.json)")
        read = fold(unicodedata.normalize("NFKC", record.cue))  # as the pipes read a token (spec §4.1)
        if read != record.cue:  # "≠" folds to "=", and would match every "="
            raise CueError(f"{source} record {i}: cue {record.cue!r} is read as {read!r}, "
                           f"so it would match another symbol")
    return tuple(records)


@lru_cache(maxsize=1)
def packaged_symbol_cues() -> Tuple[dict, ...]:
    """The symbol cues bundled in ``semgap_spacy/data/symbol_cues.json`` (validated once)."""
    text = resources.files("semgap_spacy.data").joinpath(SYMBOLS_FILE).read_text(encoding="utf8")
    return symbol_cue_records(json.loads(text), f"semgap_spacy/data/{SYMBOLS_FILE}")


def with_symbol_cues(cues: CueSet, symbols: Optional[Sequence[dict]] = None) -> CueSet:
    """``cues`` with the symbol cues it lacks appended, each given the set's scope defaults.

    A symbol the set already lists keeps the set's record; one it lists in another
    category is an error, as within one file.

    cues (CueSet): A pack's cue set.
    symbols (Optional[Sequence[dict]]): Symbol cue records; None: the bundled ones.
    RETURNS (CueSet): A cue set holding both (``cues`` itself when nothing is added).
    """
    symbols = packaged_symbol_cues() if symbols is None else symbols
    source = f"<symbol cues for {cues.lang}>"
    listed = {" ".join(fold(r.cue).split()): r.category for r in cues.records}
    added = []
    for data in symbols:
        record = CueRecord.from_dict(data, source, cues.scope)
        key = " ".join(fold(record.cue).split())
        if key in listed:
            if listed[key] != record.category:
                raise CueError(f"{source}: cue {record.cue!r} is both {listed[key]} and {record.category}")
            continue
        listed[key] = record.category
        added.append(record)
    return replace(cues, records=cues.records + tuple(added)) if added else cues


def load_packaged_cues(lang: str, profile: str = SPEC_PROFILE) -> CueSet:
    """The cues of a language pack in one profile; cached, immutable.

    lang (str): A language code with a pack (see ``semgap_spacy.lang.languages``).
    profile (str): "spec" (``cues.json``) or "clinical" (``cues_clinical.json``). Defaults to "spec".
    RETURNS (CueSet): The validated cues.
    """
    from . import get_pack  # the registry imports this module for the models

    if profile not in PROFILE_FILES:
        raise CueError(f"no cue profile {profile!r} (available: {', '.join(PROFILE_FILES)})")
    pack = get_pack(lang)
    return pack.cues if profile == SPEC_PROFILE else pack.clinical_cues


def load_cue_sets(languages: Iterable[str], profile: str = SPEC_PROFILE) -> Dict[str, CueSet]:
    """The packaged cue sets of several languages in one profile.

    languages (Iterable[str]): Language codes.
    profile (str): The profile. Defaults to "spec".
    RETURNS (Dict[str, CueSet]): One cue set per language.
    """
    return {lang: load_packaged_cues(lang, profile) for lang in languages}


def load_clinical_cue_sets(languages: Iterable[str]) -> Dict[str, CueSet]:
    """The packaged ``clinical`` cue sets of several languages (see ``load_cue_sets``)."""
    return load_cue_sets(languages, CLINICAL_PROFILE)


@registry.misc("semgap.context_cues.v1")
def context_cues_v1() -> Callable[[Iterable[str]], Dict[str, CueSet]]:
    """The ``spec`` profile: the cue files the decision reads (``semgap_spacy/lang/<code>/cues.json``).

    Every negation and hedge cue reaches both directions within its clause, a
    list joined by a conjunction counts as one clause, and there is no window
    (spec §4).

    RETURNS (Callable[[Iterable[str]], Dict[str, CueSet]]): Maps language codes
        to their validated cue sets.
    """
    return load_cue_sets


@registry.misc("semgap.context_cues.clinical.v1")
def context_cues_clinical_v1() -> Callable[[Iterable[str]], Dict[str, CueSet]]:
    """The ``clinical`` profile (``semgap_spacy/lang/<code>/cues_clinical.json``): NegEx/ConText-style
    directions and reach per cue, clinical speculation and post-target negation cues, and
    section headers ending a scope. For clinical text; the decision treats it as a narrowed read.

    RETURNS (Callable[[Iterable[str]], Dict[str, CueSet]]): Maps language codes
        to their validated cue sets.
    """
    return load_clinical_cue_sets


def cue_sets_from_arg(cues: Union[str, Path, dict], languages: Sequence[str]) -> Dict[str, CueSet]:
    """Cue sets from a directory of ``{lang}.json`` files or a ``{lang: payload}`` dict.

    cues (str | Path | dict): The directory or the dict.
    languages (Sequence[str]): The languages needed.
    RETURNS (Dict[str, CueSet]): One cue set per language.
    """
    out: Dict[str, CueSet] = {}
    if isinstance(cues, dict):
        for lang in languages:
            if lang not in cues:
                raise CueError(f"cue payloads have no language {lang!r} (found {sorted(cues)})")
            out[lang] = CueSet.from_payload(cues[lang], f"<cues:{lang}>", lang=lang)
        return out
    folder = Path(cues)
    for lang in languages:
        file = folder / f"{lang}.json"
        if not file.is_file():
            raise CueError(f"{file}: cue file not found")
        try:
            payload = json.loads(file.read_text(encoding="utf8"))
        except json.JSONDecodeError as exc:
            raise CueError(f"{file}: not valid JSON ({exc})") from None
        out[lang] = CueSet.from_payload(payload, str(file), lang=lang)
    return out

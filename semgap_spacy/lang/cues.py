"""Negation, hedge, pseudo and clause-break cues: the records a language pack's
``cues.json`` holds, validated on load.

A cue file is a flat list of records (``cue``, ``category``, ``direction``,
``note``) under one self-describing key, read with a key whitelist so a typo in
a record is an error rather than a cue that silently does nothing.
"""
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, Optional, Sequence, Tuple, Union

from spacy.util import registry

from ..util.textnorm import fold

CUES_TOP_KEY = "semgap_context_cues"
PAYLOAD_KEYS = frozenset({"lang", "version", "description", "cues"})
RECORD_KEYS = frozenset({"cue", "category", "direction", "note"})
REQUIRED_RECORD_KEYS = frozenset({"cue", "category"})
NEGATION = "negation"
HEDGE = "hedge"
BREAK = "break"
PSEUDO = "pseudo"
CATEGORIES = (NEGATION, HEDGE, BREAK, PSEUDO)
DIRECTIONS = ("forward", "backward", "both")
class CueError(ValueError):
    """A cue file or record that cannot be used; the message names source, record, problem."""


@dataclass(frozen=True)
class CueRecord:
    """One cue: its text, what it signals and which way it reaches.

    cue (str): The cue words as written ("ruled out"); folded when matched.
    category (str): "negation", "hedge", "break" (ends a clause) or "pseudo"
        (looks like a cue but is none: "not only").
    direction (Optional[str]): "forward" (cue before the term), "backward"
        (cue after it) or "both"; required for negation and hedge only.
    note (Optional[str]): Why the cue is there; documentation only.
    """

    cue: str
    category: str
    direction: Optional[str] = None
    note: Optional[str] = None

    @classmethod
    def from_dict(cls, data: dict, source: str = "<cues>") -> "CueRecord":
        """Validate one record against the key whitelist.

        data (dict): A record such as {"cue": "no", "category": "negation", "direction": "forward"}.
        source (str): Where the record comes from, for the error message.
        RETURNS (CueRecord): The record.
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
        cue, category = data["cue"], data["category"]
        direction, note = data.get("direction"), data.get("note")
        if not isinstance(cue, str) or not cue.strip():
            raise CueError(f"{source}: cue {label}: 'cue' must be a non-empty string")
        if category not in CATEGORIES:
            raise CueError(f"{source}: cue {label}: category {category!r} is not one of {list(CATEGORIES)}")
        if category in (NEGATION, HEDGE):
            if direction not in DIRECTIONS:
                raise CueError(f"{source}: cue {label}: a {category} cue needs a direction, "
                               f"one of {list(DIRECTIONS)} (got {direction!r})")
        elif direction is not None:
            raise CueError(f"{source}: cue {label}: a {category} cue takes no direction")
        if note is not None and not isinstance(note, str):
            raise CueError(f"{source}: cue {label}: 'note' must be a string")
        return cls(cue=cue.strip(), category=category, direction=direction, note=note)

    def to_dict(self) -> dict:
        """The record as written in the data files (the inverse of ``from_dict``).

        RETURNS (dict): The record.
        """
        out = {"cue": self.cue, "category": self.category}
        if self.direction is not None:
            out["direction"] = self.direction
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class CueSet:
    """The validated cues of one language, with the version and hash of the payload."""

    lang: str
    version: str
    description: str
    records: Tuple[CueRecord, ...]

    @classmethod
    def from_payload(cls, payload: dict, source: str = "<cues>",
                     lang: Optional[str] = None) -> "CueSet":
        """Validate a cue file's content: ``{"semgap_context_cues": {...}}``.

        payload (dict): The parsed JSON.
        source (str): Where it comes from, for error messages.
        lang (Optional[str]): The language the file must declare, if known.
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
        if not isinstance(body["cues"], list) or not body["cues"]:
            raise CueError(f"{source}: 'cues' must be a non-empty list")
        records = tuple(CueRecord.from_dict(r, f"{source} record {i}") for i, r in enumerate(body["cues"]))
        seen: Dict[str, str] = {}
        for r in records:
            key = " ".join(fold(r.cue).split())
            if key in seen and seen[key] != r.category:
                raise CueError(f"{source}: cue {r.cue!r} is both {seen[key]} and {r.category}")
            seen[key] = r.category
        return cls(lang=str(body["lang"]), version=str(body["version"]),
                   description=str(body.get("description", "")), records=records)

    def to_payload(self) -> dict:
        """The file content (the inverse of ``from_payload``).

        RETURNS (dict): ``{"semgap_context_cues": {...}}``.
        """
        return {CUES_TOP_KEY: {"lang": self.lang, "version": self.version,
                               "description": self.description,
                               "cues": [r.to_dict() for r in self.records]}}

    @property
    def sha256(self) -> str:
        canonical = json.dumps(self.to_payload(), sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf8")).hexdigest()


def load_packaged_cues(lang: str) -> CueSet:
    """The cues of a language pack (``semgap_spacy/lang/<lang>/cues.json``); cached, immutable.

    lang (str): A language code with a pack (see ``semgap_spacy.lang.languages``).
    RETURNS (CueSet): The validated cues.
    """
    from . import get_pack  # the registry imports this module for the models

    return get_pack(lang).cues


def load_cue_sets(languages: Iterable[str]) -> Dict[str, CueSet]:
    """The packaged cue sets of several languages.

    languages (Iterable[str]): Language codes.
    RETURNS (Dict[str, CueSet]): One cue set per language.
    """
    return {lang: load_packaged_cues(lang) for lang in languages}


@registry.misc("semgap.context_cues.v1")
def context_cues_v1() -> Callable[[Iterable[str]], Dict[str, CueSet]]:
    """The loader for the cue files of the language packs (``semgap_spacy/lang/<code>/cues.json``).

    RETURNS (Callable[[Iterable[str]], Dict[str, CueSet]]): Maps language codes
        to their validated cue sets.
    """
    return load_cue_sets


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

"""Rules: the cue words and the typo repair's reach that validation checks against.

A glossary phrase is only safe if the pipeline's other components will not
misread it: the context reader takes negation and hedge cues as "not" or
"maybe", and the typo repair turns a near-miss word into a known one. These
rules (data/governance.yaml plus data/negation/<lang>.json) are what the
phrase-risk checks compare glossary words with.
"""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Iterable, Optional, Tuple, Union

import srsly

from ..models import LANGUAGES
from .payload import _norm


_DATA = Path(__file__).resolve().parents[2] / "data"
#: A folder of <lang>.json cue files to read instead of the language packs'
#: ``cues.json`` (None: the packs). ``load_cues`` reads it from the package
#: (``semgap_spacy.glossary.governance.NEGATION_DIR``), so set it there, as the tests do.
NEGATION_DIR: Optional[Path] = None


def _negation_dir() -> Optional[Path]:
    """``NEGATION_DIR`` as the package holds it now.

    Read at call time from ``semgap_spacy.governance``, not from this module's
    own binding, so that setting the package attribute keeps working as it did
    when governance was a single module.
    """
    return sys.modules[__package__].NEGATION_DIR


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
    the language packs (``semgap_spacy/lang/<lang>/cues.json``) are added.
    """
    cues: Dict[str, Dict[str, str]] = {lang: {} for lang in LANGUAGES}
    for lang, kinds in (_rules().get("cues") or {}).items():
        for kind, words in (kinds or {}).items():
            for word in words or []:
                cues.setdefault(lang, {})[_norm(str(word))] = f"{kind} cue"
    folder = Path(negation_dir) if negation_dir else _negation_dir()
    for lang in LANGUAGES:
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
        for cue, kind in _cue_records(payload, "cue"):
            key = _norm(cue)
            # "pseudo" cues ("not only") negate nothing and "break" cues ("but")
            # only end a scope: neither turns a phrase into "not" or "maybe"
            if key and kind not in _NOT_CUES:
                cues[lang].setdefault(key, kind if kind.endswith("cue") else f"{kind} cue")
    return cues


def _pack_cues(lang: str) -> Any:
    """The cue file of a language pack, as written; {} when the language has no pack."""
    from ...lang import LanguagePackError, get_pack

    try:
        return get_pack(lang).cues.to_payload()
    except LanguagePackError:
        return {}


def max_edits(letters: int) -> int:
    """How many edits the typo repair allows for a word of this many letters."""
    rule = _rules()["fuzzy"]
    if letters < int(rule["min_letters"]):
        return 0
    for band in rule.get("bands") or []:
        if letters <= int(band["up_to"]):
            return int(band["max_edits"])
    return int(rule["longer"])

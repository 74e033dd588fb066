"""Raw accessors, tolerant of anything YAML can hold.

The checks run on YAML the loader may refuse, so a key can be missing or
hold the wrong type anywhere. These helpers read such payloads without ever
raising, so one malformed term becomes a finding instead of a crash, and they
give validate and diff the same view of a term's phrases and frame values.
``_fmt`` writes a raw value the way diff's change lines show it.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple

from ...util.textnorm import fold


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


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)

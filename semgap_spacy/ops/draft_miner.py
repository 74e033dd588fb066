"""Propose draft glossary phrases from texts the pipeline could not read.

When writers adopt wording the glossary lacks, the pipeline escalates with
``no_recognised_term`` again and again. The words that carry the meaning
usually sit next to an outcome or field word ("panel *reactive*",
"*temperature* logger"), so the miner counts word n-grams (1-3 words) near
those anchor words across the escalated, unrecognised texts.

The output is a list of **drafts** for a person to define, own and approve.
The miner never writes into an approved glossary, and a draft can never clear
or block anything, so a wrong suggestion costs a reviewer's minute, not a
wrong decision. Tokenisation is a plain regex: candidates are suggestions,
and a reviewer reads them anyway.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

import srsly

from .drift import data_section, load_config
from ..util.textnorm import fold

CANDIDATES_KIND = "semgap_candidates"
#: the format a candidates file is written in, by the suffix of its name
CANDIDATE_FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}
# Letters with inner hyphens/apostrophes ("cross-match", "d'evaluation"), or numbers.
_TOKEN = re.compile(r"[^\W\d_]+(?:['\-][^\W\d_]+)*|\d+(?:[.,]\d+)?")
# A phrase never spans a clause break: "positive, courier" are two thoughts.
_CLAUSE_BREAK = re.compile(r"[,;:.!?()\[\]{}|/\"]+|\s[-\u2013\u2014]+\s")


class CandidateWriteError(ValueError):
    """Refusal to write candidates where an approved glossary is, or may be."""


@dataclass
class Candidate:
    """One proposed phrase. Always a draft, never approved by the miner.

    phrase (str): The phrase, lowercased, as it was written.
    count (int): In how many distinct texts it occurred near an anchor word.
    example_case_ids (List[str]): A few case ids to read it in context.
    status (str): Always "draft".
    """

    phrase: str
    count: int
    example_case_ids: List[str] = field(default_factory=list)
    status: str = "draft"

    def __post_init__(self) -> None:
        if self.status != "draft":
            raise ValueError(f"a mined candidate is always a draft, not {self.status!r}")

    def to_dict(self) -> Dict[str, Any]:
        return {"phrase": self.phrase, "status": "draft", "count": self.count,
                "example_case_ids": list(self.example_case_ids), "approver": None}


def miner_config(overrides: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The miner's settings from ``data/drift.yaml``, with some replaced.

    overrides (Optional[Mapping[str, Any]]): Keys of the ``miner`` section.
        Unknown keys are refused. Defaults to None.
    RETURNS (Dict[str, Any]): The settings.
    """
    cfg = data_section("miner")
    for key, value in (overrides or {}).items():
        if key not in cfg:
            raise ValueError(f"unknown miner setting {key!r}; known: {', '.join(sorted(cfg))}")
        cfg[key] = value
    for key in ("max_candidates", "min_count", "max_ngram", "window", "max_examples"):
        if isinstance(cfg[key], bool) or not isinstance(cfg[key], int) or cfg[key] < 0:
            raise ValueError(f"miner setting {key} must be a non-negative integer")
    for key in ("anchor_words", "stop_words"):
        bad = [w for w in cfg[key] if not isinstance(w, str)]
        if bad:
            # YAML 1.1 reads a bare no/on/yes as a boolean; say so instead of failing later.
            raise ValueError(f"miner setting {key} holds non-text entries {bad!r} "
                             "(quote words such as \"no\" and \"on\" in YAML)")
    if not 1 <= cfg["max_ngram"] <= 3:
        raise ValueError("miner setting max_ngram must be 1, 2 or 3")
    return cfg


def tokenize(text: str) -> List[Tuple[str, str]]:
    """Split text into (surface, folded) word and number tokens.

    text (str): Any text.
    RETURNS (List[Tuple[str, str]]): Surface form lowercased, and its
        case- and accent-folded key.
    """
    return [(m.group().lower(), fold(m.group())) for m in _TOKEN.finditer(text)]


def is_unrecognised_escalation(decision: Mapping[str, Any],
                               codes: Optional[Iterable[str]] = None) -> bool:
    """Whether a decision escalated because nothing in the text was recognised.

    decision (Mapping[str, Any]): A decision dict (spec §5).
    codes (Optional[Iterable[str]]): Reason codes that mean "unrecognised".
        Defaults to the drift config's ``unrecognised_codes``.
    RETURNS (bool): True for an escalate decision carrying such a code.
    """
    if decision.get("decision") != "escalate":
        return False
    wanted = set(codes) if codes is not None else set(load_config().unrecognised_codes)
    return any(isinstance(r, Mapping) and r.get("code") in wanted
               for r in decision.get("reasons") or [])


def select_texts(cases: Iterable[Mapping[str, Any]], decisions: Iterable[Mapping[str, Any]],
                 codes: Optional[Iterable[str]] = None) -> List[Tuple[str, str]]:
    """Pair cases with decisions by id and keep the escalated, unrecognised ones.

    cases (Iterable[Mapping[str, Any]]): Cases (spec §5).
    decisions (Iterable[Mapping[str, Any]]): Their decisions.
    codes (Optional[Iterable[str]]): See ``is_unrecognised_escalation``.
    RETURNS (List[Tuple[str, str]]): (case id, text) pairs.
    """
    # by the id's text, as a decision writes an id that JSON gave as an object or a list
    texts = {str(c.get("id")): c.get("text") for c in cases if isinstance(c, Mapping)}
    picked = []
    for d in decisions:
        if not isinstance(d, Mapping) or not is_unrecognised_escalation(d, codes):
            continue
        text = texts.get(str(d.get("id")))
        if isinstance(text, str):
            picked.append((str(d.get("id")), text))
    return picked


def mine_candidates(texts: Iterable[Tuple[str, str]], known_phrases: Iterable[str] = (),
                    config: Optional[Mapping[str, Any]] = None,
                    max_candidates: Optional[int] = None) -> List[Candidate]:
    """Frequent n-grams near anchor words, minus what the glossary already has.

    A phrase is dropped when it equals a known phrase, contains one, or is
    part of one: all three mean the glossary already covers that wording.
    A phrase is also dropped when a longer phrase containing it occurs in as
    many texts, since the longer one says more.

    texts (Iterable[Tuple[str, str]]): (case id, text) of escalated,
        unrecognised cases, e.g. from ``select_texts``.
    known_phrases (Iterable[str]): Phrases and abbreviations already in any
        glossary, in any language.
    config (Optional[Mapping[str, Any]]): Overrides of the ``miner`` section
        of ``data/drift.yaml``.
    max_candidates (Optional[int]): Cap for this run. Defaults to the
        config's ``max_candidates``.
    RETURNS (List[Candidate]): Drafts, most frequent first.
    """
    cfg = miner_config(config)
    cap = cfg["max_candidates"] if max_candidates is None else max_candidates
    anchors = {fold(w) for w in cfg["anchor_words"]}
    stops = {fold(w) for w in cfg["stop_words"]}
    known = {k for k in (tuple(f for _s, f in tokenize(p)) for p in known_phrases) if k}

    seen_in: Dict[Tuple[str, ...], List[str]] = {}
    surface: Dict[Tuple[str, ...], Dict[str, int]] = {}
    for case_id, text in texts:
        if not isinstance(text, str):
            continue
        found: Set[Tuple[str, ...]] = set()
        for clause in _CLAUSE_BREAK.split(text):
            _collect(tokenize(clause), cfg, anchors, stops, found, surface)
        for keys in found:
            seen_in.setdefault(keys, []).append(str(case_id))

    counts = {k: len(set(ids)) for k, ids in seen_in.items()}
    kept = [k for k, c in counts.items()
            if c >= max(cfg["min_count"], 1) and not _covered(k, known)]
    kept = [k for k in kept if not any(
        len(other) > len(k) and counts[other] >= counts[k] and _contains(other, k)
        for other in kept)]
    kept.sort(key=lambda k: (-counts[k], -len(k), " ".join(k)))
    out = []
    for keys in kept[:max(cap, 0)]:
        forms = surface[keys]
        phrase = max(sorted(forms), key=lambda f: forms[f])
        ids = list(dict.fromkeys(seen_in[keys]))[:cfg["max_examples"]]
        out.append(Candidate(phrase, counts[keys], ids))
    return out


def _collect(tokens: List[Tuple[str, str]], cfg: Mapping[str, Any], anchors: Set[str],
             stops: Set[str], found: Set[Tuple[str, ...]],
             surface: Dict[Tuple[str, ...], Dict[str, int]]) -> None:
    """Add the usable n-grams of one clause that lie near an anchor word."""
    anchor_at = [i for i, (_s, f) in enumerate(tokens) if f in anchors]
    if not anchor_at:
        return
    window = cfg["window"]
    for n in range(1, cfg["max_ngram"] + 1):
        for i in range(len(tokens) - n + 1):
            gram = tokens[i:i + n]
            keys = tuple(f for _s, f in gram)
            if keys in found or not _usable(keys, anchors, stops):
                continue
            if not any(i - window <= a <= i + n - 1 + window for a in anchor_at):
                continue
            found.add(keys)
            forms = surface.setdefault(keys, {})
            form = " ".join(s for s, _f in gram)
            forms[form] = forms.get(form, 0) + 1


def _usable(keys: Tuple[str, ...], anchors: Set[str], stops: Set[str]) -> bool:
    if any(k[0].isdigit() for k in keys):
        return False
    # A phrase may not start or end on a stop word ("of the", "hold for").
    if keys[0] in stops or keys[-1] in stops:
        return False
    # Anchor and stop words alone say nothing new.
    return not all(k in anchors or k in stops for k in keys)


def _contains(longer: Tuple[str, ...], shorter: Tuple[str, ...]) -> bool:
    n = len(shorter)
    return any(longer[i:i + n] == shorter for i in range(len(longer) - n + 1))


def _covered(keys: Tuple[str, ...], known: Set[Tuple[str, ...]]) -> bool:
    return any(_contains(keys, k) or _contains(k, keys) for k in known)


# -- writing ---------------------------------------------------------------


def check_candidates_path(path: Union[str, Path]) -> Path:
    """Refuse a target that is, or could be, an approved glossary.

    Refused: any path under a ``glossaries/`` directory other than
    ``glossaries/candidates/``; a name that does not end in .yaml, .yml or
    .json (``candidates_format``); any existing file whose YAML holds a term
    with ``status: approved``; any existing file that is not a candidates
    file (or cannot be read as YAML), since overwriting it could destroy a
    glossary this check does not recognise.

    path (Union[str, Path]): The intended candidates file.
    RETURNS (Path): The resolved path, when allowed.
    """
    target = Path(path).resolve()
    parts = target.parent.parts
    for i, part in enumerate(parts):
        if part == "glossaries" and (i + 1 >= len(parts) or parts[i + 1] != "candidates"):
            raise CandidateWriteError(
                f"refusing to write draft candidates to {path}: it is inside a glossaries/ "
                "directory; write them under glossaries/candidates/ or elsewhere"
            )
    fmt = candidates_format(target, shown=path)
    if target.exists():
        try:
            text = target.read_text("utf-8")
            existing = json.loads(text) if fmt == "json" else srsly.yaml_loads(text)
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise CandidateWriteError(
                f"refusing to overwrite {path}: it exists and is not readable {fmt.upper()} ({err})"
            ) from None
        if _has_approved(existing):
            raise CandidateWriteError(
                f"refusing to write draft candidates to {path}: it holds approved glossary terms"
            )
        if existing is not None and not (isinstance(existing, dict)
                                         and existing.get("kind") == CANDIDATES_KIND):
            raise CandidateWriteError(
                f"refusing to overwrite {path}: it exists and is not a candidates file "
                f"(kind: {CANDIDATES_KIND})"
            )
    return target


def candidates_format(path: Union[str, Path], shown: Union[None, str, Path] = None) -> str:
    """The format a candidates file is written in, "yaml" or "json", from its name's suffix.

    A file named .json that holds YAML is read wrongly, or not at all, by the next
    program; a name with any other suffix says nothing of what it holds. Both are refused.

    path (Union[str, Path]): The candidates file.
    shown (Union[None, str, Path]): The path as the user gave it, for the message.
    RETURNS (str): "yaml" for .yaml and .yml, "json" for .json.
    """
    fmt = CANDIDATE_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise CandidateWriteError(
            f"refusing to write draft candidates to {shown or path}: name the file .yaml or .yml "
            "(written as YAML) or .json (written as JSON)"
        )
    return fmt


def _has_approved(node: Any) -> bool:
    if isinstance(node, dict):
        if str(node.get("status", "")).strip().lower() == "approved":
            return True
        return any(_has_approved(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_approved(v) for v in node)
    return False


def write_candidates(candidates: Sequence[Candidate], path: Union[str, Path],
                     source: Optional[str] = None) -> Path:
    """Write draft candidates to their own file, never to a glossary.

    candidates (Sequence[Candidate]): From ``mine_candidates``.
    path (Union[str, Path]): The candidates file; see ``check_candidates_path``. A .json
        file is written as JSON, a .yaml or .yml file as YAML (``candidates_format``).
    source (Optional[str]): Where the texts came from, for the record.
    RETURNS (Path): The file written.
    """
    target = check_candidates_path(path)
    doc = {
        "kind": CANDIDATES_KIND,
        "note": ("Draft phrases mined from escalated, unrecognised texts. None is part of "
                 "a glossary: a person must define, own and approve each one first."),
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "source": source,
        "candidates": [c.to_dict() for c in candidates],
    }
    if candidates_format(target) == "json":
        text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    else:
        text = srsly.yaml_dumps(doc, sort_keys=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".candidates-", suffix=target.suffix, dir=str(target.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


__all__ = [
    "Candidate",
    "CandidateWriteError",
    "miner_config",
    "tokenize",
    "is_unrecognised_escalation",
    "select_texts",
    "mine_candidates",
    "candidates_format",
    "check_candidates_path",
    "write_candidates",
]

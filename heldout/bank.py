"""Load the phrase bank (``heldout/bank/*.yaml``), index it, split it, lint it.

The bank is data: the glossary facts copied from the spec, surface material
(organisations, people, wrappers, fillers) and per-category templates. This
module turns it into lookups for the generator and enforces the split rule:

    SPLIT RULE — in every list the generator draws phrasing material from
    (templates per category, organisations per domain, people, wrappers,
    fillers per domain/language, misspelt filler clauses, misspellings per
    word), the item at an even index belongs to dev and the item at an odd
    index belongs to test.

Glossary phrases, cues and units are shared by both splits: they are the
contract under test, not phrasing.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

import srsly

BANK_DIR = Path(__file__).with_name("bank")
SPLITS = ("dev", "test")
LANGS = ("en", "es", "fr", "de")


def split_items(items: list, split: str) -> list:
    """The part of ``items`` that belongs to ``split`` (even index: dev, odd: test)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    return list(items[0::2] if split == "dev" else items[1::2])


def fold(text: str) -> str:
    """Case-, accent- and hyphen-insensitive form used to compare phrases."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[-‐–—]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def strip_accents(text: str) -> str:
    """Remove accents but keep case: "négatif" -> "negatif", "lufttüchtig" -> "lufttuchtig"."""
    text = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(ch for ch in text if not unicodedata.combining(ch)))


def words(text: str) -> list[str]:
    """Folded word tokens (letters and digits)."""
    return re.findall(r"[a-z0-9ß]+", fold(text))


@lru_cache(maxsize=None)
def osa(a: str, b: str, cap: int = 99) -> int:
    """Restricted Damerau-Levenshtein (optimal string alignment) distance.

    Returns ``cap + 1`` as soon as the distance is known to exceed ``cap``; only
    cells within ``cap`` of the diagonal are computed (the linter asks "within
    2 edits?" tens of thousands of times).
    """
    n, m = len(a), len(b)
    if abs(n - m) > cap:
        return cap + 1
    big = cap + 1
    d = [[big] * (m + 1) for _ in range(n + 1)]
    for j in range(min(m, cap) + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        if i <= cap:
            d[i][0] = i
        for j in range(max(1, i - cap), min(m, i + cap) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, d[i - 2][j - 2] + 1)
            d[i][j] = min(best, big)
    return d[n][m]


def typo_limit(length: int) -> int:
    """Spec's repair budget: none under 5 letters, 1 edit up to 7 letters, 2 beyond."""
    if length < 5:
        return 0
    return 1 if length <= 7 else 2


@dataclass(frozen=True)
class Surface:
    """One way a term is written in text."""

    text: str
    term: str
    lang: str
    via: str  # phrase | abbrev | variant | inflection | translation
    status: str  # approved | draft
    canonical: bool = False


@dataclass
class Term:
    id: str
    domain: str
    signal: str
    field: str | None
    surfaces: list[Surface] = field(default_factory=list)


class Bank:
    """Everything in ``bank/``, indexed."""

    def __init__(self, directory: Path = BANK_DIR):
        def load(name):
            with open(directory / name, encoding="utf-8") as fh:
                return srsly.yaml_loads(fh.read())

        self.glossary = load("glossary.yaml")
        self.surface = load("surface.yaml")
        self.categories = load("templates.yaml")["categories"]
        self.units = self.glossary["units"]
        self.frame = self.glossary["frame"]
        self.cues = self.glossary["cues"]
        self.typos: dict[str, list[str]] = self.glossary["typos"]
        self.domains = list(self.glossary["domains"])
        self.terms: dict[str, Term] = {}
        self.fields: dict[str, dict] = {}
        self.ambiguous: dict[str, dict[str, list[str]]] = {}
        for domain, spec in self.glossary["domains"].items():
            self.ambiguous[domain] = spec["ambiguous_abbrevs"]
            for name, fspec in spec["fields"].items():
                self.fields[name] = {"domain": domain, **fspec}
            for t in spec["terms"]:
                self.terms[t["id"]] = self._term(domain, t)
        for name, fspec in self.fields.items():
            fspec["term"] = next(t.id for t in self.terms.values() if t.field == name)
        self.surface_index: dict[str, Surface] = {}
        for term in self.terms.values():
            for s in term.surfaces:
                key = fold(s.text)
                other = self.surface_index.get(key)
                if other is not None and other.term != s.term:
                    raise ValueError(f"surface {s.text!r} belongs to {other.term} and {s.term}")
                self.surface_index.setdefault(key, s)

    @staticmethod
    def _term(domain: str, t: dict) -> Term:
        term = Term(t["id"], domain, t["signal"], t.get("field"))
        drafts = set(t.get("draft_langs", []))
        for i, text in enumerate(t["en"]):
            term.surfaces.append(Surface(text, t["id"], "en", "phrase", "approved", canonical=(i == 0)))
        for text in t.get("abbrev", []):
            term.surfaces.append(Surface(text, t["id"], "en", "abbrev", "approved"))
        for text in t.get("variants", []):
            term.surfaces.append(Surface(text, t["id"], "en", "variant", "approved"))
        for lang, texts in t.get("inflections", {}).items():
            status = "draft" if lang in drafts else "approved"
            for text in texts:
                term.surfaces.append(Surface(text, t["id"], lang, "inflection", status))
        for lang in ("es", "fr", "de"):
            status = "draft" if lang in drafts else "approved"
            for text in t.get(lang, []):
                term.surfaces.append(Surface(text, t["id"], lang, "translation", status))
        return term

    # ---- lookups -------------------------------------------------------
    def terms_of(self, domain: str, signal: str | None = None) -> list[Term]:
        return [t for t in self.terms.values() if t.domain == domain and (signal is None or t.signal == signal)]

    def fields_of(self, domain: str) -> list[str]:
        return [name for name, spec in self.fields.items() if spec["domain"] == domain]

    def surfaces(self, term: Term, lang: str, form: str, status: str = "approved") -> list[Surface]:
        """Surfaces of ``term`` in ``lang`` for a template form.

        English forms: canonical (first listed phrase), synonym (other phrases,
        abbreviations, hyphen/space variants), inflection, abbrev, any.
        Other languages: translation/any/canonical (the listed translations),
        inflection.
        """
        pool = [s for s in term.surfaces if s.lang == lang and s.status == status]
        if lang == "en":
            chosen = {
                "canonical": [s for s in pool if s.canonical],
                "synonym": [s for s in pool if s.via in ("abbrev", "variant") or (s.via == "phrase" and not s.canonical)],
                "inflection": [s for s in pool if s.via == "inflection"],
                "abbrev": [s for s in pool if s.via == "abbrev"],
                "any": [s for s in pool if s.via in ("phrase", "abbrev", "variant")],
                "translation": [s for s in pool if s.via in ("phrase", "abbrev", "variant")],
            }[form]
        else:
            if form == "inflection":
                chosen = [s for s in pool if s.via == "inflection"]
            elif form == "abbrev":
                chosen = []
            else:
                chosen = [s for s in pool if s.via == "translation"]
        return chosen

    def all_surfaces(self) -> list[Surface]:
        return [s for t in self.terms.values() for s in t.surfaces]

    # ---- vocabularies used by the linter -------------------------------
    @cached_property
    def glossary_words(self) -> frozenset[str]:
        """Every folded word of every glossary surface, frame word and ambiguous abbreviation."""
        vocab = set()
        for s in self.all_surfaces():
            vocab.update(words(s.text))
        for key in ("heads", "positive", "negative"):
            for w in self.frame[key]:
                vocab.update(words(w))
        for abbrevs in self.ambiguous.values():
            vocab.update(a.lower() for a in abbrevs)
        return frozenset(vocab)

    def word_terms(self) -> dict[str, set[str]]:
        """Folded glossary word -> ids of the terms it can help express (frame words included)."""
        out: dict[str, set[str]] = {}
        for s in self.all_surfaces():
            for w in words(s.text):
                out.setdefault(w, set()).add(s.term)
        frame_terms = {"heads": {"MED.XM_POSITIVE", "MED.XM_NEGATIVE"}, "positive": {"MED.XM_POSITIVE"}, "negative": {"MED.XM_NEGATIVE"}}
        for key, ids in frame_terms.items():
            for x in self.frame[key]:
                for w in words(x):
                    out.setdefault(w, set()).update(ids)
        for abbrevs in self.ambiguous.values():
            for a in abbrevs:
                out.setdefault(a.lower(), set()).add(f"ambiguous:{a}")
        return out

    @cached_property
    def folded_surfaces(self) -> tuple[tuple[Surface, str], ...]:
        return tuple((s, fold(s.text)) for s in self.all_surfaces())

    @cached_property
    def cue_entries(self) -> tuple[str, ...]:
        """Every negation/hedge cue and clause break, folded."""
        out = []
        for group in ("negation", "hedge"):
            for cues in self.cues[group].values():
                out.extend(fold(c) for c in cues)
        return tuple(out)


# ---------------------------------------------------------------------------
# Lint: surface material must not carry meaning by accident.

_UNIT_AFTER_NUMBER = re.compile(
    r"\d\s*(h|hrs?|hours?|mins?|minutes?|d|days?|weeks?|m|%|percent|pct|psi|bar|kpa|°\s*[cf]|[cfk]|degc|degf|celsius|fahrenheit|kelvin|months?|years?)\b",
    re.IGNORECASE,
)


def _contains_phrase(folded_text: str, phrase: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(s|es)?(?![a-z0-9])", folded_text) is not None


def lint_text(bank: Bank, text: str, *, allow_cues: bool = False, allow_numbers: bool = False) -> list[str]:
    """Problems with a piece of neutral text (filler, wrapper, name, paraphrase)."""
    problems = []
    folded = fold(text)
    for s, phrase in bank.folded_surfaces:
        if _contains_phrase(folded, phrase):
            problems.append(f"contains glossary surface {s.text!r} ({s.term})")
    vocab = bank.glossary_words
    tokens = words(text)
    frame_words = {w for key in ("heads", "positive", "negative") for x in bank.frame[key] for w in words(x)}
    abbrevs = {a.lower() for domain in bank.ambiguous.values() for a in domain}
    cue_words = {w for cue in bank.cue_entries for w in cue.split()}
    for tok in tokens:
        if tok in frame_words and not allow_cues:
            problems.append(f"contains frame word {tok!r}")
        if tok in abbrevs:
            problems.append(f"contains ambiguous abbreviation {tok!r}")
        if len(tok) >= 5 and tok not in vocab and tok not in cue_words:
            for v in vocab:
                if len(v) < 5 or abs(len(tok) - len(v)) > 2:
                    continue  # OSA is at least the length difference: out of reach
                inflected = tok.startswith(v) or v.startswith(tok)
                if not inflected and 0 < osa(tok, v, 2) <= typo_limit(min(len(tok), len(v))):
                    problems.append(f"{tok!r} is a near miss of glossary word {v!r}")
    if not allow_cues:
        for cue in bank.cue_entries:
            if _contains_phrase(folded, cue) or (" " not in cue and cue in tokens):
                problems.append(f"contains cue {cue!r}")
        if re.search(r"n't\b", text.lower()):
            problems.append("contains a n't negation")
    if not allow_numbers and _UNIT_AFTER_NUMBER.search(text):
        problems.append("contains a number with a unit")
    return problems


def lint_bank(bank: Bank) -> list[str]:
    """Lint all surface material and the static words of templates; return problems."""
    problems = []

    def check(where, text, **kw):
        problems.extend(f"{where}: {p}" for p in lint_text(bank, text, **kw))

    for domain, orgs in bank.surface["orgs"].items():
        for org in orgs:
            check(f"org {org!r}", org)
    for person in bank.surface["people"]:
        check(f"person {person!r}", person)
    for wrapper in bank.surface["wrappers"]:
        check(f"wrapper {wrapper!r}", re.sub(r"\{\w+\}", " ", wrapper))
    for key, fillers in bank.surface["fillers"].items():
        for filler in fillers:
            check(f"filler[{key}] {filler!r}", filler)
    for clause in bank.surface["filler_typos"]:
        check(f"filler_typo {clause!r}", clause)
    # Template static text: no glossary surface or near miss outside slots; cues only
    # where the category is about cues (or the slot is marked negated/hedged).
    for cat, spec in bank.categories.items():
        for t in spec["templates"]:
            cue_slots = any(
                isinstance(s, dict) and s.get("polarity") in ("negated", "hedged") for s in t.get("slots", {}).values()
            )
            allow_cues = cat in ("clause_scope",) or cue_slots
            for p in t["phrasings"]:
                static = re.sub(r"\{\w+\}", " | ", p)
                check(
                    f"template {t['id']} {p!r}",
                    static,
                    allow_cues=allow_cues,
                    allow_numbers=(t["id"] == "nothing_recognised.untied_quantity"),
                )
    # Split rule: no phrasing string may be used by a dev template and a test template.
    used: dict[str, set[str]] = {}
    for spec in bank.categories.values():
        for split in SPLITS:
            for t in split_items(spec["templates"], split):
                for p in t["phrasings"]:
                    used.setdefault(p, set()).add(split)
    problems.extend(f"phrasing {p!r} is used by dev and test templates" for p, s in used.items() if len(s) > 1)
    ids = [t["id"] for spec in bank.categories.values() for t in spec["templates"]]
    problems.extend(f"template id {i!r} is not unique" for i in sorted({i for i in ids if ids.count(i) > 1}))
    fillers = [f for v in bank.surface["fillers"].values() for f in v]
    orgs = [o for v in bank.surface["orgs"].values() for o in v]
    for split_list in (bank.surface["people"], bank.surface["wrappers"], bank.surface["filler_typos"], fillers, orgs):
        if len(split_list) != len(set(split_list)):
            problems.append("a surface list has a duplicate entry (it could land in both splits)")
    # Typos: within the spec's repair budget of their word, strictly nearer to it
    # than to any other glossary word, and out of reach of words of another signal
    # (so no sane repairer can turn a critical typo into a clearance or back).
    vocab = bank.glossary_words
    terms = bank.word_terms()
    for word, typos in bank.typos.items():
        w = fold(word)
        if len(w) < 5:
            problems.append(f"typo word {word!r} is shorter than 5 letters")
        if w not in vocab:
            problems.append(f"typo word {word!r} is not a glossary word")
        for typo in typos:
            t = fold(typo)
            own = osa(t, w, 2)
            if len(t) < 5 or not 0 < own <= typo_limit(min(len(t), len(w))):
                problems.append(f"typo {typo!r} of {word!r} outside the repair budget")
            if t in vocab:
                problems.append(f"typo {typo!r} is itself a glossary word")
            for v in vocab:
                if v == w or len(v) < 5 or abs(len(t) - len(v)) > 2:
                    continue  # the length difference alone puts v out of reach
                dist = osa(t, v, 2)
                if dist <= own:
                    problems.append(f"typo {typo!r} of {word!r} is as near to {v!r}")
                elif dist <= typo_limit(min(len(t), len(v))) and not terms[v] <= terms.get(w, set()):
                    problems.append(f"typo {typo!r} of {word!r} is within reach of {v!r} of another term")
        if len(typos) < 2:
            problems.append(f"typo word {word!r} needs at least two misspellings (one per split)")
    return problems

"""The oracle's reading of spec §4 (cue scope) and §4.1 (unexplained words), from facts.

A v2 case's facts carry ``tokens``: every word the generator put into the text,
in order, with *why* it is there (``role``: term, frame, abbrev, quantity,
template, wrapper, name, filler, chatter, problem, paraphrase, shape) and, for
term words, the index of the mention they belong to. Which words are terms is
a fact (the generator chose the phrase); everything else is decided here, word
by word, against this package's own transcription of the spec's lists
(``bank/coverage.yaml``), spaCy's ``STOP_WORDS`` of en/es/fr/de and the bank's
copy of the glossary phrases (rule 4). Nothing here reads the engine: importing
``spacy.lang.xx.stop_words`` loads four frozensets, not a pipeline.

Why the oracle re-derives cue scope instead of trusting the generator's
intended polarity: the amended §4 (both directions within a clause, lists
joined by a conjunction, pseudo cues, sí/si and où/ou) is exactly what must be
tested, so the label has to come from the rule, and the generator then checks
its intent against it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import srsly

BANK_DIR = Path(__file__).with_name("bank")

# Roles whose words are part of a matched term, frame, field mention, quantity or
# declared abbreviation (rule 1): never cues, never clause breaks.
TERMISH = frozenset({"term", "frame", "abbrev", "quantity"})
# Roles a reviewer could mark neutral or name without hiding a fact (§4.2).
HARMLESS_ROLES = frozenset({"template", "wrapper", "name", "filler", "chatter", "shape"})

TOKEN_RE = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail address
    r"|https?://[^\s]+[^\s.,;:!?)]|www\.[^\s]+[^\s.,;:!?)]"  # URL (no trailing punctuation)
    r"|[@#][\w-]*\w"  # @mention, #tag
    r"|\w+(?:['’]\w+)*(?:-\w+(?:['’]\w+)*)*"  # word, with inner hyphens and apostrophes
    r"|\S"  # any other single character: punctuation, symbol, emoji
)


def tokenize(text: str) -> list[str]:
    """Words of ``text`` as the held-out facts count them ("isn't" -> "is", "n't")."""
    out = []
    for tok in TOKEN_RE.findall(text):
        if len(tok) > 3 and tok.lower().endswith("n't"):
            out.extend([tok[:-3], tok[-3:]])
        else:
            out.append(tok)
    return out


def _strip(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(ch for ch in text if not unicodedata.combining(ch)))


@dataclass(frozen=True)
class Lists:
    never_neutral: frozenset
    neutral_common: frozenset
    neutral_domain: dict
    known_names: dict
    negation: tuple
    hedge: tuple
    pseudo: tuple
    accent_distinct: frozenset
    breaks: frozenset
    conjunctions: frozenset
    units: frozenset
    stop_words: frozenset
    phrase_words: dict = field(default_factory=dict)  # domain -> words of clear/field phrases


def cue_form(word: str) -> str:
    """Case- and accent-insensitive, except where an accent makes another word (sí, où)."""
    low = unicodedata.normalize("NFKC", word).lower().replace("’", "'")
    return low if low in ACCENT_DISTINCT else _strip(low)


ACCENT_DISTINCT = frozenset({"sí", "où"})


def plain(word: str) -> str:
    """Case- and accent-insensitive form (neutral vocabulary, phrase words)."""
    return _strip(unicodedata.normalize("NFKC", word).lower().replace("’", "'"))


@lru_cache(maxsize=None)
def lists(directory: str = str(BANK_DIR)) -> Lists:
    """The spec's lists, loaded once per process."""
    from spacy.lang.de.stop_words import STOP_WORDS as de
    from spacy.lang.en.stop_words import STOP_WORDS as en
    from spacy.lang.es.stop_words import STOP_WORDS as es
    from spacy.lang.fr.stop_words import STOP_WORDS as fr

    d = Path(directory)
    cov = srsly.read_yaml(d / "coverage.yaml")
    glossary = srsly.read_yaml(d / "glossary.yaml")

    def seqs(groups: dict) -> tuple:
        return tuple(sorted({tuple(cue_form(w) for w in tokenize(c)) for cs in groups.values() for c in cs}, key=len, reverse=True))

    phrase_words: dict[str, frozenset] = {}
    for domain, spec in glossary["domains"].items():
        found = set()
        for t in spec["terms"]:
            if t["signal"] not in ("clear", "field"):
                continue
            phrases = list(t["en"]) + t.get("abbrev", []) + t.get("variants", [])
            phrases += [p for lang in ("es", "fr", "de") for p in t.get(lang, [])]
            phrases += [p for ps in t.get("inflections", {}).values() for p in ps]
            for p in phrases:
                for w in tokenize(p):
                    for part in re.split(r"[-']", plain(w)):
                        if part:
                            found.add(part)
        phrase_words[domain] = frozenset(found)
    return Lists(
        never_neutral=frozenset(w.lower() for ws in cov["never_neutral"].values() for w in ws),
        neutral_common=frozenset(plain(w) for ws in cov["neutral_common"].values() for w in ws),
        neutral_domain={k: frozenset(plain(w) for w in v) for k, v in cov["neutral_domain"].items()},
        known_names={k: tuple(tuple(tokenize(n)) for n in v) for k, v in cov["known_names"].items()},
        negation=seqs(cov["cues"]["negation"]),
        hedge=seqs(cov["cues"]["hedge"]),
        pseudo=seqs(cov["cues"]["pseudo"]),
        accent_distinct=frozenset(cov["cues"]["accent_distinct"]),
        breaks=frozenset(cue_form(b) for b in cov["scope"]["breaks"]),
        conjunctions=frozenset(cue_form(c) for c in cov["scope"]["list_conjunctions"]),
        units=frozenset(u.lower() for u in cov["unit_aliases"]),
        stop_words=frozenset(w.lower() for w in (en | es | fr | de)),
        phrase_words=phrase_words,
    )


def with_taught(L: Lists, neutral: dict | None = None, names: dict | None = None) -> Lists:
    """The spec's lists plus words a review round taught (§4.2), per domain; the rules are unchanged.

    A taught neutral word joins the domain's neutral vocabulary (rule 7), a
    taught name its known names (rule 6). The teaching curve relabels test
    with the same words the pipeline was taught, so an unsafe proceed is
    counted against what the glossary then says, not against the bundle.

    neutral (dict): domain -> neutral words taught for it.
    names (dict): domain -> names taught for it, as written.
    """
    neutral, names = neutral or {}, names or {}
    domains = set(L.neutral_domain) | set(L.known_names) | set(neutral) | set(names)
    return replace(
        L,
        neutral_domain={d: L.neutral_domain.get(d, frozenset()) | {plain(w) for w in neutral.get(d, ())} for d in domains},
        known_names={d: tuple(L.known_names.get(d, ())) + tuple(tuple(tokenize(n)) for n in names.get(d, ())) for d in domains},
    )


# ---------------------------------------------------------------------------
# Rule 4's inflection: two forms match when they share a stem.

_SUFFIXES = ("ing", "ed", "es", "s", "d", "e", "en", "n", "er", "ers", "a", "o", "os", "as", "ee", "ees", "t")


def _stems(word: str) -> set[str]:
    out = {word}
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            out.add(word[: -len(suf)])
    for s in list(out):
        if s.endswith("i") and len(s) >= 4:
            out.add(s[:-1] + "y")  # certified / certify
    return out


def _inflection_of(word: str, vocabulary: frozenset) -> bool:
    if word in vocabulary:
        return True
    stems = _stems(word)
    return any(stems & _stems(v) for v in vocabulary if v[:2] == word[:2])


# ---------------------------------------------------------------------------
# Word by word


def _shape(tok: str) -> bool:
    """Rule 5: digit, e-mail, URL, @mention, #tag, symbol/punctuation, initial."""
    if any(ch.isdigit() for ch in tok):
        return True
    if "@" in tok or tok.startswith(("#", "http://", "https://", "www.")):
        return True
    if not any(ch.isalnum() for ch in tok):
        return True
    return len(tok) == 1 and tok.isupper()


def _never_neutral(low: str, L: Lists) -> bool:
    return low in L.never_neutral or (low not in L.accent_distinct and _strip(low) in {_strip(w) for w in L.never_neutral})


def never_neutral(word: str, L: Lists | None = None) -> bool:
    """Whether the spec lists ``word`` as never neutral (no review round can teach it, §4.1)."""
    return _never_neutral(unicodedata.normalize("NFKC", word).lower().replace("’", "'"), L or lists())


def explain_word(tok: str, domain: str, L: Lists) -> str | None:
    """Which of rules 2-5 and 7 explains a lone word (names and cues are found in context)."""
    low = unicodedata.normalize("NFKC", tok).lower().replace("’", "'")
    if _shape(tok):
        return "shape"
    if low in L.units:
        return "unit"
    if low in L.stop_words and not _never_neutral(low, L):
        return "stop_word"
    p = plain(tok)
    if p in L.neutral_common or p in L.neutral_domain.get(domain, frozenset()):
        return "neutral"
    if _inflection_of(p, L.phrase_words.get(domain, frozenset())):
        return "domain_phrase"
    # A hyphenated or elided word is explained when each of its parts is.
    if "-" in tok or "'" in low:
        parts = [x for x in re.split(r"(?<=')|-", low) if x]
        if len(parts) > 1 and all(explain_word(x, domain, L) or (x.endswith("'") and x[:-1] in L.stop_words) for x in parts):
            return "parts"
    return None


@dataclass
class Coverage:
    """What the oracle read: polarity per mention, clauses with unexplained words, unattached cues."""

    polarity: dict[int, str]
    explained_by: list[str | None]
    clause_of: list[int]
    unexplained: list[tuple[int, list[int]]]  # (clause, token indices)
    unattached: list[tuple[str, int]]  # (negation | hedge, first token of the cue)
    cues: list[tuple[str, int, int]]  # (kind, start, end) including pseudo


def analyse(facts: dict, L: Lists | None = None) -> Coverage:
    """Apply §4's cue scope and §4.1's seven rules to the tokens in ``facts``."""
    L = L or lists()
    toks = facts["tokens"]
    domain = facts["domain"] if isinstance(facts.get("domain"), str) else ""
    n = len(toks)
    forms = [cue_form(t["text"]) for t in toks]
    termish = [t["role"] in TERMISH for t in toks]

    # Cues: pseudo first (they stop the word acting as a cue), longest sequences first.
    cues: list[tuple[str, int, int]] = []
    i = 0
    while i < n:
        hit = None
        if not termish[i]:
            for kind, table in (("pseudo", L.pseudo), ("negation", L.negation), ("hedge", L.hedge)):
                for seq in table:
                    j = i + len(seq)
                    if j <= n and tuple(forms[i:j]) == seq and not any(termish[i:j]):
                        hit = (kind, i, j)
                        break
                if hit:
                    break
        if hit:
            cues.append(hit)
            i = hit[2]
        else:
            i += 1
    in_cue = [None] * n
    for kind, a, b in cues:
        for k in range(a, b):
            in_cue[k] = kind

    # Clauses: breaks are punctuation / but-words outside terms and names.
    clause_of, breaks_after = [], {}  # clause -> the break that ends it
    c = 0
    for k, t in enumerate(toks):
        if not termish[k] and t["role"] != "name" and in_cue[k] is None and forms[k] in L.breaks:
            clause_of.append(-1)
            breaks_after.setdefault(c, forms[k])
            c += 1
        else:
            clause_of.append(c)
    n_clauses = c + 1
    clause_tokens: dict[int, list[int]] = {}
    for k, cl in enumerate(clause_of):
        if cl >= 0:
            clause_tokens.setdefault(cl, []).append(k)

    def has_conj(cl: int) -> bool:
        return any(not termish[k] and in_cue[k] is None and forms[k] in L.conjunctions for k in clause_tokens.get(cl, []))

    def scope(cl: int) -> set[int]:
        """The cue's clause; a list (comma items, the last after a conjunction) extends it."""
        out = {cl}
        if has_conj(cl):
            return out
        k = cl
        while breaks_after.get(k) == "," and k + 1 < n_clauses:
            k += 1
            if has_conj(k):
                return out | set(range(cl + 1, k + 1))
        return out

    mention_clauses: dict[int, set[int]] = {}
    for k, t in enumerate(toks):
        if t["role"] == "term" and t.get("mention") is not None:
            mention_clauses.setdefault(t["mention"], set()).add(clause_of[k])

    reached: dict[int, set[str]] = {}
    unattached = []
    for kind, a, _b in cues:
        if kind == "pseudo":
            continue
        sc = scope(clause_of[a])
        hits = [m for m, cls in mention_clauses.items() if cls & sc]
        for m in hits:
            reached.setdefault(m, set()).add(kind)
        if not hits:
            unattached.append((kind, a))
    polarity = {}
    for m in mention_clauses:
        kinds = reached.get(m, set())
        polarity[m] = "negated" if "negation" in kinds else "hedged" if "hedge" in kinds else "asserted"

    # Names (rule 6): governed phrases, whole and case-sensitive.
    named = [False] * n
    texts = [t["text"] for t in toks]
    for name in L.known_names.get(domain, ()):
        for s in range(n - len(name) + 1):
            if tuple(texts[s : s + len(name)]) == name:
                for k in range(s, s + len(name)):
                    named[k] = True

    explained_by: list[str | None] = []
    for k, t in enumerate(toks):
        if termish[k]:
            why = "term"
        elif in_cue[k]:
            why = "cue"
        elif named[k]:
            why = "name"
        else:
            why = explain_word(t["text"], domain, L)
        explained_by.append(why)

    unexplained = []
    for cl in range(n_clauses):
        bad = [k for k in clause_tokens.get(cl, []) if explained_by[k] is None]
        if bad:
            unexplained.append((cl, bad))
    return Coverage(polarity, explained_by, clause_of, unexplained, unattached, cues)


def findings(facts: dict, cov: Coverage) -> list[tuple[str, str, str]]:
    """§4.1's reasons, in the oracle's (rule, outcome, detail) form."""
    toks = facts["tokens"]
    out = []
    for _cl, idx in cov.unexplained:
        out.append(("unexplained_content", "escalate", " ".join(toks[k]["text"] for k in idx)))
    for kind, k in cov.unattached:
        out.append((f"unattached_{kind}", "escalate", toks[k]["text"]))
    return out


def unexplained_words(facts: dict, cov: Coverage | None = None) -> list[dict]:
    """The unexplained tokens, each with its role (what a reviewer would be shown)."""
    cov = cov or analyse(facts)
    return [facts["tokens"][k] for _cl, idx in cov.unexplained for k in idx]

"""Inflection: map word forms to the lemma of the glossary word they inflect.

The lemma tables come from ``spacy-lookups-data`` (en, es, fr, de), read once
when a glossary is loaded. Only the forms of glossary words are kept, so the
index is a few thousand entries rather than the tables' million. The index of
the bundled glossaries ships precomputed (see ``vocabulary.form_index_for``);
any other glossary pays the few seconds of reading the tables once per process.

English words missing from the lookup table ("crossmatches") go through the
English rule table of the same package (suffix rules of spaCy's rule
lemmatizer), accepted only when the result is a glossary lemma.
"""
import gzip
import json
from functools import lru_cache
from importlib import resources
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from ..util.caches import WordCache
from ..util.textnorm import fold

RULE_POS = ("noun", "verb", "adj")


def read_table(lang: str, table: str) -> Optional[dict]:
    """A raw table of spacy-lookups-data as a dict, or None when absent."""
    try:
        base = resources.files("spacy_lookups_data") / "data" / f"{lang}_{table}.json.gz"
        with base.open("rb") as fh:
            return json.loads(gzip.decompress(fh.read()).decode("utf8"))
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None


def _first(value) -> str:
    return value[0] if isinstance(value, list) and value else value


class _UnionFind:
    def __init__(self):
        self.parent: Dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # the shorter (then alphabetically first) form names the group
            keep, drop = sorted((ra, rb), key=lambda s: (len(s), s))
            self.parent[drop] = keep


@lru_cache(maxsize=16)
def build_form_index(words_by_lang: Tuple[Tuple[str, FrozenSet[str]], ...]) -> Dict[str, str]:
    """Map every known form of the given words to one canonical key.

    words_by_lang (tuple): ((lang, frozenset of folded words), ...).
    RETURNS (Dict[str, str]): folded form -> canonical key. Forms of one
        lemma share a key; a word and its lemma share a key.
    """
    uf = _UnionFind()
    for lang, words in words_by_lang:
        for w in words:
            uf.find(w)
        table = read_table(lang, "lemma_lookup")
        if not table:
            continue
        # two passes over the table keep only glossary forms in memory. Folding
        # can make two words one ("Stunden", hours, and "stünden", a form of
        # "stehen"): a form spelt as the glossary word is spelt wins over one
        # that only folds to it, so "Stunden" never joins "stehen", "stand".
        lemma_of, spelt = {}, set()
        for form, lemma in table.items():
            f = fold(form)
            if f in words:
                exact = form.lower() == f
                if exact or f not in spelt and f not in lemma_of:
                    lemma_of[f] = fold(_first(lemma))
                if exact:
                    spelt.add(f)
        wanted = set(lemma_of.values()) | set(words)
        for form, lemma in table.items():
            lem = fold(_first(lemma))
            if lem in wanted:
                uf.union(fold(form), lem)
        for w in words:
            uf.union(w, lemma_of.get(w, w))
    return {form: uf.find(form) for form in list(uf.parent)}


@lru_cache(maxsize=1)
def english_rules() -> List[Tuple[str, str]]:
    """Suffix rules (old, new) of spaCy's English rule lemmatizer."""
    table = read_table("en", "lemma_rules") or {}
    rules: List[Tuple[str, str]] = []
    for pos in RULE_POS:
        for old, new in table.get(pos, []):
            if old and (old, new) not in rules:
                rules.append((old, new))
    return rules


class FormIndex:
    """Folded word -> canonical key, with a bounded cache for unseen words."""

    CACHE_LIMIT = 50_000

    def __init__(self, forms: Dict[str, str], rules: Optional[Iterable[Tuple[str, str]]] = None,
                 exact: Iterable[str] = ()):
        self.forms = dict(forms)
        self.exact = frozenset(exact)
        for word in self.exact:
            self.forms[word] = word
        # suffix rules may lead only to words that inflect ("CTCs" is not "CTC")
        self.keys = frozenset(self.forms.values()) - self.exact
        self.rules = list(rules) if rules is not None else english_rules()
        self._cache: Dict[str, str] = WordCache(self.CACHE_LIMIT)

    def key(self, word: str) -> str:
        """Canonical key of a folded word (the word itself when unknown)."""
        hit = self.forms.get(word)
        if hit is not None:
            return hit
        hit = self._cache.get(word)
        if hit is None:
            hit = self._cache.recall(word)
        if hit is not None:
            return hit
        result = word
        for old, new in self.rules:
            if len(word) > len(old) + 2 and word.endswith(old):
                cand = word[: -len(old)] + new
                if cand in self.keys:
                    result = self.forms.get(cand, cand)
                    break
        return self._cache.put(word, result)

    def to_dict(self) -> dict:
        return {"forms": self.forms, "rules": [list(r) for r in self.rules], "exact": sorted(self.exact)}

    @classmethod
    def from_dict(cls, data: dict) -> "FormIndex":
        return cls(data["forms"], [tuple(r) for r in data["rules"]], data.get("exact", ()))

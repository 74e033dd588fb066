"""The glossary's words, as the tokenizer sees them.

Typo repair and the term matcher must agree on which words exist and how a
phrase splits into tokens; both take them from here. Phrases are tokenized
with the pipeline's own tokenizer so that "cross-match" in a pattern splits
exactly as it does in the text.
"""
import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Dict, FrozenSet, Iterator, List, Set, Tuple

from ..glossary.models import GlossarySet
from ..lang.inflection import FormIndex, build_form_index, english_rules
from ..util.textnorm import fold

FORM_CACHE_FILE = "bundled_forms.json"


def spelling_variants(text: str, compounds: Dict[str, List[str]]) -> List[str]:
    """Hyphen/space/joined variants of a phrase: "cross-match", "cross match", "crossmatch".

    Every gap between two words may be written as a space or a hyphen
    ("clear-to-close", "out-of-spec"); a hyphenated word may also be closed up
    ("non-reactive", "nonreactive"); closed compounds listed in the glossary
    may be opened ("crossmatch", "cross match", "cross-match").

    text (str): A glossary phrase.
    compounds (Dict[str, List[str]]): Closed compounds and their parts, e.g.
        {"crossmatch": ["cross", "match"]}, from the domain glossary.
    RETURNS (List[str]): Distinct variants, the original first.
    """
    out = [text]
    if "-" in text:
        out.append(text.replace("-", ""))
    for whole, parts in compounds.items():
        pattern = re.compile(rf"\b{re.escape(whole)}\b", re.IGNORECASE)
        for variant in list(out):
            if pattern.search(variant):
                out.append(pattern.sub(" ".join(parts), variant))
    for variant in list(out):
        words = re.split(r"[ \-]+", variant.strip())
        if 1 < len(words) <= MAX_SEPARATED_WORDS:
            for seps in itertools.product(" -", repeat=len(words) - 1):
                out.append(words[0] + "".join(sep + w for sep, w in zip(seps, words[1:])))
    seen, result = set(), []
    for v in out:
        if v not in seen:
            seen.add(v)
            result.append(v)
    return result


# Phrases longer than this keep their own separators (2^(n-1) variants otherwise).
MAX_SEPARATED_WORDS = 5


@dataclass
class GlossaryVocabulary:
    """Folded words of every phrase, per language, with the signals they carry."""

    words_by_lang: Dict[str, Set[str]] = field(default_factory=dict)
    signals: Dict[str, Set[str]] = field(default_factory=dict)
    # words of one-word phrases and abbreviations only: matched as written,
    # not inflected, so "grounded" never matches "ground crew"
    exact_words: Set[str] = field(default_factory=set)
    phrase_words: Set[str] = field(default_factory=set)

    def add(self, word: str, lang: str, signal: str) -> None:
        self.words_by_lang.setdefault(lang, set()).add(word)
        self.signals.setdefault(word, set()).add(signal)

    def all_words(self) -> Set[str]:
        return set(self.signals)


def tokenize_phrase(tokenizer, text: str) -> List[str]:
    return [fold(t.text) for t in tokenizer(text) if not t.is_space]


def iter_phrases(glossary: GlossarySet) -> Iterator[Tuple[str, str, object, str, str, str, str]]:
    """(domain, text, term, lang, status, kind, signal) for every phrase variant."""
    for domain, term in glossary.terms():
        compounds = glossary.domains[domain].compounds
        for text, lang, status, kind in term.variants():
            for variant in spelling_variants(text, compounds):
                yield domain, variant, term, lang, status, kind, term.signal


def build_vocabulary(glossary: GlossarySet, tokenizer) -> GlossaryVocabulary:
    vocab = GlossaryVocabulary()
    for _, text, _, lang, _, kind, signal in iter_phrases(glossary):
        words = tokenize_phrase(tokenizer, text)
        for word in words:
            if word.isalpha():
                vocab.add(word, lang, signal)
        target = vocab.exact_words if kind == "abbreviation" or len(words) == 1 else vocab.phrase_words
        target.update(words)
    for domain, dom in glossary.domains.items():
        for frame in dom.frames:
            for head in frame.heads:
                for variant in spelling_variants(head, dom.compounds):
                    for word in tokenize_phrase(tokenizer, variant):
                        if word.isalpha():
                            vocab.add(word, "en", "head")
            for term_id, values in frame.values.items():
                signal = glossary.term(term_id)[1].signal
                for value in values:
                    for word in tokenize_phrase(tokenizer, value):
                        if word.isalpha():
                            vocab.add(word, "en", signal)
    return vocab


def _words_key(vocab: GlossaryVocabulary) -> Tuple[Tuple[str, frozenset], ...]:
    return tuple(sorted((lang, frozenset(words)) for lang, words in vocab.words_by_lang.items()))


def words_digest(vocab: GlossaryVocabulary) -> str:
    payload = {lang: sorted(words) for lang, words in _words_key(vocab)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf8")).hexdigest()


@lru_cache(maxsize=1)
def _shipped_forms() -> dict:
    try:
        text = (resources.files("semgap_spacy.data") / FORM_CACHE_FILE).read_text(encoding="utf8")
        return json.loads(text)
    except (FileNotFoundError, OSError, ValueError):
        return {}


#: the inflection index of each vocabulary met lately, by its words and exact words: typo
#: repair, terms and coverage each build the vocabulary of the same glossary, and with one
#: index they work out the key of a word none has met once, not three times
_INDEXES: Dict[Tuple[str, FrozenSet[str]], FormIndex] = {}
_INDEXES_KEPT = 8


def form_index_for(vocab: GlossaryVocabulary) -> FormIndex:
    """The inflection index for a vocabulary (one per vocabulary, shared by the pipes).

    Reading the lemma tables takes seconds, so the index of the bundled
    glossaries ships precomputed; it is used only when its digest matches the
    vocabulary exactly (a test checks it equals a fresh computation).
    """
    digest, exact = words_digest(vocab), frozenset(vocab.exact_words - vocab.phrase_words)
    index = _INDEXES.get((digest, exact))
    if index is not None:
        return index
    shipped = _shipped_forms()
    if shipped.get("digest") == digest:
        forms, rules = shipped["forms"], [tuple(r) for r in shipped["rules"]]
    else:
        forms, rules = build_form_index(_words_key(vocab)), english_rules()
    if len(_INDEXES) >= _INDEXES_KEPT:
        _INDEXES.clear()
    index = _INDEXES[digest, exact] = FormIndex(forms, rules, exact=exact)
    return index


def compute_form_cache(vocab: GlossaryVocabulary) -> dict:
    """A fresh form-index payload for ``semgap_spacy/data/bundled_forms.json``."""
    return {"digest": words_digest(vocab), "forms": build_form_index(_words_key(vocab)),
            "rules": [list(r) for r in english_rules()]}

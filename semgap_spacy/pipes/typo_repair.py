"""``semgap_typo_repair``: repair misspelt glossary words, conservatively.

Only words the glossary uses are candidates, so repair can never invent a
term the glossary does not have. The rules are strict because a repaired word
can turn an escalation into a block: restricted edit distance (OSA) of 1 for
words of up to 7 letters and 2 for longer ones, never for words under 5
letters, never for protected words (cues, units, ordinary dictionary words),
and never when the nearest candidates carry different signals.

Words are read as a person sees them (``core.textview.read_word``: NFKC, no
format characters, look-alike letters of a mixed-script word as Latin), so
"ischem<U+200B>ai" is repaired like "ischemai". The repair is recorded in
``doc._.semgap_repairs`` (the term matcher reads it from there) and shown in
``token._.semgap_norm``; the original text stays in ``token.text`` and in
``token._.semgap_original``. ``token.norm_`` is the user's and is left alone
(issue 13): a user's ``Matcher`` on NORM behaves as without our pipes.
"""
import re
from functools import lru_cache
from typing import Dict, List, Optional, Set, Tuple

from rapidfuzz.distance import OSA
from rapidfuzz.process import extract
from spacy.language import Language
from spacy.tokens import Doc

from .extensions import doc_set, doc_text, token_set
from ..lang import packs, union
from ..util.caches import WordCache, WordSet
from ..lang.inflection import read_table
from .base import SemgapPipe, positive_int
from ..util.textnorm import fold
from ..core.textview import is_canonical, read_token, read_word, reads_as_itself
from ..core.vocabulary import build_vocabulary, form_index_for


def max_distance(word: str, short_max: int = 7, min_length: int = 5) -> int:
    """Edit distance allowed for a word: 0 under 5 letters, 1 up to 7, else 2."""
    if len(word) < min_length:
        return 0
    return 1 if len(word) <= short_max else 2


def protected_words() -> frozenset:
    """Words typo repair must leave alone: each pack's protected words, cue words and unit words.

    All come from the language packs: cue words so that "unless" can never be
    "repaired" into a glossary word; unit words likewise ("horas" is no typo).
    Built once per set of packs, so a registered language is protected too.
    """
    from ..lang import generation

    return _protected_words(generation())


@lru_cache(maxsize=2)
def _protected_words(generation: int) -> frozenset:
    words: Set[str] = {fold(w) for w in union("protected_words")}
    for pack in packs().values():
        for record in pack.cues.records:
            words.update(fold(record.cue).split())
        for unit_words in pack.unit_words.values():
            for word in unit_words:
                words.update(fold(word).split())
        for word in pack.unit_ambiguous:
            words.update(fold(word).split())
    return frozenset(words)


@lru_cache(maxsize=1)
def dictionary_words() -> frozenset:
    """English word forms from spacy-lookups-data: real words are not typos."""
    table = read_table("en", "lemma_lookup") or {}
    words = {fold(k) for k in table}
    words.update(fold(v) for v in table.values() if isinstance(v, str))
    return frozenset(words)


class TypoRepair(SemgapPipe):
    """Repair misspelt glossary words, recorded in ``doc._.semgap_repairs``."""

    FACTORY = "semgap_typo_repair"

    def __init__(self, nlp: Language, name: str = "semgap_typo_repair", *, enabled: bool = True,
                 min_length: int = 5, short_max: int = 7, protect_dictionary_words: bool = True,
                 cache_size: int = 50_000):
        self.min_length = positive_int(name, "min_length", min_length)
        self.short_max = positive_int(name, "short_max", short_max)
        positive_int(name, "cache_size", cache_size)
        self.protect_dictionary_words = protect_dictionary_words
        self._cache: Dict[str, Tuple[Optional[str], Optional[List[str]]]] = WordCache(cache_size)
        self._folds: Dict[str, str] = WordCache(cache_size)
        # Whitespace-separated chunks of text in which no word needs repair.
        self._clean = WordSet(cache_size)
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(min_length=min_length, short_max=short_max,
                        protect_dictionary_words=protect_dictionary_words)
        self.build()

    def _rebuild(self) -> None:
        vocab = build_vocabulary(self.glossary, self.nlp.tokenizer)
        index = form_index_for(vocab)
        self.signals = vocab.signals
        # Inflected forms of glossary words are words too, not typos.
        self.known = set(vocab.all_words()) | set(index.forms)
        self.index = index
        self.candidates = sorted(vocab.all_words())
        self._longest = max(map(len, self.candidates), default=0)
        self._near: Dict[Tuple[int, int], List[str]] = {}
        self.protected = protected_words()
        self.dictionary = dictionary_words() if self.protect_dictionary_words else frozenset()
        self._cache.clear()
        self._clean.clear()

    def repair(self, word: str) -> Tuple[Optional[str], Optional[List[str]]]:
        """Repair one folded word.

        word (str): A folded token text.
        RETURNS (Tuple[Optional[str], Optional[List[str]]]): (repaired word,
            None), (None, tied candidates) when refused for a tie, or (None, None).
        """
        hit = self._cache.get(word) or self._cache.recall(word)
        if hit is not None:
            return hit
        result: Tuple[Optional[str], Optional[List[str]]] = (None, None)
        limit = max_distance(word, self.short_max, self.min_length)
        if (limit and word.isalpha() and word not in self.known
                and word not in self.protected and word not in self.dictionary
                and self.index.key(word) not in self.index.keys):
            found = extract(word, self._candidates_near(len(word), limit), scorer=OSA.distance,
                            score_cutoff=limit, limit=None)
            if found:
                best = min(score for _, score, _ in found)
                tied = sorted(c for c, score, _ in found if score == best)
                signal_sets = {frozenset(self.signals[c]) for c in tied}
                if len(signal_sets) == 1:
                    result = (tied[0], None)
                else:
                    result = (None, tied)
        return self._cache.put(word, result)

    def _candidates_near(self, length: int, limit: int) -> List[str]:
        """The candidates whose length is within ``limit`` of ``length``: an edit changes a
        length by one at most, so no other candidate is within ``limit`` edits of such a
        word. Kept per (length, limit); lengths past every candidate's share one empty list."""
        key = (min(length, self._longest + limit + 1), limit)
        near = self._near.get(key)
        if near is None:
            near = self._near[key] = [c for c in self.candidates if abs(len(c) - key[0]) <= limit]
        return near

    def process(self, doc: Doc) -> Doc:
        # Most docs hold only words seen before and found sound. Whitespace
        # splitting is far cheaper than any regex scan, and a run of letters
        # never crosses whitespace, so a doc whose chunks ("ischemia,",
        # "°C") were all seen clean is settled by one set test; in any other
        # doc only the chunks not seen clean are read (a token never crosses
        # whitespace either).
        text = doc_text(doc)
        chunks = text.split()
        clean = self._clean
        if all(map(clean.__contains__, chunks)):
            return doc
        unsettled = _unsettled(text, chunks, clean.knows)  # what the open memory zone learnt counts too
        if not unsettled:
            return doc
        canonical = is_canonical(text)
        if canonical:
            self._repair_words(doc, text, unsettled)
        else:
            self._repair_read(doc, unsettled)
        for start, end in unsettled:
            chunk = text[start:end]
            # A chunk is settled by the regex on its characters only when it is its own
            # reading ("°C", "excursión"; not "n\u200bot" or a mixed-script word).
            if (not clean.knows(chunk) and (canonical or reads_as_itself(chunk))
                    and not read_token(chunk).suspicious and self._is_clean(chunk)):
                clean.add(chunk)
        return doc

    def _repair_words(self, doc: Doc, text: str, spans: List[Tuple[int, int]]) -> None:
        """Repair the words of the doc within ``spans`` (start_char, end_char), recording each
        repair and each refusal."""
        records = []
        starts = None
        pattern = _long_words(self.min_length)
        for match in (m for start, end in spans for m in pattern.finditer(text, start, end)):
            word = match.group()
            repaired, tied = self._repair_written(word)
            if repaired is None and not tied:
                continue
            if starts is None:
                starts = {t.idx: t.i for t in doc}
            i = starts.get(match.start())
            if i is None or doc[i].text != word:
                continue  # the word is only part of a token ("30hours")
            token = doc[i]
            records.append({"start_char": token.idx, "end_char": token.idx + len(word),
                            "original": word, "repaired": repaired, "candidates": tied})
            if repaired is not None:
                token_set(token, "semgap_original", word)
            else:
                token_set(token, "semgap_repair_candidates", tied)
        if records:
            doc_set(doc, "semgap_repairs", records)

    def _repair_read(self, doc: Doc, spans: List[Tuple[int, int]]) -> None:
        """Repair the tokens within ``spans`` (start_char, end_char) of a doc whose text is not
        its own canonical reading, token by token.

        Each token's reading (``read_word``) is what is repaired, so a format
        character or a look-alike letter inside a misspelt word changes nothing.
        A reading may hold several words where the written token did not split
        ("corssmatch.<U+202A>" reads "corssmatch" "."); the record's ``repaired``
        is then the whole reading, words separated by spaces, as the term
        matcher reads it.
        """
        records = []
        pattern = _long_words(self.min_length)
        tokens = (token for start, end in spans for token in doc.char_span(start, end, alignment_mode="expand") or ())
        for token in tokens:
            reading = read_word(token.text)
            if not reading:
                continue
            if token.text.isascii() and " " not in reading:
                words = [reading]
            else:
                words = [fold(t.text) for t in self.nlp.make_doc(reading) if not t.is_space]
            out, tied, changed = [], None, False
            for word in words:
                fixed, tie = self.repair(word) if pattern.fullmatch(word) else (None, None)
                if fixed is not None:
                    changed = True
                tied = tied or tie
                out.append(fixed or word)
            if not changed and not tied:
                continue
            repaired = " ".join(out) if changed else None
            records.append({"start_char": token.idx, "end_char": token.idx + len(token.text),
                            "original": token.text, "repaired": repaired,
                            "candidates": None if changed else tied})
            if changed:
                token_set(token, "semgap_original", token.text)
            else:
                token_set(token, "semgap_repair_candidates", tied)
        if records:
            doc_set(doc, "semgap_repairs", records)

    def _is_clean(self, chunk: str) -> bool:
        """Whether no word of a whitespace-free chunk needs repair or a refusal record."""
        return all(self._repair_written(word) == (None, None)
                   for word in _long_words(self.min_length).findall(chunk))

    def _repair_written(self, word: str) -> Tuple[Optional[str], Optional[List[str]]]:
        """``repair`` of a word as written (folded through a cache)."""
        folded = self._folds.get(word)
        if folded is None:
            folded = self._folds.recall(word)
        if folded is None:
            folded = self._fold(word)
        return self.repair(folded)

    def _fold(self, word: str) -> str:
        return self._folds.put(word, fold(word))


def _unsettled(text: str, chunks: List[str], clean) -> List[Tuple[int, int]]:
    """(start_char, end_char) of each chunk of ``text`` (``chunks``, its ``str.split()``) that
    ``clean`` does not know: only their words can need a repair or a refusal record."""
    spans, at = [], 0
    for chunk in chunks:
        at = text.find(chunk, at)
        if not clean(chunk):
            spans.append((at, at + len(chunk)))
        at += len(chunk)
    return spans


@lru_cache(maxsize=8)
def _long_words(min_length: int) -> "re.Pattern":
    """Runs of letters at least ``min_length`` long: the only strings typo
    repair ever considers (shorter words are never repaired). Greedy, so a
    match is always a whole run: a run too short to match at its start cannot
    match inside it either."""
    return re.compile(r"[^\W\d_]{%d,}" % max(min_length, 1))


@Language.factory(
    "semgap_typo_repair",
    default_config={"enabled": True, "min_length": 5, "short_max": 7, "protect_dictionary_words": True,
                    "cache_size": 50_000},
    assigns=["doc._.semgap_repairs", "token._.semgap_original", "token._.semgap_repair_candidates",
             "doc._.semgap_pipeline"],
)
def make_typo_repair(nlp: Language, name: str, enabled: bool, min_length: int, short_max: int,
                     protect_dictionary_words: bool, cache_size: int = 50_000) -> TypoRepair:
    """Build the typo repair component.

    enabled (bool): Off leaves every token as written. Defaults to True.
    min_length (int): Words shorter than this are never repaired. Defaults to 5.
    short_max (int): Words up to this length allow distance 1, longer ones 2. Defaults to 7.
    protect_dictionary_words (bool): Never repair ordinary English words. Defaults to True.
    cache_size (int): Words (and whitespace-separated chunks) whose repair is remembered, per
        cache; a full cache starts again empty. Defaults to 50000.
    RETURNS (TypoRepair): The component.
    """
    return TypoRepair(nlp, name, enabled=enabled, min_length=min_length, short_max=short_max,
                      protect_dictionary_words=protect_dictionary_words, cache_size=cache_size)

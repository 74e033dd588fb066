"""``semgap_terms``: find glossary terms with spaCy's PhraseMatcher.

Every token is matched on its *match key*: its reading (canonical form of
spec §4.1, folded: lower case, no accents, typo-repaired) mapped to the
inflection key of the glossary word it is a form of (``MatchKeys``). The
patterns are SpanRuler-style records (``label`` = term id, ``pattern``, ``id`` =
packed match facts), tokenized through the same keying, so a pattern and a
text agree on case, accents, hyphenation and inflection, and one
PhraseMatcher pass over NORM (the matcher ``SpanRuler`` runs for phrase
patterns; its ``match`` would also build a Span per raw match and set a
warnings filter on every doc) finds every phrase,
abbreviation, translation, ambiguous abbreviation and frame part. ``text``,
``norm_``, ``lemma_`` and ``ents`` are never rewritten (``write_norm`` keeps
the keys in ``norm_`` for code that wants them there), and every span points
at tokens of the original doc.

Abbreviations and one-word phrases are keyed as written, not inflected, so
"grounded" never matches "ground crew". Word-order frames (a head such as
"crossmatch" and an outcome such as "negative", either order, a few tokens
apart, no clause break between) are paired from the frame-part matches.

Matches go to ``doc.spans["semgap_terms"]``; ``doc.ents`` is written only on
request and never overwrites an existing entity.
"""
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.attrs import NORM
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span, SpanGroup
from spacy.util import filter_spans

from ..core.findings import AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME
from ..core.term_matches import (FoundTerm, FramePair, MatchRow, beaten, dangling, final_terms, pair_frames,
                                 settled)
from .extensions import TERMS_KEY, doc_get, doc_set, doc_text, pack_span_id, set_span_values, term_facts
from ..lang.inflection import FormIndex
from .base import SemgapPipe, positive_int
from ..core.clauses import clause_rule
from ..core.textview import read_token, read_word
from ..util.caches import WordCache, WordSet
from ..util.textnorm import fold
from ..core.vocabulary import build_vocabulary, form_index_for, iter_phrases, spelling_variants

SPACED_DASH = "\u2014"
_HYPHENS = frozenset({"-", "\u2010", "\u2011", "\u2013"})
HEAD_PREFIX = "HEAD:"
OUTCOME_PREFIX = "OUTCOME:"


class MatchKeys:
    """The match key of every token, read once per norm hash; ``token.norm_`` is left alone.

    A token's key is its *reading* (``core.textview.read_word`` of spaCy's
    own norm: canonical form, folded; typo-repaired when ``semgap_repairs``
    says so) mapped to the inflection key of the glossary word it is a form
    of. Tokens that read as nothing (whitespace, format characters) have no
    key, and a token whose canonical form holds several words has several.

    Matching needs the keys as NORM of some Doc. ``prepare`` picks the
    cheapest honest one: the doc itself when every norm already is its key
    (most tokens: "xm", "cold", ","); the doc with the differing norms set
    for the match and restored right after, when each token has exactly one
    key ("hours" -> "hour"); and a light Doc of the keys alone, with a map
    back to the doc's tokens, when some token reads as nothing or as several
    words ("unreleased  lien", "n<U+200B>ot"). Either way the user's Doc
    keeps its norms (issue 13) unless ``write_norm`` asks otherwise.
    """

    # Up to this many tokens, reading ``token.norm`` one by one is cheaper
    # than ``doc.to_array``, whose fixed cost is several microseconds.
    ITERATE_MAX = 16

    def __init__(self, nlp: Language, index: FormIndex, inflection: bool = True,
                 abbreviations: Iterable[str] = (), write_norm: bool = False, cache_size: int = 100_000):
        self.nlp = nlp
        self.strings = nlp.vocab.strings
        self.index = index
        self.abbreviations = frozenset(fold(a) for a in abbreviations)
        self.inflection = inflection
        self.write_norm = write_norm
        # norms (by hash) that already are their key; the other norms seen, and their keys
        self._plain = WordSet(cache_size, promote=False)
        self._keys: Dict[int, Tuple[str, ...]] = WordCache(cache_size, promote=False)
        self._word_keys: Dict[str, str] = WordCache(cache_size)
        # the keys of a norm by its text, which keep a word that a later document of a
        # memory zone meets again past the zone (``_learn``)
        self._text_keys: Dict[str, Tuple[str, ...]] = WordCache(cache_size)
        self._dash = self.strings.add("-")
        # A trained pipeline's vocab maps some words to another spelling ("tyre" -> "tire") in the
        # norm getter, keyed by the lower-case word only, so "TYRE" keeps the norm "tyre": the
        # folded reading goes through the same getter so that every case of a word, and the
        # patterns, get one key.
        self._norm_getter = nlp.vocab.lex_attr_getters.get(NORM)

    def keys_for(self, norm: int) -> Tuple[str, ...]:
        """The keys of a norm hash; () when it reads as nothing."""
        if norm in self._plain:
            return (self.strings[norm],)
        keys = self._keys.get(norm)
        return keys if keys is not None else self._learn(norm)

    def word_key(self, folded: str) -> str:
        """The key of one folded word."""
        key = self._word_keys.get(folded)
        if key is None:
            key = self._word_keys.recall(folded)
        if key is None:
            stem, _, clitic = folded.rpartition("'")
            word = stem if clitic in ("d", "s") and stem in self.abbreviations else folded
            # "DC'd", "CTC's": the tokenizer keeps these as one token
            key = self._word_keys.put(folded, self.index.key(word) if self.inflection else word)
        return key

    def _table_norm(self, word: str) -> str:
        """The vocab's norm of a folded word, when it is another single word; else the word."""
        if self._norm_getter is None:
            return word
        norm = self._norm_getter(word)
        if not isinstance(norm, str) or norm == word:
            return word
        norm = fold(norm)
        return norm if norm and not any(c.isspace() for c in norm) else word

    def _learn(self, norm: int) -> Tuple[str, ...]:
        """A norm's keys, by its text (worked out once per text, ``_keys_of``).

        Inside a memory zone the text alone keeps them at first: that keeps a word
        that a later document of the zone meets again and drops the zone's one-off
        words when it ends. A word kept by its text is kept by its hash too.
        """
        text = self.strings[norm]
        keys, kept = self._text_keys.lasting(text, self._keys_of)
        if not kept:
            return keys  # so far one of the zone's words
        if keys == (text,):
            self._plain.keep(norm, True)
        else:
            self._keys.keep(norm, keys)
        return keys

    def _keys_of(self, text: str) -> Tuple[str, ...]:
        """Work out the keys of a norm's text."""
        reading = read_word(text)
        if not reading:
            words: List[str] = []
        elif text.isascii() and " " not in reading:
            words = [reading]
        else:
            # the canonical form may split where the written one did not ("close\uff0c")
            words = [fold(t.text) for t in self.nlp.make_doc(reading) if not t.is_space]
        return tuple(self.word_key(self._table_norm(w)) for w in words)

    def prepare(self, doc: Doc) -> Tuple[Doc, Optional[List[int]], list]:
        """The Doc to match on, its map back to ``doc``'s tokens (None: the same tokens), and
        the (token, norm) pairs to restore once matched."""
        plain = self._plain
        if len(doc) <= self.ITERATE_MAX:
            odd = [token for token in doc if token.norm not in plain]
        else:
            odd = [doc[i] for i, norm in enumerate(doc.to_array(NORM).tolist()) if norm not in plain]
        repairs = doc_get(doc, "semgap_repairs")
        repaired = {r["start_char"]: r["repaired"] for r in repairs if r.get("repaired")} if repairs else None
        text = doc_text(doc)
        dashes = "-" in text and ("- " in text or " -" in text)
        if not odd and not repaired and not dashes:
            return doc, None, []
        changed: Dict[int, Tuple[str, ...]] = {}
        single = True
        for token in odd:
            keys = self.keys_for(token.norm)
            changed[token.i] = keys
            single = single and len(keys) == 1
        for token in doc if repaired else ():
            if token.idx in repaired:
                keys = tuple(self.word_key(w) for w in repaired[token.idx].split())
                changed[token.i] = keys
                single = single and len(keys) == 1
        if dashes:
            self._key_spaced_dashes(doc, changed)
        if single:
            restore = []
            for i, keys in changed.items():
                token = doc[i]
                if self.strings[token.norm] != keys[0]:
                    restore.append((token, token.norm_))
                    token.norm_ = keys[0]
            return doc, None, ([] if self.write_norm else restore)
        words: List[str] = []
        spaces: List[bool] = []
        back: List[int] = []
        strings = self.strings
        for token in doc:
            keys = changed.get(token.i)
            if keys is None:
                keys = (strings[token.norm],)
            for key in keys:
                words.append(key)
                spaces.append(True)
                back.append(token.i)
        return Doc(self.nlp.vocab, words=words, spaces=spaces), back, []

    @staticmethod
    def restore(pairs: list) -> None:
        for token, norm in pairs:
            token.norm_ = norm

    def _key_spaced_dashes(self, doc: Doc, changed: Dict[int, Tuple[str, ...]]) -> None:
        """"clear-to-close" joins words; "crossmatch - negative" separates
        clauses. A spaced hyphen is keyed as a dash so no phrase spans it.
        (Only texts with a space beside a hyphen can hold one.)"""
        dash = self._dash
        for token in doc:
            if token.orth == dash and (token.whitespace_ or (token.i and doc[token.i - 1].whitespace_)):
                changed[token.i] = (SPACED_DASH,)


class _KeyTokenizer:
    """The user's tokenizer followed by match keys: how patterns are read."""

    def __init__(self, nlp: Language, keys: MatchKeys):
        self.nlp = nlp
        self.keys = keys

    def __call__(self, text: str) -> Doc:
        # the pattern Doc is ours: its norms stay keyed
        return self.keys.prepare(self.nlp.make_doc(text))[0]


def suspicious_records(doc: Doc) -> Optional[list]:
    """Tokens whose letters mix scripts ("A<Cyrillic о>G"), as plain records, or None.

    They are matched on their Latin skeleton like any other reading, and the
    decision escalates on them (``suspicious_characters``), naming each character.
    """
    text = doc_text(doc)
    if text.isascii():
        return None
    out = []
    for token in doc:
        if token.text.isascii():
            continue
        found = read_token(token.text).suspicious
        if found:
            out.append({"start_char": token.idx, "end_char": token.idx + len(token.text),
                        "evidence": token.text,
                        "characters": [{"char": c.char, "code_point": c.code_point, "name": c.name,
                                        "script": c.script} for c in found]})
    return out or None


class Terms(SemgapPipe):
    """Match glossary phrases, abbreviations, translations and frames."""

    FACTORY = "semgap_terms"

    def __init__(self, nlp: Language, name: str = "semgap_terms", *, enabled: bool = True,
                 spans_key: str = TERMS_KEY, annotate_ents: bool = False, inflection: bool = True,
                 frames: bool = True, cross_domain: bool = True, ambiguity: bool = True,
                 write_norm: bool = False, cache_size: int = 100_000):
        self.spans_key = spans_key
        self.cache_size = positive_int(name, "cache_size", cache_size)
        self.write_norm = write_norm
        self.annotate_ents = annotate_ents
        self.inflection = inflection
        self.frames = frames
        self.cross_domain = cross_domain
        self.ambiguity = ambiguity
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(spans_key=spans_key, annotate_ents=annotate_ents, inflection=inflection,
                        frames=frames, cross_domain=cross_domain, ambiguity=ambiguity, write_norm=write_norm)
        self.build()

    # -- building --------------------------------------------------------
    def _rebuild(self) -> None:
        vocab = build_vocabulary(self.glossary, self.nlp.tokenizer)
        abbreviations = [a for _, t in self.glossary.terms() for a in t.abbreviations if " " not in a]
        abbreviations += [amb.abbreviation for dom in self.glossary.domains.values() for amb in dom.ambiguous]
        self.keys = MatchKeys(self.nlp, form_index_for(vocab), self.inflection, abbreviations,
                              write_norm=self.write_norm, cache_size=self.cache_size)
        keyed = _KeyTokenizer(self.nlp, self.keys)
        self.patterns, self.frame_specs = self._patterns()
        self.matcher = PhraseMatcher(self.nlp.vocab, attr="NORM")
        by_key: Dict[str, List[str]] = {}
        for pattern in self.patterns:
            by_key.setdefault(repr((pattern["label"], pattern["id"])), []).append(pattern["pattern"])
        for key, texts in by_key.items():
            self.matcher.add(key, [keyed(text) for text in texts])
        self._table = self._match_table()
        self._clauses = clause_rule()
        self._span_facts: Dict[str, dict] = {}

    def _patterns(self):
        patterns: List[dict] = []
        for domain, text, term, lang, status, kind, signal in iter_phrases(self.glossary):
            patterns.append({"label": term.id, "pattern": text,
                             "id": pack_span_id(domain, signal, lang, status, kind, term.field)})
        frame_specs: Dict[str, dict] = {}
        for domain, dom in self.glossary.domains.items():
            for amb in dom.ambiguous:
                patterns.append({"label": f"AMBIGUOUS:{amb.abbreviation}", "pattern": amb.abbreviation,
                                 "id": pack_span_id(domain, AMBIGUOUS, "en", "approved", "abbreviation")})
            for frame in dom.frames:
                frame_specs[frame.id] = {"window": frame.window}
                for head in frame.heads:
                    for variant in spelling_variants(head, dom.compounds):
                        patterns.append({"label": HEAD_PREFIX + frame.id, "pattern": variant,
                                         "id": pack_span_id(domain, DANGLING_HEAD, "en", "approved", "frame")})
                for term_id, values in frame.values.items():
                    term = self.glossary.term(term_id)[1]
                    value_id = pack_span_id(domain, term.signal, "en", term.status, "frame", term.field)
                    for value in values:
                        for variant in spelling_variants(value, {}):
                            patterns.append({"label": f"{OUTCOME_PREFIX}{frame.id}:{term_id}",
                                             "pattern": variant, "id": value_id})
        return patterns, frame_specs

    def _match_table(self) -> Dict[Tuple[int, int], "MatchRow"]:
        """Everything the hot path needs about a match, by its (label, id) hashes, computed once."""
        strings = self.nlp.vocab.strings
        table = {}
        for pattern in self.patterns:
            label, span_id = pattern["label"], pattern.get("id", "")
            key = strings.add(repr((label, span_id)))
            if key in table:
                continue
            facts = term_facts(span_id)
            part, frame_id, term_id = 0, "", label
            if label.startswith(HEAD_PREFIX):
                part, frame_id = 1, label[len(HEAD_PREFIX):]
            elif label.startswith(OUTCOME_PREFIX):
                part = 2
                frame_id, _, term_id = label[len(OUTCOME_PREFIX):].rpartition(":")
            dropped = not self.ambiguity and facts.signal == AMBIGUOUS
            window = self.frame_specs[frame_id]["window"] if part == 1 else 0
            table[key] = MatchRow(label, span_id, part, facts.domain, dropped, frame_id, window,
                              term=_term(strings, label, span_id, _preference(span_id)),
                              frame_term=_term(strings, term_id, span_id, _preference(span_id)),
                              dangling=self._dangling_term(part, label, span_id, frame_id, facts.domain),
                              order=(strings.add(label), strings.add(span_id)))
        return table

    def _dangling_term(self, part: int, label: str, span_id: str, frame_id: str, domain: str) -> "FoundTerm":
        """What a frame part reports on its own."""
        if part == 2:
            label = OUTCOME_PREFIX + frame_id
            span_id = pack_span_id(domain, DANGLING_OUTCOME, "en", "approved", "frame")
        return _term(self.nlp.vocab.strings, label, span_id, (0, 0))

    # -- running ---------------------------------------------------------
    def find(self, doc: Doc, norms: Optional[List[int]] = None) -> List[Span]:
        """Term spans of a doc, matched on its tokens' readings (``MatchKeys``).

        doc (Doc): The document.
        norms: Unused; kept for callers of the earlier signature.
        RETURNS (List[Span]): Spans over ``doc``, sorted, duplicates removed.
        """
        return [Span(doc, start, end, label=term.label_hash, span_id=term.id_hash)
                for start, end, term in self._terms(doc)[0]]

    def _terms(self, doc: Doc) -> Tuple[List[tuple], Dict[Tuple[int, int], Tuple[int, int]]]:
        """The doc's terms as (start, end, FoundTerm) over ``doc``'s tokens, final
        (sorted, deduplicated): Spans are built for these only, never for raw matches;
        and the gap (the words between head and outcome) of each frame pair that has one,
        by the pair's (start, end).
        """
        table = self._table
        terms: List[tuple] = []
        parts: List[tuple] = []
        domain = doc_get(doc, "semgap_domain") if not self.cross_domain else None
        target, back, restore = self.keys.prepare(doc)
        try:
            matches = sorted({(start, end, match_id) for match_id, start, end in self.matcher(target)
                              if start != end}, key=lambda m: (m[0], m[1], table[m[2]].order))
        finally:
            if restore:
                MatchKeys.restore(restore)
        for start, end, match_id in matches:
            row = table[match_id]
            if row.part:
                parts.append((start, end, row))
            elif not row.dropped and not (domain and row.domain != domain):
                terms.append((start, end, row.term))
        gaps: Dict[Tuple[int, int], Tuple[int, int]] = {}
        if self.frames and parts:
            frames = self._pair_frames(doc, parts, back)
            if domain:
                frames = [f for f in frames if term_facts(f.term.span_id).domain == domain]
            for pair in frames:
                if not beaten(pair[:3], terms):
                    terms.append(pair[:3])
                    if pair.gap_start < pair.gap_end:
                        gaps[(pair.start, pair.end)] = (pair.gap_start, pair.gap_end)
            terms += dangling(parts, terms)
        if back is not None:
            terms = [(back[start], back[end - 1] + 1, term) for start, end, term in terms]
            gaps = {(back[s], back[e - 1] + 1): (back[gs], back[ge - 1] + 1) for (s, e), (gs, ge) in gaps.items()}
        if len(terms) > 1 and not settled(terms):
            return final_terms(terms), gaps
        return terms, gaps

    def _pair_frames(self, doc: Doc, parts: List[tuple], back: Optional[List[int]]) -> List[FramePair]:
        """Frame terms (``core.term_matches.pair_frames``); positions are those of the
        matched keys, and ``back`` maps them to ``doc``'s tokens for the clause check."""
        def blocked(gap_start: int, gap_end: int) -> bool:
            if back is not None:
                gap_start, gap_end = back[gap_start], back[gap_end - 1] + 1
            return self._clause_break(doc, gap_start, gap_end)

        return pair_frames(parts, blocked)

    def _clause_break(self, doc: Doc, start: int, end: int) -> bool:
        """Whether the tokens [start, end) between a head and an outcome keep them apart: a clause
        break, or a hyphen, which makes the outcome part of another word ("is non-reactive" holds no
        outcome "reactive")."""
        if any(doc[i].text in _HYPHENS for i in range(start, end)):
            return True
        return self._clauses.break_between(doc_text(doc), doc[start].idx, doc[end - 1].idx + len(doc[end - 1]))

    def process(self, doc: Doc) -> Doc:
        doc_set(doc, "semgap_suspicious", suspicious_records(doc))
        terms, gaps = self._terms(doc)
        spans = [Span(doc, start, end, label=term.label_hash, span_id=term.id_hash) for start, end, term in terms]
        frame_gaps = {}
        for span in spans:
            gap = gaps.get((span.start, span.end)) if gaps and term_facts(span.id_).kind == "frame" else None
            offsets = (span.start_char, span.end_char)
            if gap is not None:
                frame_gaps[offsets] = [doc[gap[0]].idx, doc[gap[1] - 1].idx + len(doc[gap[1] - 1])]
            else:
                frame_gaps.setdefault(offsets, None)
        for (start_char, end_char), gap_chars in frame_gaps.items():
            set_span_values(doc, start_char, end_char, {"semgap_frame_gap": gap_chars})
        # A SpanGroup given ready skips the proxy's own conversion.
        doc.spans[self.spans_key] = SpanGroup(doc, name=self.spans_key, spans=spans)
        if self.annotate_ents:
            self._add_ents(doc, spans)
        return doc

    def _add_ents(self, doc: Doc, spans: Sequence[Span]) -> None:
        """Add terms to ``doc.ents`` where no entity is already."""
        taken = set()
        for ent in doc.ents:
            taken.update(range(ent.start, ent.end))
        glossary_terms = [s for s in spans if term_facts(s.id_).signal in ("clear", "critical_block", "field")]
        free = [s for s in filter_spans(glossary_terms) if not taken.intersection(range(s.start, s.end))]
        if free:
            doc.ents = list(doc.ents) + [Span(doc, s.start, s.end, label=s.label_) for s in free]


def _term(strings, label: str, span_id: str, preference: tuple) -> FoundTerm:
    return FoundTerm(label, span_id, preference, strings.add(label), strings.add(span_id))


_KIND_ORDER = {"phrase": 0, "abbreviation": 1, "translation": 2, "frame": 3}


def _preference(span_id: str) -> Tuple[int, int]:
    """Among matches of one term on the same tokens, report an approved English phrase first."""
    facts = term_facts(span_id)
    return (facts.status != "approved", _KIND_ORDER.get(facts.kind, 9))


@Language.factory(
    "semgap_terms",
    default_config={"enabled": True, "spans_key": TERMS_KEY, "annotate_ents": False, "inflection": True,
                     "frames": True, "cross_domain": True, "ambiguity": True, "write_norm": False,
                     "cache_size": 100_000},
    requires=["doc._.semgap_repairs"],
    assigns=["doc.spans", "doc._.semgap_suspicious", "span._.semgap_term_id", "span._.semgap_signal",
             "doc._.semgap_pipeline"],
)
def make_terms(nlp: Language, name: str, enabled: bool, spans_key: str, annotate_ents: bool,
               inflection: bool, frames: bool, cross_domain: bool, ambiguity: bool,
               write_norm: bool = False, cache_size: int = 100_000) -> Terms:
    """Build the glossary term matcher.

    enabled (bool): Off writes no spans. Defaults to True.
    spans_key (str): Span group to write. Defaults to "semgap_terms".
    annotate_ents (bool): Also add terms to ``doc.ents`` where free. Defaults to False.
    inflection (bool): Match inflected forms of multi-word phrases. Defaults to True.
    frames (bool): Match head/outcome word-order frames. Defaults to True.
    cross_domain (bool): Match terms of every domain, not only the case's. Defaults to True.
    ambiguity (bool): Mark declared ambiguous abbreviations. Defaults to True.
    write_norm (bool): Also leave the match keys in ``token.norm_`` (the old
        behaviour, for code that read them there). Off by default: the user's
        norms are the user's. Defaults to False.
    cache_size (int): Words whose match keys are remembered, per cache; a full
        cache starts again empty. Defaults to 100000.
    RETURNS (Terms): The component.
    """
    return Terms(nlp, name, enabled=enabled, spans_key=spans_key, annotate_ents=annotate_ents,
                 inflection=inflection, frames=frames, cross_domain=cross_domain, ambiguity=ambiguity,
                 write_norm=write_norm, cache_size=cache_size)

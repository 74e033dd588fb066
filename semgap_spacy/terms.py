"""``semgap_terms``: find glossary terms with spaCy's SpanRuler.

Before matching, every token's ``norm_`` is set to its *match key*: the
folded form (lower case, no accents, typo-repaired) mapped to the inflection
key of the glossary word it is a form of. Phrase patterns go through the same
keying inside the ruler (``SpanRuler`` tokenizes patterns with the Language it
is given), so a pattern and a text agree on case, accents, hyphenation and
inflection, and one PhraseMatcher pass over NORM finds every phrase,
abbreviation, translation, ambiguous abbreviation and frame part. ``norm_`` is
spaCy's documented place for a normalized form; ``text``, ``lemma_`` and
``ents`` are never rewritten, and a token's norm changes only when it is a
form of a glossary word.

Abbreviations and one-word phrases are keyed as written, not inflected, so
"grounded" never matches "ground crew". Word-order frames (a head such as
"crossmatch" and an outcome such as "negative", either order, a few tokens
apart, no clause break between) are paired from the frame-part matches.

Matches go to ``doc.spans["semgap_terms"]``; ``doc.ents`` is written only on
request and never overwrites an existing entity.
"""
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from spacy.attrs import NORM
from spacy.language import Language
from spacy.pipeline import SpanRuler
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from ._extensions import (AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME, TERMS_KEY, doc_get, doc_text, pack_span_id,
                          unpack_span_id)
from .inflection import FormIndex
from .pipe_base import SemgapPipe
from .textnorm import fold
from .vocabulary import build_vocabulary, form_index_for, iter_phrases, spelling_variants

# Tokens that end a clause: a frame's head and outcome never reach across them.
CLAUSE_BREAKS = (",", ";", ".", "!", "?", "-", "\u2013", "\u2014", "but", "pero", "mais", "aber")
SPACED_DASH = "\u2014"
HEAD_PREFIX = "HEAD:"
OUTCOME_PREFIX = "OUTCOME:"


class MatchKeys:
    """Write match keys into ``token.norm_``; cached per norm hash."""

    CACHE_LIMIT = 100_000

    def __init__(self, nlp: Language, index: FormIndex, inflection: bool = True,
                 abbreviations: Iterable[str] = ()):
        self.strings = nlp.vocab.strings
        self.index = index
        self.abbreviations = frozenset(fold(a) for a in abbreviations)
        self.inflection = inflection
        self._cache: Dict[int, str] = {}

    def key_for(self, norm: int) -> str:
        """The key for a norm hash, or "" when the norm already is its key."""
        hit = self._cache.get(norm)
        if hit is None:
            text = self.strings[norm]
            folded = fold(text)
            stem, _, clitic = folded.rpartition("'")
            if clitic in ("d", "s") and stem in self.abbreviations:
                folded = stem  # "DC'd", "CTC's": the tokenizer keeps these as one token
            key = self.index.key(folded) if self.inflection else folded
            hit = "" if key == text else key
            if len(self._cache) >= self.CACHE_LIMIT:
                self._cache.clear()
            self._cache[norm] = hit
        return hit

    def apply(self, doc: Doc) -> Doc:
        self.apply_keys(doc)
        return doc

    def apply_keys(self, doc: Doc) -> List[int]:
        """Write the keys; RETURNS the norm hash of every token afterwards."""
        norms = doc.to_array(NORM).tolist()
        strings = self.strings
        for i, norm in enumerate(norms):
            key = self.key_for(norm)
            if key:
                doc[i].norm_ = key
                norms[i] = strings[key]
        if "-" in doc_text(doc):
            # "clear-to-close" joins words; "crossmatch - negative" separates
            # clauses. A spaced hyphen is keyed as a dash so no phrase spans it.
            for token in doc:
                if token.text == "-" and (token.whitespace_ or (token.i and doc[token.i - 1].whitespace_)):
                    token.norm_ = SPACED_DASH
                    norms[token.i] = strings[SPACED_DASH]
        return norms


class _KeyTokenizer:
    """The user's tokenizer followed by match keys: how patterns are read."""

    def __init__(self, nlp: Language, keys: MatchKeys):
        self.nlp = nlp
        self.keys = keys

    def __call__(self, text: str) -> Doc:
        return self.keys.apply(self.nlp.make_doc(text))


class GlossaryTerms(SemgapPipe):
    """Match glossary phrases, abbreviations, translations and frames."""

    def __init__(self, nlp: Language, name: str = "semgap_terms", *, enabled: bool = True,
                 spans_key: str = TERMS_KEY, annotate_ents: bool = False, inflection: bool = True,
                 frames: bool = True, cross_domain: bool = True, ambiguity: bool = True):
        self.spans_key = spans_key
        self.annotate_ents = annotate_ents
        self.inflection = inflection
        self.frames = frames
        self.cross_domain = cross_domain
        self.ambiguity = ambiguity
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(spans_key=spans_key, annotate_ents=annotate_ents, inflection=inflection,
                        frames=frames, cross_domain=cross_domain, ambiguity=ambiguity)
        self._rebuild()

    # -- building --------------------------------------------------------
    def _rebuild(self) -> None:
        vocab = build_vocabulary(self.glossary, self.nlp.tokenizer)
        abbreviations = [a for _, t in self.glossary.terms() for a in t.abbreviations if " " not in a]
        abbreviations += [amb.abbreviation for dom in self.glossary.domains.values() for amb in dom.ambiguous]
        self.keys = MatchKeys(self.nlp, form_index_for(vocab), self.inflection, abbreviations)
        keyed = Language(vocab=self.nlp.vocab)
        keyed.tokenizer = _KeyTokenizer(self.nlp, self.keys)
        self.ruler = SpanRuler(keyed, f"{self.name}_ruler", spans_key=None, phrase_matcher_attr="NORM",
                               validate=False)
        patterns, self.frame_specs = self._patterns()
        self.ruler.add_patterns(patterns)
        self._table = self._match_table()
        self.break_norms = {self.nlp.vocab.strings.add(b) for b in CLAUSE_BREAKS}
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

    def _match_table(self) -> Dict[int, tuple]:
        """Everything the hot path needs about a match id, computed once.

        The ruler keys each pattern's match id on (label, id); reading the
        PhraseMatcher's tuples through this table avoids building a Span per
        raw match. Rows: (label, span id, part, domain, dropped, preference,
        frame id, term id), where part is 0 for a term, 1 for a frame head
        and 2 for a frame outcome.
        """
        table = {}
        for key, value in self.ruler._match_label_id_map.items():
            label, span_id = value["label"], value["id"]
            facts = unpack_span_id(span_id)
            part, frame_id, term_id = 0, "", label
            if label.startswith(HEAD_PREFIX):
                part, frame_id = 1, label[len(HEAD_PREFIX):]
            elif label.startswith(OUTCOME_PREFIX):
                part = 2
                frame_id, _, term_id = label[len(OUTCOME_PREFIX):].rpartition(":")
            dropped = not self.ambiguity and facts["signal"] == AMBIGUOUS
            table[key] = (label, span_id, part, facts["domain"], dropped, _preference(span_id), frame_id, term_id)
        return table

    # -- running ---------------------------------------------------------
    def find(self, doc: Doc, norms: Optional[List[int]] = None) -> List[Span]:
        """Term spans of a doc (match keys must already be in ``norm_``).

        doc (Doc): The document.
        norms (Optional[List[int]]): The tokens' norm hashes, when the caller has them.
        RETURNS (List[Span]): Spans over ``doc``, sorted, duplicates removed.
        """
        table = self._table
        terms: List[tuple] = []
        parts: List[tuple] = []
        domain = doc_get(doc, "semgap_domain") if not self.cross_domain else None
        for match_id, start, end in self.ruler.phrase_matcher(doc):
            row = table[match_id]
            if row[2]:
                parts.append((start, end, row))
            elif not row[4] and not (domain and row[3] != domain):
                terms.append((start, end, row[0], row[1], row[5]))
        if self.frames and parts:
            frames = self._pair_frames(doc, parts, norms)
            if domain:
                frames = [f for f in frames if unpack_span_id(f[3])["domain"] == domain]
            terms = _drop_contained_same_term(terms + frames)
            terms += _dangling(parts, terms)
        elif len(terms) > 1:
            terms = _drop_contained_same_term(terms)
        if len(terms) > 1:
            terms.sort(key=lambda t: (t[0], -t[1], t[2], t[4]))
        seen: Set[Tuple[int, int, str]] = set()
        spans = []
        for start, end, label, span_id, _ in terms:
            if (start, end, label) not in seen:
                seen.add((start, end, label))
                spans.append(Span(doc, start, end, label=label, span_id=span_id))
        return spans

    def _pair_frames(self, doc: Doc, parts: List[tuple], norms: Optional[List[int]]) -> List[tuple]:
        heads = [p for p in parts if p[2][2] == 1]
        outcomes = [p for p in parts if p[2][2] == 2]
        if not heads or not outcomes:
            return []
        if norms is None:
            norms = doc.to_array(NORM).tolist()
        breaks = {i for i, n in enumerate(norms) if n in self.break_norms}
        if "\n" in doc_text(doc):
            breaks.update(t.i for t in doc if "\n" in t.text)
        found = []
        for h_start, h_end, head in heads:
            window = self.frame_specs[head[6]]["window"]
            for o_start, o_end, outcome in outcomes:
                if outcome[6] != head[6]:
                    continue
                (l_start, l_end), (r_start, r_end) = sorted(((h_start, h_end), (o_start, o_end)))
                if r_start < l_end:
                    continue  # overlapping: not a head/outcome pair
                gap = range(l_end, r_start)
                if len(gap) <= window and not breaks.intersection(gap):
                    found.append((l_start, r_end, outcome[7], outcome[1], outcome[5]))
        return found

    def process(self, doc: Doc) -> Doc:
        spans = self.find(doc, self.keys.apply_keys(doc))
        doc.spans[self.spans_key] = spans
        if self.annotate_ents:
            self._add_ents(doc, spans)
        return doc

    def _add_ents(self, doc: Doc, spans: Sequence[Span]) -> None:
        """Add terms to ``doc.ents`` where no entity is already."""
        taken = set()
        for ent in doc.ents:
            taken.update(range(ent.start, ent.end))
        glossary_terms = [s for s in spans if unpack_span_id(s.id_)["signal"] in ("clear", "critical_block", "field")]
        free = [s for s in filter_spans(glossary_terms) if not taken.intersection(range(s.start, s.end))]
        if free:
            doc.ents = list(doc.ents) + [Span(doc, s.start, s.end, label=s.label_) for s in free]


_KIND_ORDER = {"phrase": 0, "abbreviation": 1, "translation": 2, "frame": 3}


def _preference(span_id: str) -> Tuple[int, int]:
    """Among matches of one term on the same tokens, report an approved English phrase first."""
    facts = unpack_span_id(span_id)
    return (facts["status"] != "approved", _KIND_ORDER.get(facts["kind"], 9))


def _drop_contained_same_term(spans: List[tuple]) -> List[tuple]:
    """Keep "cold ischemia time" and drop "cold ischemia" inside it (same term)."""
    if len(spans) < 2:
        return spans
    return [s for s in spans if not any(
        o[2] == s[2] and o[0] <= s[0] and s[1] <= o[1] and (o[1] - o[0]) > (s[1] - s[0]) for o in spans)]


def _dangling(parts: Iterable[tuple], terms: List[tuple]) -> List[tuple]:
    """Frame heads and outcome words that no term span covers (longest first)."""
    out = []
    taken: Set[int] = set()
    for start, end, row in sorted(parts, key=lambda p: (p[0] - p[1], p[0])):
        if any(t[0] < end and start < t[1] for t in terms) or taken.intersection(range(start, end)):
            continue
        taken.update(range(start, end))
        label, span_id = row[0], row[1]
        if row[2] == 2:
            label = OUTCOME_PREFIX + row[6]
            span_id = pack_span_id(row[3], DANGLING_OUTCOME, "en", "approved", "frame")
        out.append((start, end, label, span_id, (0, 0)))
    return out


@Language.factory(
    "semgap_terms",
    default_config={"enabled": True, "spans_key": TERMS_KEY, "annotate_ents": False, "inflection": True,
                    "frames": True, "cross_domain": True, "ambiguity": True},
    requires=["token.norm"],
    assigns=["doc.spans", "span._.semgap_term_id", "span._.semgap_signal"],
)
def make_terms(nlp: Language, name: str, enabled: bool, spans_key: str, annotate_ents: bool,
               inflection: bool, frames: bool, cross_domain: bool, ambiguity: bool) -> GlossaryTerms:
    """Build the glossary term matcher.

    enabled (bool): Off writes no spans. Defaults to True.
    spans_key (str): Span group to write. Defaults to "semgap_terms".
    annotate_ents (bool): Also add terms to ``doc.ents`` where free. Defaults to False.
    inflection (bool): Match inflected forms of multi-word phrases. Defaults to True.
    frames (bool): Match head/outcome word-order frames. Defaults to True.
    cross_domain (bool): Match terms of every domain, not only the case's. Defaults to True.
    ambiguity (bool): Mark declared ambiguous abbreviations. Defaults to True.
    RETURNS (GlossaryTerms): The component.
    """
    return GlossaryTerms(nlp, name, enabled=enabled, spans_key=spans_key, annotate_ents=annotate_ents,
                         inflection=inflection, frames=frames, cross_domain=cross_domain, ambiguity=ambiguity)

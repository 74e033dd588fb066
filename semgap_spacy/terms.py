"""``semgap_terms``: find glossary terms with spaCy's SpanRuler.

The rulers do not run on the user's Doc but on a *key view* of it: a Doc
with the same tokens whose ORTH is the folded (lower-case, accent-free,
typo-repaired) form and whose LEMMA is the inflection key of that form. Phrase
patterns go through the same key tokenizer, so a pattern and a text agree on
case, accents, hyphenation and inflection without the user's ``norm_``,
``lemma_`` or ``ents`` ever being rewritten. Token positions are identical in
both views, so matches map back one to one.

Two rulers share the key view: an *exact* one (ORTH) for abbreviations and
one-word phrases, where inflection would make "grounded" match "ground crew";
and an *inflected* one (LEMMA) for multi-word phrases and word-order frames.

Matches go to ``doc.spans["semgap_terms"]``; ``doc.ents`` is written only on
request and never overwrites an existing entity.
"""
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from spacy.language import Language
from spacy.pipeline import SpanRuler
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from ._extensions import (AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME, TERMS_KEY, pack_span_id,
                          unpack_span_id)
from .inflection import FormIndex
from .pipe_base import SemgapPipe
from .textnorm import fold
from .vocabulary import build_vocabulary, form_index_for, iter_phrases, spelling_variants

# Tokens that end a clause: a frame's head and outcome never reach across them.
CLAUSE_BREAKS = [",", ";", ".", "!", "?", "-", "\u2013", "\u2014", "but", "pero", "mais", "aber", "\n"]


class KeyTokenizer:
    """Tokenize like the user's pipeline, then build the key view."""

    FOLD_CACHE_LIMIT = 100_000

    def __init__(self, nlp: Language, index: FormIndex, inflection: bool = True):
        self.nlp = nlp
        self.vocab = nlp.vocab
        self.index = index
        self.inflection = inflection
        self._folds: Dict[str, str] = {}

    def fold(self, text: str) -> str:
        hit = self._folds.get(text)
        if hit is None:
            if len(self._folds) >= self.FOLD_CACHE_LIMIT:
                self._folds.clear()
            hit = self._folds[text] = fold(text)
        return hit

    def key_view(self, doc: Doc) -> Doc:
        """The key view of a doc; repaired tokens contribute their repaired form."""
        words, lemmas, spaces = [], [], []
        for token in doc:
            surface = token.norm_ if token._.semgap_original is not None else token.text
            folded = self.fold(surface) or "_"
            words.append(folded)
            lemmas.append(self.index.key(folded) if self.inflection else folded)
            spaces.append(bool(token.whitespace_))
        return Doc(self.vocab, words=words, spaces=spaces, lemmas=lemmas)

    def __call__(self, text: str) -> Doc:
        return self.key_view(self.nlp.make_doc(text))


def _key_language(nlp: Language, tokenizer: KeyTokenizer) -> Language:
    """A pipeline-less Language whose tokenizer produces key views."""
    keyed = Language(vocab=nlp.vocab)
    keyed.tokenizer = tokenizer
    return keyed


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
        self.keyer = KeyTokenizer(self.nlp, form_index_for(vocab), self.inflection)
        keyed = _key_language(self.nlp, self.keyer)
        self.exact = SpanRuler(keyed, f"{self.name}_exact", spans_key=None, validate=False)
        self.inflected = SpanRuler(keyed, f"{self.name}_inflected", spans_key=None,
                                   phrase_matcher_attr="LEMMA", validate=False)
        self.parts = SpanRuler(keyed, f"{self.name}_frame_parts", spans_key=None,
                               phrase_matcher_attr="LEMMA", validate=False)
        exact, inflected, parts = self._patterns(keyed)
        self.exact.add_patterns(exact)
        self.inflected.add_patterns(inflected)
        self.parts.add_patterns(parts)
        self.pattern_count = len(exact) + len(inflected) + len(parts)

    def _patterns(self, keyed: Language):
        exact: List[dict] = []
        inflected: List[dict] = []
        parts: List[dict] = []
        for domain, text, term, lang, status, kind, signal in iter_phrases(self.glossary):
            entry = {"label": term.id, "pattern": text,
                     "id": pack_span_id(domain, signal, lang, status, kind, term.field)}
            n_tokens = len(keyed.tokenizer(text))
            (exact if kind == "abbreviation" or n_tokens == 1 else inflected).append(entry)
        for domain, dom in self.glossary.domains.items():
            for amb in dom.ambiguous:
                exact.append({"label": f"AMBIGUOUS:{amb.abbreviation}", "pattern": amb.abbreviation,
                              "id": pack_span_id(domain, AMBIGUOUS, "en", "approved", "abbreviation")})
            for frame in dom.frames:
                heads = [self._token_keys(keyed, v) for h in frame.heads
                         for v in spelling_variants(h, dom.compounds)]
                heads = [h for i, h in enumerate(heads) if h not in heads[:i]]
                gap = {"LEMMA": {"NOT_IN": CLAUSE_BREAKS}, "IS_SPACE": False,
                       "OP": f"{{0,{frame.window}}}"}
                for h in frame.heads:
                    for v in spelling_variants(h, dom.compounds):
                        parts.append({"label": f"HEAD:{frame.id}", "pattern": v,
                                      "id": pack_span_id(domain, DANGLING_HEAD, "en", "approved", "frame")})
                for term_id, values in frame.values.items():
                    term = self.glossary.term(term_id)[1]
                    span_id = pack_span_id(domain, term.signal, "en", term.status, "frame", term.field)
                    value_variants = [v2 for v in values for v2 in spelling_variants(v, {})]
                    for value in value_variants:
                        parts.append({"label": f"OUTCOME:{frame.id}", "pattern": value,
                                      "id": pack_span_id(domain, DANGLING_OUTCOME, "en", "approved", "frame")})
                        vkeys = self._token_keys(keyed, value)
                        for hkeys in heads:
                            head_pat = [{"LEMMA": k} for k in hkeys]
                            value_pat = [{"LEMMA": k} for k in vkeys]
                            for pattern in (head_pat + [gap] + value_pat, value_pat + [gap] + head_pat):
                                inflected.append({"label": term_id, "pattern": pattern, "id": span_id})
        return exact, inflected, parts

    @staticmethod
    def _token_keys(keyed: Language, text: str) -> List[str]:
        return [t.lemma_ for t in keyed.tokenizer(text)]

    # -- running ---------------------------------------------------------
    def find(self, doc: Doc) -> List[Span]:
        """Term spans of a doc, without writing them anywhere.

        doc (Doc): The document (typo repair may already have run).
        RETURNS (List[Span]): Spans over ``doc``, sorted, duplicates removed.
        """
        view = self.keyer.key_view(doc)
        matches = list(self.exact.match(view)) + list(self.inflected.match(view))
        if not self.frames:
            matches = [m for m in matches if unpack_span_id(m.id_)["kind"] != "frame"]
        if not self.ambiguity:
            matches = [m for m in matches if unpack_span_id(m.id_)["signal"] != AMBIGUOUS]
        domain = doc._.semgap_domain
        if not self.cross_domain and domain:
            matches = [m for m in matches if unpack_span_id(m.id_)["domain"] == domain]
        matches = _drop_contained_same_term(matches)
        if self.frames:
            matches += _dangling(self.parts.match(view), matches)
        seen: Set[Tuple[int, int, str]] = set()
        spans = []
        for m in sorted(matches, key=lambda s: (s.start, -s.end, s.label_, _preference(s))):
            k = (m.start, m.end, m.label_)
            if k not in seen:
                seen.add(k)
                spans.append(Span(doc, m.start, m.end, label=m.label_, span_id=m.id_))
        return spans

    def process(self, doc: Doc) -> Doc:
        spans = self.find(doc)
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


def _preference(span: Span) -> Tuple[int, int]:
    """Among matches of one term on the same tokens, report an approved English phrase first."""
    facts = unpack_span_id(span.id_)
    return (facts["status"] != "approved", _KIND_ORDER.get(facts["kind"], 9))


def _drop_contained_same_term(spans: List[Span]) -> List[Span]:
    """Keep "cold ischemia time" and drop "cold ischemia" inside it (same term)."""
    kept = []
    for s in spans:
        inside = any(o is not s and o.label_ == s.label_ and o.start <= s.start and s.end <= o.end
                     and (o.end - o.start) > (s.end - s.start) for o in spans)
        if not inside:
            kept.append(s)
    return kept


def _dangling(parts: Iterable[Span], terms: List[Span]) -> List[Span]:
    """Frame heads and outcome words that no term span covers."""
    out = []
    for part in parts:
        covered = any(t.start < part.end and part.start < t.end for t in terms)
        if not covered:
            out.append(part)
    return filter_spans(out)


@Language.factory(
    "semgap_terms",
    default_config={"enabled": True, "spans_key": TERMS_KEY, "annotate_ents": False, "inflection": True,
                    "frames": True, "cross_domain": True, "ambiguity": True},
    requires=["token.norm"],
    assigns=[f"doc.spans", "span._.semgap_term_id", "span._.semgap_signal"],
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

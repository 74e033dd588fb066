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
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple

from spacy.attrs import NORM
from spacy.language import Language
from spacy.pipeline import SpanRuler
from spacy.tokens import Doc, Span, SpanGroup
from spacy.util import filter_spans

from ..core.findings import AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME
from .extensions import TERMS_KEY, doc_get, doc_text, pack_span_id, term_facts
from ..lang.inflection import FormIndex
from .base import SemgapPipe
from ..core.clauses import clause_rule
from ..util.textnorm import fold
from ..core.vocabulary import build_vocabulary, form_index_for, iter_phrases, spelling_variants

SPACED_DASH = "\u2014"
_HYPHENS = frozenset({"-", "\u2010", "\u2011", "\u2013"})
HEAD_PREFIX = "HEAD:"
OUTCOME_PREFIX = "OUTCOME:"


class MatchKeys:
    """Write match keys into ``token.norm_``; learned once per norm hash.

    Most tokens already hold their key ("xm", "cold", ","), so the per-doc
    work is a set lookup per token plus a write for the few that differ
    ("hours" -> "hour", "Released" -> "release").
    """

    CACHE_LIMIT = 100_000
    # Up to this many tokens, reading ``token.norm`` one by one is cheaper
    # than ``doc.to_array``, whose fixed cost is several microseconds.
    ITERATE_MAX = 16

    def __init__(self, nlp: Language, index: FormIndex, inflection: bool = True,
                 abbreviations: Iterable[str] = ()):
        self.strings = nlp.vocab.strings
        self.index = index
        self.abbreviations = frozenset(fold(a) for a in abbreviations)
        self.inflection = inflection
        self._plain: Set[int] = set()  # norms that already are their key
        self._keys: Dict[int, str] = {}  # the other norms seen, and their keys
        self._dash = self.strings.add("-")

    def key_for(self, norm: int) -> str:
        """The key for a norm hash, or "" when the norm already is its key."""
        if norm in self._plain:
            return ""
        return self._keys.get(norm) or self._learn(norm)

    def _learn(self, norm: int) -> str:
        """Work out and remember a norm's key ("" when the norm is its key)."""
        text = self.strings[norm]
        folded = fold(text)
        stem, _, clitic = folded.rpartition("'")
        if clitic in ("d", "s") and stem in self.abbreviations:
            folded = stem  # "DC'd", "CTC's": the tokenizer keeps these as one token
        key = self.index.key(folded) if self.inflection else folded
        if len(self._plain) + len(self._keys) >= self.CACHE_LIMIT:
            self._plain.clear()  # bounded: memory stays flat on long streams
            self._keys.clear()
        if key == text:
            self._plain.add(norm)
            return ""
        self._keys[norm] = key
        return key

    def apply(self, doc: Doc) -> Doc:
        self.apply_keys(doc)
        return doc

    def apply_keys(self, doc: Doc) -> None:
        """Write the keys into the tokens' ``norm_``."""
        plain = self._plain
        if len(doc) <= self.ITERATE_MAX:
            to_key = [token for token in doc if token.norm not in plain]
        else:
            to_key = [doc[i] for i, norm in enumerate(doc.to_array(NORM).tolist()) if norm not in plain]
        for token in to_key:
            key = self._keys.get(token.norm) or self._learn(token.norm)
            if key:
                token.norm_ = key
        text = doc_text(doc)
        if "-" in text and ("- " in text or " -" in text):
            self._key_spaced_dashes(doc)

    def _key_spaced_dashes(self, doc: Doc) -> None:
        """"clear-to-close" joins words; "crossmatch - negative" separates
        clauses. A spaced hyphen is keyed as a dash so no phrase spans it.
        (Only texts with a space beside a hyphen can hold one.)"""
        dash = self._dash
        for token in doc:
            if token.orth == dash and (token.whitespace_ or (token.i and doc[token.i - 1].whitespace_)):
                token.norm_ = SPACED_DASH


class _KeyTokenizer:
    """The user's tokenizer followed by match keys: how patterns are read."""

    def __init__(self, nlp: Language, keys: MatchKeys):
        self.nlp = nlp
        self.keys = keys

    def __call__(self, text: str) -> Doc:
        return self.keys.apply(self.nlp.make_doc(text))


class GlossaryTerms(SemgapPipe):
    """Match glossary phrases, abbreviations, translations and frames."""

    FACTORY = "semgap_terms"

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

    def _match_table(self) -> Dict[Tuple[int, int], "_Row"]:
        """Everything the hot path needs about a match, by its (label, id) hashes, computed once."""
        strings = self.nlp.vocab.strings
        table = {}
        for pattern in self.ruler.patterns:
            label, span_id = pattern["label"], pattern.get("id", "")
            key = (strings.add(label), strings.add(span_id))
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
            table[key] = _Row(label, span_id, part, facts.domain, dropped, frame_id, window,
                              term=_term(strings, label, span_id, _preference(span_id)),
                              frame_term=_term(strings, term_id, span_id, _preference(span_id)),
                              dangling=self._dangling_term(part, label, span_id, frame_id, facts.domain))
        return table

    def _dangling_term(self, part: int, label: str, span_id: str, frame_id: str, domain: str) -> "_Term":
        """What a frame part reports on its own."""
        if part == 2:
            label = OUTCOME_PREFIX + frame_id
            span_id = pack_span_id(domain, DANGLING_OUTCOME, "en", "approved", "frame")
        return _term(self.nlp.vocab.strings, label, span_id, (0, 0))

    # -- running ---------------------------------------------------------
    def find(self, doc: Doc, norms: Optional[List[int]] = None) -> List[Span]:
        """Term spans of a doc (match keys must already be in ``norm_``).

        doc (Doc): The document.
        norms (Optional[List[int]]): The tokens' norm hashes, when the caller has them.
        RETURNS (List[Span]): Spans over ``doc``, sorted, duplicates removed.
        """
        return [Span(doc, start, end, label=term.label_hash, span_id=term.id_hash)
                for start, end, term in self._terms(doc, norms)]

    def _terms(self, doc: Doc, norms: Optional[List[int]]) -> List[tuple]:
        """The doc's terms as (start, end, _Term), final (sorted,
        deduplicated): Spans are built for these only, never for raw matches.
        """
        table = self._table
        terms: List[tuple] = []
        parts: List[tuple] = []
        domain = doc_get(doc, "semgap_domain") if not self.cross_domain else None
        for match in self.ruler.match(doc):
            start, end = match.start, match.end
            row = table[match.label, match.id]
            if row.part:
                parts.append((start, end, row))
            elif not row.dropped and not (domain and row.domain != domain):
                terms.append((start, end, row.term))
        if self.frames and parts:
            frames = self._pair_frames(doc, parts, norms)
            if domain:
                frames = [f for f in frames if term_facts(f[2].span_id).domain == domain]
            terms += [frame for frame in frames if not _beaten(frame, terms)]
            terms += _dangling(parts, terms)
        if len(terms) > 1 and not _settled(terms):
            return _final(terms)
        return terms

    def _pair_frames(self, doc: Doc, parts: List[tuple], norms: Optional[List[int]]) -> List[tuple]:
        """Frame terms: a head and an outcome of one frame, either order,
        within the frame's window and with no clause break between."""
        heads = [part for part in parts if part[2].part == 1]
        if not heads or len(heads) == len(parts):
            return []  # heads alone or outcomes alone pair with nothing
        outcomes = [part for part in parts if part[2].part == 2]
        found = []
        for h_start, h_end, head in heads:
            for o_start, o_end, outcome in outcomes:
                if outcome.frame_id != head.frame_id:
                    continue
                if h_start < o_start:
                    start, gap_start, gap_end, end = h_start, h_end, o_start, o_end
                else:
                    start, gap_start, gap_end, end = o_start, o_end, h_start, h_end
                if gap_start > gap_end or gap_end - gap_start > head.window:
                    continue  # overlapping (not a head/outcome pair), or too far apart
                if gap_start == gap_end or not self._clause_break(doc, gap_start, gap_end):
                    found.append((start, end, outcome.frame_term))
        return found

    def _clause_break(self, doc: Doc, start: int, end: int) -> bool:
        """Whether the tokens [start, end) between a head and an outcome keep them apart: a clause
        break, or a hyphen, which makes the outcome part of another word ("is non-reactive" holds no
        outcome "reactive")."""
        if any(doc[i].text in _HYPHENS for i in range(start, end)):
            return True
        return self._clauses.break_between(doc_text(doc), doc[start].idx, doc[end - 1].idx + len(doc[end - 1]))

    def process(self, doc: Doc) -> Doc:
        self.keys.apply_keys(doc)
        spans = self.find(doc)
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


class _Row(NamedTuple):
    """What a PhraseMatcher match id means (see ``GlossaryTerms._match_table``)."""

    label: str
    span_id: str
    part: int  # 0 for a term, 1 for a frame head, 2 for a frame outcome
    domain: str
    dropped: bool
    frame_id: str
    window: int  # for a frame head: how many tokens may separate it from its outcome
    term: "_Term"  # what the match reports when it is a term
    frame_term: "_Term"  # what a frame pair this outcome completes reports
    dangling: "_Term"  # what this frame part reports when no term covers it


class _Term(NamedTuple):
    """What a found term reports; a found term is (start, end, _Term)."""

    label: str
    span_id: str
    preference: tuple
    label_hash: int
    id_hash: int


def _term(strings, label: str, span_id: str, preference: tuple) -> _Term:
    return _Term(label, span_id, preference, strings.add(label), strings.add(span_id))


def _term_order(found: tuple) -> tuple:
    """Sort key of found terms: by position, longest first, then by label and preference."""
    return found[0], -found[1], found[2].label, found[2].preference


def _final(terms: List[tuple]) -> List[tuple]:
    """Terms in report order, keeping one of equal (start, end, term) and
    dropping a term inside a longer match of the same term ("cold ischemia"
    inside "cold ischemia time").

    After the sort, whatever covers a term comes before it, so one pass
    against the spans already kept per term does both.
    """
    terms.sort(key=_term_order)
    kept: Dict[str, List[Tuple[int, int]]] = {}
    final = []
    for found in terms:
        start, end, term = found
        spans = kept.get(term.label)
        if spans is None:
            kept[term.label] = [(start, end)]
        elif _covered(start, end, spans):
            continue
        else:
            spans.append((start, end))
        final.append(found)
    return final


def _beaten(frame: tuple, terms: List[tuple]) -> bool:
    """Whether ``_final`` would drop a frame pair for a term of the same
    label: one that covers it and is longer, or lies on the same tokens and
    is preferred (or equal: terms come first). Dropping such pairs early
    leaves the usual doc with nothing to sort. Whatever the pair would have
    dropped or overlapped, that term drops or overlaps too."""
    start, end, pair = frame
    for t_start, t_end, term in terms:
        if (term.label == pair.label and t_start <= start and end <= t_end
                and (t_end - t_start > end - start or term.preference <= pair.preference)):
            return True
    return False


def _covered(start: int, end: int, spans: List[Tuple[int, int]]) -> bool:
    for o_start, o_end in spans:
        if o_start <= start and end <= o_end:
            return True
    return False


def _settled(terms: List[tuple]) -> bool:
    """Whether matches are final as found (the usual case): with starts
    strictly increasing and no two of one term, there is nothing to sort,
    drop or dedupe."""
    previous = -1
    for start, _, _ in terms:
        if start <= previous:
            return False
        previous = start
    return len({term.label for _, _, term in terms}) == len(terms)


_KIND_ORDER = {"phrase": 0, "abbreviation": 1, "translation": 2, "frame": 3}


def _preference(span_id: str) -> Tuple[int, int]:
    """Among matches of one term on the same tokens, report an approved English phrase first."""
    facts = term_facts(span_id)
    return (facts.status != "approved", _KIND_ORDER.get(facts.kind, 9))


def _dangling(parts: Iterable[tuple], terms: List[tuple]) -> List[tuple]:
    """Frame heads and outcome words that no term span covers (longest first).

    ``terms`` may still hold terms that ``_final`` drops, and lacks the frame
    pairs ``_beaten`` left out; each of those lies inside a term that stays,
    so whether a part overlaps some term comes out the same.
    """
    loose = []
    for part in parts:
        for t_start, t_end, _ in terms:
            if t_start < part[1] and part[0] < t_end:
                break  # overlaps a term
        else:
            loose.append(part)
    if not loose:
        return loose  # the usual case: the frame's own span covers its parts
    out = []
    taken: Set[int] = set()
    for start, end, row in sorted(loose, key=_longest_first):
        if not taken.isdisjoint(range(start, end)):
            continue
        taken.update(range(start, end))
        out.append((start, end, row.dangling))
    return out


def _longest_first(part: tuple) -> tuple:
    return part[0] - part[1], part[0]


@Language.factory(
    "semgap_terms",
    default_config={"enabled": True, "spans_key": TERMS_KEY, "annotate_ents": False, "inflection": True,
                    "frames": True, "cross_domain": True, "ambiguity": True},
    requires=["doc._.semgap_repairs"],
    assigns=["doc.spans", "span._.semgap_term_id", "span._.semgap_signal", "doc._.semgap_pipeline"],
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

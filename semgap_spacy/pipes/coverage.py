"""``semgap_coverage``: every word of the text explained, or the clause escalates (spec §4.1).

It runs after ``semgap_quantities`` and before ``semgap_decision`` because it
needs everything the earlier pipes found (terms, frames and field mentions,
cue matches and the cues that reached a term, quantities) and the decision
needs its findings; as its own component it can be switched off for
ablation, timed by ``nlp.select_pipes`` and shown with displaCy.

It writes:

- ``doc.spans["semgap_unexplained"]``: one span per clause with unexplained
  words (from the first to the last such word, label ``unexplained_content``)
  and one per cue that reaches no term (``unattached_negation`` /
  ``unattached_hedge``), so ``displacy.render(doc, style="span",
  options={"spans_key": "semgap_unexplained"})`` shows a reviewer the words;
- ``token._.semgap_explained_by``: the rule that explained each token;
- ``doc._.semgap_coverage``: the findings the decision turns into reasons,
  and the name sources in force (recorded in every decision).

The rules themselves live in ``core.coverage``, on plain values.
"""
from typing import List, Optional, Sequence, Set

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..core.coverage import NAME_SOURCES, NER_LABELS, CoverageRules, findings
from ..core.vocabulary import build_vocabulary, form_index_for
from ..lang import languages as languages_available
from ..lang.cues import HEDGE, NEGATION
from .base import SemgapPipe
from .extensions import (CUES_KEY, QUANTITIES_KEY, TERMS_KEY, UNEXPLAINED_KEY, doc_get, doc_set, doc_text,
                         span_value, term_facts)


_SCOPED = frozenset({NEGATION, HEDGE})


class Coverage(SemgapPipe):
    """Mark every token with the rule that explains it; group what none explains, per clause."""

    FACTORY = "semgap_coverage"

    def __init__(self, nlp: Language, name: str = "semgap_coverage", *, enabled: bool = True,
                 ner: bool = False, titlecase: bool = False, languages: Optional[Sequence[str]] = None,
                 spans_key: str = TERMS_KEY, quantities_key: str = QUANTITIES_KEY, cues_key: str = CUES_KEY,
                 unexplained_key: str = UNEXPLAINED_KEY, cache_size: int = 50_000):
        self.ner, self.titlecase = bool(ner), bool(titlecase)
        self.languages = tuple(languages) if languages else None
        unknown = set(self.languages or ()) - set(languages_available())
        if unknown:
            raise ValueError(f"semgap_coverage: no language pack for {sorted(unknown)}")
        self.spans_key, self.quantities_key, self.cues_key = spans_key, quantities_key, cues_key
        self.unexplained_key = unexplained_key
        self.cache_size = cache_size
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(ner=self.ner, titlecase=self.titlecase, languages=list(self.languages or []) or None,
                        spans_key=spans_key, quantities_key=quantities_key, cues_key=cues_key,
                        unexplained_key=unexplained_key)
        self.name_sources = ["known_names"] + [s for s in NAME_SOURCES if getattr(self, s)]
        self._rebuild()

    def _rebuild(self) -> None:
        tokenizer = self.nlp.tokenizer
        index = form_index_for(build_vocabulary(self.glossary, tokenizer))

        def tokenize(text: str) -> List[str]:
            return [t.text for t in tokenizer(text) if not t.is_space]

        self.rules = CoverageRules(self.glossary, tokenize, index.key,
                                   self.languages or languages_available(), cache_size=self.cache_size)

    def process(self, doc: Doc) -> Doc:
        """Explain every token; record the findings and the unexplained span group.

        doc (Doc): A doc the earlier semgap pipes have processed.
        RETURNS (Doc): The same doc.
        """
        texts, starts = [], []
        for token in doc:
            texts.append(token.text)
            starts.append(token.idx)
        spans = doc.spans
        terms, quantities = spans.get(self.spans_key), spans.get(self.quantities_key)
        covered = _tokens_of(terms) | _tokens_of(quantities)
        if covered:
            covered -= self._frame_gap_tokens(doc, terms, quantities)
        matches = doc_get(doc, "semgap_cue_matches") or ()
        cue_tokens = {i for start, end, _ in matches for i in range(start, end)}
        applied = set()
        if matches and any(m[2] in _SCOPED for m in matches):  # only then can a cue be unattached
            cue_group = spans.get(self.cues_key)
            if cue_group is not None:
                applied = {(s.start, s.end) for s in cue_group}
        entities = None
        if self.ner:
            entities = {i for ent in doc.ents if ent.label_ in NER_LABELS for i in range(ent.start, ent.end)}
        sentence_starts = None
        if self.titlecase and doc.has_annotation("SENT_START"):
            sentence_starts = {s.start for s in doc.sents}
        explained = self.rules.explain(texts, starts, doc_get(doc, "semgap_domain"), covered, cue_tokens,
                                       sentence_starts=sentence_starts, entity_tokens=entities,
                                       titlecase=self.titlecase)
        found = findings(doc_text(doc), starts, texts, explained, matches, applied, covered, self.rules.clauses)
        doc_set(doc, "semgap_coverage", {
            "name_sources": list(self.name_sources), "explained_by": explained,
            "findings": [{"code": f.code, "start_char": f.start_char, "end_char": f.end_char,
                          "words": list(f.words), "word_spans": [list(w) for w in f.word_spans]}
                         for f in found]})
        doc.spans[self.unexplained_key] = SpanGroup(
            doc, name=self.unexplained_key,
            spans=[Span(doc, f.token_start, f.token_end, label=f.code) for f in found])
        return doc

    def _frame_gap_tokens(self, doc: Doc, terms: Optional[SpanGroup],
                          quantities: Optional[SpanGroup]) -> Set[int]:
        """Tokens between a frame's head and outcome that no other term or quantity covers:
        rule 1 explains the frame's own words, not what stands between them."""
        if not terms:
            return set()
        gaps, others = set(), set()
        for span in terms:
            gap = None
            if term_facts(span.id_).kind == "frame":
                gap = span_value(doc, "semgap_frame_gap", span.start_char, span.end_char)
            if gap:
                gaps.update(t.i for t in span if gap[0] <= t.idx < gap[1])
            else:
                others.update(range(span.start, span.end))
        if not gaps:
            return gaps
        return gaps - others - _tokens_of(quantities)


def _tokens_of(group: Optional[SpanGroup]) -> Set[int]:
    """The token indices inside the spans of a group (empty for a missing group)."""
    tokens: Set[int] = set()
    if group:
        for span in group:
            tokens.update(range(span.start, span.end))
    return tokens


@Language.factory(
    "semgap_coverage",
    default_config={"enabled": True, "ner": False, "titlecase": False, "languages": None,
                    "spans_key": TERMS_KEY, "quantities_key": QUANTITIES_KEY, "cues_key": CUES_KEY,
                    "unexplained_key": UNEXPLAINED_KEY, "cache_size": 50_000},
    requires=["doc.spans"],
    assigns=["doc.spans", "doc._.semgap_coverage", "token._.semgap_explained_by", "doc._.semgap_pipeline"],
)
def make_coverage(nlp: Language, name: str, enabled: bool, ner: bool, titlecase: bool,
                  languages: Optional[List[str]], spans_key: str, quantities_key: str, cues_key: str,
                  unexplained_key: str, cache_size: int = 50_000) -> Coverage:
    """Create a ``semgap_coverage`` component.

    enabled (bool): Off: no word is checked, and every decision records ``"coverage": {"enabled": false}``.
    ner (bool): Names also from ``doc.ents`` (PERSON, ORG, GPE, LOC, FAC, NORP, PRODUCT); needs a
        trained pipeline before the semgap pipes. Widens what may proceed. Defaults to False.
    titlecase (bool): Names also from Titlecase words, not first in their sentence, that no
        lemma table of en/es/fr/de holds. Widens what may proceed. Defaults to False.
    languages (Optional[List[str]]): Packs whose stop words count (rule 3); None: every registered pack.
    cache_size (int): Words whose explaining rule is remembered, per domain; a full cache
        starts again empty. Defaults to 50000.
    RETURNS (Coverage): The component.
    """
    return Coverage(nlp, name, enabled=enabled, ner=ner, titlecase=titlecase, languages=languages,
                    spans_key=spans_key, quantities_key=quantities_key, cues_key=cues_key,
                    unexplained_key=unexplained_key, cache_size=cache_size)

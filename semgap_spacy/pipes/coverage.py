"""``semgap_coverage``: every word of the text explained, or the clause escalates (spec §4.1).

It runs after ``semgap_quantities`` and before ``semgap_decision`` because it
needs everything the earlier pipes found (terms, frames and field mentions,
cue matches and the cues that reached a term, quantities) and the decision
needs its findings; as its own component it can be switched off for
ablation, timed by ``nlp.select_pipes`` and shown with displaCy.

It writes:

- ``doc.spans["semgap_unexplained"]``: one span per clause with unexplained
  words (from the first to the last such word, label ``unexplained_content``),
  one per cue that reaches no term (``unattached_negation`` /
  ``unattached_hedge``), one per set of identifiers of one form that differ
  (``conflicting_identifiers``), one per question asked by its word order
  (``question_word_order``), one per clearance in the words of a party
  without authority (``hearsay``) and one per part of a count
  (``partial_count``) and one per time a clearance is set for
  (``time_condition``), so ``displacy.render(doc, style="span",
  options={"spans_key": "semgap_unexplained"})`` shows a reviewer the words;
- ``token._.semgap_explained_by``: the rule that explained each token;
- ``doc._.semgap_coverage``: the findings the decision turns into reasons,
  and the name sources in force (recorded in every decision).

The rules themselves live in ``core.coverage``, on plain values. The pipe
reads each token as its ORTH and offsets, and what a word says by itself is
learnt once per distinct word; everything it stores on the doc is needed by
a reader (the getter, the decision, displaCy), and a finding's words and
offsets are tuples the collector need not keep walking.
"""
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from spacy.language import Language
from spacy.strings import get_string_id
from spacy.tokens import Doc, Span, SpanGroup

from ..core.colon_values import unread_colon_values
from ..core.coverage import (DOMAIN_PHRASE, NAME_SOURCES, NER_LABELS, NEUTRAL, SHAPE, STOP_WORD, TERM, CoverageRules,
                             findings)
from ..core.number_shapes import unread_zoned_clocks
from ..core.partial import partial_counts
from ..core.placeholders import unread_placeholders
from ..core.quoted_terms import unread_quoted_terms
from ..core.subject_lines import unread_subject_lines
from ..core.vocabulary import build_vocabulary, form_index_for
from ..lang import generation, languages as languages_available, union
from ..lang.cues import HEDGE, NEGATION, QUESTION
from ..util.textnorm import fold
from .base import SemgapPipe, positive_int
from .doc_rows import keyed_rows
from .extensions import (CUES_KEY, QUANTITIES_KEY, TERMS_KEY, UNEXPLAINED_KEY, doc_key, doc_text, span_group,
                         span_value, term_facts)


_SCOPED = frozenset({NEGATION, HEDGE, QUESTION})
_CLEAR = "clear"  # a clearance term's signal
_LABEL_IDS: Dict[str, int] = {}  # a finding's code -> its hash (``spacy.strings.get_string_id``)
_NONE_APPLIED: FrozenSet[Tuple[int, int]] = frozenset()
_DOMAIN, _NOW, _CUE_MATCHES, _COVERAGE = (doc_key(name) for name in (
    "semgap_domain", "semgap_now", "semgap_cue_matches", "semgap_coverage"))


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
        self.cache_size = positive_int(name, "cache_size", cache_size)
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(ner=self.ner, titlecase=self.titlecase, languages=list(self.languages or []) or None,
                        spans_key=spans_key, quantities_key=quantities_key, cues_key=cues_key,
                        unexplained_key=unexplained_key)
        self.name_sources = ["known_names"] + [s for s in NAME_SOURCES if getattr(self, s)]
        self.build()

    def _rebuild(self) -> None:
        tokenizer = self.nlp.tokenizer
        index = form_index_for(build_vocabulary(self.glossary, tokenizer))

        def tokenize(text: str) -> List[str]:
            return [t.text for t in tokenizer(text) if not t.is_space]

        self.rules = CoverageRules(self.glossary, tokenize, index.key,
                                   self.languages or languages_available(), cache_size=self.cache_size)

    def process(self, doc: Doc) -> Doc:
        """Explain every token; record the findings and the unexplained span group.

        Each token is a look-up of its word's rule (``CoverageRules.read``);
        names, longer neutral entries and the clause split are read only when a
        word is left unexplained, and the split only where a break may begin.

        doc (Doc): A doc the earlier semgap pipes have processed.
        RETURNS (Doc): The same doc.
        """
        data = doc.user_data
        keys, starts, ends = keyed_rows(doc)
        rules, domain, text = self.rules, data.get(_DOMAIN), doc_text(doc)
        reading = rules.read(domain, keys, doc.vocab.strings.__getitem__)
        covered = _covered(doc, span_group(doc, self.spans_key), span_group(doc, self.quantities_key), starts)
        matches = data.get(_CUE_MATCHES) or ()
        explained = rules.unspell(rules.unglue_shapes(rules.explain_words(reading[0], covered, matches), text,
                                                      starts, ends, domain), text, starts, ends)
        unread_colon_values(explained, text, starts, ends, TERM, SHAPE, (STOP_WORD, NEUTRAL))
        rules.unexplain_open_pseudos(explained, text, starts, ends, matches)
        unread_quoted_terms(explained, text, starts, ends, TERM)
        unread_placeholders(explained, text, starts, ends, (NEUTRAL, DOMAIN_PHRASE))
        unread_subject_lines(explained, text, starts, ends, lambda: self._clearances(doc))
        unread_zoned_clocks(explained, text, starts, ends, SHAPE)
        rules.unread_approximations(explained, text, reading, keys, starts, ends)
        rules.unexplain_parts(explained, text, reading, keys, starts, ends)
        rules.unexplain_conditions(explained, text, reading, keys, starts, ends)
        rules.unexplain_checks(explained, text, reading, keys, starts, ends)
        dotted = rules.unread_dotted_ordinals(explained, text, starts, ends)
        spelled = rules.unread_spelled_ordinals(explained, text, reading, keys, starts, ends)
        rules.unread_since_ends(explained, text, reading, keys, starts, ends)
        rules.unread_purposes(explained, text, reading, keys, starts, ends, lambda: self._clearances(doc))
        rules.unread_requests(explained, text, reading, keys, starts, ends, lambda: self._clearances(doc))
        if None in explained:
            rules.explain_after(explained, text, starts, ends)
            rules.explain_ordinals(explained, text, starts, ends, spelled, dotted)
            rules.explain_split(explained, text, starts, ends, lambda i: doc[i].norm_)
        breaks = None
        opens = rules.may_open_break(reading, keys)  # "mientras que": its words may yet be unexplained
        if None in explained or opens:
            if None in explained and (self.ner or self.titlecase
                                      or rules.phrases_may_explain(explained, reading, keys)):
                self._explain_phrases(doc, explained, [text[s:e] for s, e in zip(starts, ends)], domain)
            if None in explained or opens:
                breaks = rules.breaks(text, reading, keys, starts, ends)
                rules.explain_breaks(explained, text, starts, ends, breaks)
        applied = _NONE_APPLIED
        if matches and any(m[2] in _SCOPED for m in matches):  # only then can a cue be unattached
            cue_group = span_group(doc, self.cues_key)
            if cue_group is not None:
                applied = {(s.start, s.end) for s in cue_group}
        rows, marks = findings(text, starts, ends, explained, matches, applied, breaks,
                               rules.questions(text, reading, keys, starts, ends, explained),
                               rules.hearsay(text, reading, keys, starts, ends, domain, explained),
                               partial_counts(text, starts, ends, rules.not_counted, lambda i: explained[i] is TERM,
                                              rules.check_done),
                               rules.times(text, reading, keys, starts, ends, explained,
                                           lambda: self._clearances(doc), data.get(_NOW)),
                               rules.writes_numbers(reading, keys))
        data[_COVERAGE] = {"name_sources": list(self.name_sources), "explained_by": explained, "findings": rows}
        key = self.unexplained_key
        doc.spans[key] = SpanGroup(doc, name=key, spans=_spans(doc, marks))
        return doc

    def _clearances(self, doc: Doc) -> List[Tuple[int, int]]:
        """(start, end) tokens of every clearance term of the doc, in order."""
        group = span_group(doc, self.spans_key)
        return sorted({(s.start, s.end) for s in group or () if term_facts(s.id_).signal == _CLEAR})

    def _explain_phrases(self, doc: Doc, explained: List[Optional[str]], texts: List[str],
                         domain: Optional[str]) -> None:
        """Rules 6 and 7 (known names, longer neutral entries, and the name sources switched on)."""
        entities = None
        if self.ner:
            entities = {i for ent in doc.ents if ent.label_ in NER_LABELS for i in range(ent.start, ent.end)}
        sentence_starts = None
        if self.titlecase and doc.has_annotation("SENT_START"):
            sentence_starts = {s.start for s in doc.sents}
        self.rules.explain_phrases(explained, texts, domain, sentence_starts=sentence_starts,
                                   entity_tokens=entities, titlecase=self.titlecase)


@lru_cache(maxsize=2)
def _range_words(pack_set: int) -> FrozenSet[str]:
    """The range words ("to", "bis") of one set of language packs (``lang.generation()``), folded."""
    return frozenset(fold(w) for w in union("range_words"))


def _spans(doc: Doc, marks: Sequence[Tuple[int, int, str]]) -> List[Span]:
    """A Span per mark (token_start, token_end, code), labelled with the code: by its hash
    while the doc's strings hold the code (they may have been reloaded since, or have
    learnt it in a memory zone that has ended), else by the code itself, which adds it."""
    strings, out = doc.vocab.strings, []
    for start, end, code in marks:
        label = _LABEL_IDS.get(code)
        if label is None:
            label = _LABEL_IDS[code] = get_string_id(code)
        out.append(Span(doc, start, end, label=label if label in strings else code))
    return out


def _covered(doc: Doc, terms: Optional[SpanGroup], quantities: Optional[SpanGroup],
             starts: Sequence[int]) -> List[Tuple[int, int]]:
    """Rule 1: (token_start, token_end) of the tokens inside a term or quantity span, or of a
    range word between two quantities ("2 bis 8 °C"), less the words between a frame's head and
    outcome that no other term or quantity covers (the frame explains its own words, not what
    stands between them). ``starts`` are the tokens' character offsets."""
    covered: List[Tuple[int, int]] = []
    gapped = None  # (start, end, gap) of each frame with words between head and outcome
    for span in terms or ():
        start, end = span.start, span.end
        gap = span_value(doc, "semgap_frame_gap", span.start_char, span.end_char)
        if gap and term_facts(span.id_).kind == "frame":
            gapped = (gapped or []) + [(start, end, gap)]
        else:
            covered.append((start, end))
    previous_end = -1
    for span in quantities or ():
        covered.append((span.start, span.end))
        # "2 bis 8 °C": the word that joins two quantities into a range belongs to them
        if span.start == previous_end + 1 and fold(doc[previous_end].text) in _range_words(generation()):
            covered.append((previous_end, span.start))
        previous_end = span.end
    if gapped:
        spanned: Set[int] = set()
        gaps: Set[int] = set()
        for start, end, gap in gapped:
            spanned.update(range(start, end))
            gaps.update(i for i in range(start, end) if gap[0] <= starts[i] < gap[1])
        covered.extend((i, i + 1) for i in sorted(spanned - gaps))
    return covered


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

"""``semgap_context``: NegEx/ConText-style negation and hedge scope for term spans.

Spec §4: a negated or hedged clearance is not a clearance, and a negated or
hedged critical term escalates instead of blocking. This component decides,
for every span in ``doc.spans["semgap_terms"]``, whether a negation cue ("no",
"sin", "pas de", "keine", "ruled out") or a hedge cue ("pending", "si",
"en attente", "ausstehend") governs it.

The rule, in the order it is applied:

- Cues come from the language packs (``semgap_spacy/lang/<code>/cues.json``),
  one file per language, loaded through the registered
  ``semgap.context_cues.v1`` function; the config holds only the reference.
- Cues match whole tokens of the token *text* as a person reads it
  (``core.textview.read_word``: canonical form of spec §4.1, case and accents
  ignored), so "n<U+200B>ot" is "not". Typo repairs are not read: typo repair
  never turns a misspelt word into a cue. A token that reads as nothing
  (whitespace, line breaks, format characters) is not counted in a cue's reach. At each token the longest cue wins, so "not
  only" (pseudo-cue) hides "not", "sin embargo" (clause break) hides "sin".
- A cue glued to a neighbour by an intra-word hyphen ("non-reactive") is part
  of a word and reaches nothing outside it.
- A cue inside a term span applies to it, unless the span is a plain phrase
  match (the cue word is part of the phrase) or the cue is covered by the
  frame's own head or value words ("crossmatch non-reactive"). So "crossmatch
  not positive" is negated. A cue that straddles the span's edge ("crossmatch
  negative for DSA") does not apply to it.
- Otherwise a forward cue reaches a term that starts within ``window`` tokens
  after it, a backward cue a term that ends within ``window`` tokens before
  it, with no clause break in between. Clause breaks are the one rule of
  ``core.clauses`` (commas outside numbers, semicolons, separating dashes,
  line breaks, sentence ends, the clause-break words of the language packs)
  plus, when the doc has sentence boundaries, sentence starts. A colon is not
  a break ("crossmatch result: positive").

Cues of every configured language apply to every span: a Spanish cue in an
English-tokenized doc still counts. A false cue only escalates; a missed one
could let a clearance through.
"""
import json
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from spacy.attrs import ORTH, SENT_START
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..lang import LanguagePackError, get_pack, languages as languages_available
from ..lang.cues import BREAK, HEDGE, NEGATION, PSEUDO, CueSet, context_cues_v1, cue_sets_from_arg
from .extensions import (CUES_KEY, TERMS_KEY, doc_key, doc_set, doc_text, drop_span_values, has_span_values,
                         set_span_values,
                         term_facts)
from .base import SemgapPipe
from ..core.clauses import clause_rule
from ..core.textview import read_token, read_word
from ..util.textnorm import fold

# Span kinds whose tokens are all glossary phrase words: a cue word inside one is
# part of the phrase ("no" in a phrase), never a cue for it.
PHRASE_KINDS = frozenset({"phrase", "abbreviation", "translation"})


_fold = lru_cache(maxsize=65536)(fold)
_MATCHES_KEY = doc_key("semgap_cue_matches")


def _exact(word: str) -> str:
    """A word in lower case with its accents (NFC): how an accent-sensitive word is compared."""
    return unicodedata.normalize("NFC", word).casefold()


@dataclass
class _Effect:
    """What a cue token sequence does, merged over every language that lists it."""

    negation: Set[str]
    hedge: Set[str]
    is_break: bool = False
    # (negation, hedge) reach by way: None (cue inside the term), "forward", "backward";
    # filled by ``seal`` once the sets are complete.
    reach: Dict[Optional[str], Tuple[bool, bool]] = field(default_factory=dict, compare=False)

    def seal(self) -> None:
        """Precompute ``reach`` so the per-term check is one dict lookup."""
        self.reach = {None: (bool(self.negation), bool(self.hedge))}
        for way in ("forward", "backward"):
            self.reach[way] = (_reaches(self.negation, way), _reaches(self.hedge, way))


_WRITTEN = ("semgap_negated", "semgap_hedged", "semgap_negation_cue", "semgap_hedge_cue")


_WRITTEN_SET = frozenset(_WRITTEN)


@lru_cache(maxsize=4096)
def _span_kind(span_id: str) -> str:
    return term_facts(span_id).kind


def _reaches(directions: Set[str], way: str) -> bool:
    return way in directions or "both" in directions


class Context(SemgapPipe):
    """Mark term spans as negated or hedged from the cues in their clause."""

    FACTORY = "semgap_context"

    def __init__(self, nlp: Language, name: str = "semgap_context", *, enabled: bool = True,
                 window: int = 6, spans_key: str = TERMS_KEY, cues_key: str = CUES_KEY,
                 languages: Optional[Sequence[str]] = None, negation: bool = True,
                 hedges: bool = True, questions: bool = True,
                 cues: Optional[Callable[[Iterable[str]], Dict[str, CueSet]]] = None):
        """Build the component.

        nlp (Language): The pipeline; its tokenizer splits multi-word cues.
        name (str): The component name. Defaults to "semgap_context".
        enabled (bool): Whether the component runs. Defaults to True.
        window (int): How many tokens a cue reaches outside the span. Defaults to 6.
        spans_key (str): The span group holding the terms. Defaults to "semgap_terms".
        cues_key (str): The span group receiving the cues that applied. Defaults to "semgap_cues".
        languages (Optional[Sequence[str]]): Languages whose cues apply; None for every
            language pack (``semgap_spacy.lang.languages()``). Defaults to None.
        negation (bool): Detect negation (ablation switch). Defaults to True.
        hedges (bool): Detect hedges (ablation switch). Defaults to True.
        questions (bool): A term in a sentence that ends with "?" (or opens
            with "¿") is hedged: a question does not assert. Defaults to True.
        cues (Callable): Loader from language codes to cue sets; None for the
            packaged files (``semgap.context_cues.v1``).
        """
        if isinstance(window, bool) or not isinstance(window, int) or window < 0:
            raise ValueError(f"{name}: window must be a non-negative integer, not {window!r}")
        if languages is None:
            languages = languages_available()
        if isinstance(languages, str) or not languages or not all(isinstance(x, str) for x in languages):
            raise ValueError(f"{name}: languages must be a non-empty list of language codes, "
                             f"not {languages!r}")
        self.window = window
        self.spans_key = spans_key
        self.cues_key = cues_key
        self.languages = list(languages)
        self.negation = negation
        self.hedges = hedges
        self.questions = questions
        self._patterns: Dict[str, tuple] = {}
        self._elisions: Dict[str, _Effect] = {}
        self._cue_rests: Dict[str, List[Tuple[str, ...]]] = {}
        self._rest_words: Set[str] = set()
        self._own: Dict[str, List[Tuple[str, ...]]] = {}
        self._accented: frozenset = frozenset()
        self._accent_folds: frozenset = frozenset()
        self._reset_orth_cache()
        self._longest_cue = 1
        self._clauses = clause_rule()
        self.cue_sets = (cues or context_cues_v1())(self.languages)
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(window=window, spans_key=spans_key, cues_key=cues_key,
                        languages=self.languages, negation=negation, hedges=hedges, questions=questions)
        self._rebuild()

    # -- data ------------------------------------------------------------
    def initialize(self, get_examples: Optional[Callable] = None, *, nlp: Optional[Language] = None,
                   glossary=None, cues: Union[None, str, Path, dict] = None) -> None:
        """Load the glossary and, optionally, replacement cue files.

        glossary: As for every semgap component; None for the bundled glossaries.
        cues (str | Path | dict | None): A directory of ``{lang}.json`` cue
            files or a ``{lang: payload}`` dict; None keeps the current cues.
        """
        if cues is not None:
            self.set_cue_sets(cue_sets_from_arg(cues, self.languages))
        super().initialize(get_examples, nlp=nlp, glossary=glossary)

    def set_cue_sets(self, cue_sets: Dict[str, CueSet]) -> None:
        """Replace the cues and rebuild the matcher.

        cue_sets (Dict[str, CueSet]): One cue set per language.
        """
        self.cue_sets = dict(cue_sets)
        self._rebuild()

    @property
    def cue_info(self) -> Dict[str, dict]:
        """Version and sha256 of each language's cue payload."""
        return {lang: {"version": cs.version, "sha256": cs.sha256} for lang, cs in self.cue_sets.items()}

    def _tokens(self, text: str) -> Tuple[str, ...]:
        return tuple(_fold(t.text) for t in self.nlp.make_doc(text) if not t.is_space)

    def _rebuild(self) -> None:
        if not hasattr(self, "cue_sets"):
            return
        effects: Dict[Tuple[str, ...], _Effect] = {}
        elisions: Dict[str, _Effect] = {}
        for cue_set in self.cue_sets.values():
            for rec in cue_set.records:
                folded = fold(rec.cue)
                forms = {tuple(folded.split())}
                if not folded.endswith("'"):
                    forms.add(self._tokens(rec.cue))
                for form in forms:
                    if not form:
                        continue
                    targets = [effects.setdefault(form, _Effect(set(), set()))]
                    if len(form) == 1 and form[0].endswith("'") and len(form[0]) > 1:
                        targets.append(elisions.setdefault(form[0], _Effect(set(), set())))
                    for eff in targets:
                        if rec.category == NEGATION:
                            eff.negation.add(rec.direction)
                        elif rec.category == HEDGE:
                            eff.hedge.add(rec.direction)
                        elif rec.category == BREAK:
                            eff.is_break = True
        # first token -> ({second token -> [(form, effect)], longest first}, one-token effect)
        patterns: Dict[str, Tuple[Dict[str, List[Tuple[Tuple[str, ...], _Effect]]], Optional[_Effect]]] = {}
        for form, eff in sorted(effects.items(), key=lambda e: (-len(e[0]), e[0])):
            longer, single = patterns.get(form[0], ({}, None))
            if len(form) == 1:
                single = eff
            else:
                longer.setdefault(form[1], []).append((form, eff))
            patterns[form[0]] = (longer, single)
        self._patterns = patterns
        self._elisions = elisions
        self._longest_cue = max((len(f) for f in effects), default=1)
        for eff in list(effects.values()) + list(elisions.values()):
            eff.seal()
        # For the per-doc pre-check (``_may_cue``): the later words of every longer
        # negation/hedge cue, by its first word.
        rests: Dict[str, List[Tuple[str, ...]]] = {}
        for form, eff in effects.items():
            if len(form) > 1 and (eff.negation or eff.hedge):
                rests.setdefault(form[0], []).append(form[1:])
        self._cue_rests = rests
        self._rest_words = {word for forms in rests.values() for rest in forms for word in rest}
        self._reset_orth_cache()  # which tokens can start a cue depends on the cues
        self._own = self._own_sequences()
        # spec §4: where an accent makes another word ("sí", yes; "où", where), it is not folded
        accented = set()
        for lang in self.languages:
            try:
                accented.update(_exact(w) for w in get_pack(lang).accent_sensitive)
            except LanguagePackError:  # a cue language without a pack has no such words
                continue
        self._accented = frozenset(accented)
        self._accent_folds = frozenset(fold(w) for w in accented)

    ORTH_CACHE_LIMIT = 200_000

    def _learn(self, distinct: Set[int], unseen: Set[int]) -> None:
        """Classify token texts not seen before, by ORTH hash: folded text, clause-break
        class, and whether the token can start a cue.

        distinct (Set[int]): Every ORTH of the doc being scanned.
        unseen (Set[int]): Those not classified yet.
        """
        if len(self._orth_info) + len(unseen) > self.ORTH_CACHE_LIMIT:
            self._reset_orth_cache()  # bounded memory; the doc's own tokens are relearned
            unseen = distinct
        strings = self.nlp.vocab.strings
        for orth in unseen:
            text = strings[orth]
            folded = read_word(text)
            if folded in self._accent_folds and _exact(read_token(text).canonical) in self._accented:
                folded = _exact(read_token(text).canonical)  # "sí" stays "sí", never the cue "si"
            # whitespace (line breaks too, spec §4.1) and format characters are nothing: not counted
            spaced = not folded
            self._orth_info[orth] = (folded,)
            self._known_orths.add(orth)
            if spaced:
                self._space_orths.add(orth)
            if folded in self._rest_words:
                self._rest_orths.add(orth)
            if folded in self._patterns or (
                    "'" in folded and folded[:folded.index("'") + 1] in self._elisions):
                self._cue_orths.add(orth)
                entry = self._cue_entry(folded)
                self._cue_entries[orth] = entry
                if any(eff is not None and (eff.negation or eff.hedge) for eff in entry[1:]):
                    self._sure_orths.add(orth)

    def _cue_entry(self, folded: str) -> Tuple[Optional[dict], Optional[_Effect], Optional[_Effect]]:
        """What a token with this folded text can start: (longer cues by their second
        word, its one-token cue, its elision cue such as "n'a"); None where it has none."""
        longer, single = self._patterns.get(folded, (None, None))
        elided = None
        if "'" in folded:
            head = folded[:folded.index("'") + 1]
            eff = self._elisions.get(head)
            if eff is not None and len(folded) > len(head):
                elided = eff
        return longer or None, single, elided

    def _may_cue(self, hits: Set[int], orths: List[int]) -> bool:
        """Whether a negation or hedge cue can match in a doc, given its tokens that
        start a cue (``hits``) and all its tokens (``orths``, learned).

        Most docs hold a cue's first word ("is", "to", "a", "en") without the cue,
        and the full scan costs more than the rest of the component. This is a
        necessary condition only, so skipping the scan when it fails is safe: a
        token that is a cue by itself, or a longer cue whose every word occurs
        somewhere in the doc.
        """
        if not self._sure_orths.isdisjoint(hits):
            return True
        info, rests_by_key = self._orth_info, self._cue_rests
        words = {info[o][0] for o in self._rest_orths.intersection(orths)}
        if not words:
            return False
        for orth in hits:
            for rest in rests_by_key.get(info[orth][0], ()):
                if words.issuperset(rest):
                    return True
        return False

    def _reset_orth_cache(self) -> None:
        self._orth_info: Dict[int, Tuple[str, int]] = {}
        self._known_orths: Set[int] = set()  # the keys of _orth_info, for C-speed subset tests
        self._space_orths: Set[int] = set()
        self._cue_orths: Set[int] = set()
        self._sure_orths: Set[int] = set()  # cue orths that are a cue by themselves
        self._cue_entries: Dict[int, tuple] = {}  # cue orth -> ``_cue_entry``
        self._rest_orths: Set[int] = set()  # words that a longer negation/hedge cue goes on with

    def _own_sequences(self) -> Dict[str, List[Tuple[str, ...]]]:
        """Head and value word sequences of each frame, by term id and frame id."""
        own: Dict[str, Set[Tuple[str, ...]]] = {}
        for dom in self.glossary.domains.values():
            for frame in dom.frames:
                frame_heads = {s for h in frame.heads for s in self._spellings(h)}
                for term_id, values in frame.values.items():
                    seqs = frame_heads | {s for v in values for s in self._spellings(v)}
                    own.setdefault(term_id, set()).update(seqs)
                    own.setdefault(frame.id, set()).update(seqs)
        return {k: sorted(v, key=len, reverse=True) for k, v in own.items()}

    def _spellings(self, text: str) -> Set[Tuple[str, ...]]:
        variants = {text, text.replace("-", " "), text.replace("-", "")}
        return {t for v in variants for t in (self._tokens(v), tuple(fold(v).split())) if t}

    def _serializers(self):
        out = super()._serializers()
        out["cues"] = lambda: json.dumps({lang: cs.to_payload() for lang, cs in self.cue_sets.items()},
                                         ensure_ascii=False, indent=1)
        out["cue_info"] = lambda: json.dumps(self.cue_info)
        return out

    def _load(self, data: dict) -> None:
        super()._load({k: v for k, v in data.items() if k != "cue_info"})
        if "cues" in data:
            self.set_cue_sets(cue_sets_from_arg(data["cues"], self.languages))

    # -- running ---------------------------------------------------------
    def process(self, doc: Doc) -> Doc:
        """Set ``semgap_negated``/``semgap_hedged`` and their cues on every term span.

        doc (Doc): The document, with term spans in ``doc.spans[spans_key]``.
        RETURNS (Doc): The same document.
        """
        group = doc.spans.get(self.spans_key)
        if group is None or not len(group):
            if self.negation or self.hedges:
                _record_matches(doc, self._scan(doc))
            return doc
        scan = self._scan(doc) if (self.negation or self.hedges) else None
        _record_matches(doc, scan)
        marks = _question_marks(doc) if (self.questions and self.hedges) else ()
        if scan is None and not marks:
            # Nothing is negated or hedged: the defaults (False/None) already say
            # so; only values from an earlier run over this doc need removing.
            if has_span_values(doc, _WRITTEN_SET):
                drop_span_values(doc, _WRITTEN, {(s.start_char, s.end_char) for s in group})
            return doc
        # Each Span of the group costs a construction: read them once.
        terms = [(s.start, s.end, s.start_char, s.end_char, s) for s in group]
        results: Dict[Tuple[int, int], list] = {}
        applied: Dict[Tuple[int, int, str], None] = {}
        for term in terms:
            neg, hedge = scan.assess(term) if scan is not None else (None, None)
            if hedge is None and marks:
                hedge = _asked(doc, term[0], term[1])
            prev = results.setdefault((term[2], term[3]), [None, None])
            if neg is not None:
                _merge(prev, 0, neg, NEGATION, applied)
            if hedge is not None:
                _merge(prev, 1, hedge, HEDGE, applied)
        unmarked = []
        for (start, end), (neg, hedge) in results.items():
            if neg is None and hedge is None:
                unmarked.append((start, end))
                continue
            set_span_values(doc, start, end, {
                "semgap_negated": neg is not None, "semgap_hedged": hedge is not None,
                "semgap_negation_cue": list(neg[2]) if neg is not None else None,
                "semgap_hedge_cue": list(hedge[2]) if hedge is not None else None})
        drop_span_values(doc, _WRITTEN, unmarked)
        if applied:
            self._add_cue_spans(doc, applied)
        return doc

    def _scan(self, doc: Doc) -> Optional["_Scan"]:
        """The cue scan of a doc, or None when no negation or hedge cue occurs in it.

        Most docs have none, so what decides that runs first and in C where it
        can: one ORTH per token, set operations, and ``_may_cue``.
        """
        orths = _orths(doc)
        if not self._known_orths.issuperset(orths):
            distinct = set(orths)
            self._learn(distinct, distinct.difference(self._known_orths))
        hits = self._cue_orths.intersection(orths)
        if not hits or not self._may_cue(hits, orths):
            return None
        scan = _Scan(doc, self, orths, hits)
        return scan if scan.cues or scan.found else None

    def _add_cue_spans(self, doc: Doc, applied: Dict[Tuple[int, int, str], None]) -> None:
        """Add the cues that applied to the cue group, keeping what others put there."""
        group = doc.spans.get(self.cues_key)
        if group is None:
            # What ``doc.spans[key] = [spans]`` builds, without its extra Python frames.
            doc.spans[self.cues_key] = SpanGroup(
                doc, name=self.cues_key, spans=[Span(doc, s, e, label=label) for s, e, label in applied])
            return
        present = {(s.start, s.end, s.label_) for s in group}
        for start, end, label in applied:
            if (start, end, label) not in present:
                group.append(Span(doc, start, end, label=label))


def _record_matches(doc: Doc, scan: Optional["_Scan"]) -> None:
    """Keep every cue match on the doc (``doc._.semgap_cue_matches``), applied or not.

    ``doc.spans["semgap_cues"]`` holds the cues that reached a term; spec §4.1
    also needs the others: a negation or hedge that reaches no term escalates,
    and a pseudo cue's words are explained by it.
    """
    if scan is not None and scan.found:
        doc_set(doc, "semgap_cue_matches", [list(m) for m in scan.found])
    elif doc.user_data.get(_MATCHES_KEY) is not None:
        doc_set(doc, "semgap_cue_matches", None)


def _merge(prev: list, slot: int, found: tuple, label: str,
           applied: Dict[Tuple[int, int, str], None]) -> None:
    """Fold one span's cue result into the result of its offsets.

    Spans with the same offsets share their ``._`` values: keep the nearest cue
    of any. Every cue that applied to any of them goes to the cue group.
    """
    if prev[slot] is None or found[0] < prev[slot][0]:
        prev[slot] = found
    for start, end in found[1]:
        applied[(start, end, label)] = None


_SENTENCE_ENDS = frozenset({".", "!", "?", "…", "..."})


def _question_marks(doc: Doc) -> Tuple[int, ...]:
    """Token positions of "?" and "¿"; empty (and cheap) when the text has none."""
    text = doc_text(doc)
    if "?" not in text and "\u00bf" not in text:
        return ()
    return tuple(t.i for t in doc if t.text in ("?", "\u00bf"))


def _asked(doc: Doc, start: int, end: int):
    """A hedge result when the sentence of the span [start, end) is a question, else None."""
    for i in range(end, len(doc)):  # the sentence's closing mark
        token = doc[i]
        if token.text == "?":
            return (i - end, [(i, i + 1)], (token.idx, token.idx + 1))
        if token.text in _SENTENCE_ENDS:
            break
    for i in range(start - 1, -1, -1):  # Spanish opens questions with "¿"
        token = doc[i]
        if token.text == "\u00bf":
            return (start - i, [(i, i + 1)], (token.idx, token.idx + 1))
        if token.text in _SENTENCE_ENDS:
            break
    return None


# Below this many tokens, reading ORTH token by token beats ``to_array``'s numpy round trip.
_ARRAY_FROM = 16


def _orths(doc: Doc) -> List[int]:
    """The ORTH hash of every token, by the cheaper route for the doc's length."""
    if len(doc) < _ARRAY_FROM:
        return [t.orth for t in doc]
    return doc.to_array(ORTH).tolist()


# Token classes cached per ORTH hash.


class _Scan:
    """Cue matches and clause breaks of one doc that has a cue's words (``Context._scan``).

    The per-token work is one cached lookup by ORTH hash; only tokens that can
    start a cue or end a clause get more attention. Breaks, space tokens and
    sentence starts are kept as sorted positions and range checks bisect them.
    """

    __slots__ = ("pipe", "doc", "cues", "cue_starts", "breaks", "sent", "space_pos", "orths", "margin", "found")

    def __init__(self, doc: Doc, pipe: Context, orths: List[int], hits: Set[int]):
        """doc (Doc): The doc. pipe (Context): Its cues and caches.
        orths (List[int]): ORTH of every token, all learned by ``pipe``.
        hits (Set[int]): Those orths that can start a cue.
        """
        self.pipe = pipe
        self.doc = doc
        self.orths = orths
        self.sent: Optional[List[int]] = None
        self.space_pos: List[int] = []
        self.breaks: List[int] = []
        n = len(orths)
        info, entries = pipe._orth_info, pipe._cue_entries
        cues = self.cues = []
        found = self.found = []  # every cue match, pseudo and break cues too (for coverage)
        consumed = 0  # leftmost-longest: a token inside a cue starts no other cue
        spaces = pipe._space_orths.intersection(orths)
        # The tokens that read as something: a cue's words may have nothing between them
        # ("ruled  out", two spaces), which is not a word of the cue.
        words = [i for i, o in enumerate(orths) if o not in spaces] if spaces else None
        place = {i: p for p, i in enumerate(words)} if words is not None else None
        for i in [i for i, o in enumerate(orths) if o in hits]:
            if i < consumed:
                continue
            longer, eff, elided = entries[orths[i]]
            end = i + 1
            if longer and words is not None:
                p, m = place[i], len(words)
                if p + 1 < m:
                    for form, form_eff in longer.get(info[orths[words[p + 1]]][0], ()):
                        k = len(form)
                        if p + k <= m and all(info[orths[words[p + j]]][0] == form[j] for j in range(2, k)):
                            end, eff = words[p + k - 1] + 1, form_eff
                            break
            elif longer and end < n:
                for form, form_eff in longer.get(info[orths[end]][0], ()):
                    k = len(form)
                    if k == 2 or (i + k <= n and all(info[orths[i + j]][0] == form[j]
                                                     for j in range(2, k))):
                        end, eff = i + k, form_eff
                        break
            if end == i + 1 and eff is None:
                eff = elided
                if eff is None:
                    continue
            consumed = end
            found.append((i, end, NEGATION if eff.negation else HEDGE if eff.hedge
                          else BREAK if eff.is_break else PSEUDO))
            glued = ((i >= 2 and info[orths[i - 1]][0] == "-")
                     or (end + 1 < n and info[orths[end]][0] == "-")) and self._glued(i, end)
            if eff.negation or eff.hedge:
                cues.append((i, end, eff, glued))
        self.cue_starts = [c[0] for c in cues]
        if not cues:
            self.margin = 0
            return
        # Clause breaks only matter once there is a cue whose scope they end; the
        # tokens that hold one are breaks (the one rule of ``core.clauses``).
        breaks = []
        for b_start, b_end in pipe._clauses.breaks(doc_text(doc)):
            span = doc.char_span(b_start, b_end, alignment_mode="expand")
            if span is not None:
                breaks.extend(range(span.start, span.end))
        if spaces:
            self.space_pos = [i for i, o in enumerate(orths) if o in spaces]
        self.breaks = sorted(set(breaks))
        # How far from a term a cue may start and still reach it.
        self.margin = pipe.window + len(self.space_pos) + pipe._longest_cue

    def _folded(self, i: int) -> str:
        return self.pipe._orth_info[self.orths[i]][0]

    def _glued(self, start: int, end: int) -> bool:
        """Whether tokens [start, end) are joined to a neighbour by an intra-word hyphen."""
        doc, n = self.doc, len(self.orths)
        if start >= 2 and self._folded(start - 1) == "-" \
                and not doc[start - 2].whitespace_ and not doc[start - 1].whitespace_:
            return True
        if end + 1 < n and self._folded(end) == "-" \
                and not doc[end - 1].whitespace_ and not doc[end].whitespace_:
            return True
        return False

    def _clear(self, a: int, b: int) -> bool:
        """No clause break among tokens [a, b) and no sentence start among [a, b]."""
        breaks = self.breaks
        if breaks:
            idx = bisect_left(breaks, a)
            if idx < len(breaks) and breaks[idx] < b:
                return False
        sent = self.sent
        if sent is None:
            sent = self.sent = self._sentence_starts()
        if not sent:
            return True
        idx = bisect_left(sent, a)
        return not (idx < len(sent) and sent[idx] <= b)

    def _sentence_starts(self) -> List[int]:
        """Sentence starts from a sentencizer or parser, if any (0 = unset, 1 = start)."""
        if not self.doc.has_annotation("SENT_START"):
            return []
        starts = (self.doc.to_array(SENT_START)[1:] == 1).nonzero()[0]
        return (starts + 1).tolist()

    def _distance(self, a: int, b: int) -> int:
        """Tokens in [a, b), space tokens not counted."""
        if not self.space_pos:
            return b - a
        return b - a - (bisect_left(self.space_pos, b) - bisect_left(self.space_pos, a))

    def _own_covered(self, span: Span, start: int, end: int) -> bool:
        """Whether a cue inside a span is part of the span's own head or value words."""
        seqs = self.pipe._own.get(span.label_)
        if not seqs:
            return False
        folded = [self._folded(i) for i in range(span.start, span.end)]
        covered = set()
        for i in range(span.end - span.start):
            for seq in seqs:
                k = len(seq)
                if i + k <= len(folded) and tuple(folded[i:i + k]) == seq:
                    covered.update(range(i, i + k))
        return all(j - span.start in covered for j in range(start, end))

    def assess(self, term: tuple):
        """The governing negation and hedge cue of a term, each as (distance,
        [cue token ranges that apply], (start_char, end_char) of the nearest) or None.

        term (tuple): (start, end, start_char, end_char, span) of a term span.
        """
        ts, te = term[0], term[1]
        starts = self.cue_starts
        lo = bisect_left(starts, ts - self.margin)
        hi = bisect_right(starts, te + self.margin)
        if lo >= hi:
            return None, None
        pipe = self.pipe
        negation, hedges, window = pipe.negation, pipe.hedges, pipe.window
        spaced = bool(self.space_pos)
        kind = None
        neg_hits, hedge_hits = [], []
        for cs, ce, eff, glued in self.cues[lo:hi]:
            if cs >= ts and ce <= te:
                if kind is None:
                    kind = _span_kind(term[4].id_)
                if kind in PHRASE_KINDS or self._own_covered(term[4], cs, ce):
                    continue
                dist, way = -1, None
            elif ce <= ts:
                if glued:
                    continue
                dist, way = (self._distance(ce, ts) if spaced else ts - ce), "forward"
                if dist >= window or not self._clear(ce, ts):
                    continue
            elif cs >= te:
                if glued:
                    continue
                dist, way = (self._distance(te, cs) if spaced else cs - te), "backward"
                if dist >= window or not self._clear(te, cs):
                    continue
            else:
                continue  # straddles the span's edge: part of the term's own words
            neg_ok, hedge_ok = eff.reach[way]
            if negation and neg_ok:
                neg_hits.append((dist, cs, ce))
            if hedges and hedge_ok:
                hedge_hits.append((dist, cs, ce))
        return (self._pick(neg_hits) if neg_hits else None,
                self._pick(hedge_hits) if hedge_hits else None)

    def _pick(self, hits):
        """(distance, [every cue's token range], (start_char, end_char) of the nearest)."""
        dist, cs, ce = min(hits) if len(hits) > 1 else hits[0]
        # The offsets ``doc[cs:ce]`` would have, without building the Span.
        first = self.doc[cs]
        last = self.doc[ce - 1] if ce - cs > 1 else first
        return dist, [(h[1], h[2]) for h in hits], (first.idx, last.idx + len(last))


@Language.factory(
    "semgap_context",
    default_config={
        "enabled": True,
        "window": 6,
        "spans_key": TERMS_KEY,
        "cues_key": CUES_KEY,
        "languages": None,
        "negation": True,
        "hedges": True,
        "questions": True,
        "cues": {"@misc": "semgap.context_cues.v1"},
    },
    requires=["span._.semgap_term_id"],
    assigns=["span._.semgap_negated", "span._.semgap_hedged", "span._.semgap_negation_cue",
             "span._.semgap_hedge_cue", "doc.spans", "doc._.semgap_pipeline"],
)
def make_context(nlp: Language, name: str, enabled: bool, window: int, spans_key: str,
                 cues_key: str, languages: Optional[List[str]], negation: bool, hedges: bool, questions: bool,
                 cues: Callable[[Iterable[str]], Dict[str, CueSet]]) -> Context:
    """Create a ``semgap_context`` component (see ``Context``).

    RETURNS (Context): The component.
    """
    return Context(nlp, name, enabled=enabled, window=window, spans_key=spans_key,
                        cues_key=cues_key, languages=languages, negation=negation, hedges=hedges,
                        questions=questions, cues=cues)

"""``semgap_context``: negation and hedge scope for anyone's target spans.

Spec §4: a negated or hedged clearance is not a clearance, and a negated or
hedged critical term escalates instead of blocking. This component decides,
for every target span, whether a negation cue ("no", "sin", "pas de",
"keine", "ruled out") or a hedge cue ("pending", "si", "en attente",
"ausstehend") governs it. The scope model is ``core.context`` (cue matching,
clauses and lists, directions and reach, cues inside a target, questions);
this module reads the Doc into rows, calls it and writes the results.

Targets are chosen in config: ``targets = "spans"`` reads
``doc.spans[spans_key]`` (our own term group by default, or any group a
user's pipe fills), ``targets = "ents"`` reads ``doc.ents``, so the
component can sit after a team's own NER with no glossary at all.

Cue rules come in profiles, one mechanism: the default
(``semgap.context_cues.v1``, the ``spec`` profile) is the decision policy's
reading, every cue reaching both directions within its clause with lists
extended and no window; ``semgap.context_cues.clinical.v1`` is NegEx/ConText
for clinical text, each cue with its direction and reach, section headers
ending a scope. The decision counts anything narrower than the spec reading
(another profile, a ``window``, targets other than its term group) as a
partial read (``pipeline_incomplete``) unless ``ablation = true``.

Cues of every configured language apply to every span: a Spanish cue in an
English-tokenized doc still counts. A false cue only escalates; a missed one
could let a clearance through.

What it writes, on each target span (offsets ``[start_char, end_char]``):
``span._.semgap_negated``, ``span._.semgap_hedged``,
``span._.semgap_negation_cue``, ``span._.semgap_hedge_cue``, and the getter
``span._.semgap_cue_spans`` (the governing cues as Spans labelled
"negation" / "hedge"); ``doc.spans[cues_key]`` (the cues that reached a
target) and ``doc._.semgap_cue_matches`` (every cue match, applied or not,
for ``semgap_coverage``). ``semgap_spacy.views.context_records(doc)`` reads
it all back as rows.

The cues it reads are data that can widen what may proceed (a cue function of
one's own, cue files given at ``initialize``, cues saved with a pipeline while a
pack was registered that is not where it is loaded), so the decision records them: for each
language whose cue set is, by value, neither of its registered pack's profiles,
``packs_read`` names the language in ``"language_packs"`` by its cues
(``lang.cue_set_identity``) rather than as its pack. Worked out when the cues
are set and again when the packs change (``lang.generation``), not per doc.
"""
import json
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..core.context import EMPTY_SCAN, CueTable, Marks, TokenRows, joined_text, own_positions, zero_in
from ..lang import generation, get_pack, identities_read_with, languages as languages_available, pack_identities
from ..lang.cues import CueSet, context_cues_v1, cue_sets_from_arg
from ..util.compiled import compiled_module
from ..util.spacy_lists import spacy_stop_words, stop_word_probs
from ..util.textnorm import fold
from .base import SemgapPipe, positive_int
from .doc_rows import new_span_group, orths, span_bounds, spaced_rows
from .extensions import (CUES_KEY, TERMS_KEY, doc_key, doc_text, drop_span_values, has_span_values,
                         is_term_span, set_span_value_rows, span_group, term_facts)

SPANS, ENTS = "spans", "ents"
TARGETS = (SPANS, ENTS)
#: ``reach`` in the run record: the spec's reading, or one that reaches less
CLAUSE, NARROWED = "clause", "narrowed"
#: ``cue_languages`` in the run record: the cues of every language pack, or of some
ALL, SOME = "all", "some"

_MATCHES_KEY = doc_key("semgap_cue_matches")
_WRITTEN = ("semgap_negated", "semgap_hedged", "semgap_negation_cue", "semgap_hedge_cue")
_WRITTEN_SET = frozenset(_WRITTEN)


class Context(SemgapPipe):
    """Mark target spans as negated or hedged from the cues in their clause."""

    FACTORY = "semgap_context"
    _by_orth = None  # set by ``_rebuild``

    def __init__(self, nlp: Language, name: str = "semgap_context", *, enabled: bool = True,
                 window: Optional[int] = None, targets: str = SPANS, spans_key: str = TERMS_KEY,
                 cues_key: str = CUES_KEY, languages: Optional[Sequence[str]] = None, negation: bool = True,
                 hedges: bool = True, questions: bool = True, cache_size: int = 100_000,
                 cues: Optional[Callable[[Iterable[str]], Dict[str, CueSet]]] = None):
        """Build the component.

        nlp (Language): The pipeline; its tokenizer splits multi-word cues.
        name (str): The component name. Defaults to "semgap_context".
        enabled (bool): Whether the component runs. Defaults to True.
        window (Optional[int]): A cap, in words, on every cue's reach; None: the cue
            rules' own (the spec profile: the whole clause). Defaults to None.
        targets (str): "spans" (``doc.spans[spans_key]``) or "ents" (``doc.ents``). Defaults to "spans".
        spans_key (str): The span group holding the targets. Defaults to "semgap_terms".
        cues_key (str): The span group receiving the cues that applied. Defaults to "semgap_cues".
        languages (Optional[Sequence[str]]): Languages whose cues apply; None for every
            language pack (``semgap_spacy.lang.languages()``). Defaults to None.
        negation (bool): Detect negation (ablation switch). Defaults to True.
        hedges (bool): Detect hedges (ablation switch). Defaults to True.
        questions (bool): A target in a sentence that ends with "?" (or opens
            with "¿") is hedged: a question does not assert. Defaults to True.
        cache_size (int): How many token texts' cue facts to keep. Defaults to 100000.
        cues (Callable): Loader from language codes to cue sets (a profile); None for
            the spec profile (``semgap.context_cues.v1``).
        """
        if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 0):
            raise ValueError(f"{name}: window must be null or a non-negative integer, not {window!r}")
        if targets not in TARGETS:
            raise ValueError(f"{name}: targets must be one of {list(TARGETS)}, not {targets!r}")
        positive_int(name, "cache_size", cache_size)
        if languages is None:
            languages = languages_available()
        if isinstance(languages, str) or not languages or not all(isinstance(x, str) for x in languages):
            raise ValueError(f"{name}: languages must be a non-empty list of language codes, "
                             f"not {languages!r}")
        self.window = window
        self.targets = targets
        self.spans_key = spans_key
        self.cues_key = cues_key
        self.languages = list(languages)
        self.negation = negation
        self.hedges = hedges
        self.questions = questions
        self.cache_size = cache_size
        self.cue_sets = (cues or context_cues_v1())(self.languages)
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(window=window, targets=targets, spans_key=spans_key, cues_key=cues_key,
                        languages=self.languages, negation=negation, hedges=hedges, questions=questions,
                        cache_size=cache_size)
        self.build()

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
        """Replace the cues and rebuild the cue table.

        cue_sets (Dict[str, CueSet]): One cue set per language.
        """
        self.cue_sets = dict(cue_sets)
        self.build()

    def packs_read(self) -> Tuple[Tuple[str, str], ...]:
        """What a decision read with this pipe's cues records under ``"language_packs"``:
        ``lang.pack_identities``, with each language whose cue set is, by value, neither of its
        registered pack's cue sets (spec or clinical) named by its cues instead
        (``lang.cue_set_identity``: ``"sha256:<16 hex>"``, never ``"bundled"``), and a language
        it reads that has no registered pack added the same way (``lang.identities_read_with``).
        While the pipe is switched off (``enabled``) it reads no cues: the registry's packs.
        Worked out once the cues are set (``_rebuild``) and again when the packs change
        (``lang.generation``), not per doc.

        RETURNS (Tuple[Tuple[str, str], ...]): (code, identity) pairs in code order.
        """
        if not self.enabled:
            return pack_identities()
        at, read = self._packs_read
        if at != generation():
            at = generation()
            read = identities_read_with(self.cue_sets)
            self._packs_read = (at, read)
        return read

    @property
    def cue_info(self) -> Dict[str, dict]:
        """Profile, version and sha256 of each language's cue payload."""
        return {lang: {"profile": cs.profile, "version": cs.version, "sha256": cs.sha256}
                for lang, cs in self.cue_sets.items()}

    @property
    def profile(self) -> str:
        """The cue profile in use ("spec", "clinical", or several names joined by "+")."""
        return "+".join(sorted({cs.profile for cs in self.cue_sets.values()}))

    @property
    def reach(self) -> str:
        """"clause" when every cue reaches its whole clause both ways (the spec's reading, what the
        decision needs), else "narrowed"."""
        whole = self.window is None and all(cs.whole_clause for cs in self.cue_sets.values())
        return CLAUSE if whole else NARROWED

    @property
    def cue_languages(self) -> str:
        """"all" when the cues of every registered language pack apply (spec §4: no language
        detection, every list applies to every text), else "some": a narrowed read."""
        return ALL if set(languages_available()) <= set(self.languages) else SOME

    def _tokens(self, text: str) -> Tuple[str, ...]:
        return tuple(fold(t.text) for t in self.nlp.make_doc(text) if not t.is_space)

    def _rebuild(self) -> None:
        if not hasattr(self, "cue_sets"):
            return
        accent_sensitive, conjunctions, common = [], [], set()
        for pack in (get_pack(lang) for lang in self.languages):
            accent_sensitive.extend(pack.accent_sensitive)
            conjunctions.extend(pack.list_conjunctions)
            common.update(spacy_stop_words(pack.spacy_lang))  # the gate watches rarer words
        self.table = CueTable(self.cue_sets, lambda text: [t.text for t in self.nlp.make_doc(text)],
                              accent_sensitive, conjunctions, self.window, self.cache_size, sorted(common),
                              stop_word_probs(self.nlp.lang))
        #: the compiled pass's reader of the table's word facts by each token's ORTH
        #: (``pipes.doc_rows.FactsByOrth``), made at its first doc
        self._by_orth = None
        self.clauses = self.table.clauses
        self._own = self._own_sequences()
        self._packs_read = (None, ())  # worked out at the first decision that asks (``packs_read``)
        self.cfg.update(profile=self.profile, reach=self.reach, cue_languages=self.cue_languages)

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

    def _take(self, data: dict) -> bool:
        cue_sets = cue_sets_from_arg(data["cues"], self.languages) if "cues" in data else self.cue_sets
        changed = super()._take({k: v for k, v in data.items() if k != "cue_info"})
        if cue_sets != self.cue_sets:  # by value: the same cues are not taken again
            self.cue_sets = dict(cue_sets)
            changed = True
        return changed

    # -- running ---------------------------------------------------------
    def target_spans(self, doc: Doc) -> Sequence[Span]:
        """The spans this component marks: ``doc.ents`` or ``doc.spans[spans_key]`` (empty when missing)."""
        if self.targets == ENTS:
            return doc.ents
        group = span_group(doc, self.spans_key)
        return group if group is not None else ()

    def process(self, doc: Doc) -> Doc:
        """Set ``semgap_negated``/``semgap_hedged`` and their cues on every target span.

        doc (Doc): The document, with its targets in ``doc.spans[spans_key]`` or ``doc.ents``.
        RETURNS (Doc): The same document.
        """
        table = self.table
        keys = orths(doc)
        if table.quiet(keys):  # most texts: every word known, none a cue word or question mark
            return self._unmarked(doc)
        # every token's facts, with the bits the gate reads (a word new to the cache learnt)
        facts, bits = table.facts_for(keys, doc.vocab.strings.__getitem__)
        may_cue, asked, spaced = table.gate(facts, bits)
        may_cue = may_cue and (self.negation or self.hedges)
        asked = asked and self.questions and self.hedges
        if not may_cue and not asked:
            return self._unmarked(doc)
        spans = self.target_spans(doc)
        starts, ends, spaces, sentence_starts = spaced_rows(doc)
        # the text is joined below, only if a reading needs it: the scan reads words
        rows = TokenRows("", facts, starts, ends, sentence_starts, spaced)
        scan = table.scan(rows) if may_cue else EMPTY_SCAN
        found = sorted(scan.found + table.question_marks(rows)) if asked else scan.found
        if found:
            doc.user_data[_MATCHES_KEY] = [list(m) for m in found]
        elif doc.user_data.get(_MATCHES_KEY) is not None:
            doc.user_data[_MATCHES_KEY] = None
        if not len(spans):
            return doc
        if not ((scan.cues and (self.negation or self.hedges)) or asked or (self.negation and zero_in(facts))):
            return self._drop_values(doc)  # no cue, question or count of none: nothing can reach a target
        rows = TokenRows(doc_text(doc, lambda: joined_text(facts, spaces)), facts, starts, ends, sentence_starts,
                         rows.spaced)
        # Each Span of a group costs a construction: read the bounds, and a Span only for a term
        placed = [(start, end, start_char, end_char, None if not span_id else self._inner(spans[k], rows.facts))
                  for k, (start, end, start_char, end_char, span_id) in enumerate(span_bounds(spans))]
        self._write(doc, table.marks(rows, scan, placed, negation=self.negation, hedges=self.hedges,
                                     questions=self.questions, asked=asked))
        return doc

    def _unmarked(self, doc: Doc) -> Doc:
        """A doc where nothing is negated or hedged: the defaults (False/None) already say so;
        only values from an earlier run over it need removing (a new doc has no user data)."""
        if doc.user_data:
            if doc.user_data.get(_MATCHES_KEY) is not None:
                doc.user_data[_MATCHES_KEY] = None
            self._drop_values(doc)
        return doc

    def _drop_values(self, doc: Doc) -> Doc:
        """Remove the values an earlier run over the doc wrote on its targets, if any."""
        if has_span_values(doc, _WRITTEN_SET):
            drop_span_values(doc, _WRITTEN, {(s.start_char, s.end_char) for s in self.target_spans(doc)})
        return doc

    def _inner(self, span: Span, facts) -> Optional[frozenset]:
        """For a glossary frame, the token indices of its own head and value words (any other cue
        inside it applies: "crossmatch not positive"); None for every other span."""
        if not span.id or not is_term_span(span) or term_facts(span.id_).kind != "frame":  # no id: not a term
            return None
        seqs = self._own.get(span.label_, ())
        words = [facts[i].word for i in range(span.start, span.end)]
        return own_positions(words, span.start, seqs)

    def _write(self, doc: Doc, marks: Marks) -> None:
        """Write each target's values (``CueTable.marks``) and add the cues that applied."""
        set_span_value_rows(doc, _WRITTEN, marks.marked)
        if marks.unmarked:
            drop_span_values(doc, _WRITTEN, marks.unmarked)
        if marks.applied:
            self._add_cue_spans(doc, marks.applied)

    def _add_cue_spans(self, doc: Doc, applied: Dict[Tuple[int, int, str], None]) -> None:
        """Add the cues that applied to the cue group, keeping what others put there."""
        group = span_group(doc, self.cues_key)
        if group is None:
            # into the groups' dict itself: ``doc.spans[key] = group`` runs Python checks a group
            # made for this doc passes anyway
            doc.spans.data[self.cues_key] = new_span_group(doc, self.cues_key, applied)
            return
        present = {(s.start, s.end, s.label_) for s in group}
        for start, end, label in applied:
            if (start, end, label) not in present:
                group.append(Span(doc, start, end, label=label))


#: ``Context.process`` in Python, whether or not its compiled twin runs
python_process = Context.process
# the compiled twin (``pipes/_context_pass.pyx``) takes its place where it was built
_compiled_pass = compiled_module("semgap_spacy.pipes._context_pass")[0]
if _compiled_pass is not None and _compiled_pass.READY:
    Context.process = _compiled_pass.process
else:
    _compiled_pass = None


@Language.factory(
    "semgap_context",
    default_config={
        "enabled": True,
        "window": None,
        "targets": SPANS,
        "spans_key": TERMS_KEY,
        "cues_key": CUES_KEY,
        "languages": None,
        "negation": True,
        "hedges": True,
        "questions": True,
        "cache_size": 100_000,
        "cues": {"@misc": "semgap.context_cues.v1"},
    },
    assigns=["span._.semgap_negated", "span._.semgap_hedged", "span._.semgap_negation_cue",
             "span._.semgap_hedge_cue", "doc.spans", "doc._.semgap_cue_matches", "doc._.semgap_pipeline"],
)
def make_context(nlp: Language, name: str, enabled: bool, window: Optional[int], targets: str, spans_key: str,
                 cues_key: str, languages: Optional[List[str]], negation: bool, hedges: bool, questions: bool,
                 cache_size: int, cues: Callable[[Iterable[str]], Dict[str, CueSet]]) -> Context:
    """Create a ``semgap_context`` component (see ``Context``).

    RETURNS (Context): The component.
    """
    return Context(nlp, name, enabled=enabled, window=window, targets=targets, spans_key=spans_key,
                   cues_key=cues_key, languages=languages, negation=negation, hedges=hedges,
                   questions=questions, cache_size=cache_size, cues=cues)

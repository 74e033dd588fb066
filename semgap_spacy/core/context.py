"""Negation and hedge scope on plain rows: the ConText-style model of ``semgap_context``.

The model is data plus one mechanism. Cue rules come from the cue files of
a profile (``lang.cues``): each negation or hedge cue has a direction
(forward, backward, both) and a reach in words (``max_scope``, None for the
whole clause); pseudo cues hold a cue word and block it ("no change", "not
only"); break cues end a clause. The mechanism, in the order it applies:

1. **Cue matching.** Whole tokens of each token's *reading* (spec §4.1: the
   canonical form, case and accents ignored except where an accent makes
   another word, "sí" / "si"). At each token the longest cue wins, so a
   pseudo cue hides the cue word inside it, and "cannot exclude" (hedge)
   hides "cannot" (negation). A token that reads as nothing (whitespace)
   is skipped. A cue glued to a neighbour by an intra-word hyphen
   ("non-reactive") is part of a word and reaches nothing outside it.
2. **Clauses**, by the one clause rule of ``core.clauses``: commas,
   semicolons, separating dashes, sentence ends and break words; sentence
   starts the caller knows (a parser, a sentencizer); section headers when
   the profile asks for them. A break inside a target is no break (a
   target's own words are never a cue or a break).
3. **Scope.** A forward cue reaches a target that starts after it in its
   clause, within its ``max_scope`` words, and, when its clause opens a list
   (spec §4: comma-separated items, the last after a conjunction), every
   later item of the list however far. A backward cue reaches a target that
   ends before it in its own clause only, within its ``max_scope``. "both"
   is the two together. The component's ``window`` caps every reach. A
   profile may let a cue that ends its clause reach past the commas after it
   (``parentheticals``) and widen lists (``open_lists``, ``short_items``).
4. **Cues inside a target** are ignored ("showed no abnormalities" as one
   target negates nothing), except for a target whose words may hold one (a
   glossary frame, "crossmatch not positive"): there a cue applies unless it
   is one of the frame's own head or value words ("crossmatch non-reactive").
   A cue that starts inside a target and ends after it is part of the
   target's words ("crossmatch negative for DSA"); one that starts before it
   and ends inside it applies ("no evidence of" before "evidence of DVT").
5. **Questions.** A target in a sentence that ends with "?" (or opens with
   "¿") is hedged: a question does not assert.
6. **A count of zero** is a negation of the target it counts: "0" right
   before it ("0 open write-ups") or as its value after a colon or an
   equals sign ("Open write-ups: 0", "Defectos abiertos: 0"), as "no open
   write-ups" and "Open write-ups: none" are. The "0" of a number ("10",
   "0.5") is no count.

Facts of each word (its reading, whether it can start a cue, join a list,
close a question) are computed once per vocabulary entry and kept in a
bounded cache keyed by the caller's key for the token text, with the set of
keys the gate does not watch for, so a doc with no cue word costs one set
operation and no scan (``CueTable.quiet``, when every word is known;
``CueTable.learn``). Any other doc reads its words' facts once
(``CueTable.known``), with bits that say what the gate asks (``CueTable.gate``).
A longer cue is watched for by its rarest word (``key_word``), not its first,
which is often a word of every text ("is", "a"), and not at all when one of
its words is a cue by itself ("with no", "no evidence of"): the gate lets its
texts in by that word. The keys are spaCy
hashes, so what the cache learns inside a memory zone goes when the zone
ends (``util.caches.IndexedCache``).
"""
import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, compress, count
from operator import getitem, itemgetter
from typing import Callable, Dict, Hashable, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from ..lang.cues import BACKWARD, BOTH, BREAK, FORWARD, HEDGE, NEGATION, PSEUDO, QUESTION, CueSet, ScopeSettings
from ..util.caches import IndexedCache
from ..util.compiled import compiled_module
from ..util.textnorm import exact, fold
from .clauses import ClauseRule, clause_rule, list_end, same_breaks, segment
from .colon_values import VALUE_MARKS
from .questions import next_word, previous_word
from .textview import read_token, read_word

_NONE = -1.0  # no reach in that direction
#: the file-wide scope switches, which every language's cue set of a profile must share
SWITCHES = ("section_headers", "parentheticals", "open_lists", "short_items")
_SENTENCE_ENDS = frozenset({".", "!", "?", "…", "..."})
_QUESTION, _QUESTION_OPEN, _END = "?", "\u00bf", "end"
#: the one kind of token key the facts cache keeps in a set: the keys outside the gate (plain),
#: neither a negation or hedge cue by itself, nor a zero, nor the key word of a longer cue, nor
#: a question mark (``CueTable.quiet``)
_PLAIN = "plain"
_KINDS = (_PLAIN,)
#: a gap between a cue and a target this many tokens long or shorter is counted in place
_SHORT_GAP = 16
#: more cue and target pairs than this, and each target asks only the cues no sentence end or
#: other full break parts from it (``_Layout.near``); fewer cost less asked one by one
_PAIRS = 64


@dataclass
class Effect:
    """What a cue's word sequence does, merged over every language and record that lists it.

    Reaches are in words: how far the target may be (``math.inf``: anywhere
    in the clause); ``_NONE`` where the cue does not reach that way.
    """

    neg_forward: float = _NONE
    neg_backward: float = _NONE
    hedge_forward: float = _NONE
    hedge_backward: float = _NONE
    is_break: bool = False
    is_pseudo: bool = False

    # Worked out once per effect and kept (the scan and the reach ask them at every cue); ``add``, the
    # only change an effect takes, drops them.
    @cached_property
    def negation(self) -> bool:
        return self.neg_forward >= 0 or self.neg_backward >= 0

    @cached_property
    def hedge(self) -> bool:
        return self.hedge_forward >= 0 or self.hedge_backward >= 0

    @cached_property
    def label(self) -> str:
        """The category a cue match is recorded with (negation wins, then hedge, break, pseudo)."""
        return NEGATION if self.negation else HEDGE if self.hedge else BREAK if self.is_break else PSEUDO

    @cached_property
    def reaches(self) -> Tuple[float, float, float, float]:
        """(neg_forward, neg_backward, hedge_forward, hedge_backward), read at once by the
        compiled reach (``core/_scope_reach.pyx``)."""
        return self.neg_forward, self.neg_backward, self.hedge_forward, self.hedge_backward

    def add(self, category: str, direction: Optional[str], max_scope: Optional[int]) -> None:
        for kept in ("negation", "hedge", "label", "reaches"):
            self.__dict__.pop(kept, None)
        reach = math.inf if max_scope is None else float(max_scope)
        forward = reach if direction in (FORWARD, BOTH) else _NONE
        backward = reach if direction in (BACKWARD, BOTH) else _NONE
        if category == NEGATION:
            self.neg_forward = max(self.neg_forward, forward)
            self.neg_backward = max(self.neg_backward, backward)
        elif category == HEDGE:
            self.hedge_forward = max(self.hedge_forward, forward)
            self.hedge_backward = max(self.hedge_backward, backward)
        elif category == BREAK:
            self.is_break = True
        else:
            self.is_pseudo = True

    def capped(self, window: Optional[int]) -> "Effect":
        """The effect with every reach capped at ``window`` words (None: no cap)."""
        if window is None:
            return self
        cap = float(window)
        return Effect(min(self.neg_forward, cap), min(self.neg_backward, cap), min(self.hedge_forward, cap),
                      min(self.hedge_backward, cap), self.is_break, self.is_pseudo)


class WordFacts(NamedTuple):
    """What the scope model needs to know about one token text, computed once per text."""

    #: the token text as written
    text: str
    #: the reading cues are matched on ("" for whitespace)
    word: str
    #: longer cues starting with this word: next word -> [(word sequence, effect)], longest first
    longer: Optional[Dict[str, List[Tuple[Tuple[str, ...], Effect]]]]
    #: the one-word cue this word is, or an elided cue it starts with ("n'est"), or None
    single: Optional[Effect]
    #: whether a negation or hedge cue can start here (by itself or as the first of several words)
    starts_cue: bool
    #: whether this word is a negation or hedge cue by itself (no other word needed)
    sure: bool
    #: whether this word is one of the words of a longer negation or hedge cue
    rest: bool
    #: a list conjunction ("or", "y", "ou", "oder")
    conjunction: bool
    #: "?", "¿", "end" (another sentence end) or None
    mark: Optional[str]
    #: whether the token can hold a clause break (``ClauseRule.token_candidate``)
    breakish: bool
    #: the other words of each longer negation or hedge cue this word is the key word of
    #: (``key_word``), as sets
    needs: Tuple[frozenset, ...] = ()
    #: the number zero ("0", "０"): a count of none (``_zero_count``)
    zero: bool = False
    #: what the gate asks of the word, as bits (``_SURE_BIT`` and the others), so a text's
    #: gate is the bits of its words or-ed together (``CueTable.gate``)
    gate_bits: int = 0


#: the bits of ``WordFacts.gate_bits``: a cue by itself or a zero, the key word of a longer
#: cue, a word of a longer cue, a question mark ("?", "¿"), a token that reads as nothing
_SURE_BIT, _KEY_BIT, _REST_BIT, _MARK_BIT, _BLANK_BIT = 1, 2, 4, 8, 16
#: and what the compiled loops read of a token without its facts (``token_flags``): the first
#: word of a cue (``starts_cue``), a token that can hold a clause break (``breakish``), a list
#: conjunction (``conjunction``)
_START_BIT, _BREAK_BIT, _CONJUNCTION_BIT = 32, 64, 128
#: the bits that put a word in the gate (any other word is plain)
_GATE_BITS = _SURE_BIT | _KEY_BIT | _MARK_BIT

#: fields of ``WordFacts`` by their place in the tuple (what the compiled loops read)
_TEXT, _WORD, _STARTS_CUE, _BREAKISH, _CONJUNCTION, _ZERO, _LONGER, _SINGLE = (
    WordFacts._fields.index(name) for name in (
        "text", "word", "starts_cue", "breakish", "conjunction", "zero", "longer", "single"))
#: the place of ``gate_bits`` in ``WordFacts`` (what ``CueTable.known`` or-s together)
GATE_BITS_AT = WordFacts._fields.index("gate_bits")
_NEEDS_AT = WordFacts._fields.index("needs")
_GETTERS = {k: itemgetter(k) for k in (_WORD, _STARTS_CUE, _BREAKISH, _CONJUNCTION, _ZERO)}
# the compiled twins of the loops over a text's tokens (``core/_scope_loops.pyx``) and of
# ``_Layout`` (``core/_scope_reach.pyx``), or None
_compiled = compiled_module("semgap_spacy.core._scope_loops")[0]
_reach = compiled_module("semgap_spacy.core._scope_reach")[0]


def token_flags(facts: Sequence[WordFacts]) -> bytes:
    """Each token's ``gate_bits`` up to ``_CONJUNCTION_BIT``, a byte a token: what the compiled
    loops read of a token without reading its facts (most tokens are no cue, break or word of a
    longer cue, and their facts are then never read)."""
    if _compiled is not None:
        return _compiled.token_flags(facts, GATE_BITS_AT)
    return bytes(f.gate_bits & 0xFF for f in facts)


def _where(facts: Sequence[WordFacts], field: int) -> List[int]:
    """The indices of the tokens whose facts have ``field`` (a place in ``WordFacts``) true."""
    if _compiled is not None:
        return _compiled.where(facts, field)
    return list(compress(count(), map(_GETTERS[field], facts)))


def zero_in(facts: Sequence[WordFacts]) -> bool:
    """Whether a token is the number zero, which may count a target as none (``_zero_count``)."""
    if _compiled is not None:
        return _compiled.any_field(facts, _ZERO)
    return any(map(_GETTERS[_ZERO], facts))


def joined_text(facts: Sequence[WordFacts], spaces: Sequence[int]) -> str:
    """The text of tokens: each token's text (``facts``), then its trailing space if it has one."""
    if _compiled is not None:
        return _compiled.joined(facts, spaces, _TEXT)
    return "".join([f.text + " " if space else f.text for f, space in zip(facts, spaces)])


class TokenRows(NamedTuple):
    """A text as plain rows, one entry per token: what the scope model reads, no Doc."""

    text: str
    facts: Sequence[WordFacts]
    #: character offset where each token starts and ends (its text, no trailing space)
    starts: Sequence[int]
    ends: Sequence[int]
    #: token indices that start a sentence, when the caller knows them (a parser,
    #: a sentencizer); None when it does not
    sentence_starts: Optional[Sequence[int]] = None
    #: whether some token reads as nothing (whitespace): words are then counted without them
    spaced: bool = True


class Target(NamedTuple):
    """A span whose negation and hedge are wanted, in token offsets.

    inner: None when a cue inside the span is part of its words (the usual
        target); else the token indices of the span's own head and value words
        (a frame's, ``own_positions``), and any other cue inside the span applies.
    """

    start: int
    end: int
    inner: Optional[frozenset] = None


class Hit(NamedTuple):
    """The cues of one kind that reach a target: the nearest, and all of them."""

    distance: int
    nearest: Tuple[int, int]
    cues: Tuple[Tuple[int, int], ...]


class Reading(NamedTuple):
    """What the model says about one target; a hedge from a question points at the mark."""

    negation: Optional[Hit]
    hedge: Optional[Hit]


class Marks(NamedTuple):
    """What to write for a text's targets (``CueTable.marks``): targets with the same character
    offsets share their values, the nearest cue of each kind winning."""

    #: (start_char, end_char, negated, hedged, negation cue, hedge cue) of each negated or hedged
    #: target, a cue as [start_char, end_char] of its nearest one, or None
    marked: List[tuple]
    #: (start_char, end_char) of each target neither negated nor hedged
    unmarked: List[Tuple[int, int]]
    #: (token_start, token_end, "negation" / "hedge") of every cue that reached a target, in order
    applied: Dict[Tuple[int, int, str], None]


class Scan(NamedTuple):
    """Every cue match of a text (for coverage: pseudo and break cues too), and the scoped ones."""

    #: (token_start, token_end, label) of every match: negation, hedge, pseudo, break
    found: List[Tuple[int, int, str]]
    #: (token_start, token_end, effect, glued) of every negation or hedge cue
    cues: List[Tuple[int, int, Effect, bool]]


EMPTY_SCAN = Scan([], [])


@dataclass
class CueTable:
    """The compiled cue rules of a profile, with the per-word facts cache.

    cue_sets (Dict[str, CueSet]): One cue set per language, all of one profile.
    tokenize (Callable[[str], Sequence[str]]): Splits a cue into the token texts the
        pipeline's tokenizer makes of it ("isn't" -> "is", "n't"), so a cue
        matches however the text is tokenized.
    accent_sensitive (Iterable[str]): Words an accent makes another word ("sí", "où").
    conjunctions (Iterable[str]): List conjunctions of the languages (spec §4).
    window (Optional[int]): A cap on every cue's reach in words; None: the rules' own.
    cache_size (int): How many token texts' facts to keep.
    common_words (Iterable[str]): Words of every text (stop words), which the gate does not
        watch for when a longer cue has a rarer one (``key_word``); a matter of speed only.
    common_word_probs (Dict[str, float]): How often each common word is written in the
        pipeline's language, as a log probability (``util.spacy_lists.stop_word_probs``): of a
        cue made of common words only, the gate watches the rarest; a matter of speed only.
    """

    cue_sets: Dict[str, CueSet]
    tokenize: Callable[[str], Sequence[str]]
    accent_sensitive: Iterable[str] = ()
    conjunctions: Iterable[str] = ()
    window: Optional[int] = None
    cache_size: int = 100_000
    common_words: Iterable[str] = ()
    common_word_probs: Dict[str, float] = field(default_factory=dict)
    patterns: Dict[str, Tuple[dict, Optional[Effect]]] = field(init=False, default_factory=dict)
    elisions: Dict[str, Effect] = field(init=False, default_factory=dict)
    scope: ScopeSettings = field(init=False, default_factory=ScopeSettings)
    break_words: Tuple[str, ...] = field(init=False, default=())
    clauses: Optional[ClauseRule] = field(init=False, default=None)

    def __post_init__(self):
        effects: Dict[Tuple[str, ...], Effect] = {}
        elisions: Dict[str, Effect] = {}
        switches = {}
        for switch in SWITCHES:
            values = {getattr(cs.scope, switch) for cs in self.cue_sets.values()}
            if len(values) > 1:
                raise ValueError(f"the cue sets disagree on {switch}: " + ", ".join(
                    f"{lang}={getattr(cs.scope, switch)}" for lang, cs in self.cue_sets.items()))
            if values:
                switches[switch] = values.pop()
        self.scope = ScopeSettings(**switches)
        breaks = []
        accented = {exact(w) for w in self.accent_sensitive}

        def cue_word(word: str) -> str:
            """A cue's word as a text's word reads (``_word_facts``): with its accent where the
            accent makes another word ("quién sabe" is not "quien sabe"), else folded."""
            as_written = exact(word)
            return as_written if as_written in accented else fold(word)

        for cue_set in self.cue_sets.values():
            for rec in cue_set.records:
                folded = fold(rec.cue)
                forms = {tuple(map(cue_word, rec.cue.split()))}
                if not folded.endswith("'"):
                    forms.add(tuple(cue_word(t) for t in self.tokenize(rec.cue) if t.strip()))
                if rec.category == BREAK:
                    breaks.append(rec.cue)
                for form in forms:
                    if not form:
                        continue
                    effects.setdefault(form, Effect()).add(rec.category, rec.direction, rec.max_scope)
                    if len(form) == 1 and form[0].endswith("'") and len(form[0]) > 1:
                        elisions.setdefault(form[0], Effect()).add(rec.category, rec.direction, rec.max_scope)
        patterns: Dict[str, Tuple[dict, Optional[Effect]]] = {}
        for form, eff in sorted(effects.items(), key=lambda e: (-len(e[0]), e[0])):
            eff = eff.capped(self.window)
            longer, single = patterns.get(form[0], ({}, None))
            if len(form) == 1:
                single = eff
            else:
                longer.setdefault(form[1], []).append((form, eff))
            patterns[form[0]] = (longer, single)
        self.patterns = patterns
        # The words of longer cues, one str object each: a word's facts and the gate's needs hold
        # the same object, so the compiled gate (``needs_met``) finds a word by identity first.
        rest_words: Dict[str, str] = {}
        for form, eff in effects.items():
            if len(form) > 1 and (eff.negation or eff.hedge):
                for w in form:
                    rest_words.setdefault(w, w)
        needs: Dict[str, Dict[frozenset, None]] = {}
        common = frozenset(fold(w) for w in self.common_words)
        sure = {word for word, (_, single) in patterns.items()
                if single is not None and (single.negation or single.hedge)}
        for first, (longer, _) in patterns.items():
            for forms in longer.values():
                for form, eff in forms:
                    if (eff.negation or eff.hedge) and sure.isdisjoint(form):
                        key = key_word(form, common, self.common_word_probs)
                        needs.setdefault(key, {})[frozenset(map(rest_words.get, form)) - {key}] = None
        self._needs = {key: tuple(sets) for key, sets in needs.items()}
        self.elisions = {k: v.capped(self.window) for k, v in elisions.items()}
        self.break_words = tuple(dict.fromkeys(breaks))
        self.clauses = clause_rule(self.break_words)
        self.longest = max((len(form) for form in effects), default=1)
        self._rest_words = rest_words
        self._accented = frozenset(accented)
        self._accent_folds = frozenset(fold(w) for w in accented)
        self._conjunctions = frozenset(fold(w) for w in self.conjunctions)
        self._facts = IndexedCache(self.cache_size, _KINDS)

    # -- words -----------------------------------------------------------
    def learn(self, keys: Sequence[Hashable], text_of: Callable[[Hashable], str]) -> None:
        """Make sure every key has its facts: those not seen yet are computed from their text.

        The cache is bounded (``cache_size``) and keeps nothing a memory zone
        learnt after the zone (``util.caches.IndexedCache``).
        keys (Sequence[Hashable]): The keys of one text's tokens (each names a token text alone).
        text_of (Callable[[Hashable], str]): The token text of a key.
        """
        facts = self._facts
        if not all(map(facts.__contains__, keys)):
            facts.learn(keys, lambda key: self._kinds(self._word_facts(text_of(key))))

    @staticmethod
    def _kinds(found: WordFacts) -> Tuple[WordFacts, List[str]]:
        """The facts of a word and the kinds of key (``_KINDS``) it is: plain unless the gate
        watches for it (``gate_bits``)."""
        return found, [] if found.gate_bits & _GATE_BITS else [_PLAIN]

    def quiet(self, keys: Sequence[Hashable]) -> bool:
        """Whether every key is learned and none is in the gate: no cue can match and no question
        mark occurs, so there is nothing to scan or read (most texts).

        One set operation over the keys; False says nothing (a key may be new: ``learn``, then
        ``known`` and ``gate``).
        """
        return self._facts.kinds[_PLAIN].issuperset(keys)

    def known(self, keys: Sequence[Hashable]) -> Optional[Tuple[List[WordFacts], int]]:
        """(the facts of the keys, in order; their ``gate_bits`` or-ed together), or None when
        some key is not learned yet (``learn``)."""
        if _compiled is not None:
            return _compiled.known_facts(keys, self._facts, GATE_BITS_AT)
        try:
            facts = list(map(self._facts.__getitem__, keys))
        except KeyError:
            return None
        bits = 0
        for f in facts:
            bits |= f.gate_bits
        return facts, bits

    def facts_for(self, keys: Sequence[Hashable],
                  text_of: Callable[[Hashable], str]) -> Tuple[List[WordFacts], int]:
        """``known``, after ``learn`` where some key is new: (the facts of the keys, in order;
        their ``gate_bits`` or-ed together), always. Where another thread empties the cache
        between the two (a memory zone ending, the cache full), the words it no longer holds
        are read again without it, rather than the text left unread."""
        known = self.known(keys)
        if known is None:
            self.learn(keys, text_of)
            known = self.known(keys)
        if known is None:
            cache = self._facts
            facts = [cache.get(key) or self._word_facts(text_of(key)) for key in keys]
            bits = 0
            for f in facts:
                bits |= f.gate_bits
            known = facts, bits
        return known

    def gate(self, facts: Sequence[WordFacts], bits: int) -> Tuple[bool, bool, bool]:
        """What the facts of one text's tokens allow, before any scan: (a negation or hedge cue
        can match, a question mark occurs, a token reads as nothing).

        Most texts hold some word of a longer cue ("is", "to", "en") without the cue, or no cue
        word at all, and the scan costs more than this. ``may_cue`` is a necessary condition,
        so skipping the scan when it fails is safe: a token that is a cue by itself (or a zero,
        which may count a target as none), or a longer cue whose every word occurs where a match
        would put it, within the longest cue's length of its key word.

        facts (Sequence[WordFacts]): The facts of the text's tokens.
        bits (int): Their ``gate_bits`` or-ed together.
        RETURNS (Tuple[bool, bool, bool]): may_cue, asked, spaced.
        """
        asked, spaced = bool(bits & _MARK_BIT), bool(bits & _BLANK_BIT)
        if bits & _SURE_BIT:
            return True, asked, spaced
        if not (bits & _KEY_BIT and bits & _REST_BIT):
            return False, asked, spaced
        return self._needs_met(facts), asked, spaced

    def _needs_met(self, facts: Sequence[WordFacts]) -> bool:
        """Whether some longer cue's key word has the cue's other words near it: each within
        ``longest - 1`` words on one side or the other (whitespace tokens are no words), as
        they stand in any match of it ("as is" is no cue of "as good as it is")."""
        reach = self.longest - 1
        if _compiled is not None:
            return _compiled.needs_met(facts, token_flags(facts), _NEEDS_AT, _WORD, reach, _KEY_BIT, _BLANK_BIT)
        n = len(facts)
        for i, f in enumerate(facts):
            if not f.needs:
                continue
            before = [g.word for g in reversed(facts[:i]) if g.word][:reach]
            after = [g.word for g in facts[i + 1:] if g.word][:reach]
            near = set(before + after)
            if any(need <= near for need in f.needs):
                return True
        return False

    def facts_of(self, keys: Sequence[Hashable],
                 text_of: Optional[Callable[[Hashable], str]] = None) -> List[WordFacts]:
        """The facts of keys, in order: learned ones, or any with ``text_of`` (``learn``).

        RAISES (KeyError): A key was not learned and no ``text_of`` was given.
        """
        if text_of is None:
            return list(map(self._facts.__getitem__, keys))
        return self.facts_for(keys, text_of)[0]

    @property
    def cached(self) -> int:
        """How many token texts have facts in the cache."""
        return len(self._facts)

    def _word_facts(self, text: str) -> WordFacts:
        word = read_word(text)
        if word in self._accent_folds:
            as_written = exact(read_token(text).canonical)
            if as_written in self._accented:
                word = as_written  # "sí" stays "sí", never the cue "si"
        longer, single = self.patterns.get(word, (None, None))
        if single is None and "'" in word:
            head = word[:word.index("'") + 1]
            if len(word) > len(head):
                single = self.elisions.get(head)
        sure = single is not None and (single.negation or single.hedge)
        mark = _QUESTION if closes_question(word) else _QUESTION_OPEN if word == "\u00bf" else \
            _END if word in _SENTENCE_ENDS else None
        conjunction = word in self._conjunctions or (
            "/" in word and all(part in self._conjunctions for part in word.split("/")))  # "and/or"
        needs = self._needs.get(word, ())
        rest, zero = word in self._rest_words, word == "0"
        if rest:
            word = self._rest_words[word]  # the object the gate's needs hold
        starts_cue, breakish = single is not None or bool(longer), self.clauses.token_candidate(text)
        bits = ((_SURE_BIT if sure or zero else 0) | (_KEY_BIT if needs else 0) | (_REST_BIT if rest else 0)
                | (_MARK_BIT if mark == _QUESTION or mark == _QUESTION_OPEN else 0) | (0 if word else _BLANK_BIT)
                | (_START_BIT if starts_cue else 0) | (_BREAK_BIT if breakish else 0)
                | (_CONJUNCTION_BIT if conjunction else 0))
        return WordFacts(text, word, longer or None, single, starts_cue, sure, rest, conjunction, mark, breakish,
                         needs, zero, bits)

    # -- one text -----------------------------------------------------------
    def scan(self, rows: TokenRows) -> Scan:
        """Every cue match of a text, leftmost-longest.

        rows (TokenRows): The text.
        RETURNS (Scan): The matches.
        """
        facts, starts, ends = rows.facts, rows.starts, rows.ends
        if _compiled is not None:
            found = _compiled.scan(facts, token_flags(facts), starts, ends, rows.spaced, self.longest, _WORD,
                                   _LONGER, _SINGLE, _START_BIT, _BLANK_BIT)
            return EMPTY_SCAN if found is None else Scan(*found)
        candidates = _where(facts, _STARTS_CUE)
        if not candidates:
            return EMPTY_SCAN
        n, longest = len(facts), self.longest
        spaced = rows.spaced
        found, cues = [], []
        consumed = 0
        for i in candidates:
            if i < consumed:
                continue
            f = facts[i]
            eff, end = f.single, i + 1
            if f.longer:
                # the next word (whitespace tokens are no words) says whether a longer cue can go on
                first = i + 1
                stop = min(n, i + 3 * longest) if spaced else min(n, i + longest)
                if spaced:
                    while first < stop and not facts[first].word:
                        first += 1
                forms = f.longer.get(facts[first].word) if first < stop else None
                if forms:
                    if spaced:  # the cue's words may have whitespace tokens between them
                        positions = [j for j in range(first, stop) if facts[j].word][:longest - 1]
                    else:
                        positions = range(first, stop)
                    nxt = [facts[j].word for j in positions]
                    for form, form_eff in forms:
                        k = len(form) - 1
                        if k <= len(nxt) and tuple(nxt[:k]) == form[1:]:
                            eff, end = form_eff, positions[k - 1] + 1
                            break
            if eff is None:
                continue
            consumed = end
            found.append((i, end, eff.label))
            if eff.negation or eff.hedge:
                glued = ((i >= 2 and facts[i - 1].word == "-" and ends[i - 2] == starts[i - 1]
                          and ends[i - 1] == starts[i])
                         or (end + 1 < n and facts[end].word == "-" and ends[end - 1] == starts[end]
                             and ends[end] == starts[end + 1]))
                cues.append((i, end, eff, glued))
        return Scan(found, cues) if found else EMPTY_SCAN

    @staticmethod
    def question_marks(rows: TokenRows) -> List[Tuple[int, int, str]]:
        """(token_start, token_end, "question") of every token that closes a question: a "?",
        or a word whose reading ends in one ("released︖"); of a run of them ("??"), the first,
        which is the mark ``read`` names when it hedges a term of the sentence. Among the cue
        matches, a mark that hedges none is left for ``semgap_coverage`` to report, as a hedge
        that reaches no term ("CRS signed... by whom??"). A "¿" that no "?" closes before its
        sentence ends opens a question all the same ("Lote liberado. ¿Y el laboratorio")."""
        facts = rows.facts
        marks = [i for i, f in enumerate(facts) if f.mark == _QUESTION]
        found = [(i, i + 1, QUESTION) for k, i in enumerate(marks) if k == 0 or marks[k - 1] != i - 1]
        opened = None
        for i, f in enumerate(facts):
            if f.mark == _QUESTION_OPEN:
                opened = i if opened is None else opened
            elif f.mark is not None:  # "?" closes it; any other mark ends its sentence
                if f.mark != _QUESTION and opened is not None:
                    found.append((opened, opened + 1, QUESTION))
                opened = None
        if opened is not None:
            found.append((opened, opened + 1, QUESTION))
        return sorted(found)

    def read(self, rows: TokenRows, scan: Scan, targets: Sequence[Target], *, negation: bool = True,
             hedges: bool = True, questions: bool = True, asked: Optional[bool] = None) -> List[Reading]:
        """Negation and hedge of every target.

        rows (TokenRows): The text.
        scan (Scan): Its cue matches (``scan``).
        targets (Sequence[Target]): The targets.
        negation, hedges, questions (bool): Which readings to look for.
        asked (Optional[bool]): Whether a question mark occurs (``gate``); None: look.
        RETURNS (List[Reading]): One reading per target, in order.
        """
        out = [Reading(None, None)] * len(targets)
        cues = scan.cues if (negation or hedges) else ()
        if asked is None:
            asked = any(f.mark == _QUESTION or f.mark == _QUESTION_OPEN for f in rows.facts)
        asked = asked and questions and hedges
        zeros = negation and zero_in(rows.facts)
        if not cues and not asked and not zeros:
            return out
        layout = near = None
        if cues and _reach is not None and same_breaks(rows.text):
            # the compiled twin of ``_Layout`` (``core/_scope_reach.pyx``)
            layout = _reach.reach(rows, targets, self.clauses, self.scope, cues, token_flags(rows.facts), _BLANK_BIT,
                                  _BREAK_BIT, _CONJUNCTION_BIT)
        if layout is not None and layout.usable:
            # a long text: each target asks only the cues of its stretch (``_Layout.near``)
            stretches = layout.near(targets) if len(cues) * len(targets) > _PAIRS else None
            # every target's reading, as ``_reading`` makes it from ``reach``
            out = layout.readings(targets, stretches, negation, hedges, zeros, asked, Hit, Reading, _zero_count,
                                  _asked)
            _reach.done(layout)
            return out
        layout = None
        if cues:
            layout = _Layout(rows, targets, self.clauses, self.scope)
            # a long text: each target asks only the cues of its stretch (``_Layout.near``)
            near = layout.near(cues, targets) if len(cues) * len(targets) > _PAIRS else None
        for t, target in enumerate(targets):
            neg_hits, hedge_hits = [], []
            if layout is not None:
                layout.reach(target, cues if near is None else cues[near[t]], neg_hits if negation else None,
                             hedge_hits if hedges else None)
            out[t] = self._reading(rows, target, neg_hits, hedge_hits, zeros, asked)
        return out

    def marks(self, rows: TokenRows, scan: Scan, placed: Sequence[tuple], *, negation: bool = True,
              hedges: bool = True, questions: bool = True, asked: Optional[bool] = None) -> Marks:
        """What to write for every target: ``read``, then the readings merged by character offsets.

        placed (Sequence[tuple]): (start, end, start_char, end_char, inner) of each target, in
            token offsets as ``Target`` has them and the character offsets it is written at.
        The other arguments are ``read``'s.
        RETURNS (Marks): The values to write and the cues that applied.
        """
        if asked is None:
            asked = any(f.mark == _QUESTION or f.mark == _QUESTION_OPEN for f in rows.facts)
        cues = scan.cues if (negation or hedges) else ()
        if cues and _reach is not None and same_breaks(rows.text):
            # the compiled twin reads and merges in one pass (``core/_scope_reach.pyx``)
            layout = _reach.reach(rows, placed, self.clauses, self.scope, cues, token_flags(rows.facts), _BLANK_BIT,
                                  _BREAK_BIT, _CONJUNCTION_BIT)
            if layout.usable:
                marks = layout.marks(placed, len(cues) * len(placed) > _PAIRS, rows.starts, rows.ends, negation,
                                     hedges, negation and zero_in(rows.facts), asked and questions and hedges,
                                     _zero_count, _asked, Marks)
                _reach.done(layout)
                return marks
        readings = self.read(rows, scan, [Target(p[0], p[1], p[4]) for p in placed], negation=negation,
                             hedges=hedges, questions=questions, asked=asked)
        return merge_readings(placed, readings, rows.starts, rows.ends)

    @staticmethod
    def _reading(rows: TokenRows, target: Target, neg_hits: list, hedge_hits: list, zeros: bool,
                 asked: bool) -> Reading:
        """One target's reading from the cues that reach it, a count of none and a question."""
        if zeros:
            neg_hits.extend(_zero_count(rows, target.start, target.end))
        neg = _hit(neg_hits) if neg_hits else None
        hedge = _hit(hedge_hits) if hedge_hits else None
        if hedge is None and asked:
            hedge = _asked(rows, target.start, target.end)
        return Reading(neg, hedge)


def merge_readings(placed: Sequence[tuple], readings: Sequence[Reading], starts: Sequence[int],
                   ends: Sequence[int]) -> Marks:
    """The readings of targets placed at character offsets ((start, end, start_char, end_char,
    inner) each), as what to write: targets with the same offsets share their values, the
    nearest cue of each kind winning; every cue that reached a target, in order."""
    results: Dict[Tuple[int, int], list] = {}
    applied: Dict[Tuple[int, int, str], None] = {}
    for (_, _, start_char, end_char, _), (neg, hedge) in zip(placed, readings):
        prev = results.get((start_char, end_char))
        if prev is None:
            results[(start_char, end_char)] = [neg, hedge]
        else:
            if neg is not None and (prev[0] is None or neg.distance < prev[0].distance):
                prev[0] = neg
            if hedge is not None and (prev[1] is None or hedge.distance < prev[1].distance):
                prev[1] = hedge
        if neg is not None:
            for cs, ce in neg.cues:
                applied[(cs, ce, NEGATION)] = None
        if hedge is not None:
            for cs, ce in hedge.cues:
                applied[(cs, ce, HEDGE)] = None
    marked, unmarked = [], []
    for (start, end), (neg, hedge) in results.items():
        if neg is None and hedge is None:
            unmarked.append((start, end))
        else:
            marked.append((start, end, neg is not None, hedge is not None,
                           [starts[neg.nearest[0]], ends[neg.nearest[1] - 1]] if neg else None,
                           [starts[hedge.nearest[0]], ends[hedge.nearest[1] - 1]] if hedge else None))
    return Marks(marked, unmarked, applied)


def key_word(form: Tuple[str, ...], common: Iterable[str] = frozenset(),
             probs: Optional[Dict[str, float]] = None) -> str:
    """The word of a longer cue the gate watches for: the rarest, as a rule, so texts full of
    "is", "a", "was" and ":" pass the gate without a look at their other words. A word with a
    letter or digit that is not a ``common`` word (spaCy's stop words) comes first; then any
    word with a letter or digit, the common ones by how rarely they are written (``probs``, log
    probabilities: "as" of "as is", "even" of "even with"; a common word it lacks counts as
    written most often); then the longest, the last of equally long ones: "ruled" of "is ruled
    out", "n't" of "was n't", "q" of "q :". Marks come last whatever their frequency: how often
    notes write ":" or "(" depends on the form of the notes more than on their language. Any of
    the cue's words would be as safe: the cue matches only where all of them occur."""
    common = frozenset(common)
    probs = probs or {}

    def rank(w: str):
        wordlike = any(ch.isalnum() for ch in w)
        rarity = -probs.get(w, 0.0) if w in common else 0.0
        return w not in common and wordlike, wordlike, rarity, len(w)

    return max(reversed(form), key=rank)


#: what stands between a target and its value ("Open write-ups: 0", "open_defects=0",
#: "Airworthy - 0", "Airworthy (0)"): the marks a form writes (``colon_values.VALUE_MARKS``)
_VALUE_MARKS = VALUE_MARKS | {"("}


def _zero_count(rows: TokenRows, start: int, end: int) -> List[Tuple[int, int, int]]:
    """(0, zero_start, zero_end) for a "0" that counts the target [start, end) as none: the word
    right before it, or its value after a colon or an equals sign; a "0" glued to another
    number's digits or a decimal mark ("10 0", "1,0") is no count."""
    facts, starts, ends, n = rows.facts, rows.starts, rows.ends, len(rows.facts)

    def word(i: int) -> str:
        return facts[i].word

    def alone(i: int) -> bool:  # not glued to a digit or a decimal mark on either side
        glued_before = i > 0 and ends[i - 1] == starts[i] and facts[i - 1].text[-1:] in "0123456789.,"
        glued_after = i + 1 < n and ends[i] == starts[i + 1] and facts[i + 1].text[:1] in "0123456789.,"
        return not glued_before and not glued_after

    found = []
    before = previous_word(word, start - 1)
    if before >= 0 and facts[before].zero and alone(before):
        found.append((0, before, before + 1))
    mark = next_word(word, n, end)
    if mark < n and facts[mark].word in _VALUE_MARKS:
        value = next_word(word, n, mark + 1)
        if value < n and facts[value].zero and alone(value):
            after = next_word(word, n, value + 1)  # the value ends there: "Open write-ups: 0 of 3" counts some
            if after >= n or not facts[after].word[:1].isalnum():
                found.append((0, value, value + 1))
    return found


def _hit(hits: List[Tuple[int, int, int]]) -> Hit:
    dist, cs, ce = min(hits)
    return Hit(dist, (cs, ce), tuple((h[1], h[2]) for h in hits))


def closes_question(word: str) -> bool:
    """Whether a token's reading (``textview.read_word``) closes a question: it is "?", or
    ends in a question mark the tokenizer left on it.

    The tokenizer splits "?" off a word, but not a question mark written as
    a compatibility character ("Airworthy⁇", "released︖", "CTC⁈"), which the
    reading (NFKC, spec §4.1) turns into "?": the token is then a word and a
    question mark at once. A "?" inside a token ("https://x.org/a?b=1") asks nothing.
    """
    return word == "?" or (len(word) > 1 and word.rstrip("!.").endswith("?"))


def _asked(rows: TokenRows, start: int, end: int) -> Optional[Hit]:
    """A hedge when the sentence of the target [start, end) is a question, else None."""
    facts = rows.facts
    if end > start and facts[end - 1].mark == _QUESTION:  # its own last word carries the mark
        return Hit(0, (end - 1, end), ((end - 1, end),))
    opened = None  # a "¿" after the target that no "?" closes still opens a question
    for i in range(end, len(facts)):  # the sentence's closing mark
        mark = facts[i].mark
        if mark == _QUESTION:
            return Hit(i - end, (i, i + 1), ((i, i + 1),))
        if mark == _QUESTION_OPEN:
            opened = i if opened is None else opened
        elif mark is not None:
            break
    if opened is not None:
        return Hit(opened - end, (opened, opened + 1), ((opened, opened + 1),))
    for i in range(start - 1, -1, -1):  # Spanish opens questions with "¿"
        mark = facts[i].mark
        if mark == _QUESTION_OPEN:
            return Hit(start - i, (i, i + 1), ((i, i + 1),))
        if mark is not None:
            break
    return None


class _Layout:
    """The clauses of one text with cues, worked out only as far as a question needs them.

    Most cues and targets have no break between them (same clause: in reach)
    or a break that is not a comma (another clause: out of reach); only a
    comma between them needs the whole picture (lists, parentheticals), and
    only then is it built (``_Clauses``).
    """

    __slots__ = ("rows", "clauses", "scope", "inside", "_candidates", "_breaks_of", "_boundaries", "_full", "_same",
                 "_words_before", "_before", "_from", "_stops")

    def __init__(self, rows: TokenRows, targets: Sequence[Target], clauses: ClauseRule, scope: ScopeSettings):
        self.rows, self.clauses, self.scope = rows, clauses, scope
        # every token of a target: no break or clause start there (a set, so a long text's
        # many targets cost one look-up a question, not one each)
        self.inside = frozenset([i for t in targets for i in range(t.start, t.end)])
        self._candidates: Optional[List[int]] = None
        self._breaks_of: Dict[int, List[Tuple[int, bool]]] = {}
        self._before: Dict[int, int] = {}
        self._from: Dict[int, int] = {}
        self._boundaries: Optional[List[int]] = None
        self._full: Optional[_Clauses] = None
        self._same: Optional[bool] = None
        self._words_before: Optional[List[int]] = None
        self._stops: Optional[List[int]] = None

    def _inside(self, i: int) -> bool:
        return i in self.inside

    def breaks_from(self, i: int) -> List[Tuple[int, bool]]:
        """The break tokens a candidate token starts (a break word may run over the next ones)."""
        found = self._breaks_of.get(i)
        if found is None:
            rows, inside = self.rows, self.inside
            found = self._breaks_of[i] = [
                b for b in self.clauses.breaks_by_token(rows.text, rows.starts, rows.ends, (i,))[i]
                if b[0] not in inside]
        return found

    def all_breaks(self) -> Iterable[List[Tuple[int, bool]]]:
        """The break tokens of every candidate (``breaks_from`` of each), those not asked for yet
        worked out in one pass."""
        missing = [i for i in self.candidates() if i not in self._breaks_of]
        if missing:
            rows, inside = self.rows, self.inside
            for i, marks in self.clauses.breaks_by_token(rows.text, rows.starts, rows.ends, missing).items():
                self._breaks_of[i] = [b for b in marks if b[0] not in inside]
        return self._breaks_of.values()

    def boundaries(self) -> List[int]:
        """Tokens that start a clause without a break token: sentence starts, section headers."""
        if self._boundaries is None:
            rows = self.rows
            found = set(rows.sentence_starts or ())
            if self.scope.section_headers and ":" in rows.text:
                n = len(rows.starts)
                for offset in self.clauses.headers(rows.text):
                    i = bisect_left(rows.starts, offset)
                    if i < n and not self._inside(i):
                        found.add(i)
            found.discard(0)
            self._boundaries = sorted(found)
        return self._boundaries

    def clear(self, a: int, b: int, *, upto: bool = True) -> bool:
        """Whether tokens [a, b) hold no break and no clause starts in [a, b]: the token before
        a and token b are in one clause.

        upto (bool): b is the end many questions share (a target's start, asked about each cue
            before it), so the last break before b is looked for once; False: a is (a target's
            end, asked about each cue after it), and the first break from a is.
        """
        if self._same is None:
            self._same = same_breaks(self.rows.text)
        if not self._same:  # breaks only from the canonical view: the whole picture
            clause_of = self.full().clause_of
            left = clause_of[a - 1] if a > 0 else clause_of[a]
            return left >= 0 and (b >= len(clause_of) or clause_of[b] == left)
        bounds = self.boundaries()
        if bounds:
            k = bisect_left(bounds, a)  # a clause starting at a parts a from the token before it
            if k < len(bounds) and bounds[k] <= b:
                return False
        return a > self._break_before(b) if upto else self._break_from(a) >= b

    def stops(self) -> List[int]:
        """The tokens no cue reaches across, in order: a break other than a comma, and a clause
        start without a break token of its own (a sentence start, a section header).

        Between a cue and a target such a token parts them for both ways the model asks:
        ``clear`` finds it (a break token a break word starts at most two tokens before,
        as ``_break_before`` and ``_break_from`` count it; a clause start), and in the
        whole picture (``full``) it is a gap that is not commas only, which neither a list
        (``list_end``) nor a parenthetical (``past_commas``) reaches over. A token that
        some break covers as a comma is left out, as the whole picture reads it as one.
        """
        if self._stops is None:
            if same_breaks(self.rows.text):  # else only the whole picture has the breaks
                self.all_breaks()
                marked = self._breaks_of.items()
                kinds: Dict[int, bool] = {}  # as the whole picture reads them: a comma if any says so
                for _, marks in marked:
                    for j, comma in marks:
                        kinds[j] = kinds.get(j, False) or comma
                found = {j for c, marks in marked for j, _ in marks if not kinds[j] and j <= c + 2}
            else:
                kinds = self.full().kinds
                found = {j for j, comma in kinds.items() if not comma}
            found.update(b for b in self.boundaries() if b not in kinds)
            self._stops = sorted(found)
        return self._stops

    def near(self, cues, targets: Sequence[Target]) -> List[slice]:
        """For each target, the run of ``cues`` (in text order) that may reach it: those with
        no stop (``stops``) between it and the target.

        A cue before the target that ends at or before the last stop before the target's
        start is parted from it; so is a cue after the target that starts after the first
        stop from the target's end on. Every other cue is kept, in the same order, so
        ``reach`` finds what it finds over all of them.
        """
        stops, n = self.stops(), len(self.rows.facts)
        cue_starts, cue_ends = [c[0] for c in cues], [c[1] for c in cues]
        out = []
        for target in targets:
            k = bisect_left(stops, target.start)
            before = stops[k - 1] if k else -1
            k = bisect_left(stops, target.end)
            after = stops[k] if k < len(stops) else n
            out.append(slice(bisect_right(cue_ends, before), bisect_right(cue_starts, after)))
        return out

    def candidates(self) -> List[int]:
        """The tokens that can hold a break (``WordFacts.breakish``), in order."""
        if self._candidates is None:
            self._candidates = _where(self.rows.facts, _BREAKISH)
        return self._candidates

    def _break_before(self, b: int) -> int:
        """The greatest a for which a break token lies in [a, b), or -1.

        A break word that starts up to two tokens before a may run into it, so a break
        token j of a candidate c counts for every a up to min(j, c + 2); the walk goes back
        over the candidates before b and stops where no earlier one can reach further.
        """
        found = self._before.get(b)
        if found is None:
            candidates, found = self.candidates(), -1
            k = bisect_left(candidates, b) - 1
            while k >= 0 and candidates[k] + 2 > found:
                c = candidates[k]
                for j, _ in self.breaks_from(c):
                    if j < b and min(j, c + 2) > found:
                        found = min(j, c + 2)
                k -= 1
            self._before[b] = found
        return found

    def _break_from(self, a: int) -> int:
        """The first break token at a or after it (of a candidate from a - 2 on), or the
        number of tokens; a break token never comes before its candidate, so the walk
        stops there."""
        found = self._from.get(a)
        if found is None:
            candidates, found = self.candidates(), len(self.rows.facts)
            for k in range(bisect_left(candidates, a - 2), len(candidates)):
                c = candidates[k]
                if c >= found:
                    break
                for j, _ in self.breaks_from(c):
                    if a <= j < found:
                        found = j
            self._from[a] = found
        return found

    def full(self) -> "_Clauses":
        """Every clause of the text (lists and parentheticals need them)."""
        if self._full is None:
            self._full = _Clauses(self)
        return self._full

    def words(self, a: int, b: int) -> int:
        """How many words lie in tokens [a, b) (whitespace tokens are not words).

        A short gap is counted where it is; running counts over the whole text are
        built once a long gap asks, so no question costs more than a pass over the text.
        """
        if not self.rows.spaced:
            return b - a
        if self._words_before is None:
            if b - a <= _SHORT_GAP:
                facts = self.rows.facts
                return sum([1 for i in range(a, b) if facts[i].word])
            self._words_before = list(accumulate(map(bool, map(_GETTERS[_WORD], self.rows.facts)), initial=0))
        return self._words_before[b] - self._words_before[a]

    def reach(self, target: Target, cues, neg_hits: Optional[list], hedge_hits: Optional[list]) -> None:
        """Add (distance, cue_start, cue_end) for every cue that reaches the target."""
        ts, te = target.start, target.end
        for cs, ce, eff, glued in cues:
            if cs >= ts and ce <= te:
                if target.inner is None or _own_words(target, cs, ce):
                    continue
                neg_ok, hedge_ok, dist = eff.negation, eff.hedge, -1
            elif cs < ts < ce or ce <= ts:
                # before the target; a cue whose first word is outside the target and whose
                # last words are the target's first ("no evidence of" + "evidence of DVT") too
                if glued or (eff.neg_forward < 0 and eff.hedge_forward < 0):
                    continue
                dist = self.words(ce, ts) if ce <= ts else 0
                if ce >= ts or self.clear(ce, ts):
                    reach = dist
                else:
                    reach = self.full().forward(cs, ce, ts, te, dist)
                    if reach is None:
                        continue
                neg_ok, hedge_ok = reach < eff.neg_forward, reach < eff.hedge_forward
            elif cs >= te:
                if glued or (eff.neg_backward < 0 and eff.hedge_backward < 0) or not self.clear(te, cs, upto=False):
                    continue  # a cue after the target reaches back within its own clause only
                dist = self.words(te, cs)
                neg_ok, hedge_ok = dist < eff.neg_backward, dist < eff.hedge_backward
            else:
                continue  # straddles the target's edge: part of its own words
            if neg_ok and neg_hits is not None:
                neg_hits.append((dist, cs, ce))
            if hedge_ok and hedge_hits is not None:
                hedge_hits.append((dist, cs, ce))


class _Clauses:
    """Every clause of a text: what lists (spec §4) and parentheticals are read from.

    It keeps the scope settings, not the layout that built it: the layout holds it, and a
    reference back would make a cycle that only the garbage collector frees, with the rows.
    """

    __slots__ = ("scope", "clause_of", "comma_after", "has_conjunction", "item_words", "_ends", "past_commas",
                 "last_word_of", "kinds")

    def __init__(self, layout: _Layout):
        rows, clauses, scope = layout.rows, layout.clauses, layout.scope
        text, facts, starts, ends = rows.text, rows.facts, rows.starts, rows.ends
        n = len(facts)
        if same_breaks(text):
            breaks = sorted({b for marks in layout.all_breaks() for b in marks})
        else:
            found: Dict[int, bool] = {}
            for b_start, b_end in clauses.breaks(text):
                comma = text[b_start:b_end] == ","
                i = bisect_left(ends, b_start + 1)
                while i < n and starts[i] < b_end:
                    if not layout._inside(i):
                        found[i] = found.get(i, True) and comma
                    i += 1
            breaks = sorted(found.items())
        self.kinds = dict(breaks)  # each break token, and whether it is a comma, as ``segment`` reads them
        segments = segment(n, breaks, layout.boundaries())
        clause_of = self.clause_of = segments.clause_of
        self.comma_after = segments.comma_after
        count = len(self.comma_after)
        has_conjunction = [False] * count
        for i in _where(facts, _CONJUNCTION):
            c = clause_of[i]
            if c >= 0 and not layout._inside(i):
                has_conjunction[c] = True
        # words per clause (only short items, a profile switch, count them) and the last word of each
        words = last = None
        if scope.short_items or scope.parentheticals:
            words, last = _clause_words(facts, clause_of, count)
        self.has_conjunction, self.item_words = has_conjunction, words if scope.short_items else None
        self.scope = scope
        self._ends: Dict[int, int] = {}
        # With parentheticals on: the last clause reachable over comma gaps only, per clause,
        # and the last word of each clause (a cue there has nothing after it in its clause).
        self.past_commas = self.last_word_of = None
        if scope.parentheticals:
            past = list(range(count))
            for c in range(count - 2, -1, -1):
                if self.comma_after[c]:
                    past[c] = past[c + 1]
            self.past_commas, self.last_word_of = past, last

    def ends_at(self, clause: int) -> int:
        """The last clause a forward cue in ``clause`` reaches (its own, or its list's last item)."""
        found = self._ends.get(clause)
        if found is None:
            scope = self.scope
            found = self._ends[clause] = list_end(self.comma_after, self.has_conjunction, clause,
                                                  open_start=scope.open_lists, item_words=self.item_words,
                                                  short_items=scope.short_items)
        return found

    def _clause(self, start: int, end: int) -> int:
        """The clause of a target: of its first token that is not a break."""
        for i in range(start, end):
            if self.clause_of[i] >= 0:
                return self.clause_of[i]
        return -1

    def forward(self, cs: int, ce: int, ts: int, te: int, dist: int) -> Optional[float]:
        """How far a forward cue [cs, ce) is from a target [ts, te) in a later clause, in words
        (-1 when the target is an item of the cue's list, which reaches every item), or None
        when it is out of reach."""
        cue_clause, clause = self.clause_of[cs], self._clause(ts, te)
        if cue_clause < 0 or clause < cue_clause:
            return None
        if clause == cue_clause:
            return dist
        if clause <= self.ends_at(cue_clause):
            return -1
        if (self.past_commas is not None and self.last_word_of[cue_clause] == ce - 1
                and clause <= self.past_commas[cue_clause]):
            return dist
        return None


def _clause_words(facts: Sequence[WordFacts], clause_of: Sequence[int], count: int) -> Tuple[List[int], List[int]]:
    """Per clause, how many of its tokens are words (whitespace tokens are not) and the last of them
    (-1 for none)."""
    if _compiled is not None:
        return _compiled.clause_words(facts, clause_of, count, _WORD)
    words, last = [0] * count, [-1] * count
    for i, c in enumerate(clause_of):
        if c >= 0 and facts[i].word:
            words[c] += 1
            last[c] = i
    return words, last


def _own_words(target: Target, cs: int, ce: int) -> bool:
    """Whether the cue tokens [cs, ce) inside a frame target are among its own head or value words."""
    return all(i in target.inner for i in range(cs, ce))


def own_positions(words: Sequence[str], start: int, sequences: Iterable[Tuple[str, ...]]) -> frozenset:
    """Token indices of a frame target covered by its own head or value word sequences.

    words (Sequence[str]): The readings of the target's tokens.
    start (int): The target's first token index.
    sequences (Iterable[Tuple[str, ...]]): The frame's own word sequences, longest first.
    RETURNS (frozenset): Covered token indices (absolute).
    """
    covered = set()
    seqs = list(sequences)
    for i in range(len(words)):
        for seq in seqs:
            k = len(seq)
            if i + k <= len(words) and tuple(words[i:i + k]) == seq:
                covered.update(range(start + i, start + i + k))
    return frozenset(covered)

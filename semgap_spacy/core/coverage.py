"""Every word explained (spec §4.1), on plain values.

A clearance vouches only for what its own words say: "Batch released; assay
failed the acceptance criteria" holds a clearance and a problem in words no
phrase list has. The phrase lists can never be complete, so instead of
looking for problems this module asks the opposite question of every token:
*which rule explains it?* A token that no rule explains makes its clause
escalate (``unexplained_content``), and so does a negation or hedge cue whose
scope reaches no term (``unattached_negation``, ``unattached_hedge``): "Clear
to close, once the wire lands" is conditional although "once" touches no term.

The seven rules, in the order they are tried (the first that applies is the
one recorded for the token):

1. ``term``: part of a matched term, frame, field mention or quantity;
2. ``cue``: a negation, hedge, pseudo or clause-break cue (a unit alias counts
   where it is written as a unit, inside a quantity, which rule 1 explains;
   alone, "the second floor", "a day", it is read like any other word);
3. ``stop_word``: in spaCy's ``STOP_WORDS`` of a pack language, unless never neutral;
4. ``domain_phrase``: a word (or an inflection of one) of a clearance or field phrase of the case's domain;
5. ``shape``: digits, e-mail, URL (its path's words read), @mention, #tag, symbol, punctuation,
   an initial, not a trouble symbol or a face that is not glad (``core.shapes``);
6. ``name``: a governed known name of the domain (whole phrase, case-sensitive),
   and, only when switched on, ``ner`` entities and ``titlecase`` words;
7. ``neutral``: the domain's governed neutral vocabulary (common + domain lists).

Rules 3, 4, 5 and the one-word neutral entries depend on a word's text
alone, so ``CoverageRules`` works them out once per distinct word, with where
a clause break may begin in it (``core.clauses``) and whether it belongs to a
known name or a longer neutral entry; a token is then one look-up. Rules 6
and 7 look at whole phrases, so they run only when a word is left
unexplained that such a phrase holds.

Some texts explain every word and still say something no clearance
survives; these are findings of their own, each in a module named for it:
two identifiers of one form (``core.identifiers``), a question by its word
order (``core.questions``), a clearance in the words of a party without
authority (``core.hearsay``), a part of a count (``core.partial``) and a
time a clearance is set for (``core.time_conditions``).

Nothing here reads a Doc: the component turns one into token keys and
offsets, and the decision policy turns the findings into reasons
(``core.coverage_reasons``).
"""
import re
import unicodedata
from bisect import bisect_left
from functools import lru_cache, partial
from typing import (Any, Callable, Dict, FrozenSet, Hashable, Iterable, Iterator, List, NamedTuple, Optional,
                    Sequence, Set, Tuple)


from ..glossary.models import GlossarySet
from ..lang import (accented_never_neutral, break_cue_phrases, break_cue_words, cased_never_neutral, generation,
                    get_pack, neutral_after, never_neutral_words, number_word, ordinal_suffixes,
                    packs as language_packs)
from ..lang.cues import BREAK as BREAK_CUE, HEDGE, NEGATION, PSEUDO, load_cue_sets
from ..util.caches import IndexedCache, WordCache, cached, in_memory_zone
from ..util.spacy_lists import spacy_stop_words
from ..util.textnorm import exact, fold
from .clauses import clause_rule
from .identifiers import CONFLICTING_IDENTIFIERS, identifier_conflicts
from .hearsay import HEARSAY, LABEL_MARKS, OPEN_BRACKETS, SIGNATURE_MARKS, SpeakerWords, closes_label, hearsay_spans
from .partial import CONNECTORS as PART_CONNECTORS, PARTIAL_COUNT
from .questions import (QUESTION_WORD_ORDER, ends_statement, final_questions, next_word, opens_sentence,
                        previous_word, statement_of, tag_questions, word_order_questions)
from .time_conditions import (TIME_CONDITION, other_days, past_states, past_times, states_to_come,
                              time_conditions)
from .approximations import unread_approximations
from .number_shapes import is_bare_clock, is_impossible_time_or_date, is_time_or_date
from .shapes import (EMAIL, HANDLE, URL, approximation_marks, holds_trouble_symbol, is_neutral_shape,
                     unreadable_run)
from .textview import digit_spellings

TERM, CUE, STOP_WORD, DOMAIN_PHRASE, SHAPE, NAME, NEUTRAL = (
    "term", "cue", "stop_word", "domain_phrase", "shape", "name", "neutral")
RULES = (TERM, CUE, STOP_WORD, DOMAIN_PHRASE, SHAPE, NAME, NEUTRAL)
#: the wider name sources of rule 6; each widens what may proceed, so each is off by default
NAME_SOURCES = ("ner", "titlecase")
#: entity labels that the ``ner`` source takes as names (spec §4.1 rule 6)
NER_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT"})
_SENTENCE_END = frozenset({".", "!", "?", "…", "..."})

_fold = cached(65536)(fold)


UNEXPLAINED_CONTENT = "unexplained_content"


#: The coverage findings of one text, in text order (clauses with unexplained words, and
#: cues that reach no term), as (rows, marks). ``rows`` are what
#: ``doc._.semgap_coverage["findings"]`` holds (``core.coverage_reasons`` reads them): ``code``,
#: ``start_char`` and ``end_char`` (the clause, or the cue), ``words`` (the unexplained
#: words, or the cue) and ``word_spans`` ((start_char, end_char) of every unexplained token
#: of the clause, in text order); their values are tuples, not lists, so the collector can
#: stop tracking them. ``marks`` are (token_start, token_end, code) of each row: the tokens
#: a reviewer should see highlighted.
Findings = Tuple[List[dict], List[Tuple[int, int, str]]]


@lru_cache(maxsize=4)
def stop_words(pack_codes: Tuple[str, ...]) -> FrozenSet[str]:
    """Rule 3: the folded union of the packs' spaCy stop words, minus every pack's never-neutral
    words and one-word clause-break cues (``lang.break_cue_words``). A never-neutral word an
    accent tells apart ("dès") leaves its folded form ("des") a stop word
    (``lang.accented_never_neutral``: it is compared as written, ``CoverageRules``).

    pack_codes (Tuple[str, ...]): The language packs whose stop words count.
    RETURNS (FrozenSet[str]): Folded words.
    """
    from ..lang import accented_never_neutral, get_pack, never_neutral_words

    words: Set[str] = set()
    for code in pack_codes:
        words.update(_fold(w) for w in spacy_stop_words(get_pack(code).spacy_lang))
    accented = accented_never_neutral()
    never = {_fold(w) for w in never_neutral_words() if exact(w) not in accented}
    never.update(_fold(w) for w in break_cue_words())  # "but", "salvo": they qualify what came before
    return frozenset(words - never)


@lru_cache(maxsize=4)
def accented_stop_words(pack_codes: Tuple[str, ...]) -> FrozenSet[str]:
    """Rule 3 for words an accent makes another word (spec §4): es "sí" (yes) is a stop word
    although "si" (if) is never neutral. Compared as written (``textnorm.exact``).

    pack_codes (Tuple[str, ...]): The language packs whose stop words count.
    RETURNS (FrozenSet[str]): The packs' accent-sensitive words that are stop words, as written.
    """
    from ..lang import get_pack, packs

    stop: Set[str] = set()
    for code in pack_codes:
        stop.update(exact(w) for w in spacy_stop_words(get_pack(code).spacy_lang))
    return frozenset(exact(w) for pack in packs().values() for w in pack.accent_sensitive) & stop


@lru_cache(maxsize=1)
def dictionary_words() -> FrozenSet[str]:
    """Keys and values of the ``lemma_lookup`` tables of en, es, fr and de, lower case.

    Read once per process and only when the ``titlecase`` name source is on:
    the tables are large, and the default pipeline never needs them.
    """
    from ..lang.inflection import read_table

    words: Set[str] = set()
    for lang in ("en", "es", "fr", "de"):
        table = read_table(lang, "lemma_lookup") or {}
        for key, value in table.items():
            words.add(key.lower())
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str):
                    words.add(v.lower())
    return frozenset(words)


#: what a prefix is glued to its word with: a hyphen, a dash typed for one
_JOINERS = frozenset({"-", "–", "‐"})
#: the rules of a word a stop word glued before it makes another word of (``CoverageRules.unspell``)
_PREFIXED = frozenset({TERM, DOMAIN_PHRASE, NEUTRAL})
def _sequences(entries: Iterable[Tuple[str, ...]]) -> Dict[str, List[Tuple[str, ...]]]:
    """First token -> the entries starting with it, longest first (leftmost-longest matching)."""
    out: Dict[str, List[Tuple[str, ...]]] = {}
    for entry in set(entries):
        if entry:
            out.setdefault(entry[0], []).append(entry)
    for seqs in out.values():
        seqs.sort(key=len, reverse=True)
    return out


#: The kinds of word a key can be, kept as sets of keys beside each word's rule
#: (``util.caches.IndexedCache``), so a text asks "does any of my words ...?" with one set
#: operation: ``BREAK``, a clause break may begin in it (``ClauseRule.break_starts``);
#: ``PHRASE``, a known name or a longer neutral entry holds it (rules 6 and 7); ``OPENER``, it is
#: the first word of a clause-break cue of two words or more ("mientras que"), whose words
#: explain themselves only where that clause holds a term (``explain_breaks``); ``ASKS``, a verb
#: that may open a question by its word order (``questions``); ``PARTY`` and ``SAYING``, a party of
#: the domain without authority and a word of saying or a colon (``hearsay``); ``TIMES`` and
#: ``PAST``, the longest word of a word that sets a time or states a past, and ``DAYS``, a day or
#: month written as a word, ``AGO``, the longest word of a day gone by, and ``COMING``, the last
#: word of a state still to come (``times``); ``TAGS``, the last word of a question tag or a
#: word that asks at a sentence's end (``questions``); ``PART``, a word that may name a part of
#: what the term after it names, or order it as a step (``unexplain_parts``), or ask for a check or
#: mark one still to do (``unexplain_checks``); ``NUMBER``, a word of letters only that is a number
#: in words ("forty", "drei": ``lang.number_word``), the one word an identifier of a series may be
#: written as (``identifiers.identifier_conflicts``' ``spelled``); ``APPROX``, a word of
#: approximation ("about", "ca": ``unread_approximations``); ``CONDITION``, ``PURPOSE``, ``REQUEST``,
#: ``ORDINAL`` and ``SINCE``, a word of the packs' ``condition_prepositions``, ``purpose_prepositions``,
#: ``request_words``, ``spelled_ordinals`` and ``since_words``, the words ``unexplain_conditions``,
#: ``unread_purposes``, ``unread_requests``, ``unread_spelled_ordinals`` and ``unread_since_ends`` each
#: look for (all ``PART`` too, which the other rules of its words ask for).
#: Each but ``NUMBER`` and ``APPROX`` is known by the word's reading (``_fold``), so "iS" or
#: "ＢＯＲＲＯＷＥＲ" is found as "is" and "borrower" are; those two by the word as written, as the
#: rule that reads them asks of it (``NUMBER`` with the packs registered now: ``read`` forgets every
#: word's facts when they change).
(BREAK, PHRASE, OPENER, ASKS, PARTY, SAYING, TIMES, DAYS, PAST, AGO, COMING, TAGS, PART, NUMBER, APPROX, CONDITION,
 PURPOSE, REQUEST, ORDINAL, SINCE) = (
    "break", "phrase", "opener", "asks", "party", "saying", "times", "days", "past", "ago", "coming", "tags", "part",
    "number", "approx", "condition", "purpose", "request", "ordinal", "since")
_KINDS = (BREAK, PHRASE, OPENER, ASKS, PARTY, SAYING, TIMES, DAYS, PAST, AGO, COMING, TAGS, PART, NUMBER, APPROX,
          CONDITION, PURPOSE, REQUEST, ORDINAL, SINCE)
#: the kinds of a word as one shared tuple per combination met (a flag per kind, in ``_KINDS`` order)
_KIND_TUPLES: Dict[Tuple[bool, ...], Tuple[str, ...]] = {}


def _kinds_of(*flags: bool) -> Tuple[str, ...]:
    """The kinds flagged, as the tuple every word with the same flags shares: made when first met,
    rather than all 1,048,576 at import, which every process would pay for as it starts."""
    kinds = _KIND_TUPLES.get(flags)
    if kinds is None:
        kinds = _KIND_TUPLES[flags] = tuple(kind for kind, on in zip(_KINDS, flags) if on)
    return kinds


#: What a word says by itself in one domain: its rule by rules 3, 4, 5 or a one-word
#: neutral entry (None for none) and its kinds. Plain values, which the collector stops tracking.
WordFacts = Tuple[Optional[str], Tuple[str, ...]]
_MISSING = object()
#: a digit: a time written with digits needs one ("by 18:00"); without one, only a day's word is a time
_DIGIT = re.compile(r"\d")
#: the rules by which a word after a time makes the time name a thing ("from the 06:00 shift")
_THING_RULES = frozenset({NEUTRAL, NAME, DOMAIN_PHRASE})
#: the rules by which a word after a question's verb names its subject ("is aircraft airworthy")
_SUBJECT_RULES = frozenset({NEUTRAL, NAME, DOMAIN_PHRASE})
_AT_START = (0,)


#: One text's words as the per-word table reads them: each token's rule by its word alone
#: (a new list the caller may complete), and for each kind a set of keys that holds every
#: key of the text of that kind: the table's own sets, or, for a text read inside a memory
#: zone that held a word seen nowhere before, sets of the text's keys alone (the table keeps
#: nothing of such a word, and keeping another may empty it while the text is read).
WordReading = Tuple[List[Optional[str]], Dict[str, Set[Hashable]]]


class DomainRules(NamedTuple):
    """What explains words in one domain (rules 4, 6 and 7)."""

    phrase_words: FrozenSet[str]                 # folded words of clearance/field phrases
    phrase_keys: FrozenSet[str]                  # their inflection keys
    neutral_words: FrozenSet[str]                # one-token neutral entries, folded
    neutral_seqs: Dict[str, List[Tuple[str, ...]]]  # longer ones, folded
    names: Dict[str, List[Tuple[str, ...]]]      # known names, as written
    name_words: FrozenSet[str]                   # every word of a known name, as written
    neutral_seq_words: FrozenSet[str]            # every word of neutral_seqs, folded
    no_authority: FrozenSet[str]                 # parties without authority (``core.hearsay``), folded


def _letter(rule: Optional[str], text: str, start: int, end: int) -> bool:
    """A single letter that rule 3 explained (es "a", "o", "u" are stop words): glued to shapes
    it is a letter of an abbreviation ("A/C U/S", aircraft unserviceable), not a word."""
    return rule is STOP_WORD and end - start == 1 and text[start].isalpha()


class CoverageRules:
    """The rules of spec §4.1 for one glossary set, built once.

    glossary (GlossarySet): Supplies rules 4, 6 (known names) and 7.
    tokenize (Callable[[str], List[str]]): Splits a phrase into token texts the
        way the pipeline's tokenizer does, so "aujourd'hui" or a multi-word name
        is matched as the tokens it becomes.
    form_key (Callable[[str], str]): The inflection key of a folded word (rule 4).
    pack_codes (Sequence[str]): Language packs whose stop words count (rule 3).
    cache_size (int): Words whose facts are remembered, per domain.
    """

    def __init__(self, glossary: GlossarySet, tokenize, form_key, pack_codes: Sequence[str],
                 cache_size: int = 50_000):
        self.cache_size = cache_size
        self.form_key = form_key
        self.stop = stop_words(tuple(pack_codes))
        self.accented_stop = accented_stop_words(tuple(pack_codes))
        self.accented_never = accented_never_neutral()
        self.cased_never = cased_never_neutral()
        # "1st", "2nd", "3er", "2e": a number made an ordinal picks one of several, the first too
        # ("the 1st of the three batches"), as the step word "first" beside a term does
        suffixes = sorted(ordinal_suffixes(), key=len, reverse=True)
        endings = "(?:" + "|".join(map(re.escape, suffixes)) + ")"
        self._ordinal = re.compile(_ORDINAL_NUMBER.pattern + endings) if suffixes else None
        self._ordinal_in_text = re.compile(r"\d" + endings) if suffixes else None
        self.ordinal_times = frozenset(_fold(w) for code in pack_codes for w in get_pack(code).ordinal_times)
        # de "das 2. Flugzeug": a number with a full stop after one of these is an ordinal
        self.ordinal_articles = frozenset(_fold(w) for code in pack_codes for w in get_pack(code).ordinal_articles)
        self.domains: Dict[str, DomainRules] = {}
        self.glossary_words = _glossary_words(glossary, tokenize)
        self.problem_words = _problem_words(glossary)
        # what a word written with digits for letters may read as ("A0G", "0OS", "N0T")
        never = frozenset(_fold(w) for w in never_neutral_words())
        # and a one-word negation or hedge of the spec cue sets ("N31N" reads "nein")
        cue_words = frozenset(_fold(record.cue) for cues in load_cue_sets(pack_codes).values()
                              for record in cues.records if record.category in (NEGATION, HEDGE)
                              and " " not in record.cue and record.cue.isalpha())
        self._spellable = self.glossary_words | self.problem_words | never | cue_words
        self._never = never
        # what letters written one by one may spell ("N O T"): not every glossary word ("T O")
        self._spelt = self.problem_words | never
        # the short words an identifier may spell that say something ("TBD-1", "QA-HOLD-2")
        self._code_words = _short_words() | _critical_short_words(glossary, tokenize, self.stop)
        # never-neutral stop words rule 3 explains after certain words ("called back")
        # (only words a pack's stop words hold: rule 3 is what explains them there)
        spacy_stops = {_fold(w) for code in pack_codes for w in spacy_stop_words(get_pack(code).spacy_lang)}
        self.neutral_after = {w: before for w, before in neutral_after().items() if w in spacy_stops}
        # the gate reads the raw text: each word as its pack writes it too ("qué", folded "que")
        written = {exact(w) for pack in language_packs().values() for w in pack.neutral_after
                   if _fold(w) in self.neutral_after}
        self._after_words = (re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(set(self.neutral_after) | written)))
                                        + r")\b", re.IGNORECASE) if self.neutral_after else None)
        self._after_in_ascii = _in_ascii(set(self.neutral_after) | written)
        # a speaker no glossary can vouch for ("he", "se" of "se dice") is every domain's party
        unnamed = frozenset(_fold(w) for code in pack_codes for w in get_pack(code).unnamed_speakers)
        # a speaker whose accent tells it from another word is read as written (es "él", not "el")
        self.written_speakers = frozenset(exact(w) for code in pack_codes for w in get_pack(code).unnamed_speakers
                                          if exact(w) != _fold(w))
        self._written_folded = frozenset(_fold(w) for w in self.written_speakers)
        self.subject_speakers = frozenset(_fold(w) for code in pack_codes for w in get_pack(code).subject_speakers)
        self.possessive_speakers = frozenset(_fold(w) for code in pack_codes
                                             for w in get_pack(code).possessive_speakers)
        self.beneficiary_prepositions = frozenset(_fold(w) for code in pack_codes
                                                  for w in get_pack(code).beneficiary_prepositions)
        unnamed -= self._written_folded
        accented: Set[str] = set()  # rule 4's words written with an accent, folded, and their keys
        for name, dom in glossary.domains.items():
            words: Set[str] = set()
            for term in dom.terms:
                if term.signal == "critical_block":
                    continue  # rule 4: a word only in critical phrases is not explained
                for text, _, _, _ in term.variants():
                    for t in tokenize(text):
                        if any(c.isalnum() for c in t):
                            words.add(_fold(t))
                            if exact(t) != _fold(t):
                                accented.update((_fold(t), form_key(_fold(t))))
            neutral = {tuple(_fold(t) for t in tokenize(w)) for w, _, _ in dom.vocabulary.neutral.words()}
            names = [tuple(tokenize(n)) for n in dom.vocabulary.known_names]
            longer = [seq for seq in neutral if len(seq) > 1]
            self.domains[name] = DomainRules(
                frozenset(words), frozenset(form_key(w) for w in words),
                frozenset(seq[0] for seq in neutral if len(seq) == 1),
                _sequences(longer), _sequences(names),
                frozenset(w for seq in names for w in seq), frozenset(w for seq in longer for w in seq),
                frozenset(_fold(w) for lang_words in dom.vocabulary.no_authority.values() for w in lang_words)
                | unnamed)
        self._accented_phrase_words = frozenset(accented)
        # endings of a form in progress ("releasing", "liberando"): rule 4 reads no such inflection
        self._progressive = tuple(sorted({_fold(e) for code in pack_codes for e in get_pack(code).progressive_endings},
                                         key=len, reverse=True))
        # an unknown domain escalates anyway; its words are read with nothing but the common rules
        self.empty = DomainRules(frozenset(), frozenset(), frozenset(), {}, {}, frozenset(), frozenset(), frozenset())
        self.clauses = clause_rule()
        self.break_words = frozenset(_fold(w) for w in break_cue_words())
        self.break_phrases = frozenset(" ".join(_fold(w).split()) for w in break_cue_phrases())
        self.openers = frozenset(w.split()[0] for w in self.break_phrases)
        # a question asked by its word order ("is it clear to close": ``core.questions``)
        packs = [get_pack(code) for code in pack_codes]
        self.question_openers = frozenset(_fold(w) for pack in packs for w in pack.question_openers)
        self.question_subjects = frozenset(_fold(w) for pack in packs for w in pack.question_subjects)
        self.question_copulas = frozenset(_fold(w) for pack in packs for w in pack.question_copulas)
        self.question_preamble = frozenset(_fold(w) for pack in packs for w in pack.question_preamble)
        self.question_addressees = frozenset(_fold(w) for pack in packs for w in pack.question_addressees)
        self.question_wishes = frozenset(tuple(_fold(w).split()) for pack in packs for w in pack.question_wishes)
        self.question_tags = frozenset(tag for tag in (tuple(_fold(t) for t in tokenize(w) if t.strip())
                                                       for pack in packs for w in pack.question_tags) if tag)
        self.question_ends = frozenset(_fold(w) for pack in packs for w in pack.question_ends)
        self.tag_ends = frozenset(tag[-1] for tag in self.question_tags) | self.question_ends
        # a clearance in the words of a party without authority ("Borrower says …", "Courier: …":
        # ``core.hearsay``)
        self.saying_before = frozenset(_fold(w) for pack in packs for w in pack.reporting_prepositions)
        self.speaker_channels = frozenset(_fold(w) for pack in packs for w in pack.speaker_channels)
        self.speaker_manners = self.speaker_channels - self.stop  # how or when, not the words that join
        self.attributions = frozenset(_fold(w) for pack in packs for w in pack.attribution_prepositions)
        self.sign_offs = frozenset(_fold(w) for pack in packs for w in pack.sign_offs)
        self.sign_off_thanks = frozenset(tuple(_fold(t) for t in tokenize(w) if t.strip())
                                         for pack in packs for w in pack.sign_off_thanks)
        self.signed_articles = frozenset(_fold(w) for pack in packs for w in pack.signed_articles)
        self.speaker_clitics = frozenset(tuple(_fold(w).split()) for pack in packs for w in pack.speaker_clitics)
        self.clitic_words = frozenset(phrase[0] for phrase in self.speaker_clitics)
        self.subjectless_saying = frozenset(_fold(w) for pack in packs for w in pack.subjectless_saying)
        self.report_conjunctions = frozenset(_fold(w) for pack in packs for w in pack.report_conjunctions)
        self.object_pronouns = frozenset(_fold(w) for pack in packs for w in pack.object_pronouns)
        # "Airworthy ~", "Lufttüchtig ca.": "about" with no value after it (``core.approximations``)
        self.approximation_marks = approximation_marks()
        self._approximation_mark = _any_of(self.approximation_marks)
        self.approximation_words = frozenset(exact(w) for pack in packs for w in pack.approximation_words)
        self.clitic_leads = frozenset(_fold(w) for pack in packs for w in pack.clitic_leads)
        self.closing_speakers = frozenset(_fold(w) for pack in packs for w in pack.closing_speakers)
        self.closing_pronouns = frozenset(_fold(w) for pack in packs for w in pack.closing_pronouns)
        self.opening_speakers = frozenset(_fold(w) for pack in packs for w in pack.opening_speakers)
        self.report_pointers = frozenset(_fold(w) for pack in packs for w in pack.report_pointers)
        self.provenance_keys = frozenset(tuple(_fold(t) for t in tokenize(w) if t.strip())
                                         for pack in packs for w in pack.provenance_keys)
        self.signature_trailers = frozenset(_fold(w) for pack in packs for w in pack.signature_trailers)
        self.inverted_speakers = frozenset(_fold(w) for pack in packs for w in pack.inverted_speakers)
        self.speaker_words = SpeakerWords(
            prepositions=self.saying_before, channels=self.speaker_channels, attributions=self.attributions,
            sign_offs=self.sign_offs, manners=self.speaker_manners, clitics=self.speaker_clitics,
            subjectless=self.subjectless_saying, conjunctions=self.report_conjunctions, objects=self.object_pronouns,
            leads=self.clitic_leads, closing=self.closing_speakers, pronouns=self.closing_pronouns,
            opening=self.opening_speakers, inverted=self.inverted_speakers, thanks=self.sign_off_thanks,
            articles=self.signed_articles, subjects=self.subject_speakers, pointers=self.report_pointers,
            keys=self.provenance_keys, trailers=self.signature_trailers, possessives=self.possessive_speakers,
            beneficiaries=self.beneficiary_prepositions)
        self.saying = (frozenset(_fold(w) for pack in packs for w in pack.reporting_words) | self.saying_before
                       | self.attributions | self.sign_offs | self.subjectless_saying
                       | {phrase[0] for phrase in self.sign_off_thanks})
        # a time a clearance is set for ("by 18:00"), or a past it is stated for ("was airworthy"):
        # ``core.time_conditions``
        # a word of a goal sets a time too, right after a clearance ("Clear to close for 17:00")
        self.time_keys = frozenset(_fold(max(w.split(), key=len)) for pack in packs
                                   for w in list(pack.time_prepositions) + list(pack.purpose_prepositions))
        self.past_states = frozenset(tuple(_fold(w).split()) for pack in packs for w in pack.past_state_words)
        self.past_keys = frozenset(max(seq, key=len) for seq in self.past_states)
        # compared with their accents: fr "é" is no "e" ("apte", "aeronavegable")
        self.participle_endings = tuple(exact(e) for pack in packs for e in pack.participle_endings)
        self.time_words = frozenset(_fold(w) for pack in packs for w in pack.time_words)
        # after "N/M", words that make it a date or a measure, not a count (``core.partial``): stop
        # words but the counts' connectors ("3/4 of the wheels" counts), clause breaks, times, units
        self.not_counted = ((self.stop - PART_CONNECTORS) | self.time_words | self.ordinal_times
                            | frozenset(_fold(w) for pack in packs for w in pack.clause_break_words)
                            | frozenset(_fold(w) for pack in packs for words in pack.unit_words.values()
                                        for w in words))
        # an earlier occasion ("last time"): unlike a day gone by, no act it reports stands now
        self.past_occasions = frozenset(day for day in (tuple(_fold(t) for t in tokenize(w) if t.strip())
                                                        for pack in packs for w in pack.past_occasions) if day)
        self.past_times = frozenset(day for day in (tuple(_fold(t) for t in tokenize(w) if t.strip())
                                                    for pack in packs for w in pack.past_time_words)
                                    if day) | self.past_occasions
        self.ago_keys = frozenset(max(day, key=len) for day in self.past_times)
        self.since_words = frozenset(_fold(w) for pack in packs for w in pack.since_words)
        self.to_come = frozenset(tuple(_fold(w).split()) for pack in packs for w in pack.to_come_words)
        self.to_come_keys = frozenset(seq[-1] for seq in self.to_come)  # "be": rarer than "to"
        self.finding_words = frozenset(_fold(w) for pack in packs for w in pack.finding_words)
        # stop words that name a part of what a clearance's term names, right before it ("some
        # lots released")
        self.part_words = frozenset(_fold(w) for pack in packs for w in pack.part_words)
        # stop words that order steps, right beside a clearance's term ("Next: clear to close")
        self.step_words = frozenset(_fold(w) for pack in packs for w in pack.step_words)
        # ordinals in words that are stop words ("first", "premier"): read as "1st" is
        self.spelled_ordinals = frozenset(_fold(w) for pack in packs for w in pack.spelled_ordinals)
        self.numbered_steps = frozenset(_fold(w) for pack in packs for w in pack.numbered_steps)
        self.step_pronouns = frozenset(_fold(w) for pack in packs for w in pack.step_pronouns)
        # stop words that tie a clearance to an event, right beside its term ("Lufttüchtig nach
        # Inspektion"): ``unexplain_conditions``
        self.condition_prepositions = frozenset(_fold(w) for pack in packs for w in pack.condition_prepositions)
        self.condition_events = frozenset(_fold(w) for pack in packs for w in pack.condition_events)
        self.condition_articles = frozenset(_fold(w) for pack in packs for w in pack.condition_articles)
        # a check asked for or still to do ("Airworthy; check brakes", "lab will confirm"):
        # ``unexplain_checks``
        self.check_verbs = frozenset(_fold(w) for pack in packs for w in pack.check_verbs)
        self.check_done = frozenset(_fold(w) for pack in packs for w in pack.check_done_words)
        self.request_words = frozenset(_fold(w) for pack in packs for w in pack.request_words)
        self.check_adverbs = frozenset(_fold(w) for pack in packs for w in pack.check_adverbs)
        self.to_do_markers = frozenset(_fold(w) for pack in packs for w in pack.to_do_markers)
        self.to_do_auxiliaries = frozenset(_fold(w) for pack in packs for w in pack.to_do_auxiliaries)
        self.checks_present = frozenset(_fold(w) for pack in packs for w in pack.check_verbs_present)
        # with their accents: fr "confirme" (present) is no "confirmé" (done)
        self.checks_present_written = frozenset(exact(w) for pack in packs for w in pack.check_verbs_present)
        self.later_words = frozenset(_fold(w) for pack in packs for w in pack.later_words)
        self.clock_prepositions = frozenset(_fold(w) for pack in packs for w in pack.clock_prepositions)
        self.check_prepositions = frozenset(_fold(w) for pack in packs for w in pack.check_prepositions)
        self.check_participles = frozenset(_fold(w) for pack in packs for w in pack.check_participles)
        self.progress_auxiliaries = frozenset(_fold(w) for pack in packs for w in pack.progress_auxiliaries)
        self.part_prepositions = frozenset(_fold(w) for pack in packs for w in pack.part_prepositions)
        self.purpose_prepositions = frozenset(_fold(w) for pack in packs for w in pack.purpose_prepositions)
        self.kept_prefixes = frozenset(_fold(w) for pack in packs for w in pack.kept_prefixes)
        self.clause_final_pseudos = frozenset(tuple(_fold(t) for t in tokenize(w) if t.strip())
                                              for pack in packs for w in pack.clause_final_pseudos)
        self.purpose_articles = frozenset(_fold(w) for pack in packs if pack.purpose_prepositions
                                          for w in pack.signed_articles)
        self.clearance_verbs = frozenset(_fold(w) for pack in packs for w in pack.clearance_verbs)
        self.conjunctions = frozenset(_fold(w) for pack in packs for w in pack.list_conjunctions)
        # where a clause break may begin in a word, asked only of words of the BREAK kind
        self._break_starts = cached(65536)(self.clauses.break_starts)
        # domain (None for every domain the glossary lacks) -> word key -> rule, with the kinds
        self._word_facts: Dict[Optional[str], IndexedCache] = {}
        # the same facts by the word's text, which outlives a memory zone (see ``read``)
        self._text_facts: Dict[Optional[str], WordCache] = {}
        self._packs = generation()  # the set of packs the facts were learnt with
        # domain -> its parties without authority and the speakers written with their accents (``hearsay``)
        self._parties: Dict[str, FrozenSet[str]] = {}

    def read(self, domain: Optional[str], keys: Sequence[Hashable],
             text_of: Callable[[Hashable], str]) -> WordReading:
        """What the word of each token says by itself in ``domain``.

        A word's facts depend on its text and the domain alone, so they are worked
        out once per distinct word and each token is one look-up. They are kept
        per domain in a ``util.caches.IndexedCache`` keyed by ORTH (bounded by
        ``cache_size``), whose sets of keys say which words may start a clause
        break or belong to a longer phrase, and in a ``util.caches.WordCache``
        keyed by the word's text. Inside a memory zone a new word is learnt by its
        text alone: keyed by strings we own, that cache keeps a word that a later
        document of the zone meets again and drops the zone's one-off words when it
        ends, so a stream decided zone after zone does not work its vocabulary out
        anew in every zone. A word kept by its text is kept by its key too; no
        one-off word's key stays. Every domain the glossary lacks shares one of each.

        domain (Optional[str]): The case's domain.
        keys (Sequence[Hashable]): A key per token that stands for its text alone (spaCy's ORTH).
        text_of (Callable[[Hashable], str]): The text of a key (asked only for keys not seen yet).
        RETURNS (WordReading): The rule of each token by its word alone, and the kinds of its words.
        """
        if self._packs != generation():  # a pack registered since: its numbers in words are ``NUMBER``s too
            self._word_facts.clear()
            self._text_facts.clear()
            self._packs = generation()
        rules = self.domains.get(domain) if domain else None
        known = domain if rules is not None else None
        table = self._word_facts.get(known)
        if table is None:
            table = self._word_facts[known] = IndexedCache(self.cache_size, _KINDS)
            self._text_facts[known] = WordCache(self.cache_size)
        try:
            return list(map(table.__getitem__, keys)), table.kinds
        except KeyError:
            return self._read_new(table, self._text_facts[known], rules or self.empty, keys, text_of)

    def _read_new(self, table: IndexedCache, by_text: WordCache, rules: DomainRules, keys: Sequence[Hashable],
                  text_of: Callable[[Hashable], str]) -> WordReading:
        """``read`` for a text with a word ``table`` lacks: its facts are learnt (``read``)."""
        make = partial(self._word_facts_of, rules=rules)
        if not in_memory_zone():
            table.learn(keys, lambda key: by_text.lasting(text_of(key), make)[0])
            return list(map(table.__getitem__, keys)), table.kinds
        # Inside a zone: the kinds of the keys the table holds are taken at the text's end, or
        # before the table keeps a word when it is full, since keeping one then empties it (and
        # its sets: ``IndexedCache.keep``).
        sets, out = table.kinds, []
        own: Dict[str, Set[Hashable]] = {kind: set() for kind in _KINDS}
        known: List[Hashable] = []  # keys read from the table since their kinds were last taken

        def take_kinds() -> None:
            for kind in _KINDS:
                own[kind].update(sets[kind].intersection(known))
            known.clear()

        for key in keys:
            rule = table.get(key, _MISSING)
            if rule is not _MISSING:
                known.append(key)
            else:
                (rule, kinds), kept = by_text.lasting(text_of(key), make)
                if kept:  # a word kept by its text is no zone's one-off
                    if len(table) >= table.max_size:
                        take_kinds()
                    table.keep(key, rule)
                    for kind in kinds:
                        sets[kind].add(key)
                for kind in kinds:
                    own[kind].add(key)
            out.append(rule)
        take_kinds()
        return out, own

    def _word_facts_of(self, text: str, rules: DomainRules) -> WordFacts:
        """The facts of one word (``WordFacts``)."""
        folded = _fold(text)
        in_phrase = text in rules.name_words or folded in rules.neutral_seq_words
        return (self._word_rule(text, rules), _kinds_of(bool(self.clauses.break_starts(text)), in_phrase,
                                                           folded in self.openers, folded in self.question_openers,
                                                           folded in rules.no_authority
                                                           or folded in self.clitic_words
                                                           or folded in self.subjectless_saying
                                                           or folded in self.closing_speakers
                                                           or folded in self.opening_speakers
                                                           or folded in self.subject_speakers
                                                           or folded in self.possessive_speakers
                                                           or folded in self.inverted_speakers
                                                           or (bool(self.written_speakers)
                                                               and exact(text) in self.written_speakers),
                                                           folded in self.saying or folded in SIGNATURE_MARKS or folded in LABEL_MARKS
                                                           or folded in OPEN_BRACKETS or closes_label(folded),
                                                           folded in self.time_keys, folded in self.time_words,
                                                           folded in self.past_keys, folded in self.ago_keys,
                                                           folded in self.to_come_keys, folded in self.tag_ends,
                                                           folded in self.part_words or folded in self.step_words
                                                           or folded in self.spelled_ordinals
                                                           or folded in self.since_words
                                                           or folded in self.purpose_prepositions
                                                           or folded in self.request_words
                                                           or folded in self.condition_prepositions
                                                           or folded in self.check_verbs
                                                           or folded in self.to_do_auxiliaries
                                                           or folded in self.progress_auxiliaries
                                                           or folded in self.checks_present
                                                           or folded in self.clearance_verbs,
                                                           text.isalpha() and number_word(text),
                                                           exact(text) in self.approximation_words,
                                                           folded in self.condition_prepositions,
                                                           folded in self.purpose_prepositions,
                                                           folded in self.request_words,
                                                           folded in self.spelled_ordinals,
                                                           folded in self.since_words))

    def breaks(self, text: str, reading: WordReading, keys: Sequence[Hashable], starts: Sequence[int],
               ends: Sequence[int]) -> List[Tuple[int, int]]:
        """The clause breaks of ``text`` (``ClauseRule.breaks``), tried only at the tokens whose
        word may start one (``ClauseRule.breaks_at``; a token that starts none adds nothing).

        RETURNS (List[Tuple[int, int]]): Every clause break as (start_char, end_char), in text order.
        """
        found_starts: List[int] = []
        found_offsets: List[Tuple[int, ...]] = []
        break_starts, may_break = self._break_starts, reading[1][BREAK]
        for i in [i for i, key in enumerate(keys) if key in may_break]:
            start, end = starts[i], ends[i]
            found_starts.append(start)
            # a one-character word that may start a break starts it at its only character
            found_offsets.append(_AT_START if end - start == 1 else break_starts(text[start:end]))
        return self.clauses.breaks_at(text, found_starts, found_offsets)

    def explain_breaks(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                       ends: Sequence[int], breaks: Sequence[Tuple[int, int]]) -> List[Optional[str]]:
        """A clause-break cue ("but", "however", "salvo", "mientras que", "alors que") is explained,
        as a cue, when the clause it opens reaches a term; otherwise its words stay unexplained, in
        place, even those that are stop words one by one ("alors", "que").

        Such a cue qualifies what came before it. "No rush but cleared to close"
        states the clearance after it, and reads in full; in "Clear to close, but
        the wire", "Lote liberado salvo el envío" or "Lot libéré, alors que le
        dossier" the clause it opens holds no term, so the text says that
        something qualifies the clearance in words no rule reads, and the clause
        escalates. Read as stop words, the cues would have let them proceed
        (``lang.break_cue_words``, ``lang.break_cue_phrases``).

        explained (List[Optional[str]]): The rule per token (``explain_words``), completed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        breaks (Sequence[Tuple[int, int]]): The text's clause breaks (``breaks``), a break word's own among them.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        n = len(explained)
        for b, (start, end) in enumerate(breaks):
            if not text[start].isalpha():
                continue  # punctuation: no cue
            i = bisect_left(starts, start)
            if i == n or starts[i] != start:
                continue
            k = bisect_left(starts, end, i)  # the cue's tokens are i..k-1
            if k - i == 1:
                if explained[i] is not None or _fold(text[start:end]) not in self.break_words:
                    continue
            elif (TERM in explained[i:k]
                  or " ".join(_fold(text[start:end]).split()) not in self.break_phrases):
                continue
            clause_end = breaks[b + 1][0] if b + 1 < len(breaks) else len(text)
            j = k
            while j < n and starts[j] < clause_end and explained[j] is not TERM:
                j += 1
            opens_a_term = j < n and starts[j] < clause_end
            explained[i:k] = [CUE if opens_a_term else None] * (k - i)
        return explained

    def unglue_shapes(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                      ends: Sequence[int], domain: Optional[str]) -> List[Optional[str]]:
        """Rule 5 over what a person reads as one word, in place: tokens of neutral shape that
        stand together with no space between them are read whole, less their outer
        punctuation, and left unexplained when the whole is no neutral shape, or when a run of
        punctuation holds an emoticon of the trouble symbols (">_>", cut into ">", "_", ">").

        The tokenizer may cut a word apart where its letters and digits meet: "A0G" (AOG, a
        problem, written with a zero) is "A0" and "G", each of a neutral shape (an
        identifier, an initial) that rule 5 explains; read whole, it is a word written with
        digits for letters, which rule 5 does not explain. "10:05-10:50" or "N123AB." read
        whole are shapes still.

        explained (List[Optional[str]]): The rule per token (``explain_words``), completed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        domain (Optional[str]): The case's domain.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        if explained.count(SHAPE) < 2:
            return explained
        rules = self.domains.get(domain) if domain else None
        rules = rules or self.empty
        n, i = len(explained), 0
        while i < n:
            if explained[i] is not SHAPE:
                i += 1
                continue
            j = i + 1  # the run of shape tokens i..j-1 with nothing between them
            while j < n and ends[j - 1] == starts[j] and (explained[j] is SHAPE or _letter(explained[j], text,
                                                                                          starts[j], ends[j])):
                j += 1
            if j - i > 1 and unreadable_run(text[starts[i]:ends[j - 1]]):
                # ">_>": an emoticon the tokenizer cut into punctuation; "30.02.": a day no year has
                explained[i:j] = [None] * (j - i)
                i = j
                continue
            if i > 0 and ends[i - 1] == starts[i] and _letter(explained[i - 1], text, starts[i - 1], ends[i - 1]):
                i -= 1  # "A/C", "U/S": a letter that is also a stop word (es "a", "u", "o") is part of it
            first, last = i, j - 1
            while first < last and not any(ch.isalnum() for ch in text[starts[first]:ends[first]]):
                first += 1
            while last > first and not any(ch.isalnum() for ch in text[starts[last]:ends[last]]):
                last -= 1
            if last > first and self._word_rule(text[starts[first]:ends[last]], rules) is None:
                explained[first:last + 1] = [None] * (last + 1 - first)
            i = j
        return explained

    def unspell(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                ends: Sequence[int]) -> List[Optional[str]]:
        """Rules 3 and 5 taken back, in place, for words a person reads that no token is: letters
        written one by one, a single space apart, that spell a never-neutral word or a word that
        states a problem ("N O T clear to close", "Ｎ Ｏ Ｔ", "Ⓝ Ⓞ Ⓣ"; not "A B C", nor every
        glossary word: "T O"), each an initial or a stop word alone; and a stop word
        glued by a hyphen (or a dash) before a term, a word of the domain's phrases or a neutral
        word, which makes another word of it ("un-airworthy", "lot released -> un-released",
        "docs un-signed", "mis-label", es and fr "un", es "mis" being stop words; "non-airworthy"
        is never neutral already), where it starts the compound (the "to" of "clear-to-close" is
        none); before a neutral word that is a check's participle a pack's ``kept_prefixes`` keep
        their rule ("re-checked", "e-signed": an act done; not "re-label", "re-work", an order to
        redo it), and so does a single letter ("A-check" names a check).

        RETURNS (List[Optional[str]]): ``explained``.
        """
        if _SPELT.search(text) is not None:
            n, i = len(explained), 0
            while i < n:
                j = i
                while (j < n and ends[j] - starts[j] == 1 and explained[j] is not None
                       and (j == i or starts[j] - ends[j - 1] <= 1)):
                    j += 1
                if j - i > 1 and "".join(_fold(text[starts[k]]) for k in range(i, j)) in self._spelt:
                    explained[i:j] = [None] * (j - i)
                i = max(j, i + 1)
        if "-" in text or "–" in text or "‐" in text:
            for i in range(len(explained) - 2):
                if explained[i] is not STOP_WORD or explained[i + 2] not in _PREFIXED:
                    continue
                glued = (ends[i] == starts[i + 1] and ends[i + 1] == starts[i + 2]
                         and text[starts[i + 1]:ends[i + 1]] in _JOINERS)
                first_piece = i == 0 or ends[i - 1] != starts[i]  # "clear-to-close": its "to" is none
                prefix = text[starts[i]:ends[i]]
                kept = explained[i + 2] is NEUTRAL and (
                    len(prefix) == 1  # "A-check" names a check
                    or (_fold(prefix) in self.kept_prefixes
                        and _fold(text[starts[i + 2]:ends[i + 2]]) in self.check_participles))
                if glued and first_piece and not kept:
                    explained[i] = None
        return explained

    def hearsay(self, text: str, reading: WordReading, keys: Sequence[Hashable], starts: Sequence[int],
                ends: Sequence[int], domain: Optional[str],
                explained: Sequence[Optional[str]]) -> List[Tuple[int, int]]:
        """Each party without authority and its word of saying (``core.hearsay``), as token ranges.

        reading, keys: The words' facts (``read``) and the tokens' ORTH; only a text holding a
            party and a word of saying is read further.
        explained: The rule per token; ``TERM`` marks a term's tokens.
        """
        kinds = reading[1]
        rules = self.domains.get(domain or "")
        # a text with a party and a word of saying, or a line break (a party alone on the last line signs it)
        if rules is None or kinds[PARTY].isdisjoint(keys) or (kinds[SAYING].isdisjoint(keys) and "\n" not in text):
            return []
        candidates = [i for i, key in enumerate(keys) if key in kinds[SAYING]]
        in_names: List[Set[int]] = []

        def is_name(i: int) -> bool:
            """Whether token i is a word of a known name, whatever rule explained it ("Gate" of
            "Iron Gate Parts" is a neutral word too); the names are matched once, when asked."""
            if not in_names:
                texts = [text[s:e] for s, e in zip(starts, ends)]
                in_names.append(_match(texts, rules.names) if rules.names else set())
            return i in in_names[0]

        folded_words, written, folded_written = _words_of(text, starts, ends), self.written_speakers, self._written_folded
        seen: Dict[int, str] = {}  # the rules ask for a word again and again: each is read once

        def words(i: int) -> str:
            """The folded word, or the word as written when that is a speaker ("él")."""
            word = seen.get(i)
            if word is None:
                word = folded_words(i)
                if word in folded_written:
                    as_written = exact(text[starts[i]:ends[i]])
                    word = as_written if as_written in written else word
                seen[i] = word
            return word

        # the tokens with a line break, found in the text (a text without one has no lines to read)
        line_breaks = [i for i, (s, e) in enumerate(zip(starts, ends)) if "\n" in text[s:e]] if "\n" in text else ()
        parties = self._parties.get(domain)
        if parties is None:  # one set per domain, kept: its hash is the key of what hearsay_spans derives
            parties = self._parties[domain] = rules.no_authority | self.written_speakers
        return hearsay_spans(words, len(keys), candidates, parties,
                             self.saying, lambda i: explained[i] is TERM, is_name, self.speaker_words,
                             lambda i: explained[i] is STOP_WORD, lambda i: i > 0 and starts[i] == ends[i - 1],
                             line_breaks)

    def times(self, text: str, reading: WordReading, keys: Sequence[Hashable], starts: Sequence[int],
              ends: Sequence[int], explained: Sequence[Optional[str]],
              clearances: Callable[[], Sequence[Tuple[int, int]]], now: Optional[str] = None
              ) -> List[Tuple[int, int]]:
        """Each time a clearance is set for, each past it is stated for and each state to come it is
        put in (``core.time_conditions``), as token ranges in text order.

        A time counts in a clause with a clearance, or in a clause of its own ("Clear to close,
        by 18:00"); one among other words of another clause sets it for them ("Airworthy; crew at
        the gate by 06:00").

        reading, keys: The words' facts (``read``) and the tokens' ORTH; only a text holding a word
            that sets a time, states a past or puts a state to come, is read further.
        explained: The rule per token: a neutral word, a name or a domain phrase after a time makes
            it name a thing ("from 14:05 call"); a stop word may stand after a past ("was also").
        clearances (Callable[[], Sequence[Tuple[int, int]]]): (start, end) tokens of every
            clearance term, asked only when such a word occurs.
        now (Optional[str]): The case's current time: a date, or a year alone, in the statement
            of a clearance that states a state counts unless it is the day (the year) of ``now``
            (``time_conditions.other_days``).
        """
        kinds = reading[1]
        timed = []
        # a time is written with a digit or as a day's word
        if not kinds[TIMES].isdisjoint(keys) and (_DIGIT.search(text) or not kinds[DAYS].isdisjoint(keys)):
            # a word that sets a time within a few tokens after a term's last ("a partir de" is keyed by "partir")
            n, times = len(keys), kinds[TIMES]
            after_term = any(explained[i] is TERM and explained[i + 1] is not TERM
                             and any(key in times for key in keys[i + 1:i + 5]) for i in range(n - 1))
            timed = time_conditions(text, starts, ends,
                                    lambda i: self._names_a_thing(explained[i], text[starts[i]:ends[i]]),
                                    lambda i: explained[i] is TERM,
                                    lambda i: _fold(text[starts[i]:ends[i]]) in self.condition_events,
                                    after_term)
        # a past counts right before a term, with at most two words between
        past, ago = kinds[PAST], kinds[AGO]
        pasts = not past.isdisjoint(keys) and any(
            TERM in explained[i + 1:i + 4] for i, key in enumerate(keys) if key in past)
        # a state to come counts right before or after a term, with at most two words between
        coming = kinds[COMING]
        comes = not coming.isdisjoint(keys) and any(
            TERM in explained[max(i - 5, 0):i + 4] for i, key in enumerate(keys) if key in coming)
        word = _words_of(text, starts, ends)
        days = [] if ago.isdisjoint(keys) else past_times(
            word, len(keys), [i for i, key in enumerate(keys) if key in ago], self.past_times, self.since_words,
            _is_count)
        days = [self._with_its_hour(word, len(keys), day, explained) for day in days]
        dated = other_days(text, starts, ends, now, lambda i: explained[i] is TERM) if _DIGIT.search(text) else []
        if not timed and not pasts and not days and not comes and not dated:
            return []
        terms = clearances()
        if not terms:
            return []
        found = [(first, end) for first, end in timed
                 if any(self._one_clause(text, starts, ends, (first, end), term)
                        or self._own_clause_beside(text, starts, ends, (first, end), term) for term in terms)]
        def participle(i: int) -> bool:
            return self._participle(text[starts[i]:ends[i]])

        if pasts:
            found += past_states(word, terms, self.past_states, participle, lambda i: explained[i] is STOP_WORD)
        # a clearance with a participle reports an act that stands ("was cleared", "released to be loaded");
        # the participle opens or closes its phrase: "cruzada" inside "prueba cruzada negativa" names the test
        states = [term for term in terms if not (participle(term[0]) or participle(term[1] - 1))]
        if comes:
            # a conjunction starts a predicate of its own ("Clear to close and can be signed today")
            found += states_to_come(word, len(keys), terms, self.to_come,
                                    lambda i: (explained[i] is STOP_WORD and word(i) not in self.conjunctions)
                                    or _between(word(i)),
                                    lambda term: any(participle(i) for i in range(*term)), self.finding_words)
        if days:
            # a day in a clause of its own beside the state, in its sentence or as a sentence of its
            # own, stop words before it aside ("Airworthy, yesterday", "Airworthy. Yesterday.",
            # "Negative crossmatch – from yesterday"); not one that opens the next sentence's clause
            # ("Clear to close. Yesterday, docs received.")
            def led(day: Tuple[int, int]) -> Tuple[int, int]:
                first = day[0]
                while first > 0 and explained[first - 1] is STOP_WORD and word(first - 1).isalpha():
                    first -= 1
                return first, day[1]

            def occasion(day: Tuple[int, int]) -> bool:
                said = tuple(w for w in (word(k) for k in range(*day)) if w.strip())
                return any(said[:len(o)] == o for o in self.past_occasions)

            found += [day for day in days if any(self._one_clause(text, starts, ends, day, term)
                                                 or (self._own_clause_beside(text, starts, ends, led(day), term)
                                                     and (not _statement_ends_between(word, day, term)
                                                          or _alone_in_statement(word, len(keys), day)))
                                                 for term in (terms if occasion(day) else states))]
        if dated:
            # a date anywhere in the statement of the state ("From the 2019 file: clear to close")
            statements = [statement_of(word, len(keys), term[0]) for term in states]
            found += [day for day in dated if any(first <= day[0] < end for first, end in statements)
                      and not any(s < day[1] and day[0] < e for s, e in found)]
        return sorted(set(found))

    def _with_its_hour(self, word: Callable[[int], str], n: int, day: Tuple[int, int],
                       explained: Sequence[Optional[str]]) -> Tuple[int, int]:
        """A day gone by with the time of day that follows it, which is part of it ("yesterday
        evening", "yesterday at 14:00", "gestern Abend", "ayer por la noche")."""
        first, end = day
        while end < n:
            if word(end) in self.later_words or word(end) in self.time_words or is_time_or_date(word(end)):
                end += 1
            elif explained[end] is STOP_WORD and any(word(k) in self.later_words or is_time_or_date(word(k))
                                                     for k in range(end + 1, min(n, end + 3))):
                end += 1  # "at", "por la" before the hour
            else:
                break
        return first, end

    def _present_as_written(self, token: str) -> bool:
        """Whether a token read as a check verb in the present tense is one as written: an accent
        the verb does not have makes another form of it (fr "confirmé" is done, "confirme" to
        come); without accents ("verifie") it is read as the verb."""
        written = exact(token)
        return written == fold(token) or written in self.checks_present_written

    def _participle(self, word: str) -> bool:
        """Whether a word ends as a participle of a pack (``participle_endings``, with accents)."""
        return bool(self.participle_endings) and exact(word).endswith(self.participle_endings)

    def _names_a_thing(self, rule: Optional[str], word: str) -> bool:
        """Whether a word after a time makes it name a thing ("14:05 call", "06:00 shift"): a
        word a neutral list, a known name or a domain phrase explains, and no word of time."""
        return rule in _THING_RULES and _fold(word) not in self.time_words

    def _one_clause(self, text: str, starts: Sequence[int], ends: Sequence[int], a: Tuple[int, int],
                    b: Tuple[int, int]) -> bool:
        """Whether two token ranges stand in one clause (no clause break between them)."""
        (_, a_end), (b_start, _) = sorted((a, b))
        return a_end >= b_start or not self.clauses.break_between(text, ends[a_end - 1], starts[b_start])

    def _own_clause_beside(self, text: str, starts: Sequence[int], ends: Sequence[int], timed: Tuple[int, int],
                           term: Tuple[int, int]) -> bool:
        """Whether a time is a clause of its own right beside a clearance's clause ("Clear to close,
        by 18:00"; "By 18:00 - clear to close"): one break stands between the two and nothing else,
        and one more break, or the text's edge, on its other side."""
        (_, a_end), (b_start, _) = sorted((timed, term))
        gap = text[ends[a_end - 1]:starts[b_start]]
        if any(ch.isalnum() for ch in gap) or len(self.clauses.breaks(gap)) != 1:
            return False
        if timed[0] > term[0]:  # after the clearance: the time runs to a break or the end
            return self.clauses.starts_in_break(text, ends[timed[1] - 1])
        return self.clauses.ends_in_break(text, starts[timed[0]])

    def questions(self, text: str, reading: WordReading, keys: Sequence[Hashable], starts: Sequence[int],
                  ends: Sequence[int], explained: Sequence[Optional[str]] = ()) -> List[Tuple[int, int]]:
        """The sentences asked by their word order and the tags that ask (``core.questions``), as
        token ranges in text order.

        reading, keys: The words' facts (``read``) and the tokens' ORTH; only a text holding an
            opener or a tag's last word is read further.
        explained: The rule per token: a word a neutral list, a known name or a domain phrase
            explains names a thing, which may be a question's subject ("is aircraft airworthy",
            "is loan clear to close"); so does a term's word that no participle is, right after a
            form of "to be" (``question_copulas``) that opens its sentence (``opens_sentence``, with no
            bare number before it), when the term goes on after it or a participle follows ("is lot
            released", "is CTC issued"; but "is released to service" states with its subject
            dropped, "have CRS signed" reports, and "2207 is clear to close" may say what is clear).
        """
        openers, tags = reading[1][ASKS], reading[1][TAGS]
        asks = not openers.isdisjoint(keys)
        ends_tag = not tags.isdisjoint(keys)
        if not asks and not ends_tag:
            return []
        word = _words_of(text, starts, ends)

        def participle(i: int) -> bool:
            return self._participle(text[starts[i]:ends[i]])

        def names_a_thing(i: int) -> bool:
            if i >= len(explained):
                return False
            if explained[i] is TERM:
                opener, after = previous_word(word, i - 1), next_word(word, len(explained), i + 1)
                return (opener >= 0 and after < len(explained)
                        and (explained[after] is TERM or participle(after)) and not participle(i)
                        and word(opener) in self.question_copulas
                        and opens_sentence(word, opener, self.question_preamble, self.question_addressees,
                                           bare_numbers=False))
            return explained[i] in _SUBJECT_RULES

        asked, tagged = [], []
        if asks:
            asked = word_order_questions(word, len(keys), [i for i, key in enumerate(keys) if key in openers],
                                         self.question_openers, self.question_subjects, self.question_wishes,
                                         names_a_thing, self.question_preamble, self.question_addressees)
        if ends_tag:
            candidates = [i for i, key in enumerate(keys) if key in tags]
            # a tag follows a comma ("…, right") or a clearance's last word ("Lufttüchtig oder")
            tagged = tag_questions(word, len(keys), candidates, self.question_tags, lambda i: explained[i] is TERM)
            if self.question_ends:
                tagged += final_questions(word, len(keys), candidates, self.question_ends,
                                          lambda i: explained[i] is TERM)
                tagged.sort()
        if not tagged:
            return asked
        inside = {i for first, end in asked for i in range(first, end)}
        return sorted(asked + [tag for tag in tagged if tag[0] not in inside])

    def unexplain_parts(self, explained: List[Optional[str]], text: str, reading: WordReading,
                        keys: Sequence[Hashable], starts: Sequence[int], ends: Sequence[int]) -> List[Optional[str]]:
        """Rule 3 taken back, in place, for a stop word of a pack's ``part_words`` right before a
        clearance's term: "Some lots released", "Quelques lots libérés" clear a part only;
        "several shipments booked" names no clearance's part and stays a stop word. So for a word
        of ``step_words`` right beside a term, marks but no sentence's end between: "Next: clear
        to close", "Airworthy next", "First lot released" order the clearance as a step still to
        come; "next shift", "Airworthy; first departure 06:00" do not. Beyond the term: a part
        word after a word of ``part_prepositions`` right after one ("Batch released for some
        orders") or two words at most before a check's participle ("several docs signed"), and a
        step word that ends its clause after a word that names a thing ("brakes first, thanks").

        explained (List[Optional[str]]): The rule per token, changed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        reading, keys: The words' facts (``read``) and the tokens' ORTH; only a text holding such a
            word is read further.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        parts = reading[1][PART]
        if parts.isdisjoint(keys):
            return explained
        n = len(explained)

        def term_beside(i: int, step: int, marks: bool) -> bool:
            j = i + step
            while 0 <= j < n and not any(ch.isalnum() for ch in text[starts[j]:ends[j]]):
                if text[starts[j]:ends[j]].strip() and (not marks or ends_statement(text[starts[j]:ends[j]])):
                    return False
                j += step
            return 0 <= j < n and explained[j] is TERM

        words = _words_of(text, starts, ends)

        def for_a_part(i: int) -> bool:
            """A part word after a word of ``part_prepositions`` right after a term: "Batch released
            for some orders", "Negative crossmatch for some samples"; not "and many thanks"."""
            j = previous_word(words, i - 1)
            return j > 0 and words(j) in self.part_prepositions and explained[previous_word(words, j - 1)] is TERM

        def done(j: int) -> bool:
            """A word that says something was done: "several docs signed", "some samples confirmed"."""
            return words(j) in self.finding_words or words(j) in self.check_participles

        def done_after(i: int) -> bool:
            """Whether one of the two words after i says something was done ("several docs
            signed"; not "certain the logbook is signed")."""
            j = next_word(words, n, i + 1)
            for _ in range(2):
                if j >= n or _ends_clause(words(j)):
                    return False
                if done(j):
                    return True
                j = next_word(words, n, j + 1)
            return False

        def orders_a_step(i: int) -> bool:
            """A step word that ends its clause after a word that names a thing ("brakes first,
            thanks", "logbook first please", "call me first": a pronoun of ``step_pronouns`` between),
            or after a numbered item, colon or not, for a word of ``numbered_steps`` ("wheel 4
            next", "sample 2: next"); not "is the first", "order 4471
            first", "first departure 06:00", "the file checked first" (a participle: a step done).
            Opening its clause it cannot be told from a greeting's ("First of all, thanks", "Next,
            the signing at 14:00") by the words around it."""
            before, after = previous_word(words, i - 1), next_word(words, n, i + 1)
            numbered = words(i) in self.numbered_steps
            if numbered and before >= 0 and words(before) == ":":
                before = previous_word(words, before - 1)
            ordered = False  # "call me first": the order's verb, a stop word or not, before whom it is about
            if before > 0 and words(before) in self.step_pronouns:
                verb = previous_word(words, before - 1)
                ordered = verb >= 0 and explained[verb] is not TERM and words(verb).isalpha()
                before = verb if ordered else before
            while after < n and words(after) in self.request_words:
                after = next_word(words, n, after + 1)
            thing = before >= 0 and (ordered or explained[before] in _THING_RULES or (
                numbered and explained[before] is SHAPE and words(before)[:1].isdigit()))
            return (thing and (after >= n or _ends_clause(words(after)) or "\n" in text[ends[i]:starts[after]])
                    and not self._participle(text[starts[before]:ends[before]]))

        for i, key in enumerate(keys):
            if key not in parts or explained[i] is not STOP_WORD:
                continue
            folded = _fold(text[starts[i]:ends[i]])
            if folded in self.part_words and (term_beside(i, 1, False) or for_a_part(i)
                                              or done_after(i)):
                explained[i] = None
            elif folded in self.step_words and (term_beside(i, 1, True) or term_beside(i, -1, True)
                                                or orders_a_step(i)):
                explained[i] = None
        return explained

    def unexplain_conditions(self, explained: List[Optional[str]], text: str, reading: WordReading,
                             keys: Sequence[Hashable], starts: Sequence[int],
                             ends: Sequence[int]) -> List[Optional[str]]:
        """Rule 3 taken back, in place, for a stop word of a pack's ``condition_prepositions``
        that ties a clearance's term to an event of ``condition_events``, perhaps with an
        article of ``condition_articles`` between: right after the term, marks aside
        ("Lufttüchtig nach Inspektion", "Kreuzprobe negativ vor dem Check", "Lufttüchtig, nach
        A-Check", with up to two words naming the event: "Clear to close on loan funding") or opening the clause right before it ("Nach Check lufttüchtig", "Nach Check:
        lufttüchtig"). The clearance holds after, before or with the event, which a reader must
        place, as en "after" and es "después" say (never neutral there). de "nach"
        and "vor" are too common to be never neutral: "nach AMM 05-10" (according to), "Flug
        nach Hamburg", "gemeldet nach dem Check" (a participle between) stay stop words.

        explained (List[Optional[str]]): The rule per token, changed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        reading, keys: The words' facts (``read``) and the tokens' ORTH; only a text holding such a
            word is read further.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        conditions = reading[1][CONDITION]  # the keys of the words of ``condition_prepositions``
        if conditions.isdisjoint(keys):
            return explained
        words = _words_of(text, starts, ends)
        n = len(explained)
        for i in [i for i, key in enumerate(keys) if key in conditions]:
            if explained[i] is None:
                continue
            event = i + 1
            if event < n and words(event) in self.condition_articles:
                event += 1
            if event + 2 < n and len(words(event)) == 1 and words(event + 1) == "-":
                event += 2  # "nach A-Check"
            skipped = 0  # up to two words that name which event ("on loan funding", "nach Flugzeug-Check")
            while (skipped < _EVENT_MODIFIERS and event < n and words(event) not in self.condition_events
                   and explained[event] is not TERM and words(event).isalpha()):
                event += 1
                skipped += 1
                if event + 1 < n and words(event) == "-" and ends[event - 1] == starts[event]:
                    event += 1  # a compound's hyphen
            if event >= n or words(event) not in self.condition_events:
                continue
            before = i - 1
            while before >= 0 and _between(words(before)):
                before -= 1  # "Lufttüchtig, nach Check", "Lufttüchtig\nnach Inspektion"
            after = event + 1
            while after < n and _between(words(after)):
                after += 1  # "Nach Check: lufttüchtig"
            after_term = before >= 0 and explained[before] is TERM
            opener = previous_word(words, i - 1)  # what stands right before: the clause's start?
            before_term = after < n and explained[after] is TERM and (opener < 0 or _ends_clause(words(opener)))
            if after_term or before_term:
                explained[i] = None
        return explained

    def unexplain_checks(self, explained: List[Optional[str]], text: str, reading: WordReading,
                         keys: Sequence[Hashable], starts: Sequence[int],
                         ends: Sequence[int]) -> List[Optional[str]]:
        """Rule 7 (or 3) taken back, in place, for a check asked for or still to do: the spec's
        neutral "check" and "confirm" also order one ("Airworthy; check brakes", "Negative
        crossmatch; please confirm with lab"), and a stop word can put one still to come ("lab
        will confirm", "dossier à vérifier"). So a word of the packs' ``check_verbs`` is
        unexplained where it follows a word of ``to_do_markers``, or opens its clause (after marks
        or ``request_words`` only) with words after it in its clause; unless one of those is a
        word of ``check_done_words`` right after it or after the check's name, which make it no
        order: a check done ("Check complete: airworthy", "Confirm received"), a check named
        ("Check is in the file", "Check A complete"), another verb ("crew will check in at
        05:00"); further on, the word is what the order asks to see ("check brakes are ok"). "lab checked" and "QC check"
        have a word before the verb, and order nothing, unless a request word ends its clause ("lab
        confirm pls"). Words of ``check_adverbs`` may stand before it as request words do ("just
        check brakes"). Still to come or to do, whatever stands before: a verb of
        ``check_verbs_present`` with a clock time after it (``scheduled``), an auxiliary of
        ``to_do_auxiliaries`` before a check's participle, and a verb of ``clearance_verbs`` after a
        marker with nothing but times after it.

        explained (List[Optional[str]]): The rule per token, changed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        reading, keys: The words' facts (``read``) and the tokens' ORTH; only a text holding such a
            word is read further.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        parts = reading[1][PART]
        if parts.isdisjoint(keys) or not self.check_verbs:
            return explained
        n = len(explained)
        words = _words_of(text, starts, ends)

        def to_do(j: int) -> bool:
            return j >= 0 and words(j) in self.to_do_markers and explained[j] is not TERM

        def orders(i: int) -> bool:
            j = previous_word(words, i - 1)
            while j >= 0 and (words(j) in self.request_words or words(j) in self.check_adverbs):
                j = previous_word(words, j - 1)
            # a subject or another word before it orders nothing ("lab checked", "QC check"); a
            # conjunction right after a term opens a clause of its own ("Airworthy and check brakes")
            opens = (j < 0 or not any(ch.isalnum() for ch in words(j)) or to_do(j)
                     or (words(j) in self.conjunctions and j > 0 and explained[previous_word(words, j - 1)] is TERM))
            k, said, last = next_word(words, n, i + 1), False, -1
            if opens and k < n and words(k) in _ITEM_MARKS and TERM in explained[:i]:
                # a checklist's item after the clearance: "Airworthy; Check: brakes", "check - brakes";
                # "Check: N123AB airworthy" heads a report
                k = next_word(words, n, k + 1)
            first = k
            while k < n and (any(ch.isalnum() for ch in words(k)) or not _ends_clause(words(k))):
                # a word of a check done right after the verb, or after the check's name ("Check
                # complete", "Check A complete"); further on it is what the order asks to see
                # ("check brakes are ok", "confirm the wire is in")
                if words(k) in self.check_done and (k == first or (last == first and _names_a_check(words(first)))):
                    return False
                said = said or any(ch.isalnum() for ch in words(k))
                last = k
                k = next_word(words, n, k + 1)
            asked = last > i and words(last) in self.request_words  # "lab confirm pls"
            return asked or (opens and (said or to_do(j)))

        def scheduled(i: int) -> bool:
            """A check in the present tense with a clock time or a later time in words after it in its
            clause, and neither a term nor a word of a check done there: still to come ("lab confirms
            at 14:00", "QA checks labels this afternoon"); not "lab confirmed at 14:00", "Lab confirms
            negative crossmatch at 03:12", which reports, "Checks complete 06:30", nor a stamp ("Lab
            confirms 03:12: …", "Lab confirms this morning: …")."""
            k, timed = next_word(words, n, i + 1), False
            while k < n and (any(ch.isalnum() for ch in words(k)) or not _ends_clause(words(k))):
                word = words(k)
                if explained[k] is TERM or word in self.check_done:
                    return False  # it reports the clearance, or a check done ("Checks complete 06:30")
                clock = is_bare_clock(word) and words(previous_word(words, k - 1)) in self.clock_prepositions
                if word in self.later_words or (is_time_or_date(word) and any(ch.isdigit() for ch in word)) or clock:
                    after = next_word(words, n, k + 1)
                    if after < n and (closes_label(words(after)) or words(after) in SIGNATURE_MARKS):
                        return False  # a stamp: "Lab confirms 03:12: negative crossmatch"
                    timed = True
                k = next_word(words, n, k + 1)
            return timed

        def clearance_to_do(i: int) -> bool:
            """A verb of the clearance itself after a marker, with nothing but times after it in its
            clause: a clearance still to give ("title to clear", "funds to clear today", "QP will
            release", "dossier à clôturer"; not "sent to loan processor", "ready to close at 14:00")."""
            if not to_do(previous_word(words, i - 1)):
                return False
            k = next_word(words, n, i + 1)
            while k < n and (any(ch.isalnum() for ch in words(k)) or not _ends_clause(words(k))):
                if words(k) not in self.time_words and words(k) not in self.request_words:
                    return False
                k = next_word(words, n, k + 1)
            return True

        def still_to_do(i: int) -> bool:
            """An auxiliary after a marker and before a check's participle: a check still to do
            ("brakes to be checked", "docs are to be signed"; not "to be loaded today", "crew to be
            at the gate", "confirmed to be airworthy")."""
            k = next_word(words, n, i + 1)
            return to_do(previous_word(words, i - 1)) and k < n and words(k) in self.check_participles

        def in_progress(i: int) -> bool:
            """An auxiliary of ``progress_auxiliaries`` before a check's participle in its clause, and
            neither a term nor a word of a check done between: a check not done yet ("brakes get
            checked at 14:00", "Akte wird geprüft", "wird vom Labor bestätigt";
            not "Kreuzprobe wird als negativ bestätigt", which states the term)."""
            k = next_word(words, n, i + 1)
            while k < n and (any(ch.isalnum() for ch in words(k)) or not _ends_clause(words(k))):
                if explained[k] is TERM or words(k) in self.check_done:
                    return False
                if words(k) in self.check_participles:
                    return True
                k = next_word(words, n, k + 1)
            return False

        def asks_with(i: int) -> bool:
            """A verb in the present tense that opens its clause with a word of ``check_prepositions``
            right after it: an order, as the imperative of the same form ("confirma con el
            laboratorio"); "Confirma el laboratorio: …" names who states it."""
            k = next_word(words, n, i + 1)
            return k < n and words(k) in self.check_prepositions and orders(i)

        for i, key in enumerate(keys):
            if key not in parts or explained[i] is TERM or explained[i] is CUE or explained[i] is None:
                continue
            word = words(i)
            if ((word in self.check_verbs and orders(i)) or (word in self.to_do_auxiliaries and still_to_do(i))
                    or (word in self.checks_present and self._present_as_written(text[starts[i]:ends[i]])
                        and (scheduled(i) or asks_with(i)))
                    or (word in self.progress_auxiliaries and in_progress(i))
                    or (word in self.clearance_verbs and clearance_to_do(i))):
                explained[i] = None
        return explained

    def explain_after(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                      ends: Sequence[int]) -> List[Optional[str]]:
        """Rule 3 for a never-neutral stop word right after a word its pack names
        (``neutral_after``), in place: "back" stays unexplained in "sent back" and "back with
        underwriting", where it reports a reversal, and is a stop word in "called back".

        explained (List[Optional[str]]): The rule per token, completed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        if self._after_words is None or (text.isascii() and self._after_in_ascii is not None
                                         and self._after_in_ascii.search(text.lower()) is None):
            return explained
        if self._after_words.search(text) is None:
            return explained
        for i in range(1, len(explained)):
            if explained[i] is None:
                before = self.neutral_after.get(_fold(text[starts[i]:ends[i]]))
                if before and _fold(text[starts[i - 1]:ends[i - 1]]) in before:
                    explained[i] = STOP_WORD
        return explained

    def unexplain_open_pseudos(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                               ends: Sequence[int], matches: Sequence[Sequence[Any]]) -> List[Optional[str]]:
        """Rule 2 taken back, in place, for the first word of a pseudo cue of a pack's
        ``clause_final_pseudos`` that a word follows in its clause: "defects, if any, logged" has
        "if any" as the pseudo cue the spec lists, but "Clear to close if any funds received" makes
        a condition of "if", which the pseudo cue would hide."""
        if not self.clause_final_pseudos or not matches:
            return explained
        words = _words_of(text, starts, ends)
        n = len(explained)
        for match in matches:
            start, end, label = match[0], match[1], match[2]
            if label != PSEUDO or tuple(words(k) for k in range(start, end) if words(k).strip()) \
                    not in self.clause_final_pseudos:
                continue
            after = next_word(words, n, end)
            if after < n and any(ch.isalnum() for ch in words(after)):
                explained[start] = None
        return explained

    def unread_approximations(self, explained: List[Optional[str]], text: str, reading: WordReading,
                              keys: Sequence[Hashable], starts: Sequence[int],
                              ends: Sequence[int]) -> List[Optional[str]]:
        """A mark or word of approximation with no value after it in its clause, unexplained in
        place (``core.approximations``); only a text that holds one is read further: a token that is
        a word of ``approximation_words`` (``exact``, as the rule compares it) is of the ``APPROX``
        kind, and one that is a mark is in the text."""
        if reading[1][APPROX].isdisjoint(keys) and (self._approximation_mark is None
                                                    or self._approximation_mark.search(text) is None):
            return explained
        return unread_approximations(explained, text, starts, ends, self.approximation_marks,
                                     self.approximation_words, number_word, TERM)

    def _is_ordinal(self, word: str) -> bool:
        """Whether a word is a number with an ordinal ending (``ordinal_suffixes``),
        as written or read as a person sees it ("2ⁿᵈ"); in capitals only the endings a pack lists so
        ("2ND": ``capital_ordinal_suffixes``), others being another word's ("777ER", a type's
        extended range)."""
        ordinal = self._ordinal
        return ordinal is not None and (ordinal.fullmatch(word) is not None
                                        or ordinal.fullmatch(unicodedata.normalize("NFKC", word)) is not None)

    def _dotted_ordinals(self, text: str, starts: Sequence[int], ends: Sequence[int]) -> List[int]:
        """The tokens that are a number with a full stop glued to it, after a word of a
        pack's ``ordinal_articles`` and before a word (de "das 2. Flugzeug", "am 3. Tag"): an ordinal,
        whose stop ends no sentence."""
        if not self.ordinal_articles or _DOTTED_NUMBER.search(text) is None:
            return []
        n, word, found = len(starts), _words_of(text, starts, ends), []
        for i in range(1, n - 2):
            if (ends[i] == starts[i + 1] and word(i + 1) == "." and _ORDINAL_NUMBER.fullmatch(word(i))
                    and starts[i + 2] > ends[i + 1] and word(i + 2)[:1].isalpha()):
                before = previous_word(word, i - 1)
                if before >= 0 and word(before) in self.ordinal_articles:
                    found.append(i)
        return found

    def unread_dotted_ordinals(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                               ends: Sequence[int]) -> List[int]:
        """Rule 5 does not explain a number that is an ordinal with its full stop (``_dotted_ordinals``),
        as it does not explain "2nd": ``explain_ordinals`` reads it as it reads those.

        explained (List[Optional[str]]): The rule per token, changed here.
        RETURNS (List[int]): The dotted ordinals, for ``explain_ordinals``: they depend on the text
            alone, so the text is read for them once.
        """
        dotted = self._dotted_ordinals(text, starts, ends)
        for i in dotted:
            if explained[i] is SHAPE:
                explained[i] = None
        return dotted

    def unread_spelled_ordinals(self, explained: List[Optional[str]], text: str, reading: WordReading,
                                keys: Sequence[Hashable], starts: Sequence[int], ends: Sequence[int]) -> List[int]:
        """Rule 3 does not explain an ordinal in words that spaCy's stop words hold (a pack's
        ``spelled_ordinals``: "first", "primer", "premier", "erste") before a word:
        ``explain_ordinals`` reads it as it reads "1st", so "Clear to close for the first file"
        asks which file as "… for the 1st file" does, and "first shift", "le premier jour"
        order a time. With no word after it, it orders no item ("you were first", "closing on
        the first"); beside a term it is a step (``step_words``: "First lot released").

        explained (List[Optional[str]]): The rule per token, changed here.
        RETURNS (List[int]): The tokens left unexplained, for ``explain_ordinals``.
        """
        if reading[1][ORDINAL].isdisjoint(keys):
            return []
        word = _words_of(text, starts, ends)
        found = [i for i, after in _stop_words_in(explained, word, self.spelled_ordinals)
                 if after < len(explained) and any(ch.isalnum() for ch in word(after))]
        for i in found:
            explained[i] = None
        return found

    def unread_since_ends(self, explained: List[Optional[str]], text: str, reading: WordReading,
                          keys: Sequence[Hashable], starts: Sequence[int], ends: Sequence[int]) -> List[Optional[str]]:
        """Rule 3 does not explain a word of a pack's ``since_words`` that ends its clause: with
        no time after it, it says "since then", after what the text states ("Cleared to close
        yesterday, loan package updated since"), a change the clearance may not hold through;
        before a time it says where a state began ("Airworthy, since yesterday").

        explained (List[Optional[str]]): The rule per token, changed here.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        if reading[1][SINCE].isdisjoint(keys):
            return explained
        word = _words_of(text, starts, ends)
        for i, after in list(_stop_words_in(explained, word, self.since_words)):
            if after >= len(explained) or _ends_clause(word(after)):
                explained[i] = None
        return explained

    def unread_purposes(self, explained: List[Optional[str]], text: str, reading: WordReading,
                        keys: Sequence[Hashable], starts: Sequence[int], ends: Sequence[int],
                        clearances: Callable[[], Sequence[Tuple[int, int]]]) -> List[Optional[str]]:
        """Rule 3 does not explain a word of a pack's ``purpose_prepositions`` ("for", "para",
        "pour") right before a clearance's term, an article at most between: "Ready for clear to
        close", "File sent for CTC", "Dossier envoyé pour autorisé à clôturer" name the clearance
        as the goal of a step, not as given. After the term the word gives its scope ("Clear to
        close for file 2207") and stays a stop word.

        explained (List[Optional[str]]): The rule per token, changed here.
        clearances (Callable[[], Sequence[Tuple[int, int]]]): (start, end) tokens of every
            clearance term, asked only when such a word occurs.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        purposes = reading[1][PURPOSE]  # the keys of the words of ``purpose_prepositions``
        if purposes.isdisjoint(keys):
            return explained
        word = _words_of(text, starts, ends)
        n = len(explained)
        found = [i for i, key in enumerate(keys) if key in purposes and explained[i] is STOP_WORD]
        if not found:
            return explained
        firsts = {start for start, _ in clearances()}
        for i in found:
            j = next_word(word, n, i + 1)
            if j < n and j not in firsts and explained[j] is STOP_WORD and word(j) in self.purpose_articles:
                j = next_word(word, n, j + 1)  # "sent for the CTC"
            if j in firsts:
                explained[i] = None
        return explained

    def unread_requests(self, explained: List[Optional[str]], text: str, reading: WordReading,
                        keys: Sequence[Hashable], starts: Sequence[int], ends: Sequence[int],
                        clearances: Callable[[], Sequence[Tuple[int, int]]]) -> List[Optional[str]]:
        """A word of a pack's ``request_words`` ("please", "pls", "bitte", "por favor") in the
        clause of a clearance's term is unexplained: "Please clear to close", "CTC for file 2207
        please" ask for the clearance, they do not give it. In another clause it asks for
        something else ("Cleared to close, please fund") and stays what its rule says; a word
        that also thanks (fr "merci", ``sign_off_thanks``) is read as thanks ("lot libéré 👍
        merci").

        explained (List[Optional[str]]): The rule per token, changed here.
        clearances (Callable[[], Sequence[Tuple[int, int]]]): (start, end) tokens of every
            clearance term, asked only when such a word occurs.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        requests = reading[1][REQUEST]  # the keys of the words of ``request_words``
        if requests.isdisjoint(keys):
            return explained
        word = _words_of(text, starts, ends)
        found = [i for i, key in enumerate(keys) if key in requests and explained[i] is not None
                 and explained[i] is not TERM and (word(i),) not in self.sign_off_thanks]
        if not found:
            return explained
        terms = clearances()
        for i in found:
            if any(self._one_clause(text, starts, ends, (i, i + 1), term) for term in terms):
                explained[i] = None
        return explained

    def explain_ordinals(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                         ends: Sequence[int], spelled: Sequence[int] = (),
                         dotted: Optional[Sequence[int]] = None) -> List[Optional[str]]:
        """Rule 5 for an ordinal in digits ("1st", "2nd", "2º", "3e") in a clause without a
        term that holds more than the ordinal and one word: there it orders something else
        ("Airworthy; 2nd sector 10am", "Clear to close, closing on the 3rd"); beside the term it
        picks one of several ("2nd aircraft airworthy": which one?), and so it does in a clause
        of the ordinal and its noun alone, stop words aside, in the term's sentence, which names
        the item ("Airworthy, 2nd aircraft", "Airworthy, the 2nd one", "Lufttüchtig, das 2.
        Flugzeug", "2nd recipient: negative crossmatch"; not "Airworthy; 2nd sector", a statement
        of its own); it stays unexplained (``_word_rule``), and so it does before a count's
        connector in a text with a term ("Lot released: 2nd of 4 lots", "the 1st of the three
        batches"). Before a word of a pack's ``ordinal_times`` or ``time_words`` it orders a time
        or a place, wherever it stands ("2nd shift: engineer confirms …", "on the 3rd day", "le
        1er mars").

        An ordinal in words (``unread_spelled_ordinals``) is read the same way; where this
        explains it, it is the stop word it is ("the first shift", "closing on the first").

        explained (List[Optional[str]]): The rule per token, completed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        spelled (Sequence[int]): The ordinals in words (``unread_spelled_ordinals``).
        dotted (Optional[Sequence[int]]): The ordinals with their full stop (``unread_dotted_ordinals``);
            None: read from the text here.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        dotted = set(self._dotted_ordinals(text, starts, ends) if dotted is None else dotted)
        spelled = set(spelled)
        if (self._ordinal is None or self._ordinal_in_text.search(text) is None) and not dotted and not spelled:
            return explained
        n = len(explained)
        word = _words_of(text, starts, ends)
        for i in range(n):
            if explained[i] is None and (i in dotted or i in spelled or self._is_ordinal(text[starts[i]:ends[i]])):
                tail = i + 2 if i in dotted else i + 1  # "das 2. Flugzeug": its stop ends nothing
                explains = STOP_WORD if i in spelled else SHAPE
                after = next_word(word, n, tail)
                if after < n and (word(after) in self.ordinal_times or word(after) in self.time_words):
                    explained[i] = explains  # "2nd shift: …", "the 3rd day", "le 1er mars": a time or a place
                    continue
                if after < n and word(after) in PART_CONNECTORS and TERM in explained:
                    month = next_word(word, n, after + 1)
                    if month < n and word(month) in self.time_words:
                        explained[i] = explains  # "the 1st of March": a day
                    elif i in spelled and all(explained[k] is STOP_WORD or not word(k).strip()
                                              for k in range(after + 1, self._clause_end(word, n, after))):
                        explained[i] = STOP_WORD  # "first of all": no count after it
                    continue  # "the 1st of the three batches", "2nd of 4 lots": one of a count, wherever it stands
                first = i
                while first > 0 and not _ends_clause(text[starts[first - 1]:ends[first - 1]]):
                    first -= 1
                end = tail
                while end < n and not _ends_clause(text[starts[end]:ends[end]]):
                    end += 1
                if TERM in explained[first:end]:
                    continue
                # the words of the clause that say something (no stop word: "the 2nd aircraft", "el 2o avión")
                words_said = [k for k in range(first, end) if any(ch.isalnum() for ch in text[starts[k]:ends[k]])]
                said = [k for k in words_said if k != i and explained[k] is not STOP_WORD]
                if len(words_said) <= 2 or not said or said == [after]:
                    # the ordinal and its noun: beside a term in its sentence, they name the item
                    first, end = statement_of(word, n, i)[0], statement_of(word, n, tail)[1]
                if TERM not in explained[first:end]:
                    explained[i] = explains
        return explained

    @staticmethod
    def _clause_end(word: Callable[[int], str], n: int, i: int) -> int:
        """The token after the clause of token i (exclusive end), as ``_ends_clause`` marks clauses."""
        i += 1
        while i < n and not _ends_clause(word(i)):
            i += 1
        return i

    def explain_split(self, explained: List[Optional[str]], text: str, starts: Sequence[int],
                      ends: Sequence[int], norm_of: Callable[[int], str]) -> List[Optional[str]]:
        """Rule 3 for a stop word the tokenizer split in two, in place: spaCy's English
        exceptions read German "im" as "i" + "m" (for "I'm"), and "m" alone is no stop word.
        Two glued tokens, each a stop word or unexplained, whose joined text is a stop word
        ("im", not the never-neutral "cannot"), are that word, unless the tokenizer read an
        unexplained piece as a word of its own that is none: "dont" is "do" + "nt", and the "nt"
        it reads "not" (its NORM) keeps "Dont fund" from being French "dont".

        explained (List[Optional[str]]): The rule per token, completed here.
        text (str): The text; starts, ends: the tokens' character offsets.
        norm_of (Callable[[int], str]): A token's NORM, as the tokenizer set it.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        def plain(k: int) -> bool:
            norm = _fold(norm_of(k))
            return norm == _fold(text[starts[k]:ends[k]]) or norm in self.stop

        n = len(explained)
        for k in [k for k, rule in enumerate(explained) if rule is None]:
            for i in (k, k + 1):  # the pair that ends at k, then the one that starts there
                if not 0 < i < n or ends[i - 1] != starts[i]:
                    continue
                pair = (explained[i - 1], explained[i])
                if (all(rule is None or rule is STOP_WORD for rule in pair)
                        and _fold(text[starts[i - 1]:ends[i]]) in self.stop
                        and all(plain(j) for j in (i - 1, i) if explained[j] is None)):
                    explained[i - 1] = explained[i] = STOP_WORD
        return explained

    @staticmethod
    def explain_words(rules: List[Optional[str]], covered: Iterable[Tuple[int, int]],
                      cues: Iterable[Tuple[int, int, str]]) -> List[Optional[str]]:
        """Rules 1 and 2 over each token's rule by its word alone (``read``), in place.

        rules (List[Optional[str]]): The rule per token by its word alone; completed here.
        covered (Iterable[Tuple[int, int]]): (token_start, token_end) of the tokens inside a term,
            frame, field mention or quantity span (rule 1).
        cues (Iterable[Tuple[int, int, str]]): (token_start, token_end, label) of every cue match
            (rule 2); a clause-break cue is left to ``explain_breaks``.
        RETURNS (List[Optional[str]]): ``rules``: the rule per token; a token is ``TERM`` exactly
            when ``covered`` holds it.
        """
        n = len(rules)
        for start, end, label in cues:
            start, end = max(start, 0), min(end, n)
            if start < end and label != BREAK_CUE:
                rules[start:end] = [CUE] * (end - start)
        for start, end in covered:  # rule 1 comes first
            rules[start:end] = [TERM] * (end - start)
        return rules

    @staticmethod
    def writes_numbers(reading: WordReading, keys: Sequence[Hashable]) -> bool:
        """Whether a word of the text, letters only, is a number in words (``NUMBER``): only then
        may ``findings`` read one as an identifier of a series ("lot 42 … lot forty-three")."""
        return not reading[1][NUMBER].isdisjoint(keys)

    @staticmethod
    def may_open_break(reading: WordReading, keys: Sequence[Hashable]) -> bool:
        """Whether a word of the text opens a clause-break cue of two words or more: its words,
        stop words one by one, are explained only by ``explain_breaks``."""
        return not reading[1][OPENER].isdisjoint(keys)

    @staticmethod
    def phrases_may_explain(explained: Sequence[Optional[str]], reading: WordReading,
                            keys: Sequence[Hashable]) -> bool:
        """Whether a token still unexplained is a word of a known name or of a longer neutral
        entry: only such a token can rules 6 and 7 explain (the ``ner`` and ``titlecase``
        sources aside), so a text without one needs no look at its phrases.

        explained (Sequence[Optional[str]]): ``explain_words``' answer.
        reading (WordReading): The text's words (``read``).
        keys (Sequence[Hashable]): The token keys it was read from.
        """
        in_phrase = reading[1][PHRASE]
        if in_phrase.isdisjoint(keys):
            return False
        return any(rule is None and key in in_phrase for rule, key in zip(explained, keys))

    def explain_phrases(self, explained: List[Optional[str]], texts: Sequence[str], domain: Optional[str], *,
                        sentence_starts: Optional[Set[int]] = None, entity_tokens: Optional[Set[int]] = None,
                        titlecase: bool = False) -> List[Optional[str]]:
        """Rules 6 and 7 for the tokens ``explain_words`` left unexplained, in place.

        They need a look at the neighbours (whole phrases) or the doc (entities,
        sentence starts), so only a text with an unexplained word gets it.

        explained (List[Optional[str]]): ``explain_words``' answer, completed here.
        texts (Sequence[str]): The token texts.
        domain (Optional[str]): The case's domain.
        sentence_starts: Indices of tokens that start a sentence (``titlecase`` only);
            None: worked out from sentence-end punctuation and line breaks.
        entity_tokens: Token indices of NER_LABELS entities when the ``ner`` source is on.
        titlecase: Whether the ``titlecase`` source is on.
        RETURNS (List[Optional[str]]): ``explained``.
        """
        rules = self.domains.get(domain or "", self.empty)
        name_tokens = _match(texts, rules.names) if rules.names else ()
        neutral_tokens = _match([_fold(t) for t in texts], rules.neutral_seqs) if rules.neutral_seqs else ()
        if titlecase and sentence_starts is None:
            sentence_starts = _sentence_starts(texts)
        for i, rule in enumerate(explained):
            if rule is not None:
                continue
            if (i in name_tokens or (entity_tokens and i in entity_tokens)
                    or (titlecase and i not in sentence_starts and _titlecase_name(texts[i]))):
                explained[i] = NAME
            elif i in neutral_tokens:
                explained[i] = NEUTRAL
        return explained

    def _word_rule(self, text: str, rules: DomainRules) -> Optional[str]:
        """The first rule that explains a word by itself (3, 4, 5, 7 one-word entries), or None.

        Kept per domain and word (``read``): a stream repeats its words,
        and every answer depends on the text alone.
        """
        if self.accented_never and exact(text) in self.accented_never:
            return None  # "dès", whatever its folded form "des" is
        if text in self.cased_never:
            return None  # "TODO", whatever "todo" is
        f = _fold(text)
        if f in self.stop or (self.accented_stop and exact(text) in self.accented_stop):
            return STOP_WORD
        if (f in rules.phrase_words or (rules.phrase_keys and self.form_key(f) in rules.phrase_keys
                                        and not self._in_progress(f))) and (
                text.isascii() or exact(text) == f or f in self._accented_phrase_words
                or self.form_key(f) in self._accented_phrase_words):
            # an accent that no phrase's word has makes another word: fr "raté" is no "rate", "volés" no "vol"
            return DOMAIN_PHRASE
        if (is_neutral_shape(text) and not self._spelled_with_digits(text) and not holds_trouble_symbol(text)
                and not self._is_ordinal(text)
                and not self._names_a_problem(text) and not self._spells_an_unexplained_word(text, rules)
                and not _SCIENTIFIC.fullmatch(text) and not is_impossible_time_or_date(text)):
            return SHAPE
        if f in rules.neutral_words:
            # a one-word neutral entry; a known name is found later, but both explain the word
            return NEUTRAL
        return None

    def _in_progress(self, folded: str) -> bool:
        """Whether a folded word ends as a form in progress does (a pack's ``progressive_endings``):
        rule 4 explains "closes", "closed" by the phrase's word, but "funds clearing", "engine
        servicing", "se está liberando" say the act is under way, not done, whatever the phrase
        states. The phrase's own words ("closing" where a phrase has it) and neutral words keep
        their rules."""
        return any(folded.endswith(e) and len(folded) > len(e) + 2 for e in self._progressive)

    def _spelled_with_digits(self, text: str) -> bool:
        """Whether a token holding a digit is a word with digits for letters, not an identifier:
        a digit stands between two small letters ("fai1ed", "gr0unded", "cr4cked"), or the
        token reads as a word of the glossary or a declared ambiguous abbreviation ("A0G",
        "0OS"). Rule 5 explains an identifier
        ("N123AB", "A320neo", "LOT-42"); such a word it leaves unexplained, as a person would
        not read it as a code (``textview.digit_spellings``). Of one letter, a token reads as a
        word only with a zero for its "o" and a never-neutral word for its reading ("N0"
        airworthy: "no"); "N1", "A1", "T0" stay identifiers."""
        readings = digit_spellings(text)
        if not readings:
            if len(text) == 2 and "0" in text and text.isalnum() and not text.isdigit():
                return text.lower().replace("0", "o") in self._never
            return False
        for found in _DIGITS_IN_WORD.finditer(text):
            if text[found.start() - 1].islower() and text[found.end()].islower():
                return True
        return not self._spellable.isdisjoint(map(_fold, readings))

    def _names_a_problem(self, text: str) -> bool:
        """Whether an identifier holds a word that by itself states a problem or escalates
        ("AOG-7", "OOS-42": ``_problem_words``): it names the problem, so rule 5 does not
        explain it ("LOT-42" does not: "lot" is a clearance's word)."""
        return any(_fold(part) in self.problem_words for part in _LETTER_RUNS.findall(_no_numerals(text)))

    def _spells_an_unexplained_word(self, text: str, rules: DomainRules) -> bool:
        """Whether an identifier spells out a word of five letters or more that no rule explains
        by itself ("LOT-FAILED-42", "INC-2231-WRONG-PATIENT"): the word says something the
        identifier's shape does not. "N123AB", "INC0012345" and "LOT-42" hold no such word; an
        e-mail address, @mention or #tag is explained whole (rule 5). A URL's host names a
        site and is not read; its path may say what the page is about, so each word of three
        letters or more in it must be explained ("…/sample-mislabeled-redraw" is not), a file
        type aside. A reviewer who teaches the word as neutral ("COVID-19": "covid") explains
        the identifier too."""
        if EMAIL.match(text) or HANDLE.match(text):
            return False
        if URL.match(text):
            path = _URL_PATH.match(text).group(1)
            return any(self._word_rule(part, rules) is None for part in _PATH_WORDS.findall(_no_numerals(path))
                       if part.lower() not in _FILE_TYPES)
        plain = _no_numerals(text)
        return any(self._word_rule(part, rules) is None for part in _WORD_RUNS.findall(plain) if part != text) or any(
            _fold(part) in self._code_words and self._word_rule(part, rules) is None
            for part in _SHORT_RUNS.findall(plain) if part != text)


def _problem_words(glossary: GlossarySet) -> FrozenSet[str]:
    """Words that by themselves state a problem in some domain, folded: one-word critical
    phrases, abbreviations and translations ("AOG", "grounded"), outcome words of critical frame
    values ("positive"), and declared ambiguous abbreviations ("OOS"), which escalate."""
    words: Set[str] = set()
    for dom in glossary.domains.values():
        words.update(dom.critical_words())  # folded as ``_fold`` folds
        words.update(_fold(amb.abbreviation) for amb in dom.ambiguous)
    return frozenset(words)


#: the most words between a condition's preposition (and article) and its event ("on loan funding")
_EVENT_MODIFIERS = 2
#: marks that end a clause for a verb of checking (``unexplain_checks``), besides a statement's end
_CLAUSE_MARKS = frozenset({",", ":", "-", "–", "—", "(", ")"})
#: marks between a verb of checking and what it names as a checklist's item ("Check: brakes")
_ITEM_MARKS = frozenset({":", "-", "–", "—"})


def _names_a_check(word: str) -> bool:
    """Whether a word names a check of a series: a letter or a number ("A" of "Check A", "2")."""
    return len(word) == 1 or any(ch.isdigit() for ch in word)


def _statement_ends_between(words: Callable[[int], str], a: Tuple[int, int], b: Tuple[int, int]) -> bool:
    """Whether a statement ends between two token ranges (``questions.ends_statement``)."""
    (_, a_end), (b_start, _) = sorted((a, b))
    return any(ends_statement(words(k)) for k in range(a_end, b_start))


def _alone_in_statement(words: Callable[[int], str], n: int, a: Tuple[int, int]) -> bool:
    """Whether a token range is all its statement holds after it ("Yesterday." but not "Yesterday, docs
    received.")."""
    k = a[1]
    while k < n and not ends_statement(words(k)):
        if any(ch.isalnum() for ch in words(k)):
            return False
        k += 1
    return True


def _between(word: str) -> bool:
    """Whether a token may stand between a condition and its term, or between a clearance and
    the words that put its state still to come: a mark that ends no statement, a comma among
    them, or a run of spaces ("Lufttüchtig, nach Check", "Nach Check: lufttüchtig", "Akte
    abschlussbereit, wird bestätigt")."""
    return not word.strip() or (not any(ch.isalnum() for ch in word) and not ends_statement(word))


def _ends_clause(word: str) -> bool:
    """Whether a mark ends the clause a verb of checking stands in."""
    return word in _CLAUSE_MARKS or ends_statement(word)


def _no_numerals(text: str) -> str:
    """The text with a space for every numeral character: ``\\d`` matches decimal digits only,
    so a letter run would hold a superscript or circled digit ("close¹", "label①")."""
    return text if text.isascii() else "".join(" " if ch.isnumeric() else ch for ch in text)


#: the letter runs of a token ("OOS-42": "OOS"), and those of five letters or more (of
#: ``_no_numerals``)
_LETTER_RUNS = re.compile(r"[^\W\d_]+")
_WORD_RUNS = re.compile(r"[^\W\d_]{5,}")
#: a run of three or four letters in an identifier, which names a word only when it is one
_SHORT_RUNS = re.compile(r"(?<![^\W\d_])[^\W\d_]{3,4}(?![^\W\d_])")


@lru_cache(maxsize=1)
def _short_words() -> FrozenSet[str]:
    """Words of three or four letters that an identifier may spell and that say something by
    themselves ("TBD-1", "LOT-NOT-2"): every pack's negation and hedge
    cue words and never-neutral words. A dictionary would not do: codes are words as often as
    not ("REC-0093" record, "DON-4410" donor)."""
    words = set()
    for pack in language_packs().values():
        for record in pack.cues.records:
            if record.category in (NEGATION, HEDGE) and " " not in record.cue.strip():
                words.add(_fold(record.cue))
    words.update(_fold(w) for w in never_neutral_words())
    return frozenset(w for w in words if 3 <= len(w) <= 4)
#: what follows a URL's host, and the words in it
_URL_PATH = re.compile(r"^(?:https?://|www\.)[^/?#]*(.*)$", re.IGNORECASE)
_PATH_WORDS = re.compile(r"[^\W\d_]{3,}")
_FILE_TYPES = frozenset({"pdf", "htm", "html", "php", "aspx", "jsp", "doc", "docx", "xls", "xlsx", "csv", "txt",
                         "png", "jpg", "jpeg", "json", "xml", "zip"})


def _critical_short_words(glossary: GlossarySet, tokenize, stop: FrozenSet[str]) -> FrozenSet[str]:
    """Words of three or four letters of the critical phrases of every domain, stop words
    aside ("hold" of "quarantine hold", "open" of "open write-up", "lien"): spelt in an
    identifier ("QA-HOLD-2", "WO-OPEN-7") they may name the problem the phrase states, and no
    rule explains them (rule 4 leaves a word of critical phrases only unexplained)."""
    words: Set[str] = set()
    for dom in glossary.domains.values():
        for term in dom.terms:
            if term.signal != "critical_block":
                continue
            for text, _, _, _ in term.variants():
                words.update(w for w in (_fold(t) for t in tokenize(text))
                             if 3 <= len(w) <= 4 and w.isalpha() and w not in stop)
    return frozenset(words)


def _glossary_words(glossary: GlossarySet, tokenize) -> FrozenSet[str]:
    """Every word of every phrase, abbreviation, translation and frame of every domain, folded."""
    words: Set[str] = set()
    for dom in glossary.domains.values():
        texts = [text for term in dom.terms for text, _, _, _ in term.variants()]
        for frame in dom.frames:
            texts.extend(frame.heads)
            texts.extend(v for values in frame.values.values() for v in values)
        for text in texts:
            words.update(_fold(t) for t in tokenize(text) if any(c.isalpha() for c in t))
    return frozenset(words)


#: a number in scientific notation ("6e2", "8.5E1"): a value no rule reads, which a person reads
#: as a number ("6e2 °C" is 600 °C), so no identifier's neutral shape
_SCIENTIFIC = re.compile(r"[+-]?[0-9]+(?:[.,][0-9]+)?[eE][+-]?[0-9]+")

#: two characters standing alone, a single space between them, read from the space: the first two
#: of letters spelt one by one
_SPELT = re.compile(r" (?<=(?<!\S)\S )\S(?!\S)")

#: a run of digits with a letter on each side
_DIGITS_IN_WORD = re.compile(r"(?<=[^\W\d_])\d+(?=[^\W\d_])")


#: a number with a full stop glued to it before a word (de "2. Flugzeug"), and a number an ordinal may have
_DOTTED_NUMBER = re.compile(r"\d\.\s+[^\W\d_]")
_ORDINAL_NUMBER = re.compile(r"0*[1-9]\d*")


def _is_count(word: str) -> bool:
    """Whether a folded word is a count: digits, or a number in words of a pack ("zwei", "drei")."""
    return word.isdigit() or number_word(word)


def _stop_words_in(explained: Sequence[Optional[str]], word: Callable[[int], str],
                   words: FrozenSet[str]) -> Iterator[Tuple[int, int]]:
    """(token, the token of the next word) for each token rule 3 explains whose word is one of
    ``words``: the stop words some rule reads by what follows them."""
    n = len(explained)
    for i, rule in enumerate(explained):
        if rule is STOP_WORD and word(i) in words:
            yield i, next_word(word, n, i + 1)


def _any_of(marks: Iterable[str]) -> Optional["re.Pattern"]:
    """A pattern that finds any of ``marks`` in a text, in one pass over it; None for no mark."""
    marks = sorted(marks)
    return re.compile("|".join(map(re.escape, marks))) if marks else None


def _in_ascii(words: Iterable[str]) -> Optional["re.Pattern"]:
    """What an ASCII text in lower case holds wherever ``\\b(?:words)\\b``, case-insensitive, finds a
    word in it: one of the words in ASCII, in lower case (a pattern found before that one, which is
    tried at every character); None when a word other than ASCII may also be found there (a letter
    of it matches one in ASCII case-insensitively, as the Kelvin sign does "k")."""
    ascii_words, other = set(), set()
    for word in words:
        (ascii_words if word.isascii() else other).add(word)
    if not ascii_words or any(all(ch.isascii() or _ASCII_CASE.fullmatch(ch) for ch in word) for word in other):
        return None
    return re.compile("|".join(re.escape(word.lower()) for word in sorted(ascii_words)))


#: a character that matches an ASCII letter case-insensitively (IGNORECASE)
_ASCII_CASE = re.compile("[a-z]", re.IGNORECASE)


def _words_of(text: str, starts: Sequence[int], ends: Sequence[int]) -> Callable[[int], str]:
    """A token's word as the rules compare it (folded), by index: what the rules of findings of
    their own (``core.hearsay``, ``core.questions``, ``core.time_conditions``) read."""
    return lambda i: _fold(text[starts[i]:ends[i]])


def _titlecase_name(text: str) -> bool:
    """A Titlecase word that no lemma table of en/es/fr/de holds (the ``titlecase`` source)."""
    return text.istitle() and text.isalpha() and len(text) > 1 and text.lower() not in dictionary_words()


def _match(texts: Sequence[str], seqs: Dict[str, List[Tuple[str, ...]]]) -> Set[int]:
    """Indices of tokens inside a whole-phrase match of one of the sequences, leftmost-longest."""
    hit: Set[int] = set()
    i, n = 0, len(texts)
    while i < n:
        step = 1
        for seq in seqs.get(texts[i], ()):
            k = len(seq)
            if i + k <= n and tuple(texts[i:i + k]) == seq:
                hit.update(range(i, i + k))
                step = k
                break
        i += step
    return hit


def _sentence_starts(texts: Sequence[str]) -> Set[int]:
    """First token of each sentence when the doc has no sentence boundaries: after . ! ? … or a line break."""
    starts, fresh = set(), True
    for i, t in enumerate(texts):
        if t.isspace():
            fresh = fresh or "\n" in t
            continue
        if fresh:
            starts.add(i)
        fresh = t in _SENTENCE_END
    return starts


def findings(text: str, starts: Sequence[int], ends: Sequence[int], explained: Sequence[Optional[str]],
             cues: Sequence[Tuple[int, int, str]], applied: Set[Tuple[int, int]],
             breaks: Optional[Sequence[Tuple[int, int]]] = None,
             questions: Sequence[Tuple[int, int]] = (), hearsay: Sequence[Tuple[int, int]] = (),
             partial: Sequence[Tuple[int, int]] = (), timed: Sequence[Tuple[int, int]] = (),
             numbers_in_words: bool = True) -> Findings:
    """The findings of one text, in text order.

    Unexplained tokens are grouped by clause (the one clause rule of
    ``core.clauses``): one finding per clause, covering the clause, quoting
    its unexplained words. A negation or hedge cue that applied to no term
    (and is not itself inside a term) is a finding of its own.

    starts, ends: Character offsets of every token.
    explained: The rule of each token (``explain_words``); ``TERM`` marks the tokens inside a
        term or quantity span, so a cue word that is one of a term's own words is known by it.
    cues: (token_start, token_end, label) of every cue match; label "negation", "hedge", "pseudo", "break".
    applied: (token_start, token_end) of cues that reached a term.
    breaks: The clause breaks of ``text`` (``ClauseRule.breaks``), read only when a word is
        unexplained; None: worked out here.
    questions: (token_start, token_end) of the sentences asked by their word order
        (``CoverageRules.questions``); each is a finding, quoting its verb and subject.
    hearsay: (token_start, token_end) of each party without authority and its word of saying
        (``CoverageRules.hearsay``); each is a finding, quoting the two.
    partial: (token_start, token_end) of each part of a count ("2 of 5", ``core.partial``); each
        is a finding, quoting it.
    timed: (token_start, token_end) of each time a text sets for a clearance or past it states it
        for ("by 18:00", "was airworthy": ``core.time_conditions``); each is a finding, quoting it.
    numbers_in_words: Whether a word of the text, letters only, may be a number in words
        (``CoverageRules.writes_numbers``); False: none is read as an identifier of a series, as
        none is one (``identifiers.identifier_conflicts``' ``spelled``).
    """
    rows: List[dict] = []
    marks: List[Tuple[int, int, str]] = []
    n = len(explained)
    missing = [i for i, rule in enumerate(explained) if rule is None]
    if missing:
        if breaks is None:
            breaks = clause_rule().breaks(text)
        # Clause b runs from break b-1 to break b; a token is in it when b breaks start at or
        # before it, so each break splits the unexplained tokens where its first token begins.
        cuts = [bisect_left(missing, bisect_left(starts, b[0])) for b in breaks]
        cuts.append(len(missing))
        first = 0
        for b, cut in enumerate(cuts):
            if cut == first:
                continue
            tokens = missing[first:cut]
            first = cut
            lo = breaks[b - 1][1] if b > 0 else 0
            hi = breaks[b][0] if b < len(breaks) else len(text)
            while lo < hi and text[lo].isspace():
                lo += 1
            while hi > lo and text[hi - 1].isspace():
                hi -= 1
            # a break's own word opens its clause, before the break's end: the span holds it
            # ("Airworthy though")
            lo = min(lo, starts[tokens[0]])
            spans = tuple([(starts[i], ends[i]) for i in tokens])
            rows.append({"code": UNEXPLAINED_CONTENT, "start_char": lo, "end_char": hi,
                         "words": tuple(dict.fromkeys([text[s:e] for s, e in spans])), "word_spans": spans})
            marks.append((tokens[0], tokens[-1] + 1, UNEXPLAINED_CONTENT))
    unordered = False
    if len(missing) < n:  # some word explained: perhaps two identifiers by rule 5
        word = _words_of(text, starts, ends)

        def named_by_term(first: int, last: int) -> bool:
            return TERM in explained[statement_of(word, n, first)[0]:statement_of(word, n, last)[1]]

        for first, last, spans in identifier_conflicts(text, starts, ends, explained, SHAPE, STOP_WORD, named_by_term,
                                                          number_word if numbers_in_words else None):
            rows.append({"code": CONFLICTING_IDENTIFIERS, "start_char": spans[0][0], "end_char": spans[-1][1],
                         "words": tuple(text[s:e] for s, e in spans), "word_spans": spans})
            marks.append((first, last, CONFLICTING_IDENTIFIERS))
            unordered = True
    for first, end in questions:
        spans = tuple((starts[k], ends[k]) for k in range(first, end) if text[starts[k]:ends[k]].strip())[:2]
        rows.append({"code": QUESTION_WORD_ORDER, "start_char": starts[first], "end_char": ends[end - 1],
                     "words": tuple(text[s:e] for s, e in spans), "word_spans": spans})
        marks.append((first, end, QUESTION_WORD_ORDER))
        unordered = True
    for first, end in hearsay:
        spans = ((starts[first], ends[first]), (starts[end - 1], ends[end - 1]))
        rows.append({"code": HEARSAY, "start_char": starts[first], "end_char": ends[end - 1],
                     "words": tuple(text[s:e] for s, e in spans), "word_spans": spans})
        marks.append((first, end, HEARSAY))
        unordered = True
    for code, found in ((PARTIAL_COUNT, partial), (TIME_CONDITION, timed)):
        for first, end in found:
            s, e = starts[first], ends[end - 1]
            rows.append({"code": code, "start_char": s, "end_char": e, "words": (text[s:e],),
                         "word_spans": ((s, e),)})
            marks.append((first, end, code))
            unordered = True
    for start, end, label in cues:
        code = _UNATTACHED.get(label)
        if code is None or (start, end) in applied:
            continue
        if all(0 <= i < n and explained[i] is TERM for i in range(start, end)):
            continue  # a cue word that is part of a term's own words
        s, e = starts[start], ends[end - 1]
        rows.append({"code": code, "start_char": s, "end_char": e, "words": (text[s:e],), "word_spans": ()})
        marks.append((start, end, code))
        unordered = True
    if unordered and len(rows) > 1:  # the clauses alone come in text order already
        order = sorted(range(len(rows)), key=lambda k: (rows[k]["start_char"], rows[k]["code"]))
        rows, marks = [rows[k] for k in order], [marks[k] for k in order]
    return rows, marks


#: a cue match's category -> the finding when it reached no term (a question is a hedge)
_UNATTACHED = {"negation": "unattached_negation", "hedge": "unattached_hedge", "question": "unattached_hedge"}


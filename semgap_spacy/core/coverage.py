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
5. ``shape``: digits, e-mail, URL, @mention, #tag, symbol, punctuation, an initial;
6. ``name``: a governed known name of the domain (whole phrase, case-sensitive),
   and, only when switched on, ``ner`` entities and ``titlecase`` words;
7. ``neutral``: the domain's governed neutral vocabulary (common + domain lists).

Rules 3, 4, 5 and the one-word neutral entries depend on a word's text
alone, so ``CoverageRules`` works them out once per distinct word, with where
a clause break may begin in it (``core.clauses``) and whether it belongs to a
known name or a longer neutral entry; a token is then one look-up. Rules 6
and 7 look at whole phrases, so they run only when a word is left
unexplained that such a phrase holds.

Nothing here reads a Doc: the component turns one into token keys and
offsets, and the decision policy turns the findings into reasons.
"""
import re
import unicodedata
from functools import lru_cache
from typing import (Callable, Dict, FrozenSet, Hashable, Iterable, List, NamedTuple, Optional, Sequence,
                    Set, Tuple)

from ..glossary.drafts import MEANS_TERM, SCOPES, TEACHING_CHOICES
from ..glossary.models import GlossarySet
from ..util.caches import IndexedCache, WordCache, cached, in_memory_zone
from ..util.spacy_lists import spacy_stop_words
from ..util.textnorm import exact, fold
from .clauses import clause_rule
from .reasons import make_reason

TERM, CUE, STOP_WORD, DOMAIN_PHRASE, SHAPE, NAME, NEUTRAL = (
    "term", "cue", "stop_word", "domain_phrase", "shape", "name", "neutral")
RULES = (TERM, CUE, STOP_WORD, DOMAIN_PHRASE, SHAPE, NAME, NEUTRAL)
#: the wider name sources of rule 6; each widens what may proceed, so each is off by default
NAME_SOURCES = ("ner", "titlecase")
#: entity labels that the ``ner`` source takes as names (spec §4.1 rule 6)
NER_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT"})
_SENTENCE_END = frozenset({".", "!", "?", "…", "..."})
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
_URL = re.compile(r"^(https?://|www\.)\S+$", re.IGNORECASE)
_HANDLE = re.compile(r"^[@#]\w+$")
_INITIAL = re.compile(r"^[^\W\d_]\.?$")

_fold = cached(65536)(fold)


class Finding(NamedTuple):
    """One coverage finding: a clause with unexplained words, or a cue that reaches no term.

    Its fields are immutable values (tuples, not lists), so the row the component
    stores (``row``) shares them and the collector can stop tracking them.
    """

    code: str
    start_char: int      # the clause (unexplained_content) or the cue
    end_char: int
    token_start: int     # the tokens a reviewer should see highlighted
    token_end: int
    words: Tuple[str, ...]
    #: (start_char, end_char) of every unexplained token of the clause, in text order
    word_spans: Tuple[Tuple[int, int], ...] = ()

    def row(self) -> dict:
        """The finding as ``doc._.semgap_coverage`` stores it (what ``coverage_reasons`` reads)."""
        return {"code": self.code, "start_char": self.start_char, "end_char": self.end_char,
                "words": self.words, "word_spans": self.word_spans}


@lru_cache(maxsize=4)
def stop_words(pack_codes: Tuple[str, ...]) -> FrozenSet[str]:
    """Rule 3: the folded union of the packs' spaCy stop words, minus every pack's never-neutral words.

    pack_codes (Tuple[str, ...]): The language packs whose stop words count.
    RETURNS (FrozenSet[str]): Folded words.
    """
    from ..lang import get_pack, packs

    words: Set[str] = set()
    for code in pack_codes:
        words.update(_fold(w) for w in spacy_stop_words(get_pack(code).spacy_lang))
    never = {_fold(w) for pack in packs().values() for w in pack.never_neutral}
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


def is_neutral_shape(text: str) -> bool:
    """Rule 5: a digit anywhere, an e-mail, URL, @mention or #tag, only symbols/punctuation, or an initial."""
    if not text or text.isspace():
        return True
    for ch in text:
        if ch.isdigit():
            return True
    if _INITIAL.match(text) and text[0].isupper():
        return True
    if _HANDLE.match(text) or _EMAIL.match(text) or _URL.match(text):
        return True
    return all(unicodedata.category(ch)[0] in "PSZ" or unicodedata.category(ch) in ("Cf", "Mn")
               for ch in text)


def _sequences(entries: Iterable[Tuple[str, ...]]) -> Dict[str, List[Tuple[str, ...]]]:
    """First token -> the entries starting with it, longest first (leftmost-longest matching)."""
    out: Dict[str, List[Tuple[str, ...]]] = {}
    for entry in set(entries):
        if entry:
            out.setdefault(entry[0], []).append(entry)
    for seqs in out.values():
        seqs.sort(key=len, reverse=True)
    return out


#: What a word says by itself in one domain: (its rule by rules 3, 4, 5 or a one-word
#: neutral entry, None for none; where a clause break may begin in it,
#: ``ClauseRule.break_starts``; whether a known name or a longer neutral entry holds it).
#: A plain tuple of plain values, which the collector stops tracking (it keeps walking a
#: NamedTuple), so a cache of thousands of words costs the full collections nothing.
WordFacts = Tuple[Optional[str], Tuple[int, ...], bool]
RULE, BREAK_STARTS, IN_PHRASE = range(3)


class DomainRules(NamedTuple):
    """What explains words in one domain (rules 4, 6 and 7)."""

    phrase_words: FrozenSet[str]                 # folded words of clearance/field phrases
    phrase_keys: FrozenSet[str]                  # their inflection keys
    neutral_words: FrozenSet[str]                # one-token neutral entries, folded
    neutral_seqs: Dict[str, List[Tuple[str, ...]]]  # longer ones, folded
    names: Dict[str, List[Tuple[str, ...]]]      # known names, as written
    name_words: FrozenSet[str]                   # every word of a known name, as written
    neutral_seq_words: FrozenSet[str]            # every word of neutral_seqs, folded


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
        self.domains: Dict[str, DomainRules] = {}
        for name, dom in glossary.domains.items():
            words: Set[str] = set()
            for term in dom.terms:
                if term.signal == "critical_block":
                    continue  # rule 4: a word only in critical phrases is not explained
                for text, _, _, _ in term.variants():
                    words.update(_fold(t) for t in tokenize(text) if any(c.isalnum() for c in t))
            neutral = {tuple(_fold(t) for t in tokenize(w)) for w, _, _ in dom.vocabulary.neutral.words()}
            names = [tuple(tokenize(n)) for n in dom.vocabulary.known_names]
            longer = [seq for seq in neutral if len(seq) > 1]
            self.domains[name] = DomainRules(
                frozenset(words), frozenset(form_key(w) for w in words),
                frozenset(seq[0] for seq in neutral if len(seq) == 1),
                _sequences(longer), _sequences(names),
                frozenset(w for seq in names for w in seq), frozenset(w for seq in longer for w in seq))
        # an unknown domain escalates anyway; its words are read with nothing but the common rules
        self.empty = DomainRules(frozenset(), frozenset(), frozenset(), {}, {}, frozenset(), frozenset())
        self.clauses = clause_rule()
        # domain (None for every domain the glossary lacks) -> word key -> WordFacts
        self._word_facts: Dict[Optional[str], IndexedCache] = {}
        # the same facts by the word's text, which outlives a memory zone (see ``word_rows``)
        self._text_facts: Dict[Optional[str], WordCache] = {}

    def word_rows(self, domain: Optional[str], keys: Sequence[Hashable],
                  text_of: Callable[[Hashable], str]) -> List[WordFacts]:
        """What the word of each token says by itself in ``domain``.

        A word's facts depend on its text and the domain alone, so they are worked
        out once per distinct word and each token is one look-up. They are kept
        per domain in a ``util.caches.IndexedCache`` keyed by ORTH (bounded by
        ``cache_size``), and in a ``util.caches.WordCache`` keyed by the word's
        text. Inside a memory zone a new word is learnt by its text alone: keyed
        by strings we own, that cache keeps a word that a later document of the
        zone meets again and drops the zone's one-off words when it ends, so a
        stream decided zone after zone does not work its vocabulary out anew in
        every zone. A word kept by its text is kept by its key too; no one-off
        word's key stays. Every domain the glossary lacks shares one of each.

        domain (Optional[str]): The case's domain.
        keys (Sequence[Hashable]): A key per token that stands for its text alone (spaCy's ORTH).
        text_of (Callable[[Hashable], str]): The text of a key (asked only for keys not seen yet).
        RETURNS (List[WordFacts]): The facts of each token.
        """
        rules = self.domains.get(domain) if domain else None
        known = domain if rules is not None else None
        facts = self._word_facts.get(known)
        if facts is None:
            facts = self._word_facts[known] = IndexedCache(self.cache_size, ())
            self._text_facts[known] = WordCache(self.cache_size)
        try:
            return [facts[key] for key in keys]
        except KeyError:
            pass
        rules = rules if rules is not None else self.empty
        clauses, names, neutral = self.clauses, rules.name_words, rules.neutral_seq_words
        by_text = self._text_facts[known]

        def make(text: str) -> WordFacts:
            return (self._word_rule(text, rules), clauses.break_starts(text),
                    text in names or _fold(text) in neutral)

        def of_text(key: Hashable, zoned: bool = False) -> WordFacts:
            row, kept = by_text.lasting(text_of(key), make)
            if kept and zoned:
                facts.keep(key, row)  # a word kept by its text is no zone's one-off
            return row

        if in_memory_zone():
            get = facts.get
            return [get(key) or of_text(key, True) for key in keys]
        facts.learn(keys, lambda key: (of_text(key), ()))
        return [facts[key] for key in keys]

    @staticmethod
    def explain_words(rows: Sequence[WordFacts], covered: Iterable[int],
                      cues: Iterable[Tuple[int, int, str]]) -> List[Optional[str]]:
        """Rules 1 to 5 and one-word neutral entries: what each token is, None where that says nothing.

        rows (Sequence[WordFacts]): Each token's facts (``word_rows``).
        covered (Iterable[int]): Token indices inside a term, frame, field mention or quantity span (rule 1).
        cues (Iterable[Tuple[int, int, str]]): (token_start, token_end, label) of every cue match (rule 2).
        RETURNS (List[Optional[str]]): The rule per token.
        """
        out = [row[RULE] for row in rows]
        n = len(out)
        for start, end, _ in cues:
            for i in range(max(start, 0), min(end, n)):
                out[i] = CUE
        for i in covered:
            out[i] = TERM  # rule 1 comes first
        return out

    @staticmethod
    def phrases_may_explain(explained: Sequence[Optional[str]], rows: Sequence[WordFacts]) -> bool:
        """Whether a token still unexplained is a word of a known name or of a longer neutral
        entry: only such a token can rules 6 and 7 explain (the ``ner`` and ``titlecase``
        sources aside), so a text without one needs no look at its phrases.

        explained (Sequence[Optional[str]]): ``explain_words``' answer.
        rows (Sequence[WordFacts]): Each token's facts.
        """
        for rule, row in zip(explained, rows):
            if rule is None and row[IN_PHRASE]:
                return True
        return False

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

        Kept per domain and word (``word_rows``): a stream repeats its words,
        and every answer depends on the text alone.
        """
        f = _fold(text)
        if f in self.stop or (self.accented_stop and exact(text) in self.accented_stop):
            return STOP_WORD
        if f in rules.phrase_words or (rules.phrase_keys and self.form_key(f) in rules.phrase_keys):
            return DOMAIN_PHRASE
        if is_neutral_shape(text):
            return SHAPE
        if f in rules.neutral_words:
            # a one-word neutral entry; a known name is found later, but both explain the word
            return NEUTRAL
        return None


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
             cues: Sequence[Tuple[int, int, str]], applied: Set[Tuple[int, int]], covered: Set[int],
             breaks: Optional[Sequence[Tuple[int, int]]] = None) -> List[Finding]:
    """The findings of one text, in text order.

    Unexplained tokens are grouped by clause (the one clause rule of
    ``core.clauses``): one finding per clause, covering the clause, quoting
    its unexplained words. A negation or hedge cue that applied to no term
    (and is not itself inside a term) is a finding of its own.

    starts, ends: Character offsets of every token.
    cues: (token_start, token_end, label) of every cue match; label "negation", "hedge", "pseudo", "break".
    applied: (token_start, token_end) of cues that reached a term.
    covered: Token indices inside a term or quantity span.
    breaks: The clause breaks of ``text`` (``ClauseRule.breaks``), read only when a word is
        unexplained; None: worked out here.
    """
    out: List[Finding] = []
    missing = [i for i, rule in enumerate(explained) if rule is None]
    if missing:
        if breaks is None:
            breaks = clause_rule().breaks(text)
        clauses: List[Tuple[int, List[int]]] = []  # (breaks before the clause, its unexplained tokens)
        b, n_breaks = 0, len(breaks)
        for i in missing:
            start = starts[i]
            while b < n_breaks and breaks[b][0] <= start:
                b += 1
            if clauses and clauses[-1][0] == b:
                clauses[-1][1].append(i)
            else:
                clauses.append((b, [i]))
        for b, tokens in clauses:
            lo = breaks[b - 1][1] if b > 0 else 0
            hi = breaks[b][0] if b < n_breaks else len(text)
            while lo < hi and text[lo].isspace():
                lo += 1
            while hi > lo and text[hi - 1].isspace():
                hi -= 1
            spans = tuple([(starts[i], ends[i]) for i in tokens])
            out.append(Finding("unexplained_content", lo, hi, tokens[0], tokens[-1] + 1,
                               tuple(dict.fromkeys([text[s:e] for s, e in spans])), spans))
    for start, end, label in cues:
        code = _UNATTACHED.get(label)
        if code is None or (start, end) in applied:
            continue
        if all(i in covered for i in range(start, end)):
            continue  # a cue word that is part of a term's own words
        s, e = starts[start], ends[end - 1]
        out.append(Finding(code, s, e, start, end, (text[s:e],)))
    if len(out) > 1:
        out.sort(key=_text_order)
    return out


_UNATTACHED = {"negation": "unattached_negation", "hedge": "unattached_hedge"}


def _text_order(finding: Finding) -> Tuple[int, str]:
    return finding.start_char, finding.code


_MESSAGES = {
    "unexplained_content": "words that no rule explains: {}; a clearance vouches only for its own words",
    "unattached_negation": "negation {} reaches no term: something is said not to be so, and nothing tells what",
    "unattached_hedge": "hedge {} reaches no term: the text is conditional",
}


def coverage_reasons(rows: Iterable[dict], text: str, domain: Optional[str] = None,
                     term_ids: Sequence[str] = ()) -> List[dict]:
    """The reasons of the coverage findings a component left on a doc (spec §4.1).

    An ``unexplained_content`` reason also carries what a reviewer needs to
    teach the glossary (spec §4.2): the case's ``domain``, the character
    span of every unexplained word (``word_spans``) and the reviewer
    ``options`` of the clause (``teaching_options``). Every option leaves
    the case escalated: a choice writes drafts at most, and drafts decide nothing.

    rows (Iterable[dict]): Findings as stored (``code``, ``start_char``, ``end_char``, ``words``,
        ``word_spans``).
    text (str): The doc's text, for the evidence.
    domain (Optional[str]): The case's domain, where the reviewer's drafts would go.
    term_ids (Sequence[str]): The domain's terms a clause may be taught to mean.
    RETURNS (List[dict]): Reasons in the decision format; every code escalates.
    """
    return CoverageReasons(domain, term_ids).reasons(rows, text)


class CoverageReasons:
    """``coverage_reasons`` for one domain. The terms a clause may be taught to mean
    depend on the glossary alone, so the decision makes one per domain when its
    glossary loads; the options themselves are made anew for each doc, so no two
    decisions share a list.

    domain (Optional[str]): The case's domain, where the reviewer's drafts would go.
    term_ids (Sequence[str]): The domain's terms a clause may be taught to mean.
    """

    __slots__ = ("domain", "term_ids")

    def __init__(self, domain: Optional[str], term_ids: Sequence[str] = ()):
        self.domain = domain
        self.term_ids = tuple(term_ids)

    def reasons(self, rows: Iterable[dict], text: str) -> List[dict]:
        """The reasons of one doc's findings, in the order of the rows (see ``coverage_reasons``)."""
        out = []
        options = None
        for row in rows:
            code = row["code"]
            start, end, words = row["start_char"], row["end_char"], row.get("words") or []
            reason = make_reason(code, _MESSAGES[code].format(", ".join(map(repr, words))),
                                 start_char=start, end_char=end, evidence=text[start:end])
            if code == "unexplained_content":
                if options is None:  # one set per doc, shared by its clauses as before
                    options = teaching_options(self.term_ids)
                reason["words"] = list(words)
                reason["word_spans"] = [list(s) for s in row.get("word_spans") or ()]
                if self.domain is not None:
                    reason["domain"] = self.domain
                reason["options"] = [dict(o) for o in options]
            out.append(reason)
        return out


def teaching_options(term_ids: Sequence[str]) -> List[dict]:
    """The reviewer options of a clause with unexplained words (spec §4.2), in the spec's order.

    term_ids (Sequence[str]): The terms *means_term* may name.
    RETURNS (List[dict]): One dict per choice: ``choice``, ``meaning``, what it
        ``drafts`` (None for *problem*), and ``outcome`` (escalate: the case
        stays escalated whatever the reviewer chooses); *neutral* and *name*
        also list their ``scopes``, the domain's (the default) first.
    """
    out = []
    for choice, meaning, drafts in TEACHING_CHOICES:
        option = {"choice": choice, "meaning": meaning, "drafts": drafts, "outcome": "escalate"}
        if choice in (NEUTRAL, NAME):
            option["scopes"] = list(SCOPES)
        if choice == MEANS_TERM:
            option["term_ids"] = list(term_ids)
        out.append(option)
    return out

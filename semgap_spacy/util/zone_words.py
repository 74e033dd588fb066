"""Words that recur in a memory zone's cases, learnt outside the zones, up to a budget.

Inside ``nlp.memory_zone()`` spaCy's tokenizer caches nothing (its
``_save_cached`` returns at once in a zone), and when the zone ends the
lexemes and strings it made are freed. A stream decided zone after zone, as
``decide_cases``, ``decide_lines`` and ``assess`` decide it, so tokenizes
every word it never met outside a zone from scratch, affix rules and lexeme
attributes included, at every occurrence, in every zone. On the held-out
texts that was a third of the time a case took (about 245 against 170 µs a
case once the zone's recurring words were kept; ``scripts.bench``).

So before a zone opens, the words that occur at least twice in the texts
it is about to decide, or once there and once in the zone before, are
tokenized once outside any zone: their lexemes and strings become permanent
and the tokenizer caches them, as it would have without zones. (A zone that
spans several calls, as a worker's does, is counted whole and its words are
kept when it ends.) The zone before counts because a word can recur in
every zone and never twice in one: a Dask block of 2,500 held-out cases
holds each text about once, and its words were tokenized anew in every
block. A word met once is left to the zone, so an endless stream of new
words (ids, names, typos) still leaves nothing behind; the words kept are
bounded by ``budget`` per pipeline, so a stream whose vocabulary keeps
changing grows memory by at most that many words' lexemes. Tokenizing
changes no token: the cache holds exactly what the rules give.

The unit is the tokenizer's own: a run of characters between whitespace
(``str.split()``), looked up whole in its cache ("close;" as well as "close").
"""
from collections import Counter
from itertools import chain, filterfalse
from typing import Iterable, Set
from weakref import WeakKeyDictionary

#: words (whitespace-separated chunks) kept outside the zones per pipeline, at most
BUDGET = 8192
#: occurrences within one zone that make a word worth keeping
RECURS = 2
#: distinct words counted while no zone can be left (a caller's own zone), at most: past it
#: the count starts again, so a zone that never ends costs bounded memory
MAX_COUNTED = 32768

_KEPT: "WeakKeyDictionary" = WeakKeyDictionary()


class ZoneWords:
    """The words of one pipeline: those kept so far, and those counted in the zone now open.

    budget (int): Words this pipeline may keep in all; 0 keeps none.
    """

    def __init__(self, budget: int = BUDGET):
        self.budget = budget
        self.kept: Set[str] = set()
        self.counts: Counter = Counter()
        #: the ``hash`` of each word counted since the keeping before last (at most
        #: ``MAX_COUNTED`` of them): a word met there and again now recurs
        self.before: Set[int] = set()

    def note(self, texts: Iterable[str]) -> None:
        """Count the words of texts decided in the open zone (nothing once the budget is spent)."""
        if len(self.kept) >= self.budget:
            return
        if len(self.counts) > MAX_COUNTED:
            self.counts.clear()
        # the words kept already are most of a text's: they are not counted again
        self.counts.update(filterfalse(self.kept.__contains__, chain.from_iterable(map(str.split, texts))))

    def keep(self, nlp) -> int:
        """Tokenize, outside any zone, the words counted ``RECURS`` times since the last call, or
        counted since then and in the count before, that were not kept before, most frequent
        first, while the budget lasts; the count starts again. Inside a zone (a caller's own,
        or a worker's that spans several calls) nothing happens and the count goes on: the
        lexemes would only be freed again.

        nlp (Language): The pipeline whose tokenizer and vocab learn them.
        RETURNS (int): How many words were kept now.
        """
        if getattr(nlp.vocab, "in_memory_zone", False):
            return 0
        counts, kept = self.counts, self.kept
        room = self.budget - len(kept)
        before = self.before
        new = [word for word, n in counts.most_common()
               if (n >= RECURS or hash(word) in before) and word not in kept][:max(room, 0)]
        self.before = set(map(hash, counts)) if len(counts) <= MAX_COUNTED else set()
        counts.clear()
        tokenizer = nlp.tokenizer
        for done, word in enumerate(new):
            try:  # one at a time: a chunk the tokenizer treats as special stops its caching for the rest of a text
                tokenizer(word)
            except Exception:  # noqa: BLE001 - a tokenizer of the user's that fails on a word alone
                self.budget = len(kept) + done  # costs speed only: keep no more, decide on
                new = new[:done]
                break
        kept.update(new)
        return len(new)

    def keep_recurring(self, nlp, texts: Iterable[str], *, counted_again: bool = False) -> int:
        """``note`` the texts a zone is about to decide, then ``keep`` (before the zone opens).

        counted_again (bool): The same texts will be counted again (by workers forked next, which
            decide them): this count is then no zone before theirs, and is not remembered.
        """
        self.note(texts)
        kept = self.keep(nlp)
        if counted_again:
            self.before = set()
        return kept


def zone_words(nlp, budget: int = BUDGET) -> ZoneWords:
    """The ``ZoneWords`` of ``nlp``, made on first use (kept as long as the pipeline lives).

    nlp (Language): The pipeline.
    budget (int): The budget of a pipeline met for the first time.
    """
    words = _KEPT.get(nlp)
    if words is None:
        words = _KEPT[nlp] = ZoneWords(budget)
    return words

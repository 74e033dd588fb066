"""Caches of per-word facts that stay bounded and keep nothing of a memory zone's one-off words.

Every pipe remembers what it worked out about a word (its reading, its match
key, whether typo repair touches it, which rule explains it), because text
repeats its words. On an endless stream of new words such a cache grows
until its bound, and a cache keyed by spaCy hashes keeps hashes whose
strings ``nlp.memory_zone()`` has freed. :class:`WordCache` is the one kind
of cache they use: a dict with a size bound (emptied when full, so memory
stays flat outside zones too). Inside a memory zone, what is learnt goes to
the cache's *young* part, which is dropped when the zone closes, as spaCy
drops its tokenizer cache's entries; a word met again in a later document
of the zone, or in the next zone, is the text's own vocabulary and moves to the
lasting part (for caches keyed by strings we own; a cache keyed by spaCy hashes
is made with ``promote=False`` and keeps nothing of a zone). What was learnt
before the zone stays. A cache keyed by spaCy hashes may also keep (``keep``) the hash of
a word that a cache keyed by its text keeps: that word is no zone's one-off.

The zone is process-wide: spaCy enters every pipe's ``memory_zone`` in turn,
so the zone counts how deep it is and forgets on the outermost exit only.
"""
from contextlib import contextmanager
from functools import wraps
from itertools import filterfalse
from typing import Any, Callable, Dict, Hashable, Iterable, Iterator, List, Sequence, Set, Tuple

_MISSING = object()
_depth = 0
_document = 0  # counts documents (``new_document``), so a word met twice in one is not "met again"
_zoned: List[Any] = []  # caches with young entries in the open zone (each has ``forget_young``)


class WordCache(dict):
    """A dict of per-word facts with a size bound and memory-zone forgetting.

    Readers try the dict first (``get``, ``in``) and :meth:`recall` on a miss,
    which finds what the open zone learnt.

    max_size (int): Lasting entries kept at most; a full cache is emptied before the next one.
    promote (bool): Whether a word met in two documents of a zone, or in a zone and the
        next, stays after it.
    """

    __slots__ = ("max_size", "promote", "young", "before")

    def __init__(self, max_size: int, promote: bool = True):
        super().__init__()
        if max_size < 1:
            raise ValueError(f"a cache size must be at least 1, not {max_size}")
        self.max_size = max_size
        self.promote = promote
        self.young: dict = {}
        #: what the zone before learnt and did not keep (``promote`` only): a word can recur
        #: in every zone and never twice in one (a Dask block holds each text of a cycle once)
        self.before: dict = {}

    def put(self, key: Hashable, value: Any) -> Any:
        """Remember ``value`` for ``key`` (until the zone ends, inside one) and return it."""
        if _depth:
            if not self.young:
                _zoned.append(self)
            if len(self.young) >= self.max_size:
                self.young.clear()
            self.young[key] = (value, _document)
        else:
            self._keep(key, value)
        return value

    def keep(self, key: Hashable, value: Any) -> Any:
        """Remember ``value`` for ``key`` past any zone and return it: for a key that stands
        for a word kept anyway (the hash of a word another cache keeps by its text)."""
        self._keep(key, value)
        return value

    def lasting(self, key: Hashable, make: Callable[[Hashable], Any]) -> Tuple[Any, bool]:
        """The value for ``key`` (made by ``make(key)`` on first sight), and whether the cache
        keeps it past the open zone: False while it is one of the zone's one-off words.

        A cache of the same facts keyed by spaCy's hashes, which a zone may free, keeps
        (``keep``) the hash of a word only once this says True.
        """
        value = self.get(key)
        if value is not None:
            return value, True
        value = self.recall(key)
        if value is None:
            value = self.put(key, make(key))
        return value, key in self

    def recall(self, key: Hashable, default: Any = None) -> Any:
        """What the open zone (or, ``promote`` only, the zone before) learnt for ``key``, else
        ``default``; a word met again in a later document or zone is kept."""
        entry = self.young.get(key)
        if entry is None:
            entry = self.before.pop(key, None) if self.before else None
            if entry is None:
                return default
            self._keep(key, entry[0])  # met in the zone before and again now
            return entry[0]
        value, document = entry
        if self.promote and document != _document:
            del self.young[key]
            self._keep(key, value)
        return value

    def _keep(self, key: Hashable, value: Any) -> None:
        if len(self) >= self.max_size:
            self.clear()
        self[key] = value

    def forget_young(self) -> None:
        """Drop what the zone learnt (the zone calls this when it ends), but for one more zone."""
        self.before = self.young if self.promote else {}
        self.young = {}


class WordSet(WordCache):
    """A set of words in the same terms: ``add``, and :meth:`knows` for membership."""

    __slots__ = ()

    def add(self, key: Hashable) -> None:
        self.put(key, True)

    def knows(self, key: Hashable) -> bool:
        return key in self or self.recall(key, False)

    def issuperset(self, keys) -> bool:
        # the words learnt outside a zone are the dict's own keys: one C-level pass settles
        # the usual case before any key learnt inside the open zone is looked up
        return all(map(self.__contains__, keys)) or all(key in self or self.recall(key, False) for key in keys)


class IndexedCache(dict):
    """Facts per spaCy hash, with the keys of a few kinds of fact also in sets.

    A pipe that looks at every token of every text asks first whether any of
    the text's keys is of a kind that matters (a cue word, a question mark):
    with the kinds in sets, that is one C-level set operation per text, and
    the per-key facts are read only for the few texts where it is true.
    The keys are hashes of strings a memory zone may free, so what is learnt
    inside a zone is dropped, facts and kinds together, when the zone ends;
    outside zones the cache is emptied when it would pass ``max_size``.

    max_size (int): Entries kept at most (exceeded by one text's keys at most).
    kinds (Iterable[str]): The kinds a key can be of.
    """

    __slots__ = ("max_size", "kinds", "young", "version")

    def __init__(self, max_size: int, kinds: Iterable[str]):
        super().__init__()
        if max_size < 1:
            raise ValueError(f"a cache size must be at least 1, not {max_size}")
        self.max_size = max_size
        self.kinds: Dict[str, Set[Hashable]] = {kind: set() for kind in kinds}
        self.young: List[Hashable] = []
        #: changes whenever an entry goes or is replaced (learning only adds), so a copy of what
        #: was read (``pipes.doc_rows.FactsByOrth``) knows to drop itself
        self.version = 0

    def learn(self, keys: Sequence[Hashable], make: Callable[[Hashable], Tuple[Any, Iterable[str]]]) -> None:
        """Make sure every key has its facts; ``make(key)`` gives (facts, kinds) of a new one.

        After the call every key of ``keys`` is present, whatever the bound.
        """
        if all(map(self.__contains__, keys)):
            return
        unseen = set(filterfalse(self.__contains__, keys))  # not ``difference(self)``: it walks the whole cache
        if len(self) + len(unseen) > self.max_size:
            self.forget()
            unseen = set(keys)
        zoned = _depth > 0
        if zoned and not self.young:
            _zoned.append(self)
        kinds = self.kinds
        for key in unseen:
            value, of = make(key)
            self[key] = value
            for kind in of:
                kinds[kind].add(key)
        if zoned:
            self.young.extend(unseen)

    def keep(self, key: Hashable, value: Any) -> Any:
        """Remember ``value`` for ``key`` past any zone, with no kind, and return it: for a key
        that stands for a word kept anyway (the hash of a word another cache keeps by its text).
        A full cache is emptied first."""
        if len(self) >= self.max_size:
            self.forget()
        self.version += 1
        self[key] = value
        return value

    def forget(self) -> None:
        """Empty the cache."""
        self.version += 1
        self.clear()
        for keys in self.kinds.values():
            keys.clear()
        self.young.clear()

    def forget_young(self) -> None:
        """Drop what the zone learnt (the zone calls this when it ends)."""
        young = self.young
        if not young:
            return
        self.version += 1
        for key in young:
            self.pop(key, None)
        for keys in self.kinds.values():
            keys.difference_update(young)
        self.young = []


def cached(max_size: int) -> Callable[[Callable], Callable]:
    """A one-argument function with its results in a :class:`WordCache`
    (``func.cache`` is the cache; ``func.cache_clear()`` empties it)."""
    def wrap(func: Callable) -> Callable:
        cache = WordCache(max_size)
        get, put = cache.get, cache.put
        missing = _MISSING
        recall = cache.recall

        @wraps(func)
        def lookup(arg):
            value = get(arg, missing)
            if value is missing:
                value = recall(arg, missing)
                if value is missing:
                    value = put(arg, func(arg))
            return value

        lookup.cache = cache
        lookup.cache_clear = lambda: (cache.clear(), cache.young.clear(), cache.before.clear())
        return lookup
    return wrap


@contextmanager
def memory_zone() -> Iterator[None]:
    """A block whose one-off cache entries are forgotten when it ends.

    Nested blocks (one per pipe, as ``nlp.memory_zone()`` enters them) share
    the outermost one.
    """
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            for cache in _zoned:
                cache.forget_young()
            _zoned.clear()


def new_document() -> None:
    """Tell the caches that the next document has begun (the first semgap pipe of each run does)."""
    global _document
    _document += 1


def in_memory_zone() -> bool:
    """Whether a memory zone is open."""
    return _depth > 0

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
of the zone is the text's own vocabulary and moves to the lasting part (for caches
keyed by strings we own; a cache keyed by spaCy hashes is made with
``promote=False`` and keeps nothing of a zone). What was learnt before the
zone stays.

The zone is process-wide: spaCy enters every pipe's ``memory_zone`` in turn,
so the zone counts how deep it is and forgets on the outermost exit only.
"""
from contextlib import contextmanager
from functools import wraps
from typing import Any, Callable, Hashable, Iterator, List

_MISSING = object()
_depth = 0
_document = 0  # counts documents (``new_document``), so a word met twice in one is not "met again"
_zoned: List["WordCache"] = []  # caches with young entries in the open zone


class WordCache(dict):
    """A dict of per-word facts with a size bound and memory-zone forgetting.

    Readers try the dict first (``get``, ``in``) and :meth:`recall` on a miss,
    which finds what the open zone learnt.

    max_size (int): Lasting entries kept at most; a full cache is emptied before the next one.
    promote (bool): Whether a word met twice inside a zone stays after it.
    """

    __slots__ = ("max_size", "promote", "young")

    def __init__(self, max_size: int, promote: bool = True):
        super().__init__()
        if max_size < 1:
            raise ValueError(f"a cache size must be at least 1, not {max_size}")
        self.max_size = max_size
        self.promote = promote
        self.young: dict = {}

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

    def recall(self, key: Hashable, default: Any = None) -> Any:
        """What the open zone learnt for ``key``, else ``default``; a word met again in a
        later document is kept."""
        entry = self.young.get(key)
        if entry is None:
            return default
        value, document = entry
        if self.promote and document != _document:
            del self.young[key]
            self._keep(key, value)
        return value

    def _keep(self, key: Hashable, value: Any) -> None:
        if len(self) >= self.max_size:
            self.clear()
        self[key] = value


class WordSet(WordCache):
    """A set of words in the same terms: ``add``, and :meth:`knows` for membership."""

    __slots__ = ()

    def add(self, key: Hashable) -> None:
        self.put(key, True)

    def knows(self, key: Hashable) -> bool:
        return key in self or self.recall(key, False)

    def issuperset(self, keys) -> bool:
        return all(key in self or self.recall(key, False) for key in keys)


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
        lookup.cache_clear = lambda: (cache.clear(), cache.young.clear())
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
                cache.young.clear()
            _zoned.clear()


def new_document() -> None:
    """Tell the caches that the next document has begun (the first semgap pipe of each run does)."""
    global _document
    _document += 1


def in_memory_zone() -> bool:
    """Whether a memory zone is open."""
    return _depth > 0

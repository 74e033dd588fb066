"""Caches of per-word facts that stay bounded and forget what a memory zone learnt.

Every pipe remembers what it worked out about a word (its reading, its match
key, whether typo repair touches it, which rule explains it), because text
repeats its words. On an endless stream of new words such a cache grows
until its bound, and a cache keyed by spaCy hashes keeps hashes whose
strings ``nlp.memory_zone()`` has freed. :class:`WordCache` is the one kind
of cache they use: a dict with a size bound (emptied when full, so memory
stays flat outside zones too) whose entries learnt inside a memory zone are
dropped when the zone closes, as spaCy's own tokenizer cache does. What was
learnt before the zone (the words of the warm-up, the glossary's) stays.

The zone is process-wide: spaCy enters every pipe's ``memory_zone`` in turn,
so the zone counts how deep it is and forgets on the outermost exit only.
"""
from contextlib import contextmanager
from functools import wraps
from typing import Any, Callable, Hashable, Iterator, List, Optional, Tuple

_transient: Optional[List[Tuple["WordCache", Hashable]]] = None
_depth = 0


class WordCache(dict):
    """A dict of per-word facts with a size bound and memory-zone forgetting.

    max_size (int): Entries kept at most; a full cache is emptied before the next entry.
    """

    __slots__ = ("max_size",)

    def __init__(self, max_size: int):
        super().__init__()
        if max_size < 1:
            raise ValueError(f"a cache size must be at least 1, not {max_size}")
        self.max_size = max_size

    def put(self, key: Hashable, value: Any) -> Any:
        """Remember ``value`` for ``key`` and return it."""
        if len(self) >= self.max_size:
            self.clear()
        self[key] = value
        if _transient is not None:
            _transient.append((self, key))
        return value


class WordSet(WordCache):
    """A set of words in the same terms (``add``; ``in`` and ``issuperset`` read it)."""

    __slots__ = ()

    def add(self, key: Hashable) -> None:
        self.put(key, None)

    def issuperset(self, keys) -> bool:
        return all(key in self for key in keys)


def cached(max_size: int) -> Callable[[Callable], Callable]:
    """A one-argument function with its results in a :class:`WordCache`
    (``func.cache`` is the cache; ``func.cache_clear()`` empties it)."""
    def wrap(func: Callable) -> Callable:
        cache = WordCache(max_size)
        get, put = cache.get, cache.put
        missing = object()

        @wraps(func)
        def lookup(arg):
            value = get(arg, missing)
            if value is missing:
                value = put(arg, func(arg))
            return value

        lookup.cache = cache
        lookup.cache_clear = cache.clear
        return lookup
    return wrap


@contextmanager
def memory_zone() -> Iterator[None]:
    """A block whose newly learnt cache entries are forgotten when it ends.

    Nested blocks (one per pipe, as ``nlp.memory_zone()`` enters them) share
    the outermost one.
    """
    global _transient, _depth
    if _depth == 0:
        _transient = []
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            learnt, _transient = _transient, None
            for cache, key in learnt:
                cache.pop(key, None)


def in_memory_zone() -> bool:
    """Whether a memory zone is open."""
    return _depth > 0

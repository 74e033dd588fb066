"""spaCy's string table rebuilt at its live size between memory zones.

``nlp.memory_zone()`` frees the strings a zone added, but not the room the
StringStore's hash table grew to hold them: the table marks a freed cell
deleted without counting it free, so on an endless stream of new words it
keeps doubling, zones or not (spaCy issue #13882). Loading the store from its
own bytes (``StringStore.from_bytes(to_bytes())``, spaCy's public API)
re-adds every string it holds into a new table of its live size and frees
the old one. Strings are known by their hashes everywhere else (lexemes,
Docs, matchers), which do not change, so nothing that reads them does.

Only a pipeline semgap owns is rebuilt (the ``assess`` command, its worker
processes, its Dask workers), never a pipeline a caller passes to the library,
and only outside a memory zone (inside one, the zone's strings are in use).
The vocab's lexeme table grows the same way and is left as it is: it cannot be
rebuilt without orphaning the lexemes the tokenizer's cache points to.
"""

def rebuild_string_table(nlp) -> bool:
    """Rebuild the StringStore of ``nlp`` (a ``Language``) at its live size (call between memory zones).

    RETURNS (bool): Whether it was rebuilt (not inside a memory zone).
    """
    vocab = nlp.vocab
    if getattr(vocab, "in_memory_zone", False):
        return False
    strings = vocab.strings
    strings.from_bytes(strings.to_bytes())
    return True

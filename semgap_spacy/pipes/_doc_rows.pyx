# cython: language_level=3, boundscheck=False, wraparound=False
"""The rows of ``pipes.doc_rows`` read straight from spaCy's C structs.

Why: reading token offsets, ORTH keys and span bounds through spaCy's
Python API makes a ``Token`` or ``Span`` object (or a numpy array) for every
value, which costs ``semgap_context`` more than its whole reading of a short
sentence. Here the same values come from ``Doc.c`` and ``SpanGroup.c``; and
``FactsByOrth`` reads a cache keyed by ORTH for each token with no Python
int made for its key.

The struct layouts are those of the spaCy this was compiled against, which
may differ in another spaCy release: ``pipes.doc_rows`` takes these readers
only when ``built_with()`` equals the running spaCy's version, and reads with
the Python API otherwise. Every function returns exactly what its Python
twin in ``pipes.doc_rows`` returns (``tests/pipes/test_doc_rows.py``).
"""
from cpython.array cimport array, clone
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.dict cimport PyDict_GetItem
from cpython.list cimport PyList_CheckExact, PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF, PyObject
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_GET_LENGTH
from libc.string cimport memcpy
from cython.operator cimport dereference as deref
from libc.stdint cimport uint64_t
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector
from spacy.structs cimport SpanC, TokenC
from spacy.tokens.doc cimport Doc
from spacy.tokens.span_group cimport SpanGroup

from semgap_spacy.core._scope_loops cimport needs_near


cdef extern from *:
    """
    #ifndef SEMGAP_SPACY_VERSION
    #define SEMGAP_SPACY_VERSION ""
    #endif
    """
    const char* SEMGAP_SPACY_VERSION


def built_with():
    """The version of spaCy whose structs this module was compiled against."""
    return SEMGAP_SPACY_VERSION.decode("ascii")


def orths(Doc doc):
    """The ORTH key of every token."""
    cdef int i, n = doc.length
    out = [0] * n
    for i in range(n):
        out[i] = doc.c[i].lex.orth
    return out


def keyed_rows(Doc doc):
    """(ORTH keys, start offsets, end offsets) of the tokens."""
    cdef int i, n = doc.length
    cdef const TokenC* t
    keys, starts, ends = [0] * n, [0] * n, [0] * n
    for i in range(n):
        t = &doc.c[i]
        keys[i] = t.lex.orth
        starts[i] = t.idx
        ends[i] = t.idx + t.lex.length
    return keys, starts, ends


def spaced_rows(Doc doc):
    """(start offsets, end offsets, trailing spaces as 0/1, sentence starts after the first
    token or None when no later token is marked as one) of the tokens."""
    cdef int i, n = doc.length
    cdef const TokenC* t
    starts, ends, spaces = [0] * n, [0] * n, [0] * n
    sentence_starts = None
    for i in range(n):
        t = &doc.c[i]
        starts[i] = t.idx
        ends[i] = t.idx + t.lex.length
        spaces[i] = 1 if t.spacy else 0
        if i and t.sent_start == 1:
            if sentence_starts is None:
                sentence_starts = []
            sentence_starts.append(i)
    return starts, ends, spaces, sentence_starts


cdef array _OFFSETS = array("q")


def offset_rows(Doc doc):
    """(start offsets, end offsets, sentence starts as ``spaced_rows`` gives them) of the tokens,
    the offsets as ``array("q")``: a list of them makes a Python int per offset past 256, and
    the readers of a cue's reach ask for a few of them."""
    cdef int i, n = doc.length
    cdef const TokenC* t
    cdef array starts = clone(_OFFSETS, n, False), ends = clone(_OFFSETS, n, False)
    cdef long long* start_at = starts.data.as_longlongs
    cdef long long* end_at = ends.data.as_longlongs
    sentence_starts = None
    for i in range(n):
        t = &doc.c[i]
        start_at[i] = t.idx
        end_at[i] = t.idx + t.lex.length
        if i and t.sent_start == 1:
            if sentence_starts is None:
                sentence_starts = []
            sentence_starts.append(i)
    return starts, ends, sentence_starts


def span_bounds(SpanGroup group):
    """(start, end, start_char, end_char, id) of every span of a group, in its order."""
    cdef size_t i, n = group.c.size()
    cdef const SpanC* s
    out = [None] * n
    for i in range(n):
        s = &group.c[i]
        out[i] = (s.start, s.end, s.start_char, s.end_char, s.id)
    return out


def new_span_group(Doc doc, str name, spans):
    """``SpanGroup(doc, name=name, spans=[Span(doc, start, end, label=label) ...])`` for each
    (start, end, label) of ``spans`` (tokens within the doc, start < end), without a ``Span``
    object per span: each label is added to the doc's strings, as ``Span`` adds it."""
    cdef SpanGroup group = SpanGroup(doc, name=name)
    cdef SpanC span
    cdef int start, end
    strings = doc.vocab.strings
    span.id = 0
    span.kb_id = 0
    for start, end, label in spans:
        if not 0 <= start < end <= doc.length:
            raise IndexError(f"span [{start}, {end}) outside a doc of {doc.length} tokens")
        span.start, span.end = start, end
        span.start_char = doc.c[start].idx
        span.end_char = doc.c[end - 1].idx + doc.c[end - 1].lex.length
        span.label = strings.add(label)
        group.push_back(span)
    return group


def text_length(Doc doc):
    """``len(doc.text)`` without joining the text: where the last token ends, its space included."""
    cdef const TokenC* last
    if doc.length == 0:
        return 0
    last = &doc.c[doc.length - 1]
    return last.idx + last.lex.length + (1 if last.spacy else 0)


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(PyObject*)
    void* PyUnicode_DATA(PyObject*)
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)


def ascii_text(Doc doc, facts, Py_ssize_t text_at):
    """The doc's text from each token's facts (field ``text_at``, its text) and the doc's own
    trailing spaces, when every token's text is ASCII; None when one is not, or when ``facts``
    is not a list of tuples, one per token (the caller joins the texts as before).

    Why: a cue's clauses are read on the text, and ``str.join`` over a list of the token texts
    and spaces costs twice what copying the bytes into a string of known length costs."""
    cdef Py_ssize_t n = doc.length, i, total = 0, size, pos = 0
    cdef PyObject* item
    cdef PyObject* text
    cdef char* out_bytes
    if not PyList_CheckExact(facts) or PyList_GET_SIZE(facts) != n:
        return None
    for i in range(n):
        item = PyList_GET_ITEM(facts, i)
        if not PyTuple_Check(<object>item) or not 0 <= text_at < PyTuple_GET_SIZE(<object>item):
            return None
        text = PyTuple_GET_ITEM(<object>item, text_at)
        if not PyUnicode_CheckExact(<object>text) or not PyUnicode_IS_ASCII(text):
            return None
        total += PyUnicode_GET_LENGTH(<object>text) + (1 if doc.c[i].spacy else 0)
    out = PyUnicode_New(total, 127)
    out_bytes = <char*>PyUnicode_DATA(<PyObject*>out)
    for i in range(n):
        text = PyTuple_GET_ITEM(<object>PyList_GET_ITEM(facts, i), text_at)
        size = PyUnicode_GET_LENGTH(<object>text)
        memcpy(out_bytes + pos, PyUnicode_DATA(text), size)
        pos += size
        if doc.c[i].spacy:
            out_bytes[pos] = 32  # " "
            pos += 1
    return out


cdef struct _Held:
    PyObject* value  # owned by ``FactsByOrth.held``
    long bits
    bint quiet


cdef class FactsByOrth:
    """What an ``util.caches.IndexedCache`` keyed by ORTH holds for each token of a doc:
    ``CueTable.quiet`` and ``CueTable.known`` (``core.context``) over ``orths(doc)``, read
    with the keys left in C.

    Why: a pipe that reads every text asks that cache for every token. As a dict of Python
    ints it costs a Python int per token (ORTH keys are 64-bit hashes) and a dict and a set
    look-up each; here each key the cache has given once is found in a C table.

    The C table is a copy of what the cache gave, filled as tokens ask for keys: a cache
    only adds entries (``IndexedCache.learn``), except where its ``version`` changes
    (emptied, a memory zone's entries dropped, a value kept anew), and then the copy is
    dropped whole before the next read. Its entries are those of the cache, so it is as
    bounded as the cache is.

    With ``gate``, a text the cue gate keeps out on its words' facts alone (``CueTable.gate``:
    no word that opens it, no key word of a longer cue with the cue's other words near it) is
    answered False, read on the C copy: its facts are never gathered into a list.

    cache (IndexedCache): The cache, keyed by ORTH.
    quiet (set): The keys of the kind that asks for nothing (the cache's ``kinds`` entry).
    bits_at (int): The field of each value whose bits ``read`` or-s together.
    gate (Optional[tuple]): (the bits that open the gate, the key-word bit, the bit of a word of
        a longer cue, the no-word bit, the places of the needs and the word in the facts, the
        reach in words), as ``CueTable.gate`` and ``core._scope_loops.needs_met`` take them.
    """
    cdef unordered_map[uint64_t, _Held] table
    cdef list held
    cdef readonly object cache
    cdef object quiet
    cdef Py_ssize_t bits_at
    cdef object version
    cdef bint gated
    cdef long open_bits, key_bit, rest_bit, blank_bit
    cdef Py_ssize_t needs_at, word_at, reach

    def __init__(self, cache, quiet, Py_ssize_t bits_at, gate=None):
        self.cache, self.quiet, self.bits_at = cache, quiet, bits_at
        self.held = []
        self.version = cache.version
        self.gated = gate is not None
        if self.gated:
            (self.open_bits, self.key_bit, self.rest_bit, self.blank_bit, self.needs_at, self.word_at,
             self.reach) = gate

    def read(self, Doc doc):
        """True when the cache holds every token's key and each is of the ``quiet`` kind; False
        when the ``gate`` keeps the text out; else (each token's value, in order; their field
        ``bits_at`` or-ed together; each one's bits up to the eighth as a byte,
        ``core.context.token_flags``); None when the cache holds no value for some token's key
        (``IndexedCache.learn`` it, then read again).

        doc (Doc): The doc.
        """
        cdef int i, n = doc.length
        cdef uint64_t orth
        cdef bint quiet = True
        cdef long bits = 0
        cdef PyObject* value
        cdef _Held entry
        cdef _Held* found
        cdef unordered_map[uint64_t, _Held].iterator at
        cdef vector[PyObject*] row  # this call's own: another thread may read meanwhile
        cdef vector[long] row_bits
        cdef unsigned char* flag_bytes
        if self.cache.version != self.version:
            self.table.clear()
            self.held = []
            self.version = self.cache.version
        # The values in ``row`` are borrowed from ``held``. Nothing in the loop runs Python code,
        # so no other thread runs there; the list made after it may start the garbage collector,
        # whose finalizers may let another thread in to drop the copy: this call keeps its list.
        held = self.held
        row.reserve(n)
        row_bits.reserve(n)
        for i in range(n):
            orth = doc.c[i].lex.orth
            at = self.table.find(orth)
            if at == self.table.end():
                key = orth
                value = PyDict_GetItem(self.cache, key)
                if value is NULL:
                    return None
                item = <object>value
                held.append(item)
                entry.value = value
                entry.bits = <long>item[self.bits_at]
                entry.quiet = key in self.quiet
                self.table[orth] = entry
                at = self.table.find(orth)
            found = &deref(at).second
            quiet = quiet and found.quiet
            bits |= found.bits
            row.push_back(found.value)
            row_bits.push_back(found.bits)
        if quiet:
            return True
        if self.gated and not (bits & self.open_bits) and not (bits & self.key_bit and bits & self.rest_bit):
            return False  # ``CueTable.gate``: no word opens it, and no longer cue can match
        flags = PyBytes_FromStringAndSize(NULL, n)
        flag_bytes = <unsigned char*>PyBytes_AS_STRING(flags)
        for i in range(n):
            flag_bytes[i] = <unsigned char>(row_bits[i] & 0xFF)
        # ``held`` keeps the values alive, even if another thread drops the copy meanwhile
        if self.gated and not (bits & self.open_bits) and not needs_near(
                row.data(), flag_bytes, n, self.needs_at, self.word_at, self.reach, self.key_bit, self.blank_bit):
            return False  # ``CueTable.gate``: no longer cue has its words near each other
        out = PyList_New(n)
        for i in range(n):
            item = <object>row[i]
            Py_INCREF(item)
            PyList_SET_ITEM(out, i, item)
        return out, bits, flags

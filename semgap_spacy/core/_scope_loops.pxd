# cython: language_level=3
# What ``_scope_reach.pyx`` takes from ``_scope_loops.pyx`` at the C level: one candidate
# token's clause breaks, written into C vectors (``breaks_by_token`` gives them as Python lists),
# the reading of one field of a word's facts and the check of a text's token flags, which both
# modules' loops use; and to ``pipes/_doc_rows.pyx``, the gate's check of a longer cue's words
# (``needs_met``) on facts it holds in a C array.
from cpython.ref cimport PyObject
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libcpp.vector cimport vector


cdef inline object _field(object facts_item, Py_ssize_t k):
    """Field ``k`` of one word's facts: by tuple slot (``WordFacts`` is a tuple), else by index."""
    if PyTuple_Check(facts_item) and 0 <= k < PyTuple_GET_SIZE(facts_item):
        return <object>PyTuple_GET_ITEM(facts_item, k)
    return facts_item[k]


cdef const unsigned char* _flags_of(bytes flags, Py_ssize_t n) except NULL


cdef int candidate_breaks(object rule, str text, object starts, object ends, Py_ssize_t c, Py_ssize_t n,
                          vector[int]& js, vector[char]& commas) except -1


cdef bint needs_near(PyObject** facts, const unsigned char* flags, Py_ssize_t n, Py_ssize_t needs_at,
                     Py_ssize_t word_at, Py_ssize_t reach, long key_bit, long blank_bit) except -1

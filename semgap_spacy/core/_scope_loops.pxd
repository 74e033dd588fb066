# cython: language_level=3
# What ``_scope_reach.pyx`` takes from ``_scope_loops.pyx`` at the C level: one candidate
# token's clause breaks, written into C vectors (``breaks_by_token`` gives them as Python lists).
from libcpp.vector cimport vector


cdef int candidate_breaks(object rule, str text, object starts, object ends, Py_ssize_t c, Py_ssize_t n,
                          vector[int]& js, vector[char]& commas) except -1

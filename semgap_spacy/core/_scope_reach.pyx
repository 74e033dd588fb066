# cython: language_level=3
"""Which cues reach which targets (``core.context._Layout`` and ``_Clauses``), compiled.

Why: the scope reading of a sentence with a cue asks, per cue and target,
whether a clause break or a clause start parts them and, across commas,
whether the target is an item of the cue's list. In Python that is most of
``semgap_context``'s time on such a sentence. Here the same questions are
answered on C arrays.

The Python model works the clause structure out lazily, only as far as a
question needs it, because each step costs there; here the breaks of every
candidate token are read at once, which gives the same answers (a token's
breaks do not depend on which others were asked about). The breaks come
from the compiled rule (``_scope_loops.candidate_breaks``, the loop of
``ClauseRule.breaks_by_token``) straight into C vectors; the section headers
from the rule's own code. ``readings`` answers ``CueTable.read``, ``marks``
``CueTable.marks`` (the readings merged into what the pipe writes, with no
``Reading`` per target). Only texts whose breaks are their own
(``clauses.same_breaks``) come here; ``CueTable`` keeps the others in
Python. A text with many cue and target pairs asks each target only about
the cues of its stretch (``near``), as the Python model does. The
C arrays are read without bounds checks, so every target and cue is checked
to lie within the tokens when the object is made; where one does not,
``usable`` is False and the Python model reads the text.
``tests/core/test_scope_reach.py`` checks every reading against the Python
model's.
"""
from bisect import bisect_left

from libcpp.vector cimport vector

from ._scope_loops cimport _flags_of, candidate_breaks


cdef struct _Found:
    # a cue (or a count of none) that reaches a target, and how far it is in words
    int dist
    int cs
    int ce


cdef struct _Mark:
    # one target's values: the nearest negation and hedge cue, a distance of -2 for none
    int neg_dist
    int neg_cs
    int neg_ce
    int hedge_dist
    int hedge_cs
    int hedge_ce


cdef Py_ssize_t _bisect_left(vector[int]& values, int x):
    """``bisect.bisect_left`` on a rising vector."""
    cdef Py_ssize_t lo = 0, hi = <Py_ssize_t>values.size(), mid
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef Py_ssize_t _bisect_right(vector[int]& values, int x):
    """``bisect.bisect_right`` on a rising vector."""
    cdef Py_ssize_t lo = 0, hi = <Py_ssize_t>values.size(), mid
    while lo < hi:
        mid = (lo + hi) // 2
        if x < values[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef class Reach:
    """The clauses of one text, for the cues and targets of one ``CueTable.read``."""

    #: False when a target or cue lies outside the tokens: the caller reads with the Python model
    cdef readonly bint usable
    cdef object rows, rule, scope, conjunctions
    cdef Py_ssize_t n
    cdef bint spaced
    cdef vector[char] inside, is_word
    cdef vector[int] words_before
    # the cues
    cdef Py_ssize_t n_cues
    cdef vector[int] cs, ce
    cdef vector[char] glued
    cdef vector[double] neg_fwd, neg_bwd, hedge_fwd, hedge_bwd
    # break tokens of each candidate, flat: candidate k's are [brk_from[k], brk_from[k + 1])
    cdef bint breaks_read
    cdef vector[int] cand, brk_from, brk_j
    cdef vector[char] brk_comma
    cdef object bounds
    cdef vector[int] bounds_c
    # the whole picture (``_Clauses``)
    cdef bint full_read
    cdef vector[int] clause_of, item_words, last_word, past, ends
    cdef vector[char] comma_after, has_conjunction
    cdef Py_ssize_t count

    def __init__(self, rows, targets, rule, scope, cues, bytes flags, long blank_bit, long break_bit,
                 long conjunction_bit):
        """rows (TokenRows), targets (Sequence[Target]), rule (ClauseRule), scope (ScopeSettings),
        cues: (start, end, Effect, glued) of every negation or hedge cue, in text order;
        flags: a byte per token (``context.token_flags``), whose bits say whether it reads as
        nothing (whitespace, no word: ``blank_bit``), whether it can hold a break (``break_bit``)
        and whether it is a list conjunction (``conjunction_bit``). (A byte per token, rather
        than its facts, which would be one more object to read per token.)"""
        self.setup(rows, targets, rule, scope, cues, flags, blank_bit, break_bit, conjunction_bit)

    def setup(self, rows, targets, rule, scope, cues, bytes flags, long blank_bit, long break_bit,
              long conjunction_bit):
        """Make this object the clauses of a text (the arguments of ``__init__``), all it held
        of another text forgotten; its vectors keep the memory they hold (``reach``)."""
        cdef Py_ssize_t i, ts, te
        cdef char flag
        cdef const unsigned char* fl
        self.release()
        self.words_before.clear()
        self.cs.clear()
        self.ce.clear()
        self.glued.clear()
        self.neg_fwd.clear()
        self.neg_bwd.clear()
        self.hedge_fwd.clear()
        self.hedge_bwd.clear()
        self.cand.clear()
        self.brk_from.clear()
        self.brk_j.clear()
        self.brk_comma.clear()
        self.bounds_c.clear()
        self.clause_of.clear()
        self.item_words.clear()
        self.last_word.clear()
        self.past.clear()
        self.ends.clear()
        self.comma_after.clear()
        self.has_conjunction.clear()
        self.count = 0
        self.n_cues = 0
        self.breaks_read = False
        self.full_read = False
        self.rows, self.rule, self.scope = rows, rule, scope
        self.n = len(rows.facts)
        fl = _flags_of(flags, self.n)
        self.spaced = rows.spaced
        self.inside.assign(self.n, 0)
        self.usable = True
        for t in targets:  # a ``Target``, or any tuple that starts with its start and end
            ts, te = t[0], t[1]
            if not 0 <= ts <= te <= self.n:  # the C arrays below are read unchecked
                self.usable = False
                return
            for i in range(ts, te):
                self.inside[i] = 1
        self.is_word.assign(self.n, 0)
        self.cand.reserve(self.n)  # one allocation per vector, not one per doubling
        conjunctions = []
        for i in range(self.n):
            if not (fl[i] & blank_bit):
                self.is_word[i] = 1
            if fl[i] & break_bit:
                self.cand.push_back(<int>i)
            if fl[i] & conjunction_bit:
                conjunctions.append(i)
        self.n_cues = len(cues)
        self.cs.reserve(self.n_cues)
        self.ce.reserve(self.n_cues)
        self.glued.reserve(self.n_cues)
        self.neg_fwd.reserve(self.n_cues)
        self.neg_bwd.reserve(self.n_cues)
        self.hedge_fwd.reserve(self.n_cues)
        self.hedge_bwd.reserve(self.n_cues)
        # (no conditional expression is passed to a C++ method here: Cython 3.3 passes it as a
        # reference to a temporary, and the vector keeps garbage)
        for start, end, eff, glued in cues:
            if not 0 <= start < end <= self.n:
                self.usable = False
                return
            self.cs.push_back(start)
            self.ce.push_back(end)
            flag = 1 if glued else 0
            self.glued.push_back(flag)
            neg_forward, neg_backward, hedge_forward, hedge_backward = eff.reaches
            self.neg_fwd.push_back(neg_forward)
            self.neg_bwd.push_back(neg_backward)
            self.hedge_fwd.push_back(hedge_forward)
            self.hedge_bwd.push_back(hedge_backward)
        self.conjunctions = conjunctions

    def release(self):
        """Drop the objects of the text read (its rows, rule, scope), so a spare object keeps
        none alive; ``setup`` gives it another text."""
        self.rows = self.rule = self.scope = self.conjunctions = self.bounds = None
        self.usable = False

    # -- the rule's breaks and clause starts --------------------------------
    cdef int _read_breaks(self) except -1:
        """Every candidate's break tokens (``_Layout.breaks_from``), targets' tokens left out."""
        cdef Py_ssize_t k, m, n_text
        cdef vector[int] js
        cdef vector[char] commas
        cdef str text
        if self.breaks_read:
            return 0
        self.breaks_read = True
        rows = self.rows
        text, starts, ends = rows.text, rows.starts, rows.ends
        self.brk_from.push_back(0)
        for k in range(<Py_ssize_t>self.cand.size()):
            js.clear()
            commas.clear()
            candidate_breaks(self.rule, text, starts, ends, self.cand[k], self.n, js, commas)
            for m in range(<Py_ssize_t>js.size()):
                if not self.inside[js[m]]:
                    self.brk_j.push_back(js[m])
                    self.brk_comma.push_back(commas[m])
            self.brk_from.push_back(<int>self.brk_j.size())
        return 0

    cdef object _boundaries(self):
        """``_Layout.boundaries``: tokens that start a clause without a break token."""
        cdef Py_ssize_t i
        if self.bounds is None:
            rows = self.rows
            headed = self.scope.section_headers and ":" in rows.text
            if not rows.sentence_starts and not headed:  # most texts: no clause start but the first
                self.bounds = []
                return self.bounds
            found = set(rows.sentence_starts or ())
            if headed:
                for offset in self.rule.headers(rows.text):
                    i = bisect_left(rows.starts, offset)
                    if i < self.n and not self.inside[i]:
                        found.add(i)
            found.discard(0)
            self.bounds = sorted(found)
            for i in self.bounds:
                self.bounds_c.push_back(i)
        return self.bounds

    cdef int _break_before(self, int b):
        """The greatest a for which a break token lies in [a, b) (a break word that starts up to
        two tokens before a may run into it), or -1."""
        cdef int found = -1, c, j, reach
        cdef Py_ssize_t k, m
        self._read_breaks()
        # back from the last candidate before b, while an earlier one can still reach further
        k = _bisect_left(self.cand, b) - 1
        while k >= 0 and self.cand[k] + 2 > found:
            c = self.cand[k]
            for m in range(self.brk_from[k], self.brk_from[k + 1]):
                j = self.brk_j[m]
                if j < b:
                    reach = j if j < c + 2 else c + 2
                    if reach > found:
                        found = reach
            k -= 1
        return found

    cdef int _break_from(self, int a):
        """The first break token at a or after it (of a candidate from a - 2 on), or the number
        of tokens."""
        cdef int found = <int>self.n, c, j
        cdef Py_ssize_t k, m
        self._read_breaks()
        for k in range(_bisect_left(self.cand, a - 2), <Py_ssize_t>self.cand.size()):
            c = self.cand[k]
            if c >= found:  # a break token never comes before its candidate
                break
            for m in range(self.brk_from[k], self.brk_from[k + 1]):
                j = self.brk_j[m]
                if a <= j < found:
                    found = j
        return found

    cdef bint _clear(self, int a, int b, bint upto):
        """``_Layout.clear`` for a text whose breaks are its own: no break token in [a, b) and no
        clause start in [a, b]."""
        cdef Py_ssize_t k
        self._boundaries()
        k = _bisect_left(self.bounds_c, a)  # a clause starting at a parts a from the token before it
        if k < <Py_ssize_t>self.bounds_c.size() and self.bounds_c[k] <= b:
            return False
        if upto:
            return a > self._break_before(b)
        return self._break_from(a) >= b

    cdef int _words(self, int a, int b):
        """How many words lie in tokens [a, b)."""
        cdef int i, total
        if not self.spaced:
            return b - a
        if self.words_before.size() == 0:
            self.words_before.push_back(0)
            total = 0
            for i in range(<int>self.n):
                total += self.is_word[i]
                self.words_before.push_back(total)
        return self.words_before[b] - self.words_before[a]

    # -- the whole picture (``_Clauses``) -----------------------------------
    cdef int _read_full(self) except -1:
        """``_Clauses`` from the break vectors: ``clauses.segment``'s numbering (a break token
        is a comma if any break that covers it says so, as ``segment`` reads the sorted set of
        breaks), the conjunctions, words and parentheticals of each clause."""
        cdef Py_ssize_t i, c, count, m, b
        cdef vector[signed char] kind
        cdef vector[char] opens
        cdef bint comma = True, open_gap = False
        cdef signed char k
        cdef char flag
        if self.full_read:
            return 0
        self.full_read = True
        self._read_breaks()
        self._boundaries()
        kind.assign(self.n, -1)
        for m in range(<Py_ssize_t>self.brk_j.size()):
            if kind[self.brk_j[m]] != 1:
                kind[self.brk_j[m]] = self.brk_comma[m]
        opens.assign(self.n, 0)
        for b in range(<Py_ssize_t>self.bounds_c.size()):
            opens[self.bounds_c[b]] = 1
        c = 0
        self.clause_of.assign(self.n, 0)
        for i in range(self.n):  # ``clauses.segment``
            k = kind[i]
            if k >= 0:
                self.clause_of[i] = -1
                comma = comma and k != 0
                open_gap = True
                continue
            if i > 0 and opens[i]:
                open_gap, comma = True, False
            if open_gap:
                flag = 1 if comma else 0
                self.comma_after.push_back(flag)
                c += 1
                comma, open_gap = True, False
            self.clause_of[i] = <int>c
        self.comma_after.push_back(0)
        count = self.count = <Py_ssize_t>self.comma_after.size()
        self.has_conjunction.assign(count, 0)
        for i in self.conjunctions:
            c = self.clause_of[i]
            if c >= 0 and not self.inside[i]:
                self.has_conjunction[c] = 1
        scope = self.scope
        if scope.short_items or scope.parentheticals:
            self.item_words.assign(count, 0)
            self.last_word.assign(count, -1)
            for i in range(self.n):
                c = self.clause_of[i]
                if c >= 0 and self.is_word[i]:
                    self.item_words[c] += 1
                    self.last_word[c] = <int>i
        if scope.parentheticals:
            self.past.resize(count)
            for c in range(count):
                self.past[c] = <int>c
            for c in range(count - 2, -1, -1):
                if self.comma_after[c]:
                    self.past[c] = self.past[c + 1]
        self.ends.assign(count, -2)
        return 0

    cdef int _ends_at(self, int clause):
        """``clauses.list_end``: the last clause a forward cue in ``clause`` reaches."""
        cdef int k, found
        cdef bint short
        cdef int short_items = self.scope.short_items
        if self.ends[clause] != -2:
            return self.ends[clause]
        if self.has_conjunction[clause] and not self.scope.open_lists:
            found = clause
        else:
            found = -1
            k = clause
            short = short_items != 0
            while k + 1 < self.count and self.comma_after[k]:
                k += 1
                if self.has_conjunction[k]:
                    found = k
                    break
                short = short and self.item_words[k] <= short_items
            if found < 0:
                found = k if short and k > clause else clause
        self.ends[clause] = found
        return found

    cdef bint _forward(self, int cs, int ce, int ts, int te, int dist, double* reach):
        """``_Clauses.forward``: False when out of reach, else the reach in ``reach``."""
        cdef int cue_clause, clause = -1, i
        self._read_full()
        cue_clause = self.clause_of[cs]
        for i in range(ts, te):
            if self.clause_of[i] >= 0:
                clause = self.clause_of[i]
                break
        if cue_clause < 0 or clause < cue_clause:
            return False
        if clause == cue_clause:
            reach[0] = dist
            return True
        if clause <= self._ends_at(cue_clause):
            reach[0] = -1
            return True
        if self.scope.parentheticals and self.last_word[cue_clause] == ce - 1 and clause <= self.past[cue_clause]:
            reach[0] = dist
            return True
        return False

    def near(self, targets):
        """``_Layout.near``: for each target (a ``Target``, or a tuple that starts with its start
        and end), the (first, end) of the run of cues (in text order)
        that may reach it, those with no stop between it and the target. A stop is a break that
        is not a comma, of a candidate at most two tokens before it, or a clause start without a
        break token (``_Layout.stops``)."""
        cdef Py_ssize_t k, m, size
        cdef int c, j, before, after
        self._read_breaks()
        comma_of = {}
        for k in range(<Py_ssize_t>self.cand.size()):  # a comma if any break that covers it says so
            for m in range(self.brk_from[k], self.brk_from[k + 1]):
                j = self.brk_j[m]
                comma_of[j] = comma_of.get(j, False) or bool(self.brk_comma[m])
        found = set()
        for k in range(<Py_ssize_t>self.cand.size()):
            c = self.cand[k]
            for m in range(self.brk_from[k], self.brk_from[k + 1]):
                j = self.brk_j[m]
                if not comma_of[j] and j <= c + 2:
                    found.add(j)
        found.update(b for b in self._boundaries() if b not in comma_of)
        stops = sorted(found)
        size = len(stops)
        out = []
        for t in targets:
            k = bisect_left(stops, t[0])
            before = stops[k - 1] if k else -1
            k = bisect_left(stops, t[1])
            after = stops[k] if k < size else <int>self.n
            # cues come in text order, one after another: their starts and ends both rise
            out.append((_bisect_right(self.ce, before), _bisect_right(self.cs, after)))
        return out

    # -- the question -------------------------------------------------------
    cdef void _reach_into(self, int ts, int te, object inner, Py_ssize_t lo, Py_ssize_t hi, bint negation,
                          bint hedges, vector[_Found]* neg, vector[_Found]* hedge) except *:
        """``_Layout.reach`` over the cues [lo, hi) of the target [ts, te): each cue that reaches it
        goes to ``neg`` / ``hedge`` (when that reading is asked for)."""
        cdef Py_ssize_t k
        cdef int cs, ce, dist, i
        cdef double reach
        cdef bint neg_ok, hedge_ok, own
        cdef _Found found
        for k in range(lo, hi):
            cs, ce = self.cs[k], self.ce[k]
            if cs >= ts and ce <= te:
                if inner is None:
                    continue
                own = True
                for i in range(cs, ce):
                    if i not in inner:
                        own = False
                        break
                if own:
                    continue
                neg_ok = self.neg_fwd[k] >= 0 or self.neg_bwd[k] >= 0
                hedge_ok = self.hedge_fwd[k] >= 0 or self.hedge_bwd[k] >= 0
                dist = -1
            elif (cs < ts and ts < ce) or ce <= ts:
                if self.glued[k] or (self.neg_fwd[k] < 0 and self.hedge_fwd[k] < 0):
                    continue
                dist = self._words(ce, ts) if ce <= ts else 0
                if ce >= ts or self._clear(ce, ts, True):
                    reach = dist
                elif not self._forward(cs, ce, ts, te, dist, &reach):
                    continue
                neg_ok, hedge_ok = reach < self.neg_fwd[k], reach < self.hedge_fwd[k]
            elif cs >= te:
                if (self.glued[k] or (self.neg_bwd[k] < 0 and self.hedge_bwd[k] < 0)
                        or not self._clear(te, cs, False)):
                    continue
                dist = self._words(te, cs)
                neg_ok, hedge_ok = dist < self.neg_bwd[k], dist < self.hedge_bwd[k]
            else:
                continue
            found.dist, found.cs, found.ce = dist, cs, ce
            if neg_ok and negation:
                neg.push_back(found)
            if hedge_ok and hedges:
                hedge.push_back(found)

    cdef int _hits(self, Py_ssize_t t, int ts, int te, object inner, object stretches, bint negation, bint hedges,
                   bint zeros, object zero_count, vector[_Found]* neg, vector[_Found]* hedge) except -1:
        """The cues (and counts of none) that reach target ``t`` [ts, te), into ``neg`` and
        ``hedge``: what ``readings`` and ``marks`` both read a target by."""
        cdef Py_ssize_t lo, hi
        cdef _Found f
        neg.clear()
        hedge.clear()
        if stretches is None:
            lo, hi = 0, self.n_cues
        else:
            lo, hi = stretches[t]
        self._reach_into(ts, te, inner, lo, hi, negation, hedges, neg, hedge)
        if zeros:
            for dist, cs, ce in zero_count(self.rows, ts, te):
                f.dist, f.cs, f.ce = dist, cs, ce
                neg.push_back(f)
        return 0

    def readings(self, targets, stretches, bint negation, bint hedges, bint zeros, bint asked, hit_type,
                 reading_type, zero_count, asked_hit):
        """``CueTable.read`` for every target at once: a ``reading_type`` (negation, hedge) of
        ``hit_type`` values (``core.context.Reading``, ``Hit``) per target, as ``_reading`` makes
        them.

        stretches: each target's (first, end) run of cues (``near``), or None for all of them.
        zeros, asked: whether a count of none or a question may read a target; ``zero_count``
        and ``asked_hit`` (``core.context._zero_count``, ``_asked``) then read it, in Python.
        """
        cdef vector[_Found] neg, hedge
        cdef Py_ssize_t t = 0
        out = []
        for target in targets:
            ts, te, inner = target
            self._hits(t, ts, te, inner, stretches, negation, hedges, zeros, zero_count, &neg, &hedge)
            neg_hit = _hit(neg, hit_type) if neg.size() else None
            hedge_hit = _hit(hedge, hit_type) if hedge.size() else None
            if hedge_hit is None and asked:
                hedge_hit = asked_hit(self.rows, ts, te)
            out.append(tuple.__new__(reading_type, (neg_hit, hedge_hit)))
            t += 1
        return out

    def marks(self, placed, bint far, starts, ends, bint negation, bint hedges, bint zeros, bint asked,
              zero_count, asked_hit, marks_type=tuple):
        """``CueTable.marks`` for the targets this object was made with: each target's reading, as
        ``readings`` finds it, merged by character offsets as ``context.merge_readings`` merges
        them; (marked, unmarked, applied).

        placed: (start, end, start_char, end_char, inner) of each target.
        far: whether each target asks only the cues of its stretch (``near``).
        starts, ends: the tokens' character offsets (a cue is written at them).
        marks_type: the tuple type of the result (``core.context.Marks``).
        """
        cdef vector[_Found] neg, hedge
        cdef _Found f
        cdef Py_ssize_t t = 0, slot, k
        cdef vector[_Mark] merged
        cdef _Mark mark
        stretches = self.near(placed) if far else None
        slots = {}  # (start_char, end_char) -> index in merged, in first-seen order
        offsets = []
        applied = {}
        for item in placed:
            ts, te, start_char, end_char, inner = item
            self._hits(t, ts, te, inner, stretches, negation, hedges, zeros, zero_count, &neg, &hedge)
            t += 1
            mark.neg_dist = -2
            mark.hedge_dist = -2
            if neg.size():
                k = _nearest(neg)
                mark.neg_dist, mark.neg_cs, mark.neg_ce = neg[k].dist, neg[k].cs, neg[k].ce
                for f in neg:
                    applied[(f.cs, f.ce, u"negation")] = None
            if hedge.size():
                k = _nearest(hedge)
                mark.hedge_dist, mark.hedge_cs, mark.hedge_ce = hedge[k].dist, hedge[k].cs, hedge[k].ce
                for f in hedge:
                    applied[(f.cs, f.ce, u"hedge")] = None
            elif asked:
                hit = asked_hit(self.rows, ts, te)
                if hit is not None:
                    mark.hedge_dist, (mark.hedge_cs, mark.hedge_ce) = hit[0], hit[1]
                    for cs, ce in hit[2]:
                        applied[(cs, ce, u"hedge")] = None
            key = (start_char, end_char)
            found = slots.get(key)
            if found is None:
                slots[key] = len(offsets)
                offsets.append(key)
                merged.push_back(mark)
                continue
            slot = found
            # the nearest cue of each kind wins (``merge_readings``)
            if mark.neg_dist != -2 and (merged[slot].neg_dist == -2 or mark.neg_dist < merged[slot].neg_dist):
                merged[slot].neg_dist, merged[slot].neg_cs, merged[slot].neg_ce = (
                    mark.neg_dist, mark.neg_cs, mark.neg_ce)
            if mark.hedge_dist != -2 and (merged[slot].hedge_dist == -2
                                          or mark.hedge_dist < merged[slot].hedge_dist):
                merged[slot].hedge_dist, merged[slot].hedge_cs, merged[slot].hedge_ce = (
                    mark.hedge_dist, mark.hedge_cs, mark.hedge_ce)
        marked, unmarked = [], []
        for slot in range(<Py_ssize_t>merged.size()):
            mark = merged[slot]
            start_char, end_char = offsets[slot]
            if mark.neg_dist == -2 and mark.hedge_dist == -2:
                unmarked.append((start_char, end_char))
                continue
            marked.append((start_char, end_char, mark.neg_dist != -2, mark.hedge_dist != -2,
                           [starts[mark.neg_cs], ends[mark.neg_ce - 1]] if mark.neg_dist != -2 else None,
                           [starts[mark.hedge_cs], ends[mark.hedge_ce - 1]] if mark.hedge_dist != -2 else None))
        return tuple.__new__(marks_type, (marked, unmarked, applied))


#: ``Reach`` objects done with, kept for the next text (``reach``, ``done``)
cdef list _spare = []
#: a spare keeps the vectors of the longest text it read: one that read a longer text is dropped
cdef Py_ssize_t _SPARE_TOKENS = 4096, _SPARES = 4


def reach(rows, targets, rule, scope, cues, bytes flags, long blank_bit, long break_bit, long conjunction_bit):
    """``Reach(...)``, from a spare one where there is one (``done``): a text's reach fills a
    score of vectors, and a spare one's are refilled without asking for memory again."""
    cdef Reach layout
    try:
        layout = _spare.pop()
    except IndexError:
        return Reach(rows, targets, rule, scope, cues, flags, blank_bit, break_bit, conjunction_bit)
    layout.setup(rows, targets, rule, scope, cues, flags, blank_bit, break_bit, conjunction_bit)
    return layout


def done(Reach layout):
    """Give back a ``Reach`` no longer read (nothing it returned refers to it): ``reach`` may
    set it up for another text. A few are kept, of texts of up to a few thousand tokens."""
    layout.release()
    if layout.n <= _SPARE_TOKENS and len(_spare) < _SPARES:
        _spare.append(layout)


cdef Py_ssize_t _nearest(vector[_Found]& found):
    """The place of the nearest cue: least distance, then start, then end (``min`` of the hits)."""
    cdef Py_ssize_t k, best = 0
    cdef _Found a, b
    for k in range(1, <Py_ssize_t>found.size()):
        a, b = found[k], found[best]
        if a.dist < b.dist or (a.dist == b.dist and (a.cs < b.cs or (a.cs == b.cs and a.ce < b.ce))):
            best = k
    return best


cdef object _hit(vector[_Found]& found, hit_type):
    """``core.context._hit``: the nearest cue (least distance, then start, then end) and all of them."""
    cdef Py_ssize_t best = _nearest(found)
    cues = tuple([(f.cs, f.ce) for f in found])
    return tuple.__new__(hit_type, (found[best].dist, (found[best].cs, found[best].ce), cues))

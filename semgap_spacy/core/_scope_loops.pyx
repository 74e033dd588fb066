# cython: language_level=3
"""The per-token loops of the scope model (``core.clauses``, ``core.context``), compiled.

Why: ``semgap_context`` reads a sentence in a few dozen steps, each a loop
over its tokens or over the few that can hold a clause break; in Python each
costs about a microsecond, and together they cost several times what
negspacy spends on the whole sentence. Each function here is the twin of a
Python one and gives exactly its answer (``tests/core/test_scope_loops.py``);
``core.clauses`` and ``core.context`` take them when the extension was built
and keep the Python ones otherwise.

For ``breaks_by_token``, the punctuation part of the rule
(``clauses._BREAK_PUNCT``) is matched character by character with the same
character classes the ``re`` module uses for ``str`` patterns (``\\d`` is a
decimal digit, ``\\s`` whitespace, as ``Py_UNICODE_ISDECIMAL`` and
``Py_UNICODE_ISSPACE`` say); the break words and the full stop of an
abbreviation are still asked of the rule's own Python code, so the two
versions cannot drift apart there. The word facts of ``core.context`` are
tuples (``WordFacts``), read here by field index; the gate reads them for a
text at once (``known_facts``, ``needs_met``). ``candidate_breaks`` is also
given to ``_scope_reach.pyx`` at the C level (``_scope_loops.pxd``).
"""
from cpython.dict cimport PyDict_Check, PyDict_GetItem
from cpython.ref cimport PyObject
from cpython.unicode cimport (Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL, Py_UNICODE_ISSPACE, PyUnicode_CheckExact,
                              PyUnicode_GET_LENGTH)
from libcpp.vector cimport vector


cdef inline bint _digit(str text, Py_ssize_t p, Py_ssize_t n):
    return 0 <= p < n and Py_UNICODE_ISDECIMAL(text[p])


cdef inline bint _space(str text, Py_ssize_t p, Py_ssize_t n):
    return 0 <= p < n and Py_UNICODE_ISSPACE(text[p])


cdef Py_ssize_t _punct_end(str text, Py_ssize_t p, Py_ssize_t n):
    """Where a match of ``clauses._BREAK_PUNCT`` at ``p`` ends, or -1: its alternatives in order."""
    cdef Py_UCS4 ch = text[p]
    if ch == u",":
        # "(?<!\d),|,(?!\d)": a comma, unless a digit stands on both sides of it
        return p + 1 if not _digit(text, p - 1, n) or not _digit(text, p + 1, n) else -1
    if ch == u";" or ch == u"\u2014" or ch == u"\u2015":
        return p + 1
    if ch == u"-" and p + 1 < n and text[p + 1] == u"-":
        return p + 2
    if ch == u"-" or ch == u"\u2013" or ch == u"\u2212":
        return p + 1 if _space(text, p - 1, n) and _space(text, p + 1, n) else -1
    if ch == u"." or ch == u"!" or ch == u"?" or ch == u"\u2026":
        return p + 1 if p + 1 == n or _space(text, p + 1, n) else -1
    return -1


cdef inline bint _punct_char(Py_UCS4 ch):
    """``clauses._PUNCT_CHARS``."""
    return (ch == u"," or ch == u";" or ch == u"\u2014" or ch == u"\u2015" or ch == u"-" or ch == u"\u2013"
            or ch == u"\u2212" or ch == u"." or ch == u"!" or ch == u"?" or ch == u"\u2026")


cdef inline bint _alone_char(Py_UCS4 ch):
    """``clauses._ALONE``."""
    return ch == u"," or ch == u";" or ch == u"." or ch == u"!" or ch == u"?" or ch == u"\u2026"


cdef inline bint _word_char(Py_UCS4 ch):
    """``\\w`` of the ``re`` module for ``str``."""
    return Py_UNICODE_ISALNUM(ch) or ch == u"_"


cdef Py_ssize_t _word_end(rule, str text, Py_ssize_t start, Py_ssize_t n) except -2:
    """Where the break word that starts at ``start`` ends, or -1: what ``rule._word_match`` finds.

    The words that can start there (``clauses._ascii_words_by_first_char``) are matched in the
    pattern's order, case-insensitively as ASCII, their parts joined by whitespace and the word
    standing alone (no word character on either side). Where the comparison meets a character
    outside ASCII in the text, or one in a word that the pattern may match to the ASCII
    character of the text (``clauses._ascii_alike``), the pattern itself matches from ``start``
    (it tries the words before this one again, which found no match here either); any other
    character of a word outside ASCII matches no ASCII character.
    """
    cdef Py_ssize_t code = <Py_ssize_t>text[start], p, q, i, length, t
    cdef bint ok
    cdef str part
    if code >= 128:
        return _pattern_end(rule, text, start)
    key = chr(code + 32 if 65 <= code <= 90 else code)
    table = rule._ascii_words
    group = table.get(key, table[""])
    alike = rule._ascii_alike
    if start > 0 and _word_char(text[start - 1]):
        return -1  # ``(?<!\w)``: no word starts inside another
    for parts in group:
        p, ok = start, True
        for i, part in enumerate(parts):
            if i:
                q = p
                while q < n and Py_UNICODE_ISSPACE(text[q]):
                    q += 1
                if q == p:
                    ok = False
                    break
                p = q
            length = len(part)
            if p + length > n:
                ok = False
                break
            for q in range(length):
                t = <Py_ssize_t>text[p + q]  # a code point, compared as ASCII in lower case
                if t >= 128:
                    return _pattern_end(rule, text, start)
                if <Py_ssize_t>part[q] >= 128:
                    if part[q] in alike:
                        return _pattern_end(rule, text, start)
                    ok = False
                    break
                if 65 <= t <= 90:
                    t += 32
                if t != <Py_ssize_t>part[q]:
                    ok = False
                    break
            if not ok:
                break
            p += length
        if ok and (p == n or not _word_char(text[p])):
            return p
    return -1


cdef Py_ssize_t _pattern_end(rule, str text, Py_ssize_t start) except -2:
    m = rule._word_match(text, start)
    return -1 if m is None else m.end()


cdef bint _abbreviation(rule, str text, Py_ssize_t stop) except -1:
    """``ClauseRule._abbreviation_at``: whether the full stop at ``stop`` ends an abbreviation."""
    cdef Py_ssize_t first, i
    non_final = rule._non_final
    if stop:
        folded = text[stop - 1:stop].casefold()
        if folded[len(folded) - 1] not in rule._non_final_ends and "" not in non_final:
            return False
    first, i = max(0, stop - 8), stop  # ``clauses._word_before``
    while i > first and (Py_UNICODE_ISALNUM(text[i - 1]) or text[i - 1] == u"."):
        i -= 1
    return text[i:stop].casefold() in non_final


def breaks_by_token(rule, str text, starts, ends, candidates):
    """``ClauseRule.breaks_by_token``: for each candidate token, the break tokens its own breaks
    cover, in order, as (token index, whether the break is a comma)."""
    cdef Py_ssize_t n = len(starts), c, m
    cdef vector[int] js
    cdef vector[char] commas
    cdef dict out = {}
    for c in candidates:
        js.clear()
        commas.clear()
        candidate_breaks(rule, text, starts, ends, c, n, js, commas)
        out[c] = [(js[m], commas[m] != 0) for m in range(<Py_ssize_t>js.size())]
    return out


cdef int candidate_breaks(object rule, str text, object starts, object ends, Py_ssize_t c, Py_ssize_t n,
                          vector[int]& js, vector[char]& commas) except -1:
    """The break tokens candidate ``c``'s own breaks cover (itself, and the next ones a break word
    or "--" runs over), in order, appended to ``js`` with whether each is a comma to ``commas``:
    ``ClauseRule._breaks_by_token`` for one candidate. The tokens a candidate's breaks cover run
    on from ``c`` without a gap, so they are kept as one run of states (-1: not covered)."""
    cdef Py_ssize_t n_text = len(text), start, end, p, match_end, i
    cdef bint comma
    cdef vector[signed char] state
    cdef signed char was, now
    cdef char flag
    start, end = starts[c], ends[c]
    if end - start == 1 and _alone_char(text[start]):  # a comma or a full stop as a token
        match_end = _punct_end(text, start, n_text)
        if match_end >= 0 and not (text[start] == u"." and _abbreviation(rule, text, start)):
            # (a typed local, never a conditional expression, goes to a C++ method: Cython 3.3
            # passes the latter as a reference to a temporary, and the vector keeps garbage)
            flag = 1 if text[start] == u"," else 0
            js.push_back(<int>c)
            commas.push_back(flag)
        return 0
    for p in range(start, end):
        if not _punct_char(text[p]):
            continue
        match_end = _punct_end(text, p, n_text)
        if match_end < 0 or (text[p] == u"." and _abbreviation(rule, text, p)):
            continue
        comma = text[p] == u","
        i = c
        while i < n and starts[i] < match_end:  # "--" may run over the next tokens
            if i - c >= <Py_ssize_t>state.size():
                state.push_back(-1)
            was = state[i - c]
            now = 1 if (was != 0 and comma) else 0
            state[i - c] = now
            i += 1
    if rule._words is not None and text[start:end].lower() in rule._first_words:
        match_end = _word_end(rule, text, start, n_text)
        if match_end >= 0:
            i = c
            while i < n and starts[i] < match_end:  # "sin embargo" runs over the next tokens
                if i - c >= <Py_ssize_t>state.size():
                    state.push_back(-1)
                state[i - c] = 0
                i += 1
    for i in range(<Py_ssize_t>state.size()):
        js.push_back(<int>(c + i))
        commas.push_back(state[i])
    return 0


def segment_rows(Py_ssize_t n, breaks, boundaries):
    """``clauses.segment``'s numbering: (clause of each token, -1 for a break; whether only commas
    separate each clause from the next)."""
    cdef dict kind = dict(breaks)
    cdef set starts = set(boundaries)
    starts.discard(0)
    if not kind and not starts:
        return [0] * n, [False]
    cdef list clause_of = [0] * n, comma_after = []
    cdef Py_ssize_t i, clause = 0
    cdef bint comma = True, open_gap = False
    for i in range(n):
        k = kind.get(i)
        if k is not None:
            clause_of[i] = -1
            comma = comma and k
            open_gap = True
            continue
        if i > 0 and i in starts:
            open_gap, comma = True, False
        if open_gap:
            comma_after.append(comma)
            clause += 1
            comma, open_gap = True, False
        clause_of[i] = clause
    comma_after.append(False)
    return clause_of, comma_after


def where(facts, Py_ssize_t k):
    """``context._where``: the indices of the tokens whose facts have field ``k`` true."""
    cdef Py_ssize_t i = 0
    cdef list out = []
    for item in facts:
        if _field(item, k):
            out.append(i)
        i += 1
    return out


def any_field(facts, Py_ssize_t k):
    """Whether some token's facts have field ``k`` true."""
    for item in facts:
        if _field(item, k):
            return True
    return False


def joined(facts, spaces, Py_ssize_t k):
    """The text of tokens: each token's field ``k`` (its text), then a space where ``spaces``
    has one. The tokens' texts are read, never a new string per token."""
    cdef list parts = []
    cdef Py_ssize_t i = 0
    for item in facts:
        parts.append(_field(item, k))
        if spaces[i]:
            parts.append(u" ")
        i += 1
    return "".join(parts)


def clause_words(facts, clause_of, Py_ssize_t count, Py_ssize_t k):
    """Per clause, how many of its tokens are words (field ``k`` not empty) and the last of
    them (-1 for none), in one pass over the tokens."""
    cdef list words = [0] * count, last = [-1] * count
    cdef Py_ssize_t i = 0, c
    for item in facts:
        c = clause_of[i]
        if c >= 0 and _field(item, k):
            words[c] += 1
            last[c] = i
        i += 1
    return words, last


cdef const unsigned char* _flags_of(bytes flags, Py_ssize_t n) except NULL:
    """The bytes of ``token_flags``, one per token, checked against the token count."""
    if len(flags) != n:
        raise ValueError(f"{len(flags)} token flags for {n} tokens")
    return <const unsigned char*>flags


def token_flags(facts, Py_ssize_t bits_at):
    """``context.token_flags``: each token's bits (field ``bits_at``) up to the eighth, a byte each."""
    cdef Py_ssize_t i = 0, n = len(facts)
    out = bytearray(n)
    for item in facts:
        out[i] = <long>_field(item, bits_at) & 0xFF
        i += 1
    return bytes(out)


def scan(facts, bytes flags, starts, ends, bint spaced, Py_ssize_t longest, Py_ssize_t word_at,
         Py_ssize_t longer_at, Py_ssize_t single_at, long start_bit, long blank_bit):
    """``CueTable.scan``: (every cue match as (token_start, token_end, label), every negation or
    hedge cue as (token_start, token_end, effect, glued)), leftmost-longest; None when none.
    ``flags`` (``token_flags``) say which tokens start a cue (``start_bit``) and which are no
    words (``blank_bit``), so the facts of the other tokens are never read."""
    cdef Py_ssize_t n = len(facts), i, end, first, stop, consumed = 0, j, k
    cdef const unsigned char* fl = _flags_of(flags, n)
    cdef list found = [], cues = [], positions, nxt
    cdef bint glued
    for i in range(n):
        if i < consumed or not (fl[i] & start_bit):
            continue
        f = facts[i]
        eff, end = _field(f, single_at), i + 1
        longer = _field(f, longer_at)
        if longer:
            # the next word (whitespace tokens are no words) says whether a longer cue can go on
            first = i + 1
            stop = min(n, i + 3 * longest) if spaced else min(n, i + longest)
            if spaced:
                while first < stop and fl[first] & blank_bit:
                    first += 1
            forms = longer.get(_field(facts[first], word_at)) if first < stop else None
            if forms:
                if spaced:  # the cue's words may have whitespace tokens between them
                    positions = [j for j in range(first, stop) if not (fl[j] & blank_bit)][:longest - 1]
                else:
                    positions = list(range(first, stop))
                nxt = [_field(facts[j], word_at) for j in positions]
                for form, form_eff in forms:
                    k = len(form) - 1
                    if k <= len(nxt) and tuple(nxt[:k]) == form[1:]:
                        eff, end = form_eff, positions[k - 1] + 1
                        break
        if eff is None:
            continue
        consumed = end
        found.append((i, end, eff.label))
        if eff.negation or eff.hedge:
            glued = ((i >= 2 and _field(facts[i - 1], word_at) == "-" and ends[i - 2] == starts[i - 1]
                      and ends[i - 1] == starts[i])
                     or (end + 1 < n and _field(facts[end], word_at) == "-" and ends[end - 1] == starts[end]
                         and ends[end] == starts[end + 1]))
            cues.append((i, end, eff, glued))
    return (found, cues) if found else None


cdef inline bint _letter(Py_UCS4 ch):
    """``[^\\W\\d_]`` of the ``re`` module for ``str``: a word character, neither a decimal digit nor "_"."""
    return Py_UNICODE_ISALNUM(ch) and not Py_UNICODE_ISDECIMAL(ch)


cdef bint _header_word(str text, Py_ssize_t a, Py_ssize_t b):
    """Whether ``text[a:b]`` is a whole header word (``clauses._HEADER_WORD``): letters, and
    then perhaps one to three letters in brackets."""
    cdef Py_ssize_t i = a, k
    while i < b and _letter(text[i]):
        i += 1
    if i == a:
        return False
    if i == b:
        return True
    if text[i] != u"(":
        return False
    k = i + 1
    while k < b and _letter(text[k]):
        k += 1
    return 1 <= k - i - 1 <= 3 and k == b - 1 and text[k] == u")"


cdef Py_ssize_t _header_start(str text, Py_ssize_t colon):
    """``clauses._header_start``: where the header that ends at ``colon`` starts, or -1."""
    cdef Py_ssize_t start = -1, end = colon, i, run_end
    cdef list words = []
    while len(words) < 4:
        # ``clauses._last_word``
        i = end - 1 if end > 0 and text[end - 1] == u"\n" else end
        while i > 0 and (text[i - 1] == u" " or text[i - 1] == u"\t"):
            i -= 1
        run_end = i
        while i > 0 and not Py_UNICODE_ISSPACE(text[i - 1]):
            i -= 1
        if i == run_end or not _header_word(text, i, run_end):
            break
        words.insert(0, text[i:run_end])
        word = words[0].split("(")[0]
        capitals = all(w.split("(")[0].isupper() for w in words)
        titled = word[:1].isupper() and (len(word) == 1 or word[1:].islower()) and all(
            w.split("(")[0].islower() for w in words[1:])
        if capitals or titled:
            start = i
        end = i
        if end == 0 or (text[end - 1] != u" " and text[end - 1] != u"\t"):
            break
    return start


def headers(str text):
    """``ClauseRule.headers``: where each section header of ``text`` starts, in order."""
    cdef Py_ssize_t n = len(text), q, start
    cdef Py_UCS4 before
    found = set()
    q = text.find(u":")
    while q >= 0:  # ``clauses._header_colons``
        if q + 1 == n or Py_UNICODE_ISSPACE(text[q + 1]):
            start = q
            while start > 0 and (text[start - 1] == u" " or text[start - 1] == u"\t"):
                start -= 1
            if start > 0:
                before = text[start - 1]
                if before == u")" or _letter(before):
                    start = _header_start(text, start)
                    if start >= 0:
                        found.add(start)
        q = text.find(u":", q + 1)
    return sorted(found)


cdef inline bint _same_word(object a, object b) except -1:
    """``a == b`` for two words, by identity first: a word's facts hold the object the needs
    hold (``CueTable``), and two words of different lengths differ."""
    if a is b:
        return True
    if PyUnicode_CheckExact(a) and PyUnicode_CheckExact(b) and PyUnicode_GET_LENGTH(a) != PyUnicode_GET_LENGTH(b):
        return False
    return a == b


def needs_met(facts, bytes flags, Py_ssize_t needs_at, Py_ssize_t word_at, Py_ssize_t reach, long key_bit,
              long blank_bit):
    """``CueTable._needs_met``: whether, at some token whose needs (field ``needs_at``) are not
    empty, every word of one of its needs is the word (field ``word_at``) of a token within
    ``reach`` words of it on either side (tokens with no word do not count). ``flags``
    (``token_flags``) say which tokens are key words (``key_bit``) and which are no words
    (``blank_bit``): only the facts of the key words and of the tokens near them are read."""
    cdef list items = facts if type(facts) is list else list(facts)
    cdef Py_ssize_t i, n = len(items)
    cdef vector[PyObject*] ptrs
    cdef const unsigned char* fl = _flags_of(flags, n)
    ptrs.reserve(n)
    for i in range(n):
        ptrs.push_back(<PyObject*>items[i])  # borrowed: ``items`` holds them
    return needs_near(ptrs.data(), fl, n, needs_at, word_at, reach, key_bit, blank_bit)


cdef bint needs_near(PyObject** facts, const unsigned char* flags, Py_ssize_t n, Py_ssize_t needs_at,
                     Py_ssize_t word_at, Py_ssize_t reach, long key_bit, long blank_bit) except -1:
    """``needs_met`` on the facts of ``n`` tokens held by the caller."""
    cdef Py_ssize_t i, j, lo, hi, counted
    cdef bint found
    for i in range(n):
        if not (flags[i] & key_bit):
            continue
        needs = _field(<object>facts[i], needs_at)
        if not needs:
            continue
        lo, counted = i, 0
        while lo > 0 and counted < reach:
            lo -= 1
            if not (flags[lo] & blank_bit):
                counted += 1
        hi, counted = i + 1, 0
        while hi < n and counted < reach:
            if not (flags[hi] & blank_bit):
                counted += 1
            hi += 1
        for need in needs:
            for word in need:
                found = False
                for j in range(lo, hi):
                    if not (flags[j] & blank_bit) and _same_word(_field(<object>facts[j], word_at), word):
                        found = True
                        break
                if not found:
                    break
            else:
                return True
    return False


def known_facts(keys, cache, Py_ssize_t bits_at):
    """``CueTable.known``: (the facts ``cache`` holds for each key, in order; their field
    ``bits_at`` or-ed together), or None when it holds none for some key."""
    cdef Py_ssize_t i, n = len(keys)
    cdef long bits = 0
    cdef PyObject* value
    if not PyDict_Check(cache):
        raise TypeError(f"known_facts reads a dict, not {type(cache).__name__}")
    out = [None] * n
    for i in range(n):
        value = PyDict_GetItem(cache, keys[i])
        if value is NULL:
            return None
        item = <object>value
        bits |= <long>_field(item, bits_at)
        out[i] = item
    return out, bits

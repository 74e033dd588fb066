# cython: language_level=3
"""``Context.process`` compiled: the same steps, in the same order, on the same readers.

Why: on a sentence the scope model's own work is a few microseconds, and the
Python steps that pass its results from one reader to the next (locals,
attribute look-ups, calls, tuples) cost as much again. Compiled, the glue
costs a fraction, and the pass calls the compiled loops of ``CueTable``
(``core/_scope_loops.pyx``, ``core/_scope_reach.pyx``) itself rather than
through its Python methods: the gate (``CueTable.gate``) and the choice of
the reach twin (``CueTable.marks``) are written out here again. Where the
row readers are compiled for the running spaCy, the words' facts are read
by ORTH with the keys left in C (``doc_rows.FactsByOrth``: ``CueTable.quiet``
and ``CueTable.known`` without a Python int per token, and ``CueTable.gate`` for
a text its words' facts keep out), and the compiled loops read a byte of flags
per token (``context.token_flags``) where they can.

Nothing is read differently, and the twin test
(``tests/pipes/test_context_pass.py``) compares this with the Python method
(``pipes.context.python_process``) on every held-out, sentence-set and probe
text. A subclass that changes a helper the method calls (``target_spans``,
``_unmarked``, ``_write``, ``_add_cue_spans`` and the others) is followed:
the pass does a helper's work itself only where the helper is ``Context``'s
own. It runs only where the
loops it calls are compiled too; ``SEMGAP_SPACY_COMPILED=0`` runs the Python
method.
"""
from semgap_spacy.core import context as _core
from semgap_spacy.core.clauses import same_breaks
from semgap_spacy.core.context import (_BLANK_BIT, _BREAK_BIT, _CONJUNCTION_BIT, _KEY_BIT, _LONGER, _MARK_BIT,
                                       _NEEDS_AT, _PAIRS, _PLAIN, _REST_BIT, _SINGLE, _START_BIT, _SURE_BIT, _TEXT,
                                       _WORD, _ZERO, EMPTY_SCAN, GATE_BITS_AT, Marks, Scan, TokenRows, _asked,
                                       _zero_count)
from semgap_spacy.pipes.doc_rows import (_COMPILED as _rows, new_span_group, offset_rows, orths, span_bounds,
                                         spaced_rows)
from semgap_spacy.pipes.extensions import _TEXT_KEY, _direct_span_writes, drop_span_values
from spacy.tokens import SpanGroup

# ``pipes.context`` imports this module once its own names are defined
from semgap_spacy.pipes.context import _MATCHES_KEY, _WRITTEN, ENTS, Context

_loops, _reach = _core._compiled, _core._reach
#: whether the pass can run: the loops it calls are compiled (``pipes.context`` checks)
READY = _loops is not None and _reach is not None
cdef tuple _matches_key = _MATCHES_KEY, _text_key = _TEXT_KEY
cdef str _negated = _WRITTEN[0], _hedged = _WRITTEN[1], _negation_cue = _WRITTEN[2], _hedge_cue = _WRITTEN[3]
_own_targets, _own_write, _own_unmarked = Context.target_spans, Context._write, Context._unmarked
#: the reader of word facts by ORTH, where the row readers are compiled for this spaCy
_FactsByOrth = None if _rows is None else _rows.FactsByOrth
# the compiled readers the pass calls, bound once: a module attribute costs a look-up per call
_known_facts = _needs_met = _scan = _any_field = _joined = _Reach = _reach_done = _token_flags = None
if READY:
    _known_facts, _needs_met, _scan = _loops.known_facts, _loops.needs_met, _loops.scan
    _token_flags = _loops.token_flags
    _any_field, _joined, _Reach, _reach_done = _loops.any_field, _loops.joined, _reach.reach, _reach.done
_group_bounds = None if _rows is None else _rows.span_bounds
_ascii_text = None if _rows is None else _rows.ascii_text


def process(self, doc):
    """Set ``semgap_negated``/``semgap_hedged`` and their cues on every target span
    (``Context.process``, compiled).

    doc (Doc): The document, with its targets in ``doc.spans[spans_key]`` or ``doc.ents``.
    RETURNS (Doc): The same document.
    """
    cdef long bits
    cdef bint negation, hedges, questions, may_cue, asked, spaced, quiet
    table = self.table
    cls = type(self)
    if _FactsByOrth is not None:  # ``CueTable.quiet`` and ``CueTable.known``, the keys left in C
        by_orth = self._by_orth
        if by_orth is None or by_orth.cache is not table._facts:
            by_orth = self._by_orth = _FactsByOrth(
                table._facts, table._facts.kinds[_PLAIN], GATE_BITS_AT,
                (_SURE_BIT | _MARK_BIT, _KEY_BIT, _REST_BIT, _BLANK_BIT, _NEEDS_AT, _WORD, table.longest - 1))
        known = by_orth.read(doc)
        if known is None:  # a word new to the cache: learnt, and the gate says whether it is quiet
            known = table.facts_for(orths(doc), doc.vocab.strings.__getitem__)
        quiet = known is True or known is False  # False: the gate keeps the text out (``CueTable.gate``)
    else:
        keys = orths(doc)
        quiet = table.quiet(keys)
        if not quiet:
            known = _known_facts(keys, table._facts, GATE_BITS_AT)  # ``CueTable.known``
            if known is None:  # a word new to the cache
                known = table.facts_for(keys, doc.vocab.strings.__getitem__)
    if quiet:  # most texts: every word known, and none a cue or a question mark (or none that opens the gate)
        if doc.user_data or cls._unmarked is not _own_unmarked:  # a new doc has nothing to remove
            return self._unmarked(doc)
        return doc
    if len(known) == 3:  # ``FactsByOrth.read``: the flags read with the facts
        facts, bits, flags = known
    else:
        facts, bits = known
        flags = _token_flags(facts, GATE_BITS_AT)
    # ``CueTable.gate``
    asked, spaced = (bits & _MARK_BIT) != 0, (bits & _BLANK_BIT) != 0
    if bits & _SURE_BIT:
        may_cue = True
    elif not (bits & _KEY_BIT and bits & _REST_BIT):
        may_cue = False
    else:
        may_cue = _needs_met(facts, flags, _NEEDS_AT, _WORD, table.longest - 1, _KEY_BIT, _BLANK_BIT)
    negation, hedges, questions = self.negation, self.hedges, self.questions
    may_cue = may_cue and (negation or hedges)
    asked = asked and questions and hedges
    if not may_cue and not asked:
        if doc.user_data or cls._unmarked is not _own_unmarked:
            return self._unmarked(doc)
        return doc
    if cls.target_spans is _own_targets and self.targets != ENTS:
        spans = doc.spans.data.get(self.spans_key)  # ``span_group``
        if spans is None:
            spans = ()
    else:
        spans = self.target_spans(doc)
    starts, ends, sentence_starts = offset_rows(doc)
    scan = EMPTY_SCAN
    if may_cue:  # ``CueTable.scan``
        found = _scan(facts, flags, starts, ends, spaced, table.longest, _WORD, _LONGER, _SINGLE, _START_BIT,
                      _BLANK_BIT)
        if found is not None:
            scan = tuple.__new__(Scan, found)
    if asked:
        found = sorted(scan.found + table.question_marks(
            tuple.__new__(TokenRows, ("", facts, starts, ends, sentence_starts, spaced))))
    else:
        found = scan.found
    data = doc.user_data
    if found:
        data[_matches_key] = [list(m) for m in found]
    elif data.get(_matches_key) is not None:
        data[_matches_key] = None
    if not len(spans):
        return doc
    cues = scan.cues
    if not ((cues and (negation or hedges)) or asked or (negation and _any_field(facts, _ZERO))):
        return self._drop_values(doc)
    text = data.get(_text_key)  # ``doc_text``
    if text is None:
        if _ascii_text is not None:
            text = _ascii_text(doc, facts, _TEXT)
        if text is None:
            text = _joined(facts, spaced_rows(doc)[2], _TEXT)  # ``joined_text``
        data[_text_key] = text
    rows = tuple.__new__(TokenRows, (text, facts, starts, ends, sentence_starts, spaced))
    # Each Span of a group costs a construction: read the bounds, and a Span only for a term
    bounds = _group_bounds(spans) if _group_bounds is not None and type(spans) is SpanGroup else span_bounds(spans)
    placed = [(start, end, start_char, end_char, None if not span_id else self._inner(spans[k], facts))
              for k, (start, end, start_char, end_char, span_id) in enumerate(bounds)]
    marks = None
    if not (negation or hedges):
        cues = ()
    # ``CueTable.marks``: the reach twin reads and merges in one pass
    if cues and (text.isascii() or same_breaks(text)):
        layout = _Reach(rows, placed, table.clauses, table.scope, cues, flags, _BLANK_BIT, _BREAK_BIT,
                        _CONJUNCTION_BIT)
        if layout.usable:
            marks = layout.marks(placed, len(cues) * len(placed) > _PAIRS, starts, ends, negation, hedges,
                                 negation and _any_field(facts, _ZERO), asked and questions and hedges,
                                 _zero_count, _asked, Marks)
        _reach_done(layout)
    if marks is None:
        marks = table.marks(rows, scan, placed, negation=negation, hedges=hedges, questions=questions, asked=asked)
    if cls._write is not _own_write or not _direct_span_writes():
        self._write(doc, marks)
        return doc
    marked, unmarked, applied = marks  # ``Context._write``
    for row in marked:
        start_char, end_char = row[0], row[1]
        data[("._.", _negated, start_char, end_char)] = row[2]  # the keys of ``extensions._span_key``
        data[("._.", _hedged, start_char, end_char)] = row[3]
        data[("._.", _negation_cue, start_char, end_char)] = row[4]
        data[("._.", _hedge_cue, start_char, end_char)] = row[5]
    if unmarked:
        drop_span_values(doc, _WRITTEN, unmarked)
    if applied:
        key = self.cues_key
        if key not in doc.spans.data:  # ``_add_cue_spans``, for a doc with no cue group yet
            doc.spans.data[key] = new_span_group(doc, key, applied)
        else:
            self._add_cue_spans(doc, applied)
    return doc

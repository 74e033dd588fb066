"""A Doc's token rows and a span group's bounds, read in one pass; a new span group, written so.

Why a module of its own: ``semgap_context`` and ``semgap_coverage`` read
every token's ORTH key and offsets, and ``semgap_context`` every target's
bounds, before any of their own work. Through spaCy's Python API that
reading makes a ``Token`` or ``Span`` per value, or a numpy array, and on a
short sentence it costs more than the reading of the sentence itself. The
compiled twin (``pipes/_doc_rows.pyx``) reads the same values from spaCy's
C structs.

The compiled readers are taken only when the extension was built and was
compiled against the very spaCy version that runs (struct layouts may change
between releases); otherwise, and when ``SEMGAP_SPACY_COMPILED=0`` is set
(``util.compiled``), the Python readers below run. Both give exactly the same rows
(``tests/pipes/test_doc_rows.py``); ``compiled_status()`` says which runs
and why, and ``context-eval`` and the bench record it with their timings.
"""
from array import array
from operator import add
from typing import List, Optional, Sequence, Tuple

import spacy
from spacy.attrs import IDX, LENGTH, ORTH, SENT_START, SPACY
from spacy.tokens import Doc, Span, SpanGroup

from ..util.compiled import compiled_module

# Below this many tokens, reading attributes token by token beats ``to_array``'s numpy round trip.
_ARRAY_FROM = 20
_SPACED_ATTRS = [IDX, SPACY, SENT_START, LENGTH]
_KEYED_ATTRS = [ORTH, IDX, LENGTH]

SpanBounds = Tuple[int, int, int, int, int]


def python_orths(doc: Doc) -> List[int]:
    """The ORTH of every token: a hash of its text alone, so a cache keyed by it stays right
    after ``nlp.memory_zone()`` frees the string, and the string is never kept alive."""
    if len(doc) < _ARRAY_FROM:
        return [t.orth for t in doc]
    return doc.to_array(ORTH).tolist()


def python_keyed_rows(doc: Doc) -> Tuple[List[int], List[int], List[int]]:
    """(ORTH keys, start offsets, end offsets) of the tokens."""
    if len(doc) < _ARRAY_FROM:
        keys, starts, ends = [], [], []
        for token in doc:
            keys.append(token.orth)
            start = token.idx
            starts.append(start)
            ends.append(start + len(token))
        return keys, starts, ends
    keys, starts, lengths = doc.to_array(_KEYED_ATTRS).T.tolist()
    return keys, starts, list(map(add, starts, lengths))


def python_spaced_rows(doc: Doc) -> Tuple[List[int], List[int], List[int], Optional[List[int]]]:
    """(start offsets, end offsets, trailing spaces as 0/1, sentence starts) of the tokens.

    The sentence starts are the tokens after the first that a parser or
    sentencizer marked as one (``Doc.has_annotation``), or None when none is.
    """
    if not len(doc):
        return [], [], [], None
    starts, spaces, marks, lengths = doc.to_array(_SPACED_ATTRS).T.tolist()
    sentence_starts = [i for i, mark in enumerate(marks) if mark == 1 and i] if 1 in marks[1:] else None
    return starts, list(map(add, starts, lengths)), spaces, sentence_starts


def python_offset_rows(doc: Doc) -> Tuple[array, array, Optional[List[int]]]:
    """(start offsets, end offsets, sentence starts as ``spaced_rows`` gives them) of the
    tokens, the offsets as ``array("q")``."""
    starts, ends, _, sentence_starts = python_spaced_rows(doc)
    return array("q", starts), array("q", ends), sentence_starts


def python_span_bounds(spans: Sequence) -> List[SpanBounds]:
    """(start, end, start_char, end_char, id) of every span, in order."""
    return [(s.start, s.end, s.start_char, s.end_char, s.id) for s in spans]


def python_new_span_group(doc: Doc, name: str, spans: Sequence[Tuple[int, int, str]]) -> SpanGroup:
    """A span group named ``name`` with a span per (start, end, label)."""
    return SpanGroup(doc, name=name, spans=[Span(doc, start, end, label=label) for start, end, label in spans])


def python_text_length(doc: Doc) -> int:
    """``len(doc.text)`` without joining the text: where the last token ends, its space included."""
    if not len(doc):
        return 0
    last = doc[-1]
    return last.idx + len(last.text_with_ws)


def python_ascii_text(doc: Doc, facts: Sequence[tuple], text_at: int) -> Optional[str]:
    """The doc's text from each token's facts (field ``text_at``, its text) and the doc's own
    trailing spaces, when every token's text is ASCII; None when one is not, or when ``facts``
    is not a list of tuples, one per token (the caller joins the texts as before)."""
    if type(facts) is not list or len(facts) != len(doc):
        return None
    if not all(isinstance(f, tuple) and 0 <= text_at < len(f) for f in facts):
        return None
    texts = [f[text_at] for f in facts]
    if not all(type(t) is str and t.isascii() for t in texts):
        return None
    return "".join(text + (" " if token.whitespace_ else "") for text, token in zip(texts, doc))


def _compiled():
    """The compiled module and why it runs, or (None, why not)."""
    module, why = compiled_module("semgap_spacy.pipes._doc_rows")
    if module is None:
        return None, why
    built = module.built_with()
    if built != spacy.about.__version__:
        return None, f"off (built against spaCy {built or 'unknown'}, running {spacy.about.__version__})"
    return module, f"on (built against spaCy {built})"


_COMPILED, _STATUS = _compiled()
COMPILED = _COMPILED is not None

if _COMPILED is not None:
    orths, keyed_rows, spaced_rows = _COMPILED.orths, _COMPILED.keyed_rows, _COMPILED.spaced_rows
    new_span_group, text_length = _COMPILED.new_span_group, _COMPILED.text_length
    ascii_text, offset_rows = _COMPILED.ascii_text, _COMPILED.offset_rows
    _group_bounds = _COMPILED.span_bounds

    def span_bounds(spans: Sequence) -> List[SpanBounds]:
        """(start, end, start_char, end_char, id) of every span, in order: a span group's from its
        struct, any other sequence of spans (``doc.ents``) from the spans."""
        if type(spans) is SpanGroup:
            return _group_bounds(spans)
        return python_span_bounds(spans)
else:
    orths, keyed_rows, spaced_rows = python_orths, python_keyed_rows, python_spaced_rows
    new_span_group, text_length = python_new_span_group, python_text_length
    ascii_text, offset_rows = python_ascii_text, python_offset_rows
    span_bounds = python_span_bounds


def compiled_status() -> str:
    """Whether the compiled readers run, and why (or why not)."""
    return _STATUS

"""``semgap_quantities``: quantities in the text, tied to fields, and readings.

Three jobs, each behind its own switch so they can be ablated:

1. ``text_quantities``: find quantities ("30 hours", "30h", "25,5 h",
   "46.4 °F", "38 pct", "PT30H") in ``doc.text``, tie each one to the nearest
   field mention of a matching kind in its clause, and write them as spans to
   ``doc.spans["semgap_quantities"]`` (label = the quantity kind) with
   ``span._.semgap_magnitude`` / ``semgap_unit`` / ``semgap_quantity_kind`` /
   ``semgap_linked_field`` / ``semgap_linked_term`` /
   ``semgap_quantity_problem``.
2. ``readings``: validate ``doc._.semgap_readings`` into
   ``doc._.semgap_readings_checked`` (see ``semgap_spacy.readings``).
3. ``semgap_spacy.fields.quantity_findings(doc, glossary)``, for the decision
   component: the reason-like findings the two give together.

Finding quantities works on characters with precompiled regexes, because the
tokenizers of en/es/fr/de split "2°C", "38%", "25,5" and "hours—but"
differently; spans are then aligned to tokens with
``doc.char_span(..., alignment_mode="expand")``. Pint is touched only when a
quantity needs a real conversion (never for "h" into an "h" contract).
"""
import re
from functools import lru_cache
from typing import List, NamedTuple, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from .extensions import QUANTITIES_KEY, TERMS_KEY, doc_text
from ..core.findings import _Field, contract_index, field_mentions
from ..glossary.models import GlossarySet
from .base import SemgapPipe
from ..core.readings import check_readings
from ..util.textnorm import fold
from ..core.units import (AMBIGUOUS, ISO_DURATION_PATTERN, OK, UNKNOWN, UNSUPPORTED, canonical_unit,
                    convert, lookup_surface, parse_iso_duration, parse_number, tidy, unit_table)

# -- finding quantities in text ------------------------------------------------


class TextQuantity(NamedTuple):
    """A quantity found in text.

    start, end: character offsets of the quantity ("30 hours").
    value: the magnitude as written (sign only kept for temperatures); None
        for an ISO duration with years or months.
    unit: canonical Pint unit name, None for an ambiguous unit.
    kind: the quantity kind of the unit.
    status: "ok", "ambiguous" or "unsupported".
    surface: the unit as written.
    extent: (start, end) of the whole expression (a range "2–8 °C" is one
        expression with two quantities); clause breaks inside it are ignored.
    mergeable: whether it may join adjacent durations ("20 h 30 min"); not
        for ISO durations and ranges, which are complete in themselves.
    """

    start: int
    end: int
    value: Optional[float]
    unit: Optional[str]
    kind: str
    status: str
    surface: str
    extent: Tuple[int, int]
    mergeable: bool = True


# TextQuantity from a tuple of all its fields: the class call goes through a
# Python-level __new__ with keyword handling, several times slower per quantity.
_quantity = TextQuantity._make

_SP = r"[ \t\u00a0\u202f]"
_SIGNS = "-−‐+"
_MINUS_SIGNS = "-−‐"
_GLUE = "_.,"  # a number glued to these (or to a letter/digit) is part of something else
# Scanning starts at digits: a pattern that starts with a character class lets
# the regex engine skip ahead in C, which matters since most text has no
# quantity. Everything else is checked around each number run.
# A number, then maybe a unit candidate: a symbol or a word, optionally
# followed by a second word ("por ciento", "degrees Celsius", "° C"). The
# candidate is classified by a dict lookup in the alias table (two-word form
# first); an alternation of every alias inside the regex would be tried at
# each digit and is several times slower.
# "[0-9][0-9]*" rather than "[0-9]+": only a plain character class (not a
# repeat) at the start gives the engine its skip-ahead prefix. The groups are
# read by position in find_quantities: num, w1, sp, w2.
_NUM_RE = re.compile(
    r"(?P<num>[0-9][0-9]*(?:[.,][0-9]+)*)"
    r"(?:(?:" + _SP + r"*|-)"  # "30 h", "30h", "30-hour"
    r"(?P<w1>[°º˚℃℉%]|[^\W\d_]+)"
    r"(?:(?P<sp>" + _SP + r"?)(?P<w2>[^\W\d_]+))?)?"
)
# Between the two numbers of a range ("2–8 °C", "2 to 8 °C", "-5 bis -2 °C").
_RANGE_JOIN_RE = re.compile(
    r"(?:" + _SP + r"?[-–]" + _SP + r"?|" + _SP + r"+(?:to|bis|à|a|au)" + _SP + r"+)(?=[-−‐+]?[0-9])"
)
_ISO_RE = re.compile(ISO_DURATION_PATTERN + r"(?![\w])")
_COMPOUND_GAP = re.compile(r"\s+(?:(?:and|y|et|und)\s+)?$", re.IGNORECASE)


def _glued(ch: str) -> bool:
    return ch.isalnum() or ch in _GLUE


def _signed(sign_start: Optional[int], text: str, value: float, kind: str) -> float:
    # A minus only means a negative value for a temperature; elsewhere it is
    # punctuation ("- 30 h" in a list) and never yields a negative duration.
    if sign_start is not None and kind == "temperature" and text[sign_start] in _MINUS_SIGNS:
        return -value
    return value


def _unit_at(text: str, m: "re.Match", w1: str, sp: Optional[str], w2: Optional[str]):
    """(lookup, surface, end) of the unit matched by ``_NUM_RE``, or None.

    w1, sp, w2 are the match's groups of those names (w1 is not None).
    """
    if w2 is not None:
        # "°C" may be written "° C"; two words need the space between them.
        if sp or not w1.isalpha():
            surface = text[m.start("w1"):m.end("w2")]
            hit = lookup_surface(surface)
            if hit.status != UNKNOWN:
                return hit, surface, m.end("w2")
    end = m.end("w1")
    if w1.isalpha() and end < len(text) and (text[end].isalnum() or text[end] == "_"):
        return None  # "1h30": the unit runs into a number
    hit = lookup_surface(w1)
    if hit.status == UNKNOWN:
        return None
    return hit, w1, end


def find_quantities(text: str) -> List[TextQuantity]:
    """Every quantity with a known, ambiguous or unsupported unit in a text.

    Bare numbers, numbers with unknown units, numbers glued to words ("v2")
    or to a time of day ("10:30 h"), and numbers that do not read cleanly
    ("1,5000") are not quantities. A range ("2–8 °C") gives two quantities
    with the unit of the second. Adjacent durations in decreasing units
    ("20 h 30 min", "2 days and 4 hours") are merged into one.

    text (str): Any text.
    RETURNS (List[TextQuantity]): The quantities, in text order.
    """
    if not isinstance(text, str):
        return []
    found: List[TextQuantity] = []
    pending = None  # a number that may open a range: (start, end, sign_start, join_end)
    search, pos = _NUM_RE.search, 0
    while True:  # finditer, without the iterator's overhead (matches are never empty)
        m = search(text, pos)
        if m is None:
            break
        pos = m.end()
        s, e = m.span(1)
        num, w1, sp, w2 = m.groups()
        sign_start = None
        if s:
            prev = text[s - 1]
            if _glued(prev):
                pending = None
                continue
            if prev == ":" and s >= 2 and text[s - 2].isdigit():
                pending = None
                continue
            if prev in _SIGNS and (s < 2 or not _glued(text[s - 2])):
                sign_start = s - 1
        unit = _unit_at(text, m, w1, sp, w2) if w1 is not None else None
        lo, pending_before = None, pending
        pending = None
        if unit is None:
            j = _RANGE_JOIN_RE.match(text, e)
            if j is not None:
                pending = (s, e, sign_start, j.end())
            continue
        lookup, surface, unit_end = unit
        # parse_number's own fast path, without the call: num is ASCII digits
        value = float(num) if num.isdigit() else parse_number(num)
        if value is None:
            continue
        kind = lookup.kind
        first = s if sign_start is None else sign_start
        if pending_before is not None and pending_before[3] == first:
            lo = pending_before
        if lo is None:
            extent = (first, unit_end)
        else:
            extent = (lo[0] if lo[2] is None else lo[2], unit_end)
        if lo is not None:
            lo_value = parse_number(text[lo[0]:lo[1]])
            if lo_value is not None:
                lo_start = lo[2] if lo[2] is not None and kind == "temperature" else lo[0]
                found.append(_quantity((lo_start, lo[1], _signed(lo[2], text, lo_value, kind),
                                        lookup.unit, kind, lookup.status, surface, extent, False)))
        start = s
        if sign_start is not None:
            value = _signed(sign_start, text, value, kind)
            if kind == "temperature":
                start = sign_start
        found.append(_quantity((start, unit_end, value, lookup.unit, kind, lookup.status, surface,
                                extent, lo is None)))
    if "P" in text:
        for m in _ISO_RE.finditer(text):
            if m.start() and _glued(text[m.start() - 1]):
                continue
            parsed = parse_iso_duration(m.group())
            if parsed.status == OK:
                found.append(TextQuantity(m.start(), m.end(), parsed.hours, "hour", "duration", OK,
                                          m.group(), (m.start(), m.end()), False))
            elif parsed.status == UNSUPPORTED:
                found.append(TextQuantity(m.start(), m.end(), None, None, "duration", UNSUPPORTED,
                                          m.group(), (m.start(), m.end()), False))
    if len(found) > 1:
        found.sort(key=lambda q: (q.start, -q.end))
        found = _merge_compounds(text, _drop_overlaps(found))
    return found


def _drop_overlaps(found: List[TextQuantity]) -> List[TextQuantity]:
    kept: List[TextQuantity] = []
    for q in found:
        if kept and q.start < kept[-1].end and q.extent != kept[-1].extent:
            continue
        kept.append(q)
    return kept


def _merge_compounds(text: str, found: List[TextQuantity]) -> List[TextQuantity]:
    merged: List[TextQuantity] = []
    smallest: Optional[str] = None  # the last (smallest) unit of the compound being built
    for q in found:
        prev = merged[-1] if merged else None
        if (smallest is not None and q.mergeable and q.status == OK and q.kind == "duration"
                and prev.extent[1] <= q.start
                and _COMPOUND_GAP.match(text, prev.extent[1], q.start)
                and convert(1.0, smallest, "hour") > convert(1.0, q.unit, "hour")):
            value = prev.value + convert(q.value, q.unit, prev.unit)
            merged[-1] = prev._replace(end=q.end, value=value, surface=f"{prev.surface} {q.surface}",
                                       extent=(prev.extent[0], q.extent[1]))
            smallest = q.unit
            continue
        merged.append(q)
        smallest = q.unit if q.mergeable and q.status == OK and q.kind == "duration" else None
    return merged


# -- clauses -------------------------------------------------------------------

_BREAK_PUNCT = (
    r"(?<!\d),|,(?!\d)"            # a comma, except inside a number ("25,5")
    r"|;"
    r"|[—―]|--"
    r"|(?<=\s)[-–−](?=\s)"         # a spaced hyphen or dash (not "2-8", not "-3")
    r"|\n"
    r"|[.!?…](?=\s|$)"             # sentence end (a decimal point has no space after it)
)
# The spec's clause-break words; the context component's cue files add more
# ("however", "sin embargo", ...) and are read too, so both components agree.
_SPEC_BREAK_WORDS = ("but", "pero", "mais", "aber")


@lru_cache(maxsize=1)
def _break_re() -> "re.Pattern":
    words = set(_SPEC_BREAK_WORDS)
    try:
        from .context import BREAK, DEFAULT_LANGUAGES, load_packaged_cues

        for lang in DEFAULT_LANGUAGES:
            for record in load_packaged_cues(lang).records:
                if record.category == BREAK:
                    words.update((record.cue, fold(record.cue)))
    except Exception:  # the spec's words still apply without the cue files
        pass
    alternatives = "|".join(r"\s+".join(re.escape(w) for w in word.split())
                            for word in sorted(words, key=len, reverse=True))
    return re.compile(_BREAK_PUNCT + r"|(?<!\w)(?:" + alternatives + r")(?!\w)", re.IGNORECASE)


# Abbreviations whose full stop does not end a clause ("CIT approx. 30 h").
_NON_FINAL = frozenset({"approx", "aprox", "ca", "env", "appr", "est", "vs", "z.b", "e.g", "i.e",
                        "nr", "núm", "num"})


def _word_before(text: str, end: int) -> str:
    start = end
    while start > 0 and end - start < 8 and (text[start - 1].isalnum() or text[start - 1] == "."):
        start -= 1
    return text[start:end]


def break_between(text: str, start: int, end: int) -> bool:
    """Whether a clause break lies in ``text[start:end]``.

    Commas (not inside a number), semicolons, dashes used as separators,
    "but"/"pero"/"mais"/"aber" (and the other clause-break words of the
    context component's cue files), line breaks and sentence ends break a
    clause; a colon does not ("CIT: 30 h"), nor the full stop of "approx.".

    text (str): The text.
    start (int): Start of the gap (character offset).
    end (int): End of the gap.
    RETURNS (bool): True when the two sides are in different clauses.
    """
    gap = text[start:end]
    if gap.isspace() and "\n" not in gap:
        # the usual gap, "CIT 30 h": every break consumes a character that is
        # not a space (or a line break), so the regex cannot match here
        return False
    for m in _break_re().finditer(text, start, end):
        if m.group() == "." and _word_before(text, m.start()).casefold() in _NON_FINAL:
            continue
        return True
    return False


def _sentence_starts(doc: Doc) -> List[int]:
    """Sentence start offsets set by a sentencizer or parser, if any."""
    if not doc.has_annotation("SENT_START"):
        return []
    return [sent.start_char for sent in doc.sents if sent.start_char > 0]


def _sentence_starts_in(doc: Doc, start: int, end: int, first: int, last: int,
                        sents: List[Optional[List[int]]]) -> bool:
    """Whether one of ``_sentence_starts(doc)`` lies in (start, end].

    The caller knows that only tokens ``first``..``last`` can start inside
    that range, so it reads those tokens rather than scanning the whole doc
    (``has_annotation`` alone costs more than the rest of the tie): without a
    "sents" hook, ``doc.sents`` starts a sentence at exactly the tokens i >= 1
    that are marked as sentence starts, and there are none when SENT_START
    is not annotated.
    ``sents`` holds ``_sentence_starts(doc)`` once a hook made it needed.
    """
    if "sents" in doc.user_hooks:
        if sents[0] is None:
            sents[0] = _sentence_starts(doc)
        return any(start < s <= end for s in sents[0])
    for i in range(max(first, 1), last + 1):
        token = doc[i]
        if token.is_sent_start and start < token.idx <= end:
            return True
    return False


# -- the component -------------------------------------------------------------


_PROBLEM_CODES = {AMBIGUOUS: "ambiguous_unit", UNSUPPORTED: "unsupported_unit"}
# user_data keys of doc._ extensions, as _extensions.doc_get/doc_set build them
_READINGS_KEY = ("._.", "semgap_readings", None, None)
_DOMAIN_KEY = ("._.", "semgap_domain", None, None)
_NOW_KEY = ("._.", "semgap_now", None, None)
_CHECKED_KEY = ("._.", "semgap_readings_checked", None, None)


def _in_unit(value: float, unit: str, target: str) -> Tuple[float, str]:
    """(magnitude, canonical unit) of a text quantity in its field's contract unit."""
    converted = convert(value, unit, target)
    if converted != value:
        converted = tidy(converted)
    return converted, canonical_unit(target)


class QuantityLinker(SemgapPipe):
    """Find quantities in the text, tie them to fields, and check readings."""

    def __init__(self, nlp: Language, name: str = "semgap_quantities", *, enabled: bool = True,
                 text_quantities: bool = True, readings: bool = True,
                 spans_key: str = TERMS_KEY, quantities_key: str = QUANTITIES_KEY,
                 max_distance: int = 8, glossary: Optional[GlossarySet] = None):
        super().__init__(nlp, name, enabled=enabled, glossary=glossary)
        self.text_quantities = text_quantities
        self.readings = readings
        self.spans_key = spans_key
        self.quantities_key = quantities_key
        self.max_distance = max_distance
        self.cfg.update(text_quantities=text_quantities, readings=readings, spans_key=spans_key,
                        quantities_key=quantities_key, max_distance=max_distance)
        unit_table()  # load the alias data and the break words now, not on the first doc
        _break_re()
        self._rebuild()

    def _rebuild(self) -> None:
        self._contracts = contract_index(self.glossary)

    # -- per doc -------------------------------------------------------------
    def process(self, doc: Doc) -> Doc:
        if self.text_quantities:
            doc.spans[self.quantities_key] = self._quantity_spans(doc)
        if self.readings:
            # doc_get / doc_set, read and written in one place (all three
            # inputs default to None)
            user_data = doc.user_data
            readings = user_data.get(_READINGS_KEY)
            user_data[_CHECKED_KEY] = [] if readings is None else check_readings(
                readings, user_data.get(_DOMAIN_KEY), self.glossary, user_data.get(_NOW_KEY))
        return doc

    def _quantity_spans(self, doc: Doc) -> List[Span]:
        """The quantity spans of a doc, with their span extensions written.

        The term span group is only read (one Span per item) once the text
        has a quantity, and each extension value is stored directly under the
        key ``span_set`` would use.
        """
        text = doc_text(doc)
        found = find_quantities(text)
        if not found:
            return []
        user_data = doc.user_data
        # [] when the doc has no term span group
        fields = field_mentions(doc, self.glossary, self.spans_key,
                                domain=user_data.get(_DOMAIN_KEY))
        sents: List[Optional[List[int]]] = [None]  # for _sentence_starts_in
        spans, seen = [], set()
        for q in found:
            span = doc.char_span(q.start, q.end, label=q.kind, alignment_mode="expand")
            if span is None:
                continue
            start_char, end_char = span.start_char, span.end_char
            # span extensions are keyed by offsets: two quantities in one token
            # ("2-8" in some tokenizers) would share their values, keep the first
            if (start_char, end_char) in seen:
                continue
            seen.add((start_char, end_char))
            linked = None
            if fields:
                linked = self._nearest(doc, text, span.start, span.end, q, fields, sents)
            value, unit = q.value, q.unit
            if linked is not None and q.status == OK:
                value, unit = _in_unit(q.value, q.unit, linked.contract.unit)
            # _extensions.span_set(span, name, value) for the six values
            user_data[("._.", "semgap_magnitude", start_char, end_char)] = value
            user_data[("._.", "semgap_unit", start_char, end_char)] = unit
            user_data[("._.", "semgap_quantity_kind", start_char, end_char)] = q.kind
            user_data[("._.", "semgap_quantity_problem", start_char, end_char)] = \
                _PROBLEM_CODES.get(q.status)
            user_data[("._.", "semgap_linked_field", start_char, end_char)] = \
                linked.field if linked is not None else None
            user_data[("._.", "semgap_linked_term", start_char, end_char)] = \
                linked.term_id if linked is not None else None
            spans.append(span)
        return spans

    def _nearest(self, doc: Doc, text: str, q_start: int, q_end: int, q: TextQuantity,
                 fields: List[_Field], sents: List[Optional[List[int]]]) -> Optional[_Field]:
        """The nearest field of the quantity's kind in its clause, or None.

        q_start, q_end are the quantity span's token offsets. Distance is in
        tokens between the two spans; on a tie the field before the quantity
        wins ("CIT 30 h" is the usual order).
        """
        best, best_key = None, None
        kind = q.kind
        for f in fields:
            if f.contract.kind != kind:
                continue
            f_start, f_end = f.start, f.end
            # gap: the characters between the two; tokens: the only tokens
            # that can start inside it (the first token after the left span
            # up to the first token of the right one)
            if f_end <= q_start:
                key = (q_start - f_end, 0, f_start)
                gap, tokens = (f.end_char, q.extent[0]), (f_end, q_start)
            elif q_end <= f_start:
                key = (f_start - q_end, 1, f_start)
                gap, tokens = (q.extent[1], f.start_char), (q_end, f_start)
            else:
                key, gap, tokens = (0, 0, f_start), None, None
            if key[0] > self.max_distance or (best_key is not None and key >= best_key):
                continue
            if gap is not None and gap[0] < gap[1]:
                if break_between(text, gap[0], gap[1]):
                    continue
                if _sentence_starts_in(doc, gap[0], gap[1], tokens[0], tokens[1], sents):
                    continue
            best, best_key = f, key
        return best



@Language.factory(
    "semgap_quantities",
    default_config={"enabled": True, "text_quantities": True, "readings": True,
                    "spans_key": TERMS_KEY, "quantities_key": QUANTITIES_KEY, "max_distance": 8},
    assigns=["doc.spans", "doc._.semgap_readings_checked", "span._.semgap_magnitude",
             "span._.semgap_unit", "span._.semgap_quantity_kind", "span._.semgap_linked_field",
             "span._.semgap_linked_term", "span._.semgap_quantity_problem"],
)
def make_quantities(nlp: Language, name: str, enabled: bool, text_quantities: bool, readings: bool,
                    spans_key: str, quantities_key: str, max_distance: int) -> QuantityLinker:
    """Build the quantity component.

    enabled (bool): Off leaves the doc untouched. Defaults to True.
    text_quantities (bool): Find quantities in the text and tie them to fields. Defaults to True.
    readings (bool): Validate ``doc._.semgap_readings``. Defaults to True.
    spans_key (str): Span group with the term spans. Defaults to "semgap_terms".
    quantities_key (str): Span group the quantities are written to. Defaults to "semgap_quantities".
    max_distance (int): Most tokens between a quantity and its field. Defaults to 8.
    RETURNS (QuantityLinker): The component.
    """
    return QuantityLinker(nlp, name, enabled=enabled, text_quantities=text_quantities,
                          readings=readings, spans_key=spans_key, quantities_key=quantities_key,
                          max_distance=max_distance)

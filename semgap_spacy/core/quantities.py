"""Quantities written in text ("30 hours", "30h", "25,5 h", "46.4 °F", "38 pct",
"PT30H", "2–8 °C"), found on plain characters.

The tokenizers of en/es/fr/de split "2°C", "38%", "25,5" and "hours—but"
differently, so quantities are read from the text with precompiled regexes
and the pipe aligns them to tokens afterwards. Units are classified only by
the alias table of ``units`` (never by handing a surface to Pint).
"""
import re
from functools import lru_cache
from typing import FrozenSet, List, NamedTuple, Optional, Tuple

from ..lang import generation, union
from ..util.textnorm import fold
from .units import ISO_DURATION_PATTERN, OK, UNKNOWN, UNSUPPORTED, convert, lookup_surface, parse_iso_duration, parse_number

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


# TextQuantity from a tuple of all its fields, in field order.
_quantity = TextQuantity._make

#: the spaces that may stand inside a quantity, as a pattern
SPACE = r"[ \t\u00a0\u202f]"
# An en dash or figure dash glued to a number after a space ("–5 °C") is a minus sign as a
# person reads it; between two numbers ("2–8 °C") it joins a range instead.
_SIGNS = "-−‐–‒➖˗+"
_MINUS_SIGNS = "-−‐–‒➖˗"  # the heavy minus emoji and the modifier minus read as a minus too
_GLUE = "_.,"  # a number glued to these (or to a letter/digit) is part of something else
# between two digits these join one number: an apostrophe groups thousands ("1'500 min"), a
# fraction slash makes a fraction ("9½" reads "91⁄2"); before a number alone, a quote opens ("'12 °C'")
_DIGIT_JOINERS = "'’ʼ⁄∕"
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
    r"(?:(?:" + SPACE + r"*|-)"  # "30 h", "30h", "30-hour"
    r"(?P<w1>[°º˚℃℉%٪‰‱]|[^\W\d_]+)"
    r"(?:(?P<sp>" + SPACE + r"?)(?P<w2>[^\W\d_]+))?)?"
)
_ISO_RE = re.compile(ISO_DURATION_PATTERN + r"(?![\w])")


#: signs that make a number a bound rather than a value (">24 h", "≤ 8 °C", "~30 min")
_COMPARATORS = frozenset("<>≤≥≦≧≈~⩽⩾≲≳≼≽⪅⪆⪕⪖≶≷")
_SPACES = frozenset(" \t\u00a0\u202f")  # the characters of ``SPACE``
#: the problem of a quantity written as a bound
QUANTITY_BOUND = "quantity_bound"
#: the problem of a quantity whose token holds another one ("6h/30h"): a span has one value
QUANTITY_UNSPLIT = "quantity_unsplit"


#: what says a value goes on past the one written, right after it: "24h+", "43 % and up",
#: "8 °C ↑", "24 h y más", "24 h et plus", "24 h und mehr"
_OPEN_END = re.compile(r"(?:\+|[ \t\u00a0\u202f]*(?:[↑⬆⤴⇡📈]|(?:and|&|y|et|und)[ \t]+(?:up|above|over|higher|más|mas"
                       r"|plus|mehr|darüber|höher)\b))", re.IGNORECASE)


def bound_words() -> FrozenSet[str]:
    """Every pack's ``bound_words`` and ``approximation_words``, folded: right before a value, a
    word that says the value is passed, not reached or only about right ("gut 24 Stunden", a good
    24 hours; "almost 180 days"; "about 24 hours", "ca. 24 h"), as "~24 h" says with a sign."""
    return _bound_words(generation())


@lru_cache(maxsize=2)
def _bound_words(pack_set: int) -> FrozenSet[str]:
    return frozenset(fold(w) for w in union("bound_words") + union("approximation_words"))


def is_bound(text: str, start: int, end: int, words: FrozenSet[str] = frozenset()) -> bool:
    """Whether the quantity at [start, end) follows a comparison sign (spaces between
    allowed) or has a plus or an open end after it: "> 24 h", "24h+", "43 % and up", "8 °C ↑"
    say more than the value, which no contract can check. An arrow ("->", "=>") points at a
    value, and a doubled sign (">> 25.9 F", a chat quote) quotes one: neither is a comparison.
    A word of ``words`` (``bound_words``) right before it says so too ("gut 24 Stunden", "ca. 24 h")."""
    if _OPEN_END.match(text, end):
        return True
    i = start - 1
    while i >= 0 and text[i] in _SPACES:
        i -= 1
    last = i - 1 if i > 0 and text[i] == "." and text[i - 1].isalpha() else i  # "ca.", "approx."
    if words and 0 <= i < start - 1 and text[last].isalpha():
        first = last
        while first > 0 and text[first - 1].isalpha():
            first -= 1
        if fold(text[first:last + 1]) in words:
            return True
    if i > 0 and text[i] == "=" and text[i - 1] in "<>":  # "<=", ">="
        i -= 1
    elif i > 1 and text[i] == "=" and text[i - 1] == "/" and text[i - 2] in "<>":  # ">/=", "</="
        i -= 2
    elif i < 0 or text[i] not in _COMPARATORS:
        return False
    return not (i > 0 and text[i - 1] in "-=<>")


#: an operator and a number after a quantity ("15 h + 15 h", "60 h x2", "40 d * 2"), or a number and
#: an operator glued before it ("2×15 h", "2x 15 h"): the text states a sum or a product; a number and a
#: slash before it ("48/95%"), a pair or a fraction
_OPERATION_AFTER = re.compile(r"[ \t\u00a0\u202f]*[+×✕*xX][ \t\u00a0\u202f]*[0-9]")
_OPERATION_BEFORE = re.compile(r"[0-9][ \t\u00a0\u202f]*[×✕*xX/][ \t\u00a0\u202f]*$")


def in_operation(text: str, start: int, end: int) -> bool:
    """Whether the quantity at [start, end) is an operand: a sum or a product of it is what the
    text states ("CIT 15 h + 15 h", "2×15 h", "TSI 60 h x2"), and no reader adds or multiplies, so
    the value read would not be the value meant; so is the second number of a pair or a fraction
    ("DTI/LTV 48/95%", "1/2 h"), which the reader reads alone."""
    return _OPERATION_AFTER.match(text, end) is not None or _OPERATION_BEFORE.search(text, 0, start) is not None


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
    range_join = None  # built on the first number without a unit: most texts have none
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
            if (prev == ":" or prev in _DIGIT_JOINERS) and s >= 2 and text[s - 2].isdigit():
                pending = None
                continue
            if prev in _SIGNS and (s < 2 or not _glued(text[s - 2])):
                sign_start = s - 1
        unit = _unit_at(text, m, w1, sp, w2) if w1 is not None else None
        lo, pending_before = None, pending
        pending = None
        if unit is None:
            if range_join is None:
                range_join = _range_join()
            j = range_join.match(text, e)
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
                and _compound_gap().match(text, prev.extent[1], q.start)
                and convert(1.0, smallest, "hour") > convert(1.0, q.unit, "hour")):
            value = prev.value + convert(q.value, q.unit, prev.unit)
            merged[-1] = prev._replace(end=q.end, value=value, surface=f"{prev.surface} {q.surface}",
                                       extent=(prev.extent[0], q.extent[1]))
            smallest = q.unit
            continue
        merged.append(q)
        smallest = q.unit if q.mergeable and q.status == OK and q.kind == "duration" else None
    return merged




def _compound_gap() -> "re.Pattern":
    """What may stand between the parts of one quantity: spaces, or a conjunction of a language pack."""
    return _pack_patterns(generation())[1]


def _range_join() -> "re.Pattern":
    """What stands between the two numbers of a range ("2–8 °C", "2 to 8 °C", "-5 bis -2 °C"):
    a dash, or a range word of a language pack."""
    return _pack_patterns(generation())[0]


@lru_cache(maxsize=2)
def _pack_patterns(pack_set: int) -> Tuple["re.Pattern", "re.Pattern"]:
    """(range join, compound gap) for one set of language packs (``lang.generation()``):
    the packs' word lists are merged once per set, not once per text."""
    return _range_re(union("range_words")), _gap_re(union("quantity_conjunctions"))


@lru_cache(maxsize=8)
def _range_re(words: Tuple[str, ...]) -> "re.Pattern":
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(r"(?:" + SPACE + r"?[-–]" + SPACE + r"?|" + SPACE + r"+(?:" + alternatives + r")" + SPACE
                      + r"+)(?=[-−‐+]?[0-9])")


@lru_cache(maxsize=8)
def _gap_re(words: Tuple[str, ...]) -> "re.Pattern":
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(r"\s+(?:(?:" + alternatives + r")\s+)?$", re.IGNORECASE)

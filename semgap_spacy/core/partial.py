"""A part of a count: the clearance may hold for part of what it names only.

"2 of 5 lots released", "QP certified 1 of 2 lots", "Clear to close; 1 of 2
borrowers signed", "Lote liberado; 2 de 5 lotes": spec §4.1 explains every
word (the numbers are shapes, "of" a stop word), yet the text says that the
clearance, or what it rests on, covers some of a whole and not the rest. A
count "N of M" with N smaller than M escalates as ``partial_count``, quoting
the count; a text without a clearance escalates anyway, so the whole text
is read, not the clearance's sentence. "5 of 5 shipments" and "3 of 3
samples" are whole counts and are left alone.

The count is read by its words in the four languages: "of", "out of",
"among", es "de", "de cada", fr "sur", "parmi", de "von", "aus", "der", with
an article between ("2 of the 5", "2 de los 5", "zwei der drei") or "a total
of", "all" ("2 of all 5 orders"); not from "2/5", which is also a date. The
counted words may stand between the sides: in es and fr up to three ("2
lotes de 5", "2 pruebas cruzadas negativas de 3", "4 lots parmi 6"; with the
sides in words one, before "sur" only: "un lot sur deux", while "un equipo de
dos" is a size); in en one or two, where the whole ends its clause or a
participle or "ok" follows it and is at most ten times the part ("3 wheels of 4
checked", "3 wheels of 4 ok", "three wheels of four were checked", "3 wheels of four
ready"; "3 shipments of 200" is a size). A count written in words,
one side or both, is a part when its two sides differ ("two of three lots",
"one of the 2 borrowers", "zwei von drei Proben"; spaCy's ``like_num`` of the
pack languages, or a pack's ``number_words``): the reader has no value for
"two", and a count of a whole names its number once ("all three lots").
"""
import re
from typing import List, Sequence, Tuple

from ..lang import number_word
from ..util.caches import cached
from ..util.textnorm import fold
from .textview import read_text, token_matches

PARTIAL_COUNT = "partial_count"

#: what may stand before a count's whole: an article or a word that points or owns ("2 of our 3")
_DETERMINERS = (r"(?:(?:a\s+total\s+of|the\s+total(?:\s+of)?|all|the|these|those|our|your|their|my|los|las|estos"
                r"|estas|nuestros|nuestras|sus|les|des|ces|nos|vos|leurs|den|der|diesen|unseren|ihren)\s+)?")
_COUNT = re.compile(
    r"(?<![\w.,/:-])(\d{1,4})\s+(?:(?:of|out\s+of|among|von|aus|der|de\s+cada|des)"
    r"|(?:[^\W\d_]+\s+){0,3}(?:de|sur|parmi))\s+" + _DETERMINERS + r"(\d{1,4})(?![\w.,/:]\w)", re.IGNORECASE)
#: an English count with one or two counted words between ("3 wheels of 4 checked", "1 borrower of 2.",
#: "2 lots released of 3"): only where the whole ends its clause or a participle follows it, after an
#: auxiliary or two or not ("3 wheels of 4 were checked", "1 wire of 2 has been sent"), since "3
#: shipments of 200 vials" is a size, and where the whole is at most ``_SIZE_RATIO`` times the part ("1
#: order of 250", "4 orders of 100 booked": sizes, not parts)
_AFTER_COUNTED = (r"(?=\s*(?:[^\w\s]|$)"
                  r"|\s+(?:(?:were|was|are|is|have|has|had|been|got|get|now|just|all|also|already)\s+){0,3}"
                  r"(?:[^\W\d_]+ed|done|complete|sent|paid|found|seen|shown|made|taken|given|written|read|built"
                  r"|set|run|ok|okay|good|fine|ready)\b)")
_COUNTED = re.compile(
    r"(?<![\w.,/:-])(\d{1,4})\s+(?:[^\W\d_]+\s+){1,2}of\s+" + _DETERMINERS + r"(\d{1,4})" + _AFTER_COUNTED,
    re.IGNORECASE)
#: the same with a side or both in English words ("three wheels of four were checked", "3 wheels
#: of four ok"), read as numbers to tell a part from a size ("one order of 250" is a size)
_SMALL_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_SMALL = r"(\d{1,4}|" + "|".join(_SMALL_WORDS) + ")"
_COUNTED_WORDS = re.compile(
    r"(?<![\w.,/:-])" + _SMALL + r"\s+(?:[^\W\d_]+\s+){1,2}of\s+" + _DETERMINERS + _SMALL + r"\b" + _AFTER_COUNTED,
    re.IGNORECASE)
_SIZE_RATIO = 10
#: a count with a side in words ("two of three"), its sides read by ``number_word``
_WORDED = re.compile(
    r"(?<![\w.,/:-])([^\W_]+)\s+(?:of|out\s+of|von|aus|der|de|des|(?:[^\W\d_]+\s+)?sur)\s+" + _DETERMINERS
    + r"([^\W_]+)(?![\w.,/:]\w)", re.IGNORECASE)


#: a count in words with two counted words before "sur" ("deux lots libérés sur trois"), apart from
#: ``_WORDED`` since a match there would take the words before a shorter one ("pour un customer sur deux")
_WORDED_SUR = re.compile(r"(?<![\w.,/:-])([^\W_]+)\s+(?:[^\W\d_]+\s+){2}sur\s+" + _DETERMINERS
                         + r"([^\W_]+)(?![\w.,/:]\w)", re.IGNORECASE)


#: the words between a count's sides, one of which any text that holds a count has between spaces
#: ("out of" and "de cada" hold one)
_CONNECTORS = frozenset({"of", "among", "von", "aus", "der", "de", "des", "sur", "parmi"})


#: "one" as German writes it in a count ("eine von zwei"), which the de pack leaves out of its
#: number words: elsewhere it is an article, and a number in words beside a field escalates
_ONE = frozenset({"ein", "eine", "einer", "eines"})


def _value(word: str) -> int:
    """The number of a side of ``_COUNTED_WORDS``: digits, or an English word for one to twelve."""
    return int(word) if word.isdigit() else _SMALL_WORDS.index(word.casefold()) + 1


def _side(word: str) -> bool:
    return (word.isdigit() and len(word) <= 4) or number_word(word) or fold(word) in _ONE


@cached(65536)
def _read_word(word: str) -> str:
    """A word of the reading that is not ASCII, folded, with the dotless "ı" an "i" as the
    patterns' IGNORECASE reads it."""
    return fold(word).replace("ı", "i")


def _read_words(text: str) -> List[str]:
    """The words of the text as a person reads it (``read_text``), folded.

    Folding the whole reading and splitting it gives the same words (the reading is NFKC with
    single spaces, and folding makes no whitespace): folded word by word, a text in another
    language costs a look-up per word, not a Python pass over its characters.
    """
    view = read_text(text).text
    if view.isascii() and "`" not in view:
        return view.lower().split()
    words = [word.lower() if word.isascii() and "`" not in word else _read_word(word) for word in view.split()]
    return [word for word in words if word]  # a combining mark alone folds to nothing


def partial_counts(text: str, starts: Sequence[int], ends: Sequence[int]) -> List[Tuple[int, int]]:
    """(first token, end token) of each count "N of M" with N < M, read as a person reads the text.

    text (str): The text; starts, ends: every token's character offsets.
    RETURNS (List[Tuple[int, int]]): Token ranges, in text order.
    """
    if _CONNECTORS.isdisjoint(_read_words(text)):
        return []
    out = [(first, end) for found, _, first, end in token_matches(_COUNT, text, starts, ends)
           if 0 <= int(found.group(1)) < int(found.group(2))]
    out += [(first, end) for found, _, first, end in token_matches(_COUNTED, text, starts, ends)
            if int(found.group(1)) < int(found.group(2)) <= _SIZE_RATIO * max(1, int(found.group(1)))]
    for found, _, first, end in token_matches(_COUNTED_WORDS, text, starts, ends):
        low, high = _value(found.group(1)), _value(found.group(2))
        if not (found.group(1).isdigit() and found.group(2).isdigit()) and low < high <= _SIZE_RATIO * max(1, low):
            out.append((first, end))  # both in digits: ``_COUNTED``
    for found, _, first, end in (list(token_matches(_WORDED, text, starts, ends))
                                 + list(token_matches(_WORDED_SUR, text, starts, ends))):
        low, high = found.group(1), found.group(2)
        if (not (low.isdigit() and high.isdigit()) and _side(low) and _side(high)
                and low.casefold() != high.casefold()):
            out.append((first, end))
    return sorted(set(out))

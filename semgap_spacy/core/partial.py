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
of", "all" ("2 of all 5 orders"). "2/5" is also how a date is written: it counts
before a word that no date takes ("3/4 wheels checked", "wheels 3/4 done"), not
before a stop word, a time, a day or a unit ("3/4 by noon", "1/2 inch"). The
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
"N / M" with spaces around the slash is read as "N/M", and a whole in
brackets after the part is a count too ("2 (of 3)", "2 (de 5)", "2 (total 5)").
A part of a group the text does not count is one too: a number, in digits or
in words, of "the" things ("one of the borrowers", "2 of the orders", "uno de
los lotes", "un des lots"; not "one of the best files").
"""
import re
from typing import Callable, FrozenSet, List, Optional, Sequence, Tuple

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


#: a number of a group named by its noun, not counted ("one of the borrowers", "una de las muestras"):
#: in words, or in digits after no word but a preposition ("for 2 of the orders"; "lot 7734 of the eye
#: drops", "version 3 of the disclosure" name one thing by its number); not a superlative ("one of the
#: best files"), nor de "eine der", an article as often
_OF_THE_WORDS = re.compile(r"\b(?:of\s+the|de\s+l[ao]s|des)\b", re.IGNORECASE)
_OF_THE_NUMBERS = ("one", "two", "three", "four", "five", "uno", "una", "dos", "tres", "un", "une", "deux", "trois")
_OF_THE = re.compile(r"(?:(?<![\w.,/:-])(?:" + "|".join(_OF_THE_NUMBERS) + ")"
                     r"|(?:(?<![\w.,/:\s-])|(?<=\bfor )|(?<=\bpara )|(?<=\bpour )|(?<=^)|(?<=: ))\d{1,2})"
                     r"\s+(?:of\s+the|de\s+(?:los|las)|des)\s+(?![^\W\d_]*est\b)[^\W\d_]{2,}", re.IGNORECASE)


#: "N/M" and the word after it ("3/4 wheels", "¾ wheels", which the reading makes "3⁄4"), on the reading;
#: not a part of a longer date or code
_SLASH_COUNT = re.compile(r"(?<![\w.,/⁄∕:-])([1-9]\d{0,2}) ?[/⁄∕] ?([1-9]\d{0,2})(?![\w/⁄∕:-]|[.,]\d)\s+([^\W\d_][\w'’-]*)")


#: the slashes of ``_SLASH_COUNT`` and ``_SLASH_ENDING``
_SLASHES = re.compile(r"[/⁄∕]")
#: "N/M" that ends its clause: the text, a closing bracket or a clause's mark after it
_SLASH_ENDING = re.compile(r"(?<![\w.,/⁄∕:-])([1-9]\d?) ?[/⁄∕] ?([1-9]\d?)(?=\s*[)\]]?\s*(?:[,;.!?]|$))", re.MULTILINE)
#: a count whose whole is in brackets after the part ("2 (of 3)", "2 (de 5)", "2 (total 5)"), or
#: joined by hyphens ("3-of-5")
_BRACKETED = re.compile(r"(?<![\w.,/:-])(\d{1,4})(?:\s*\(\s*(?:of|out\s+of|de|sur|von|aus|total|en\s+total|au\s+total"
                        r"|insgesamt|gesamt)\s+(\d{1,4})\s*\)|-(?:of|de|sur|von|aus)-(\d{1,4})(?![\w.,/:-]))", re.IGNORECASE)
#: the largest whole of a count ``_SLASH_ENDING`` reads, and the brackets it may stand in
_SMALL_WHOLE = 12
_OPENING = frozenset({"(", "["})
#: what may follow a word that ends its clause, in the text as written (the reading makes a line break a space)
_CLAUSE_END = re.compile(r"[^\S\n]*(?:[,;.!?)\]\n–—-]|$)")


#: the words between a count's sides, one of which any text that holds a count has between spaces
#: ("out of" and "de cada" hold one)
CONNECTORS = frozenset({"of", "among", "von", "aus", "der", "de", "des", "sur", "parmi"})


#: "one" as German writes it in a count ("eine von zwei"), which the de pack leaves out of its
#: number words: elsewhere it is an article, and a number in words beside a field escalates
_ONE = frozenset({"ein", "eine", "einer", "eines"})


def _value(word: str) -> int:
    """The number of a side of ``_COUNTED_WORDS``: digits, or an English word for one to twelve."""
    return int(word) if word.isdigit() else _SMALL_WORDS.index(word.casefold()) + 1


def _side(word: str) -> bool:
    return (word.isdigit() and len(word) <= 4) or number_word(word) or fold(word) in _ONE


def _slash_counts(text: str, starts: Sequence[int], ends: Sequence[int], not_counted: FrozenSet[str],
                  is_term: Callable[[int], bool], done: FrozenSet[str]) -> List[Tuple[int, int]]:
    """(first token, end token) of each "N/M" with N < M at most ``_SIZE_RATIO`` times N before a
    word that is none of ``not_counted``, or one of ``done`` that ends its clause ("2/3 done",
    "docs 5/6 in, clear to close"; not "3/4 in March"): a part of a count
    ("3/4 wheels checked"), which is also how a date is written ("3/4"), so only a word after it
    that a date does not take makes it one; "24/7", "4/4", "12/2026" and "03/17" (a leading zero:
    a date) are none. Without a word after it, "N/M" of a whole up to twelve that ends its clause
    right after a term or a word it may count (an opening bracket between) is a count too
    ("Abschlussbereit 3/4", "Crossmatch négatif 1/2", "listo para el cierre (2/3)", "(docs 6/9)"):
    a date there, day or month first, is as unsure as a count; "signed on 3/12" is a date."""
    out = []
    for found, _, first, end in token_matches(_SLASH_COUNT, text, starts, ends):
        part, whole = int(found.group(1)), int(found.group(2))
        word = _read_word(found.group(3))
        if 0 < part < whole <= _SIZE_RATIO * part and (
                word not in not_counted or (word in done and _CLAUSE_END.match(text, ends[end - 1]) is not None)):
            out.append((first, end))
    for found, _, first, end in token_matches(_SLASH_ENDING, text, starts, ends):
        part, whole = int(found.group(1)), int(found.group(2))
        before = first - 1
        while before >= 0 and text[starts[before]:ends[before]] in _OPENING:
            before -= 1
        if 0 < part < whole <= _SMALL_WHOLE and before >= 0 and (
                is_term(before) or _counted_word(text[starts[before]:ends[before]], not_counted)):
            out.append((first, end))
    return out


def _counted_word(word: str, not_counted: FrozenSet[str]) -> bool:
    """Whether a token is a word that "N/M" after it may count: letters, and none of ``not_counted``."""
    return word.isalpha() and _read_word(word) not in not_counted


@cached(65536)
def _read_word(word: str) -> str:
    """A word of the reading, folded, with the dotless "ı" an "i" as the
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


class _Sides:
    """What the sides of a count in the reading of a text may be, known before its patterns run.

    The count patterns try every position of the reading, so a text is read by one only
    when it holds what that pattern's sides need: digits (``_COUNT``, ``_COUNTED``), or a
    number of the pattern's own words (``_COUNTED_WORDS``, ``_OF_THE``). Each side is a
    whole run of word characters, so the words are the reading's runs, in lower case as
    IGNORECASE reads an ASCII reading; another reading is left to the pattern.
    """

    __slots__ = ("view", "digits", "_words")

    def __init__(self, view: str):
        self.view = view
        self.digits = _ANY_DIGIT.search(view) is not None
        self._words: Optional[FrozenSet[str]] = None

    def may_hold(self, numbers: Sequence[str]) -> bool:
        """Whether a word of ``numbers`` may stand in the reading as a side."""
        if not self.view.isascii():
            return True
        if self._words is None:
            self._words = frozenset(_WORD_RUN.findall(self.view.lower()))
        return not self._words.isdisjoint(numbers)


#: a digit, which the sides of ``_COUNT`` and ``_COUNTED`` are made of
_ANY_DIGIT = re.compile(r"\d")
_WORD_RUN = re.compile(r"\w+")


def partial_counts(text: str, starts: Sequence[int], ends: Sequence[int],
                   not_counted: FrozenSet[str] = frozenset(),
                   is_term: Callable[[int], bool] = lambda i: False,
                   done: FrozenSet[str] = frozenset()) -> List[Tuple[int, int]]:
    """(first token, end token) of each count "N of M" with N < M, read as a person reads the text.

    text (str): The text; starts, ends: every token's character offsets.
    not_counted (FrozenSet[str]): Folded words that, after "N/M", make it a date or a measure
        ("3/4 Tuesday", "1/2 inch", "3/4 by noon"); before any other word it counts that word
        ("3/4 wheels checked", "wheels 3/4 done", "3/4 of the wheels"). Empty: "N/M" is never read.
    is_term (Callable[[int], bool]): Whether a token is a term's: "N/M" of small numbers that ends
        its clause right after a term qualifies it ("Abschlussbereit 3/4", "clear to close (2/3)").
    done (FrozenSet[str]): Folded words that say a check is done (the packs' ``check_done_words``):
        after "N/M", ending its clause, they count it though ``not_counted`` holds them ("2/3 done").
    RETURNS (List[Tuple[int, int]]): Token ranges, in text order.
    """
    # "N/M" is read on the reading, which holds the slash: "/" in ASCII, and in other text also a
    # mark that reads as one ("３／４") or a fraction written with one ("¾")
    out = (_slash_counts(text, starts, ends, not_counted, is_term, done)
           if not_counted and ("/" in text or (not text.isascii() and _SLASHES.search(read_text(text).text)))
           else [])
    if "(" in text or "-" in text:
        out += [(first, end) for found, _, first, end in token_matches(_BRACKETED, text, starts, ends)
                if 0 <= int(found.group(1)) < int(found.group(2) or found.group(3))]
    if CONNECTORS.isdisjoint(_read_words(text)):
        return sorted(set(out))
    sides = _Sides(read_text(text).text)
    if sides.digits:
        out += [(first, end) for found, _, first, end in token_matches(_COUNT, text, starts, ends)
                if 0 <= int(found.group(1)) < int(found.group(2))]
    if _OF_THE_WORDS.search(text) and (sides.digits or sides.may_hold(_OF_THE_NUMBERS)):
        counted = list(out)
        out += [(first, end) for _, _, first, end in token_matches(_OF_THE, text, starts, ends)
                if not any(a < end and first < b for a, b in counted)]  # "2 of the total 5" is counted already
    if sides.digits:
        out += [(first, end) for found, _, first, end in token_matches(_COUNTED, text, starts, ends)
                if int(found.group(1)) < int(found.group(2)) <= _SIZE_RATIO * max(1, int(found.group(1)))]
    # a side in words: both in digits are ``_COUNTED``'s
    for found, _, first, end in (token_matches(_COUNTED_WORDS, text, starts, ends) if sides.may_hold(_SMALL_WORDS)
                                 else ()):
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

"""Two identifiers of one form that differ: which one does the clearance vouch for?

Rule 5 of §4.1 explains a token of neutral shape ("LOT-42", "N123AB",
"$412,000") because an identifier says which thing the text is about, not
what happened to it. That holds while the text names one such thing. "El
lote liberado es el 24-117; este es el 24-118" and "Clear to close on
$412,000; final loan amount $438,500" hold a clearance and every word is
explained, yet they name two values of one form, and the clearance vouches
for one of them only: which one the action is about, the text does not say.
Such a text escalates (``conflicting_identifiers``), as a person would ask.

Two values are of one form when they have the same letters and symbols in
the same places and differ only in their digits ("LOT-42"/"LOT-43",
"24-117"/"24-118", "#6097"/"#7740", "$412,000"/"$438,500"), separators
aside where a value has letters ("B117"/"B-118", "N123AB"/"N-123AC";
"LOT-42"/"LOT42" is one value; "03/14" and "03-15" keep theirs): values of
different kinds differ in their letters ("WO-4471" and "LOT-42", "A320neo"
and "N123AB"). A value is a run of shape tokens with nothing between them,
less its outer punctuation, with a currency sign one space from it
("412.000 €"). Bare numbers ("courier 2 of 3"), clock times and dates (a
chat holds several) are not identifiers; nor is anything another rule
explains (a quantity, a term).

Values that share their digits and differ only in a suffix of one or two
letters after three digits or more, or that one of them lacks, are two
things of one series too ("2231-A"/"2231-B", "2231–A", "N482QX"/"N482QY",
"lot 4471"/"lot 4471B", "N4471"/"N4471B" with four digits or more; not "B737"/"B737F",
a type and its variant, nor "1400"/"1400Z", a time of day, nor "QC 101"/"QC
101A", codes written with a space, nor values two words name as two kinds of
thing, "gate 214, stand 214B"): the letters are the part
of the name that tells them apart, and a letter glued on is part of the
value whatever else explains it ("A" is a stop word, "A." an initial). A
shorter number with a letter ("27L"/"27R", "12A"/"12B") is a runway, seat
or bay, and left alone, unless letters stand before its number ("LOT-42A"/"LOT-42B":
two lots of a code, both suffixed).

Two bare numbers of four digits or more that hold the same digits in
another order are one number typed twice, once wrong ("file 4417; this is
4471", "MRN 448190 ... 448109", "4417 ... #4471"), unless two different
words label them ("recipient 1133, donor 1331"); four digits that read as a
time of day ("at 1215 ... at 1125") count only where a word labels them.

A bare number of three or more digits becomes one when a word labels it:
the word one space before it, letters only and no stop word ("recipient
1133", "Empfänger 1331"). Its form is the word with the number as "0", so
"Negative crossmatch, recipient 1133. Flight booked for recipient 1331."
names two recipients, while "at 1400 ... at 1600", "in 2025" and "courier
2 of 3" name none. A shorter one names small things of one series too often
("wheel 1 … wheel 4", "gate 2, stand 5"), and counts only where the
clearance names it, one of its values in the sentence of a term: "Lot
released for site 2 — this order is for site 5", "Airworthy: the aircraft
at gate 12. You're at gate 14" (which site, which aircraft?), but not
"Airworthy. Tyres on wheel 1 and wheel 2 replaced". The same word before a
number written in words names one of the series too ("Lot released: lot 42.
Shipment is lot forty-three", "Lufttüchtig: Flugzeug 2; Crew am Flugzeug
drei"): the words are read as no value, so "lot 42 … lot forty-two" asks too.
"""
import re
import unicodedata
from bisect import bisect_right
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .number_shapes import FOUR_DIGIT_CLOCK, PLAIN_NUMBER, is_time_or_date

CONFLICTING_IDENTIFIERS = "conflicting_identifiers"

_DIGITS = re.compile(r"[0-9]+")
#: two runs of digits: the non-digits between are taken whole (possessive), as no shorter
#: run of them is followed by a digit
_TWO_DIGIT_RUNS = re.compile(r"[0-9][^0-9]++[0-9]")
#: the fewest digits of a bare number that a word can label as an identifier ("recipient 1133")
_LABELLED_DIGITS = 3
#: the fewest digits of two bare numbers that are one mistyped ("4417"/"4471"); shorter ones
#: name small things of one series too often ("orders 215 and 251", "at 915 … at 951")
_SLIP_DIGITS = 4
#: a value whose name ends in one or two letters after three digits or more ("2231-A", "N482QX")
_LETTER_SUFFIX = re.compile(r"(.*[0-9]{3}[-‐‑‒–—_/.]?)([a-z]{1,2})")
#: a code of letters and a shorter number, then such a suffix ("LOT-42A", "QC7B"): the letters before
#: make it a code, not a runway, seat or bay ("27L", "12A")
_CODE_LETTER_SUFFIX = re.compile(r"([a-z]+[-‐‑‒–—_/.]?[0-9]{1,2}[-‐‑‒–—_/.]?)([a-z]{1,2})")
#: a code with letters that ends in four digits or more ("N4471"): the first of a series its suffixed
#: values continue ("N4471B"); with three, a type and its variant ("B737", "B737F") read the same
_CODE_ENDING_IN_NUMBER = re.compile(r".*[a-z].*[0-9]{4}")
#: what may stand between an identifier's parts, and tells no two of them apart when it differs
_SEPARATORS = re.compile(r"[-‐‑‒–—_/.:#]")
#: the most capital letters a code before a number may have, a space between ("LOT 43", "D 4471")
_CODE_LETTERS = 4
#: full-width digits, which a person reads as 0-9 (rule 5 explains them so)
_WIDE_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
_WIDE_DIGIT = re.compile("[０-９]")
#: the dashes a value may be written with, read as one ("24-117", "24–118")
_ONE_DASH = str.maketrans("‐‑‒–—", "-----")
#: an amount's signs, and zero cents after one, which name no other amount ("$438,500.00")
_CURRENCY = frozenset("$€£¥")
_NO_CENTS = re.compile(r"[.,]00$")
_CENTS = re.compile(r"[.,][0-9]{2}$")
#: an amount with a letter for thousands or millions ("$438.5k", "€1.2M", "$412K")
_SCALED_AMOUNT = re.compile(r"([^0-9]+)([0-9]+)(?:[.,]([0-9]+))?([kKmM])")
_SCALES = {"k": 3, "m": 6}
#: a bare number with the sign that may open it ("#4471", "№4471")
_SIGNED_NUMBER = re.compile(r"[#№]?([0-9]+)")


#: punctuation that opens an identifier rather than the sentence ("#6097", "№ 12")
_NUMBER_SIGNS = frozenset("#№")


def _is_punctuation(text: str, leading: bool = False) -> bool:
    if leading and text in _NUMBER_SIGNS:
        return False
    return all(unicodedata.category(ch)[0] == "P" or ch.isspace() for ch in text)


def _is_currency(text: str) -> bool:
    return bool(text) and all(unicodedata.category(ch) == "Sc" for ch in text)


def _run_around(i: int, text: str, starts: Sequence[int], ends: Sequence[int], rules: Sequence[Any],
                shape: Any) -> Tuple[int, int]:
    """[first, last] token of the run of shape tokens (rule ``shape``, or a letter or two glued on:
    "2231-A", where "A" is a stop word, and "2231-A." with an initial at a sentence's end) with
    nothing between them that holds token i, less its outer punctuation ("N123AB." is "N123AB";
    "$412,000" and "#6097" keep their signs), and with a currency sign one space from a bare
    number ("412.000 €")."""
    n = len(rules)
    first = last = i

    def part(k: int) -> bool:
        letters = text[starts[k]:ends[k]].rstrip(".")
        return rules[k] is shape or (len(letters) <= 2 and letters.isalpha())

    while first > 0 and part(first - 1) and ends[first - 1] == starts[first]:
        first -= 1
    while last + 1 < n and part(last + 1) and ends[last] == starts[last + 1]:
        last += 1
    while first < i and _is_punctuation(text[starts[first]:ends[first]], leading=True):
        first += 1
    while last > i and _is_punctuation(text[starts[last]:ends[last]]):
        last -= 1
    if PLAIN_NUMBER.fullmatch(text[starts[first]:ends[last]]):
        if (last + 1 < n and rules[last + 1] is shape and starts[last + 1] == ends[last] + 1
                and text[ends[last]] == " " and _is_currency(text[starts[last + 1]:ends[last + 1]])):
            last += 1
        elif (first > 0 and rules[first - 1] is shape and ends[first - 1] + 1 == starts[first]
              and text[ends[first - 1]] == " " and _is_currency(text[starts[first - 1]:ends[first - 1]])):
            first -= 1
    return first, last


def _written_out(value: str) -> str:
    """An amount with a letter for thousands or millions written out with its thousands marks
    ("$438.5k" is "$438,500", "$412K" is "$412,000"), so it is of the form of the amounts written
    so; any other value as it is, and so is one whose mark may group thousands as well as start
    decimals ("$1,200k")."""
    scaled = _SCALED_AMOUNT.fullmatch(value)
    if scaled is None:
        return value
    sign, whole, part, scale = scaled.groups()
    places = _SCALES[scale.lower()]
    if part is not None and len(part) > 2:
        return value
    return f"{sign}{int(whole + (part or '').ljust(places, '0')):,}"


def _form(value: str) -> Optional[str]:
    """The value with each run of digits as "0", lower-cased, every currency sign as "$" (two
    amounts are of one form whatever their currencies: "$412,000" and "€438,500"); None when it
    is no identifier (no digit, a bare number, a clock time or a date)."""
    if not _DIGITS.search(value) or PLAIN_NUMBER.fullmatch(value) or is_time_or_date(value):
        return None
    form = _DIGITS.sub("0", value.lower())
    if form.isascii():
        return form
    return "".join("$" if unicodedata.category(ch) == "Sc" else ch for ch in form)


def _label_before(first: int, value: str, text: str, starts: Sequence[int], ends: Sequence[int],
                  rules: Sequence[Any], shape_rule: Any, stop_rule: Any) -> Optional[str]:
    """The word that labels a bare number of ``_LABELLED_DIGITS`` or more digits: the token one
    space before it, letters only, explained by neither rule 5 nor the stop words."""
    if not value.isdigit() or first == 0:
        return None
    k = first - 1
    word = text[starts[k]:ends[k]]
    if ends[k] + 1 != starts[first] or text[ends[k]] != " " or rules[k] is stop_rule or not word.isalpha():
        return None
    if word.isupper() and len(word) <= _CODE_LETTERS and len(value) >= 2 and not FOUR_DIGIT_CLOCK.fullmatch(value):
        # a code written with a space ("LOT 43" is "LOT-43"; "B 118", where "B" is an initial), as
        # "<letters>0": ``identifier_conflicts`` compares it with the codes written glued only
        return word.lower() + "0"
    if rules[k] is shape_rule:
        return None
    return word.lower() if len(value) >= _LABELLED_DIGITS else None


def _word_before(first: int, text: str, starts: Sequence[int], ends: Sequence[int], rules: Sequence[Any],
                 shape_rule: Any, stop_rule: Any) -> Optional[str]:
    """The word one space before a value, letters only and explained by neither rule 5 nor the
    stop words ("stand" of "stand 214B"), lower-cased; None when there is none."""
    if first == 0:
        return None
    k = first - 1
    word = text[starts[k]:ends[k]]
    if (ends[k] + 1 != starts[first] or text[ends[k]] != " " or rules[k] is stop_rule or rules[k] is shape_rule
            or not word.isalpha()):
        return None
    return word.lower()


def identifier_conflicts(text: str, starts: Sequence[int], ends: Sequence[int], rules: Sequence[Any],
                         shape_rule: Any, stop_rule: Any = None,
                         named_by_term: Optional[Callable[[int, int], bool]] = None,
                         spelled: Optional[Callable[[str], bool]] = None
                         ) -> List[Tuple[int, int, Tuple[Tuple[int, int], ...]]]:
    """The identifiers of one form that differ, per form.

    Only the tokens that hold a digit are looked at, and only when the text has two runs of
    digits: most texts have fewer, and punctuation alone is never an identifier.

    text (str): The text; starts, ends: every token's character offsets.
    rules (Sequence[Any]): Per token, the rule that explains it; shape_rule: rule 5's (neutral
        shape); stop_rule: rule 3's (a stop word labels no number).
    named_by_term (Optional[Callable[[int, int], bool]]): Whether tokens [first, last] stand in
        the sentence of a term; None: a number of fewer than ``_LABELLED_DIGITS`` digits is never
        an identifier.
    spelled (Optional[Callable[[str], bool]]): Whether a word is a number in words ("forty",
        "drei"): after the word that labels a number, one more of its series; None: not read.
    RETURNS (List[Tuple[int, int, Tuple[Tuple[int, int], ...]]]): Per form with two or more
        different values: its first and last token (token_end exclusive), and the
        (start_char, end_char) of its first occurrence of each value, in text order.
    """
    if not text.isascii() and _WIDE_DIGIT.search(text):
        text = text.translate(_WIDE_DIGITS)  # "N１２３AC" is "N123AC", one character per digit still
    if not _TWO_DIGIT_RUNS.search(text) and (spelled is None or named_by_term is None
                                             or not _DIGITS.search(text)):
        return []
    by_form: Dict[str, Dict[str, Tuple[int, int, int, int]]] = {}
    # bare numbers by their digits in order, with the word that labels each, if any
    slips: Dict[str, Dict[str, Tuple[Optional[str], Tuple[int, int, int, int]]]] = {}
    done = -1  # the last token of the run read last: a run with two digit groups is read once
    spaced: List[Tuple[str, str, Tuple[int, int, int, int]]] = []  # codes written with a space
    series_labels: Dict[Tuple[str, str], Optional[str]] = {}  # the word before each value of a series
    short: Dict[str, Dict[str, Tuple[int, int, int, int]]] = {}  # short numbers a word labels, by the word
    for found in _DIGITS.finditer(text):
        i = bisect_right(starts, found.start()) - 1
        if i <= done or i < 0 or rules[i] is not shape_rule:
            continue
        first, last = _run_around(i, text, starts, ends, rules, shape_rule)
        done = last
        value = text[starts[first]:ends[last]]
        after = text[ends[last]:ends[last] + 1]
        if value.endswith(".") and (value[-2:-1].isalpha() or not after.strip()):
            # "2231-A." ends a sentence, and so does "$438,500." where a tokenizer (de) keeps the dot
            value = value[:-1]
        end_char = starts[first] + len(value)
        value = value.translate(_ONE_DASH)  # "24-117" and "24–118" are one form
        amount = value[:1] in _CURRENCY
        if amount:
            value = _written_out(value)  # "$438.5k" is "$438,500"
        if amount and _NO_CENTS.search(value):
            value = value[:-3]  # "$438,500.00" is "$438,500"
        # an amount with cents is of the form of one without ("$412,000" / "$412,000.50")
        form = _form(_CENTS.sub("", value) if amount else value)
        label = None if form is not None else _label_before(first, value, text, starts, ends, rules, shape_rule,
                                                             stop_rule)
        if form is not None and any(ch.isalpha() for ch in value):
            # "B117" and "B-118": one form, written two ways; digits alone keep their separators,
            # which tell a date ("03/14") from a range or a code ("03-15")
            form, value = _SEPARATORS.sub("", form), _SEPARATORS.sub("", value)
        number = _SIGNED_NUMBER.fullmatch(value)
        if number and len(number.group(1)) >= _SLIP_DIGITS and (
                label is not None or not FOUR_DIGIT_CLOCK.fullmatch(number.group(1))):
            digits = number.group(1)
            slips.setdefault("".join(sorted(digits)), {}).setdefault(
                digits, (label, (first, last, starts[first], end_char)))
        if (form is None and number and len(number.group(1)) >= _LABELLED_DIGITS
                and not FOUR_DIGIT_CLOCK.fullmatch(number.group(1)) and not (label or "").endswith("0")):
            # a number, and the same number with a letter suffix: two of one series ("lot 4471 …
            # lot 4471B"); a time of day stays one ("1400 … 1400Z"), and codes written with a
            # space name places and signatures as often ("QC 101 and QC 101A signed")
            series_key = f"{number.group(1)} +letters"
            by_form.setdefault(series_key, {}).setdefault(number.group(1), (first, last, starts[first], end_char))
            series_labels[series_key, number.group(1)] = label
        if form is None:
            if label is None:
                if named_by_term is not None and number and value.isdigit():
                    word = _word_before(first, text, starts, ends, rules, shape_rule, stop_rule)
                    if word is not None:  # "site 2": one of a series, if a clearance names it
                        short.setdefault(word, {}).setdefault(value, (first - 1, last, starts[first - 1], end_char))
                continue
            if label.endswith("0"):  # a code written with a space: one of the codes written glued, if any
                spaced.append((label, label[:-1] + value, (first - 1, last, starts[first - 1], end_char)))
                continue
            form, value, first = f"{label} 0", f"{label} {value}", first - 1
        where = (first, last, starts[first], end_char)
        by_form.setdefault(form, {}).setdefault(value.lower(), where)
        series = _LETTER_SUFFIX.fullmatch(value.lower()) or _CODE_LETTER_SUFFIX.fullmatch(value.lower())
        # the separators are gone: "N123AB" and "N-123AC" are one series, and "N4471" and "N4471B"
        head = None
        if series:
            head = series.group(1)
        elif _CODE_ENDING_IN_NUMBER.fullmatch(value.lower()):
            head = value.lower()
        if head is not None:
            by_form.setdefault(f"{head} +letters", {}).setdefault(value.lower(), where)
            series_labels.setdefault((f"{head} +letters", value.lower()),
                                     _word_before(first, text, starts, ends, rules, shape_rule, stop_rule))
    for form, value, where in spaced:
        if form in by_form:  # "LOT-42 … LOT 43"; but "QC 12 and QC 14 signed", "stand B 12 … B 14" name places
            by_form[form].setdefault(value, where)
    for digits, values in slips.items():
        # the same digits in another order: one number mistyped ("file 4417; this is 4471"), unless
        # two labels say they are two kinds of thing ("recipient 1133, donor 1331"); numbers that
        # one word labels all are one form already
        labels = [label for label, _ in values.values()]
        if len(values) > 1 and None in labels and len(set(labels) - {None}) <= 1:
            by_form[f"digits {digits}"] = {value: where for value, (_, where) in values.items()}
    if spelled is not None and any(named_by_term(first, last) for values in short.values()
                                   for first, last, _, _ in values.values()):
        _add_spelled(short, text, starts, ends, rules, shape_rule, stop_rule, spelled)
    for word, values in short.items():
        if len(values) > 1 and any(named_by_term(first, last) for first, last, _, _ in values.values()):
            by_form[f"{word} 0 (short)"] = values
    out = []
    for form, values in by_form.items():
        if form.endswith(" +letters") and len({series_labels.get((form, v)) for v in values} - {None}) > 1:
            continue  # two words name two kinds of thing: "gate 214, stand 214B"
        if len(values) > 1:
            found_values = sorted(values.values(), key=lambda v: v[2])
            out.append((found_values[0][0], max(v[1] for v in found_values) + 1,
                        tuple((v[2], v[3]) for v in found_values)))
    return sorted(out)


def _add_spelled(short: Dict[str, Dict[str, Tuple[int, int, int, int]]], text: str, starts: Sequence[int],
                 ends: Sequence[int], rules: Sequence[Any], shape_rule: Any, stop_rule: Any,
                 spelled: Callable[[str], bool]) -> None:
    """Add to ``short`` (short numbers by the word that labels them) each number in words that
    one of its words labels ("lot forty-three", its parts glued by hyphens), by its words."""
    n = len(starts)
    for k in range(1, n):
        if text[starts[k - 1]:ends[k - 1]].lower() not in short:
            continue
        word = text[starts[k]:ends[k]]
        label = _word_before(k, text, starts, ends, rules, shape_rule, stop_rule)
        if label not in short or not word.isalpha() or not spelled(word):
            continue
        last = k
        while (last + 2 < n and text[starts[last + 1]:ends[last + 1]] == "-" and ends[last] == starts[last + 1]
               and ends[last + 1] == starts[last + 2] and spelled(text[starts[last + 2]:ends[last + 2]])):
            last += 2
        short[label].setdefault(text[starts[k]:ends[last]].lower(), (k - 1, last, starts[k - 1], ends[last]))

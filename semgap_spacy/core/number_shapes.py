"""What a number in a text is by its shape alone: a bare number, or a clock time or a date.

Two readers ask: the decision's findings (a bare number in a text that names a
field may be its value, ``ambiguous_unit``; a time in a text that names a
duration may mark its start, ``text_timestamp``) and the identifiers of
coverage (a bare number, a time or a date is no identifier). One definition
serves both, so they never disagree on what "14:00" or "$1,250" is.
"""
import re
from datetime import date
from typing import List, Optional, Sequence

from .textview import token_matches

# A number standing alone ("12", "-4", "0.55", "(30)", '"48"', "«48»", "48…", "48*"): not glued to a
# word, a sign of money, a clock time or a code ("#4821", "$1,250", "14:00", "555-0199", "LOT-42" are
# names or times).
PLAIN_NUMBER = re.compile(r"(?<![^\s(\[\"“„«‘'])[-+−–]?[0-9]+(?:[.,][0-9]+)*"
                          r"(?=[\s)\],;!?\"”»’'…*]|[.:](?:\s|$)|$)")

# A clock time or a date ("02:00", "14h30", "2026-01-02", "02/01/2026"); "10:30 h" is a time too.
TIME_OR_DATE = re.compile(r"(?<![\w.:/-])(?:[0-9]{1,2}[:h][0-9]{2}(?::[0-9]{2})?|[0-9]{4}-[0-9]{2}-[0-9]{2}"
                          r"|[0-9]{1,2}[./][0-9]{1,2}[./][0-9]{2,4})(?![\w:/-]|\.[0-9])")

# what a time may carry glued to it: a zone or half of the day ("14:20z", "2:30pm"), the time of
# an ISO date ("2026-11-30T10:00Z")
_CLOCK_TAIL = re.compile(r"(?:z|utc|h|[ap]\.?m\.?|t[0-9:.+\-z]*)$", re.IGNORECASE)
_RANGE = re.compile(r"[\-–]")


def is_time_or_date(value: str) -> bool:
    """Whether a whole token (or glued run of tokens) is a clock time or a date, with a zone,
    a half of the day or an ISO time glued to it, or a range of two ("10:05-10:50")."""
    if TIME_OR_DATE.fullmatch(value) or TIME_OR_DATE.fullmatch(_CLOCK_TAIL.sub("", value)):
        return True
    parts = _RANGE.split(value)
    return len(parts) == 2 and all(TIME_OR_DATE.fullmatch(_CLOCK_TAIL.sub("", p)) for p in parts)


#: four digits that a clock may show written without a colon ("1400", "0600")
FOUR_DIGIT_CLOCK = re.compile(r"(?:[01][0-9]|2[0-3])[0-5][0-9]")

_CLOCK = re.compile(r"([0-9]{1,2})[:h]([0-9]{2})(?::([0-9]{2}))?")
#: a date with its year first, its parts joined by one mark ("2026-02-30", "2026/02/30", "2026.02.30")
_ISO_DATE = re.compile(r"([0-9]{4})([-/.])([0-9]{1,2})\2([0-9]{1,2})")
#: a date with its day or month first ("31/31/2026", "31-04-2026", "30.02.2026")
_NUMERIC_DATE = re.compile(r"([0-9]{1,2})([-/.])([0-9]{1,2})\2([0-9]{2,4})")
#: a German day and month, each with its dot ("30.02.")
_DAY_MONTH = re.compile(r"([0-9]{1,2})\.([0-9]{1,2})\.")


#: a day and a month without a year ("31/04", "3/14")
_SHORT_DATE = re.compile(r"([0-9]{1,2})/([0-9]{1,2})")
#: four digits with a time zone glued to them ("1400Z", "0930UTC"): a clock time, written without its colon
_ZONED_FOUR_DIGITS = re.compile(r"([0-9]{4})(?:z|utc|gmt)", re.IGNORECASE)
#: four digits and a time zone as a word of its own ("1475 UTC", "1400 GMT")
ZONED_CLOCK = re.compile(r"(?<![\w.,:/-])([0-9]{4})\s+(?:utc|gmt|zulu)(?!\w)", re.IGNORECASE)
#: the zones of ``ZONED_CLOCK``, looked for in any case, in a text in lower case, before the pattern
#: is run on its reading (no other character matches a letter of theirs case-insensitively, nor is
#: one in lower case)
_ZONE_WORDS = ("utc", "gmt", "zulu")


def _either_way(first: int, second: int, year: int) -> bool:
    """Whether two numbers are a day and a month of ``year``, day first or month first."""
    return _a_day(year, second, first) or _a_day(year, first, second)


def _four_digit_clock(digits: str) -> bool:
    """Whether four digits are a time a clock shows ("1400", "0000", "2400")."""
    return FOUR_DIGIT_CLOCK.fullmatch(digits) is not None or digits == "2400"


def unread_zoned_clocks(explained: List[Optional[str]], text: str, starts: Sequence[int], ends: Sequence[int],
                        shape: str) -> List[Optional[str]]:
    """Four digits that a time zone after them makes a clock time no clock shows ("Airworthy,
    1475 UTC") are not explained by their shape (rule 5), as "14:75" is not: the writer meant a
    time the reader cannot tell.

    explained (List[Optional[str]]): The rule per token, changed here; ``shape`` marks rule 5.
    text (str): The text; starts, ends: every token's character offsets.
    RETURNS (List[Optional[str]]): ``explained``.
    """
    lower = text.lower()
    if any(zone in lower for zone in _ZONE_WORDS):
        for found, _, first, _ in token_matches(ZONED_CLOCK, text, starts, ends):
            if not _four_digit_clock(found.group(1)) and explained[first] is shape:
                explained[first] = None
    return explained


def _a_day(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _possible(part: str) -> bool:
    clock = _CLOCK.fullmatch(part)
    if clock:
        hour, minute, second = int(clock.group(1)), int(clock.group(2)), int(clock.group(3) or 0)
        return (hour < 24 and minute <= 59 and second <= 59) or (hour == 24 and minute == second == 0)
    iso = _ISO_DATE.fullmatch(part)
    if iso:
        return _a_day(int(iso.group(1)), int(iso.group(3)), int(iso.group(4)))
    numeric = _NUMERIC_DATE.fullmatch(part)
    if numeric:  # day first or month first: possible when either reads as a day of its year
        first, second, year = int(numeric.group(1)), int(numeric.group(3)), int(numeric.group(4))
        year = year + 2000 if len(numeric.group(4)) == 2 else year  # "29/02/27"
        return _either_way(first, second, year)
    day_month = _DAY_MONTH.fullmatch(part)
    if day_month:
        return _a_day(2000, int(day_month.group(2)), int(day_month.group(1)))
    return True


def is_impossible_time_or_date(value: str) -> bool:
    """Whether a token of the shape of a clock time or a date names none ("30:00", "14:75",
    "2026-02-30", "31/31/2026", "29/02/2027"): a value no clock or calendar shows, which rule 5
    does not explain as it explains "14:00", since the writer meant something the reader cannot
    tell. A full stop the tokenizer left on it ends the sentence ("at 23:60Z.")."""
    return _impossible(value) or (value.endswith(".") and len(value) > 1 and _impossible(value[:-1]))


def _impossible(value: str) -> bool:
    if "H" in value and _CLOCK.fullmatch(value.replace("H", "h")):
        value = value.replace("H", "h")  # "14H75", as "14h75"
    zoned = _ZONED_FOUR_DIGITS.fullmatch(value)
    if zoned:  # "1475Z": four digits with a zone are a clock time, which this one is not
        return not _four_digit_clock(zoned.group(1))
    short = _SHORT_DATE.fullmatch(value)
    if short:  # "31/04": a day and a month, either way round, that no year has ("24/7" has one)
        first, second = int(short.group(1)), int(short.group(2))
        if max(first, second) > 31 or min(first, second) > 12:
            return False  # no day and month at all: a split or a score ("50/50", "45/50")
        return not _either_way(first, second, 2000)
    if _DAY_MONTH.fullmatch(value) and _DOT_CLOCK.fullmatch(value[:-1]):
        return False  # "14.00.": a clock time with a dot, at a sentence's end
    if any(pattern.fullmatch(value) for pattern in (_ISO_DATE, _NUMERIC_DATE, _DAY_MONTH)):
        return not _possible(value)  # dates of shapes ``TIME_OR_DATE`` leaves out too ("2026/02/30")
    if not is_time_or_date(value):
        return False
    whole = value if TIME_OR_DATE.fullmatch(value) else _CLOCK_TAIL.sub("", value)
    parts = [whole] if TIME_OR_DATE.fullmatch(whole) else [_CLOCK_TAIL.sub("", p) for p in _RANGE.split(value)]
    return not all(_possible(part) for part in parts)


#: a clock time with a dot for its colon ("14.00", "9.30", "2.30pm", "24.00"), which is also a decimal number
_DOT_CLOCK = re.compile(r"(?:(?:[01]?[0-9]|2[0-3])\.[0-5][0-9]|24\.00)(?:[ap]m)?", re.IGNORECASE)


def is_bare_clock(value: str) -> bool:
    """Whether a token is a clock time without its colon: four digits ("1400",
    "0600"), or a dot for the colon ("14.00"): a time only where a word says so ("at
    1400", "at 14.00"), since "lot 1400" and "pH 14.00" are numbers."""
    value = value.rstrip(".")  # "at 1400Z." as a tokenizer may leave it
    digits = value[:-1] if value[-1:] in ("Z", "z", "L", "l") else value  # "1400Z": Zulu, "1400L": local
    return FOUR_DIGIT_CLOCK.fullmatch(digits) is not None or _DOT_CLOCK.fullmatch(digits) is not None

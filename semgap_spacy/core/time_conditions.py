"""A clearance set for a time: it may hold from then, or be due by then, and not now.

"Clear to close by 18:00", "Airworthy from 06:00", "Lote liberado desde el
lunes", "Libéré à partir de 18h", "Freigegeben nach 18:00": spec §4.1
explains every word ("by", "from", "desde" and "nach" are stop words, the
time a shape, "lunes" a stop word or unknown), yet the text ties what it
states to a time that may not have come: a deadline ("needs to be clear to
close by 18:00") or a start ("airworthy from 06:00"). A person would ask
which. A word that sets a time (each pack's ``time_prepositions``: "by",
"from", "starting", "desde", "para", "à partir de", "nach") followed by a
time or a day (a clock time "18:00", "6pm", "1800Z", "18h30"; a date
"12/05", "2026-12-05"; each pack's ``time_words``: "noon", "tomorrow",
"Monday", "lunes", "demain", "Montag"; an article or "next" may stand
between) escalates as ``time_condition``, quoting it. Words such as
"until", "after", "before", "hasta", "dès", "ab" and "bis" are never neutral
already (§4.1), so they escalate without this rule.

A clearance stated for the past is one more such time: "N418QX was airworthy",
"File was clear to close" say how things stood, not how they stand. es
"estaba", "era", fr "était" and de "war" are never neutral already; en "was"
is a stop word of every other sentence ("crossmatch was negative" reports a
result). So a word that states a past (each pack's ``past_state_words``:
"was", "were", "had been") right before a clearance term escalates too,
unless the term's first word is a participle (``participle_endings``: "was
cleared to close", "was released" report an act that stands).

A time followed by a colon is the stamp of a message ("Update from 14:05:
clear to close") and is left alone, as is a bare number ("reduced by 2",
"signed by 2 engineers") and a number with a decimal point ("rate up by
0.25"): neither is a time as written.
"""
import re
from bisect import bisect_right
from functools import lru_cache
from typing import Callable, FrozenSet, List, Sequence, Tuple

from ..lang import generation, union

TIME_CONDITION = "time_condition"

#: a time of day or a date, as a digit shape: "18:00", "6pm", "6 p.m.", "1800Z", "1800 hrs", "18h", "18h30",
#: "18 Uhr", "12/05", "12/05/2026", "05.12.2026", "2026-12-05"
_CLOCK = (r"\d{1,2}(?::\d{2}(?::\d{2})?)?\s?(?:am|pm|a\.m\.|p\.m\.)"
          r"|\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?:h|hrs|z|utc|lt|uhr))?"
          r"|\d{3,4}\s?(?:z|utc|lt|hrs)"
          r"|\d{1,2}h(?:\d{2})?|\d{1,2}\s?uhr"
          r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{1,2}\.\d{1,2}\.\d{2,4}|\d{4}-\d{2}-\d{2}")
#: what may stand between the word and the time: an article, "next", "this"
_BETWEEN = r"(?:(?:the|this|next|coming|el|la|las|los|del|al|próximo|próxima|le|les|prochain|prochaine|" \
           r"dem|den|der|nächsten|kommenden)\s+)?"


def _alternatives(words: Sequence[str]) -> str:
    ordered = sorted({w.strip() for w in words if w.strip()}, key=len, reverse=True)
    return "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in ordered)


@lru_cache(maxsize=2)
def _pattern(pack_set: int) -> "re.Pattern":
    """The rule's pattern for one set of language packs (``lang.generation()``)."""
    words = _alternatives(union("time_prepositions"))
    days = _alternatives(union("time_words"))
    time = _CLOCK + (f"|(?:{days})" if days else "")
    return re.compile(rf"(?<![\w'])(?:{words})\s+{_BETWEEN}(?:{time})(?![\w:])(?!\s*:)", re.IGNORECASE)


def time_conditions(text: str, starts: Sequence[int], ends: Sequence[int]) -> List[Tuple[int, int]]:
    """(first token, end token) of each word that sets a time and the time it sets.

    text (str): The text; starts, ends: every token's character offsets.
    RETURNS (List[Tuple[int, int]]): Token ranges, in text order.
    """
    out: List[Tuple[int, int]] = []
    if " " not in text or not union("time_prepositions"):
        return out
    for found in _pattern(generation()).finditer(text):
        first = bisect_right(starts, found.start()) - 1
        last = bisect_right(starts, found.end() - 1) - 1
        if first < 0 or starts[first] != found.start() or ends[last] != found.end():
            continue  # the phrase does not start and end on token edges ("x-from 18:00")
        out.append((first, last + 1))
    return out



def past_states(words: Callable[[int], str], clearances: Sequence[int], past: FrozenSet[Tuple[str, ...]],
                participle_endings: Sequence[str]) -> List[Tuple[int, int]]:
    """(first token, end token) of each word that states a past and the clearance right after it.

    words (Callable[[int], str]): A token's text, folded, by index; asked only before a clearance.
    clearances (Sequence[int]): The first token of every clearance term, in order.
    past (FrozenSet[Tuple[str, ...]]): The packs' ``past_state_words``, folded, as word sequences.
    participle_endings (Sequence[str]): Endings of a first word that reports an act ("cleared").
    RETURNS (List[Tuple[int, int]]): Token ranges from the past word to the term's first word.
    """
    out: List[Tuple[int, int]] = []
    longest = max(map(len, past), default=0)
    for start in clearances:
        first = words(start)
        if participle_endings and first.endswith(tuple(participle_endings)):
            continue
        for k in range(longest, 0, -1):
            if start - k >= 0 and tuple(words(i) for i in range(start - k, start)) in past:
                out.append((start - k, start + 1))
                break
    return out

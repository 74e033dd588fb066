"""Where a clause ends: one rule for every component.

The spec scopes a cue to its own clause, ties a quantity to a field in its
clause and pairs a frame's head and outcome only inside one clause. If three
components each had their own idea of a clause they would disagree on
exactly the texts that matter, so the rule lives here, on plain text.

A clause ends at a comma (not one inside a number: "25,5"), a semicolon, a
dash used as a separator (an em dash, "--", or a hyphen or en dash with a
space on both sides; "2-8" and "cross-match" are words), a
sentence end (".", "!", "?", "…" followed by a space or the end; not the
full stop of an abbreviation such as "approx."), and the clause-break words
of the language packs ("but", "pero", "mais", "aber" and their cue files'
``break`` records such as "however"). A colon is not a break ("crossmatch
result: positive").

The rule reads the canonical view of the text (spec §4.1,
``core.textview``): a line break is whitespace like any other, so "not\nclear
to close" is one clause, and a format character cannot hide a break word
("bu<U+200B>t"). Offsets in and out stay those of the original text.
"""
import re
from functools import lru_cache
from typing import Iterable, List, Tuple

from .textview import reads_as_itself, read_text

_BREAK_PUNCT = (
    r"(?<!\d),|,(?!\d)"            # a comma, except inside a number ("25,5")
    r"|;"
    r"|[—―]|--"
    r"|(?<=\s)[-–−](?=\s)"         # a spaced hyphen or dash (not "2-8", not "-3")
    r"|[.!?…](?=\s|$)"             # sentence end (a decimal point has no space after it)
)


class ClauseRule:
    """The clause breaks of a text, for a given set of break words and abbreviations."""

    def __init__(self, break_words: Iterable[str], non_final: Iterable[str]):
        """break_words (Iterable[str]): Words that end a clause, matched whole and case-insensitively.
        non_final (Iterable[str]): Abbreviations whose full stop ends no clause, lower case.
        """
        words = sorted({w for w in break_words if w.strip()}, key=len, reverse=True)
        alternatives = "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in words)
        pattern = _BREAK_PUNCT + (r"|(?<!\w)(?:" + alternatives + r")(?!\w)" if alternatives else "")
        self._re = re.compile(pattern, re.IGNORECASE)
        self._non_final = frozenset(w.casefold() for w in non_final)

        self._last: Tuple[str, List[Tuple[int, int]]] = ("", [])
        self._last_breaks: Tuple[str, int, int, List[Tuple[int, int]]] = ("", 0, 0, [])

    def breaks(self, text: str, start: int = 0, end: int = None) -> List[Tuple[int, int]]:
        """Every clause break in ``text[start:end]`` as (start_char, end_char), in text order.

        The pipes that draw clauses over a whole doc (context, coverage) ask for
        the same text in turn, so the last answer is kept for the same text object.
        """
        end = len(text) if end is None else end
        text_, start_, end_, found = self._last_breaks
        if text_ is text and start_ == start and end_ == end:
            return list(found)
        if not reads_as_itself(text):
            found = [(s, e) for s, e in self._view_breaks(text) if start <= s and e <= end]
        else:
            found = [(m.start(), m.end()) for m in self._re.finditer(text, start, end)
                     if not self._abbreviation(text, m)]
        self._last_breaks = (text, start, end, found)
        return list(found)

    def break_between(self, text: str, start: int, end: int) -> bool:
        """Whether a clause break lies in ``text[start:end]``: the two sides are in different clauses."""
        gap = text[start:end]
        if gap.isspace():
            return False  # the usual gap ("CIT 30 h"): every break holds a character that is not a space
        if not reads_as_itself(text):
            return any(s < end and start < e for s, e in self._view_breaks(text))
        return any(not self._abbreviation(text, m) for m in self._re.finditer(text, start, end))

    def _view_breaks(self, text: str) -> List[Tuple[int, int]]:
        """The breaks of the canonical view of ``text``, as ranges of the original (last text kept)."""
        if self._last[0] is not text and self._last[0] != text:
            view = read_text(text)
            found = [view.original_range(m.start(), m.end()) for m in self._re.finditer(view.text)
                     if not self._abbreviation(view.text, m)]
            self._last = (text, found)
        return self._last[1]

    def _abbreviation(self, text: str, m: "re.Match") -> bool:
        return m.group() == "." and _word_before(text, m.start()).casefold() in self._non_final


def _word_before(text: str, end: int) -> str:
    start = end
    while start > 0 and end - start < 8 and (text[start - 1].isalnum() or text[start - 1] == "."):
        start -= 1
    return text[start:end]


@lru_cache(maxsize=8)
def _rule(break_words: Tuple[str, ...], non_final: Tuple[str, ...]) -> ClauseRule:
    return ClauseRule(break_words, non_final)


def clause_rule() -> ClauseRule:
    """The rule for every available language pack (built once per set of packs)."""
    from ..lang import packs
    from ..lang.cues import BREAK

    words, non_final = [], []
    for pack in packs().values():
        words.extend(pack.clause_break_words)
        words.extend(r.cue for r in pack.cues.records if r.category == BREAK)
        non_final.extend(pack.non_final_abbreviations)
    return _rule(tuple(dict.fromkeys(words)), tuple(dict.fromkeys(non_final)))

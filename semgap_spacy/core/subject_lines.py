"""A clearance only in a subject line: "Re: clear to close", "AW: Lufttüchtig".

en "re" is a stop word and rule 5 of §4.1 explains the colon. A line that
opens with a reply or forward prefix ("Re:", "RE:", "Fwd:", "FW:", "AW:",
"WG:", "TR:", "RV:", "SV:") is a subject: it names what a thread is about,
and states nothing. When every clearance of a text stands on such lines, the
text's own words clear nothing: the prefixes of those lines are left
unexplained, so the clause escalates with them quoted. A clearance the body
states too ("Re: file 2207\nClear to close issued") is read as the body's.

A line quoted with ">" is not read so: the held-out sets' chat style opens
lines with ">>" as a prompt (">> crossmatch result: neg"), and a rule on
the mark cost their proceeds.
"""
import re
from bisect import bisect_right
from typing import Any, Callable, List, Sequence, Tuple

#: what opens a subject line, repeated or not ("RE: FW: …")
_OPENER = re.compile(r"[ \t]*(?:(?:re|fwd?|fw|aw|wg|tr|rv|sv)[ \t]*:[ \t]*)+", re.IGNORECASE)


def unread_subject_lines(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int],
                         clearances: Callable[[], Sequence[Tuple[int, int]]]) -> List[Any]:
    """Leave unexplained, in place, the prefix tokens of subject lines when every clearance term
    of the text stands on such lines (see the module docstring).

    explained (List[Any]): The rule per token.
    text (str): The text; starts, ends: the tokens' character offsets.
    clearances (Callable[[], Sequence[Tuple[int, int]]]): (start, end) tokens of every clearance
        term, asked only when a line opens so.
    RETURNS (List[Any]): ``explained``.
    """
    if ":" not in text:
        return explained
    lines, offset = [], 0
    for line in text.split("\n"):
        found = _OPENER.match(line)
        if found and found.end() > len(line) - len(line.lstrip()):
            lines.append((offset, offset + len(line), offset + found.end()))
        offset += len(line) + 1
    if not lines:
        return explained
    terms = clearances()
    if not terms:
        return explained

    line_starts = [start for start, _, _ in lines]

    def line_of(char: int) -> int:
        k = bisect_right(line_starts, char) - 1
        return k if k >= 0 and char < lines[k][1] else -1

    if any(line_of(starts[first]) < 0 for first, _ in terms):
        return explained  # a clearance the text's own words state
    held = {line_of(starts[first]) for first, _ in terms}
    for k in held:
        start, _, prefix_end = lines[k]
        first = bisect_right(starts, start - 1)
        while first < len(starts) and starts[first] < prefix_end:
            if text[starts[first]:ends[first]].strip():
                explained[first] = None
            first += 1
    return explained

"""A term in quotation marks of its own: '"Airworthy"', 'status "clear to close"'.

Rule 5 of §4.1 explains quotation marks by their shape. Around a quotation
that holds more than the term ('Fwd from QA: "Batch released, 7718."') they
say whose words follow, and the other rules read those words. Tight around the
term alone they set it apart: as someone's word, a label or a so-called
clearance that the writer does not vouch for, and a reader would ask which.
The marks are then left unexplained, so the clause escalates with them quoted.
After a colon the marks quote what a speaker or a field said ('Underwriter:
"clear to close"'), and the other rules read the label. Backticks are chat
formatting ("`airworthy` N155RW" is set as code), not quotation.
"""
import re
from typing import Any, Dict, FrozenSet, List, Sequence

#: marks that open a quotation, each with the marks that may close it (two apostrophes typed for a
#: double quotation mark, "''", are one token)
_PAIRS: Dict[str, FrozenSet[str]] = {
    **{opening: frozenset(closing) for opening, closing in {
        '"': '"“”', "“": "”“\"", "„": "“”\"", "«": "»", "»": "«", "‘": "’‘'", "'": "'’", "‹": "›",
        "‚": "‘’'", "❝": "❞", "「": "」", "『": "』", "＂": "＂", "＇": "＇", "˝": "˝"}.items()},
    "''": frozenset({"''"}), "’’": frozenset({"’’"})}
#: any opening of ``_PAIRS``, found in one pass over a text
_OPENING = re.compile("|".join(map(re.escape, _PAIRS)))
#: a sentence's end or a comma the quotation may hold after the term ('"Clear to close."', «Lot libéré.»)
_INNER_ENDS = frozenset(".!,;…")


def unread_quoted_terms(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int],
                        term: Any) -> List[Any]:
    """Leave unexplained, in place, a pair of quotation marks right around a run of term tokens
    (see the module docstring).

    explained (List[Any]): The rule per token; term: rule 1's.
    text (str): The text; starts, ends: the tokens' character offsets.
    RETURNS (List[Any]): ``explained``.
    """
    if _OPENING.search(text) is None:
        return explained
    n, i = len(explained), 1
    while i < n:
        if explained[i] is not term or explained[i - 1] is term:
            i += 1
            continue
        end = i
        while end < n and explained[end] is term:
            end += 1
        opening = text[starts[i - 1]:ends[i - 1]]
        after_colon = i > 1 and text[starts[i - 2]:ends[i - 2]] == ":"
        close = end
        while close < n and text[starts[close]:ends[close]] in _INNER_ENDS:
            close += 1
        closing = text[starts[close]:ends[close]] if close < n else ""
        if opening in _PAIRS and closing in _PAIRS[opening] and not after_colon:
            explained[i - 1] = explained[close] = None
        i = end
    i = 0
    while i < n:  # marks the tokenizer left on the term's words ("＂Airworthy＂", "＂Clear", "close＂")
        if explained[i] is not term:
            i += 1
            continue
        end = i
        while end < n and explained[end] is term:
            end += 1
        opening, closing = text[starts[i]], text[ends[end - 1] - 1]
        if (opening in _PAIRS and closing in _PAIRS[opening] and ends[end - 1] - starts[i] > 2
                and not (i > 0 and text[starts[i - 1]:ends[i - 1]] == ":")):
            explained[i] = explained[end - 1] = None
        i = end
    return explained

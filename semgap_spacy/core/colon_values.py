"""The answer after a term's colon: "Clear to close: N" is a form, filled in with no.

Rule 5 of §4.1 explains an initial ("N", "J.") and punctuation ("—", "/") by
their shape, as the name of a person or a separator. After a colon that
follows a term, the same shapes are the term's value in a form or a status
line: "Clear to close: N", "CTC: —", "XM neg: N/A", "Lote liberado: N/A"
answer no, nothing or not applicable, and the clearance's words alone read
as a yes. Such a value is left unexplained, so the clause escalates with it
quoted. A value with a digit ("Clear to close: LN-20417") or a symbol
("Batch released: ✅") names a thing or a mark, and rule 5 still explains it.
"""
import unicodedata
from bisect import bisect_left
from typing import Any, List, Sequence

#: punctuation that ends the value (and its clause): "Clear to close: N, thanks"
_ENDS = frozenset(",;.!?")
_DASHES = frozenset("-–—―‒")


def _answers(token: str) -> bool:
    """Whether a token of a colon's value reads as an answer: a letter ("N", "A" of "N/A") or a
    dash standing for none."""
    return any(ch.isalpha() for ch in token) or (token != "" and all(ch in _DASHES for ch in token))


def _plain(token: str) -> bool:
    """No digit and no symbol: letters, punctuation or space only."""
    return not any(ch.isdigit() or unicodedata.category(ch)[0] == "S" for ch in token)


def unread_colon_values(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int],
                        term: Any, shape: Any) -> List[Any]:
    """Leave unexplained, in place, the value after a colon that follows a term, when rule 5
    alone explained it and it reads as an answer (see the module docstring).

    explained (List[Any]): The rule per token; term, shape: rules 1 and 5.
    text (str): The text; starts, ends: the tokens' character offsets.
    RETURNS (List[Any]): ``explained``.
    """
    n = len(explained)
    at = text.find(":")
    while at != -1:  # only the colons are looked at: most texts have none, or a clock's
        i, colon = bisect_left(starts, at), at
        at = text.find(":", at + 1)
        if not 0 < i < n - 1 or starts[i] != colon or ends[i] != colon + 1 or explained[i - 1] is not term:
            continue  # not a colon token of its own ("14:20"), or not right after a term
        j = i + 1
        while j < n and explained[j] is shape and text[starts[j]:ends[j]] not in _ENDS \
                and _plain(text[starts[j]:ends[j]]):
            j += 1
        if any(_answers(text[starts[k]:ends[k]]) for k in range(i + 1, j)):
            explained[i + 1:j] = [None] * (j - i - 1)
    return explained

"""The answer after a term's colon: "Clear to close: N" is a form, filled in with no.

Rule 5 of §4.1 explains an initial ("N", "J.") and punctuation ("—", "/") by
their shape, as the name of a person or a separator. After a colon that
follows a term, the same shapes are the term's value in a form or a status
line: "Clear to close: N", "CTC: —", "XM neg: N/A", "Lote liberado: N/A"
answer no, nothing or not applicable, and the clearance's words alone read
as a yes. Such a value is left unexplained, so the clause escalates with it
quoted. A value with a digit ("Clear to close: LN-20417") or a symbol
("Batch released: ✅") names a thing or a mark, and rule 5 still explains it.
Forms write the mark between a field and its value in other ways too: "=",
a dash, an arrow, a bar ("Clear to close = N", "Lote liberado → N"), or the
value in brackets right after the field ("Lufttüchtig (N)"); each is read
as the colon is. A word or two that rules 3 and 7 explain may stand between
the term and its mark ("Clear to close today: N", "Abschlussbereit
bestätigt: N"), and a cross given as the value is a no as a letter is
("Airworthy: ×", "Lot libéré : ⨯"): a multiplication sign is one only
between numbers.
"""
import re
import unicodedata
from typing import Any, Collection, List, Sequence

#: punctuation that ends the value (and its clause): "Clear to close: N, thanks"
_ENDS = frozenset(",;.!?")
_DASHES = frozenset("-–—―‒")
#: what stands between a field and its value in a form or a status line, a token of its own
VALUE_MARKS = frozenset({":", "=", "-", "–", "—", "→", "->", "=>", "⇒", "|"})
#: a value in brackets right after its field: "Lufttüchtig (N)"
_OPEN, _CLOSE = "(", ")"
#: the first character of each mark: a text without one holds no value
_FIRST = re.compile("[" + "".join(sorted({re.escape(mark[0]) for mark in VALUE_MARKS | {_OPEN}})) + "]")
#: crosses that are no cue anywhere (a multiplication sign: "3 × 10 ml") but answer no as a value
_CROSSES = frozenset("×⨯⊠⊗⨂")
#: the most words between a term and its value mark ("Clear to close today: N")
_BETWEEN = 2


def _answers(token: str) -> bool:
    """Whether a token of a colon's value reads as an answer: a letter ("N", "A" of "N/A"), a
    dash standing for none or a cross."""
    return (any(ch.isalpha() for ch in token) or (token != "" and all(ch in _DASHES for ch in token))
            or (token != "" and all(ch in _CROSSES for ch in token)))


def _plain(token: str) -> bool:
    """No digit and no symbol but a cross: letters, punctuation or space only."""
    return not any(ch.isdigit() or (unicodedata.category(ch)[0] == "S" and ch not in _CROSSES) for ch in token)


def _after_term(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int], i: int,
                term: Any, between: Collection[Any]) -> bool:
    """Whether the token before token i is a term's, or at most ``_BETWEEN`` words that the rules of
    ``between`` explain stand between a term and it, no punctuation among them."""
    k = i - 1
    while k >= 0 and i - 1 - k < _BETWEEN and explained[k] in between and any(
            ch.isalnum() for ch in text[starts[k]:ends[k]]):
        k -= 1
    return k >= 0 and explained[k] is term


def unread_colon_values(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int],
                        term: Any, shape: Any, between: Collection[Any] = ()) -> List[Any]:
    """Leave unexplained, in place, the value after a colon (or another value mark, or in
    brackets) that follows a term, when rule 5 alone explained it and it reads as an answer
    (see the module docstring).

    explained (List[Any]): The rule per token; term, shape: rules 1 and 5.
    text (str): The text; starts, ends: the tokens' character offsets.
    between (Collection[Any]): The rules whose words may stand between a term and its mark.
    RETURNS (List[Any]): ``explained``.
    """
    n = len(explained)
    if _FIRST.search(text) is None:  # most texts have no mark at all
        return explained
    for i in range(1, n - 1):
        before = explained[i - 1]
        if explained[i] is term or (before is not term and before not in between):
            continue
        mark = text[starts[i]:ends[i]]
        bracket = mark == _OPEN
        if not bracket and mark not in VALUE_MARKS:
            continue  # not a mark of its own right after a term ("14:20", "LN-20417")
        if before is not term and not _after_term(explained, text, starts, ends, i, term, between):
            continue
        j = i + 1
        while j < n and explained[j] is shape and text[starts[j]:ends[j]] not in _ENDS \
                and _plain(text[starts[j]:ends[j]]) and not (bracket and text[starts[j]:ends[j]] == _CLOSE):
            j += 1
        if bracket and (j >= n or text[starts[j]:ends[j]] != _CLOSE):
            continue  # a bracket that does not close on the value: no value of the field
        if mark != ":" and not bracket and j < n and j > i + 1 and starts[j] == ends[j - 1] and explained[j] is shape:
            continue  # the letters start an identifier glued to what follows ("— F-GK31"); after a colon
            # they are read as before, an answer ("Clear to close: F-GK31" escalates)
        if any(_answers(text[starts[k]:ends[k]]) for k in range(i + 1, j)):
            explained[i + 1:j] = [None] * (j - i - 1)
    return explained

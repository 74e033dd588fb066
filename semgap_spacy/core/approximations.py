"""A mark that says "about" with nothing to be about: "Airworthy ~", "Lufttüchtig ca.".

Rule 5 of §4.1 explains "~", "≈" and "±" by their shape, and spaCy counts de
"ca" among its stop words (rule 3). Before a value they belong to it ("ETA ~
14:00", "funds ≈ $412,000", "4 ± 2 °C"), and the quantity reader reads it. With
no value after them, in the clearance's sentence or alone on a line, they say
the statement holds only roughly ("Airworthy ~", "~ Airworthy", "Negative
crossmatch ≅"), which a clearance cannot (in another sentence they may part
words: "Thanks ~ team"): the mark is then left unexplained, so the clause
escalates with it quoted. The marks are ``data/trouble_symbols.json``'s ``approximation_marks``,
the words each pack's ``approximation_words``.
"""
from typing import Any, Callable, FrozenSet, List, Sequence

from ..util.textnorm import exact
from .questions import ends_statement, statement_of

#: marks that end the clause a mark of approximation stands in
_CLAUSE_MARKS = frozenset({",", ";", ":", "(", ")", "-", "–", "—"})


def unread_approximations(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int],
                          marks: FrozenSet[str], words: FrozenSet[str],
                          is_number: Callable[[str], bool], term: Any = "term") -> List[Any]:
    """Leave unexplained, in place, each mark or word of approximation that no value follows
    in its clause (see the module docstring).

    explained (List[Any]): The rule per token.
    text (str): The text; starts, ends: the tokens' character offsets.
    marks (FrozenSet[str]): The marks, as written; words: the words, with their accents
        (``textnorm.exact``: fr "ça" is no de "ca").
    is_number (Callable[[str], bool]): Whether a word is a number in words ("two", "zwei").
    term: Rule 1's mark in ``explained``: only a mark in the sentence of a term says the clearance
        holds roughly ("Clear to close. Thanks ~ team" uses it as a separator).
    RETURNS (List[Any]): ``explained``.
    """
    n = len(explained)
    for i in range(n):
        token = text[starts[i]:ends[i]]
        if explained[i] is None or not (token in marks or exact(token) in words):
            continue
        if not _term_in_sentence(explained, text, starts, ends, i, term):
            continue  # "Clear to close. Thanks ~ team": a separator in a sentence of its own, or alone
        j = i + 1
        if j < n and text[starts[j]:ends[j]] == "." and starts[j] == ends[i]:
            j += 1  # the abbreviation's dot: "ca."
        if not _value_at(text, starts, ends, j, is_number):
            explained[i] = None
    return explained


def _term_in_sentence(explained: List[Any], text: str, starts: Sequence[int], ends: Sequence[int], i: int,
                      term: Any) -> bool:
    """Whether the sentence of token i holds a term's token, or no word but token i ("Airworthy\n~":
    the mark on a line of its own)."""
    first, end = statement_of(lambda k: text[starts[k]:ends[k]], len(explained), i)
    return term in explained[first:end] or not any(
        k != i and any(ch.isalnum() for ch in text[starts[k]:ends[k]]) for k in range(first, end))


def _value_at(text: str, starts: Sequence[int], ends: Sequence[int], j: int,
              is_number: Callable[[str], bool]) -> bool:
    """Whether a value begins at token j: a word with a digit or a number in words, perhaps
    after one sign that is no clause's end ("$ 412,000", "€ 200")."""
    n = len(starts)
    if j < n:
        sign = text[starts[j]:ends[j]]
        if not any(ch.isalnum() for ch in sign) and sign not in _CLAUSE_MARKS and not ends_statement(sign):
            j += 1
    if j >= n:
        return False
    word = text[starts[j]:ends[j]]
    return any(ch.isdigit() for ch in word) or is_number(word)

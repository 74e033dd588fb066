"""A clearance in the words of a party who does not give it: hearsay.

"Borrower says we are clear to close", "Driver says negative crossmatch",
"Customer says lot released": spec §4.1 explains every word ("borrower",
"driver", "customer" and "says" are neutral), yet the one who says it cannot
clear the action, and a person would ask the one who can. Each domain's
glossary lists its parties without that authority (``vocabulary.no_authority``,
governed: taking a party off the list is a weakening); each language pack lists
its words of saying (``reporting_words``: "says", "told", "confirms", "dicen";
and ``reporting_prepositions``, which name their party after them: "by",
"per", "according", "selon", "laut"). A sentence in which a word of saying
stands within ``REACH`` words of such a party, and that holds a term,
escalates as ``hearsay``, quoting both; so does a sentence that opens
with the party as a speaker's label ("Courier: negative crossmatch"). "The lab says negative crossmatch" and
"Underwriting says clear to close" name parties with that authority and are
left alone, as is a party that says nothing ("Courier booked, xm neg"),
says something in a sentence of its own ("Courier said ETA 14:00. Negative
crossmatch.") or is a word of a known name ("Iron Gate Parts says
airworthy": a company, not the gate).
"""
from typing import Callable, FrozenSet, Iterable, List, Tuple

from .questions import ends_statement, opens_sentence

HEARSAY = "hearsay"

#: how many words may stand between a party and its word of saying ("the borrower just told me")
REACH = 3


def hearsay_spans(words: Callable[[int], str], n: int, candidates: Iterable[int], parties: FrozenSet[str],
                  saying: FrozenSet[str], is_term: Callable[[int], bool],
                  is_name: Callable[[int], bool] = lambda i: False,
                  prepositions: FrozenSet[str] = frozenset()) -> List[Tuple[int, int]]:
    """(first token, end token) of each party and its word of saying, in text order.

    words (Callable[[int], str]): A token's text, folded (lower case, no accents), by index;
        asked only around the candidates.
    n (int): The number of tokens.
    candidates (Iterable[int]): The tokens that may be a word of saying or a speaker's colon, in order.
    parties (FrozenSet[str]): The domain's parties without authority, folded.
    saying (FrozenSet[str]): The packs' words of saying, folded.
    is_term (Callable[[int], bool]): Whether a token is part of a term: only a sentence with one
        reports a clearance.
    is_name (Callable[[int], bool]): Whether a token is part of a known name, which names no party.
    prepositions (FrozenSet[str]): The words of saying among ``saying`` that name their party
        after them ("by", "per", "según"): within their own clause ("lot released by QA, customer
        notified" cites QA), or right before them as the speaker ("Borrower, by phone: …"), never
        across another word ("borrower notified by phone" cites nobody).
    RETURNS (List[Tuple[int, int]]): Token ranges from the first to the last of the two words.
    """
    out: List[Tuple[int, int]] = []
    if not parties:
        return out
    for i in candidates:
        word = words(i)
        if word == ":":
            labelled = i > 0 and words(i - 1) in parties and not is_name(i - 1) and opens_sentence(words, i - 1)
            party = i - 1 if labelled else None
        elif word in prepositions:
            party = _party_near(words, n, i, parties, is_name, before=0, past_commas=False)
        elif word in saying:
            party = _party_near(words, n, i, parties, is_name)
        else:
            continue
        if party is not None and _sentence_has_term(words, n, i, is_term):
            first, last = min(i, party), max(i, party)
            if not out or first >= out[-1][1]:
                out.append((first, last + 1))
    return out


def _sentence_has_term(words: Callable[[int], str], n: int, i: int, is_term: Callable[[int], bool]) -> bool:
    """Whether the sentence of token i holds a token of a term."""
    j = i
    while j > 0 and not ends_statement(words(j - 1)):
        j -= 1
    while j < n and (j <= i or not ends_statement(words(j))):
        if is_term(j):
            return True
        j += 1
    return False


def _party_near(words: Callable[[int], str], n: int, i: int, parties: FrozenSet[str],
                is_name: Callable[[int], bool], before: int = REACH, past_commas: bool = True):
    """The nearest party in the sentence of token i, within ``before`` words before it (first),
    else within ``REACH`` words after it (before a comma unless ``past_commas``); or None. Marks
    are no words: "Borrower, by phone" has none between the party and "by"."""
    for step, reach in ((-1, before), (1, REACH)):
        j, seen = i + step, 0
        while 0 <= j < n and seen <= reach:
            word = words(j)
            if ends_statement(word) or (word == "," and not past_commas and step == 1):
                break
            if word in parties and not is_name(j):
                return j
            if any(ch.isalnum() for ch in word):
                seen += 1
            j += step
    return None

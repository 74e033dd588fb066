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
with the party as a speaker's label ("Courier: negative crossmatch", "Borrower
email: clear to close"). A party that says something else in words of its own
("xm neg, driver reported ETA 14:20") reports no clearance. "The lab says negative crossmatch" and
"Underwriting says clear to close" name parties with that authority and are
left alone, as is a party that says nothing ("Courier booked, xm neg"),
says something in a sentence of its own ("Courier said ETA 14:00. Negative
crossmatch.") or is a word of a known name ("Iron Gate Parts says
airworthy": a company, not the gate).
"""
from typing import Callable, FrozenSet, Iterable, List, Tuple

from .questions import ends_statement, opens_sentence, previous_word

HEARSAY = "hearsay"

#: how many words may stand between a party and its word of saying ("the borrower just told me")
REACH = 3


def hearsay_spans(words: Callable[[int], str], n: int, candidates: Iterable[int], parties: FrozenSet[str],
                  saying: FrozenSet[str], is_term: Callable[[int], bool],
                  is_name: Callable[[int], bool] = lambda i: False,
                  prepositions: FrozenSet[str] = frozenset(),
                  channels: FrozenSet[str] = frozenset()) -> List[Tuple[int, int]]:
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
    channels (FrozenSet[str]): Words that may stand between a speaker's label and its colon, the
        way the party spoke ("Borrower email: clear to close", "Crew message: airworthy").
    RETURNS (List[Tuple[int, int]]): Token ranges from the first to the last of the two words.
    """
    out: List[Tuple[int, int]] = []
    if not parties:
        return out
    for i in candidates:
        word = words(i)
        if word == ":":
            label = i - 2 if i > 1 and words(i - 1) in channels else i - 1
            labelled = label >= 0 and words(label) in parties and not is_name(label) and opens_sentence(words, label)
            party = label if labelled else None
        elif word in prepositions:
            party = _party_near(words, n, i, parties, is_name, is_term, preposition=True)
        elif word in saying:
            party = _party_near(words, n, i, parties, is_name, is_term)
            if party is not None and party < i and _says_something_else(words, n, i, is_term):
                party = None
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


def _says_something_else(words: Callable[[int], str], n: int, i: int, is_term: Callable[[int], bool]) -> bool:
    """Whether the verb of saying at i has words of its own after it, in its clause, and no term
    among them: "driver reported ETA 14:20", "borrower reports docs signed" report something
    else than the clearance; "Driver says xm neg" and "xm neg, the driver says" report it."""
    said = False
    for j in range(i + 1, n):
        word = words(j)
        if ends_statement(word) or word == ",":
            break
        if is_term(j):
            return False
        said = said or any(ch.isalnum() for ch in word)
    return said


def _party_near(words: Callable[[int], str], n: int, i: int, parties: FrozenSet[str],
                is_name: Callable[[int], bool], is_term: Callable[[int], bool], preposition: bool = False):
    """The nearest party within ``REACH`` words of token i in its sentence (before it first), or
    None. After a verb only when no word but a term's stands right before it: a word there is
    its subject ("Lab reports xm neg, courier booked"); "xm neg, says the driver" and "xm neg
    says driver" name the driver after it.
    A preposition's party stands after it, before a comma, or right before it with marks only
    between, as the speaker ("Borrower, by phone")."""
    if preposition:
        j = i - 1
        while j >= 0 and not any(ch.isalnum() for ch in words(j)) and not ends_statement(words(j)):
            j -= 1
        if j >= 0 and words(j) in parties and not is_name(j):
            return j
    before = previous_word(words, i - 1)
    subject = before >= 0 and any(ch.isalnum() for ch in words(before)) and not is_term(before)
    for step in ((1,) if preposition else (-1,) if subject else (-1, 1)):
        j, seen = i + step, 0
        while 0 <= j < n and seen <= REACH:
            word = words(j)
            if ends_statement(word) or (preposition and word == ","):
                break
            if word in parties and not is_name(j):
                return j
            if word.strip():
                seen += 1
            j += step
    return None

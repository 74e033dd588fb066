"""A question asked by its word order, with no question mark.

Chat drops the "?": "is it clear to close", "are we airworthy yet", "is
512QX released to service already", "ist die Akte 4471 abschlussbereit".
Every word is explained (stop words, the clearance's own), so without this
the clearance reads as stated. A sentence that opens with a verb of the
pack's ``question_openers`` followed by a subject (a word of
``question_subjects``, or an identifier) asks whether something holds; it
escalates as ``question_word_order``, as a sentence with "?" is hedged.
A verb before anything else opens a statement whose subject was dropped
("Has been released to service", "Ist freigegeben") and is left alone, and
so is a sentence that ends in "?" (the question mark already hedges it).

A sentence here starts at the text's start, after ".", "!", "?", "…", ";",
a line break or a speaker's colon ("[09:52] Ben: is it clear to close");
tokens before its first word (a time stamp, a bracket) are skipped.
"""
import re
from typing import FrozenSet, List, Sequence, Tuple

QUESTION_WORD_ORDER = "question_word_order"

_STARTS_SENTENCE = frozenset({".", "!", "?", "…", "...", ";", ":", "¶"})


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def opener_pattern(openers: FrozenSet[str]) -> "re.Pattern":
    """A search for any opener as a whole word, to skip texts without one."""
    return re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(sorted(map(re.escape, openers), key=len, reverse=True)),
                      re.IGNORECASE)


def word_order_questions(text: str, starts: Sequence[int], ends: Sequence[int], folded: Sequence[str],
                         openers: FrozenSet[str], subjects: FrozenSet[str]) -> List[Tuple[int, int]]:
    """(first token, end token) of each sentence asked by its word order.

    text (str): The text; starts, ends: the tokens' character offsets.
    folded (Sequence[str]): Each token's text, folded (lower case, no accents).
    openers, subjects (FrozenSet[str]): The packs' question verbs and subjects, folded.
    RETURNS (List[Tuple[int, int]]): Token ranges, the closing punctuation left out.
    """
    out: List[Tuple[int, int]] = []
    n = len(folded)
    fresh, asked = True, None  # at a sentence start; the opener of the sentence being read
    for i, word in enumerate(folded):
        if word in _STARTS_SENTENCE or "\n" in word:
            if asked is not None and word != "?":
                out.append((asked, i))
            fresh, asked = True, None
            continue
        if not fresh or not any(ch.isalpha() for ch in word):
            continue  # inside a sentence, or before its first word ("[09:52]")
        fresh = False
        if word in openers and i + 1 < n and (folded[i + 1] in subjects or _has_digit(folded[i + 1])):
            asked = i
    if asked is not None:
        out.append((asked, n))
    return out

"""A question asked by its word order, with no question mark.

Chat drops the "?": "is it clear to close", "are we airworthy yet", "is
512QX released to service already", "ist die Akte 4471 abschlussbereit".
Every word is explained (stop words, the clearance's own), so without this
the clearance reads as stated. A sentence that opens with a verb of the
pack's ``question_openers`` followed by a subject (a word of
``question_subjects``, an identifier, or a word that names a thing: a
neutral word or a known name, "is aircraft airworthy") asks whether something holds; it
escalates as ``question_word_order``, as a sentence with "?" is hedged.
A verb before anything else opens a statement whose subject was dropped
("Has been released to service", "Ist freigegeben") and is left alone, as
is a wish or an order (the pack's ``question_wishes``: "Have a good
flight", "Do a walkaround first"), and
so is a sentence that ends in "?" (the question mark already hedges it).

A tag at the end of a sentence asks too (the pack's ``question_tags``:
"Clear to close, right", "Kreuzprobe negativ, oder", "Aeronavegable,
verdad", "Apte au vol, c'est ça"): after a comma, with nothing but the
sentence's end after it, and no "?" (which hedges already).

A sentence here starts at the text's start, after ".", "!", "?", "…", ";",
a line break or a speaker's colon ("[09:52] Ben: is it clear to close");
tokens before its first word (a time stamp, a bracket, an @mention, a word
of the pack's ``question_preamble``: "Hi is it clear to close", "Thanks,
are we airworthy") are skipped, and so are words of ``question_addressees``
after a greeting or before a comma ("Hi team is it …", "Team, is it …";
"Team is ready" states). A comma alone starts no question: "Clear to close,
will update the borrower" drops its subject.
"""
from typing import Callable, FrozenSet, Iterable, List, Tuple

QUESTION_WORD_ORDER = "question_word_order"

#: what ends a statement: a sentence's end mark or a semicolon (a line break too, ``ends_statement``)
ENDS_STATEMENT = frozenset({".", "!", "?", "…", "...", ";"})
#: after these a sentence starts: a statement's end, a speaker's colon ("Ben: is it …"), a pilcrow
_STARTS_SENTENCE = ENDS_STATEMENT | {":", "¶"}
#: what closes a stamp or a number of a list before a sentence ("[09:52]", "1)")
_CLOSES_STAMP = frozenset({"]", ")"})


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def word_order_questions(words: Callable[[int], str], n: int, candidates: Iterable[int],
                         openers: FrozenSet[str], subjects: FrozenSet[str],
                         wishes: FrozenSet[Tuple[str, str]] = frozenset(),
                         names_a_thing: Callable[[int], bool] = lambda i: False,
                         greetings: FrozenSet[str] = frozenset(),
                         addressees: FrozenSet[str] = frozenset()) -> List[Tuple[int, int]]:
    """(first token, end token) of each sentence asked by its word order.

    words (Callable[[int], str]): A token's text, folded (lower case, no accents), by index;
        asked only around the candidates, so a text pays for the words it has to read.
    n (int): The number of tokens.
    candidates (Iterable[int]): The tokens that may be an opener, in order (a text without one
        asks nothing).
    openers, subjects (FrozenSet[str]): The packs' question verbs and subjects, folded.
    wishes (FrozenSet[Tuple[str, str]]): Opener and subject pairs that begin a wish or an order
        ("have a": "Have a good flight"), folded: no question.
    names_a_thing (Callable[[int], bool]): Whether a token names a thing, by index: a subject too
        ("is aircraft airworthy", "ist Akte abschlussbereit").
    greetings, addressees (FrozenSet[str]): Words that may stand before the verb (``opens_sentence``).
    RETURNS (List[Tuple[int, int]]): Token ranges in text order, the closing punctuation left out.
    """
    out: List[Tuple[int, int]] = []
    for i in candidates:
        if i + 1 >= n or words(i) not in openers or (out and i < out[-1][1]):
            continue
        j = next_word(words, n, i + 1)  # "Is  lot released": spaces are no word
        if j >= n:
            continue
        after = words(j)
        subject = after in subjects or _has_digit(after) or names_a_thing(j)
        if not subject or (words(i), after) in wishes:
            continue
        if not opens_sentence(words, i, greetings, addressees):
            continue
        end = j + 1
        while end < n and not _starts_sentence(words(end)):
            end += 1
        if end < n and words(end) == "?":
            continue  # the question mark hedges it already
        out.append((i, end))
    return out


def tag_questions(words: Callable[[int], str], n: int, candidates: Iterable[int],
                  tags: FrozenSet[Tuple[str, ...]],
                  after_term: Callable[[int], bool] = lambda i: False) -> List[Tuple[int, int]]:
    """(first token, end token) of each tag that ends a sentence after a comma ("…, right"), or
    right after a clearance's last word, as chat writes it ("Lufttüchtig oder", "Aeronavegable
    verdad"); elsewhere without a comma ("…, right side", "check the right brake") it is a word.

    words (Callable[[int], str]): A token's text, folded, by index; asked only around the candidates.
    n (int): The number of tokens.
    candidates (Iterable[int]): The tokens that may end a tag (its last word), in order.
    tags (FrozenSet[Tuple[str, ...]]): The packs' question tags, folded, as word sequences.
    after_term (Callable[[int], bool]): Whether a token is a word of a clearance term.
    RETURNS (List[Tuple[int, int]]): The tags' token ranges, in text order.
    """
    out: List[Tuple[int, int]] = []
    longest = max(map(len, tags), default=0)
    for i in candidates:
        if i + 1 < n and not _starts_sentence(words(i + 1)):
            continue  # the tag does not end its sentence ("…, right side")
        if i + 1 < n and words(i + 1) == "?":
            continue  # the question mark hedges it already
        for k in range(longest, 0, -1):
            first = i - k + 1
            if (first >= 1 and (words(first - 1) == "," or after_term(first - 1))
                    and tuple(words(j) for j in range(first, i + 1)) in tags):
                out.append((first, i + 1))
                break
    return out


def final_questions(words: Callable[[int], str], n: int, candidates: Iterable[int], ends: FrozenSet[str],
                    after_term: Callable[[int], bool]) -> List[Tuple[int, int]]:
    """(first token, end token) of each word of ``ends`` that ends a sentence right after a
    clearance ("airworthy already", "clear to close, already!"): it asks or urges; elsewhere
    ("borrower already notified") it says nothing of the clearance.

    candidates (Iterable[int]): The tokens that may be such a word, in order.
    after_term (Callable[[int], bool]): Whether a token is a word of a clearance term.
    """
    out: List[Tuple[int, int]] = []
    for i in candidates:
        if words(i) not in ends or (i + 1 < n and not _starts_sentence(words(i + 1))):
            continue
        if i + 1 < n and words(i + 1) == "?":
            continue  # the question mark hedges it already
        k = i - 1
        while k >= 0 and not any(ch.isalnum() for ch in words(k)) and not _starts_sentence(words(k)):
            k -= 1  # a space or a comma between
        if k >= 0 and after_term(k):
            out.append((i, i + 1))
    return out


def next_word(words: Callable[[int], str], n: int, i: int) -> int:
    """The first token from i on that is no run of spaces (spaCy keeps a second space as a token)."""
    while i < n and not words(i).strip():
        i += 1
    return i


def previous_word(words: Callable[[int], str], i: int) -> int:
    """The last token from i back that is no run of spaces; -1 when there is none."""
    while i >= 0 and not words(i).strip():
        i -= 1
    return i


def opens_sentence(words: Callable[[int], str], i: int, greetings: FrozenSet[str] = frozenset(),
               addressees: FrozenSet[str] = frozenset(), bare_numbers: bool = True) -> bool:
    """Whether token i is the first word of its sentence ("[09:52] Ben: is it ..." starts after
    the colon), behind marks, a stamp, a bullet or an @mention, and, for a question's verb,
    behind a greeting ("Hi is it ...", "Thanks, are we ...", "@ops is aircraft ...") and those it
    greets ("Hi team is it ...", "Morning all, are we ...", "Team, is it ...": after a greeting
    or before a comma; "Team is ready" states).

    greetings, addressees (FrozenSet[str]): The packs' ``question_preamble`` and
        ``question_addressees``, folded.
    bare_numbers (bool): Whether a bare number may stand before it too, as a stamp; when not,
        only one closed by a bracket may ("[09:52]", "1)"), since "2207 is clear to close" may
        name what is clear.
    """
    k = previous_word(words, i - 1)
    comma = k >= 0 and words(k) == ","
    before: List[str] = []
    while k >= 0 and not _starts_sentence(words(k)):
        word = words(k)
        if any(ch.isalpha() for ch in word):
            if word not in greetings and word not in addressees and not word.startswith("@"):
                return False
            before.append(word)
        elif any(ch.isdigit() for ch in word) and not bare_numbers and words(k + 1) not in _CLOSES_STAMP:
            return False
        k -= 1
    if any(word in addressees for word in before):
        return comma or before[-1] in greetings
    return True


def ends_statement(word: str) -> bool:
    """Whether a token ends a statement: an end mark, a semicolon or a line break."""
    return word in ENDS_STATEMENT or "\n" in word


def statement_of(words: Callable[[int], str], n: int, i: int) -> Tuple[int, int]:
    """(first token, end token) of the statement of token i, its end marks and line breaks left out."""
    first = i
    while first > 0 and not ends_statement(words(first - 1)):
        first -= 1
    end = i
    while end < n and (end <= i or not ends_statement(words(end))):
        end += 1
    return first, end


def _starts_sentence(word: str) -> bool:
    """Whether a sentence starts after this token: an end mark, a speaker's colon or a line break."""
    return word in _STARTS_SENTENCE or "\n" in word

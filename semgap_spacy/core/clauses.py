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

A pipe that has a doc's tokens need not run the rule over every character:
``break_starts`` says, once per distinct word, where in it a break may begin,
and ``breaks_at`` tries the rule only there, with the same breaks as ``breaks``.

Two more pieces of the same rule serve cue scope:

- **Lists** (spec §4): items separated by commas whose last item follows a
  conjunction ("no title defect, cloud on title or appraisal gap") are one
  list, and a cue before the list reaches every item; without such a
  conjunction the comma ends the scope. ``segment`` numbers the clauses of a
  row of tokens and ``list_end`` says how far a cue's clause extends.
- **Section headers** ("DIAGNOSIS:", "Allergies:"), which end a scope in
  clinical notes (``ClauseRule.headers``). The spec reads a colon as no
  break ("crossmatch result: positive"), so only a cue profile that asks for
  them uses them.
"""
import re
from bisect import bisect_left
from functools import lru_cache
from typing import Dict, FrozenSet, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

from ..util.compiled import compiled_module
from .textview import reads_as_itself, read_text

# the compiled twins of ``breaks_by_token`` and ``segment`` (``core/_scope_loops.pyx``), or None
_compiled = compiled_module("semgap_spacy.core._scope_loops")[0]

_BREAK_PUNCT = (
    r"(?<!\d),|,(?!\d)"            # a comma, except inside a number ("25,5")
    r"|;"
    r"|[—―]|--"
    r"|(?<=\s)[-–−](?=\s)"         # a spaced hyphen or dash (not "2-8", not "-3")
    r"|[.!?…](?=\s|$)"             # sentence end (a decimal point has no space after it)
)
#: the characters a break of ``_BREAK_PUNCT`` starts with
_PUNCT_CHARS = frozenset(",;—―-–−.!?…")
#: break characters whose break, alone as a token, is that token and no more: no break word starts
#: with one, and none runs on into the next token as "--" may
_ALONE = frozenset(",;.!?…")
_WORD_CHAR = re.compile(r"\w")
_ASCII_DIGITS = frozenset("0123456789")
_ASCII_DIGIT = re.compile(r"[0-9]")
#: a run of letters, digits (``str.isalnum``: a word character but "_") and full stops at the end
#: (the definition ``_word_before`` walks, checked against it by the tests)
_RUN_END = re.compile(r"(?:[^\W_]|\.)*\Z")

# A section header ends in a colon followed by a space; the words before it are read
# back from the colon ("14:00" has none). These two patterns say what a header is;
# ``_header_colons`` and ``_last_word`` find the same matches faster, and the tests check
# them against the patterns.
_HEADER_COLON = re.compile(r"(?:(?<=[^\W\d_])|(?<=\)))[ \t]*:(?=\s|$)")
_HEADER_WORDS = re.compile(r"(?:^|(?<=\s))([^\W\d_][^\W\d_/&'-]*(?:\([^\W\d_]{1,3}\))?)[ \t]*$")
#: one word of a header, whole: letters, and an abbreviation in brackets ("Plan(s)")
_HEADER_WORD = re.compile(r"[^\W\d_]+(?:\([^\W\d_]{1,3}\))?\Z")


def _header_colons(text: str) -> Iterator[int]:
    """Where each match of ``_HEADER_COLON`` starts, in order, found from the colons.

    The pattern opens with look-behinds, so ``finditer`` tries it at every
    character of the text; a colon is rare, and ``str.find`` jumps to it. A
    match is the spaces and tabs right before a colon that a space (or the
    end) follows, and starts after a letter or ")": it cannot start inside
    the spaces, whose look-behind sees a space, nor span two colons.
    """
    q = text.find(":")
    while q >= 0:
        nxt = q + 1
        if nxt == len(text) or text[nxt].isspace():
            start = q
            while start > 0 and text[start - 1] in " \t":
                start -= 1
            if start > 0:
                before = text[start - 1]
                if before == ")" or (before.isalnum() and not before.isdecimal()):
                    yield start
        q = text.find(":", nxt)


def _last_word(text: str, end: int) -> Optional[Tuple[int, str]]:
    """(start, text) of the header word that ends at ``end``, or None: what
    ``_HEADER_WORDS.search(text, pos, end)`` finds, without a search.

    Spaces and tabs (and one newline, where ``$`` matches too) before ``end``
    are left aside; a match must then start the last run of characters other
    than whitespace, since it starts the text or follows a space, and must
    take the whole run, since only spaces and tabs may follow it. So a header
    of a long text is read in the time of its words, not of the text before it.
    """
    i = end - 1 if text.endswith("\n", 0, end) else end
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    run_end = i
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    word = text[i:run_end]
    return (i, word) if word and _HEADER_WORD.match(word) else None


def _header_start(text: str, colon: int) -> int:
    """Where the header that ends at ``colon`` starts, or -1: up to four words, all in
    capitals ("POSTOPERATIVE DIAGNOSIS") or one capitalised word and lower-case ones
    ("Past medical history"), starting the text or after a space."""
    start, words, end = -1, [], colon
    while len(words) < 4:
        found = _last_word(text, end)
        if found is None:
            break
        word_start, word = found
        words.insert(0, word)
        word = words[0].split("(")[0]
        capitals = all(w.split("(")[0].isupper() for w in words)
        titled = word[:1].isupper() and (len(word) == 1 or word[1:].islower()) and all(
            w.split("(")[0].islower() for w in words[1:])
        if capitals or titled:
            start = word_start
        end = word_start
        if end == 0 or text[end - 1] not in " \t":
            break
    return start


class ClauseRule:
    """The clause breaks of a text, for a given set of break words and abbreviations."""

    def __init__(self, break_words: Iterable[str], non_final: Iterable[str]):
        """break_words (Iterable[str]): Words that end a clause, matched whole and case-insensitively.
        non_final (Iterable[str]): Abbreviations whose full stop ends no clause, lower case.
        """
        words = sorted({w for w in break_words if w.strip()}, key=len, reverse=True)
        alternatives = "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in words)
        words_pattern = r"(?<!\w)(?:" + alternatives + r")(?!\w)" if alternatives else ""
        self._re = re.compile(_BREAK_PUNCT + ("|" + words_pattern if words_pattern else ""), re.IGNORECASE)
        # the two halves apart, for ``token_breaks``
        self._punct = re.compile(_BREAK_PUNCT)
        self._words = re.compile(words_pattern, re.IGNORECASE) if words_pattern else None
        self._words_at = _words_by_first_char(words)
        self._ascii_words = _ascii_words_by_first_char(words)
        self._ascii_alike = _ascii_alike(words)
        self._first_words = frozenset(w.split()[0].lower() for w in words)
        # A break word's first part, or a beginning of it that runs to the end of the token
        # (the rest may follow in the next token), matched as the rule matches it.
        firsts = {w.split()[0] for w in words}
        beginnings = sorted({re.escape(f[:k]) + r"\Z" for f in firsts for k in range(1, len(f))})
        self._word_start = (re.compile("|".join([re.escape(f) for f in sorted(firsts)] + beginnings), re.IGNORECASE)
                            if firsts else None)
        self._non_final = frozenset(w.casefold() for w in non_final)
        # the last character of each: the one before the full stop, casefolded, ends the word there
        self._non_final_ends = frozenset(w[-1] for w in self._non_final if w)

        # whether a break word holds a digit: if none does, no break runs across one (``ends_in_break``)
        self._digit_in_words = any(ch in _ASCII_DIGITS for w in words for ch in w)

        self._last: Tuple[str, List[Tuple[int, int]]] = ("", [])
        self._last_breaks: Tuple[str, int, int, List[Tuple[int, int]]] = ("", 0, 0, [])
        self._last_same: Tuple[str, bool] = ("", True)
        self._last_digits: Tuple[str, List[int]] = ("", [])

    def breaks(self, text: str, start: int = 0, end: int = None) -> List[Tuple[int, int]]:
        """Every clause break in ``text[start:end]`` as (start_char, end_char), in text order.

        The pipes that draw clauses over a whole doc (context, coverage) ask for
        the same text in turn, so the last answer is kept for the same text object.
        """
        end = len(text) if end is None else end
        text_, start_, end_, found = self._last_breaks
        if text_ is text and start_ == start and end_ == end:
            return list(found)
        if not same_breaks(text):
            found = [(s, e) for s, e in self._view_breaks(text) if start <= s and e <= end]
        else:
            found = [(m.start(), m.end()) for m in self._own_breaks(text, start, end)]
        self._last_breaks = (text, start, end, found)
        return list(found)

    def starts_in_break(self, text: str, start: int) -> bool:
        """Whether ``text[start:]`` holds only whitespace before its first clause break (all of
        it, when it has none), as ``breaks(text[start:])`` reads it.

        The breaks are read up to the first only: asked after many places of one long text,
        reading every break of the rest each time would make the asking quadratic.
        """
        rest = text[start:]
        if not same_breaks(rest):
            cut = self.breaks(rest)
            return not rest[:cut[0][0] if cut else len(rest)].strip()
        first = next(self._own_breaks(rest), None)
        return not rest[:first.start() if first else len(rest)].strip()

    def ends_in_break(self, text: str, end: int) -> bool:
        """Whether ``text[:end]`` holds only whitespace after its last clause break (all of it,
        when it has none), as ``breaks(text[:end])`` reads it.

        Asked before many places of one long text, reading every break before each would make
        the asking quadratic. No break holds a digit (when no break word does), so none runs
        across the last digit before ``end``, and the breaks after it are the ones a reading
        from the start finds there: an ASCII text (whose breaks are its own) is read from
        that digit on, up to ``end`` (``endpos`` reads it as the text cut there); a text with
        no digit there has no break after one, and is read from the start.
        """
        if not text.isascii() or self._digit_in_words:
            head = text[:end]
            cut = self.breaks(head)
            return not head[cut[-1][1] if cut else 0:].strip()
        last, digits = self._last_digits  # one read of the pair: another thread may replace it
        if last is not text:
            digits = [m.start() for m in _ASCII_DIGIT.finditer(text)]
            self._last_digits = (text, digits)
        k = bisect_left(digits, end)
        after_digit = digits[k - 1] + 1 if k else 0
        last = None
        for last in self._own_breaks(text, after_digit, end):
            pass
        if last is not None:
            return not text[last.end():end].strip()
        # a digit before ``end`` and no break after it: the digit stands after the last break
        return after_digit == 0 and not text[:end].strip()

    def break_starts(self, word: str) -> Tuple[int, ...]:
        """Where in a token with this text a clause break may begin, whatever stands around it.

        A break begins with a break punctuation character or with a break word
        at the start of a word; what the rest of the text says decides whether
        it is one (``breaks_at``). This depends on the token's text alone, so a
        pipe can work it out once per word and look it up per token.

        word (str): A token's text.
        RETURNS (Tuple[int, ...]): Offsets into ``word``, in order; empty for most words.
        """
        found = []
        word_start = self._word_start
        for q, ch in enumerate(word):
            if ch in _PUNCT_CHARS:
                found.append(q)
            elif (word_start is not None and (q == 0 or _WORD_CHAR.match(word, q - 1) is None)
                  and word_start.match(word, q) is not None):
                found.append(q)
        return tuple(found)

    def breaks_at(self, text: str, starts: Sequence[int], break_starts: Sequence[Tuple[int, ...]]
                  ) -> List[Tuple[int, int]]:
        """``breaks(text)``, read only where a break may begin: the same breaks, without
        running the rule over every character of the text.

        text (str): The text of a row of tokens (a doc's text).
        starts (Sequence[int]): Character offset of every token, in order.
        break_starts (Sequence[Tuple[int, ...]]): ``break_starts`` of every token's text.
        RETURNS (List[Tuple[int, int]]): Every clause break as (start_char, end_char), in text order.
        """
        if not same_breaks(text):
            return self.breaks(text)  # the breaks of the canonical view
        found: List[Tuple[int, int]] = []
        match, done = self._re.match, 0
        for start, offsets in zip(starts, break_starts):
            for q in offsets:
                p = start + q
                if p < done:
                    continue  # inside the last break, as a scan over the whole text reads it
                m = match(text, p)
                if m is not None:
                    done = m.end()
                    if not self._abbreviation(text, m):
                        found.append((p, done))
        return found

    def token_candidate(self, text: str) -> bool:
        """Whether a token with this text can hold a break: a break punctuation character,
        or the first word of a break word (case-insensitive)."""
        return text.lower() in self._first_words or not _PUNCT_CHARS.isdisjoint(text)

    def token_breaks(self, text: str, starts: Sequence[int], ends: Sequence[int],
                     candidates: Iterable[int]) -> List[Tuple[int, bool]]:
        """The tokens of ``text`` that hold a break, as (token index, whether the break is a comma).

        The same rule as ``breaks``, checked only where a token can hold a break
        (``token_candidate``): each break punctuation character of such a token
        is matched in place, and a break word where such a token starts, so a
        break word runs over the tokens it covers ("sin embargo"). A break word
        glued inside a longer token ("x.but") is not seen, which only widens a
        cue's reach. Needs a text whose breaks are its own (``same_breaks``).

        text (str): The text.
        starts, ends (Sequence[int]): Character offsets of every token.
        candidates (Iterable[int]): Indices of the tokens that can hold a break.
        RETURNS (List[Tuple[int, bool]]): Break tokens, in order; a token is a comma break
            when every break that covers it is a comma.
        """
        found: Dict[int, bool] = {}
        for marks in self.breaks_by_token(text, starts, ends, candidates).values():
            for i, comma in marks:
                found[i] = found.get(i, True) and comma
        return sorted(found.items())

    def breaks_by_token(self, text: str, starts: Sequence[int], ends: Sequence[int],
                        candidates: Iterable[int]) -> Dict[int, List[Tuple[int, bool]]]:
        """``token_breaks`` for each candidate token apart: the break tokens its own breaks
        cover (itself, and the next ones a break word or "--" runs over), in order.

        RETURNS (Dict[int, List[Tuple[int, bool]]]): For each candidate, its break tokens.
        """
        if _compiled is not None:
            return _compiled.breaks_by_token(self, text, starts, ends, candidates)
        return self._breaks_by_token(text, starts, ends, candidates)

    def _breaks_by_token(self, text: str, starts: Sequence[int], ends: Sequence[int],
                         candidates: Iterable[int]) -> Dict[int, List[Tuple[int, bool]]]:
        """``breaks_by_token`` in Python (the compiled one's twin)."""
        out: Dict[int, List[Tuple[int, bool]]] = {}
        punct, words, first_words, n = self._punct, self._words, self._first_words, len(starts)
        for c in candidates:
            start, end = starts[c], ends[c]
            if end - start == 1 and text[start] in _ALONE:  # a comma or a full stop as a token
                m = punct.match(text, start)
                out[c] = [] if m is None or self._abbreviation(text, m) else [(c, m.group() == ",")]
                continue
            found: Dict[int, bool] = {}
            for p in range(start, end):
                if text[p] in _PUNCT_CHARS:
                    m = punct.match(text, p)
                    if m is not None and not self._abbreviation(text, m):
                        comma, match_end, i = m.group() == ",", m.end(), c
                        while i < n and starts[i] < match_end:  # "--" may run over the next tokens
                            found[i] = found.get(i, True) and comma
                            i += 1
            if words is not None and text[start:end].lower() in first_words:
                m = self._word_match(text, start)
                if m is not None:
                    match_end, i = m.end(), c
                    while i < n and starts[i] < match_end:  # "sin embargo" runs over the next tokens
                        found[i] = False
                        i += 1
            out[c] = sorted(found.items())
        return out

    def _word_match(self, text: str, start: int) -> Optional["re.Match"]:
        """``self._words.match(text, start)``, tried with only the break words that can start with
        the character there (``_words_by_first_char``)."""
        ch = text[start:start + 1]
        if not ch.isascii():
            return self._words.match(text, start)
        pattern = self._words_at.get(ch.lower(), self._words_at[""])
        return pattern.match(text, start) if pattern is not None else None

    def break_between(self, text: str, start: int, end: int) -> bool:
        """Whether a clause break lies in ``text[start:end]``: the two sides are in different clauses."""
        gap = text[start:end]
        if gap.isspace():
            return False  # the usual gap ("CIT 30 h"): every break holds a character that is not a space
        if not self._same_breaks(text):
            return any(s < end and start < e for s, e in self._view_breaks(text))
        return next(self._own_breaks(text, start, end), None) is not None

    def _same_breaks(self, text: str) -> bool:
        """``same_breaks`` of the last text asked about, kept: a pipe asks about many gaps of one
        doc's text, and the answer reads the whole text, so a long doc would read it once a gap."""
        if self._last_same[0] is not text:
            self._last_same = (text, same_breaks(text))
        return self._last_same[1]

    def _view_breaks(self, text: str) -> List[Tuple[int, int]]:
        """The breaks of the canonical view of ``text``, as ranges of the original (last text kept)."""
        if self._last[0] is not text and self._last[0] != text:
            view = read_text(text)
            found = [view.original_range(m.start(), m.end()) for m in self._own_breaks(view.text)]
            self._last = (text, found)
        return self._last[1]

    @staticmethod
    def headers(text: str) -> List[int]:
        """Where each section header of ``text`` starts (character offsets, in order).

        A header is up to four words and a colon followed by a space: in capitals
        ("CHEST:") or a capitalised word and lower-case ones ("Allergies:",
        "Past medical history:"), at the start of the text or after a space.
        Clinical text that lost its line breaks still shows its headers so.
        """
        if _compiled is not None:
            return _compiled.headers(text)
        found = (_header_start(text, colon) for colon in _header_colons(text))
        return sorted({start for start in found if start >= 0})

    def _own_breaks(self, text: str, start: int = 0, end: Optional[int] = None) -> Iterator["re.Match"]:
        """The rule's matches in ``text`` from ``start`` to ``end`` (``endpos``: read as the text
        cut there), but for the full stop of an abbreviation, which breaks no clause."""
        for m in self._re.finditer(text, start, len(text) if end is None else end):
            if not self._abbreviation(text, m):
                yield m

    def _abbreviation(self, text: str, m: "re.Match") -> bool:
        return m.group() == "." and self._abbreviation_at(text, m.start())

    def _abbreviation_at(self, text: str, stop: int) -> bool:
        """Whether the full stop at ``stop`` ends an abbreviation ("approx."), which breaks no clause."""
        if stop and text[stop - 1].casefold()[-1] not in self._non_final_ends and "" not in self._non_final:
            return False
        return _word_before(text, stop).casefold() in self._non_final


def _words_by_first_char(words: Sequence[str]) -> Dict[str, Optional["re.Pattern"]]:
    """The break-word pattern cut to the words that can match at an ASCII character, keyed by the
    character in lower case ("" for a character no word starts with), None for no word.

    A word matches there only if its first character matches it case-insensitively: for ASCII,
    a word starting with the same letter in either case, or with a character outside ASCII
    (some, such as the Kelvin sign, match an ASCII letter). Each pattern keeps the order of the
    whole one, so the word it matches is the one the whole pattern matches. A text character
    outside ASCII is matched with the whole pattern.
    """
    def pattern(kept):
        if not kept:
            return None
        alternatives = "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in kept)
        return re.compile(r"(?<!\w)(?:" + alternatives + r")(?!\w)", re.IGNORECASE)

    first = {w: w.split()[0][0] for w in words}  # the character the word's pattern starts with
    outside = [w for w in words if not first[w].isascii()]
    keys = {first[w].lower() for w in words if first[w].isascii()}
    found = {key: pattern([w for w in words if not first[w].isascii() or first[w].lower() == key]) for key in keys}
    found[""] = pattern(outside)
    return found


def _ascii_words_by_first_char(words: Sequence[str]) -> Dict[str, Tuple[Tuple[str, ...], ...]]:
    """For the compiled break-word match (``core/_scope_loops.pyx``): per key of
    ``_words_by_first_char``, the words of its pattern in its order, each as its parts with their
    ASCII letters in lower case. A character outside ASCII stays as written: the compiled match
    compares a word up to such a character and leaves the rest to the pattern, which alone knows
    what it matches ("ß", the Kelvin sign)."""
    first = {w: w.split()[0][0] for w in words}
    keys = {first[w].lower() for w in words if first[w].isascii()}
    found: Dict[str, Tuple[Tuple[str, ...], ...]] = {}
    for key in keys | {""}:
        kept = [w for w in words if not first[w].isascii() or (key and first[w].lower() == key)]
        found[key] = tuple(tuple(_ascii_lower(part) for part in w.split()) for w in kept)
    return found


def _ascii_alike(words: Iterable[str]) -> FrozenSet[str]:
    """The characters outside ASCII in ``words`` that the pattern, ignoring case, matches to an
    ASCII character ("\u017f" to "s", the Kelvin sign to "k"), each tried with the pattern
    engine itself: any other ("\u00df", "\u00e9") can never match an ASCII character, which
    the compiled break-word match then reads as a mismatch, not a reason to ask the pattern."""
    outside = {ch for w in words for ch in w if not ch.isascii()}
    return frozenset(ch for ch in outside if any(
        re.fullmatch(re.escape(ch), chr(a), re.IGNORECASE) for a in range(128)))


def _ascii_lower(text: str) -> str:
    """``text`` with its ASCII capitals in lower case, every other character as it is."""
    return "".join(c.lower() if c.isascii() else c for c in text)


def same_breaks(text: str) -> bool:
    """Whether the breaks of ``text`` are those of its canonical view, without building it.

    True for text that reads as itself, and for any ASCII text: NFKC leaves
    ASCII as it is and no ASCII character is ignorable, so its view differs
    only in whitespace, which every part of the rule reads as ``\\s``.
    """
    return text.isascii() or reads_as_itself(text)


def _word_before(text: str, end: int) -> str:
    """The letters, digits and full stops right before ``end``, eight at most ("approx", "e.g"):
    what ``_RUN_END`` finds at the end of the eight characters, walked back to without a search."""
    first, i = max(0, end - 8), end
    while i > first and (text[i - 1].isalnum() or text[i - 1] == "."):
        i -= 1
    return text[i:end]


class Segments(NamedTuple):
    """The clauses of a row of tokens.

    clause_of: The clause of each token; -1 for a token that is a break.
    comma_after: For each clause, whether only commas separate it from the next.
    """

    clause_of: List[int]
    comma_after: List[bool]


def segment(n: int, breaks: Sequence[Tuple[int, bool]], boundaries: Iterable[int] = ()) -> Segments:
    """Number the clauses of ``n`` tokens.

    n (int): How many tokens.
    breaks (Sequence[Tuple[int, bool]]): (token index, whether it is a comma) of every token
        that is a clause break, in order.
    boundaries (Iterable[int]): Token indices that start a new clause without a break token
        of their own (a sentence start set by a parser, a section header).
    RETURNS (Segments): The clause of each token and which clauses end in a comma only.
    """
    if _compiled is not None:
        return Segments(*_compiled.segment_rows(n, breaks, boundaries))
    return _segment(n, breaks, boundaries)


def _segment(n: int, breaks: Sequence[Tuple[int, bool]], boundaries: Iterable[int] = ()) -> Segments:
    """``segment`` in Python (the compiled one's twin)."""
    kind = dict(breaks)
    starts: Set[int] = set(boundaries)
    starts.discard(0)
    if not kind and not starts:
        return Segments([0] * n, [False])
    clause_of, comma_after = [], []
    clause, comma, open_gap = 0, True, False
    for i in range(n):
        if i in kind:
            clause_of.append(-1)
            comma = comma and kind[i]
            open_gap = True
            continue
        if i in starts and i > 0:
            open_gap, comma = True, False
        if open_gap:
            comma_after.append(comma)
            clause += 1
            comma, open_gap = True, False
        clause_of.append(clause)
    comma_after.append(False)
    return Segments(clause_of, comma_after)


def list_end(comma_after: Sequence[bool], has_conjunction: Sequence[bool], clause: int, *,
             open_start: bool = False, item_words: Optional[Sequence[int]] = None, short_items: int = 0) -> int:
    """The last clause a cue in ``clause`` reaches forward (spec §4: lists).

    A clause that holds a conjunction is a list's last item, or no list: the
    cue stays in it. Otherwise the comma-separated clauses after it are items
    of a list when one of them holds a conjunction, and the cue reaches up to
    that one; when none does before a break that is not a comma, the comma
    ended the scope. That is the spec's rule; clinical writing needs two more
    (cue profiles switch them on):

    comma_after (Sequence[bool]): Per clause, whether only commas separate it from the next.
    has_conjunction (Sequence[bool]): Per clause, whether it holds a list conjunction.
    clause (int): The cue's clause.
    open_start (bool): The cue's clause may hold a conjunction itself and still open a
        list ("no nausea or vomiting, diarrhea, or constipation").
    item_words (Optional[Sequence[int]]): Per clause, how many words it has.
    short_items (int): Comma-separated items of at most this many words that run up to a
        break other than a comma are a list without a conjunction ("no rashes, lesions,
        ulcers."); 0: never.
    RETURNS (int): The last clause in reach.
    """
    if has_conjunction[clause] and not open_start:
        return clause
    k = clause
    short = bool(short_items) and item_words is not None
    while k + 1 < len(has_conjunction) and comma_after[k]:
        k += 1
        if has_conjunction[k]:
            return k
        short = short and item_words[k] <= short_items
    return k if short and k > clause else clause


@lru_cache(maxsize=8)
def _rule(break_words: Tuple[str, ...], non_final: Tuple[str, ...]) -> ClauseRule:
    return ClauseRule(break_words, non_final)


def clause_rule(extra_break_words: Iterable[str] = ()) -> ClauseRule:
    """The rule for every available language pack (built once per set of packs and words).

    extra_break_words (Iterable[str]): More words that end a clause, for a cue profile
        whose break records go beyond the packs' (clinical "which", "who"); the other
        pipes never pass any.
    RETURNS (ClauseRule): The rule.
    """
    from ..lang import packs
    from ..lang.cues import BREAK

    words, non_final = [], []
    for pack in packs().values():
        words.extend(pack.clause_break_words)
        words.extend(r.cue for r in pack.cues.records if r.category == BREAK)
        non_final.extend(pack.non_final_abbreviations)
    words.extend(extra_break_words)
    return _rule(tuple(dict.fromkeys(words)), tuple(dict.fromkeys(non_final)))

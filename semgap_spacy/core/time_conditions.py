"""A clearance set for a time: it may hold from then, or be due by then, and not now.

"Clear to close by 18:00", "Airworthy from 06:00", "Lote liberado desde el
lunes", "Libéré à partir de 18h", "Freigegeben nach 18:00": spec §4.1
explains every word ("by", "from", "desde" and "nach" are stop words, the
time a shape, "lunes" a stop word or unknown), yet the text ties what it
states to a time that may not have come: a deadline ("needs to be clear to
close by 18:00") or a start ("airworthy from 06:00"). A person would ask
which. A word that sets a time (each pack's ``time_prepositions``: "by",
"from", "starting", "desde", "para", "à partir de", "nach") followed by a
time (a clock time "18:00", "6pm", "1800Z", "18h30", "18.00 Uhr",
"2026-12-05T18:00"; a date "12/05", "05.12.2026", "the 5th") or by a day or
month of the same language (``time_words``: "noon", "tomorrow", "Monday",
"March", "lunes", "demain", "Montag", with a day before a month: "5 March",
"5. März"; an article or "next" may stand between)
escalates as ``time_condition``, quoting it. Words such as "until",
"after", "before", "hasta", "dès", "ab" and "bis" are never neutral
already (§4.1), so they escalate without this rule.

The text is read as a person sees it (§4.1: NFKC, invisible characters
ignored), so "by 18<U+200B>:00" and full-width "from ０６:００" are times.
Left alone: a time followed by a colon after other words, the stamp of a
message ("Update from 14:05: clear to close"; "From 06:00: airworthy" sets
one); a time that names another thing ("from 06:00 serum", "from the 06:00
shift": the caller says which words name a thing, and a stop word names
none, so "notes from 14:05 call" still sets a time); a bare number ("signed by 2
engineers") and a number with a decimal point ("rate up by 0.25"): neither
is a time as written, unless the word right after a clearance's term sets
it and the clause ends after it ("Clear to close by 5", "Abschlussbereit um
17.30", "Lote liberado para las 9"). Which clause a time must share with a clearance is
the caller's rule (``coverage.CoverageRules.times``).

A date, or a year alone, that is not the day (the year) of the case's
``now`` is a time other than now too ("From the 2019 file: clear to close",
"Negative crossmatch 2026-11-28"): the clearance may have held then and not
now (``other_days``). Without ``now`` no date can be told to be today.

A clearance stated for the past is one more such time: "N418QX was airworthy",
"File was clear to close", "Fue aeronavegable" say how things stood, not how
they stand. es "estaba", "era", fr "était" and de "war" are never neutral
already; en "was" and es "fue" are stop words of every other sentence
("crossmatch was negative" reports a result). So a word that states a past
(each pack's ``past_state_words``: "was", "were", "had been", "fue", "a
été"), with at most two stop words after it ("was also airworthy"), right
before a clearance term escalates too, unless a word of the term is a
participle (``participle_endings``: "was cleared to close", "was released to
service", "fue liberado", "CRS signed" report an act that stands). So does
a day gone by in the clearance's clause (each pack's ``past_time_words``:
"yesterday", "last night", "ayer", "hier", "gestern": "N418QX airworthy
yesterday", "aeronavegable según el turno de ayer"), unless a word of
``since_words`` stands right before it ("seit gestern", "desde ayer": it
holds since then) or the clearance reports an act ("Lot released
yesterday"). A state still to come is the other side: a word of
``to_come_words`` ("to be", "yet to be", "becomes", de "wird"), with at most
two stop words or punctuation marks between, right before a clearance term
("Aircraft to be airworthy", "File to be cleared to close") or right after
one ("CTC to be issued", "CTC: to be issued") says the clearance is due, not
given, unless, after it, the clearance reports an act ("Batch released to
be loaded" says what for); the same words elsewhere are left alone
("Airworthy; crew to be at the gate by 06:00").
"""
import re
from datetime import date
from functools import lru_cache
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from ..lang import generation, packs
from .textview import read_text, token_matches

TIME_CONDITION = "time_condition"

#: a time of day, as a digit shape: "18:00", "6pm", "6 p.m.", "1800Z", "1800 hrs", "0600L", "18h", "18h30",
#: "18 Uhr", "18.00 Uhr"; after a word of a goal only these (a date or an ordinal there names a thing as
#: often: "for the 2nd kidney", "for 2/3 recipients")
_TIME_OF_DAY = (r"\d{1,2}(?::\d{2}(?::\d{2})?)?\s?(?:am|pm|a\.m\.|p\.m\.)"
                r"|\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?:h|hrs|z|utc|lt|uhr))?"
                r"|\d{1,2}\.\d{2}\s?(?:h|hrs|z|utc|lt|uhr)"
                r"|\d{3,4}\s?(?:z|utc|lt|l|hrs)"
                r"|\d{1,2}h(?:\d{2})?|\d{1,2}\s?uhr")
#: a time of day or a date, as a digit shape: those, "12/05", "12/05/2026", "05.12.2026", "2026-12-05",
#: "2026-12-05T18:00", "the 5th"
_CLOCK = (_TIME_OF_DAY
          + r"|\d{4}-\d{2}-\d{2}(?:t\d{2}:\d{2}(?::\d{2})?z?)?"
          r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{1,2}\.\d{1,2}\.(?:\d{2,4})?"
          r"|\d{1,2}(?:st|nd|rd|th)")
#: what may stand between the word and the time: an article, "next", "this"
_BETWEEN = r"(?:(?:the|this|next|coming|el|la|las|los|del|al|próximo|próxima|le|les|prochain|prochaine|" \
           r"dem|den|der|nächsten|kommenden)\s+)?"


def _alternatives(words: Sequence[str]) -> str:
    ordered = sorted({w.strip() for w in words if w.strip()}, key=len, reverse=True)
    return "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in ordered)


@lru_cache(maxsize=2)
def _pattern(pack_set: int) -> "re.Pattern":
    """The rule's pattern for one set of language packs (``lang.generation()``): each pack's words
    that set a time with the clock shapes and that pack's own days ("pour mon dossier" is no
    Monday)."""
    branches = []
    for pack in packs().values():
        words = _alternatives(pack.time_prepositions)
        if not words:
            continue
        days = _alternatives(pack.time_words)
        time = _CLOCK + (rf"|(?:\d{{1,2}}(?:st|nd|rd|th)?\.?\s+)?(?:{days})" if days else "")
        branches.append(rf"(?:{words})\s+{_BETWEEN}(?:{time})")
    if not branches:
        return re.compile(r"(?!)")
    return re.compile(rf"(?<![\w'])(?:{'|'.join(branches)})(?!\w)(?!:\d)", re.IGNORECASE)


@lru_cache(maxsize=2)
def _bare_pattern(pack_set: int) -> "re.Pattern":
    """Read only right after a clearance's term (``time_conditions``): a word that sets a time and
    an hour written as a bare number or with a decimal point, the clause ending after it ("by 5",
    "um 17.30", "para las 9"); and a word of a goal before a clock time ("Clear to close for
    17:00", each pack's ``purpose_prepositions``)."""
    words = _alternatives([w for pack in packs().values() for w in pack.time_prepositions])
    goals = _alternatives([w for pack in packs().values() for w in pack.purpose_prepositions])
    branches = []
    if words:
        branches.append(rf"(?:{words})\s+(?:las\s+|les\s+)?(?:[01]?\d|2[0-4])(?:\.[0-5]\d)?"
                        r"(?=\s*(?:[,;!?)]|\.(?!\d)|$))")
    if goals:
        branches.append(rf"(?:{goals})\s+(?:{_TIME_OF_DAY})(?!\w)(?!:\d)")
    if not branches:
        return re.compile(r"(?!)")
    return re.compile(rf"(?<![\w'])(?:{'|'.join(branches)})", re.IGNORECASE | re.MULTILINE)


def time_conditions(text: str, starts: Sequence[int], ends: Sequence[int],
                    names_a_thing: Callable[[int], bool] = lambda i: False,
                    is_term: Callable[[int], bool] = lambda i: False,
                    is_event: Callable[[int], bool] = lambda i: False,
                    after_term: bool = True) -> List[Tuple[int, int]]:
    """(first token, end token) of each word that sets a time and the time it sets.

    text (str): The text; starts, ends: every token's character offsets.
    names_a_thing (Callable[[int], bool]): Whether a token is a word that makes a time before it
        name a thing ("call" in "from 14:05 call"), by index.
    is_term (Callable[[int], bool]): Whether a token is a clearance term's: right after one, a time
        followed by a colon or by an event (``is_event``) is the clearance's ("Clear to close by
        18:00: confirmed", "by 17:00 funding"), and an hour written as a bare number
        or with a decimal point that ends its clause, or a clock time after a word of a goal, is a
        time too ("Clear to close by 5", "Abschlussbereit um 17.30", "Clear to close for 17:00";
        ``_bare_pattern``).
    after_term (bool): False when the caller knows no word that sets a time follows a term: the
        term-adjacent pattern is then not searched.
    RETURNS (List[Tuple[int, int]]): Token ranges, in text order.
    """
    out: List[Tuple[int, int]] = []
    for found, read, first, end in token_matches(_pattern(generation()), text, starts, ends):
        # right after a term, a time is the clearance's though a colon or an event follows ("Clear to
        # close by 18:00: ok", "by 17:00 funding"); a thing still names it ("from 06:00 serum")
        after_term = first > 0 and is_term(first - 1)
        if (not after_term and _stamp(read, found.start(), found.end())) or (
                end < len(starts) and names_a_thing(end) and not (after_term and is_event(end))):
            continue
        out.append((first, end))
    if after_term and any(ch.isdigit() for ch in text):
        for found, read, first, end in token_matches(_bare_pattern(generation()), text, starts, ends):
            named = end < len(starts) and names_a_thing(end) and not is_event(end)  # "for 06:00 departure"
            if first > 0 and is_term(first - 1) and not named and (first, end) not in out:
                out.append((first, end))
        out.sort()
    return out


#: a date with its year, or a year alone: "2019-03-02", "2019-03-02T10:00Z", "02/03/2019", "2.3.19",
#: "2019"; not glued to a word, a code or an amount ("LN-2019", "#2019", "$2019", "2019.5")
_DATED = re.compile(r"(?<![\w.:/#$€£¥,-])(?:(\d{4})-(\d{1,2})-(\d{1,2})(?:t[\d:.+\-z]*)?"
                    r"|(\d{1,2})([./])(\d{1,2})\5(\d{4}|\d{2})|((?:19|20)\d{2}))(?![\w/-]|:\S|[.,]\d)",
                    re.IGNORECASE)


#: what every date of ``_DATED`` holds: four digits, or a digit, a dot or slash and a digit. It is looked
#: for first, since ``_DATED``, which opens with a look-behind, is tried at every character of a text
_DATE_DIGITS = re.compile(r"\d(?:\d{3}|[./]\d)")


def _is_today(found: "re.Match", today: date) -> bool:
    """Whether a date of ``_DATED`` is ``today`` (a year alone: its year); a date written day
    first or month first is today when either way reads so ("12/05/2026" on 5 December)."""
    if found.group(1):
        return tuple(map(int, found.group(1, 2, 3))) == (today.year, today.month, today.day)
    if found.group(8):
        return int(found.group(8)) == today.year
    first, second, year = int(found.group(4)), int(found.group(6)), int(found.group(7))
    year = year + 2000 if len(found.group(7)) == 2 else year
    return year == today.year and (today.day, today.month) in ((first, second), (second, first))


def other_days(text: str, starts: Sequence[int], ends: Sequence[int], now: Optional[str],
               is_read: Callable[[int], bool] = lambda i: False) -> List[Tuple[int, int]]:
    """(first token, end token) of each date, or year alone, that is not the day (the year) of
    ``now``: "From the 2019 file: clear to close", "Negative crossmatch 2026-11-28". A clearance
    dated so may have held then and not now, or be set for a day to come; without ``now`` no
    date can be told to be today, and every one counts. Where it must stand is the caller's
    rule (``coverage.CoverageRules.times``).

    now (Optional[str]): The case's current time, ISO-8601, its date in its own offset.
    is_read (Callable[[int], bool]): Whether a token is read already (part of a quantity or a term).
    RETURNS (List[Tuple[int, int]]): Token ranges, in text order.
    """
    if _DATE_DIGITS.search(read_text(text).text) is None:
        return []
    today = _today(now)
    return [(first, end) for found, _, first, end in token_matches(_DATED, text, starts, ends)
            if not is_read(first) and (today is None or not _is_today(found, today))]


@lru_cache(maxsize=64)
def _today(now: Optional[str]) -> Optional[date]:
    """The date of ``now`` in its own offset, parsed as the readings parse it, or None; a stream
    repeats its times, so each is parsed once."""
    from .readings import parse_datetime

    parsed = parse_datetime(now)
    return parsed.date() if parsed is not None else None


def _stamp(read: str, start: int, end: int) -> bool:
    """Whether a time followed by a colon is a message's stamp: other words stand before it in
    its sentence ("Update from 14:05: …"; "From 06:00: airworthy" opens with it)."""
    after = read[end:].lstrip(" ")
    if not after.startswith(":") or (len(after) > 1 and not after[1].isspace()):
        return False  # no colon, or a face (":)")
    before = read[:start].rstrip(" ")
    return bool(before) and before[-1] not in ".!?;\n"


def past_states(words: Callable[[int], str], clearances: Sequence[Tuple[int, int]],
                past: FrozenSet[Tuple[str, ...]], participle: Callable[[int], bool] = lambda i: False,
                skippable: Callable[[int], bool] = lambda i: False) -> List[Tuple[int, int]]:
    """(first token, end token) of each word that states a past and the clearance right after it.

    words (Callable[[int], str]): A token's text, folded, by index; asked only near a clearance.
    clearances (Sequence[Tuple[int, int]]): (start, end) tokens of every clearance term, in order.
    past (FrozenSet[Tuple[str, ...]]): The packs' ``past_state_words``, folded, as word sequences.
    participle (Callable[[int], bool]): Whether a token is a participle, which reports an act
        ("cleared"): a clearance with one is no finding.
    skippable (Callable[[int], bool]): Whether a token may stand between the two ("also"): up to two.
    RETURNS (List[Tuple[int, int]]): Token ranges from the past word to the term's first word.
    """
    out: List[Tuple[int, int]] = []
    longest = max(map(len, past), default=0)
    for start, end in clearances:
        if any(participle(i) for i in range(start, end)):
            continue
        before = start
        for _ in range(3):
            found = next((k for k in range(longest, 0, -1) if before - k >= 0
                          and tuple(words(i) for i in range(before - k, before)) in past), 0)
            if found:
                out.append((before - found, start + 1))
                break
            if before == 0 or not skippable(before - 1):
                break
            before -= 1
    return sorted(set(out))


def states_to_come(words: Callable[[int], str], n: int, clearances: Sequence[Tuple[int, int]],
                   to_come: FrozenSet[Tuple[str, ...]], skippable: Callable[[int], bool] = lambda i: False,
                   reports_act: Callable[[Tuple[int, int]], bool] = lambda term: False,
                   finding: FrozenSet[str] = frozenset()) -> List[Tuple[int, int]]:
    """(first token, end token) of each clearance and the words beside it that put its state still
    to come: between a frame's words ("crossmatch to be negative"), right before it ("Aircraft to
    be airworthy", "File to be cleared to close", "wird lufttüchtig"), or right after it unless it
    reports an act ("CTC to be issued", "CTC is yet to be issued"; "Batch released to be loaded"
    says what for). Spaces are no words ("to  be"), and a word of finding up to three words
    before, in its clause, makes a report of what was found ("confirmed to be airworthy",
    "reported the crossmatch to be negative"; not "Logbook verified, aircraft to be airworthy").

    words (Callable[[int], str]): A token's text, folded, by index; asked only near a clearance.
    n (int): The number of tokens.
    clearances (Sequence[Tuple[int, int]]): (start, end) tokens of every clearance term, in order.
    to_come (FrozenSet[Tuple[str, ...]]): The packs' ``to_come_words``, folded, as word sequences.
    skippable (Callable[[int], bool]): Whether a token may stand between the two ("is", ":"): up to two.
    reports_act (Callable[[Tuple[int, int]], bool]): Whether a clearance reports an act (a participle).
    finding (FrozenSet[str]): The packs' ``finding_words``, folded.
    RETURNS (List[Tuple[int, int]]): Token ranges from the phrase to the term's nearest word.
    """
    # the words of the text without its runs of spaces, by position; a term's tokens are words
    kept = [i for i in range(n) if words(i).strip()]
    at = {token: k for k, token in enumerate(kept)}
    m = len(kept)
    out: List[Tuple[int, int]] = []
    longest = max(map(len, to_come), default=0)

    def phrase(first: int, last: int) -> bool:
        return 0 <= first and last <= m and tuple(words(kept[k]) for k in range(first, last)) in to_come

    def found_before(k: int) -> bool:
        """A word of finding up to three words before, none of its clause's ends between
        ("Logbook verified, aircraft to be airworthy" reports no finding of it)."""
        for j in range(k - 1, max(k - 3, 0) - 1, -1):
            word = words(kept[j])
            if word in finding:
                return True
            if not any(ch.isalnum() for ch in word) and word not in ("'", "’"):
                return False
        return False

    for start, end in clearances:
        if start not in at or end - 1 not in at:
            continue
        first, last = at[start], at[end - 1] + 1
        # inside a frame's words ("crossmatch to be negative")
        inside = next((k for k in range(first + 1, last - 1) for j in range(longest, 0, -1)
                       if k + j < last and phrase(k, k + j)), None)
        if inside is not None:
            if not found_before(inside):
                out.append((start, end))
            continue
        before = first
        for _ in range(3):
            size = next((j for j in range(longest, 0, -1) if phrase(before - j, before)), 0)
            if size:
                if not found_before(before - size):
                    out.append((kept[before - size], start + 1))
                break
            if before == 0 or not skippable(kept[before - 1]):
                break
            before -= 1
        if reports_act((start, end)):
            continue
        after = last
        for _ in range(3):
            size = next((j for j in range(longest, 0, -1) if phrase(after, after + j)), 0)
            if size:
                out.append((end - 1, kept[after + size - 1] + 1))
                break
            if after >= m or not skippable(kept[after]):
                break
            after += 1
    return sorted(set(out))


#: the word of a ``past_time_words`` phrase that stands for a count ("vor # Jahren": "vor zwei Jahren")
COUNT = "#"


@lru_cache(maxsize=8)
def _phrases_by_key(phrases: FrozenSet[Tuple[str, ...]]) -> Dict[str, List[Tuple[int, Tuple[str, ...]]]]:
    """The phrases of ``past_times`` by their longest word, each with that word's place in it:
    a token is tried against the phrases it may be the longest word of, the longer first (the
    reading a person gives "last night" over "night"), not against every phrase."""
    found: Dict[str, List[Tuple[int, Tuple[str, ...]]]] = {}
    for phrase in sorted(phrases, key=lambda p: (-len(p), p)):
        key = max(phrase, key=len)
        found.setdefault(key, []).append((phrase.index(key), phrase))
    return found


def past_times(words: Callable[[int], str], n: int, candidates: Sequence[int],
               phrases: FrozenSet[Tuple[str, ...]], since: FrozenSet[str],
               is_count: Callable[[str], bool] = lambda word: False) -> List[Tuple[int, int]]:
    """(first token, end token) of each day gone by ("yesterday", "last night") not after "since".

    words (Callable[[int], str]): A token's text, folded, by index.
    n (int): The number of tokens.
    candidates (Sequence[int]): The tokens that may be a phrase's longest word, in order.
    phrases (FrozenSet[Tuple[str, ...]]): The packs' ``past_time_words``, folded, as word sequences;
        a word ``COUNT`` in one stands for a count.
    since (FrozenSet[str]): The packs' ``since_words``, folded.
    is_count (Callable[[str], bool]): Whether a word is a count: digits or a number in words.
    RETURNS (List[Tuple[int, int]]): Token ranges, in text order.
    """
    out: List[Tuple[int, int]] = []
    by_key = _phrases_by_key(phrases)
    for i in candidates:
        for at, phrase in by_key.get(words(i), ()):
            first = i - at
            end = first + len(phrase)
            if first < 0 or end > n or not all(
                    words(j) == word or (word == COUNT and is_count(words(j)))
                    for j, word in zip(range(first, end), phrase)):
                continue
            if first == 0 or words(first - 1) not in since:
                out.append((first, end))
            break
    return sorted(set(out))

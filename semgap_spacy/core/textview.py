"""The canonical reading of a text: what a person sees, with offsets back.

Spec §4.1 ("What the text is, for every rule above"): rules read the text a
person sees. Two texts that look the same must be read the same, or a writer
can slip "unreleased  lien" (two spaces), "n<U+200B>ot" or "A<Cyrillic о>G"
past a matcher that compares code points. This module holds the two readings
every pipe shares, in one place so the pipes cannot disagree:

- ``read_text(text)`` -> ``TextView``: the whole text in NFKC form, format
  characters (category Cf) and other default-ignorable code points removed,
  and every run of Unicode whitespace (line breaks included) as one ASCII
  space. ``TextView.original_range`` maps any range of the view back to the
  exact characters of the original, so a regex run on the view (the quantity
  linker does that) still yields spans into the original text, as every span
  of a decision must.
- ``read_token(text)`` -> ``TokenReading``: one token's canonical form (NFKC,
  ignorables removed and, only when the word mixes scripts, its non-Latin
  letters replaced by their Latin look-alikes from Unicode's TR39 confusables
  data) and the suspicious characters that made it mixed.

Accents are kept here on purpose: matching folds them later with
``semgap_spacy.textnorm.fold``, and other rules (Spanish "sí" vs "si") must
still be able to tell them apart.

Pure Python, no spaCy import: the pipes call it, it never calls them. Plain
ASCII text with single spaces is returned as is at the cost of two C-level
string checks, because the pipes call this on every doc.
"""
import functools
import json
import re
import unicodedata
from collections import Counter
from importlib import resources
from bisect import bisect_right
from typing import FrozenSet, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from ..util.caches import cached

__all__ = ["TextView", "TokenReading", "SuspiciousChar", "read_text", "read_token", "read_word", "is_ignorable",
           "is_canonical", "reads_as_itself", "digit_spellings", "token_matches", "STRUCK", "STACKED"]


def _code_point(spec: str) -> int:
    if not (isinstance(spec, str) and spec.upper().startswith("U+")):
        raise ValueError(f"textview.json: {spec!r} is not a code point written as U+XXXX")
    return int(spec[2:], 16)


@functools.lru_cache(maxsize=1)
def _rules() -> dict:
    """The data file, parsed once; a broken file is a packaging error, raised loudly."""
    raw = json.loads(resources.files("semgap_spacy.data").joinpath("textview.json").read_text("utf-8"))
    ignorable = set(_code_point(p) for p in raw["ignorable"]["points"])
    for low, high in raw["ignorable"]["ranges"]:
        ignorable.update(range(_code_point(low), _code_point(high) + 1))
    common = frozenset(chr(_code_point(p)) for p in raw["count_as_common"]["points"])
    augmented = {name: frozenset(sets) for name, sets in raw["augmented_scripts"].items()
                 if not name.startswith("_")}
    digits = {digit: tuple(letters) for digit, letters in raw["digit_lookalikes"]["map"].items()}
    if not all(len(d) == 1 and d.isdigit() and letters and all(c.isalpha() and c.islower() for c in letters)
               for d, letters in digits.items()):
        raise ValueError("textview.json: digit_lookalikes maps one digit to lower-case letters")
    overlays = frozenset(chr(_code_point(p)) for p in raw["strike_overlays"]["points"])
    most = raw["stacked_marks"]["most"]
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise ValueError("textview.json: stacked_marks.most is a whole number of at least 1")
    return {"ignorable": frozenset(ignorable), "common": common, "augmented": augmented, "digits": digits,
            "overlays": overlays, "most_marks": most}


def is_ignorable(ch: str) -> bool:
    """True for a character that draws nothing: category Cf or a listed default-ignorable.

    ch (str): One character.
    RETURNS (bool): Whether the canonical reading drops it.
    """
    return len(ch) == 1 and ord(ch) in _ignorable_table()


# Planes that hold category Cf characters (BMP, SMP, SIP and tags in plane 14).
_CF_PLANES = ((0, 0x30000), (0xE0000, 0xE1000))


@functools.lru_cache(maxsize=1)
def _ignorable_table() -> FrozenSet[int]:
    """Every ignorable code point, built once from unicodedata (tens of ms).

    Built from the running Python's Unicode data rather than a frozen list, so
    a newer Python's new format characters are dropped too.
    """
    points = set(_rules()["ignorable"])
    for low, high in _CF_PLANES:
        points.update(cp for cp in range(low, high) if unicodedata.category(chr(cp)) == "Cf")
    return frozenset(points)


@functools.lru_cache(maxsize=1)
def _ignorable_re() -> "re.Pattern":
    """The ignorables as one character class of ranges (fast to scan, unlike a translate table)."""
    points = sorted(_ignorable_table())
    ranges, start, prev = [], points[0], points[0]
    for cp in points[1:] + [-1]:
        if cp != prev + 1:
            ranges.append(re.escape(chr(start)) if start == prev else f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
            start = cp
        prev = cp
    return re.compile("[" + "".join(ranges) + "]")


def _strip_ignorable(text: str) -> str:
    return text if text.isascii() else _ignorable_re().sub("", text)


def _nfkc(text: str) -> str:
    """NFKC without ignorables, before and after (NFKC must not bring one back)."""
    return _strip_ignorable(unicodedata.normalize("NFKC", _strip_ignorable(text)))


def _fast(text: str) -> bool:
    """Printable ASCII with single spaces is its own canonical reading.

    ASCII has no Cf character and NFKC leaves it unchanged; ``isprintable``
    rules out tabs, line breaks and the other ASCII whitespace.
    """
    return text.isascii() and text.isprintable() and "  " not in text


class TextView:
    """The canonical reading of a whole text, with a map back to the original.

    ``text`` is the view. View character ``i`` was produced by original
    characters ``starts[i]:ends[i]`` (a character that NFKC expands, "ﬁ" ->
    "fi", gives several view characters with the same range; a letter with a
    decomposed accent gives one view character covering both; a whitespace run
    gives one space covering the run).
    """

    __slots__ = ("original", "text", "_starts", "_ends")

    def __init__(self, original: str, text: str, starts: Optional[Sequence[int]] = None,
                 ends: Optional[Sequence[int]] = None):
        self.original = original
        self.text = text
        # None means the identity map (the fast path builds no arrays).
        self._starts = starts
        self._ends = ends

    @property
    def is_identity(self) -> bool:
        """True when the view is the original, character for character."""
        return self._starts is None

    def original_range(self, start: int, end: int) -> Tuple[int, int]:
        """The original characters that produced view characters ``start:end``.

        start (int): Start of the range in ``self.text``.
        end (int): End of the range in ``self.text`` (exclusive).
        RETURNS (Tuple[int, int]): ``(start, end)`` in ``self.original``; the
            characters dropped inside the range (a zero-width space in "n?ot")
            are included, so ``original[s:e]`` is exactly what the reader saw.
            An empty range maps to an empty range at the matching position.
        RAISES (ValueError): The range is not inside the view; a pipe that
            asks for one has a bug, and a wrong span would be worse than an error.
        """
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(self.text)):
            raise ValueError(f"range ({start!r}, {end!r}) is not inside a view of length {len(self.text)}")
        if self._starts is None:
            return start, end
        if start == end:
            pos = self._starts[start] if start < len(self.text) else len(self.original)
            return pos, pos
        return self._starts[start], self._ends[end - 1]

    def original_text(self, start: int, end: int) -> str:
        """The original characters behind view characters ``start:end``."""
        s, e = self.original_range(start, end)
        return self.original[s:e]

    def __repr__(self) -> str:
        return f"TextView({self.text!r}, identity={self.is_identity})"


# Python's \s for str patterns is exactly str.isspace: Unicode whitespace,
# line breaks and the ASCII separators \x1c-\x1f included.
_RUNS = re.compile(r"\s+|\S+")
_RUNS_WS = re.compile(r"\s+")


@functools.lru_cache(maxsize=8192)
def _char(ch: str) -> Tuple[bool, str]:
    """(attaches to the character before it, its own NFKC reading) for one character."""
    attaches = bool(unicodedata.combining(ch)) or is_ignorable(ch)
    return attaches, _nfkc(ch)


def _clusters(run: str, base: int, level: int):
    """Pieces ``(start, end, reading, exact)`` of one run of non-whitespace characters.

    level 0: a starter with the combining marks and ignorables after it, the
    span in which NFKC composes in practice. level 1: the whole run. The caller
    checks the pieces against NFKC of the whole text and moves up a level when
    they disagree (Hangul jamo and some Indic vowel signs compose across
    starters), so the view is always the true NFKC reading.
    """
    if run.isascii():
        # ASCII is its own NFKC reading and has nothing to drop.
        yield base, base + len(run), run, True
        return
    if level >= 1:
        yield base, base + len(run), _nfkc(run), False
        return
    start = 0
    for i in range(1, len(run) + 1):
        if i < len(run) and _char(run[i])[0]:
            continue
        piece = run[start:i]
        yield base + start, base + i, _char(piece)[1] if len(piece) == 1 else _nfkc(piece), False
        start = i


# What the fast reading cannot take as it is: a whitespace run other than one
# ASCII space, and a word stretch holding non-ASCII characters (with the
# character before it, which a decomposed accent belongs to).
_ODD = re.compile(r"(?P<ws>\s{2,}|[^\S ])|(?P<word>\S?[^\x00-\x7f\s]+)")


def _pieces(text: str, level: int):
    """Pieces ``(start, end, reading, exact)`` that together make the view.

    level 0 leaves stretches of ASCII with single spaces whole (one piece, no
    per-character work) and reads only the odd stretches; level 1 reads every
    non-whitespace run whole; level 2 reads the whole text at once.
    """
    if level >= 2:
        return [(0, len(text), _nfkc(text), False)]
    pieces = []
    if level == 0:
        pos = 0
        for match in _ODD.finditer(text):
            start, end = match.span()
            if start > pos:
                pieces.append((pos, start, text[pos:start], True))
            if match.lastgroup == "ws":
                pieces.append((start, end, " ", False))
            else:
                pieces.extend(_clusters(match.group(), start, 0))
            pos = end
        if pos < len(text):
            pieces.append((pos, len(text), text[pos:], True))
        return pieces
    for match in _RUNS.finditer(text):
        run, base = match.group(), match.start()
        if run[0].isspace():
            pieces.append((base, match.end(), " ", False))
        else:
            pieces.extend(_clusters(run, base, 1))
    return pieces


def read_text(text: str) -> TextView:
    """The canonical reading of ``text`` (spec §4.1), with offsets back.

    text (str): The original text.
    RETURNS (TextView): ``.text`` is NFKC with ignorables removed and each
        whitespace run as one space; ``.original_range`` maps back.
    RAISES (TypeError): ``text`` is not a str (the case reader turns other
        types into an escalate decision before any pipe runs).
    """
    if not isinstance(text, str):
        raise TypeError(f"read_text needs a str, not {type(text).__name__}")
    if reads_as_itself(text):
        return TextView(text, text)
    last = _LAST[0]
    if last is not None and last.original == text:
        return last  # several pipes read the same doc's text in turn
    view = _read_text(text)
    _LAST[0] = view
    return view


# The last view built: a view is never changed once built, so sharing it is safe.
_LAST: List[Optional[TextView]] = [None]


def token_matches(pattern: "re.Pattern", text: str, starts: Sequence[int],
                  ends: Sequence[int]) -> Iterator[Tuple["re.Match", str, int, int]]:
    """Each match of ``pattern`` on ``text`` as a person reads it (``read_text``), on whole tokens.

    The rules that read a phrase with a pattern ("2 of 5", "by 18:00") see
    "by 18<U+200B>:00" as "by 18:00" and still point at the original tokens. A
    match that starts inside a token is no phrase; one that ends inside a token
    counts when only punctuation follows in it ("0600Z." is one token).

    pattern (re.Pattern): The phrase's pattern, on the reading.
    text (str): The original text; starts, ends: every token's character offsets.
    YIELDS (Tuple[re.Match, str, int, int]): The match, the reading it was made on, and the
        first and end token it covers.
    """
    view = read_text(text)
    for found in pattern.finditer(view.text):
        start, end = view.original_range(found.start(), found.end())
        first = bisect_right(starts, start) - 1
        last = bisect_right(starts, end - 1) - 1
        if first < 0 or starts[first] != start:
            continue
        if ends[last] != end and any(ch.isalnum() for ch in text[end:ends[last]]):
            continue
        yield found, view.text, first, last + 1


def _read_text(text: str) -> TextView:
    # NFKC turns whitespace into spaces only (never into something else), so
    # the reference may collapse its own runs the same way.
    reference = _RUNS_WS.sub(" ", _nfkc(text))
    for level in range(3):
        view, starts, ends = _build(_pieces(text, level))
        if view == reference:
            break
    return TextView(text, view, starts, ends)


def _build(pieces) -> Tuple[str, List[int], List[int]]:
    """The view and its map from the pieces, whitespace runs made one space."""
    out: List[str] = []
    starts: List[int] = []
    ends: List[int] = []
    for s, e, normal, exact in pieces:
        if exact:
            # Characters the reading keeps as they are (ASCII words): map one to one.
            if normal[0] == " " and out and out[-1][-1] == " " and ends[-1] == s:
                # The space after something invisible that followed a space.
                ends[-1] = s + 1
                normal, s = normal[1:], s + 1
                if not normal:
                    continue
            out.append(normal)
            starts.extend(range(s, e))
            ends.extend(range(s + 1, e + 1))
            continue
        if not normal:
            if out and out[-1][-1] == " " and ends[-1] == s:
                # Something invisible inside a whitespace run keeps the run one space.
                ends[-1] = e
            continue
        for ch in normal:
            if ch.isspace():
                if out and out[-1][-1] == " " and ends[-1] >= s:
                    ends[-1] = e
                    continue
                ch = " "
            out.append(ch)
            starts.append(s)
            ends.append(e)
    return "".join(out), starts, ends


class SuspiciousChar(NamedTuple):
    """A character that made a word mix scripts, or struck it through (spec §4.1, `suspicious_characters`)."""

    char: str
    code_point: str   # "U+043E"
    name: str         # "CYRILLIC SMALL LETTER O"
    script: str       # "CYRILLIC"; STRUCK for a strike-through overlay
    offset: int       # index in the token's raw text


#: the ``script`` of a strike-through overlay mark (``textview.json``'s ``strike_overlays``)
STRUCK = "STRUCK"
#: the ``script`` of a combining mark past ``textview.json``'s ``stacked_marks`` on one letter
STACKED = "STACKED"


class TokenReading(NamedTuple):
    """One token read as a person sees it."""

    canonical: str
    suspicious: Tuple[SuspiciousChar, ...] = ()

    @property
    def is_suspicious(self) -> bool:
        return bool(self.suspicious)


_COMMON_SCRIPTS = frozenset({"COMMON", "INHERITED", "Unknown"})


def _script(ch: str) -> str:
    """Script of one character (Unicode Scripts.txt, via confusable-homoglyphs)."""
    if ch < "\x80":
        return "LATIN" if ch.isalpha() else "COMMON"
    if ch in _rules()["common"]:
        return "COMMON"
    from confusable_homoglyphs import categories
    return categories.alias(ch)


@functools.lru_cache(maxsize=8192)
def _letter_script(ch: str) -> Optional[str]:
    """The script a letter or mark counts for in mixed-script detection, else None."""
    if not unicodedata.category(ch).startswith(("L", "M")):
        return None
    script = _script(ch)
    return None if script in _COMMON_SCRIPTS else script


def _is_mixed(scripts: FrozenSet[str]) -> bool:
    """TR39 §5.1: mixed when no augmented script set holds every script of the word."""
    if len(scripts) <= 1:
        return False
    augmented = _rules()["augmented"]
    resolved = None
    for script in scripts:
        sets = augmented.get(script, frozenset({script}))
        resolved = sets if resolved is None else resolved & sets
    return not resolved


def _latin_homoglyphs(ch: str) -> List[str]:
    """The homoglyphs of ``ch`` written in Latin letters only (Unicode confusables.txt)."""
    from confusable_homoglyphs import confusables
    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"]) or []
    out = []
    for entry in found:
        for glyph in entry.get("homoglyphs", ()):
            c = glyph.get("c", "")
            if c and all(_script(x) == "LATIN" for x in c):
                out.append(c)
    return out


@functools.lru_cache(maxsize=4096)
def _latin_lookalike(ch: str) -> Optional[str]:
    """The Latin character(s) ``ch`` is confusable with, or None.

    The library keeps TR39's confusable pairs without their direction, so among
    ``ch``'s homoglyphs we take one written in Latin letters only, preferring a
    single ASCII letter. TR39 folds case look-alikes too (Cyrillic "І" and Latin
    "I" both have "l" as prototype); a capital that lands on a small letter is
    taken to the capital ASCII letter confusable with it, so "І" reads "I", as
    a person reads it. Only non-Latin letters of a mixed word are mapped:
    TR39's full skeleton also rewrites Latin ("m" -> "rn"), which would no
    longer match the glossary's own spelling.
    """
    candidates = _latin_homoglyphs(ch)
    if not candidates:
        return None
    pick = min(candidates, key=lambda c: (len(c), not c.isascii(), c))
    if ch.isupper() and not pick.isupper():
        capitals = [c for c in [pick] + _latin_homoglyphs(pick)
                    if len(c) == 1 and c.isascii() and c.isupper()]
        if not capitals and len(pick) == 1:
            from confusable_homoglyphs import confusables
            capitals = [g.get("c", "") for g in confusables.confusables_data.get(pick, ())
                        if len(g.get("c", "")) == 1 and g["c"].isascii() and g["c"].isupper()]
        if capitals:
            pick = min(capitals)
    return pick


@cached(65536)
def read_token(text: str) -> TokenReading:
    """The canonical form of one token's raw text and what is suspicious in it.

    text (str): A token's text as written (``token.text``).
    RETURNS (TokenReading): ``canonical`` is NFKC with ignorables removed; when
        the word mixes letters of two scripts ("A<Cyrillic о>G"), its non-Latin
        letters are replaced by their Latin look-alikes where Unicode lists one,
        and ``suspicious`` names the characters of the minority script (every
        non-Latin letter when Latin is one of the scripts). A word in one
        script (Greek, Cyrillic) is left as it is and is not suspicious. A
        strike-through overlay mark ("r<U+0336>e<U+0336>…") is suspicious too,
        script ``STRUCK``: the word reads as its letters, crossed out.
    RAISES (TypeError): ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise TypeError(f"read_token needs a str, not {type(text).__name__}")
    if text.isascii():
        return TokenReading(text)
    normal = _nfkc(text)
    overlays = _rules()["overlays"]
    struck = tuple(SuspiciousChar(raw, f"U+{ord(raw):04X}", unicodedata.name(raw, "UNNAMED"), STRUCK, offset)
                   for offset, raw in enumerate(text) if raw in overlays) + _stacked(text, overlays)
    scripts = [s for s in map(_letter_script, normal) if s is not None]
    if not _is_mixed(frozenset(scripts)):
        return TokenReading(normal, struck)
    if "LATIN" in scripts:
        foreign = frozenset(scripts) - {"LATIN"}
    else:
        # No Latin: the script most letters are in is the word's, the rest is odd.
        main = Counter(scripts).most_common(1)[0][0]
        foreign = frozenset(scripts) - {main}
    suspicious = []
    for offset, raw in enumerate(text):
        letter = _nfkc(raw)
        script = _letter_script(letter[0]) if letter else None
        if script in foreign:
            suspicious.append(SuspiciousChar(raw, f"U+{ord(raw):04X}", unicodedata.name(raw, "UNNAMED"),
                                             script, offset))
    # TR39 takes the skeleton of the NFD form, before compatibility folding: NFKC
    # would turn GREEK LUNATE SIGMA SYMBOL (a "c" look-alike) into a final sigma
    # that looks like nothing Latin. So map first, then read the result in NFKC.
    skeleton = []
    for ch in unicodedata.normalize("NFD", _strip_ignorable(text)):
        script = _letter_script(ch)
        latin = _latin_lookalike(ch) if script is not None and script != "LATIN" else None
        skeleton.append(latin if latin is not None else ch)
    return TokenReading(_nfkc("".join(skeleton)), tuple(suspicious) + struck)


def _stacked(text: str, overlays: frozenset) -> Tuple[SuspiciousChar, ...]:
    """The combining marks of a token past ``stacked_marks.most`` on one letter (overlays aside,
    which are named as such)."""
    most, out, run = _rules()["most_marks"], [], 0
    for offset, raw in enumerate(text):
        if is_ignorable(raw):
            continue  # a joiner between the marks draws nothing: they pile on the same letter
        if unicodedata.category(raw) not in ("Mn", "Me"):
            run = len(unicodedata.normalize("NFD", raw)) - 1  # the marks a precomposed letter holds ("é")
            continue
        run += 1
        if run > most and raw not in overlays:
            out.append(SuspiciousChar(raw, f"U+{ord(raw):04X}", unicodedata.name(raw, "UNNAMED"), STACKED, offset))
    return tuple(out)


#: punctuation at either end of a token ("A0G.")
_EDGE_PUNCTUATION = re.compile(r"^[^\w]+|[^\w]+$")
#: readings of one token at most ("1" may stand for "i" or "l"); a token with more is an identifier
_MAX_DIGIT_READINGS = 16


def digit_spellings(text: str) -> Tuple[str, ...]:
    """What a token reads as when its digits stand for the letters they look like
    ("gr0unded": "grounded"; "fai1ed": "faiied", "failed"), lower-cased; () for any other token.

    Such a token is letters and digits only (punctuation at either end aside),
    holds two letters or more and a digit, each digit one of
    ``textview.json``'s ``digit_lookalikes``; a digit may stand first or last
    ("0OS": "oos").
    Whether a reading is a word is for the caller to say: "N123AB" reads as
    "nizeab", which is nothing, and stays an identifier.

    text (str): A token's text.
    RETURNS (Tuple[str, ...]): Every reading, at most 16; () when there would be more.
    """
    text = _EDGE_PUNCTUATION.sub("", text)  # "A0G." as the tokenizer may leave it
    if not text or text.isalpha() or not text.isalnum() or sum(map(str.isalpha, text)) < 2:
        return ()
    lookalikes = _rules()["digits"]
    readings = [""]
    for ch in text.lower():
        if ch.isalpha():
            readings = [r + ch for r in readings]
            continue
        letters = lookalikes.get(ch)
        if letters is None:
            return ()
        readings = [r + letter for r in readings for letter in letters]
        if len(readings) > _MAX_DIGIT_READINGS:
            return ()
    return tuple(readings)


def reads_as_itself(text: str) -> bool:
    """Whether the canonical view of ``text`` is ``text`` itself, character for character.

    True for printable ASCII with single spaces, and for any text that is
    already NFKC, has no ignorable character and no whitespace but single
    ASCII spaces ("excursión", "7 °C"): the usual non-English text costs two
    C-level scans, not a view. Token readings may still differ (a
    mixed-script word reads as its Latin skeleton), which ``is_canonical``
    rules out and this does not. The answer for the last text asked about
    that is not printable ASCII is kept: the rules of a pipe ask it of one
    doc's text in turn, and each asking would scan that text again.
    """
    if _fast(text):
        return True
    last, answer = _LAST_ITSELF[0]
    if last != text:
        answer = (text.isprintable() and "  " not in text and unicodedata.is_normalized("NFKC", text)
                  and _ignorable_re().search(text) is None)
        _LAST_ITSELF[0] = (text, answer)
    return answer


# The last text ``reads_as_itself`` scanned and its answer (a str never changes, so it cannot go stale).
_LAST_ITSELF: List[Tuple[str, bool]] = [("", True)]


def is_canonical(text: str) -> bool:
    """Whether ``text`` is its own canonical reading (printable ASCII, single spaces).

    The pipes test this once per doc: when it holds, every view is the
    identity and the per-token readings are the folded token texts, so the
    usual doc pays for nothing else.
    """
    return _fast(text)


@cached(65536)
def read_word(text: str) -> str:
    """The *reading* of one token's text: canonical (``read_token``), folded, whitespace as one space.

    What every pipe compares (cue words, match keys before inflection, typo
    repair candidates), so that "n<U+200B>ot" is the cue "not" and "A<Cyrillic
    о>G" the abbreviation "AOG" everywhere at once. A token made only of
    whitespace or format characters reads ``""``: it is nothing, not a word
    (and not a clause break: spec §4.1 reads a run of whitespace, line breaks
    included, as one space).

    text (str): A token's text as written.
    RETURNS (str): The folded canonical form, "" for nothing.
    """
    from ..util.textnorm import fold

    if text.isascii():
        return "" if text.isspace() else fold(text)
    canonical = _RUNS_WS.sub(" ", read_token(text).canonical).strip()
    return fold(canonical) if canonical else ""

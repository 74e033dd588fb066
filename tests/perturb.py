"""Perturb a text the way a careless or hostile writer does, without changing what a person sees.

Spec §4.1 says rules read the text a person sees; issue 11 found that odd
whitespace, invisible format characters, decomposed accents and look-alike
letters from other scripts made non-proceed cases proceed. These helpers make
such texts on purpose, for property tests and for ``scripts/perturb_probe``.
Each perturbation is tagged with its family so a failure says which kind of
writing got through.

Families:
- ``whitespace``: a space becomes another whitespace run (two spaces, tab,
  line break, no-break spaces, ideographic space).
- ``format``: a format character (zero-width space/joiners, soft hyphen, word
  joiner, BOM, bidi marks) or a variation selector inside or between words.
- ``combining``: an accented letter written decomposed (letter + combining
  mark) or an accent added, composed or decomposed; matching is
  accent-insensitive (spec §3), so the word still reads the same. No accent
  is added to a word that the packs tell apart by its accent (spec §4: "si"
  and "sí", "ou" and "où"): there it makes another word.
- ``homoglyph``: a Latin letter swapped for its Cyrillic or Greek look-alike.
- ``mixed``: two or three of the above in one text.

The characters come from ``tests/data/perturb_chars.json``.
"""
import json
import random
import re
import unicodedata
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from hypothesis import strategies as st

_CHARS = json.loads((Path(__file__).parent / "data" / "perturb_chars.json").read_text("utf-8"))
WHITESPACE: Tuple[str, ...] = tuple(_CHARS["whitespace"])
FORMAT: Tuple[str, ...] = tuple(_CHARS["format"])
COMBINING: Tuple[str, ...] = tuple(_CHARS["combining"])
HOMOGLYPHS: Dict[str, Tuple[str, ...]] = {k: tuple(v) for k, v in _CHARS["homoglyph"].items()}

BASIC_FAMILIES: Tuple[str, ...] = ("whitespace", "format", "combining", "homoglyph")
FAMILIES: Tuple[str, ...] = BASIC_FAMILIES + ("mixed",)


class Perturbed(NamedTuple):
    """A perturbed text, the family that made it, and the edits in order (for a failure message)."""

    text: str
    family: str
    edits: Tuple[str, ...]


Focus = Optional[Sequence[Tuple[int, int]]]


def _edits(rng: random.Random) -> int:
    return rng.choice((1, 1, 2, 3))


def _within(positions: List[int], focus: Focus) -> List[int]:
    """The positions inside a focus range (ends included: a space just after a
    word is part of its reading); all of them when nothing is in focus."""
    if not focus:
        return positions
    inside = [i for i in positions if any(s <= i <= e for s, e in focus)]
    return inside or positions


def focus_around(text: str, surfaces: Sequence[str]) -> List[Tuple[int, int]]:
    """Ranges of ``surfaces`` in ``text`` (case-insensitive), each widened by one
    word on either side so a cue before a term ("not clear to close") is in focus."""
    lowered = text.lower()
    ranges = []
    for surface in surfaces:
        if not isinstance(surface, str) or not surface:
            continue
        start = lowered.find(surface.lower())
        while start >= 0:
            s, e = start, start + len(surface)
            s = text.rfind(" ", 0, max(text.rfind(" ", 0, s), 0)) + 1 if s > 0 else 0
            nxt = text.find(" ", e + 1)
            e = len(text) if nxt < 0 else nxt
            ranges.append((s, e))
            start = lowered.find(surface.lower(), start + 1)
    return ranges


def whitespace(text: str, rng: random.Random, focus: Focus = None) -> Optional[Tuple[str, List[str]]]:
    """Replace one to three single spaces by another whitespace run; None if the text has no space."""
    spaces = _within([i for i, ch in enumerate(text) if ch == " "], focus)
    if not spaces:
        return None
    chosen = sorted(rng.sample(spaces, min(len(spaces), _edits(rng))), reverse=True)
    edits = []
    for i in chosen:
        variant = rng.choice(WHITESPACE)
        text = text[:i] + variant + text[i + 1:]
        edits.append(f"space at {i} -> {variant!r}")
    return text, edits


def format_chars(text: str, rng: random.Random, focus: Focus = None) -> Optional[Tuple[str, List[str]]]:
    """Insert one to three format characters, inside a word or next to a space."""
    if not text:
        return None
    edits = []
    for _ in range(_edits(rng)):
        inside = _within([i for i in range(1, len(text)) if text[i - 1].isalnum() and text[i].isalnum()], focus)
        between = _within([i for i in range(len(text) + 1)
                           if (i < len(text) and text[i] == " ") or (i > 0 and text[i - 1] == " ")], focus)
        where = inside if inside and (not between or rng.random() < 0.6) else (between or [0])
        i = rng.choice(where)
        ch = rng.choice(FORMAT)
        text = text[:i] + ch + text[i:]
        edits.append(f"insert U+{ord(ch):04X} at {i}")
    return text, edits


def _accent_sensitive_letters(text: str) -> set:
    """Offsets of the letters of words an accent would make into another word ("si": "sí")."""
    from semgap_spacy.lang import packs
    from semgap_spacy.util.textnorm import fold

    sensitive = {fold(w) for pack in packs().values() for w in pack.accent_sensitive}
    return {i for m in re.finditer(r"\w+", text) if fold(m.group()) in sensitive for i in range(*m.span())}


def combining(text: str, rng: random.Random, focus: Focus = None) -> Optional[Tuple[str, List[str]]]:
    """Write an accented letter decomposed, or give a Latin letter an accent (composed or not),
    except a letter of a word the packs tell apart by its accent."""
    accented = [i for i, ch in enumerate(text) if len(unicodedata.normalize("NFD", ch)) > 1 and ch.isalpha()]
    letters = [i for i, ch in enumerate(text) if ch.isascii() and ch.isalpha()]
    if not accented and not letters:
        return None
    edits = []
    for _ in range(_edits(rng)):
        accented = _within([i for i, ch in enumerate(text)
                            if len(unicodedata.normalize("NFD", ch)) > 1 and ch.isalpha()], focus)
        kept = _accent_sensitive_letters(text)
        letters = _within([i for i, ch in enumerate(text) if ch.isascii() and ch.isalpha() and i not in kept],
                          focus)
        if not accented and not letters:
            break  # only a word an accent would change is left: nothing to add one to
        if accented and (not letters or rng.random() < 0.5):
            i = rng.choice(accented)
            text = text[:i] + unicodedata.normalize("NFD", text[i]) + text[i + 1:]
            edits.append(f"decompose {text[i]!r} at {i}")
            continue
        i = rng.choice(letters)
        mark = rng.choice(COMBINING)
        composed = unicodedata.normalize("NFC", text[i] + mark)
        if len(composed) == 1 and rng.random() < 0.5:
            text = text[:i] + composed + text[i + 1:]
            edits.append(f"compose {composed!r} at {i}")
        else:
            text = text[:i + 1] + mark + text[i + 1:]
            edits.append(f"add U+{ord(mark):04X} after {i}")
    return (text, edits) if edits else None


def homoglyphs(text: str, rng: random.Random, focus: Focus = None) -> Optional[Tuple[str, List[str]]]:
    """Swap one or two Latin letters of a word for Cyrillic or Greek look-alikes."""
    # A word keeps at least one Latin letter, so it mixes scripts (what spec §4.1
    # covers); a word written wholly in Cyrillic look-alikes is another attack.
    swappable = _within([i for i, ch in enumerate(text) if ch in HOMOGLYPHS], focus)
    if not swappable:
        return None
    edits = []
    for i in rng.sample(swappable, len(swappable)):
        if len(edits) >= rng.choice((1, 1, 2)):
            break
        start, end = i, i + 1
        while start > 0 and text[start - 1].isalpha():
            start -= 1
        while end < len(text) and text[end].isalpha():
            end += 1
        if sum(1 for ch in text[start:end] if ch.isascii()) < 2:
            continue
        look = rng.choice(HOMOGLYPHS[text[i]])
        edits.append(f"{text[i]!r} at {i} -> U+{ord(look):04X} {unicodedata.name(look)}")
        text = text[:i] + look + text[i + 1:]
    return (text, edits) if edits else None


_BY_FAMILY: Dict[str, Callable[..., Optional[Tuple[str, List[str]]]]] = {
    "whitespace": whitespace, "format": format_chars, "combining": combining, "homoglyph": homoglyphs,
}


def perturb(text: str, family: str, rng: random.Random, focus: Focus = None) -> Optional[Perturbed]:
    """One perturbation of ``text`` from ``family``; None when the family has nothing to change.

    text (str): A text a person reads.
    family (str): One of FAMILIES.
    rng (random.Random): The source of every choice, so a seed reproduces the text.
    focus (Optional[Sequence[Tuple[int, int]]]): Ranges of ``text`` to edit (the
        words that decide the case, where a hostile writer would aim); edits
        fall back to the whole text when no candidate is in focus. Focus
        offsets refer to the text before any edit; a second edit of a family
        may land slightly off them.
    RETURNS (Optional[Perturbed]): The new text (always different from ``text``).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown perturbation family {family!r}; known: {', '.join(FAMILIES)}")
    if family == "mixed":
        steps = rng.sample(BASIC_FAMILIES, rng.choice((2, 3)))
        edits: List[str] = []
        out = text
        for step in steps:
            done = _BY_FAMILY[step](out, rng, focus)
            if done is not None:
                out = done[0]
                edits.extend(f"{step}: {e}" for e in done[1])
        return Perturbed(out, family, tuple(edits)) if out != text else None
    done = _BY_FAMILY[family](text, rng, focus)
    if done is None or done[0] == text:
        return None
    return Perturbed(done[0], family, tuple(done[1]))


def perturbations(text: str, families: Sequence[str] = FAMILIES) -> st.SearchStrategy:
    """A hypothesis strategy of ``Perturbed`` versions of ``text`` (families drawn from ``families``).

    Drawn as (family, seed) so a failing example prints a reproducible pair;
    families with nothing to change in this text are filtered out.
    """
    applicable = [f for f in families if any(perturb(text, f, random.Random(s)) for s in range(3))]
    if not applicable:
        raise ValueError(f"no perturbation family in {families} can change {text!r}")
    return st.builds(lambda family, seed: perturb(text, family, random.Random(seed)),
                     st.sampled_from(applicable), st.integers(0, 2 ** 32 - 1)).filter(lambda p: p is not None)

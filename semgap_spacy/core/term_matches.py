"""Term matches on plain values: frame pairing and the final choice of terms.

The terms pipe turns PhraseMatcher matches into (start, end, row) tuples over
token positions; what is decided from there on (which head pairs with which
outcome, which frame parts are left dangling, which of several matches on
the same tokens is reported) needs no Doc, so it lives here and is tested
with literals.
"""
from typing import Callable, Dict, Iterable, List, NamedTuple, Set, Tuple


class MatchRow(NamedTuple):
    """What a PhraseMatcher match id means (the terms pipe builds one per (label, id) pair)."""

    label: str
    span_id: str
    part: int  # 0 for a term, 1 for a frame head, 2 for a frame outcome
    domain: str
    dropped: bool
    frame_id: str
    window: int  # for a frame head: how many tokens may separate it from its outcome
    term: "FoundTerm"  # what the match reports when it is a term
    frame_term: "FoundTerm"  # what a frame pair this outcome completes reports
    dangling: "FoundTerm"  # what this frame part reports when no term covers it
    order: Tuple[int, int] = (0, 0)  # (label, id) hashes: matches on the same tokens sort as Spans do


class FoundTerm(NamedTuple):
    """What a found term reports; a found term is (start, end, FoundTerm)."""

    label: str
    span_id: str
    preference: tuple
    label_hash: int
    id_hash: int


class FramePair(NamedTuple):
    """A head and an outcome paired into a frame term, with the words between them.

    The gap [gap_start, gap_end) is empty when the two touch ("xm neg"). Its
    words are not the frame's own: "crossmatch came back negative" pairs, but
    "came back" is read like any other words (spec §4.1), so a frame can never
    vouch for words it does not hold.
    """

    start: int
    end: int
    term: FoundTerm
    gap_start: int
    gap_end: int


def pair_frames(parts: List[tuple], blocked: Callable[[int, int], bool]) -> List[FramePair]:
    """Frame terms: a head and an outcome of one frame, either order, within
    the frame's window and with nothing between them that keeps them apart.

    parts (List[tuple]): Frame-part matches as (start, end, MatchRow).
    blocked (Callable[[int, int], bool]): Whether the tokens [start, end)
        between a head and an outcome hold a clause break (spec §3's "no
        clause break between"); asked only for a non-empty gap.
    RETURNS (List[FramePair]): One per pair.
    """
    heads = [part for part in parts if part[2].part == 1]
    if not heads or len(heads) == len(parts):
        return []  # heads alone or outcomes alone pair with nothing
    # a word inside a longer part is that part's ("reactive" in "non-reactive"), never a part of its own
    parts = [p for p in parts if not any(o[0] <= p[0] and p[1] <= o[1] and o[1] - o[0] > p[1] - p[0]
                                         for o in parts)]
    heads = [part for part in parts if part[2].part == 1]
    outcomes = [part for part in parts if part[2].part == 2]
    found = []
    for h_start, h_end, head in heads:
        for o_start, o_end, outcome in outcomes:
            if outcome.frame_id != head.frame_id:
                continue
            if h_start < o_start:
                start, gap_start, gap_end, end = h_start, h_end, o_start, o_end
            else:
                start, gap_start, gap_end, end = o_start, o_end, h_start, h_end
            if gap_start > gap_end or gap_end - gap_start > head.window:
                continue  # overlapping (not a head/outcome pair), or too far apart
            if gap_start == gap_end or not blocked(gap_start, gap_end):
                found.append(FramePair(start, end, outcome.frame_term, gap_start, gap_end))
    return found


def term_order(found: tuple) -> tuple:
    """Sort key of found terms: by position, longest first, then by label and preference."""
    return found[0], -found[1], found[2].label, found[2].preference


def final_terms(terms: List[tuple]) -> List[tuple]:
    """Terms in report order, keeping one of equal (start, end, term) and
    dropping a term inside a longer match of the same term ("cold ischemia"
    inside "cold ischemia time").

    After the sort, whatever covers a term comes before it, so one pass
    against the spans already kept per term does both.
    """
    terms.sort(key=term_order)
    kept: Dict[str, List[Tuple[int, int]]] = {}
    final = []
    for found in terms:
        start, end, term = found
        spans = kept.get(term.label)
        if spans is None:
            kept[term.label] = [(start, end)]
        elif covered(start, end, spans):
            continue
        else:
            spans.append((start, end))
        final.append(found)
    return final


def beaten(frame: tuple, terms: List[tuple]) -> bool:
    """Whether ``final_terms`` would drop a frame pair for a term of the same
    label: one that covers it and is longer, or lies on the same tokens and
    is preferred (or equal: terms come first). Dropping such pairs early
    leaves the usual doc with nothing to sort. Whatever the pair would have
    dropped or overlapped, that term drops or overlaps too."""
    start, end, pair = frame
    for t_start, t_end, term in terms:
        if (term.label == pair.label and t_start <= start and end <= t_end
                and (t_end - t_start > end - start or term.preference <= pair.preference)):
            return True
    return False


def covered(start: int, end: int, spans: List[Tuple[int, int]]) -> bool:
    for o_start, o_end in spans:
        if o_start <= start and end <= o_end:
            return True
    return False


def settled(terms: List[tuple]) -> bool:
    """Whether matches are final as found (the usual case): with starts
    strictly increasing and no two of one term, there is nothing to sort,
    drop or dedupe."""
    previous = -1
    for start, _, _ in terms:
        if start <= previous:
            return False
        previous = start
    return len({term.label for _, _, term in terms}) == len(terms)


def dangling(parts: Iterable[tuple], terms: List[tuple]) -> List[tuple]:
    """Frame heads and outcome words that no term span covers (longest first).

    ``terms`` may still hold terms that ``final_terms`` drops, and lacks the frame
    pairs ``beaten`` left out; each of those lies inside a term that stays,
    so whether a part overlaps some term comes out the same.
    """
    loose = []
    for part in parts:
        for t_start, t_end, _ in terms:
            if t_start < part[1] and part[0] < t_end:
                break  # overlaps a term
        else:
            loose.append(part)
    if not loose:
        return loose  # the usual case: the frame's own span covers its parts
    out = []
    taken: Set[int] = set()
    for start, end, row in sorted(loose, key=longest_first):
        if not taken.isdisjoint(range(start, end)):
            continue
        taken.update(range(start, end))
        out.append((start, end, row.dangling))
    return out


def longest_first(part: tuple) -> tuple:
    return part[0] - part[1], part[0]



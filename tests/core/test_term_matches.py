"""Frame pairing and the final choice of terms, on plain tuples (no Doc)."""
from semgap_spacy.core.term_matches import (FoundTerm, FramePair, MatchRow, beaten, dangling, final_terms, pair_frames,
                                            settled)


def _found(label, preference=(0, 0)):
    return FoundTerm(label, f"id:{label}", preference, hash(label), hash(f"id:{label}"))


def _row(part, frame="XM", window=3, outcome="POS"):
    label = {1: f"HEAD:{frame}", 2: f"OUTCOME:{frame}:{outcome}"}[part]
    return MatchRow(label, "", part, "medical_logistics", False, frame, window if part == 1 else 0,
                    term=_found(label), frame_term=_found(outcome), dangling=_found(f"DANGLING:{label}"))


def never(start, end):
    return False


def test_a_head_pairs_with_an_outcome_in_either_order():
    head, outcome = _row(1), _row(2)
    assert pair_frames([(0, 1, head), (1, 2, outcome)], never) == [FramePair(0, 2, outcome.frame_term, 1, 1)]
    # "negative (came back) crossmatch": the gap is kept, so its words can be read on their own
    assert pair_frames([(0, 1, outcome), (3, 4, head)], never) == [FramePair(0, 4, outcome.frame_term, 1, 3)]


def test_pairs_respect_the_window_and_the_clause_rule():
    head, outcome = _row(1, window=2), _row(2)
    assert pair_frames([(0, 1, head), (4, 5, outcome)], never) == []  # 3 tokens apart
    asked = []

    def comma_between(start, end):
        asked.append((start, end))
        return True

    assert pair_frames([(0, 1, head), (2, 3, outcome)], comma_between) == []
    assert asked == [(1, 2)]


def test_parts_of_different_frames_or_of_one_kind_do_not_pair():
    assert pair_frames([(0, 1, _row(1, frame="A")), (1, 2, _row(2, frame="B"))], never) == []
    assert pair_frames([(0, 1, _row(1)), (2, 3, _row(1))], never) == []


def test_final_terms_drop_a_term_inside_a_longer_match_of_the_same_term():
    cit, longer, other = _found("CIT"), _found("CIT"), _found("TEMP")
    terms = [(0, 2, cit), (0, 3, longer), (5, 6, other), (5, 6, other)]
    assert final_terms(terms) == [(0, 3, longer), (5, 6, other)]
    assert not settled([(0, 2, cit), (0, 3, longer)])
    assert settled([(0, 2, cit), (4, 5, other)])


def test_a_frame_pair_is_beaten_by_a_preferred_phrase_on_the_same_tokens():
    phrase = (0, 2, _found("POS", preference=(0, 0)))
    pair = (0, 2, _found("POS", preference=(0, 3)))
    assert beaten(pair, [phrase])
    assert not beaten(pair, [(0, 2, _found("NEG"))])


def test_frame_parts_no_term_covers_are_dangling_longest_first():
    head, outcome = _row(1), _row(2)
    loose = dangling([(0, 2, head), (1, 2, outcome), (6, 7, outcome)], [(6, 7, _found("X"))])
    assert loose == [(0, 2, head.dangling)]


def test_an_outcome_inside_a_longer_outcome_is_not_an_outcome_of_its_own():
    head, negative, positive = _row(1), _row(2, outcome="NEG"), _row(2, outcome="POS")
    # "non-reactive result on xm": "reactive" (tokens 2-3) lies inside "non-reactive" (0-3)
    pairs = pair_frames([(0, 3, negative), (2, 3, positive), (5, 6, head)], never)
    assert [p.term.label for p in pairs] == ["NEG"]

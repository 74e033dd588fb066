"""The one clause rule, on plain text (spec §4: a cue or quantity belongs to its own clause)."""
import pytest

from semgap_spacy.core.clauses import ClauseRule, clause_rule


@pytest.mark.parametrize("text,broken", [
    ("crossmatch result: positive", False),   # a colon is no break
    ("crossmatch, positive", True),
    ("25,5 h", False),                        # a decimal comma
    ("crossmatch; positive", True),
    ("crossmatch - positive", True),          # a spaced hyphen separates
    ("cross-match positive", False),          # an unspaced one joins
    ("2-8 C", False),
    ("crossmatch — positive", True),
    ("crossmatch\npositive", False),         # a line break is whitespace (spec §4.1)
    ("crossmatch,\u200b positive", True),
    ("crossmatch bu\u200bt positive", True), # a format character hides no break word
    ("crossmatch. Positive", True),
    ("CIT approx. 30 h", False),              # an abbreviation's full stop
    ("46.4 F", False),                        # a decimal point
    ("crossmatch but positive", True),
    ("crossmatch pero positive", True),
    ("crossmatch aber positive", True),
    ("crossmatch mais positive", True),
    ("crossmatch butter positive", False),    # whole words only
])
def test_clause_breaks(text, broken):
    assert clause_rule().break_between(text, 0, len(text)) is broken


def test_breaks_are_character_ranges_into_the_text():
    text = "no delays, crossmatch positive; but fine"
    assert [text[a:b] for a, b in clause_rule().breaks(text)] == [",", ";", "but"]


def test_a_rule_with_its_own_words():
    rule = ClauseRule(["zut"], ["ca"])
    assert rule.break_between("a zut b", 0, 7)
    assert not rule.break_between("ca. 30 h", 0, 8)
    assert rule.break_between("a but b", 0, 7) is False


def test_breaks_of_the_same_text_asked_again_are_the_same_and_a_copy():
    rule = clause_rule()
    text = "No delays, crossmatch positive; box 4 C. Released"
    first = rule.breaks(text)
    first.append((0, 0))  # a caller's own list: the kept answer is not touched
    assert rule.breaks(text) == first[:-1] == [(9, 10), (30, 31), (39, 40)]
    assert rule.breaks(text, 0, 20) == [(9, 10)]  # another range is worked out, not taken from the last
    assert rule.breaks("a, b") == [(1, 2)]
    assert rule.breaks(text) == first[:-1]

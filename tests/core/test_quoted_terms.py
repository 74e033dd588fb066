"""A term in quotation marks of its own escalates; a quotation that holds more is read word by
word (``core.quoted_terms``)."""
import pytest

from semgap_spacy.core.quoted_terms import unread_quoted_terms

T, S = "term", "shape"


def _marks(text, explained):
    starts, ends, at = [], [], 0
    for word in text.split(" "):
        starts.append(at)
        ends.append(at + len(word))
        at += len(word) + 1
    return unread_quoted_terms(list(explained), text, starts, ends, T)


def test_marks_right_around_the_term_are_left_unexplained():
    assert _marks('" airworthy "', [S, T, S]) == [None, T, None]
    assert _marks("« prêt pour la clôture »", [S, T, T, T, T, S]) == [None, T, T, T, T, None]
    assert _marks("'' airworthy ''", [S, T, S]) == [None, T, None]  # two apostrophes for a double mark
    assert _marks("＂airworthy＂", [T]) == [None]  # marks the tokenizer left on the term's word
    assert _marks("status : ＂airworthy＂", ["stop", S, T]) == ["stop", S, T]  # what a field said


@pytest.mark.parametrize("text, explained", [
    ('" airworthy , thanks "', [S, T, S, "stop", S]),  # the quotation holds more than the term
    ("` airworthy `", [S, T, S]),  # chat formatting, not quotation
    ('" airworthy »', [S, T, S]),  # no pair
    ("( airworthy )", [S, T, S]),
    ('status : " airworthy "', ["stop", S, S, T, S]),  # what a field or a speaker said
])
def test_other_marks_stay_explained(text, explained):
    assert _marks(text, explained) == explained


@pytest.mark.parametrize("text, domain", [
    ('"Airworthy"', "aviation_maintenance"),
    ("Aircraft is “airworthy”", "aviation_maintenance"),
    ("Status 'clear to close'", "mortgage"),
    ('"Clear to close."', "mortgage"),  # a sentence's end inside the quotation
    ("«Lot libéré.»", "pharma_qa"),
    ("„Lufttüchtig.“", "aviation_maintenance"),
    ("''Clear to close''", "mortgage"),
    ("＂Airworthy＂", "aviation_maintenance"),
    ("＂Clear to close＂", "mortgage"),  # marks left on the first and last words of the term
    ("˝Clear to close˝", "mortgage"),
    ("’’Clear to close’’", "mortgage"),
])
def test_a_quoted_clearance_escalates_with_its_marks_quoted(decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    quoted = [w for r in decision["reasons"] if r["code"] == "unexplained_content" for w in r["words"]]
    assert any(mark in word for word in quoted for mark in ('"', "“", "”", "'", "«", "»", "„", "＂", "˝", "’"))


def test_a_forwarded_quotation_is_read_word_by_word(decide):
    assert decide('Underwriter: "clear to close"', domain="mortgage")["decision"] == "proceed"  # after a colon
    assert decide("`airworthy` N155RW", domain="aviation_maintenance")["decision"] == "proceed"

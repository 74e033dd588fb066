"""A mark or word that says "about" with no value after it in its clause escalates; before a value
it belongs to the value (``core.approximations``)."""
import pytest

from semgap_spacy.core.approximations import unread_approximations

S = "shape"
_MARKS = frozenset({"~", "≈"})


def _read(text, explained, words=frozenset({"ca"})):
    starts, ends, at = [], [], 0
    for word in text.split(" "):
        starts.append(at)
        ends.append(at + len(word))
        at += len(word) + 1
    return unread_approximations(list(explained), text, starts, ends, _MARKS, words, lambda w: w == "two")


@pytest.mark.parametrize("text, explained, expected", [
    ("airworthy ~", ["term", S], ["term", None]),  # nothing after it
    ("~ airworthy", [S, "term"], [None, "term"]),  # no value after it
    ("eta ~ 14:00", ["neutral", S, S], ["neutral", S, S]),  # a value after it
    ("funds ≈ $ 412,000", ["neutral", S, S, S], ["neutral", S, S, S]),  # a sign, then the value
    ("eta ~ two hours", ["neutral", S, "stop", "neutral"], ["neutral", S, "stop", "neutral"]),
    ("airworthy ~ , eta 14:00", ["term", S, S, "neutral", S], ["term", None, S, "neutral", S]),
    ("lufttüchtig ca", ["term", "stop"], ["term", None]),  # a pack's word
    ("apte ça", ["term", "stop"], ["term", "stop"]),  # read with its accents: fr "ça" is no "ca"
])
def test_a_mark_of_approximation_needs_a_value_after_it(text, explained, expected):
    assert _read(text, explained) == expected


@pytest.mark.parametrize("text, domain", [
    ("Airworthy ~", "aviation_maintenance"),
    ("Airworthy ∼", "aviation_maintenance"),  # U+223C TILDE OPERATOR
    ("Clear to close ～", "mortgage"),  # full width
    ("Negative crossmatch ≅", "medical_logistics"),
    ("~ Airworthy", "aviation_maintenance"),
    ("Lufttüchtig ca.", "aviation_maintenance"),
    ("Airworthy\n~", "aviation_maintenance"),  # on a line of its own
    ("Airworthy 〜", "aviation_maintenance"),  # U+301C WAVE DASH
    ("Airworthy ≒", "aviation_maintenance"),
    ("Airworthy +/-", "aviation_maintenance"),
])
def test_about_with_nothing_to_be_about_escalates(decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    assert "unexplained_content" in {r["code"] for r in decision["reasons"]}


@pytest.mark.parametrize("text, domain", [
    ("Airworthy. ETA ~ 14:00.", "aviation_maintenance"),
    ("Clear to close, funds ~ $412,000.", "mortgage"),
    ("Batch released. Shipment ≈ 200 orders.", "pharma_qa"),
    ("Airworthy, ETA ~14:00", "aviation_maintenance"),
    ("Apte au vol. Ça rend service, merci", "aviation_maintenance"),
    ("Underwriter confirms clear to close. Thanks ~ team", "mortgage"),  # a separator in another sentence
])
def test_about_a_value_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"

"""The shortcuts of the quantity linker and the readings check agree with the
slow paths they replace."""
import random

import pytest
import spacy

from semgap_spacy.glossary import load_glossaries
from semgap_spacy.quantities import (_break_re, _NON_FINAL, _sentence_starts, _sentence_starts_in,
                                     _word_before, break_between, find_quantities)
from semgap_spacy.readings import (_code, _field_checks, _field_index, _limits, check_reading,
                                   contract_message, within)
from semgap_spacy.units import convert, get_registry


@pytest.fixture(scope="module")
def glossary():
    return load_glossaries()


def _break_between_by_regex(text, start, end):
    """break_between without its whitespace shortcut."""
    for m in _break_re().finditer(text, start, end):
        if m.group() == "." and _word_before(text, m.start()).casefold() in _NON_FINAL:
            continue
        return True
    return False


@pytest.mark.parametrize("text", [
    "CIT 30 h", "CIT  30 h", "CIT\t30 h", "CIT \n 30 h", "CIT - 30 h", "CIT — 30 h",
    "CIT, 30 h", "CIT but 30 h", "CIT. 30 h", "CIT approx. 30 h", "CIT: 30 h", "2 - 8 °C",
])
def test_break_between_whitespace_shortcut_agrees_with_the_regex(text):
    for start in range(len(text)):
        for end in range(start, len(text) + 1):
            assert break_between(text, start, end) == _break_between_by_regex(text, start, end)


def test_find_quantities_skips_ahead_to_digits():
    assert find_quantities("no digits here at all") == []
    assert [(q.start, q.end, q.value) for q in find_quantities("x 30 hours")] == [(2, 10, 30.0)]


def _random_sentences(doc, rng):
    for token in doc[1:]:
        if rng.random() < 0.4:
            token.is_sent_start = rng.choice([True, False, None])


def test_sentence_starts_in_reads_only_the_gap_tokens():
    """For every gap between two token ranges, the token-level test equals
    the test against ``_sentence_starts`` (the doc.sents it replaces)."""
    rng = random.Random(5)
    nlp = spacy.blank("en")
    texts = ["CIT 30 h", "cold ischemia , 30 h", "CIT: 30h. box temp 5 °C", "a  b   c d"]
    for text in texts:
        for _ in range(30):
            doc = nlp.make_doc(text)
            _random_sentences(doc, rng)
            starts = _sentence_starts(doc)
            n = len(doc)
            for f_end in range(1, n):
                for q_start in range(f_end, n):
                    # gap from the end of a left span to the start of a right one
                    g0 = doc[f_end - 1].idx + len(doc[f_end - 1])
                    g1 = doc[q_start].idx
                    expected = any(g0 < s <= g1 for s in starts)
                    assert _sentence_starts_in(doc, g0, g1, f_end, q_start, [None]) == expected


def test_sentence_starts_in_asks_a_sents_hook():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("CIT 30 h box temp")
    doc.user_hooks["sents"] = lambda d: iter([d[0:2], d[2:]])
    sents = [None]
    assert _sentence_starts_in(doc, 4, 7, 1, 2, sents)  # "h" starts the hooked second sentence
    assert sents[0] == [7]
    assert not _sentence_starts_in(doc, 0, 4, 0, 1, sents)


def test_field_checks_word_like_within_and_contract_message(glossary):
    for (domain, field), check in _field_checks(glossary).items():
        contract = check.term.contract
        assert check.unit == contract.unit
        for value in (-300.0, -1.0, 0.0, 1.0, 2.0, 7.5, 8.0, 24.0, 24.000000000001, 43.0, 190.0,
                      210.0, 1e6):
            code = _code(value, check.low, check.high, check.band)
            assert code == within(value, contract)
            status, verdict = check.verdicts[code]
            assert f"{field} {value:g} {check.unit}{verdict}" == contract_message(field, value, contract, code)
        assert (check.low, check.high) == _limits(contract)


def test_field_checks_cover_the_fields_with_a_contract(glossary):
    index = _field_index(glossary)
    assert set(_field_checks(glossary)) == {k for k, t in index.items() if t.contract is not None}


@pytest.mark.parametrize("reading", [
    {"value": 30, "unit": "h"}, {"unit": "h", "value": 30}, {"value": 30}, {"value": 30, "unit": "h", "x": 1},
    {"duration": "PT30H"}, {"start": "2026-11-29T10:00:00Z"}, {"duration": "PT1H", "start": "x"}, {},
    {1: 2, 3: 4}, {"Value": 1, "Unit": "h"},
])
def test_reading_key_sets(glossary, reading):
    entry = check_reading("cold_ischemia_elapsed", reading, "medical_logistics", glossary,
                          "2026-11-30T10:00:00Z")
    keys = frozenset(reading)
    if keys in (frozenset({"value", "unit"}), frozenset({"duration"}), frozenset({"start"})):
        assert entry["status"] != "malformed" or "keys" not in entry["message"]
    else:
        assert entry["code"] == "malformed_reading" and "are not one of" in entry["message"]


@pytest.mark.parametrize("value,unit,to_unit", [
    (30.0, "h", "h"), (30, "hour", "h"), (90.0, "min", "h"), (2.0, "day", "h"), (46.4, "degF", "degC"),
    (2.0, "bar", "psi"), (300.0, "K", "degC"),
])
def test_convert_matches_pint(value, unit, to_unit):
    ureg = get_registry()
    expected = ureg.Quantity(value, ureg.Unit(unit)).to(ureg.Unit(to_unit)).magnitude
    assert convert(value, unit, to_unit) == pytest.approx(expected, rel=1e-12)
    assert isinstance(convert(value, unit, to_unit), float)


def test_convert_still_refuses_unknown_and_mixed_units():
    with pytest.raises(ValueError):
        convert(1.0, "h", "degC")
    with pytest.raises(ValueError):
        convert(1.0, "not_a_unit_xyz", "h")

"""Tests for ``semgap_quantities``: quantities in text, ties to fields, readings, findings."""
import json
from importlib.metadata import entry_points

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.lang.en import English
from spacy.tokens import Span

import semgap_spacy.pipes.quantities  # noqa: F401  (registers the factory)
from semgap_spacy.pipes.extensions import pack_span_id
from semgap_spacy import assess, build_pipeline
from semgap_spacy.core.reasons import REASON_CODES, outcome_for
from semgap_spacy.glossary.models import load_glossaries
from semgap_spacy.core.findings import field_mentions, quantity_findings as core_quantity_findings
from semgap_spacy.pipes.extensions import quantity_rows, term_rows
from semgap_spacy.core.quantities import find_quantities
from semgap_spacy.pipes.quantities import Quantities

NOW = "2026-11-30T10:00:00Z"
FINDING_KEYS = {"field", "term_id", "status", "code", "outcome", "message", "value", "unit",
                "start_char", "end_char"}


@pytest.fixture(scope="module")
def glossary():
    return load_glossaries()


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_quantities")
    return nlp


def make_doc(nlp, text, fields=(), domain="medical_logistics", readings=None, now=NOW):
    """A doc with hand-made field term spans, as semgap_terms would write them.

    fields: (phrase, field) pairs, or (phrase, field, domain, status).
    """
    glossary = load_glossaries()
    doc = nlp.make_doc(text)
    spans, cursor = [], 0
    for item in fields:
        phrase, field = item[0], item[1]
        span_domain = item[2] if len(item) > 2 else domain
        status = item[3] if len(item) > 3 else "approved"
        start = text.index(phrase, cursor)
        cursor = start + 1
        term = glossary.field_term(span_domain, field)
        span = doc.char_span(start, start + len(phrase), label=term.id,
                             span_id=pack_span_id(span_domain, "field", "en", status, "phrase", field))
        assert span is not None, phrase
        spans.append(span)
    doc.spans["semgap_terms"] = spans
    doc._.semgap_domain = domain
    doc._.semgap_readings = readings
    doc._.semgap_now = now
    return doc


def run(nlp, text, fields=(), **kwargs):
    doc = nlp.get_pipe("semgap_quantities")(make_doc(nlp, text, fields, **kwargs))
    assert doc._.semgap_component_errors is None
    return doc


def quantities(doc):
    return [(s.text, s._.semgap_magnitude, s._.semgap_unit, s._.semgap_linked_field)
            for s in doc.spans["semgap_quantities"]]


# -- finding quantities ----------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("30 hours", [("30 hours", 30.0, "hour", "ok")]),
    ("30h", [("30h", 30.0, "hour", "ok")]),
    ("3 hrs", [("3 hrs", 3.0, "hour", "ok")]),
    ("45d", [("45d", 45.0, "day", "ok")]),
    ("45 mins", [("45 mins", 45.0, "minute", "ok")]),
    ("2 weeks", [("2 weeks", 2.0, "week", "ok")]),
    ("30-hour trip", [("30-hour", 30.0, "hour", "ok")]),
    ("2°C", [("2°C", 2.0, "degree_Celsius", "ok")]),
    ("46.4 °F", [("46.4 °F", 46.4, "degree_Fahrenheit", "ok")]),
    ("5 º C", [("5 º C", 5.0, "degree_Celsius", "ok")]),
    ("300 K", [("300 K", 300.0, "kelvin", "ok")]),
    ("-3 °C", [("-3 °C", -3.0, "degree_Celsius", "ok")]),
    ("−3°C", [("−3°C", -3.0, "degree_Celsius", "ok")]),
    ("32 degrees Celsius", [("32 degrees Celsius", 32.0, "degree_Celsius", "ok")]),
    ("38%", [("38%", 38.0, "percent", "ok")]),
    ("38 pct", [("38 pct", 38.0, "percent", "ok")]),
    ("38 \u066a", [("38 \u066a", 38.0, "percent", "ok")]),  # the Arabic percent sign
    ("5 por ciento", [("5 por ciento", 5.0, "percent", "ok")]),
    ("205 psi", [("205 psi", 205.0, "pound_force_per_square_inch", "ok")]),
    ("14 bar", [("14 bar", 14.0, "bar", "ok")]),
    ("1400kPa", [("1400kPa", 1400.0, "kilopascal", "ok")]),
    ("10 horas", [("10 horas", 10.0, "hour", "ok")]),
    ("10 heures", [("10 heures", 10.0, "hour", "ok")]),
    ("10 Std.", [("10 Std", 10.0, "hour", "ok")]),
    ("5 grados", [("5 grados", 5.0, "degree_Celsius", "ok")]),
    ("PT30H", [("PT30H", 30.0, "hour", "ok")]),
    ("P1DT2H", [("P1DT2H", 26.0, "hour", "ok")]),
    ("P2D", [("P2D", 48.0, "hour", "ok")]),
    # decimal comma vs thousands separator
    ("25,5 h", [("25,5 h", 25.5, "hour", "ok")]),
    ("1,500 h", [("1,500 h", 1500.0, "hour", "ok")]),
    # a minus only counts for temperatures
    ("-30 h", [("30 h", 30.0, "hour", "ok")]),
    # compound durations and ranges
    ("20 h 30 min", [("20 h 30 min", 20.5, "hour", "ok")]),
    ("2 days and 12 hours", [("2 days and 12 hours", 2.5, "day", "ok")]),
    ("2–8 °C", [("2", 2.0, "degree_Celsius", "ok"), ("8 °C", 8.0, "degree_Celsius", "ok")]),
    ("2 to 8 °C", [("2", 2.0, "degree_Celsius", "ok"), ("8 °C", 8.0, "degree_Celsius", "ok")]),
    # ambiguous and unsupported units are quantities with a problem
    ("30 m", [("30 m", 30.0, None, "ambiguous")]),
    ("5°", [("5°", 5.0, None, "ambiguous")]),
    ("3 months", [("3 months", 3.0, "month", "unsupported")]),
    ("2 yrs", [("2 yrs", 2.0, "year", "unsupported")]),
    ("5 \u2030", [("5 \u2030", 5.0, "permille", "unsupported")]),
    ("P1M", [("P1M", None, None, "unsupported")]),
    # not quantities
    ("30", []), ("CIT pending", []), ("30 apples", []), ("1h30", []), ("10:30 h", []),
    ("v2 h", []), ("1,5000 h", []), ("1.500 h", []), ("5 c", []), ("30 M", []), ("PT", []),
    ("pt30h", []), ("", []),
])
def test_find_quantities(text, expected):
    found = [(text[q.start:q.end], q.value, q.unit, q.status) for q in find_quantities(text)]
    assert found == expected


@pytest.mark.parametrize("lang,text,span_text", [
    ("en", "CIT 25,5 h", "25,5 h"),
    ("en", "temp 2°C", "2°C"),
    ("es", "temp 2°C", "2°C"),
    ("en", "DTI 38%", "38%"),
    ("de", "CIT 30 Std.", "30 Std."),  # the German tokenizer keeps "Std." whole: expanded
    ("es", "CIT 30 hours—but", "30 hours—but"),
])
def test_spans_are_aligned_to_tokens(lang, text, span_text):
    nlp = spacy.blank(lang)
    nlp.add_pipe("semgap_quantities")
    doc = nlp(text)
    spans = doc.spans["semgap_quantities"]
    assert [s.text for s in spans] == [span_text]
    assert spans[0].label_ == spans[0]._.semgap_quantity_kind


# -- tying quantities to fields ----------------------------------------------------

CIT = ("CIT", "cold_ischemia_elapsed")
COLD = ("cold ischemia", "cold_ischemia_elapsed")
BOX = ("box temperature", "transport_temperature")


@pytest.mark.parametrize("text,fields,expected", [
    ("xm neg, cold ischemia 30 hours", [COLD], [("30 hours", 30.0, "hour", "cold_ischemia_elapsed")]),
    ("CIT: 30 h", [CIT], [("30 h", 30.0, "hour", "cold_ischemia_elapsed")]),  # a colon is no break
    ("30 h CIT", [CIT], [("30 h", 30.0, "hour", "cold_ischemia_elapsed")]),
    ("CIT 25,5 h", [CIT], [("25,5 h", 25.5, "hour", "cold_ischemia_elapsed")]),  # comma in a number
    ("CIT 90 min", [CIT], [("90 min", 1.5, "hour", "cold_ischemia_elapsed")]),  # in the contract unit
    ("CIT PT30H", [CIT], [("PT30H", 30.0, "hour", "cold_ischemia_elapsed")]),
    ("box temperature 46.4 °F", [BOX], [("46.4 °F", 8.0, "degree_Celsius", "transport_temperature")]),
    ("box temperature 281.15 K", [BOX], [("281.15 K", 8.0, "degree_Celsius", "transport_temperature")]),
    # not across a clause break
    ("CIT, 30 h", [CIT], [("30 h", 30.0, "hour", None)]),
    ("CIT; 30 h", [CIT], [("30 h", 30.0, "hour", None)]),
    ("CIT - 30 h", [CIT], [("30 h", 30.0, "hour", None)]),
    ("CIT pending but 30 h", [CIT], [("30 h", 30.0, "hour", None)]),
    ("CIT unknown. 30 h", [CIT], [("30 h", 30.0, "hour", None)]),
    # a line break is whitespace, not a clause break (spec §4.1)
    ("CIT unknown\n30 h", [CIT], [("30 h", 30.0, "hour", "cold_ischemia_elapsed")]),
    # not across kinds: the quantity keeps its unit as written
    ("box temperature 30 h", [BOX], [("30 h", 30.0, "hour", None)]),
    ("CIT 5 °F", [CIT], [("5 °F", 5.0, "degree_Fahrenheit", None)]),
    # the nearest field of the right kind in the clause
    ("CIT 20 h box temperature 5 °C", [CIT, BOX],
     [("20 h", 20.0, "hour", "cold_ischemia_elapsed"), ("5 °C", 5.0, "degree_Celsius", "transport_temperature")]),
    ("CIT 20 h, box temperature 5 °C", [CIT, BOX],
     [("20 h", 20.0, "hour", "cold_ischemia_elapsed"), ("5 °C", 5.0, "degree_Celsius", "transport_temperature")]),
])
def test_quantity_is_tied_to_the_nearest_field_in_its_clause(nlp, text, fields, expected):
    assert quantities(run(nlp, text, fields)) == expected


@pytest.mark.parametrize("sentence_start,linked", [(None, "cold_ischemia_elapsed"), (2, None)])
def test_sentence_starts_from_a_sentencizer_break_clauses(nlp, sentence_start, linked):
    doc = make_doc(nlp, "CIT value 30 h", [CIT])
    if sentence_start is not None:
        for i, token in enumerate(doc):
            token.is_sent_start = i in (0, sentence_start)
    doc = nlp.get_pipe("semgap_quantities")(doc)
    assert [s._.semgap_linked_field for s in doc.spans["semgap_quantities"]] == [linked]


def test_nearest_of_two_fields_of_the_same_kind(nlp):
    text = "temperature excursion 20 min remaining shelf life 200 days"
    fields = [("temperature excursion", "excursion_duration"), ("remaining shelf life", "remaining_shelf_life")]
    doc = run(nlp, text, fields, domain="pharma_qa")
    assert quantities(doc) == [("20 min", 20.0, "minute", "excursion_duration"),
                               ("200 days", 200.0, "day", "remaining_shelf_life")]
    assert [s._.semgap_linked_term for s in doc.spans["semgap_quantities"]] == ["PHA.EXCURSION", "PHA.SHELF_LIFE"]


def test_field_of_another_domain_is_not_tied(nlp):
    doc = run(nlp, "tire pressure 205 psi", [("tire pressure", "tire_pressure", "aviation_maintenance")])
    assert quantities(doc) == [("205 psi", 205.0, "pound_force_per_square_inch", None)]


def test_max_distance(nlp):
    text = "CIT measured at the hub: 30 h"  # five tokens between
    assert quantities(run(nlp, text, [CIT]))[0][3] == "cold_ischemia_elapsed"
    short = spacy.blank("en")
    short.add_pipe("semgap_quantities", config={"max_distance": 3})
    assert quantities(run(short, text, [CIT]))[0][3] is None


def test_problem_units_in_text(nlp):
    doc = run(nlp, "CIT 30 m; rate unknown, CIT 3 months", [CIT, CIT])
    problems = [(s.text, s._.semgap_quantity_problem, s._.semgap_linked_field)
                for s in doc.spans["semgap_quantities"]]
    assert problems == [("30 m", "ambiguous_unit", "cold_ischemia_elapsed"),
                        ("3 months", "unsupported_unit", "cold_ischemia_elapsed")]


def test_quantity_getter_rebuilds_a_pint_quantity(nlp):
    doc = run(nlp, "box temperature 46.4 °F", [BOX])
    q = doc.spans["semgap_quantities"][0]._.semgap_quantity
    assert q.magnitude == pytest.approx(8.0)
    assert str(q.units) == "degree_Celsius"


# -- findings for the decision -------------------------------------------------------

def codes(findings):
    return [f["code"] for f in findings]


def quantity_findings(doc, glossary):
    """The findings of a processed doc, from its span groups read as rows."""
    fields = field_mentions(term_rows(doc), glossary, doc._.semgap_domain)
    return core_quantity_findings(fields, quantity_rows(doc), doc._.semgap_readings_checked, doc.text)


def findings_for(nlp, glossary, text, fields, **kwargs):
    doc = run(nlp, text, fields, **kwargs)
    found = quantity_findings(doc, glossary)
    for f in found:
        assert set(f) == FINDING_KEYS
        assert f["code"] in REASON_CODES
        assert f["outcome"] == outcome_for(f["code"])
        json.dumps(f, allow_nan=False)
    return found


@pytest.mark.parametrize("text,fields,domain,code", [
    ("cold ischemia 30 hours", [COLD], "medical_logistics", "limit_exceeded"),
    ("cold ischemia 24 hours", [COLD], "medical_logistics", "text_quantity_unconfirmed"),  # inclusive
    ("cold ischemia 20 hours", [COLD], "medical_logistics", "text_quantity_unconfirmed"),
    ("box temperature 2 °C", [BOX], "medical_logistics", "text_quantity_unconfirmed"),
    ("box temperature 46.4 °F", [BOX], "medical_logistics", "text_quantity_unconfirmed"),
    ("box temperature 10 °C", [BOX], "medical_logistics", "outside_band"),
    ("box temperature -1 °C", [BOX], "medical_logistics", "outside_band"),
    ("remaining shelf life 180 days", [("remaining shelf life", "remaining_shelf_life")], "pharma_qa",
     "text_quantity_unconfirmed"),
    ("remaining shelf life 179,9 days", [("remaining shelf life", "remaining_shelf_life")], "pharma_qa",
     "below_minimum"),
    ("DTI 38%", [("DTI", "dti_ratio")], "mortgage", "text_quantity_unconfirmed"),
    ("DTI 45 pct", [("DTI", "dti_ratio")], "mortgage", "limit_exceeded"),
    ("tire pressure 14 bar", [("tire pressure", "tire_pressure")], "aviation_maintenance",
     "text_quantity_unconfirmed"),
    ("tire pressure 1,500 kPa", [("tire pressure", "tire_pressure")], "aviation_maintenance", "outside_band"),
    ("CIT 30 m", [CIT], "medical_logistics", "ambiguous_unit"),
    ("CIT 2 months", [CIT], "medical_logistics", "unsupported_unit"),
    ("CIT pending", [CIT], "medical_logistics", "field_without_value"),
    ("CIT, 30 h", [CIT], "medical_logistics", "field_without_value"),  # untied across a comma
])
def test_text_quantity_findings_without_readings(nlp, glossary, text, fields, domain, code):
    assert codes(findings_for(nlp, glossary, text, fields, domain=domain)) == [code]


def test_finding_offsets_cover_field_and_quantity(nlp, glossary):
    text = "xm neg, cold ischemia 30 hours"
    found = findings_for(nlp, glossary, text, [COLD])
    assert found[0]["code"] == "limit_exceeded" and found[0]["outcome"] == "block"
    assert (found[0]["start_char"], found[0]["end_char"]) == (8, 30)
    assert found[0]["message"] == "cold_ischemia_elapsed 30 h in the text is over its limit of 24 h"
    missing = findings_for(nlp, glossary, "xm neg, CIT pending", [CIT])[0]
    assert (missing["start_char"], missing["end_char"]) == (8, 11)


@pytest.mark.parametrize("text,reading,expected", [
    # |30 - 30.2| = 0.2 <= 1 % of 24 = 0.24: they agree, the reading decides
    ("CIT 30.2 h", {"value": 30, "unit": "h"}, []),
    ("CIT 30.24 h", {"value": 30, "unit": "h"}, []),
    ("CIT 31 h", {"value": 30, "unit": "h"}, ["quantity_mismatch"]),
    ("CIT 29.7 h", {"value": 30, "unit": "h"}, ["quantity_mismatch"]),
    ("CIT 1800 min", {"value": 30, "unit": "h"}, []),
    ("CIT 30 h", {"duration": "PT30H"}, []),
    ("CIT 20 h", {"value": 20, "unit": "h"}, []),  # inside and agreeing: no text finding
    # agreeing with a reading inside the contract, but the text's own value is outside it
    ("CIT 24.2 h", {"value": 24, "unit": "h"}, ["limit_exceeded"]),
    ("CIT 23.9 h", {"value": 24, "unit": "h"}, []),
    # a comparison sign makes the number a bound, which no contract can check; an arrow does not
    ("CIT >24 h", {"value": 24, "unit": "h"}, ["quantity_bound"]),
    ("CIT ≤ 24 h", {"value": 24, "unit": "h"}, ["quantity_bound"]),
    ("CIT ~ 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT -> 20 h", {"value": 20, "unit": "h"}, []),
    ("CIT >> 20 h", {"value": 20, "unit": "h"}, []),  # a chat quote marker
    ("CIT >= 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT 24h+", {"value": 24, "unit": "h"}, ["quantity_bound"]),
    ("CIT gut 24 h", {"value": 24, "unit": "h"}, ["quantity_bound"]),  # a pack's ``bound_words``
    ("CIT almost 24 h", {"value": 24, "unit": "h"}, ["quantity_bound"]),
    # a word of approximation says what "~" says ("about 20 h" agreed with a reading of 20 h, and
    # proceeded, where "~ 20 h" escalated)
    ("CIT about 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT ca. 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT approx. 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT over 24 h", {"value": 24, "unit": "h"}, ["quantity_bound"]),
    ("CIT etwa 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT env. 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT unas 20 h", {"value": 20, "unit": "h"}, ["quantity_bound"]),
    ("CIT about: 20 h", {"value": 20, "unit": "h"}, []),  # not right before the value
    ("CIT 20 h +", {"value": 20, "unit": "h"}, []),  # a plus apart from the number adds nothing to it
    ("CIT = 20 h", {"value": 20, "unit": "h"}, []),
    ("CIT 30 m", {"value": 30, "unit": "h"}, ["ambiguous_unit"]),
])
def test_text_quantity_against_reading(nlp, glossary, text, reading, expected):
    found = findings_for(nlp, glossary, text, [CIT], readings={"cold_ischemia_elapsed": reading})
    assert codes(found) == expected


@pytest.mark.parametrize("text,reading,expected", [
    # band: 1 % of the upper bound 8 °C is 0.08
    ("box temperature 5.05 °C", {"value": 5, "unit": "°C"}, []),
    ("box temperature 5.1 °C", {"value": 5, "unit": "°C"}, ["quantity_mismatch"]),
    ("box temperature 41 °F", {"value": 5, "unit": "°C"}, []),
])
def test_band_tolerance_uses_the_upper_bound(nlp, glossary, text, reading, expected):
    found = findings_for(nlp, glossary, text, [BOX], readings={"transport_temperature": reading})
    assert codes(found) == expected


def test_field_with_a_reading_is_not_without_value(nlp, glossary):
    assert findings_for(nlp, glossary, "CIT pending", [CIT],
                        readings={"cold_ischemia_elapsed": {"value": 3, "unit": "h"}}) == []
    # a malformed reading is still a reading (it escalates on its own) ...
    assert findings_for(nlp, glossary, "CIT pending", [CIT],
                        readings={"cold_ischemia_elapsed": {"value": "x", "unit": "h"}}) == []
    # ... but it cannot confirm or contradict a text quantity, which is judged alone
    assert codes(findings_for(nlp, glossary, "CIT 30 h", [CIT],
                              readings={"cold_ischemia_elapsed": {"value": "x", "unit": "h"}})) == ["limit_exceeded"]


@pytest.mark.parametrize("text, reading, expected", [
    ("CIT 30", None, ["ambiguous_unit"]),                        # a value with no unit ...
    ("CIT: 6", {"value": 6, "unit": "h"}, ["ambiguous_unit"]),    # ... reading or not
    ("CIT 6 h", {"value": 6, "unit": "h"}, []),
    ("CIT pending", None, ["field_without_value"]),
    ("CIT pending", {"value": 6, "unit": "h"}, []),
])
def test_a_bare_number_after_a_field_mention_cannot_be_checked(nlp, glossary, text, reading, expected):
    readings = {"cold_ischemia_elapsed": reading} if reading else None
    found = findings_for(nlp, glossary, text, [CIT], readings=readings)
    assert codes(found) == expected
    if expected == ["ambiguous_unit"]:
        assert "no unit" in found[0]["message"] and text[found[0]["start_char"]:found[0]["end_char"]] == text


def test_draft_field_phrase_cannot_block(nlp, glossary):
    fields = [("Lagertemperatur", "storage_temperature", "pharma_qa", "draft")]
    found = findings_for(nlp, glossary, "Lagertemperatur 12 °C", fields, domain="pharma_qa")
    assert codes(found) == ["text_quantity_unconfirmed"]
    assert found[0]["outcome"] == "escalate"


def test_only_fields_of_the_case_domain_count(nlp, glossary):
    fields = [("tire pressure", "tire_pressure", "aviation_maintenance")]
    assert findings_for(nlp, glossary, "tire pressure 300 psi", fields) == []
    own = [("CIT", "cold_ischemia_elapsed", "medical_logistics")]
    assert findings_for(nlp, glossary, "CIT 30 h", own, domain="no_such_domain") == []


def test_one_field_without_value_per_field(nlp, glossary):
    found = findings_for(nlp, glossary, "CIT pending; CIT unknown", [CIT, CIT])
    assert codes(found) == ["field_without_value"]


# -- readings through the pipe -----------------------------------------------------

def test_pipe_checks_readings(nlp):
    doc = run(nlp, "xm neg", readings={"cold_ischemia_elapsed": {"value": 30, "unit": "h"}})
    assert [e["code"] for e in doc._.semgap_readings_checked] == ["limit_exceeded"]
    doc = run(nlp, "xm neg", readings={"cold_ischemia_elapsed": {"start": "2026-11-30T01:00:00Z"}}, now=None)
    assert [e["code"] for e in doc._.semgap_readings_checked] == ["timestamp_missing_now"]
    assert run(nlp, "xm neg")._.semgap_readings_checked == []


def test_pipe_never_touches_ents(nlp):
    doc = run(nlp, "cold ischemia 30 hours", [COLD])
    assert doc.ents == ()


# -- switches, config, serialization -------------------------------------------------

@pytest.mark.parametrize("config,has_spans,checked", [
    ({}, True, True),
    ({"text_quantities": False}, False, True),
    ({"readings": False}, True, False),
    ({"enabled": False}, False, False),
])
def test_switches(config, has_spans, checked):
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_quantities", config=config)
    doc = run(nlp, "CIT 30 h", [CIT], readings={"cold_ischemia_elapsed": {"value": 30, "unit": "h"}})
    assert ("semgap_quantities" in doc.spans) == has_spans
    assert (doc._.semgap_readings_checked is not None) == checked


def test_custom_span_keys():
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_quantities", config={"spans_key": "my_terms", "quantities_key": "my_q"})
    doc = make_doc(nlp, "CIT 30 h", [CIT])
    doc.spans["my_terms"] = list(doc.spans["semgap_terms"])
    del doc.spans["semgap_terms"]
    doc = nlp.get_pipe("semgap_quantities")(doc)
    assert [s._.semgap_linked_field for s in doc.spans["my_q"]] == ["cold_ischemia_elapsed"]


def test_factory_and_config_round_trip():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_quantities", config={"max_distance": 4, "readings": False})
    assert isinstance(pipe, Quantities)
    config = nlp.config
    assert config["components"]["semgap_quantities"]["max_distance"] == 4
    nlp2 = English.from_config(config)
    pipe2 = nlp2.get_pipe("semgap_quantities")
    assert (pipe2.max_distance, pipe2.readings, pipe2.text_quantities) == (4, False, True)
    assert nlp2.config["components"]["semgap_quantities"] == config["components"]["semgap_quantities"]


def test_to_disk_and_spacy_load_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_quantities", config={"max_distance": 5})
    nlp.initialize()
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    pipe, pipe2 = nlp.get_pipe("semgap_quantities"), loaded.get_pipe("semgap_quantities")
    assert pipe2.max_distance == 5
    assert pipe2.glossary.sha256 == pipe.glossary.sha256
    assert pipe2.to_bytes() == pipe.to_bytes()
    text = "xm neg, cold ischemia 30 hours, box temperature 46.4 °F"
    fields = [COLD, BOX]
    readings = {"cold_ischemia_elapsed": {"value": 30, "unit": "h"}}
    docs = [p(make_doc(n, text, fields, readings=readings)) for n, p in ((nlp, pipe), (loaded, pipe2))]
    assert quantities(docs[0]) == quantities(docs[1])
    assert docs[0]._.semgap_readings_checked == docs[1]._.semgap_readings_checked


def test_from_bytes_restores_the_glossary_and_keeps_its_own_config(glossary):
    from semgap_spacy.glossary.models import GlossarySet

    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_quantities", config={"readings": False})
    pipe.set_glossary(GlossarySet({"pharma_qa": glossary.domains["pharma_qa"]}))
    other = spacy.blank("en").add_pipe("semgap_quantities", config={"max_distance": 2})
    other.from_bytes(pipe.to_bytes())
    assert other.glossary.sha256 == pipe.glossary.sha256
    assert {domain for domain, _ in other._contracts} == {"pharma_qa"}  # indexes rebuilt
    # the pipeline config builds the component; serialized data does not override it
    assert (other.readings, other.max_distance) == (True, 2)


def test_values_survive_doc_serialization(nlp):
    from spacy.tokens import Doc

    doc = run(nlp, "box temperature 46.4 °F", [BOX])
    copy = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert quantities(copy) == quantities(doc)


def test_multiprocessing_gives_the_same_spans():
    nlp = spacy.blank("en")
    nlp.add_pipe("semgap_quantities")
    texts = ["CIT 30 h", "box 46.4 °F", "DTI 38%", "nothing here"] * 3
    one = [quantities(d) for d in nlp.pipe(texts)]
    two = [quantities(d) for d in nlp.pipe(texts, n_process=2, batch_size=3)]
    assert one == two
    assert one[0] == [("30 h", 30.0, "hour", None)]


def test_entry_point_is_declared():
    names = {ep.name: ep.value for ep in entry_points(group="spacy_factories")}
    assert names.get("semgap_quantities") == "semgap_spacy.pipes.quantities:make_quantities"


# -- never raises ----------------------------------------------------------------------

_texty = st.lists(st.sampled_from(list("0123456789 ,.-−:;°%hdmCFKPTHMDYpsi\n")
                                  + ["CIT ", " but ", "hours", "bar", "1,500", "25,5"]),
                  max_size=30).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=_texty | st.text(max_size=40))
def test_pipe_never_fails_on_any_text(text):
    nlp = _shared_nlp()
    doc = nlp.make_doc(text)
    if len(doc):
        doc.spans["semgap_terms"] = [Span(doc, 0, 1, label="MED.COLD_ISCHEMIA", span_id=pack_span_id(
            "medical_logistics", "field", "en", "approved", "phrase", "cold_ischemia_elapsed"))]
    doc._.semgap_domain = "medical_logistics"
    doc = nlp.get_pipe("semgap_quantities")(doc)
    assert doc._.semgap_component_errors is None
    for finding in quantity_findings(doc, load_glossaries()):
        json.dumps(finding, allow_nan=False)


_NLP = []


def _shared_nlp():
    if not _NLP:
        nlp = spacy.blank("en")
        nlp.add_pipe("semgap_quantities")
        _NLP.append(nlp)
    return _NLP[0]


FAR = "xm neg, cold ischemia as logged by the courier and the lab at the centre today is 30 h"


def test_a_quantity_far_from_its_field_in_the_same_clause_is_still_tied():
    # spec §4: the nearest field mention in its clause, however far; left untied, the
    # reading (6 h, in contract) would clear what the text contradicts
    nlp = build_pipeline()
    decision = assess(nlp, FAR, domain="medical_logistics",
                      readings={"cold_ischemia_elapsed": {"value": 6, "unit": "h"}})._.semgap_decision
    assert decision["decision"] != "proceed"
    assert "quantity_mismatch" in [r["code"] for r in decision["reasons"]]


def test_a_distance_cap_is_a_narrowed_read_unless_ablation():
    nlp = build_pipeline(config={"semgap_quantities": {"max_distance": 8}})
    decision = assess(nlp, FAR, domain="medical_logistics",
                      readings={"cold_ischemia_elapsed": {"value": 6, "unit": "h"}})._.semgap_decision
    assert decision["decision"] == "escalate"
    assert "pipeline_incomplete" in [r["code"] for r in decision["reasons"]]


def test_warm_up_builds_the_unit_registry_only_for_a_pipeline_with_the_quantities_pipe(monkeypatch):
    from semgap_spacy.core import units
    from semgap_spacy.pipes.quantities import warm_up

    built = []
    monkeypatch.setattr(units, "get_registry", lambda: built.append(True))
    without = spacy.blank("en")
    without.add_pipe("semgap_terms")
    warm_up(without)
    assert built == []
    with_quantities = spacy.blank("en")
    with_quantities.add_pipe("semgap_terms")
    with_quantities.add_pipe("semgap_quantities")
    warm_up(with_quantities)
    assert built == [True]

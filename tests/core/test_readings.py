"""Tests for ``semgap_spacy.core.readings``: spec §5 readings and the timestamp rules of §4."""
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semgap_spacy.core.reasons import REASON_CODES, outcome_for
from semgap_spacy.glossary.models import load_glossaries
from semgap_spacy.core.readings import check_reading, check_readings, within

NOW = "2026-11-30T10:00:00Z"
ENTRY_KEYS = {"field", "term_id", "status", "code", "outcome", "message", "value", "unit"}


@pytest.fixture(scope="module")
def glossary():
    return load_glossaries()


def one(glossary, domain, field, reading, now=NOW) -> dict:
    entries = check_readings({field: reading}, domain, glossary, now)
    assert len(entries) == 1
    entry = entries[0]
    assert set(entry) == ENTRY_KEYS
    assert entry["outcome"] == outcome_for(entry["code"])
    assert entry["code"] in REASON_CODES
    json.dumps(entry, allow_nan=False)  # JSON-plain
    return entry


@pytest.mark.parametrize("domain,field,reading,code,value", [
    # inclusive limits and bands (spec §4)
    ("medical_logistics", "cold_ischemia_elapsed", {"value": 24, "unit": "h"}, "reading_in_contract", 24),
    ("medical_logistics", "cold_ischemia_elapsed", {"value": 24.01, "unit": "h"}, "limit_exceeded", 24.01),
    ("medical_logistics", "cold_ischemia_elapsed", {"value": 30, "unit": "hours"}, "limit_exceeded", 30),
    ("medical_logistics", "cold_ischemia_elapsed", {"value": 1440, "unit": "min"}, "reading_in_contract", 24),
    ("medical_logistics", "cold_ischemia_elapsed", {"value": 1, "unit": "day"}, "reading_in_contract", 24),
    ("medical_logistics", "cold_ischemia_elapsed", {"value": 0, "unit": "h"}, "reading_in_contract", 0),
    ("medical_logistics", "transport_temperature", {"value": 2, "unit": "°C"}, "reading_in_contract", 2),
    ("medical_logistics", "transport_temperature", {"value": 8, "unit": "degC"}, "reading_in_contract", 8),
    ("medical_logistics", "transport_temperature", {"value": 1.99, "unit": "C"}, "outside_band", 1.99),
    ("medical_logistics", "transport_temperature", {"value": 8.5, "unit": "celsius"}, "outside_band", 8.5),
    ("medical_logistics", "transport_temperature", {"value": -1, "unit": "°C"}, "outside_band", -1),
    # offset units: 46.4 °F is exactly 8 °C, inside the band; 35.6 °F is 2 °C
    ("medical_logistics", "transport_temperature", {"value": 46.4, "unit": "°F"}, "reading_in_contract", 8),
    ("medical_logistics", "transport_temperature", {"value": 35.6, "unit": "degF"}, "reading_in_contract", 2),
    ("medical_logistics", "transport_temperature", {"value": 47, "unit": "F"}, "outside_band", 8.33333333333),
    ("medical_logistics", "transport_temperature", {"value": 281.15, "unit": "K"}, "reading_in_contract", 8),
    ("medical_logistics", "transport_temperature", {"value": 273.15, "unit": "kelvin"}, "outside_band", 0),
    ("pharma_qa", "remaining_shelf_life", {"value": 180, "unit": "days"}, "reading_in_contract", 180),
    ("pharma_qa", "remaining_shelf_life", {"value": 179.9, "unit": "d"}, "below_minimum", 179.9),
    ("pharma_qa", "remaining_shelf_life", {"value": 26, "unit": "weeks"}, "reading_in_contract", 182),
    ("pharma_qa", "excursion_duration", {"value": 30, "unit": "min"}, "reading_in_contract", 30),
    ("pharma_qa", "excursion_duration", {"value": 0.5, "unit": "h"}, "reading_in_contract", 30),
    ("pharma_qa", "excursion_duration", {"value": 31, "unit": "minutes"}, "limit_exceeded", 31),
    ("pharma_qa", "storage_temperature", {"value": 5, "unit": "Grad"}, "reading_in_contract", 5),
    ("mortgage", "dti_ratio", {"value": 43, "unit": "%"}, "reading_in_contract", 43),
    ("mortgage", "dti_ratio", {"value": 43.5, "unit": "pct"}, "limit_exceeded", 43.5),
    ("mortgage", "ltv_ratio", {"value": 97, "unit": "percent"}, "reading_in_contract", 97),
    ("mortgage", "rate_lock_age", {"value": 60, "unit": "days"}, "reading_in_contract", 60),
    ("mortgage", "rate_lock_age", {"value": 61, "unit": "días"}, "limit_exceeded", 61),
    ("aviation_maintenance", "tire_pressure", {"value": 190, "unit": "psi"}, "reading_in_contract", 190),
    ("aviation_maintenance", "tire_pressure", {"value": 210, "unit": "psi"}, "reading_in_contract", 210),
    ("aviation_maintenance", "tire_pressure", {"value": 14, "unit": "bar"}, "reading_in_contract", 203.052832822),
    ("aviation_maintenance", "tire_pressure", {"value": 1400, "unit": "kPa"}, "reading_in_contract", 203.052832822),
    ("aviation_maintenance", "tire_pressure", {"value": 189, "unit": "psi"}, "outside_band", 189),
    ("aviation_maintenance", "hours_since_inspection", {"value": 100, "unit": "hrs"}, "reading_in_contract", 100),
    # ISO-8601 durations
    ("medical_logistics", "cold_ischemia_elapsed", {"duration": "PT24H"}, "reading_in_contract", 24),
    ("medical_logistics", "cold_ischemia_elapsed", {"duration": "P1D"}, "reading_in_contract", 24),
    ("medical_logistics", "cold_ischemia_elapsed", {"duration": "PT30H"}, "limit_exceeded", 30),
    ("medical_logistics", "cold_ischemia_elapsed", {"duration": "P1DT2H"}, "limit_exceeded", 26),
    ("medical_logistics", "cold_ischemia_elapsed", {"duration": "PT1.5H"}, "reading_in_contract", 1.5),
    ("pharma_qa", "excursion_duration", {"duration": "PT45M"}, "limit_exceeded", 45),
    ("mortgage", "rate_lock_age", {"duration": "P2D"}, "reading_in_contract", 2),
])
def test_valid_readings_against_their_contract(glossary, domain, field, reading, code, value):
    entry = one(glossary, domain, field, reading)
    assert entry["code"] == code
    assert entry["status"] == ("ok" if code == "reading_in_contract" else "out_of_contract")
    assert entry["value"] == pytest.approx(value, rel=1e-9)
    assert entry["field"] == field
    assert entry["term_id"] == glossary.field_term(domain, field).id
    assert entry["unit"] == glossary.field_term(domain, field).contract.unit


def test_message_matches_the_spec_example(glossary):
    entry = one(glossary, "medical_logistics", "cold_ischemia_elapsed", {"value": 30, "unit": "h"})
    assert entry["message"] == "cold_ischemia_elapsed 30 h is over its limit of 24 h"
    assert entry["outcome"] == "block"


@pytest.mark.parametrize("field,reading,code", [
    # extra or missing keys, not an object
    ("cold_ischemia_elapsed", {"value": 30, "unit": "h", "source": "x"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": 30}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"unit": "h"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"duration": "PT3H", "start": "2026-11-30T01:00:00Z"}, "malformed_reading"),
    ("cold_ischemia_elapsed", [30, "h"], "malformed_reading"),
    ("cold_ischemia_elapsed", 30, "malformed_reading"),
    ("cold_ischemia_elapsed", "30 h", "malformed_reading"),
    ("cold_ischemia_elapsed", None, "malformed_reading"),
    # value not a finite real number
    ("cold_ischemia_elapsed", {"value": float("nan"), "unit": "h"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": float("inf"), "unit": "h"}, "malformed_reading"),
    ("transport_temperature", {"value": float("-inf"), "unit": "°C"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": True, "unit": "h"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": "30", "unit": "h"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": None, "unit": "h"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": [30], "unit": "h"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": 10 ** 400, "unit": "h"}, "malformed_reading"),
    # negative for anything but a temperature
    ("cold_ischemia_elapsed", {"value": -1, "unit": "h"}, "malformed_reading"),
    # below absolute zero is no temperature
    ("transport_temperature", {"value": -300, "unit": "°C"}, "malformed_reading"),
    # unit unknown for the field's kind, ambiguous, unsupported, not a string
    ("cold_ischemia_elapsed", {"value": 30, "unit": "parsecs"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": 30, "unit": "psi"}, "malformed_reading"),
    ("transport_temperature", {"value": 5, "unit": "h"}, "malformed_reading"),
    ("transport_temperature", {"value": 5, "unit": "c"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": 30, "unit": 5}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": 30, "unit": None}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"value": 30, "unit": "m"}, "ambiguous_unit"),
    ("transport_temperature", {"value": 5, "unit": "°"}, "ambiguous_unit"),
    ("cold_ischemia_elapsed", {"value": 1, "unit": "months"}, "unsupported_unit"),
    ("cold_ischemia_elapsed", {"value": 1, "unit": "yr"}, "unsupported_unit"),
    # durations that do not parse, and durations/starts for the wrong kind
    ("cold_ischemia_elapsed", {"duration": "30 hours"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"duration": "PT"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"duration": 30}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"duration": "P1M"}, "unsupported_unit"),
    ("cold_ischemia_elapsed", {"duration": "P1Y"}, "unsupported_unit"),
    ("transport_temperature", {"duration": "PT1H"}, "malformed_reading"),
    ("transport_temperature", {"start": "2026-11-30T01:00:00Z"}, "malformed_reading"),
    # datetimes that do not parse
    ("cold_ischemia_elapsed", {"start": "yesterday"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"start": "2026-13-01T00:00:00Z"}, "malformed_reading"),
    ("cold_ischemia_elapsed", {"start": "2026-11-30"}, "malformed_reading"),  # no time of day
    ("cold_ischemia_elapsed", {"start": 1764460800}, "malformed_reading"),
])
def test_malformed_readings(glossary, field, reading, code):
    entry = one(glossary, "medical_logistics", field, reading)
    assert entry["code"] == code
    assert entry["status"] == "malformed"
    assert entry["outcome"] == "escalate"
    assert entry["value"] is None
    assert entry["term_id"] is not None


@pytest.mark.parametrize("field", ["tire_pressure", "no_such_field", ""])
def test_field_not_of_the_domain_is_unknown_field(glossary, field):
    entry = one(glossary, "medical_logistics", field, {"value": 200, "unit": "psi"})
    assert entry["code"] == "unknown_field"
    assert entry["term_id"] is None
    assert entry["outcome"] == "escalate"


@pytest.mark.parametrize("readings", [[], [{"value": 1}], 30, "readings", True, 1.5])
def test_readings_not_an_object_is_malformed(glossary, readings):
    entries = check_readings(readings, "medical_logistics", glossary, NOW)
    assert [e["code"] for e in entries] == ["malformed_reading"]
    assert entries[0]["field"] is None


def test_no_readings_gives_no_entries(glossary):
    assert check_readings(None, "medical_logistics", glossary, NOW) == []
    assert check_readings({}, "medical_logistics", glossary, NOW) == []


@pytest.mark.parametrize("domain", ["no_such_domain", None, 5])
def test_unknown_domain_gives_unknown_field_per_reading(glossary, domain):
    entries = check_readings({"cold_ischemia_elapsed": {"value": 3, "unit": "h"}, "x": 1}, domain,
                             glossary, NOW)
    assert [e["code"] for e in entries] == ["unknown_field", "unknown_field"]


def test_every_reading_gets_one_entry_in_order(glossary):
    readings = {"cold_ischemia_elapsed": {"value": 3, "unit": "h"}, "bogus": {"value": 1, "unit": "h"},
                "transport_temperature": {"value": 12, "unit": "°C"}}
    entries = check_readings(readings, "medical_logistics", glossary, NOW)
    assert [(e["field"], e["code"]) for e in entries] == [
        ("cold_ischemia_elapsed", "reading_in_contract"), ("bogus", "unknown_field"),
        ("transport_temperature", "outside_band")]


# -- start readings and timestamps (spec §4) -----------------------------------

@pytest.mark.parametrize("start,now,code", [
    ("2026-11-30T01:00:00Z", None, "timestamp_missing_now"),
    ("2026-11-30T01:00:00Z", "", "timestamp_missing_now"),
    ("2026-11-30T01:00:00Z", "2026-11-30T10:00:00", "timestamp_timezone_mismatch"),  # aware start, naive now
    ("2026-11-30T01:00:00", "2026-11-30T10:00:00Z", "timestamp_timezone_mismatch"),  # naive start, aware now
    ("2026-11-30T11:00:00Z", "2026-11-30T10:00:00Z", "timestamp_in_future"),
    ("2026-11-30T10:00:01", "2026-11-30T10:00:00", "timestamp_in_future"),
    ("2026-11-30T01:00:00Z", "not a time", "malformed_reading"),
])
def test_timestamp_rules(glossary, start, now, code):
    entry = one(glossary, "medical_logistics", "cold_ischemia_elapsed", {"start": start}, now=now)
    assert entry["code"] == code
    assert entry["outcome"] == "escalate"
    assert entry["value"] is None


@pytest.mark.parametrize("domain,field,start,now,code,value", [
    ("medical_logistics", "cold_ischemia_elapsed", "2026-11-30T01:00:00Z", NOW, "reading_in_contract", 9),
    ("medical_logistics", "cold_ischemia_elapsed", "2026-11-29T04:00:00Z", NOW, "limit_exceeded", 30),
    ("medical_logistics", "cold_ischemia_elapsed", "2026-11-29T10:00:00Z", NOW, "reading_in_contract", 24),
    ("medical_logistics", "cold_ischemia_elapsed", NOW, NOW, "reading_in_contract", 0),
    # offsets: 10:00+02:00 is 08:00Z, two hours before now
    ("medical_logistics", "cold_ischemia_elapsed", "2026-11-30T10:00:00+02:00", NOW, "reading_in_contract", 2),
    ("medical_logistics", "cold_ischemia_elapsed", "2026-11-30T01:30:00", "2026-11-30T10:00:00",
     "reading_in_contract", 8.5),
    ("pharma_qa", "excursion_duration", "2026-11-30T09:15:00Z", NOW, "limit_exceeded", 45),
    ("mortgage", "rate_lock_age", "2026-09-30T10:00:00Z", NOW, "limit_exceeded", 61),
])
def test_valid_start_gives_elapsed_time_in_the_contract_unit(glossary, domain, field, start, now, code, value):
    entry = one(glossary, domain, field, {"start": start}, now=now)
    assert entry["code"] == code
    assert entry["value"] == pytest.approx(value)


def test_a_start_reading_cannot_stand_for_a_minimum(glossary):
    # elapsed time only grows: an older start would look like more shelf life left
    entry = one(glossary, "pharma_qa", "remaining_shelf_life", {"start": "2023-11-30T10:00:00Z"}, now=NOW)
    assert entry["code"] == "malformed_reading" and entry["outcome"] == "escalate" and entry["value"] is None
    assert "minimum" in entry["message"]


def test_within_is_inclusive_with_float_slack(glossary):
    cit = glossary.field_term("medical_logistics", "cold_ischemia_elapsed").contract
    assert within(24.0, cit) == "reading_in_contract"
    assert within(24.000000000001, cit) == "reading_in_contract"  # conversion noise
    assert within(24.001, cit) == "limit_exceeded"
    band = glossary.field_term("medical_logistics", "transport_temperature").contract
    assert within(1.9999999999999, band) == "reading_in_contract"
    assert within(1.99, band) == "outside_band"
    minimum = glossary.field_term("pharma_qa", "remaining_shelf_life").contract
    assert within(180.0, minimum) == "reading_in_contract"
    assert within(179.9, minimum) == "below_minimum"


def test_check_reading_with_non_string_field(glossary):
    entry = check_reading(5, {"value": 1, "unit": "h"}, "medical_logistics", glossary, NOW)
    assert entry["code"] == "unknown_field"
    assert entry["field"] == "5"


# -- never raises --------------------------------------------------------------

FIELDS = ["cold_ischemia_elapsed", "transport_temperature", "remaining_shelf_life", "dti_ratio",
          "tire_pressure", "excursion_duration", "bogus"]
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)
_unitish = st.sampled_from(["h", "m", "°F", "K", "%", "psi", "bar", "days", "months", "", "pct", "°"]) | st.text(max_size=5)
_timeish = (st.sampled_from(["2026-11-30T01:00:00Z", "2026-11-30T01:00:00", "2026-12-30T01:00:00+01:00",
                             "2026-11-30", "PT3H", ""]) | st.text(max_size=25) | st.none() | st.integers())
_reading = (
    st.fixed_dictionaries({"value": st.integers() | st.floats() | st.booleans() | st.none() | st.text(max_size=3),
                           "unit": _unitish | st.none() | st.integers()})
    | st.fixed_dictionaries({"duration": st.sampled_from(["PT30H", "P1M", "PT", "P2D"]) | st.text(max_size=10)})
    | st.fixed_dictionaries({"start": _timeish})
    | _json
)
_readings = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), _reading, max_size=4) | _json


@settings(max_examples=300, deadline=None)
@given(readings=_readings, domain=st.sampled_from(["medical_logistics", "pharma_qa", "mortgage",
                                                   "aviation_maintenance", "nope"]) | st.none(),
       now=_timeish)
def test_check_readings_never_raises_and_stays_json_plain(readings, domain, now):
    glossary = load_glossaries()
    entries = check_readings(readings, domain, glossary, now)
    assert isinstance(entries, list)
    for entry in entries:
        assert set(entry) == ENTRY_KEYS
        assert entry["code"] in REASON_CODES
        assert entry["outcome"] == outcome_for(entry["code"])
        assert entry["value"] is None or math.isfinite(entry["value"])
        json.dumps(entry, allow_nan=False)
    if isinstance(readings, dict):
        assert len(entries) == len(readings)

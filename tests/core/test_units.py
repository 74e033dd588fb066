"""Tests for ``semgap_spacy.core.units``: the alias table, numbers, ISO durations, Pint."""
import threading

import pytest

from semgap_spacy.core import units
from semgap_spacy.core.units import (AMBIGUOUS, KINDS, OK, UNKNOWN, UNSUPPORTED, UnitDataError, UnitTable,
                                canonical_unit, convert, get_registry, parse_iso_duration,
                                parse_number, parse_unit, tidy, unit_table)


@pytest.mark.parametrize("surface,kind,unit", [
    # durations, English
    ("h", "duration", "hour"), ("hr", "duration", "hour"), ("hrs", "duration", "hour"),
    ("hour", "duration", "hour"), ("hours", "duration", "hour"), ("HOURS", "duration", "hour"),
    ("min", "duration", "minute"), ("mins", "duration", "minute"), ("minute", "duration", "minute"),
    ("minutes", "duration", "minute"), ("d", "duration", "day"), ("day", "duration", "day"),
    ("days", "duration", "day"), ("week", "duration", "week"), ("weeks", "duration", "week"),
    # durations, es/fr/de
    ("horas", "duration", "hour"), ("hora", "duration", "hour"), ("minutos", "duration", "minute"),
    ("días", "duration", "day"), ("dias", "duration", "day"), ("semanas", "duration", "week"),
    ("heures", "duration", "hour"), ("jours", "duration", "day"), ("semaines", "duration", "week"),
    ("Stunden", "duration", "hour"), ("Std", "duration", "hour"), ("Minuten", "duration", "minute"),
    ("Tage", "duration", "day"), ("Wochen", "duration", "week"),
    # temperature
    ("°C", "temperature", "degree_Celsius"), ("° C", "temperature", "degree_Celsius"),
    ("ºC", "temperature", "degree_Celsius"), ("℃", "temperature", "degree_Celsius"),
    ("C", "temperature", "degree_Celsius"), ("degC", "temperature", "degree_Celsius"),
    ("celsius", "temperature", "degree_Celsius"), ("degrees Celsius", "temperature", "degree_Celsius"),
    ("grados", "temperature", "degree_Celsius"), ("degrés", "temperature", "degree_Celsius"),
    ("Grad", "temperature", "degree_Celsius"),
    ("°F", "temperature", "degree_Fahrenheit"), ("F", "temperature", "degree_Fahrenheit"),
    ("degF", "temperature", "degree_Fahrenheit"), ("fahrenheit", "temperature", "degree_Fahrenheit"),
    ("K", "temperature", "kelvin"), ("kelvin", "temperature", "kelvin"),
    # ratio
    ("%", "ratio", "percent"), ("percent", "ratio", "percent"), ("pct", "ratio", "percent"),
    ("por ciento", "ratio", "percent"), ("pour cent", "ratio", "percent"),
    ("Prozent", "ratio", "percent"), ("pour  cent", "ratio", "percent"),
    # pressure
    ("psi", "pressure", "pound_force_per_square_inch"), ("PSI", "pressure", "pound_force_per_square_inch"),
    ("bar", "pressure", "bar"), ("kPa", "pressure", "kilopascal"), ("kpa", "pressure", "kilopascal"),
])
def test_parse_unit_accepts_every_alias_family(surface, kind, unit):
    found = parse_unit(surface, kind)
    assert (found.status, found.unit, found.kind) == (OK, unit, kind)
    assert parse_unit(surface) == found  # without a kind, the same answer


@pytest.mark.parametrize("surface,kind,status,unit", [
    ("m", "duration", AMBIGUOUS, None),  # minutes, metres or months?
    ("°", "temperature", AMBIGUOUS, None),  # Celsius or Fahrenheit?
    ("degrees", "temperature", AMBIGUOUS, None),
    ("months", "duration", UNSUPPORTED, "month"), ("month", "duration", UNSUPPORTED, "month"),
    ("mo", "duration", UNSUPPORTED, "month"), ("meses", "duration", UNSUPPORTED, "month"),
    ("Monate", "duration", UNSUPPORTED, "month"), ("years", "duration", UNSUPPORTED, "year"),
    ("yr", "duration", UNSUPPORTED, "year"), ("años", "duration", UNSUPPORTED, "year"),
    ("Jahre", "duration", UNSUPPORTED, "year"),
])
def test_ambiguous_and_unsupported_units_are_data_not_unknown(surface, kind, status, unit):
    found = parse_unit(surface, kind)
    assert found.status == status
    assert found.unit == unit
    assert found.kind == kind


def test_ambiguous_unit_lists_its_candidates():
    assert set(parse_unit("m", "duration").candidates) == {"minute", "metre", "month"}


@pytest.mark.parametrize("surface,kind", [
    ("c", "temperature"),  # case-sensitive symbols: "5 c" is not Celsius
    ("k", "temperature"), ("M", "duration"), ("f", "temperature"),
    ("psi", "duration"),  # a unit of another kind
    ("h", "temperature"), ("%", "pressure"),
    ("parsecs", None), ("", None), ("   ", None), (None, None), (5, "duration"), (["h"], None),
])
def test_unknown_units(surface, kind):
    assert parse_unit(surface, kind).status == UNKNOWN


@pytest.mark.parametrize("value,unit,to_unit,expected", [
    (46.4, "degF", "degC", 8.0),  # offset units: (46.4 - 32) * 5/9, not 46.4 * 5/9
    (46.4, "°F", "degC", 8.0),
    (2.0, "degC", "degF", 35.6),
    (281.15, "K", "degC", 8.0),
    (0.0, "degC", "kelvin", 273.15),
    (30.0, "h", "h", 30.0),
    (1.0, "day", "h", 24.0),
    (90.0, "min", "h", 1.5),
    (2.0, "week", "day", 14.0),
    (36.0, "hours", "day", 1.5),
    (38.0, "pct", "percent", 38.0),  # Pint alone would read "pct" as picocarat
    (100.0, "kPa", "bar", 1.0),
    (14.0, "bar", "psi", 203.05283),
])
def test_convert(value, unit, to_unit, expected):
    assert convert(value, unit, to_unit) == pytest.approx(expected, rel=1e-6)


def test_offset_conversion_is_exact_after_tidy():
    assert tidy(convert(46.4, "degF", "degC")) == 8.0
    assert tidy(8.000000000000057) == 8.0
    assert tidy(30.2) == 30.2


@pytest.mark.parametrize("unit,to_unit", [("h", "degC"), ("psi", "h"), ("percent", "day"), ("nonsense", "h")])
def test_convert_refuses_other_kinds_with_valueerror(unit, to_unit):
    with pytest.raises(ValueError):
        convert(1.0, unit, to_unit)


@pytest.mark.parametrize("unit,canonical", [
    ("h", "hour"), ("min", "minute"), ("day", "day"), ("degC", "degree_Celsius"), ("K", "kelvin"),
    ("percent", "percent"), ("psi", "pound_force_per_square_inch"), ("kPa", "kilopascal"),
    ("degree_Fahrenheit", "degree_Fahrenheit"),
])
def test_canonical_unit(unit, canonical):
    assert canonical_unit(unit) == canonical


def test_one_registry_per_process():
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(get_registry())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r is get_registry() for r in seen)


def _degrees_c(registry):
    return round(registry.Quantity(46.4, "degF").to("degC").magnitude, 6)


def test_pint_keeps_its_parsed_definitions_in_a_cache_folder(tmp_path, monkeypatch):
    folder = tmp_path / "pint"
    monkeypatch.setenv(units.PINT_CACHE_ENV, str(folder))
    first = units._new_registry()
    assert list(folder.glob("*.pickle"))  # written by the first process that parses them
    again = units._new_registry()  # read back
    assert _degrees_c(first) == _degrees_c(again) == 8.0
    assert str(again.Unit("pound_force_per_square_inch")) == "pound_force_per_square_inch"


def test_a_damaged_pint_cache_costs_time_not_units(tmp_path, monkeypatch):
    folder = tmp_path / "pint"
    monkeypatch.setenv(units.PINT_CACHE_ENV, str(folder))
    units._new_registry()
    for path in folder.glob("*.pickle"):
        path.write_bytes(b"garbage")
    assert _degrees_c(units._new_registry()) == 8.0
    monkeypatch.setenv(units.PINT_CACHE_ENV, str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("not a folder")
    assert _degrees_c(units._new_registry()) == 8.0


def test_the_pint_cache_can_be_switched_off(monkeypatch):
    import pint

    made = []
    real = pint.UnitRegistry
    monkeypatch.setattr(pint, "UnitRegistry", lambda **kwargs: made.append(kwargs) or real(**kwargs))
    monkeypatch.setenv(units.PINT_CACHE_ENV, "off")
    assert _degrees_c(units._new_registry()) == 8.0
    assert made == [{}]


@pytest.mark.parametrize("kind,dimensionality", [
    ("duration", "[time]"), ("temperature", "[temperature]"), ("ratio", "dimensionless"),
    ("pressure", "[mass] / [length] / [time] ** 2"),
])
def test_every_unit_in_the_data_is_a_pint_unit_of_its_kind(kind, dimensionality):
    ureg = get_registry()
    for name in unit_table().kind_units[kind]:
        assert str(ureg.Unit(name)) == name
        assert str(ureg.Unit(name).dimensionality) == dimensionality


def test_table_covers_every_kind():
    assert set(unit_table().kind_units) == set(KINDS)


@pytest.mark.parametrize("payload,message", [
    ({"kinds": {}}, "kinds must be exactly"),
    ({"kinds": {k: {"units": {"hour": ["h"]}} for k in KINDS}, "extra": 1}, "top-level keys"),
    ({"kinds": {"duration": {"units": {"hour": ["h"]}}, "temperature": {"units": {"kelvin": ["h"]}},
                "ratio": {"units": {"percent": ["%"]}}, "pressure": {"units": {"bar": ["bar"]}}}},
     "also listed"),
    ({"kinds": {"duration": {"units": {"hour": ["one two three"]}}, "temperature": {"units": {"kelvin": ["K"]}},
                "ratio": {"units": {"percent": ["%"]}}, "pressure": {"units": {"bar": ["bar"]}}}},
     "more than two words"),
    ({"kinds": {"duration": {"units": {"hour": []}}, "temperature": {"units": {"kelvin": ["K"]}},
                "ratio": {"units": {"percent": ["%"]}}, "pressure": {"units": {"bar": ["bar"]}}}},
     "empty alias list"),
    ({"kinds": {"duration": {"units": {"hour": ["h"]}, "colour": {}}, "temperature": {"units": {"kelvin": ["K"]}},
                "ratio": {"units": {"percent": ["%"]}}, "pressure": {"units": {"bar": ["bar"]}}}},
     "keys must be"),
])
def test_bad_unit_data_is_refused_with_a_clear_error(payload, message):
    with pytest.raises(UnitDataError, match=message):
        UnitTable(payload)


@pytest.mark.parametrize("text,expected", [
    ("30", 30.0), ("46.4", 46.4), ("0.125", 0.125),
    ("25,5", 25.5), ("25,50", 25.5), ("0,125", 0.125),  # decimal commas
    ("1,500", 1500.0), ("1,500,000", 1500000.0),  # thousands separators (English)
    ("1,500.5", 1500.5), ("1.500,5", 1500.5), ("1.500.000", 1500000.0),
    ("-3", -3.0), ("−3.5", -3.5), ("+2", 2.0),
    ("1.500", None),  # 1.5 in English, 1500 in German: refused
    ("1,5000", None), ("1,50,0", None), ("012,500", None), ("1.2.3", None),
    ("", None), ("abc", None), ("3e5", None), (None, None), (30, None),
])
def test_parse_number_decimal_comma_rule(text, expected):
    assert parse_number(text) == expected


@pytest.mark.parametrize("text,status,hours", [
    ("PT30H", OK, 30.0), ("P2D", OK, 48.0), ("PT45M", OK, 0.75), ("P1DT2H", OK, 26.0),
    ("PT1.5H", OK, 1.5), ("PT1,5H", OK, 1.5), ("P2W", OK, 336.0), ("PT90S", OK, 0.025),
    ("PT1H30M", OK, 1.5), ("P0D", OK, 0.0),
    ("P1M", UNSUPPORTED, None), ("P1Y", UNSUPPORTED, None), ("P1Y2M3D", UNSUPPORTED, None),
    ("P", UNKNOWN, None), ("PT", UNKNOWN, None), ("P1DT", UNKNOWN, None),
    ("30H", UNKNOWN, None), ("pt30h", UNKNOWN, None), ("-PT1H", UNKNOWN, None),
    (" PT2H", UNKNOWN, None), ("PT30H5", UNKNOWN, None), ("P1.5DT2H", UNKNOWN, None),
    ("PT2H1D", UNKNOWN, None), ("PXD", UNKNOWN, None), ("", UNKNOWN, None),
    ("30 hours", UNKNOWN, None), (None, UNKNOWN, None), (30, UNKNOWN, None),
    # a newline after it, or digits of other scripts, are no ISO-8601 duration
    ("P1D\n", UNKNOWN, None), ("P\uff11D", UNKNOWN, None), ("P\u0663D", UNKNOWN, None),
])
def test_parse_iso_duration(text, status, hours):
    parsed = parse_iso_duration(text)
    assert parsed.status == status
    if hours is None:
        assert parsed.hours is None
    else:
        assert parsed.hours == pytest.approx(hours)

"""Structured readings: validation, normalisation and the contract check.

A case's ``readings`` (spec §5) maps a field of the case's domain to exactly
one of ``{"value": <number>, "unit": "<unit>"}``, ``{"duration": "<ISO-8601
duration>"}`` or ``{"start": "<ISO-8601 datetime>"}`` (elapsed = now − start,
duration fields only). Each reading becomes one JSON-plain entry::

    {"field", "term_id", "status", "code", "outcome", "message", "value", "unit"}

``status`` is "ok" (inside the contract), "out_of_contract" or "malformed";
``code``/``outcome`` come from ``codes``; ``value`` is the magnitude in the
contract's unit (None when malformed) and ``unit`` the contract's unit.

Readings arrive from other systems, so nothing here trusts its input:
``check_readings`` returns entries for any JSON-like value and never raises.
"""
import math
import re
from datetime import datetime
from functools import lru_cache
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .reasons import outcome_for
from ..glossary.models import Contract, GlossarySet, Term
from .units import AMBIGUOUS, OK, UNSUPPORTED, convert, parse_iso_duration, parse_unit, tidy

STATUS_OK = "ok"
STATUS_OUT = "out_of_contract"
STATUS_MALFORMED = "malformed"

# Relative slack on contract limits: a value that only crosses a limit through
# float noise of a unit conversion (24.000000000001 h) is still on the limit.
REL_EPS = 1e-9

# A datetime must have a full date and at least the hour: "2026" or
# "2026-11-30" alone cannot give an elapsed time in hours.
_DATETIME = re.compile(r"^\d{4}-?\d{2}-?\d{2}[T ]\d{2}")


def fmt(x: float) -> str:
    """A magnitude for a message: 30.0 → "30", 46.4 → "46.4"."""
    return f"{x:g}"


def within(value: float, contract: Contract) -> str:
    """The contract code for a value already in the contract's unit.

    Limits are inclusive (24 h is inside "at most 24 h"), with a relative
    slack of ``REL_EPS`` for conversion noise.

    value (float): The magnitude in ``contract.unit``.
    contract (Contract): The field's contract.
    RETURNS (str): "reading_in_contract", "limit_exceeded", "below_minimum"
        or "outside_band".
    """
    low, high = _limits(contract)
    return _code(value, low, high, contract.is_band)


def _limits(contract: Contract) -> Tuple[Optional[float], Optional[float]]:
    """(min, max) of a contract widened by the ``REL_EPS`` slack; None when open."""
    lo, hi = contract.min, contract.max
    return (None if lo is None else lo - REL_EPS * max(1.0, abs(lo)),
            None if hi is None else hi + REL_EPS * max(1.0, abs(hi)))


def _code(value: float, low: Optional[float], high: Optional[float], band: bool) -> str:
    """``within`` on limits from ``_limits``, so they can be computed once per field."""
    above = high is not None and value > high
    below = low is not None and value < low
    if not (above or below):
        return "reading_in_contract"
    if band:
        return "outside_band"
    return "limit_exceeded" if above else "below_minimum"


def contract_message(field: str, value: float, contract: Contract, code: str,
                     source: str = "") -> str:
    """Human wording of a contract check, e.g. "cold_ischemia_elapsed 30 h is
    over its limit of 24 h".

    field (str): The field name.
    value (float): The magnitude in the contract's unit.
    contract (Contract): The contract.
    code (str): The code from ``within``.
    source (str): Words inserted after the value ("in the text"). Defaults to "".
    RETURNS (str): The message.
    """
    head = f"{field} {fmt(value)} {contract.unit}{' ' + source if source else ''}"
    return head + _verdict(contract, code)


_VERBS = {"limit_exceeded": "is over", "below_minimum": "is under", "outside_band": "is outside"}
_CODES = ("reading_in_contract", "limit_exceeded", "below_minimum", "outside_band")


@lru_cache(maxsize=256)
def _verdict(contract: Contract, code: str) -> str:
    """The end of a contract message, " is over its limit of 24 h": it depends
    on the contract and the code only, so it is worded once."""
    if code == "reading_in_contract":
        verb = "meets" if contract.max is None else "is within"
    else:
        verb = _VERBS.get(code, "is outside")
    return f" {verb} its {contract.describe()}"


def _entry(field, term: Optional[Term], status: str, code: str, message: str,
           value: Optional[float] = None) -> dict:
    contract = term.contract if term is not None else None
    return {
        "field": field if isinstance(field, str) or field is None else str(field),
        "term_id": term.id if term is not None else None,
        "status": status,
        "code": code,
        "outcome": outcome_for(code),
        "message": message,
        "value": value,
        "unit": contract.unit if contract is not None else None,
    }


def _malformed(field, term, code: str, message: str) -> dict:
    return _entry(field, term, STATUS_MALFORMED, code, message)


def _real(value: Any) -> Optional[float]:
    """A finite real number, or None (bool, NaN, ±inf, str, None are refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        x = float(value)
    except (OverflowError, ValueError):
        return None
    return x if math.isfinite(x) else None


def parse_datetime(text: Any) -> Optional[datetime]:
    """A strict ISO-8601 datetime (full date and at least the hour), or None.

    text (Any): The candidate; ``datetime`` instances pass through.
    RETURNS (Optional[datetime]): The parsed datetime.
    """
    if isinstance(text, datetime):
        return text
    return _parsed(text) if isinstance(text, str) else None


@lru_cache(maxsize=256)
def _parsed(text: str) -> Optional[datetime]:
    """``parse_datetime`` of a string, kept: a case's ``now`` is read in turn by the case check,
    and by the readings and the time rule when they need it, so a stream in which every case
    has its own ``now`` would parse it again for each. A datetime is immutable, so every reader
    may share one."""
    if not _DATETIME.match(text):
        return None
    from dateutil.parser import isoparse

    try:
        return isoparse(text)
    except Exception:  # ValueError, OverflowError, ... depending on the input
        return None


def _aware(dt: datetime) -> bool:
    return dt.tzinfo is not None and dt.tzinfo.utcoffset(dt) is not None


@lru_cache(maxsize=16)
def _absolute_zero(unit: str) -> float:
    return convert(0.0, "kelvin", unit)


def _read_value(field: str, term: Term, reading: dict) -> Tuple[Optional[float], Optional[dict]]:
    contract = term.contract
    value = _real(reading["value"])
    if value is None:
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: value {reading['value']!r} is not a finite number")
    unit = reading["unit"]
    if not isinstance(unit, str):
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: unit {unit!r} is not a string")
    if value < 0 and contract.kind != "temperature":
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: negative value {fmt(value)} for a {contract.kind}")
    lookup = parse_unit(unit, contract.kind)
    if lookup.status == AMBIGUOUS:
        return None, _malformed(field, term, "ambiguous_unit",
                                f"{field}: unit {unit!r} is ambiguous "
                                f"({' or '.join(lookup.candidates)}?)")
    if lookup.status == UNSUPPORTED:
        return None, _malformed(field, term, "unsupported_unit",
                                f"{field}: unit {unit!r} ({lookup.unit}) cannot be checked "
                                f"against a contract in {contract.unit}")
    if lookup.status != OK:
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: unit {unit!r} is not a known {contract.kind} unit")
    converted = convert(value, lookup.unit, contract.unit)
    if contract.kind == "temperature" and converted < _absolute_zero(contract.unit) - 1e-9:
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: {fmt(value)} {unit} is below absolute zero")
    return converted, None


def _read_duration(field: str, term: Term, reading: dict) -> Tuple[Optional[float], Optional[dict]]:
    contract = term.contract
    if contract.kind != "duration":
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: a duration reading for a {contract.kind} field")
    parsed = parse_iso_duration(reading["duration"])
    if parsed.status == UNSUPPORTED:
        return None, _malformed(field, term, "unsupported_unit",
                                f"{field}: duration {reading['duration']!r} uses years or months, "
                                f"which cannot be checked against a contract in {contract.unit}")
    if parsed.status != OK:
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: {reading['duration']!r} is not an ISO-8601 duration")
    return convert(parsed.hours, "hour", contract.unit), None


def _read_start(field: str, term: Term, reading: dict, now: Any) -> Tuple[Optional[float], Optional[dict]]:
    contract = term.contract
    if contract.kind != "duration":
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: a start reading for a {contract.kind} field")
    if contract.min is not None:
        # A start gives the time elapsed since it, which only grows: against a minimum
        # ("remaining shelf life at least 180 d") an older start would look better, not worse.
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: a start reading gives the time elapsed since it, and this field's "
                                f"contract has a minimum; give its value or duration")
    start = parse_datetime(reading["start"])
    if start is None:
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: start {reading['start']!r} is not an ISO-8601 datetime")
    if now is None or (isinstance(now, str) and not now.strip()):
        return None, _malformed(field, term, "timestamp_missing_now",
                                f"{field}: a start reading needs 'now' to compute the elapsed time")
    now_dt = parse_datetime(now)
    if now_dt is None:
        return None, _malformed(field, term, "malformed_reading",
                                f"{field}: now {now!r} is not an ISO-8601 datetime")
    if _aware(start) != _aware(now_dt):
        which = ("start", "now") if _aware(start) else ("now", "start")
        return None, _malformed(field, term, "timestamp_timezone_mismatch",
                                f"{field}: {which[0]} has a timezone and {which[1]} has none")
    if start > now_dt:
        return None, _malformed(field, term, "timestamp_in_future",
                                f"{field}: start {reading['start']} is after now {now}")
    hours = (now_dt - start).total_seconds() / 3600.0
    return convert(hours, "hour", contract.unit), None


@lru_cache(maxsize=8)
def _field_index(glossary: GlossarySet) -> dict:
    """(domain, field) -> Term, built once per glossary set (they are immutable)."""
    return {(domain, term.field): term for domain, term in glossary.terms() if term.field}


class _FieldCheck(NamedTuple):
    """What checking a reading of one field needs beyond the reading itself,
    worked out once per glossary set rather than on every reading."""

    term: Term
    unit: str  # the contract's unit
    low: Optional[float]  # limits with their slack, see ``_limits``
    high: Optional[float]
    band: bool
    # code -> (status, end of the message from ``_verdict``)
    verdicts: Dict[str, Tuple[str, str, str]]


@lru_cache(maxsize=8)
def _field_checks(glossary: GlossarySet) -> Dict[Tuple[str, str], _FieldCheck]:
    """(domain, field) -> _FieldCheck for the fields of ``_field_index`` with a contract."""
    checks = {}
    for key, term in _field_index(glossary).items():
        contract = term.contract
        if contract is None:
            continue
        low, high = _limits(contract)
        verdicts = {code: (STATUS_OK if code == "reading_in_contract" else STATUS_OUT, _verdict(contract, code))
                    for code in _CODES}
        checks[key] = _FieldCheck(term, contract.unit, low, high, contract.is_band, verdicts)
    return checks


def check_reading(field: Any, reading: Any, domain: Optional[str], glossary: GlossarySet,
                  now: Any = None) -> dict:
    """Validate one reading and check it against its field's contract.

    field (Any): The field name (a key of ``readings``).
    reading (Any): The reading object.
    domain (Optional[str]): The case's domain.
    glossary (GlossarySet): The glossary with the domain's contracts.
    now (Any): The case's ``now`` (ISO-8601 string), needed for ``start``.
    RETURNS (dict): The entry (see the module docstring).
    """
    if not isinstance(domain, str) or domain not in glossary.domains:
        return _malformed(field, None, "unknown_field",
                          f"{field}: cannot be checked, domain {domain!r} is not governed")
    check = _field_checks(glossary).get((domain, field)) if isinstance(field, str) else None
    if check is None:  # no such field, or a field without a contract
        return _malformed(field, None, "unknown_field", f"{field!r} is not a field of {domain}")
    term = check.term
    if not isinstance(reading, dict):
        return _malformed(field, term, "malformed_reading",
                          f"{field}: a reading must be an object, not {type(reading).__name__}")
    # exactly the keys {value, unit}, {duration} or {start}: a dict's keys are
    # unique, so its size and two look-ups say as much as a frozenset of them
    size = len(reading)
    if size == 2 and "value" in reading and "unit" in reading:
        value, problem = _read_value(field, term, reading)
    elif size == 1 and "duration" in reading:
        value, problem = _read_duration(field, term, reading)
    elif size == 1 and "start" in reading:
        value, problem = _read_start(field, term, reading, now)
    else:
        shown = sorted(str(k) for k in reading)
        return _malformed(field, term, "malformed_reading",
                          f"{field}: keys {shown} are not one of {{value, unit}}, {{duration}}, {{start}}")
    if problem is not None:
        return problem
    value = tidy(value)  # conversion noise: 46.4 °F is 8 °C, not 8.000000000000057
    code = _code(value, check.low, check.high, check.band)  # = within(value, term.contract)
    status, verdict = check.verdicts[code]
    return _entry(field, term, status, code, f"{field} {fmt(value)} {check.unit}{verdict}", value)


def check_readings(readings: Any, domain: Optional[str], glossary: GlossarySet,
                   now: Any = None) -> List[dict]:
    """Validate every reading of a case and check it against its contract.

    An unknown domain gives one ``unknown_field`` entry per reading: they
    cannot be checked, and the decision escalates on the domain itself too.
    Never raises, whatever JSON-like value ``readings`` is.

    readings (Any): The case's ``readings``; None means no readings.
    domain (Optional[str]): The case's domain.
    glossary (GlossarySet): The glossary set.
    now (Any): The case's ``now``, an ISO-8601 string (or None).
    RETURNS (List[dict]): One JSON-plain entry per reading, in input order
        (one ``malformed_reading`` entry with field None when ``readings`` is
        not an object).
    """
    if readings is None:
        return []
    if not isinstance(readings, dict):
        return [_malformed(None, None, "malformed_reading",
                           f"readings must be an object, not {type(readings).__name__}")]
    entries = []
    for field, reading in readings.items():
        try:
            entries.append(check_reading(field, reading, domain, glossary, now))
        except Exception as exc:  # fail closed, never crash on a reading
            entries.append(_malformed(field, None, "malformed_reading",
                                      f"{field}: could not be read ({type(exc).__name__})"))
    return entries

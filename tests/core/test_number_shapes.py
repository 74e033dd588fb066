"""A number whose shape is a clock time or a date no clock or calendar shows is not explained
by its shape (``core.number_shapes``, spec §4.1 rule 5)."""
import pytest

from semgap_spacy.core.number_shapes import is_impossible_time_or_date, unread_zoned_clocks
from tests.token_rows import token_rows


@pytest.mark.parametrize("value, impossible", [
    ("14:75", True), ("14:00", False), ("24:00", False),
    ("1475Z", True), ("2460z", True), ("1400Z", False), ("0000Z", False), ("2400Z", False),
    ("1475UTC", True), ("0930utc", False),
    ("1475L", False),  # litres as often as local time: no clock by its shape
    ("31/04", True), ("30/02", True),  # a day and a month no year has, either way round
    ("50/50", False), ("45/50", False), ("13/13", False),  # no day and month at all: a split, a score
    ("24/7", False), ("3/14", False), ("12/31", False), ("29/02", False),
    ("29/02/2027", True), ("29/02/27", True), ("29/02/2028", False),  # a day its own year has not
    ("23:60Z.", True), ("1480Z.", True), ("14:00.", False),  # a sentence's full stop left on it
    ("30.02.", True), ("14.00.", False), ("9.30.", False),  # a de day and month; a clock with a dot
])
def test_clock_times_and_dates_no_clock_or_calendar_shows(value, impossible):
    assert is_impossible_time_or_date(value) is impossible


@pytest.mark.parametrize("text, unread", [
    ("Airworthy, 1475 UTC", ["1475"]),
    ("Airworthy, 1475 zulu", ["1475"]),
    ("Airworthy, 1400 UTC", []),
    ("Airworthy, 1475 units", []),  # no zone: a number
])
def test_four_digits_with_a_zone_after_them(text, unread):
    doc, starts, ends = token_rows(text)
    explained = ["shape" if t.text.isdigit() else "term" for t in doc]
    unread_zoned_clocks(explained, text, starts, ends, "shape")
    assert [t.text for t, rule in zip(doc, explained) if rule is None] == unread


@pytest.mark.parametrize("text, domain, decision", [
    ("Airworthy, 1475 UTC", "aviation_maintenance", "escalate"),
    ("N72XK airworthy 1475Z", "aviation_maintenance", "escalate"),
    ("Lot libéré le 31/04", "pharma_qa", "escalate"),
    ("Kreuzprobe negativ, 30.02. 10:00", "medical_logistics", "escalate"),  # the stop cut off by the tokenizer
    ("Cleared to close, signing 29/02/2027 at 10:00", "mortgage", "escalate"),
    ("Hi ops,\nreleased to service at 23:60Z.\nRegards", "aviation_maintenance", "escalate"),
    ("Airworthy 14.00.", "aviation_maintenance", "proceed"),
    ("Kreuzprobe negativ, 28.02. 10:00", "medical_logistics", "proceed"),
    ("Airworthy, 1400 UTC", "aviation_maintenance", "proceed"),
    ("Airworthy 1400Z", "aviation_maintenance", "proceed"),
])
def test_a_clearance_stamped_with_an_impossible_time(decide, text, domain, decision):
    assert decide(text, domain=domain)["decision"] == decision

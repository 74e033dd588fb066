"""Numbers and units written in ways the readers did not read: each escalates or is read right,
and never proceeds on a reading in its contract while the text says another value (white-box
hunt h25). Their look-alikes that the readers do read still proceed."""
import pytest

NOW = "2026-12-05T12:00:00Z"
TEMP = {"transport_temperature": {"value": 4, "unit": "°C"}}
CIT = {"cold_ischemia_elapsed": {"value": 20, "unit": "h"}}
DTI = {"dti_ratio": {"value": 38, "unit": "%"}}
TYRE = {"tire_pressure": {"value": 200, "unit": "psi"}}


@pytest.mark.parametrize("domain, text, readings", [
    ("medical_logistics", "Negative crossmatch, transport temperature 9½ °C", {"transport_temperature": {"value": 2, "unit": "°C"}}),
    ("medical_logistics", "Negative crossmatch, CIT 1'500 min", {"cold_ischemia_elapsed": {"value": 500, "unit": "min"}}),
    ("aviation_maintenance", "Airworthy, tire pressure 200 psia", TYRE),       # absolute, not gauge
    ("aviation_maintenance", "Airworthy; tyre pressure now 180lbs", TYRE),
    ("medical_logistics", "Negative crossmatch, box temperature now ١٢ °C", TEMP),  # digits of another script
    ("medical_logistics", "Negative crossmatch, box temperature is .5 °C", TEMP),   # no digit before the mark
    ("mortgage", "Clear to close; DTI is .48", DTI),
    ("medical_logistics", "Negative crossmatch, box temperature now 1O °C", TEMP),  # a letter for a digit
    ("mortgage", "Clear to close; DTI now 4O%", DTI),                             # ... with its unit glued
    ("mortgage", "Clear to close; DTI now 4О%", DTI),                             # a Cyrillic О
    ("mortgage", "Clear to close; DTI/LTV 48/95%", DTI),                          # a pair: the reader reads one
    ("medical_logistics", "Negative crossmatch, CIT 1/2 h", CIT),                 # a fraction
    ("medical_logistics", "Kreuzprobe negativ; kalte Ischämiezeit gut 20 Stunden", CIT),  # "a good": more
    ("medical_logistics", "Negative crossmatch; cold ischemia almost 20 hours", CIT),      # less
    ("medical_logistics", "Prueba cruzada negativa; isquemia fría unas buenas 20 horas", CIT),
    ("medical_logistics", "Negative crossmatch, box temperature ➖4 °C", TEMP),     # a minus as an emoji
    ("medical_logistics", "Prueba cruzada negativa, isquemia fría ahora 30hs", CIT),
    ("mortgage", 'Clear to close; DTI is "48"', DTI),                             # a bare number in quotes
    ("mortgage", "Autorisé à clôturer ; taux d'endettement est «48»", DTI),
    ("medical_logistics", "Prueba cruzada negativa, temperatura de transporte 5 grados F",
     {"transport_temperature": {"value": 5, "unit": "°C"}}),                      # Fahrenheit, not Celsius
    ("medical_logistics", "Negative crossmatch; CIT ⩾20 h", CIT),                 # a bound
    ("medical_logistics", "Negative crossmatch; CIT 20 h & up", CIT),
    ("medical_logistics", "Negative crossmatch; box temperature 4 °C ↑", TEMP),
    ("medical_logistics", "Negative crossmatch, CIT 10 h + 10 h", CIT),           # a sum of quantities
    ("medical_logistics", "Negative crossmatch, CIT 2×10 h", CIT),               # a product
    ("pharma_qa", "Lots released 3-of-5", None),                                  # a part of a count
    ("pharma_qa", "Lot released: LOT-42; shipment LOT-٤٣", None),
    # a number the quantity reader leaves unread is no shape rule 5 explains, field named or not
    ("medical_logistics", "Negative crossmatch 9½ °C", None),
    ("medical_logistics", "Negative crossmatch, 1'500 °C", None),
    # a quote before a number opens a quotation: the quantity in it is read ("'12 °C'")
    ("medical_logistics", "Negative crossmatch '12 °C'", None),
    ("medical_logistics", "Negative crossmatch ’12 °C’", None),
])
def test_a_number_not_read_as_written_does_not_proceed(decide, domain, text, readings):
    assert decide(text, domain=domain, readings=readings, now=NOW)["decision"] != "proceed"


@pytest.mark.parametrize("domain, text, readings", [
    ("medical_logistics", "Negative crossmatch, box temperature ４ °C", TEMP),    # full-width digits read as 0-9
    ("medical_logistics", "Negative crossmatch, transport temperature 4 °C", TEMP),
    ("aviation_maintenance", "Airworthy, tire pressure 200 psi", TYRE),
    ("medical_logistics", "Negative crossmatch, box temperature 4 °C ↓", TEMP),
    ("mortgage", "Clear to close; DTI 38 %", DTI),
    ("pharma_qa", "Lot released, 10l", None),                                  # a unit glued, no look-alike
])
def test_numbers_the_readers_read_still_proceed(decide, domain, text, readings):
    assert decide(text, domain=domain, readings=readings, now=NOW)["decision"] == "proceed"

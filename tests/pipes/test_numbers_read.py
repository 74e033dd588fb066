"""Numbers the text states must be read and checked, or the case escalates.

A value that no field claims, a value in words and a value the quantity
reader cannot parse all say something about a contract that nothing checked;
each must keep the case from proceeding.
"""
import pytest

from semgap_spacy.core.quantities import find_quantities
from semgap_spacy.lang import number_word

COLD = {"cold_ischemia_elapsed": {"value": 6, "unit": "h"}}
BOX = {"transport_temperature": {"value": 5, "unit": "°C"}}
DTI = {"dti_ratio": {"value": 38, "unit": "%"}}
TIRE = {"tire_pressure": {"value": 200, "unit": "psi"}}
MED, MTG, PHA, AVN = "medical_logistics", "mortgage", "pharma_qa", "aviation_maintenance"


def codes(decision):
    return [r["code"] for r in decision["reasons"]]


@pytest.mark.parametrize("text, domain, readings", [
    ("xm neg, ischemia 30 h", MED, COLD),                   # the field named by part of its phrase
    ("xm neg, CIT – 30h", MED, COLD),                       # a dash ends the clause of the mention
    ("xm neg, cold ischemia 6 h at pickup, 30 h now", MED, COLD),  # a second value in another clause
    ("xm neg, transport temperature 5 °C at 08:00, 12 °C at 14:00", MED, BOX),
    ("Clear to close, debt 50%", MTG, DTI),
    ("Airworthy, tire pressure 200 psi on wheel 1, 150 psi on wheel 2", AVN, TIRE),
    ("Kreuzprobe negativ, Ischämiezeit 30 Stunden", MED, COLD),
    ("prueba cruzada negativa, isquemia 30 horas", MED, COLD),
])
def test_a_quantity_of_a_contract_kind_that_no_field_claims_escalates(decide, text, domain, readings):
    decision = decide(text, domain=domain, readings=readings)
    assert decision["decision"] == "escalate"
    untied = [r for r in decision["reasons"] if r["code"] == "quantity_untied"]
    assert untied and untied[0]["outcome"] == "escalate"
    quoted = text[untied[0]["start_char"]:untied[0]["end_char"]]
    assert quoted[0].isdigit() and quoted in untied[0]["message"]


def test_an_untied_quantity_names_the_fields_of_its_kind(decide):
    reason = next(r for r in decide("xm neg, box 12 °C", readings=COLD)["reasons"]
                  if r["code"] == "quantity_untied")
    assert reason["field"] == "transport_temperature" and "temperature" in reason["message"]


@pytest.mark.parametrize("text, domain, readings", [
    ("xm neg, cold ischemia 6 h", MED, COLD),          # tied: checked against the reading
    ("Clear to close, 3 pages signed at 14:00", MTG, None),  # a count and a time are no quantities
    ("Airworthy; gate 3C", AVN, None),                       # a letter glued to a short number: a place
    ("Airworthy; brake P/N 2-1577-3C", AVN, None),           # a number inside a code
])
def test_a_quantity_tied_or_no_quantity_at_all_is_not_untied(decide, text, domain, readings):
    assert "quantity_untied" not in codes(decide(text, domain=domain, readings=readings))


@pytest.mark.parametrize("text, domain, kind", [
    ("brakes 600 °C, airworthy", AVN, "temperature"),      # no aviation contract is a temperature
    ("Batch released, assay 85 %", PHA, "ratio"),            # nor a pharma one a ratio
    ("Batch released, 40 % humidity noted", PHA, "ratio"),
    ("xm neg, cooler lid 30 psi", MED, "pressure"),
    ("Clear to close, garage at 3 °C", MTG, "temperature"),
])
def test_a_quantity_of_a_kind_no_contract_governs_escalates_as_nothing_checks_it(decide, text, domain, kind):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    untied = [r for r in decision["reasons"] if r["code"] == "quantity_untied"]
    assert len(untied) == 1 and untied[0]["field"] is None
    assert kind in untied[0]["message"] and text[untied[0]["start_char"]].isdigit()


def test_chatter_with_a_duration_escalates_in_a_domain_with_duration_contracts(decide):
    # the price of the rule: the reader cannot tell "in 1 day" from a field's value
    decision = decide("Clear to close. Next update in 1 day.", domain=MTG)
    assert decision["decision"] == "escalate" and codes(decision) == ["quantity_untied", "clearance"]
    assert decide("Clear to close. Next update at 14:00.", domain=MTG)["decision"] == "proceed"


@pytest.mark.parametrize("text, domain, readings", [
    ("xm neg, cold ischemia forty", MED, COLD),
    ("xm neg, transport temperature twelve", MED, BOX),
    ("crossmatch négatif, température de transport vingt", MED, BOX),
    ("Kreuzprobe negativ, Transporttemperatur zwanzig", MED, BOX),
    ("prueba cruzada negativa, temperatura de transporte diez", MED, BOX),
    ("Clear to close, DTI fifty", MTG, DTI),
    ("Airworthy, tire pressure: two hundred fifty", AVN, TIRE),
])
def test_a_number_in_words_after_a_field_mention_escalates(decide, text, domain, readings):
    decision = decide(text, domain=domain, readings=readings)
    assert decision["decision"] == "escalate"
    assert "value_in_words" in codes(decision)


@pytest.mark.parametrize("text, readings", [
    ("Airworthy, TSI l50 h", {"hours_since_inspection": {"value": 50, "unit": "h"}}),
    ("Clear to close, DTI ٥٠%", DTI),
])
def test_a_word_with_digits_the_reader_cannot_parse_after_a_field_mention_escalates(decide, text, readings):
    domain = AVN if "TSI" in text else MTG
    decision = decide(text, domain=domain, readings=readings)
    assert decision["decision"] == "escalate" and "ambiguous_unit" in codes(decision)


@pytest.mark.parametrize("word, expected", [
    ("forty", True), ("Fifty", True), ("vingt", True), ("diez", True), ("zwanzig", True), ("Zwölf", True),
    ("ein", False), ("pending", False), ("30", False), ("hours", False),
])
def test_number_words_come_from_spacy_and_the_packs(word, expected):
    assert number_word(word) is expected


@pytest.mark.parametrize("text, value", [
    ("transport temperature –5 °C", -5.0),   # an en dash glued to the number after a space
    ("transport temperature ‒5 °C", -5.0),   # a figure dash
    ("transport temperature -5 °C", -5.0),
])
def test_a_dash_glued_to_a_temperature_is_a_minus_sign(text, value):
    assert [q.value for q in find_quantities(text)] == [value]


def test_a_dash_between_numbers_or_apart_from_one_is_no_sign():
    assert [q.value for q in find_quantities("box 2–8 °C")] == [2.0, 8.0]
    assert [q.value for q in find_quantities("box – 5 °C")] == [5.0]


def test_a_negative_text_temperature_against_a_positive_reading_escalates(decide):
    decision = decide("xm neg, transport temperature –5 °C", readings=BOX)
    assert decision["decision"] != "proceed"


@pytest.mark.parametrize("text, domain, readings, number", [
    ("Clear to close; DTI is 55", MTG, DTI, "55"),                 # words between field and number
    ("crossmatch négatif, ischémie froide de 30", MED, COLD, "30"),
    ("xm neg, transport temperature 4 °C; then 12", MED, BOX, "12"),  # another clause
    ("Kreuzprobe negativ, Transporttemperatur 4 °C, dann 14", MED, BOX, "14"),
    ("Airworthy, tire pressure at (150)", AVN, TIRE, "150"),
])
def test_a_bare_number_in_a_text_that_names_a_field_escalates(decide, text, domain, readings, number):
    decision = decide(text, domain=domain, readings=readings)
    assert decision["decision"] == "escalate"
    bare = [r for r in decision["reasons"] if r["code"] == "ambiguous_unit"]
    assert [text[r["start_char"]:r["end_char"]] for r in bare] == [number]


@pytest.mark.parametrize("text, domain, readings", [
    ("xm neg, CIT 6 h, ref #4821 at 14:00", MED, COLD),   # a code and a clock time are no bare numbers
    ("Clear to close, DTI 38 %, fee $1,250", MTG, DTI),
    ("Batch released, order 88213", PHA, None),           # no field named: counts and ids stay chatter
    ("Airworthy, gate 12, departure 14:35", AVN, None),
])
def test_codes_times_money_and_numbers_in_texts_without_a_field_are_no_bare_numbers(
        decide, text, domain, readings):
    reasons = decide(text, domain=domain, readings=readings)["reasons"]
    assert "ambiguous_unit" not in [r["code"] for r in reasons]


@pytest.mark.parametrize("text", ["xm neg, CIT 6h/30h", "xm neg, CIT: 6h→30h"])
def test_two_quantities_in_one_token_escalate(decide, text):
    decision = decide(text, readings=COLD)
    assert decision["decision"] == "escalate"
    reason = next(r for r in decision["reasons"] if r["code"] == "quantity_unsplit")
    assert reason["outcome"] == "escalate" and "6h" in text[reason["start_char"]:reason["end_char"]]


@pytest.mark.parametrize("text, domain, readings, found", [
    ("Lote liberado, excursión de temperatura de las 10:05 a las 10:50", PHA,
     {"excursion_duration": {"value": 10, "unit": "min"}}, ["10:05", "10:50"]),
    ("Clear to close; rate lock since 2026-01-02", MTG, {"rate_lock_age": {"value": 20, "unit": "day"}},
     ["2026-01-02"]),
    ("xm neg, organ cold since 02:00 yesterday, now 08:00", MED, COLD, ["02:00", "08:00"]),  # "cold": part
    ("[2026-12-01 09:52] xm neg, cold ischemia since 02:00", MED, COLD, ["02:00"]),  # the stamp is no value
    ("09:52 cold ischemia 6 h, xm neg", MED, COLD, ["09:52"]),  # a bare time that opens the text may be one
])
def test_a_time_or_date_in_a_text_that_names_a_duration_field_escalates(decide, text, domain, readings, found):
    decision = decide(text, domain=domain, readings=readings)
    assert decision["decision"] == "escalate"
    times = [r for r in decision["reasons"] if r["code"] == "text_timestamp"]
    assert [text[r["start_char"]:r["end_char"]] for r in times] == found


@pytest.mark.parametrize("text, domain", [
    ("[15:59] Priya: xm neg", MED),                      # a chat time stamp, no duration field named
    ("[09:52] Priya: xm neg, cold ischemia 6 h", MED),   # the message's own stamp, in brackets, opens it
    ("Clear to close, DTI 38 %, signing 14:00", MTG),    # DTI is a ratio: a time says nothing of it
])
def test_a_chat_time_stamp_or_a_time_without_a_duration_field_is_chatter(decide, text, domain):
    readings = DTI if domain == MTG else COLD if "cold" in text else None
    assert "text_timestamp" not in codes(decide(text, domain=domain, readings=readings))


def test_a_field_named_by_part_of_its_phrase_makes_a_bare_number_suspect(decide):
    decision = decide("Released to service, hours since last inspection is 150", domain=AVN,
                      readings={"hours_since_inspection": {"value": 40, "unit": "h"}})
    assert decision["decision"] == "escalate"
    assert [r["field"] for r in decision["reasons"] if r["code"] == "ambiguous_unit"] == ["hours_since_inspection"]


def _named_fields_nlp():
    from semgap_spacy import build_pipeline
    return build_pipeline(config={"semgap_decision": {"untied_quantities": "named_fields"}})


@pytest.fixture(scope="module")
def named_nlp():
    return _named_fields_nlp()


def _decide_with(nlp, text, domain=MED, readings=None):
    from semgap_spacy import decide_cases
    case = {"id": "c", "domain": domain, "text": text}
    if readings:
        case["readings"] = readings
    return next(iter(decide_cases(nlp, [case])))


def test_named_fields_lets_chatter_with_a_duration_proceed_and_says_so(named_nlp, decide):
    text = "Clear to close. Next update in 1 day."
    assert decide(text, domain=MTG)["decision"] == "escalate"  # the default: any untied quantity
    decision = _decide_with(named_nlp, text, domain=MTG)
    assert decision["decision"] == "proceed"
    assert decision["widened"] == {"untied_quantities": "named_fields"}
    assert "widened" not in decide(text, domain=MTG)  # the default widens nothing


@pytest.mark.parametrize("text, readings", [
    ("xm neg, ischemia 30 h", COLD),                      # named by a word of its phrase
    ("xm neg, cold ischemia 6 h at pickup, 30 h now", COLD),  # named by a mention
    ("xm neg, box 12 °C", COLD),
])
def test_named_fields_still_escalates_a_quantity_of_a_named_fields_kind(named_nlp, text, readings):
    decision = _decide_with(named_nlp, text, readings=readings)
    assert decision["decision"] == "escalate" and "quantity_untied" in codes(decision)


def test_named_fields_lets_a_quantity_through_when_no_field_of_its_kind_is_named(named_nlp):
    # the price of the switch: a bare "30 h" next to a clearance is read as chatter, and so is
    # a value of a kind no contract of the domain governs
    assert _decide_with(named_nlp, "xm neg, 30 h", readings=COLD)["decision"] == "proceed"
    assert _decide_with(named_nlp, "brakes 600 °C, airworthy", domain=AVN)["decision"] == "proceed"


def test_untied_quantities_survives_to_disk_and_rejects_unknown_values(named_nlp, tmp_path):
    import spacy
    from semgap_spacy import build_pipeline
    named_nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("semgap_decision").untied_quantities == "named_fields"
    assert _decide_with(loaded, "Clear to close. Next update in 1 day.", domain=MTG)["decision"] == "proceed"
    with pytest.raises(ValueError, match="untied_quantities"):
        build_pipeline(config={"semgap_decision": {"untied_quantities": "none"}})


def test_contract_kinds_lets_a_quantity_no_contract_governs_through_and_says_so(decide):
    from semgap_spacy import build_pipeline
    nlp = build_pipeline(config={"semgap_decision": {"untied_quantities": "contract_kinds"}})
    decision = _decide_with(nlp, "brakes 600 °C, airworthy", domain=AVN)
    assert decision["decision"] == "proceed"
    assert decision["widened"] == {"untied_quantities": "contract_kinds"}
    assert decide("brakes 600 °C, airworthy", domain=AVN)["decision"] == "escalate"  # the default
    # a quantity of a kind a contract governs still escalates
    assert _decide_with(nlp, "xm neg, 30 h", readings=COLD)["decision"] == "escalate"

"""Forms and checklists: an empty checkbox is a negation cue, and an initial or a dash after
a term's colon is the form's answer, which rule 5 does not explain."""
import pytest

from semgap_spacy.core.colon_values import unread_colon_values


def _codes(decision):
    return [r["code"] for r in decision["reasons"]]


@pytest.mark.parametrize("text, domain", [
    ("[ ] Clear to close", "mortgage"),
    ("- [ ] crossmatch negative", "medical_logistics"),
    ("[  ] Airworthy", "aviation_maintenance"),
    ("☐ Batch released", "pharma_qa"),
    ("▢ Airworthy", "aviation_maintenance"),  # every empty box or radio button, as "☐"
    ("○ Airworthy", "aviation_maintenance"),
    ("( ) Clear to close", "mortgage"),
    ("☓ Lot released", "pharma_qa"),  # a cross
    ("Negative crossmatch 🆖", "medical_logistics"),  # "no good"
])
def test_an_empty_checkbox_negates_its_item(decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate" and "clearance_negated" in _codes(decision)


@pytest.mark.parametrize("text, domain, words", [
    ("Clear to close: N", "mortgage", ["N"]),
    ("CTC: —", "mortgage", ["—"]),
    ("XM neg: N/A", "medical_logistics", ["N", "/", "A"]),  # "A" (es "a") a letter of it
    ("Lote liberado: N/A", "pharma_qa", ["N", "/", "A"]),
    # the other marks a form writes between a field and its value, and a value in brackets
    ("Clear to close = N", "mortgage", ["N"]),
    ("Clear to close - N", "mortgage", ["N"]),
    ("Lote liberado → N", "pharma_qa", ["N"]),
    ("Clear to close | N", "mortgage", ["N"]),
    ("Lufttüchtig (N)", "aviation_maintenance", ["N"]),
    ("Clear to close: F-GK31", "mortgage", ["F", "-"]),  # after a colon letters are read as an answer, as before
])
def test_an_answer_after_a_terms_colon_is_not_explained_by_its_shape(decide, text, domain, words):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    reason = next(r for r in decision["reasons"] if r["code"] == "unexplained_content")
    assert reason["words"] == words


@pytest.mark.parametrize("text, domain", [
    ("[X] Clear to close", "mortgage"),
    ("Clear to close: LN-20417", "mortgage"),  # a value with a digit names a thing
    ("Batch released: ✅", "pharma_qa"),  # a symbol is a mark
    ("Crossmatch: negative", "medical_logistics"),
    ("Clear to close - Y", "mortgage"),  # "y" is a stop word, no shape
    ("[X] Apte au vol — F-GK31", "aviation_maintenance"),  # the letters start an identifier
    ("Lot released (QP)", "pharma_qa"),
])
def test_a_checked_box_an_identifier_or_a_mark_after_the_colon_still_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"


def test_only_a_colon_right_after_a_term_opens_a_value():
    text = "Note: N. Ruiz clear to close"
    tokens = ["Note", ":", "N.", "Ruiz", "clear", "to", "close"]
    starts, pos = [], 0
    for t in tokens:
        pos = text.index(t, pos)
        starts.append(pos)
        pos += len(t)
    ends = [s + len(t) for s, t in zip(starts, tokens)]
    explained = [None, "shape", "shape", None, "term", "term", "term"]
    assert unread_colon_values(list(explained), text, starts, ends, "term", "shape") == explained
    after_term = ["term", "shape", "shape", None, "term", "term", "term"]
    assert unread_colon_values(list(after_term), text, starts, ends, "term", "shape")[2] is None


@pytest.mark.parametrize("text, domain", [
    ("Lufttüchtig 🟠", "aviation_maintenance"),
    ("Clear to close 🟨", "mortgage"),
    ("Batch released 🔶", "pharma_qa"),
])
def test_an_amber_status_hedges(decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate" and "clearance_hedged" in _codes(decision)


@pytest.mark.parametrize("text, domain", [
    ("■ Clear to close", "mortgage"),  # a bullet: a filled square
    ("☑ Clear to close", "mortgage"),
    ("Lufttüchtig 🟢", "aviation_maintenance"),
])
def test_a_bullet_a_checked_box_and_a_green_status_still_proceed(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"


@pytest.mark.parametrize("text, domain, words", [
    ("Clear to close for [BORROWER]", "mortgage", ["[", "BORROWER", "]"]),
    ("Clear to close for $NAME", "mortgage", ["$", "NAME"]),
    ("Negative crossmatch for <recipient>", "medical_logistics", ["<", "recipient", ">"]),
    ("Listo para el cierre: expediente ____", "mortgage", ["_"]),
    ("Clear to close for %BORROWER_NAME%", "mortgage", ["%", "BORROWER_NAME%"]),
    ("Hi [NAME],\nclear to close", "mortgage", ["[", "NAME", "]"]),
])
def test_a_template_blank_left_unfilled_is_not_explained(decide, text, domain, words):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    reason = next(r for r in decision["reasons"] if r["code"] == "unexplained_content")
    assert reason["words"] == words


@pytest.mark.parametrize("text, domain", [
    ("Clear to close, $412,000", "mortgage"),          # an amount
    ("Clear to close <jane.doe@example.com>", "mortgage"),  # an address
    ("Clear to close [LN-2207]", "mortgage"),           # an identifier in brackets
    ("[X] Clear to close", "mortgage"),
    ("[UPDATE] Clear to close", "mortgage"),            # a tag that opens its line
])
def test_amounts_addresses_identifiers_and_tags_are_no_blanks(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"


@pytest.mark.parametrize("text, domain", [
    ("Re: clear to close", "mortgage"),
    ("RE: Lot released", "pharma_qa"),
    ("AW: Lufttüchtig", "aviation_maintenance"),
    ("RE: RE: Listo para el cierre", "mortgage"),
    ("Fwd: negative crossmatch\n\nSee below", "medical_logistics"),
])
def test_a_clearance_only_in_a_subject_line_escalates(decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate" and "unexplained_content" in _codes(decision)


@pytest.mark.parametrize("text, domain", [
    ("Re: file 2207\nClear to close issued", "mortgage"),  # the body states it
    ("RE: lot 42\nLot released", "pharma_qa"),
    ("Update: clear to close", "mortgage"),
])
def test_a_clearance_the_body_states_still_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"

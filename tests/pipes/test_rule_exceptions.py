"""The exceptions the rules carve out for harmless look-alikes, and the unsafe messages that used
them to proceed (white-box hunt h37): each class escalates now, and the look-alike the exception
was made for still proceeds."""
import pytest

NOW = "2026-12-05T12:00:00Z"


@pytest.mark.parametrize("domain, text", [
    # a form's answer with a word between the term and its mark, or a cross as the answer
    ("mortgage", "Clear to close today: N"),
    ("mortgage", "Abschlussbereit bestätigt: N"),
    ("aviation_maintenance", "Apte au vol confirmé : N"),
    ("aviation_maintenance", "Airworthy: ×"),
    ("pharma_qa", "Lot libéré : ⨯"),
    # an order to check what it names, a done word further on
    ("aviation_maintenance", "Airworthy; check brakes are ok"),
    ("mortgage", "Clear to close; confirm the wire is in"),
    # a kept prefix before a word that is no check's participle: an order to redo
    ("pharma_qa", "Batch released; re-label"),
    ("aviation_maintenance", "Airworthy, brake re-work"),
    # "if any" followed by words: a condition
    ("mortgage", "Clear to close if any funds received"),
    # questions: tags, quantifiers as subjects, French inversions
    ("aviation_maintenance", "Airworthy, was it"),
    ("aviation_maintenance", "Lufttüchtig, ist das so"),
    ("aviation_maintenance", "Are both airworthy"),
    ("mortgage", "Ist jede Akte abschlussbereit"),
    ("aviation_maintenance", "Est-on apte au vol"),
    ("mortgage", "Est-ce autorisé à clôturer"),
    # an order, not a wish
    ("mortgage", "Do a CTC"),
    # an hour as a bare number or with a decimal point, a stamp-like colon, an event, a goal
    ("mortgage", "Clear to close by 5"),
    ("pharma_qa", "Lote liberado para las 9"),
    ("mortgage", "Abschlussbereit um 17.30"),
    ("mortgage", "Clear to close by 18:00: confirmed"),
    ("mortgage", "Clear to close by 17:00 funding"),
    ("mortgage", "Clear to close for 17:00"),
    # an earlier occasion, even after an act's participle
    ("aviation_maintenance", "Released to service last time"),
    ("pharma_qa", "Lote liberado la vez pasada"),
    # a finding word in another clause finds nothing of the state to come
    ("aviation_maintenance", "Logbook verified, aircraft to be airworthy"),
    # a time still to come after a word of a goal
    ("pharma_qa", "Lote liberado para la mañana"),
    ("aviation_maintenance", "Lufttüchtig für den Morgen"),
    # a condition's event named with a word before it
    ("mortgage", "Clear to close on loan funding"),
    ("aviation_maintenance", "Lufttüchtig nach Flugzeug-Check"),
    # template blanks written otherwise
    ("mortgage", "Clear to close for [Borrower]"),
    ("mortgage", "Abschlussbereit für [Akte]"),
    ("mortgage", "Clear to close for $borrower"),
    # a part of a group the text does not count
    ("mortgage", "Clear to close for one of the borrowers"),
    ("pharma_qa", "Batch released: 2 of the orders"),
    # two amounts in two currencies
    ("mortgage", "Clear to close on $412,000; loan €438,500"),
    # hearsay: to whom the party spoke, a label with a channel word
    ("mortgage", "Clear to close, borrower confirmed with the wire desk"),
    ("pharma_qa", "Customer team: lot released"),
    # "call back" as an order
    ("mortgage", "Clear to close, call back"),
])
def test_an_exception_no_longer_lets_it_through(decide, domain, text):
    assert decide(text, domain=domain, now=NOW)["decision"] != "proceed"


@pytest.mark.parametrize("domain, text", [
    ("mortgage", "Clear to close: Y"),
    ("aviation_maintenance", "Airworthy: ✓"),
    ("pharma_qa", "Lote liberado: LOT-2207"),
    ("aviation_maintenance", "Check complete: airworthy"),
    ("mortgage", "Confirm received, clear to close"),
    ("aviation_maintenance", "Check A complete, airworthy"),
    ("aviation_maintenance", "Airworthy; brakes re-checked"),
    ("mortgage", "Clear to close; docs e-signed"),
    ("mortgage", "Clear to close; notes, if any, attached"),
    ("mortgage", "Clear to close, will update the borrower"),
    ("aviation_maintenance", "Has been released to service"),
    ("pharma_qa", "Lote liberado esta mañana"),
    ("aviation_maintenance", "Guten Morgen, lufttüchtig"),
    ("medical_logistics", "Negative crossmatch from 06:00 serum."),
    ("mortgage", "Update from 14:05: clear to close"),
    ("medical_logistics", "Negative crossmatch, courier booked for 14:00"),
    ("aviation_maintenance", "Airworthy for 06:00 departure"),  # the time names the flight
    ("pharma_qa", "Lot released for order 4471"),
    ("pharma_qa", "Lot released yesterday"),
    ("aviation_maintenance", "Aircraft checked and confirmed to be airworthy."),
    ("aviation_maintenance", "Airworthy on stand 4"),
    ("pharma_qa", "[QA] Lot released"),
    ("mortgage", "Clear to close for $412,000"),
    ("mortgage", "Clear to close on $412,000; wire $412,000"),
    ("pharma_qa", "Batch released, 5 of 5 orders"),
    ("medical_logistics", "xm neg, driver reported ETA 14:20"),
    ("medical_logistics", "Negative crossmatch (recipient)"),
    ("medical_logistics", "Lab called back: negative crossmatch"),
])
def test_the_look_alike_an_exception_was_made_for_still_proceeds(decide, domain, text):
    assert decide(text, domain=domain, now=NOW)["decision"] == "proceed"

"""Two identifiers of one form that differ escalate (``core.identifiers``); one, or two of
different forms, do not."""
import pytest

from semgap_spacy.core.identifiers import identifier_conflicts
from tests.token_rows import token_rows


_STOP = {"at", "in", "of", "for", "and", "is", "this", "on", "the"}


def _conflicts(text, shaped=None):
    """The values each conflict quotes, with every token counted as a shape token unless
    ``shaped`` says which are; a few words count as stop words."""
    doc, starts, ends = token_rows(text)
    rules = ["shape" if shaped is None or shaped(t.text) else "stop" if t.lower_ in _STOP else None for t in doc]
    return [[text[s:e] for s, e in spans]
            for _, _, spans in identifier_conflicts(text, starts, ends, rules, "shape", "stop")]


def _digit_or_sign(word):
    """Rule 5 roughly: a token with a digit, or of symbols and punctuation only."""
    return any(ch.isdigit() for ch in word) or not any(ch.isalpha() for ch in word)


@pytest.mark.parametrize("text, values", [
    ("El lote liberado es el 24-117; este es el 24-118", ["24-117", "24-118"]),
    ("Clear to close on $412,000; final amount $438,500.", ["$412,000", "$438,500"]),
    ("LOT-42 released, LOT-43 held", ["LOT-42", "LOT-43"]),
    ("file #6097 and #7740", ["#6097", "#7740"]),
    ("Betrag 412.000 € statt 438.500 €", ["412.000 €", "438.500 €"]),
    ("N123AB airworthy, N456AB not", ["N123AB", "N456AB"]),
    # a word labels a bare number of three or more digits
    ("Negative crossmatch, recipient 1133. Flight booked for recipient 1331.",
     ["recipient 1133", "recipient 1331"]),
    ("Empfänger 1133 bestätigt, Empfänger 1331 gebucht", ["Empfänger 1133", "Empfänger 1331"]),
    ("Loan 4471 is clear; loan 4472 next", ["Loan 4471", "loan 4472"]),
    # the same digits and a different letter after them: two of one series
    ("Re lot 2231-A: lot released for 2231-B", ["2231-A", "2231-B"]),
    ("N482QX airworthy, N482QY in the hangar", ["N482QX", "N482QY"]),
    ("Lot released for 2231-A. Order for 2231-B.", ["2231-A", "2231-B"]),  # "A." ends a sentence
    ("Lot released for 2231-A\norder for 2231-B", ["2231-A", "2231-B"]),   # a line break is no part
    ("Lot released for 2231–A; order for 2231–B", ["2231–A", "2231–B"]),    # an en dash
    # ... or a number and the same number with such a letter
    ("QP certified for lot 4471; labels for lot 4471B", ["4471", "4471B"]),
    ("Lot released for order 4471; order 4471A on the line", ["4471", "4471A"]),
    ("Lot released: 4471, and 4471-B on the line", ["4471", "4471-B"]),
    ("Flight 4471 departed, flight 4471A scheduled", ["4471", "4471A"]),  # one word names both
    ("Airworthy: N4471 and N4471B", ["N4471", "N4471B"]),  # a code of four digits and the same with a letter
    ("Lot released: LOT-42A; shipment LOT-42B", ["LOT-42A", "LOT-42B"]),  # letters before a shorter number
    # a code written with a space as another is written glued, a colon or a number sign
    ("Batch released: LOT-42; shipment LOT 43", ["LOT-42", "LOT 43"]),
    ("Negative crossmatch; donor D 4471, sample D-4472", ["D 4471", "D-4472"]),
    ("Batch released: LOT:42; shipment LOT-43", ["LOT:42", "LOT-43"]),
    ("Batch released: LOT#42; shipment LOT-43", ["LOT#42", "LOT-43"]),
    # one form written with another dash, or an amount with zero cents
    ("Lote liberado 24-117; envío 24–118", ["24-117", "24–118"]),
    ("Clear to close on $412,000; wire $438,500.00", ["$412,000", "$438,500.00"]),
    ("Airworthy: N123AB. Departure: N１２３AC.", ["N123AB", "N１２３AC"]),
    ("Clear to close on $412,000; wire $412,000.50", ["$412,000", "$412,000.50"]),  # cents are of the form  # full-width digits read as 0-9
])
def test_two_values_of_one_form_conflict(text, values):
    assert _conflicts(text, _digit_or_sign) == [values]


@pytest.mark.parametrize("text", [
    "LOT-42 released, LOT-42 shipped",  # the same value twice
    "Lote liberado 24-117; envío 24–117",  # the same value with another dash
    "Clear to close on $412,000; wire $412,000.00",  # the same amount with zero cents
    "LOT 42 released, LOT-42 shipped",  # written with a space once
    "Lot released. QC 12 and QC 14 signed",  # codes with a space, none glued: places, forms
    "Airworthy: B737 at stand 12, B737F at stand 14",  # a type and its variant
    "lot-42 and LOT-42",  # letter case is no difference
    "LOT-42 for WO-4471",  # different letters: different kinds
    "A320neo N123AB airworthy",
    "courier 2 of 3",  # bare numbers
    "signed 14:20, filed 14:35",  # clock times
    "from 2026-11-30 to 2026-12-01",  # dates
    "N123AB. airworthy",  # outer punctuation is not part of the value
    "recipient 1133 booked, recipient 1133 confirmed",  # one labelled number, twice
    "signed at 1400, filed at 1600",  # a stop word labels nothing
    "bag 12 and bag 13",  # fewer than three digits
    "recipient 1133, donor 1331",  # different labels: different kinds
    "recipient-1133 and recipient 1331",  # a glued label is part of a value of another form
    "ETA 1400, wheels up 1400Z",  # a time of day and a time of day in UTC
    "Lot released; QC 101 and QC 101A signed",  # codes with a space: places, forms
    "Airworthy. Gate 214, stand 214B",  # two words name two kinds of thing
    "Lot released; order 4471 for site 4471B",
])
def test_one_value_or_values_of_different_forms_do_not(text):
    assert _conflicts(text, _digit_or_sign) == []


@pytest.mark.parametrize("text, values", [
    ("Clear to close for file 4417; this is 4471", ["4417", "4471"]),
    ("MRN 448190 on the form, 448109 on the tube", ["448190", "448109"]),
    ("loan 4417 and loan 4471", ["loan 4417", "loan 4471"]),
    ("CTC for 4417; funds for #4471", ["4417", "#4471"]),  # a number sign is no other number
    ("xm neg for 4417; van at 1215 for 4471", ["4417", "4471"]),
])
def test_one_number_with_its_digits_in_another_order_conflicts(text, values):
    assert sorted(_conflicts(text, _digit_or_sign)) == sorted([values])


@pytest.mark.parametrize("text", [
    "file 4417, funding at 1400",  # other digits
    "recipient 1133, donor 1331",  # two labels: two kinds of thing
    "bag 12 and bag 21",  # fewer than three digits
    "runway 27L and 27R",  # a letter after two digits: a runway, a seat, a bay
    "seats 12A and 12B",
    "Lot released: LOT-42; shipment LOT-42A",  # a shorter number suffixed once: maybe one lot's part
    "crew at 1215, departure at 1125",  # times of day written without their colon
    "1203 to warehouse 3012",  # one of them a time of day
    "orders 215 and 251",  # fewer than four digits: small things of one series
])
def test_other_digits_or_short_numbers_do_not(text):
    assert _conflicts(text, _digit_or_sign) == []


@pytest.mark.parametrize("text, named, values", [
    # a short number a word labels counts where a clearance's clause names one of its values
    ("Lot released for site 2 — this order is for site 5", {2, 3}, [["site 2", "site 5"]]),
    ("Xm neg for recipient 2; kidney is for recipient 1", {2, 3}, [["recipient 2", "recipient 1"]]),
    ("Airworthy. Tyres on wheel 1 and wheel 2 replaced", set(), []),  # no clearance names a wheel
    ("Lot released for site 2 — site 2 confirmed", {2, 3}, []),  # one value
    ("Lot released for site 2, bag 5", {2, 3}, []),  # two words: two kinds of thing
])
def test_a_short_number_a_word_labels_counts_where_a_clearance_names_it(text, named, values):
    doc, starts, ends = token_rows(text)
    rules = ["shape" if _digit_or_sign(t.text) else "stop" if t.lower_ in _STOP else None for t in doc]
    found = identifier_conflicts(text, starts, ends, rules, "shape", "stop",
                                 named_by_term=lambda first, last: first in named or last in named)
    assert [[text[s:e] for s, e in spans] for _, _, spans in found] == values
    # without a clause to look at, a short number is never an identifier
    assert identifier_conflicts(text, starts, ends, rules, "shape", "stop") == []


@pytest.mark.parametrize("text, named, values", [
    # the word that labels a short number before a number in words: one more of its series
    ("Lot released: lot 42. Shipment is lot forty-three.", {2, 3}, [["lot 42", "lot forty-three"]]),
    ("Airworthy: stand 12. Crew at stand eleven.", {2, 3}, [["stand 12", "stand eleven"]]),
    ("Lot released: lot 42, stand eleven", {2, 3}, []),  # another word: another kind of thing
    ("Airworthy. Tyres on wheel 1 and wheel two replaced", set(), []),  # no clearance names a wheel
])
def test_a_number_in_words_after_the_same_word_is_one_more_of_the_series(text, named, values):
    from semgap_spacy.lang import number_word

    doc, starts, ends = token_rows(text)
    rules = ["shape" if _digit_or_sign(t.text) else "stop" if t.lower_ in _STOP else None for t in doc]
    found = identifier_conflicts(text, starts, ends, rules, "shape", "stop",
                                 named_by_term=lambda first, last: first in named or last in named,
                                 spelled=number_word)
    assert [[text[s:e] for s, e in spans] for _, _, spans in found] == values
    # without the reader of number words, one short number is no series
    assert identifier_conflicts(text, starts, ends, rules, "shape", "stop",
                                named_by_term=lambda first, last: first in named or last in named) == []


def test_a_letter_glued_on_belongs_to_the_value_whatever_explains_it():
    # "A" is a stop word ("a"), "B" is not: both are the series' letter
    shaped = lambda w: _digit_or_sign(w) or w == "B"  # noqa: E731
    assert _conflicts("lot 2231-A and 2231-B", shaped) == [["2231-A", "2231-B"]]


def test_only_shape_tokens_count():
    # a quantity or term (explained by another rule) is no identifier
    assert _conflicts("LOT-42 released, LOT-43 held", shaped=lambda w: w == "LOT-42") == []


@pytest.mark.parametrize("text, domain", [
    ("El lote liberado es el 24-117; este es el 24-118", "pharma_qa"),
    ("Clear to close on $412,000; final loan amount on the signing package is $438,500.", "mortgage"),
    ("Negative crossmatch, recipient 1133. Flight booked for recipient 1331.", "medical_logistics"),
    ("Lot released for site 2 — this order is for site 5", "pharma_qa"),
    ("Xm neg for recipient 2; kidney is for recipient 1", "medical_logistics"),
    ("Airworthy: the aircraft at gate 12. You're at gate 14", "aviation_maintenance"),
    ("Airworthy: B737 at stand 12, B737F at stand 14.", "aviation_maintenance"),  # which of the two?
    ("Lot released: lot 42. Shipment is lot forty-three.", "pharma_qa"),  # a number in words
    ("Lote liberado: lote 2; el envío es del lote tres", "pharma_qa"),
    ("Lufttüchtig: Flugzeug 2; Crew am Flugzeug drei", "aviation_maintenance"),
    ("Clear to close on $412,000; loan $438.5k", "mortgage"),  # a letter for thousands, written out
])
def test_a_clearance_with_conflicting_identifiers_escalates(nlp, decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    reason = next(r for r in decision["reasons"] if r["code"] == "conflicting_identifiers")
    assert reason["outcome"] == "escalate" and "options" not in reason
    assert [text[s:e] for s, e in reason["word_spans"]] == reason["words"]
    assert all(repr(w) in reason["message"] for w in reason["words"])
    doc = nlp.make_doc(text)
    doc._.semgap_domain = domain
    doc = nlp(doc)
    marked = [s for s in doc.spans["semgap_unexplained"] if s.label_ == "conflicting_identifiers"]
    assert len(marked) == 1 and marked[0].start_char == reason["start_char"]


@pytest.mark.parametrize("text, domain", [
    ("Clear to close on $412,000.", "mortgage"),
    ("Clear to close, file #6097, #6097", "mortgage"),
    ("Negative crossmatch, recipient 1133. Flight booked for recipient 1133.", "medical_logistics"),
    ("Clear to close on $412,000; loan $412k", "mortgage"),  # one amount, written two ways
])
def test_one_identifier_still_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"


def test_a_sentence_s_dot_a_tokenizer_keeps_on_a_number_is_no_part_of_the_value():
    # spacy.blank("de") keeps "438,500." whole (a German ordinal has its dot): read as another form
    # than "412,000", the two amounts were no conflict, and the text proceeded
    import spacy

    from semgap_spacy import add_semgap_pipes, assess

    nlp = add_semgap_pipes(spacy.blank("de"))
    text = "Clear to close on $412,000; final loan amount is $438,500."
    assert [t.text for t in nlp.make_doc(text)][-1] == "438,500."
    decision = assess(nlp, text, domain="mortgage")._.semgap_decision
    assert decision["decision"] == "escalate" and "conflicting_identifiers" in {r["code"] for r in decision["reasons"]}
    same = assess(nlp, "Clear to close on $412,000. Loan amount is $412,000.", domain="mortgage")
    assert same._.semgap_decision["decision"] == "proceed"

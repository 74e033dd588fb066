"""A part of a count escalates (``core.partial``): the clearance may cover part of it only."""
import pytest

from semgap_spacy.core.partial import partial_counts
from tests.token_rows import token_rows


def _counts(text):
    doc, starts, ends = token_rows(text)
    return [doc[a:b].text for a, b in partial_counts(text, starts, ends)]


@pytest.mark.parametrize("text, found", [
    ("2 of 5 lots released", ["2 of 5"]),
    ("QP certified 1 of the 2 lots", ["1 of the 2"]),
    ("3 out of 4 samples", ["3 out of 4"]),
    ("Lote liberado; 2 de 5 lotes", ["2 de 5"]),
    ("Lote liberado; 2 lotes de 5", ["2 lotes de 5"]),
    ("Lot libéré; 2 lots sur 5", ["2 lots sur 5"]),
    ("Kreuzprobe negativ, 3 von 4 Proben", ["3 von 4"]),
    ("2 of\u200b 5 lots released", ["2 of\u200b 5"]),     # read as a person sees it
    ("２ of ５ lots released", ["２ of ５"]),               # full-width digits
    ("2\u00a0of\u00a05\u00a0lots\u00a0released", ["2\u00a0of\u00a05"]),  # no ASCII space at all
    ("2 ＯＦ 5 lots released", ["2 ＯＦ 5"]),               # full-width letters
    # a side in words: a part when the two sides differ
    ("Two of three lots released", ["Two of three"]),
    ("Clear to close; one of the 2 borrowers signed", ["one of the 2"]),
    ("Kreuzprobe negativ, zwei von drei Proben", ["zwei von drei"]),
    ("Lot libéré, deux sur trois", ["deux sur trois"]),
    ("two of\u200b three lots", ["two of\u200b three"]),
    # a word that points or owns before the whole
    ("Clear to close; 1 of our 2 borrowers signed", ["1 of our 2"]),
    ("Negative crossmatch; 2 of these 3 samples", ["2 of these 3"]),
    ("Lot libéré : 3 des 4 labels", ["3 des 4"]),
    ("Lot released for 2 of a total of 5 orders", ["2 of a total of 5"]),
    ("Lot released: 2 of the total 5 orders", ["2 of the total 5"]),
    ("Lot released for 2 of all 5 orders", ["2 of all 5"]),
    # en with the counted word between: the whole ends the clause or a participle follows it
    ("Airworthy: 3 wheels of 4 checked.", ["3 wheels of 4"]),
    ("Clear to close for 1 borrower of 2.", ["1 borrower of 2"]),
    ("Lot released: 10 labels of 12 signed", ["10 labels of 12"]),
    ("Negative crossmatch: 1 sample of 3 done.", ["1 sample of 3"]),
    ("2 lots released of 3", ["2 lots released of 3"]),
    ("Airworthy, 3 wheels of 4 were checked", ["3 wheels of 4"]),  # an auxiliary or two before it
    ("Clear to close, 1 borrower of 2 has signed", ["1 borrower of 2"]),
    ("Clear to close, 1 wire of 2 sent", ["1 wire of 2"]),  # an irregular participle
    ("Airworthy; 3 wheels of 4 have now been checked", ["3 wheels of 4"]),  # an adverb among the auxiliaries
    ("Airworthy; 3 wheels of 4 ok", ["3 wheels of 4"]),  # a state after the whole
    ("Airworthy; three wheels of four were checked", ["three wheels of four"]),  # both sides in words
    ("Airworthy three wheels of four checked", ["three wheels of four"]),  # a word before the part
    ("Airworthy. 3 wheels of four ok", ["3 wheels of four"]),  # one side in digits, one in words
    ("Airworthy. three wheels of 4 checked", ["three wheels of 4"]),
    ("Airworthy. 3 wheels of 4 ready", ["3 wheels of 4"]),
    # de "der", "eine"; es and fr with up to three counted words between, in words one before "sur"
    ("Abschlussbereit, zwei der drei", ["zwei der drei"]),
    ("Abschlussbereit: 2 der 3 Borrower unterschrieben", ["2 der 3"]),
    ("Abschlussbereit: eine von zwei", ["eine von zwei"]),
    ("Tenemos 2 pruebas cruzadas negativas de 3", ["2 pruebas cruzadas negativas de 3"]),
    ("Lot libéré pour un customer sur deux", ["un customer sur deux"]),
    ("Deux lots libérés sur trois", ["Deux lots libérés sur trois"]),  # two counted words before "sur"
])
def test_a_part_of_a_count(text, found):
    assert _counts(text) == found


@pytest.mark.parametrize("text", [
    "Lot released; 5 of 5 shipments",  # a whole count
    "3 of 3 samples",
    "Lots released: 2/5",  # a slash is also a date
    "v2 of 5a",  # not numbers standing alone
    "LOT-2 of 5",
    "Clear to close, 1,250 of 2,000 USD",  # not a count of things
    "Airworthy, one crew of four on the flight",  # a size, the counted word between
    "Clear to close; 2 of our 2 borrowers signed",
    "Three of three samples checked",  # a whole count in words
    "one of the best files",  # no number on the other side
    "the proof of two",  # "proof" is no number
    "Lot released; 3 shipments of 200",  # sizes: the whole many times the count
    "Batch released; 4 orders of 100 booked",
    "Batch released; 2 pallets of 5 vials",  # a word that is no participle follows the whole
    "Clear to close; 2 borrowers of 2 signed",
    "Airworthy; four wheels of four checked",
    "Batch released; one order of 250 sent",  # one side in words, one in digits: a size
    "Batch released; 4 wheels of four ok",
    "Prueba cruzada negativa, un equipo de dos en el laboratorio",  # a team of two: a size
    "Lot libéré, un total de trois lots",
    "Eine der Akten ist signiert",  # "eine" before no number is an article
])
def test_anything_else_is_no_part(text):
    assert _counts(text) == []


@pytest.mark.parametrize("text, domain", [
    ("2 of 5 lots released.", "pharma_qa"),
    ("Clear to close; 1 of 2 borrowers signed.", "mortgage"),
    ("Negative crossmatch with 2 of 3 samples.", "medical_logistics"),
    ("Lot released 2 / 3", "pharma_qa"),              # spaces around the slash
    ("Abschlussbereit 2 / 3", "mortgage"),
    ("Airworthy: 2 (of 3)", "aviation_maintenance"),  # the whole in brackets
    ("Lote liberado: 2 (de 5)", "pharma_qa"),
    ("Lots released: 2 (total 5)", "pharma_qa"),
])
def test_a_clearance_with_a_part_of_a_count_escalates(nlp, decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    reason = next(r for r in decision["reasons"] if r["code"] == "partial_count")
    assert reason["evidence"] == reason["words"][0]
    from semgap_spacy.api import assess
    doc = assess(nlp, text, domain=domain)
    assert "partial_count" in {s.label_ for s in doc.spans["semgap_unexplained"]}


@pytest.mark.parametrize("text, domain", [
    ("Lot released; 5 of 5 shipments.", "pharma_qa"),
    ("Negative crossmatch; 3 of 3 samples.", "medical_logistics"),
    ("Lot released 3 / 3", "pharma_qa"),
    ("Lots released: 5 (total 5)", "pharma_qa"),
])
def test_a_whole_count_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"


@pytest.mark.parametrize("text", [
    "Lot released, 2 of 5 cartons checked",
    "Lote liberado, 2 dé 5 cajas revisadas",  # an accent on the connector
    "Lot released, 2 ＯＦ 5 cartons checked",  # full-width letters read as Latin ones
    "Lot released, 2 o\u0301f 5 cartons",
    "Charge libérée, 2 `sur` 5 palettes",
    "Batch released \u00a8 2 of 5",
    "Airworthy, 2 DE 5 wheels",
])
def test_the_connector_gate_reads_the_words_as_the_whole_reading_does(text):
    from semgap_spacy.core.partial import _read_words
    from semgap_spacy.core.textview import read_text
    from semgap_spacy.util.textnorm import fold
    assert _read_words(text) == fold(read_text(text).text).replace("ı", "i").split()


_NOT_COUNTED = frozenset({"by", "on", "at", "in", "the", "tuesday", "noon", "morning", "inch", "shift", "but"})


def _slashed(text):
    doc, starts, ends = token_rows(text)
    terms = {i for i, t in enumerate(doc) if t.lower_ in ("released", "airworthy", "abschlussbereit")}
    return [doc[a:b].text for a, b in partial_counts(text, starts, ends, _NOT_COUNTED, terms.__contains__,
                                                     frozenset({"done", "in"}))]


@pytest.mark.parametrize("text, found", [
    ("Airworthy, 3/4 wheels checked", ["3/4 wheels"]),  # a word no date takes after it
    ("Airworthy, wheels 3/4 checked", ["3/4 checked"]),
    ("Airworthy, 3/4 of the wheels", ["3/4 of"]),  # a count's connector, stop word though it is
    ("labels: 2/3 done", ["2/3 done"]),  # the part is done
    ("docs 5/6 in, released", ["5/6 in"]),  # in, ending the clause
    ("- lot released\n- labels: 2/3 done\n- shipment 09:00", ["2/3 done"]),  # a line's end ends it
    ("Airworthy, ¾ wheels checked", ["¾ wheels"]),  # a vulgar fraction, read "3⁄4"
    ("Airworthy, ３／４ wheels checked", ["３／４ wheels"]),  # full-width, read as a person sees it
    ("Abschlussbereit 3/4", ["3/4"]),  # ending its clause right after the term
    ("Lot released (2/3)", ["2/3"]),
    ("Airworthy (docs 6/9).", ["6/9"]),  # after a word it may count
])
def test_a_count_with_a_slash(text, found):
    assert _slashed(text) == found


@pytest.mark.parametrize("text", [
    "Airworthy 3/4 by noon",  # a date before a stop word or a time
    "Airworthy, signing 3/4 in the morning",
    "Airworthy 3/4 Tuesday",
    "Airworthy, 1/2 inch bolt",  # a measure
    "Airworthy, 24/7 support",  # no part: the first side is the larger
    "Airworthy, 4/4 wheels checked",  # the whole
    "Airworthy, the 03/17 donor",  # a leading zero: a date
    "Lot released 12/345 cartons",  # the whole many times the part: a code
    "Airworthy, signed on 3/4",  # a date after a stop word
    "Airworthy 3/14",  # a whole past twelve ending the clause: a date, month first
    "Airworthy 3/4/2026",
    "Lots released: 2/5",  # a colon between: a label's value
])
def test_a_slash_that_is_no_count(text):
    assert _slashed(text) == []


@pytest.mark.parametrize("text, domain", [
    ("Airworthy, 3/4 wheels checked", "aviation_maintenance"),
    ("CTC 4/5 docs signed", "mortgage"),
    ("Abschlussbereit 3/4", "mortgage"),
    ("Crossmatch négatif 1/2", "medical_logistics"),
    ("listo para el cierre (2/3)", "mortgage"),
])
def test_a_clearance_with_a_slash_count_escalates(decide, text, domain):
    assert "partial_count" in {r["code"] for r in decide(text, domain=domain)["reasons"]}


@pytest.mark.parametrize("text, domain", [
    ("CTC issued 3/14 4:52pm.", "mortgage"),
    ("Cleared to close, docs 6/6 signed and received.", "mortgage"),
    ("Clear to close, signed on 3/4", "mortgage"),
])
def test_a_date_or_a_whole_with_a_slash_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"

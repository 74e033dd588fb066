"""A time a clearance is set for, or a past it is stated for (``core.time_conditions``)."""
import pytest
import spacy

from semgap_spacy.core.time_conditions import other_days, past_states, past_times, states_to_come, time_conditions
from semgap_spacy.util.textnorm import fold
from tests.token_rows import token_rows

_NLP = spacy.blank("en")
_PAST = frozenset({("was",), ("were",), ("had", "been")})


def _found(text):
    doc, starts, ends = token_rows(text)
    return [doc[a:b].text for a, b in time_conditions(text, starts, ends)]


@pytest.mark.parametrize("text, found", [
    ("Clear to close by 18:00.", ["by 18:00"]),
    ("Airworthy from 0600Z", ["from 0600Z"]),
    ("Airworthy from 6pm", ["from 6pm"]),
    ("Airworthy from 6 p.m.", ["from 6 p.m."]),
    ("Clear to close by the 12/05", ["by the 12/05"]),
    ("Clear to close by 2026-12-05", ["by 2026-12-05"]),
    ("Clear to close by next Friday.", ["by next Friday"]),
    ("clear to close BY TOMORROW", ["BY TOMORROW"]),
    ("Clear to close starting Monday", ["starting Monday"]),
    ("Lote liberado desde el lunes", ["desde el lunes"]),
    ("Lote liberado a partir de las 18:00", ["a partir de las 18:00"]),
    ("Expediente listo para el cierre para las 18:00", ["para las 18:00"]),
    ("Lot libéré à partir de 18h", ["à partir de 18h"]),
    ("Dossier autorisé à clôturer pour 18h30", ["pour 18h30"]),
    ("Charge freigegeben nach 18:00", ["nach 18:00"]),
    ("Charge freigegeben vor Montag", ["vor Montag"]),
    ("Abschlussbereit nach 18 Uhr", ["nach 18 Uhr"]),
    ("Abschlussbereit nach 18.00 Uhr", ["nach 18.00 Uhr"]),
    ("Clear to close by 2026-12-05T18:00", ["by 2026-12-05T18:00"]),
    ("Airworthy by 1800L.", ["by 1800L."]),             # the full stop stays on the time's token
    ("Clear to close by the 5th", ["by the 5th"]),
    ("Clear to close by 5 March", ["by 5 March"]),
    ("Abschlussbereit vor dem 5. März", ["vor dem 5. März"]),
    ("Clear to close by March", ["by March"]),
    ("From 06:00: airworthy.", ["From 06:00"]),          # a colon after a time that opens its sentence
    ("Clear to close by 18:00 :)", ["by 18:00"]),         # a face, no stamp
    ("Airworthy from 0600Z.", ["from 0600Z."]),          # the full stop glued to the time's token
    ("Clear to close by 18\u200b:00", ["by 18\u200b:00"]),  # read as a person sees it
    ("Airworthy from \uff10\uff16:\uff10\uff10", ["from \uff10\uff16:\uff10\uff10"]),
])
def test_a_time_set_for_a_clearance(text, found):
    assert _found(text) == found


@pytest.mark.parametrize("text", [
    "Update from 14:05: clear to close",   # the message's stamp
    "Clear to close, rate reduced by 0.25",  # a number with a decimal point is no time
    "Clear to close, signed by 2 borrowers",  # a bare number is no time
    "Airworthy since 06:00",                # "since" sets nothing to come
    "Clear to close; funding at 14:00",
    "Clear to close by underwriting",
    "Listo para el cierre",                 # "para" with no time after it
    "Autorisé à clôturer pour mon dossier",  # en "mon" (Monday) after fr "pour": each pack's own days
    "Aeronavegable desde la mañana",        # the morning, not tomorrow
])
def test_no_time_set(text):
    assert _found(text) == []


def test_a_time_that_names_a_thing_is_left_to_the_caller():
    doc, starts, ends = token_rows("Negative crossmatch from 06:00 serum")
    thing = {doc[-1].i}
    assert time_conditions(doc.text, starts, ends, lambda i: i in thing) == []
    assert time_conditions(doc.text, starts, ends) == [(2, 4)]


_STOP = {"also", "already", "indeed"}


def _past(text, clearance):
    doc = _NLP.make_doc(text)
    first, words = clearance.split()[0], [fold(t.text) for t in doc]
    start = next(t.i for t in doc if t.text == first)
    term = [(start, start + len(clearance.split()))]
    return [doc[a:b].text for a, b in past_states(words.__getitem__, term, _PAST, lambda i: words[i].endswith("ed"),
                                                  lambda i: words[i] in _STOP)]


@pytest.mark.parametrize("text, clearance, found", [
    ("N418QX was airworthy.", "airworthy", ["was airworthy"]),
    ("File WAS clear to close", "clear to close", ["WAS clear"]),
    ("It had been clear to close", "clear to close", ["had been clear"]),
    ("N418QX was also airworthy", "airworthy", ["was also airworthy"]),
    ("N418QX was indeed already airworthy", "airworthy", ["was indeed already airworthy"]),
    ("File was cleared to close", "cleared to close", []),     # a participle: an act that stands
    ("N418QX was released to service", "released to service", []),
    ("N418QX was CRS signed", "CRS signed", []),               # a participle anywhere in the term
    ("Aircraft is airworthy", "airworthy", []),
    ("Airworthy, it was", "Airworthy", []),                    # only a past word before the term
    ("N418QX was not airworthy", "airworthy", []),             # "not" is no word that may stand between
])
def test_a_clearance_stated_for_the_past(text, clearance, found):
    assert _past(text, clearance) == found


_TO_COME = frozenset({("to", "be"), ("yet", "to", "be"), ("wird",)})


def _to_come(text, clearance):
    doc = _NLP.make_doc(text)
    first, words = clearance.split()[0], [fold(t.text) for t in doc]
    start = next(t.i for t in doc if t.text == first)
    term = [(start, start + len(clearance.split()))]
    return [doc[a:b].text for a, b in states_to_come(words.__getitem__, len(doc), term, _TO_COME,
                                                     lambda i: words[i] in {"is", "still", ","},
                                                     lambda t: any(words[i].endswith("ed") for i in range(*t)),
                                                     frozenset({"confirmed", "reported"}))]


@pytest.mark.parametrize("text, clearance, found", [
    ("CTC to be issued", "CTC", ["CTC to be"]),
    ("CTC is yet to be issued", "CTC", ["CTC is yet to be"]),   # the longest phrase, a word between
    ("CTC is still to be issued", "CTC", ["CTC is still to be"]),
    ("CTC, to be issued", "CTC", ["CTC, to be"]),               # a mark the caller lets stand between
    ("Aircraft to be airworthy", "airworthy", ["to be airworthy"]),  # right before it
    ("File to be cleared to close", "cleared to close", ["to be cleared"]),  # before: an act to come
    ("Flugzeug wird lufttüchtig", "lufttüchtig", ["wird lufttüchtig"]),
    ("crossmatch to be negative", "crossmatch to be negative", ["crossmatch to be negative"]),  # in a frame
    ("Batch released to be loaded", "Batch released", []),      # after an act: what it is for
    ("CTC issued, crew to be told", "CTC", []),                # only right beside the term
    ("CTC. To be issued", "CTC", []),                          # the caller's marks only
    ("CTC to", "CTC", []),                                     # the text ends inside the phrase
    ("CTC  to  be issued", "CTC", ["CTC  to  be"]),            # spaces are no words
    ("Aircraft to\nbe airworthy", "airworthy", ["to\nbe airworthy"]),
    ("Aircraft confirmed to be airworthy", "airworthy", []),   # a word of finding: a report
    ("crossmatch confirmed to be negative", "crossmatch confirmed to be negative", []),
    ("Lab reported the crossmatch to be negative", "crossmatch to be negative", []),
])
def test_a_clearance_put_still_to_come(text, clearance, found):
    assert _to_come(text, clearance) == found


_DAYS = frozenset({("yesterday",), ("last", "night"), ("la", "semana", "pasada"), ("gestern",)})
_SINCE = frozenset({"since", "seit"})


@pytest.mark.parametrize("text, found", [
    ("N418QX airworthy yesterday", ["yesterday"]),
    ("Airworthy as of last night", ["last night"]),
    ("Listo la semana pasada", ["la semana pasada"]),
    ("Airworthy since yesterday", []),        # it holds since then
    ("Lufttüchtig seit gestern", []),
    ("Lufttüchtig gestern", ["gestern"]),
    ("semana", []),                          # a phrase's word at the text's edge: no phrase
])
def test_a_day_gone_by(text, found):
    doc = _NLP.make_doc(text)
    words = [fold(t.text) for t in doc]
    keys = {max(day, key=len) for day in _DAYS}
    candidates = [i for i, w in enumerate(words) if w in keys]
    assert [doc[a:b].text for a, b in past_times(words.__getitem__, len(words), candidates, _DAYS, _SINCE)] == found


@pytest.mark.parametrize("text, found", [
    ("Lufttüchtig vor zwei Jahren", ["vor zwei Jahren"]),
    ("Lufttüchtig vor 3 Jahren", ["vor 3 Jahren"]),
    ("Lufttüchtig vor vielen Jahren", []),    # no count: only a phrase of its own names it
    ("Lufttüchtig seit zwei Jahren", []),
])
def test_a_count_in_a_day_gone_by(text, found):
    days = frozenset({("vor", "#", "jahren")})
    doc = _NLP.make_doc(text)
    words = [fold(t.text) for t in doc]
    candidates = [i for i, w in enumerate(words) if w == "jahren"]
    spans = past_times(words.__getitem__, len(words), candidates, days, _SINCE,
                       lambda word: word.isdigit() or word == "zwei")
    assert [doc[a:b].text for a, b in spans] == found


@pytest.mark.parametrize("text, found", [
    ("Airworthy as of last night", ["last night"]),  # the longer phrase, whatever the set's order
    ("Airworthy since last night", []),  # "since" before the longer phrase's first word
    ("Airworthy, night shift", ["night"]),
])
def test_a_word_of_two_phrases_reads_as_the_longer(text, found):
    days = frozenset({("night",), ("last", "night"), ("the", "night", "before")})
    doc = _NLP.make_doc(text)
    words = [fold(t.text) for t in doc]
    candidates = [i for i, w in enumerate(words) if w in ("night", "before")]
    spans = past_times(words.__getitem__, len(words), candidates, days, _SINCE)
    assert [doc[a:b].text for a, b in spans] == found


_NOW = "2026-12-05T10:00:00Z"


@pytest.mark.parametrize("text, now, found", [
    ("From the 2019 file: clear to close", _NOW, ["2019"]),
    ("From the 2026 file: clear to close", _NOW, []),          # the year of now
    ("2019: clear to close", _NOW, ["2019"]),
    ("Negative crossmatch 2026-11-28", _NOW, ["2026-11-28"]),
    ("Negative crossmatch 2026-12-05", _NOW, []),
    ("Negative crossmatch 2026-12-05T08:10Z", _NOW, []),
    ("Negative crossmatch 2026-12-05", "2026-12-06T00:30:00+01:00", ["2026-12-05"]),  # now's own day
    ("Clear to close 12/05/2026", _NOW, []),                   # month first: today
    ("Clear to close 05/12/2026", _NOW, []),                   # day first: today
    ("Clear to close 06/12/2026", _NOW, ["06/12/2026"]),
    ("Clear to close 5.12.26", _NOW, []),
    ("From the 2026 file: clear to close", None, ["2026"]),   # without now no date is today
    ("Airworthy, LN-2019, #2019, $2019, 2019.5", None, []),   # codes, amounts, decimals
    ("Airworthy at 14:05, 1,2019", None, []),
])
def test_a_date_other_than_today(text, now, found):
    doc, starts, ends = token_rows(text)
    assert [doc[a:b].text for a, b in other_days(text, starts, ends, now)] == found

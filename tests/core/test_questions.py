"""A question asked by its word order, with no question mark (``core.questions``)."""
import pytest
import spacy

from semgap_spacy.core.questions import final_questions, opens_sentence, tag_questions, word_order_questions
from tests.token_rows import token_rows

_NLP = spacy.blank("en")
OPENERS = frozenset({"is", "are", "ist"})
SUBJECTS = frozenset({"it", "we", "die"})


def _asked(text):
    doc, starts, ends = token_rows(text)
    words = [t.lower_ for t in doc]
    found = word_order_questions(words.__getitem__, len(words), range(len(words)), OPENERS, SUBJECTS)
    return [text[starts[a]:ends[b - 1]] for a, b in found]


@pytest.mark.parametrize("text, asked", [
    ("is it clear to close", ["is it clear to close"]),
    ("Clear to close. Is it ok", ["Is it ok"]),
    ("[09:52] Ben: are we clear to close", ["are we clear to close"]),  # after a stamp and a speaker
    ("is 512QX released to service already", ["is 512QX released to service already"]),  # an identifier
    ("ist die Akte 4471 abschlussbereit", ["ist die Akte 4471 abschlussbereit"]),
])
def test_a_verb_then_its_subject_first_in_a_sentence_asks(text, asked):
    assert _asked(text) == asked


@pytest.mark.parametrize("text", [
    "This is it, clear to close",  # the verb is not first
    "Is clear to close",  # no subject: a statement that dropped it
    "Is it clear to close?",  # the question mark hedges it already
    "Clear to close",
])
def test_anything_else_does_not(text):
    assert _asked(text) == []


def test_a_wish_or_an_order_is_no_question():
    openers, subjects = frozenset({"have", "has"}), frozenset({"a", "we", "it"})
    wishes = frozenset({("have", "a")})
    for text, asked in (("Airworthy. Have a good flight", []), ("Airworthy. Have we got the CRS", ["Have we got the CRS"])):
        doc = _NLP.make_doc(text)
        words = [t.lower_ for t in doc]
        found = word_order_questions(words.__getitem__, len(words), range(len(words)), openers, subjects, wishes)
        assert [doc[a:b].text for a, b in found] == asked


def test_an_opener_is_known_by_its_reading(decide):
    decision = decide("iS it clear to close", domain="mortgage")
    assert "question_word_order" in {r["code"] for r in decision["reasons"]}


def test_the_english_pack_names_its_wishes(decide):
    decision = decide("Aircraft N903JB is airworthy. Have a good flight!", domain="aviation_maintenance")
    assert "question_word_order" not in {r["code"] for r in decision["reasons"]}


@pytest.mark.parametrize("text, domain, words", [
    ("is 512QX released to service already", "aviation_maintenance", ["is", "512QX"]),
    ("ist die D-AIB7 lufttüchtig", "aviation_maintenance", ["ist", "die"]),
    ("Clear to close. Is it ok", "mortgage", ["Is", "it"]),
    # a word that names a thing is a subject too
    ("Is aircraft airworthy", "aviation_maintenance", ["Is", "aircraft"]),
    ("Is file clear to close", "mortgage", ["Is", "file"]),
    ("Ist Flugzeug lufttüchtig", "aviation_maintenance", ["Ist", "Flugzeug"]),
    # so is the clearance's own noun, after a form of "to be" that opens its sentence
    ("Is lot released", "pharma_qa", ["Is", "lot"]),
    ("Is crossmatch negative", "medical_logistics", ["Is", "crossmatch"]),
    ("Is CRS signed", "aviation_maintenance", ["Is", "CRS"]),
    ("Ist Kreuzprobe negativ", "medical_logistics", ["Ist", "Kreuzprobe"]),
    # "clear" may be the statement with its subject dropped or the question: it asks, in doubt
    ("Is clear to close", "mortgage", ["Is", "clear"]),
    # behind a greeting, or those it greets
    ("Hi, is it clear to close", "mortgage", ["is", "it"]),
    ("Hi team is lot released", "pharma_qa", ["is", "lot"]),
    # a tag question quotes its tag
    ("Kreuzprobe negativ, oder", "medical_logistics", ["oder"]),
    ("Aeronavegable, verdad", "aviation_maintenance", ["verdad"]),
    ("Clear to close, is it", "mortgage", ["is", "it"]),
])
def test_such_a_question_escalates_quoting_its_verb_and_subject(nlp, decide, text, domain, words):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    reason = next(r for r in decision["reasons"] if r["code"] == "question_word_order")
    assert reason["words"] == words and "options" not in reason
    assert [text[s:e] for s, e in reason["word_spans"]] == words


@pytest.mark.parametrize("text, domain", [
    ("le dossier 4471 est-il autorisé à clôturer", "mortgage"),
    ("est-ce que le F-GKX2 est apte au vol", "aviation_maintenance"),
])
def test_french_inversion_is_a_question_cue(decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    assert "clearance_hedged" in [r["code"] for r in decision["reasons"]]


@pytest.mark.parametrize("text, domain", [
    ("Has been released to service", "aviation_maintenance"),
    ("N123AB est apte au vol", "aviation_maintenance"),
])
def test_a_statement_still_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"


TAGS = frozenset({("right",), ("is", "it"), ("oder",), ("c'est", "ça")})


def _tagged(text):
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    return [doc[a:b].text for a, b in tag_questions(words.__getitem__, len(words), range(len(words)), TAGS)]


@pytest.mark.parametrize("text, tags", [
    ("Clear to close, right", ["right"]),
    ("Clear to close, is it", ["is it"]),
    ("Kreuzprobe negativ, oder.", ["oder"]),
    ("Apte au vol, c'est ça. Merci", ["c'est ça"]),
    ("Negative crossmatch, courier booked, right", ["right"]),
])
def test_a_tag_after_a_comma_that_ends_its_sentence_asks(text, tags):
    assert _tagged(text) == tags


@pytest.mark.parametrize("text", [
    "Airworthy, right?",                      # the question mark hedges it already
    "Airworthy, right side brakes checked",   # the tag does not end its sentence
    "Clear to close. Right, thanks team",     # no comma before it
    "Clear to close right",
    "Kreuzprobe negativ oder positiv",
])
def test_a_word_of_a_tag_elsewhere_asks_nothing(text):
    assert _tagged(text) == []


def test_a_tag_right_after_a_clearance_asks_without_a_comma():
    doc = _NLP.make_doc("Kreuzprobe negativ oder")
    words = [t.lower_ for t in doc]
    term = {0, 1}.__contains__  # "Kreuzprobe negativ"
    assert tag_questions(words.__getitem__, len(words), range(len(words)), TAGS, term) == [(2, 3)]
    doc = _NLP.make_doc("Kreuzprobe negativ oder positiv")  # not the end of its sentence
    words = [t.lower_ for t in doc]
    assert tag_questions(words.__getitem__, len(words), range(len(words)), TAGS, term) == []


@pytest.mark.parametrize("text, domain", [
    ("Aeronavegable verdad", "aviation_maintenance"),
    ("Wir sind abschlussbereit oder", "mortgage"),
    ("Apte au vol ou bien", "aviation_maintenance"),
])
def test_a_tag_after_the_clearance_escalates(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "escalate"


@pytest.mark.parametrize("text, domain", [
    ("Is now airworthy", "aviation_maintenance"),      # a stop word names nothing: a dropped subject
    ("Is airworthy", "aviation_maintenance"),          # a term of one word is the statement itself
    ("Is released to service", "aviation_maintenance"),  # a participle reports the act
    ("2207 is clear to close.", "mortgage"),           # the number before the verb may be the subject
])
def test_a_verb_before_a_stop_word_or_the_clearance_is_a_statement(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"




def _final(text, term_words):
    doc, _, _ = token_rows(text)
    words = [t.lower_ for t in doc]
    found = final_questions(words.__getitem__, len(words), range(len(words)), frozenset({"already"}),
                            lambda i: words[i] in term_words)
    return [doc[a:b].text for a, b in found]


@pytest.mark.parametrize("text, asked", [
    ("airworthy already", ["already"]),
    ("Airworthy, already!", ["already"]),            # a comma between, an urging mark after
    ("Airworthy already. Crew at gate", ["already"]),
    ("airworthy already?", []),                       # the question mark hedges it already
    ("crew already at the gate, airworthy", []),      # not at its sentence's end
    ("Airworthy; crew there already", []),            # not right after the clearance
])
def test_a_word_that_ends_a_sentence_right_after_a_clearance_asks(text, asked):
    assert _final(text, {"airworthy"}) == asked


@pytest.mark.parametrize("text, first, numbered_first", [
    ("Is lot released", True, True),
    ("  Is lot released", True, True),           # spaces
    ("[09:52] is lot released", True, True),     # a stamp in brackets
    ("1) is lot released", True, True),          # a list's number
    ("Hi. Is lot released", True, True),
    ("Hi, is lot released", True, True),         # behind a greeting
    ("Hi is lot released", True, True),
    ("@qa is lot released", True, True),         # behind an @mention
    ("Hi team is lot released", True, True),     # behind those a greeting greets
    ("Team, is lot released", True, True),       # or before a comma
    ("2207 is clear to close", True, False),     # a bare number: a stamp, or what is clear
    ("Team is ready", False, False),             # "team" is the subject
    ("Clear to close, is all done", False, False),  # a comma alone: a subject dropped
    ("This is it", False, False),
])
def test_a_verb_opens_its_sentence_behind_greetings_marks_and_stamps(text, first, numbered_first):
    doc, _, _ = token_rows(text)
    words = [t.lower_ for t in doc]
    verb = next(t.i for t in doc if t.lower_ == "is")
    greetings, addressees = frozenset({"hi"}), frozenset({"team"})
    assert opens_sentence(words.__getitem__, verb, greetings, addressees) is first
    assert opens_sentence(words.__getitem__, verb, greetings, addressees, bare_numbers=False) is numbered_first


def test_every_copula_of_a_pack_is_one_of_its_openers():
    from semgap_spacy.lang import get_pack
    for code in ("en", "es", "fr", "de"):
        pack = get_pack(code)
        assert set(pack.question_copulas) <= set(pack.question_openers), code

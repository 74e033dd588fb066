"""A clearance in the words of a party who does not give it escalates (``core.hearsay``)."""
import pytest
import spacy

from semgap_spacy.core.hearsay import SpeakerWords, hearsay_spans
from semgap_spacy.glossary.models import GlossarySet, load_glossaries

_NLP = spacy.blank("en")
PARTIES = frozenset({"borrower", "driver"})
SAYING = frozenset({"says", "told", "according"})


def _found(text, term_words=("clear", "close", "xm", "neg")):
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    found = hearsay_spans(words.__getitem__, len(words), range(len(words)), PARTIES, SAYING,
                          lambda i: words[i] in term_words)
    return [doc[a:b].text for a, b in found]


@pytest.mark.parametrize("text, found", [
    ("Borrower says we are clear to close", ["Borrower says"]),
    ("the borrower just told me clear to close", ["borrower just told"]),
    ("xm neg, the driver says", ["driver says"]),
    ("According to the driver, xm neg", ["According to the driver"]),
])
def test_a_party_without_authority_and_a_word_of_saying(text, found):
    assert _found(text) == found


@pytest.mark.parametrize("text, found", [
    ("Clear to close per borrower", ["per borrower"]),
    ("Clear to close, confirmed by the borrower", ["by the borrower"]),
    ("Borrower, by phone: clear to close", ["Borrower, by"]),  # the speaker right before it
    ("Clear to close, borrower notified by phone", []),  # the party is not the one "by" names
    ("Clear to close by underwriting, borrower notified", []),  # "by" names no party in its clause
])
def test_a_word_of_saying_that_names_its_party_after_it(text, found):
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    spans = hearsay_spans(words.__getitem__, len(words), range(len(words)), PARTIES, SAYING | {"by", "per"},
                          lambda i: words[i] in ("clear", "close"),
                          lists=SpeakerWords(prepositions=frozenset({"by", "per"})))
    assert [doc[a:b].text for a, b in spans] == found


@pytest.mark.parametrize("text, found", [
    ("Borrower email: clear to close", ["Borrower email:"]),  # how the party spoke, before the colon
    ("Lab email: clear to close", []),
    ("Note from the borrower email: clear to close", []),
])
def test_a_channel_between_the_label_and_its_colon(text, found):
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    spans = hearsay_spans(words.__getitem__, len(words), range(len(words)), PARTIES, SAYING,
                          lambda i: words[i] in ("clear", "close"),
                          lists=SpeakerWords(channels=frozenset({"email"})))
    assert [doc[a:b].text for a, b in spans] == found


@pytest.mark.parametrize("text, found", [
    ("Lab says clear to close, borrower booked", []),  # the lab is the one who says it
    ("clear to close says the borrower", ["says the borrower"]),  # a term before the verb: no subject
    ("clear to close, says the borrower", ["says the borrower"]),
])
def test_a_verb_with_its_subject_before_it_cites_no_party_after_it(text, found):
    assert _found(text) == found


@pytest.mark.parametrize("text, found", [
    ("Borrower: clear to close", ["Borrower:"]),
    ("[09:52] Driver: xm neg", ["Driver:"]),
    ("Update. Borrower: clear to close", ["Borrower:"]),
    ("Borrower - clear to close", ["Borrower -"]),  # a dash or an arrow closes a label as a colon does
    ("Driver → xm neg", ["Driver →"]),
    ("Borrower -> clear to close", ["Borrower -"]),
    ("Borrower - docs sent. Clear to close", []),  # the label's sentence holds no term
    ("Docs sent - borrower. Clear to close", []),  # no label: the party ends the clause
])
def test_a_party_as_the_speaker_s_label(text, found):
    assert _found(text) == found


@pytest.mark.parametrize("text", [
    "Note from the borrower: clear to close",  # not the label that opens the sentence
    "xm neg. Driver: on the way",  # the label's sentence holds no term
])
def test_a_party_inside_a_sentence_is_no_label(text):
    assert _found(text) == []


_CHANNELS = frozenset({"email", "report", "from", "via", "phone", "the", "'s", "at", "thread", "and", "today"})
_LABEL_PARTIES = PARTIES | {"customer", "gate", "donor", "crew"}


def _labelled(text):
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    spans = hearsay_spans(words.__getitem__, len(words), range(len(words)), _LABEL_PARTIES, SAYING,
                          lambda i: words[i] in ("clear", "close", "xm", "neg", "airworthy", "released"),
                          lists=SpeakerWords(channels=_CHANNELS, attributions=frozenset({"from", "via"}),
                                             sign_offs=frozenset({"regards", "cheers"})))
    return [doc[a:b].text for a, b in spans]


@pytest.mark.parametrize("text, found", [
    ("Borrower via email: clear to close", ["Borrower via email:"]),  # a party and how it spoke
    ("Email from borrower: clear to close", ["Email from borrower:"]),
    ("Crew report: airworthy", ["Crew report:"]),
    ("Borrower's email: clear to close", ["Borrower's email:"]),
    ("Borrower (email): clear to close", ["Borrower (email):"]),  # "):" is one token
    ("[09:52] Borrower phone: clear to close", ["Borrower phone:"]),  # behind a stamp
    ("Borrower email 14:05: clear to close", ["Borrower email 14:05:"]),  # with a time
    ("Email from the borrower at 14:00: clear to close", ["Email from the borrower at 14:00:"]),
    ("Clear to close. - Borrower", ["- Borrower"]),  # a signature that ends the text
    ("Clear to close, via the borrower.", ["via the borrower"]),  # where the clearance came from
    ("Airworthy - from the crew", ["from the crew"]),
    ("Borrower thread: clear to close", ["Borrower thread:"]),  # where it was written
    ("Borrower and driver: clear to close", ["Borrower and driver:"]),  # two parties
    ("Borrower, 09:30: clear to close", ["Borrower, 09:30:"]),  # a comma before the time
    ("Borrower today: clear to close", ["Borrower today:"]),  # a day
    ("Clear to close. Regards, the borrower", ["Regards, the borrower"]),  # signed after a sign-off
])
def test_a_label_a_signature_or_an_attribution_names_the_party(text, found):
    assert _labelled(text) == found


@pytest.mark.parametrize("text", [
    "Customer order 4471: lot released",  # the label names an order, not a speaker
    "Gate 12B: airworthy",
    "xm neg; kidney from donor 4471",  # "from" after no term, and the party does not end it
    "Clear to close, docs from borrower received",
    "xm neg from donor 4471",
    "Lot released - customer notified",  # the dash's words are more than a signature
    "xm neg (donor 4471)",
    "xm neg (driver)",  # in brackets: for whom, as often as from whom
    "Borrower: on the way. xm neg",  # the label's sentence holds no term
    "Update on the borrower: clear to close",  # about the party
    "Clear to close, package sent - borrower",  # no sentence's end before the dash
    "xm neg from the driver",  # no clause of its own: "released from the warehouse"
    "Clear to close. Thanks, borrower",  # "thanks" may thank them: no sign-off
    "Clear to close, borrower: see the attached file",  # the label opens no sentence
])
def test_a_party_among_other_words_is_no_label(text):
    assert _labelled(text) == []


@pytest.mark.parametrize("text", [
    "Underwriter says we are clear to close",  # a party with that authority
    "Borrower signed, clear to close",  # a party that says nothing
    "Driver said ETA 14:00. xm neg",  # said in a sentence with no term
    "The borrower called twice and then, after lunch, says clear to close",  # too far apart
])
def test_anything_else_is_no_hearsay(text):
    assert _found(text) == []


@pytest.mark.parametrize("text, domain", [
    ("Borrower says we are clear to close", "mortgage"),
    ("Driver says negative crossmatch", "medical_logistics"),
    ("Customer says lot released", "pharma_qa"),
    ("Pilot says airworthy", "aviation_maintenance"),
    ("Según el conductor, prueba cruzada negativa", "medical_logistics"),
])
def test_a_clearance_in_the_words_of_a_party_without_authority_escalates(nlp, decide, text, domain):
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    reason = next(r for r in decision["reasons"] if r["code"] == "hearsay")
    assert len(reason["words"]) == 2 and reason["evidence"] == text[reason["start_char"]:reason["end_char"]]
    from semgap_spacy.api import assess
    doc = assess(nlp, text, domain=domain)
    assert [s.label_ for s in doc.spans["semgap_unexplained"] if s.label_ == "hearsay"] == ["hearsay"]


@pytest.mark.parametrize("text", ["bOrrower sAys clear to close", "\uff22\uff2f\uff32\uff32\uff2f\uff37\uff25\uff32 says clear to close"])
def test_a_party_and_a_word_of_saying_are_known_by_their_reading(decide, text):
    # the party and the word of saying are found as the rules read words (case, width, accents)
    assert "hearsay" in {r["code"] for r in decide(text, domain="mortgage")["reasons"]}


@pytest.mark.parametrize("text, domain", [
    ("Borrower via email: clear to close", "mortgage"),
    ("Crew report: airworthy", "aviation_maintenance"),
    ("Clear to close. — Borrower", "mortgage"),
    ("Airworthy, from the captain", "aviation_maintenance"),
    ("Borrower email 14:05: clear to close", "mortgage"),
    ("Correo del prestatario: listo para el cierre", "mortgage"),
    ("Message du client : lot libéré", "pharma_qa"),
    ("Captain this morning: airworthy", "aviation_maintenance"),
    ("Buyer and seller: clear to close", "mortgage"),
    ("Lot released. Cheers, customer", "pharma_qa"),
    ("Listo para el cierre. Saludos, el prestatario", "mortgage"),
    ("Abschlussbereit. Viele Grüße, der Borrower", "mortgage"),  # a sign-off of two words or three
    ("Autorisé à clôturer. Bien à vous, le borrower", "mortgage"),
    ("Clear to close. Yours, the borrower", "mortgage"),
    # thanks, then a party with its article that ends the text, sign it
    ("Clear to close. Thank you, the borrower.", "mortgage"),
    ("Clear to close. Thank you so much, the borrower.", "mortgage"),
    ("Lote liberado. Gracias, el cliente.", "pharma_qa"),
    ("Lufttüchtig. Vielen Dank, der Pilot.", "aviation_maintenance"),
    ("Clear to close.\nThanks,\nthe borrower", "mortgage"),  # line breaks between
    ("Clear to close.\nThanks,\nBorrower", "mortgage"),  # a party on a line of its own needs no article
    ("Clear to close. Thank\u00a0you,\u00a0the borrower", "mortgage"),
    ("Clear to close. Thanks! The borrower", "mortgage"),
    ("Clear to close. Thx, the borrower", "mortgage"),
    ("Clear to close. Thanks, your borrower", "mortgage"),
    ("Airworthy.\nThanks,\nYour captain", "aviation_maintenance"),
    ("Lufttüchtig.\nVielen Dank,\nIhr Pilot", "aviation_maintenance"),
    ("Clear to close. With thanks, the borrower", "mortgage"),
    # e-mail layout: a header or form line names the writer, a signature block ends the text
    ("From: Borrower\nTo: Closer\nRE: file 4471\n\nClear to close.", "mortgage"),
    ("Noted, thanks.\n\n> From: Borrower\n> Clear to close.", "mortgage"),  # a quoted reply
    ("Airworthy.\nReported by: crew", "aviation_maintenance"),
    ("Hi,\n\nClear to close.\n\nThanks,\nBorrower\n\nSent from my phone", "mortgage"),
    ("Airworthy.\n\nRegards,\nthe crew\nSent from my phone", "aviation_maintenance"),
    ("Clear to close.\nBorrower", "mortgage"),  # a party alone on the last line
    ("Clear to close.\n> Thanks,\n> Borrower", "mortgage"),
    # an attribution may say when and how the party spoke, and may name the channel first
    ("Airworthy, from the captain this morning.", "aviation_maintenance"),
    ("Clear to close, from the borrower on the phone today.", "mortgage"),
    ("Negative crossmatch, message from the driver.", "medical_logistics"),
    ("Airworthy, note from the captain.", "aviation_maintenance"),
    # right after the term, only with such words after the party
    ("Negative crossmatch from the driver today.", "medical_logistics"),
    ("Airworthy from the crew at 06:00.", "aviation_maintenance"),
    ("Lot released via the customer email.", "pharma_qa"),
    ("Call with the customer: lot released.", "pharma_qa"),
    # a party in brackets or after a dash right after the term, with how or when it spoke
    ("Airworthy (pilot, 14:05).", "aviation_maintenance"),
    ("Clear to close [borrower email].", "mortgage"),
    ("Negative crossmatch (driver today).", "medical_logistics"),
    ("Clear to close - borrower, 14:05", "mortgage"),
    ("Airworthy - crew today", "aviation_maintenance"),
    ("Negative crossmatch -- driver, 03:10", "medical_logistics"),
    # es, fr, de: the verbs of confirming and reporting, and the words for "by"
    ("Aeronavegable, confirmado por la crew", "aviation_maintenance"),
    ("Prueba cruzada negativa, informó el driver", "medical_logistics"),
    ("Lote liberado por el warehouse", "pharma_qa"),
    ("Le customer confirme : lot libéré", "pharma_qa"),
    ("Crossmatch négatif, confirmé par le driver", "medical_logistics"),
    ("Crew bestätigt: lufttüchtig", "aviation_maintenance"),
    ("Lufttüchtig, bestätigt durch die Crew", "aviation_maintenance"),
    ("Kreuzprobe negativ, vom Courier bestätigt", "medical_logistics"),
    ("Borrower hat bestätigt: abschlussbereit", "mortgage"),
    ("La crew a signé : apte au vol", "aviation_maintenance"),
    # how or when the party spoke is no word of its own after the verb
    ("Lot released, customer confirmed today", "pharma_qa"),
    ("Lufttüchtig, so der Pilot", "aviation_maintenance"),  # de "so": "according to", ending its clause
    # a possessive of a speaker the text does not name, with how it spoke (``possessive_speakers``)
    ("Your email says clear to close", "mortgage"),
    ("their note says airworthy", "aviation_maintenance"),
    ("Clear to close, your email said", "mortgage"),
    ("Per your email, clear to close", "mortgage"),
    ("Clear to close per your email", "mortgage"),
    ("Según su email, listo para el cierre", "mortgage"),
    ("Selon votre message, lot libéré", "pharma_qa"),
    ("Lufttüchtig laut seiner Mail", "aviation_maintenance"),
    ("Deine Nachricht sagt lufttüchtig", "aviation_maintenance"),
    ("their note: airworthy", "aviation_maintenance"),  # as a speaker's label
    ("His email: batch released", "pharma_qa"),
    ("Hi,\nhis email this morning says cleared to close.\nThanks", "mortgage"),  # when it spoke between
    ("Hello team,\ntheir coordinator says crossmatch negative.\nRegards", "medical_logistics"),  # someone of theirs
    ("Your team confirms clear to close", "mortgage"),
    ("Hallo, laut deren Mail negative Kreuzprobe. Gruß", "medical_logistics"),
])
def test_the_packs_name_how_a_party_spoke(decide, text, domain):
    assert "hearsay" in {r["code"] for r in decide(text, domain=domain)["reasons"]}


@pytest.mark.parametrize("text, domain", [
    ("Underwriter says clear to close", "mortgage"),
    ("Lab says negative crossmatch", "medical_logistics"),
    ("Courier said ETA 14:00. Negative crossmatch.", "medical_logistics"),
    ("Clear to close, borrower notified by phone", "mortgage"),
    ("Lot released by QA, customer notified", "pharma_qa"),
    ("Customer order 4471: batch released", "pharma_qa"),
    ("Negative crossmatch; kidney from donor 4471", "medical_logistics"),
    ("Update from the lab: negative crossmatch", "medical_logistics"),
    ("Negative crossmatch (recipient)", "medical_logistics"),
    ("Update on the borrower: clear to close", "mortgage"),
    ("Lot released from the warehouse", "pharma_qa"),
    ("Clear to close via escrow", "mortgage"),
    ("Clear to close, funds from the borrower today", "mortgage"),  # funds came from them, not the word
    ("Courier update: kidney loaded, negative crossmatch per lab", "medical_logistics"),
    # a party alone there says whom the clearance is for as often as who gave it
    ("Negative crossmatch - recipient", "medical_logistics"),
    ("Negative crossmatch - donor / recipient", "medical_logistics"),
    ("Lot released (customer order 4471)", "pharma_qa"),
    ("Clear to close (the borrower)", "mortgage"),
    ("Prueba cruzada negativa confirmada por el laboratorio", "medical_logistics"),  # a party with authority
    ("Kreuzprobe negativ, vom Labor bestätigt", "medical_logistics"),
    ("Lot libéré par QA ce matin", "pharma_qa"),
    # thanks without an article may thank the party; thanks alone sign nothing
    ("Clear to close. Thanks, borrower.", "mortgage"),
    ("Clear to close.\nThanks,\nthe underwriter", "mortgage"),  # a party with that authority
    ("Expediente 2291-B listo para el cierre. Gracias a todos.", "mortgage"),  # thanks to all, no signature
    ("From: Underwriting\nTo: Closer\nRE: file 4471\n\nClear to close.", "mortgage"),  # a writer with authority
    ("Hi team,\n\nUnderwriting issued clear to close on file 4471.\n\nThanks,\nClosing desk\nPhone: 555-201-3344",
     "mortgage"),
    ("Clear to close.\nBorrower notified by phone.", "mortgage"),  # a last line that says more
    ("Negative crossmatch per lab.\nCourier booked\nSent from my phone", "medical_logistics"),
    ("Clear to close. Thanks! The borrower signed.", "mortgage"),
    ("Clear to close. Thank you.", "mortgage"),
    ("Clear to close. Thank you, the underwriter.", "mortgage"),  # a party with that authority
    ("Thanks, the borrower signed. Clear to close.", "mortgage"),  # no sentence's end before the thanks
    ("Clear to close. Thanks to the borrower for the docs.", "mortgage"),
    ("My note says clear to close", "mortgage"),  # the writer's own
    ("Clear to close per underwriter, as your email says", "mortgage"),  # the underwriter reports it
    ("Thanks for your email, clear to close", "mortgage"),  # no word of saying
    ("Your file is clear to close", "mortgage"),
    ("My note: clear to close", "mortgage"),
    ("Thanks for your email: clear to close", "mortgage"),  # the label does not open its sentence
    ("Negative crossmatch for recipient R-7730 confirmed", "medical_logistics"),  # whom it is for
    ("Negative crossmatch for the recipient, confirmed", "medical_logistics"),
    ("Clear to close for borrower 2207 confirmed", "mortgage"),
])
def test_a_party_with_authority_or_another_sentence_proceeds(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"


@pytest.mark.parametrize("text, domain", [
    ("Clear to close, he said", "mortgage"),
    ("Airworthy, they said.", "aviation_maintenance"),
    ("Someone told me negative crossmatch", "medical_logistics"),
    ("Listo para el cierre, me dijeron", "mortgage"),
    ("Aeronavegable, se dice", "aviation_maintenance"),
    ("Aeronavegable, según me dijeron", "aviation_maintenance"),
    ("Según ellos, aeronavegable", "aviation_maintenance"),
    ("Dijeron que el avión es aeronavegable", "aviation_maintenance"),
    ("Negative crossmatch, dijeron", "medical_logistics"),
    ("Aeronavegable, comentó", "aviation_maintenance"),
    ("Listo para el cierre, me lo dijeron", "mortgage"),  # an object pronoun between pronoun and verb
    ("Aeronavegable, según ustedes", "aviation_maintenance"),
    ("Apte au vol, selon lui", "aviation_maintenance"),
    ("Apte au vol, dit-il", "aviation_maintenance"),
    ("Apte au vol, selon eux", "aviation_maintenance"),
    ("Lufttüchtig, sagt man", "aviation_maintenance"),
    ("Er sagt, abschlussbereit", "mortgage"),
    # an object pronoun before the verb is no subject: the party stands after it
    ("Listo para el cierre, lo confirma el borrower", "mortgage"),
    ("Airworthy, you said.", "aviation_maintenance"),
    ("Airworthy, folks said.", "aviation_maintenance"),
    ("Clear to close, u said.", "mortgage"),
    ("Clear to close, according to you.", "mortgage"),
    ("You just said clear to close.", "mortgage"),  # stop words between the subject and its verb
    ("Negative crossmatch you said.", "medical_logistics"),  # right after the term
    # a sentence that says only who spoke reports the one before it
    ("Clear to close. Borrower said so.", "mortgage"),
    ("Clear to close. Borrower confirmed.", "mortgage"),
    ("Airworthy. You said so.", "aviation_maintenance"),
    ("Lufttüchtig.\nSagt der.", "aviation_maintenance"),
    ("Apte au vol. Dit-on.", "aviation_maintenance"),
    ("Clear to close; you said", "mortgage"),
    ("Clear to close per underwriter.\nBorrower said so.", "mortgage"),  # a word that points back
    ("Shift notes\n* N418QX\n* Airworthy\n* Crew confirmed", "aviation_maintenance"),
    ("You've said clear to close.", "mortgage"),
    ("Airworthy, they confirmed yesterday.", "aviation_maintenance"),  # when it spoke is no word of its own
    ("Listo para el cierre, según él.", "mortgage"),  # "él", read with its accent: no article "el"
    ("Aeronavegable, dice él.", "aviation_maintenance"),
    ("Él dice que el avión es aeronavegable.", "aviation_maintenance"),
    ("Listo para el cierre, me han dicho.", "mortgage"),  # a pronoun, an auxiliary, a word of saying
    ("Listo para el cierre, me lo han dicho.", "mortgage"),
    ("Aeronavegable, me han confirmado.", "aviation_maintenance"),
    ("Listo para el cierre, eso me dijeron.", "mortgage"),  # a word before the clitic that opens the clause
    ("Aeronavegable, ya nos dijeron.", "aviation_maintenance"),
    ("Lote liberado, eso dijo.", "pharma_qa"),
    ("Aeronavegable, me dijeron ayer.", "aviation_maintenance"),
    ("Lot libéré, on nous a dit.", "pharma_qa"),  # an object pronoun and an auxiliary
    ("Lot libéré, on m'a dit.", "pharma_qa"),
    ("Lot libéré, dit-on.", "pharma_qa"),  # the en tokenizer cuts "dit", "-", "on"
    ("Lufttüchtig, sagt der.", "aviation_maintenance"),  # a pronoun that ends the clause
    ("Lufttüchtig, sagt ihr.", "aviation_maintenance"),
    ("Lufttüchtig, laut ihm.", "aviation_maintenance"),
    ("Lufttüchtig, laut denen.", "aviation_maintenance"),
    ("Lufttüchtig sagt der", "aviation_maintenance"),  # right after the term
    ("Lufttüchtig, sagt der heute.", "aviation_maintenance"),  # stop words after the pronoun
    ("Laut ihm ist das Flugzeug lufttüchtig.", "aviation_maintenance"),  # "ihm" is no article
    ("Der sagt, das Flugzeug ist lufttüchtig.", "aviation_maintenance"),  # opening its clause before the verb
    ("Listo para el cierre, dice el.", "mortgage"),  # "él" written without its accent
    ("Listo para el cierre, segun el.", "mortgage"),
    ("El dijo que listo para el cierre.", "mortgage"),
    ("Lot libéré, dit on.", "pharma_qa"),  # a space for the hyphen
    ("Listo para el cierre, pues me dijeron.", "mortgage"),
    ("Listo para el cierre, se ha dicho.", "mortgage"),
    ("Listo para el cierre, me dice.", "mortgage"),
    ("Listo para el cierre, entonces me dijeron.", "mortgage"),
    ("Lufttüchtig, wie der sagt.", "aviation_maintenance"),  # a lead before the pronoun
    ("Lufttüchtig, sagt jener.", "aviation_maintenance"),
    ("Lot libéré, on nous a confirmé.", "pharma_qa"),  # with an object, "on" is someone
    ("On me confirme : lot libéré.", "pharma_qa"),
    ("Listo para el cierre, me habían dicho.", "mortgage"),
    ("Han dicho que listo para el cierre.", "mortgage"),  # the auxiliary's ending names the speakers
    ("Lote liberado, me confirma.", "pharma_qa"),  # "confirms to me": someone no glossary names
    ("Prueba cruzada negativa, nos confirmó.", "medical_logistics"),
    ("Me dijeron que el avión está aeronavegable", "aviation_maintenance"),  # what was said follows "que"
])
def test_a_speaker_no_glossary_names_is_a_party_without_authority(decide, text, domain):
    # "he", "they", es "me dijeron", "se dice", "dijeron que", fr "dit-il", de "sagt man": a
    # clearance in the words of someone no glossary can vouch for
    decision = decide(text, domain=domain)
    assert decision["decision"] == "escalate"
    assert "hearsay" in {r["code"] for r in decision["reasons"]}


@pytest.mark.parametrize("text, domain", [
    ("El laboratorio me confirma: prueba cruzada negativa", "medical_logistics"),  # "me" is no speaker there
    ("Confirma el laboratorio: prueba cruzada negativa", "medical_logistics"),
    ("Crossmatch négatif, le laboratoire le confirme", "medical_logistics"),  # fr "le" is no es "le"
    ("Negative crossmatch, notes on the donor", "medical_logistics"),  # fr "on" is no English word of saying
    ("Dicen los del laboratorio: prueba cruzada negativa", "medical_logistics"),  # a subject after "dicen"
    ("Clear to close, so the borrower can sign today", "mortgage"),  # de "so" attributes only ending its clause
    ("On confirme : crossmatch négatif", "medical_logistics"),  # fr "on" is "we" but with "dit"
    ("Kreuzprobe negativ, Labor hat es mir bestätigt", "medical_logistics"),  # a dative is no speaker
    ("Se confirma: prueba cruzada negativa", "medical_logistics"),  # "se" speaks with "dice", not "confirma"
    ("Lufttüchtig, sagt der Prüfer.", "aviation_maintenance"),  # "der" ends no clause: an article
    ("Lufttüchtig, bestätigt ihr der Underwriter.", "aviation_maintenance"),  # "ihr", a dative here
    ("Listo para el cierre, el underwriter me ha confirmado.", "mortgage"),  # "me" opens no clause
    ("Listo para el cierre; el underwriter lo ha dicho.", "mortgage"),
    ("Airworthy - on the stand at 14:00.", "aviation_maintenance"),  # a spaced dash before "on": no "dit-on"
    ("Apte au vol - on attend le pilote.", "aviation_maintenance"),
    ("Airworthy, thank you.", "aviation_maintenance"),
    ("Clear to close confirmed, thank you.", "mortgage"),  # "you" after the verb: the one thanked
    ("CTC confirmed for you.", "mortgage"),
    ("Thank you all, underwriter confirms clear to close.", "mortgage"),
    ("Underwriter confirms clear to close, as you said.", "mortgage"),  # the underwriter reports it
    ("As you said, lab confirms negative crossmatch.", "medical_logistics"),
    ("QA folks confirmed lot released.", "pharma_qa"),  # QA's people
    ("Clear to close. Borrower said ETA 14:00.", "mortgage"),  # a sentence that says something of its own
    # a handover's next item: the sentence before names its own source, or a time was confirmed
    ("Update:\n- Lab: negative crossmatch\n- Driver confirmed 14:30\n- Cooler checked\nThanks", "medical_logistics"),
    ("Shift notes:\n- N418QX airworthy per engineering\n- Captain confirmed\nThanks", "aviation_maintenance"),
    ("Airworthy per engineer.\nCrew confirmed.\nThanks, team", "aviation_maintenance"),
    ("Hi,\n\nClear to close per underwriter, as you said.\nDocs sent to escrow.", "mortgage"),
    ("Update:\n- Lab: negative crossmatch, as you said\n- Courier booked\nThanks", "medical_logistics"),
    ("Hi folks, underwriter confirms clear to close.", "mortgage"),  # an address, not a speaker
    ("Folks: underwriter confirms clear to close.", "mortgage"),
    ("Kreuzprobe negativ, Labor bestätigt die.", "medical_logistics"),  # an object: the verb follows its subject
    ("Kreuzprobe negativ, Labor bestätigt ihnen.", "medical_logistics"),
    ("El laboratorio dice prueba cruzada negativa.", "medical_logistics"),  # the article of a subject
    ("Ya confirmado: listo para el cierre.", "mortgage"),  # es "ya" (already)
    ("Me confirma el laboratorio: prueba cruzada negativa", "medical_logistics"),  # its subject follows it
    ("Prueba cruzada negativa, me confirma el laboratorio.", "medical_logistics"),
    ("Lote liberado, me confirma QA.", "pharma_qa"),
])
def test_words_that_name_no_speaker_there_make_no_hearsay(decide, text, domain):
    assert "hearsay" not in {r["code"] for r in decide(text, domain=domain)["reasons"]}


def test_a_word_of_a_known_name_is_no_party():
    data = load_glossaries().to_dict()
    data["aviation_maintenance"]["vocabulary"]["known_names"].append("Iron Gate Parts")
    from semgap_spacy.api import build_pipeline, decide_cases
    case = [{"id": "n", "domain": "aviation_maintenance", "text": "Iron Gate Parts says airworthy"}]
    assert next(iter(decide_cases(build_pipeline(), case)))["decision"] == "escalate"  # the name is not known
    assert next(iter(decide_cases(build_pipeline(GlossarySet.from_dict(data)), case)))["decision"] == "proceed"


def test_the_party_list_is_governed_data(tmp_path):
    from semgap_spacy.api import build_pipeline, decide_cases
    from semgap_spacy.glossary.governance.version_diff import diff
    import srsly

    data = load_glossaries().to_dict()
    data["mortgage"]["vocabulary"]["no_authority"]["en"].remove("borrower")
    data["mortgage"]["version"] = "2026.12.9"
    looser = GlossarySet.from_dict(data)
    case = [{"id": "h", "domain": "mortgage", "text": "Borrower says we are clear to close"}]
    assert next(iter(decide_cases(build_pipeline(looser), case)))["decision"] == "proceed"
    # taking a party off the list is a weakening the diff reports
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, glossary in ((old, load_glossaries()), (new, looser)):
        folder.mkdir()
        for name, payload in glossary.to_dict().items():
            srsly.write_yaml(folder / f"{name}.yaml", payload)
    kinds = {(w.domain, w.kind) for w in diff(old, new).weakenings}
    assert ("mortgage", "no_authority_removed") in kinds
    assert any('"borrower" removed' in w.detail for w in diff(old, new).weakenings)


@pytest.mark.parametrize("party", ["", "two words"])
def test_a_party_is_one_word(party):
    data = load_glossaries().to_dict()
    data["mortgage"]["vocabulary"]["no_authority"]["en"].append(party)
    with pytest.raises(ValueError, match="no_authority"):
        GlossarySet.from_dict(data)


_LAYOUT = SpeakerWords(thanks=frozenset({("thanks",)}), articles=frozenset({"the"}),
                       keys=frozenset({("from",), ("reported", "by")}), trailers=frozenset({"sent", "from", "my", "phone"}),
                       sign_offs=frozenset({"regards"}))


@pytest.mark.parametrize("text", [
    "From: Borrower\nTo: Closer\nRE: file 4471\n\nClear to close.",
    "Noted, thanks.\n\n> From: Borrower\n> Clear to close.",
    "Hi,\n\nClear to close.\n\nThanks,\nBorrower\n\nSent from my phone",
    "Clear to close.\n\nRegards,\nthe borrower\nSent from my phone",
    "Clear to close.\nBorrower",
    "Clear to close.\nBorrower notified.",
    "Clear to close. Thanks, the borrower",
    "Clear to close, borrower says",
])
def test_line_breaks_the_caller_knows_read_as_the_words_do(text):
    """The line breaks a caller passes (found in the text) give the spans that reading every word for
    one gives, and a text without one is never read word by word for its lines."""
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    read = []

    def counted(i):
        read.append(i)
        return words[i]

    def spans(line_breaks):
        return hearsay_spans(counted, len(words), range(len(words)), PARTIES, SAYING | {"regards"},
                             lambda i: words[i] in ("clear", "close"), lists=_LAYOUT, line_breaks=line_breaks)

    breaks = [i for i, t in enumerate(doc) if "\n" in t.text]
    assert spans(breaks) == spans(None)


def test_a_text_without_line_breaks_is_not_read_for_its_lines():
    words = ["clear", "close", ",", "borrower", "says", "."] + ["word"] * 400
    read = []

    def counted(i):
        read.append(i)
        return words[i]

    found = hearsay_spans(counted, len(words), [4], PARTIES, SAYING, lambda i: words[i] in ("clear", "close"),
                          lists=_LAYOUT, line_breaks=())
    assert found == [(3, 5)] and max(read) < 20  # the sentence of the verb, not the lines after it


@pytest.mark.parametrize("text, found", [
    ("xm neg for driver 2, driver says", ["driver says"]),  # the party right before the word says it
    ("xm neg for the driver 2 says", []),  # whom it is for
    ("Borrower says clear to close for borrower Ruiz", ["Borrower says"]),
])
def test_a_party_that_a_thing_is_for_is_no_speaker(text, found):
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    spans = hearsay_spans(words.__getitem__, len(words), range(len(words)), PARTIES, SAYING,
                          lambda i: words[i] in ("xm", "neg", "clear", "close"),
                          lists=SpeakerWords(beneficiaries=frozenset({"for"}), articles=frozenset({"the"})))
    assert [doc[a:b].text for a, b in spans] == found


def test_without_the_packs_words_a_party_after_for_still_speaks():
    # the rule is the packs' data: with no words of whom a thing is for, the party is read as before
    assert _found("xm neg for the driver 2 says") == ["driver 2 says"]


@pytest.mark.parametrize("text, term_words, found", [
    # a header that names who wrote the text, a signature after thanks, a dash or a sign-off, and a party
    # alone on the last line sign it only when a term stands before (a header: anywhere in the text)
    ("From: Borrower\n\nfile received", ("clear", "close"), []),
    ("From: Borrower\n\nclear to close", ("clear", "close"), ["From: Borrower"]),
    ("File received.\n\nThanks,\nBorrower", ("clear", "close"), []),
    ("Clear to close.\n\nThanks,\nBorrower", ("clear", "close"), ["Thanks,\nBorrower"]),
    ("Thanks,\nBorrower", ("thanks",), ["Borrower"]),  # the thanks themselves are no term before them;
    # the last line is signed (a term before it)
    ("File received. - Borrower", ("clear", "close"), []),
    ("Clear. - Borrower", ("clear",), ["- Borrower"]),
    ("File received.\nBorrower", ("clear", "close"), []),
    ("Clear.\nBorrower", ("clear",), ["Borrower"]),
    ("Done.\nBorrower", ("borrower",), []),  # the last line's own word: no term before it
])
def test_a_signature_signs_only_after_a_term(text, term_words, found):
    doc = _NLP.make_doc(text)
    words = [t.lower_ for t in doc]
    spans = hearsay_spans(words.__getitem__, len(words), range(len(words)), PARTIES, SAYING | {"regards"},
                          lambda i: words[i] in term_words, lists=_LAYOUT)
    assert [doc[a:b].text for a, b in spans] == found

"""spaCy's stop words of es, fr and de hold words that carry the meaning of a message; the packs
take them out of rule 3 (``never_neutral_added``), or give them their rule (``step_words``,
``part_words``, ``past_state_words``, ``past_time_words``), as the English pack does for its own."""
import pytest


@pytest.mark.parametrize("text, domain", [
    # back, stopped, still going, would be
    ("Abschlussbereit, Wire zurück", "mortgage"),
    ("El avión dejó de ser aeronavegable", "aviation_maintenance"),
    ("Sería aeronavegable", "aviation_maintenance"),
    # modals and reported speech
    ("Flugzeug mag lufttüchtig sein", "aviation_maintenance"),
    ("Das Flugzeug sei lufttüchtig", "aviation_maintenance"),
    ("Lufttüchtig, heißt es", "aviation_maintenance"),
    ("Apte au vol, quoique", "aviation_maintenance"),
    ("Flugzeug würde lufttüchtig sein", "aviation_maintenance"),
    ("Flugzeug wurde lufttüchtig, würde ich sagen", "aviation_maintenance"),
    # hedges made of stop words only (cues.json)
    ("So gut wie abschlussbereit", "mortgage"),
    ("An sich lufttüchtig", "aviation_maintenance"),
    ("Lote liberado, a ver", "pharma_qa"),
    ("Lot libéré, pour ainsi dire", "pharma_qa"),
    ("Apte au vol tant que la crew est là", "aviation_maintenance"),
    ("Lote liberado, ¡qué va!", "pharma_qa"),  # "no way"
    ("Lufttüchtig; mit den Brakes ist was", "aviation_maintenance"),  # "something is wrong with the brakes"
    ("Lufttüchtig, Engine geht so", "aviation_maintenance"),
    ("Lufttüchtig oder wie", "aviation_maintenance"),
    ("Das Flugzeug kann lufttüchtig sein", "aviation_maintenance"),  # the infinitive "sein" after a modal
    ("Das Flugzeug durfte lufttüchtig sein", "aviation_maintenance"),
    ("Lot libéré, je pense", "pharma_qa"),  # an opinion
    ("Lufttüchtig, meine ich", "aviation_maintenance"),
    ("Aircraft can be airworthy", "aviation_maintenance"),  # what may be, not what is
    ("Aircraft can now be airworthy", "aviation_maintenance"),
    ("Lufttüchtig, mein ich", "aviation_maintenance"),  # spoken "meine ich"
    ("Sechstes Flugzeug lufttüchtig", "aviation_maintenance"),
    ("Sixième lot libéré", "pharma_qa"),
    ("Clear to close. Dont fund", "mortgage"),  # "do" + "nt" (read "not"), not French "dont"
    # an order to make it so, or a step still to do
    ("Make the aircraft airworthy", "aviation_maintenance"),
    ("Poner el avión aeronavegable", "aviation_maintenance"),
    ("Rendre apte au vol", "aviation_maintenance"),
    ("Flugzeug lufttüchtig machen", "aviation_maintenance"),
    ("Lote liberado; label por hacer", "pharma_qa"),
    ("Lot libéré ; label à faire", "pharma_qa"),
    ("Batch released; Label zu machen", "pharma_qa"),
    # an order of steps or a part, right beside the term
    ("Primer lote liberado", "pharma_qa"),
    ("Próximo lote liberado", "pharma_qa"),
    ("Premier lot libéré", "pharma_qa"),
    ("Erste Kreuzprobe negativ", "medical_logistics"),
    ("Medio lote liberado", "pharma_qa"),
    # an ordinal past the first, beside the term or not: one of several
    ("Segundo avión aeronavegable", "aviation_maintenance"),
    ("Deuxième avion apte au vol", "aviation_maintenance"),
    ("Zweites Flugzeug lufttüchtig", "aviation_maintenance"),
    ("Third aircraft airworthy", "aviation_maintenance"),
    ("2nd aircraft airworthy", "aviation_maintenance"),  # in digits (``ordinal_suffixes``): no identifier
    ("11th batch released", "pharma_qa"),
    ("2º avión aeronavegable", "aviation_maintenance"),
    ("3er lote liberado", "pharma_qa"),
    ("2e lot libéré", "pharma_qa"),
    ("2ème lot libéré", "pharma_qa"),
    ("2\u207f\u1d48 aircraft airworthy", "aviation_maintenance"),  # in superscript letters
    ("Airworthy, 2nd aircraft", "aviation_maintenance"),  # the ordinal and its noun name the item
    ("Airworthy, the 2nd aircraft", "aviation_maintenance"),  # stop words aside
    ("1st aircraft airworthy", "aviation_maintenance"),  # the first picks one too, as "First lot released" does
    ("1er lot libéré", "pharma_qa"),
    ("Airworthy, 1st", "aviation_maintenance"),
    ("Negative crossmatch on the 1st sample, courier can go", "medical_logistics"),
    ("Batch released - the 1st of the three batches", "pharma_qa"),  # one of a count, wherever it stands
    ("Lot released: 2nd of 4 lots for this customer", "pharma_qa"),
    ("Airworthy, the 2nd one", "aviation_maintenance"),
    ("Airworthy, 2ND aircraft", "aviation_maintenance"),  # in capitals a pack lists (``capital_ordinal_suffixes``)
    ("Aeronavegable, el 2o avión", "aviation_maintenance"),
    ("Aeronavegable, el 2DO avión", "aviation_maintenance"),
    ("Lufttüchtig, das 2. Flugzeug", "aviation_maintenance"),  # de: a full stop after an article's number
    ("Das 2. Flugzeug ist lufttüchtig", "aviation_maintenance"),
    # a numbered item before "next": a step still to come
    ("Airworthy, wheels 1-3 checked, wheel 4 next", "aviation_maintenance"),
    ("CRS signed for engine 1; engine 2 next", "aviation_maintenance"),
    ("Update 14:05\n• xm neg (sample 1)\n• sample 2: next\n• courier 14:30", "medical_logistics"),
    ("Airworthy\nbrakes first\nthanks", "aviation_maintenance"),  # a line's end ends the clause
    ("Clear to close — call me first", "mortgage"),  # an order's verb and whom it is about (``step_pronouns``)
    ("CTC - call me first", "mortgage"),
    ("2nd recipient: negative crossmatch", "medical_logistics"),
    ("Lote liberado: LOT-42, 2º envío", "pharma_qa"),
    ("Un seul lot libéré", "pharma_qa"),
    # an event the clearance holds after or before, right beside its term (en "after" is never neutral)
    ("Lufttüchtig nach Inspektion", "aviation_maintenance"),
    ("Lufttüchtig nach einer Inspektion", "aviation_maintenance"),
    ("Kreuzprobe negativ vor dem Check", "medical_logistics"),
    ("Abschlussbereit nach Update", "mortgage"),
    ("Nach Check lufttüchtig", "aviation_maintenance"),
    ("Lufttüchtig\nnach Inspektion", "aviation_maintenance"),  # a line break between
    ("Lufttüchtig, nach Check", "aviation_maintenance"),  # a mark between
    ("Nach Check: lufttüchtig", "aviation_maintenance"),
    ("Lufttüchtig nach A-Check", "aviation_maintenance"),  # a hyphen compound
    ("Lufttüchtig nach dieser Inspektion", "aviation_maintenance"),
    ("Lufttüchtig nach Check durch Engineering heute", "aviation_maintenance"),
    # a state gone by
    ("Ha sido aeronavegable", "aviation_maintenance"),
    ("Prueba cruzada negativa del mes pasado", "medical_logistics"),
    ("Prueba cruzada negativa ayer", "medical_logistics"),  # "cruzada" names the test: no act that stands
    ("Crossmatch négatif antérieur", "medical_logistics"),
    ("Kreuzprobe negativ vor einem Jahr", "medical_logistics"),
    ("Lufttüchtig vor zwei Jahren", "aviation_maintenance"),  # a count in the day gone by
    ("Abschlussbereit vor drei Tagen", "mortgage"),
    ("Lufttüchtig vor vielen Jahren", "aviation_maintenance"),
    ("Lufttüchtig vor einer Stunde", "aviation_maintenance"),
    ("Lufttüchtig vor Jahren", "aviation_maintenance"),
    ("Apte au vol il y a deux jours", "aviation_maintenance"),
    ("Kreuzprobe negativ, lange her", "medical_logistics"),  # a clause of its own beside the state
    ("Airworthy, yesterday", "aviation_maintenance"),
    ("Airworthy. Yesterday.", "aviation_maintenance"),  # a sentence of its own
    ("Negative crossmatch – from yesterday", "medical_logistics"),  # stop words before the day aside
    ("Kreuzprobe negativ – von gestern, heute kommt eine neue", "medical_logistics"),
    ("Airworthy, yesterday at 14:00.", "aviation_maintenance"),  # with its hour
    ("Lufttüchtig, gestern Abend.", "aviation_maintenance"),
    ("Lufttüchtig, gleich", "aviation_maintenance"),  # "in a moment": a state to come
    ("Aeronavegable durante el día", "aviation_maintenance"),  # "during the day"
    ("Crossmatch négatif il y a un mois", "medical_logistics"),
    # an ordinal in words, read as one in digits (``spelled_ordinals``): which item?
    ("Clear to close for the first file", "mortgage"),
    ("Xm neg for the last recipient", "medical_logistics"),
    ("Lote liberado para el primer pedido", "pharma_qa"),
    ("Clear to close pour le premier dossier", "mortgage"),
    ("Abschlussbereit für die erste Akte", "mortgage"),
    ("Airworthy, the first one", "aviation_maintenance"),
    ("Batch released - the first of the three batches", "pharma_qa"),
    # "since" with no time after it: a change after what the text states (``since_words``)
    ("Cleared to close yesterday, loan package updated since", "mortgage"),
    ("Clear to close, updated since.", "mortgage"),
    # a negation or a hedge made of stop words alone (cues.json), in each language
    ("Aircraft anything but airworthy", "aviation_maintenance"),
    ("All but cleared to close", "mortgage"),
    ("Flugzeug alles außer lufttüchtig", "aviation_maintenance"),
    ("Avion tout sauf apte au vol", "aviation_maintenance"),
    ("El avión todo menos aeronavegable", "aviation_maintenance"),
    ("Airworthy as is", "aviation_maintenance"),
    ("Aeronavegable tal cual", "aviation_maintenance"),
    ("Lufttüchtig, so wie es ist", "aviation_maintenance"),
    ("Clear to close. That said, wire.", "mortgage"),
    ("Lot libéré ; cela dit, le dossier.", "pharma_qa"),
    ("Listo para el cierre; eso sí, el expediente.", "mortgage"),
    ("Lote liberado mientras tanto", "pharma_qa"),
    ("Clear to close; meanwhile loan package updated", "mortgage"),
    ("Lot libéré en attendant", "pharma_qa"),
    ("Clear to close sometime today", "mortgage"),
    ("Will have clear to close", "mortgage"),
    ("We'd be clear to close", "mortgage"),
    ("We had clear to close", "mortgage"),  # a past state ("had" right before the clearance)
    ("Podríamos estar listos para el cierre", "mortgage"),
    ("Clear to close anyhow", "mortgage"),
    ("Lot libéré, laisser au laboratoire", "pharma_qa"),  # an order to hold
    ("Clear to close; funds clearing", "mortgage"),  # a phrase word's form in progress: under way
    ("Airworthy; engine servicing today", "aviation_maintenance"),
    ("Lote liberado; se está liberando el resto", "pharma_qa"),
    ("Igual está listo para el cierre", "mortgage"),  # a guess: maybe it is
    ("Lo mismo está listo para el cierre", "mortgage"),
    ("Listo para el cierre de cualquier modo", "mortgage"),
    ("Aeronavegable de alguna manera", "aviation_maintenance"),
    ("Listo para el cierre siempre que el expediente esté firmado", "mortgage"),
    ("Lote liberado una vez revisado el expediente", "pharma_qa"),
    ("Abschlussbereit, solang Akte unterschrieben", "mortgage"),
    ("Some of the batch released", "pharma_qa"),
    ("Algunos de los lotes liberados", "pharma_qa"),
    ("Certains des lots libérés", "pharma_qa"),
    ("Einige der Chargen freigegeben", "pharma_qa"),
    ("Clear to close, call me", "mortgage"),
    ("Airworthy; see me", "aviation_maintenance"),
    ("Clear to close, anyone", "mortgage"),
    ("Lot libéré, quelqu'un", "pharma_qa"),
    ("Avion apte au vol ; retour au hangar", "aviation_maintenance"),
    ("Le onzième lot libéré", "pharma_qa"),
    ("Das zehnte Flugzeug lufttüchtig", "aviation_maintenance"),
    ("Siebentes Flugzeug lufttüchtig", "aviation_maintenance"),
    ("Clear to close on signing", "mortgage"),  # a condition: an event after "on" (``condition_events``)
    ("Lot released on receipt of the certificate", "pharma_qa"),
    ("Q: Airworthy", "aviation_maintenance"),  # a question's label
    # an accent that no phrase's word has makes another word (rule 4)
    ("Autorisé à clôturer ; dossier raté", "mortgage"),  # "raté" (failed) is no "rate"
    ("Apte au vol; pneus volés", "aviation_maintenance"),  # "volés" (stolen) is no "vol"
])
def test_a_word_that_changes_the_message_is_not_neutral(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "escalate"


@pytest.mark.parametrize("text, domain", [
    ("Lote liberado, gracias", "pharma_qa"),
    ("Lufttüchtig. Bin gleich zurück", "aviation_maintenance"),  # "be right back"
    ("Clear to close; we can close at 14:00", "mortgage"),  # "can" alone plans a step
    ("Lufttüchtig, danke", "aviation_maintenance"),
    ("Apte au vol, merci", "aviation_maintenance"),
    ("Lote liberado, igual que ayer", "pharma_qa"),  # "the same as yesterday": left as it was
    ("Clear to close. Yesterday, docs received.", "mortgage"),  # the day opens the next sentence's clause
    ("Flugzeug wurde geprüft, lufttüchtig", "aviation_maintenance"),  # "wurde" is not "würde"
    ("Lufttüchtig im Hangar 3", "aviation_maintenance"),  # "im", which spaCy's English exceptions split
    ("Im Hangar: lufttüchtig", "aviation_maintenance"),
    ("Lufttüchtig seit zwei Jahren", "aviation_maintenance"),  # it holds since then
    ("Lufttüchtig nach dem Logbook", "aviation_maintenance"),  # "according to": no event
    ("Lufttüchtig, gemeldet nach dem Check", "aviation_maintenance"),  # not beside the term
    ("Lufttüchtig. Nach dem Check Akte unterschrieben", "aviation_maintenance"),  # another clause's
    ("Kreuzprobe negativ, Labor hat vor dem Versand bestätigt", "medical_logistics"),
    ("Airworthy, gate 2A", "aviation_maintenance"),  # an identifier, no ordinal's ending
    ("Airworthy, gate 2a", "aviation_maintenance"),
    ("Clear to close, closing on the 3rd", "mortgage"),  # an ordinal in a clause without a term
    ("Airworthy; 2nd sector", "aviation_maintenance"),  # a statement of its own
    ("Airworthy; 777ER at gate 12B", "aviation_maintenance"),  # capitals: a type, no ordinal
    ("2nd shift: engineer confirms N418QX airworthy.", "aviation_maintenance"),  # a time, not the item
    ("Batch released on the 3rd shift.", "pharma_qa"),
    ("Apte au vol pour la 2e rotation.", "aviation_maintenance"),
    ("Lufttüchtig am 3. Tag", "aviation_maintenance"),  # de: an ordinal before a word of time
    ("Airworthy, 1st sector", "aviation_maintenance"),
    ("Clear to close, closing on the 1st", "mortgage"),  # an ordinal in a clause without a term
    ("Clear to close, closing on the first", "mortgage"),
    ("Airworthy for the first sector", "aviation_maintenance"),  # an ordinal in words before a time
    ("Lote liberado en el primer turno", "pharma_qa"),
    ("Clear to close, last one for today", "mortgage"),  # an ordinal in words before a time: "for today"
    ("Flugzeug lufttüchtig, Gate 2. Danke", "aviation_maintenance"),  # no article: the stop ends a sentence
    ("Clear to close. Next: file 4471", "mortgage"),
    ("Clear to close, you were first", "mortgage"),
    ("Airworthy, since yesterday", "aviation_maintenance"),  # it holds since then
    ("Clear to close since 09:00", "mortgage"),
    ("Airworthy – thanks for yesterday", "aviation_maintenance"),
    # everyday phrases around those words ("be right back", "as said", "thanks for doing")
    ("Lufttüchtig, bin gleich zurück", "aviation_maintenance"),
    ("Wie gesagt: abschlussbereit", "mortgage"),
    ("Prueba cruzada negativa. Gracias por hacer el envío", "medical_logistics"),
    ("Lufttüchtig. Danke, viel zu tun heute", "aviation_maintenance"),
    ("Lot libéré. Merci pour le retour", "pharma_qa"),
    ("Lot libéré, merci pour le retour", "pharma_qa"),  # feedback, not "sent back"
    ("Está listo para el cierre", "mortgage"),
    ("We have clear to close", "mortgage"),
    ("We had cleared to close the file", "mortgage"),  # a participle: an act that stands
    ("Clear to close, thanks everyone", "mortgage"),
    ("Thanks so much, lot released", "pharma_qa"),
    ("Airworthy as per logbook", "aviation_maintenance"),
    ("Listo para el cierre; expediente firmado", "mortgage"),
    ("Airworthy on stand 4", "aviation_maintenance"),  # "on" before no event
    ("A: Airworthy", "aviation_maintenance"),
    ("Epreuve de compatibilite negative", "medical_logistics"),  # accents left out: the same words
    ("Apte au vol, vol AF123", "aviation_maintenance"),
])
def test_the_words_around_them_still_proceed(decide, text, domain):
    assert decide(text, domain=domain)["decision"] == "proceed"

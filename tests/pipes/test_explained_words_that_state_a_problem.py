"""Texts whose every word some rule of spec §4.1 explains, yet that state a problem: a past state
("had been airworthy"), a duty or the future ("has to be", "va a estar"), a time still to come or
gone ("upon inspection", "hace dos días"), an approximation or doubt ("give or take", "a lo mejor",
"mag sein"), nobody ("von niemandem geprüft"), a concession or a problem raised but not named
("anyway", "something with the brakes"), a party without authority ("Customer: lot released",
"by the warehouse", "Pilot confirms"), a question without its mark ("says who"), another object
("the former"), a symbol of trouble or of waiting ("🔜", "🐛"), a time the clearance is set for or a
past it is stated for ("by 18:00", "was airworthy"), a step still to come ("then"), a question word
("which file"), a provisional state ("for now", "vorerst"), a check asked for or still to do
("Airworthy; check brakes", "lab will confirm", "title to clear"), a step word ending its sentence
("check the logbook first"), a party's channel before its label ("Borrower email: …"), a question
word in any of the four languages ("Where is CRS signed", "Abschlussbereit, wann"), a "¿" that no
"?" closes, letters glued to a number that no rule reads ("150FH"). Each escalates; the look-alikes
that say nothing of the kind still proceed."""
import pytest

UNSAFE = [
    ('aviation_maintenance', 'Aircraft had been airworthy.'),
    ('mortgage', 'Loan had been clear to close.'),
    ('aviation_maintenance', 'El avión estuvo aeronavegable.'),
    ('mortgage', 'El expediente ha estado listo para el cierre.'),
    ('aviation_maintenance', 'Das Flugzeug ist lufttüchtig gewesen.'),
    ('aviation_maintenance', 'Aircraft has to be airworthy by 06:00.'),
    ('mortgage', 'Loan has to be clear to close by noon.'),
    ('aviation_maintenance', 'El avión va a estar aeronavegable.'),
    ('aviation_maintenance', 'El avión tiene que estar aeronavegable.'),
    ('mortgage', 'Hay que estar listos para el cierre.'),
    ('mortgage', 'Le dossier va être autorisé à clôturer.'),
    ('mortgage', 'Clear to close afterwards.'),
    ('aviation_maintenance', 'Airworthy upon inspection.'),
    ('aviation_maintenance', 'Aeronavegable tras la inspección.'),
    ('pharma_qa', 'Lote liberado enseguida.'),
    ('mortgage', 'Danach abschlussbereit.'),
    ('aviation_maintenance', 'Airworthy beforehand.'),
    ('mortgage', 'Listo para el cierre hace dos días.'),
    ('aviation_maintenance', 'Bisher lufttüchtig.'),
    ('aviation_maintenance', 'Zunächst lufttüchtig.'),
    ('aviation_maintenance', 'Airworthy; engineering on it.'),
    ('aviation_maintenance', 'Just about airworthy.'),
    ('aviation_maintenance', 'Airworthy, give or take.'),
    ('aviation_maintenance', 'Airworthy on the whole.'),
    ('aviation_maintenance', 'Airworthy or so.'),
    ('aviation_maintenance', 'Airworthy, so so.'),
    ('aviation_maintenance', 'Airworthy sometimes.'),
    ('aviation_maintenance', 'Aeronavegable, a lo mejor.'),
    ('aviation_maintenance', 'Aeronavegable, quién sabe.'),
    ('aviation_maintenance', 'Aeronavegable, algo así.'),
    ('aviation_maintenance', 'Aeronavegable, a veces.'),
    ('aviation_maintenance', 'Apte au vol, qui sait.'),
    ('aviation_maintenance', 'Apte au vol parfois.'),
    ('aviation_maintenance', 'Apte au vol, environ.'),
    ('aviation_maintenance', 'Lufttüchtig, mag sein.'),
    ('aviation_maintenance', 'Lufttüchtig, kann sein.'),
    ('aviation_maintenance', 'Etwa lufttüchtig.'),
    ('aviation_maintenance', 'Lufttüchtig, von niemandem geprüft.'),
    ('medical_logistics', 'Kreuzprobe negativ; von niemandem bestätigt.'),
    ('aviation_maintenance', 'Airworthy anyway.'),
    ('mortgage', 'Clear to close, somehow.'),
    ('aviation_maintenance', 'Airworthy, even so.'),
    ('aviation_maintenance', 'Airworthy all the same.'),
    ('aviation_maintenance', 'Airworthy, even with the brakes.'),
    ('mortgage', 'Clear to close besides the title.'),
    ('aviation_maintenance', 'Airworthy, something with the brakes.'),
    ('pharma_qa', 'Lot released; stability whatever.'),
    ('aviation_maintenance', 'Apte au vol autrement.'),
    ('aviation_maintenance', 'Lufttüchtig; alles hin.'),
    ('pharma_qa', 'Lot released by the warehouse.'),
    ('pharma_qa', 'Lot released by the customer.'),
    ('pharma_qa', 'Customer: lot released.'),
    ('pharma_qa', 'Warehouse confirms lot released.'),
    ('pharma_qa', 'Lot released per the customer.'),
    ('mortgage', 'Borrower: clear to close.'),
    ('mortgage', 'Seller confirms clear to close.'),
    ('mortgage', 'Clear to close per escrow.'),
    ('aviation_maintenance', 'Captain: airworthy.'),
    ('aviation_maintenance', 'Pilot confirms airworthy.'),
    ('aviation_maintenance', 'Airworthy per the pilot.'),
    ('medical_logistics', 'Courier: negative crossmatch.'),
    ('medical_logistics', 'Courier - negative crossmatch'),
    ('aviation_maintenance', 'Pilot → airworthy'),
    ('medical_logistics', 'Driver confirms negative crossmatch.'),
    ('medical_logistics', 'Recipient: xm neg.'),
    ('mortgage', 'Clear to close for whom'),
    ('aviation_maintenance', 'Airworthy — or was it'),
    ('aviation_maintenance', 'Airworthy — says who'),
    ('aviation_maintenance', 'Airworthy, is that so'),
    ('pharma_qa', 'Lot released, why'),
    ('aviation_maintenance', 'Lufttüchtig — überhaupt'),
    ('aviation_maintenance', 'Airworthy — the former aircraft.'),
    ('aviation_maintenance', 'Airworthy — the latter.'),
    ('pharma_qa', 'Lote liberado; el lote anterior.'),
    ('aviation_maintenance', 'Airworthy 🔜'),
    ('mortgage', 'Clear to close 🙏'),
    ('aviation_maintenance', 'Airworthy 🔧'),
    ('aviation_maintenance', 'Airworthy ⏰'),
    ('aviation_maintenance', 'Airworthy ✕'),
    ('aviation_maintenance', 'Airworthy ∅'),
    ('aviation_maintenance', 'Airworthy 🚷'),
    ('aviation_maintenance', 'Airworthy ⬇️'),
    ('aviation_maintenance', 'Airworthy 🐛'),
    ('aviation_maintenance', 'Airworthy 🔥'),
    ('mortgage', 'Clear to close ≠'),
    ('pharma_qa', 'Lot released ‼'),
    ('medical_logistics', 'Negative crossmatch 🌡️'),
    ('aviation_maintenance', 'Airworthy 🟡'),
    ('aviation_maintenance', 'Airworthy 🔄'),
    ('aviation_maintenance', 'Airworthy 👀'),
    ('aviation_maintenance', 'Airworthy 💣'),
    ('pharma_qa', 'Lot released; assay to do.'),
    ('aviation_maintenance', 'Airworthy by then.'),
    # a time the clearance is set for, or a past it is stated for (``core.time_conditions``)
    ('mortgage', 'Clear to close by 18:00.'),
    ('aviation_maintenance', 'Airworthy from 0600Z'),
    ('mortgage', 'Clear to close by Friday.'),
    ('pharma_qa', 'Lote liberado desde el lunes'),
    ('mortgage', 'Expediente listo para el cierre para las 18:00'),
    ('mortgage', 'Dossier autorisé à clôturer pour 18h30'),
    ('mortgage', 'Abschlussbereit nach 18:00'),
    ('aviation_maintenance', 'N418QX was airworthy.'),
    ('mortgage', 'File was clear to close.'),
    ('aviation_maintenance', 'Tail 512 were airworthy'),
    ('aviation_maintenance', 'From 06:00: airworthy.'),
    ('mortgage', 'Clear to close, by 18:00.'),
    ('aviation_maintenance', 'Airworthy from 0600Z.'),
    ('mortgage', 'Clear to close by 18\u200b:00'),
    ('aviation_maintenance', 'N418QX was also airworthy.'),
    ('aviation_maintenance', 'Fue aeronavegable.'),
    ('aviation_maintenance', "L'avion a été apte au vol."),
    ('aviation_maintenance', 'N418QX airworthy yesterday.'),
    ('aviation_maintenance', 'Apte au vol hier.'),
    ('aviation_maintenance', 'aeronavegable según el turno de ayer'),
    # a step still to come, a question word without its mark, a provisional state
    ('mortgage', 'Wire first, then clear to close.'),
    ('mortgage', 'Clear to close which file'),
    ('pharma_qa', 'Batch released, who signed'),
    ('aviation_maintenance', 'Aeronavegable cuál de los dos'),
    ('pharma_qa', 'Lot libéré quel lot'),
    ('mortgage', 'Abschlussbereit welche Akte'),
    ('aviation_maintenance', 'CRS signed, keep her on the stand for now'),
    ('pharma_qa', 'Lote liberado por ahora'),
    ('pharma_qa', "Lot libéré pour l'instant"),
    ('aviation_maintenance', 'Lufttüchtig. Von wegen.'),
    ('aviation_maintenance', 'Lufttüchtig, vorerst.'),
    # a demand or a doubt in one word, a state still to come, one of two
    ('mortgage', 'clear to close already'),
    ('aviation_maintenance', 'airworthy, already!'),
    ('aviation_maintenance', 'Airworthy enough for today'),
    ('pharma_qa', 'Some lots released'),
    ('pharma_qa', 'Quelques lots libérés'),
    ('mortgage', 'CTC to be issued'),
    ('aviation_maintenance', 'Aircraft  to  be  airworthy.'),
    ('mortgage', 'CTC: to be issued'),
    ('aviation_maintenance', 'Aircraft to be airworthy'),
    ('medical_logistics', 'crossmatch to be negative'),
    ('aviation_maintenance', 'Flugzeug wird lufttüchtig'),
    ('medical_logistics', 'Crossmatch negative, really'),
    # a question whose subject is the clearance's own noun
    ('pharma_qa', 'Is lot released'),
    ('pharma_qa', 'Is  lot released'),
    ('pharma_qa', '[09:52] is lot released'),
    ('medical_logistics', 'Is crossmatch negative'),
    ('mortgage', 'Is CTC issued'),
    ('mortgage', 'Is loan clear to close'),
    ('mortgage', 'Hi, is it clear to close'),
    ('pharma_qa', 'Hi team is lot released'),
    ('medical_logistics', 'Hallo zusammen ist die Kreuzprobe negativ'),
    ('aviation_maintenance', 'Lufttüchtig genug.'),
    # a value that no contract judges
    ('aviation_maintenance', 'brakes 600 °C, airworthy'),
    ('aviation_maintenance', 'brakes 600C, airworthy'),
    ('pharma_qa', 'Batch released, assay 85 %'),
    ('pharma_qa', 'Batch released: B117; shipment B-118'),       # one form, written two ways
    ('aviation_maintenance', 'N123AB airworthy; departure N-123AC'),
    ('pharma_qa', 'Lote liberado: 4 de cada 6'),
    ('pharma_qa', 'Lot libéré : 4 lots parmi 6'),
    # a white-box hunt of the rules (checks asked for, steps to do, hearsay, questions, times, parts)
    ('aviation_maintenance', 'Airworthy; check brakes'),
    ('pharma_qa', 'Batch released; please check labels'),
    ('medical_logistics', 'Negative crossmatch; confirm with lab'),
    ('mortgage', 'Clear to close; confirm funds'),
    ('aviation_maintenance', 'Released to service; check techlog'),
    ('medical_logistics', 'xm neg; lab will confirm'),
    ('pharma_qa', 'Lot released; QA will check'),
    ('pharma_qa', "Batch released; we'll check labels"),
    ('mortgage', 'Borrower reports clear to close'),
    ('medical_logistics', 'Driver reported negative crossmatch'),
    ('aviation_maintenance', 'Pilot reports airworthy'),
    ('mortgage', 'Borrower called: clear to close'),
    ('mortgage', 'Borrower email: clear to close'),
    ('aviation_maintenance', 'Crew message: airworthy'),
    ('mortgage', 'Abschlussbereit, wann'),
    ('aviation_maintenance', 'Lufttüchtig warum'),
    ('medical_logistics', 'Kreuzprobe negativ, ob Labor bestätigt'),
    ('pharma_qa', 'Lot libéré, pourquoi'),
    ('mortgage', 'Listo para el cierre, dónde'),
    ('pharma_qa', 'Lote liberado, ¿y el laboratorio'),
    ('aviation_maintenance', 'Airworthy as of 06:00'),
    ('aviation_maintenance', 'Airworthy through 18:00'),
    ('aviation_maintenance', 'Airworthy up to 18:00'),
    ('mortgage', 'Clear to close around 18:00'),
    ('mortgage', 'Clear to close no later than 18:00'),
    ('mortgage', 'Clear to close this evening'),
    ('pharma_qa', 'Lote liberado esta noche'),
    ('aviation_maintenance', 'Lufttüchtig zum Abend'),
    ('mortgage', 'Listo para el cierre hacia las 18:00'),
    ('aviation_maintenance', 'Airworthy at the time'),
    ('aviation_maintenance', 'Airworthy last time'),
    ('pharma_qa', 'Lot libéré tout de même'),
    ('pharma_qa', 'Lot libéré de toute façon'),
    ('mortgage', 'Abschlussbereit zwar'),
    ('mortgage', 'Abschlussbereit, so oder so'),
    ('aviation_maintenance', 'Aeronavegable; avión atrás'),
    ('mortgage', 'Listo para el cierre en breve'),
    ('medical_logistics', 'Kreuzprobe negativ, Labor dagegen'),
    ('pharma_qa', 'Lote liberado; hay algo'),
    ('medical_logistics', 'Kreuzprobe negativ; Labor meldet etwas'),
    ('medical_logistics', 'Kreuzprobe negativ; jemand vom Labor'),
    ('medical_logistics', 'xm neg; someone at lab'),
    ('pharma_qa', 'Many lots released'),
    ('pharma_qa', 'Various lots released'),
    ('pharma_qa', 'Ciertos lotes liberados'),
    ('pharma_qa', 'Muchos lotes liberados'),
    ('pharma_qa', 'Nombreux lots libérés'),
    ('pharma_qa', 'Divers lots libérés'),
    ('pharma_qa', 'Lot libéré, au préalable'),
    ('aviation_maintenance', 'Airworthy (!)'),
    ('aviation_maintenance', 'Airworthy -.-'),
    ('aviation_maintenance', 'Airworthy :|'),
    ('aviation_maintenance', 'Airworthy 📉'),
    ('aviation_maintenance', 'Airworthy 🩹'),
    # checks ordered with an adverb before them, a request ending their clause, or still to do
    ('aviation_maintenance', 'Airworthy; just check brakes'),
    ('mortgage', 'Clear to close; also confirm funds'),
    ('medical_logistics', 'Negative crossmatch; lab confirm pls'),
    ('aviation_maintenance', 'Airworthy; brakes to be checked'),
    ('mortgage', 'Clear to close; docs are to be signed'),
    ('medical_logistics', 'xm neg; lab confirms at 14:00'),
    ('medical_logistics', 'Negative crossmatch, lab confirms at 1400.'),  # four digits after "at"
    ('medical_logistics', 'Negative crossmatch; lab confirms at 1400Z.'),  # Zulu time
    ('medical_logistics', 'Negative crossmatch; lab confirms at 14.00.'),  # a dot for the colon
    ('medical_logistics', 'Negative crossmatch; lab confirms at 14.00Z.'),  # and Zulu time
    ('medical_logistics', 'Negative crossmatch; lab confirms at 2.30pm.'),
    ('medical_logistics', 'Negative crossmatch; lab confirms @ 1400.'),
    ('medical_logistics', 'Crossmatch négatif ; laboratoire confirme à 14:00.'),  # fr present tense
    ('pharma_qa', 'Lot libéré ; confirme avec le laboratoire'),  # fr order
    ('aviation_maintenance', 'Airworthy; sign the logbook.'),  # an order to sign
    ('pharma_qa', 'Lot released; QA check labels at 14:00.'),  # the plural's present tense
    ('mortgage', 'Clear to close; docs to get signed.'),  # "get" as "be" after a marker
    ('aviation_maintenance', 'Airworthy; pls do check the brakes.'),
    ('aviation_maintenance', 'Airworthy and check the brakes.'),  # a conjunction right after the term
    ('aviation_maintenance', 'Airworthy; Check: brakes'),  # a checklist's item after the clearance
    ('medical_logistics', 'Negative crossmatch; lab confirm serum asap.'),
    ('medical_logistics', 'Prueba cruzada negativa; el laboratorio confirma a las 1400.'),
    ('aviation_maintenance', 'Airworthy; engineering checks brakes at 14:00'),
    ('medical_logistics', 'Prueba cruzada negativa; el laboratorio confirma a las 14:00'),
    ('pharma_qa', 'Lot released; QA checks labels this afternoon'),
    ('aviation_maintenance', 'Airworthy; engineering checks brakes on the next shift'),
    ('medical_logistics', 'Prueba cruzada negativa; el laboratorio confirma en el turno de noche'),
    ('medical_logistics', 'Kreuzprobe negativ; Labor prüft später'),
    ('pharma_qa', 'Lote liberado; confirma con el laboratorio'),
    # a negation written in look-alikes: digits, letters one by one, letters in frames, a prefix
    ('aviation_maintenance', 'N0T airworthy'),
    ('aviation_maintenance', 'NO7 airworthy'),
    ('aviation_maintenance', 'N O T airworthy'),
    ('mortgage', '\uff2e \uff2f \uff34 clear to close'),
    ('mortgage', '\u24c3\u24c4\u24c9 clear to close'),
    ('mortgage', '\U0001f17d\U0001f17e\U0001f183 clear to close'),
    ('aviation_maintenance', 'un-airworthy'),
    ('pharma_qa', 'lot released -> un-released, QA call at 3'),  # a prefix on a word of the domain's phrases
    # a value in scientific notation, a percent sign of another script
    ('aviation_maintenance', 'Airworthy, brakes 6e2 °C'),
    ('pharma_qa', 'Batch released, assay 8.5E1%'),
    ('mortgage', 'Clear to close 85 \u066a'),
    ('mortgage', 'Clear to close 85 \u2030'),
    ('aviation_maintenance', 'Airworthy; brakes get checked at 14:00'),
    ('mortgage', 'Abschlussbereit; Akte wird geprüft'),
    ('medical_logistics', 'Kreuzprobe negativ; wird vom Labor bestätigt'),
    # a step ordered before the clearance, a part of what it covers
    ('aviation_maintenance', 'Airworthy - brakes first, thanks'),
    ('aviation_maintenance', 'Aeronavegable; avión primero, gracias'),
    ('pharma_qa', 'Batch released for some orders'),
    ('medical_logistics', 'Negative crossmatch for some samples'),
    ('mortgage', 'Clear to close; several docs signed'),
]

HARMLESS = [
    ('aviation_maintenance', 'Aircraft is airworthy.'),
    ('pharma_qa', 'Lot released; QA checks lot 1400.'),  # four digits without "at": a number
    ('medical_logistics', 'Negative crossmatch; lab confirmed at 14.00.'),  # a check done
    ('aviation_maintenance', 'Check: N123AB airworthy.'),  # a label heading the report
    ('medical_logistics', 'Crossmatch négatif, confirmé par le laboratoire à 10h05.'),  # "confirmé": done
    ('mortgage', 'Loan has been cleared to close.'),
    ('pharma_qa', 'Lote liberado; fue liberado ayer.'),
    ('aviation_maintenance', 'Airworthy; crew to be at the gate by 06:00.'),
    ('mortgage', 'Clear to close; we can fund today.'),
    ('pharma_qa', 'Lote liberado; hay envío hoy.'),
    ('aviation_maintenance', 'Airworthy; departure at 18:00.'),
    ('aviation_maintenance', 'Airworthy since 06:00.'),
    ('mortgage', 'Clear to close; funding at 14:00.'),
    ('aviation_maintenance', 'Airworthy; engineering called.'),
    ('pharma_qa', 'Lot released; QP called back.'),
    ('medical_logistics', 'Negative crossmatch; lab called back.'),
    ('aviation_maintenance', 'Airworthy, just signed.'),
    ('pharma_qa', 'Lot released; QA just confirmed.'),
    ('aviation_maintenance', 'Airworthy; brakes checked.'),
    ('mortgage', 'Clear to close; wire received.'),
    ('aviation_maintenance', 'Airworthy. Update: CRS signed.'),
    ('pharma_qa', 'QP confirms lot released.'),
    ('mortgage', 'Underwriter confirms clear to close.'),
    ('aviation_maintenance', 'Engineer confirms airworthy; CRS signed.'),
    ('medical_logistics', 'Lab confirms negative crossmatch.'),
    ('pharma_qa', 'Lot released by the QP.'),
    ('mortgage', 'Clear to close per underwriting.'),
    ('aviation_maintenance', 'Airworthy per engineering.'),
    ('aviation_maintenance', 'Inspector: airworthy.'),
    ('medical_logistics', 'Lab: xm neg.'),
    ('pharma_qa', 'QA: lot released.'),
    ('aviation_maintenance', 'Airworthy ✅'),
    ('aviation_maintenance', 'Airworthy 👍'),
    ('mortgage', 'Clear to close 🎉'),
    ('aviation_maintenance', 'Airworthy ✈️'),
    ('aviation_maintenance', 'Airworthy → departure 06:00'),
    ('mortgage', 'Clear to close 👌'),
    ('aviation_maintenance', 'Airworthy; first departure 06:00.'),
    ('aviation_maintenance', 'Airworthy; aircraft on stand 4.'),
    ('medical_logistics', 'Negative crossmatch at 06:10; courier departed.'),
    ('mortgage', 'Update from 14:05: clear to close'),
    ('mortgage', 'Clear to close. Message from 14:05'),
    ('aviation_maintenance', 'Airworthy; departure by 06:00.'),
    ('mortgage', 'File was cleared to close.'),
    ('aviation_maintenance', 'N418QX was released to service.'),
    ('medical_logistics', 'The crossmatch was negative.'),
    ('aviation_maintenance', 'Airworthy; next sector at 06:00.'),
    ('mortgage', 'Ok then, clear to close.'),
    ('pharma_qa', 'Lot released yesterday.'),
    ('aviation_maintenance', 'Lufttüchtig seit gestern.'),
    ('mortgage', 'Clear to close desde ayer'),
    ('mortgage', 'Clear to close. Thanks for yesterday, team.'),
    ('mortgage', 'Listo para el cierre. ¡Qué bien!'),
    ('mortgage', 'Abschlussbereit. Na dann, danke.'),
    ('medical_logistics', 'Negative crossmatch from 06:00 serum.'),
    ('mortgage', 'Autorisé à clôturer pour mon dossier.'),
    ('aviation_maintenance', 'Aeronavegable desde la mañana.'),
    ('mortgage', '2207 is clear to close.'),
    ('medical_logistics', 'Lab confirms this morning: negative crossmatch.'),
    ('aviation_maintenance', 'Brake checks this morning ok, airworthy.'),
    ('medical_logistics', 'Confirma el laboratorio: prueba cruzada negativa.'),
    ('pharma_qa', 'El laboratorio confirma con el QP: lote liberado.'),
    ('medical_logistics', 'Kreuzprobe negativ; Probe wird gesendet.'),
    ('mortgage', 'Clear to close, A B C signed.'),
    ('aviation_maintenance', 'Airworthy, N123AB at gate B 4.'),
    ('aviation_maintenance', 'Is released to service.'),
    ('mortgage', 'Clear to close. Really, thanks.'),
    ('mortgage', 'CTC issued; borrower already notified.'),
    ('aviation_maintenance', 'Airworthy, crew already at the gate.'),
    ('mortgage', 'Have clear to close.'),
    ('aviation_maintenance', 'Have CRS signed.'),
    ('aviation_maintenance', 'Airworthy; gate 3C.'),
    ('mortgage', 'Clear to close, will update the borrower.'),
    ('mortgage', 'Wie heute gemeldet, ist die Akte abschlussbereit.'),
    ('aviation_maintenance', 'Aircraft checked and confirmed to be airworthy.'),
    ('pharma_qa', 'Lot released; several shipments booked.'),
    ('pharma_qa', 'Lot released; orders 215 and 251 sent.'),
    ('mortgage', 'Clear to close and can be signed today.'),
    ('pharma_qa', 'Batch released to be loaded today.'),
    ('medical_logistics', 'Crossmatch negative. Kidney loaded in cooler, ambulance at bay 3, ETA 11:20 UTC'),
    # their look-alikes
    ('aviation_maintenance', 'Airworthy; checks complete'),
    ('aviation_maintenance', 'Check complete: airworthy'),
    ('pharma_qa', 'Batch released; QC check complete'),
    ('mortgage', 'Confirmed: clear to close'),
    ('aviation_maintenance', 'Checked: released to service'),
    ('aviation_maintenance', 'Released to service; aircraft to gate 3'),
    ('pharma_qa', 'Lot released to warehouse'),
    ('medical_logistics', 'Negative crossmatch; courier to hospital'),
    ('mortgage', 'Clear to close; docs sent to title'),
    ('mortgage', 'Clear to close; wire to escrow'),
    ('mortgage', 'Clear to close; signing scheduled 14:00'),
    ('medical_logistics', 'Negative crossmatch; flight booked'),
    ('medical_logistics', 'Negative crossmatch; courier booked 14:00'),
    ('aviation_maintenance', 'Airworthy; departure scheduled 06:00'),
    ('pharma_qa', 'Batch released; shipment booked'),
    ('aviation_maintenance', 'Airworthy; CRS logged'),
    ('medical_logistics', 'Negative crossmatch; result logged'),
    ('pharma_qa', 'Batch released; certificate recorded'),
    ('mortgage', 'Clear to close; docs logged'),
    ('aviation_maintenance', 'Airworthy; logbook updated'),
    ('pharma_qa', 'Lots released'),
    ('pharma_qa', 'Lotes liberados'),
    ('pharma_qa', 'Lots libérés'),
    ('mortgage', 'Cleared to close'),
    ('mortgage', 'Clear to close; closing 14:00'),
    ('medical_logistics', 'Negative crossmatch; courier at hospital 14:00'),
    ('aviation_maintenance', 'Airworthy; aircraft at gate 3'),
    ('pharma_qa', 'Batch released; shipment at warehouse'),
    ('mortgage', 'Clear to close; signing at title office 14:00'),
    ('mortgage', 'Clear to close, keep copy on file'),
    ('aviation_maintenance', 'Airworthy; thanks, keep it up'),
    ('medical_logistics', 'Lab reports negative crossmatch'),
    ('mortgage', 'Underwriting called: clear to close'),
    ('pharma_qa', 'QA reports batch released'),
    ('aviation_maintenance', 'Engineering notified: released to service'),
    ('mortgage', 'Email from underwriting: clear to close'),
    ('medical_logistics', 'Negative crossmatch; courier notified'),
    ('medical_logistics', 'Kreuzprobe negativ, wie bestätigt'),
    ('pharma_qa', 'Lote liberado, como confirmado'),
    ('pharma_qa', 'Lot libéré comme confirmé'),
    ('mortgage', 'Clear to close as confirmed'),
    ('aviation_maintenance', 'Airworthy for 06:00 departure'),
    ('medical_logistics', 'Negative crossmatch; flight booked for 14:00'),
    ('aviation_maintenance', 'Airworthy since 06:00'),
    ('pharma_qa', 'Lot released at 14:05'),
    ('aviation_maintenance', 'Airworthy, checked at 06:00'),
    ('pharma_qa', 'Batch released this morning'),
    ('aviation_maintenance', 'CRS signed this morning'),
    ('pharma_qa', 'Lote liberado esta mañana'),
    ('mortgage', 'Cleared to close this morning'),
    ('aviation_maintenance', 'Airworthy since this morning'),
    ('aviation_maintenance', 'Airworthy, thanks all'),
    ('mortgage', 'Clear to close; thanks everyone'),
    ('medical_logistics', 'Kreuzprobe negativ, danke an alle'),
    ('pharma_qa', 'All lots released'),
    ('pharma_qa', 'Both lots released'),
    ('pharma_qa', 'Todos los lotes liberados'),
    ('pharma_qa', 'Tous les lots libérés'),
    ('pharma_qa', 'Lot released; next shift'),
    ('pharma_qa', 'Lote liberado; siguiente turno'),
    ('pharma_qa', '2 of 2 lots released'),
    ('pharma_qa', 'Lots released 2/2'),
    ('pharma_qa', 'Batch released 12/05'),
    ('mortgage', 'Clear to close; 2 borrowers of 2 signed'),
    ('pharma_qa', 'Batch released: LOT-42; shipment LOT-42'),
    ('pharma_qa', 'Batch released: LOT 42; shipment LOT-42'),
    ('aviation_maintenance', 'N123AB airworthy; departure N123AB 06:00'),
    ('mortgage', 'Loan LN-88A21 clear to close; funding LN-88A21'),
    ('aviation_maintenance', 'A320neo N123AB airworthy'),
    ('aviation_maintenance', 'Airworthy!'),
    ('mortgage', 'Clear to close 🙂'),
    ('pharma_qa', 'Batch released ✅'),
    ('aviation_maintenance', 'Airworthy; gate 12B'),
    ('aviation_maintenance', 'Airworthy; stand 27L'),
    ('aviation_maintenance', 'Airworthy; 2nd sector'),
    ('pharma_qa', 'Batch released; LOT-42'),
    ('aviation_maintenance', 'Airworthy; brakes checked'),
    ('pharma_qa', 'Batch released; labels checked'),
    ('mortgage', 'Clear to close; wire received'),
    ('medical_logistics', 'Negative crossmatch; sample received at lab'),
    ('aviation_maintenance', 'Airworthy; engine 2 checked, CRS signed'),
    ('pharma_qa', 'Batch released: LOT-42; shipment LOT42'),
    ('aviation_maintenance', 'N123AB airworthy; departure N-123AB 06:00'),
    ('mortgage', 'Clear to close; 2 borrowers of 2 signed'),
    ('mortgage', 'Clear to close 03/14, funding 03-15'),
    # look-alikes a fourth hunt wrote for these rules
    ('aviation_maintenance', 'Check is complete: airworthy'),
    ('aviation_maintenance', 'Airworthy; crew will check in at 05:00'),
    ('mortgage', 'Confirm received, thanks. Clear to close.'),
    ('mortgage', 'Clear to close; package sent to loan processor'),
    ('mortgage', 'Listo para el cierre, confirmado por el equipo'),
    ('aviation_maintenance', 'Airworthy; N123AB is first'),
    ('medical_logistics', 'Negative crossmatch, driver reported ETA 14:20'),
    ('pharma_qa', 'Lot released; 3 shipments of 200'),
    ('mortgage', 'Clear to close; borrowers 50/50'),
    ('aviation_maintenance', 'Airworthy; 737NG at stand 27L'),
    ('pharma_qa', 'Lote liberado; gracias de nuevo'),
    ('aviation_maintenance', 'Airworthy; crew at gate 12B, where the aircraft is'),
    ('mortgage', 'Clear to close; call the desk for anything'),
    ('pharma_qa', 'Lot libéré ; dossier dans lequel tout est signé'),
    # look-alikes of the rules that followed them, some from a fifth hunt
    ('medical_logistics', 'Lab confirms negative crossmatch at 03:12'),  # reports the result
    ('medical_logistics', 'Kreuzprobe negativ, bestätigt vom Labor um 08:15.'),  # a participle
    ('aviation_maintenance', 'Airworthy; crew to be at the gate by 06:00.'),
    ('aviation_maintenance', 'Airworthy; departure 06:00 is the first'),
    ('pharma_qa', 'Batch released; several shipments booked'),
    ('pharma_qa', 'QA confirm lot released just now.'),
    ('aviation_maintenance', 'Checks complete 06:30, airworthy.'),
    ('medical_logistics', 'Lab confirms 03:12: negative crossmatch.'),
    ('pharma_qa', 'Lot released and many thanks to QA.'),
    ('mortgage', 'First of all, thanks: clear to close.'),
    ('mortgage', 'Clear to close. Next, the signing at 14:00.'),
    ('medical_logistics', 'Confirma el laboratorio: prueba cruzada negativa.'),
    ('mortgage', 'Listo para el cierre, ver expediente 4471.'),
    ('pharma_qa', 'Lot released, ready to be loaded.'),
    ('aviation_maintenance', 'Airworthy. Stand B 12 now, stand B 14 at 06:00.'),
    # a type and its variant are no two of one series; two stands would be two values of one word
    # in the clearance's sentence (``core.identifiers``)
    ('aviation_maintenance', 'Airworthy: B737 at stand 12, B737F at the hangar.'),
    ('aviation_maintenance', 'Airworthy, one crew of four on the flight.'),
]


@pytest.mark.parametrize("domain, text", UNSAFE)
def test_a_problem_said_in_explained_words_escalates(decide, domain, text):
    assert decide(text, domain=domain)["decision"] == "escalate"


@pytest.mark.parametrize("domain, text", HARMLESS)
def test_its_look_alikes_still_proceed(decide, domain, text):
    assert decide(text, domain=domain)["decision"] == "proceed"


def test_a_stop_word_is_a_prefix_only_where_it_starts_the_compound(nlp):
    # "un-released": "un" (a stop word of es and fr) glued before a word of the domain's
    # phrases makes another word; the "to" of "clear-to-close" starts no compound
    from semgap_spacy.core.coverage import DOMAIN_PHRASE, SHAPE, STOP_WORD

    coverage = nlp.get_pipe("semgap_coverage")
    for text, unexplained in (("lot released -> un-released", ["un"]), ("Clear-to-close now", [])):
        doc = nlp.make_doc(text)
        starts = [t.idx for t in doc]
        ends = [t.idx + len(t) for t in doc]
        explained = [DOMAIN_PHRASE if t.text.lower() in ("clear", "close", "released", "lot") else
                     STOP_WORD if t.text.lower() in ("un", "to", "now") else SHAPE for t in doc]
        coverage.rules.unspell(explained, text, starts, ends)
        assert [t.text for t, rule in zip(doc, explained) if rule is None] == unexplained


_NOW = "2026-12-05T10:00:00Z"


@pytest.mark.parametrize("domain, text", [
    ("mortgage", "From the 2019 file: clear to close"),
    ("mortgage", "Clear to close — from the 2019 file"),
    ("mortgage", "Del expediente de 2019: listo para el cierre"),
    ("mortgage", "Aus der Akte von 2019: abschlussbereit"),
    ("medical_logistics", "Negative crossmatch 2026-11-28"),
    ("aviation_maintenance", "Apte au vol, dossier du 04/12/2026"),
    ("mortgage", "2026-12-04 14:05 · LN-9031 · clear to close"),
])
def test_a_state_dated_another_day_escalates(decide, domain, text):
    decision = decide(text, domain, now=_NOW)
    assert decision["decision"] == "escalate"
    assert "time_condition" in [r["code"] for r in decision["reasons"]]


@pytest.mark.parametrize("domain, text, now", [
    ("mortgage", "2026-12-05 14:05 · LN-9031 · clear to close", _NOW),   # today's stamp
    ("mortgage", "From the 2026 file: clear to close", _NOW),
    ("pharma_qa", "Lot released 2019-03-02", None),    # an act that stands, as "Lot released yesterday"
    ("mortgage", "Clear to close. Signing 2026-12-07.", _NOW),   # another statement
    ("aviation_maintenance", "Airworthy, LN-2019", None),
])
def test_a_date_of_today_or_of_an_act_proceeds(decide, domain, text, now):
    assert decide(text, domain, now=now)["decision"] == "proceed"


def test_without_now_no_date_is_today(decide):
    decision = decide("2026-12-05 14:05 · LN-9031 · clear to close", "mortgage")
    assert decision["decision"] == "escalate"


@pytest.mark.parametrize("domain, text", [
    ("mortgage", "Ready for clear to close"),
    ("mortgage", "File sent for clear to close"),
    ("mortgage", "Docs sent for CTC"),
    ("mortgage", "Docs sent for the CTC"),
    ("mortgage", "Expediente enviado para listo para el cierre"),
    ("mortgage", "Dossier envoyé pour autorisé à clôturer"),
])
def test_a_clearance_named_as_a_goal_escalates(decide, domain, text):
    decision = decide(text, domain)
    assert decision["decision"] == "escalate"
    assert "unexplained_content" in [r["code"] for r in decision["reasons"]]


@pytest.mark.parametrize("domain, text", [
    ("mortgage", "Clear to close for file 2207"),   # after the term: its scope
    ("mortgage", "Ready: clear to close"),
    ("mortgage", "Listo para el cierre"),            # the term's own "para"
    ("pharma_qa", "Batch released for shipment"),
])
def test_a_preposition_after_the_clearance_still_proceeds(decide, domain, text):
    assert decide(text, domain)["decision"] == "proceed"


@pytest.mark.parametrize("domain, text", [
    ("mortgage", "Please clear to close"),
    ("mortgage", "CTC for file 2207 please"),
    ("mortgage", "Abschlussbereit bitte"),
    ("aviation_maintenance", "airworthy pls see the work order"),  # the price: one clause with the request
])
def test_a_clearance_asked_for_escalates(decide, domain, text):
    decision = decide(text, domain)
    assert decision["decision"] == "escalate"
    assert "unexplained_content" in [r["code"] for r in decision["reasons"]]


@pytest.mark.parametrize("domain, text", [
    ("mortgage", "Cleared to close, please fund"),   # the request is a clause of its own
    ("mortgage", "Clear to close. Please fund today."),
    ("pharma_qa", "lot libéré 👍 merci"),             # "merci" thanks
])
def test_a_request_in_another_clause_or_thanks_still_proceeds(decide, domain, text):
    assert decide(text, domain)["decision"] == "proceed"


@pytest.mark.parametrize("domain, text, ok", [
    ("mortgage", "Clear to close, TBD-1", False),       # a hedge cue spelled in a code
    ("pharma_qa", "Lot released LOT-NOT-2", False),     # a never-neutral word
    ("pharma_qa", "Lot released (QA-HOLD-2)", False),   # a word of a critical phrase ("quarantine hold")
    ("aviation_maintenance", "Airworthy, WO-OPEN-7", False),  # "open write-up"
    ("mortgage", "Clear to close, LIEN-2231", False),    # "unreleased lien"
    ("medical_logistics", "Negative crossmatch DON-4410", True),  # a code that is a word as well
    ("mortgage", "Clear to close, REC-0093", True),
    ("pharma_qa", "Lot released (LOT-42)", True),
])
def test_a_short_word_spelled_in_an_identifier_is_read_when_it_says_something(decide, domain, text, ok):
    assert decide(text, domain)["decision"] == ("proceed" if ok else "escalate")


@pytest.mark.parametrize("domain, text", [
    ("mortgage", "Clear to close, docs un-signed"),     # a stop word glued before a neutral word
    ("pharma_qa", "Lot released, mis-label"),
    ("medical_logistics", "Kreuzprobe negativ, un-bestätigt"),
    ("aviation_maintenance", "Aircraft un–airworthy"),  # a dash typed for the hyphen
])
def test_a_stop_word_prefix_makes_another_word(decide, domain, text):
    assert decide(text, domain)["decision"] == "escalate"


@pytest.mark.parametrize("domain, text", [
    ("aviation_maintenance", "Airworthy; brakes re-checked"),  # kept prefixes
    ("mortgage", "Clear to close; docs e-signed"),
    ("aviation_maintenance", "Airworthy, A-check done"),       # a single letter names the check
    ("mortgage", "Clear-to-close"),
])
def test_a_harmless_prefix_still_proceeds(decide, domain, text):
    assert decide(text, domain)["decision"] == "proceed"

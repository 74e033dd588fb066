"""The scope model of ``core.context`` on plain rows: no Doc, no pipeline.

Each case is a text, a target and what the cue rules of a profile say about
it; the rows are made here with a small tokenizer, keyed by the token text.
"""
import json
import math
import re
from bisect import bisect_left, bisect_right
from pathlib import Path

import pytest

from semgap_spacy.core import context
from semgap_spacy.core.clauses import same_breaks
from semgap_spacy.core.context import CueTable, Target, TokenRows
from semgap_spacy.lang import get_pack
from semgap_spacy.lang.cues import load_cue_sets

LANGS = ("en", "es", "fr", "de")
_TOKEN = re.compile(r"\w+(?:['’]\w*)?|[^\w\s]|\s+")


def tokenize(text):
    return [m.group() for m in _TOKEN.finditer(text)]


def make_table(profile="spec", langs=LANGS, **kwargs):
    packs = [get_pack(lang) for lang in langs]
    return CueTable(load_cue_sets(langs, profile), tokenize,
                    [w for p in packs for w in p.accent_sensitive],
                    [w for p in packs for w in p.list_conjunctions], **kwargs)


TABLES = {}


def table_for(profile):
    if profile not in TABLES:
        TABLES[profile] = make_table(profile)
    return TABLES[profile]


def rows_of(table, text, sentence_starts=None):
    found = list(_TOKEN.finditer(text))
    keys = [m.group() for m in found]
    table.learn(keys, lambda key: key)
    return keys, TokenRows(text, table.facts_of(keys), [m.start() for m in found], [m.end() for m in found],
                           sentence_starts, table.gate(*table.known(keys))[2])


def read(profile, text, term, inner=None, sentence_starts=None, table=None):
    table = table or table_for(profile)
    keys, rows = rows_of(table, text, sentence_starts)
    start = text.index(term)
    first = next(i for i, s in enumerate(rows.starts) if s == start)
    last = next(i for i, e in enumerate(rows.ends) if e == start + len(term))
    reading = table.read(rows, table.scan(rows), [Target(first, last + 1, inner)])[0]
    return reading.negation is not None, reading.hedge is not None


@pytest.mark.parametrize("text,term,negated,hedged", [
    # spec §4: a cue reaches both directions within its own clause ...
    ("no crossmatch positive", "crossmatch positive", True, False),
    ("crossmatch positive no delays", "crossmatch positive", True, False),
    ("crossmatch pending", "crossmatch", False, True),
    ("pending crossmatch", "crossmatch", False, True),
    # ... and a comma, semicolon, dash, break word or sentence end stops it
    ("No delays, crossmatch positive", "crossmatch positive", False, False),
    ("No delays; crossmatch positive", "crossmatch positive", False, False),
    ("No delays - crossmatch positive", "crossmatch positive", False, False),
    ("No delays but crossmatch positive", "crossmatch positive", False, False),
    ("No delays. Crossmatch positive", "Crossmatch positive", False, False),
    ("crossmatch result: positive, no delays", "positive", False, False),
    # a list (commas, a conjunction before the last item) is the exception
    ("no title defect, cloud on title or appraisal gap", "appraisal gap", True, False),
    ("no title defect, cloud on title or appraisal gap", "cloud on title", True, False),
    ("sin brecha de tasación, amortización negativa o defecto de título", "amortización negativa", True, False),
    ("title defect, cloud on title or no appraisal gap", "title defect", False, False),
    # pseudo cues hold a cue word and negate nothing
    ("negative crossmatch, no doubt", "negative crossmatch", False, False),
    ("crossmatch positive without delay", "crossmatch positive", False, False),
    ("not only clear to close", "clear to close", False, False),
    # an accent makes another word: "sí" is not the cue "si"
    ("Sí lote liberado", "lote liberado", False, False),
    ("Si lote liberado", "lote liberado", False, True),
    # a cue glued by a hyphen is part of a word
    ("non-urgent open defect", "open defect", False, False),
    # a question does not assert
    ("airworthy?", "airworthy", False, True),
    ("¿prueba cruzada negativa?", "prueba cruzada negativa", False, True),
])
def test_spec_profile(text, term, negated, hedged):
    assert read("spec", text, term) == (negated, hedged)


@pytest.mark.parametrize("profile,text,term,expected", [
    # texts whose breaks come from their canonical view (not ASCII, not canonical as written)
    ("spec", "sin  retraso, prueba cruzada positiva", "prueba cruzada positiva", (False, False)),
    ("spec", "sin  retraso prueba cruzada positiva", "prueba cruzada positiva", (True, False)),
    ("spec", "prueba cruzada positiva  sin retraso", "prueba cruzada positiva", (True, False)),
    ("spec", "prueba cruzada positiva;  sin retraso", "prueba cruzada positiva", (False, False)),
    ("clinical", "Pérdida hemática: ninguna   HALLAZGOS: adherencias firmes", "adherencias firmes", (False, False)),
    ("clinical", "Niega  fiebre, tos o disnea.", "disnea", (True, False)),
])
def test_texts_read_through_their_canonical_view(profile, text, term, expected):
    assert read(profile, text, term) == expected


def test_a_cue_inside_the_target_is_ignored_unless_the_target_says_it_may_hold_one():
    text = "the scan showed no abnormalities"
    assert read("spec", text, "showed no abnormalities") == (False, False)
    # a frame: any cue inside applies ...
    assert read("spec", "crossmatch not positive", "crossmatch not positive", inner=frozenset()) == (True, False)
    # ... except the frame's own words ("non-reactive" is a value of the crossmatch frame)
    assert read("spec", "crossmatch non reactive", "crossmatch non reactive", inner=frozenset({1, 2, 3})) == \
        (False, False)


def test_sentence_starts_given_by_the_caller_end_a_clause():
    text = "No delays Crossmatch positive"
    assert read("spec", text, "Crossmatch positive") == (True, False)
    assert read("spec", text, "Crossmatch positive", sentence_starts=[4]) == (False, False)


def test_a_window_caps_every_reach():
    table = make_table("spec", window=2)
    assert read("spec", "no word word crossmatch", "crossmatch", table=table) == (False, False)
    assert read("spec", "no word crossmatch", "crossmatch", table=table) == (True, False)


@pytest.mark.parametrize("text,term,negated", [
    # several cues before a target, and the break between them and it
    ("no delays, no holds but crossmatch positive", "crossmatch positive", False),
    ("no delays but no holds crossmatch positive", "crossmatch positive", True),
    ("no delays apart from crossmatch positive", "crossmatch positive", False),
    # several cues after a target, and the break between it and them
    ("crossmatch positive but no delays, no holds", "crossmatch positive", False),
    ("crossmatch positive no delays but no holds", "crossmatch positive", True),
    ("crossmatch positive apart from no delays", "crossmatch positive", False),
    # a break right at the target's edge, or inside the target (no break)
    ("no delays, crossmatch positive", "crossmatch positive", False),
    ("crossmatch positive, no delays", "crossmatch positive", False),
    ("no crossmatch, positive", "crossmatch, positive", True),
])
def test_every_cue_is_parted_from_a_target_by_the_break_nearest_the_target(text, term, negated):
    assert read("spec", text, term)[0] is negated


def test_a_window_counts_words_not_whitespace_over_short_and_long_gaps():
    table = make_table("spec", window=12)
    for gap, negated in ((3, True), (11, True), (12, False), (30, False)):
        # the rows hold a whitespace token between words, and two spaces make a longer one
        text = "no  " + "  ".join(["word"] * gap) + "  crossmatch"
        assert read("spec", text, "crossmatch", table=table) == (negated, False), gap


@pytest.mark.parametrize("text,term,negated,hedged", [
    # directions: "no" reaches forward only, "was negative" back
    ("Cough, no fever.", "Cough", False, False),
    ("Patient reports cough and no fever", "cough", False, False),
    ("Blood cultures were negative.", "Blood cultures", True, False),
    ("Strep screen came back negative.", "Strep screen", True, False),
    # reach in words: the default forward reach, and a short backward one
    ("There is no convincing evidence on today's noncontrast CT of the head of an acute infarct.",
     "acute infarct", True, False),
    ("Blood cultures drawn on admission from two separate sites were negative.", "Blood cultures", False, False),
    # speculation is a hedge, not a negation
    ("CT cannot exclude a small retroperitoneal hematoma.", "retroperitoneal hematoma", False, True),
    ("An occult fracture cannot be ruled out.", "occult fracture", False, True),
    ("Findings suggestive of chronic sinusitis.", "chronic sinusitis", False, True),
    ("Atelectasis versus early pneumonia.", "Atelectasis", False, True),
    ("Atelectasis versus early pneumonia.", "early pneumonia", False, True),
    ("Probably not influenza.", "influenza", True, True),
    # pseudo cues and terminators
    ("No change in the size of the effusion.", "effusion", False, False),
    ("No fever but she reports rigors.", "rigors", False, False),
    ("No infection as the cause of fever.", "fever", False, False),
    # section headers end a scope
    ("Complications: None   POSTOPERATIVE DIAGNOSIS: pneumonia", "pneumonia", False, False),
    ("FAMILY HISTORY: No diabetes. SOCIAL HISTORY: current smoker.", "diabetes", True, False),
    # a cue that ends its clause reaches past the commas after it
    ("The patient does not, according to her daughter, have memory problems.", "memory problems", True, False),
    ("Al parecer, presentó un síncope en domicilio.", "síncope", False, True),
    # lists: from an item with a conjunction, and short items without one
    ("Denies nausea or vomiting, diarrhea, or constipation.", "constipation", True, False),
    ("No rashes, lesions, ulcers.", "ulcers", True, False),
    ("No fever, productive cough for three days.", "productive cough", False, False),
    # Spanish clinical language
    ("No se descarta fractura oculta.", "fractura oculta", False, True),
    ("No parece haber neumonía.", "neumonía", False, True),
    ("Hemocultivos negativos.", "Hemocultivos", True, False),
    ("Se suspende la heparina por sangrado.", "heparina", True, False),
    ("Falta de respuesta al tratamiento.", "respuesta al tratamiento", True, False),
    ("Imagen compatible con neumonía basal.", "neumonía basal", False, True),
    ("Si presenta fiebre, acudir a urgencias.", "fiebre", False, True),
])
def test_clinical_profile(text, term, negated, hedged):
    assert read("clinical", text, term) == (negated, hedged)


def test_the_facts_cache_is_bounded_and_keyed_by_the_text_alone():
    table = make_table("spec", langs=("en",), cache_size=5)
    assert read("spec", "no crossmatch positive", "crossmatch positive", table=table) == (True, False)
    assert read("spec", "alpha beta gamma delta epsilon crossmatch", "crossmatch", table=table) == (False, False)
    assert table.cached <= 11  # emptied, then the last text's own token texts only
    assert read("spec", "no crossmatch positive", "crossmatch positive", table=table) == (True, False)


def test_the_cue_sets_of_a_profile_must_agree_on_its_switches():
    sets = load_cue_sets(("en",), "spec")
    sets["es"] = load_cue_sets(("es",), "clinical")["es"]
    with pytest.raises(ValueError, match="disagree on section_headers"):
        CueTable(sets, tokenize)


@pytest.mark.parametrize("text,term,negated", [
    # a count of zero is a negation of what it counts: before it, or its value after ":" or "="
    ("Airworthy, 0 open write-ups", "open write-ups", True),
    ("Open write-ups: 0", "Open write-ups", True),
    ("Defectos abiertos: 0 · Despacho: OK", "Defectos abiertos", True),
    ("open_defects = 0", "open_defects", True),
    ("Open write-ups - 0", "Open write-ups", True),  # the other marks of a form (``colon_values``)
    ("Open write-ups (0)", "Open write-ups", True),
    ("Open write-ups → 0", "Open write-ups", True),
    ("Open write-ups: \uff10", "Open write-ups", True),  # a full-width zero reads "0"
    # the zero of another number, or a value that goes on, counts no none
    ("Open write-ups: 0.5", "Open write-ups", False),
    ("Open write-ups: 10", "Open write-ups", False),
    ("Open write-ups: 0 of 3", "Open write-ups", False),
    ("Airworthy, 1,0 open write-ups", "open write-ups", False),
    ("Airworthy, 2 open write-ups", "open write-ups", False),
    ("0 hours since check; open write-ups", "open write-ups", False),
])
def test_a_count_of_zero_negates_what_it_counts(text, term, negated):
    for profile in ("spec", "clinical"):
        assert read(profile, text, term) == (negated, False)


@pytest.mark.parametrize("text, code", [
    ("Airworthy. Open write-ups: 0", "critical_negated"),  # none open: escalate, as "no open write-ups"
    ("Dashboard · EC-NJM · Airworthy: YES · Open write-ups: 0 · Dispatch: GO", "critical_negated"),
    ("Airworthy. Open write-ups: 2", "critical_term"),
])
def test_a_critical_term_counted_as_none_escalates_and_one_counted_blocks(decide, text, code):
    decision = decide(text, domain="aviation_maintenance")
    assert decision["decision"] == ("escalate" if code == "critical_negated" else "block")
    assert code in {r["code"] for r in decision["reasons"]}



@pytest.mark.parametrize("text", [
    "Patient with pain in the chest", "Patient with no pain in the chest", "Fever is ruled out",
    "Fever is out", "Fever was not seen", "Pain, even with rest", "Sin dolor torácico", "Kein Fieber",
    "Pas de fièvre", "Crossmatch : négatif", "[ ] Airworthy", "as is",
])
def test_the_gate_never_drops_a_cue_that_matches(text):
    table = table_for("spec")
    keys, rows = rows_of(table, text)
    if table.scan(rows).cues:
        assert table.gate(*table.known(keys))[0] and not table.quiet(keys)


def test_a_longer_cue_with_a_word_that_is_a_cue_by_itself_needs_no_key_word():
    # "with no", "no evidence of": the gate lets their texts in by "no" already, so "with" and
    # "evidence" open it for no text; a cue without such a word is watched by one of its words
    table = table_for("spec")
    sure = {word for word, (_, single) in table.patterns.items()
            if single is not None and (single.negation or single.hedge)}
    for key, sets in table._needs.items():
        for others in sets:
            assert sure.isdisjoint(others | {key}), (key, others)
    assert "evidence" not in table._needs
    assert "ruled" in table._needs  # "is ruled out": none of its words negates by itself


# -- long texts ----------------------------------------------------------------
SENTENCES = Path(__file__).resolve().parents[1] / "data" / "context_sentences"


def own_sentences(lang):
    """The own sentence set of a language as (text, [(start_char, end_char)]), each text ending
    in a sentence end of its own."""
    out = []
    for line in (SENTENCES / f"{lang}.jsonl").read_text(encoding="utf8").splitlines():
        if line.strip():
            sample = json.loads(line)
            text = sample["text"].rstrip()
            out.append((text if text[-1:] in ".!?" else text + ".",
                        [(t["start_char"], t["end_char"]) for t in sample["targets"]]))
    return out


def read_all(table, text, spans, sentence_starts=None):
    """The rows, cue matches and targets of character spans of a text."""
    keys, rows = rows_of(table, text, sentence_starts)
    targets = [Target(bisect_right(rows.ends, s), bisect_left(rows.starts, e)) for s, e in spans]  # tokens it touches
    return rows, table.scan(rows), targets


def plain(reading, shift=0):
    def hit(h):
        return None if h is None else (h.distance, (h.nearest[0] - shift, h.nearest[1] - shift),
                                       tuple((a - shift, b - shift) for a, b in h.cues))
    return hit(reading.negation), hit(reading.hedge)


@pytest.mark.parametrize("profile", ["spec", "clinical"])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("sentence_starts", [False, True])
def test_a_long_text_reads_each_target_as_its_sentence_alone(profile, lang, sentence_starts):
    """A sentence end is a break no cue reaches over, so the sentences of a set joined into one
    text read each target as the sentence alone does: the cues a long text keeps for a target
    (``_Layout.near``) must be every cue of its sentence. Left out: sentences whose breaks are
    those of their canonical view, not their own (one puts the whole text on that reading,
    ``same_breaks``), and those with a colon (a section header may start a clause elsewhere
    in the text); the next test covers both."""
    table = table_for(profile)
    sentences = [(text, spans) for text, spans in own_sentences(lang) if same_breaks(text) and ":" not in text]
    text, spans, firsts = "", [], []
    for sentence, targets in sentences:
        if text:
            text += " "
        firsts.append(len(text))
        spans += [(len(text) + s, len(text) + e) for s, e in targets]
        text += sentence
    rows, scan, targets = read_all(table, text, spans)
    starts = [rows.starts.index(f) for f in firsts]
    if sentence_starts:
        rows = rows._replace(sentence_starts=starts[1:])
    assert len(scan.cues) * len(targets) > context._PAIRS  # the long text asks per stretch
    joined = iter(table.read(rows, scan, targets))
    for (sentence, targets_alone), shift in zip(sentences, starts):
        alone_rows, alone_scan, alone = read_all(table, sentence, targets_alone)
        for reading in table.read(alone_rows, alone_scan, alone):
            assert plain(next(joined), shift) == plain(reading), sentence


@pytest.mark.parametrize("profile", ["spec", "clinical"])
@pytest.mark.parametrize("joiner", [" ", ", ", "; ", " and ", " - ", "\n"])
def test_asking_each_target_only_its_stretch_of_cues_reads_as_asking_all(profile, joiner, monkeypatch):
    """Where cues do reach across the joints (lists, commas, sentences without their full stop),
    a long text reads the same whether each target asks every cue or only those of its stretch."""
    table = table_for(profile)
    for lang in LANGS:
        text, spans = "", []
        for sentence, targets in own_sentences(lang):
            sentence = sentence.rstrip(".") if len(spans) % 3 else sentence
            if text:
                text += joiner
            spans += [(len(text) + s, len(text) + e) for s, e in targets if e <= len(sentence)]
            text += sentence
        rows, scan, targets = read_all(table, text, spans)
        for starts in (None, [i for i, s in enumerate(rows.starts) if i and text[s - 2:s] == ". "]):
            rows = rows._replace(sentence_starts=starts)
            monkeypatch.setattr(context, "_PAIRS", 0)
            pruned = [plain(r) for r in table.read(rows, scan, targets)]
            monkeypatch.setattr(context, "_PAIRS", float("inf"))
            assert [plain(r) for r in table.read(rows, scan, targets)] == pruned


def test_the_gate_watches_a_longer_cue_by_its_rarest_word():
    """A word with a letter or digit that is not a stop word first, then the stop word written
    least often, then the longest, the last of equally long ones; which word it is changes how
    fast a text passes, never what is read."""
    assert context.key_word(("is", "ruled", "out")) == "ruled"
    assert context.key_word(("q", ":")) == "q"  # ":" opens the gate for every form with a colon
    assert context.key_word(("even", "with"), {"with", "even"}) == "with"
    assert context.key_word(("even", "with"), {"with"}) == "even"
    table = make_table("spec", common_words=["is", "as", "with"])
    assert ":" not in table._needs and "q" in table._needs


def test_facts_for_reads_the_words_a_thread_dropped_from_the_cache_meanwhile(monkeypatch):
    """Another thread empties the cache between ``learn`` and ``known`` (a memory zone ending):
    the words are read again without it, the same facts as a table that kept them."""
    table, fresh = make_table("spec"), make_table("spec")
    keys = ["No", "fever", ",", "as", "is"]
    learn = table.learn

    def learn_then_lose(*args):
        learn(*args)
        table._facts.forget()

    monkeypatch.setattr(table, "learn", learn_then_lose)
    facts, bits = table.facts_for(keys, lambda key: key)
    fresh.learn(keys, lambda key: key)
    assert (facts, bits) == fresh.known(keys) and len(table._facts) == 0


def test_among_stop_words_the_gate_watches_the_one_written_least_often():
    probs = {"is": -4.5, "as": -5.5, "with": -5.2, "even": -6.7, ":": -9.0, "to": -3.9, "do": -6.0}
    common = set(probs)
    assert context.key_word(("as", "is"), common, probs) == "as"
    assert context.key_word(("as", "is"), common) == "is"  # without frequencies: the last of equal length
    assert context.key_word(("even", "with"), common, probs) == "even"
    assert context.key_word(("to", "-", "do", ":"), common, probs) == "do"  # a mark comes last, however rare
    assert context.key_word(("even", "with"), common, {"with": -5.2}) == "with"  # unknown: written most often
    assert context.key_word(("is", "ruled"), common, probs) == "ruled"  # a word not common comes first
    table = make_table("spec", common_words=common, common_word_probs=probs)
    assert "as" in table._needs and "is" not in table._needs


def test_an_effect_keeps_its_category_until_it_changes():
    effect = context.Effect()
    none = context._NONE
    effect.add("break", None, None)
    assert (effect.label, effect.negation, effect.hedge) == ("break", False, False)
    assert effect.reaches == (none, none, none, none)
    effect.add("hedge", "forward", 3)  # the kept answers go with the change
    assert (effect.label, effect.negation, effect.hedge) == ("hedge", False, True)
    assert effect.reaches == (none, none, 3.0, none)
    effect.add("negation", "backward", None)
    assert (effect.label, effect.negation, effect.hedge) == ("negation", True, True)
    assert effect.reaches == (none, math.inf, 3.0, none)

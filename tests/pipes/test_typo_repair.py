"""Typo repair: restricted edit distance against the glossary's words only."""
import pytest
import spacy

from semgap_spacy.glossary.models import GlossarySet, load_glossaries
from semgap_spacy.pipes.typo_repair import TypoRepair, max_distance


@pytest.fixture(scope="module")
def repair():
    nlp = spacy.blank("en")
    return nlp, TypoRepair(nlp)


def run(repair, text):
    nlp, pipe = repair
    return pipe(nlp.make_doc(text))


@pytest.mark.parametrize("word,limit", [("clse", 0), ("close", 1), ("crossm", 1), ("negative", 2),
                                        ("crossmatch", 2), ("abcd", 0)])
def test_max_distance_rule(word, limit):
    assert max_distance(word) == limit


@pytest.mark.parametrize("text,original,repaired", [
    ("posative crossmatch", "posative", "positive"),        # 8 letters, distance 1
    ("Clear to clsoe", "clsoe", "close"),                    # transposition counts 1 (OSA)
    ("crosmatch negative", "crosmatch", "crossmatch"),
    ("negtaive crossmatch", "negtaive", "negative"),
    ("crossmtach positive", "crossmtach", "crossmatch"),
    ("organ decliend", "decliend", "declined"),
    ("aircraft grunded", "grunded", "grounded"),
    ("Kreuzprobe negatv", "negatv", "negativ"),
])
def test_repairs_within_distance(repair, text, original, repaired):
    doc = run(repair, text)
    token = next(t for t in doc if t.text == original)
    assert token._.semgap_norm == repaired
    assert token.norm_ == original.lower()  # the user's norm is left alone (issue 13)
    assert token._.semgap_original == original
    assert doc.text == text
    assert doc._.semgap_repairs[0]["repaired"] == repaired


@pytest.mark.parametrize("text", [
    "posatyve crossmatch",     # distance 2 on an 8-letter word is allowed... but not to 'positive'? see below
])
def test_distance_two_allowed_only_for_long_words(repair, text):
    doc = run(repair, text)
    assert doc[0]._.semgap_norm == "positive"  # 8 letters: distance 2 allowed


@pytest.mark.parametrize("text", [
    "clse to close",          # 4 letters: never repaired
    "clear to clooose",       # 7 letters, distance 2: refused
    "position pending",       # an ordinary English word: protected
    "unlses the crossmatch",  # far from any glossary word
    "unless crossmatch",      # a cue word: protected
    "the crossmatches",       # an inflected form is a word, not a typo
])
def test_no_repair(repair, text):
    doc = run(repair, text)
    assert all(t._.semgap_original is None for t in doc)
    assert not doc._.semgap_repairs or all(r["repaired"] is None for r in doc._.semgap_repairs)


def _tie_glossary():
    """Two terms of different signals whose words are each one edit from 'vorlax'."""
    data = load_glossaries().to_dict()
    dom = data["mortgage"]
    next(t for t in dom["terms"] if t["id"] == "MTG.CTC")["phrases"].append("file vorlex")
    next(t for t in dom["terms"] if t["id"] == "MTG.TITLE_DEFECT")["phrases"].append("file vorlox")
    return GlossarySet.from_dict(data)


def test_tie_between_signals_is_refused_and_recorded():
    nlp = spacy.blank("en")
    pipe = TypoRepair(nlp)
    pipe.set_glossary(_tie_glossary())
    doc = pipe(nlp.make_doc("file vorlax"))  # vorlex (clear) d=1, vorlox (critical) d=1
    assert doc[1]._.semgap_norm == "vorlax"
    assert doc[1]._.semgap_repair_candidates == ["vorlex", "vorlox"]
    assert doc._.semgap_repairs[0]["candidates"] == ["vorlex", "vorlox"]


def test_disabled_changes_nothing():
    nlp = spacy.blank("en")
    pipe = TypoRepair(nlp, enabled=False)
    doc = pipe(nlp.make_doc("posative crossmatch"))
    assert doc[0]._.semgap_norm == "posative" and doc._.semgap_repairs is None


def test_factory_via_add_pipe(blank):
    blank.add_pipe("semgap_typo_repair", config={"min_length": 6})
    doc = blank("Clear to clsoe")  # 5 letters, now below min_length
    assert doc[2]._.semgap_norm == "clsoe"


@pytest.mark.parametrize("text,original,repaired", [
    ("posa\u200btive crossmatch", "posa\u200btive", "positive"),   # a format character inside
    ("p\u043esative crossmatch", "p\u043esative", "positive"),     # a look-alike letter inside
])
def test_repairs_read_the_canonical_word(repair, text, original, repaired):
    doc = run(repair, text)
    token = next(t for t in doc if t.text == original)
    assert token._.semgap_norm == repaired and token._.semgap_original == original
    record = doc._.semgap_repairs[0]
    assert text[record["start_char"]:record["end_char"]] == original


def test_only_candidates_of_a_near_length_are_scored_and_the_repairs_are_those_of_all():
    from random import Random

    from rapidfuzz.distance import OSA
    from rapidfuzz.process import extract

    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_typo_repair")
    rng, letters = Random(5), "abcdefghijklmnopqrstuvwxyzáéñü"
    words = []
    for candidate in pipe.candidates:  # each candidate with one and two random edits, and noise
        for _ in range(3):
            word = list(candidate)
            for _ in range(rng.choice((1, 2))):
                i = rng.randrange(len(word) + 1)
                op = rng.choice(("insert", "delete", "substitute", "swap"))
                if op == "insert":
                    word.insert(i, rng.choice(letters))
                elif op == "delete" and i < len(word):
                    del word[i]
                elif op == "substitute" and i < len(word):
                    word[i] = rng.choice(letters)
                elif op == "swap" and i + 1 < len(word):
                    word[i], word[i + 1] = word[i + 1], word[i]
            words.append("".join(word))
    words += ["".join(rng.choice(letters) for _ in range(rng.randint(5, 30))) for _ in range(200)]
    compared = 0
    for word in set(words):
        limit = max_distance(word)
        if not limit:
            continue
        near = {c for c, _, _ in extract(word, pipe._candidates_near(len(word), limit), scorer=OSA.distance,
                                         score_cutoff=limit, limit=None)}
        every = {c for c, _, _ in extract(word, pipe.candidates, scorer=OSA.distance, score_cutoff=limit,
                                          limit=None)}
        assert near == every, word
        compared += bool(every)
    assert compared > 300  # most edited words are within reach of some candidate


@pytest.mark.parametrize("second", [
    "Aircraft grounded; aircraft grunded, see grunded.",
    "Aircraft grounded;\u200b aircraft grunded, see grunded.",  # not its own reading: read token by token
])
def test_a_doc_with_words_seen_clean_reads_only_its_other_chunks_and_records_them_where_they_are(second):
    nlp = spacy.blank("en")
    pipe = TypoRepair(nlp)
    first = pipe(nlp.make_doc("Aircraft grounded; aircraft released"))
    assert not first._.semgap_repairs and pipe._clean.knows("grounded;")
    doc = pipe(nlp.make_doc(second))
    records = doc._.semgap_repairs
    assert [(r["original"], r["repaired"]) for r in records] == [("grunded", "grounded")] * 2
    assert [second[r["start_char"]:r["end_char"]] for r in records] == ["grunded", "grunded"]
    assert [t._.semgap_original for t in doc if t.text == "grunded"] == ["grunded", "grunded"]
    fresh = TypoRepair(spacy.blank("en"))  # the same records as a pipe that saw nothing before
    assert fresh(fresh.nlp.make_doc(second))._.semgap_repairs == records

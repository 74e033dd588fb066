"""The fast paths of typo repair, term matching and case_doc agree with the
plain algorithms they replace."""
import random
import re

import pytest

from semgap_spacy import build_pipeline
from semgap_spacy.api import case_doc
from semgap_spacy.decision import text_sha256
from semgap_spacy.terms import _beaten, _final, _settled, _Term
from semgap_spacy.typo_repair import _long_words


@pytest.fixture(scope="module")
def nlp():
    return build_pipeline(exclude=("semgap_context", "semgap_quantities", "semgap_decision"))


def _reference_final(found):
    """The original order of work: drop contained same-term, sort, dedupe."""
    kept = [s for s in found if not any(
        o[2].label == s[2].label and o[0] <= s[0] and s[1] <= o[1] and (o[1] - o[0]) > (s[1] - s[0])
        for o in found)]
    kept.sort(key=lambda t: (t[0], -t[1], t[2].label, t[2].preference))
    seen, out = set(), []
    for t in kept:
        if (t[0], t[1], t[2].label) not in seen:
            seen.add((t[0], t[1], t[2].label))
            out.append(t)
    return out


def _random_terms(rng, n):
    found = []
    for _ in range(n):
        start = rng.randint(0, 5)
        label = rng.choice("ABC")
        term = _Term(label, f"id{rng.randint(0, 3)}", (rng.random() < 0.3, rng.randint(0, 3)), 0, 0)
        found.append((start, start + rng.randint(1, 3), term))
    return found


def test_final_matches_the_reference():
    rng = random.Random(3)
    for _ in range(3000):
        terms = _random_terms(rng, rng.randint(0, 6))
        assert _final(list(terms)) == _reference_final(list(terms))


def test_settled_terms_need_no_final_pass():
    rng = random.Random(4)
    for _ in range(3000):
        terms = _random_terms(rng, rng.randint(2, 4))
        if _settled(terms):
            assert _final(list(terms)) == terms


def test_beaten_frames_change_nothing():
    rng = random.Random(5)
    for _ in range(3000):
        terms = _random_terms(rng, rng.randint(0, 4))
        frames = _random_terms(rng, rng.randint(1, 2))
        kept = [f for f in frames if not _beaten(f, terms)]
        assert _final(terms + kept) == _reference_final(terms + frames)


@pytest.mark.parametrize("min_length", [0, 1, 3, 5, 6])
def test_long_words_are_whole_letter_runs(min_length):
    text = "Crossmatch négatif, 30hours; DC'd ab abcde\u0301f x_y Kreuzprobe2 ischämie"
    runs = [w for w in re.findall(r"[^\W\d_]+", text) if len(w) >= min_length]
    assert _long_words(min_length).findall(text) == runs


def test_case_doc_inputs_read_back_through_extensions(nlp):
    doc = case_doc(nlp, {"id": 7, "domain": "mortgage", "text": "CTC", "readings": {"x": 1}, "now": "2024-01-01"})
    assert (doc._.semgap_case_id, doc._.semgap_domain, doc._.semgap_readings, doc._.semgap_now) == \
        (7, "mortgage", {"x": 1}, "2024-01-01")
    assert doc._.semgap_text_sha256 == text_sha256("CTC") and doc._.semgap_case_problems == []


def test_typo_repair_repeats_on_every_doc(nlp):
    # a chunk holding a repaired word is never remembered as clean
    for _ in range(3):
        doc = nlp(case_doc(nlp, {"text": "crosmatch negatve", "domain": "medical_logistics"}))
        assert [r["repaired"] for r in doc._.semgap_repairs] == ["crossmatch", "negative"]


def test_long_and_short_docs_get_the_same_keys(nlp):
    keys = nlp.get_pipe("semgap_terms").keys
    text = "Released to service, organs declined - crossmatches negative, DC'd"
    short = [t.norm_ for t in nlp(case_doc(nlp, {"text": text, "domain": "medical_logistics"}))]
    limit = keys.ITERATE_MAX
    keys.ITERATE_MAX = 0  # read norms with to_array, as for long docs
    try:
        long = [t.norm_ for t in nlp(case_doc(nlp, {"text": text, "domain": "medical_logistics"}))]
    finally:
        keys.ITERATE_MAX = limit
    assert short == long and "release" in short and "\u2014" in short

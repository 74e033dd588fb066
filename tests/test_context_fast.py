"""Tests for the fast paths of ``semgap_context``: the pre-check that skips the
cue scan, the cached per-token tables, and the helpers that avoid building
spaCy objects. Each one must give exactly what the plain route gives."""
import random

import pytest
import spacy
from spacy.attrs import ORTH
from spacy.tokens import Span

from semgap_spacy import context
from semgap_spacy._extensions import pack_span_id
from semgap_spacy.context import ContextScope, load_packaged_cues

PHRASE_ID = pack_span_id("mortgage", "clear", "en", "approved", "phrase")
VALUES = ("semgap_negated", "semgap_hedged", "semgap_negation_cue", "semgap_hedge_cue")

FILLER = ["crossmatch", "positive", "clear", "to", "close", "is", "a", "en", "the", "xm", "neg", ",", ".",
          ";", "?", "-", " - ", "\n", "  ", "n'importe", "n'a", "N'A", "don't", "cannot", "Not", "NO",
          "Sin", "excursión", "Prüfung", "non-reactive", "write-up", "but", "pero", "…", "(no", "no)",
          "be", "la", "espera", "de", "yet", "confirmed", "ca n't", "Can not"]


@pytest.fixture(scope="module")
def pipe():
    nlp = spacy.blank("en")
    return nlp.add_pipe("semgap_context")


def _cue_words():
    return [r.cue for lang in ("en", "es", "fr", "de") for r in load_packaged_cues(lang).records]


def _texts(n, seed=3):
    """Texts dense in cue words, the words of longer cues, and clause breaks."""
    rng = random.Random(seed)
    cues = _cue_words()
    words = sorted({w for c in cues for w in c.split()}) + FILLER
    for _ in range(n):
        pool = cues if rng.random() < 0.5 else words
        parts = [rng.choice(pool if rng.random() < 0.4 else FILLER) for _ in range(rng.randint(0, 14))]
        text = "".join(p + rng.choice([" ", " ", "", "  "]) for p in parts)
        yield text.upper() if rng.random() < 0.2 else text


def test_scan_is_skipped_only_when_no_cue_matches(pipe):
    """``_scan`` returns None exactly when the full scan finds no negation or hedge cue."""
    skipped = found = 0
    for text in _texts(3000):
        doc = pipe.nlp.make_doc(text)
        quick = pipe._scan(doc)
        orths = context._orths(doc)
        full = context._Scan(doc, pipe, orths, pipe._cue_orths.intersection(orths))  # no pre-check
        assert (quick is None) == (not full.cues), text
        if quick is None:
            skipped += 1
        else:
            found += 1
            assert [c[:2] for c in quick.cues] == [c[:2] for c in full.cues]
            assert quick.breaks == full.breaks
    assert skipped and found  # both routes were exercised


def test_may_cue_needs_every_word_of_a_longer_cue(pipe):
    nlp = pipe.nlp
    for text, expected in [("to close", False), ("to be confirmed", True), ("confirmed, to be sure", True),
                           ("en route", False), ("en attente", True), ("File is clear", False),
                           ("it isn't", True)]:
        orths = context._orths(nlp.make_doc(text))
        pipe._scan(nlp.make_doc(text))  # learns the tokens
        hits = pipe._cue_orths.intersection(orths)
        assert bool(hits) and pipe._may_cue(hits, orths) is expected, text


@pytest.mark.parametrize("text", ["", "no", "Not clear to close yet - appraisal gap pending",
                                  "word " * 40 + "no"])
def test_orths_match_to_array(text):
    doc = spacy.blank("en")(text)
    assert context._orths(doc) == (doc.to_array(ORTH).tolist() if len(doc) else [])


def test_pick_offsets_are_those_of_the_cue_span(pipe):
    doc = pipe.nlp.make_doc("Title defect ruled out; CTC pending")
    scan = pipe._scan(doc)
    for cs, ce, _, _ in scan.cues:
        cue = doc[cs:ce]
        assert scan._pick([(0, cs, ce)])[2] == (cue.start_char, cue.end_char)


def test_effect_reach_agrees_with_directions(pipe):
    effects = [eff for longer, single in pipe._patterns.values()
               for eff in [single] + [e for forms in longer.values() for _, e in forms] if eff is not None]
    for eff in effects:
        assert eff.reach[None] == (bool(eff.negation), bool(eff.hedge))
        for way in ("forward", "backward"):
            assert eff.reach[way] == (bool(eff.negation) and context._reaches(eff.negation, way),
                                      bool(eff.hedge) and context._reaches(eff.hedge, way))


def _values(doc):
    return [[getattr(s._, name) for name in VALUES] for s in doc.spans["semgap_terms"]]


def test_values_without_a_cue_are_reset(pipe):
    """A doc with no cue takes the quick route; a value set before the pipe still goes."""
    doc = pipe.nlp.make_doc("crossmatch positive, cold ischemia")
    doc.spans["semgap_terms"] = [Span(doc, 0, 2, label="T", span_id=PHRASE_ID)]
    doc.spans["semgap_terms"][0]._.semgap_negated = True
    doc = pipe(doc)
    assert _values(doc) == [[False, False, None, None]]
    assert "semgap_cues" not in doc.spans


def test_second_run_gives_the_same_result(pipe):
    text = "Not clear to close yet - appraisal gap pending"
    doc = pipe.nlp.make_doc(text)
    doc.spans["semgap_terms"] = [Span(doc, 1, 4, label="MTG.CTC", span_id=PHRASE_ID),
                                 Span(doc, 6, 8, label="MTG.GAP", span_id=PHRASE_ID)]
    doc = pipe(doc)
    first = (_values(doc), [(s.start, s.end, s.label_) for s in doc.spans["semgap_cues"]])
    doc = pipe(doc)
    assert (_values(doc), [(s.start, s.end, s.label_) for s in doc.spans["semgap_cues"]]) == first
    assert first[0] == [[True, False, [0, 3], None], [False, True, None, [39, 46]]]


def test_public_extension_route_gives_the_same_values(pipe, monkeypatch):
    """The fallback through ``span._`` (when direct user_data writes are unsafe) agrees."""
    texts = ["no crossmatch positive", "crossmatch positive?", "crossmatch positive, cold ischemia",
             "Title defect ruled out; CTC pending"]

    def run(text):
        doc = pipe.nlp.make_doc(text)
        doc.spans["semgap_terms"] = [Span(doc, i, i + 1, label="T", span_id=PHRASE_ID) for i in range(len(doc))]
        return _values(pipe(doc))

    direct = [run(t) for t in texts]
    monkeypatch.setattr(context, "_direct_span_writes", lambda: False)
    assert [run(t) for t in texts] == direct


def test_new_cue_sets_reset_the_token_tables():
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_context", config={"languages": ["en"]})
    doc = nlp.make_doc("sin prueba")
    assert pipe._scan(doc) is None
    pipe.set_cue_sets(context.load_cue_sets(["en", "es"]))
    assert isinstance(pipe, ContextScope) and pipe._scan(nlp.make_doc("sin prueba")) is not None

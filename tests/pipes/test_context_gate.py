"""The gate of ``semgap_context`` watches each longer cue by one of its words (``key_word``),
chosen by how often spaCy says the word is written: a matter of speed only. Whichever word it
watches, every cue is still found and every text reads the same."""
import random

import pytest
import spacy
from spacy.tokens import Span

from semgap_spacy.core import context as core_context
from semgap_spacy.pipes.context import _MATCHES_KEY
from semgap_spacy.pipes.extensions import _RUN_KEY
from semgap_spacy.util.textnorm import fold
from tests.twin_texts import twin_texts

PROFILES = {"spec": {}, "clinical": {"cues": {"@misc": "semgap.context_cues.clinical.v1"}}}


def _longer_forms(table):
    for first, (longer, _) in table.patterns.items():
        for forms in longer.values():
            for form, effect in forms:
                if effect.negation or effect.hedge:
                    yield form, "negation" if effect.negation else "hedge"


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("lang", ["en", "es", "fr", "de"])
def test_every_longer_cue_passes_the_gate_in_every_pipeline_language(profile, lang):
    nlp = spacy.blank(lang)
    pipe = nlp.add_pipe("semgap_context", config=PROFILES[profile])
    checked = 0
    for form, category in _longer_forms(pipe.table):
        for gap in (" ", " \n\n "):  # whitespace tokens between the words are no words
            doc = nlp.make_doc(gap.join(form) + " x")
            if tuple(fold(t.text) for t in doc[:-1] if t.text.strip()) != form:
                continue  # the words of this form are tokenized otherwise when written apart
            doc.spans["semgap_terms"] = [doc[-1:]]
            pipe(doc)
            found = doc.user_data.get(_MATCHES_KEY) or []
            end = len(doc) - 1
            assert [0, end, category] in found or any(m[0] == 0 and m[1] >= end for m in found), (form, gap)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("lang", ["en", "es", "fr", "de"])
def test_a_longer_cue_whose_words_stand_apart_is_not_scanned_for(profile, lang):
    """The gate asks for a longer cue's other words near its key word, where a match would put
    them ("as good as it is" holds "as" and "is", not "as is"); apart, the text is not scanned."""
    nlp = spacy.blank(lang)
    pipe = nlp.add_pipe("semgap_context", config=PROFILES[profile])
    table = pipe.table
    apart = " " + " ".join(["qqq"] * (table.longest - 1)) + " "
    closed = 0
    for form, _ in _longer_forms(table):
        if len(set(form)) < len(form):
            continue  # a word said twice ("so so"): its key needs no other word
        doc = nlp.make_doc(apart.join(form))
        if tuple(fold(t.text) for t in doc if t.text != "qqq") != form:
            continue
        keys = [t.orth for t in doc]
        facts, bits = table.facts_for(keys, doc.vocab.strings.__getitem__)
        if any(f.sure or frozenset() in f.needs for f in facts):
            continue  # a word that is a cue by itself, or the key of one said twice, opens the gate anyway
        assert not table.gate(facts, bits)[0], form
        together = nlp.make_doc(" ".join(form))
        assert table.gate(*table.facts_for([t.orth for t in together], doc.vocab.strings.__getitem__))[0], form
        doc.spans["semgap_terms"] = [doc[-1:]]
        pipe(doc)
        assert doc.user_data.get(_MATCHES_KEY) is None, form
        closed += 1
    assert closed > 10


def _most_often_written(form, common=frozenset(), probs=None):
    """The opposite choice: the stop word written most often, a mark before a word."""
    probs = probs or {}
    return min(form, key=lambda w: (w not in frozenset(common), any(c.isalnum() for c in w),
                                    -probs.get(w, 0.0), len(w)))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_watched_word_changes_nothing_read(profile, monkeypatch):
    nlp = spacy.blank("en")
    rarest = nlp.add_pipe("semgap_context", name="rarest", config=PROFILES[profile])
    monkeypatch.setattr(core_context, "key_word", _most_often_written)
    commonest = nlp.add_pipe("semgap_context", name="commonest", config=PROFILES[profile])
    assert set(rarest.table._needs) != set(commonest.table._needs)
    rng = random.Random(profile)
    read = 0
    for text in twin_texts():
        docs = [nlp.make_doc(text) for _ in range(2)]
        seed = rng.random()
        for doc in docs:
            r = random.Random(seed)
            n = len(doc)
            starts = [r.randrange(n) for _ in range(r.randint(1, 3))] if n else []
            doc.spans["semgap_terms"] = [Span(doc, s, min(n, s + r.randint(1, 3)), label="T") for s in starts]
        rarest(docs[0])
        commonest(docs[1])
        assert _read(docs[0]) == _read(docs[1]), text
        read += any(k[1] == "semgap_negated" and v for k, v in _read(docs[0]).items())
    assert read > 300


def _read(doc):
    """The doc's user data but the run record, which names the pipe."""
    return {k: v for k, v in doc.user_data.items() if k != _RUN_KEY}

"""The compiled ``Context.process`` (``pipes/_context_pass.pyx``) writes exactly what the Python
method writes: every value, cue match, cue group and run record, on every held-out, sentence-set
and probe text, for both profiles, with the targets in a span group or in ``doc.ents``, on new
docs and on docs read before (values to replace), and with a cue group someone else began."""
import os
import random
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import Span
from spacy.util import filter_spans

from semgap_spacy.pipes import context
from tests.twin_texts import twin_texts

compiled_only = pytest.mark.skipif(context._compiled_pass is None, reason="pipes/_context_pass.pyx was not built")
TEXTS = twin_texts()
PROFILES = {"spec": {}, "clinical": {"cues": {"@misc": "semgap.context_cues.clinical.v1"}}}


def _targets(doc, rng):
    """Random spans over the doc's tokens, some sharing their offsets, some overlapping."""
    n = len(doc)
    spans = []
    for _ in range(rng.randint(0, 4) if n else 0):
        start = rng.randrange(n)
        spans.append(Span(doc, start, rng.randint(start + 1, min(n, start + 4)), label="T"))
    if spans and rng.random() < 0.3:
        spans.append(Span(doc, spans[0].start, spans[0].end, label="U"))
    return spans


def _state(doc, key):
    """Everything the pipe may write: the user data (values, matches, text, run record) and the
    spans of the cue group."""
    group = doc.spans.data.get(key)
    return dict(doc.user_data), None if group is None else [(s.start, s.end, s.label_) for s in group]


def _docs(nlp, text, rng, targets, again, begun):
    doc = nlp.make_doc(text)
    spans = _targets(doc, rng)
    if targets == "ents":
        doc.ents = filter_spans(spans)
    else:
        doc.spans["semgap_terms"] = spans
    if begun and len(doc):
        doc.spans["semgap_cues"] = [Span(doc, 0, 1, label="negation")]
    if again:  # read before, then the targets move: old values must go
        doc.user_data[("._.", "semgap_negated", 0, len(text))] = True
        doc.user_data[context._MATCHES_KEY] = [[0, 1, "negation"]]
    return doc


@compiled_only
@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("targets", ["spans", "ents"])
def test_compiled_process_writes_what_the_python_method_writes(profile, targets):
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_context", config=dict(PROFILES[profile], targets=targets))
    assert type(pipe).process is context._compiled_pass.process
    rng = random.Random(f"{profile}/{targets}")
    read = 0
    for text in TEXTS:
        again, begun = rng.random() < 0.2, rng.random() < 0.1
        seed = rng.random()
        one = _docs(nlp, text, random.Random(seed), targets, again, begun)
        two = _docs(nlp, text, random.Random(seed), targets, again, begun)
        pipe.process(one)
        context.python_process(pipe, two)
        assert _state(one, pipe.cues_key) == _state(two, pipe.cues_key), text
        read += any(k[1] == "semgap_negated" for k in one.user_data if type(k) is tuple and len(k) == 4)
    assert read > 500  # many texts had a target read as negated


@compiled_only
def test_compiled_process_follows_a_subclass_helper():
    """A subclass that changes a helper the method calls (the writer, the reset of a doc with
    nothing to mark) is followed, on a new doc too."""
    class Quiet(context.Context):
        def _write(self, doc, marks):
            doc.user_data["written"] = len(marks.marked)

        def _unmarked(self, doc):
            doc.user_data["unmarked"] = True
            return doc

    nlp = spacy.blank("en")
    pipe = Quiet(nlp, "quiet")
    doc = nlp.make_doc("no fever today")
    doc.spans["semgap_terms"] = [Span(doc, 1, 2, label="T")]
    pipe.process(doc)
    assert doc.user_data["written"] == 1 and not doc.spans["semgap_terms"][0]._.semgap_negated
    for text in ("mild fever", "fever is even"):  # quiet; a key word without its cue ("even with")
        keys = [t.orth for t in nlp.make_doc(text)]
        pipe.table.learn(keys, nlp.vocab.strings.__getitem__)
        assert pipe.table.quiet(keys) == (text == "mild fever")
        doc = nlp.make_doc(text)
        pipe.process(doc)
        assert doc.user_data == {"unmarked": True}, text


@compiled_only
def test_compiled_process_reads_glossary_terms_as_the_python_method_does():
    """Targets found by ``semgap_terms`` (a frame's own words inside it: ``_inner``)."""
    nlp = spacy.blank("en")
    terms = nlp.add_pipe("semgap_terms")
    pipe = nlp.add_pipe("semgap_context")
    framed = 0
    for text in twin_texts(sentences=False, probes=False):
        one, two = terms(nlp.make_doc(text)), terms(nlp.make_doc(text))
        framed += any(s.id for s in one.spans.get("semgap_terms", ()))
        pipe.process(one)
        context.python_process(pipe, two)
        assert _state(one, pipe.cues_key) == _state(two, pipe.cues_key), text
    assert framed > 100


def test_the_python_method_runs_where_the_twins_are_switched_off():
    code = ("from semgap_spacy.pipes import context as c; "
            "print(c.Context.process is c.python_process, c._compiled_pass is None)")
    env = dict(os.environ, SEMGAP_SPACY_COMPILED="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"], out.stderr

"""The compiled row readers (``pipes/_doc_rows.pyx``) give exactly what their Python twins give,
on held-out cases, the context sentence sets and the odd docs; and they are taken only for the
spaCy they were compiled against."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, Span

from semgap_spacy.core.context import _TEXT
from semgap_spacy.pipes import doc_rows
from semgap_spacy.util.compiled import COMPILED_ENV
from tests.twin_texts import twin_texts

ROOT = Path(__file__).resolve().parents[2]
compiled_only = pytest.mark.skipif(not doc_rows.COMPILED, reason=f"compiled readers {doc_rows.compiled_status()}")


ODD = ["", " ", "\n\n", "a", "  two  spaces  ", "tab\there\nnew line", "émoji 🚑 ok", "Ünïcödé — ½ 10°C",
       "x" * 300, " ".join(["word"] * 64), "One. Two! Three? Four", "\u200bzero\u200bwidth", "e\u0301 combined"]


def _docs():
    en, es = spacy.blank("en"), spacy.blank("es")
    sentencizer = en.add_pipe("sentencizer")
    docs = []
    for text in twin_texts(probes=False) + ODD:
        docs.append(en.make_doc(text))
        docs.append(sentencizer(en.make_doc(text)))
        docs.append(es.make_doc(text))
    # a doc made from words, with and without spaces after them, and sentence starts set by hand
    docs.append(Doc(en.vocab, words=["No", "fever", ",", "no", "cough"], spaces=[True, False, True, False, False],
                    sent_starts=[True, False, False, True, False]))
    return docs


DOCS = _docs()


def test_the_docs_cover_short_and_long_and_sentence_marks():
    lengths = [len(d) for d in DOCS]
    assert min(lengths) == 0 and max(lengths) >= 64 and len(DOCS) > 3000
    assert any(doc_rows.python_spaced_rows(d)[3] for d in DOCS)  # some docs have later sentence starts


@compiled_only
def test_orths_and_keyed_rows_match_the_python_readers():
    compiled = doc_rows._COMPILED
    for doc in DOCS:
        assert compiled.orths(doc) == doc_rows.python_orths(doc), doc.text
        assert compiled.keyed_rows(doc) == doc_rows.python_keyed_rows(doc), doc.text


@compiled_only
def test_spaced_rows_match_the_python_readers():
    compiled = doc_rows._COMPILED
    for doc in DOCS:
        assert compiled.spaced_rows(doc) == doc_rows.python_spaced_rows(doc), doc.text


def test_offset_rows_are_the_spaced_rows_offsets_as_arrays():
    compiled = doc_rows._COMPILED
    for doc in DOCS:
        starts, ends, _, sentence_starts = doc_rows.python_spaced_rows(doc)
        want = doc_rows.python_offset_rows(doc)
        assert (list(want[0]), list(want[1]), want[2]) == (starts, ends, sentence_starts), doc.text
        assert want[0].typecode == want[1].typecode == "q"
        if compiled is not None:
            got = compiled.offset_rows(doc)
            assert got == want and type(got[0]) is type(want[0]), doc.text


@compiled_only
def test_span_bounds_match_the_python_reader():
    nlp = spacy.blank("en")
    doc = nlp("No fever, chills, or night sweats; crossmatch negative.")
    spans = [Span(doc, 1, 2, label="P"), Span(doc, 6, 8, label="P", span_id="term-1"), Span(doc, 0, 10),
             Span(doc, 1, 2, label="Q", kb_id="k")]  # a span id, overlapping and repeated bounds, a kb id
    doc.spans["group"] = spans
    doc.spans["empty"] = []
    group = doc.spans["group"]
    assert doc_rows.span_bounds(group) == doc_rows.python_span_bounds(group)
    assert doc_rows.span_bounds(doc.spans["empty"]) == []
    assert [b[:4] for b in doc_rows.span_bounds(group)] == [(1, 2, 3, 8), (6, 8, 21, 33), (0, 10, 0, 45), (1, 2, 3, 8)]
    assert doc_rows.span_bounds(group)[1][4] == doc.vocab.strings["term-1"]
    doc.ents = [Span(doc, 1, 2, label="P")]  # doc.ents is a tuple of Spans: the Python reader takes it
    assert doc_rows.span_bounds(doc.ents) == [(1, 2, 3, 8, 0)]


def test_a_reader_built_for_another_spacy_is_not_taken(monkeypatch):
    if not doc_rows.COMPILED:
        pytest.skip(f"compiled readers {doc_rows.compiled_status()}")
    monkeypatch.setattr(spacy.about, "__version__", "0.0.1")
    module, why = doc_rows._compiled()
    assert module is None
    assert why == f"off (built against spaCy {doc_rows._COMPILED.built_with()}, running 0.0.1)"


def test_the_environment_switch_turns_the_compiled_readers_off():
    code = "from semgap_spacy.pipes import doc_rows as d; print(d.COMPILED, d.compiled_status())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, COMPILED_ENV: "0"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"False off ({COMPILED_ENV}=0)"


def test_ci_builds_the_compiled_readers():
    """``.ci/run`` sets SEMGAP_SPACY_REQUIRE_COMPILED=1: a build that silently left an extension
    out (no compiler, a Cython error against this spaCy's structs) fails there."""
    if os.environ.get("SEMGAP_SPACY_REQUIRE_COMPILED") != "1":
        pytest.skip("only where SEMGAP_SPACY_REQUIRE_COMPILED=1 (CI)")
    from semgap_spacy.core import clauses, context
    from semgap_spacy.pipes import base, context as context_pipe
    assert doc_rows.COMPILED, doc_rows.compiled_status()
    assert context._compiled is not None and context._reach is not None and clauses._compiled is not None
    assert context_pipe._compiled_pass is not None and base._compiled_run is not None


def test_context_reads_the_same_with_either_reader():
    """A pipeline's context readings and coverage findings do not depend on which reader ran."""
    code = ("import json, sys; from semgap_spacy import build_pipeline, assess\n"
            "nlp = build_pipeline(); out = []\n"
            "for t in ['No fever, chills, or night sweats', 'xm neg, cold ischemia 30 hours',\n"
            "          'File is not clear to close', 'Airworthy once the open defect is closed',\n"
            "          'Batch released, OOS noted on assay', 'crossmatch result pending']:\n"
            "    out.append(assess(nlp, t, domain='medical_logistics')._.semgap_decision)\n"
            "print(json.dumps(out, sort_keys=True, default=str))")
    outputs = []
    for value in ("1", "0"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                              env={**os.environ, COMPILED_ENV: value}, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert [d["decision"] for d in outputs[0]] == ["escalate", "block", "escalate", "escalate", "escalate", "escalate"]


@compiled_only
def test_a_new_span_group_is_the_python_one():
    nlp = spacy.blank("en")
    doc = nlp("No fever, chills, or night sweats; cannot exclude pneumonia.")
    spans = [(0, 1, "negation"), (9, 12, "hedge"), (0, 1, "hedge"), (12, 13, "a label never seen before")]
    compiled = doc_rows._COMPILED.new_span_group(doc, "cues", spans)
    python = doc_rows.python_new_span_group(doc, "cues", spans)
    def described(group):
        return (group.name, group.attrs, [(s.start, s.end, s.start_char, s.end_char, s.label_, s.label, s.id, s.kb_id,
                                           s.text) for s in group])
    assert described(compiled) == described(python)
    assert compiled.doc is doc
    doc.spans["cues"] = compiled  # a group the doc takes as its own
    assert [s.text for s in doc.spans["cues"]] == ["No", "cannot exclude", "No", "pneumonia"]
    with pytest.raises(IndexError):
        doc_rows._COMPILED.new_span_group(doc, "cues", [(3, 3, "negation")])
    with pytest.raises(IndexError):
        doc_rows._COMPILED.new_span_group(doc, "cues", [(0, 99, "negation")])


def test_the_ascii_text_is_the_text_of_an_ascii_doc():
    nlp, table = _table()
    ascii_docs = 0
    for doc in DOCS:
        facts = table.facts_of(doc_rows.orths(doc), doc.vocab.strings.__getitem__)
        text = doc_rows.ascii_text(doc, facts, _TEXT)
        assert text == doc_rows.python_ascii_text(doc, facts, _TEXT), doc.text
        assert text == (doc.text if doc.text.isascii() else None), doc.text
        ascii_docs += text is not None
        if len(doc):  # not a list of tuples, one per token: None, and the caller joins
            assert doc_rows.ascii_text(doc, tuple(facts), _TEXT) is None
            assert doc_rows.ascii_text(doc, facts[:-1], _TEXT) is None
            assert doc_rows.ascii_text(doc, [list(f) for f in facts], _TEXT) is None
            assert doc_rows.ascii_text(doc, facts, 99) is None
    assert 1000 < ascii_docs < len(DOCS)


def test_text_length_is_the_length_of_the_text():
    for doc in DOCS:
        assert doc_rows.text_length(doc) == doc_rows.python_text_length(doc) == len(doc.text), doc.text


def _table():
    nlp = spacy.blank("en")
    return nlp, nlp.add_pipe("semgap_context").table


def _expected(table, doc):
    """What ``FactsByOrth.read`` must give: ``CueTable.quiet`` and ``CueTable.known`` over the keys,
    with the facts' ``token_flags``."""
    from semgap_spacy.core.context import token_flags
    keys = doc_rows.orths(doc)
    if table.quiet(keys):
        return True
    known = table.known(keys)
    return None if known is None else known + (token_flags(known[0]),)


@compiled_only
def test_facts_by_orth_read_what_the_table_holds_for_every_doc():
    from semgap_spacy.core.context import _PLAIN, GATE_BITS_AT
    nlp, table = _table()
    reader = doc_rows._COMPILED.FactsByOrth(table._facts, table._facts.kinds[_PLAIN], GATE_BITS_AT)
    outcomes = set()
    for doc in DOCS:
        got, want = reader.read(doc), _expected(table, doc)
        assert got == want, doc.text
        if got is None:  # a word new to the cache: learnt, then read again
            table.learn(doc_rows.orths(doc), doc.vocab.strings.__getitem__)
            got, want = reader.read(doc), _expected(table, doc)
            assert got == want and got is not None, doc.text
        outcomes.add("quiet" if got is True else "none" if got is None else "facts")
        assert reader.read(doc) == got  # read again, from the copy
    assert outcomes == {"quiet", "facts"}


@compiled_only
def test_facts_by_orth_with_the_gate_answer_false_where_the_gate_keeps_a_text_out():
    """With the gate's arguments, ``read`` answers False exactly where ``CueTable.gate`` keeps
    the text out (no cue can match, no question mark), and otherwise what it answers without."""
    from semgap_spacy.core import context
    nlp, table = _table()
    gate = (context._SURE_BIT | context._MARK_BIT, context._KEY_BIT, context._REST_BIT, context._BLANK_BIT,
            context._NEEDS_AT, context._WORD, table.longest - 1)
    reader = doc_rows._COMPILED.FactsByOrth(table._facts, table._facts.kinds[context._PLAIN],
                                            context.GATE_BITS_AT, gate)
    outcomes = {"quiet": 0, "kept out": 0, "facts": 0}
    for doc in DOCS + [nlp.make_doc(t) for t in ("airworthy as is", "as good as it is", "( see below )", "( )")]:
        table.learn(doc_rows.orths(doc), doc.vocab.strings.__getitem__)
        want = _expected(table, doc)
        if want is not True and table.gate(*want[:2])[:2] == (False, False):
            want = False
        got = reader.read(doc)
        assert got == want, doc.text
        outcomes["quiet" if got is True else "kept out" if got is False else "facts"] += 1
    assert min(outcomes.values()) > 100


@compiled_only
def test_facts_by_orth_drop_their_copy_when_the_cache_changes():
    from semgap_spacy.core.context import _PLAIN, GATE_BITS_AT
    from semgap_spacy.util import caches
    nlp, table = _table()
    cache = table._facts
    reader = doc_rows._COMPILED.FactsByOrth(cache, cache.kinds[_PLAIN], GATE_BITS_AT)
    doc = nlp.make_doc("No fever today")
    table.learn(doc_rows.orths(doc), doc.vocab.strings.__getitem__)
    facts, _, _ = reader.read(doc)
    cache.forget()  # emptied: nothing is held, whatever the copy had
    assert reader.read(doc) is None
    table.learn(doc_rows.orths(doc), doc.vocab.strings.__getitem__)
    assert reader.read(doc) == _expected(table, doc)
    with caches.memory_zone():  # what a zone learnt goes when it ends
        inside = nlp.make_doc("zonal words only")
        table.learn(doc_rows.orths(inside), inside.vocab.strings.__getitem__)
        assert reader.read(inside) is not None
    assert reader.read(inside) is None and reader.read(doc) == _expected(table, doc)
    key = doc[1].orth  # a value kept anew replaces the copy's
    replaced = facts[1]._replace(text="other")
    cache.keep(key, replaced)
    assert reader.read(doc)[0][1] is replaced


@pytest.mark.parametrize("compiled", [True, False])
def test_context_reads_the_same_from_several_threads_while_its_cache_empties(compiled):
    """One pipe shared by threads, its facts cache small enough to be emptied again and again
    (each time ``FactsByOrth``'s copy drops itself, and a thread may find the words it just
    learnt gone: ``CueTable.facts_for``): every doc reads as it does alone, with no error."""
    import threading
    from semgap_spacy.pipes import context
    if compiled and context._compiled_pass is None:
        pytest.skip("pipes/_context_pass.pyx was not built")
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("semgap_context", config={"cache_size": 40})
    process = context._compiled_pass.process if compiled else context.python_process
    texts = twin_texts(held_out=False, probes=False)[:300]

    def read(text):
        doc = nlp.make_doc(text)
        doc.spans["semgap_terms"] = [doc[i:i + 1] for i in range(0, len(doc), 3)]
        process(pipe, doc)
        return {k: v for k, v in doc.user_data.items() if k[:2] == ("._.", "semgap_negated")}

    alone = [read(t) for t in texts]
    results, errors = {}, []

    def worker(k):
        try:
            results[k] = [read(t) for t in texts]
        except Exception as exc:  # reported below
            errors.append(exc)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert not errors, errors
    assert all(results[k] == alone for k in range(4))
    assert any(alone)

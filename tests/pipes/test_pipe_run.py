"""The compiled ``SemgapPipe.run`` (``pipes/_pipe_run.pyx``) leaves every doc as the Python
method leaves it: case values, case problems, run record, component errors and each pipe's own
output, through the whole pipeline, on every held-out case as a case doc (its values set) and
as a bare doc (none), on a text over the length limit, with a pipe switched off, with a default
domain, with a pipe that fails, and on a doc fed through the pipeline again."""
import json
import os
import subprocess
import sys

import pytest
import spacy

from semgap_spacy.api import build_pipeline, case_doc
from semgap_spacy.core.cases import MAX_TEXT_CHARS
from semgap_spacy.pipes import base
from tests.twin_texts import ROOT

compiled_only = pytest.mark.skipif(base._compiled_run is None, reason="pipes/_pipe_run.pyx was not built")


def _cases():
    cases = []
    for split in ("dev.jsonl", "test.jsonl"):
        with open(ROOT / "heldout" / split, encoding="utf8") as f:
            cases += [json.loads(line) for line in f if line.strip()]
    return cases


def _state(doc):
    return ({k: repr(v) for k, v in doc.user_data.items()},
            {key: [(s.start, s.end, s.label_, s.id) for s in group] for key, group in doc.spans.items()})


def _through(nlp, doc, run):
    """Each pipe in turn, the semgap ones (but the decision, which has its own) by ``run``."""
    for _, proc in nlp.pipeline:
        if isinstance(proc, base.SemgapPipe) and type(proc).run is base.SemgapPipe.run:
            run(proc, doc)
        else:
            doc = proc(doc)
    return doc


def _same(nlp, make):
    one, two = make(), make()
    _through(nlp, one, base.SemgapPipe.run)
    _through(nlp, two, base.python_run)
    assert _state(one) == _state(two)
    return one


@pytest.fixture(scope="module")
def pipeline():
    return build_pipeline()


@compiled_only
def test_compiled_run_leaves_each_case_as_the_python_method_does(pipeline):
    assert base.SemgapPipe.run is base._compiled_run.run
    cases = _cases()
    assert len(cases) > 300
    for case in cases:
        _same(pipeline, lambda: case_doc(pipeline, case))
        text = case.get("text") if isinstance(case, dict) else None
        if isinstance(text, str):
            _same(pipeline, lambda: pipeline.make_doc(text))


@compiled_only
def test_compiled_run_on_a_long_text_a_default_domain_and_a_second_run(pipeline):
    long = "Crossmatch negative. " * (MAX_TEXT_CHARS // 20 + 1)
    doc = _same(pipeline, lambda: pipeline.make_doc(long))
    assert doc._.semgap_decision["decision"] == "escalate"
    _same(pipeline, lambda: _through(pipeline, pipeline.make_doc("xm neg, cold ischemia 30 hours"),
                                     base.python_run))  # fed through again: a run record to begin anew
    nlp = build_pipeline(config={"semgap_decision": {"default_domain": "medical_logistics"}})
    doc = _same(nlp, lambda: nlp.make_doc("xm neg, cold ischemia 30 hours"))
    assert doc._.semgap_domain == "medical_logistics"


@compiled_only
def test_compiled_run_with_a_pipe_off_and_a_pipe_that_fails():
    nlp = build_pipeline()
    _same(nlp, lambda: nlp.make_doc("No fever. Crossmatch negative."))
    nlp.get_pipe("semgap_context").enabled = False  # after a run: the entry it made must not be kept
    doc = _same(nlp, lambda: nlp.make_doc("No fever. Crossmatch negative."))
    assert {e["name"]: e["status"] for e in doc._.semgap_pipeline}["semgap_context"] == "disabled"
    nlp = build_pipeline()
    pipe = nlp.get_pipe("semgap_terms")

    def fail(doc):
        raise RuntimeError("broken")

    pipe.process = fail
    doc = _same(nlp, lambda: nlp.make_doc("Crossmatch negative."))
    assert doc._.semgap_component_errors and doc._.semgap_decision["decision"] != "proceed"


@compiled_only
def test_compiled_run_keeps_a_record_its_own_pipe_began_while_it_ran():
    """A pipe whose reading runs another semgap pipe over the same new doc: the record that pipe
    began stays, and this pipe's entry follows it (``record_first``)."""
    nlp = spacy.blank("en")
    outer, inner = nlp.add_pipe("semgap_context"), nlp.add_pipe("semgap_context", name="inner")
    nlp.remove_pipe("inner")
    own = outer.process

    def nested(doc):
        base.SemgapPipe.run(inner, doc)
        return own(doc)

    outer.process = nested
    for run in (base.SemgapPipe.run, base.python_run):
        doc = nlp.make_doc("No fever today")
        run(outer, doc)
        assert [e["name"] for e in doc._.semgap_pipeline] == ["inner", "semgap_context"], run


def test_the_python_method_runs_where_the_twins_are_switched_off():
    code = "from semgap_spacy.pipes import base as b; print(b.SemgapPipe.run is b.python_run, b._compiled_run is None)"
    env = dict(os.environ, SEMGAP_SPACY_COMPILED="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"], out.stderr


def test_the_running_pipes_are_spacys_pipeline_however_pipes_are_switched_off():
    """``base.running_pipes`` reads the fields ``nlp.pipeline`` reads; it gives what the property gives."""
    from semgap_spacy.pipes.base import running_pipes
    nlp = spacy.blank("en")
    for name in ("sentencizer", "semgap_context", "semgap_decision"):
        nlp.add_pipe(name)
    assert list(running_pipes(nlp)) == list(nlp.pipeline)
    with nlp.select_pipes(disable=["semgap_decision"]):
        assert list(running_pipes(nlp)) == list(nlp.pipeline) and len(nlp.pipeline) == 2
        assert nlp.get_pipe("semgap_context").pipeline_default_domain() is None
        assert not nlp.get_pipe("semgap_context").pipeline_decides()
    assert nlp.get_pipe("semgap_context").pipeline_decides()
    nlp.disable_pipe("sentencizer")
    assert list(running_pipes(nlp)) == list(nlp.pipeline) and len(nlp.pipeline) == 2
    nlp.enable_pipe("sentencizer")
    assert list(running_pipes(nlp)) == list(nlp.pipeline) and len(nlp.pipeline) == 3

    class Other:  # a pipeline without those fields: the public property
        pipeline = [("x", object())]
    assert running_pipes(Other()) is Other.pipeline


@pytest.mark.parametrize("run", ["compiled", "python"])
def test_the_default_domain_follows_the_pipeline_as_it_changes(run):
    """The first pipe asks the pipeline for the decision pipe's default domain at every doc, and
    keeps the pipe it found while the pipeline stays (``_decision_seen``): a decision pipe added,
    switched off, replaced or removed since shows at once."""
    if run == "compiled" and base._compiled_run is None:
        pytest.skip("pipes/_pipe_run.pyx was not built")
    runner = base.SemgapPipe.run if run == "compiled" else base.python_run
    nlp = spacy.blank("en")
    context = nlp.add_pipe("semgap_context")

    def domain():
        doc = nlp.make_doc("xm neg")
        runner(context, doc)
        return doc._.semgap_domain

    assert domain() is None
    nlp.add_pipe("semgap_decision", config={"default_domain": "mortgage"})
    assert domain() == "mortgage"
    with nlp.select_pipes(disable=["semgap_decision"]):
        assert domain() is None
    assert domain() == "mortgage"
    nlp.replace_pipe("semgap_decision", "semgap_decision", config={"default_domain": "aviation_maintenance"})
    assert domain() == "aviation_maintenance"
    nlp.remove_pipe("semgap_decision")
    assert domain() is None
    assert "_decision_seen" in context.__dict__ and "_decision_seen" not in context.__getstate__()

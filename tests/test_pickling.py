"""The pipeline pickles, so ``nlp.pipe(n_process=N)`` works where worker processes spawn.

spaCy pickles the whole pipeline, and the extensions' getters, for workers
that start by spawning (the default on macOS and Windows, and forkserver on
Linux from Python 3.14). A local function anywhere in a component crashed
``nlp.pipe(..., n_process=2)`` there with "Can't pickle local object". A copy
leaves out what each component derives from its glossary and builds it again
when first used.
"""
import multiprocessing
import pickle

import pytest

from semgap_spacy import build_pipeline
from semgap_spacy.api import decision_of

TEXTS = ["Clear to close issued", "File is not clear to close", "Clear to close; title defect open",
         "Clear to close. Scans uploaded to the portal.", "Clear to close, DTI 38%"]


def _decisions(nlp, **kwargs):
    return [decision_of(doc) for doc in nlp.pipe(TEXTS, **kwargs)]


@pytest.fixture(scope="module")
def nlp():
    return build_pipeline(config={"semgap_decision": {"default_domain": "mortgage"}})


def test_a_pickled_pipeline_decides_as_the_original(nlp):
    expected = _decisions(nlp)
    assert {d["decision"] for d in expected} == {"proceed", "escalate", "block"}
    copy = pickle.loads(pickle.dumps(nlp))
    assert _decisions(copy) == expected
    # what a component derives was left out of the pickle and is built on first use
    fresh = pickle.loads(pickle.dumps(nlp))
    assert "rules" not in vars(fresh.get_pipe("semgap_coverage"))
    assert fresh.get_pipe("semgap_coverage").rules is not None


def test_nlp_pipe_with_spawned_workers_gives_the_same_decisions(nlp, monkeypatch):
    spawn = multiprocessing.get_context("spawn")
    monkeypatch.setattr(multiprocessing, "Process", spawn.Process)
    monkeypatch.setattr(multiprocessing, "Queue", spawn.Queue)
    expected = _decisions(nlp)
    assert _decisions(nlp, n_process=2, batch_size=2) == expected

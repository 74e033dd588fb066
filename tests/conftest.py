"""Shared fixtures: one full pipeline per test session (building it reads the
glossaries and compiles the matchers; the tests only read from it)."""
import pytest
import spacy

from semgap_spacy import build_pipeline


@pytest.fixture(scope="session")
def nlp():
    return build_pipeline()


@pytest.fixture
def decide(nlp):
    """Decide one case and return the decision dict."""
    from semgap_spacy import assess

    def run(text, domain="medical_logistics", readings=None, now=None):
        return assess(nlp, text, domain=domain, readings=readings, now=now)._.semgap_decision

    return run


@pytest.fixture
def blank():
    return spacy.blank("en")

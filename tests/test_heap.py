"""The collector setting belongs to the process that owns it: the library never freezes."""
import gc

from semgap_spacy import decide_cases
from semgap_spacy.util.heap import freeze_loaded


def test_library_calls_leave_the_users_collector_alone(nlp):
    before = gc.get_freeze_count()
    decisions = list(decide_cases(nlp, [{"id": "a", "domain": "mortgage", "text": "Clear to close issued"}]))
    assert decisions[0]["decision"] in ("proceed", "escalate", "block")
    assert gc.get_freeze_count() == before


def test_freeze_loaded_moves_what_exists_out_of_the_collectors_walks():
    gc.unfreeze()  # an earlier in-process CLI test may have frozen already
    assert gc.get_freeze_count() == 0
    kept = [[] for _ in range(1000)]
    freeze_loaded()
    try:
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()


class _FakeLibc:
    """Stands in for glibc and records what was asked of it."""

    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return 1


def test_large_blocks_are_returned_only_on_glibc(monkeypatch):
    from semgap_spacy.util import heap

    monkeypatch.setattr(heap.sys, "platform", "darwin")
    assert heap._glibc() is None and heap.return_large_blocks() is False
    fake = _FakeLibc()
    monkeypatch.setattr(heap, "_glibc", lambda: fake)
    assert heap.return_large_blocks() is True
    assert fake.calls == [(heap._M_MMAP_THRESHOLD, heap.MMAP_THRESHOLD)]


def test_library_calls_leave_the_users_malloc_alone(nlp, monkeypatch):
    from semgap_spacy.api import decide_lines
    from semgap_spacy.util import heap

    fake = _FakeLibc()
    monkeypatch.setattr(heap, "_glibc", lambda: fake)
    list(decide_cases(nlp, [{"id": "a", "domain": "mortgage", "text": "Clear to close issued"}]))
    list(decide_lines(nlp, [b'{"id": "b", "domain": "mortgage", "text": "Clear to close issued"}']))
    assert fake.calls == []

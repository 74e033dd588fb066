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

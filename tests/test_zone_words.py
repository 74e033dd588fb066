"""Words that recur within a memory zone's cases are learnt outside it, before it opens, up to a
budget: the decisions stay the same, a one-off word is still freed with its zone."""
import json
import multiprocessing
from pathlib import Path

import pytest

from semgap_spacy import api, build_pipeline, decide_cases
from semgap_spacy.api import decide_lines
from semgap_spacy.util import zone_words as zw
from semgap_spacy.util.zone_words import ZoneWords, zone_words

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "heldout" / "v2" / "dev.jsonl"


def _case(i, text):
    return {"id": f"c{i}", "domain": "mortgage", "text": text}


def test_decisions_are_the_same_with_words_kept_and_without(monkeypatch):
    lines = HELDOUT.read_bytes().splitlines(keepends=True)
    monkeypatch.setattr(api, "ZONE_CASES", 50)  # many zones, each keeping words for the next
    none_kept = build_pipeline()
    zone_words(none_kept, budget=0)
    plain = list(decide_lines(none_kept, lines, as_json=True))
    nlp = build_pipeline()
    kept = list(decide_lines(nlp, lines, as_json=True))
    assert kept == plain
    assert len(zone_words(nlp).kept) > 500 and zone_words(none_kept).kept == set()


def test_a_word_met_twice_in_a_zone_outlives_it_and_a_one_off_word_does_not(monkeypatch):
    monkeypatch.setattr(api, "ZONE_CASES", 3)
    nlp = build_pipeline()
    cases = [_case(0, "Clear to close; qzxtwicevk scanned."), _case(1, "qzxtwicevk uploaded qzxoncevk")]
    list(decide_cases(nlp, cases))
    assert "qzxtwicevk" in nlp.vocab.strings
    assert "qzxoncevk" not in nlp.vocab.strings
    assert "qzxtwicevk" in zone_words(nlp).kept
    # the word is a permanent lexeme now, and tokenized as before inside a later zone
    with nlp.memory_zone():
        assert [t.text for t in nlp.make_doc("qzxtwicevk, again")] == ["qzxtwicevk", ",", "again"]
    assert "qzxtwicevk" in nlp.vocab.strings


def test_a_word_met_once_in_a_zone_and_once_in_the_next_is_kept_when_the_next_opens(monkeypatch):
    monkeypatch.setattr(api, "ZONE_CASES", 1)
    nlp = build_pipeline()
    cases = [_case(0, "Clear to close; qzxnextvk scanned."), _case(1, "qzxnextvk uploaded"),
             _case(2, "qzxlatervk uploaded"), _case(3, "Clear to close"), _case(4, "qzxlatervk scanned")]
    list(decide_cases(nlp, cases))
    assert "qzxnextvk" in zone_words(nlp).kept and "qzxnextvk" in nlp.vocab.strings
    # met in the zone before last: the count of one zone back is all that is remembered
    assert "qzxlatervk" not in zone_words(nlp).kept and "qzxlatervk" not in nlp.vocab.strings


def test_the_budget_bounds_the_words_kept(monkeypatch):
    monkeypatch.setattr(api, "ZONE_CASES", 2)
    nlp = build_pipeline()
    zone_words(nlp, budget=3)
    words = [f"qzxw{i}vk" for i in range(10)]
    list(decide_cases(nlp, [_case(i, f"{w} {w} {w}") for i, w in enumerate(words)]))
    assert len(zone_words(nlp).kept) == 3
    assert sum(w in nlp.vocab.strings for w in words) == 3


def test_nothing_is_kept_inside_a_zone_of_the_caller():
    nlp = build_pipeline()
    with nlp.memory_zone():
        list(decide_cases(nlp, [_case(0, "qzxinsidevk qzxinsidevk")]))
        assert ZoneWords().keep_recurring(nlp, ["qzxinsidevk qzxinsidevk"]) == 0
    assert zone_words(nlp).kept == set()
    assert "qzxinsidevk" not in nlp.vocab.strings


def test_docs_given_by_the_caller_teach_nothing():
    nlp = build_pipeline()
    doc = nlp.make_doc("qzxgivenvk qzxgivenvk")
    list(decide_cases(nlp, [doc]))
    assert zone_words(nlp).kept == set()


@pytest.mark.parametrize("budget", [0, -1])
def test_no_budget_keeps_nothing(budget):
    nlp = build_pipeline()
    assert ZoneWords(budget).keep_recurring(nlp, ["qzxnonevk qzxnonevk"]) == 0
    assert "qzxnonevk" not in nlp.vocab.strings


def test_the_most_frequent_words_are_kept_first():
    nlp = build_pipeline()
    words = ZoneWords(budget=1)
    assert words.keep_recurring(nlp, ["qzxavk qzxbvk qzxbvk", "qzxavk qzxbvk"]) == 1
    assert words.kept == {"qzxbvk"}


def test_a_zone_that_spans_calls_is_counted_whole_and_kept_when_it_ends():
    """A worker's zone spans many ``decide_lines`` calls: a word met once in each counts twice."""
    nlp = build_pipeline()
    with nlp.memory_zone():
        list(decide_cases(nlp, [_case(0, "qzxspanvk scanned")]))
        list(decide_cases(nlp, [_case(1, "qzxspanvk uploaded")]))
        assert zone_words(nlp).kept == set()
    assert zone_words(nlp).keep(nlp) >= 1
    assert "qzxspanvk" in zone_words(nlp).kept and "qzxspanvk" in nlp.vocab.strings


def test_counting_inside_a_zone_that_never_ends_is_bounded(monkeypatch):
    monkeypatch.setattr(zw, "MAX_COUNTED", 10)
    words = ZoneWords()
    for i in range(50):
        words.note([f"qzx{i}a qzx{i}b"])
    assert len(words.counts) <= 12


def test_a_tokenizer_that_fails_on_a_word_alone_stops_the_keeping_not_the_decisions(monkeypatch):
    monkeypatch.setattr(api, "ZONE_CASES", 2)
    nlp = build_pipeline()
    tokenizer = nlp.tokenizer

    def picky(text):
        if text == "qzxpickyvk":
            raise ValueError("not alone")
        return tokenizer(text)
    nlp.tokenizer = picky
    cases = [_case(i, "qzxpickyvk qzxpickyvk scanned") for i in range(6)]
    decisions = list(decide_cases(nlp, cases))
    assert [d["id"] for d in decisions] == [f"c{i}" for i in range(6)]
    words = zone_words(nlp)
    assert "qzxpickyvk" not in words.kept and words.budget == len(words.kept)


def test_a_zone_finds_its_recurring_words_learnt_before_it_opens(monkeypatch):
    nlp = build_pipeline()
    seen = []
    real = api._decide_zone

    def spy(nlp_, items, batch_size):
        seen.append(("qzxbeforevk" in nlp_.vocab.strings, "qzxsinglevk" in nlp_.vocab.strings))
        return real(nlp_, items, batch_size)
    monkeypatch.setattr(api, "_decide_zone", spy)
    list(decide_cases(nlp, [_case(0, "qzxbeforevk scanned qzxsinglevk"), _case(1, "qzxbeforevk uploaded")]))
    assert seen == [(True, False)]


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="workers start from the parent by fork")
def test_forked_workers_start_with_the_first_zones_words_learnt():
    nlp = build_pipeline()
    lines = [json.dumps(_case(i, "qzxforkvk scanned")).encode() for i in range(6)] + [b"not json"]
    decisions = list(decide_lines(nlp, lines, n_process=2))
    assert len(decisions) == 7 and decisions[-1]["decision"] == "escalate"
    assert "qzxforkvk" in zone_words(nlp).kept and "qzxforkvk" in nlp.vocab.strings
    assert decisions[:6] == list(decide_lines(build_pipeline(), lines[:6]))


def test_the_first_zone_the_parent_counts_for_its_workers_is_not_a_zone_before_theirs():
    from semgap_spacy.workers import first_zone_words

    nlp = build_pipeline()
    cases = [_case(0, "qzxtwicevk qzxtwicevk"), _case(1, "qzxoncevk scanned")]
    assert list(first_zone_words(nlp, cases, "cases")) == cases
    words = zone_words(nlp)
    assert "qzxtwicevk" in words.kept and "qzxoncevk" not in words.kept
    # the workers count these cases again: "qzxoncevk", once in them, must not count as met twice
    words.note(["qzxoncevk scanned"])
    words.keep(nlp)
    assert "qzxoncevk" not in words.kept

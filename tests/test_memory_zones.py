"""Memory zones: the pipes keep nothing of a zone's one-off words, bounded
caches take their size from config, and decisions do not depend on zones."""
import json
from pathlib import Path

import pytest

from semgap_spacy import api, build_pipeline, decide_cases
from semgap_spacy.api import assess_cases, decision_of
from semgap_spacy.core.textview import read_word
from semgap_spacy.util.caches import (IndexedCache, WordCache, WordSet, cached, in_memory_zone, memory_zone,
                                      new_document)

ROOT = Path(__file__).resolve().parents[1]


def test_a_word_cache_is_bounded():
    cache = WordCache(3)
    for i in range(10):
        cache.put(i, str(i))
        assert len(cache) <= 3
    with pytest.raises(ValueError):
        WordCache(0)


def test_a_zone_forgets_one_off_words_and_keeps_a_word_met_again_in_another_document():
    cache, strict = WordCache(100), WordCache(100, promote=False)
    cache.put("before", 1)
    with memory_zone():
        with memory_zone():  # spaCy enters one zone per pipe
            assert in_memory_zone()
            for c in (cache, strict):
                c.put("once", 2)
                c.put("twice", 3)
                assert c.get("twice") is None and c.recall("twice") == 3
            new_document()
            for c in (cache, strict):
                assert c.recall("twice") == 3
        assert in_memory_zone()  # not over until the outermost exit
    assert not in_memory_zone()
    assert dict(cache) == {"before": 1, "twice": 3}  # "twice" was met again inside the zone: kept
    assert dict(strict) == {} and not strict.young  # keyed by spaCy hashes: nothing of the zone stays


def test_a_word_met_in_one_zone_and_again_in_the_next_is_kept_and_one_zone_only_is_remembered():
    cache, strict = WordCache(100), WordCache(100, promote=False)
    with memory_zone():
        for c in (cache, strict):
            c.put("again", 1)
            c.put("gone", 2)
    assert dict(cache) == {} and dict(strict) == {}  # each met in one document of the zone only
    with memory_zone():
        new_document()
        assert cache.recall("again") == 1 and strict.recall("again") is None
        cache.put("next", 3)
    assert dict(cache) == {"again": 1}  # met in the zone before and in this one
    with memory_zone():
        new_document()
        assert cache.recall("gone") is None  # two zones back: forgotten
        assert cache.recall("next") == 3
        cache.put("last", 4)
    assert dict(cache) == {"again": 1, "next": 3}
    assert set(cache.before) == {"last"}  # what is held beyond a zone: the last zone's words alone


def test_word_sets_and_cached_functions_follow_the_same_rules():
    words = WordSet(10)
    calls = []

    @cached(10)
    def shout(word):
        calls.append(word)
        return word.upper()

    with memory_zone():
        words.add("a")
        assert words.knows("a") and words.issuperset(["a"]) and not words.knows("b")
        assert shout("x") == shout("x") == "X"
        new_document()
        assert words.knows("a") and shout("x") == "X" and shout("y") == "Y"
    assert "a" in words and "x" in shout.cache and "y" not in shout.cache
    assert calls == ["x", "y"]


def test_an_indexed_cache_keeps_facts_and_kinds_together_bounded_and_forgets_a_zone():
    made = []

    def make(key):
        made.append(key)
        return key * 10, ("even",) if key % 2 == 0 else ()

    cache = IndexedCache(4, ("even",))
    cache.learn([1, 2], make)
    assert dict(cache) == {1: 10, 2: 20} and cache.kinds["even"] == {2}
    cache.learn([2, 1], make)
    assert made == [1, 2]  # known keys are not made again
    with memory_zone():
        cache.learn([3, 4], make)
        assert cache[4] == 40 and cache.kinds["even"] == {2, 4}
    assert dict(cache) == {1: 10, 2: 20} and cache.kinds["even"] == {2}  # the zone's keys are gone
    cache.learn([5, 6, 7, 8, 9], make)  # more than the bound: emptied, then this text's keys all present
    assert dict(cache) == {k: k * 10 for k in (5, 6, 7, 8, 9)} and cache.kinds["even"] == {6, 8}
    cache.learn([10], make)
    assert dict(cache) == {10: 100} and cache.kinds["even"] == {10}
    with pytest.raises(ValueError):
        IndexedCache(0, ())


def test_a_key_kept_on_purpose_outlives_the_zone_and_the_bound_still_holds():
    words, facts = WordCache(2, promote=False), IndexedCache(2, ())
    with memory_zone():
        for cache in (words, facts):
            assert cache.keep(1, "one") == "one"
        words.put(2, "two")
        facts.learn([3], lambda key: ("three", ()))
    assert dict(words) == {1: "one"} and dict(facts) == {1: "one"}  # the learnt ones went with the zone
    for cache in (words, facts):
        cache.keep(4, "four")
        cache.keep(5, "five")
        assert len(cache) <= 2 and cache[5] == "five"


@pytest.fixture(scope="module")
def nlp():
    return build_pipeline()


def test_the_pipes_keep_nothing_of_a_zones_new_words(nlp):
    case = {"id": "z", "domain": "mortgage", "text": "Clear to close issued, ref qzxwvjkl qzxwvjkl"}
    list(decide_cases(nlp, [dict(case, text="Clear to close issued")]))
    with nlp.memory_zone():
        decisions = [decision_of(d) for d in nlp.pipe([api.case_doc(nlp, case)])]
    assert decisions[0]["decision"] == "escalate"  # the word twice in one document: still a one-off
    typo, terms = nlp.get_pipe("semgap_typo_repair"), nlp.get_pipe("semgap_terms")
    coverage = nlp.get_pipe("semgap_coverage")
    assert "qzxwvjkl" not in typo._cache and "qzxwvjkl" not in typo._folds
    assert "qzxwvjkl" not in read_word.cache
    assert nlp.vocab.strings["qzxwvjkl"] not in terms.keys._keys
    assert nlp.vocab.strings["qzxwvjkl"] not in nlp.get_pipe("semgap_context").table._facts
    word_facts = list(coverage.rules._word_facts.values())
    assert word_facts and not any(nlp.vocab.strings["qzxwvjkl"] in facts for facts in word_facts)
    text_caches = [terms.keys._text_keys] + list(coverage.rules._text_facts.values())
    assert not any("qzxwvjkl" in cache for cache in text_caches)
    assert all(not c.young for c in [typo._cache, typo._folds, terms.keys._keys, terms.keys._plain]
               + word_facts + text_caches)


def test_a_word_met_again_in_a_zone_is_not_worked_out_anew_in_the_next(monkeypatch):
    nlp = build_pipeline()
    terms, coverage = nlp.get_pipe("semgap_terms"), nlp.get_pipe("semgap_coverage")
    cases = [{"id": str(i), "domain": "mortgage", "text": f"Clear to close issued, ref qzxwvmno {i}"}
             for i in range(3)]
    first = list(decide_cases(nlp, cases[:2]))  # one zone, the word in two documents
    key = nlp.vocab.strings.add("qzxwvmno")
    assert "qzxwvmno" in terms.keys._text_keys and "qzxwvmno" in coverage.rules._text_facts["mortgage"]
    assert key in terms.keys._plain and key in coverage.rules._word_facts["mortgage"]  # by its hash too
    worked_out = []
    rule, keys_of = coverage.rules._word_rule, terms.keys._keys_of
    monkeypatch.setattr(coverage.rules, "_word_rule", lambda text, rules: worked_out.append(text) or rule(text, rules))
    monkeypatch.setattr(terms.keys, "_keys_of", lambda text: worked_out.append(text) or keys_of(text))
    later = list(decide_cases(nlp, cases[2:]))
    assert "qzxwvmno" not in worked_out
    monkeypatch.undo()
    outside = [decision_of(doc) for doc in assess_cases(build_pipeline(), cases)]
    assert first + later == outside  # the same decisions as a fresh pipeline's outside any zone
    assert all("qzxwvmno" in [w for r in d["reasons"] for w in r.get("words", ())] for d in later)


def test_cache_sizes_come_from_the_config():
    small = build_pipeline(config={"semgap_typo_repair": {"cache_size": 4}, "semgap_terms": {"cache_size": 4},
                                   "semgap_coverage": {"cache_size": 4}})
    words = " ".join(f"word{chr(97 + i)}lmnop" for i in range(12))
    list(decide_cases(small, [{"id": "s", "domain": "mortgage", "text": words}], n_process=1))
    for name in ("semgap_typo_repair", "semgap_terms", "semgap_coverage"):
        assert small.get_pipe(name).cfg.get("cache_size") is None  # not a reading switch: not in the run record
        assert small.config["components"][name]["cache_size"] == 4
    assert len(small.get_pipe("semgap_typo_repair")._cache) <= 4
    assert len(small.get_pipe("semgap_terms").keys._word_keys) <= 4
    assert len(small.get_pipe("semgap_terms").keys._text_keys) <= 4
    assert all(f.max_size == 4 for f in small.get_pipe("semgap_coverage").rules._text_facts.values())
    # coverage keeps its facts like the context pipe: bounded, though one text's words are all kept
    facts = list(small.get_pipe("semgap_coverage").rules._word_facts.values())
    assert facts and all(f.max_size == 4 for f in facts)
    list(decide_cases(small, [{"id": "t", "domain": "mortgage", "text": "other words"}], n_process=1))
    assert all(len(f) <= 4 for f in facts)  # full: emptied before the next text's words


def test_decisions_in_memory_zones_are_the_decisions_without(nlp, monkeypatch):
    cases = []
    with open(ROOT / "heldout" / "v2" / "dev.jsonl", encoding="utf8") as fh:
        for line in fh:
            row = json.loads(line)
            cases.append({k: row[k] for k in ("id", "domain", "text", "readings", "now") if k in row})
    without = [decision_of(doc) for doc in assess_cases(nlp, cases)]
    monkeypatch.setattr(api, "ZONE_CASES", 37)  # many zones, each relearning words
    assert list(decide_cases(nlp, cases, batch_size=16)) == without


def test_lasting_says_whether_a_word_outlives_the_zone():
    cache, made = WordCache(10), []

    def make(word):
        made.append(word)
        return word.upper()
    assert cache.lasting("before", make) == ("BEFORE", True)        # outside a zone: kept at once
    with memory_zone():
        assert cache.lasting("once", make) == ("ONCE", False)       # one of the zone's words so far
        assert cache.lasting("once", make) == ("ONCE", False)       # same document: still not kept
        new_document()
        assert cache.lasting("once", make) == ("ONCE", True)        # met again in a later document
    assert made == ["before", "once"] and "once" in cache


def _coverage_read(doc):
    return (doc._.semgap_coverage["findings"], doc._.semgap_coverage["explained_by"],
            [(s.start, s.end, s.label_) for s in doc.spans["semgap_unexplained"]])


@pytest.mark.parametrize("cache_size", [3, 50_000])
def test_a_zones_new_words_split_clauses_and_explain_as_outside_a_zone(cache_size):
    """A word first met inside a zone holds a clause break (";" inside "qzxwvab;qzxwvcd"):
    coverage reads it as outside any zone, the first time and when it is met again in a later
    document (then kept, which may empty a small cache mid-text)."""
    texts = ["Clear to close issued qzxwvab;qzxwvcd pending, qzxwvef",
             "Clear to close issued, qzxwvef qzxwvab;qzxwvcd; title commitment pending",
             "qzxwvab;qzxwvcd qzxwvef, clear to close"]
    cases = [{"id": str(i), "domain": "mortgage", "text": t} for i, t in enumerate(texts)]
    outside = [_coverage_read(doc) for doc in assess_cases(build_pipeline(), cases)]
    zoned = build_pipeline(config={"semgap_coverage": {"cache_size": cache_size}})
    with zoned.memory_zone():
        inside = [_coverage_read(doc) for doc in zoned.pipe([api.case_doc(zoned, c) for c in cases + cases])]
    assert outside[0][0][0]["end_char"] == texts[0].index(";")  # the new word's ";" ends the clause
    assert inside == outside + outside

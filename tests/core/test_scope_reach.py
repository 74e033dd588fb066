"""The compiled clause questions of the scope model (``core/_scope_reach.pyx``) read every target
as the Python model (``_Layout``, ``_Clauses``) does: on the sentence sets with their targets, on
every held-out and probe text with targets drawn at random, in both cue profiles, and on
generated text full of cues, commas, conjunctions, breaks and headers."""
import gc
import json
import random
from pathlib import Path

import pytest
import spacy
from hypothesis import given, settings, strategies as st

from semgap_spacy.core import clauses, context
from semgap_spacy.core.context import Target, TokenRows
from tests.twin_texts import context_tables, twin_texts

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(context._reach is None, reason="core/_scope_reach.pyx was not built")
LANGS = ("en", "es", "fr", "de")
NLP = {lang: spacy.blank(lang) for lang in LANGS}


TABLES = context_tables()


def _rows(table, text, lang="en", sentences=False):
    nlp = NLP[lang]
    doc = nlp.make_doc(text)
    keys = [t.orth for t in doc]
    facts = table.facts_of(keys, doc.vocab.strings.__getitem__)
    starts = [t.idx for t in doc]
    sentence_starts = [i for i, t in enumerate(doc) if t.text == "." and 0 < i + 1 < len(doc)] if sentences else None
    sentence_starts = [i + 1 for i in sentence_starts] if sentence_starts else None
    return TokenRows(text, facts, starts, [t.idx + len(t) for t in doc], sentence_starts, table.gate(*table.known(keys))[2])


def _both(table, rows, targets, ask="read"):
    """What ``CueTable.read`` (or ``marks``) gives with the compiled twin, and with the Python model."""
    scan = table.scan(rows)
    compiled = getattr(table, ask)(rows, scan, targets)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(context, "_reach", None)
        python = getattr(table, ask)(rows, scan, targets)
    return compiled, python


def test_sentence_sets_read_alike():
    marked = 0
    for lang in LANGS:
        with open(ROOT / "tests" / "data" / "context_sentences" / f"{lang}.jsonl", encoding="utf8") as f:
            samples = [json.loads(line) for line in f if line.strip()]
        for sample in samples:
            doc = NLP[lang].make_doc(sample["text"])
            spans = [doc.char_span(t["start_char"], t["end_char"], alignment_mode="expand") for t in sample["targets"]]
            targets = [Target(s.start, s.end) for s in spans if s is not None]
            for table in TABLES:
                for sentences in (False, True):
                    compiled, python = _both(table, _rows(table, sample["text"], lang, sentences), targets)
                    assert compiled == python, sample["text"]
                    marked += sum(r.negation is not None or r.hedge is not None for r in python)
    assert marked > 1000  # the sets negate and hedge many of their targets


WORDS = ["no", "not", "without", "denies", "fever", "cough", "rash", "possible", "likely", "may", "rule", "out",
         "or", "and", "y", "ou", "oder", "but", "however", "which", "sin", "embargo", "no", "negative", "for",
         "Allergies", "HISTORY", "PLAN(s)", ":", ",", ",", ";", ".", "-", "--", "?", "(", ")", "0", "10", "  ", "\n",
         "evidence", "of", "cannot", "exclude", "pas", "de", "kein", "nicht", "sin", "fiebre"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=30), st.data())
def test_generated_texts_read_and_mark_alike(words, data):
    text = " ".join(words)
    for table in TABLES:
        rows = _rows(table, text)
        n = len(rows.facts)
        spans = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 4), st.integers(0, 2)),
                                   min_size=1, max_size=5))
        placed = [(s, min(n, s + k), rows.starts[s] if c else 0, rows.ends[min(n, s + k) - 1] if c else 1, None)
                  for s, k, c in spans]  # c == 0: every such target at the same offsets
        targets = [Target(p[0], p[1]) for p in placed]
        compiled, python = _both(table, rows, targets)
        assert compiled == python, (text, targets)
        compiled, python = _both(table, rows, placed, "marks")
        assert compiled == python, (text, placed)


#: the bits the twin reads of each token's flags (``context.token_flags``): a blank, a break, a conjunction
_BITS = (context._BLANK_BIT, context._BREAK_BIT, context._CONJUNCTION_BIT)


def test_texts_the_twin_does_not_take_stay_python(monkeypatch):
    """A text read through its canonical view (not its own breaks) goes to the Python model; so
    does a text with a target or a cue outside its tokens, which the twin, reading C arrays
    unchecked, refuses (``usable``)."""
    calls = []
    real, made = context._reach.Reach, context._reach.reach
    monkeypatch.setattr(context._reach, "reach", lambda *a: calls.append(1) or made(*a), raising=False)
    table = TABLES[0]
    rows = _rows(table, "no fever\u200b, cough")
    table.read(rows, table.scan(rows), [Target(1, 2)])
    assert calls == []
    rows = _rows(table, "no fever, cough")  # and a plain text does go to the twin
    table.read(rows, table.scan(rows), [Target(1, 2)])
    assert calls == [1]
    rows = _rows(table, "no fever")
    scan = table.scan(rows)
    for targets in ([Target(1, 5)], [Target(-1, 1)], [Target(2, 1)]):
        flags = context.token_flags(rows.facts)
        assert not real(rows, targets, table.clauses, table.scope, scan.cues, flags, *_BITS).usable
        compiled, python = _both(table, rows, targets)
        assert compiled == python
    other = _rows(table, "fever and no cough at all, no")  # cues of another, longer text
    assert not real(rows, [Target(1, 2)], table.clauses, table.scope, table.scan(other).cues,
                    context.token_flags(rows.facts), *_BITS).usable


def test_long_texts_read_alike():
    """Sentences of the sets joined into long texts (more than 64 cue and target pairs, so each
    target asks only the cues of its stretch), with and without sentence starts."""
    pairs = 0
    for lang in LANGS:
        with open(ROOT / "tests" / "data" / "context_sentences" / f"{lang}.jsonl", encoding="utf8") as f:
            samples = [json.loads(line) for line in f if line.strip()]
        for first in range(0, len(samples), 40):
            chunk = samples[first:first + 40]
            text, spans = "", []
            for sample in chunk:
                offset = len(text)
                text += sample["text"] + " "
                spans += [(offset + t["start_char"], offset + t["end_char"]) for t in sample["targets"]]
            doc = NLP[lang].make_doc(text)
            found = [doc.char_span(a, b, alignment_mode="expand") for a, b in spans]
            targets = [Target(s.start, s.end) for s in found if s is not None]
            for table in TABLES:
                for sentences in (False, True):
                    rows = _rows(table, text, lang, sentences)
                    scan = table.scan(rows)
                    if len(scan.cues) * len(targets) > 64:
                        pairs += 1
                    compiled, python = _both(table, rows, targets)
                    assert compiled == python, (lang, first)
    assert pairs > 20  # most of the joined texts take the stretch path


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(list("ab.Z1\u0663_ -,") + ["approx", "e.g", "Dr"]), max_size=8))
def test_word_before_is_the_pattern(parts):
    text = "".join(parts)
    for end in range(len(text) + 1):
        window = text[max(0, end - 8):end]
        assert clauses._word_before(text, end) == window[clauses._RUN_END.search(window).start():]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(["no", "No", "NO", "nevertheless", "sin", "SIN", "embargo", " ", "  ", "\n", "but",
                                 "\u212a", "\u017f", "\u00e9", "x", "obstante", "which", "who", "n"]), max_size=6))
def test_break_words_by_first_character_match_the_whole_pattern(parts):
    text = "".join(parts)
    for rule in (clauses.clause_rule(), clauses.clause_rule(("which", "who"))):
        for start in range(len(text)):
            whole = rule._words.match(text, start)
            cut = rule._word_match(text, start)
            assert (whole and whole.span()) == (cut and cut.span()), (text, start)


def test_texts_read_and_mark_alike_with_random_targets():
    """Every held-out, sentence-set and probe text with targets drawn at random (some of them
    frames with inner words): ``CueTable.read`` and ``CueTable.marks`` give with the compiled
    twin what the Python model gives (``marks``: the values per character offsets, with
    targets that share their offsets, the nearest cue winning, and the cues that applied in
    their order)."""
    rnd = random.Random(5)
    marked = shared = 0
    for text in twin_texts():
        for table in TABLES:
            rows = _rows(table, text)
            n = len(rows.facts)
            if not n:
                continue
            placed = []
            for _ in range(rnd.randint(1, 5)):
                start = rnd.randrange(n)
                end = min(n, start + rnd.randint(1, 4))
                inner = frozenset(range(start, end - 1)) if rnd.random() < 0.2 else None  # a frame's own words
                offsets = (rows.starts[start], rows.ends[end - 1])
                if placed and rnd.random() < 0.3:  # another target at the offsets of an earlier one
                    offsets = placed[rnd.randrange(len(placed))][2:4]
                    shared += 1
                placed.append((start, end, offsets[0], offsets[1], inner))
            targets = [Target(p[0], p[1], p[4]) for p in placed]
            compiled, python = _both(table, rows, targets)
            assert compiled == python, (text, targets)
            compiled, python = _both(table, rows, placed, "marks")
            assert compiled == python, (text, placed)
            marked += len(python.marked)
    assert marked > 1000 and shared > 1000


def test_a_spare_reach_reads_each_text_as_a_new_one():
    """``reach`` sets up a spare ``Reach`` (``done``) for the next text: every text, taken in a
    shuffled order after texts of other lengths, lists, breaks and headers, is read as by a
    ``Reach`` made for it alone; a spare holds no object of the text it read, and one that read
    a text of many thousand tokens is not kept."""
    reach = context._reach
    rnd = random.Random(11)
    texts = twin_texts()[:4000]
    rnd.shuffle(texts)
    table, bits = TABLES[0], (context._BLANK_BIT, context._BREAK_BIT, context._CONJUNCTION_BIT)
    reused = 0
    for text in texts:
        rows = _rows(table, text, sentences=True)
        n, cues = len(rows.facts), table.scan(rows).cues
        if not n or not cues:
            continue
        start = rnd.randrange(n)
        placed = [(start, min(n, start + 2), rows.starts[start], rows.ends[min(n, start + 2) - 1], None)]
        args = (rows, placed, table.clauses, table.scope, cues, context.token_flags(rows.facts)) + bits
        fresh = reach.Reach(*args)
        spare = reach.reach(*args)
        reused += spare is not fresh and type(spare) is reach.Reach
        marks = (placed, False, rows.starts, rows.ends, True, True, True, True, context._zero_count, context._asked)
        assert spare.usable == fresh.usable, text
        if fresh.usable:
            assert spare.marks(*marks) == fresh.marks(*marks), text
        reach.done(spare)
    assert reused > 500
    spare = reach.reach(*args)
    reach.done(spare)
    assert not any(obj is args[0] or obj is args[2] for obj in gc.get_referents(spare))
    assert reach.reach(*args) is spare  # the spare given back is the one set up next
    assert any(obj is args[0] for obj in gc.get_referents(spare))
    long_rows = _rows(table, "no fever, " * 2500)
    big = reach.reach(long_rows, [], table.clauses, table.scope, table.scan(long_rows).cues,
                      context.token_flags(long_rows.facts), *bits)
    reach.done(big)
    assert reach.reach(*args) is not big


def test_flags_of_another_length_are_refused():
    """The compiled loops read the flags unchecked per token, so flags of another text's length
    are a ValueError, not a read past their end."""
    table = TABLES[0]
    rows = _rows(table, "no fever, no cough")
    cues, flags = table.scan(rows).cues, context.token_flags(rows.facts)
    bits = (context._BLANK_BIT, context._BREAK_BIT, context._CONJUNCTION_BIT)
    with pytest.raises(ValueError):
        context._reach.Reach(rows, [Target(1, 2)], table.clauses, table.scope, cues, flags[:-1], *bits)
    with pytest.raises(ValueError):
        context._compiled.scan(rows.facts, flags + b"\0", rows.starts, rows.ends, False, table.longest,
                               context._WORD, context._LONGER, context._SINGLE, context._START_BIT,
                               context._BLANK_BIT)
    assert context._reach.Reach(rows, [Target(1, 2)], table.clauses, table.scope, cues, flags, *bits).usable

"""The compiled loops of the scope model (``core/_scope_loops.pyx``) give exactly what their
Python twins give, on every held-out, sentence-set and probe text and on generated texts full
of the characters the clause rule reads (digits and spaces of other scripts among them); and
the fast header finders give what the header patterns find."""
import random
from itertools import compress, count

import pytest
import spacy
from hypothesis import given, settings, strategies as st

from semgap_spacy.core import clauses, context
from semgap_spacy.core.clauses import _HEADER_COLON, _HEADER_WORDS, _header_colons, _last_word, clause_rule
from tests.twin_texts import context_tables, twin_texts

LOOPS = context._compiled
compiled_only = pytest.mark.skipif(LOOPS is None, reason="core/_scope_loops.pyx was not built")
# the characters the rule reads: break punctuation, digits (ASCII, Arabic-Indic, superscript),
# spaces (ASCII, no-break, line separator, file separator), letters, brackets and colons
ALPHABET = list(",;.!?\u2026\u2014\u2015-\u2013\u2212:()_ \t\n\u00a0\u2028\x1c0123\u0663\u00b2abAZ\u00e9\u00df") + [
    " but ", " however ", " which ", " sin embargo ", " aber ", "approx.", "Dr.", "e.g.", "--",
    # words whose group holds a word with a character outside ASCII: compared in C up to it
    " außer ", " AUSSER ", " aus ", " néanmoins ", " NÉANMOINS ", " ne ", " as ", " a ", " nevertheless ",
    " straße ", " STRAẞE ", " stra ", " \u212aelvin ", " kelvin ", " \u017fo ", " so "]


TEXTS = twin_texts()
NLP = {lang: spacy.blank(lang) for lang in ("en", "es", "fr", "de")}
RULES = [clause_rule(), clause_rule(("which", "who", "although")),  # the packs', and with a profile's words
         # words with characters outside ASCII, some of which the pattern matches to ASCII letters
         clause_rule(("stra\u00dfe", "\u212aelvin", "\u017fo", "kelp", "strand"))]


def _rows(text, lang="en"):
    doc = NLP[lang].make_doc(text)
    return [t.idx for t in doc], [t.idx + len(t) for t in doc]


def _same_breaks(rule, text, lang="en"):
    starts, ends = _rows(text, lang)
    every = range(len(starts))  # every token a candidate: more than the pipe ever asks
    assert LOOPS.breaks_by_token(rule, text, starts, ends, every) == rule._breaks_by_token(text, starts, ends, every)


def test_the_texts_are_many_and_varied():
    assert len(TEXTS) > 10_000
    assert sum(not t.isascii() for t in TEXTS) > 500


@compiled_only
@pytest.mark.parametrize("lang", ["en", "es", "fr", "de"])
def test_breaks_by_token_on_every_text(lang):
    for rule in RULES:
        for text in TEXTS:
            _same_breaks(rule, text, lang)


@compiled_only
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=40))
def test_breaks_by_token_on_generated_text(parts):
    text = "".join(parts)
    for rule in RULES:
        _same_breaks(rule, text)


@compiled_only
@settings(max_examples=1500, deadline=None)
@given(st.integers(0, 30), st.data())
def test_segment_matches_its_python_twin(n, data):
    breaks = sorted(data.draw(st.dictionaries(st.integers(0, max(n - 1, 0)), st.booleans(), max_size=n)).items())
    breaks = [b for b in breaks if b[0] < n]
    boundaries = data.draw(st.lists(st.integers(0, n + 2), max_size=6))
    assert clauses.segment(n, breaks, boundaries) == clauses._segment(n, breaks, boundaries)


def _facts_of(text, table):
    doc = NLP["en"].make_doc(text)
    keys = [t.orth for t in doc]
    return table.facts_of(keys, doc.vocab.strings.__getitem__), [1 if t.whitespace_ else 0 for t in doc]


@compiled_only
def test_word_loops_match_their_python_twins(monkeypatch):
    table = context_tables()[1]
    rnd = random.Random(7)
    cases = []
    for text in TEXTS[::7]:
        facts, spaces = _facts_of(text, table)
        clause_of = [rnd.randint(-1, 3) for _ in facts]
        cases.append((facts, spaces, clause_of))
    fields = (context._WORD, context._STARTS_CUE, context._BREAKISH, context._CONJUNCTION, context._ZERO)
    compiled = [([context._where(f, k) for k in fields], context.joined_text(f, s), context._clause_words(f, c, 4))
                for f, s, c in cases]
    monkeypatch.setattr(context, "_compiled", None)
    python = [([context._where(f, k) for k in fields], context.joined_text(f, s), context._clause_words(f, c, 4))
              for f, s, c in cases]
    assert compiled == python
    # and the Python twins say what the fields say
    facts = cases[0][0]
    assert python[0][0][0] == list(compress(count(), (bool(f.word) for f in facts)))


def test_compiled_loops_read_facts_that_are_not_tuples():
    if LOOPS is None:
        pytest.skip("core/_scope_loops.pyx was not built")
    facts = [["a", "", 0], ["b", "x", 1]]
    assert LOOPS.where(facts, 1) == [1] and LOOPS.where(facts, 2) == [1]
    assert LOOPS.joined([["x", "a"], ["y", "b"]], [1, 0], 1) == "a b"


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(list("aZ()x \t:\n\r\x1c1_\u0663\u00b2\u00e9\u00df-./&'\u2028\u00a0")), max_size=16))
def test_header_colons_are_the_pattern_matches(chars):
    text = "".join(chars)
    assert list(_header_colons(text)) == [m.start() for m in _HEADER_COLON.finditer(text)]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(list("aZ()x \t:\n\r\x1c1_\u0663\u00b2\u00e9\u00df-./&'\u2028\u00a0")), max_size=14),
       st.data())
def test_last_word_is_the_pattern_search(chars, data):
    text = "".join(chars)
    end = data.draw(st.integers(0, len(text)))
    i = end - 1 if text.endswith("\n", 0, end) else end  # where the pattern's search may start
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    m = _HEADER_WORDS.search(text, i, end)
    assert _last_word(text, end) == ((m.start(1), m.group(1)) if m else None)


@compiled_only
def test_scan_matches_its_python_twin(monkeypatch):
    tables = context_tables()
    rows = []
    for text in TEXTS + ["no  evidence   of fever", "no\n\nevidence of   x", "non-tender", "is not - ruled out"]:
        doc = NLP["en"].make_doc(text)
        keys = [t.orth for t in doc]
        for table in tables:
            facts = table.facts_of(keys, doc.vocab.strings.__getitem__)
            spaced = table.gate(*table.known(keys))[2]
            rows.append((table, context.TokenRows(text, facts, [t.idx for t in doc],
                                                  [t.idx + len(t) for t in doc], None, spaced)))
    compiled = [table.scan(r) for table, r in rows]
    monkeypatch.setattr(context, "_compiled", None)
    python = [table.scan(r) for table, r in rows]
    assert compiled == python
    assert sum(bool(s.cues) for s in python) > 1000  # the texts hold cues


@compiled_only
def test_headers_match_their_python_twin(monkeypatch):
    texts = TEXTS + ["POSTOPERATIVE DIAGNOSIS: none", "Past medical history: asthma", "Plan(s): x", "a ab(cde): b"]
    compiled = [clauses.ClauseRule.headers(t) for t in texts]
    monkeypatch.setattr(clauses, "_compiled", None)
    assert compiled == [clauses.ClauseRule.headers(t) for t in texts]


@compiled_only
@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(list("aAbZ()x \t:\n\r\x1c1_\u0663\u00b2\u00e9\u00c9\u00df-./&'\u2028\u00a0")
                                + ["DIAGNOSIS", "Past", "medical", "history", "CHEST", "Plan(s)", "ab(cde)"]),
                max_size=14))
def test_headers_on_generated_text(parts):
    text = "".join(parts)
    found = (clauses._header_start(text, c) for c in clauses._header_colons(text))
    assert LOOPS.headers(text) == sorted({s for s in found if s >= 0})


@compiled_only
def test_rows_that_do_not_fit_the_text_raise_as_the_python_twin_does():
    rule = RULES[0]
    for starts, ends in (([0, 5], [1, 9]), ([0, 1], [1, 3])):
        with pytest.raises(IndexError):
            rule._breaks_by_token("ab", starts, ends, [1])
        with pytest.raises(IndexError):
            LOOPS.breaks_by_token(rule, "ab", starts, ends, [1])
    with pytest.raises(IndexError):
        LOOPS.clause_words([("a", "a")], [3], 2, 1)
    with pytest.raises(IndexError):
        LOOPS.where([("a",)], 5)


def test_the_gate_reads_the_facts_it_is_made_of(monkeypatch):
    """``CueTable.gate``, from the words' gate bits: a cue can match exactly when a word is a cue
    by itself or a zero, or a longer cue's key word has all its other words among the
    ``longest - 1`` words before it and after it (read here from the facts' own fields, the
    whitespace tokens left out); a question mark and a blank token as the facts say; compiled
    and in Python alike. It never drops a text the scan finds a cue in, and keeps out many."""
    tables = context_tables()
    opened = {True: 0, False: 0}
    for python in (False, True):
        if python:
            monkeypatch.setattr(context, "_compiled", None)
        for text in TEXTS + ["is ruled out", "ruled it out", "as is", "as  is", "as good as it is", "x ? y",
                             "¿Qué? no", "0 of 3", "a\n\nb", "( )", "( see below )", "[ ] done", "[ done ]"]:
            doc = NLP["en"].make_doc(text)
            keys = [t.orth for t in doc]
            for table in tables:
                facts = table.facts_of(keys, doc.vocab.strings.__getitem__)
                words = [f for f in facts if f.word]
                reach = table.longest - 1
                may_cue = any(f.sure or f.zero for f in facts) or any(
                    need <= {g.word for g in words[max(0, p - reach):p] + words[p + 1:p + 1 + reach]}
                    for p, f in enumerate(words) for need in f.needs)
                asked = any(f.mark in ("?", "\u00bf") for f in facts)
                spaced = any(not f.word for f in facts)
                gate = table.gate(*table.known(keys))
                assert gate == (may_cue, asked, spaced), text
                watched = any(f.sure or f.zero or f.needs or f.mark in ("?", "\u00bf") for f in facts)
                assert table.quiet(keys) == (not watched), text
                rows = context.TokenRows(text, facts, [t.idx for t in doc], [t.idx + len(t) for t in doc], None,
                                         spaced)
                assert gate[0] or not table.scan(rows).cues, text
                opened[gate[0]] += 1
    assert min(opened.values()) > 1000  # texts the gate opens for and texts it keeps out


def test_token_flags_say_what_the_facts_say(monkeypatch):
    """The compiled loops read a token's flags (``context.token_flags``) rather than its facts:
    each bit is the field it stands for, for every token of every text, compiled and in Python."""
    tables = context_tables()
    seen = {bit: 0 for bit in (context._BLANK_BIT, context._START_BIT, context._BREAK_BIT,
                               context._CONJUNCTION_BIT, context._KEY_BIT)}
    answers = []
    for text in TEXTS[:3000]:
        doc = NLP["en"].make_doc(text)
        for table in tables:
            facts = table.facts_of([t.orth for t in doc], doc.vocab.strings.__getitem__)
            flags = context.token_flags(facts)
            answers.append((facts, flags))
            assert type(flags) is bytes and len(flags) == len(facts)
            for f, flag in zip(facts, flags):
                assert bool(flag & context._BLANK_BIT) == (not f.word)
                assert bool(flag & context._START_BIT) == f.starts_cue
                assert bool(flag & context._BREAK_BIT) == f.breakish
                assert bool(flag & context._CONJUNCTION_BIT) == f.conjunction
                assert bool(flag & context._KEY_BIT) == bool(f.needs)
                for bit in seen:
                    seen[bit] += bool(flag & bit)
    assert min(seen.values()) > 10
    monkeypatch.setattr(context, "_compiled", None)
    assert all(context.token_flags(facts) == flags for facts, flags in answers)


def _NEEDS_ARGS(table):
    return context._NEEDS_AT, context._WORD, table.longest - 1, context._KEY_BIT, context._BLANK_BIT


@compiled_only
def test_needs_met_matches_its_python_twin(monkeypatch):
    tables = context_tables()
    met, answers = 0, []
    for text in TEXTS:
        doc = NLP["en"].make_doc(text)
        for table in tables:
            facts = table.facts_of([t.orth for t in doc], doc.vocab.strings.__getitem__)
            compiled = LOOPS.needs_met(facts, context.token_flags(facts), *_NEEDS_ARGS(table))
            answers.append((table, facts, compiled))
            met += compiled
    monkeypatch.setattr(context, "_compiled", None)
    for table, facts, compiled in answers:
        assert table._needs_met(facts) == compiled, [f.text for f in facts]
        # a longer cue's words are the objects its needs hold; equal copies read the same
        assert all(f.word is table._rest_words[f.word] for f in facts if f.rest)
        copies = [f._replace(word="".join(list(f.word))) for f in facts]
        assert LOOPS.needs_met(copies, context.token_flags(copies), *_NEEDS_ARGS(table)) == compiled
    assert 100 < met < len(answers) - 100


def test_known_facts_match_their_python_twin(monkeypatch):
    """``CueTable.known``: each key's facts with their gate bits or-ed, or None as soon as one key
    is not learned; compiled and in Python alike."""
    table = context_tables()[0]
    keyed = []
    for text in TEXTS[:3000]:
        doc = NLP["en"].make_doc(text)
        keys = [t.orth for t in doc]
        if len(keyed) % 3:
            table.learn(keys, doc.vocab.strings.__getitem__)
        keyed.append(keys + [doc.vocab.strings.add("never-learned-%d" % len(keyed))] * (len(keyed) % 5 == 0))
    compiled = [table.known(keys) for keys in keyed]
    monkeypatch.setattr(context, "_compiled", None)
    assert compiled == [table.known(keys) for keys in keyed]
    assert 0 < sum(c is None for c in compiled) < len(compiled)
    if LOOPS is not None:
        with pytest.raises(TypeError):
            LOOPS.known_facts([1], [], context.GATE_BITS_AT)

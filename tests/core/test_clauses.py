"""The one clause rule, on plain text (spec §4: a cue or quantity belongs to its own clause)."""
import pytest
from hypothesis import given, settings, strategies as st

from semgap_spacy.core.clauses import ClauseRule, clause_rule


@pytest.mark.parametrize("text,broken", [
    ("crossmatch result: positive", False),   # a colon is no break
    ("crossmatch, positive", True),
    ("25,5 h", False),                        # a decimal comma
    ("crossmatch; positive", True),
    ("crossmatch - positive", True),          # a spaced hyphen separates
    ("cross-match positive", False),          # an unspaced one joins
    ("2-8 C", False),
    ("crossmatch — positive", True),
    ("crossmatch\npositive", False),         # a line break is whitespace (spec §4.1)
    ("crossmatch,\u200b positive", True),
    ("crossmatch bu\u200bt positive", True), # a format character hides no break word
    ("crossmatch. Positive", True),
    ("CIT approx. 30 h", False),              # an abbreviation's full stop
    ("46.4 F", False),                        # a decimal point
    ("crossmatch but positive", True),
    ("crossmatch pero positive", True),
    ("crossmatch aber positive", True),
    ("crossmatch mais positive", True),
    ("crossmatch butter positive", False),    # whole words only
])
def test_clause_breaks(text, broken):
    assert clause_rule().break_between(text, 0, len(text)) is broken


def test_breaks_are_character_ranges_into_the_text():
    text = "no delays, crossmatch positive; but fine"
    assert [text[a:b] for a, b in clause_rule().breaks(text)] == [",", ";", "but"]


def test_a_rule_with_its_own_words():
    rule = ClauseRule(["zut"], ["ca"])
    assert rule.break_between("a zut b", 0, 7)
    assert not rule.break_between("ca. 30 h", 0, 8)
    assert rule.break_between("a but b", 0, 7) is False


# -- lists, segments, headers, and the token face of the rule ----------------
from semgap_spacy.core.clauses import list_end, same_breaks, segment  # noqa: E402


def test_segment_numbers_clauses_and_comma_gaps():
    # tokens: a b , c d ; e | f  (a boundary before token 7)
    segments = segment(8, [(2, True), (5, False)], [7])
    assert segments.clause_of == [0, 0, -1, 1, 1, -1, 2, 3]
    assert segments.comma_after == [True, False, False, False]
    # a boundary at the very start, a run of breaks (", but") is one gap that is no comma
    assert segment(6, [(1, True), (2, False)], [0]).clause_of == [0, -1, -1, 1, 1, 1]
    assert segment(4, [], []).clause_of == [0, 0, 0, 0]


@pytest.mark.parametrize("conj,comma,clause,kwargs,expected", [
    # spec §4: "no A, B or C": the cue's clause opens a list closed by the conjunction
    ([False, False, True], [True, True, False], 0, {}, 2),
    # "no A, B": no conjunction, the comma ends the scope
    ([False, False], [True, False], 0, {}, 0),
    # "no A or B, C, D or E": the cue's clause holds a conjunction: the spec keeps the cue there ...
    ([True, False, True], [True, True, False], 0, {}, 0),
    # ... a clinical profile may let it open the list
    ([True, False, True], [True, True, False], 0, {"open_start": True}, 2),
    # "no A; B or C": a semicolon is no list
    ([False, True], [False, False], 0, {}, 0),
    # "no rashes, lesions, ulcers.": short items without a conjunction, when asked for
    ([False, False, False], [True, True, False], 0, {"item_words": [2, 1, 1], "short_items": 3}, 2),
    ([False, False, False], [True, True, False], 0, {"item_words": [2, 1, 5], "short_items": 3}, 0),
    ([False, False, False], [True, True, False], 0, {}, 0),
])
def test_list_end(conj, comma, clause, kwargs, expected):
    assert list_end(comma, conj, clause, **kwargs) == expected


@pytest.mark.parametrize("text,headers", [
    ("Complications: None   POSTOPERATIVE DIAGNOSIS: pneumonia", ["Complications", "POSTOPERATIVE DIAGNOSIS"]),
    ("Allergies: none known   Past medical history: hypertension", ["Allergies", "Past medical history"]),
    ("COMPLICATIONS: None POSTOPERATIVE DIAGNOSIS(ES): 1) HEMORRHOIDS", ["COMPLICATIONS", "POSTOPERATIVE DIAGNOSIS(ES)"]),
    ("crossmatch result: positive", []),       # lower case: a label inside a clause, not a header
    ("departure at 14:00 today", []),
    ("No edema Temp: 37.2", ["Temp"]),
])
def test_section_headers(text, headers):
    starts = ClauseRule.headers(text)
    assert [text[s:text.index(":", s)].rstrip() for s in starts] == headers


def _tokens(text):
    """Whitespace and punctuation tokens with offsets, the way a tokenizer splits them."""
    import re
    found = [(m.start(), m.end()) for m in re.finditer(r"\w+(?:[-'.]\w+)*\.?|[^\w\s]|\s+", text)]
    return [s for s, _ in found], [e for _, e in found]


def _token_sentences():
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "data" / "context_sentences"
    for lang in ("en", "es", "fr", "de"):
        for line in (root / f"{lang}.jsonl").read_text(encoding="utf8").splitlines():
            yield json.loads(line)["text"]
    yield from ["no delays, crossmatch positive; but fine", "No fever -- chills... approx. 30 h, 25,5 h",
                "crossmatch  -  positive\nsin embargo listo", "e.g. fever, i.e. chills, Dr. Who",
                # a comma or a full stop alone as a token, beside digits, abbreviations and break words
                "25 ,5 h , 3 ,4 ; x 2, 3 . approx . 4 .", "NO OBSTANTE, listo; No obstante. nota", "No , no.",
                "Lote 3.4 .5 ; ca. . ok!", "x; ... y ?! z …"]


def test_the_token_face_finds_the_breaks_of_the_text_face():
    rule = clause_rule()
    for text in _token_sentences():
        if not same_breaks(text):
            continue
        starts, ends = _tokens(text)
        candidates = [i for i in range(len(starts)) if rule.token_candidate(text[starts[i]:ends[i]])]
        by_text = {i for s, e in rule.breaks(text) for i in range(len(starts)) if starts[i] < e and s < ends[i]}
        by_tokens = {i for i, _ in rule.token_breaks(text, starts, ends, candidates)}
        assert by_tokens == by_text, text


def test_ascii_text_has_the_breaks_of_its_view():
    rule = clause_rule()
    text = "No fever,  chills\n\nbut cough.\t Done -  ok"
    assert same_breaks(text)
    assert rule.breaks(text) == rule._view_breaks(text)


def test_breaks_of_the_same_text_asked_again_are_the_same_and_a_copy():
    rule = clause_rule()
    text = "No delays, crossmatch positive; box 4 C. Released"
    first = rule.breaks(text)
    first.append((0, 0))  # a caller's own list: the kept answer is not touched
    assert rule.breaks(text) == first[:-1] == [(9, 10), (30, 31), (39, 40)]
    assert rule.breaks(text, 0, 20) == [(9, 10)]  # another range is worked out, not taken from the last
    assert rule.breaks("a, b") == [(1, 2)]
    assert rule.breaks(text) == first[:-1]


def _cuts(text, seed):
    """Token starts of ``text`` cut at arbitrary places, as a tokenizer of someone else's might."""
    import random
    rng = random.Random(seed)
    return sorted({0, *rng.sample(range(1, len(text)), min(len(text) - 1, 4))}) if len(text) > 1 else [0]


def test_breaks_read_where_a_break_may_begin_are_the_breaks_of_the_text():
    rule = clause_rule()
    texts = list(_token_sentences()) + [
        "x.but fine", "a-but b", "SIN EMBARGO listo", "crossmatch butter positive", "no obstante, nada",
        "CIT approx. 30 h; 25,5 h -- ok", "mientras\tque no", "aber... ja", "ca. 2 - 8 °C, sonst nichts",
        "fever,\u200b but", "sin\u00a0embargo", "", " , ", "but", "butbut but"]
    for text in texts:
        expected = rule.breaks(text)
        for starts in [_tokens(text)[0], _cuts(text, 1), _cuts(text, 2)]:
            ends = starts[1:] + [len(text)]
            found = rule.breaks_at(text, starts, [rule.break_starts(text[s:e]) for s, e in zip(starts, ends)])
            assert found == expected, (text, starts)


def test_a_break_may_begin_only_at_break_punctuation_or_a_break_word():
    rule = clause_rule()
    assert rule.break_starts("crossmatch") == rule.break_starts("embargo") == ()
    assert rule.break_starts(",") == rule.break_starts("but") == rule.break_starts("Sin") == (0,)
    assert rule.break_starts("x.but") == (1, 2)  # a full stop, and a break word glued after it
    assert rule.break_starts("mien") == (0,)  # "mientras que" may run on into the next tokens


def _first_break_opens(rule, text, start):
    """``ClauseRule.starts_in_break`` as every break of the rest reads it."""
    rest = text[start:]
    cut = rule.breaks(rest)
    return not rest[:cut[0][0] if cut else len(rest)].strip()


def _last_break_closes(rule, text, end):
    """``ClauseRule.ends_in_break`` as every break of the head reads it."""
    head = text[:end]
    cut = rule.breaks(head)
    return not head[cut[-1][1] if cut else 0:].strip()


# pieces whose breaks depend on what stands around them: abbreviations before a full stop, a
# decimal comma, digits on either side, spaced and glued dashes, break words of two words with
# any whitespace between, word edges, an ellipsis, a line break, a non-ASCII text
_PIECES = ["approx", "ca", "e.g", ".", ". ", ",", "25,5", ", ", ";", " - ", "-", "--", "—", "2-8", "by 18:00",
           "18", "7", " ", "  ", "\n", "\t", "but", "butter", "sin", "embargo", "sin embargo", "sin\n embargo",
           "mientras", "que", "even though", "x.but", "...", "…", "clear to close", "Lot", "é", "°C", "!", "?"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14), st.data())
def test_the_break_before_or_after_a_place_is_read_as_every_break_of_the_text_reads_it(pieces, data):
    rule = clause_rule()
    text = "".join(pieces)
    place = data.draw(st.integers(0, len(text)))
    assert rule.starts_in_break(text, place) == _first_break_opens(rule, text, place), (text, place)
    assert rule.ends_in_break(text, place) == _last_break_closes(rule, text, place), (text, place)


def test_the_break_before_or_after_each_place_of_texts_with_digits_and_abbreviations():
    rule = clause_rule()
    texts = ["Clear to close, by 18:00. Clear to close, by 18:00.", "By 18:00 - clear to close. By 19:00 -",
             "CIT approx. 30 h; 25,5 h -- ok, by 2. ", "Lot 4 e.g. 5 sin embargo 6 , ", "12 ca. 3 ... 4 -- 5",
             "by 18:00\n\n- clear", "ok 2.\t3 , but 4 but"]
    for text in texts:
        for place in range(len(text) + 1):
            assert rule.starts_in_break(text, place) == _first_break_opens(rule, text, place), (text, place)
            assert rule.ends_in_break(text, place) == _last_break_closes(rule, text, place), (text, place)

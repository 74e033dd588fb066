"""The canonical reading (spec §4.1, "What the text is"): text view, token reading, offsets back."""
import random
import re
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from semgap_spacy.core.textview import (STACKED, STRUCK, TextView, digit_spellings, is_ignorable, read_text, read_token,
                                        reads_as_itself)
from tests.perturb import FAMILIES, HOMOGLYPHS, perturb, perturbations

# The texts of issue 11 that proceed today, with what a person reads in them.
ISSUE_TEXTS = [
    ("Clear to close. unreleased  lien", "Clear to close. unreleased lien"),
    ("Clear to close. unreleased\tlien", "Clear to close. unreleased lien"),
    ("Clear to close. unreleased\nlien", "Clear to close. unreleased lien"),
    ("Clear to close. unreleased\r\n lien", "Clear to close. unreleased lien"),
    ("Clear to close. unreleased\xa0lien", "Clear to close. unreleased lien"),
    ("Clear to close. unreleased\u202flien", "Clear to close. unreleased lien"),
    ("Clear to close. unreleased\u3000lien", "Clear to close. unreleased lien"),
    ("Clear to close. unreleased\u2028lien", "Clear to close. unreleased lien"),
    ("File is not\nclear to close", "File is not clear to close"),
    ("File is n\u200bot clear to close", "File is not clear to close"),
    ("File is n\u00adot clear to close", "File is not clear to close"),
]

FORMAT_CHARS = ["\u200b", "\u200c", "\u200d", "\u00ad", "\u2060", "\ufeff", "\u200e", "\u200f",
                "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
                "\ufe00", "\ufe0f", "\U000e0100", "\u034f", "\u180e", "\U000e0041"]


@pytest.mark.parametrize("original,view", ISSUE_TEXTS)
def test_issue_texts_read_as_a_person_reads_them(original, view):
    assert read_text(original).text == view


@pytest.mark.parametrize("ch", FORMAT_CHARS)
@pytest.mark.parametrize("where", ["inside", "before", "after", "alone_between"])
def test_format_characters_and_variation_selectors_are_ignored(ch, where):
    text = {"inside": f"File is n{ch}ot clear", "before": f"File is {ch}not clear",
            "after": f"File is not{ch} clear", "alone_between": f"File is not {ch} clear"}[where]
    view = read_text(text)
    assert view.text == "File is not clear"
    start = view.text.index("not")
    s, e = view.original_range(start, start + 3)
    # The span is the word as written, invisible character included when inside it.
    assert text[s:e].replace(ch, "") == "not"
    assert is_ignorable(ch)


@pytest.mark.parametrize("ws", [" ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u1680",
                                "\u2000", "\u2007", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000",
                                " \n\t \u3000 "])
def test_every_whitespace_run_is_one_space_covering_the_run(ws):
    text = f"unreleased{ws}lien"
    view = read_text(text)
    assert view.text == "unreleased lien"
    assert view.original_range(10, 11) == (10, 10 + len(ws))
    assert view.original_text(11, 15) == "lien"


@pytest.mark.parametrize("text,view,spans", [
    ("\ufb01le", "file", [(0, 1), (0, 1), (1, 2), (2, 3)]),            # ligature: one char, two view chars
    ("\u00bd h", "1\u20442 h", [(0, 1), (0, 1), (0, 1), (1, 2), (2, 3)]),  # vulgar fraction: three
    ("\uff13\uff10 h", "30 h", [(0, 1), (1, 2), (2, 3), (3, 4)]),          # fullwidth digits
    ("cafe\u0301 ok", "caf\u00e9 ok", [(0, 1), (1, 2), (2, 3), (3, 5), (5, 6), (6, 7), (7, 8)]),
    ("\u338f", "kg", [(0, 1), (0, 1)]),                                   # square kg
    ("\u1100\u1161", "\uac00", [(0, 2)]),                                 # Hangul jamo compose across starters
    ("x\u2126", "x\u03a9", [(0, 1), (1, 2)]),                             # ohm sign
])
def test_nfkc_length_changes_map_back_exactly(text, view, spans):
    v = read_text(text)
    assert v.text == view
    assert [v.original_range(i, i + 1) for i in range(len(v.text))] == spans


def test_regex_on_the_view_yields_spans_into_the_original():
    text = "cold\u00a0ischemia \uff13\uff10\u200b  hours, ok"
    view = read_text(text)
    match = re.search(r"cold ischemia (\d+) hours", view.text)
    s, e = view.original_range(*match.span())
    assert text[s:e] == "cold\u00a0ischemia \uff13\uff10\u200b  hours"
    s, e = view.original_range(*match.span(1))
    assert text[s:e].rstrip("\u200b") == "\uff13\uff10"


def test_fast_path_is_the_text_itself():
    text = "Clear to close, thanks all."
    view = read_text(text)
    assert view.is_identity and view.text is text
    assert view.original_range(3, 9) == (3, 9)


def test_empty_and_invisible_only_texts():
    assert read_text("").text == ""
    view = read_text("\u200b\u200d")
    assert view.text == "" and view.original_range(0, 0) == (2, 2)
    assert read_text(" \u200b ").text == " "


@pytest.mark.parametrize("bad", [(-1, 2), (2, 1), (0, 99), (0.0, 1)])
def test_out_of_view_ranges_are_refused(bad):
    with pytest.raises(ValueError):
        read_text("n\u200bot here").original_range(*bad)
    with pytest.raises(ValueError):
        read_text("not here").original_range(*bad)


@pytest.mark.parametrize("bad", [None, b"bytes", 3, ["a"]])
def test_non_text_is_a_clear_error(bad):
    with pytest.raises(TypeError):
        read_text(bad)
    with pytest.raises(TypeError):
        read_token(bad)


# ---- token reading -----------------------------------------------------------------------------

@pytest.mark.parametrize("raw,canonical,offending", [
    ("A\u043eG", "AoG", ["U+043E"]),                          # issue 11: Cyrillic о in AOG
    ("\u0441l\u0435\u0430r", "clear", ["U+0441", "U+0435", "U+0430"]),
    ("\u0421RS", "CRS", ["U+0421"]),
    ("p\u03bfsitive", "positive", ["U+03BF"]),                # Greek omicron
    ("X\u0406X", "XIX", ["U+0406"]),                          # a capital stays a capital
    ("cr\u043essm\u0430tch", "crossmatch", ["U+043E", "U+0430"]),
    ("x\u03f2x", "xcx", ["U+03F2"]),                          # lunate sigma: mapped before NFKC
    ("A\u0436", "A\u0436", ["U+0436"]),                       # no Latin look-alike: kept, still named
])
def test_mixed_script_word_reads_as_its_latin_skeleton_and_is_suspicious(raw, canonical, offending):
    reading = read_token(raw)
    assert reading.canonical == canonical
    assert [c.code_point for c in reading.suspicious] == offending
    for c in reading.suspicious:
        assert raw[c.offset] == c.char and c.name == unicodedata.name(c.char) and c.script != "LATIN"


@pytest.mark.parametrize("raw", ["\u041c\u043e\u0441\u043a\u0432\u0430", "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
                                 "\u65e5\u672c\u8a9e\u3072\u3089\u304c\u306a", "\ud55c\uad6d\uc5b4", "5\u00b5g", "10k\u2126",
                                 "s\u00ed", "caf\u00e9", "Gr\u00fc\u00dfe", "\u00e9preuve", "30\u00b0C"])
def test_single_script_words_are_not_suspicious(raw):
    reading = read_token(raw)
    assert reading.suspicious == ()
    assert reading.canonical == unicodedata.normalize("NFKC", raw)


def test_accents_are_kept_so_si_and_si_accented_differ():
    assert read_token("s\u00ed").canonical != read_token("si").canonical
    assert read_token("si\u0301").canonical == "s\u00ed"     # decomposed reads as composed


@pytest.mark.parametrize("raw,canonical", [("n\u200bot", "not"), ("\ufb01le", "file"), ("\uff21\uff2f\uff27", "AOG"),
                                           ("clear\u00ad", "clear"), ("ok\ufe0f", "ok")])
def test_token_reading_drops_ignorables_and_applies_nfkc(raw, canonical):
    assert read_token(raw) == (canonical, ())


def test_ascii_token_is_itself():
    assert read_token("close").canonical == "close" and not read_token("close").is_suspicious


# ---- properties --------------------------------------------------------------------------------

_texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_texts, st.data())
def test_view_ranges_always_land_inside_the_original(text, data):
    view = read_text(text)
    start = data.draw(st.integers(0, len(view.text)))
    end = data.draw(st.integers(start, len(view.text)))
    s, e = view.original_range(start, end)
    assert 0 <= s <= e <= len(text)
    if start < end:
        assert s < e  # a view character always comes from at least one original character


def _reference(text: str) -> str:
    """The spec's reading written the slow, obvious way."""
    kept = "".join(c for c in text if not is_ignorable(c))
    normal = "".join(c for c in unicodedata.normalize("NFKC", kept) if not is_ignorable(c))
    return re.sub(r"\s+", " ", normal)


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_view_is_nfkc_without_ignorables_and_single_spaces(text):
    view = read_text(text)
    assert view.text == _reference(text)
    assert "  " not in view.text and not any(ch.isspace() and ch != " " for ch in view.text)
    # Reading the view again changes nothing.
    assert read_text(view.text).text == view.text


@settings(max_examples=300, deadline=None)
@given(_texts)
def test_view_characters_map_in_order(text):
    view = read_text(text)
    spans = [view.original_range(i, i + 1) for i in range(len(view.text))]
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(spans, spans[1:]))


_ascii_word = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7e), min_size=1, max_size=10)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ascii_word, max_size=8))
def test_canonical_ascii_text_is_itself(words):
    text = " ".join(words)
    view = read_text(text)
    assert view.text == text and view.is_identity
    assert all(read_token(w) == (w, ()) for w in words)


_SENTENCES = ["File is not clear to close", "Clear to close. unreleased lien", "CRS signed, AOG",
              "crossmatch result: positive", "Charge freigegeben", "prueba cruzada positiva"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_SENTENCES).flatmap(lambda s: st.tuples(st.just(s), perturbations(s, ("whitespace", "format")))))
def test_invisible_edits_leave_the_view_unchanged(pair):
    sentence, perturbed = pair
    assert read_text(perturbed.text).text == sentence, perturbed.edits


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_SENTENCES).flatmap(lambda s: st.tuples(st.just(s), perturbations(s, ("homoglyph",)))))
def test_look_alike_swaps_are_suspicious_and_read_back(pair):
    sentence, perturbed = pair
    # Tokens are read from the text as written: NFKC of the whole text would
    # already have turned GREEK LUNATE SIGMA SYMBOL into a final sigma.
    words = perturbed.text.split(" ")
    readings = [read_token(w) for w in words]
    changed = [r for w, r, orig in zip(words, readings, sentence.split(" ")) if w != orig]
    assert changed and all(r.is_suspicious for r in changed), perturbed.edits
    # Every swap in the perturbation table has a Latin look-alike in Unicode's
    # data except Greek chi, whose TR39 prototype is LATIN SMALL LETTER CHI.
    if "\u03c7" not in perturbed.text:
        assert [r.canonical for r in readings] == sentence.split(" "), perturbed.edits


def test_perturbations_change_the_text_and_are_tagged():
    rng = random.Random(5)
    for family in FAMILIES:
        done = perturb("File is not clear to close", family, rng)
        assert done is not None and done.text != "File is not clear to close" and done.family == family
    assert perturb("crossmatch", "whitespace", rng) is None
    with pytest.raises(ValueError):
        perturb("x", "nonsense", rng)
    assert all(len(k) == 1 and k.isascii() for k in HOMOGLYPHS)


@pytest.mark.parametrize("token, readings", [
    ("gr0unded", ("grounded",)),
    ("fai1ed", ("faiied", "failed")),
    ("A0G.", ("aog",)),                 # punctuation the tokenizer left on is no part of the word
    ("N123AB", ("nizeab", "nlzeab")),   # a reading; whether it is a word is the caller's question
    ("0OS", ("oos",)),                  # a digit may stand first
    ("1st", ("ist", "lst")),            # readings only: "1st" is no word, so it stays an ordinal
    ("x2", ()), ("B737", ()), ("LOT-42", ()), ("airworthy", ()), ("ab\u00b2c", ()),  # one letter, or no digit
    ("a1b1c1d1e1f", ()),                # more than 16 readings: an identifier
])
def test_digit_spellings_read_digits_as_the_letters_they_look_like(token, readings):
    assert digit_spellings(token) == readings


def test_a_strike_through_overlay_is_suspicious_and_the_word_reads_as_its_letters():
    reading = read_token("ok\u0336")
    assert reading.canonical == "ok\u0336" and [c.script for c in reading.suspicious] == [STRUCK]
    assert reading.suspicious[0].offset == 2
    assert not read_token("ok\u0301").suspicious  # an accent is no overlay


@pytest.mark.parametrize("token, offsets", [
    ("Cle\u0301\u0301\u0301ar", [5]),  # three marks on one letter: the third is one too many
    ("Cl\u00e9\u0301\u0301ar", [4]),  # a precomposed letter's own mark counts
    ("e" + "\u0301" * 6, [3, 4, 5, 6]),
    ("e" + "\u0301\u200d" * 3, [5]),  # a joiner between the marks draws nothing: they pile up still
    ("e" + "\u0301\u00ad" * 3, [5]),  # a soft hyphen
])
def test_marks_piled_on_a_letter_are_suspicious(token, offsets):
    reading = read_token(token)
    assert [c.offset for c in reading.suspicious] == offsets
    assert {c.script for c in reading.suspicious} == {STACKED}


@pytest.mark.parametrize("token", ["Cl\u00e9ar", "Nguy\u1ec5n", "Nguye\u0302\u0303n", "\u00e9\u0301"])
def test_two_marks_on_a_letter_are_not_suspicious(token):
    # Vietnamese writes two on one letter ("ễ": a circumflex and a tilde)
    assert not read_token(token).suspicious


def test_reads_as_itself_answers_for_each_text_though_it_keeps_the_last():
    # the last non-ASCII text's answer is kept: texts asked in turn, and again, each get their own
    texts = ["prueba cruzada negativa", "File is n\u200bot clear to close", "excursión", "excursio\u0301n",
             "7 °C", "Charge  freigegeben é", "excursión", "File is n\u200bot clear to close"]
    expected = [True, False, True, False, True, False, True, False]
    for _ in range(2):
        assert [reads_as_itself(t) for t in texts] == expected
        assert [reads_as_itself(t) for t in reversed(texts)] == expected[::-1]

"""spaCy's stop-word lists, read without importing (and so building) their language."""
import subprocess
import sys

from semgap_spacy.util.spacy_lists import spacy_stop_words

_FRESH = """
import sys
from semgap_spacy.util.spacy_lists import spacy_stop_words
ours = {lang: spacy_stop_words(lang) for lang in ("en", "es", "fr", "de")}
built = sorted(name for name in sys.modules if name.split(".")[:3] in (["spacy", "lang", x] for x in ours))
assert not built, built
import importlib
for lang, words in ours.items():
    assert words == importlib.import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS, lang
    assert len(words) > 100, lang
print("ok")
"""


def test_the_lists_are_spacys_own_and_no_language_is_imported_for_them():
    out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_a_language_without_a_list_has_none():
    assert spacy_stop_words("xx") == frozenset()
    assert spacy_stop_words("../en") == frozenset()


_NUMBERS = """
import sys
from semgap_spacy.util.spacy_lists import spacy_like_num
readers = {lang: spacy_like_num(lang) for lang in ("en", "es", "fr", "de")}
built = sorted(name for name in sys.modules if name.split(".")[:3] in (["spacy", "lang", x] for x in ("es", "fr", "de")))
assert not built, built
from spacy.attrs import LIKE_NUM
from spacy.util import get_lang_class
for lang, read in readers.items():
    theirs = get_lang_class(lang).Defaults.lex_attr_getters.get(LIKE_NUM)
    words = ("forty", "vingt", "veintiocho", "zwanzig", "dix-huit", "hello", "12", "1,5")
    assert (read is None) == (theirs is None), lang
    assert read is None or [read(w) for w in words] == [theirs(w) for w in words], lang
print("ok")
"""

# A whole decision in a fresh process, numbers in words of several languages among its cases:
# French, whose tokenizer exceptions cost 1.7 s to build, is not built for a pipeline that does
# not use it.
_DECIDE = """
import sys
from semgap_spacy.api import build_pipeline, decide_cases
cases = [{"id": "1", "domain": "medical_logistics", "text": "xm neg, ischémie froide de vingt heures"},
         {"id": "2", "domain": "mortgage", "text": "CTC, DTI fifty"},
         {"id": "3", "domain": "pharma_qa", "text": "Lote liberado, veintiocho horas"}]
decisions = list(decide_cases(build_pipeline(), cases))
assert len(decisions) == 3
assert "value_in_words" in {r["code"] for r in decisions[1]["reasons"]}, decisions[1]
built = sorted(name for name in sys.modules if name.split(".")[:3] == ["spacy", "lang", "fr"])
assert not built, built
print("ok")
"""


def test_like_num_is_spacys_own_and_no_language_is_imported_for_it():
    out = subprocess.run([sys.executable, "-c", _NUMBERS], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_deciding_does_not_build_french_for_an_english_pipeline():
    out = subprocess.run([sys.executable, "-c", _DECIDE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_stop_word_probs_are_spacys_frequencies_and_the_file_is_current():
    """The shipped copy is what ``scripts/build_word_probs.py`` makes from the installed
    spacy-lookups-data (it loads three tables of a million words: a few seconds)."""
    from scripts.build_word_probs import TARGET, word_probs
    import json
    assert json.loads(TARGET.read_text(encoding="utf8")) == json.loads(json.dumps(word_probs())), \
        "run: python -m scripts.build_word_probs"


def test_stop_word_probs_rank_the_words_of_a_language_as_its_writers_use_them():
    from semgap_spacy.util.spacy_lists import stop_word_probs
    en, de = stop_word_probs("en"), stop_word_probs("de")
    assert en["is"] > en["as"] and en["with"] > en["even"]  # "is" is written more often than "as"
    assert en["was"] > en["ist"] and de["ist"] > de["was"]
    assert stop_word_probs("es")["esta"] > stop_word_probs("en")["esta"]  # folded: "está" and "esta"
    assert stop_word_probs("fr") == {}  # spacy-lookups-data has no French frequencies
    assert stop_word_probs("xx") == {}

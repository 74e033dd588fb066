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

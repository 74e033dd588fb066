"""A clearance counts only in one of its own forms, or one that agrees in number or gender."""
import pytest

from semgap_spacy.core.own_forms import OwnForms, agrees, words_of
from semgap_spacy.glossary.models import load_glossaries
from semgap_spacy.lang import agreement_endings, get_pack

EN, ES = frozenset({"s", "es"}), frozenset({"s", "es", "a", "as", "o", "os"})


@pytest.mark.parametrize("word, own, endings", [
    ("released", "released", EN), ("batches", "batch", EN), ("liberados", "liberado", ES),
    ("liberada", "liberado", ES), ("liberadas", "liberado", ES),
])
def test_agreement_forms_are_own_forms(word, own, endings):
    assert agrees(word, own, endings)


@pytest.mark.parametrize("word, own, endings", [
    ("release", "released", EN), ("releases", "released", EN), ("releasing", "released", EN),
    ("clearing", "clear", EN), ("liberar", "liberado", ES), ("libera", "liberado", ES),
    ("batches", "batch", frozenset()),  # a pack without endings: as listed only
])
def test_verb_forms_are_not(word, own, endings):
    assert not agrees(word, own, endings)


def test_a_quote_is_read_as_the_pipes_read_it():
    assert words_of("Clear-to-close") == words_of("clear to close") == ("clear", "to", "close")
    assert words_of("Cl\u200bear  to\nCLOSE") == ("clear", "to", "close")


def test_own_forms_of_the_bundled_clearances():
    forms = OwnForms(load_glossaries(), agreement_endings())
    assert forms.holds("PHA.RELEASED", "Lots released") and forms.holds("PHA.RELEASED", "Lotes liberados")
    assert forms.holds("MED.XM_NEGATIVE", "negative cross-match")  # a spelling variant of the domain
    assert not forms.holds("PHA.RELEASED", "Batch release")
    assert not forms.holds("PHA.RELEASED", "QP certify")
    assert forms.holds("MED.XM_POSITIVE", "positive crossmatches declined")  # no clear term: not judged


def test_every_bundled_pack_has_agreement_endings():
    for code in ("en", "es", "fr", "de"):
        assert get_pack(code).agreement_endings, code


def test_kept_answers_are_the_answers():
    forms = OwnForms(load_glossaries(), agreement_endings())
    forms.KEEP = 3  # a full store starts again empty
    quotes = ["Batch released", "Batch release", "Lots released", "QP certify", "Lotes liberados"] * 3
    answers = [forms.holds("PHA.RELEASED", q) for q in quotes]
    assert answers == [True, False, True, False, True] * 3 and len(forms._answers) <= 3

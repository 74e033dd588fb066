"""The perturbation probe (issue 11): its counts add up, it is reproducible, and the texts of the issue."""
import pytest

from scripts import perturb_probe
from tests.perturb import FAMILIES


def test_probe_counts_add_up_and_families_take_turns(nlp):
    result = perturb_probe.run(50, seed=3, nlp=nlp)
    assert result["total"] == 50
    assert sum(f["total"] for f in result["per_family"].values()) == 50
    assert set(result["per_family"]) == set(FAMILIES)
    assert all(f["total"] == 10 for f in result["per_family"].values())
    assert result["proceeded"] == sum(f.get("proceeded", 0) for f in result["per_family"].values())
    assert result["proceeded_by_perturbation"] <= result["proceeded"]
    assert result["bases"] > 300 and result["bases_proceeding_unperturbed"] == 0


def test_probe_cases_are_reproducible_from_the_seed():
    bases = perturb_probe.base_cases()
    assert all(b["text"] and isinstance(b["text"], str) for b in bases)
    one = perturb_probe.make_perturbed(bases, 40, seed=9)
    two = perturb_probe.make_perturbed(bases, 40, seed=9)
    other = perturb_probe.make_perturbed(bases, 40, seed=10)
    assert [c["case"]["text"] for c in one] == [c["case"]["text"] for c in two]
    assert [c["case"]["text"] for c in one] != [c["case"]["text"] for c in other]
    assert all(c["case"]["text"] != c["original"] for c in one)
    assert all(not k.startswith("_") for c in one for k in c["case"])


# What a person reads as a non-proceed case: the pipes read the canonical view
# (semgap_spacy/core/textview.py), so none of these proceeds.
@pytest.mark.parametrize("domain,text", [
    ("mortgage", "Clear to close. unreleased  lien"),
    ("mortgage", "Clear to close. unreleased\u00a0lien"),
    ("mortgage", "File is not\nclear to close"),
    ("mortgage", "File is n\u200bot clear to close"),
    ("mortgage", "File is n\u00adot clear to close"),
    ("aviation_maintenance", "CRS signed, A\u043eG"),
])
def test_issue_texts_do_not_proceed(decide, domain, text):
    assert decide(text, domain=domain)["decision"] != "proceed"


@pytest.mark.parametrize("text,reading,suspicious", [
    ("CRS signed, A\u043eG", "CRS signed, AoG", True),
    ("File is n\u200bot\nclear  to close", "File is not clear to close", False),
    ("\u0441l\u0435\u0430r to close", "clear to close", True),
])
def test_simulated_canonical_reading(text, reading, suspicious):
    assert perturb_probe.canonical_text(text) == (reading, suspicious)


def test_an_accent_is_never_added_to_a_word_it_would_change():
    """Spec §4 tells "si" (if, a hedge) from "sí" (yes): an accent added there makes another word,
    and "fyi sí crossmatch négatif" rightly proceeds where "fyi si …" escalates. The generator
    leaves such words alone (a property test drew exactly that edit)."""
    import random

    from tests.perturb import combining

    for seed in range(300):
        done = combining("fyi si crossmatch négatif, on y va ou pas", random.Random(seed))
        words = (done[0] if done else "fyi si").split()
        assert words[1] == "si", (seed, done)
        assert "où" not in (done[0] if done else "")

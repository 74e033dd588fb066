"""The negation/hedge sentence sets are well formed.

They are the measuring stick for ``semgap_context`` (``scripts/context_eval.py``):
a wrong offset or a duplicated id would silently score the component against
the wrong words, so every target is checked against its sentence here, and
the JSONL files must be what their marked-up sources build.
"""
import json
import unicodedata
from pathlib import Path

import pytest

from scripts import build_context_sentences as build

DATA = Path(__file__).resolve().parents[1] / "data" / "context_sentences"
MIN_SIZE = {"en": 150, "es": 100, "fr": 50, "de": 50}
# Phrasings the Spanish set must hold (issue 12: where the component misses on Spanish).
ES_PHRASES = ("no parece", "no se descarta", "falta de", "negativo", "se suspende", "retirada de",
              "compatible con", "sugiere", "parece", "al parecer", "valorar", "si ", "sí")
# Phrasings each set must hold: pseudo cues, terminators, backward and speculation cues, ops hedges.
PHRASES = {
    "en": ("not only", "no change", "no increase", "without difficulty", "no later than", "cannot exclude",
           "cannot be ruled out", "rule out", "ruled out", "versus", "consistent with", "suggestive of",
           "may represent", "question of", "evaluate for", "either", "differential includes", "likely",
           "unlikely", "pending", "once", "awaiting", "to be confirmed", "if ", "is negative", "resolved",
           "free of", "but", "however", "although"),
    "es": ES_PHRASES + ("sin demora", "no solo", "pero", "pendiente"),
    "fr": ("sans délai", "non seulement", "mais", "en attente", "si ", "où"),
    "de": ("nicht nur", "ohne verzögerung", "aber", "ausstehend", "falls", "wenn"),
}
# Phenomena every language covers (the ``note`` of a record).
NOTES = ("list_conj", "list_no_conj", "long_scope", "cue_in_target", "section_header", "terminator",
         "backward", "pseudo", "speculation", "conditional", "ops")


def load(lang):
    with (DATA / f"{lang}.jsonl").open(encoding="utf8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def sets():
    return {lang: load(lang) for lang in MIN_SIZE}


@pytest.mark.parametrize("lang", sorted(MIN_SIZE))
def test_size(sets, lang):
    assert len(sets[lang]) >= MIN_SIZE[lang]


@pytest.mark.parametrize("lang", sorted(MIN_SIZE))
def test_records_and_offsets(sets, lang):
    for rec in sets[lang]:
        assert set(rec) == {"id", "lang", "text", "targets", "note"}, rec["id"]
        assert rec["lang"] == lang and rec["id"].startswith(f"{lang}-")
        assert rec["note"] and rec["targets"], rec["id"]
        text = rec["text"]
        assert unicodedata.normalize("NFC", text) == text, rec["id"]
        ends = []
        for t in rec["targets"]:
            assert set(t) == {"start_char", "end_char", "text", "negated", "hedged"}, rec["id"]
            assert isinstance(t["negated"], bool) and isinstance(t["hedged"], bool)
            assert 0 <= t["start_char"] < t["end_char"] <= len(text), rec["id"]
            assert text[t["start_char"]:t["end_char"]] == t["text"], rec["id"]
            assert t["text"] == t["text"].strip(), rec["id"]
            ends.append((t["start_char"], t["end_char"]))
        ends.sort()
        assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:])), f"{rec['id']}: overlapping targets"


def test_ids_unique(sets):
    ids = [rec["id"] for recs in sets.values() for rec in recs]
    assert len(ids) == len(set(ids))
    texts = [(rec["lang"], rec["text"]) for recs in sets.values() for rec in recs]
    assert len(texts) == len(set(texts)), "a sentence occurs twice"


def test_both_polarities_in_every_language(sets):
    for lang, recs in sets.items():
        flags = [(t["negated"], t["hedged"]) for rec in recs for t in rec["targets"]]
        assert (True, False) in flags and (False, True) in flags and (False, False) in flags, lang


@pytest.mark.parametrize("lang", sorted(MIN_SIZE))
def test_phrasings_covered(sets, lang):
    texts = [rec["text"].lower() for rec in sets[lang]]
    missing = [p for p in PHRASES[lang] if not any(p in t for t in texts)]
    assert not missing


@pytest.mark.parametrize("lang", sorted(MIN_SIZE))
def test_phenomena_covered(sets, lang):
    notes = {rec["note"] for rec in sets[lang]}
    assert not [n for n in NOTES if n not in notes]


def test_jsonl_built_from_sources():
    assert build.main(["--check"]) == 0


def test_builder_rejects_bad_markup():
    with pytest.raises(build.SourceError):
        build.parse_line("no separator [x]{n}", "t:1")
    with pytest.raises(build.SourceError):
        build.parse_line("note :: no target here", "t:1")
    with pytest.raises(build.SourceError):
        build.parse_line("note :: a [bad]{x} flag", "t:1")
    rec = build.parse_line("note :: No [fever]{n} or [pain]{a}.", "t:1")
    assert rec["text"] == "No fever or pain."
    assert [(t["start_char"], t["end_char"], t["negated"]) for t in rec["targets"]] == [(3, 8, True), (12, 16, False)]

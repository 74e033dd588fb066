"""Regenerate ``semgap_spacy/data/stop_word_probs.json``: how often each stop word of the
bundled language packs is written, per spaCy language that has a frequency table.

``semgap_context``'s gate watches each longer cue by one of its words (``core.context.key_word``):
the rarer that word, the more texts pass the gate without a look at their words. Among spaCy's
stop words ("is", "as", "with", "even") length says nothing of that; spaCy's own word
frequencies do. They ship in ``spacy-lookups-data`` (a dependency already) as
``<lang>_lexeme_prob``, one million entries per language, which take seconds and hundreds of
megabytes to load: the few thousand the gate can ask for are kept here instead.

Run after changing the bundled packs or spacy-lookups-data: ``python -m scripts.build_word_probs``.
The choice of key word changes speed only, never a reading; a test fails when the file no longer
matches what this script makes.
"""
import json
import math
from importlib.metadata import version
from pathlib import Path

from spacy.lookups import load_lookups

from semgap_spacy.lang import BUNDLED, get_pack
from semgap_spacy.util.spacy_lists import STOP_WORD_PROBS_FILE, spacy_stop_words
from semgap_spacy.util.textnorm import fold

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "semgap_spacy" / "data" / STOP_WORD_PROBS_FILE


def _table(lang: str, name: str):
    """``<lang>_<name>`` of spacy-lookups-data (a ``Table``: its keys are string hashes, so it
    is read with ``get``), or {} when it has none."""
    lookups = load_lookups(lang, [name], strict=False)
    return lookups.get_table(name) if lookups.has_table(name) else {}


def word_probs() -> dict:
    """The payload: for each spaCy language of the bundled packs with a ``lexeme_prob`` table,
    the natural-log probability of every stop word of every bundled pack, keyed by its folded
    form (as the gate compares words). Stop words that fold alike add up; a word the table does
    not hold gets the table's ``oov_prob``, as ``Lexeme.prob`` gives it."""
    langs = sorted({get_pack(code).spacy_lang for code in BUNDLED})
    words = sorted({w for lang in langs for w in spacy_stop_words(lang)})
    probs = {}
    for lang in langs:
        table = _table(lang, "lexeme_prob")
        if not table:
            continue
        oov = float(_table(lang, "lexeme_settings").get("oov_prob", -20.0))
        total: dict = {}
        for word in words:
            p = math.exp(float(table.get(word, oov)))
            total[fold(word)] = total.get(fold(word), 0.0) + p
        probs[lang] = {w: round(math.log(p), 2) for w, p in sorted(total.items())}
    return {"source": f"spacy-lookups-data {version('spacy-lookups-data')}: <lang>_lexeme_prob, "
                      f"<lang>_lexeme_settings oov_prob",
            "words": "spaCy's stop words of " + ", ".join(langs) + ", folded",
            "log_probs": probs}


def main() -> None:
    payload = word_probs()
    TARGET.write_text(json.dumps(payload, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf8")
    print(f"wrote {TARGET} ({', '.join(f'{k}: {len(v)} words' for k, v in payload['log_probs'].items())})")


if __name__ == "__main__":
    main()

"""Rules: the cue words and the typo repair's reach that validation checks against.

A glossary phrase is only safe if the pipeline's other components will not
misread it: the context reader takes negation and hedge cues as "not" or
"maybe", and the typo repair turns a near-miss word into a known one. These
rules (data/governance.yaml plus data/negation/<lang>.json) are what the
phrase-risk checks compare glossary words with.
"""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Optional, Union


from ..rules import read_cues
from ...util.yaml_files import read_yaml


_DATA = Path(__file__).resolve().parents[2] / "data"
#: A folder of <lang>.json cue files to read instead of the language packs'
#: ``cues.json`` (None: the packs). ``load_cues`` reads it from the package
#: (``semgap_spacy.glossary.governance.NEGATION_DIR``), so set it there, as the tests do.
NEGATION_DIR: Optional[Path] = None


def _negation_dir() -> Optional[Path]:
    """``NEGATION_DIR`` as the package holds it now.

    Read at call time from ``semgap_spacy.governance``, not from this module's
    own binding, so that setting the package attribute keeps working as it did
    when governance was a single module.
    """
    return sys.modules[__package__].NEGATION_DIR


@lru_cache(maxsize=1)
def _rules() -> Dict[str, Any]:
    return read_yaml(_DATA / "governance.yaml")


def load_cues(negation_dir: Optional[Union[str, Path]] = None) -> Dict[str, Dict[str, str]]:
    """Negation and hedge cues per language: {lang: {folded cue: kind}}.

    The spec's list (data/governance.yaml) is always included; cues from
    the language packs are added (or from ``NEGATION_DIR``'s files when set). The
    reading is ``glossary.rules.read_cues``, the one the glossary models use
    to refuse a phrase that is a cue; only the folder can differ here.
    """
    return read_cues(Path(negation_dir) if negation_dir else _negation_dir())


def max_edits(letters: int) -> int:
    """How many edits the typo repair allows for a word of this many letters."""
    rule = _rules()["fuzzy"]
    if letters < int(rule["min_letters"]):
        return 0
    for band in rule.get("bands") or []:
        if letters <= int(band["up_to"]):
            return int(band["max_edits"])
    return int(rule["longer"])

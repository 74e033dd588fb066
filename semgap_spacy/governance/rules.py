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
from typing import Any, Dict, Iterable, Optional, Tuple, Union

import srsly

from ..glossary_rules import NOT_CUES as _NOT_CUES
from ..glossary_rules import cue_records as _cue_records
from ..glossary_rules import read_cues


_DATA = Path(__file__).parent.parent / "data"
#: Where the context component's cue lists live (one <lang>.json per language).
#: ``load_cues`` reads it from the package (``semgap_spacy.governance.NEGATION_DIR``),
#: so set it there, as the tests do, not on this module.
NEGATION_DIR = _DATA / "negation"


def _negation_dir() -> Path:
    """``NEGATION_DIR`` as the package holds it now.

    Read at call time from ``semgap_spacy.governance``, not from this module's
    own binding, so that setting the package attribute keeps working as it did
    when governance was a single module.
    """
    return sys.modules[__package__].NEGATION_DIR


@lru_cache(maxsize=1)
def _rules() -> Dict[str, Any]:
    return srsly.read_yaml(_DATA / "governance.yaml")


def load_cues(negation_dir: Optional[Union[str, Path]] = None) -> Dict[str, Dict[str, str]]:
    """Negation and hedge cues per language: {lang: {folded cue: kind}}.

    The spec's list (data/governance.yaml) is always included; cues from
    ``data/negation/<lang>.json`` are added when those files exist. The
    reading is ``glossary_rules.read_cues``, the one the glossary models use
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

"""spaCy's own stop-word lists, read without importing their language.

``from spacy.lang.fr.stop_words import STOP_WORDS`` first runs
``spacy/lang/fr/__init__.py``, which builds the French tokenizer exceptions:
1.7 s of every process start (``python -X importtime``), paid by the CLI and
by each worker, for a list of words. The list is a module of its own with no
imports, so it is run from its file alone; when the language is already
imported, its module is used as it is.
"""
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from typing import FrozenSet

import spacy


@lru_cache(maxsize=None)
def spacy_stop_words(lang: str) -> FrozenSet[str]:
    """``spacy.lang.<lang>.stop_words.STOP_WORDS``; empty when spaCy has no such list."""
    loaded = sys.modules.get(f"spacy.lang.{lang}.stop_words")
    if loaded is not None:
        return frozenset(getattr(loaded, "STOP_WORDS", ()))
    path = Path(spacy.__file__).parent / "lang" / lang / "stop_words.py"
    if not lang.isidentifier() or not path.is_file():
        return frozenset()
    spec = importlib.util.spec_from_file_location(f"semgap_spacy._spacy_stop_words_{lang}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(getattr(module, "STOP_WORDS", ()))

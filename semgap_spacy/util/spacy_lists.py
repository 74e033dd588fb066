"""spaCy's own stop-word lists and ``like_num`` readers, read without importing their language,
and how often those stop words are written (``stop_word_probs``).

``from spacy.lang.fr.stop_words import STOP_WORDS`` (or ``get_lang_class("fr")``)
first runs ``spacy/lang/fr/__init__.py``, which builds the French tokenizer
exceptions: 1.7 s of every process start (``python -X importtime``), paid by
the CLI and by each worker, for a list of words and a function. Each is a
module of its own (``stop_words.py``, ``lex_attrs.py``) that imports nothing
of its language, so it is run from its file alone; when the language is
already imported, its modules are used as they are.
"""
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Callable, Dict, FrozenSet, Optional

import spacy
import srsly
from spacy.attrs import LIKE_NUM

#: the stop words' log probabilities, per spaCy language (``scripts/build_word_probs.py`` makes it)
STOP_WORD_PROBS_FILE = "stop_word_probs.json"


@lru_cache(maxsize=None)
def spacy_stop_words(lang: str) -> FrozenSet[str]:
    """``spacy.lang.<lang>.stop_words.STOP_WORDS``; empty when spaCy has no such list."""
    module = _language_module(lang, "stop_words")
    return frozenset(getattr(module, "STOP_WORDS", ())) if module is not None else frozenset()


@lru_cache(maxsize=None)
def stop_word_probs(lang: str) -> Dict[str, float]:
    """The natural-log probability of each stop word of the bundled packs (folded) in text of
    spaCy language ``lang``, from spacy-lookups-data's ``lexeme_prob`` table; {} when it has none
    for ``lang`` (French, for one). A copy of the few thousand values kept in
    ``semgap_spacy/data``: the table itself takes seconds to load."""
    path = Path(__file__).resolve().parent.parent / "data" / STOP_WORD_PROBS_FILE
    return dict(srsly.read_json(path)["log_probs"].get(lang, {}))


@lru_cache(maxsize=None)
def spacy_like_num(lang: str) -> Optional[Callable[[str], bool]]:
    """The ``like_num`` reader of spaCy's language ``lang`` (its ``LEX_ATTRS``, which the
    language's ``Defaults.lex_attr_getters`` are); None when spaCy has none for it."""
    module = _language_module(lang, "lex_attrs")
    return getattr(module, "LEX_ATTRS", {}).get(LIKE_NUM) if module is not None else None


def has_language_module(lang: str, name: str) -> bool:
    """Whether spaCy ships ``spacy/lang/<lang>/<name>.py``."""
    return lang.isidentifier() and (Path(spacy.__file__).parent / "lang" / lang / f"{name}.py").is_file()


def _language_module(lang: str, name: str) -> Optional[ModuleType]:
    """``spacy.lang.<lang>.<name>``: the imported module when its language is imported,
    else the module run from its file alone (its imports reach spaCy's own top-level
    modules only: ``from ...attrs import LIKE_NUM``); None when spaCy has no such file."""
    loaded = sys.modules.get(f"spacy.lang.{lang}.{name}")
    if loaded is not None:
        return loaded
    if not has_language_module(lang, name):
        return None
    path = Path(spacy.__file__).parent / "lang" / lang / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"semgap_spacy._spacy_{name}_{lang}", path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = f"spacy.lang.{lang}"  # its relative imports resolve inside spaCy
    spec.loader.exec_module(module)
    return module

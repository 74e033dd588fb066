"""semgap_spacy: read domain text against a governed glossary and decide
proceed, escalate or block.

Importing the package registers the five factories (the ``spacy_factories``
entry points do the same without an import) and every ``._`` extension.
"""
from .about import __version__
from . import _extensions  # noqa: F401  (registers the extensions)
from . import registry  # noqa: F401  (registers @misc functions)
from .typo_repair import TypoRepair, make_typo_repair
from .terms import GlossaryTerms, make_terms
from .context import make_context
from .quantities import make_quantities
from .decision import Decision, make_decision
from .glossary import GlossaryError, GlossarySet, load_glossaries
from .api import (PIPE_NAMES, add_semgap_pipes, assess, assess_cases, build_pipeline, decide_cases,
                  decision_of)

__all__ = [
    "__version__", "add_semgap_pipes", "assess", "assess_cases", "build_pipeline", "decide_cases",
    "decision_of", "GlossaryError", "GlossarySet", "load_glossaries", "PIPE_NAMES",
    "TypoRepair", "GlossaryTerms", "Decision",
    "make_typo_repair", "make_terms", "make_context", "make_quantities", "make_decision",
]

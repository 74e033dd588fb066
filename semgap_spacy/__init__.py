"""semgap_spacy: read domain text against a governed glossary and decide
proceed, escalate or block.

Importing the package registers the six factories (the ``spacy_factories``
entry points do the same without an import) and every ``._`` extension.
"""
from .util import cli_start  # noqa: F401  (first: Ctrl-C while ``python -m semgap_spacy`` loads spaCy)
from .about import __version__
from .pipes import extensions  # noqa: F401  (registers the extensions)
from .glossary import registry  # noqa: F401  (registers @misc functions)
from .pipes.typo_repair import TypoRepair, make_typo_repair
from .pipes.terms import Terms, make_terms
from .pipes.context import Context, make_context
from .pipes.quantities import Quantities, make_quantities
from .pipes.coverage import Coverage, make_coverage
from .pipes.base import load_pipeline
from .pipes.decision import Decision, make_decision
from .glossary.models import GlossaryError, GlossarySet, load_glossaries
from .api import (PIPE_NAMES, add_semgap_pipes, assess, assess_cases, build_pipeline, decide_cases,
                  decision_of)
from .views import context_records

__all__ = [
    "__version__", "add_semgap_pipes", "assess", "assess_cases", "build_pipeline", "context_records", "decide_cases",
    "decision_of", "GlossaryError", "GlossarySet", "load_glossaries", "load_pipeline", "PIPE_NAMES",
    "TypoRepair", "Terms", "Context", "Quantities", "Coverage", "Decision",
    "make_typo_repair", "make_terms", "make_context", "make_quantities", "make_coverage", "make_decision",
]

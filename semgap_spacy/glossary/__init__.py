"""The governed glossary: its models and loader, and the governance workflow
(validate, diff, changelog, replay) that changes it."""
from .models import (CONTRACT_UNITS, LANGUAGES, QUANTITY_KINDS, SIGNALS, Ambiguous, Contract, DomainGlossary, Frame,
                     GlossaryError, GlossarySet, Meaning, Retirement, Term, Translation, bundled_glossary_dir,
                     load_domain_file, load_glossaries, phrase_key)

__all__ = ["CONTRACT_UNITS", "LANGUAGES", "QUANTITY_KINDS", "SIGNALS", "Ambiguous", "Contract", "DomainGlossary",
           "Frame", "GlossaryError", "GlossarySet", "Meaning", "Retirement", "Term", "Translation",
           "bundled_glossary_dir", "load_domain_file", "load_glossaries", "phrase_key"]

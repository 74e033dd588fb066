"""Findings: what validate and diff report, and how bad each one is.

Every check in the package reports through ``Finding`` with a code from
``FINDING_CODES``, so that one table decides severity: whether a glossary may
ship is then just "no finding is an error" (``has_errors``), and the CLI can
print or serialise any finding the same way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, Optional


ERROR = "error"
WARNING = "warning"

#: Every finding code ``validate`` and ``diff`` can report, with its severity.
FINDING_CODES: Dict[str, str] = {
    "unreadable": ERROR,
    "schema": ERROR,
    "bad_version": ERROR,
    "unknown_signal": ERROR,
    "missing_approver": ERROR,
    "approver_is_owner": ERROR,
    "second_approver_not_independent": ERROR,
    "field_without_contract": ERROR,
    "translation_without_reviewer": ERROR,
    "duplicate_term_id": ERROR,
    "duplicate_field": ERROR,
    "duplicate_domain": ERROR,
    "duplicate_phrase": ERROR,
    "unknown_reference": ERROR,
    "draft_dependency": ERROR,
    "phrase_is_cue": ERROR,
    # glossary.rules: the loader refuses these too
    "bad_person_name": ERROR,
    "bad_domain_name": ERROR,
    "bad_abbreviation": ERROR,
    "phrase_without_content": ERROR,
    "phrase_not_printable": ERROR,
    "dependency_cycle": ERROR,
    "phrase_contains_cue": WARNING,
    "shared_phrase_across_domains": WARNING,
    "fuzzy_collision": WARNING,
    "draft_term": WARNING,
    "draft_translation": WARNING,
    # diff
    "version_not_bumped": ERROR,
    "weakening_without_second_approver": ERROR,
}


class GovernanceError(ValueError):
    """Input that governance cannot work on (no such path, no glossary files...)."""


@dataclass(frozen=True)
class Finding:
    """One problem (error) or risk (warning) found in a glossary."""

    code: str
    severity: str
    domain: Optional[str]
    term: Optional[str]
    message: str
    path: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "domain": self.domain,
                "term": self.term, "message": self.message, "path": self.path}

    def __str__(self) -> str:
        where = "/".join(x for x in (self.domain, self.term) if x) or "-"
        return f"{self.severity:<7} {self.code:<32} {where:<40} {self.message}"


def _finding(code: str, domain: Optional[str], term: Optional[str], message: str,
             path: Optional[str] = None) -> Finding:
    return Finding(code, FINDING_CODES[code], domain, term, message, path)


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)

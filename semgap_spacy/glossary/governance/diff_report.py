"""Diff report: what changed between two glossary versions, as data.

``diff`` fills these; the CLI prints them as JSON and the changelog renders
them as Markdown, so the comparison is done once and read in both forms.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .changelog_markdown import _markdown
from .findings import ERROR, Finding
from .payload import Phrase


@dataclass
class TermDiff:
    """What happened to one term between two versions."""

    term: str
    status: str  # "added" | "removed" | "changed"
    signal: Optional[str] = None
    changes: List[str] = field(default_factory=list)
    added_phrases: List[Phrase] = field(default_factory=list)
    removed_phrases: List[Phrase] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"term": self.term, "status": self.status, "signal": self.signal,
                "changes": list(self.changes),
                "added_phrases": [vars(p) for p in self.added_phrases],
                "removed_phrases": [vars(p) for p in self.removed_phrases]}


@dataclass
class DomainDiff:
    domain: str
    status: str  # "added" | "removed" | "changed" | "unchanged"
    old_version: Optional[str] = None
    new_version: Optional[str] = None
    terms: Dict[str, TermDiff] = field(default_factory=dict)
    other_changes: List[str] = field(default_factory=list)

    def _ids(self, status: str) -> List[str]:
        return [t for t, d in self.terms.items() if d.status == status]

    @property
    def added_terms(self) -> List[str]:
        return self._ids("added")

    @property
    def removed_terms(self) -> List[str]:
        return self._ids("removed")

    @property
    def changed_terms(self) -> List[str]:
        return self._ids("changed")

    @property
    def added_phrases(self) -> List[Tuple[str, Phrase]]:
        return [(t, p) for t, d in self.terms.items() for p in d.added_phrases]

    @property
    def removed_phrases(self) -> List[Tuple[str, Phrase]]:
        return [(t, p) for t, d in self.terms.items() for p in d.removed_phrases]

    def to_dict(self) -> Dict[str, Any]:
        return {"domain": self.domain, "status": self.status, "old_version": self.old_version,
                "new_version": self.new_version,
                "terms": {t: d.to_dict() for t, d in self.terms.items()},
                "other_changes": list(self.other_changes)}


@dataclass
class Weakening:
    """A change that makes the pipeline less strict; it needs a second approver."""

    domain: str
    term: str
    kind: str  # critical_removed, signal_weakened, band_widened, max_raised, ...
    detail: str
    second_approver: Optional[str] = None
    accepted: bool = False

    def to_dict(self) -> Dict[str, Any]:
        return dict(vars(self))


@dataclass
class DiffReport:
    old: str
    new: str
    domains: Dict[str, DomainDiff] = field(default_factory=dict)
    weakenings: List[Weakening] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(d.status != "unchanged" for d in self.domains.values())

    @property
    def errors(self) -> List[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> Dict[str, Any]:
        return {"old": self.old, "new": self.new, "changed": self.changed, "ok": self.ok,
                "domains": {n: d.to_dict() for n, d in self.domains.items()},
                "weakenings": [w.to_dict() for w in self.weakenings],
                "findings": [f.to_dict() for f in self.findings]}

    def to_markdown(self) -> str:
        return _markdown(self)

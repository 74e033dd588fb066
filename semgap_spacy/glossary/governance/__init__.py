"""Glossary governance: validate, diff, changelog and replay.

``validate`` reports every problem and risk of some glossaries at once
(see ``validation``), where loading stops at the first hard error.

``approve`` moves reviewers' drafts (spec §4.2) into the glossary when a
second person signs them, under a new, archived version.

``diff`` compares two versions of the glossaries and enforces the release
rules: anything changed needs a version bump, and any change that makes the
pipeline less strict (a weakening) needs a second approver, independent of the
term's owner and approver. ``replay`` re-decides logged cases under an archived
version and under the current one, to show what a change would have done.

The package keeps the public names of the former single module, so callers
import from ``semgap_spacy.governance`` and never from its modules:

- ``findings``: Finding, the finding codes and their severities, GovernanceError
- ``sources``: reading directories, files, archived versions and payloads
- ``payload``: tolerant accessors for raw YAML payloads
- ``rules``: negation/hedge cues and the typo repair's reach
- ``validation``, ``phrase_risks``, ``model_findings``: ``validate``
- ``diff_report``, ``contracts``, ``version_diff``: ``diff`` and ``changelog``
- ``changelog_markdown``: a diff report as Markdown
- ``case_replay``: ``replay``
- ``approval``: ``approve``, a second person moving reviewers' drafts into the glossary (spec §4.2)

``NEGATION_DIR`` is read from this package at call time, so setting
``semgap_spacy.glossary.governance.NEGATION_DIR`` to a folder of ``<lang>.json``
files reads those instead of the language packs' cue files.
"""
from __future__ import annotations

from .approval import Approval, ApprovalError, approve, next_version, open_drafts
from .case_replay import DecideFn, ReplayReport, ReplayRow, read_cases, replay
from .diff_report import DiffReport, DomainDiff, TermDiff, Weakening
from .findings import ERROR, FINDING_CODES, WARNING, Finding, GovernanceError, has_errors
from .payload import Phrase
from .rules import NEGATION_DIR, load_cues, max_edits
from .sources import RawDomain, Source, archive_dir, load_raw
from .validation import validate
from .version_diff import changelog, diff

__all__ = [
    "ERROR", "WARNING", "FINDING_CODES", "Finding", "GovernanceError", "has_errors",
    "Source", "RawDomain", "archive_dir", "load_raw",
    "NEGATION_DIR", "load_cues", "max_edits", "Phrase",
    "validate",
    "TermDiff", "DomainDiff", "Weakening", "DiffReport", "diff", "changelog",
    "DecideFn", "ReplayRow", "ReplayReport", "read_cases", "replay",
    "Approval", "ApprovalError", "approve", "next_version", "open_drafts",
]

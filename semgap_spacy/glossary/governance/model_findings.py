"""Model findings: what the pydantic glossary models refuse, as findings.

The raw checks cover the rules people break most and word them for the
person editing the YAML; the models remain the authority on everything else.
So validation runs them too and keeps only what the raw checks have not
already reported, instead of reporting one problem twice.
"""
from __future__ import annotations

from typing import List, Optional

from pydantic import ValidationError

from ..models import DomainGlossary
from ..rules import rule_of
from .findings import FINDING_CODES
from .findings import Finding, _finding
from .payload import _list
from .sources import RawDomain


# pydantic messages that a raw check above already reports, by finding code
_MESSAGE_CODES = (
    ("missing approver", "missing_approver"),
    ("approver equal to owner", "approver_is_owner"),
    ("field term without a contract", "field_without_contract"),
    ("approved translation without a reviewer", "translation_without_reviewer"),
    ("duplicate term id", "duplicate_term_id"),
    ("two terms name the same field", "duplicate_field"),
    ("is also a phrase of", "duplicate_phrase"),
    ("unknown term", "unknown_reference"),
)


# Keys the release rules read that the pydantic models may not accept yet.
_PENDING_KEYS = {
    "second_approver": "add `second_approver: Optional[str] = None` to glossary.Term",
    "retired": "add `retired: List[Retirement] = []` to glossary.DomainGlossary",
}


def _pydantic_findings(raw: RawDomain, own: List[Finding]) -> List[Finding]:
    """What the models refuse that the raw checks did not already report."""
    try:
        DomainGlossary.model_validate(raw.payload)
        return []
    except ValidationError as err:
        errors = err.errors()
    covered = {(f.code, f.term) for f in own} | {(f.code, None) for f in own}
    terms = _list(raw.payload.get("terms"))
    out: List[Finding] = []
    for e in errors:
        loc = list(e["loc"])
        msg = str(e["msg"]).removeprefix("Value error, ")
        tid: Optional[str] = None
        where = ".".join(str(x) for x in loc)
        if len(loc) >= 2 and loc[0] == "terms" and isinstance(loc[1], int):
            t = terms[loc[1]] if loc[1] < len(terms) else None
            tid = t.get("id") if isinstance(t, dict) and isinstance(t.get("id"), str) else f"#{loc[1]}"
            where = f"term {tid}" + (f" ({'.'.join(str(x) for x in loc[2:])})" if loc[2:] else "")
        code = "schema"
        if loc and loc[0] == "version":
            code = "bad_version"
        elif loc[2:3] == ["signal"]:
            code = "unknown_signal"
        elif rule_of(msg) in FINDING_CODES:
            code = rule_of(msg)
        else:
            code = next((c for text, c in _MESSAGE_CODES if text in msg), "schema")
        if code != "schema" and ((code, tid) in covered or (code, None) in covered):
            continue
        if e.get("type") == "extra_forbidden" and loc and loc[-1] in _PENDING_KEYS:
            msg += f" (the glossary model does not know `{loc[-1]}` yet: {_PENDING_KEYS[loc[-1]]})"
        out.append(_finding(code, raw.name, tid, f"{where + ': ' if where else ''}{msg}", raw.path))
    return out

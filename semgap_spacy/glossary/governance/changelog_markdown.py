"""Changelog Markdown: a diff report as the changelog people read and approve.

Kept apart from the comparison so the wording of the changelog can change
without touching the release rules.
"""
from __future__ import annotations

from typing import Any

from ..models import version_order

#: A ``diff_report.DiffReport``; read by its attributes only, so this module
#: need not import the report it renders (the report imports this module).
DiffReport = Any


def _versions(report: DiffReport, attr: str) -> str:
    vs = sorted({str(getattr(d, attr)) for d in report.domains.values() if getattr(d, attr)}, key=version_order)
    if len(vs) > 1:
        return f"{', '.join(vs)} (domains at different versions)"
    return vs[0] if vs else "none"


def _markdown(report: DiffReport) -> str:
    lines = [f"# Glossary changelog: {_versions(report, 'old_version')} → "
             f"{_versions(report, 'new_version')}", ""]
    unchanged = [n for n, d in report.domains.items() if d.status == "unchanged"]
    weak_by = {}
    for w in report.weakenings:
        weak_by.setdefault(w.domain, []).append(w)
    for name, dd in report.domains.items():
        if dd.status == "unchanged":
            continue
        head = {"added": f"{dd.new_version} (new domain)", "removed": f"{dd.old_version} (domain removed)"}
        lines += [f"## {name} — {head.get(dd.status, f'{dd.old_version} → {dd.new_version}')}", ""]
        for title, status in (("Added terms", "added"), ("Removed terms", "removed")):
            ids = dd._ids(status)
            if ids:
                lines.append(f"### {title}")
                for tid in ids:
                    td = dd.terms[tid]
                    phrases = td.added_phrases if status == "added" else td.removed_phrases
                    lines.append(f"- `{tid}` ({td.signal}): " + ", ".join(str(p) for p in phrases))
                lines.append("")
        if dd.changed_terms:
            lines.append("### Changed terms")
            for tid in dd.changed_terms:
                td = dd.terms[tid]
                lines.append(f"- `{tid}` ({td.signal})")
                lines += [f"  - {c}" for c in td.changes]
                lines += [f"  - added phrase {p}" for p in td.added_phrases]
                lines += [f"  - removed phrase {p}" for p in td.removed_phrases]
            lines.append("")
        if dd.other_changes:
            lines.append("### Other changes")
            lines += [f"- {c}" for c in dd.other_changes]
            lines.append("")
        if weak_by.get(name):
            lines.append("### Weakenings (second approval required)")
            for w in weak_by[name]:
                status = (f"approved by second approver {w.second_approver}" if w.accepted
                          else "**NOT APPROVED**: no independent second approver")
                lines.append(f"- `{w.term}`: {w.detail} — {status}")
            lines.append("")
    if not report.changed:
        lines += ["No changes.", ""]
    if unchanged and report.changed:
        lines += [f"Unchanged: {', '.join(unchanged)}.", ""]
    if report.findings:
        lines.append("## Problems")
        lines += [f"- **{f.severity}** `{f.code}` {f.domain or ''}{'/' + f.term if f.term else ''}: "
                  f"{f.message}" for f in report.findings]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"

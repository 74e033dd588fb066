"""replay: what a glossary change would have done to cases already decided.

Logged cases are re-decided under an archived glossary version and under the
current one, so a reviewer sees which decisions a change flips before it
ships. The caller supplies the decision function, which keeps this module free
of the pipeline.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from ..models import bundled_glossary_dir
from ...util.jsonl import read_jsonl
from .findings import GovernanceError
from .payload import _list
from .sources import archive_dir


DecideFn = Callable[[List[Any], Path], Iterable[Dict[str, Any]]]


@dataclass
class ReplayRow:
    index: int
    id: Any
    old: str
    new: str
    old_codes: List[str] = field(default_factory=list)
    new_codes: List[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def to_dict(self) -> Dict[str, Any]:
        return {"index": self.index, "id": self.id, "old": self.old, "new": self.new,
                "changed": self.changed, "old_codes": self.old_codes, "new_codes": self.new_codes}


@dataclass
class ReplayReport:
    archived_version: str
    archived_dir: str
    current_dir: str
    rows: List[ReplayRow] = field(default_factory=list)

    @property
    def changed(self) -> List[ReplayRow]:
        return [r for r in self.rows if r.changed]

    def transitions(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for r in self.changed:
            out[f"{r.old}→{r.new}"] = out.get(f"{r.old}→{r.new}", 0) + 1
        return dict(sorted(out.items()))

    def to_dict(self) -> Dict[str, Any]:
        return {"archived_version": self.archived_version, "archived_dir": self.archived_dir,
                "current_dir": self.current_dir, "cases": len(self.rows),
                "changed": [r.to_dict() for r in self.changed],
                "transitions": self.transitions(), "rows": [r.to_dict() for r in self.rows]}

    def to_text(self, cell: Callable[[Any], str] = str) -> str:
        """The report as lines of text; ``cell`` writes each value taken from the cases and the
        decisions (the CLI's escapes them, so a case id cannot forge or hide a line). A case
        with no id is named by its place among the cases ("#4"), as the rows name it."""
        lines = [f"replayed {len(self.rows)} cases: archived {self.archived_version} "
                 f"({self.archived_dir}) vs current ({self.current_dir})",
                 f"{len(self.changed)} decision{'' if len(self.changed) == 1 else 's'} would change"]
        for k, v in self.transitions().items():
            lines.append(f"  {cell(k)}: {v}")
        for r in self.changed:
            name = cell(r.id) if r.id is not None else f"#{r.index + 1}"
            old_codes, new_codes = ", ".join(map(cell, r.old_codes)), ", ".join(map(cell, r.new_codes))
            lines.append(f"  {name:<16} {cell(r.old):<8} → {cell(r.new):<8} "
                         f"[{old_codes or '-'}] → [{new_codes or '-'}]")
        return "\n".join(lines)


def read_cases(path: Union[str, Path]) -> List[Any]:
    """The cases of a JSONL file, one JSON value per non-blank line."""
    return read_jsonl(path, "case", GovernanceError)


def _decisions(decide_fn: DecideFn, cases: List[Any], folder: Path) -> List[Dict[str, Any]]:
    out = list(decide_fn(cases, folder))
    if len(out) != len(cases):
        raise GovernanceError(f"decide_fn returned {len(out)} decisions for {len(cases)} cases "
                              f"under {folder}")
    for i, d in enumerate(out):
        if not isinstance(d, dict) or not isinstance(d.get("decision"), str):
            raise GovernanceError(f"decide_fn under {folder}: decision {i + 1} has no 'decision'")
    return out


def _codes(decision: Dict[str, Any]) -> List[str]:
    return [str(r.get("code")) for r in _list(decision.get("reasons")) if isinstance(r, dict)]


def replay(cases_jsonl: Union[str, Path, Sequence[Any]], archived_version: str,
           decide_fn: DecideFn, glossary_dir: Optional[Union[str, Path]] = None,
           archive_root: Optional[Union[str, Path]] = None) -> ReplayReport:
    """Decide logged cases under an archived glossary version and under the current one.

    cases_jsonl (str | Path | list): A cases JSONL file (spec §5), or the cases.
    archived_version (str): A version under ``glossaries/archive/``.
    decide_fn (Callable): ``decide_fn(cases, glossary_dir) -> decisions``, in
        case order; the CLI passes one that builds the real pipeline.
    glossary_dir (str | Path | None): The "new" glossaries; default bundled.
    archive_root (str | Path | None): Where versions are archived; defaults to
        ``<glossary_dir>/archive``.
    RETURNS (ReplayReport): Per case the archived (old) and current (new)
        decision; ``report.changed`` lists the ones that differ.
    """
    cases = read_cases(cases_jsonl) if isinstance(cases_jsonl, (str, Path)) else list(cases_jsonl)
    new_dir = Path(glossary_dir) if glossary_dir else bundled_glossary_dir()
    # a glossary directory keeps its own archive (``approve`` writes it there)
    old_dir = archive_dir(archived_version, archive_root or new_dir / "archive")
    if not new_dir.is_dir():
        raise GovernanceError(f"{new_dir}: not a glossary directory")
    old = _decisions(decide_fn, cases, old_dir)
    new = _decisions(decide_fn, cases, new_dir)
    report = ReplayReport(archived_version, str(old_dir), str(new_dir))
    for i, (case, a, b) in enumerate(zip(cases, old, new)):
        cid = case.get("id") if isinstance(case, dict) else None
        report.rows.append(ReplayRow(i, cid if cid is not None else a.get("id", f"#{i + 1}"),
                                     a["decision"], b["decision"], _codes(a), _codes(b)))
    return report

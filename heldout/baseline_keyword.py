"""A naive keyword baseline: the floor any real pipeline must beat.

    python -m heldout.baseline_keyword [dev|test]   # Markdown metrics of the baseline

Rule: any critical phrase in the text (case-insensitive substring) -> block;
else any clearance phrase -> proceed; else escalate. No negation, hedging,
domains, readings, typos or drafts: exactly what a keyword list does.

Phrases come from the repository's ``glossaries/*.yaml`` when present (read
tolerantly: every string under a term whose ``signal`` is clear or
critical_block, minus metadata keys such as owner or definition), otherwise
from the held-out bank's own copy of the spec's glossary.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import srsly

from . import HELDOUT_DIR

GLOSSARY_DIR = HELDOUT_DIR.parent / "glossaries"
SIGNALS = ("clear", "critical_block")
# Keys under a term whose strings are metadata, not phrases.
_SKIP_KEYS = {
    "id", "signal", "definition", "description", "owner", "approver", "reviewer", "status",
    "field", "contract", "notes", "note", "version", "unit", "kind", "source", "domain", "frame",
}  # fmt: skip


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if str(key) not in _SKIP_KEYS:
                yield from _strings(value)


def _terms(node):
    """Every dict in a YAML tree that has a ``signal`` key."""
    if isinstance(node, dict):
        if "signal" in node:
            yield node
        for value in node.values():
            yield from _terms(value)
    elif isinstance(node, list):
        for item in node:
            yield from _terms(item)


def phrases_from_glossaries(directory: Path) -> dict[str, set[str]]:
    """{signal: phrases} from every YAML file in ``directory`` (empty sets if none)."""
    out: dict[str, set[str]] = {s: set() for s in SIGNALS}
    if not directory.is_dir():
        return out
    for path in sorted(list(directory.glob("*.yaml")) + list(directory.glob("*.yml"))):
        try:
            data = srsly.yaml_loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a broken file is the glossary's problem, not the baseline's
        for term in _terms(data):
            if term.get("signal") in SIGNALS:
                out[term["signal"]].update(s.strip() for s in _strings(term) if s.strip())
    return out


def phrases_from_bank() -> dict[str, set[str]]:
    """{signal: phrases} from heldout/bank/glossary.yaml: the spec's listed phrases, abbreviations
    and translations (not the bank's extra hyphen/space variants or inflections, which a keyword
    list copied from the spec would not have)."""
    from .bank import Bank

    bank = Bank()
    out: dict[str, set[str]] = {s: set() for s in SIGNALS}
    for s in bank.all_surfaces():
        signal = bank.terms[s.term].signal
        if signal in SIGNALS and s.via in ("phrase", "abbrev", "translation"):
            out[signal].add(s.text)
    return out


@lru_cache(maxsize=4)
def load_phrases(directory: Path = GLOSSARY_DIR) -> tuple[str, dict[str, tuple[str, ...]]]:
    """(source, {signal: lower-cased phrases}); falls back to the bank if the glossaries give nothing."""
    found = phrases_from_glossaries(directory)
    source = str(directory)
    if not all(found[s] for s in SIGNALS):
        found, source = phrases_from_bank(), "heldout/bank/glossary.yaml"
    return source, {s: tuple(sorted({p.lower() for p in found[s]})) for s in SIGNALS}


def decide(case: dict, directory: Path = GLOSSARY_DIR) -> dict:
    """A §5 decision dict for one case."""
    _, phrases = load_phrases(directory)
    text = case.get("text")
    if not isinstance(text, str):
        decision, message = "escalate", "text is not a string"
    else:
        lower = text.lower()
        critical = [p for p in phrases["critical_block"] if p in lower]
        clear = [p for p in phrases["clear"] if p in lower]
        if critical:
            decision, message = "block", f"critical phrase {critical[0]!r}"
        elif clear:
            decision, message = "proceed", f"clearance phrase {clear[0]!r}"
        else:
            decision, message = "escalate", "no keyword"
    return {
        "id": case.get("id"),
        "decision": decision,
        "reasons": [{"code": "baseline_keyword", "outcome": decision, "message": message}],
    }


def main(argv: list[str] | None = None) -> int:
    from . import load_cases
    from .metrics import evaluate, render_markdown

    split = (argv if argv is not None else sys.argv[1:]) or ["dev"]
    cases = load_cases(split[0])
    source, _ = load_phrases()
    results = evaluate(cases, [decide(c) for c in cases])
    sys.stdout.write(render_markdown(results, title=f"Keyword baseline on {split[0]} (phrases from {source})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

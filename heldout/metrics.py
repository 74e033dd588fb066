"""Score decisions against held-out labels (pure functions; no engine import).

    python -m heldout.metrics CASES.jsonl DECISIONS.jsonl [--json OUT] [--markdown OUT]

Inputs: the cases (each with ``id``, ``category``, ``expected``, ``facts``) and
the decisions in the spec's §5 format (``id``, ``decision``, ``reasons``).
Decisions are matched to cases by id. A case with no decision, a ``None``, a
decision that is not a dict, or a ``decision`` value outside proceed /
escalate / block counts as a **crash**: it is wrong for accuracy, and it is
neither a block nor a proceed.

Reported per category, overall, and overall without ``novel_paraphrase``
(whose labels are the intended meaning of unlisted wording, so a system that
escalates them is safe but counted wrong):

- n, accuracy with a Wilson 95 % interval
- critical recall: of the cases labelled block, the share blocked (Wilson)
- proceed recall: of the cases labelled proceed, the share that proceeded (Wilson)
- unsafe proceeds: decided proceed where the label is escalate or block
- crashes
- a 3x3 confusion matrix (rows: label, columns: decision; crashes are
  counted separately, not in the matrix)

and every miss with id, text (first 200 characters), label, decision and
reason codes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

DECISIONS = ("proceed", "escalate", "block")
Z95 = 1.959963984540054
NOVEL = "novel_paraphrase"


def wilson(successes: int, n: int, z: float = Z95) -> dict | None:
    """Wilson score interval for a binomial proportion; None when n is 0."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return {"successes": successes, "n": n, "p": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


def _decision_of(d) -> str | None:
    """The decision string, or None for a crash."""
    if not isinstance(d, dict):
        return None
    value = d.get("decision")
    return value if value in DECISIONS else None


def _reason_codes(d) -> list[str]:
    if not isinstance(d, dict) or not isinstance(d.get("reasons"), list):
        return []
    return [str(r.get("code")) for r in d["reasons"] if isinstance(r, dict)]


def _text_preview(text, limit: int = 200) -> str:
    if not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def _rows(cases: list[dict], decisions: list) -> list[dict]:
    by_id: dict = {}
    for d in decisions:
        if isinstance(d, dict) and "id" in d:
            by_id.setdefault(d["id"], d)
    rows = []
    for case in cases:
        d = by_id.get(case["id"])
        rows.append(
            {
                "id": case["id"],
                "category": case.get("category"),
                "label": case["expected"],
                "decision": _decision_of(d),
                "codes": _reason_codes(d),
                "text": case.get("text"),
            }
        )
    return rows


def summarise(rows: list[dict]) -> dict:
    """The metric block for one group of scored rows."""
    n = len(rows)
    correct = sum(r["decision"] == r["label"] for r in rows)
    blocks = [r for r in rows if r["label"] == "block"]
    proceeds = [r for r in rows if r["label"] == "proceed"]
    confusion = {label: {d: 0 for d in DECISIONS} for label in DECISIONS}
    for r in rows:
        if r["decision"] is not None:
            confusion[r["label"]][r["decision"]] += 1
    return {
        "n": n,
        "correct": correct,
        "accuracy": wilson(correct, n),
        "critical_recall": wilson(sum(r["decision"] == "block" for r in blocks), len(blocks)),
        "proceed_recall": wilson(sum(r["decision"] == "proceed" for r in proceeds), len(proceeds)),
        "unsafe_proceeds": sum(r["decision"] == "proceed" and r["label"] != "proceed" for r in rows),
        "crashes": sum(r["decision"] is None for r in rows),
        "labels": {label: sum(r["label"] == label for r in rows) for label in DECISIONS},
        "confusion": confusion,
    }


def harmless_block(cases: list[dict], rows: list[dict]) -> dict | None:
    """Proceed rate on the v2 cases marked harmless (the teaching curve's figure, spec §4.2).

    Split by whether a case holds an unexplained word that no dev text has
    (``facts.unseen_in_dev``): a review round over dev cannot teach those.
    None for splits without the flag (v1).
    """
    flagged = [(c, r) for c, r in zip(cases, rows) if isinstance(c.get("facts"), dict) and "harmless" in c["facts"]]
    if not flagged:
        return None

    def block(pairs):
        return {"n": len(pairs), "proceed_rate": wilson(sum(r["decision"] == "proceed" for _c, r in pairs), len(pairs))}

    harmless = [(c, r) for c, r in flagged if c["facts"]["harmless"]]
    unseen = [(c, r) for c, r in harmless if c["facts"].get("unseen_in_dev")]
    return {
        **block(harmless),
        "with_word_unseen_in_dev": block(unseen),
        "without_word_unseen_in_dev": block([(c, r) for c, r in harmless if not c["facts"].get("unseen_in_dev")]),
    }


def evaluate(cases: list[dict], decisions: list) -> dict:
    """All metrics as a JSON-serialisable dict."""
    rows = _rows(cases, decisions)
    categories = sorted({r["category"] for r in rows}, key=str)
    return {
        "harmless": harmless_block(cases, rows),
        "overall": summarise(rows),
        "overall_excluding_novel_paraphrase": summarise([r for r in rows if r["category"] != NOVEL]),
        "by_category": {c: summarise([r for r in rows if r["category"] == c]) for c in categories},
        "misses": [
            {
                "id": r["id"],
                "category": r["category"],
                "text": _text_preview(r["text"]),
                "label": r["label"],
                "decision": r["decision"] or "crash",
                "reason_codes": r["codes"],
            }
            for r in rows
            if r["decision"] != r["label"]
        ],
    }


# ---------------------------------------------------------------------------
# Markdown


def _pct(w: dict | None) -> str:
    if w is None:
        return "–"
    return f"{100 * w['p']:.1f} % [{100 * w['low']:.1f}, {100 * w['high']:.1f}] ({w['successes']}/{w['n']})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _row(name: str, s: dict) -> str:
    return (
        f"| {name} | {s['n']} | {_pct(s['accuracy'])} | {_pct(s['critical_recall'])} | "
        f"{_pct(s['proceed_recall'])} | {s['unsafe_proceeds']} | {s['crashes']} |"
    )


def render_markdown(results: dict, title: str = "Held-out evaluation") -> str:
    """A human-readable report of :func:`evaluate`'s output."""
    head = "| group | n | accuracy (95 % Wilson) | critical recall | proceed recall | unsafe proceeds | crashes |"
    rule = "|---|---:|---|---|---|---:|---:|"
    lines = [f"# {title}", "", head, rule]
    lines.append(_row("**overall**", results["overall"]))
    lines.append(_row("**overall excl. novel_paraphrase**", results["overall_excluding_novel_paraphrase"]))
    harmless = results.get("harmless")
    if harmless:
        lines += ["", "## Harmless cases (clearance + only harmless unexplained words): proceed rate", ""]
        lines.append(f"- all: {_pct(harmless['proceed_rate'])}")
        lines.append(f"- with a word unseen in dev: {_pct(harmless['with_word_unseen_in_dev']['proceed_rate'])}")
        lines.append(f"- without: {_pct(harmless['without_word_unseen_in_dev']['proceed_rate'])}")
    lines += ["", "## By category", "", head, rule]
    for name, s in results["by_category"].items():
        lines.append(_row(name, s))
    lines += ["", "## Confusion (rows: label, columns: decision; crashes not included)", ""]
    lines.append("| label \\ decision | " + " | ".join(DECISIONS) + " |")
    lines.append("|---|" + "---:|" * len(DECISIONS))
    conf = results["overall"]["confusion"]
    for label in DECISIONS:
        lines.append(f"| {label} | " + " | ".join(str(conf[label][d]) for d in DECISIONS) + " |")
    misses = results["misses"]
    lines += ["", f"## Misses ({len(misses)})", ""]
    if misses:
        lines.append("| id | category | label | decision | reason codes | text |")
        lines.append("|---|---|---|---|---|---|")
        for m in misses:
            codes = ", ".join(m["reason_codes"]) or "–"
            lines.append(
                f"| {m['id']} | {m['category']} | {m['label']} | {m['decision']} | {_cell(codes)} | {_cell(m['text'])} |"
            )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# CLI


def _read_decisions(path: str) -> list:
    """Decision lines; a line that is not JSON becomes None (a crash for that position)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                out.append(None)
    return out


def main(argv: list[str] | None = None) -> int:
    from . import load_cases

    parser = argparse.ArgumentParser(prog="python -m heldout.metrics", description="Score decisions against held-out labels.")
    parser.add_argument("cases", help="cases JSONL (or 'dev' / 'test')")
    parser.add_argument("decisions", help="decisions JSONL, spec §5 format")
    parser.add_argument("--json", help="write the metrics dict here")
    parser.add_argument("--markdown", help="write the Markdown report here (default: stdout)")
    args = parser.parse_args(argv)
    results = evaluate(load_cases(args.cases), _read_decisions(args.decisions))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2, ensure_ascii=False)
    report = render_markdown(results)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(report)
    else:
        sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

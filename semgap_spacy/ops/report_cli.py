"""The ``drift`` and ``drafts`` commands: reports a person reads, from logs.

Both wrap pure functions (``ops.drift`` and
``ops.draft_miner``) so the people who watch a deployment need no
Python: ``drift`` compares windows of logged decisions and says in words and
numbers what moved; ``drafts`` lists phrases the glossary may be missing,
mined from texts the pipeline escalated as unrecognised. The reports are
plain text or Markdown (or JSON for a program); ``drift --png`` also draws
the figures, with matplotlib from the optional ``plot`` extra.

``drift`` reads logs a program wrote, so a broken line is an error with its
line number (exit 1), never a report over part of the data. ``drafts`` reads
cases, as ``assess`` does, often written by hand or exported from another
system: a line that is not a JSON object is skipped and counted in the report
(with its line number), never the end of the run; the drafts are suggestions
for a person, and the ones the other lines give are worth having.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import srsly

from .cli_support import guard, positive_int, standalone_main
from .draft_miner import (CandidateWriteError, check_candidates_path, mine_candidates, select_texts,
                          write_candidates)
from .drift import RATE_NAMES, DriftReport, compare_windows, load_config, monitor
from ..util.jsonl import file_lines, read_jsonl
from ..util.safe_output import OutputClash, refuse_clash

FORMATS = ("text", "markdown", "json")
# Exit code of ``drift --fail-on-drift`` when a threshold was crossed, so a
# scheduled job can tell "drift found" (3) from "the command failed" (1).
DRIFT_FOUND = 3


class ReportError(ValueError):
    """A problem with the command's input; its message is the whole story."""


def register(subparsers: "argparse._SubParsersAction") -> None:
    """Add the ``drift`` and ``drafts`` commands to an argparse CLI."""
    p = subparsers.add_parser(
        "drift", help="compare windows of logged decisions and report what moved",
        description="Compare a current window of decision records (JSONL, one decision per line, "
                    "as assess writes them, optionally with term_ids, fields, spelling_corrected, "
                    "unrecognised) with a baseline: rates, the term mix (PSI) and field medians (from the "
                    "values the decisions' reasons carry). Either --baseline and "
                    "--current, or --records with --window (every window against the first).")
    p.add_argument("--baseline", help="decision records of a period judged normal")
    p.add_argument("--current", help="decision records to check against the baseline")
    p.add_argument("--records", help="decision records in time order, cut into windows")
    p.add_argument("--window", type=int, help="records per window, with --records")
    p.add_argument("--config", help="YAML/JSON file of threshold overrides (keys of data/drift.yaml 'drift')")
    _output_args(p)
    p.add_argument("--png", help="also draw the figures to this PNG file (needs the 'plot' extra)")
    p.add_argument("--fail-on-drift", action="store_true",
                   help=f"exit {DRIFT_FOUND} when any threshold is crossed")
    p.set_defaults(func=guard(_cmd_drift, (ReportError, CandidateWriteError, OutputClash, OSError),
                              inputs=("baseline", "current", "records", "config")))

    p = subparsers.add_parser(
        "drafts", help="propose draft glossary phrases from texts escalated as unrecognised",
        description="Mine frequent phrases near outcome and field words in the texts the pipeline "
                    "escalated because it recognised nothing. Candidates are drafts only: a person "
                    "must define, own and approve each before it enters a glossary.")
    p.add_argument("--cases", required=True, help="the cases (JSONL, spec §5), with id and text")
    p.add_argument("--decisions", help="their decisions (JSONL); default: decide the cases now")
    p.add_argument("--glossaries", default=None,
                   help="glossary directory whose phrases are already known (default: bundled)")
    p.add_argument("--max", type=positive_int, default=None, dest="max_candidates",
                   help="at most this many candidates, 1 or more (default: the config's max_candidates)")
    p.add_argument("--config", help="YAML/JSON file of miner overrides (keys of data/drift.yaml 'miner')")
    _output_args(p)
    p.add_argument("--write", help="also write the drafts to this candidates file: YAML when it is named "
                                   ".yaml or .yml, JSON when .json, other names refused (refused inside "
                                   "glossaries/, except glossaries/candidates/)")
    p.set_defaults(func=guard(_cmd_drafts, (ReportError, CandidateWriteError, OutputClash, OSError),
                              inputs=("cases", "decisions", "config")))


def _output_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    p.add_argument("--out", default=None, help="write the report to this file (default: stdout)")


# -- input -------------------------------------------------------------------


def _records(path: str, what: str) -> List[dict]:
    rows = read_jsonl(path, what, ReportError)
    for number, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise ReportError(f"{path}: {what} {number} is JSON {type(row).__name__}, not an object")
    return rows


def _object_lines(path: str) -> Tuple[List[dict], List[int]]:
    """The JSON objects of a file, and the numbers of its lines that are not one (skipped).

    ``drafts`` mines what it can read: as ``assess`` decides every line, one broken or
    non-object line costs that line, never the run; the report counts the skipped ones.
    """
    rows: List[dict] = []
    skipped: List[int] = []
    for lineno, value, problem in file_lines(path):
        if problem is None and isinstance(value, dict):
            rows.append(value)
        else:
            skipped.append(lineno)
    return rows, skipped


def _overrides(path: Optional[str], section: str) -> Optional[Dict[str, Any]]:
    """A config file's overrides; a file holding the whole data/drift.yaml is read at its section."""
    if not path:
        return None
    try:
        data = srsly.read_yaml(path)
    except (ValueError, srsly.ruamel_yaml.YAMLError) as exc:
        raise ReportError(f"{path}: not YAML or JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ReportError(f"{path}: the config must be a mapping of settings")
    return data.get(section, data) if isinstance(data.get(section), dict) else data


def _emit(text: str, out: Optional[str]) -> None:
    if out:  # refused before any work if it is an input (``refuse_clash``)
        Path(out).write_text(text, encoding="utf-8")
        print(f"report written to {out}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str) -> List[str]:
    cells = [[str(c) for c in headers]] + [[_cell(c) for c in row] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        return lines + ["| " + " | ".join(r) + " |" for r in cells[1:]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1000 else f"{value:.4g}"
    return str(value)


def _heading(title: str, fmt: str, level: int = 2) -> List[str]:
    return ["", "#" * level + " " + title, ""] if fmt == "markdown" else ["", title.upper(), ""]


def _bullets(items: Sequence[str]) -> List[str]:
    return [f"- {item}" for item in items]


# -- drift -------------------------------------------------------------------


def _cmd_drift(args: argparse.Namespace) -> int:
    """Compare windows of decision records and report what moved."""
    refuse_clash(args.out, [args.records, args.baseline, args.current])
    if args.png:
        _require_matplotlib()
    pair = args.baseline is not None or args.current is not None
    if pair == (args.records is not None):
        raise ReportError("give either --baseline and --current, or --records with --window")
    config = load_config(_overrides(args.config, "drift"))
    if pair:
        if not (args.baseline and args.current):
            raise ReportError("--baseline and --current go together")
        if args.window is not None:
            raise ReportError("--window goes with --records, not with --baseline/--current")
        reports = [compare_windows(_records(args.baseline, "record"), _records(args.current, "record"), config)]
        source = f"baseline {args.baseline}, current {args.current}"
    else:
        if args.window is None or args.window <= 0:
            raise ReportError("--records needs --window N, a positive number of records per window")
        records = _records(args.records, "record")
        reports = monitor(records, args.window, config)
        if not reports:
            raise ReportError(f"{args.records}: {len(records)} records make one window of {args.window} "
                              "or less; nothing to compare with the baseline")
        source = f"{args.records}, windows of {args.window} records, each against the first"
    if args.format == "json":
        text = json.dumps({"source": source, "reports": [r.to_dict() for r in reports]},
                          ensure_ascii=False, indent=2) + "\n"
    else:
        text = drift_report(reports, source, config, args.format)
    _emit(text, args.out)
    if args.png:
        plot_drift(reports, config, args.png)
        print(f"chart written to {args.png}", file=sys.stderr)
    drifted = any(r.drifted for r in reports)
    return DRIFT_FOUND if drifted and args.fail_on_drift else 0


def drift_report(reports: Sequence[DriftReport], source: str, config: Any, fmt: str = "text") -> str:
    """A readable drift report: a verdict, the figures per window, then alerts and notes.

    reports (Sequence[DriftReport]): One per current window, all against one baseline.
    source (str): Where the records came from, for the header.
    config (DriftConfig): The thresholds used, quoted next to the figures.
    fmt (str): "text" or "markdown".
    RETURNS (str): The report.
    """
    drifted = [i for i, r in enumerate(reports, 1) if r.drifted]
    verdict = (f"DRIFT: {sum(len(reports[i - 1].alerts) for i in drifted)} alert(s) in "
               f"{len(drifted)} of {len(reports)} window(s)" if drifted else
               f"no drift found in {len(reports)} window(s)")
    lines = [("# " if fmt == "markdown" else "") + "semgap drift report", "",
             f"Records: {source}", f"Result: {verdict}"]
    base = reports[0].baseline
    lines += _heading("Figures", fmt)
    rows = [["baseline", base.n, None, *(getattr(base, r) for r in RATE_NAMES), "—"]]
    for i, r in enumerate(reports, 1):
        rows.append([f"window {i}" if len(reports) > 1 else "current", r.current.n, r.psi,
                     *(getattr(r.current, name) for name in RATE_NAMES), len(r.alerts)])
    lines += _table(["window", "records", "term-mix PSI", *RATE_NAMES, "alerts"], rows, fmt)
    lo, hi = config.median_ratio_alert
    lines += ["", f"PSI warns above {config.psi_warn} and alerts above {config.psi_alert}; a rate alerts "
              "when it rises by more than " + ", ".join(f"{k} {v}" for k, v in
                                                        sorted(config.rate_increase_alert.items())) + "."]
    fields = sorted({f for r in reports for f in r.median_ratios} | set(base.field_medians))
    if fields:
        lines += _heading("Field medians (canonical units)", fmt)
        rows = []
        for name in fields:
            row = [name, base.field_medians.get(name)]
            for r in reports:
                row += [r.current.field_medians.get(name), r.median_ratios.get(name)]
            rows.append(row)
        heads = ["field", "baseline"]
        for i in range(1, len(reports) + 1):
            tag = f"window {i}" if len(reports) > 1 else "current"
            heads += [tag, f"ratio {i}" if len(reports) > 1 else "ratio"]
        lines += _table(heads, rows, fmt)
        lines += ["", f"A ratio outside [{lo}, {hi}] alerts: a unit changed at the source "
                  "(minutes sent as hours) shows as about 60 or 1/60."]
    lines += _heading("Alerts", fmt)
    alerts = [(i, a) for i, r in enumerate(reports, 1) for a in r.alerts]
    lines += _bullets([(f"window {i}: " if len(reports) > 1 else "") + a.message for i, a in alerts]) or ["none"]
    notes = [(i, n) for i, r in enumerate(reports, 1) for n in r.notes]
    if notes:
        lines += _heading("Notes", fmt)
        lines += _bullets([(f"window {i}: " if len(reports) > 1 else "") + n for i, n in notes])
    return "\n".join(lines) + "\n"


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ReportError("--png needs matplotlib, which semgap_spacy installs only as an extra: "
                          "pip install 'semgap_spacy[plot]'") from None


def plot_drift(reports: Sequence[DriftReport], config: Any, path: str) -> None:
    """Draw the drift figures to a PNG: rates, term-mix PSI and field median ratios per window.

    Window 0 is the baseline; the threshold lines are the config's, so a point
    above a dashed line is an alert in the text report too.
    """
    _require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")  # files only: never needs a display
    import matplotlib.pyplot as plt

    xs = list(range(len(reports) + 1))
    names = ["baseline"] + ([f"w{i}" for i in range(1, len(reports) + 1)] if len(reports) > 1 else ["current"])
    fields = sorted({f for r in reports for f in r.median_ratios})
    fig, axes = plt.subplots(3 if fields else 2, 1, figsize=(8, 9 if fields else 6.5), sharex=True)
    rates = axes[0]
    for name in RATE_NAMES:
        values = [getattr(reports[0].baseline, name)] + [getattr(r.current, name) for r in reports]
        rates.plot(xs, values, marker="o", label=name)
    rates.set_ylabel("share of records")
    rates.set_ylim(bottom=0)
    rates.legend(fontsize="small")
    rates.set_title("semgap drift: each window against the baseline")
    psi_ax = axes[1]
    psi_ax.bar(xs[1:], [r.psi if r.psi is not None else 0.0 for r in reports], color="#6d9eeb")
    psi_ax.axhline(config.psi_warn, color="#e69138", linestyle="--", label=f"warn {config.psi_warn}")
    psi_ax.axhline(config.psi_alert, color="#c62828", linestyle="--", label=f"alert {config.psi_alert}")
    psi_ax.set_ylabel("term-mix PSI")
    psi_ax.legend(fontsize="small")
    if fields:
        ratio_ax = axes[2]
        for name in fields:
            values = [1.0] + [r.median_ratios.get(name) for r in reports]
            ratio_ax.plot(xs, [v if v else float("nan") for v in values], marker="o", label=name)
        lo, hi = config.median_ratio_alert
        ratio_ax.axhspan(lo, hi, color="#b7e4c7", alpha=0.4, label=f"accepted [{lo}, {hi}]")
        ratio_ax.set_yscale("log")
        ratio_ax.set_ylabel("median / baseline median")
        ratio_ax.legend(fontsize="small")
    axes[-1].set_xticks(xs)
    axes[-1].set_xticklabels(names)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# -- drafts ------------------------------------------------------------------


def _cmd_drafts(args: argparse.Namespace) -> int:
    """Mine draft phrases from cases escalated as unrecognised and report them."""
    from ..glossary import GlossaryError, load_glossaries

    refuse_clash(args.out, [args.cases, args.decisions])
    if args.write:
        check_candidates_path(args.write)  # a refused --write is said before any work, not after it
    overrides = _overrides(args.config, "miner")
    cases, skipped = _object_lines(args.cases)
    try:
        glossary = load_glossaries(args.glossaries)
    except GlossaryError as exc:
        raise ReportError(str(exc)) from None
    skipped_decisions: List[int] = []
    if args.decisions:
        decisions, skipped_decisions = _object_lines(args.decisions)
        decided = f"decisions from {args.decisions}"
    else:
        from ..api import build_pipeline, decide_cases

        decisions = list(decide_cases(build_pipeline(glossary), cases))
        decided = f"decided now under glossary {glossary.version}"
    texts = select_texts(cases, decisions)
    known = [text for _domain, term in glossary.terms() for text, *_rest in term.variants()]
    try:
        candidates = mine_candidates(texts, known_phrases=known, config=overrides,
                                     max_candidates=args.max_candidates)
    except ValueError as exc:  # a bad override: the miner's message names it
        raise ReportError(str(exc)) from None
    if args.write:
        written = write_candidates(candidates, args.write, source=args.cases)
        print(f"{len(candidates)} draft candidates written to {written}", file=sys.stderr)
    skips = {"cases": (args.cases, skipped), "decisions": (args.decisions, skipped_decisions)}
    if args.format == "json":
        text = json.dumps({"cases": len(cases), "unrecognised": len(texts),
                           "skipped_lines": {what: len(lines) for what, (_path, lines) in skips.items()},
                           "candidates": [c.to_dict() for c in candidates]}, ensure_ascii=False, indent=2) + "\n"
    else:
        text = drafts_report(candidates, len(cases), len(texts), f"{args.cases}, {decided}", args.format,
                             skipped=[_skipped_note(path, lines) for path, lines in skips.values() if lines])
    _emit(text, args.out)
    return 0


def _skipped_note(path: str, lines: Sequence[int], shown: int = 10) -> str:
    """ "3 lines of PATH are not JSON objects (lines 2, 5, 9)", the first ``shown`` numbers named."""
    numbers = ", ".join(str(n) for n in lines[:shown]) + (", ..." if len(lines) > shown else "")
    one = len(lines) == 1
    return (f"{len(lines)} line{'' if one else 's'} of {path} {'is' if one else 'are'} not "
            f"{'a JSON object' if one else 'JSON objects'} (line{'' if one else 's'} {numbers})")


def drafts_report(candidates: Sequence[Any], n_cases: int, n_texts: int, source: str,
                  fmt: str = "text", skipped: Sequence[str] = ()) -> str:
    """A readable list of draft candidates, with how many texts each came from.

    skipped (Sequence[str]): Notes on input lines that were skipped, one per file.
    """
    lines = [("# " if fmt == "markdown" else "") + "semgap draft-term candidates", "",
             f"Cases: {source}",
             f"Escalated as unrecognised: {n_texts} of {n_cases} cases"]
    lines += [f"Skipped: {note}" for note in skipped]
    lines += ["Every candidate is a draft: it clears and blocks nothing until a person defines, "
              "owns and approves it in a glossary."]
    lines += _heading("Candidates", fmt)
    if candidates:
        lines += _table(["phrase", "texts", "example cases"],
                        [[c.phrase, c.count, ", ".join(c.example_case_ids)] for c in candidates], fmt)
    else:
        lines.append("none: no phrase near an outcome or field word occurred often enough")
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``drift`` / ``drafts`` alone: ``python -m semgap_spacy.ops.report_cli drift ...``."""
    return standalone_main(register, argv)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["DRIFT_FOUND", "ReportError", "drafts_report", "drift_report", "plot_drift", "register"]

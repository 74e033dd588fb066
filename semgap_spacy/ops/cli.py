"""``python -m semgap_spacy``: assess cases, show a demo, and run the
glossary and review-queue tools.

Every input line gets exactly one output line, in order, whatever it holds;
the run never stops on a bad case. Errors about the command itself (a
missing file) are one line on stderr and a non-zero exit code, no traceback.
"""
import argparse
import json
import sys
from contextlib import nullcontext
from typing import Iterator, List, Optional, Tuple

from ..api import build_pipeline, case_doc, decide_cases, pipeline_glossary
from ..core.reasons import make_reason
from ..util.jsonl import iter_lines
from ..util.safe_output import output_file, one_line
from . import glossary_cli, provenance_cli, queue_cli, report_cli

DEMO_CASES = [
    {"id": "demo-01", "domain": "medical_logistics", "text": "xm neg, cold ischemia 30 hours",
     "readings": {"cold_ischemia_elapsed": {"value": 30, "unit": "h"}}},
    {"id": "demo-02", "domain": "medical_logistics", "text": "Negative crossmatch, cold ischemia 6 h.",
     "readings": {"cold_ischemia_elapsed": {"value": 6, "unit": "h"}}},
    {"id": "demo-03", "domain": "medical_logistics", "text": "No delays, crossmatch positive"},
    {"id": "demo-04", "domain": "medical_logistics", "text": "prueba cruzada positiva"},
    {"id": "demo-05", "domain": "medical_logistics", "text": "crossmatch result pending"},
    {"id": "demo-06", "domain": "mortgage", "text": "File is not clear to close"},
    {"id": "demo-07", "domain": "mortgage", "text": "Clear to close issued; DTI 38%",
     "readings": {"dti_ratio": {"value": 38, "unit": "%"}}},
    {"id": "demo-08", "domain": "mortgage", "text": "Clear to clsoe"},
    {"id": "demo-09", "domain": "pharma_qa", "text": "Charge freigegeben"},
    {"id": "demo-10", "domain": "pharma_qa", "text": "Batch released, OOS noted on assay"},
    {"id": "demo-11", "domain": "aviation_maintenance", "text": "Released to service, tire pressure 200 psi",
     "readings": {"tire_pressure": {"value": 200, "unit": "psi"}}},
    {"id": "demo-12", "domain": "aviation_maintenance", "text": "Airworthy once the open defect is closed"},
    {"id": "demo-13", "domain": "aviation_maintenance", "text": "CRS signed",
     "readings": {"hours_since_inspection": {"start": "2026-11-28T10:00:00Z"}}, "now": "2026-11-30T10:00:00Z"},
    {"id": "demo-14", "domain": "dentistry", "text": "all clear"},
]


def read_cases(stream) -> Iterator[Tuple[int, object, Optional[dict]]]:
    """(line number, case, problem) per line of a JSONL byte stream (strict JSON, see ``jsonl``)."""
    for number, value, problem in iter_lines(stream):
        if problem is not None:
            code, message = problem
            yield number, None, make_reason(code, f"line {number}: {message}")
        elif not isinstance(value, dict):
            yield number, None, make_reason("invalid_case",
                                            f"line {number} is JSON {type(value).__name__}, not an object")
        else:
            yield number, value, None


def _cmd_assess(args) -> int:
    try:
        source = open(args.cases, "rb") if args.cases != "-" else nullcontext(sys.stdin.buffer)
    except OSError as exc:
        print(f"semgap: cannot open {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    with source as stream:
        nlp = build_pipeline(args.glossaries)  # before OUT is touched: a bad glossary leaves it as it was
        bad_lines: List[Optional[int]] = []  # per case: its line number when it did not parse

        def docs():
            for number, case, problem in read_cases(stream):
                bad_lines.append(number if problem is not None else None)
                yield case_doc(nlp, case if problem is None else {}, problems=[problem] if problem else None)

        count = 0
        # OUT is replaced only when every line has its decision (see safe_output).
        with output_file(args.out) as out:
            for decision in decide_cases(nlp, docs(), batch_size=args.batch_size):
                if bad_lines[count] is not None:
                    decision["id"], decision["line"] = None, bad_lines[count]
                out.write(json.dumps(decision, ensure_ascii=False) + "\n")
                count += 1
            if count != len(bad_lines):
                raise RuntimeError(f"{len(bad_lines)} cases read but {count} decisions made")
    print(f"semgap: {count} decisions written to {args.out}", file=sys.stderr)
    return 0


def _cmd_demo(args) -> int:
    nlp = build_pipeline(args.glossaries)
    glossary = pipeline_glossary(nlp)
    print(f"semgap_spacy demo — glossary {glossary.version} sha256 {glossary.sha256[:12]}…")
    print(f"{'id':8} {'domain':21} {'decision':9} {'reasons':44} text")
    for decision, case in zip(decide_cases(nlp, DEMO_CASES), DEMO_CASES):
        codes = ",".join(dict.fromkeys(r["code"] for r in decision["reasons"]))
        print(f"{case['id']:8} {case['domain']:21} {decision['decision']:9} {codes[:44]:44} {case['text']}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m semgap_spacy", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("assess", help="decide every case of a JSONL file")
    p.add_argument("--cases", required=True, help="input JSONL, one case per line ('-' for stdin)")
    p.add_argument("--out", required=True, help="output JSONL, one decision per line ('-' for stdout)")
    p.add_argument("--glossaries", default=None, help="directory of domain glossaries (default: bundled)")
    p.add_argument("--batch-size", type=int, default=256)
    p.set_defaults(func=_cmd_assess)
    p = sub.add_parser("demo", help="decide a dozen examples from the spec and print a table")
    p.add_argument("--glossaries", default=None)
    p.set_defaults(func=_cmd_demo)
    for module in (glossary_cli, queue_cli, report_cli, provenance_cli):
        module.register(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a last line of defence: a message, never a traceback
        print(f"semgap: {type(exc).__name__}: {one_line(exc)}", file=sys.stderr)
        return 1

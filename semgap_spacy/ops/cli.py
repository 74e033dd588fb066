"""``python -m semgap_spacy``: assess cases, show a demo, and run the
glossary and review-queue tools.

Every input line gets exactly one output line, in order, whatever it holds;
the run never stops on a bad case. Errors about the command itself (a
missing file) are one line on stderr and a non-zero exit code, no traceback.
"""
import argparse
import signal
import sys
from contextlib import contextmanager, nullcontext
from typing import Iterator, List, Optional

from ..api import build_pipeline, decide_cases, decide_lines, pipeline_glossary, with_progress
from ..pipes.base import load_pipeline
from ..util.heap import settle_owned_process
from ..util.live_lines import LiveLines
from ..util.safe_output import OutputClash, output_file, one_line, refuse_clash
from .cli_support import SubCommandParser, positive_int, reader_gone
from ..util.signals import handled, restore_interrupt

#: commands of this module; the others come from the tool modules (glossary, queue, report,
#: provenance), which ``assess`` and ``demo`` never import: their start-up is what a user waits for
OWN_COMMANDS = ("assess", "demo")

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


def count_lines(path: str) -> Optional[int]:
    """Lines of a file, counted in blocks (for the progress bar); None for stdin or a failure."""
    if path == "-":
        return None
    try:
        with open(path, "rb") as fh:
            count, last = 0, b"\n"
            for block in iter(lambda: fh.read(1 << 20), b""):
                count += block.count(b"\n")
                last = block[-1:]
            return count + (last != b"\n")
    except OSError:
        return None


def _cmd_assess(args) -> int:
    if args.workers < 0:
        print("semgap: --workers must be 0 (one per CPU) or more", file=sys.stderr)
        return 2
    if not args.out.strip():
        print("semgap: --out must name a file ('-' for stdout)", file=sys.stderr)
        return 2
    if args.engine != "dask":
        given = [flag for flag, value in (("--blocksize", args.blocksize), ("--scheduler", args.scheduler))
                 if value is not None]
        if given:
            print(f"semgap: {' and '.join(given)} {'is' if len(given) == 1 else 'are'} for --engine dask only",
                  file=sys.stderr)
            return 2
    try:
        refuse_clash(args.out, [args.cases], folders=[args.glossaries, args.pipeline])
    except OutputClash as exc:
        print(f"semgap: {exc}", file=sys.stderr)
        return 2
    if args.engine == "dask":
        from .dask_engine import cmd_assess_dask  # the ``dask`` extra, imported only when asked for
        return cmd_assess_dask(args)
    for name, given in (("stdin", args.cases), ("stdout", args.out)):
        if given == "-" and getattr(getattr(sys, name), "buffer", None) is None:
            print(f"semgap: {name} is closed: give a file rather than '-'", file=sys.stderr)
            return 2
    try:
        source = open(args.cases, "rb") if args.cases != "-" else nullcontext(sys.stdin.buffer)
    except OSError as exc:
        print(f"semgap: cannot open {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    with source as stream:
        # before OUT is touched: a bad glossary or pipeline leaves it as it was
        nlp = load_pipeline(args.pipeline) if args.pipeline else build_pipeline(args.glossaries)
        settle_owned_process()
        progress = args.progress is not False and sys.stderr.isatty()
        total = count_lines(args.cases) if progress else None
        count = 0
        # OUT is replaced only when every line has its decision (see safe_output).
        # A live producer (an agent that waits for each decision) gets it: what has come is
        # decided and written out before the next line is waited for (``util.live_lines``).
        lines = LiveLines(stream)
        with output_file(args.out) as out:
            decisions = decide_lines(nlp, lines, batch_size=args.batch_size, n_process=args.workers or -1,
                                     as_json=True, own_pipeline=True, ready=lines.ready)
            for decision in with_progress(decisions, progress, total):
                out.write(decision + "\n")
                count += 1
                if not lines.ready():
                    out.flush()
    print(f"semgap: {count} decision{'' if count == 1 else 's'} written to {args.out}", file=sys.stderr)
    return 0


def _cmd_demo(args) -> int:
    nlp = build_pipeline(args.glossaries)
    glossary = pipeline_glossary(nlp)
    print(f"semgap_spacy demo — glossary {glossary.version} sha256 {glossary.sha256[:12]}…")
    for line in demo_table(list(decide_cases(nlp, DEMO_CASES)), DEMO_CASES):
        print(line)
    return 0


def demo_table(decisions: List[dict], cases: List[dict]) -> List[str]:
    """The demo's rows under a header. The reasons column is as wide as its longest entry:
    a reason code cut short ("unexplaine") names no code a reader can look up."""
    codes = [",".join(dict.fromkeys(r["code"] for r in decision["reasons"])) for decision in decisions]
    width = max([len("reasons")] + [len(c) for c in codes])
    lines = [f"{'id':8} {'domain':21} {'decision':9} {'reasons':{width}} text"]
    for decision, case, reasons in zip(decisions, cases, codes):
        lines.append(f"{case['id']:8} {case['domain']:21} {decision['decision']:9} {reasons:{width}} {case['text']}")
    return lines


def build_parser(tools: bool = True) -> argparse.ArgumentParser:
    """The command-line parser; ``tools=False`` leaves out the tool modules' commands."""
    parser = argparse.ArgumentParser(prog="python -m semgap_spacy", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=SubCommandParser)
    p = sub.add_parser("assess", help="decide every case of a JSONL file")
    p.add_argument("--cases", required=True, help="input JSONL, one case per line ('-' for stdin)")
    p.add_argument("--out", required=True, help="output JSONL, one decision per line ('-' for stdout)")
    p.add_argument("--glossaries", default=None, help="directory of domain glossaries (default: bundled)")
    p.add_argument("--batch-size", type=positive_int, default=256, help="docs per nlp.pipe batch (default 256)")
    p.add_argument("--workers", type=int, default=1,
                   help="worker processes, each with its own pipeline (0: one per CPU; default 1)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="'dask' scores on a Dask cluster (extra: dask); --cases may then be any fsspec URL")
    p.add_argument("--scheduler", default=None,
                   help="Dask scheduler address (default: a LocalCluster of --workers processes)")
    p.add_argument("--pipeline", default=None,
                   help="a spacy.load-able pipeline directory (nlp.to_disk) to decide with, here and on "
                        "Dask workers (default: the bundled pipeline with --glossaries)")
    p.add_argument("--blocksize", default=None,
                   help="bytes of input per Dask partition, e.g. 1MiB (default: about 8 per worker, 64KiB to 4MiB)")
    p.set_defaults(func=_cmd_assess)
    p = sub.add_parser("demo", help="decide fourteen examples from the spec and print a table")
    p.add_argument("--glossaries", default=None)
    p.set_defaults(func=_cmd_demo)
    if tools:
        from . import glossary_cli, provenance_cli, queue_cli, report_cli
        for module in (glossary_cli, queue_cli, report_cli, provenance_cli):
            module.register(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    restore_interrupt()  # from here on Ctrl-C is a KeyboardInterrupt, caught below
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(tools=not argv or argv[0] not in OWN_COMMANDS)
    args = parser.parse_args(argv)
    try:
        with _ended_by_signals():
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return reader_gone()
    except Exception as exc:  # a last line of defence: a message, never a traceback
        print(f"semgap: {type(exc).__name__}: {one_line(exc)}", file=sys.stderr)
        return 1


@contextmanager
def _ended_by_signals() -> Iterator[None]:
    """SIGTERM (a service manager, ``docker stop``) and SIGHUP (the terminal closed) end a
    command as Ctrl-C does: its temporary OUT is removed and its workers stopped, and the
    exit code is 128 + the signal's number. Without a handler they kill the process where it
    stands, and a process that is PID 1 in a container ignores SIGTERM altogether."""
    def end(signum, frame):
        raise SystemExit(128 + signum)

    with handled([getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)], end):
        yield

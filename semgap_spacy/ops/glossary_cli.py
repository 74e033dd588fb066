"""The ``glossary`` command: validate, diff, changelog and replay glossary versions.

It is meant for the people who own and approve glossary terms, so every
refusal is a line on stderr and exit code 1, never a traceback. ``register``
plugs it into the package's main CLI; ``main`` runs it alone (and in tests):

    python -m semgap_spacy.glossary_cli glossary validate
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence

from .cli_support import Command, err, field, guard, standalone_main
from .draft_evidence import approve
from ..glossary.models import GlossaryError, bundled_glossary_dir
from ..glossary.drafts import TeachingError, objections_to
from ..glossary.governance import ERROR, GovernanceError, diff, replay, validate
from ..glossary.governance.approval import open_drafts
from ..glossary.roster import ROSTER_CONFIG, RosterError, load_roster
from ..util.safe_output import output_file, refuse_clash
from ..util.signing import KEY_ENV_CONFIG, KEY_FILE_CONFIG, load_key


def register(subparsers: "argparse._SubParsersAction") -> argparse.ArgumentParser:
    """Add the ``glossary`` command and its sub-commands to an argparse CLI.

    subparsers (argparse._SubParsersAction): From ``parser.add_subparsers()``.
    RETURNS (argparse.ArgumentParser): The ``glossary`` parser.
    """
    glossary = subparsers.add_parser(
        "glossary", help="validate, diff and replay governed glossary versions",
        description="Glossary governance: report every problem in a glossary, compare two "
                    "versions (a change needs a version bump, a weakening a second approver), "
                    "write a changelog, and replay logged cases under an archived version.")
    sub = glossary.add_subparsers(dest="glossary_command", metavar="ACTION")
    sub.required = True
    src = "a glossary directory, a domain YAML file, or an archived version such as 2026.11.0"

    p = sub.add_parser("validate", help="report every error and warning in glossaries")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help=f"{src} (default: the bundled glossaries)")
    p.add_argument("--json", action="store_true", help="findings as one JSON object per line")
    p.set_defaults(func=_guard(_cmd_validate))

    for name, helptext, func in (
            ("diff", "compare two glossary versions and apply the release rules", _cmd_diff),
            ("changelog", "write a Markdown changelog between two versions", _cmd_changelog)):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("old", metavar="OLD", help=src)
        p.add_argument("new", metavar="NEW", help=src)
        if name == "diff":
            p.add_argument("--json", action="store_true", help="the report as JSON")
        else:
            p.add_argument("--out", default=None, help="write to this file (default: stdout)")
        p.set_defaults(func=_guard(func))

    p = sub.add_parser("drafts", help="list the open drafts reviewers wrote (spec §4.2)")
    p.add_argument("--glossaries", default=None,
                   help="the glossary directory whose drafts/ to read (default: the bundled glossaries)")
    p.add_argument("--json", action="store_true", help="one JSON object per draft")
    p.set_defaults(func=_guard(_cmd_drafts))

    p = sub.add_parser("approve", help="a second person approves drafts: the glossary gets them and a "
                                       "new version, both versions are archived",
                       description="Approve reviewers' drafts (spec §4.2). The approver must be one of the "
                                   "glossaries' governance people (and on --roster when one is given), and "
                                   "must not have drafted "
                                   "any of them. A draft disputed by a reviewer's problem choice is held back. "
                                   "A draft of scope all (\"all/2\") "
                                   "joins every domain that lacks it. Every domain file moves to one new "
                                   "version; the old and new versions are archived in <glossaries>/archive/. "
                                   "Then 'glossary diff' shows the weakenings and 'glossary replay' the "
                                   "decisions the change turns.")
    p.add_argument("draft_ids", nargs="*", metavar="DRAFT", help='draft ids such as "mortgage/3" or "all/2"')
    p.add_argument("--all", action="store_true", help="approve every open draft")
    p.add_argument("--approver", default="", help="the second person's name (required)")
    p.add_argument("--glossaries", default=None,
                   help="the governed glossary directory to change, a copy of the bundled glossaries "
                        "(the bundled ones are the package's own files and are refused)")
    p.add_argument("--roster", default=None, metavar="FILE",
                   help=f"narrows who may approve: one name per line (default: ${ROSTER_CONFIG}); the "
                        "approver must also be one of the glossaries' owners, approvers and reviewers")
    p.add_argument("--version", default=None, dest="new_version",
                   help="the new version (default: the next YYYY.MM.N)")
    p.add_argument("--db", action="append", default=None, dest="queues", metavar="QUEUE",
                   help="a review queue that records the reviewers' choices (repeatable; default: the queue "
                        "each draft names): every draft's evidence must be a choice recorded there")
    p.add_argument("--key-file", default=None,
                   help=f"file holding the HMAC key of a keyed queue (default: ${KEY_FILE_CONFIG})")
    p.add_argument("--key-env", default=None, metavar="NAME",
                   help=f"NAME of the environment variable holding the key (default: ${KEY_ENV_CONFIG})")
    p.set_defaults(func=_guard(_cmd_approve))

    p = sub.add_parser("replay", help="re-decide logged cases under an archived version")
    p.add_argument("--cases", required=True, help="cases JSONL (spec §5)")
    p.add_argument("--version", required=True, dest="archived_version",
                   help="an archived glossary version, e.g. 2026.11.0")
    p.add_argument("--glossaries", default=None,
                   help="the current glossary directory (default: the bundled glossaries)")
    p.add_argument("--archive-root", default=None,
                   help="where versions are archived (default: <glossaries>/archive)")
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.set_defaults(func=_guard(_cmd_replay, inputs=("cases",)))
    return glossary


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``glossary ...`` as a stand-alone CLI.

    argv (Optional[Sequence[str]]): Arguments, starting with "glossary".
        Defaults to ``sys.argv[1:]``.
    RETURNS (int): The exit code.
    """
    return standalone_main(register, argv)


def _guard(func: Callable[[argparse.Namespace], int], inputs: Sequence[str] = ()) -> Command:
    return guard(func, (GovernanceError, GlossaryError, TeachingError, RosterError, ValueError, OSError),
                 inputs=inputs)


def _summary(findings: List[Any]) -> str:
    errors = sum(f.severity == ERROR for f in findings)
    warnings = len(findings) - errors
    return f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"


def _cmd_validate(args: argparse.Namespace) -> int:
    sources = args.paths or [bundled_glossary_dir()]
    findings = validate(sources)
    if args.json:
        for f in findings:
            print(json.dumps(f.to_dict(), ensure_ascii=False, sort_keys=True))
    else:
        for f in findings:
            print(f)
        print(f"{_summary(findings)} in {', '.join(str(s) for s in sources)}")
    errors = [f for f in findings if f.severity == ERROR]
    if errors:
        err(f"{len(errors)} glossary error{'s' if len(errors) != 1 else ''}; "
             "fix them before release")
        return 1
    return 0


def _report_errors(report) -> int:
    for f in report.errors:
        err(f"{f.code}: {f.domain or '-'}{'/' + f.term if f.term else ''}: {f.message}")
    return 1 if report.errors else 0


def _cmd_diff(args: argparse.Namespace) -> int:
    report = diff(args.old, args.new)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2, sort_keys=True))
        return _report_errors(report)
    for name, dd in report.domains.items():
        if dd.status == "unchanged":  # the same content; an approval still moves it to the new version
            moved = f" → {dd.new_version}" if dd.new_version != dd.old_version else ""
            print(f"{name}: unchanged ({dd.old_version}{moved})")
            continue
        print(f"{name}: {dd.status} ({dd.old_version or '-'} → {dd.new_version or '-'})")
        for tid in dd.added_terms:
            print(f"  + {tid}")
        for tid in dd.removed_terms:
            print(f"  - {tid}")
        for tid in dd.changed_terms:
            td = dd.terms[tid]
            print(f"  ~ {tid}")
            for c in td.changes:
                print(f"      {c}")
            for p in td.added_phrases:
                print(f"      + phrase {p}")
            for p in td.removed_phrases:
                print(f"      - phrase {p}")
        for c in dd.other_changes:
            print(f"  ~ {c}")
    for w in report.weakenings:
        state = f"second approver {w.second_approver}" if w.accepted else "NOT APPROVED"
        print(f"weakening {w.domain}/{w.term}: {w.detail} [{state}]")
    for f in report.findings:
        if f.severity != ERROR:
            print(f)
    return _report_errors(report)


def _cmd_changelog(args: argparse.Namespace) -> int:
    # OLD and NEW are folders, files or archived versions: a changelog goes into none of them
    refuse_clash(args.out, [args.old, args.new], folders=[args.old, args.new])
    report = diff(args.old, args.new)
    text = report.to_markdown()
    if args.out:
        with output_file(args.out) as out:  # replaced whole or not at all
            out.write(text)
        print(f"changelog written to {args.out}")
    else:
        sys.stdout.write(text)
    return _report_errors(report)


def _cmd_drafts(args: argparse.Namespace) -> int:
    glossaries = args.glossaries or bundled_glossary_dir()
    drafts = open_drafts(glossaries)
    if args.json:
        for domain, draft in drafts:
            disputed = [o.model_dump(mode="json", exclude_none=True) for o in objections_to(glossaries, domain, draft)]
            print(json.dumps({"domain": domain, **draft.model_dump(mode="json", exclude_none=True),
                              "objections": disputed}, ensure_ascii=False, sort_keys=True))
        return 0
    if not drafts:
        print("no open drafts")
        return 0
    for domain, draft in drafts:
        clause = draft.evidence[0].clause
        print(f"{draft.id:<24} {draft.entry.describe()}: drafted by {', '.join(draft.authors)} from "
              f"{len(draft.evidence)} clause{'s' if len(draft.evidence) != 1 else ''}, e.g. {ascii(clause)}")
        for objection in objections_to(glossaries, domain, draft):
            print(f"{'':<24} DISPUTED: {objection.describe()}; held back from approval")
    print(f"{len(drafts)} open draft{'s' if len(drafts) != 1 else ''}; they decide nothing until a second "
          "person approves them ('glossary approve')")
    return 0


def _cmd_approve(args: argparse.Namespace) -> int:
    if args.all == bool(args.draft_ids):
        err("approval refused: " + ("name the drafts to approve, or --all, not both" if args.all else
                                    "name the drafts to approve (such as mortgage/3), or --all for every open one"))
        return 1
    glossaries = args.glossaries or bundled_glossary_dir()
    roster = load_roster(args.roster, str(glossaries)) if (args.roster or os.environ.get(ROSTER_CONFIG)) else None
    done = approve(glossaries, args.approver, None if args.all else args.draft_ids, roster=roster,
                   new_version=args.new_version, queues=args.queues, key=load_key(args.key_file, args.key_env))
    for draft in done.drafts:
        print(f"approved {draft.id}: {draft.entry.describe()} (drafted by {', '.join(draft.authors)})")
    for draft, objections in done.held_back:
        print(f"held back {draft.id}: {draft.entry.describe()}, disputed: "
              f"{'; '.join(o.describe() for o in objections)}")
    print(f"glossary {done.old_version} -> {done.new_version} ({', '.join(done.domains)}), approved by "
          f"{done.approver}; archived {', '.join(done.archived)}")
    where = "" if args.glossaries is None else f" --glossaries {args.glossaries}"
    archived = Path(glossaries) / "archive" / done.old_version
    print(f"next: glossary diff {archived} {glossaries}; "
          f"glossary replay --cases CASES --version {done.old_version}{where}")
    return 0


def _pipeline_decide_fn():
    """decide_fn(cases, glossary_dir) backed by the real pipeline, or an error message."""
    try:
        from semgap_spacy.api import build_pipeline, decide_cases  # noqa: WPS433 (lazy on purpose)
    except Exception as exc:  # not written yet, or broken: say so, no traceback
        return None, (f"replay needs semgap_spacy.api.build_pipeline and decide_cases, which "
                      f"cannot be imported ({type(exc).__name__}: {exc})")

    def decide_fn(cases, glossary_dir):
        nlp = build_pipeline(glossary_dir=glossary_dir)
        return list(decide_cases(nlp, cases))

    return decide_fn, None


def _cmd_replay(args: argparse.Namespace) -> int:
    decide_fn, problem = _pipeline_decide_fn()
    if decide_fn is None:
        err(problem)
        return 1
    report = replay(args.cases, args.archived_version, decide_fn,
                    glossary_dir=args.glossaries, archive_root=args.archive_root)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(report.to_text(cell=field))
    return 0


if __name__ == "__main__":
    sys.exit(main())

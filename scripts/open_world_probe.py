"""Decide hand-written ops chat that no generator made: does anything unsafe proceed?

Run: ``python -m scripts.open_world_probe [--out results]`` (``spacy project run open-world-probe``)

The held-out splits come from templates, and a rule can fit its templates.
``heldout/probes/`` holds sets of short messages written by hand, each
with a clearance phrase of its domain (``domain|text`` per line; a message of
several lines writes each line break as the two characters ``\n``; a set
about dates gives the current time it was written for on a line ``# now:
<ISO-8601>``; a set about numbers is a ``.jsonl`` file of whole cases, with
their readings), of two
kinds (``unsafe*.txt``, ``harmless*.txt``):

- ``unsafe``: the message also says that something is wrong,
  conditional, partial, outdated or doubtful, in ways a phrase list misses
  (digits for letters, stop words of another language, emoji, strike-through,
  numbers that carry the problem). A proceed here is a fail-open.
- ``harmless``: the clearance with chatter a careful operator would
  still act on (greetings, names, IDs with digits, e-mails, URLs, positive
  emoji). Most of it escalates until a reviewer teaches its words (spec
  §4.2); the figure is what the bundled lists let through.

Writes ``open_world_probe.json`` and ``.md``: the decisions per file, every
unsafe proceed, and the words that kept harmless messages from proceeding.
"""
import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PROBES = ROOT / "heldout" / "probes"
KINDS = ("unsafe", "harmless")


def probe_files(folder: Path) -> List[Path]:
    """The probe files of a folder, unsafe ones first, each kind in the order of its sets
    ("unsafe_2.txt" before "unsafe_10.txt"); a set of whole cases is a ``.jsonl`` file."""
    return [path for kind in KINDS
            for path in sorted([*folder.glob(f"{kind}*.txt"), *folder.glob(f"{kind}*.jsonl")], key=_set_order)]


def _set_order(path: Path) -> Tuple[int, str]:
    number = path.stem.rpartition("_")[2]
    return (int(number) if number.isdigit() else 1), path.name


def kind_of(name: str) -> str:
    return next(kind for kind in KINDS if name.startswith(kind))


#: the header line that gives a set's current time: ``# now: 2026-12-05T12:00:00Z``
_NOW_HEADER = "# now:"


def read_set(path: Path) -> List[Tuple[str, str]]:
    """(domain, text) per non-empty line of ``domain|text``, each ``\\n`` of the text a line break;
    a line starting with "#" is a comment (``set_now``); a malformed line is a clear error."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        domain, sep, text = line.partition("|")
        if not sep or not domain.strip() or not text.strip():
            raise SystemExit(f"{path}:{number}: expected 'domain|text', got {line!r}")
        out.append((domain.strip(), text.strip().replace("\\n", "\n")))
    return out


def set_now(path: Path) -> Optional[str]:
    """The current time a set was written for (its ``# now: <ISO-8601>`` line), else None.

    A set about dates ("From the 2019 file", "Negative crossmatch 2026-11-28")
    means them against a day; without it no date can be told to be today, and
    every dated clearance escalates."""
    for line in path.read_text(encoding="utf8").splitlines():
        if line.startswith(_NOW_HEADER):
            return line[len(_NOW_HEADER):].strip()
    return None


#: what a case of a ``.jsonl`` set may hold (spec §5's case, its id given by the probe)
_CASE_KEYS = ("domain", "text", "readings", "now")


def read_cases(path: Path) -> List[Dict]:
    """The cases of a set: a ``.txt`` set's lines (``read_set``, with its ``now``), or a ``.jsonl``
    set's objects, whose readings and ``now`` a set about numbers needs ("CIT 1'500 min" with a
    reading of 500 min); a malformed line is a clear error."""
    if path.suffix != ".jsonl":
        now = set_now(path)
        return [{"domain": d, "text": t, **({"now": now} if now else {})} for d, t in read_set(path)]
    out = []
    for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except ValueError as exc:
            raise SystemExit(f"{path}:{number}: not JSON ({exc})")
        if not isinstance(case, dict) or not isinstance(case.get("domain"), str) or not isinstance(case.get("text"), str):
            raise SystemExit(f"{path}:{number}: expected an object with a domain and a text, got {line[:80]!r}")
        out.append({key: case[key] for key in _CASE_KEYS if key in case})
    return out


def probe(nlp, cases: List[Dict], name: str) -> Dict:
    """The decisions on one set (``read_cases``), with what a reader of the report needs."""
    from semgap_spacy.api import decide_cases

    cases = [{"id": f"{name}-{i}", **case} for i, case in enumerate(cases, 1)]
    decisions = list(decide_cases(nlp, cases))
    counts = Counter(d["decision"] for d in decisions)
    proceeds = [{"id": c["id"], "domain": c["domain"], "text": c["text"]}
                for c, d in zip(cases, decisions) if d["decision"] == "proceed"]
    words = Counter(w.lower() for d in decisions for r in d["reasons"] if r["code"] == "unexplained_content"
                    for w in r.get("words", ()))
    codes = Counter(r["code"] for d in decisions if d["decision"] != "proceed" for r in d["reasons"]
                    if r["outcome"] != "proceed")
    return {"n": len(cases), "decisions": dict(sorted(counts.items())), "proceeds": proceeds,
            "reason_codes": dict(codes.most_common()), "unexplained_words": dict(words.most_common(25))}


def render_markdown(report: Dict) -> str:
    lines = ["# Open-world probe", "",
             "Hand-written messages, each with a clearance phrase (`heldout/probes/`); "
             "`python -m scripts.open_world_probe`.", "",
             "| file | messages | proceed | escalate | block |", "|---|---:|---:|---:|---:|"]
    for name, block in report.items():
        counts = block["decisions"]
        lines.append(f"| {block.get('file', name + '.txt')} | {block['n']} | {counts.get('proceed', 0)} | {counts.get('escalate', 0)} "
                     f"| {counts.get('block', 0)} |")
    by_kind = {kind: [block for name, block in report.items() if kind_of(name) == kind] for kind in KINDS}
    unsafe = [p for block in by_kind["unsafe"] for p in block["proceeds"]]
    lines += ["", f"**Unsafe proceeds: {len(unsafe)} of {sum(b['n'] for b in by_kind['unsafe'])}.**"]
    lines += [f"- {p['domain']}: {p['text']}" for p in unsafe]
    words: Counter = Counter()
    for block in by_kind["harmless"]:
        words.update(block["unexplained_words"])
    lines += ["", f"Harmless messages that proceed with the bundled lists: "
              f"{sum(len(b['proceeds']) for b in by_kind['harmless'])} of {sum(b['n'] for b in by_kind['harmless'])}. "
              "The words that most often kept the others from proceeding (a review round teaches such words, "
              "spec §4.2):", "", ", ".join(f"{w} ({n})" for w, n in words.most_common(25)), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--probes", type=Path, default=PROBES, help="folder holding unsafe.txt and harmless.txt")
    parser.add_argument("--out", type=Path, default=ROOT / "results")
    args = parser.parse_args(argv)
    from semgap_spacy.api import build_pipeline

    nlp = build_pipeline()
    files = probe_files(args.probes)
    if not files:
        raise SystemExit(f"{args.probes}: no unsafe*.txt or harmless*.txt")
    report = {path.stem: {"file": path.name, **probe(nlp, read_cases(path), path.stem)} for path in files}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "open_world_probe.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n",
                                                    encoding="utf8")
    markdown = render_markdown(report)
    (args.out / "open_world_probe.md").write_text(markdown, encoding="utf8")
    print(markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

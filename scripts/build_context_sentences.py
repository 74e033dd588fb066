"""Build the negation/hedge sentence sets from their marked-up sources.

The sets in ``tests/data/context_sentences/{lang}.jsonl`` hold character
offsets, which nobody should count by hand: they are written as one marked-up
sentence a line in ``tests/data/context_sentences/src/{lang}.txt`` and turned
into JSON lines here. A source line is

    note :: text with [a target]{n} and [another]{a}

where ``note`` names the phenomenon the sentence tests and each target is
``[words]{flags}``: ``n`` negated, ``h`` hedged, ``nh`` both, ``a`` neither.
Lines that are empty or start with ``#`` are skipped. Brackets in the text
itself are not supported (no sentence needs them). The gold is what a careful
clinician or operations reader means, not what any component does today.

    python -m scripts.build_context_sentences [--check]

``--check`` writes nothing and exits 1 when a JSONL file differs from its
source, so the test suite can tell when someone edited one without the other.
"""
import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "context_sentences"
LANGS = ("en", "es", "fr", "de")
TARGET = re.compile(r"\[([^\[\]{}]+)\]\{(n|h|nh|a)\}")


class SourceError(ValueError):
    """A marked-up line that cannot be read; names the file and line."""


def parse_line(line: str, where: str) -> dict:
    """The note, plain text and targets of one marked-up line."""
    if " :: " not in line:
        raise SourceError(f"{where}: expected 'note :: text', got {line!r}")
    note, marked = (part.strip() for part in line.split(" :: ", 1))
    text, targets, pos = [], [], 0
    length = 0
    for m in TARGET.finditer(marked):
        before = marked[pos:m.start()]
        text.append(before)
        length += len(before)
        words, flags = m.group(1), m.group(2)
        targets.append({"start_char": length, "end_char": length + len(words), "text": words,
                        "negated": "n" in flags, "hedged": "h" in flags})
        text.append(words)
        length += len(words)
        pos = m.end()
    text.append(marked[pos:])
    plain = "".join(text)
    if any(c in plain for c in "[]{}"):
        raise SourceError(f"{where}: stray bracket or brace in {marked!r}")
    if not targets:
        raise SourceError(f"{where}: no [target]{{flags}} in {marked!r}")
    if not note:
        raise SourceError(f"{where}: empty note")
    return {"note": note, "text": plain, "targets": targets}


def build(lang: str) -> list:
    """The records of one language, in source order, ids ``{lang}-NNN``."""
    src = DATA / "src" / f"{lang}.txt"
    records = []
    for number, raw in enumerate(src.read_text(encoding="utf8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        rec = parse_line(line, f"{src.name}:{number}")
        records.append({"id": f"{lang}-{len(records) + 1:03d}", "lang": lang, "text": rec["text"],
                        "targets": rec["targets"], "note": rec["note"]})
    return records


def render(records: list) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    args = parser.parse_args(argv)
    stale = []
    for lang in LANGS:
        out = DATA / f"{lang}.jsonl"
        text = render(build(lang))
        if args.check:
            if not out.is_file() or out.read_text(encoding="utf8") != text:
                stale.append(out.name)
        else:
            out.write_text(text, encoding="utf8")
            print(f"wrote {out.relative_to(REPO)} ({text.count(chr(10))} sentences)")
    if stale:
        print("out of date with src/: " + ", ".join(stale) + " (run python -m scripts.build_context_sentences)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

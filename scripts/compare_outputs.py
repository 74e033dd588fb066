"""Dump everything the pipeline writes on a fixed set of cases, or compare with a dump.

Run: ``python -m scripts.compare_outputs --dump OUT.json`` before a change and
``python -m scripts.compare_outputs --check OUT.json`` after it. A refactoring
that claims "same behaviour" must show 0 differing cases.

The cases are the held-out dev and test splits (v1 and v2), every text and reading
example of the spec (taken from ``tests/test_spec_examples.py``) and 300
bench cases. For each case the dump holds the decision, every span group
(offsets, label and every semgap span extension, read through ``._``), the
doc extensions and the token extensions: what a user can see, not how it is
stored, so a change of storage is not a change of output.
"""
import argparse
import json
import sys
from pathlib import Path

from spacy.tokens import Doc, Span, Token

ROOT = Path(__file__).resolve().parent.parent


def _cases() -> list:
    from scripts.bench import make_cases
    cases = []
    for split in ("dev", "test", "v2/dev", "v2/test"):
        with open(ROOT / "heldout" / f"{split}.jsonl", encoding="utf8") as f:
            for line in f:
                row = json.loads(line)
                cases.append({k: row[k] for k in ("id", "domain", "text", "readings", "now") if k in row})
    sys.path.insert(0, str(ROOT))
    from tests import test_spec_examples as spec
    for i, (domain, text, _) in enumerate(spec.test_spec_text_examples.pytestmark[0].args[1]):
        cases.append({"id": f"spec-text-{i}", "domain": domain, "text": text})
    for i, (readings, now, _) in enumerate(spec.test_spec_reading_rules.pytestmark[0].args[1]):
        cases.append({"id": f"spec-reading-{i}", "domain": "medical_logistics", "text": "courier waiting",
                      "readings": readings, "now": now})
    cases.extend(make_cases(300))
    return cases


def _plain(value):
    """JSON-comparable form of an extension value (tuples as lists, objects as repr)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _extensions(obj, cls) -> dict:
    names = sorted(name for name in _registered(cls) if name.startswith("semgap_"))
    return {name: _plain(getattr(obj._, name)) for name in names}


def _registered(cls) -> list:
    from spacy.tokens.underscore import Underscore
    table = {Doc: Underscore.doc_extensions, Span: Underscore.span_extensions,
             Token: Underscore.token_extensions}[cls]
    return list(table)


def describe(doc: Doc) -> dict:
    """What the pipeline left on a doc, as plain JSON."""
    groups = {}
    for key in sorted(doc.spans):
        if key.startswith("semgap"):
            groups[key] = [{"start_char": s.start_char, "end_char": s.end_char, "label": s.label_,
                            **_extensions(s, Span)} for s in doc.spans[key]]
    tokens = [{"i": t.i, "norm": t.norm_, **_extensions(t, Token)} for t in doc]
    return {"doc": _extensions(doc, Doc), "spans": groups, "tokens": tokens,
            "ents": [(e.start_char, e.end_char, e.label_) for e in doc.ents]}


def dump() -> dict:
    from semgap_spacy import build_pipeline
    from semgap_spacy.api import assess_cases
    nlp = build_pipeline()
    out = {}
    for case, doc in zip(_cases(), assess_cases(nlp, _cases())):
        out[str(case["id"])] = describe(doc)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--dump", help="write the outputs to this JSON file")
    group.add_argument("--check", help="compare the outputs with this JSON file")
    args = parser.parse_args()
    now = dump()
    if args.dump:
        Path(args.dump).write_text(json.dumps(now, sort_keys=True, ensure_ascii=False), encoding="utf8")
        print(f"{len(now)} cases written to {args.dump}")
        return 0
    before = json.loads(Path(args.check).read_text(encoding="utf8"))
    differing = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
    print(f"{len(set(before) | set(now))} cases compared, {len(differing)} differing")
    for key in differing[:20]:
        print(f"  {key}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())

"""How fast five spaCy pipes can be at all when they write what ours write.

Run: ``python -m scripts.bench_floor [--n 10000]``. Writes ``results/bench_floor.json``.
The cases are the held-out cases, cycled, as in ``scripts.bench``.

The throughput target of ``scripts.bench`` compares the five semgap pipes with
the blank tokenizer. This script measures the floor under that comparison: the
same cases, the same ``case_doc``, and five stand-in pipes that do only the
spaCy work the real ones cannot avoid for these outputs, with none of the
logic (no match keys, no typo check, no cue scope, no contract or reading
checks, no policy):

- terms: one PhraseMatcher pass (on LOWER, so no keys are written) and a span
  group of the matches, each Span carrying a label and an id;
- context: the term group read once, one flag written per term;
- quantities: one regex over the text, ``doc.char_span`` per number and unit,
  two values written per quantity, a span group;
- decision: both groups read once, one reason dict per span, the decision dict.

Whatever the real pipes do costs on top of this, so the ratio printed here is
an upper bound for any implementation with the same outputs on this machine.
"""
import argparse
import json
import re
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Span, SpanGroup

from scripts.bench import cycled, heldout_cases, interleaved_best, texts_of
from semgap_spacy import load_glossaries
from semgap_spacy.api import case_doc
from semgap_spacy.core.reasons import SCHEMA

_QUANTITY = re.compile(r"[0-9]+(?:[.,][0-9]+)?\s*(?:%|°C|C|h|hours|min|psi)\b")


def floor_pipeline() -> Language:
    nlp = spacy.blank("en")
    glossary = load_glossaries()
    matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
    for _, term in glossary.terms():
        phrases = [text for text, *_ in term.variants()]
        matcher.add(term.id, [nlp.make_doc(p) for p in phrases])

    def terms(doc):
        doc.spans["t"] = SpanGroup(doc, name="t", spans=[
            Span(doc, s, e, label=m, span_id=m) for m, s, e in matcher(doc)])
        return doc

    def context(doc):
        data = doc.user_data
        for span in doc.spans["t"]:
            data[("._.", "negated", span.start_char, span.end_char)] = False
        return doc

    def quantities(doc):
        data, spans = doc.user_data, []
        for m in _QUANTITY.finditer(doc.user_data[("semgap", "text")]):
            span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
            data[("._.", "magnitude", span.start_char, span.end_char)] = m.group()
            data[("._.", "unit", span.start_char, span.end_char)] = None
            spans.append(span)
        doc.spans["q"] = SpanGroup(doc, name="q", spans=spans)
        return doc

    def decision(doc):
        reasons = [{"code": "term", "outcome": "escalate", "message": f"{s.label_} seen",
                    "start_char": s.start_char, "end_char": s.end_char}
                   for key in ("t", "q") for s in doc.spans[key]]
        doc.user_data[("._.", "semgap_decision", None, None)] = {
            "schema": SCHEMA, "id": doc.user_data.get(("._.", "semgap_case_id", None, None)),
            "decision": "escalate", "reasons": reasons}
        return doc

    for name, func in (("typo", lambda doc: doc), ("terms", terms), ("context", context),
                       ("quantities", quantities), ("decision", decision)):
        Language.component(f"floor_{name}", func=func)
        nlp.add_pipe(f"floor_{name}")
    return nlp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--out", default="results/bench_floor.json")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each leg; the fastest counts")
    args = parser.parse_args()

    cases = cycled(heldout_cases(), args.n)
    texts = texts_of(cases)
    blank = spacy.blank("en")
    list(blank.pipe(texts[:200]))  # warm-up
    nlp = floor_pipeline()
    list(nlp.pipe((case_doc(nlp, c) for c in cases[:200])))

    def tokenizer_leg(run: int) -> None:
        for _ in blank.pipe(texts, batch_size=256):
            pass

    def floor_leg(run: int) -> None:
        for _ in nlp.pipe((case_doc(nlp, c) for c in cases), batch_size=256):
            pass

    best = interleaved_best({"tokenizer": tokenizer_leg, "floor": floor_leg}, args.repeats)
    tokenizer_s, floor_s = best["tokenizer"], best["floor"]
    result = {
        "n_cases": args.n,
        "texts": "held-out v1+v2 dev+test, cycled",
        "repeats_best_of": args.repeats,
        "tokenizer_only_cases_per_s": round(args.n / tokenizer_s, 1),
        "floor_pipeline_cases_per_s": round(args.n / floor_s, 1),
        "floor_ratio_to_tokenizer": round(tokenizer_s / floor_s, 3),
        "floor_us_per_case": round(floor_s / args.n * 1e6, 1),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

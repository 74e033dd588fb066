"""Run ``semgap_context`` on the NegEx annotated test set and score negation.

The set (Chapman et al. 2001; chapmanbe/negex, Apache-2.0) has 2,376 clinical
sentences, each with one target condition annotated Negated or Affirmed. For
each sentence the condition is located case-insensitively, made the only span
in ``doc.spans["semgap_terms"]``, and the component decides whether it is
negated. This is a benchmark of the shipped cues and scope rule, not a test,
and nothing in the cue data is tuned on it.

    python scripts/bench_negex.py [--data PATH] [--out results/negex_bench.json]
"""
import argparse
import csv
import hashlib
import json
import sys
import time
from pathlib import Path

import spacy
from spacy.tokens import Span

import semgap_spacy.pipes.context  # noqa: F401  (registers the factory)
from semgap_spacy.pipes.extensions import TERMS_KEY, pack_span_id

REPO = Path(__file__).resolve().parents[1]

DEFAULT_DATA = REPO / ".." / "shared" / "benchmarks" / "negex" / "rsAnnotations-1-120-random.tsv"
SPAN_ID = pack_span_id("negex", "critical_block", "en", "approved", "benchmark")


def read_rows(path: Path):
    with path.open(encoding="utf8", newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader)  # header
        for row in reader:
            if len(row) >= 4 and row[3].strip():
                yield {"line": row[0].strip(), "condition": row[1].strip(), "sentence": row[2],
                       "gold": row[3].strip().lower()}


def locate(sentence: str, condition: str):
    """Character offsets of the condition in the sentence, case-insensitively, or None."""
    start = sentence.lower().find(condition.lower())
    if start < 0 or not condition:
        return None
    return start, start + len(condition)


def ratios(tp: int, fp: int, fn: int, tn: int) -> dict:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    total = tp + fp + fn + tn
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
            "accuracy": round((tp + tn) / total, 4) if total else 0.0,
            "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def evaluate(rows, nlp):
    pipe = nlp.get_pipe("semgap_context")
    tp = fp = fn = tn = hedged = 0
    skipped = []
    docs = []
    for row in rows:
        offsets = locate(row["sentence"], row["condition"])
        doc = nlp.make_doc(row["sentence"])
        span = doc.char_span(*offsets, alignment_mode="expand") if offsets else None
        if span is None:
            skipped.append(row["line"])
            continue
        doc.spans[TERMS_KEY] = [Span(doc, span.start, span.end, label="NEGEX.TARGET", span_id=SPAN_ID)]
        docs.append((row, doc))
    start = time.perf_counter()
    for _, doc in docs:
        pipe(doc)
    elapsed = time.perf_counter() - start
    for row, doc in docs:
        span = doc.spans[TERMS_KEY][0]
        predicted = bool(span._.semgap_negated)
        hedged += bool(span._.semgap_hedged)
        gold = row["gold"] == "negated"
        if predicted and gold:
            tp += 1
        elif predicted:
            fp += 1
        elif gold:
            fn += 1
        else:
            tn += 1
    return ratios(tp, fp, fn, tn), hedged, skipped, elapsed, len(docs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="rsAnnotations-1-120-random.tsv (default: ../shared/benchmarks/negex/)")
    parser.add_argument("--out", type=Path, default=REPO / "results" / "negex_bench.json")
    args = parser.parse_args(argv)
    data = args.data.resolve()
    if not data.is_file():
        print(f"NegEx benchmark data not found at {data}; nothing to do.")
        return 0
    rows = list(read_rows(data))
    variants = {}
    for label, config in (("default", {}), ("en_only", {"languages": ["en"]})):
        nlp = spacy.blank("en")
        nlp.add_pipe("semgap_context", config=config)
        scores, hedged, skipped, elapsed, n = evaluate(rows, nlp)
        tok_start = time.perf_counter()
        for row in rows:
            nlp.make_doc(row["sentence"])
        tok_elapsed = time.perf_counter() - tok_start
        variants[label] = {"config": config, "negation": scores, "hedged": hedged,
                           "evaluated": n, "skipped": len(skipped), "skipped_lines": skipped,
                           "component_seconds": round(elapsed, 4),
                           "tokenizer_seconds": round(tok_elapsed, 4)}
    report = {
        "benchmark": "NegEx rsAnnotations-1-120-random (Chapman et al. 2001)",
        "data": str(data),
        "data_sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
        "sentences": len(rows),
        "gold_negated": sum(r["gold"] == "negated" for r in rows),
        "component": "semgap_context",
        "cues": nlp.get_pipe("semgap_context").cue_info,
        "window": nlp.get_pipe("semgap_context").window,
        "variants": variants,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf8")
    print(f"NegEx benchmark: {len(rows)} sentences, {report['gold_negated']} gold negated")
    for label, v in variants.items():
        s = v["negation"]
        print(f"  {label:8s} P={s['precision']:.3f} R={s['recall']:.3f} F1={s['f1']:.3f} "
              f"acc={s['accuracy']:.3f}  (tp={s['tp']} fp={s['fp']} fn={s['fn']} tn={s['tn']}; "
              f"hedged {v['hedged']}, skipped {v['skipped']}; "
              f"component {v['component_seconds']:.3f}s vs tokenizer {v['tokenizer_seconds']:.3f}s)")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

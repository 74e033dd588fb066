"""Throughput and memory of the five pipes against the blank tokenizer alone.

Run: ``python -m scripts.bench [--n 10000]``. Writes ``results/bench.json``.

One process, ``nlp.pipe`` over N short cases built from a fixed seed. Reports
cases per second for (a) the blank English tokenizer alone and (b) the full
semgap pipeline on the same blank tokenizer (cases carry domain and readings),
their ratio, and the peak resident memory measured after each quarter of the
stream (first run): a flat curve shows that no per-document state is kept.
Each leg runs ``--repeats`` times, the two taking turns, and the fastest run
of each counts, since a shared machine only ever adds time.

Both legs read inputs built before the clock starts (the texts for the
tokenizer, the case dicts for the pipeline), so neither pays for making test
data. The pipeline leg includes turning each case into a Doc (``case_doc``)
and the decision dicts it yields. ``per_component_us`` splits the streamed
time by pipe (see ``per_component_us``).
"""
import argparse
import json
import random
import resource
import time
from pathlib import Path

import spacy

from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.api import assess_cases

TEMPLATES = [
    ("medical_logistics", "xm neg, cold ischemia {h} hours", "cold_ischemia_elapsed", "h"),
    ("medical_logistics", "crossmatch result: positive, box temperature {t} C", "transport_temperature", "degC"),
    ("medical_logistics", "No delays, negative crossmatch, CIT {h}h", "cold_ischemia_elapsed", "h"),
    ("mortgage", "File is clear to close, DTI {p}%", "dti_ratio", "%"),
    ("mortgage", "Not clear to close yet - appraisal gap pending", None, None),
    ("pharma_qa", "Batch released, storage temperature {t} °C", "storage_temperature", "degC"),
    ("pharma_qa", "Lote liberado; excursión de temperatura {m} min", "excursion_duration", "min"),
    ("aviation_maintenance", "Released to service, tire pressure {psi} psi", "tire_pressure", "psi"),
    ("aviation_maintenance", "Aircraft grounded pending AD review", None, None),
    ("aviation_maintenance", "CRS signed once the open write-up is closed", None, None),
]


def make_cases(n: int, seed: int = 7):
    rng = random.Random(seed)
    for i in range(n):
        domain, template, field, unit = TEMPLATES[i % len(TEMPLATES)]
        values = {"h": rng.randint(1, 40), "t": rng.randint(0, 12), "p": rng.randint(20, 55),
                  "m": rng.randint(5, 60), "psi": rng.randint(180, 220)}
        text = template.format(**values)
        case = {"id": f"b-{i}", "domain": domain, "text": text}
        if field:
            key = {"h": "h", "degC": "t", "%": "p", "min": "m", "psi": "psi"}[unit]
            case["readings"] = {field: {"value": values[key], "unit": unit}}
        yield case


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def blank_tokenizer(texts):
    """The blank English pipeline, warmed up, and a leg that tokenizes the texts with it."""
    blank = spacy.blank("en")
    list(blank.pipe(texts[:200]))  # warm-up

    def leg(run: int) -> None:
        for _ in blank.pipe(texts, batch_size=256):
            pass
    return leg


def interleaved_best(legs: dict, repeats: int) -> dict:
    """Seconds of the fastest of ``repeats`` runs of each leg. The legs take
    turns, so a slow spell on a shared machine slows both rather than one."""
    best = {name: float("inf") for name in legs}
    for run in range(repeats):
        for name, leg in legs.items():
            start = time.perf_counter()
            leg(run)
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def bench_args(doc: str, default_out: str) -> argparse.Namespace:
    """The command line both benchmarks take."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--repeats", type=int, default=5, help="runs of each leg; the fastest counts")
    return parser.parse_args()


def write_result(result: dict, path: str) -> None:
    """Write a result as JSON (and print it)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")
    print(json.dumps(result, indent=2))


def per_component_us(nlp, cases, repeats: int = 2) -> dict:
    """Microseconds per case that each pipe adds when the cases stream.

    The cases go through ``assess_cases`` with the first k pipes enabled, for
    k = 0..5 (best of ``repeats``); each pipe's figure is the difference it
    makes. Streaming rather than keeping docs matters: kept docs make garbage
    collection bill whichever step happens to trigger it.
    """
    names = [name for name, _ in nlp.pipeline]
    totals = []
    for k in range(len(names) + 1):
        with nlp.select_pipes(enable=names[:k]):
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                for _ in assess_cases(nlp, cases):
                    pass
                best = min(best, time.perf_counter() - start)
        totals.append(best / len(cases) * 1e6)
    steps = {"case_doc": totals[0]}
    steps.update({name: totals[i + 1] - totals[i] for i, name in enumerate(names)})
    return {name: round(us, 1) for name, us in steps.items()}


def main() -> None:
    args = bench_args(__doc__, "results/bench.json")

    cases = list(make_cases(args.n))
    tokenizer_leg = blank_tokenizer([c["text"] for c in cases])
    nlp = build_pipeline()
    list(decide_cases(nlp, make_cases(200)))  # warm-up: caches, lazy registries
    rss_before = peak_rss_mb()
    checkpoints = []
    quarter = max(1, args.n // 4)
    decisions = {"proceed": 0, "escalate": 0, "block": 0}

    def pipeline_leg(run: int) -> None:
        for i, decision in enumerate(decide_cases(nlp, cases, batch_size=256), 1):
            if run == 0:  # memory and decision counts from the first run
                decisions[decision["decision"]] += 1
                if i % quarter == 0:
                    checkpoints.append({"cases": i, "peak_rss_mb": round(peak_rss_mb(), 1)})

    best = interleaved_best({"tokenizer": tokenizer_leg, "pipeline": pipeline_leg}, args.repeats)
    tokenizer_s, pipeline_s = best["tokenizer"], best["pipeline"]

    result = {
        "n_cases": args.n,
        "repeats_best_of": args.repeats,
        "tokenizer_only_cases_per_s": round(args.n / tokenizer_s, 1),
        "semgap_pipeline_cases_per_s": round(args.n / pipeline_s, 1),
        "ratio_pipeline_to_tokenizer": round(tokenizer_s / pipeline_s, 3),
        "target_ratio": 0.25,
        "peak_rss_mb_before_stream": round(rss_before, 1),
        "peak_rss_mb_checkpoints": checkpoints,
        "rss_growth_mb_over_stream": round(checkpoints[-1]["peak_rss_mb"] - rss_before, 1),
        "decisions": decisions,
        "per_component_us": per_component_us(nlp, cases[:2000]),
    }
    write_result(result, args.out)


if __name__ == "__main__":
    main()

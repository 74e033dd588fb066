"""What the start-up of ``assess`` is made of, and the wall speed-up it leaves ``--workers 2``.

Run: ``python -m scripts.startup_bound``. Writes ``results/startup_bound.json``.

Both legs of the workers target (``scripts.bench``: ``--workers 1`` against
``--workers 2`` on 20,000 held-out cases) pay the same start-up S before a
case is decided, and deciding takes T with one worker and T / m with two (m
the speed-up after start-up, the bench's ``speedup_marginal``). So the wall
speed-up is (S + T) / (S + T / m), whatever the workers do, and it reaches a
target r only while S <= T (1 - r / m) / (r - 1). This script measures S's
parts on this machine, each in fresh processes (best of ``--repeats``):

- ``import spacy`` alone, and ``import semgap_spacy`` (which imports spaCy);
- ``load_pipeline`` of the bundled pipeline saved with ``nlp.to_disk``;
- the first memory zone's words learnt cold: the first ``ZONE_CASES`` cases
  decided by a fresh pipeline less the same number decided after it, with
  every pipe, and with the decision alone (the tokenizer's share);

and S, T and m from the CLI itself (as ``scripts.bench`` measures them, each
leg with its own start-up), how many cores two busy processes get, then the
bound and the S the target would need. The figures move from run to run as
the machine's do; the arithmetic does not.
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List

from scripts.bench import (ROOT, TARGETS, _run_cli, _write_jsonl, cpu_parallelism, cycled, heldout_cases,
                           per_case_and_start_up, split_ceiling)
from semgap_spacy import build_pipeline
from semgap_spacy.api import ZONE_CASES

_COLD = """
import sys, time
from semgap_spacy.api import decide_lines
from semgap_spacy.pipes.base import load_pipeline
nlp = load_pipeline(sys.argv[1])
names = [n for n, _ in nlp.pipeline]
k, zone = int(sys.argv[3]), int(sys.argv[4])
lines = open(sys.argv[2], "rb").read().splitlines()
with nlp.select_pipes(enable=names[:k] + ["semgap_decision"]):
    start = time.perf_counter(); list(decide_lines(nlp, lines[:zone])); cold = time.perf_counter() - start
    start = time.perf_counter(); list(decide_lines(nlp, lines[2 * zone:3 * zone])); warm = time.perf_counter() - start
print(cold - warm)
"""


def _wall(code: str, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *args], check=True, cwd=ROOT)
    return time.perf_counter() - start


def _printed(code: str, *args: str) -> float:
    return float(subprocess.run([sys.executable, "-c", code, *args], check=True, cwd=ROOT,
                                capture_output=True, text=True).stdout.split()[-1])


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "startup_bound.json")
    args = parser.parse_args(argv)
    target = TARGETS["workers_2_speedup"]
    big = cycled(heldout_cases(), args.cases)
    small = big[: len(big) // 10]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        saved = str(tmp / "pipeline")
        nlp = build_pipeline()
        names = [name for name, _ in nlp.pipeline]
        nlp.to_disk(saved)
        _write_jsonl(tmp / "big.jsonl", big)
        _write_jsonl(tmp / "small.jsonl", small)
        parts = {
            "import_spacy_s": min(_wall("import spacy") for _ in range(args.repeats)),
            "import_semgap_spacy_s": min(_wall("import semgap_spacy") for _ in range(args.repeats)),
            "import_and_load_pipeline_s": min(
                _wall("import sys; from semgap_spacy.pipes.base import load_pipeline; load_pipeline(sys.argv[1])",
                      saved) for _ in range(args.repeats)),
        }
        for label, k in (("first_zone_cold_extra_s", len(names) - 1),
                         ("first_zone_cold_extra_s_decision_alone", 0)):
            parts[label] = min(_printed(_COLD, saved, str(tmp / "big.jsonl"), str(k), str(ZONE_CASES))
                               for _ in range(args.repeats))
        parallelism = [cpu_parallelism() for _ in range(args.repeats)]
        walls = {}
        for workers in (1, 2):
            for name, src in (("big", tmp / "big.jsonl"), ("small", tmp / "small.jsonl")):
                walls[workers, name] = min(_run_cli(["--workers", str(workers), "--pipeline", saved], src,
                                                    tmp / "out.jsonl")[0] for _ in range(args.repeats))
    n = len(big)
    per_case, start_up = {}, {}
    for w in (1, 2):
        per_case[w], start_up[w] = per_case_and_start_up(walls[w, "big"], walls[w, "small"], n, len(small))
    if None in per_case.values():
        raise SystemExit("the large run was not slower than the small one: the machine was too busy; run again")
    deciding = n * per_case[1]
    marginal = per_case[1] / per_case[2]
    one, two = start_up[1], start_up[2]
    result = {
        "command": "python -m scripts.startup_bound", "cases": n, "repeats_best_of": args.repeats,
        "start_up_parts": {k: (round(v, 3) if isinstance(v, float) else v) for k, v in parts.items()},
        "workers_1": {"wall_s": round(walls[1, "big"], 2), "start_up_s": round(start_up[1], 2),
                      "deciding_s": round(deciding, 2)},
        "workers_2": {"wall_s": round(walls[2, "big"], 2), "start_up_s": round(start_up[2], 2)},
        "cpu_parallelism_of_two_processes": parallelism,
        "speedup_wall": round(walls[1, "big"] / walls[2, "big"], 2),
        "speedup_after_start_up": round(marginal, 2),
        # the measured wall speed-up, from its parts: (S1 + T) / (S2 + T / m)
        "speedup_wall_from_parts": round((one + deciding) / (two + deciding / marginal), 2),
        "speedup_wall_with_a_perfect_split": split_ceiling({"wall_s": walls[1, "big"], "start_up_s": one},
                                                           {"start_up_s": two}, 2),
        "target": target,
        # the start-up (the same for both legs) under which the target is reached
        "start_up_s_the_target_needs": round(deciding * (1 - target / marginal) / (target - 1), 2),
        "start_up_s_the_target_needs_with_a_perfect_split": round(deciding * (1 - target / 2) / (target - 1), 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

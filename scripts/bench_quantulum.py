"""Recall and precision of the text-quantity finder on quantulum3's test sentences.

Run: ``python -m scripts.bench_quantulum [--data PATH] [--out results/quantulum_bench.json]``.

quantulum3's English test set (MIT; a copy lives in ``../shared/benchmarks``)
pairs sentences with the quantities a reader should find. Only the unit
families semgap supports are scored: durations, temperature, percent and
pressure. A found quantity is correct when its value and unit equal an
expected one (value to 1e-6 relative). Months and years are found too, as
"unsupported" quantities that escalate; they are scored on a separate line.

This is a benchmark, not a test: nothing is tuned on it, and the figures are
written as measured. When the data file is absent (a fresh clone has no
``../shared``) the script says so and exits 0.
"""
import argparse
import hashlib
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from semgap_spacy.core.quantities import find_quantities

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / ".." / "shared" / "benchmarks" / "quantulum3" / "quantities.json"
DEFAULT_OUT = ROOT / "results" / "quantulum_bench.json"

# quantulum3 unit names -> (family, Pint unit name as semgap writes it)
SUPPORTED = {
    "second": ("duration", "second"), "minute": ("duration", "minute"), "hour": ("duration", "hour"),
    "day": ("duration", "day"), "week": ("duration", "week"),
    "degree Celsius": ("temperature", "degree_Celsius"),
    "degree fahrenheit": ("temperature", "degree_Fahrenheit"),
    "kelvin": ("temperature", "kelvin"),
    "percentage": ("percent", "percent"),
    "pound-force per square inch": ("pressure", "pound_force_per_square_inch"),
    "bar": ("pressure", "bar"), "kilopascal": ("pressure", "kilopascal"),
}
UNSUPPORTED_DURATIONS = {"month": ("duration (unsupported)", "month"), "year": ("duration (unsupported)", "year")}
FAMILY_OF_UNIT = {unit: family for family, unit in SUPPORTED.values()}
FAMILY_OF_UNIT.update({unit: family for family, unit in UNSUPPORTED_DURATIONS.values()})

Item = Tuple[float, Optional[str]]


def _same(a: Item, b: Item) -> bool:
    return a[1] == b[1] and math.isclose(a[0], b[0], rel_tol=1e-6, abs_tol=1e-9)


def _match(expected: List[Item], found: List[Item]) -> Tuple[List[Item], List[Item], List[Item]]:
    """Greedy one-to-one matching: (matched, missed, spurious)."""
    missed = list(expected)
    matched, spurious = [], []
    for item in found:
        hit = next((i for i, e in enumerate(missed) if _same(e, item)), None)
        if hit is None:
            spurious.append(item)
        else:
            matched.append(missed.pop(hit))
    return matched, missed, spurious


def _ratio(a: int, b: int) -> Optional[float]:
    return round(a / b, 4) if b else None


def score(cases: List[dict], table: Dict[str, Tuple[str, str]]) -> dict:
    """Score the finder on the unit families of ``table``.

    Found quantities count when their unit is one of the table's, or when
    their unit is ambiguous ("30 m": no unit, always spurious).
    """
    units = {unit for _, unit in table.values()}
    tp, fp, fn = Counter(), Counter(), Counter()
    errors = []
    for case in cases:
        text = case.get("req", "")
        expected = [(float(r["value"]), table[r["unit"]][1]) for r in case.get("res", [])
                    if r.get("unit") in table and isinstance(r.get("value"), (int, float))]
        found = [(q.value, q.unit) for q in find_quantities(text)
                 if q.value is not None and (q.unit in units or q.unit is None)]
        matched, missed, spurious = _match(expected, found)
        for counter, items in ((tp, matched), (fn, missed), (fp, spurious)):
            for _, unit in items:
                counter[FAMILY_OF_UNIT.get(unit, "ambiguous unit")] += 1
        if missed or spurious:
            errors.append({"text": text, "missed": missed, "spurious": spurious})
    families = sorted(set(tp) | set(fp) | set(fn))
    per_family = {f: {"tp": tp[f], "fp": fp[f], "fn": fn[f], "precision": _ratio(tp[f], tp[f] + fp[f]),
                      "recall": _ratio(tp[f], tp[f] + fn[f])} for f in families}
    total_tp, total_fp, total_fn = sum(tp.values()), sum(fp.values()), sum(fn.values())
    return {"tp": total_tp, "fp": total_fp, "fn": total_fn,
            "precision": _ratio(total_tp, total_tp + total_fp),
            "recall": _ratio(total_tp, total_tp + total_fn),
            "per_family": per_family, "errors": errors}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="quantulum3 quantities.json (default: ../shared/benchmarks/quantulum3/quantities.json)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the JSON report")
    args = parser.parse_args(argv)

    if not args.data.is_file():
        print(f"quantulum3 benchmark data not found at {args.data}; nothing measured "
              "(the data lives in ../shared, which a fresh clone does not have).")
        return 0
    raw = args.data.read_bytes()
    cases = json.loads(raw)
    supported = score(cases, SUPPORTED)
    with_unsupported = score(cases, {**SUPPORTED, **UNSUPPORTED_DURATIONS})
    report = {
        "benchmark": "quantulum3 en_US quantities.json",
        "data": str(args.data),
        "data_sha256": hashlib.sha256(raw).hexdigest(),
        "sentences": len(cases),
        "match": "value (1e-6 relative) and unit",
        "supported_families": supported,
        "including_months_and_years": {k: v for k, v in with_unsupported.items() if k != "errors"},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    print(f"sentences: {len(cases)}")
    for name, result in (("supported families", supported), ("incl. months/years", with_unsupported)):
        print(f"{name}: precision {result['precision']} recall {result['recall']} "
              f"(tp {result['tp']}, fp {result['fp']}, fn {result['fn']})")
        for family, row in result["per_family"].items():
            print(f"  {family:26s} tp {row['tp']:3d} fp {row['fp']:3d} fn {row['fn']:3d} "
                  f"precision {row['precision']} recall {row['recall']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Score the pipeline on fresh dev-side v2 cases: more of the same, never the test split.

    python -m scripts.heldout_probe --rounds 40 --categories word_order negation

The v2 generator is run again with other seeds (``probe-0``, ``probe-1``, ...)
on the DEV side of the bank only (dev templates, phrasings and filler; no
held-back words), so a failure class seen in a frozen split's counts can be
reproduced and fixed without reading that split. Prints every unsafe proceed
and per-category accuracy; the cases are labelled by the same oracle.
"""
import argparse
import collections
import sys
from typing import List, Optional


def probe_cases(rounds: int, categories: Optional[List[str]] = None) -> list:
    import heldout.generate_v2 as generator
    from heldout.bank import Bank

    bank = Bank()
    surface_v2, new = generator.load_v2()
    specs = {**bank.categories, **new}
    seed = generator.SEED
    cases = []
    try:
        for r in range(rounds):
            generator.SEED = f"probe-{r}"
            for case in generator.generate_split(bank, "dev", surface_v2, specs, set(), set()):
                if categories is None or case["category"] in categories:
                    case["id"] = f"probe{r}-{case['id']}"
                    cases.append(case)
    finally:
        generator.SEED = seed
    return cases


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--categories", nargs="*", default=None)
    args = parser.parse_args(argv)
    from semgap_spacy import build_pipeline, decide_cases

    cases = probe_cases(args.rounds, args.categories)
    inputs = [{k: c[k] for k in ("id", "domain", "text", "readings", "now") if k in c} for c in cases]
    decisions = list(decide_cases(build_pipeline(), inputs))
    stats = collections.defaultdict(collections.Counter)
    for case, decision in zip(cases, decisions):
        s = stats[case["category"]]
        s["n"] += 1
        s["right"] += decision["decision"] == case["expected"]
        if decision["decision"] == "proceed" and case["expected"] != "proceed":
            s["unsafe"] += 1
            print(f"UNSAFE {case['id']} {case['category']} label={case['expected']} "
                  f"{case['text']!r:.160} {[r['code'] for r in decision['reasons']]}")
    for category, s in sorted(stats.items()):
        print(f"{category:24s} n={s['n']:5d} accuracy={s['right'] / s['n']:.3f} unsafe={s['unsafe']}")
    total = sum(s["unsafe"] for s in stats.values())
    print(f"{len(cases)} probe cases, {total} unsafe proceeds")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())

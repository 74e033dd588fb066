"""How often a perturbation a person cannot see turns a non-proceed case into proceed.

Run: ``python -m scripts.perturb_probe [--n 6000] [--seed 1] [--out results/perturb_probe.json]``

Spec §4.1 ("What the text is") says rules read the text a person sees. The
probe takes every case of ``heldout/dev.jsonl`` whose expected decision is not
``proceed``, plus the non-proceed text examples of the spec (from
``tests/test_spec_examples.py``, and the §5 case), makes ``--n`` perturbed
copies with ``tests/perturb.py`` (families in turn, bases in turn, every
choice from ``--seed``; edits aimed at the mentions the dev row lists as
stopping the case, and the word either side, where a hostile writer would aim) and decides them with the bundled pipeline. A
perturbed case that proceeds is a fail-open. Those whose unperturbed base
already proceeds today are counted apart: they are misses of the pipeline,
not of the reading. Whitespace-only edits must not change the decision at
all; the probe counts those that do.

``--simulate-canonical`` decides the canonical reading of each perturbed text
(``semgap_spacy.core.textview``) instead, a forecast of wiring it into the pipes.
"""
import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent


def base_cases() -> List[dict]:
    """Every non-proceed dev case and spec text example, as case dicts.

    Dev cases whose text is not a non-empty string (the malformed-case
    controls) have nothing a person reads, so nothing to perturb; they are left out.
    """
    cases = []
    with open(ROOT / "heldout" / "dev.jsonl", encoding="utf8") as f:
        for line in f:
            row = json.loads(line)
            text = row.get("text")
            if row.get("expected") != "proceed" and isinstance(text, str) and text.strip():
                case = {k: row[k] for k in ("id", "domain", "text", "readings", "now") if k in row}
                mentions = (row.get("facts") or {}).get("mentions") or []
                mentions = [m for m in mentions if isinstance(m, dict)]
                # Aim where a hostile writer would: at what stops the case (a
                # critical term, a field, the cue of a negated or hedged clearance).
                aimed = [m for m in mentions if m.get("signal") != "clear" or m.get("polarity") != "asserted"]
                case["_surfaces"] = [m.get("surface") for m in (aimed or mentions)]
                cases.append(case)
    sys.path.insert(0, str(ROOT))
    from tests import test_spec_examples as spec
    for i, (domain, text, expected) in enumerate(spec.test_spec_text_examples.pytestmark[0].args[1]):
        if expected != "proceed":
            cases.append({"id": f"spec-text-{i}", "domain": domain, "text": text})
    cases.append({"id": "spec-section5", "domain": "medical_logistics", "text": "xm neg, cold ischemia 30 hours",
                  "readings": {"cold_ischemia_elapsed": {"value": 30, "unit": "h"}},
                  "now": "2026-11-30T10:00:00Z"})
    return cases


def make_perturbed(bases: List[dict], n: int, seed: int) -> List[dict]:
    """``n`` perturbed cases: families in turn, bases in turn, reproducible from ``seed``."""
    from tests.perturb import FAMILIES, focus_around, perturb
    rng = random.Random(seed)
    out: List[dict] = []
    i = 0
    misses = 0
    while len(out) < n:
        family = FAMILIES[i % len(FAMILIES)]
        base = bases[(i // len(FAMILIES)) % len(bases)]
        i += 1
        done = perturb(base["text"], family, rng, focus_around(base["text"], base.get("_surfaces", ())))
        if done is None:
            misses += 1
            if misses > 10 * n:
                raise RuntimeError("the perturbation families cannot change these texts")
            continue
        case = {k: v for k, v in base.items() if not k.startswith("_")}
        case.update(id=f"{base['id']}~{family}~{len(out)}", text=done.text)
        out.append({"case": case, "base_id": base["id"], "family": family, "edits": list(done.edits),
                    "original": base["text"]})
    return out


def canonical_text(text: str) -> Tuple[str, bool]:
    """(the canonical reading of ``text``, whether a word of it mixes scripts).

    Only for ``--simulate-canonical``: what the pipes would read once they use
    ``semgap_spacy.core.textview``. Words are read as written (whitespace
    split), then the text view is taken of their canonical forms.
    """
    from semgap_spacy.core.textview import read_text, read_token
    parts = re.split(r"(\s+)", text)
    readings = [None if not p or p.isspace() else read_token(p) for p in parts]
    joined = "".join(p if r is None else r.canonical for p, r in zip(parts, readings))
    return read_text(joined).text, any(r is not None and r.is_suspicious for r in readings)


def run(n: int, seed: int, examples: int = 4, nlp=None, simulate_canonical: bool = False) -> dict:
    """The probe's figures (see the module docstring); ``nlp`` defaults to the bundled pipeline.

    simulate_canonical (bool): Decide the canonical reading of each perturbed
        text instead of the text (a word that mixes scripts counts as escalate,
        as spec §4.1 says). A forecast of wiring the view into the pipes, not a
        measurement of the pipeline: its spans would not point into the original.
    """
    import semgap_spacy
    nlp = nlp if nlp is not None else semgap_spacy.build_pipeline()
    bases = base_cases()
    plain = [{k: v for k, v in b.items() if not k.startswith("_")} for b in bases]
    base_decisions, has_clearance = {}, set()
    for d in semgap_spacy.decide_cases(nlp, plain):
        base_decisions[d["id"]] = d["decision"]
        if any(r.get("code") == "clearance" for r in d.get("reasons", ())):
            has_clearance.add(d["id"])
    perturbed = make_perturbed(bases, n, seed)
    started = time.perf_counter()
    inputs = [p["case"] for p in perturbed]
    suspicious = [False] * len(inputs)
    if simulate_canonical:
        read = [canonical_text(c["text"]) for c in inputs]
        inputs = [dict(c, text=t) for c, (t, _) in zip(inputs, read)]
        suspicious = [s for _, s in read]
    decisions = list(semgap_spacy.decide_cases(nlp, inputs))
    decisions = [dict(d, decision="escalate") if s and d["decision"] == "proceed" else d
                 for d, s in zip(decisions, suspicious)]
    seconds = time.perf_counter() - started
    per_family: Dict[str, Counter] = {}
    shown: Dict[str, List[dict]] = {}
    for p, d in zip(perturbed, decisions):
        fam = per_family.setdefault(p["family"], Counter())
        fam["total"] += 1
        if p["base_id"] in has_clearance:
            fam["base_has_clearance"] += 1
            if d["decision"] == "proceed":
                fam["proceeded_where_base_has_clearance"] += 1
        base_decision = base_decisions[p["base_id"]]
        if base_decision == "proceed":
            fam["base_already_proceeds"] += 1
        if d["decision"] == "proceed":
            fam["proceeded"] += 1
            if base_decision != "proceed":
                fam["proceeded_by_perturbation"] += 1
                if len(shown.setdefault(p["family"], [])) < examples:
                    shown[p["family"]].append({
                        "id": p["case"]["id"], "domain": p["case"]["domain"], "original": p["original"],
                        "perturbed": ascii(p["case"]["text"]), "edits": p["edits"],
                        "base_decision": base_decision})
        if p["family"] == "whitespace" and d["decision"] != base_decision:
            fam["whitespace_changed_decision"] += 1
    total = len(decisions)
    proceeded = sum(c["proceeded"] for c in per_family.values())
    by_perturbation = sum(c["proceeded_by_perturbation"] for c in per_family.values())
    return {
        "command": f"python -m scripts.perturb_probe --n {n} --seed {seed}"
                   + (" --simulate-canonical" if simulate_canonical else ""),
        "simulated_canonical_reading": simulate_canonical,
        "bases": len(bases),
        "bases_proceeding_unperturbed": sum(1 for v in base_decisions.values() if v == "proceed"),
        "total": total,
        "proceeded": proceeded,
        "proceeded_rate": round(proceeded / total, 4) if total else 0.0,
        "proceeded_by_perturbation": by_perturbation,
        "proceeded_by_perturbation_rate": round(by_perturbation / total, 4) if total else 0.0,
        # Only a text that also says "clear" can proceed; the rate among those is the sharper figure.
        "bases_with_clearance": len(has_clearance),
        "proceeded_rate_where_base_has_clearance": round(
            sum(c["proceeded_where_base_has_clearance"] for c in per_family.values())
            / max(1, sum(c["base_has_clearance"] for c in per_family.values())), 4),
        "whitespace_changed_decision": sum(c["whitespace_changed_decision"] for c in per_family.values()),
        "per_family": {f: dict(c) for f, c in sorted(per_family.items())},
        "examples": shown,
        "seconds": round(seconds, 1),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=6000, help="perturbed cases to make (default 6000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of every choice (default 1)")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("--simulate-canonical", action="store_true",
                        help="decide the canonical reading of each text (a forecast of wiring core/textview in)")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    result = run(args.n, args.seed, simulate_canonical=args.simulate_canonical)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

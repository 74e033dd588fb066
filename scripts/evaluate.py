"""Score the pipeline, its ablations and the keyword baseline on the held-out splits.

    python -m scripts.evaluate [--splits dev test] [--out results]
    python -m scripts.evaluate --ablate [--splits dev test] [--out results]
    python -m scripts.evaluate --ablate-trained [--splits dev test] [--out results]   # ablation_trained.*
    python -m scripts.evaluate --splits v2/dev v2/test --out results   # heldout_eval_v2.json / .md

Labels come from ``heldout/`` (facts-only oracle); the engine only ever sees
the case keys of spec §5 (id, domain, text, readings, now), never the label,
the category or the facts. Variants are built from ``configs/pipeline.cfg``
with config overrides, the way ``spacy project run ablate`` documents them.
"""
import argparse
import json
from pathlib import Path
from typing import Dict, List, Optional

import spacy
from thinc.api import Config

from heldout import load_cases
from heldout import baseline_keyword
from heldout.metrics import evaluate as score
from heldout.metrics import render_markdown
from scripts.trained import INSTALL_HINT, installed_trained
from semgap_spacy import add_semgap_pipes, decide_cases

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "pipeline.cfg"
CASE_KEYS = ("id", "domain", "text", "readings", "now")

# Switching a pipe or a feature off is an ablation: without this switch the
# decision escalates ``pipeline_incomplete`` (it did not fully read the text),
# with it every decision carries an ``ablation`` field saying what was off.
ABLATE = {"components.semgap_decision.ablation": True}


def _ablated(variants: Dict[str, Dict[str, object]]) -> Dict[str, Dict[str, object]]:
    return {name: ({**overrides, **ABLATE} if overrides else overrides) for name, overrides in variants.items()}


# The same pipeline with one component switched off.
COMPONENTS: Dict[str, Dict[str, object]] = {
    "semgap (full)": {},
    "without typo repair": {"components.semgap_typo_repair.enabled": False},
    "without terms": {"components.semgap_terms.enabled": False},
    "without context": {"components.semgap_context.enabled": False},
    "without quantities": {"components.semgap_quantities.enabled": False},
    "without coverage": {"components.semgap_coverage.enabled": False},
    "without decision": {"components.semgap_decision.enabled": False},
}
# One major feature switched off at a time.
ABLATIONS: Dict[str, Dict[str, object]] = {
    "full": {},
    "typo_repair": {"components.semgap_typo_repair.enabled": False},
    "inflection": {"components.semgap_terms.inflection": False},
    "frames": {"components.semgap_terms.frames": False},
    "negation": {"components.semgap_context.negation": False},
    "hedges": {"components.semgap_context.hedges": False},
    "text_quantities": {"components.semgap_quantities.text_quantities": False},
    "readings_validation": {"components.semgap_quantities.readings": False},
    "cross_domain": {"components.semgap_terms.cross_domain": False},
    "ambiguity": {"components.semgap_terms.ambiguity": False},
    # spec §4.1: every word explained; what it buys (unsafe proceeds removed) and costs (proceeds lost)
    "coverage": {"components.semgap_coverage.enabled": False},
    # the wider name sources switched ON (they widen what may proceed): proceeds regained, unsafe proceeds added.
    "+names_titlecase": {"components.semgap_coverage.titlecase": True},
    # the decision's looser reading of untied quantities (also widens what may proceed)
    "+untied_contract_kinds": {"components.semgap_decision.untied_quantities": "contract_kinds"},
    "+untied_named_fields": {"components.semgap_decision.untied_quantities": "named_fields"},
}
COMPONENTS, ABLATIONS = _ablated(COMPONENTS), _ablated(ABLATIONS)
# ``ner`` reads ``doc.ents``, which only a trained pipeline fills: these rows (``--ablate-trained``,
# their own files, since a machine without the pipeline cannot re-run them) append the pipes to one
# (``scripts.trained``) with ``add_semgap_pipes``, the full pipeline there too, so the name source
# is judged against the same pipeline. Skipped with a message when none is installed.
TRAINED_ABLATIONS: Dict[str, Dict[str, dict]] = {
    "full, trained pipeline": {},
    "+names_ner, trained pipeline": {"semgap_coverage": {"ner": True}, "semgap_decision": {"ablation": True}},
}


def engine_case(case: dict) -> dict:
    """Only the keys a caller would pass: the label and the facts stay hidden."""
    return {k: case[k] for k in CASE_KEYS if k in case}


def load_pipeline(overrides: Optional[Dict[str, object]] = None):
    config = Config().from_disk(CONFIG, overrides=overrides or {})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    return nlp


def run_variant(overrides: Dict[str, object], cases: List[dict]) -> List[dict]:
    nlp = load_pipeline(overrides)
    return list(decide_cases(nlp, (engine_case(c) for c in cases)))


def run_trained_variant(trained: str, config: Dict[str, dict], cases: List[dict]) -> List[dict]:
    nlp = add_semgap_pipes(spacy.load(trained), config=config)
    return list(decide_cases(nlp, (engine_case(c) for c in cases)))


def run_baseline(cases: List[dict]) -> List[dict]:
    return [baseline_keyword.decide(engine_case(c)) for c in cases]


def _summary(result: dict) -> dict:
    overall = result["overall"]
    core = result["overall_excluding_novel_paraphrase"]
    return {
        "n": overall["n"], "accuracy": overall["accuracy"], "unsafe_proceeds": overall["unsafe_proceeds"],
        "crashes": overall["crashes"], "critical_recall": overall["critical_recall"],
        "accuracy_excluding_novel": core["accuracy"], "unsafe_proceeds_excluding_novel": core["unsafe_proceeds"],
    }


def evaluate_split(split: str, variants: Dict[str, Dict[str, object]], with_baseline: bool,
                   trained: Optional[str] = None) -> dict:
    """Score each variant on one split; with ``trained``, the ``TRAINED_ABLATIONS`` rows too."""
    cases = load_cases(split)
    table = {}
    details = None
    for name, overrides in variants.items():
        result = score(cases, run_variant(overrides, cases))
        table[name] = _summary(result)
        if details is None:
            details = result  # the first variant is the full pipeline
    if trained is not None:
        for name, config in TRAINED_ABLATIONS.items():
            table[f"{name} ({trained})"] = _summary(score(cases, run_trained_variant(trained, config, cases)))
    if with_baseline:
        table["keyword baseline"] = _summary(score(cases, run_baseline(cases)))
    return {"split": split, "table": table, "full": details}


def _fmt(summary: dict) -> str:
    acc = summary["accuracy"]
    core = summary["accuracy_excluding_novel"]
    return (f"{acc['p']:.3f} [{acc['low']:.3f}, {acc['high']:.3f}] | {core['p']:.3f} | "
            f"{summary['unsafe_proceeds']} | {summary['unsafe_proceeds_excluding_novel']} | {summary['crashes']}")


def table_markdown(report: dict) -> str:
    lines = [f"**{report['split']} split** (n = {next(iter(report['table'].values()))['n']})", "",
             "| variant | accuracy [95% CI] | accuracy excl. novel | unsafe proceeds | unsafe excl. novel | crashes |",
             "|---|---|---|---|---|---|"]
    for name, summary in report["table"].items():
        lines.append(f"| {name} | {_fmt(summary)} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", nargs="+", default=["dev", "test"])
    parser.add_argument("--ablate", action="store_true", help="switch features off one at a time")
    parser.add_argument("--ablate-trained", action="store_true",
                        help="the rows that need a trained pipeline (the ner name source), into ablation_trained.*")
    parser.add_argument("--out", default=str(ROOT / "results"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = "ablation" if args.ablate else "heldout_eval"
    if all(split.startswith("v2/") for split in args.splits):
        name += "_v2"  # the v2 splits keep their own files; the README block reads the v1 ones
    variants = ABLATIONS if args.ablate else COMPONENTS
    trained = None
    if args.ablate_trained:
        trained = installed_trained()
        if trained is None:
            print(f"skipped: no trained English pipeline is installed; {INSTALL_HINT}")
            return
        name, variants = name.replace("heldout_eval", "ablation_trained"), {}
    reports = [evaluate_split(split, variants, with_baseline=not (args.ablate or trained), trained=trained)
               for split in args.splits]
    ablating = args.ablate or args.ablate_trained
    payload = {r["split"]: {"table": r["table"], **({} if ablating else {"full": r["full"]})} for r in reports}
    if trained is not None:
        payload["trained_pipeline"] = trained
    (out / f"{name}.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf8")
    parts = [f"# {'Ablation' if ablating else 'Held-out evaluation'}", ""]
    for report in reports:
        parts += [table_markdown(report), ""]
        if not ablating:
            parts += [render_markdown(report["full"], title=f"semgap (full) on {report['split']}"), ""]
    (out / f"{name}.md").write_text("\n".join(parts), encoding="utf8")
    for report in reports:
        print(table_markdown(report) + "\n")


if __name__ == "__main__":
    main()

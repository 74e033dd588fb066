"""The teaching curve of spec §4.2: how many harmless cases one review round turns into proceeds.

    python -m scripts.teaching_curve [--out results]

On the v2 test split it reports the proceed rate on the *harmless* cases
(``facts.harmless``: a clearance and nothing that escalates but unexplained
words from harmless roles), split by whether a case holds a word that no dev
text has, and the unsafe proceeds over the whole split, for:

(a) the bundled lists;
(b) the glossary after one simulated review round over the **dev** split:
    every harmless dev case that escalates with ``unexplained_content`` goes
    into a review queue (a real SQLite file); a reviewer marks the
    unexplained words of each clause *name* (words the dev facts give the
    role ``name``) or *neutral* (the other harmless roles) through
    ``ReviewQueue.teach``; a second person approves every draft
    (``approve``), the version bumps, and test is scored with the taught
    glossary. Words of any other role (term, quantity, problem, paraphrase)
    are never marked. The taught glossary lives in a temporary directory
    and is deleted afterwards: nothing reaches ``glossaries/``;
(c) the ``ner`` name source on a trained English pipeline
    (``en_core_web_sm``), when one is installed; otherwise a "skipped" entry;
(d) the ``titlecase`` name source on.

It also estimates, on dev alone, how far a round could reach if taught
words were shared by all domains or taken from every escalated case
(``dev_halves``): the spec keeps them per domain.

The engine sees only a case's id, domain, text, readings and now; the facts
are read only to play the reviewer on dev and to score. Individual test
cases are never listed.
"""
import argparse
import json
import random
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import spacy

from heldout import load_cases
from heldout.metrics import evaluate as score
from scripts.evaluate import ROOT, engine_case, load_pipeline
from semgap_spacy import add_semgap_pipes, decide_cases
from semgap_spacy.glossary import GlossarySet, bundled_glossary_dir
from semgap_spacy.glossary.governance.approval import approve
from semgap_spacy.glossary.roster import Roster
from semgap_spacy.ops.review_queue import QueueError, ReviewQueue

REVIEW_SPLIT, TEST_SPLIT = "v2/dev", "v2/test"
#: roles of words a review round may teach (heldout/README.md, "harmless")
HARMLESS_ROLES = frozenset({"template", "wrapper", "name", "filler", "chatter", "shape"})
REVIEWER, APPROVER = "Ruth Lindqvist", "Marcus Feld"
NER_PIPELINE = "en_core_web_sm"


# -- the simulated reviewer ----------------------------------------------------------------


def _roles(case: dict) -> Dict[str, Set[str]]:
    """Token text -> the roles the generator gave it in this case."""
    out: Dict[str, Set[str]] = {}
    for token in case["facts"].get("tokens") or []:
        out.setdefault(token["text"], set()).add(token["role"])
    return out


def _word_roles(word: str, roles: Dict[str, Set[str]]) -> Set[str]:
    """The roles of an unexplained word; the pipeline and the facts may split words differently ("St." / "St", ".")."""
    if word in roles:
        return roles[word]
    found: Set[str] = set()
    for text, rs in roles.items():
        if word in text or (any(ch.isalnum() for ch in text) and text in word):
            found |= rs
    return found


def _name_phrases(case: dict) -> List[str]:
    """Each run of consecutive ``name`` tokens of the facts, as a pattern over the text."""
    runs, current = [], []
    for token in case["facts"].get("tokens") or []:
        if token["role"] == "name":
            current.append(token["text"])
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return [r"\s*".join(re.escape(t) for t in run) for run in runs]


def review_clause(queue: ReviewQueue, seq: int, number: int, reason: dict, case: dict, glossaries: Path,
                  stats: Counter, refused: Counter) -> None:
    """Mark one clause's unexplained words as a reviewer who knows the dev facts would."""
    roles = _roles(case)
    names, neutral = [], []
    for word in reason["words"]:
        found = _word_roles(word, roles)
        if not found or found - HARMLESS_ROLES:
            stats["words left unmarked (not a harmless role)"] += 1
            continue
        (names if "name" in found else neutral).append(word)
    clause = reason["evidence"]
    for pattern in _name_phrases(case):
        match = re.search(pattern, clause)
        if match and any(w in match.group(0) for w in names):
            _teach(queue, seq, number, "name", glossaries, stats, refused, phrase=match.group(0),
                   label=match.group(0))
            names = [w for w in names if w not in match.group(0)]
    if names:  # a name the clause cuts: each run of its words
        _teach(queue, seq, number, "name", glossaries, stats, refused, words=names, label=" ".join(names))
    for word in neutral:
        _teach(queue, seq, number, "neutral", glossaries, stats, refused, words=[word], label=word)


def _teach(queue: ReviewQueue, seq: int, number: int, choice: str, glossaries: Path, stats: Counter,
           refused: Counter, label: str, **kwargs) -> None:
    try:
        queue.teach(seq, REVIEWER, number, choice, glossary_dir=glossaries, **kwargs)
        stats[f"{choice} choices"] += 1
    except QueueError as exc:
        refused[f"{choice} {label!r}: {str(exc).removeprefix('teaching refused: ')[:160]}"] += 1


def review_round(glossaries: Path, queue_db: Path, dev: List[dict], decisions: List[dict]) -> dict:
    """One review round over dev, through the queue, approved by a second person."""
    roster = Roster.from_glossaries(GlossarySet.from_dir(glossaries), "governance of the copied glossaries")
    stats: Counter = Counter()
    refused: Counter = Counter()
    with ReviewQueue(queue_db, roster=roster) as queue:
        for case, decision in zip(dev, decisions):
            clauses = [r for r in decision["reasons"] if r["code"] == "unexplained_content"]
            if not case["facts"].get("harmless") or decision["decision"] != "escalate" or not clauses:
                continue
            seq = queue.enqueue(decision, case["text"]).seq
            stats["cases reviewed"] += 1
            for number, reason in enumerate(clauses, 1):
                stats["clauses reviewed"] += 1
                review_clause(queue, seq, number, reason, case, glossaries, stats, refused)
        chain = queue.verify()
    done = approve(glossaries, APPROVER)
    kinds = Counter(d.kind for d in done.drafts)
    return {"reviewer": REVIEWER, "approver": APPROVER, "old_version": done.old_version,
            "new_version": done.new_version, "queue_chain": chain.message, "stats": dict(sorted(stats.items())),
            "drafts_approved": dict(sorted(kinds.items())), "refused": dict(sorted(refused.items()))}


def _domain(case: dict) -> Optional[str]:
    domain = case.get("domain")
    return domain if isinstance(domain, str) else None


def dev_halves(dev: List[dict], decisions: List[dict], seeds: int = 5) -> dict:
    """How far a round could reach under wider rules, estimated on dev alone (never test).

    Dev is cut in random halves; the unexplained words of one half are
    "taught" and the harmless cases of the other half counted as reachable
    when they already proceed or every unexplained word of theirs is taught.
    Four rules: words kept per domain or shared by all domains, taken from
    harmless cases only (the round above) or from every escalated case.
    A word-level estimate: it ignores roles, casing of names and refusals.
    """
    def words(decision: dict) -> Set[str]:
        return {w for r in decision["reasons"] if r["code"] == "unexplained_content" for w in r["words"]}

    rules = {"per domain, harmless cases": (True, True), "shared, harmless cases": (False, True),
             "per domain, every case": (True, False), "shared, every case": (False, False)}
    reached: Counter = Counter()
    total = 0
    for seed in range(seeds):
        order = list(range(len(dev)))
        random.Random(seed).shuffle(order)
        taught: Dict[Tuple[str, bool, bool], Set[str]] = {}
        for i in order[:len(order) // 2]:
            case, decision = dev[i], decisions[i]
            for name, (per_domain, harmless_only) in rules.items():
                if harmless_only and not (case["facts"].get("harmless") and decision["decision"] == "escalate"):
                    continue
                taught.setdefault((name, per_domain and _domain(case)), set()).update(words(decision))
        for i in order[len(order) // 2:]:
            case, decision = dev[i], decisions[i]
            if not case["facts"].get("harmless"):
                continue
            total += 1
            for name, (per_domain, _) in rules.items():
                known = taught.get((name, per_domain and _domain(case)), set())
                reached[name] += decision["decision"] == "proceed" or words(decision) <= known
    return {"seeds": seeds, "harmless_cases": total, "reached": {k: reached[k] / total for k in rules}}


# -- scoring --------------------------------------------------------------------------------


def _decide(nlp, cases: List[dict]) -> List[dict]:
    return list(decide_cases(nlp, (engine_case(c) for c in cases)))


def _summary(cases: List[dict], decisions: List[dict]) -> dict:
    """The harmless proceed rate, and the unsafe proceeds split by whether the case is harmless.

    The oracle labels a harmless case escalate because the *bundled* lists
    leave some of its words unexplained. With the bundled lists a proceed
    there is unsafe like any other; once a review round has taught its words
    (b), or a wider name source explains them (c, d), proceed is what the
    round is for. So the unsafe proceeds against the labels are reported
    whole and split: on harmless cases, and on all other cases, where a
    proceed is always unsafe (the price of a variant).
    """
    result = score(cases, decisions)
    harmful: Counter = Counter()
    on_harmless: Counter = Counter()
    for case, decision in zip(cases, decisions):
        if decision.get("decision") == "proceed" and case["expected"] != "proceed":
            (on_harmless if case["facts"].get("harmless") else harmful)[case["category"]] += 1
    return {"harmless": result["harmless"], "unsafe_proceeds": result["overall"]["unsafe_proceeds"],
            "unsafe_on_harmless_cases": sum(on_harmless.values()),
            "unsafe_not_harmless": sum(harmful.values()),
            "unsafe_not_harmless_by_category": dict(sorted(harmful.items())),
            "unsafe_on_harmless_by_category": dict(sorted(on_harmless.items())),
            "accuracy_against_bundled_labels": result["overall"]["accuracy"],
            "crashes": result["overall"]["crashes"], "n": result["overall"]["n"]}


def _ner_pipeline(glossary: Optional[str] = None):
    """en_core_web_sm with the semgap pipes after it and the ``ner`` name source on, or None."""
    if not spacy.util.is_package(NER_PIPELINE):
        return None
    nlp = spacy.load(NER_PIPELINE)
    return add_semgap_pipes(nlp, config={"semgap_coverage": {"ner": True}}, glossary=glossary)


def teaching_curve(workdir: Path) -> dict:
    dev, test = load_cases(REVIEW_SPLIT), load_cases(TEST_SPLIT)
    glossaries = workdir / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    variants: Dict[str, dict] = {}

    bundled = load_pipeline({"paths.glossaries": str(glossaries)})
    variants["a_bundled"] = {"label": "(a) bundled lists", **_summary(test, _decide(bundled, test))}
    dev_before = _decide(bundled, dev)

    review = review_round(glossaries, workdir / "review.sqlite3", dev, dev_before)
    taught = load_pipeline({"paths.glossaries": str(glossaries)})
    variants["b_taught"] = {"label": "(b) after one review round over dev", **_summary(test, _decide(taught, test))}
    review["dev_harmless_before"] = _summary(dev, dev_before)["harmless"]
    review["dev_harmless_after"] = _summary(dev, _decide(taught, dev))["harmless"]
    review["dev_halves"] = dev_halves(dev, dev_before)

    ner = _ner_pipeline()
    if ner is None:
        variants["c_ner"] = {"label": "(c) ner name source", "skipped": (
            f"{NER_PIPELINE} is not installed (it is not on the package registries this machine can "
            "reach); install a trained English pipeline and run again")}
    else:
        variants["c_ner"] = {"label": f"(c) ner name source ({NER_PIPELINE})", **_summary(test, _decide(ner, test))}
    titlecase = load_pipeline({"components.semgap_coverage.titlecase": True})
    variants["d_titlecase"] = {"label": "(d) titlecase name source", **_summary(test, _decide(titlecase, test))}
    return {"split": TEST_SPLIT, "review_split": REVIEW_SPLIT, "variants": variants, "review_round": review}


def _pct(block: dict) -> str:
    rate = block["proceed_rate"]
    if rate is None:
        return "–"
    return f"{rate['p']:.3f} [{rate['low']:.3f}, {rate['high']:.3f}] ({rate['successes']}/{rate['n']})"


def render_markdown(report: dict) -> str:
    lines = ["# Teaching curve (spec §4.2)", "",
             f"Harmless cases of {report['split']}: proceed rate (Wilson 95 %). Unsafe proceeds over all of "
             f"{report['split']}, against the oracle's labels (which read the bundled lists), split into those "
             "on harmless cases (what teaching is for once their words are taught; unsafe under the bundled "
             "lists) and those on every other case (always unsafe: the price). "
             f"(b) is one simulated review round over {report['review_split']} only.", "",
             "| variant | harmless proceed rate | with a word unseen in dev | without | unsafe proceeds "
             "(on harmless cases) | unsafe proceeds, not harmless |",
             "|---|---|---|---|---|---|"]
    for variant in report["variants"].values():
        if "skipped" in variant:
            lines.append(f"| {variant['label']} | skipped: {variant['skipped']} | | | | |")
            continue
        h = variant["harmless"]
        lines.append(f"| {variant['label']} | {_pct(h)} | {_pct(h['with_word_unseen_in_dev'])} | "
                     f"{_pct(h['without_word_unseen_in_dev'])} | {variant['unsafe_proceeds']} "
                     f"({variant['unsafe_on_harmless_cases']}) | {variant['unsafe_not_harmless']} |")
    review = report["review_round"]
    lines += ["", f"Review round: {review['stats'].get('cases reviewed', 0)} harmless dev cases, "
              f"{review['stats'].get('clauses reviewed', 0)} clauses; drafts approved by {review['approver']} "
              f"(drafted by {review['reviewer']}): {', '.join(f'{k} {v}' for k, v in review['drafts_approved'].items())}; "
              f"glossary {review['old_version']} -> {review['new_version']} (temporary copy).",
              f"Dev harmless proceed rate: {_pct(review['dev_harmless_before'])} before, "
              f"{_pct(review['dev_harmless_after'])} after."]
    halves = review["dev_halves"]
    lines += ["", f"Reach on dev alone ({halves['seeds']} random halves: teach one, count the other's harmless "
              f"cases, {halves['harmless_cases']} over all halves; words taught under each rule): "
              + "; ".join(f"{rule} {share:.0%}" for rule, share in halves["reached"].items()) + "."]
    if review["refused"]:
        lines += ["", "Choices the queue refused (the words stay unexplained):", ""]
        lines += [f"- {what} (x{n})" for what, n in review["refused"].items()]
    for key, title in (("unsafe_not_harmless_by_category", "Unsafe proceeds on cases that are not harmless"),
                       ("unsafe_on_harmless_by_category", "Unsafe proceeds on harmless cases")):
        found = {v["label"]: v[key] for v in report["variants"].values() if v.get(key)}
        if found:
            lines += ["", f"{title}, by category:", ""]
            lines += [f"- {label}: {', '.join(f'{c} {n}' for c, n in cats.items())}" for label, cats in found.items()]
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "results"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="semgap-teaching-") as tmp:
        report = teaching_curve(Path(tmp))
    (out / "teaching_curve.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf8")
    text = render_markdown(report)
    (out / "teaching_curve.md").write_text(text, encoding="utf8")
    print(text)


if __name__ == "__main__":
    main()

"""The teaching curve of spec §4.2: how many harmless cases one review round turns into proceeds.

    python -m scripts.teaching_curve [--out results]          # review v2 dev, score v2 test
    python -m scripts.teaching_curve --develop [--seeds N]    # dev only: review one half, score the other

On the v2 test split it reports the proceed rate on the *harmless* cases
(``facts.harmless``: a clearance and nothing that escalates but unexplained
words from harmless roles), split by whether a case holds a word that no dev
text has, and the unsafe proceeds, for:

(a) the bundled lists;
(b) ... (b6) the glossary after one simulated review round over the **dev**
    split, through a real SQLite review queue: a reviewer records a choice
    per clause (``ReviewQueue.teach``), a second person approves every draft
    (``approve``), the version bumps, and test is scored with the taught
    glossary. Six procedures (``PROCEDURES``): which dev cases the reviewer
    goes through (the harmless ones, as the issue says, or every escalated
    case, as a review queue shows them), the scope of each *neutral* /
    *name* choice (the case's domain, as §4.2 says, or every domain) and,
    in (b5) and (b6), whether a name is drafted with its other casings. The
    reviewer reads only the dev facts (the role of each word); the taught
    glossary lives in a temporary directory: nothing reaches ``glossaries/``;
(c) the ``ner`` name source on a trained English pipeline
    (``scripts.trained``: en_core_web_sm or its PyPI upload), when one is
    installed; otherwise a "skipped" entry;
(d) the ``titlecase`` name source on.

"Unsafe" is counted against the oracle given the SAME taught words: the
held-out oracle relabels every test case with its own rules and the spec's
lists plus the neutral words and names the round taught
(``heldout.coverage.with_taught``), so a proceed is unsafe when the glossary
the team now runs still leaves a word of the case unexplained, or anything
else escalates or blocks. Proceeds on cases that are not harmless are counted
apart: teaching harmless words must never let one through.

``--develop`` runs the same procedures on dev alone (never test): dev is cut
in random halves, one half is reviewed, the other scored.

The engine sees only a case's id, domain, text, readings and now; the facts
are read only to play the reviewer on the reviewed cases and to score.
Individual test cases are never listed.
"""
import argparse
import json
import random
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import spacy

from heldout import coverage, load_cases, oracle
from heldout.metrics import evaluate as score
from scripts.evaluate import ROOT, engine_case, load_pipeline
from scripts.trained import INSTALL_HINT, installed_trained
from semgap_spacy import add_semgap_pipes, decide_cases
from semgap_spacy.glossary import GlossarySet, bundled_glossary_dir
from semgap_spacy.ops.draft_evidence import approve
from semgap_spacy.glossary.roster import Roster
from semgap_spacy.ops.review_queue import QueueError, ReviewQueue

REVIEW_SPLIT, TEST_SPLIT = "v2/dev", "v2/test"
#: roles of words that state something: a clause holding one is marked *problem*
STATING_ROLES = frozenset({"problem", "paraphrase"})
REVIEWER, APPROVER = "Ruth Lindqvist", "Marcus Feld"


@dataclass(frozen=True)
class Procedure:
    """How the simulated reviewer goes through the queue.

    cases: "harmless" (the harmless escalated cases, word by word: the
        issue's procedure) or "queued" (every case the review queue holds,
        escalated or blocked, with unexplained words, clause by clause: what
        a team's reviewer goes through).
    scope: the scope of every *neutral* and *name* choice: "domain" or "all".
    spellings: whether each *name* choice also drafts the name's other
        casings (``ReviewQueue.teach(spellings=True)``).
    overrides: config overrides of the pipeline the taught glossary is scored
        with (a switch a team may set), as (path, value) pairs.
    """

    key: str
    label: str
    cases: str
    scope: str
    spellings: bool = False
    overrides: Tuple[Tuple[str, object], ...] = ()


#: the decisions each kind of round goes through (a proceed is never queued)
QUEUED = {"harmless": ("escalate",), "queued": ("escalate", "block"), "escalated": ("escalate",)}

PROCEDURES = (
    Procedure("b_taught", "(b) harmless dev cases, scope domain", "harmless", "domain"),
    Procedure("b2_harmless_all", "(b2) harmless dev cases, scope all", "harmless", "all"),
    Procedure("b3_every_case", "(b3) every queued dev case, per clause, scope domain", "queued", "domain"),
    Procedure("b4_every_case_all", "(b4) every queued dev case, per clause, scope all", "queued", "all"),
    Procedure("b5_every_case_all_spellings", "(b5) as (b4), each name with its other casings", "queued", "all",
              spellings=True),
    Procedure("b6_harmless_all_spellings", "(b6) as (b2), each name with its other casings", "harmless", "all",
              spellings=True),
    # what the looser switch of the decision buys: untied durations in chatter ("back in 3 hours") proceed
    Procedure("b7_named_fields", "(b7) as (b5), untied_quantities = named_fields", "queued", "all",
              spellings=True, overrides=(("components.semgap_decision.untied_quantities", "named_fields"),)),
)


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
                  stats: Counter, refused: Counter, *, per_clause: bool = False, scope: str = "domain",
                  spellings: bool = False) -> None:
    """Mark one clause's unexplained words as a reviewer who knows the case's facts would.

    Word by word (``per_clause`` False): each word of a harmless role is
    marked *name* (role ``name``) or *neutral*; any other word is left
    unmarked. Per clause: a clause holding a problem or paraphrase word is
    marked *problem* with a note; a clause whose words all have harmless
    roles is marked *name* / *neutral* as above; any other clause (a word
    of a term, quantity or unknown role) is left open.
    """
    roles = _roles(case)
    found = {word: _word_roles(word, roles) for word in reason["words"]}
    if per_clause:
        stating = [w for w, rs in found.items() if rs & STATING_ROLES]
        if stating:
            _teach(queue, seq, number, "problem", glossaries, stats, refused, label=" ".join(stating),
                   note="states something that must stop the action: " + ", ".join(stating))
            return
        if any(not rs or rs - coverage.HARMLESS_ROLES for rs in found.values()):
            stats["clauses left open (a word of another role)"] += 1
            return
    names, neutral = [], []
    for word, rs in found.items():
        if not rs or rs - coverage.HARMLESS_ROLES:
            stats["words left unmarked (not a harmless role)"] += 1
            continue
        (names if "name" in rs else neutral).append(word)
    clause = reason["evidence"]
    for pattern in _name_phrases(case):
        match = re.search(pattern, clause)
        if match and any(w in match.group(0) for w in names):
            _teach(queue, seq, number, "name", glossaries, stats, refused, phrase=match.group(0),
                   label=match.group(0), scope=scope, spellings=spellings)
            names = [w for w in names if w not in match.group(0)]
    if names:  # a name the clause cuts: each run of its words
        _teach(queue, seq, number, "name", glossaries, stats, refused, words=names, label=" ".join(names),
               scope=scope, spellings=spellings)
    for word in neutral:
        _teach(queue, seq, number, "neutral", glossaries, stats, refused, words=[word], label=word, scope=scope)


def _teach(queue: ReviewQueue, seq: int, number: int, choice: str, glossaries: Path, stats: Counter,
           refused: Counter, label: str, scope: Optional[str] = None, **kwargs) -> None:
    try:
        queue.teach(seq, REVIEWER, number, choice, glossary_dir=glossaries, scope=scope, **kwargs)
        stats[f"{choice} choices" + (", scope all" if scope == "all" else "")] += 1
    except QueueError as exc:
        refused[f"{choice} {label!r}: {str(exc).removeprefix('teaching refused: ')[:160]}"] += 1


def review_round(glossaries: Path, queue_db: Path, cases: List[dict], decisions: List[dict],
                 procedure: Procedure) -> dict:
    """One review round over ``cases``, through the queue, approved by a second person."""
    roster = Roster.from_glossaries(GlossarySet.from_dir(glossaries), "governance of the copied glossaries")
    stats: Counter = Counter()
    refused: Counter = Counter()
    with ReviewQueue(queue_db, roster=roster) as queue:
        for case, decision in zip(cases, decisions):
            clauses = [r for r in decision["reasons"] if r["code"] == "unexplained_content"]
            if not clauses or decision["decision"] not in QUEUED[procedure.cases]:
                continue
            if procedure.cases == "harmless" and not case["facts"].get("harmless"):
                continue
            seq = queue.enqueue(decision, case["text"]).seq
            stats["cases reviewed"] += 1
            for number, reason in enumerate(clauses, 1):
                stats["clauses reviewed"] += 1
                review_clause(queue, seq, number, reason, case, glossaries, stats, refused,
                              per_clause=procedure.cases != "harmless", scope=procedure.scope,
                              spellings=procedure.spellings)
        chain = queue.verify()
    done = approve(glossaries, APPROVER)
    kinds = Counter(f"{d.kind}{', scope all' if d.scope == 'all' else ''}" for d in done.drafts)
    return {"procedure": procedure.label, "reviewer": REVIEWER, "approver": APPROVER,
            "old_version": done.old_version, "new_version": done.new_version, "queue_chain": chain.message,
            "stats": dict(sorted(stats.items())), "drafts_approved": dict(sorted(kinds.items())),
            "refused": dict(sorted(refused.items()))}


def taught_lists(glossaries: Path) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
    """(neutral words, known names) per domain that review rounds taught: the ``taught`` records."""
    neutral: Dict[str, List[str]] = {}
    names: Dict[str, List[str]] = {}
    for domain, dom in GlossarySet.from_dir(glossaries).domains.items():
        neutral[domain] = [t.text for t in dom.taught if t.kind == "neutral"]
        names[domain] = [t.text for t in dom.taught if t.kind == "name"]
    return neutral, names


# -- scoring --------------------------------------------------------------------------------


def _decide(nlp, cases: List[dict]) -> List[dict]:
    return list(decide_cases(nlp, (engine_case(c) for c in cases)))


def _relabel(cases: List[dict], lists: Optional[coverage.Lists]) -> List[dict]:
    """The cases with the oracle's label under ``lists`` (None: the labels as frozen)."""
    if lists is None:
        return cases
    return [{**c, "expected": oracle.label(c["facts"], lists)} for c in cases]


def _summary(cases: List[dict], decisions: List[dict], lists: Optional[coverage.Lists] = None) -> dict:
    """The harmless proceed rate and the unsafe proceeds against the oracle given the same lists.

    ``lists`` are the spec's lists plus what a round taught; None for the
    bundled lists (and for the name sources, which the oracle does not
    model: there an unsafe proceed is the price of the switch). Proceeds on
    cases that are not harmless are counted on their own: they must be 0.
    """
    labelled = _relabel(cases, lists)
    result = score(labelled, decisions)
    unsafe: Counter = Counter()
    not_harmless: Counter = Counter()
    against_bundled = 0
    oracle_proceeds = agreed = 0
    for case, relabelled, decision in zip(cases, labelled, decisions):
        proceeds = decision.get("decision") == "proceed"
        oracle_proceeds += relabelled["expected"] == "proceed"
        agreed += proceeds and relabelled["expected"] == "proceed"
        if proceeds and relabelled["expected"] != "proceed":
            unsafe[case["category"]] += 1
        if proceeds and not case["facts"].get("harmless"):
            not_harmless[case["category"]] += 1
        against_bundled += proceeds and case["expected"] != "proceed"
    return {"harmless": result["harmless"], "labels": "taught" if lists is not None else "bundled",
            "unsafe_proceeds": sum(unsafe.values()), "unsafe_by_category": dict(sorted(unsafe.items())),
            "proceeds_not_harmless": sum(not_harmless.values()),
            "proceeds_not_harmless_by_category": dict(sorted(not_harmless.items())),
            "oracle_proceeds": oracle_proceeds, "oracle_proceeds_that_proceed": agreed,
            "proceeds_against_bundled_labels": against_bundled,
            "accuracy": result["overall"]["accuracy"], "crashes": result["overall"]["crashes"],
            "n": result["overall"]["n"]}


def _copy_bundled(target: Path) -> Path:
    shutil.copytree(bundled_glossary_dir(), target, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    return target


def taught_variant(workdir: Path, procedure: Procedure, reviewed: List[dict], reviewed_decisions: List[dict],
                   scored: List[dict]) -> Tuple[dict, dict]:
    """Review ``reviewed`` under ``procedure`` on a fresh copy of the bundle; score ``scored`` with the result.

    RETURNS: (the variant's summary, the review round's record).
    """
    glossaries = _copy_bundled(workdir / procedure.key / "glossaries")
    review = review_round(glossaries, workdir / procedure.key / "review.sqlite3", reviewed, reviewed_decisions,
                          procedure)
    neutral, names = taught_lists(glossaries)
    review["taught"] = {"neutral_words": sum(map(len, neutral.values())), "names": sum(map(len, names.values()))}
    lists = coverage.with_taught(coverage.lists(), neutral, names)
    taught = load_pipeline({"paths.glossaries": str(glossaries), **dict(procedure.overrides)})
    summary = {"label": procedure.label, **_summary(scored, _decide(taught, scored), lists)}
    review["reviewed_harmless_after"] = _summary(reviewed, _decide(taught, reviewed), lists)["harmless"]
    return summary, review


# -- words no round can teach -----------------------------------------------------------------


def unteachable(splits: Dict[str, List[dict]]) -> dict:
    """Never-neutral words (§4.1) among the unexplained words of harmless cases, per split.

    These words are filler, yet the spec's lists forbid them as neutral
    words, so no review round can explain them: a harmless case holding one
    can never proceed. Read from the facts (the oracle's view), not from the
    engine's decisions.
    """
    out = {}
    for name, cases in splits.items():
        words: Counter = Counter()
        holding: Counter = Counter()
        stuck = 0
        for case in cases:
            if not case["facts"].get("harmless"):
                continue
            found = [t["text"].lower() for t in coverage.unexplained_words(case["facts"])
                     if t["role"] != "name" and coverage.never_neutral(t["text"])]
            words.update(found)
            holding.update(set(found))
            stuck += bool(found)
        out[name] = {"harmless_cases_holding_one": stuck,
                     "words": {w: {"occurrences": n, "cases": holding[w]} for w, n in words.most_common()}}
    return out


# -- the variants ---------------------------------------------------------------------------


def _ner_pipeline(name: Optional[str], glossary: Optional[str] = None):
    """The trained pipeline with the semgap pipes after it and the ``ner`` name source on, or None."""
    if name is None:
        return None
    nlp = spacy.load(name)
    return add_semgap_pipes(nlp, config={"semgap_coverage": {"ner": True}}, glossary=glossary)


def teaching_curve(workdir: Path) -> dict:
    """Every variant on v2 test, the review rounds over v2 dev."""
    dev, test = load_cases(REVIEW_SPLIT), load_cases(TEST_SPLIT)
    variants: Dict[str, dict] = {}
    rounds: Dict[str, dict] = {}
    bundled = load_pipeline({"paths.glossaries": str(_copy_bundled(workdir / "bundled"))})
    variants["a_bundled"] = {"label": "(a) bundled lists", **_summary(test, _decide(bundled, test))}
    dev_before = _decide(bundled, dev)
    dev_harmless_before = _summary(dev, dev_before)["harmless"]
    for procedure in PROCEDURES:
        variants[procedure.key], rounds[procedure.key] = taught_variant(workdir, procedure, dev, dev_before, test)
        rounds[procedure.key]["reviewed_harmless_before"] = dev_harmless_before

    trained = installed_trained()
    ner = _ner_pipeline(trained)
    if ner is None:
        variants["c_ner"] = {"label": "(c) ner name source",
                             "skipped": f"no trained English pipeline is installed; {INSTALL_HINT}"}
    else:
        variants["c_ner"] = {"label": f"(c) ner name source ({trained})", **_summary(test, _decide(ner, test))}
    titlecase = load_pipeline({"components.semgap_coverage.titlecase": True})
    variants["d_titlecase"] = {"label": "(d) titlecase name source", **_summary(test, _decide(titlecase, test))}
    return {"split": TEST_SPLIT, "review_split": REVIEW_SPLIT, "variants": variants, "review_rounds": rounds,
            "unteachable": unteachable({"v2/dev": dev, "v2/test": test})}


def develop(workdir: Path, seeds: int = 3) -> dict:
    """The procedures on dev alone: review one random half, score the other (never reads test)."""
    dev = load_cases(REVIEW_SPLIT)
    bundled = load_pipeline({"paths.glossaries": str(_copy_bundled(workdir / "bundled"))})
    decisions = _decide(bundled, dev)
    runs: Dict[str, List[dict]] = {"a_bundled": []}
    for seed in range(seeds):
        order = list(range(len(dev)))
        random.Random(seed).shuffle(order)
        half = len(order) // 2
        reviewed, scored = [dev[i] for i in order[:half]], [dev[i] for i in order[half:]]
        runs["a_bundled"].append(_summary(scored, [decisions[i] for i in order[half:]]))
        for procedure in PROCEDURES:
            summary, review = taught_variant(workdir / f"seed{seed}", procedure, reviewed,
                                             [decisions[i] for i in order[:half]], scored)
            runs.setdefault(procedure.key, []).append({**summary, "review": review})
    labels = {"a_bundled": "(a) bundled lists", **{p.key: p.label for p in PROCEDURES}}
    out = {}
    for key, found in runs.items():
        reached = sum(r["harmless"]["proceed_rate"]["successes"] for r in found)
        total = sum(r["harmless"]["proceed_rate"]["n"] for r in found)
        out[key] = {"label": labels[key], "harmless_reached": reached, "harmless_cases": total,
                    "proceed_rate": reached / total if total else None,
                    "unsafe_proceeds": sum(r["unsafe_proceeds"] for r in found),
                    "proceeds_not_harmless": sum(r["proceeds_not_harmless"] for r in found),
                    "per_seed": [r["harmless"]["proceed_rate"]["p"] for r in found]}
    return {"split": REVIEW_SPLIT, "seeds": seeds, "variants": out}


def _pct(block: dict) -> str:
    rate = block["proceed_rate"]
    if rate is None:
        return "–"
    return f"{rate['p']:.3f} [{rate['low']:.3f}, {rate['high']:.3f}] ({rate['successes']}/{rate['n']})"


def render_markdown(report: dict) -> str:
    lines = ["# Teaching curve (spec §4.2)", "",
             f"Harmless cases of {report['split']}: proceed rate (Wilson 95 %). Unsafe proceeds over all of "
             f"{report['split']}: the pipeline proceeds where the oracle says escalate or block, the oracle "
             "given the same taught neutral words and names as the pipeline (for (a) and the name sources: "
             "the bundled lists). Proceeds on cases that are not harmless must be 0. "
             f"(b)-(b4) are one simulated review round over {report['review_split']} only.", "",
             "| variant | harmless proceed rate | with a word unseen in dev | without | unsafe proceeds "
             "| proceeds, not harmless | oracle proceeds that proceed |",
             "|---|---|---|---|---|---|---|"]
    for variant in report["variants"].values():
        if "skipped" in variant:
            lines.append(f"| {variant['label']} | skipped: {variant['skipped']} | | | | | |")
            continue
        h = variant["harmless"]
        lines.append(f"| {variant['label']} | {_pct(h)} | {_pct(h['with_word_unseen_in_dev'])} | "
                     f"{_pct(h['without_word_unseen_in_dev'])} | {variant['unsafe_proceeds']} | "
                     f"{variant['proceeds_not_harmless']} | {variant['oracle_proceeds_that_proceed']}/"
                     f"{variant['oracle_proceeds']} |")
    lines += ["", "Review rounds (reviewer " + REVIEWER + ", approver " + APPROVER + ", on a temporary copy):", ""]
    for review in report["review_rounds"].values():
        stats = ", ".join(f"{k} {v}" for k, v in review["stats"].items())
        drafts = ", ".join(f"{k} {v}" for k, v in review["drafts_approved"].items())
        lines.append(f"- {review['procedure']}: {stats}; drafts approved: {drafts}; glossary "
                     f"{review['old_version']} -> {review['new_version']}; dev harmless proceed rate "
                     f"{_pct(review['reviewed_harmless_before'])} before, "
                     f"{_pct(review['reviewed_harmless_after'])} after.")
    refusals = Counter()
    for review in report["review_rounds"].values():
        refusals.update(review["refused"])
    if refusals:
        lines += ["", "Choices the queue refused in any round (the words stay unexplained):", ""]
        lines += [f"- {what} (x{n})" for what, n in sorted(refusals.items())]
    lines += ["", "Never-neutral words (spec §4.1) among the unexplained filler of harmless cases: no round can "
              "teach them, so a harmless case holding one never proceeds:", ""]
    for split, found in report["unteachable"].items():
        words = ", ".join(f"\"{w}\" {c['occurrences']} in {c['cases']} case{'s' if c['cases'] != 1 else ''}"
                          for w, c in found["words"].items()) or "none"
        lines.append(f"- {split}: {found['harmless_cases_holding_one']} harmless cases; {words}")
    for key, title in (("unsafe_by_category", "Unsafe proceeds"),
                       ("proceeds_not_harmless_by_category", "Proceeds on cases that are not harmless")):
        found = {v["label"]: v[key] for v in report["variants"].values() if v.get(key)}
        if found:
            lines += ["", f"{title}, by category:", ""]
            lines += [f"- {label}: {', '.join(f'{c} {n}' for c, n in cats.items())}" for label, cats in found.items()]
    return "\n".join(lines) + "\n"


def render_develop(report: dict) -> str:
    lines = [f"# Teaching curve on {report['split']} alone ({report['seeds']} random halves)", "",
             "Each seed reviews one half of dev and scores the harmless cases of the other half; unsafe against "
             "the oracle given the same taught words.", "",
             "| variant | harmless reached | rate | per seed | unsafe proceeds | proceeds, not harmless |",
             "|---|---|---|---|---|---|"]
    for v in report["variants"].values():
        seeds = ", ".join(f"{p:.3f}" for p in v["per_seed"])
        lines.append(f"| {v['label']} | {v['harmless_reached']}/{v['harmless_cases']} | {v['proceed_rate']:.3f} | "
                     f"{seeds} | {v['unsafe_proceeds']} | {v['proceeds_not_harmless']} |")
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "results"))
    parser.add_argument("--develop", action="store_true",
                        help="dev only: review one random half of v2 dev, score the other (never reads test)")
    parser.add_argument("--seeds", type=int, default=3, help="--develop: how many random halves")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = "teaching_curve_dev" if args.develop else "teaching_curve"
    with tempfile.TemporaryDirectory(prefix="semgap-teaching-") as tmp:
        report = develop(Path(tmp), args.seeds) if args.develop else teaching_curve(Path(tmp))
    (out / f"{stem}.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf8")
    text = render_develop(report) if args.develop else render_markdown(report)
    (out / f"{stem}.md").write_text(text, encoding="utf8")
    print(text)


if __name__ == "__main__":
    main()

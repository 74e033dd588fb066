"""Held-out split v2: reproducible, frozen, and every word of every text accounted for."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from heldout import HELDOUT_DIR, coverage, generate_v2, load_cases, oracle
from heldout.check_frozen import check

ROOT = HELDOUT_DIR.parent
V2 = HELDOUT_DIR / "v2"
ROLES = {"term", "frame", "abbrev", "quantity", "template", "wrapper", "name", "filler", "chatter", "problem", "paraphrase", "shape"}


@pytest.fixture(scope="module")
def splits() -> dict[str, list[dict]]:
    return {s: load_cases(V2 / f"{s}.jsonl") for s in ("dev", "test")}


def test_v2_files_are_what_the_generator_writes():
    files = generate_v2.build_all()
    for split, data in files.items():
        assert (V2 / f"{split}.jsonl").read_bytes() == data, f"v2/{split}.jsonl is stale: python -m heldout.generate --version 2"


def test_v2_generation_does_not_depend_on_hash_seed():
    code = (
        "import hashlib; from heldout import generate_v2 as g; f = g.build_all(); "
        "print(hashlib.sha256(f['dev']).hexdigest(), hashlib.sha256(f['test']).hexdigest())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    dev, test = done.stdout.split()
    assert dev == hashlib.sha256((V2 / "dev.jsonl").read_bytes()).hexdigest()
    assert test == hashlib.sha256((V2 / "test.jsonl").read_bytes()).hexdigest()


def test_v2_test_split_is_frozen_and_a_change_is_caught(tmp_path: Path):
    ok, message = check(V2)
    assert ok, message
    assert generate_v2.sha256((V2 / "test.jsonl").read_bytes()) == (V2 / "FROZEN.sha256").read_text().split()[0]
    shutil.copy(V2 / "FROZEN.sha256", tmp_path / "FROZEN.sha256")
    (tmp_path / "test.jsonl").write_bytes((V2 / "test.jsonl").read_bytes().replace(b'"proceed"', b'"escalate"', 1))
    ok, message = check(tmp_path)
    assert not ok and "FROZEN.sha256" in message
    done = subprocess.run([sys.executable, "-m", "heldout.check_frozen", "--version", "2"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_v1_files_are_untouched():
    ok, message = check(HELDOUT_DIR)
    assert ok, message


def test_every_word_of_every_text_is_accounted_for(splits):
    for cases in splits.values():
        for c in cases:
            facts = c["facts"]
            if not isinstance(c.get("text"), str):
                assert "tokens" not in facts
                continue
            toks = facts["tokens"]
            assert [t["text"] for t in toks] == coverage.tokenize(c["text"]), c["id"]
            assert {t["role"] for t in toks} <= ROLES, c["id"]
            for t in toks:
                if t["role"] == "term":
                    m = facts["mentions"][t["mention"]]
                    assert coverage.plain(t["text"]) in coverage.plain(m["surface"]) or m["via"] == "frame", c["id"]


def test_labels_and_flags_are_the_oracles(splits):
    for cases in splits.values():
        for c in cases:
            assert c["expected"] == oracle.label(c["facts"]), c["id"]
            assert c["facts"]["harmless"] == oracle.harmless(c["facts"]), c["id"]


def test_problems_in_unlisted_words_never_proceed_and_are_not_harmless(splits):
    seen = Counter()
    for cases in splits.values():
        for c in (c for c in cases if c["category"] == "unlisted_problem"):
            assert c["expected"] != "proceed" and not c["facts"]["harmless"], c["id"]
            words = [t for t in coverage.unexplained_words(c["facts"]) if t["role"] == "problem"]
            assert words, c["id"]
            seen[(c["domain"], c["facts"]["lang"])] += 1
    assert {lang for _d, lang in seen} == {"en", "es", "fr", "de"}
    assert {d for d, _l in seen} == {"medical_logistics", "mortgage", "pharma_qa", "aviation_maintenance"}
    assert len({c["facts"]["source"]["problem"]["shape"] for cs in splits.values() for c in cs if c["category"] == "unlisted_problem"}) >= 10


def test_explained_chatter_proceeds(splits):
    for cases in splits.values():
        chatter = [c for c in cases if c["category"] == "chatter_proceed"]
        assert chatter and all(c["expected"] == "proceed" for c in chatter)


def test_unattached_categories_carry_their_reason(splits):
    for cases in splits.values():
        for c in cases:
            if c["category"] in ("unattached_hedge", "unattached_negation"):
                rules = {r for r, _o, _d in oracle.findings(c["facts"])}
                assert c["category"] in rules, c["id"]


def test_holdback_filler_is_test_only_and_about_a_tenth_of_harmless_test_cases(splits):
    dev_words = {coverage.plain(w) for c in splits["dev"] if isinstance(c.get("text"), str) for w in coverage.tokenize(c["text"])}
    assert not any(c["facts"].get("holdback_words") for c in splits["dev"])
    harmless = [c for c in splits["test"] if c["facts"]["harmless"]]
    held = [c for c in harmless if c["facts"]["holdback_words"]]
    assert 0.07 <= len(held) / len(harmless) <= 0.15
    for c in held:
        assert not set(c["facts"]["holdback_words"]) & dev_words
        assert set(c["facts"]["unseen_in_dev"]) & set(c["facts"]["holdback_words"])
    for c in splits["test"]:
        words = {coverage.plain(t["text"]) for t in coverage.unexplained_words(c["facts"])} if "tokens" in c["facts"] else set()
        assert c["facts"]["unseen_in_dev"] == sorted(words - dev_words), c["id"]


def test_no_case_is_in_both_splits(splits):
    def key(c):
        return generate_v2._key(c)

    dev = {key(c) for c in splits["dev"]}
    assert not [c["id"] for c in splits["test"] if key(c) in dev]
    dev_texts = {(c["domain"], c["text"]) for c in splits["dev"] if isinstance(c.get("text"), str) and isinstance(c.get("domain"), str)}
    same_text = [c for c in splits["test"] if isinstance(c.get("text"), str) and isinstance(c.get("domain"), str) and (c["domain"], c["text"]) in dev_texts]
    assert not same_text  # not even with other readings: a held-out text is new


def test_readme_v2_table_is_current(splits):
    table = generate_v2.stats_table(splits)
    assert table in (HELDOUT_DIR / "README.md").read_text(encoding="utf-8"), "refresh: python -m heldout.generate --version 2 --stats"


def test_metrics_report_the_harmless_proceed_rate(splits):
    from heldout import metrics

    cases = splits["test"]
    # A system that proceeds exactly on the oracle's proceeds: every harmless case that is
    # a clean proceed counts, none that needs teaching does.
    decisions = [{"id": c["id"], "decision": c["expected"], "reasons": []} for c in cases]
    h = metrics.evaluate(cases, decisions)["harmless"]
    harmless = [c for c in cases if c["facts"]["harmless"]]
    assert h["n"] == len(harmless)
    assert h["proceed_rate"]["successes"] == sum(c["expected"] == "proceed" for c in harmless)
    assert h["with_word_unseen_in_dev"]["n"] == sum(bool(c["facts"]["unseen_in_dev"]) for c in harmless)
    assert "Harmless cases" in metrics.render_markdown(metrics.evaluate(cases, decisions))
    assert metrics.evaluate(load_cases("dev"), [])["harmless"] is None  # v1 has no flag
    assert len(load_cases("v2/dev")) == len(splits["dev"])

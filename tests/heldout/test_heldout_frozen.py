"""The held-out files: frozen, reproducible, well-formed, and split cleanly."""

import sys


import collections
import hashlib
import json
import re
import subprocess

import pytest

from heldout import HELDOUT_DIR, load_cases
from heldout import generate as gen
from heldout.bank import Bank, lint_bank, split_items
from heldout.check_frozen import check
from heldout.oracle import label

ROOT = HELDOUT_DIR.parent
CATEGORIES = gen.CATEGORIES


@pytest.fixture(scope="module")
def splits():
    return {s: load_cases(s) for s in ("dev", "test")}


def test_frozen_hash_matches_test_file():
    ok, message = check()
    assert ok, message
    frozen = (HELDOUT_DIR / "FROZEN.sha256").read_text(encoding="utf-8")
    assert re.fullmatch(r"[0-9a-f]{64}  test\.jsonl\n", frozen)
    assert frozen.split()[0] == hashlib.sha256((HELDOUT_DIR / "test.jsonl").read_bytes()).hexdigest()


def test_check_frozen_detects_a_changed_test_file(tmp_path):
    (tmp_path / "test.jsonl").write_bytes((HELDOUT_DIR / "test.jsonl").read_bytes() + b"\n")
    (tmp_path / "FROZEN.sha256").write_bytes((HELDOUT_DIR / "FROZEN.sha256").read_bytes())
    ok, message = check(tmp_path)
    assert not ok and "was changed" in message


def test_check_frozen_cli_exit_code():
    done = subprocess.run([sys.executable, "-m", "heldout.check_frozen"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_generator_check_reproduces_files():
    done = subprocess.run([sys.executable, "-m", "heldout.generate", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_generator_refuses_to_replace_a_frozen_test_file(tmp_path):
    old = b'{"id": "test-0001"}\n'
    (tmp_path / "test.jsonl").write_bytes(old)
    (tmp_path / "FROZEN.sha256").write_text(f"{hashlib.sha256(old).hexdigest()}  test.jsonl\n")
    assert gen.main(["--out", str(tmp_path)]) == 2
    assert (tmp_path / "test.jsonl").read_bytes() == old  # untouched
    assert gen.main(["--out", str(tmp_path), "--force-refreeze"]) == 0
    new = (tmp_path / "test.jsonl").read_bytes()
    assert new == (HELDOUT_DIR / "test.jsonl").read_bytes()
    assert (tmp_path / "FROZEN.sha256").read_text().split()[0] == hashlib.sha256(new).hexdigest()
    assert gen.main(["--out", str(tmp_path)]) == 0  # same content as frozen: allowed
    assert gen.main(["--out", str(tmp_path), "--check"]) == 0


def test_bank_lint_is_clean():
    assert lint_bank(Bank()) == []


def test_case_format(splits):
    for split, cases in splits.items():
        ids = [c["id"] for c in cases]
        assert len(ids) == len(set(ids))
        assert all(i.startswith(f"{split}-") for i in ids)
        for c in cases:
            assert c["category"] in CATEGORIES
            assert c["expected"] in ("proceed", "escalate", "block")
            assert set(c) <= {"id", "domain", "text", "readings", "now", "category", "expected", "facts"}
            if c["facts"]["case_malformed"] is None:
                assert isinstance(c["text"], str) and len(c["text"]) <= 4000
                assert c["domain"] in ("medical_logistics", "mortgage", "pharma_qa", "aviation_maintenance")


def test_labels_are_the_oracles(splits):
    for cases in splits.values():
        for c in cases:
            assert label(c["facts"]) == c["expected"], c["id"]


def test_every_category_in_both_splits(splits):
    for split, cases in splits.items():
        assert len(cases) >= 300
        counts = collections.Counter(c["category"] for c in cases)
        for category in CATEGORIES:
            assert counts[category] >= 8, (split, category, counts[category])


def test_splits_share_no_template_phrasing_org_person_wrapper_filler_or_typo(splits):
    def provenance(cases):
        out = collections.defaultdict(set)
        for c in cases:
            src = c["facts"]["source"]
            out["template"].add(src["template"])
            out["org"].add(src["org"])
            out["person"].add(src["person"])
            for key in ("wrapper", "filler", "filler_typo"):
                if key in src:
                    out[key].add(src[key])
            if "typo" in src:
                out["typo"].add(src["typo"]["typo"])
        return out

    dev, test = provenance(splits["dev"]), provenance(splits["test"])
    for key in ("template", "org", "person", "wrapper", "filler", "filler_typo", "typo"):
        assert dev[key] and test[key], key
        assert not dev[key] & test[key], (key, dev[key] & test[key])
    bank = Bank()
    phrasings = {
        s: {p for spec in bank.categories.values() for t in split_items(spec["templates"], s) for p in t["phrasings"]}
        for s in ("dev", "test")
    }
    assert not phrasings["dev"] & phrasings["test"]
    frames = {s: {t["id"] for t in split_items(bank.categories["word_order"]["templates"], s)} for s in ("dev", "test")}
    assert frames["dev"] and frames["test"] and not frames["dev"] & frames["test"]
    texts = {s: {c["text"] for c in splits[s] if isinstance(c.get("text"), str) and c["text"].strip()} for s in splits}
    assert not texts["dev"] & texts["test"]


def test_malformed_inputs_are_real(splits):
    """The malformed cases carry the actual bad payloads, not descriptions of them."""
    for cases in splits.values():
        raw = [json.dumps(c.get("readings"), allow_nan=True) for c in cases if c["category"] == "malformed_reading"]
        joined = " ".join(raw)
        assert "NaN" in joined and '"NaN"' in joined and "Infinity" in joined
        assert any(isinstance(c.get("readings"), list) for c in cases)
        case_modes = {c["facts"]["source"]["mode"] for c in cases if c["category"] == "malformed_case"}
        assert {"unknown_domain", "text_null", "text_4500", "text_4000_valid"} <= case_modes
        long = [c for c in cases if c["facts"]["case_malformed"] == "text_too_long"]
        assert long and all(len(c["text"]) > 4000 for c in long)
        known = {"medical_logistics", "mortgage", "pharma_qa", "aviation_maintenance"}
        assert any(isinstance(c.get("domain"), str) and c["domain"] and c["domain"] not in known for c in cases)
        assert any("domain" in c and c["domain"] is None for c in cases)
        assert any(c.get("text") is None and "text" in c for c in cases)
        assert any(isinstance(c.get("text"), (int, float)) and not isinstance(c.get("text"), bool) for c in cases)


def test_novel_paraphrases_are_marked(splits):
    for cases in splits.values():
        novel = [c for c in cases if c["category"] == "novel_paraphrase"]
        assert novel and all(c["facts"]["novel"] for c in novel)
        assert not any(c["facts"]["novel"] for c in cases if c["category"] != "novel_paraphrase")


def test_facts_match_the_text(splits):
    """Every recorded term surface and text quantity is really in the case text."""
    for cases in splits.values():
        for c in cases:
            text = c.get("text")
            for m in c["facts"]["mentions"]:
                if m["via"] not in ("frame", "paraphrase"):
                    assert isinstance(text, str) and m["surface"].lower() in text.lower(), (c["id"], m["surface"])
            for q in c["facts"]["quantities"]:
                assert q["surface"] in text, (c["id"], q["surface"])


def test_readme_counts_are_current(splits):
    readme = (HELDOUT_DIR / "README.md").read_text(encoding="utf-8")
    assert gen.stats_table(splits) in readme

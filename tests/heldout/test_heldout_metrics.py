"""Metrics on a tiny fixture whose numbers were worked out by hand."""



import json

import pytest

from heldout.metrics import evaluate, render_markdown, wilson


def approx(x):
    return pytest.approx(x, abs=1e-3)


def test_wilson_hand_computed():
    # p=0.8, n=10, z=1.96: centre=0.99208/1.38415=0.71674, half=0.31362/1.38415=0.22658
    w = wilson(8, 10)
    assert (w["low"], w["high"]) == (approx(0.4902), approx(0.9433))
    # 1/2: centre 0.5, half 1.18429/2.92073=0.40548
    w = wilson(1, 2)
    assert (w["low"], w["high"]) == (approx(0.0945), approx(0.9055))
    # all successes: low = n/(n+z^2) = 5/8.84146
    assert wilson(5, 5)["low"] == approx(0.5655) and wilson(5, 5)["high"] == 1.0
    # no successes: high = z^2/(n+z^2) = 3.84146/8.84146
    assert wilson(0, 5)["high"] == approx(0.4345) and wilson(0, 5)["low"] == 0.0
    assert wilson(0, 0) is None


def case(i, category, expected, text="some text"):
    return {"id": f"t-{i}", "category": category, "expected": expected, "text": text, "facts": {}}


LONG = "x" * 300
CASES = [
    case(1, "control", "block"),
    case(2, "control", "block", LONG),
    case(3, "control", "proceed"),
    case(4, "negation", "escalate"),
    case(5, "negation", "escalate"),
    case(6, "novel_paraphrase", "proceed"),
    case(7, "negation", "escalate", text=None),
]


def dec(i, decision, *codes):
    return {"id": f"t-{i}", "decision": decision, "reasons": [{"code": c, "outcome": decision} for c in codes]}


DECISIONS = [
    dec(1, "block", "critical_term"),
    dec(2, "escalate", "no_clearance"),  # a missed block
    dec(3, "proceed", "clearance"),
    dec(4, "proceed", "clearance"),  # unsafe proceed
    None,  # t-5 has no decision: crash
    dec(6, "escalate", "no_clearance"),  # safe but wrong on a novel paraphrase
    dec(7, "maybe"),  # not a decision value: crash
]


@pytest.fixture(scope="module")
def results():
    return evaluate(CASES, DECISIONS)


def test_overall_counts(results):
    o = results["overall"]
    assert o["n"] == 7
    assert o["correct"] == 2  # t-1, t-3
    assert (o["accuracy"]["low"], o["accuracy"]["high"]) == (approx(wilson(2, 7)["low"]), approx(wilson(2, 7)["high"]))
    assert o["critical_recall"]["successes"] == 1 and o["critical_recall"]["n"] == 2
    assert (o["critical_recall"]["low"], o["critical_recall"]["high"]) == (approx(0.0945), approx(0.9055))
    assert o["proceed_recall"]["successes"] == 1 and o["proceed_recall"]["n"] == 2
    assert o["unsafe_proceeds"] == 1
    assert o["crashes"] == 2


def test_confusion_excludes_crashes(results):
    c = results["overall"]["confusion"]
    assert c["block"] == {"proceed": 0, "escalate": 1, "block": 1}
    assert c["proceed"] == {"proceed": 1, "escalate": 1, "block": 0}
    assert c["escalate"] == {"proceed": 1, "escalate": 0, "block": 0}
    assert sum(sum(row.values()) for row in c.values()) == 7 - 2


def test_excluding_novel_and_per_category(results):
    ex = results["overall_excluding_novel_paraphrase"]
    assert ex["n"] == 6 and ex["correct"] == 2
    # 2/6 hand-computed: centre 0.39839, half 0.30162
    assert (ex["accuracy"]["low"], ex["accuracy"]["high"]) == (approx(0.0968), approx(0.7000))
    neg = results["by_category"]["negation"]
    assert neg["n"] == 3 and neg["correct"] == 0 and neg["unsafe_proceeds"] == 1 and neg["crashes"] == 2
    assert neg["critical_recall"] is None  # no block labels in this category
    assert results["by_category"]["novel_paraphrase"]["proceed_recall"]["successes"] == 0


def test_misses(results):
    misses = {m["id"]: m for m in results["misses"]}
    assert set(misses) == {"t-2", "t-4", "t-5", "t-6", "t-7"}
    assert misses["t-5"]["decision"] == "crash" and misses["t-7"]["decision"] == "crash"
    assert misses["t-2"]["reason_codes"] == ["no_clearance"]
    assert misses["t-2"]["text"] == "x" * 200 + "…"
    assert misses["t-7"]["text"] == "null"


def test_missing_id_is_a_crash():
    r = evaluate([case(1, "control", "block")], [dec(99, "block")])
    assert r["overall"]["crashes"] == 1 and r["overall"]["correct"] == 0


def test_results_are_json_and_render(results):
    json.dumps(results)
    md = render_markdown(results)
    assert "| **overall** | 7 |" in md
    assert "t-4" in md and "crash" in md
    assert "| block | 0 | 1 | 1 |" in md

"""The blind quantity probe (``heldout/probes/quantity_cases.jsonl``): 120 cases written
from the spec alone, without a look at the code, where numbers, units, times and dates
decide: numbers in words, unit variants, ranges and bounds, clock times and dates, numbers
of other things beside the field, values on and around each contract's limit. No case a
careful person would not act on ("expect": "not_proceed") may proceed; the proceed rate of
the others is the price, reported in the README and not asserted here."""
import json
from pathlib import Path

from semgap_spacy import decide_cases

PROBE = Path(__file__).resolve().parents[1] / "heldout" / "probes" / "quantity_cases.jsonl"


def test_no_case_of_the_quantity_probe_that_must_not_proceed_proceeds(nlp):
    rows = [json.loads(line) for line in PROBE.read_text(encoding="utf8").splitlines()]
    assert len(rows) == 120 and sum(r["expect"] == "not_proceed" for r in rows) == 90
    cases = [{k: v for k, v in r.items() if k not in ("expect", "why")} for r in rows]
    unsafe = [(r["id"], r["text"]) for r, d in zip(rows, decide_cases(nlp, cases))
              if r["expect"] == "not_proceed" and d["decision"] == "proceed"]
    assert unsafe == []

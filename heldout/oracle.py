"""Facts-only oracle: the label of a held-out case, from its facts alone.

This module implements domain-spec.md §4 (decision policy) over the *facts*
the generator recorded when it built a case: which terms the text mentions and
how (asserted / negated / hedged, exact / misspelt, own domain or not, draft
or approved), the readings and text quantities with their contracts, and a few
flags. It never reads the case text and imports nothing from ``semgap_spacy``,
so a label can never inherit an engine bug.

Facts schema (keys the oracle reads; the generator writes more for reporting)::

    {
      "domain": "mortgage",                      # the case's domain
      "case_malformed": null | "unknown_domain" | "text_not_string" | "text_too_long",
      "mentions": [{"term", "signal": clear|critical_block|field, "domain",
                    "status": approved|draft, "polarity": asserted|negated|hedged,
                    "spelling": exact|misspelt, "field": <field name, for signal field>}],
      "readings": [{"field", "status": valid|malformed|ambiguous_unit|unsupported_unit|time_problem,
                    "value": <number in the contract unit>, "contract": {...}}],
      "quantities": [{"field" (null = tied to no field), "status": valid|ambiguous_unit|unsupported_unit,
                      "value", "contract"}],
      "ambiguous_abbrevs": [{"abbrev", "meanings"}],
      "dangling": [] | ["head"] | ["outcome"] | ["head", "outcome"],
    }

A contract is ``{"type": "max", "limit": 24, "unit": "h"}``, ``{"type": "min", ...}``
or ``{"type": "band", "low": 2, "high": 8, "unit": "C"}``; every edge is inclusive.
Readings and quantities may also carry ``in_contract`` (the generator's intent);
the oracle ignores it and recomputes, and the generator refuses to write a case
where the two disagree.
"""

from __future__ import annotations

from . import coverage

STRICTNESS = {"proceed": 0, "escalate": 1, "block": 2}

# Tiny float slack so that 1440 min converted to 24.000000000000004 h is still
# "at most 24 h". The generator never places a value closer than this to an
# edge except at the edge itself.
_EPS = 1e-9


def within(value: float, contract: dict) -> bool:
    """Is ``value`` (in the contract's unit) inside the contract? Limits are inclusive."""
    kind = contract["type"]
    if kind == "max":
        return value <= contract["limit"] + _EPS
    if kind == "min":
        return value >= contract["limit"] - _EPS
    if kind == "band":
        return contract["low"] - _EPS <= value <= contract["high"] + _EPS
    raise ValueError(f"unknown contract type {kind!r}")


def reference(contract: dict) -> float:
    """The number the 1 % agreement tolerance is taken of: the limit, or a band's upper bound."""
    return contract["high"] if contract["type"] == "band" else contract["limit"]


def findings(facts: dict, lists: coverage.Lists | None = None) -> list[tuple[str, str, str]]:
    """Every rule of §4 that fires, as (rule, outcome, detail).

    outcome is ``block``, ``escalate`` or ``clearance``; ``label`` folds them.
    ``lists`` replaces the spec's lists of §4.1 (``coverage.with_taught``:
    the lists after a review round); by default the bundled ones.
    """
    if facts.get("case_malformed"):
        # §5: an unknown domain, non-string text or over-long text escalates with a
        # reason; nothing in the text is read.
        return [("malformed_case", "escalate", facts["case_malformed"])]

    out: list[tuple[str, str, str]] = []
    domain = facts["domain"]
    # v2 facts list every word of the text: then cue scope and §4.1 are read from
    # the words (coverage.py) and a mention's polarity is the rule's, not the intent's.
    cov = coverage.analyse(facts, lists) if "tokens" in facts else None

    for index, m in enumerate(facts.get("mentions", [])):
        term = m["term"]
        if m["status"] == "draft":
            out.append(("draft_term", "escalate", term))  # never clears, never blocks
            continue
        if m["domain"] != domain:
            out.append(("other_domain_term", "escalate", term))  # routing may be wrong
            continue
        polarity = cov.polarity.get(index, m["polarity"]) if cov else m["polarity"]
        asserted = polarity == "asserted"
        if m["signal"] == "critical_block":
            # A misspelt critical term still blocks: the repair only ever makes us stricter.
            out.append(("critical", "block", term) if asserted else ("critical_not_asserted", "escalate", term))
        elif m["signal"] == "clear":
            if not asserted:
                out.append(("clearance_not_asserted", "escalate", term))
            elif m["spelling"] != "exact":
                out.append(("clearance_misspelt", "escalate", term))  # a clearance must be exact
            else:
                out.append(("clearance_term", "clearance", term))
        # signal "field": handled with the readings below.

    for abbrev in facts.get("ambiguous_abbrevs", []):
        out.append(("ambiguous_abbreviation", "escalate", abbrev["abbrev"]))
    for part in facts.get("dangling", []):
        out.append((f"dangling_{part}", "escalate", part))

    valid_readings: dict[str, float] = {}
    fields_with_reading = set()
    for r in facts.get("readings", []):
        fields_with_reading.add(r.get("field"))
        if r["status"] == "valid":
            valid_readings[r["field"]] = r["value"]
            if within(r["value"], r["contract"]):
                out.append(("reading_in_contract", "clearance", r["field"]))
            else:
                out.append(("reading_out_of_contract", "block", r["field"]))
        else:
            # malformed, ambiguous or unsupported unit, start/now problem
            out.append((f"reading_{r['status']}", "escalate", str(r.get("field"))))

    fields_with_quantity = set()
    for q in facts.get("quantities", []):
        field = q.get("field")
        if field is None:
            continue  # a quantity tied to no field in its clause says nothing
        fields_with_quantity.add(field)
        if q["status"] != "valid":
            out.append((f"quantity_{q['status']}", "escalate", field))
        elif field in valid_readings:
            tolerance = 0.01 * reference(q["contract"])
            if abs(q["value"] - valid_readings[field]) > tolerance + _EPS:
                out.append(("quantity_disagrees_with_reading", "escalate", field))
        elif within(q["value"], q["contract"]):
            out.append(("quantity_in_contract_text_only", "escalate", field))  # text alone never clears
        else:
            out.append(("quantity_out_of_contract", "block", field))

    for m in facts.get("mentions", []):
        if m["signal"] == "field" and m["domain"] == domain and m["status"] == "approved":
            if m["field"] not in fields_with_reading and m["field"] not in fields_with_quantity:
                out.append(("field_without_reading", "escalate", m["field"]))
    if cov is not None:
        out.extend(coverage.findings(facts, cov))
    return out


def label(case_facts: dict, lists: coverage.Lists | None = None) -> str:
    """The decision §4 requires: strictest finding wins; proceed needs a clearance.

    ``lists``: as for ``findings`` (the spec's lists plus taught words).
    """
    outcomes = {outcome for _, outcome, _ in findings(case_facts, lists)}
    if "block" in outcomes:
        return "block"
    if "escalate" in outcomes:
        return "escalate"
    if "clearance" in outcomes:
        return "proceed"
    return "escalate"  # nothing recognised and no valid reading: no clearance


def harmless(case_facts: dict) -> bool:
    """A clearance, and nothing that blocks or escalates but unexplained harmless filler.

    These are the cases a review round (§4.2) can turn into proceeds by marking
    words *neutral* or *name*; the teaching curve is measured on them.
    """
    if "tokens" not in case_facts or case_facts.get("case_malformed"):
        return False
    found = findings(case_facts)
    if not any(outcome == "clearance" for _, outcome, _ in found):
        return False
    if any(outcome == "block" or (outcome == "escalate" and rule != "unexplained_content") for rule, outcome, _ in found):
        return False
    words = coverage.unexplained_words(case_facts)
    return all(t["role"] in coverage.HARMLESS_ROLES for t in words)

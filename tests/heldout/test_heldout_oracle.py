"""The held-out oracle on hand-checked fact sets.

Each expected label below was derived by hand from domain-spec.md §4 (the
comment names the rule), not by running the oracle or the engine.
"""



import pytest

from heldout.oracle import label, reference, within

MED, MTG, PHA, AVN = "medical_logistics", "mortgage", "pharma_qa", "aviation_maintenance"
CIT = {"type": "max", "limit": 24, "unit": "h"}
BOX_TEMP = {"type": "band", "low": 2, "high": 8, "unit": "C"}
SHELF = {"type": "min", "limit": 180, "unit": "d"}
TIRE = {"type": "band", "low": 190, "high": 210, "unit": "psi"}


def m(term, signal, domain=MED, polarity="asserted", spelling="exact", status="approved", field=None):
    return {"term": term, "signal": signal, "domain": domain, "polarity": polarity,
            "spelling": spelling, "status": status, "field": field}  # fmt: skip


XM_NEG = m("MED.XM_NEGATIVE", "clear")
XM_POS = m("MED.XM_POSITIVE", "critical_block")


def facts(domain=MED, mentions=(), readings=(), quantities=(), abbrevs=(), dangling=(), malformed=None):
    return {"domain": domain, "case_malformed": malformed, "mentions": list(mentions), "readings": list(readings),
            "quantities": list(quantities), "ambiguous_abbrevs": list(abbrevs), "dangling": list(dangling)}  # fmt: skip


def reading(field, value, contract, status="valid"):
    return {"field": field, "status": status, "value": value, "contract": contract}


def quantity(field, value, contract, status="valid"):
    return {"field": field, "status": status, "value": value, "contract": contract}


HAND_CHECKED = [
    # (name, facts, label)
    ("exact asserted own clearance -> proceed", facts(mentions=[XM_NEG]), "proceed"),
    ("asserted critical -> block", facts(mentions=[XM_POS]), "block"),
    ("critical negated -> escalate, never proceed", facts(mentions=[m("MED.XM_POSITIVE", "critical_block", polarity="negated")]), "escalate"),
    ("critical hedged -> escalate", facts(mentions=[m("MED.XM_POSITIVE", "critical_block", polarity="hedged")]), "escalate"),
    ("clearance negated -> escalate", facts(mentions=[m("MED.XM_NEGATIVE", "clear", polarity="negated")]), "escalate"),
    ("clearance hedged -> escalate", facts(mentions=[m("MED.XM_NEGATIVE", "clear", polarity="hedged")]), "escalate"),
    ("clearance only after spelling repair -> escalate", facts(mentions=[m("MED.XM_NEGATIVE", "clear", spelling="misspelt")]), "escalate"),
    ("misspelt asserted critical still blocks", facts(mentions=[m("MED.XM_POSITIVE", "critical_block", spelling="misspelt")]), "block"),
    ("misspelt negated critical -> escalate", facts(mentions=[m("MED.XM_POSITIVE", "critical_block", polarity="negated", spelling="misspelt")]), "escalate"),
    ("clearance and critical -> strictest wins: block", facts(mentions=[XM_NEG, XM_POS]), "block"),
    ("'No delays, crossmatch positive': the cue's scope ends at the comma -> critical asserted -> block", facts(mentions=[XM_POS]), "block"),
    ("draft German pharma clearance never clears -> escalate", facts(PHA, [m("PHA.RELEASED", "clear", PHA, status="draft")]), "escalate"),
    ("draft German pharma critical never blocks -> escalate", facts(PHA, [m("PHA.OUT_OF_SPEC", "critical_block", PHA, status="draft")]), "escalate"),
    ("draft translation + approved English critical -> block", facts(PHA, [m("PHA.RELEASED", "clear", PHA, status="draft"), m("PHA.QUARANTINE", "critical_block", PHA)]), "block"),
    ("approved clearance of another domain -> escalate", facts(AVN, [m("MTG.CTC", "clear", MTG)]), "escalate"),
    ("critical of another domain does not block -> escalate", facts(MTG, [XM_POS]), "escalate"),
    ("other-domain term + own asserted critical -> block", facts(MTG, [XM_NEG, m("MTG.TITLE_DEFECT", "critical_block", MTG)]), "block"),
    ("declared ambiguous abbreviation next to a clearance -> escalate", facts(mentions=[XM_NEG], abbrevs=[{"abbrev": "MS", "meanings": ["a", "b"]}]), "escalate"),
    ("dangling head ('crossmatch attached') next to a clearance -> escalate", facts(mentions=[XM_NEG], dangling=["head"]), "escalate"),
    ("field named, no reading, no quantity, with clearance -> escalate", facts(mentions=[XM_NEG, m("MED.COLD_ISCHEMIA", "field", field="cold_ischemia_elapsed")]), "escalate"),
    ("field named with a valid in-contract reading -> the reading clears -> proceed", facts(mentions=[m("MED.COLD_ISCHEMIA", "field", field="cold_ischemia_elapsed")], readings=[reading("cold_ischemia_elapsed", 10, CIT)]), "proceed"),
    ("nothing recognised, no reading -> escalate (no clearance)", facts(), "escalate"),
    ("valid reading inside its contract alone -> proceed", facts(readings=[reading("cold_ischemia_elapsed", 10, CIT)]), "proceed"),
    ("clearance + reading outside its contract -> block", facts(mentions=[XM_NEG], readings=[reading("cold_ischemia_elapsed", 30, CIT)]), "block"),
    ("inclusive edge: 24 h is inside 'at most 24 h' -> proceed with a clearance", facts(mentions=[XM_NEG], readings=[reading("cold_ischemia_elapsed", 24, CIT)]), "proceed"),
    ("just past the edge: 24.5 h -> block", facts(mentions=[XM_NEG], readings=[reading("cold_ischemia_elapsed", 24.5, CIT)]), "block"),
    ("band lower edge 2 °C is inside", facts(readings=[reading("transport_temperature", 2, BOX_TEMP)]), "proceed"),
    ("band upper edge 8 °C is inside", facts(readings=[reading("transport_temperature", 8, BOX_TEMP)]), "proceed"),
    ("band 8.5 °C is outside -> block", facts(readings=[reading("transport_temperature", 8.5, BOX_TEMP)]), "block"),
    ("negative temperature is a valid reading; below the band -> block", facts(readings=[reading("transport_temperature", -1, BOX_TEMP)]), "block"),
    ("'at least 180 days': 180 d is inside -> proceed", facts(PHA, readings=[reading("remaining_shelf_life", 180, SHELF)]), "proceed"),
    ("'at least 180 days': 179 d is outside -> block", facts(PHA, readings=[reading("remaining_shelf_life", 179, SHELF)]), "block"),
    ("malformed reading + clearance -> escalate", facts(mentions=[XM_NEG], readings=[{"field": "cold_ischemia_elapsed", "status": "malformed"}]), "escalate"),
    ("malformed reading + asserted critical -> block (strictest)", facts(mentions=[XM_POS], readings=[{"field": "cold_ischemia_elapsed", "status": "malformed"}]), "block"),
    ("ambiguous unit 'm' in a reading -> escalate", facts(readings=[{"field": "cold_ischemia_elapsed", "status": "ambiguous_unit"}]), "escalate"),
    ("start reading without now -> escalate even with a clearance", facts(mentions=[XM_NEG], readings=[{"field": "cold_ischemia_elapsed", "status": "time_problem"}]), "escalate"),
    ("text quantity outside the contract, no reading -> block", facts(quantities=[quantity("cold_ischemia_elapsed", 30, CIT)]), "block"),
    ("text quantity inside the contract, no reading, with clearance -> escalate (text never clears)", facts(mentions=[XM_NEG], quantities=[quantity("cold_ischemia_elapsed", 10, CIT)]), "escalate"),
    ("text 10.2 h vs reading 10 h: differ by 0.2 <= 1 % of 24 h -> agree -> proceed", facts(readings=[reading("cold_ischemia_elapsed", 10, CIT)], quantities=[quantity("cold_ischemia_elapsed", 10.2, CIT)]), "proceed"),
    ("text 10.3 h vs reading 10 h: differ by 0.3 > 0.24 h -> escalate", facts(readings=[reading("cold_ischemia_elapsed", 10, CIT)], quantities=[quantity("cold_ischemia_elapsed", 10.3, CIT)]), "escalate"),
    ("band tolerance is 1 % of the upper bound (2.1 psi): 202 vs 200 agrees", facts(AVN, readings=[reading("tire_pressure", 200, TIRE)], quantities=[quantity("tire_pressure", 202, TIRE)]), "proceed"),
    ("band tolerance: 202.2 vs 200 psi differs by more than 2.1 -> escalate", facts(AVN, readings=[reading("tire_pressure", 200, TIRE)], quantities=[quantity("tire_pressure", 202.2, TIRE)]), "escalate"),
    ("unsupported unit (months) in text -> escalate", facts(MTG, quantities=[{"field": "rate_lock_age", "status": "unsupported_unit"}]), "escalate"),
    ("quantity tied to no field says nothing: clearance -> proceed", facts(mentions=[XM_NEG], quantities=[{"field": None, "status": "valid"}]), "proceed"),
    ("malformed case (unknown domain) -> escalate even with a clearance", facts("dentistry", [XM_NEG], malformed="unknown_domain"), "escalate"),
    ("text over 4000 characters -> escalate", facts(mentions=[XM_NEG], malformed="text_too_long"), "escalate"),
    ("novel paraphrase of a critical is labelled by meaning -> block", facts(mentions=[dict(XM_POS, via="paraphrase")]), "block"),
]


@pytest.mark.parametrize("name,case_facts,expected", HAND_CHECKED, ids=[c[0] for c in HAND_CHECKED])
def test_hand_checked(name, case_facts, expected):
    assert label(case_facts) == expected


def test_within_is_inclusive_and_directional():
    assert within(24, CIT) and not within(24.01, CIT)
    assert within(180, SHELF) and not within(179.99, SHELF)
    assert within(2, BOX_TEMP) and within(8, BOX_TEMP) and not within(1.99, BOX_TEMP)
    # Float noise from unit conversion (1440 min -> 24.000000000000004 h) stays inside.
    assert within(1440 / 60 * (1 + 1e-16), CIT)


def test_reference_is_limit_or_upper_bound():
    assert reference(CIT) == 24
    assert reference(SHELF) == 180
    assert reference(TIRE) == 210


def test_heldout_imports_nothing_from_the_engine():
    """Labels must not inherit engine bugs: no module of heldout/ imports semgap_spacy."""
    import ast

    import heldout

    for path in sorted(heldout.HELDOUT_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] == "semgap_spacy" for n in names), path.name

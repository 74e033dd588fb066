"""The held-out oracle's reading of spec §4 (amended cue scope) and §4.1 (unexplained words).

Each test builds the facts a generator would record for one text (which
phrases are terms is given; every other word is left to the oracle) and checks
the label and the reasons. The texts are the spec's own examples where it has
them.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from heldout import coverage, oracle

SIGNAL = {
    "MTG.CTC": "clear", "MTG.TITLE_DEFECT": "critical_block", "MTG.NEG_AM": "critical_block",
    "MTG.APPRAISAL_GAP": "critical_block", "MTG.DTI": "field", "AVN.AIRWORTHY": "clear", "MED.XM_NEGATIVE": "clear",
    "MED.XM_POSITIVE": "critical_block", "PHA.RELEASED": "clear", "PHA.EXCURSION": "field",
}  # fmt: skip
DOMAIN = {"MTG": "mortgage", "AVN": "aviation_maintenance", "MED": "medical_logistics", "PHA": "pharma_qa"}


def facts_for(domain: str, text: str, terms: list[tuple[str, str]] = (), status: str = "approved", **extra) -> dict:
    """Facts for ``text`` where each (phrase, term id) marks one term mention; other words are template words."""
    segs, rest = [], text
    mentions = []
    for phrase, term in terms:
        i = rest.index(phrase)
        if i:
            segs.append({"text": rest[:i], "role": "template"})
        segs.append({"text": phrase, "role": "term", "mention": len(mentions)})
        field = {"MTG.DTI": "dti_ratio", "PHA.EXCURSION": "excursion_duration"}.get(term)
        mentions.append({"term": term, "signal": SIGNAL[term], "domain": DOMAIN[term.split(".")[0]], "status": status,
                         "polarity": "asserted", "spelling": "exact", "field": field})  # fmt: skip
        rest = rest[i + len(phrase) :]
    if rest:
        segs.append({"text": rest, "role": "template"})
    tokens = [{"text": t, **{k: v for k, v in s.items() if k != "text"}} for s in segs for t in coverage.tokenize(s["text"])]
    assert [t["text"] for t in tokens] == coverage.tokenize(text)
    return {"domain": domain, "case_malformed": None, "mentions": mentions, "readings": [], "quantities": [],
            "ambiguous_abbrevs": [], "dangling": [], "tokens": tokens, **extra}  # fmt: skip


def reasons(facts: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rule, outcome, detail in oracle.findings(facts):
        if outcome != "clearance":
            out.setdefault(rule, []).append(detail)
    return out


def unexplained(facts: dict) -> list[str]:
    return [t["text"] for t in coverage.unexplained_words(facts)]


# ---------------------------------------------------------------------------
# The spec's §4.1 examples


def test_clear_to_close_issued_with_dti_reading_proceeds():
    f = facts_for("mortgage", "Clear to close issued; DTI 38%", [("Clear to close", "MTG.CTC"), ("DTI", "MTG.DTI")])
    for t in f["tokens"]:
        if t["text"] in ("38", "%"):
            t["role"] = "quantity"
    contract = {"type": "max", "limit": 43, "unit": "%"}
    f["readings"] = [{"field": "dti_ratio", "status": "valid", "value": 38, "contract": contract}]
    f["quantities"] = [{"field": "dti_ratio", "status": "valid", "value": 38, "contract": contract}]
    assert reasons(f) == {}
    assert oracle.label(f) == "proceed"


def test_deferred_interest_escalates_quoting_the_four_words():
    f = facts_for("mortgage", "Clear to close; deferred interest will be added to the principal", [("Clear to close", "MTG.CTC")])
    assert oracle.label(f) == "escalate"
    assert unexplained(f) == ["deferred", "interest", "added", "principal"]
    assert list(reasons(f)) == ["unexplained_content"]


def test_airworthy_with_gear_fault_escalates():
    f = facts_for("aviation_maintenance", "Airworthy; left main gear fault not yet rectified", [("Airworthy", "AVN.AIRWORTHY")])
    assert oracle.label(f) == "escalate"
    assert {"left", "main", "gear", "fault", "yet", "rectified"} <= set(unexplained(f))
    assert "unattached_negation" in reasons(f)  # "not" reaches no term


def test_batch_released_assay_failed_escalates():
    f = facts_for("pharma_qa", "Batch released; assay failed the acceptance criteria", [("Batch released", "PHA.RELEASED")])
    assert oracle.label(f) == "escalate"
    # "assay" is pharma's neutral vocabulary; "failed" occurs only in a critical phrase (rule 4 does not explain it)
    assert unexplained(f) == ["failed", "acceptance", "criteria"]


@pytest.mark.parametrize(
    "domain, text, term, name",
    [
        ("medical_logistics", "Larkspur lab called back: negative crossmatch", ("negative crossmatch", "MED.XM_NEGATIVE"), "Larkspur"),
        ("mortgage", "Underwriting at Brambleton says the file is clear to close", ("clear to close", "MTG.CTC"), "Brambleton"),
    ],
)
def test_unknown_names_escalate_until_taught(domain, text, term, name):
    f = facts_for(domain, text, [term])
    assert oracle.label(f) == "escalate"
    assert unexplained(f) == [name]
    taught = dataclasses.replace(coverage.lists(), known_names={domain: ((name,),)})
    assert coverage.analyse(f, taught).unexplained == []
    wrong_case = dataclasses.replace(coverage.lists(), known_names={domain: ((name.lower(),),)})
    assert coverage.analyse(f, wrong_case).unexplained  # names match case-sensitively


def test_unattached_hedge_once_the_wire_lands():
    f = facts_for("mortgage", "Clear to close, once the wire lands", [("Clear to close", "MTG.CTC")])
    assert oracle.label(f) == "escalate"
    assert "unattached_hedge" in reasons(f)


@pytest.mark.parametrize("text", ["Clear to close. Not yet.", "Clear to close, no wire today"])
def test_unattached_negation(text):
    f = facts_for("mortgage", text, [("Clear to close", "MTG.CTC")])
    assert oracle.label(f) == "escalate"
    assert "unattached_negation" in reasons(f)


def test_no_wire_today_is_otherwise_explained():
    f = facts_for("mortgage", "Clear to close, no wire today", [("Clear to close", "MTG.CTC")])
    assert list(reasons(f)) == ["unattached_negation"]  # "wire" is mortgage vocabulary, "today" common


def test_capitalised_german_problem_is_not_read():
    f = facts_for("pharma_qa", "Charge freigegeben, aber Temperaturabweichung im Kühlraum",
                  [("Charge freigegeben", "PHA.RELEASED"), ("Temperaturabweichung", "PHA.EXCURSION")], status="draft")  # fmt: skip
    assert oracle.label(f) == "escalate"
    assert unexplained(f) == ["Kühlraum"]


# ---------------------------------------------------------------------------
# §4 as amended: cue scope


def test_comma_stops_a_negation_no_delays_crossmatch_positive_blocks():
    f = facts_for("medical_logistics", "No delays, crossmatch positive", [("crossmatch positive", "MED.XM_POSITIVE")])
    assert oracle.label(f) == "block"
    assert "unattached_negation" in reasons(f) and "delays" in unexplained(f)


@pytest.mark.parametrize("text", ["negative crossmatch pending", "pending negative crossmatch"])
def test_cue_reaches_both_directions(text):
    f = facts_for("medical_logistics", text, [("negative crossmatch", "MED.XM_NEGATIVE")])
    assert reasons(f) == {"clearance_not_asserted": ["MED.XM_NEGATIVE"]}


def test_list_with_conjunction_negates_every_item():
    text = "no title defect, cloud on title or appraisal gap"
    f = facts_for("mortgage", text, [("title defect", "MTG.TITLE_DEFECT"), ("cloud on title", "MTG.TITLE_DEFECT"), ("appraisal gap", "MTG.APPRAISAL_GAP")])
    assert oracle.label(f) == "escalate"
    assert coverage.analyse(f).polarity == {0: "negated", 1: "negated", 2: "negated"}


def test_list_without_conjunction_ends_at_the_comma():
    f = facts_for("mortgage", "no title defect, appraisal gap", [("title defect", "MTG.TITLE_DEFECT"), ("appraisal gap", "MTG.APPRAISAL_GAP")])
    assert coverage.analyse(f).polarity == {0: "negated", 1: "asserted"}
    assert oracle.label(f) == "block"


def test_semicolon_ends_a_list():
    text = "no title defect; negative amortization or appraisal gap"
    f = facts_for("mortgage", text, [("title defect", "MTG.TITLE_DEFECT"), ("negative amortization", "MTG.NEG_AM"), ("appraisal gap", "MTG.APPRAISAL_GAP")])
    assert coverage.analyse(f).polarity == {0: "negated", 1: "asserted", 2: "asserted"}


def test_but_stops_scope():
    f = facts_for("mortgage", "no delay but clear to close", [("clear to close", "MTG.CTC")])
    assert coverage.analyse(f).polarity == {0: "asserted"}
    assert "unattached_negation" in reasons(f)


@pytest.mark.parametrize(
    "domain, text, term",
    [
        ("mortgage", "Clear to close without delay", ("Clear to close", "MTG.CTC")),
        ("mortgage", "No doubt clear to close", ("clear to close", "MTG.CTC")),
        ("mortgage", "Clear to close, docs sent no later than 14:00", ("Clear to close", "MTG.CTC")),
        ("mortgage", "Clear to close; notes, if any, attached", ("Clear to close", "MTG.CTC")),
        ("mortgage", "listo para el cierre, sin demora", ("listo para el cierre", "MTG.CTC")),
        ("mortgage", "autorisé à clôturer, sans délai", ("autorisé à clôturer", "MTG.CTC")),
        ("mortgage", "abschlussbereit, ohne Verzögerung", ("abschlussbereit", "MTG.CTC")),
    ],
)
def test_pseudo_cues_negate_nothing(domain, text, term):
    f = facts_for(domain, text, [term])
    assert reasons(f) == {}
    assert oracle.label(f) == "proceed"


def test_not_only_is_a_pseudo_cue():
    f = facts_for("mortgage", "not only clear to close", [("clear to close", "MTG.CTC")])
    assert coverage.analyse(f).polarity == {0: "asserted"}
    assert [c[0] for c in coverage.analyse(f).cues] == ["pseudo"]


def test_si_with_accent_is_yes_and_without_is_if():
    yes = facts_for("mortgage", "Sí, listo para el cierre", [("listo para el cierre", "MTG.CTC")])
    assert oracle.label(yes) == "proceed"
    if_ = facts_for("mortgage", "Si listo para el cierre", [("listo para el cierre", "MTG.CTC")])
    assert reasons(if_) == {"clearance_not_asserted": ["MTG.CTC"]}


def test_ou_is_a_list_conjunction_and_ou_with_accent_is_not():
    terms = [("vice de titre", "MTG.TITLE_DEFECT"), ("amortissement négatif", "MTG.NEG_AM"), ("écart d'évaluation", "MTG.APPRAISAL_GAP")]
    joined = facts_for("mortgage", "aucun vice de titre, amortissement négatif ou écart d'évaluation", terms)
    assert coverage.analyse(joined).polarity == {0: "negated", 1: "negated", 2: "negated"}
    where = facts_for("mortgage", "aucun vice de titre, amortissement négatif où écart d'évaluation", terms)
    assert coverage.analyse(where).polarity == {0: "negated", 1: "asserted", 2: "asserted"}
    assert oracle.label(where) == "block"


def test_cue_words_inside_a_term_are_not_cues():
    f = facts_for("medical_logistics", "negative crossmatch", [("negative crossmatch", "MED.XM_NEGATIVE")])
    assert coverage.analyse(f).cues == [] and oracle.label(f) == "proceed"


# ---------------------------------------------------------------------------
# §4.1, rule by rule


def _one(domain: str, text: str, phrase: str = "Clear to close", term: str = "MTG.CTC") -> dict:
    return facts_for(domain, text, [(phrase, term)])


def test_rule3_stop_words_of_any_language_explain():
    f = _one("mortgage", "Clear to close, y el dossier est avec und das")
    assert unexplained(f) == []


@pytest.mark.parametrize("word", ["more", "over", "only", "más", "plus", "mehr", "nur", "could", "until"])
def test_never_neutral_words_are_not_explained_by_stop_words(word):
    f = _one("mortgage", f"Clear to close {word}")
    assert word in unexplained(f) or reasons(f).keys() - {"unexplained_content"}


def test_rule4_clearance_and_field_phrase_words_with_inflections():
    f = _one("mortgage", "Clear to close; closes, closed, clearing, ratios, income")
    assert unexplained(f) == []
    f = facts_for("pharma_qa", "Batch released; release batches certify", [("Batch released", "PHA.RELEASED")])
    assert unexplained(f) == []


def test_rule4_words_only_in_critical_phrases_and_other_domains_are_not_explained():
    f = _one("mortgage", "Clear to close; defect amortization airworthy")
    assert unexplained(f) == ["defect", "amortization", "airworthy"]


def test_rule5_shapes():
    text = "Clear to close 14:00 N123AB LOT-42 ops@example.org https://x.example/a @desk #tag 🙂 J. -> K"
    assert unexplained(_one("mortgage", text)) == []


def test_rule7_neutral_vocabulary_is_per_domain_and_exact():
    assert unexplained(_one("mortgage", "Clear to close; escrow notary thanks")) == []
    assert unexplained(_one("mortgage", "Clear to close; hangar")) == ["hangar"]  # aviation's, not mortgage's
    assert unexplained(_one("mortgage", "Clear to close; notaries")) == ["notaries"]  # no inflection in rule 7
    assert unexplained(_one("mortgage", "Clear to close; ÉQUIPE Gruss")) == ["Gruss"]  # accent-insensitive, exact form


def test_hyphenated_word_needs_every_part():
    assert unexplained(_one("mortgage", "Clear to close; double-checked")) == ["double-checked"]
    assert unexplained(_one("mortgage", "Clear to close; loan-file")) == []


def test_unexplained_content_is_one_reason_per_clause():
    f = _one("mortgage", "Clear to close; portal scanned. Printer jammed")
    assert reasons(f)["unexplained_content"] == ["portal scanned", "Printer jammed"]


def test_v1_facts_without_tokens_keep_their_v1_label():
    f = facts_for("mortgage", "Clear to close; portal scanned", [("Clear to close", "MTG.CTC")])
    del f["tokens"]
    assert oracle.label(f) == "proceed"


def test_harmless_needs_a_clearance_and_only_harmless_unexplained_words():
    f = _one("mortgage", "Clear to close; portal scanned")
    assert oracle.harmless(f)
    for t in f["tokens"]:
        if t["text"] == "scanned":
            t["role"] = "problem"
    assert not oracle.harmless(f)
    no_clearance = facts_for("mortgage", "portal scanned")
    assert not oracle.harmless(no_clearance)
    hedged = _one("mortgage", "Clear to close once portal scanned")
    assert not oracle.harmless(hedged)


def test_tokenizer_keeps_shapes_whole_and_splits_nt():
    assert coverage.tokenize("isn't ops@x.org #t-1 @me LOT-42, ok") == ["is", "n't", "ops@x.org", "#t-1", "@me", "LOT-42", ",", "ok"]
    assert re.fullmatch(r"\S+", "".join(coverage.tokenize("a-b c")).replace(" ", "")) is not None


def test_taught_words_join_the_lists_of_their_domain_and_nothing_else_changes():
    """The teaching curve relabels test with the words a review round taught (§4.2), rules unchanged."""
    facts = facts_for("mortgage", "Yuki Tanabe: clear to close. Scans uploaded to the portal.", [("clear to close", "MTG.CTC")])
    assert oracle.label(facts) == "escalate"
    taught = coverage.with_taught(coverage.lists(), {"mortgage": ["scans", "Uploaded", "portal"]}, {"mortgage": ["Yuki Tanabe"]})
    assert oracle.label(facts, taught) == "proceed"
    elsewhere = coverage.with_taught(coverage.lists(), {"pharma_qa": ["scans", "uploaded", "portal"]}, {"pharma_qa": ["Yuki Tanabe"]})
    assert oracle.label(facts, elsewhere) == "escalate"
    half = coverage.with_taught(coverage.lists(), {"mortgage": ["scans", "uploaded", "portal"]}, {"mortgage": ["yuki tanabe"]})
    assert oracle.label(facts, half) == "escalate"  # a name is matched case-sensitively
    problem = facts_for("mortgage", "Scans: clear to close. Title defect.", [("clear to close", "MTG.CTC"), ("Title defect", "MTG.TITLE_DEFECT")])
    assert oracle.label(problem, taught) == "block"
    assert coverage.lists().neutral_domain["mortgage"] < taught.neutral_domain["mortgage"]
    assert not coverage.lists().known_names["mortgage"]  # the cached bundled lists are not touched


@pytest.mark.parametrize("word,never", [("over", True), ("Against", True), ("sí", False), ("si", True), ("portal", False)])
def test_never_neutral_reads_the_spec_list(word, never):
    assert coverage.never_neutral(word) is never

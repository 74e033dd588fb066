"""Drift monitor: term-mix PSI, field median ratios, rate increases."""
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semgap_spacy.ops.drift import (
    compare_windows,
    load_config,
    monitor,
    psi,
    read_record,
    window_stats,
)

TERMS = ["MED.XM_NEGATIVE", "MED.XM_POSITIVE", "MED.COLD_ISCHEMIA", "MED.TRANSPORT_TEMP"]


def record(i, terms, outcome="escalate", fields=None, **extra):
    rec = {
        "id": f"c-{i}",
        "decision": outcome,
        "reasons": [{"code": "clearance" if outcome == "proceed" else "critical_term",
                     "outcome": outcome, "message": "", "term_id": t,
                     "start_char": 0, "end_char": 1} for t in terms],
        "glossary_version": "2026.11.0",
        "glossary_sha256": "0" * 64,
    }
    if fields is not None:
        rec["fields"] = fields
    rec.update(extra)
    return rec


def window(n, weights, seed, start=0, field_scale=1.0):
    """n records whose term mix follows `weights` and whose CIT is ~10 h * field_scale."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        term = rng.choices(TERMS, weights=weights)[0]
        hours = rng.uniform(6, 14) * field_scale
        out.append(record(start + i, [term], outcome="proceed",
                          fields={"cold_ischemia_elapsed": hours}))
    return out


def test_drift_thresholds_come_from_data_file():
    cfg = load_config()
    assert cfg.psi_alert == 0.25
    assert cfg.median_ratio_alert == (0.5, 2.0)
    assert "no_recognised_term" in cfg.unrecognised_codes


def test_drift_thresholds_overridable_and_validated():
    cfg = load_config({"psi_alert": 0.5, "rate_increase_alert": {"escalation_rate": 0.3}})
    assert cfg.psi_alert == 0.5
    assert cfg.rate_increase_alert["escalation_rate"] == 0.3
    assert cfg.rate_increase_alert["unrecognised_rate"] == 0.05  # merged, not replaced
    with pytest.raises(ValueError, match="psi_alrt"):
        load_config({"psi_alrt": 0.5})
    with pytest.raises(ValueError, match="median_ratio_alert"):
        load_config({"median_ratio_alert": [2.0, 0.5]})


def test_drift_psi_near_zero_on_stable_window():
    base = window(2000, [4, 1, 3, 2], seed=1)
    cur = window(2000, [4, 1, 3, 2], seed=2, start=2000)
    report = compare_windows(base, cur)
    assert report.psi is not None and report.psi < 0.02
    assert report.alerts == []
    assert not report.drifted


def test_drift_psi_above_threshold_on_shifted_window():
    base = window(2000, [4, 1, 3, 2], seed=1)
    cur = window(2000, [1, 4, 1, 4], seed=2, start=2000)
    report = compare_windows(base, cur)
    assert report.psi > 0.25
    kinds = [a.kind for a in report.alerts]
    assert kinds == ["psi"]
    assert report.to_dict()["alerts"][0]["metric"] == "term_mix"


def test_drift_psi_new_term_is_finite_and_large():
    value = psi({"A": 100}, {"A": 90, "B": 10}, epsilon=1e-4)
    assert math.isfinite(value) and value > 0.25
    # Hand check of the epsilon-floored formula.
    b = [1 / (1 + 1e-4), 1e-4 / (1 + 1e-4)]
    c = [0.9, 0.1]
    expected = sum((ci - bi) * math.log(ci / bi) for bi, ci in zip(b, c))
    assert value == pytest.approx(expected)


def test_drift_psi_needs_counts_on_both_sides():
    assert psi({}, {"A": 3}) is None
    assert psi({"A": 3}, {}) is None


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(TERMS), st.integers(1, 500), min_size=1),
       st.dictionaries(st.sampled_from(TERMS), st.integers(1, 500), min_size=1))
def test_drift_psi_is_non_negative_symmetric_and_zero_on_identity(a, b):
    assert psi(a, a) == pytest.approx(0.0, abs=1e-12)
    assert psi(a, b) >= -1e-12
    assert psi(a, b) == pytest.approx(psi(b, a))


def test_drift_median_ratio_alert_on_minutes_sent_as_hours():
    base = window(300, [1, 1, 1, 1], seed=3)
    # The source starts sending minutes in the field that should hold hours.
    cur = window(300, [1, 1, 1, 1], seed=4, start=300, field_scale=60.0)
    report = compare_windows(base, cur)
    ratio = report.median_ratios["cold_ischemia_elapsed"]
    assert 45 < ratio < 80
    alerts = [a for a in report.alerts if a.kind == "median_ratio"]
    assert [a.metric for a in alerts] == ["cold_ischemia_elapsed"]
    assert "unit change" in alerts[0].message


def test_drift_median_ratio_alert_on_hours_sent_as_minutes_scaled_down():
    base = window(300, [1, 1, 1, 1], seed=3)
    cur = window(300, [1, 1, 1, 1], seed=4, start=300, field_scale=1 / 60)
    report = compare_windows(base, cur)
    assert report.median_ratios["cold_ischemia_elapsed"] < 0.05
    assert any(a.kind == "median_ratio" for a in report.alerts)


def test_drift_no_median_alert_when_field_stable():
    base = window(300, [1, 1, 1, 1], seed=3)
    cur = window(300, [1, 1, 1, 1], seed=4, start=300, field_scale=1.1)
    report = compare_windows(base, cur)
    assert 0.9 < report.median_ratios["cold_ischemia_elapsed"] < 1.3
    assert not [a for a in report.alerts if a.kind == "median_ratio"]


def test_drift_field_missing_alert():
    base = window(50, [1, 1, 1, 1], seed=3)
    cur = [dict(r, fields={}) for r in window(50, [1, 1, 1, 1], seed=4)]
    report = compare_windows(base, cur)
    assert [a.metric for a in report.alerts if a.kind == "field_missing"] == ["cold_ischemia_elapsed"]


def test_drift_rates_from_codes_and_extras():
    records = [
        {"id": "a", "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]},
        {"id": "b", "decision": "escalate", "reasons": [{"code": "clearance_repaired",
                                                         "term_id": "MTG.CTC"}]},
        {"id": "c", "decision": "block", "reasons": [{"code": "critical_term",
                                                      "term_id": "MTG.TITLE_DEFECT"}],
         "spelling_corrected": True},
        {"decision": {"id": "d", "decision": "proceed", "reasons": []},
         "term_ids": ["MTG.CTC"], "unrecognised": False},
    ]
    stats = window_stats(records)
    assert stats.n == 4
    assert stats.unrecognised_rate == 0.25
    assert stats.correction_rate == 0.5
    assert stats.escalation_rate == 0.5
    assert stats.block_rate == 0.25
    assert stats.term_counts == {"MTG.CTC": 2, "MTG.TITLE_DEFECT": 1}


def test_drift_unrecognised_codes_are_configurable():
    rec = {"id": "a", "decision": "escalate", "reasons": [{"code": "nothing_matched"}]}
    assert not read_record(rec).unrecognised
    assert read_record(rec, {"unrecognised_codes": ["nothing_matched"]}).unrecognised


def test_drift_rate_increase_alert():
    base = [record(i, ["MED.XM_NEGATIVE"], outcome="proceed") for i in range(100)]
    cur = [record(i, ["MED.XM_NEGATIVE"], outcome="proceed") for i in range(80)] + [
        {"id": f"u-{i}", "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]}
        for i in range(20)]
    report = compare_windows(base, cur)
    metrics = {a.metric for a in report.alerts if a.kind == "rate_increase"}
    assert metrics == {"unrecognised_rate", "escalation_rate"}
    assert report.rate_changes["unrecognised_rate"] == pytest.approx(0.2)
    # Raise the bar and the same data passes.
    relaxed = compare_windows(base, cur, {"rate_increase_alert": {
        "unrecognised_rate": 0.5, "escalation_rate": 0.5}})
    assert not [a for a in relaxed.alerts if a.kind == "rate_increase"]


def test_drift_non_finite_field_values_are_ignored():
    rec = record(1, ["MED.XM_NEGATIVE"], fields={"x": [float("nan"), 3.0, True, "7"]})
    assert read_record(rec).fields == {"x": (3.0,)}


def test_drift_monitor_compares_each_window_with_first():
    stable = window(600, [4, 1, 3, 2], seed=5)
    shifted = window(200, [1, 4, 1, 4], seed=6, start=600)
    reports = monitor(stable + shifted, 200)
    assert len(reports) == 3
    assert [r.drifted for r in reports] == [False, False, True]


def test_drift_small_window_is_noted():
    report = compare_windows(window(5, [1, 1, 1, 1], seed=1), window(5, [1, 1, 1, 1], seed=2))
    assert any("noisy" in n for n in report.notes)

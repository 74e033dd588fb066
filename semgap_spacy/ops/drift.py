"""Drift monitoring over windows of decision records.

A governed glossary goes stale quietly: writers adopt new wording (more
unrecognised text, more spelling repairs), the case mix moves (another term
mix), or a source system starts sending minutes where it sent hours (every
duration reading suddenly 60 times larger, yet still well-formed). None of
these break a single decision loudly, so they are caught statistically, by
comparing a current window of records with a baseline window.

A record is a decision dict (spec §5) with optional extra keys:

- ``term_ids`` (List[str]): the glossary terms matched; defaults to the
  ``term_id`` of each reason.
- ``spelling_corrected`` (bool): whether any spelling correction was used;
  defaults to "a reason code is in ``correction_codes``".
- ``unrecognised`` (bool): whether nothing in the text was recognised;
  defaults to "a reason code is in ``unrecognised_codes``".
- ``fields`` (Dict[str, float | List[float]]): field values in canonical units;
  defaults to the ``value`` of each reason with a ``field`` and a ``value``
  (a decision as ``assess`` writes it carries one per valid reading and per
  quantity in the text tied to a field, in the contract's unit).

A record may also be ``{"decision": {...decision dict...}, **extras}``.
Everything here is a pure function; the thresholds come from
``semgap_spacy/data/drift.yaml`` and can be overridden with a dict.
"""
from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from statistics import median
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..util.yaml_files import read_yaml

RATE_NAMES = ("unrecognised_rate", "correction_rate", "escalation_rate", "block_rate")


class DriftConfig(BaseModel):
    """Thresholds of the drift monitor; see ``data/drift.yaml`` for the why of each."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    psi_warn: float = Field(ge=0)
    psi_alert: float = Field(ge=0)
    psi_epsilon: float = Field(gt=0, lt=1)
    median_ratio_alert: Tuple[float, float]
    rate_increase_alert: Dict[str, float]
    min_window: int = Field(ge=0)
    unrecognised_codes: Tuple[str, ...]
    correction_codes: Tuple[str, ...]

    @model_validator(mode="after")
    def _check(self) -> "DriftConfig":
        lo, hi = self.median_ratio_alert
        if not 0 < lo <= 1 <= hi:
            raise ValueError("median_ratio_alert must be [low, high] with 0 < low <= 1 <= high")
        unknown = set(self.rate_increase_alert) - set(RATE_NAMES)
        if unknown:
            raise ValueError(f"rate_increase_alert: unknown rate(s) {sorted(unknown)}; "
                             f"known: {', '.join(RATE_NAMES)}")
        if self.psi_warn > self.psi_alert:
            raise ValueError("psi_warn is above psi_alert")
        return self


@lru_cache(maxsize=1)
def _data() -> Dict[str, Any]:
    return read_yaml(Path(str(resources.files("semgap_spacy.data"))) / "drift.yaml")


def data_section(name: str) -> Dict[str, Any]:
    """A fresh copy of one top-level section of ``data/drift.yaml``.

    name (str): "drift" or "miner".
    RETURNS (Dict[str, Any]): The section; safe to modify.
    """
    return copy.deepcopy(_data()[name])


def load_config(overrides: Optional[Mapping[str, Any]] = None) -> DriftConfig:
    """The packaged thresholds, with some replaced.

    overrides (Optional[Mapping[str, Any]]): Keys of the ``drift`` section to
        replace. ``rate_increase_alert`` is merged per rate, so one rate can
        be changed alone. A misspelt key is refused rather than ignored.
        Defaults to None.
    RETURNS (DriftConfig): The validated thresholds.
    """
    raw = data_section("drift")
    for key, value in (overrides or {}).items():
        if key == "rate_increase_alert" and isinstance(value, Mapping):
            raw[key] = {**raw.get(key, {}), **value}
        else:
            raw[key] = value
    try:
        return DriftConfig.model_validate(raw)
    except ValidationError as err:
        raise ValueError(f"invalid drift thresholds: {err}") from None


def _as_config(config: Optional[Any]) -> DriftConfig:
    if isinstance(config, DriftConfig):
        return config
    return load_config(config)


@dataclass(frozen=True)
class RecordView:
    """What the monitor needs from one record, after defaults are filled in."""

    outcome: str
    term_ids: Tuple[str, ...]
    corrected: bool
    unrecognised: bool
    fields: Dict[str, Tuple[float, ...]]


def read_record(record: Mapping[str, Any], config: Optional[Any] = None) -> RecordView:
    """Pull the monitored facts out of one decision record.

    record (Mapping[str, Any]): A decision dict with optional extras (see the
        module docstring).
    config (Optional[Any]): A ``DriftConfig`` or overrides dict.
    RETURNS (RecordView): The facts, with defaults from the reason codes.
    """
    cfg = _as_config(config)
    if not isinstance(record, Mapping):
        raise ValueError(f"a decision record must be a JSON object, not {type(record).__name__}")
    decision = record.get("decision")
    if isinstance(decision, Mapping):
        base, extras = decision, record
    else:
        base, extras = record, record
    reasons = [r for r in base.get("reasons") or [] if isinstance(r, Mapping)]
    codes = {r.get("code") for r in reasons}
    if extras.get("term_ids") is not None:
        term_ids = tuple(str(t) for t in extras["term_ids"])
    else:
        term_ids = tuple(str(r["term_id"]) for r in reasons if r.get("term_id"))
    corrected = extras.get("spelling_corrected")
    if corrected is None:
        corrected = bool(codes & set(cfg.correction_codes))
    unrecognised = extras.get("unrecognised")
    if unrecognised is None:
        unrecognised = bool(codes & set(cfg.unrecognised_codes))
    given = extras.get("fields")
    fields: Dict[str, Tuple[float, ...]] = {}
    for name, value in (given.items() if isinstance(given, Mapping) else _reading_values(reasons)):
        values = value if isinstance(value, (list, tuple)) else [value]
        # Non-numbers and NaN/inf are dropped: a malformed reading is the
        # decision's business, not a drift signal.
        clean = tuple(float(v) for v in values
                      if isinstance(v, (int, float)) and not isinstance(v, bool)
                      and math.isfinite(v))
        if clean:
            fields[str(name)] = clean
    outcome = base.get("decision")
    return RecordView(str(outcome), term_ids, bool(corrected), bool(unrecognised), fields)


def _reading_values(reasons: Sequence[Mapping[str, Any]]) -> List[Tuple[str, List[Any]]]:
    """(field, values) from the reasons that carry a field's value (a reading's, a text quantity's)."""
    out: Dict[str, List[Any]] = {}
    for r in reasons:
        field = r.get("field")
        if isinstance(field, str) and "value" in r:
            out.setdefault(field, []).append(r["value"])
    return list(out.items())


@dataclass
class WindowStats:
    """Summary of one window of records.

    n (int): Number of records.
    unrecognised_rate (float): Share of records where nothing was recognised.
    correction_rate (float): Share of records that needed a spelling correction.
    escalation_rate (float): Share of records decided ``escalate``.
    block_rate (float): Share of records decided ``block``.
    term_counts (Dict[str, int]): How often each term id was matched.
    field_medians (Dict[str, float]): Median value per field.
    """

    n: int
    unrecognised_rate: float
    correction_rate: float
    escalation_rate: float
    block_rate: float
    term_counts: Dict[str, int]
    field_medians: Dict[str, float]

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def window_stats(records: Iterable[Mapping[str, Any]], config: Optional[Any] = None) -> WindowStats:
    """Rates, term counts and field medians for one window.

    records (Iterable[Mapping[str, Any]]): The window's decision records.
    config (Optional[Any]): A ``DriftConfig`` or overrides dict.
    RETURNS (WindowStats): The summary; rates are 0.0 for an empty window.
    """
    cfg = _as_config(config)
    views = [read_record(r, cfg) for r in records]
    n = len(views)
    counts: Dict[str, int] = {}
    values: Dict[str, List[float]] = {}
    for v in views:
        for t in v.term_ids:
            counts[t] = counts.get(t, 0) + 1
        for name, vals in v.fields.items():
            values.setdefault(name, []).extend(vals)

    def rate(flag: Iterable[bool]) -> float:
        return sum(flag) / n if n else 0.0

    return WindowStats(
        n=n,
        unrecognised_rate=rate(v.unrecognised for v in views),
        correction_rate=rate(v.corrected for v in views),
        escalation_rate=rate(v.outcome == "escalate" for v in views),
        block_rate=rate(v.outcome == "block" for v in views),
        term_counts=dict(sorted(counts.items())),
        field_medians={k: float(median(vs)) for k, vs in sorted(values.items())},
    )


def psi(baseline: Mapping[str, int], current: Mapping[str, int], epsilon: float = 1e-4) -> Optional[float]:
    """Population stability index between two count distributions.

    PSI = sum over bins of (c - b) * ln(c / b), with b and c each bin's share.
    A bin that is empty on one side would make that infinite, so every share
    is first floored at ``epsilon`` and the shares renormalised to sum to 1.
    With the default 1e-4, a term absent from the baseline that takes 10 % of
    the current window adds about 0.1 * ln(0.1 / 1e-4) = 0.69 on its own.

    baseline (Mapping[str, int]): Counts per bin (term id) in the baseline.
    current (Mapping[str, int]): Counts per bin in the current window.
    epsilon (float): Floor for a bin's share. Defaults to 1e-4.
    RETURNS (Optional[float]): The PSI (>= 0), or None if either side has no
        counts at all, since there is no mix to compare.
    """
    bins = sorted(set(baseline) | set(current))
    b_total = sum(baseline.get(k, 0) for k in bins)
    c_total = sum(current.get(k, 0) for k in bins)
    if b_total <= 0 or c_total <= 0:
        return None
    b = _floored([baseline.get(k, 0) / b_total for k in bins], epsilon)
    c = _floored([current.get(k, 0) / c_total for k in bins], epsilon)
    return float(sum((ci - bi) * math.log(ci / bi) for bi, ci in zip(b, c)))


def _floored(shares: Sequence[float], epsilon: float) -> List[float]:
    floored = [max(s, epsilon) for s in shares]
    total = sum(floored)
    return [s / total for s in floored]


def median_ratios(baseline: Mapping[str, float], current: Mapping[str, float]) -> Dict[str, Optional[float]]:
    """current / baseline median per field present in both windows.

    baseline (Mapping[str, float]): Median per field in the baseline.
    current (Mapping[str, float]): Median per field in the current window.
    RETURNS (Dict[str, Optional[float]]): The ratio, or None where the
        baseline median is 0 (no ratio exists; reported as a note).
    """
    out: Dict[str, Optional[float]] = {}
    for name in sorted(set(baseline) & set(current)):
        b = baseline[name]
        out[name] = None if b == 0 else current[name] / b
    return out


@dataclass
class Alert:
    """One threshold crossed.

    kind (str): "psi", "median_ratio", "rate_increase" or "field_missing".
    metric (str): What was measured (a rate name, a field name, "term_mix").
    value (Optional[float]): The measured value.
    threshold (Any): The threshold it crossed.
    message (str): For a person to read.
    """

    kind: str
    metric: str
    value: Optional[float]
    threshold: Any
    message: str

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class DriftReport:
    """Baseline vs current window: the numbers, the alerts and any notes.

    baseline (WindowStats): The baseline window.
    current (WindowStats): The current window.
    psi (Optional[float]): PSI of the term mix.
    median_ratios (Dict[str, Optional[float]]): Per-field current/baseline.
    rate_changes (Dict[str, float]): current - baseline per rate.
    alerts (List[Alert]): Thresholds crossed; empty means no drift found.
    notes (List[str]): Things that limit what the numbers can say.
    """

    baseline: WindowStats
    current: WindowStats
    psi: Optional[float]
    median_ratios: Dict[str, Optional[float]]
    rate_changes: Dict[str, float]
    alerts: List[Alert] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    @property
    def drifted(self) -> bool:
        return bool(self.alerts)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "drifted": self.drifted,
            "psi": self.psi,
            "median_ratios": dict(self.median_ratios),
            "rate_changes": dict(self.rate_changes),
            "alerts": [a.to_dict() for a in self.alerts],
            "notes": list(self.notes),
            "baseline": self.baseline.to_dict(),
            "current": self.current.to_dict(),
        }


def compare_windows(baseline: Iterable[Mapping[str, Any]], current: Iterable[Mapping[str, Any]],
                    config: Optional[Any] = None) -> DriftReport:
    """Compare a current window of decision records with a baseline window.

    baseline (Iterable[Mapping[str, Any]]): Records from a period judged normal.
    current (Iterable[Mapping[str, Any]]): Records to check.
    config (Optional[Any]): A ``DriftConfig`` or a dict of overrides of
        ``data/drift.yaml``. Defaults to the packaged thresholds.
    RETURNS (DriftReport): Numbers, alerts and notes.
    """
    cfg = _as_config(config)
    base = window_stats(baseline, cfg)
    cur = window_stats(current, cfg)
    alerts: List[Alert] = []
    notes: List[str] = []
    for label, stats in (("baseline", base), ("current", cur)):
        if stats.n < cfg.min_window:
            notes.append(f"{label} window has {stats.n} records (< {cfg.min_window}); "
                         "its numbers are noisy")

    value = psi(base.term_counts, cur.term_counts, cfg.psi_epsilon)
    if value is None:
        notes.append("term mix not compared: a window has no matched terms")
    elif value > cfg.psi_alert:
        alerts.append(Alert("psi", "term_mix", value, cfg.psi_alert,
                            f"term mix shifted: PSI {value:.3f} > {cfg.psi_alert}"))
    elif value > cfg.psi_warn:
        notes.append(f"term mix moving: PSI {value:.3f} > {cfg.psi_warn} (warn level)")

    ratios = median_ratios(base.field_medians, cur.field_medians)
    lo, hi = cfg.median_ratio_alert
    for name, ratio in ratios.items():
        if ratio is None:
            notes.append(f"{name}: baseline median is 0, no ratio")
        elif not lo <= ratio <= hi:
            alerts.append(Alert(
                "median_ratio", name, ratio, [lo, hi],
                f"{name}: median moved by x{ratio:.3g} (outside [{lo}, {hi}]); "
                "a unit change at the source (e.g. minutes sent as hours) looks like this"))
    for name in sorted(set(base.field_medians) - set(cur.field_medians)):
        alerts.append(Alert("field_missing", name, None, None,
                            f"{name}: values in the baseline, none in the current window"))

    changes = {r: getattr(cur, r) - getattr(base, r) for r in RATE_NAMES}
    for name, limit in sorted(cfg.rate_increase_alert.items()):
        delta = changes[name]
        if delta > limit:
            alerts.append(Alert("rate_increase", name, delta, limit,
                                f"{name} rose by {delta:+.3f} "
                                f"({getattr(base, name):.3f} -> {getattr(cur, name):.3f}), "
                                f"more than {limit}"))
    return DriftReport(base, cur, value, ratios, changes, alerts, notes)


def split_windows(records: Sequence[Mapping[str, Any]], size: int) -> Iterator[Sequence[Mapping[str, Any]]]:
    """Consecutive windows of ``size`` records; a short last window is kept.

    records (Sequence[Mapping[str, Any]]): Records in time order.
    size (int): Records per window (> 0).
    YIELDS (Sequence[Mapping[str, Any]]): One window at a time.
    """
    if size <= 0:
        raise ValueError("window size must be positive")
    for start in range(0, len(records), size):
        yield records[start:start + size]


def monitor(records: Sequence[Mapping[str, Any]], size: int,
            config: Optional[Any] = None) -> List[DriftReport]:
    """Compare every window after the first with the first (the baseline).

    records (Sequence[Mapping[str, Any]]): Records in time order.
    size (int): Records per window.
    config (Optional[Any]): A ``DriftConfig`` or overrides dict.
    RETURNS (List[DriftReport]): One report per window after the baseline.
    """
    cfg = _as_config(config)
    windows = list(split_windows(records, size))
    if not windows:
        return []
    return [compare_windows(windows[0], w, cfg) for w in windows[1:]]


__all__ = [
    "DriftConfig",
    "DriftReport",
    "WindowStats",
    "Alert",
    "RecordView",
    "load_config",
    "read_record",
    "window_stats",
    "psi",
    "median_ratios",
    "compare_windows",
    "split_windows",
    "monitor",
]

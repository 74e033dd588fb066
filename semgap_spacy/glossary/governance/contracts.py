"""Contracts: whether a changed field contract lets more readings through.

A contract limits what a field reading may be. Raising its max, lowering its
min or dropping a bound makes the pipeline less strict, so the release rules
need the change classified as a weakening; limits in different units are
converted to one unit per kind first, and a change that cannot be compared is
treated as a weakening rather than waved through.
"""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

from .payload import _dict, _fmt


_TO_CANONICAL = {
    "duration": {"h": lambda x: x, "min": lambda x: x / 60.0, "day": lambda x: x * 24.0},
    "temperature": {"degC": lambda x: x, "degF": lambda x: (x - 32.0) * 5.0 / 9.0,
                    "K": lambda x: x - 273.15},
    "ratio": {"percent": lambda x: x},
    "pressure": {"psi": lambda x: x, "bar": lambda x: x * 14.5037738,
                 "kPa": lambda x: x * 0.145037738},
}


def _contract_changes(old: Any, new: Any) -> Tuple[List[str], List[Tuple[str, str]]]:
    """(change lines, weakenings as (kind, detail)) between two contracts."""
    old, new = _dict(old), _dict(new)
    if old == new:
        return [], []
    changes = [f"contract {k}: {_fmt(old.get(k))} → {_fmt(new.get(k))}"
               for k in ("kind", "unit", "min", "max") if old.get(k) != new.get(k)]
    weak: List[Tuple[str, str]] = []
    kind = old.get("kind")
    conv_old = _TO_CANONICAL.get(kind, {}).get(old.get("unit"))
    conv_new = _TO_CANONICAL.get(new.get("kind"), {}).get(new.get("unit"))
    if new.get("kind") != kind or conv_old is None or conv_new is None:
        weak.append(("contract_incomparable",
                     f"contract {_fmt(old)} → {_fmt(new)} cannot be compared; treated as a weakening"))
        return changes, weak

    def num(c: dict, key: str, conv) -> Optional[float]:
        v = c.get(key)
        return conv(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    o_min, o_max = num(old, "min", conv_old), num(old, "max", conv_old)
    n_min, n_max = num(new, "min", conv_new), num(new, "max", conv_new)
    band = o_min is not None and o_max is not None
    unit_o, unit_n = old.get("unit"), new.get("unit")

    def desc(c: dict, unit: str) -> str:
        lo, hi = c.get("min"), c.get("max")
        if lo is not None and hi is not None:
            return f"{_fmt(lo)}–{_fmt(hi)} {unit}"
        return f"{'max' if hi is not None else 'min'} {_fmt(hi if hi is not None else lo)} {unit}"

    eps = 1e-9
    loosened_max = o_max is not None and (n_max is None or n_max > o_max + eps)
    loosened_min = o_min is not None and (n_min is None or n_min < o_min - eps)
    if band and (loosened_max or loosened_min):
        weak.append(("band_widened", f"band widened: {desc(old, unit_o)} → {desc(new, unit_n)}"))
    else:
        if loosened_max:
            weak.append(("max_raised" if n_max is not None else "bound_removed",
                         f"max raised: {_fmt(old.get('max'))} {unit_o} → "
                         f"{_fmt(new.get('max')) + ' ' + unit_n if n_max is not None else 'no max'}"))
        if loosened_min:
            weak.append(("min_lowered" if n_min is not None else "bound_removed",
                         f"min lowered: {_fmt(old.get('min'))} {unit_o} → "
                         f"{_fmt(new.get('min')) + ' ' + unit_n if n_min is not None else 'no min'}"))
    return changes, weak

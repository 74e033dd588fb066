"""Unit arithmetic for the held-out generator.

The generator states every reading and text quantity in the field's contract
unit (hours, days, minutes, °C, %, psi) so that the oracle only compares two
numbers. The conversion tables come from ``bank/glossary.yaml`` (the spec's
accepted units), never from the engine.
"""

from __future__ import annotations

import re
from datetime import timedelta


class UnitProblem(ValueError):
    """A unit the contract cannot use; ``kind`` is ambiguous, unsupported or unknown."""

    def __init__(self, kind: str, unit: str):
        super().__init__(f"{kind} unit {unit!r}")
        self.kind = kind
        self.unit = unit


def unit_key(kind: str, alias: str, units_cfg: dict) -> str:
    """Return the canonical unit key ("h", "C", "%", "psi", ...) for an alias of ``kind``.

    Raises UnitProblem for the spec's ambiguous (``m``) and unsupported (months,
    years) duration units and for anything not listed for the kind.
    """
    cfg = units_cfg[kind]
    if alias in cfg.get("ambiguous", []):
        raise UnitProblem("ambiguous", alias)
    if alias in cfg.get("unsupported", []):
        raise UnitProblem("unsupported", alias)
    for key, aliases in cfg["aliases"].items():
        if alias in aliases:
            return key
    raise UnitProblem("unknown", alias)


def to_contract(value: float, kind: str, key: str, contract_unit: str, units_cfg: dict) -> float:
    """Convert ``value`` in canonical unit ``key`` to the contract's unit."""
    if kind == "duration":
        per = units_cfg["duration"]["minutes_per_unit"]
        return value * per[key] / per[contract_unit]
    if kind == "temperature":
        celsius = {"C": value, "F": (value - 32) * 5 / 9, "K": value - 273.15}[key]
        assert contract_unit == "C"
        return celsius
    if kind == "pressure":
        per = units_cfg["pressure"]["psi_per_unit"]
        return value * per[key] / per[contract_unit]
    if kind == "ratio":
        return value
    raise ValueError(f"unknown quantity kind {kind!r}")


def from_contract(value: float, kind: str, key: str, contract_unit: str, units_cfg: dict) -> float:
    """Inverse of :func:`to_contract`: express a contract-unit value in unit ``key``."""
    if kind == "duration":
        per = units_cfg["duration"]["minutes_per_unit"]
        return value * per[contract_unit] / per[key]
    if kind == "temperature":
        return {"C": value, "F": value * 9 / 5 + 32, "K": value + 273.15}[key]
    if kind == "pressure":
        per = units_cfg["pressure"]["psi_per_unit"]
        return value * per[contract_unit] / per[key]
    if kind == "ratio":
        return value
    raise ValueError(f"unknown quantity kind {kind!r}")


_ISO = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$")


def iso_duration(minutes: int) -> str:
    """Write a whole number of minutes as an ISO-8601 duration (P2D, PT30H, PT1H30M)."""
    if minutes % 1440 == 0 and minutes:
        return f"P{minutes // 1440}D"
    hours, mins = divmod(minutes, 60)
    out = "PT"
    if hours:
        out += f"{hours}H"
    if mins or not hours:
        out += f"{mins}M"
    return out


def parse_iso_minutes(text: str) -> int:
    """Minutes in the simple ISO durations this generator writes (days, hours, minutes)."""
    match = _ISO.match(text)
    if not match or text in ("P", "PT") or text.endswith("T"):
        raise ValueError(f"not an ISO duration this generator writes: {text!r}")
    days, hours, mins = (int(g) if g else 0 for g in match.groups())
    return int(timedelta(days=days, hours=hours, minutes=mins).total_seconds() // 60)

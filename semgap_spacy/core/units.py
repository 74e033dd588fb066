"""Units: the alias table, number and ISO-8601 duration parsing, and Pint.

Three layers, from cheap to expensive:

- The alias table says what a surface such as "hrs", "°F" or "por ciento"
  means, per quantity kind: the language-neutral symbols of
  ``data/units.yaml`` plus the unit words of every language pack. It is the
  only authority on surfaces: Pint itself would read "pct" as picocarat and
  "m" as metre.
- ``parse_number`` and ``parse_iso_duration`` are strict, regex-based and
  need no Pint.
- ``convert`` uses ONE Pint ``UnitRegistry`` per process, built lazily on
  first use, so a pipeline that never meets a quantity never pays for it.
  Pint keeps the unit definitions it parsed in its own disk cache
  (``UnitRegistry(cache_folder=...)``, in the user's cache directory), so a
  process after the first reads them in about 0.02 s instead of parsing them
  in about 0.17 s: most of what starting ``assess`` costs besides importing
  spaCy and loading the pipeline. ``SEMGAP_PINT_CACHE=off`` parses them in
  every process; another value names the cache folder. Multiplicative
  conversions are cached as a factor; offset units (°C, °F, K) always go
  through ``Quantity(value, unit).to(target)``, which is the only correct way
  to convert them.
"""
import math
import os
import re
import threading
import unicodedata
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple


from ..lang import generation, packs
from ..util.textnorm import fold
from ..util.yaml_files import read_yaml

KINDS = ("duration", "temperature", "ratio", "pressure")
OK = "ok"
AMBIGUOUS = "ambiguous"
UNSUPPORTED = "unsupported"
UNKNOWN = "unknown"

_TOP_KEYS = {"version", "case_sensitive", "kinds"}
_KIND_KEYS = {"units", "ambiguous", "unsupported"}


class UnitDataError(ValueError):
    """The unit alias data is not usable; the message names the problem."""


class UnitLookup(NamedTuple):
    """What a unit surface means.

    status: "ok", "ambiguous", "unsupported" or "unknown".
    unit: the canonical Pint unit name ("hour", "degree_Celsius") for "ok"
        and "unsupported" ("month"), else None.
    kind: the quantity kind the surface belongs to, or None when unknown.
    candidates: for "ambiguous", what the surface could mean.
    """

    status: str
    unit: Optional[str] = None
    kind: Optional[str] = None
    candidates: Tuple[str, ...] = ()


_UNKNOWN = UnitLookup(UNKNOWN)


class _Entry(NamedTuple):
    lookup: UnitLookup
    surface: str


class UnitTable:
    """The alias data, indexed for exact and folded lookups.

    payload (dict): The parsed ``units.yaml``.
    language_words (Dict[str, Tuple[dict, dict]]): Per language code, its pack's
        ``unit_words`` (Pint unit name -> words) and ``unit_ambiguous``
        (word -> candidate units).
    """

    def __init__(self, payload: dict, language_words: Optional[Dict[str, Tuple[dict, dict]]] = None):
        if not isinstance(payload, dict) or set(payload) - _TOP_KEYS or "kinds" not in payload:
            raise UnitDataError(f"units data: top-level keys must be {sorted(_TOP_KEYS)}")
        self.version = payload.get("version")
        self.case_sensitive = frozenset(payload.get("case_sensitive") or ())
        self.exact: Dict[str, UnitLookup] = {}
        self.folded: Dict[str, UnitLookup] = {}
        self.kind_units: Dict[str, Tuple[str, ...]] = {}
        # Pint names used as keys ("hour", "degree_Celsius"): canonical already.
        self.canonical_names: set = set()
        kinds = self._payload_kinds = payload["kinds"]
        if not isinstance(kinds, dict) or set(kinds) != set(KINDS):
            raise UnitDataError(f"units data: kinds must be exactly {list(KINDS)}")
        seen: Dict[str, str] = {}
        for kind, spec in kinds.items():
            if not isinstance(spec, dict) or set(spec) - _KIND_KEYS or "units" not in spec:
                raise UnitDataError(f"units data: {kind}: keys must be {sorted(_KIND_KEYS)}")
            self.kind_units[kind] = tuple(spec["units"])
            for category, status in (("units", OK), ("unsupported", UNSUPPORTED),
                                     ("ambiguous", AMBIGUOUS)):
                for key, values in (spec.get(category) or {}).items():
                    if status == AMBIGUOUS:
                        lookup = UnitLookup(AMBIGUOUS, None, kind, tuple(values))
                        surfaces = [key]
                    else:
                        if not isinstance(values, list) or not values:
                            raise UnitDataError(f"units data: {kind}.{category}.{key}: empty alias list")
                        lookup = UnitLookup(status, key, kind)
                        surfaces = values
                        self.canonical_names.add(key)
                    for surface in surfaces:
                        self._add(str(surface), lookup, seen, f"{kind}.{category}.{key}")
        for code, (words, ambiguous) in (language_words or {}).items():
            self._add_language(code, words, ambiguous, seen)
        self.lookup_cached = lru_cache(maxsize=4096)(self.lookup)

    def _add_language(self, code: str, words: dict, ambiguous: dict, seen: Dict[str, str]) -> None:
        """Add a language pack's unit words under the unit (and so the kind) they name."""
        where_of = {}
        for kind, spec in self._payload_kinds.items():
            for key in spec.get("units") or {}:
                where_of[key] = (kind, OK)
            for key in spec.get("unsupported") or {}:
                where_of[key] = (kind, UNSUPPORTED)
        for unit, surfaces in words.items():
            if unit not in where_of:
                raise UnitDataError(f"language pack {code!r}: unit_words: {unit!r} is not a unit of "
                                    f"data/units.yaml (known: {sorted(where_of)})")
            kind, status = where_of[unit]
            for surface in surfaces:
                self._add(str(surface), UnitLookup(status, unit, kind), seen, f"{code}.unit_words.{unit}")
        for surface, candidates in ambiguous.items():
            kinds = {where_of.get(c, (None,))[0] for c in candidates}
            if len(kinds) != 1 or None in kinds:
                raise UnitDataError(f"language pack {code!r}: unit_ambiguous: {surface!r}: the candidates "
                                    f"{candidates} must be units of one kind")
            lookup = UnitLookup(AMBIGUOUS, None, kinds.pop(), tuple(candidates))
            self._add(str(surface), lookup, seen, f"{code}.unit_ambiguous")

    def _add(self, surface: str, lookup: UnitLookup, seen: Dict[str, str], where: str) -> None:
        surface = _clean(surface)
        if not surface:
            raise UnitDataError(f"units data: {where}: empty surface")
        if len(surface.split()) > 2:
            # the text finder reads a number plus at most two words
            raise UnitDataError(f"units data: {where}: surface {surface!r} has more than two words")
        if surface in self.case_sensitive:
            key, table = surface, self.exact
        else:
            key, table = _fold_unit(surface), self.folded
        previous = table.get(key)
        if previous is not None and previous != lookup:
            raise UnitDataError(
                f"units data: surface {surface!r} ({where}) is also listed under {seen[key]}"
            )
        table[key] = lookup
        seen[key] = where

    def lookup(self, surface: str) -> UnitLookup:
        """What a surface means, in any kind.

        surface (str): A unit as written ("hrs", "°F", "por ciento").
        RETURNS (UnitLookup): The lookup; status "unknown" when not listed.
        """
        surface = _clean(surface)
        hit = self.exact.get(surface)
        if hit is None:
            hit = self.folded.get(_fold_unit(surface))
        return hit or _UNKNOWN

    def surfaces(self) -> List[str]:
        """Every listed surface (folded ones in folded form)."""
        return sorted(set(self.exact) | set(self.folded))


_SPACES = re.compile(r"\s+")
# The masculine ordinal "º" is often typed for the degree sign; ℃/℉ are single glyphs.
_GLYPHS = str.maketrans({"º": "°", "˚": "°", "℃": "°C", "℉": "°F"})


def _clean(surface: str) -> str:
    surface = unicodedata.normalize("NFC", surface).translate(_GLYPHS).strip()
    surface = _SPACES.sub(" ", surface)
    # "° C" and "°C" are the same surface.
    return surface.replace("° ", "°")


def _fold_unit(surface: str) -> str:
    return fold(surface)


def unit_table() -> UnitTable:
    """The alias table: packaged symbols plus the unit words of every language pack.

    Built once per set of packs (a pack registered later is seen on the next call).

    RETURNS (UnitTable): The table.
    """
    return _unit_table(generation())


@lru_cache(maxsize=2)
def _unit_table(pack_set: int) -> UnitTable:
    words = {code: (pack.unit_words, pack.unit_ambiguous) for code, pack in packs().items()}
    return UnitTable(read_yaml(Path(str(resources.files("semgap_spacy.data"))) / "units.yaml"), words)


def lookup_surface(surface: str) -> UnitLookup:
    """``unit_table().lookup``, cached per table: text repeats the same few units.

    surface (str): A unit as written.
    RETURNS (UnitLookup): The lookup.
    """
    return unit_table().lookup_cached(surface)


def parse_unit(surface, kind: Optional[str] = None) -> UnitLookup:
    """Classify a unit surface, optionally for one quantity kind.

    A surface that belongs to another kind than ``kind`` is "unknown" for it
    ("psi" is not a duration). Never raises.

    surface (str): The unit as written.
    kind (Optional[str]): "duration", "temperature", "ratio" or "pressure";
        None to accept any kind.
    RETURNS (UnitLookup): status "ok" | "ambiguous" | "unsupported" | "unknown".
    """
    if not isinstance(surface, str) or not surface.strip():
        return _UNKNOWN
    hit = lookup_surface(surface)
    if kind is not None and hit.kind != kind:
        return _UNKNOWN
    return hit


# -- numbers ---------------------------------------------------------------
_MINUS = "-−‐‑–"
_NUMBER = re.compile(r"^[+" + _MINUS + r"]?[0-9]+(?:[.,][0-9]+)*$")
_GROUPS3 = re.compile(r"^[1-9]\d{0,2}(?:,\d{3})+$")
_GROUPS3_DOT = re.compile(r"^[1-9]\d{0,2}(?:\.\d{3})+$")


def parse_number(text: str) -> Optional[float]:
    """Read a written number, with the spec's decimal-comma rule.

    "25,5" and "25,50" are decimals (one or two digits after a comma);
    "1,500" and "1,500,000" use the comma as a thousands separator (exactly
    three digits per group, the English convention; "0,125" is a decimal).
    "46.4" and "0.125" are decimals; "1.500.000" is thousands; a lone dot
    before exactly three digits ("1.500": 1.5 in English, 1500 in German) is
    refused. When both separators occur the last one is the decimal mark
    ("1,500.5", "1.500,5"). Anything else ("1,5000", "1,50,0") is refused: an
    unreadable number must not become a confident quantity.

    text (str): The number as written, with an optional sign.
    RETURNS (Optional[float]): The value, or None when not a clean number.
    """
    if not isinstance(text, str):
        return None
    if text.isascii() and text.isdigit():
        return float(text)  # the common case, without the regex
    if not _NUMBER.match(text):
        return None
    sign = 1.0
    if text[0] in "+" + _MINUS:
        sign = -1.0 if text[0] != "+" else 1.0
        text = text[1:]
    if "," in text and "." in text:
        last = max(text.rfind(","), text.rfind("."))
        whole, frac = text[:last], text[last + 1:]
        sep = text[last]
        other = "." if sep == "," else ","
        if sep in whole:
            return None
        pattern = _GROUPS3 if other == "," else _GROUPS3_DOT
        if not pattern.match(whole):
            return None
        return sign * float(whole.replace(other, "") + "." + frac)
    if "," in text:
        parts = text.split(",")
        if len(parts) == 2 and (1 <= len(parts[1]) <= 2 or parts[0] == "0"):
            return sign * float(parts[0] + "." + parts[1])
        if _GROUPS3.match(text):
            return sign * float(text.replace(",", ""))
        return None
    if "." in text:
        if _GROUPS3_DOT.match(text):
            # "1.500.000" is thousands; "1.500" alone is 1.5 in English but
            # 1500 in German, so it is refused rather than guessed.
            return sign * float(text.replace(".", "")) if text.count(".") > 1 else None
        if text.count(".") > 1:
            return None
    return sign * float(text)


# -- ISO-8601 durations ----------------------------------------------------
_N = r"(\d+(?:[.,]\d+)?)"
# ASCII digits only, the whole string (no newline after it: "$" would allow one)
_ISO = re.compile(
    r"P(?!\Z)(?:" + _N + r"Y)?(?:" + _N + r"M)?(?:" + _N + r"W)?(?:" + _N + r"D)?"
    r"(?:T(?=\d)(?:" + _N + r"H)?(?:" + _N + r"M)?(?:" + _N + r"S)?)?", re.ASCII
)
_ISO_HOURS = (None, None, 7 * 24.0, 24.0, 1.0, 1 / 60.0, 1 / 3600.0)  # W D H M S
ISO_DURATION_PATTERN = (
    r"P(?=[\d]|T\d)(?:\d+(?:[.,]\d+)?[YMWD])*(?:T(?=\d)(?:\d+(?:[.,]\d+)?[HMS])+)?"
)


class IsoDuration(NamedTuple):
    """A parsed ISO-8601 duration.

    status: "ok", "unsupported" (has years or months, which have no fixed
        length) or "unknown" (does not parse).
    hours: the length in hours for "ok", else None.
    """

    status: str
    hours: Optional[float] = None


def parse_iso_duration(text) -> IsoDuration:
    """Parse an ISO-8601 duration strictly ("PT30H", "P2D", "P1DT2H", "PT1.5H").

    Designators must be upper case and in order, at least one part is needed,
    "T" must be followed by a time part, only the last part may have a
    fraction, and negative durations are refused. Years and months ("P1Y",
    "P1M") are "unsupported": they are real durations that no contract in
    hours or days can be checked against. Never raises.

    text (str): The duration.
    RETURNS (IsoDuration): Status and length in hours.
    """
    if not isinstance(text, str):
        return IsoDuration(UNKNOWN)
    m = _ISO.fullmatch(text)
    if not m:
        return IsoDuration(UNKNOWN)
    parts = m.groups()
    present = [i for i, p in enumerate(parts) if p is not None]
    if not present:
        return IsoDuration(UNKNOWN)
    for i in present[:-1]:
        if "." in parts[i] or "," in parts[i]:
            return IsoDuration(UNKNOWN)
    if parts[0] is not None or parts[1] is not None:
        return IsoDuration(UNSUPPORTED)
    hours = 0.0
    for i in present:
        hours += float(parts[i].replace(",", ".")) * _ISO_HOURS[i]
    if not math.isfinite(hours):
        return IsoDuration(UNKNOWN)
    return IsoDuration(OK, hours)


# -- Pint ------------------------------------------------------------------
_registry = None
_registry_lock = threading.Lock()


def get_registry():
    """The process-wide Pint ``UnitRegistry``, built on first call.

    RETURNS (pint.UnitRegistry): The shared registry.
    """
    global _registry
    if _registry is None:
        with _registry_lock:
            if _registry is None:
                _registry = _new_registry()
    return _registry


#: ``off``: no disk cache of Pint's parsed definitions; a folder: that one; unset: Pint's own choice
PINT_CACHE_ENV = "SEMGAP_PINT_CACHE"


def _new_registry():
    """A registry from Pint's disk cache when there is a usable one (made on first use),
    else parsed from Pint's definition files: a cache that cannot be read or written costs
    time only, never a unit."""
    import pint

    folder = os.environ.get(PINT_CACHE_ENV, ":auto:")
    if folder.strip().lower() != "off":
        try:
            return pint.UnitRegistry(cache_folder=folder)
        except Exception:  # noqa: BLE001 - a damaged or unwritable cache: parse as without one
            pass
    return pint.UnitRegistry()


def canonical_unit(unit: str) -> str:
    """The canonical Pint name of a unit surface or Pint unit name.

    Surfaces in the alias table win ("pct" is percent, not picocarat); other
    strings are read by Pint.

    unit (str): "h", "degC", "psi", "hour", ...
    RETURNS (str): "hour", "degree_Celsius", "pound_force_per_square_inch", ...
    RAISES (ValueError): When neither the table nor Pint knows the unit.
    """
    return _canonical(unit)


@lru_cache(maxsize=256)
def _canonical(unit: str) -> str:
    table = unit_table()
    if unit in table.canonical_names:
        return unit
    hit = table.lookup(unit)
    if hit.unit is not None:
        return hit.unit
    try:
        return str(get_registry().Unit(unit))
    except Exception as exc:
        raise ValueError(f"unknown unit {unit!r}") from exc


@lru_cache(maxsize=256)
def _plan(unit: str, to_unit: str) -> Tuple[Optional[float], object, object]:
    """(factor, unit, target): factor None means an offset unit, use Pint."""
    ureg = get_registry()
    src, dst = ureg.Unit(_canonical(unit)), ureg.Unit(_canonical(to_unit))
    try:
        zero = ureg.Quantity(0.0, src).to(dst).magnitude
    except Exception as exc:  # pint's DimensionalityError is a TypeError
        raise ValueError(f"cannot convert {unit!r} to {to_unit!r}: {exc}") from None
    if zero != 0:
        return None, src, dst
    return float(ureg.Quantity(1.0, src).to(dst).magnitude), src, dst


@lru_cache(maxsize=256)
def _conversion(unit: str, to_unit: str) -> Optional[Tuple[Optional[float], object, object]]:
    """None when both strings name one unit (no Pint needed), else ``_plan``.

    One cached call per (unit, target) pair instead of two ``_canonical``
    look-ups and a ``_plan`` look-up on every conversion. Failures (unknown
    units, different kinds) raise and are not cached, as before.
    """
    if _canonical(unit) == _canonical(to_unit):
        return None
    return _plan(unit, to_unit)


def convert(value: float, unit: str, to_unit: str) -> float:
    """Convert a magnitude between units of the same kind.

    Offset units go through ``Quantity(value, unit).to(to_unit)``, so 46.4 °F
    is 8 °C (not 46.4 × 5/9). Multiplicative units use a cached factor.

    value (float): The magnitude.
    unit (str): Its unit (alias surface or Pint name).
    to_unit (str): The target unit.
    RETURNS (float): The magnitude in ``to_unit``.
    RAISES (ValueError): An unknown unit, or units of different kinds.
    """
    if unit == to_unit:
        return float(value)
    plan = _conversion(unit, to_unit)
    if plan is None:
        return float(value)  # no Pint needed, the common case
    factor, src, dst = plan
    if factor is not None:
        return value * factor
    return float(get_registry().Quantity(value, src).to(dst).magnitude)


def tidy(value: float) -> float:
    """Round away conversion noise (8.000000000000057 → 8.0), 12 significant digits."""
    value = float(value)
    if value == 0 or value.is_integer() or not math.isfinite(value):
        return value
    return float(f"{value:.12g}")

"""Generate the held-out cases from the phrase bank; label them with the oracle.

    python -m heldout.generate                   # write dev.jsonl (and test.jsonl if allowed)
    python -m heldout.generate --check           # regenerate in memory, compare with disk
    python -m heldout.generate --force-refreeze  # rewrite test.jsonl and FROZEN.sha256

Pipeline: bank (YAML) -> this generator (fills templates, records the facts it
used) -> oracle.label(facts) -> ``expected``. The generator is deterministic
(fixed seed, one random stream per split and category), so the files on disk
can always be reproduced and checked byte for byte.

Each output line is a case in the spec's JSONL format (id, domain, text,
readings, now) plus ``category``, ``expected`` and ``facts``.

test.jsonl is frozen by FROZEN.sha256: the generator will not replace a test
file whose hash matches the frozen one with different content unless
``--force-refreeze`` is given, because a held-out set that moves with the
code stops being held out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from . import oracle
from .bank import SPLITS, Bank, fold, lint_bank, split_items, strip_accents
from .units import from_contract, iso_duration, parse_iso_minutes, to_contract, unit_key

HERE = Path(__file__).resolve().parent
SEED = "semgap-heldout-2026.11"
CATEGORIES = (
    "control", "synonym", "word_order", "inflection", "negation", "hedge", "clause_scope",
    "typo_critical", "typo_clearance", "typo_nonterm", "multilingual", "draft_translation",
    "reading_units", "contract_direction", "timestamp", "malformed_reading", "malformed_case",
    "text_quantity", "field_without_reading", "cross_domain", "ambiguous_abbrev", "dangling",
    "nothing_recognised", "novel_paraphrase",
)  # fmt: skip
MAX_TEXT = 4000

# `now` values for cases whose readings do not need one (varied zones and spellings).
NOWS = [
    "2026-11-30T10:00:00Z",
    "2026-11-30T23:45:00+00:00",
    "2026-12-01T06:30:00Z",
    "2026-11-29T14:20:00+01:00",
    "2026-12-02T09:05:00-05:00",
    "2026-11-28T18:10:00+02:00",
]
OTHER_LANGS = ("es", "fr", "de")
CONTRACT_ALIAS = {"h": "h", "d": "d", "min": "min", "C": "°C", "%": "%", "psi": "psi"}


class Unfillable(Exception):
    """The template cannot be filled in this domain/mode; try another."""


# ---------------------------------------------------------------------------
# Per-split drawing context


class Ctx:
    """What one split may draw from: its half of every split list, and counters."""

    def __init__(self, bank: Bank, split: str):
        self.bank = bank
        self.split = split
        s = bank.surface
        self.orgs = {d: split_items(v, split) for d, v in s["orgs"].items()}
        self.people = split_items(s["people"], split)
        self.wrappers = split_items(s["wrappers"], split)
        self.fillers = {k: split_items(v, split) for k, v in s["fillers"].items()}
        self.filler_typos = split_items(s["filler_typos"], split)
        self.typos = {w: split_items(v, split) for w, v in bank.typos.items()}
        self.counters: dict = {}

    def next(self, key) -> int:
        """A per-key counter, used to cycle modes, probes and phrasings evenly."""
        n = self.counters.get(key, 0)
        self.counters[key] = n + 1
        return n


# ---------------------------------------------------------------------------
# Numbers and quantities


def _nice(value: float, rng: random.Random) -> float | int:
    """Round like a person or a source system would, and prefer ints when exact."""
    a = abs(value)
    if a >= 100:
        v = round(value)
    elif a >= 10:
        v = round(value) if rng.random() < 0.5 else round(value, 1)
    else:
        v = round(value, 2) if rng.random() < 0.5 else round(value, 1)
    return int(v) if float(v).is_integer() else v


def _sample(contract: dict, side: str, rng: random.Random) -> float:
    """A value (contract unit) clearly inside or outside the contract."""
    t = contract["type"]
    if t == "max":
        lim = contract["limit"]
        return rng.uniform(0.1 * lim, 0.93 * lim) if side == "in" else rng.uniform(1.07 * lim, 2.0 * lim)
    if t == "min":
        lim = contract["limit"]
        return rng.uniform(1.07 * lim, 3.0 * lim) if side == "in" else rng.uniform(0.05 * lim, 0.93 * lim)
    lo, hi = contract["low"], contract["high"]
    w = hi - lo
    if side == "in":
        return rng.uniform(lo + 0.1 * w, hi - 0.1 * w)
    return rng.uniform(lo - w, lo - 0.1 * w) if rng.random() < 0.5 else rng.uniform(hi + 0.1 * w, hi + w)


def _clear_of_edges(value: float, contract: dict) -> bool:
    """At least 2 % of the reference away from every edge: no rounding can flip the side."""
    margin = 0.02 * oracle.reference(contract)
    edges = [contract["low"], contract["high"]] if contract["type"] == "band" else [contract["limit"]]
    return all(abs(value - e) >= margin for e in edges)


def _fmt_number(v: float | int, lang: str, comma: bool = False) -> str:
    """A number as it is written in text; decimal comma outside English or when asked."""
    text = str(v)
    if isinstance(v, float) and (comma or lang != "en"):
        text = text.replace(".", ",")
    return text


_SINGULAR = {"hours": "hour", "minutes": "minute", "days": "day", "weeks": "week", "months": "month", "years": "year"}
_PLURAL = {v: k for k, v in _SINGULAR.items()}
# Units written in es/fr/de text: symbols and abbreviations, not English words.
_INTL_ALIASES = {"h", "min", "d", "°C", "C", "%", "psi", "bar", "kPa"}


def _join_unit(number: str, alias: str, rng: random.Random) -> str:
    """Number and unit as text: "30 h", "30h", "2 days", "1 day" (word units agree in number)."""
    if alias in _SINGULAR or alias in _PLURAL:
        one = number in ("1", "1.0", "1,0")
        alias = _SINGULAR.get(alias, alias) if one else _PLURAL.get(alias, alias)
        return f"{number} {alias}"
    if alias.isalpha() and len(alias) > 3:
        return f"{number} {alias}"
    return f"{number}{rng.choice(['', ' '])}{alias}"


def _probes(contract: dict) -> list[tuple[str, float]]:
    """Edge probes in the contract unit: at each edge (inside: limits are inclusive) and just past it."""
    t = contract["type"]
    if t == "max":
        lim = contract["limit"]
        step = 1 if lim >= 40 else 0.5
        return [("at_limit", lim), ("just_over", lim + step), ("just_under", lim - step), ("zero", 0), ("far_over", 2 * lim)]
    if t == "min":
        lim = contract["limit"]
        return [("at_limit", lim), ("just_under", lim - 1), ("just_over", lim + 1), ("far_under", 30), ("far_over", 4 * lim)]
    lo, hi = contract["low"], contract["high"]
    step = 1 if hi - lo >= 10 else 0.5
    return [("at_low", lo), ("at_high", hi), ("below_low", lo - step), ("above_high", hi + step), ("mid", (lo + hi) / 2)]


def _as_json_number(v: float) -> float | int:
    return int(v) if float(v).is_integer() else v


# ---------------------------------------------------------------------------
# One case


class CaseBuilder:
    """Fills one template in one domain and records the facts it used."""

    def __init__(self, ctx: Ctx, category: str, cat_spec: dict, template: dict, domain: str, mode, rng):
        self.ctx, self.bank, self.rng = ctx, ctx.bank, rng
        self.category, self.cat_spec, self.template = category, cat_spec, template
        self.domain, self.mode = domain, mode
        lang = template.get("lang", "en")
        self.lang = rng.choice(OTHER_LANGS) if lang == "any" else lang
        self.slot_terms: dict[str, str] = {}
        self.slot_fields: dict[str, str] = {}
        self.mentions: list[dict] = []
        self.readings: dict = {}
        self.reading_facts: list[dict] = []
        self.quantities: list[dict] = []
        self.abbrevs: list[dict] = []
        self.source: dict = {"template": template["id"]}
        self.now: str | None = None
        self.now_set = False
        self.readings_as_list = False  # set by the "readings_list" malformed mode

    # ---- term slots ----------------------------------------------------
    def _slot_spec(self, spec) -> dict:
        if isinstance(spec, str):
            spec = {"signal": spec}
        return {"kind": "term", **spec}

    def fill_term(self, name: str, spec: dict) -> str:
        bank, rng = self.bank, self.rng
        lang = spec.get("lang", self.lang)
        form = spec.get("form") or self.cat_spec.get("form") or ("canonical" if lang == "en" else "translation")
        status = spec.get("status", "approved")
        other = spec.get("domain") == "other"
        domains = [d for d in bank.domains if d != self.domain] if other else [self.domain]
        if "phrases" in spec:
            candidates = [bank.surface_index[fold(p)] for p in spec["phrases"]]
            candidates = [s for s in candidates if bank.terms[s.term].domain in domains and s.status == status]
        else:
            signal = spec.get("signal", "any")
            wanted = ("clear", "critical_block") if signal == "any" else (signal,)
            candidates = [
                s
                for d in domains
                for t in bank.terms_of(d)
                if t.signal in wanted
                for s in bank.surfaces(t, lang, form, status)
            ]
        taken = {self.slot_terms[n] for n in spec.get("distinct_from", [])}
        candidates = [s for s in candidates if s.term not in taken]
        candidates = [s for s in candidates if not bank.terms[s.term].field or self.field_ok(name, bank.terms[s.term].field)]
        if spec.get("typo"):
            candidates = [s for s in candidates if self._typo_words(s.text)]
        if spec.get("strip_accents"):
            candidates = [s for s in candidates if strip_accents(s.text) != s.text]
        if not candidates:
            raise Unfillable(f"slot {name}")
        # Choose the signal first, then the term, then the surface: otherwise "any"
        # would favour critical terms (most domains list one clearance, two or three criticals).
        signal = rng.choice(sorted({bank.terms[s.term].signal for s in candidates}))
        candidates = [s for s in candidates if bank.terms[s.term].signal == signal]
        term_id = rng.choice(sorted({s.term for s in candidates}))
        surface = rng.choice([s for s in candidates if s.term == term_id])
        term = bank.terms[term_id]
        text, spelling = surface.text, "exact"
        if spec.get("typo"):
            word = rng.choice(self._typo_words(text))
            typo = rng.choice(self.ctx.typos[word])
            text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", typo, text, count=1)
            spelling = "misspelt"
            self.source["typo"] = {"word": word, "typo": typo}
        if spec.get("strip_accents"):
            text = strip_accents(text)
        self.slot_terms[name] = term_id
        if term.field:
            self.slot_fields[name] = term.field
        self.mentions.append(
            {
                "term": term_id,
                "signal": term.signal,
                "domain": term.domain,
                "status": surface.status,
                "lang": surface.lang,
                "via": surface.via,
                "surface": text,
                "polarity": spec.get("polarity", "asserted"),
                "spelling": spelling,
                "field": term.field,
            }
        )
        return text

    def _typo_words(self, text: str) -> list[str]:
        return [w for w in re.findall(r"\w+", text) if self.ctx.typos.get(w)]

    # ---- field constraints from modes and reading styles ----------------
    def field_ok(self, slot: str, field: str) -> bool:
        """Can this field serve the readings/quantities the template ties to ``slot``?"""
        styles = [r["style"] for r in self.template.get("readings", []) if r.get("field") == slot]
        for spec in self.template.get("slots", {}).values():
            if isinstance(spec, dict) and spec.get("kind") == "quantity" and spec.get("field") == slot:
                styles.append(f"q:{self.mode}")
        return all(self._field_fits(style, field) for style in styles)

    def _field_fits(self, style: str, field: str) -> bool:
        spec = self.bank.fields[field]
        duration = spec["kind"] == "duration"
        if style in ("iso", "ambiguous", "unsupported", "q:iso_in", "q:iso_out", "q:ambiguous_m", "q:unsupported"):
            return duration
        if style == "start":
            return duration and spec["contract"]["type"] == "max"
        if style == "q:thousands":
            return field in THOUSANDS
        if style == "malformed":
            need = MALFORMED_KIND.get(self.mode)
            return need is None or spec["kind"] == need
        return True

    # ---- other slot kinds ----------------------------------------------
    def fill(self, name: str, spec) -> str:
        spec = self._slot_spec(spec)
        kind = spec["kind"]
        if kind == "term":
            return self.fill_term(name, spec)
        if kind == "head":
            self.head = self.rng.choice(self.bank.frame["heads"])
            return self.head
        if kind == "value":
            self.outcome = spec.get("outcome") or self.rng.choice(["positive", "negative"])
            self.value_word = self.rng.choice(self.bank.frame[self.outcome])
            return self.value_word
        if kind == "abbr":
            table = self.bank.ambiguous[self.domain]
            abbrev = self.rng.choice(sorted(table))
            self.abbrevs.append({"abbrev": abbrev, "meanings": table[abbrev]})
            return abbrev
        if kind == "filler_typo":
            clause = self.rng.choice(self.ctx.filler_typos)
            self.source["filler_typo"] = clause
            return clause
        if kind == "quantity":
            return self.fill_quantity(spec)
        raise ValueError(f"unknown slot kind {kind!r}")

    # ---- readings --------------------------------------------------------
    def _pick_field(self, ref: str, style: str) -> str:
        if ref in self.slot_fields:
            return self.slot_fields[ref]
        if ref != "any":
            raise Unfillable(f"reading refers to unfilled slot {ref}")
        fields = [f for f in self.bank.fields_of(self.domain) if f not in self.readings and self._field_fits(style, f)]
        if not fields:
            raise Unfillable("no field for reading")
        return self.rng.choice(fields)

    def _fact(self, field: str, raw, status: str, why: str = "", value=None, form: str = "value") -> dict:
        fact = {"field": field, "form": form, "raw": raw, "status": status, "why": why}
        if field in self.bank.fields:
            contract = self.bank.fields[field]["contract"]
            fact["contract"] = contract
            if value is not None:
                fact["value"] = value
                fact["unit"] = contract["unit"]
        return fact

    def aliases(self, kind: str, in_text: bool = False) -> list[str]:
        """Accepted unit spellings for a quantity kind; in non-English text only symbols."""
        out = [a for aliases in self.bank.units[kind]["aliases"].values() for a in aliases]
        if in_text and self.lang != "en":
            out = [a for a in out if a in _INTL_ALIASES]
        return out

    def value_reading(self, field: str, side: str, aliases: list[str] | None = None) -> tuple[dict, float]:
        """A valid {"value", "unit"} reading clearly on ``side`` of the contract."""
        spec = self.bank.fields[field]
        kind, contract = spec["kind"], spec["contract"]
        aliases = aliases or self.aliases(kind)
        for _ in range(200):
            want = side if side != "either" else self.rng.choice(["in", "out"])
            target = _sample(contract, want, self.rng)
            a = self.rng.choice(aliases)
            key = unit_key(kind, a, self.bank.units)
            v = _nice(from_contract(target, kind, key, contract["unit"], self.bank.units), self.rng)
            if kind != "temperature" and v <= 0:
                continue
            if kind == "duration" and not 0.5 <= v <= 20000:
                continue
            canon = to_contract(v, kind, key, contract["unit"], self.bank.units)
            if oracle.within(canon, contract) == (want == "in") and _clear_of_edges(canon, contract):
                return {"value": v, "unit": a}, canon
        raise Unfillable(f"no {side} value for {field}")

    def add_reading(self, rspec: dict) -> None:
        style = rspec["style"]
        field = self._pick_field(rspec.get("field", "any"), style)
        spec = self.bank.fields[field]
        contract = spec["contract"]
        side = rspec.get("side", "either")
        if style == "units":
            raw, canon = self.value_reading(field, side)
            self._valid(field, raw, canon)
        elif style == "iso":
            want = side if side != "either" else self.rng.choice(["in", "out"])
            per = self.bank.units["duration"]["minutes_per_unit"]
            for _ in range(200):
                target = _sample(contract, want, self.rng)
                grain = {"d": 1440, "h": 30, "min": 1}[contract["unit"]]
                minutes = max(grain, int(round(target * per[contract["unit"]] / grain)) * grain)
                canon = minutes / per[contract["unit"]]
                if oracle.within(canon, contract) == (want == "in") and _clear_of_edges(canon, contract):
                    break
            else:
                raise Unfillable("iso value")
            raw = {"duration": iso_duration(minutes)}
            assert parse_iso_minutes(raw["duration"]) == minutes
            self._valid(field, raw, canon, form="duration")
        elif style == "ambiguous":
            raw = {"value": self.rng.choice([20, 45, 90, 3, 6]), "unit": "m"}
            self.readings[field] = raw
            self.reading_facts.append(self._fact(field, raw, "ambiguous_unit", "unit 'm' could be minutes, metres or months"))
        elif style == "unsupported":
            raw = {"value": self.rng.choice([1, 2, 6, 9]), "unit": self.rng.choice(self.bank.units["duration"]["unsupported"])}
            self.readings[field] = raw
            self.reading_facts.append(self._fact(field, raw, "unsupported_unit", f"{raw['unit']} is not a unit for a duration contract"))
        elif style == "probe":
            name, value = self._next_probe(contract)
            raw = {"value": _as_json_number(value), "unit": CONTRACT_ALIAS[contract["unit"]]}
            self.source["probe"] = name
            self._valid(field, raw, float(value))
        elif style == "start":
            self.add_start_reading(field)
        elif style == "malformed":
            self.add_malformed_reading(field)
        else:
            raise ValueError(f"unknown reading style {style!r}")

    def _next_probe(self, contract: dict) -> tuple[str, float]:
        probes = _probes(contract)
        return probes[self.ctx.next(("probe", contract["type"])) % len(probes)]

    def _valid(self, field: str, raw: dict, canon: float, form: str = "value") -> None:
        canon = round(canon, 9)  # readable facts; values are never this close to an edge but at it
        self.readings[field] = raw
        fact = self._fact(field, raw, "valid", value=canon, form=form)
        fact["in_contract"] = oracle.within(canon, fact["contract"])
        self.reading_facts.append(fact)

    def add_start_reading(self, field: str) -> None:
        """A {"start": ...} reading; the mode decides now/zone/order problems."""
        mode, rng = self.mode, self.rng
        contract = self.bank.fields[field]["contract"]
        per = self.bank.units["duration"]["minutes_per_unit"][contract["unit"]]
        limit_min = int(contract["limit"] * per)
        if mode.endswith("_out"):
            elapsed = int(limit_min * rng.uniform(1.1, 2.0))
        elif mode == "aware_edge":
            elapsed = limit_min
        else:
            elapsed = max(1, int(limit_min * rng.uniform(0.2, 0.9)))
        now = datetime(2026, 11, 30, rng.randrange(0, 24), rng.choice([0, 15, 30, 45]), tzinfo=timezone.utc)
        start = now - timedelta(minutes=elapsed)
        if mode == "start_after_now":
            start = now + timedelta(minutes=rng.randrange(60, 300))

        def aware(dt: datetime, offset_hours: int = 0) -> str:
            text = dt.astimezone(timezone(timedelta(hours=offset_hours))).isoformat()
            return text.replace("+00:00", "Z") if offset_hours == 0 and rng.random() < 0.5 else text

        def naive(dt: datetime) -> str:
            return dt.replace(tzinfo=None).isoformat()

        now_text, start_text, status, why = aware(now), aware(start), "valid", ""
        if mode.startswith("offset"):
            start_text = aware(start, rng.choice([2, -5, 1, 9]))
        elif mode.startswith("both_naive"):
            now_text, start_text = naive(now), naive(start)
        elif mode == "missing_now":
            now_text, status, why = None, "time_problem", "start reading but no now"
        elif mode == "naive_start":
            start_text, status, why = naive(start), "time_problem", "start is naive, now is timezone-aware"
        elif mode == "naive_now":
            now_text, status, why = naive(now), "time_problem", "now is naive, start is timezone-aware"
        elif mode == "start_after_now":
            status, why = "time_problem", "start is after now"
        raw = {"start": start_text}
        self.readings[field] = raw
        self.now, self.now_set = now_text, True
        if status == "valid":
            fact = self._fact(field, raw, "valid", value=elapsed / per, form="start")
            fact["in_contract"] = oracle.within(elapsed / per, contract)
        else:
            fact = self._fact(field, raw, status, why, form="start")
        fact["now"] = now_text
        self.source["mode"] = mode
        self.reading_facts.append(fact)

    def add_malformed_reading(self, field: str) -> None:
        """A real malformed reading for ``field``; the mode says which kind."""
        mode, rng = self.mode, self.rng
        kind = self.bank.fields[field]["kind"]
        aliases = [a for al in self.bank.units[kind]["aliases"].values() for a in al]
        good, _ = self.value_reading(field, "in")
        unit = good["unit"]
        value = good["value"]
        key = field
        why = mode.replace("_", " ")
        if mode == "readings_list":
            self.readings_as_list = True
            raw = {"field": field, "value": value, "unit": unit}
            why = "readings is a list, not an object"
        elif mode == "bare_number":
            raw, why = value, "a bare number, not a reading object"
        elif mode == "reading_list":
            raw, why = [value, unit], "a list, not a reading object"
        elif mode == "nan_literal":
            raw, why = {"value": math.nan, "unit": unit}, "value is NaN"
        elif mode == "nan_string":
            raw, why = {"value": "NaN", "unit": unit}, "value is the string NaN"
        elif mode == "inf_literal":
            raw, why = {"value": math.inf, "unit": unit}, "value is infinite"
        elif mode == "neg_inf_literal":
            raw, why = {"value": -math.inf, "unit": unit}, "value is -infinite"
        elif mode == "bool_value":
            raw, why = {"value": rng.choice([True, False]), "unit": unit}, "value is a boolean"
        elif mode == "null_value":
            raw, why = {"value": None, "unit": unit}, "value is null"
        elif mode == "string_value":
            raw, why = {"value": str(value), "unit": unit}, "value is a string"
        elif mode in ("negative_duration", "negative_ratio", "negative_pressure"):
            raw, why = {"value": -abs(value) if value else -1, "unit": unit}, f"negative {kind}"
        elif mode == "unknown_unit":
            raw, why = {"value": value, "unit": rng.choice(["furlongs", "widgets", "parsecs", "units"])}, "unknown unit"
        elif mode == "wrong_kind_unit":
            wrong = {"duration": "psi", "temperature": "h", "ratio": "°C", "pressure": "%"}[kind]
            raw, why = {"value": value, "unit": wrong}, f"{wrong} is not a {kind} unit"
        elif mode == "bad_iso":
            raw, why = {"duration": rng.choice(["PT", "P2X", "30 hours", "PTH", "P1.5.2D", "T5H"])}, "duration does not parse"
        elif mode == "iso_number":
            raw, why = {"duration": value}, "duration is a number, not an ISO string"
        elif mode == "bad_datetime":
            raw, why = {"start": rng.choice(["yesterday", "2026-13-45T99:00:00Z", "not a date", ""])}, "start does not parse"
        elif mode == "unknown_field":
            key = rng.choice(UNKNOWN_FIELDS[self.domain])
            raw, why = {"value": value, "unit": unit}, f"{key} is not a field of {self.domain}"
        elif mode == "other_domain_field":
            key = rng.choice([f for f in self.bank.fields if self.bank.fields[f]["domain"] != self.domain])
            raw, _ = self.value_reading(key, "in")
            why = f"{key} is a field of {self.bank.fields[key]['domain']}, not {self.domain}"
        elif mode == "extra_key":
            raw, why = {"value": value, "unit": unit, "source": "lims"}, "extra key"
        elif mode == "missing_unit":
            raw, why = {"value": value}, "missing unit"
        elif mode == "missing_value":
            raw, why = {"unit": unit}, "missing value"
        elif mode == "empty_reading":
            raw, why = {}, "empty reading object"
        elif mode == "two_forms":
            raw, why = {"value": value, "unit": unit, "duration": "PT5H"}, "value and duration together"
        elif mode == "nested_value":
            raw, why = {"value": {"amount": value}, "unit": unit}, "value is an object"
        else:
            raise ValueError(f"unknown malformed mode {mode!r}")
        assert unit in aliases
        self.readings[key] = raw
        fact = self._fact(key, raw, "malformed", why)
        self.reading_facts.append(fact)
        self.source["mode"] = mode

    # ---- text quantities -------------------------------------------------
    def fill_quantity(self, spec: dict) -> str:
        """A quantity written in text, tied to the template's field slot (or to none)."""
        mode, rng = self.mode, self.rng
        self.source["mode"] = mode
        if spec.get("field") in (None, "none"):
            text = rng.choice(["2 h", "45 min", "3 hours", "20 minutes", "1 day"])
            self.quantities.append({"field": None, "surface": text, "status": "valid", "tied": False})
            return text
        field = self.slot_fields[spec["field"]]
        fspec = self.bank.fields[field]
        kind, contract = fspec["kind"], fspec["contract"]
        cu = contract["unit"]
        aliases = self.aliases(kind, in_text=True)
        q = {"field": field, "contract": contract, "tied": True}
        reading_side = None
        if mode in ("ambiguous_m", "unsupported"):
            alias = "m" if mode == "ambiguous_m" else rng.choice(self.bank.units["duration"]["unsupported"])
            text = _join_unit(str(rng.choice([2, 3, 6, 20, 45] if alias == "m" else [1, 2, 3, 6, 9])), alias, rng)
            q.update(surface=text, status="ambiguous_unit" if alias == "m" else "unsupported_unit")
            self.quantities.append(q)
            return text
        if mode in ("iso_in", "iso_out"):
            side = mode[4:]
            per = self.bank.units["duration"]["minutes_per_unit"]
            for _ in range(200):
                grain = {"d": 1440, "h": 60, "min": 1}[cu]
                minutes = max(grain, int(round(_sample(contract, side, rng) * per[cu] / grain)) * grain)
                canon = minutes / per[cu]
                if oracle.within(canon, contract) == (side == "in") and _clear_of_edges(canon, contract):
                    break
            else:
                raise Unfillable("iso quantity")
            text = iso_duration(minutes)
        elif mode == "thousands":
            unit_alias, ranges = THOUSANDS[field]
            side = rng.choice(sorted(ranges))
            n = rng.randrange(*ranges[side], 10)
            canon = to_contract(n, kind, unit_key(kind, unit_alias, self.bank.units), cu, self.bank.units)
            if oracle.within(canon, contract) != (side == "in") or not _clear_of_edges(canon, contract):
                raise AssertionError(f"THOUSANDS range for {field} is wrong: {n} {unit_alias}")
            text = _join_unit(f"{n:,}", unit_alias, rng)
        else:
            comma = mode.startswith("decimal_comma")
            if mode in ("agree_in", "agree_out", "decimal_comma_agree"):
                reading_side = "out" if mode == "agree_out" else "in"
            elif mode == "disagree":
                reading_side = "in"
            side = "out" if mode in ("text_out", "decimal_comma_out", "agree_out") else "in"
            for _ in range(500):
                if reading_side:
                    raw, r_canon = self.value_reading(field, reading_side, aliases if comma else None)
                    if comma and not isinstance(raw["value"], float):
                        continue
                if mode in ("agree_in", "agree_out"):
                    alias = rng.choice(aliases)
                    key = unit_key(kind, alias, self.bank.units)
                    v = round(from_contract(r_canon, kind, key, cu, self.bank.units), 2)
                elif mode == "decimal_comma_agree":
                    alias, v = raw["unit"], raw["value"]
                    key = unit_key(kind, alias, self.bank.units)
                elif mode == "disagree":
                    alias = rng.choice(aliases)
                    key = unit_key(kind, alias, self.bank.units)
                    delta = rng.uniform(0.04, 0.3) * oracle.reference(contract) * rng.choice([-1, 1])
                    v = _nice(from_contract(r_canon + delta, kind, key, cu, self.bank.units), rng)
                else:
                    alias = rng.choice(aliases)
                    key = unit_key(kind, alias, self.bank.units)
                    v = _nice(from_contract(_sample(contract, side, rng), kind, key, cu, self.bank.units), rng)
                if comma:
                    v = round(float(v), rng.choice([1, 2]))
                    if v.is_integer():
                        continue
                v = _as_json_number(v)
                if kind != "temperature" and v <= 0:
                    continue
                if kind == "duration" and not 0.5 <= v <= 2000:
                    continue
                canon = to_contract(v, kind, key, cu, self.bank.units)
                if reading_side:
                    diff = abs(canon - r_canon)
                    tol = 0.01 * oracle.reference(contract)
                    if mode == "disagree" and diff <= 2 * tol:
                        continue
                    if mode != "disagree" and diff > 0.3 * tol:
                        continue
                    if mode != "disagree" and not _clear_of_edges(canon, contract):
                        continue
                elif not (oracle.within(canon, contract) == (side == "in") and _clear_of_edges(canon, contract)):
                    continue
                break
            else:
                raise Unfillable(f"quantity for {mode}")
            text = _join_unit(_fmt_number(v, self.lang, comma), alias, rng)
            if reading_side:
                self._valid(field, raw, r_canon)
        canon = round(canon, 9)
        q.update(surface=text, status="valid", value=canon, unit=cu, in_contract=oracle.within(canon, contract))
        self.quantities.append(q)
        return text


# Fields and units whose values run past 1,000 (for the English thousands separator):
# field -> (unit alias, {side: (low, high)}), ranges checked against the contract when used.
THOUSANDS = {
    "cold_ischemia_elapsed": ("min", {"in": (1000, 1400), "out": (1500, 2900)}),
    "hours_since_inspection": ("h", {"out": (1000, 3000)}),
    "remaining_shelf_life": ("hours", {"in": (4500, 9000), "out": (1000, 4200)}),
    "rate_lock_age": ("hours", {"in": (1000, 1400), "out": (1500, 3000)}),
    "tire_pressure": ("kPa", {"in": (1340, 1420), "out": (1480, 1700)}),
}
# Malformed modes that need a field of one quantity kind.
MALFORMED_KIND = {
    "negative_duration": "duration",
    "negative_ratio": "ratio",
    "negative_pressure": "pressure",
    "bad_iso": "duration",
    "iso_number": "duration",
    "bad_datetime": "duration",
    "two_forms": "duration",
}
UNKNOWN_FIELDS = {
    "medical_logistics": ["cold_ischaemia_elapsed", "cit_hours"],
    "mortgage": ["dti", "loan_to_value"],
    "pharma_qa": ["storage_temp", "shelf_life"],
    "aviation_maintenance": ["tsi_hours", "tyre_pressure"],
}


def _mode_fits_template(mode: str, template: dict) -> bool:
    if mode == "thousands":
        return template.get("lang", "en") == "en"
    return True


# ---------------------------------------------------------------------------
# Assembling text and the case record


def _casing(body: str, rng: random.Random) -> tuple[str, str]:
    roll = rng.random()
    if roll < 0.6:
        return body, "as_is"
    if roll < 0.75:
        return body.lower(), "lower"
    if roll < 0.85 and body.upper().lower() == body.lower() and "ß" not in body:
        return body.upper(), "upper"
    return body[:1].upper() + body[1:], "capitalised"


def _ends_sentence(text: str) -> bool:
    return text.rstrip().endswith((".", "!", "?", "…"))


def build_case(ctx: Ctx, category: str, cat_spec: dict, template: dict, rng: random.Random) -> dict:
    """One case (without id) from ``template``; raises Unfillable when it cannot."""
    bank = ctx.bank
    modes = template.get("modes") or cat_spec.get("modes")
    mode = None
    if modes:
        for _ in range(len(modes)):
            mode = modes[ctx.next(("mode", category, tuple(modes))) % len(modes)]
            if _mode_fits_template(mode, template):
                break
    domains = template.get("domains") or cat_spec.get("domains") or bank.domains
    for domain in rng.sample(domains, len(domains)):
        try:
            return _build_in_domain(ctx, category, cat_spec, template, domain, mode, rng)
        except Unfillable:
            continue
    raise Unfillable(f"{template['id']} mode {mode}")


def case_inputs(b, domain: str, text: str, facts: dict, rng) -> dict:
    """The case a builder describes: domain, text, readings (a list when the builder asks
    for a malformed container, which the facts then record) and now (drawn when unset)."""
    case = {"domain": domain, "text": text}
    if b.readings_as_list:
        items = [{"field": k, **v} if isinstance(v, dict) and "field" not in v else v for k, v in b.readings.items()]
        case["readings"] = items
        facts["readings"] = [{"field": None, "form": "container", "raw": items, "status": "malformed", "why": "readings is a list, not an object"}]
    elif b.readings:
        case["readings"] = b.readings
    elif rng.random() < 0.1:
        case["readings"] = {}
    if b.now_set:
        if b.now is not None:
            case["now"] = b.now
    elif rng.random() < 0.8:
        case["now"] = rng.choice(NOWS)
    return case


def _build_in_domain(ctx, category, cat_spec, template, domain, mode, rng) -> dict:
    b = CaseBuilder(ctx, category, cat_spec, template, domain, mode, rng)
    slots = template.get("slots", {})
    texts = {}
    for name, spec in slots.items():
        texts[name] = b.fill(name, spec)
    dangling = list(template.get("dangling", []))
    if "head" in slots and "value" in slots and not dangling:
        term = "MED.XM_POSITIVE" if b.outcome == "positive" else "MED.XM_NEGATIVE"
        t = ctx.bank.terms[term]
        b.mentions.append(
            {"term": term, "signal": t.signal, "domain": t.domain, "status": "approved", "lang": "en", "via": "frame",
             "surface": f"{b.head} … {b.value_word}", "polarity": "asserted", "spelling": "exact", "field": None}
        )  # fmt: skip
    novel = "means" in template
    if novel:
        t = ctx.bank.terms[template["means"]["term"]]
        b.mentions.append(
            {"term": t.id, "signal": t.signal, "domain": t.domain, "status": "approved", "lang": b.lang, "via": "paraphrase",
             "surface": None, "polarity": "asserted", "spelling": "exact", "field": t.field}
        )  # fmt: skip
    for rspec in template.get("readings", []):
        b.add_reading(rspec)

    org = rng.choice(ctx.orgs[domain])
    person = rng.choice(ctx.people)
    phrasings = template["phrasings"]
    p_index = ctx.next(("phrasing", template["id"])) % len(phrasings)
    body = phrasings[p_index].format(org=org, person=person, **texts)
    b.source.update(phrasing=p_index, org=org, person=person)

    bare = template.get("bare", False)
    casing = "as_is"
    if not bare and (cat_spec.get("casing") or template.get("casing")) != "keep":
        body, casing = _casing(body, rng)
    b.source["casing"] = casing
    text = body
    if not bare:
        filler_pool = ctx.fillers[b.lang] if b.lang in ctx.fillers else ctx.fillers[domain]
        if rng.random() < 0.35:
            filler = rng.choice(filler_pool)
            b.source["filler"] = filler
            if rng.random() < 0.5:
                text = f"{filler} {text}"
            else:
                text = f"{text if _ends_sentence(text) else text + '.'} {filler}"
        w_index = rng.randrange(len(ctx.wrappers))
        wrapper = ctx.wrappers[w_index]
        if not wrapper.endswith("{body}") and not _ends_sentence(text):
            text += "."
        text = wrapper.format(
            body=text, org=org, person=person, hhmm=f"{rng.randrange(6, 23):02d}:{rng.randrange(0, 60):02d}",
            ref=f"#{rng.randrange(1000, 9999)}",
        )  # fmt: skip
        b.source["wrapper"] = wrapper

    facts = {
        "domain": domain,
        "lang": b.lang,
        "case_malformed": None,
        "mentions": b.mentions,
        "readings": b.reading_facts,
        "quantities": b.quantities,
        "ambiguous_abbrevs": b.abbrevs,
        "dangling": dangling,
        "novel": novel,
        "source": b.source,
    }
    case = case_inputs(b, domain, text, facts, rng)
    if category == "malformed_case":
        _malform_case(ctx, case, facts, mode, rng)
    return {"case": case, "facts": facts}


def _pad(ctx: Ctx, text: str, domain: str, length: int) -> str:
    """Grow ``text`` with whole neutral sentences, then dots, to exactly ``length`` characters."""
    pool = ctx.fillers[domain]
    i = 0
    while len(text) + 1 + len(pool[i % len(pool)]) <= length:
        text = f"{text} {pool[i % len(pool)]}"
        i += 1
    return text + "." * (length - len(text))


def _malform_case(ctx: Ctx, case: dict, facts: dict, mode: str, rng: random.Random) -> None:
    """Turn a well-formed case into the malformed case ``mode`` names (or a 4000-char valid one)."""
    facts["source"]["mode"] = mode
    domain = case["domain"]
    if mode.endswith("_domain"):
        value = {
            "unknown_domain": rng.choice(["dentistry", "retail_banking", "veterinary"]),
            "empty_domain": "",
            "null_domain": None,
            "number_domain": 3,
            "list_domain": [domain],
            "missing_domain": None,
        }[mode]
        if mode == "missing_domain":
            del case["domain"]
        else:
            case["domain"] = value
        facts.update(domain=value, case_malformed="unknown_domain")
    elif mode.startswith("text_") and mode[5:].isdigit():
        case["text"] = _pad(ctx, case["text"], domain, int(mode[5:]))
        facts["case_malformed"] = "text_too_long"
    elif mode == "text_4000_valid":
        case["text"] = _pad(ctx, case["text"], domain, MAX_TEXT)
    else:
        value = {
            "text_number": rng.choice([12345, 3.5, 0]),
            "text_null": None,
            "text_list": [case["text"]],
            "text_object": {"note": case["text"]},
            "text_bool": True,
            "missing_text": None,
        }[mode]
        if mode == "missing_text":
            del case["text"]
        else:
            case["text"] = value
        facts.update(case_malformed="text_not_string", mentions=[])
    if facts["case_malformed"] == "text_too_long":
        assert len(case["text"]) > MAX_TEXT
    if mode == "text_4000_valid":
        assert len(case["text"]) == MAX_TEXT


# ---------------------------------------------------------------------------
# Splits, files, freezing


def generate_split(bank: Bank, split: str) -> list[dict]:
    """All cases of one split, ids assigned, labelled by the oracle."""
    ctx = Ctx(bank, split)
    out = []
    seen = set()
    for category in CATEGORIES:
        cat_spec = bank.categories[category]
        templates = split_items(cat_spec["templates"], split)
        rng = random.Random(f"{SEED}:{split}:{category}")
        made, k, failures = 0, 0, 0
        while made < cat_spec["count"]:
            template = templates[k % len(templates)]
            try:
                built = build_case(ctx, category, cat_spec, template, rng)
            except Unfillable:
                failures += 1
                k += 1
                if failures > 200:
                    raise RuntimeError(f"{split}/{category}: templates cannot be filled")
                continue
            case, facts = built["case"], built["facts"]
            key = json.dumps([case.get("domain"), case.get("text"), case.get("readings"), case.get("now")], sort_keys=True, default=repr)
            if key in seen:
                failures += 1
                if failures > 200:
                    raise RuntimeError(f"{split}/{category}: too many duplicates")
                continue
            seen.add(key)
            _check_intent(facts)
            record = {"id": f"{split}-{len(out) + 1:04d}"}
            record.update(case)
            record.update(category=category, expected=oracle.label(facts), facts=facts)
            out.append(record)
            made += 1
            k += 1
    return out


def _check_intent(facts: dict) -> None:
    """The generator's intended side of each contract must be the oracle's (double entry)."""
    for item in facts["readings"] + facts["quantities"]:
        if "in_contract" in item and "value" in item:
            if oracle.within(item["value"], item["contract"]) != item["in_contract"]:
                raise AssertionError(f"intent and oracle disagree on {item}")


def serialise(cases: list[dict]) -> bytes:
    """JSONL bytes. NaN/Infinity are written as Python's json writes them (a real producer's output)."""
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases).encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_frozen(directory: Path) -> str | None:
    path = directory / "FROZEN.sha256"
    if not path.exists():
        return None
    return path.read_text(encoding="utf-8").split()[0]


_BUILT: dict[str, dict[str, bytes]] = {}


def build_all() -> dict[str, bytes]:
    """Lint the bank and generate both splits (memoised on the bank's bytes within a process)."""
    key = sha256(b"".join(p.read_bytes() for p in sorted((HERE / "bank").glob("*.yaml"))))
    if key not in _BUILT:
        bank = Bank()
        problems = lint_bank(bank)
        if problems:
            raise SystemExit("bank lint failed:\n  " + "\n  ".join(problems))
        _BUILT[key] = {split: serialise(generate_split(bank, split)) for split in SPLITS}
    return _BUILT[key]


def stats_table(splits: dict[str, list[dict]]) -> str:
    """Markdown table of case counts per category and split (label mix in brackets: P/E/B)."""
    lines = ["| category | dev | test |", "|---|---|---|"]

    def cell(cases):
        n = {k: sum(c["expected"] == k for c in cases) for k in ("proceed", "escalate", "block")}
        return f"{len(cases)} ({n['proceed']}/{n['escalate']}/{n['block']})"

    for category in CATEGORIES + ("**total**",):
        row = [cell([c for c in splits[s] if category == "**total**" or c["category"] == category]) for s in SPLITS]
        lines.append(f"| {category} | {row[0]} | {row[1]} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m heldout.generate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="regenerate in memory and compare with the files on disk")
    parser.add_argument("--force-refreeze", action="store_true", help="replace test.jsonl and FROZEN.sha256")
    parser.add_argument("--out", type=Path, default=HERE, help="directory holding dev.jsonl, test.jsonl, FROZEN.sha256")
    parser.add_argument("--stats", action="store_true", help="print case counts per category and split, write nothing")
    parser.add_argument("--version", type=int, choices=(1, 2), default=1, help="split version: 1 (frozen history) or 2 (spec §4.1, in v2/)")
    args = parser.parse_args(argv)
    if args.version == 2:
        from . import generate_v2

        out_v2 = args.out / "v2" if args.out != HERE else generate_v2.OUT_DIR
        return generate_v2.run(args.check, args.force_refreeze, args.stats, out_v2)
    if args.stats:
        from . import load_cases

        print(stats_table({s: load_cases(args.out / f"{s}.jsonl") for s in SPLITS}), end="")
        return 0
    files = build_all()
    out: Path = args.out
    frozen = read_frozen(out)

    if args.check:
        ok = True
        for split, data in files.items():
            path = out / f"{split}.jsonl"
            if not path.exists() or path.read_bytes() != data:
                print(f"{path}: differs from what the generator produces", file=sys.stderr)
                ok = False
        if frozen != sha256(files["test"]):
            print("FROZEN.sha256 does not match the generated test split", file=sys.stderr)
            ok = False
        print("heldout: dev.jsonl and test.jsonl match the generator" if ok else "heldout: check FAILED")
        return 0 if ok else 1

    out.mkdir(parents=True, exist_ok=True)
    (out / "dev.jsonl").write_bytes(files["dev"])
    test_path = out / "test.jsonl"
    new_hash = sha256(files["test"])
    if args.force_refreeze or frozen is None:
        test_path.write_bytes(files["test"])
        (out / "FROZEN.sha256").write_text(f"{new_hash}  test.jsonl\n", encoding="utf-8")
        print(f"heldout: wrote dev.jsonl and test.jsonl; test frozen at {new_hash}")
        return 0
    if new_hash != frozen:
        on_disk = sha256(test_path.read_bytes()) if test_path.exists() else None
        state = "matches" if on_disk == frozen else "does not match"
        print(
            f"heldout: refusing to replace test.jsonl: the generator now produces {new_hash}, "
            f"FROZEN.sha256 says {frozen} (the file on disk {state} it). "
            "If the change is deliberate, rerun with --force-refreeze and say why in the commit.",
            file=sys.stderr,
        )
        return 2
    test_path.write_bytes(files["test"])  # same content as frozen: restores a damaged file
    print(f"heldout: wrote dev.jsonl; test.jsonl unchanged ({new_hash})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

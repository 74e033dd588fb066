"""Field mentions and what they say once quantities and readings are read.

A field term ("cold ischemia time") only means something with its contract and
a value. ``field_mentions`` lists the field terms of a domain with their
contracts; ``quantity_findings`` turns tied text quantities and checked
readings into the reason-like findings the decision reports. The quantity
linker (to tie quantities) and the decision (to judge them) both read these,
so they work on plain rows, not on a Doc: the pipes read their span groups
into rows once (``pipes/rows.py``).
"""
import re
from functools import lru_cache
from typing import Dict, List, NamedTuple, Optional, Tuple

from ..glossary.models import Contract, GlossarySet
from .quantities import QUANTITY_BOUND, SPACE
from .readings import STATUS_OK, STATUS_OUT, contract_message, fmt, within
from .reasons import outcome_for


# Span signals beyond the glossary's own three.
AMBIGUOUS = "ambiguous"
DANGLING_HEAD = "dangling_head"
DANGLING_OUTCOME = "dangling_outcome"


class TermFacts(NamedTuple):
    """What a term match is: the facts a term span carries beside its label (the term id)."""

    domain: str
    signal: str
    lang: str
    status: str
    kind: str
    field: Optional[str] = None


class TermRow(NamedTuple):
    """A term span read from its group: token and character offsets, label, facts."""

    start: int
    end: int
    start_char: int
    end_char: int
    label: str
    facts: TermFacts


class QuantityRow(NamedTuple):
    """A quantity span with what the linker stored on it."""

    start_char: int
    end_char: int
    field: Optional[str]
    problem: Optional[str]
    magnitude: Optional[float]


class FieldMention(NamedTuple):
    """A field term of a domain in the text, with its contract."""

    start: int
    end: int
    start_char: int
    end_char: int
    field: str
    domain: str
    term_id: str
    status: str
    contract: Contract


@lru_cache(maxsize=8)
def contract_index(glossary: GlossarySet) -> Dict[Tuple[str, str], Tuple[str, Contract]]:
    """(domain, field) -> (term id, contract), once per glossary set (they are immutable).

    glossary (GlossarySet): The glossary set.
    RETURNS (dict): The index.
    """
    return {(domain, term.field): (term.id, term.contract) for domain, term in glossary.terms()
            if term.field and term.contract is not None}


def field_mentions(rows: List[TermRow], glossary: GlossarySet, domain: Optional[str],
                   own_domain_only: bool = True) -> List[FieldMention]:
    """The field terms among term rows, with their contracts, in text order.

    Only fields of ``domain`` are kept when it is governed. For a domain that
    is not, ``own_domain_only`` decides: nothing (the decision's view: an
    unknown domain has no contracts) or the fields of every domain (the
    linker's view: a quantity is still tied to the field it belongs to).

    rows (List[TermRow]): The term span group, read once.
    glossary (GlossarySet): The glossary with the contracts.
    domain (Optional[str]): The case's domain.
    own_domain_only (bool): Return nothing when the domain is not governed. Defaults to True.
    RETURNS (List[FieldMention]): The field mentions.
    """
    governed = isinstance(domain, str) and domain in glossary.domains
    if not rows or (own_domain_only and not governed):
        return []
    contracts = contract_index(glossary)
    out = []
    for row in rows:
        facts = row.facts
        if facts.signal != "field" or not facts.field or (governed and facts.domain != domain):
            continue
        hit = contracts.get((facts.domain, facts.field))
        if hit is None:
            continue
        out.append(FieldMention(row.start, row.end, row.start_char, row.end_char, facts.field, facts.domain,
                                hit[0], facts.status, hit[1]))
    if len(out) > 1:
        out.sort(key=lambda f: (f.start, f.end))  # a span group need not be in text order
    return out


# -- findings for the decision --------------------------------------------------


def _finding(field: str, term_id: Optional[str], status: str, code: str, message: str,
             value: Optional[float], unit: Optional[str], start: int, end: int) -> dict:
    return {"field": field, "term_id": term_id, "status": status, "code": code,
            "outcome": outcome_for(code), "message": message, "value": value, "unit": unit,
            "start_char": start, "end_char": end}


# A number right after a field mention ("DTI 50", "CIT: 30", "tire pressure = 250"): the
# text states the field's value, and without a unit nothing can check it.
_BARE_VALUE = re.compile(SPACE + r"*[:=]?" + SPACE + r"*([-+−]?[0-9][0-9.,]*)")


def quantity_findings(fields: List[FieldMention], quantities: List[QuantityRow], readings_checked,
                      text: str) -> List[dict]:
    """What the text quantities and field mentions say, as reason-like dicts.

    Same shape as ``check_readings`` entries plus ``start_char``/``end_char``.
    Only fields of ``doc._.semgap_domain`` count (nothing for an unknown domain):

    - a quantity tied to a field with an ambiguous or unsupported unit:
      ``ambiguous_unit`` / ``unsupported_unit``; after a comparison sign (">24 h"):
      ``quantity_bound``;
    - a tied quantity and a valid reading of the same field that differ by
      more than ``contract.tolerance()``: ``quantity_mismatch``; that agree, but
      with the text's value outside the contract: the contract code, as below;
    - a tied quantity and no valid reading: the contract code
      (``limit_exceeded``, ``below_minimum``, ``outside_band``) when outside,
      ``text_quantity_unconfirmed`` when inside (text alone never clears). A
      malformed reading counts as no reading here (it escalates on its own),
      and a mention whose phrase is a draft cannot block, so it gives
      ``text_quantity_unconfirmed`` instead;
    - a field mention followed by a number with no unit ("DTI 50", "CIT: 30"),
      reading or not: ``ambiguous_unit`` (the text states a value nothing can check);
    - a field mentioned with no reading (not even a malformed one) and no
      tied quantity: ``field_without_value`` at its first mention.

    Offsets of a tied quantity cover the field mention and the quantity.
    Problem units that tie to no field are not findings: only a contract makes
    a unit "unsupported for" something, and an untied field already escalates.

    fields (List[FieldMention]): The domain's field mentions (``field_mentions``).
    quantities (List[QuantityRow]): The quantity spans.
    readings_checked (Optional[list]): ``doc._.semgap_readings_checked``.
    text (str): The doc text, to quote the spans.
    RETURNS (List[dict]): Findings sorted by position.
    """
    if not fields:
        return []
    by_field: Dict[str, List[FieldMention]] = {}
    for f in fields:
        by_field.setdefault(f.field, []).append(f)
    read_fields, valid, reading_out = set(), {}, set()
    for entry in readings_checked or []:
        if not isinstance(entry, dict):
            continue
        read_fields.add(entry.get("field"))
        if entry.get("status") in (STATUS_OK, STATUS_OUT) and entry.get("value") is not None:
            valid[entry["field"]] = entry["value"]
            if entry.get("status") == STATUS_OUT:
                reading_out.add(entry["field"])
    out: List[dict] = []
    tied_fields = set()
    for q_start, q_end, name, problem, value in quantities:
        mentions = by_field.get(name)
        if not mentions:
            continue
        tied_fields.add(name)
        mention = mentions[0] if len(mentions) == 1 else min(
            mentions, key=lambda f: min(abs(f.start_char - q_end), abs(q_start - f.end_char)))
        contract = mention.contract
        start = min(q_start, mention.start_char)
        end = max(q_end, mention.end_char)
        unit = contract.unit
        if problem == QUANTITY_BOUND:
            out.append(_finding(name, mention.term_id, "bound", problem,
                                f"{name}: '{text[q_start:q_end]}' in the text follows a comparison sign: "
                                f"a bound, not a value, which its contract cannot check", None, unit, start, end))
            continue
        if problem:
            written = text[q_start:q_end]
            out.append(_finding(name, mention.term_id, "unit_problem", problem,
                                f"{name}: '{written}' in the text has a unit that is "
                                f"{'ambiguous' if problem == 'ambiguous_unit' else 'unsupported'} "
                                f"for its contract in {unit}", None, unit, start, end))
            continue
        if value is None:
            continue
        code = within(value, contract)
        if name in valid:
            reading = valid[name]
            if abs(reading - value) > contract.tolerance() + 1e-9 * max(1.0, abs(reading)):
                out.append(_finding(
                    name, mention.term_id, "mismatch", "quantity_mismatch",
                    f"{name}: the text says {fmt(value)} {unit} but the reading is "
                    f"{fmt(reading)} {unit} (tolerance {fmt(contract.tolerance())} {unit})",
                    value, unit, start, end))
                continue
            if code == "reading_in_contract" or name in reading_out:
                continue  # the reading confirms the text, or is outside and says so itself
            # they agree within the tolerance, but what the text states is outside the contract
            # ("cold ischemia 24.2 h" with a reading of 24 h): it counts as a text value does
        if code == "reading_in_contract" or mention.status != "approved":
            why = ("but is not confirmed by a reading" if mention.status == "approved"
                   else "but its phrase is a draft and cannot decide")
            message = contract_message(name, value, contract, code, "in the text") + f" {why}"
            out.append(_finding(name, mention.term_id, "unconfirmed", "text_quantity_unconfirmed",
                                message, value, unit, start, end))
        else:
            out.append(_finding(name, mention.term_id, STATUS_OUT, code,
                                contract_message(name, value, contract, code, "in the text"),
                                value, unit, start, end))
    for name, mentions in by_field.items():
        if name in tied_fields:
            continue
        bare = None
        for mention in mentions:
            m = _BARE_VALUE.match(text, mention.end_char)
            if m is not None:
                bare = (mention, m)
                break
        if bare is not None:
            mention, m = bare
            out.append(_finding(name, mention.term_id, "unit_problem", "ambiguous_unit",
                                f"{name}: '{m.group(1)}' follows its mention in the text with no unit, so it "
                                f"cannot be checked against its contract in {mention.contract.unit}",
                                None, mention.contract.unit, mention.start_char, m.end(1)))
            continue
        if name in read_fields:
            continue
        first = mentions[0]
        quote = text[first.start_char:first.end_char]
        out.append(_finding(name, first.term_id, "missing", "field_without_value",
                            f"{name} is mentioned ('{quote}') with no reading and no value",
                            None, first.contract.unit, first.start_char, first.end_char))
    if len(out) > 1:
        out.sort(key=lambda r: (r["start_char"], r["end_char"], r["code"]))
    return out

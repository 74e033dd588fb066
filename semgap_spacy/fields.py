"""Field mentions and what they say once quantities and readings are read.

A field term ("cold ischemia time") only means something with its contract and
a value. ``field_mentions`` lists a doc's field spans with their contracts;
``quantity_findings`` turns tied text quantities and checked readings into the
reason-like findings the decision component reports. Both the quantity linker
(to tie quantities) and the decision (to judge them) read these, so they live
apart from either component.
"""
from functools import lru_cache
from typing import Dict, List, NamedTuple, Optional, Tuple

from spacy.tokens import Doc, Span

from ._extensions import QUANTITIES_KEY, TERMS_KEY, doc_get, span_get, unpack_span_id
from .codes import outcome_for
from .glossary import Contract, GlossarySet
from .readings import STATUS_OK, STATUS_OUT, contract_message, fmt, within

class _Field(NamedTuple):
    span: Span
    start: int
    end: int
    start_char: int
    end_char: int
    field: str
    domain: str
    term_id: str
    status: str
    contract: Contract



_NO_DOMAIN = object()


@lru_cache(maxsize=1024)
def _field_facts(span_id: str) -> Optional[Tuple[str, str, str]]:
    """(domain, field, status) of a field term span's id_, None for other spans."""
    facts = unpack_span_id(span_id)
    if facts["signal"] != "field" or not facts["field"]:
        return None
    return facts["domain"], facts["field"], facts["status"]


@lru_cache(maxsize=8)
def contract_index(glossary: GlossarySet) -> Dict[Tuple[str, str], Tuple[str, Contract]]:
    """(domain, field) -> (term id, contract), once per glossary set (they are immutable).

    glossary (GlossarySet): The glossary set.
    RETURNS (dict): The index.
    """
    return {(domain, term.field): (term.id, term.contract) for domain, term in glossary.terms()
            if term.field and term.contract is not None}


def field_mentions(doc: Doc, glossary: GlossarySet, spans_key: str = TERMS_KEY,
                   own_domain_only: bool = False, domain=_NO_DOMAIN) -> List[_Field]:
    """Field term spans of a doc with their contracts.

    Only spans of ``doc._.semgap_domain`` are kept when that domain is
    governed (or when ``own_domain_only``); otherwise fields of every domain.

    doc (Doc): The document.
    glossary (GlossarySet): The glossary with the contracts.
    spans_key (str): The term span group. Defaults to "semgap_terms".
    own_domain_only (bool): Return nothing when the domain is not governed.
    domain (Optional[str]): ``doc._.semgap_domain``, when the caller has it.
    RETURNS (List[_Field]): The field mentions, in text order.
    """
    if spans_key not in doc.spans:
        return []
    group = doc.spans[spans_key]
    if not len(group):
        return []
    if domain is _NO_DOMAIN:
        domain = doc_get(doc, "semgap_domain")
    governed = isinstance(domain, str) and domain in glossary.domains
    if own_domain_only and not governed:
        return []
    contracts = contract_index(glossary)
    out = []
    for span in group:
        facts = _field_facts(span.id_)
        if facts is None or (governed and facts[0] != domain):
            continue
        key = facts[:2]
        hit = contracts.get(key)
        if hit is None:
            continue
        out.append(_Field(span, span.start, span.end, span.start_char, span.end_char,
                          facts[1], facts[0], hit[0], facts[2], hit[1]))
    if len(out) > 1:
        out.sort(key=lambda f: (f.start, f.end))
    return out


# -- findings for the decision --------------------------------------------------


def _finding(field: str, term_id: Optional[str], status: str, code: str, message: str,
             value: Optional[float], unit: Optional[str], start: int, end: int) -> dict:
    return {"field": field, "term_id": term_id, "status": status, "code": code,
            "outcome": outcome_for(code), "message": message, "value": value, "unit": unit,
            "start_char": start, "end_char": end}


def quantity_findings(doc: Doc, glossary: GlossarySet, *, spans_key: str = TERMS_KEY,
                      quantities_key: str = QUANTITIES_KEY) -> List[dict]:
    """What the text quantities and field mentions say, as reason-like dicts.

    Same shape as ``check_readings`` entries plus ``start_char``/``end_char``.
    Only fields of ``doc._.semgap_domain`` count (nothing for an unknown domain):

    - a quantity tied to a field with an ambiguous or unsupported unit:
      ``ambiguous_unit`` / ``unsupported_unit``;
    - a tied quantity and a valid reading of the same field that differ by
      more than ``contract.tolerance()``: ``quantity_mismatch``;
    - a tied quantity and no valid reading: the contract code
      (``limit_exceeded``, ``below_minimum``, ``outside_band``) when outside,
      ``text_quantity_unconfirmed`` when inside (text alone never clears). A
      malformed reading counts as no reading here (it escalates on its own),
      and a mention whose phrase is a draft cannot block, so it gives
      ``text_quantity_unconfirmed`` instead;
    - a field mentioned with no reading (not even a malformed one) and no
      tied quantity: ``field_without_value`` at its first mention.

    Offsets of a tied quantity cover the field mention and the quantity.
    Problem units that tie to no field are not findings: only a contract makes
    a unit "unsupported for" something, and an untied field already escalates.

    doc (Doc): A document processed by ``semgap_quantities``.
    glossary (GlossarySet): The glossary set.
    spans_key (str): The term span group. Defaults to "semgap_terms".
    quantities_key (str): The quantity span group. Defaults to "semgap_quantities".
    RETURNS (List[dict]): Findings sorted by position.
    """
    fields = field_mentions(doc, glossary, spans_key, own_domain_only=True)
    if not fields:
        return []
    by_field: Dict[str, List[_Field]] = {}
    for f in fields:
        by_field.setdefault(f.field, []).append(f)
    read_fields, valid = set(), {}
    for entry in doc_get(doc, "semgap_readings_checked") or []:
        if not isinstance(entry, dict):
            continue
        read_fields.add(entry.get("field"))
        if entry.get("status") in (STATUS_OK, STATUS_OUT) and entry.get("value") is not None:
            valid[entry["field"]] = entry["value"]
    quantities = doc.spans[quantities_key] if quantities_key in doc.spans else []
    out: List[dict] = []
    tied_fields = set()
    for q in quantities:
        name = span_get(q, "semgap_linked_field")
        mentions = by_field.get(name)
        if not mentions:
            continue
        tied_fields.add(name)
        q_start, q_end = q.start_char, q.end_char
        mention = mentions[0] if len(mentions) == 1 else min(
            mentions, key=lambda f: min(abs(f.start_char - q_end), abs(q_start - f.end_char)))
        contract = mention.contract
        start = min(q_start, mention.start_char)
        end = max(q_end, mention.end_char)
        unit = contract.unit
        problem = span_get(q, "semgap_quantity_problem")
        if problem:
            written = q.text
            out.append(_finding(name, mention.term_id, "unit_problem", problem,
                                f"{name}: '{written}' in the text has a unit that is "
                                f"{'ambiguous' if problem == 'ambiguous_unit' else 'unsupported'} "
                                f"for its contract in {unit}", None, unit, start, end))
            continue
        value = span_get(q, "semgap_magnitude")
        if value is None:
            continue
        if name in valid:
            reading = valid[name]
            if abs(reading - value) > contract.tolerance() + 1e-9 * max(1.0, abs(reading)):
                out.append(_finding(
                    name, mention.term_id, "mismatch", "quantity_mismatch",
                    f"{name}: the text says {fmt(value)} {unit} but the reading is "
                    f"{fmt(reading)} {unit} (tolerance {fmt(contract.tolerance())} {unit})",
                    value, unit, start, end))
            continue
        code = within(value, contract)
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
        if name in tied_fields or name in read_fields:
            continue
        first = mentions[0]
        out.append(_finding(name, first.term_id, "missing", "field_without_value",
                            f"{name} is mentioned ('{first.span.text}') with no reading and no value",
                            None, first.contract.unit, first.start_char, first.end_char))
    out.sort(key=lambda r: (r["start_char"], r["end_char"], r["code"]))
    return out

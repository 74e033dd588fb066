"""Field mentions and what they say once quantities and readings are read.

A field term ("cold ischemia time") only means something with its contract and
a value. ``field_mentions`` lists a doc's field spans with their contracts;
``quantity_findings`` turns tied text quantities and checked readings into the
reason-like findings the decision component reports. Both the quantity linker
(to tie quantities) and the decision (to judge them) read these, so they live
apart from either component.

Reading a span group builds a Span per item (a few µs each), so the decision
reads each group once per doc into plain rows (``term_rows``,
``quantity_rows``) and derives the mentions and findings from those rows.
"""
from functools import lru_cache
from typing import Dict, List, NamedTuple, Optional, Tuple

from spacy.tokens import Doc, Span

from ..pipes.extensions import QUANTITIES_KEY, TERMS_KEY, doc_get, doc_text, unpack_span_id
from .reasons import outcome_for
from ..glossary.models import Contract, GlossarySet
from .readings import STATUS_OK, STATUS_OUT, contract_message, fmt, within

class _Field(NamedTuple):
    span: Optional[Span]  # None when read from ``term_rows``
    start: int
    end: int
    start_char: int
    end_char: int
    field: str
    domain: str
    term_id: str
    status: str
    contract: Contract


# A term span read once from its group, as a plain tuple (a NamedTuple costs
# ~0.8 µs to build, a tuple next to nothing):
# (start, end, start_char, end_char, label_, id_)
TermRow = Tuple[int, int, int, int, str, str]
# A quantity span with what the linker stored on it:
# (start_char, end_char, linked field, quantity problem, magnitude)
QuantityRow = Tuple[int, int, Optional[str], Optional[str], Optional[float]]


_NO_DOMAIN = object()


def stored_span_value(user_data: dict, name: str, start_char: int, end_char: int, default=None):
    """``span._.<name>`` of the span at these offsets, without building the Span.

    Same user_data key as ``_extensions.span_get`` (extensions are keyed by
    character offsets); ``default`` must be the extension's registered default.
    """
    return user_data.get(("._.", name, start_char, end_char), default)


def span_group(doc: Doc, key: str):
    """``doc.spans[key]``, or None when the doc has no such group."""
    return doc.spans.get(key)


def term_rows(doc: Doc, spans_key: str = TERMS_KEY) -> List[TermRow]:
    """The term span group as rows, in group order; one pass, one Span per item.

    doc (Doc): The document.
    spans_key (str): The term span group. Defaults to "semgap_terms".
    RETURNS (List[TermRow]): The rows; empty when the group is missing.
    """
    group = span_group(doc, spans_key)
    if group is None:
        return []
    return [(s.start, s.end, s.start_char, s.end_char, s.label_, s.id_) for s in group]


def quantity_rows(doc: Doc, quantities_key: str = QUANTITIES_KEY) -> List[QuantityRow]:
    """The quantity span group as rows with their linked field, problem and magnitude.

    doc (Doc): A document processed by ``semgap_quantities``.
    quantities_key (str): The quantity span group. Defaults to "semgap_quantities".
    RETURNS (List[QuantityRow]): The rows, in group order; empty when the group is missing.
    """
    group = span_group(doc, quantities_key)
    if group is None:
        return []
    get = doc.user_data.get  # span extensions are keyed ("._.", name, start_char, end_char)
    out = []
    for q in group:
        start, end = q.start_char, q.end_char
        out.append((start, end, get(("._.", "semgap_linked_field", start, end)),
                    get(("._.", "semgap_quantity_problem", start, end)),
                    get(("._.", "semgap_magnitude", start, end))))
    return out


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
    group = span_group(doc, spans_key)
    if group is None or not len(group):
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
        hit = contracts.get(facts[:2])
        if hit is None:
            continue
        out.append(_Field(span, span.start, span.end, span.start_char, span.end_char,
                          facts[1], facts[0], hit[0], facts[2], hit[1]))
    return _in_text_order(out)


def row_field_mentions(rows: List[TermRow], glossary: GlossarySet, domain: Optional[str]) -> List[_Field]:
    """``field_mentions(doc, ..., own_domain_only=True)`` from already read term rows.

    The mentions carry ``span=None``: callers quote with ``text[start_char:end_char]``.

    rows (List[TermRow]): The term span group, from ``term_rows``.
    glossary (GlossarySet): The glossary with the contracts.
    domain (Optional[str]): ``doc._.semgap_domain``.
    RETURNS (List[_Field]): The field mentions of the domain, in text order;
        empty when the domain is not governed.
    """
    if not rows or not (isinstance(domain, str) and domain in glossary.domains):
        return []
    contracts = contract_index(glossary)
    out = []
    for start, end, start_char, end_char, _, span_id in rows:
        facts = _field_facts(span_id)
        if facts is None or facts[0] != domain:
            continue
        hit = contracts.get(facts[:2])
        if hit is None:
            continue
        out.append(_Field(None, start, end, start_char, end_char, facts[1], facts[0], hit[0], facts[2], hit[1]))
    return _in_text_order(out)


def _in_text_order(mentions: List[_Field]) -> List[_Field]:
    """Mentions sorted by token offsets (a span group need not be in text order)."""
    if len(mentions) > 1:
        mentions.sort(key=lambda f: (f.start, f.end))
    return mentions


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
    fields = row_field_mentions(term_rows(doc, spans_key), glossary, doc_get(doc, "semgap_domain"))
    if not fields:
        return []
    return findings_from_rows(fields, quantity_rows(doc, quantities_key),
                              doc_get(doc, "semgap_readings_checked"), doc_text(doc))


def findings_from_rows(fields: List[_Field], quantities: List[QuantityRow], readings_checked,
                       text: str) -> List[dict]:
    """``quantity_findings`` from already read rows, for a caller that has them.

    fields (List[_Field]): The domain's field mentions (``row_field_mentions``).
    quantities (List[QuantityRow]): The quantity spans (``quantity_rows``).
    readings_checked (Optional[list]): ``doc._.semgap_readings_checked``.
    text (str): The doc text, to quote the spans.
    RETURNS (List[dict]): Findings sorted by position.
    """
    if not fields:
        return []
    by_field: Dict[str, List[_Field]] = {}
    for f in fields:
        by_field.setdefault(f.field, []).append(f)
    read_fields, valid = set(), {}
    for entry in readings_checked or []:
        if not isinstance(entry, dict):
            continue
        read_fields.add(entry.get("field"))
        if entry.get("status") in (STATUS_OK, STATUS_OUT) and entry.get("value") is not None:
            valid[entry["field"]] = entry["value"]
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
        if problem:
            written = text[q_start:q_end]
            out.append(_finding(name, mention.term_id, "unit_problem", problem,
                                f"{name}: '{written}' in the text has a unit that is "
                                f"{'ambiguous' if problem == 'ambiguous_unit' else 'unsupported'} "
                                f"for its contract in {unit}", None, unit, start, end))
            continue
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
        quote = text[first.start_char:first.end_char]
        out.append(_finding(name, first.term_id, "missing", "field_without_value",
                            f"{name} is mentioned ('{quote}') with no reading and no value",
                            None, first.contract.unit, first.start_char, first.end_char))
    if len(out) > 1:
        out.sort(key=lambda r: (r["start_char"], r["end_char"], r["code"]))
    return out

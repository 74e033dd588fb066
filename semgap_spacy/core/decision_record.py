"""The decision record a doc keeps, and the decision JSON (spec §5) made from it when read.

Deciding and writing the JSON are two steps. The policy decides when the
pipe runs: the outcome, the order of the reasons and every reason about a
term, a reading or the case are fixed then, from what the pipes found. The
clause reasons of the coverage step (``unexplained_content`` and the
unattached cues) carry the bulk of a decision's lists and dicts (each
unexplained word and its span, and the reviewer's teaching options), and
nothing in the policy depends on that part: a stand-in with the code, the
outcome and the offsets takes each one's place in the order, and the reason
is written out when someone reads the decision.

So a doc that is never asked for its decision (its spans are all a caller
reads, or a batch is dropped) holds one tuple of plain values instead of a
tree of containers, and the decision made from it is the one an eager write
would have made: every value it needs (the coverage findings, the domain's
term ids, the glossary version and hash, the language packs' identities) is
copied into the record when the pipe runs, so editing the doc or changing the
glossary or the packs later changes nothing.
The record is plain data, so it travels with the doc through ``DocBin`` and
worker processes like any stored value.
"""
from typing import Any, List, Optional, Tuple

from .coverage_reasons import CoverageReasons
from .hearsay import HEARSAY
from .identifiers import CONFLICTING_IDENTIFIERS
from .partial import PARTIAL_COUNT
from .questions import QUESTION_WORD_ORDER
from .reasons import ESCALATE, SCHEMA, make_reason, outcome_for
from .time_conditions import TIME_CONDITION

#: the first item of every record, so nothing else stored under its key is read as one
RECORD_TAG = "semgap/decision-record/v1"
# The coverage codes whose reasons may be written on reading (coverage_reasons.CoverageReasons);
# a finding with any other code is written at once.
_DEFERRABLE = frozenset({"unexplained_content", "unattached_negation", "unattached_hedge", CONFLICTING_IDENTIFIERS,
                         QUESTION_WORD_ORDER, HEARSAY, PARTIAL_COUNT, TIME_CONDITION})

# One coverage finding as the record keeps it: (code, start_char, end_char, words, word_spans).
FrozenFinding = Tuple[str, int, int, Tuple[str, ...], Tuple[Tuple[int, ...], ...]]


#: The coverage reasons a decision writes on reading, and where they go in its reasons:
#: (domain, the domain's term ids, the findings, and for each stand-in its (position in the
#: reasons, index in the findings)). A plain tuple of plain values, so once Python's collector
#: has seen it, it no longer walks it (a named tuple would stay tracked).
Deferred = Tuple[Optional[str], Tuple[str, ...], Tuple[FrozenFinding, ...], Tuple[Tuple[int, int], ...]]


def freeze_findings(rows: Any) -> Optional[Tuple[FrozenFinding, ...]]:
    """Coverage findings copied into tuples, or None when one is not a finding the coverage step
    writes (its reasons are then written at once). A value that cannot be copied raises here,
    when the pipe runs, as writing its reason would.

    rows (Any): ``doc._.semgap_coverage["findings"]``.
    RETURNS (Optional[tuple]): The findings, copied.
    """
    out = []
    for row in rows:
        if type(row) is not dict:
            return None
        code, start, end = row.get("code"), row.get("start_char"), row.get("end_char")
        if type(code) is not str or code not in _DEFERRABLE or type(start) is not int or type(end) is not int:
            return None
        # ``tuple`` of a tuple is that tuple: the coverage step's own immutable values are shared
        out.append((code, start, end, tuple(row.get("words") or ()),
                    tuple(map(tuple, row.get("word_spans") or ()))))
    return tuple(out)


def stand_ins(findings: Tuple[FrozenFinding, ...]) -> List[dict]:
    """What the policy sorts and weighs in place of each coverage reason: its code, outcome and offsets."""
    return [{"code": code, "outcome": outcome_for(code), "start_char": start, "end_char": end}
            for code, start, end, _, _ in findings]


def complete_reasons(reasons: List[dict], deferred: Optional[Deferred], text: str) -> List[dict]:
    """The reasons with every stand-in replaced by its coverage reason.

    reasons (List[dict]): The policy's reasons, stand-ins included.
    deferred (Optional[Deferred]): What the stand-ins stand for; None: nothing is deferred.
    text (str): The doc's text, for the evidence.
    RETURNS (List[dict]): A new list of the reasons in the decision format.
    """
    out = list(reasons)
    if deferred is None:
        return out
    domain, term_ids, findings, slots = deferred
    written = CoverageReasons(domain, term_ids).written(findings, text)
    for position, index in slots:
        out[position] = written[index]
    return out


def make_record(case_id: Any, outcome: str, reasons: List[dict], deferred: Optional[Deferred],
                glossary_version: str, glossary_sha256: str, text_sha256: str,
                name_sources: Optional[tuple], default_domain: Any = None,
                ablation: Optional[dict] = None, widened: Optional[dict] = None,
                language_packs: Optional[Tuple[Tuple[str, str], ...]] = None) -> tuple:
    """The record a doc keeps of its decision (see the module docstring).

    name_sources (Optional[tuple]): The coverage step's name sources; None: coverage did not run.
    default_domain: The pipeline default domain the case used; None: it named its own.
    ablation (Optional[dict]): What was switched off on purpose; None: nothing.
    widened (Optional[dict]): The decision's switches set to a looser reading than the
        default (``{"untied_quantities": "named_fields"}``); None: none.
    language_packs (Optional[tuple]): The language packs the decision was read with, as
        (code, identity) pairs (``lang.pack_identities``); None: not known (written as null).
    RETURNS (tuple): The record, plain values only.
    """
    return (RECORD_TAG, case_id, outcome, reasons, glossary_version, glossary_sha256, text_sha256,
            name_sources, default_domain, ablation, deferred, widened, language_packs)


def is_record(value: Any) -> bool:
    """Whether a stored value is a decision record (also after ``Doc.to_bytes`` or a DocBin
    round trip, which hand its tuples back as lists or its lists back as tuples). A record
    kept before ``widened`` existed has one item less and reads as widening nothing; one kept
    before ``language_packs`` existed has one item less again and writes it as null (not known)."""
    return type(value) in (tuple, list) and len(value) in (11, 12, 13) and value[0] == RECORD_TAG


def decision_json(record: tuple, text: str) -> dict:
    """The decision of spec §5 that a record stands for, in the key order of the format.

    A record that went through ``DocBin`` comes back with tuples for lists
    (msgpack's ``use_list=False``); the decision made from it has lists again.
    A record that cannot be read escalates: it never proceeds.

    record (tuple): From ``make_record``.
    text (str): The doc's text.
    RETURNS (dict): The decision.
    """
    try:
        (_, case_id, outcome, reasons, glossary_version, glossary_sha256, text_hash, name_sources,
         default_domain, ablation, deferred, *rest) = record
        widened = rest[0] if rest else None
        language_packs = rest[1] if len(rest) > 1 else None
        round_trip = type(reasons) is not list
        decision = {
            "schema": SCHEMA, "id": case_id, "decision": outcome,
            "reasons": complete_reasons(reasons, deferred, text),
            "glossary_version": glossary_version, "glossary_sha256": glossary_sha256, "text_sha256": text_hash,
            "coverage": {"enabled": name_sources is not None, "name_sources": list(name_sources or ())},
            "language_packs": None if language_packs is None else dict(language_packs),
        }
        if default_domain is not None:
            decision["default_domain"] = default_domain
        if ablation is not None:
            decision["ablation"] = ablation
        if widened is not None:
            decision["widened"] = dict(widened)
    except Exception as exc:  # a record edited or damaged in storage: fail closed
        reason = make_reason("component_error", f"the stored decision could not be read: "
                                                f"{type(exc).__name__}: {exc}"[:500])
        return {"schema": SCHEMA, "id": None, "decision": ESCALATE, "reasons": [reason],
                "glossary_version": None, "glossary_sha256": None, "text_sha256": None, "language_packs": None}
    return as_lists(decision) if round_trip else decision


def as_lists(value: Any) -> Any:
    """A JSON value with every tuple (msgpack's arrays) turned back into a list."""
    if isinstance(value, dict):
        return {k: as_lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_lists(v) for v in value]
    return value

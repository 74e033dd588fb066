"""The closed set of reason codes, the outcome each one implies, and the reason format.

A reason whose code is not in this table is treated as ``block`` (spec §5):
a typo in a code, or a code from a newer package version, must never let an
action through.
"""
import hashlib
from typing import Dict, List, Optional

PROCEED = "proceed"
ESCALATE = "escalate"
BLOCK = "block"
OUTCOMES = (PROCEED, ESCALATE, BLOCK)
RANK = {PROCEED: 0, ESCALATE: 1, BLOCK: 2}
SCHEMA = "semgap/decision/v1"

REASON_CODES: Dict[str, str] = {
    # evidence that clears
    "clearance": PROCEED,
    "reading_in_contract": PROCEED,
    # terms in the text
    "critical_term": BLOCK,
    "critical_negated": ESCALATE,
    "critical_hedged": ESCALATE,
    "clearance_negated": ESCALATE,
    "clearance_hedged": ESCALATE,
    "clearance_repaired": ESCALATE,
    "clearance_inflected": ESCALATE,
    "draft_term": ESCALATE,
    "ambiguous_abbreviation": ESCALATE,
    "fuzzy_tie": ESCALATE,
    "other_domain_term": ESCALATE,
    "dangling_head": ESCALATE,
    "dangling_outcome": ESCALATE,
    "field_without_value": ESCALATE,
    "unknown_term": ESCALATE,
    "suspicious_characters": ESCALATE,
    "no_recognised_term": ESCALATE,
    "no_clearance": ESCALATE,
    # every word explained (spec §4.1)
    "unexplained_content": ESCALATE,
    "unattached_negation": ESCALATE,
    "unattached_hedge": ESCALATE,
    "conflicting_identifiers": ESCALATE,
    "question_word_order": ESCALATE,
    "hearsay": ESCALATE,
    "partial_count": ESCALATE,
    "time_condition": ESCALATE,
    # contracts, from readings or from quantities in the text
    "limit_exceeded": BLOCK,
    "below_minimum": BLOCK,
    "outside_band": BLOCK,
    "text_quantity_unconfirmed": ESCALATE,
    "quantity_mismatch": ESCALATE,
    "quantity_bound": ESCALATE,
    "quantity_untied": ESCALATE,
    "quantity_unsplit": ESCALATE,
    "value_in_words": ESCALATE,
    "text_timestamp": ESCALATE,
    "ambiguous_unit": ESCALATE,
    "unsupported_unit": ESCALATE,
    # readings
    "malformed_reading": ESCALATE,
    "unknown_field": ESCALATE,
    "timestamp_missing_now": ESCALATE,
    "timestamp_timezone_mismatch": ESCALATE,
    "timestamp_in_future": ESCALATE,
    # the case itself
    "invalid_case": ESCALATE,
    "duplicate_key": ESCALATE,
    "input_too_deep": ESCALATE,
    "number_too_large": ESCALATE,
    "lone_surrogate": ESCALATE,
    "unknown_domain": ESCALATE,
    "invalid_text": ESCALATE,
    "text_too_long": ESCALATE,
    "component_error": ESCALATE,
    # a worker process scoring the case died before it sent the decision back
    "worker_failed": ESCALATE,
    # a pipe the policy needs did not fully read the text (missing, disabled, failed, misordered)
    "pipeline_incomplete": ESCALATE,
}

# A line that could not be read as a case at all: no domain to report missing.
UNREADABLE_CASE = frozenset({"invalid_case", "duplicate_key", "input_too_deep", "number_too_large",
                             "lone_surrogate"})
# Codes that may let an action through; proceed needs one of them (spec §4).
CLEARING_CODES = frozenset({"clearance", "reading_in_contract"})
# Codes whose reason always quotes the text it is about (a term, an
# abbreviation, a frame word, a tied spelling): it must carry start_char,
# end_char and evidence, and its message starts with the quote. Reasons from
# readings and quantities may point at a field's mention, but need not.
QUOTING_CODES = frozenset({
    "clearance", "clearance_negated", "clearance_hedged", "clearance_repaired",
    "critical_term", "critical_negated", "critical_hedged", "draft_term",
    "ambiguous_abbreviation", "fuzzy_tie", "other_domain_term", "dangling_head",
    "dangling_outcome", "unknown_term",
})


#: the rank of each code's outcome, which ``decide`` weighs for every reason of every case
_CODE_RANK: Dict[str, int] = {code: RANK[outcome] for code, outcome in REASON_CODES.items()}
#: the outcome of a code the closed set does not hold
UNKNOWN_CODE_OUTCOME = BLOCK


def outcome_for(code: str) -> str:
    """The outcome a reason code implies; unknown codes block.

    code (str): A reason code.
    RETURNS (str): "proceed", "escalate" or "block".
    """
    return REASON_CODES.get(code, UNKNOWN_CODE_OUTCOME)


def strictest(outcomes) -> str:
    """The strictest of some outcomes (block > escalate > proceed).

    outcomes (Iterable[str]): Outcomes; anything unknown counts as block.
    RETURNS (str): The strictest, or "escalate" for an empty input, since
        proceed needs positive evidence.
    """
    ranked = [RANK.get(o, RANK[BLOCK]) for o in outcomes]
    if not ranked:
        return ESCALATE
    best = max(ranked)
    return OUTCOMES[best]


def text_sha256(text: str) -> str:
    """SHA-256 of a text; lone surrogates are kept rather than refused."""
    return hashlib.sha256(text.encode("utf8", "surrogatepass")).hexdigest()


def make_reason(code: str, message: str, *, term_id: Optional[str] = None,
                start_char: Optional[int] = None, end_char: Optional[int] = None, **extra) -> dict:
    """A reason dict in the decision format; the outcome comes from the code."""
    reason = {"code": code, "outcome": outcome_for(code), "message": message}
    if term_id:
        reason["term_id"] = term_id
    if start_char is not None and end_char is not None:
        reason["start_char"], reason["end_char"] = int(start_char), int(end_char)
    for key, value in extra.items():
        if value is not None:
            reason[key] = value
    return reason


def decide(reasons: List[dict]) -> str:
    """The decision for a list of reasons: strictest wins, proceed needs a clearance.

    The outcome is re-derived from each code (an unknown code blocks) rather
    than read from the reason, so a reason cannot argue for its own outcome.
    """
    if not reasons:
        return ESCALATE
    unknown = RANK[UNKNOWN_CODE_OUTCOME]
    return OUTCOMES[max([_CODE_RANK.get(r.get("code", ""), unknown) for r in reasons])]

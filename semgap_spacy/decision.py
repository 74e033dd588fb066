"""``semgap_decision``: turn everything the other pipes found into one decision.

The policy is spec §4: every finding becomes a reason with a code from the
closed set in ``codes.py``; the strictest outcome wins; ``proceed`` needs at
least one clearance and nothing stricter. Anything the pipes could not read
with confidence (a component error, a tie, an ambiguity, an unknown term id)
is a reason to escalate, so the component fails closed by construction.

Escalations that a person must resolve by choosing a meaning (a declared
ambiguous abbreviation, a fuzzy tie, a dangling head or outcome) carry
structured reviewer options; only the ambiguity with the greatest effect on the
outcome gets them, so the reviewer answers one question at a time.
"""
import hashlib
from functools import lru_cache
from typing import List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from ._extensions import AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME, TERMS_KEY, doc_key, doc_text, unpack_span_id
from .codes import BLOCK, ESCALATE, OUTCOMES, PROCEED, outcome_for
from .fields import (QuantityRow, TermRow, _Field, findings_from_rows, quantity_rows, row_field_mentions,
                     stored_span_value, term_rows)
from .pipe_base import SemgapPipe
from .provenance import verify_evidence  # noqa: F401  (moved; old imports keep working)

SCHEMA = "semgap/decision/v1"
# user_data keys of the doc values read and written here (all default to None,
# so ``user_data.get(key)`` is ``doc._.<name>``); one lookup each, no call.
(_DOMAIN, _CASE_ID, _TEXT_SHA256, _CASE_PROBLEMS, _COMPONENT_ERRORS, _REPAIRS, _READINGS_CHECKED,
 _DECISION) = (doc_key(name) for name in (
    "semgap_domain", "semgap_case_id", "semgap_text_sha256", "semgap_case_problems",
    "semgap_component_errors", "semgap_repairs", "semgap_readings_checked", "semgap_decision"))
_RANK = {PROCEED: 0, ESCALATE: 1, BLOCK: 2}
_SIGNAL_REASON = {
    # (signal, state) -> code
    ("critical_block", "asserted"): "critical_term",
    ("critical_block", "negated"): "critical_negated",
    ("critical_block", "hedged"): "critical_hedged",
    ("clear", "asserted"): "clearance",
    ("clear", "negated"): "clearance_negated",
    ("clear", "hedged"): "clearance_hedged",
    ("clear", "repaired"): "clearance_repaired",
}
# Signals that decide (or carry a value); another domain's such term suggests misrouting.
_DECIDING_SIGNALS = ("clear", "critical_block", "field")
# Codes that show the text or readings said something about a field.
_VALUE_CODES = {"reading_in_contract", "limit_exceeded", "below_minimum", "outside_band",
                "text_quantity_unconfirmed", "quantity_mismatch", "field_without_value",
                "ambiguous_unit", "unsupported_unit"}
_CLEARING = {"clearance", "reading_in_contract"}
# Escalations a reviewer resolves by choosing a meaning.
_OPTION_CODES = {"ambiguous_abbreviation", "dangling_head", "dangling_outcome", "fuzzy_tie"}
_STATE_MESSAGES = {
    "asserted": "{!r} asserts {}",
    "negated": "{!r} ({}) is negated",
    "hedged": "{!r} ({}) is hedged or conditional",
    "repaired": "{!r} matched {} only after spelling correction; a clearance must be exact",
}
FIXED_CHOICES = [
    {"choice": "other", "meaning": "other (free text)", "outcome": ESCALATE},
    {"choice": "leave_open", "meaning": "leave open", "outcome": ESCALATE},
    {"choice": "reject", "meaning": "reject", "outcome": BLOCK},
]


def text_sha256(text: str) -> str:
    """SHA-256 of a text; lone surrogates are kept rather than refused."""
    return hashlib.sha256(text.encode("utf8", "surrogatepass")).hexdigest()


def make_reason(code: str, message: str, *, term_id: Optional[str] = None,
                span: Optional[Span] = None, start_char: Optional[int] = None,
                end_char: Optional[int] = None, **extra) -> dict:
    """A reason dict in the decision format; the outcome comes from the code."""
    reason = {"code": code, "outcome": outcome_for(code), "message": message}
    if term_id:
        reason["term_id"] = term_id
    if span is not None:
        start_char, end_char = span.start_char, span.end_char
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
    worst = max([_RANK[outcome_for(r.get("code", ""))] for r in reasons])
    return OUTCOMES[worst]


def _reading_reason(reading: dict, where: Optional[tuple], text: str) -> dict:
    """A checked reading as a reason, pointing at its field's mention when the text has one."""
    span = {}
    if where is not None:
        span = {"start_char": where[0], "end_char": where[1], "evidence": text[where[0]:where[1]]}
    return make_reason(reading.get("code", "malformed_reading"), reading.get("message", "reading"),
                       term_id=reading.get("term_id"), field=reading.get("field"), **span)


def _nothing_clears(reasons: List[dict]) -> bool:
    """True when every reason proceeds and none is a clearance: the case lacks one."""
    for r in reasons:
        if r["outcome"] != PROCEED:
            return False
    for r in reasons:
        if r["code"] in _CLEARING:
            return False
    return True


@lru_cache(maxsize=4096)
def _term_facts(span_id: str) -> Tuple[str, str, str, str]:
    """(domain, signal, lang, status) packed in a term span's id_."""
    facts = unpack_span_id(span_id)
    return facts["domain"], facts["signal"], facts["lang"], facts["status"]


def _quoted_reason(code: str, message: str, term_id: Optional[str], start_char: int, end_char: int,
                   quote: str, extra_key: Optional[str] = None, extra=None) -> dict:
    """A reason about a term span, quoting the text it covers."""
    more = {extra_key: extra} if extra_key else {}
    return make_reason(code, message, term_id=term_id, start_char=start_char, end_char=end_char,
                       evidence=quote, **more)


def _state(start: int, end: int, user_data: dict, repairs) -> str:
    """How the text holds a term: negated, hedged, repaired or plainly asserted.

    Reads the context pipe's flags by the span's offsets (as ``span_get`` does)
    and ``_extensions.span_repaired``'s rule on the doc's repairs.
    """
    # span extensions are keyed ("._.", name, start_char, end_char); both default to False
    if user_data.get(("._.", "semgap_negated", start, end)):
        return "negated"
    if user_data.get(("._.", "semgap_hedged", start, end)):
        return "hedged"
    if repairs and any(r["repaired"] is not None and start <= r["start_char"] < end for r in repairs):
        return "repaired"
    return "asserted"


def _tie_reasons(repairs) -> List[dict]:
    """A fuzzy tie that typo repair refused to resolve, per repair record."""
    out = []
    for record in repairs:
        tied = record.get("candidates")
        if tied:
            out.append(make_reason("fuzzy_tie", f"{record['original']!r} is as close to {', '.join(tied)}; "
                                   "spelling was not corrected", start_char=record["start_char"],
                                   end_char=record["end_char"], candidates=list(tied),
                                   evidence=record["original"]))
    return out


def _field_places(fields: List[_Field], quantities: List[QuantityRow]) -> dict:
    """field -> (start_char, end_char) of its first mention, widened to a tied quantity."""
    places = {}
    for mention in fields:
        places.setdefault(mention.field, (mention.start_char, mention.end_char))
    if places:
        for q_start, q_end, field, _, _ in quantities:
            if field in places:
                start, end = places[field]
                places[field] = (min(start, q_start), max(end, q_end))
    return places


class Decision(SemgapPipe):
    """Apply the decision policy and write ``doc._.semgap_decision``."""

    def __init__(self, nlp: Language, name: str = "semgap_decision", *, enabled: bool = True,
                 spans_key: str = TERMS_KEY):
        self.spans_key = spans_key
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(spans_key=spans_key)

    def __call__(self, doc: Doc) -> Doc:
        # Even "disabled", a decision must exist: a pipeline without one would
        # look like a silent pass. Disabled means "no evidence is read".
        try:
            return self.process(doc) if self.enabled else self._write(doc, [make_reason(
                "no_recognised_term", "the decision component is disabled; nothing was read")])
        except Exception as exc:
            return self._write(doc, [make_reason("component_error", f"{self.name}: {type(exc).__name__}: {exc}"[:500])])

    def process(self, doc: Doc) -> Doc:
        return self._write(doc, self.reasons(doc))

    # -- policy ------------------------------------------------------------
    def reasons(self, doc: Doc) -> List[dict]:
        """Every reason for a doc, strictest first, then in text order.

        Each span group is read once into plain rows (a Span costs a few µs to
        build); the term reasons, the field places and the quantity findings
        are all derived from those rows.
        """
        get = doc.user_data.get
        domain = get(_DOMAIN)
        reasons: List[dict] = list(get(_CASE_PROBLEMS) or [])
        for err in get(_COMPONENT_ERRORS) or []:
            reasons.append(make_reason("component_error", f"{err['component']} failed: {err['error']}"))
        known_domain = domain in self.glossary.domains
        if domain is not None and not known_domain and not any(r["code"] == "unknown_domain" for r in reasons):
            reasons.append(make_reason("unknown_domain", f"unknown domain {domain!r}"))
        if domain is None and not any(r["code"] == "invalid_case" for r in reasons):
            reasons.append(make_reason("unknown_domain", "no domain given for the case"))
        rows = term_rows(doc, self.spans_key)
        text = doc_text(doc) if rows else ""
        recognised = False
        if known_domain:
            repairs = get(_REPAIRS) or ()
            term_reasons = self._term_reasons(rows, domain, text, doc.user_data, repairs)
            recognised = bool(term_reasons)
            reasons.extend(term_reasons)
            if repairs:
                reasons.extend(_tie_reasons(repairs))
            checked = get(_READINGS_CHECKED)
            readings = checked or []
            fields = row_field_mentions(rows, self.glossary, domain)
            # the quantity findings read the default term group, whatever this pipe's spans_key
            finding_fields = fields if self.spans_key == TERMS_KEY else row_field_mentions(
                term_rows(doc, TERMS_KEY), self.glossary, domain)
            quantities = quantity_rows(doc) if fields or finding_fields else []
            places = _field_places(fields, quantities) if readings else {}
            for reading in readings:
                reasons.append(_reading_reason(reading, places.get(reading.get("field")), text))
                recognised = recognised or reading.get("code") in _VALUE_CODES
            if finding_fields:
                for finding in findings_from_rows(finding_fields, quantities, checked, doc_text(doc)):
                    reasons.append(finding)
                    recognised = recognised or finding.get("code") in _VALUE_CODES
        self._attach_options(reasons, domain)
        if known_domain and not recognised:
            reasons.append(make_reason("no_recognised_term", "no recognised term and no valid reading"))
        elif _nothing_clears(reasons):
            reasons.append(make_reason("no_clearance", "nothing in the text or readings clears the action"))
        # a stable sort keeps equal reasons in the order they were found
        if len(reasons) > 1:
            reasons.sort(key=lambda r: (-_RANK.get(r["outcome"], 2), r.get("start_char", 10**9)))
        return reasons

    def _term_reasons(self, rows: List[TermRow], domain: str, text: str, user_data: dict,
                      repairs) -> List[dict]:
        """One reason per term span that says something, in span order."""
        out = []
        own_offsets = None
        for start, end, start_char, end_char, label, span_id in rows:
            term_domain, signal, lang, status = _term_facts(span_id)
            quote = text[start_char:end_char]
            if term_domain != domain:
                if signal not in _DECIDING_SIGNALS:
                    continue
                if own_offsets is None:  # only a foreign term needs them
                    own_offsets = {(r[0], r[1]) for r in rows if _term_facts(r[5])[0] == domain
                                   and _term_facts(r[5])[1] in _DECIDING_SIGNALS}
                if (start, end) not in own_offsets:
                    out.append(_quoted_reason(
                        "other_domain_term", f"{quote!r} is a term of {term_domain}, not {domain}; "
                        "routing may be wrong", label, start_char, end_char, quote, "domain", term_domain))
                continue
            reason = self._own_term_reason(signal, lang, status, label, start_char, end_char, quote,
                                           user_data, repairs)
            if reason is not None:
                out.append(reason)
        return out

    def _own_term_reason(self, signal: str, lang: str, status: str, label: str, start_char: int,
                         end_char: int, quote: str, user_data: dict, repairs) -> Optional[dict]:
        """The reason for a term span of the case's own domain, None for a field."""
        if signal == AMBIGUOUS:
            return _quoted_reason("ambiguous_abbreviation", f"{quote!r} is a declared ambiguous abbreviation",
                                  None, start_char, end_char, quote, "abbreviation", label.split(":", 1)[-1])
        if signal == DANGLING_HEAD:
            return _quoted_reason("dangling_head", f"{quote!r} is named without an outcome", None,
                                  start_char, end_char, quote, "frame", label.split(":", 1)[-1])
        if signal == DANGLING_OUTCOME:
            return _quoted_reason("dangling_outcome", f"{quote!r} is an outcome without a head", None,
                                  start_char, end_char, quote, "frame", label.split(":", 1)[-1])
        term_id = label
        if self.glossary.term(term_id) is None:
            return _quoted_reason("unknown_term", f"term id {term_id!r} is not in the glossary", None,
                                  start_char, end_char, quote)
        if status == "draft":
            return _quoted_reason("draft_term", f"{quote!r} ({lang}) is a draft term or translation; "
                                  "a draft can neither clear nor block", term_id, start_char, end_char, quote)
        if signal == "field":
            return None  # fields are judged with their values (quantity findings)
        state = _state(start_char, end_char, user_data, repairs)
        if signal == "critical_block" and state == "repaired":
            state = "asserted"  # a misspelt critical still blocks
        cue = (stored_span_value(user_data, "semgap_negation_cue", start_char, end_char) if state == "negated"
               else stored_span_value(user_data, "semgap_hedge_cue", start_char, end_char) if state == "hedged"
               else None)
        return _quoted_reason(_SIGNAL_REASON[(signal, state)], _STATE_MESSAGES[state].format(quote, term_id),
                              term_id, start_char, end_char, quote, "cue", list(cue) if cue else None)

    # -- reviewer options ----------------------------------------------------
    def _attach_options(self, reasons: List[dict], domain: Optional[str]) -> None:
        """Give the ambiguity with the greatest effect on the outcome its options."""
        if _OPTION_CODES.isdisjoint([r["code"] for r in reasons]):
            return  # the usual case: nothing to choose
        candidates = []
        for i, reason in enumerate(reasons):
            if reason["code"] not in _OPTION_CODES:
                continue
            options = self._options(reason, reasons, domain)
            if options:
                ranks = [_RANK.get(o["outcome"], 2) for o in options]
                candidates.append((max(ranks) - min(ranks), -i, i, options))
        if not candidates:
            return
        candidates.sort(reverse=True)
        _, _, index, options = candidates[0]
        reasons[index]["options"] = options + [dict(c) for c in FIXED_CHOICES]
        for _, _, i, _ in candidates[1:]:
            reasons[i]["deferred"] = True

    def _options(self, reason: dict, reasons: List[dict], domain: Optional[str]) -> List[dict]:
        code = reason["code"]
        dom = self.glossary.domains.get(domain or "")
        if dom is None:
            return []
        meanings: List[tuple] = []  # (meaning, term id or None)
        if code == "ambiguous_abbreviation":
            for amb in dom.ambiguous:
                if amb.abbreviation.casefold() == reason.get("abbreviation", "").casefold():
                    meanings = [(m.meaning, m.term) for m in amb.meanings]
        elif code in ("dangling_head", "dangling_outcome"):
            for frame in dom.frames:
                if frame.id == reason.get("frame"):
                    if code == "dangling_head":
                        meanings = [(f"{frame.heads[0]} {values[0]}", tid) for tid, values in frame.values.items()]
                    else:
                        meanings = [(f"{frame.heads[0]} {v}", tid) for tid, values in frame.values.items()
                                    for v in values[:1]]
        elif code == "fuzzy_tie":
            for word in reason.get("candidates", []):
                ids = [t.id for t in dom.terms if any(word in p.casefold().split() for p, *_ in t.variants())]
                meanings.append((word, ids[0] if ids else None))
        if not meanings:
            return []
        rest = [r for r in reasons if r is not reason]
        evidence = {k: reason[k] for k in ("start_char", "end_char") if k in reason}
        options = []
        for meaning, term_id in meanings:
            added = []
            if term_id:
                term = self.glossary.term(term_id)[1]
                code_for = {"critical_block": "critical_term", "clear": "clearance"}.get(term.signal)
                if code_for:
                    added.append({"code": code_for, "outcome": outcome_for(code_for)})
            pool = rest + added
            outcome = decide(pool) if pool else ESCALATE
            options.append({"meaning": meaning, "term_id": term_id, "outcome": outcome, "evidence": evidence})
        worst = max(_RANK[o["outcome"]] for o in options)
        for o in options:
            o["risk"] = ("high: a stricter reading exists and would be overridden"
                         if _RANK[o["outcome"]] < worst else "low: the strictest reading")
        return options

    # -- output ----------------------------------------------------------------
    def _write(self, doc: Doc, reasons: List[dict]) -> Doc:
        user_data = doc.user_data
        user_data[_DECISION] = {
            "schema": SCHEMA,
            "id": user_data.get(_CASE_ID),
            "decision": decide(reasons),
            "reasons": reasons,
            "glossary_version": self.glossary.version_of(user_data.get(_DOMAIN)),
            "glossary_sha256": self.glossary.sha256,
            "text_sha256": user_data.get(_TEXT_SHA256) or text_sha256(doc_text(doc)),
        }
        return doc


@Language.factory(
    "semgap_decision",
    default_config={"enabled": True, "spans_key": TERMS_KEY},
    assigns=["doc._.semgap_decision"],
)
def make_decision(nlp: Language, name: str, enabled: bool, spans_key: str) -> Decision:
    """Build the decision component.

    enabled (bool): Off still writes a decision (escalate: nothing read). Defaults to True.
    spans_key (str): Span group holding the term spans. Defaults to "semgap_terms".
    RETURNS (Decision): The component.
    """
    return Decision(nlp, name, enabled=enabled, spans_key=spans_key)

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
from typing import List, Optional

from spacy.language import Language
from spacy.tokens import Doc, Span

from ._extensions import (AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME, QUANTITIES_KEY, TERMS_KEY, doc_get,
                          doc_set, doc_text, span_get, span_repaired, unpack_span_id)
from .codes import BLOCK, ESCALATE, OUTCOMES, PROCEED, outcome_for
from .pipe_base import SemgapPipe

SCHEMA = "semgap/decision/v1"
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
    reason.update({k: v for k, v in extra.items() if v is not None})
    return reason


def verify_evidence(decision: dict, text: str) -> List[str]:
    """Check that a decision still belongs to a text, span by span.

    A reviewer UI highlights ``text[start_char:end_char]``; this says whether
    that is safe: the text hash must match and every reason's span must hold
    the evidence it quotes.
    decision (dict): A decision in the format of spec §5.
    text (str): The text to show.
    RETURNS (List[str]): Problems found; empty when everything matches.
    """
    problems = []
    if not isinstance(text, str):
        return [f"text must be a string, not {type(text).__name__}"]
    expected = decision.get("text_sha256")
    if expected and expected != text_sha256(text):
        problems.append("text_sha256 does not match the text")
    for i, reason in enumerate(decision.get("reasons") or []):
        if "start_char" not in reason:
            continue
        start, end = reason.get("start_char"), reason.get("end_char")
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(text)):
            problems.append(f"reason {i} ({reason.get('code')}): span {start}..{end} is outside the text")
        elif "evidence" in reason and text[start:end] != reason["evidence"]:
            problems.append(f"reason {i} ({reason.get('code')}): text[{start}:{end}] is "
                            f"{text[start:end]!r}, not {reason['evidence']!r}")
    return problems


def decide(reasons: List[dict]) -> str:
    """The decision for a list of reasons: strictest wins, proceed needs a clearance.

    The outcome is re-derived from each code (an unknown code blocks) rather
    than read from the reason, so a reason cannot argue for its own outcome.
    """
    if not reasons:
        return ESCALATE
    worst = max(_RANK[outcome_for(r.get("code", ""))] for r in reasons)
    return OUTCOMES[worst]


def _reading_reason(reading: dict, where: Optional[tuple], text: str) -> dict:
    """A checked reading as a reason, pointing at its field's mention when the text has one."""
    span = {}
    if where is not None:
        span = {"start_char": where[0], "end_char": where[1], "evidence": text[where[0]:where[1]]}
    return make_reason(reading.get("code", "malformed_reading"), reading.get("message", "reading"),
                       term_id=reading.get("term_id"), field=reading.get("field"), **span)


def _state(span: Span) -> str:
    if span_get(span, "semgap_negated"):
        return "negated"
    if span_get(span, "semgap_hedged"):
        return "hedged"
    if span_repaired(span):
        return "repaired"
    return "asserted"


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
        """Every reason for a doc, strictest first, then in text order."""
        domain = doc_get(doc, "semgap_domain")
        reasons: List[dict] = list(doc_get(doc, "semgap_case_problems") or [])
        for err in doc_get(doc, "semgap_component_errors") or []:
            reasons.append(make_reason("component_error", f"{err['component']} failed: {err['error']}"))
        known_domain = domain in self.glossary.domains
        if domain is not None and not known_domain and not any(r["code"] == "unknown_domain" for r in reasons):
            reasons.append(make_reason("unknown_domain", f"unknown domain {domain!r}"))
        if domain is None and not any(r["code"] == "invalid_case" for r in reasons):
            reasons.append(make_reason("unknown_domain", "no domain given for the case"))
        spans = list(doc.spans[self.spans_key]) if self.spans_key in doc.spans else []
        text = doc_text(doc) if spans else ""
        recognised = False
        if known_domain:
            own_offsets = {(s.start, s.end) for s in spans if unpack_span_id(s.id_)["domain"] == domain
                           and unpack_span_id(s.id_)["signal"] in ("clear", "critical_block", "field")}
            for span in spans:
                reason = self._span_reason(span, domain, own_offsets, text)
                if reason is not None:
                    recognised = True
                    reasons.append(reason)
            reasons.extend(self._tie_reasons(doc))
            readings = doc_get(doc, "semgap_readings_checked") or []
            places = self._field_places(doc) if readings and spans else {}
            for reading in readings:
                reasons.append(_reading_reason(reading, places.get(reading.get("field")), text))
                recognised = recognised or reading.get("code") in _VALUE_CODES
            for finding in self._quantity_reasons(doc):
                reasons.append(finding)
                recognised = recognised or finding.get("code") in _VALUE_CODES
        self._attach_options(reasons, domain)
        if known_domain and not recognised:
            reasons.append(make_reason("no_recognised_term", "no recognised term and no valid reading"))
        elif not any(r["outcome"] != PROCEED for r in reasons) and not any(r["code"] in _CLEARING for r in reasons):
            reasons.append(make_reason("no_clearance", "nothing in the text or readings clears the action"))
        order = sorted(range(len(reasons)), key=lambda i: (-_RANK.get(reasons[i]["outcome"], 2),
                                                           reasons[i].get("start_char", 10**9), i))
        return [reasons[i] for i in order]

    def _span_reason(self, span: Span, domain: str, own_offsets, text: str) -> Optional[dict]:
        facts = unpack_span_id(span.id_)
        signal, term_id = facts["signal"], span.label_
        quote = text[span.start_char:span.end_char]
        where = {"span": span, "evidence": quote}
        if facts["domain"] != domain:
            if signal in ("clear", "critical_block", "field") and (span.start, span.end) not in own_offsets:
                return make_reason("other_domain_term",
                                   f"{quote!r} is a term of {facts['domain']}, not {domain}; routing may be wrong",
                                   term_id=term_id, **where, domain=facts["domain"])
            return None
        if signal == AMBIGUOUS:
            return make_reason("ambiguous_abbreviation", f"{quote!r} is a declared ambiguous abbreviation",
                               term_id=None, **where, abbreviation=span.label_.split(":", 1)[-1])
        if signal == DANGLING_HEAD:
            return make_reason("dangling_head", f"{quote!r} is named without an outcome", **where,
                               frame=span.label_.split(":", 1)[-1])
        if signal == DANGLING_OUTCOME:
            return make_reason("dangling_outcome", f"{quote!r} is an outcome without a head", **where,
                               frame=span.label_.split(":", 1)[-1])
        found = self.glossary.term(term_id)
        if found is None:
            return make_reason("unknown_term", f"term id {term_id!r} is not in the glossary", **where)
        if facts["status"] == "draft":
            lang = facts["lang"]
            return make_reason("draft_term", f"{quote!r} ({lang}) is a draft term or translation; "
                               "a draft can neither clear nor block", term_id=term_id, **where)
        if signal == "field":
            return None  # fields are judged with their values (quantity findings)
        state = _state(span)
        if signal == "critical_block" and state == "repaired":
            state = "asserted"  # a misspelt critical still blocks
        code = _SIGNAL_REASON[(signal, state)]
        cue = (span_get(span, "semgap_negation_cue") if state == "negated"
               else span_get(span, "semgap_hedge_cue") if state == "hedged" else None)
        return make_reason(code, _STATE_MESSAGES[state].format(quote, term_id), term_id=term_id, **where,
                           cue=list(cue) if cue else None)

    def _tie_reasons(self, doc: Doc) -> List[dict]:
        out = []
        for record in doc_get(doc, "semgap_repairs") or ():
            tied = record.get("candidates")
            if tied:
                out.append(make_reason("fuzzy_tie", f"{record['original']!r} is as close to {', '.join(tied)}; "
                                       "spelling was not corrected", start_char=record["start_char"],
                                       end_char=record["end_char"], candidates=list(tied),
                                       evidence=record["original"]))
        return out

    def _field_places(self, doc: Doc) -> dict:
        """field -> (start_char, end_char) of its first mention, widened to a tied quantity."""
        from .fields import field_mentions

        places = {}
        for mention in field_mentions(doc, self.glossary, self.spans_key, own_domain_only=True):
            places.setdefault(mention.field, (mention.start_char, mention.end_char))
        if places and QUANTITIES_KEY in doc.spans:
            for q in doc.spans[QUANTITIES_KEY]:
                field = span_get(q, "semgap_linked_field")
                if field in places:
                    start, end = places[field]
                    places[field] = (min(start, q.start_char), max(end, q.end_char))
        return places

    def _quantity_reasons(self, doc: Doc) -> List[dict]:
        from .fields import quantity_findings

        return list(quantity_findings(doc, self.glossary))

    # -- reviewer options ----------------------------------------------------
    def _attach_options(self, reasons: List[dict], domain: Optional[str]) -> None:
        """Give the ambiguity with the greatest effect on the outcome its options."""
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
            outcome = decide(rest + added) if (rest + added) else ESCALATE
            options.append({"meaning": meaning, "term_id": term_id, "outcome": outcome, "evidence": evidence})
        worst = max(_RANK[o["outcome"]] for o in options)
        for o in options:
            o["risk"] = ("high: a stricter reading exists and would be overridden"
                         if _RANK[o["outcome"]] < worst else "low: the strictest reading")
        return options

    # -- output ----------------------------------------------------------------
    def _write(self, doc: Doc, reasons: List[dict]) -> Doc:
        doc_set(doc, "semgap_decision", {
            "schema": SCHEMA,
            "id": doc_get(doc, "semgap_case_id"),
            "decision": decide(reasons),
            "reasons": reasons,
            "glossary_version": self.glossary.version_of(doc_get(doc, "semgap_domain")),
            "glossary_sha256": self.glossary.sha256,
            "text_sha256": doc_get(doc, "semgap_text_sha256") or text_sha256(doc_text(doc)),
        })
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

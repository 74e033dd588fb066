"""The decision policy of spec §4, on plain data.

Every finding becomes a reason with a code from the closed set in
``reasons``; the strictest outcome wins; ``proceed`` needs at least one
clearance and nothing stricter. Anything the pipes could not read with
confidence (a component error, a tie, an ambiguity, an unknown term id) is a
reason to escalate, so the policy fails closed by construction.

Escalations that a person must resolve by choosing a meaning (a declared
ambiguous abbreviation, a fuzzy tie, a dangling head or outcome) carry
structured reviewer options; only the ambiguity with the greatest effect on the
outcome gets them, so the reviewer answers one question at a time.
"""
from operator import itemgetter
from typing import Dict, List, Mapping, NamedTuple, Optional, Tuple

from ..glossary.models import GlossarySet
from ..lang import agreement_endings, languages
from .coverage import stop_words
from .coverage_reasons import CoverageReasons
from .findings import (AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME, FieldMention, FieldWords, QuantityRow, TermRow,
                       bare_number_findings, contract_kinds, field_mentions, quantity_findings,
                       timestamp_findings, untied_quantity_findings)
from .cases import UNREAD_CODES
from .decision_record import Deferred, freeze_findings, stand_ins as coverage_stand_ins
from .own_forms import OwnForms
from .reasons import (BLOCK, CLEARING_CODES, ESCALATE, PROCEED, RANK as _RANK, UNREADABLE_CASE, decide, make_reason,
                      outcome_for)
from .textview import STACKED, STRUCK


class Mark(NamedTuple):
    """What the context step said of a term span."""

    negated: bool = False
    hedged: bool = False
    negation_cue: Optional[list] = None
    hedge_cue: Optional[list] = None


NO_MARK = Mark()


class CaseFindings(NamedTuple):
    """Everything the pipes found for one case, as plain values."""

    domain: Optional[str]
    text: str
    terms: List[TermRow]
    #: (start_char, end_char) of a term span -> its ``Mark`` (anything with ``get``)
    marks: Mapping[Tuple[int, int], Mark]
    quantities: List[QuantityRow]
    case_problems: Optional[list] = None
    component_errors: Optional[list] = None
    repairs: Optional[list] = None
    readings_checked: Optional[list] = None
    #: tokens whose letters mix scripts (start_char, end_char, evidence, characters)
    suspicious: Optional[list] = None
    #: spec §4.1 findings of ``semgap_coverage`` (None: coverage did not run)
    coverage: Optional[list] = None
    #: what the run record says (``core.pipeline.check_runs``): a pipe that did not fully read the text
    pipeline_problems: Optional[list] = None


_SIGNAL_REASON = {
    # (signal, state) -> code
    ("critical_block", "asserted"): "critical_term",
    ("critical_block", "negated"): "critical_negated",
    ("critical_block", "hedged"): "critical_hedged",
    ("clear", "asserted"): "clearance",
    ("clear", "negated"): "clearance_negated",
    ("clear", "hedged"): "clearance_hedged",
    ("clear", "repaired"): "clearance_repaired",
    ("clear", "inflected"): "clearance_inflected",
}
# Codes that show the text or readings said something about a field.
_VALUE_CODES = {"reading_in_contract", "limit_exceeded", "below_minimum", "outside_band",
                "text_quantity_unconfirmed", "quantity_mismatch", "field_without_value",
                "ambiguous_unit", "unsupported_unit"}
_CLEARING = CLEARING_CODES
# Escalations a reviewer resolves by choosing a meaning.
_OPTION_CODES = {"ambiguous_abbreviation", "dangling_head", "dangling_outcome", "fuzzy_tie"}
_STATE_MESSAGES = {
    "asserted": "{!r} asserts {}",
    "negated": "{!r} ({}) is negated",
    "hedged": "{!r} ({}) is hedged or conditional",
    "repaired": "{!r} matched {} only after spelling correction; a clearance must be exact",
    "inflected": "{!r} matched {} only in another form of its words (a plan, a request or a step under way "
                 "is no clearance); a clearance must be stated in one of its own forms",
}
FIXED_CHOICES = [
    {"choice": "other", "meaning": "other (free text)", "outcome": ESCALATE},
    {"choice": "leave_open", "meaning": "leave open", "outcome": ESCALATE},
    {"choice": "reject", "meaning": "reject", "outcome": BLOCK},
]


def _reading_reason(reading: dict, where: Optional[tuple], text: str) -> dict:
    """A checked reading as a reason, pointing at its field's mention when the text has one.
    A valid reading's value (in its contract's unit) goes with it, as a text quantity's does:
    the record then says what was checked, and the drift monitor reads it."""
    span = {}
    if where is not None:
        span = {"start_char": where[0], "end_char": where[1], "evidence": text[where[0]:where[1]]}
    if reading.get("value") is not None:
        span.update(value=reading["value"], unit=reading.get("unit"))
    return make_reason(reading.get("code", "malformed_reading"), reading.get("message", "reading"),
                       term_id=reading.get("term_id"), field=reading.get("field"), **span)


def _reason_order(reason: dict) -> tuple:
    """Where a reason goes: strictest outcome first, then by where it starts in the text."""
    return -_RANK.get(reason["outcome"], 2), reason.get("start_char", 10**9)


def _nothing_clears(reasons: List[dict]) -> bool:
    """True when every reason proceeds and none is a clearance: the case lacks one."""
    for r in reasons:
        if r["outcome"] != PROCEED:
            return False
    for r in reasons:
        if r["code"] in _CLEARING:
            return False
    return True


def _quoted_reason(code: str, message: str, term_id: Optional[str], start_char: int, end_char: int,
                   quote: str, extra_key: Optional[str] = None, extra=None, outcome: Optional[str] = None) -> dict:
    """A reason about a term span, quoting the text it covers (``make_reason``'s format, written
    out: a term span always has its offsets and its quote). ``outcome``: the code's, when known."""
    reason = {"code": code, "outcome": outcome or outcome_for(code), "message": message}
    if term_id:
        reason["term_id"] = term_id
    reason["start_char"], reason["end_char"], reason["evidence"] = int(start_char), int(end_char), quote
    if extra_key and extra is not None:
        reason[extra_key] = extra
    return reason


#: A term reason as far as the glossary fixes it: (code, outcome, what the message says after
#: the quote). The quote, the offsets and the cue are the text's.
TermTemplate = Tuple[str, str, str]


def _term_templates(glossary: GlossarySet) -> Dict[Tuple[str, str, str], TermTemplate]:
    """(term id, signal, state) -> ``TermTemplate``, for every term of the glossary, each signal
    that clears or blocks and each state (``_STATE_MESSAGES``): made when the glossary loads, so
    a term reason is the quote put in front of a tail written once."""
    out = {}
    for _, term in glossary.terms():
        for (signal, state), code in _SIGNAL_REASON.items():
            tail = _STATE_MESSAGES[state][len("{!r}"):].format(term.id)
            out[(term.id, signal, state)] = (code, outcome_for(code), tail)
    return out


def _state(start: int, end: int, mark: Mark, repairs) -> str:
    """How the text holds a term: negated, hedged, repaired (a typo-repaired token inside) or asserted."""
    if mark.negated:
        return "negated"
    if mark.hedged:
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


def _suspicious_reasons(records) -> List[dict]:
    """One ``suspicious_characters`` reason per word that mixes scripts (spec §4.1).

    The word was matched on its Latin look-alike skeleton, so the case may
    read as clear; a person must still see that "A<Cyrillic о>G" is not what
    it looks like, so it escalates, naming each character.
    """
    out = []
    for record in records:
        chars = record.get("characters") or []
        named = ", ".join(f"{c['code_point']} {c['name']}" for c in chars)
        scripts = {c.get("script") for c in chars}
        what = ("is struck through" if scripts == {STRUCK}
                else "carries marks piled on a letter" if scripts == {STACKED}
                else "is struck through or marked over" if scripts <= {STRUCK, STACKED} else "mixes scripts")
        out.append(make_reason("suspicious_characters", f"{record['evidence']!r} {what}: {named}",
                               start_char=record["start_char"], end_char=record["end_char"],
                               evidence=record["evidence"], characters=[dict(c) for c in chars]))
    return out


def _field_places(fields: List[FieldMention], quantities: List[QuantityRow]) -> dict:
    """field -> (start_char, end_char) of its first mention, widened to a tied quantity."""
    places = {}
    for mention in fields:
        places.setdefault(mention.field, (mention.start_char, mention.end_char))
    if places:
        for q_start, q_end, field, *_ in quantities:
            if field in places:
                start, end = places[field]
                places[field] = (min(start, q_start), max(end, q_end))
    return places


#: ``untied_quantities`` settings: every quantity that no field claims escalates (the default),
#: only one of a kind a contract of the domain governs, or only one of the kind of a field the
#: text names
UNTIED_ANY, UNTIED_CONTRACT_KINDS, UNTIED_NAMED = "any", "contract_kinds", "named_fields"
UNTIED_SETTINGS = (UNTIED_ANY, UNTIED_CONTRACT_KINDS, UNTIED_NAMED)


def component_error_reasons(errors: Optional[list]) -> List[dict]:
    """A ``component_error`` reason for each failure a pipe recorded (``doc._.semgap_component_errors``);
    an entry that is no such record still gives one."""
    return [make_reason("component_error", f"{err.get('component')} failed: {err.get('error')}"
                        if isinstance(err, dict) else f"a pipe failed: {err!r}"[:500])
            for err in errors or ()]


class Policy:
    """The decision policy for one glossary set.

    glossary (GlossarySet): The glossary set.
    untied_quantities (str): One of ``UNTIED_SETTINGS`` (``semgap_decision``'s switch).
    """

    def __init__(self, glossary: GlossarySet, untied_quantities: str = UNTIED_ANY):
        self.glossary = glossary
        self.untied_quantities = untied_quantities
        # what a clause with unexplained words may be taught to mean depends on the glossary alone
        self._coverage_reasons: Dict[str, CoverageReasons] = {
            name: CoverageReasons(name, tuple(t.id for t in dom.terms if t.status == "approved"))
            for name, dom in glossary.domains.items()}
        # and so does the wording of a reason about a term, up to the quote
        self._term_templates = _term_templates(glossary)
        self._term_ids = frozenset(term.id for _, term in glossary.terms())
        # a clearance counts only in one of its own forms (``core.own_forms``)
        self._own_forms = OwnForms(glossary, agreement_endings())
        # a quantity of a kind the domain's contracts govern must be tied to one of their fields
        self._contract_kinds = contract_kinds(glossary)
        # a field named by part of its phrase still makes a bare number or a time in the text suspect
        self._field_words = FieldWords(glossary, stop_words(languages()))

    def reasons(self, case: CaseFindings) -> List[dict]:
        """Every reason for a case, strictest first, then in text order.

        case (CaseFindings): What the pipes found.
        RETURNS (List[dict]): The reasons, in the decision format.
        """
        return self._decide(case, defer=False)[0]

    def draft(self, case: CaseFindings) -> Tuple[List[dict], Optional[Deferred]]:
        """The reasons of ``reasons``, with the coverage reasons left to be written on reading
        (``decision_record``): stand-ins hold their places, so the order and the outcome are final.

        case (CaseFindings): What the pipes found.
        RETURNS (Tuple[List[dict], Optional[Deferred]]): The reasons, and what their stand-ins
            stand for (None: nothing is deferred; the reasons are complete).
        """
        return self._decide(case, defer=True)

    def _decide(self, case: CaseFindings, defer: bool) -> Tuple[List[dict], Optional[Deferred]]:
        domain = case.domain
        stand_ins: List[dict] = []
        frozen = None
        reasons: List[dict] = list(case.case_problems or [])
        reasons.extend(case.pipeline_problems or ())
        # a text refused unread (too long) has no evidence to judge, not "no recognised term"
        read = not reasons or not any(r.get("code") in UNREAD_CODES for r in reasons)
        reasons.extend(component_error_reasons(case.component_errors))
        if case.suspicious:
            reasons.extend(_suspicious_reasons(case.suspicious))
        known_domain = domain in self.glossary.domains
        if domain is not None and not known_domain and not any(r["code"] == "unknown_domain" for r in reasons):
            reasons.append(make_reason("unknown_domain", f"unknown domain {domain!r}"))
        if domain is None and not any(r["code"] in UNREADABLE_CASE for r in reasons):
            reasons.append(make_reason("unknown_domain", "no domain given for the case"))
        rows, text = case.terms, case.text
        recognised = False
        if known_domain and read:
            repairs = case.repairs or ()
            term_reasons = self._term_reasons(rows, domain, text, case.marks, repairs)
            recognised = bool(term_reasons)
            reasons.extend(term_reasons)
            if repairs:
                reasons.extend(_tie_reasons(repairs))
            checked = case.readings_checked
            readings = checked or []
            fields = field_mentions(rows, self.glossary, domain)
            quantities = case.quantities
            places = _field_places(fields, quantities) if readings else {}
            for reading in readings:
                reasons.append(_reading_reason(reading, places.get(reading.get("field")), text))
                recognised = recognised or reading.get("code") in _VALUE_CODES
            found = quantity_findings(fields, quantities, checked, text) if fields else []
            for finding in found:
                reasons.append(finding)
                recognised = recognised or finding.get("code") in _VALUE_CODES
            # the fields the text names: by a mention, or by a word of one of their phrases
            named, number_words = self._field_words.read(domain, text, fields)
            if quantities:
                kinds = self._contract_kinds.get(domain, {})
                if self.untied_quantities == UNTIED_NAMED:
                    said = {m.field for m in named}
                    kinds = {kind: tuple(f for f in of_kind if f in said) for kind, of_kind in kinds.items()}
                reasons.extend(untied_quantity_findings(quantities, kinds, text,
                                                        every_kind=self.untied_quantities == UNTIED_ANY))
            reasons.extend(bare_number_findings(named, rows, quantities, text, found, number_words))
            reasons.extend(timestamp_findings(named, rows, quantities, text))
            if case.coverage:
                frozen = freeze_findings(case.coverage) if defer else None
                if frozen is None:
                    reasons.extend(self._coverage_reasons[domain].reasons(case.coverage, text))
                else:
                    stand_ins = coverage_stand_ins(frozen)
                    reasons.extend(stand_ins)
        self._attach_options(reasons, domain)
        if known_domain and read and not recognised:
            reasons.append(make_reason("no_recognised_term", "no recognised term and no valid reading"))
        elif _nothing_clears(reasons):
            reasons.append(make_reason("no_clearance", "nothing in the text or readings clears the action"))
        # a stable sort keeps equal reasons in the order they were found
        if len(reasons) > 1:
            reasons.sort(key=_reason_order)
        if not stand_ins:
            return reasons, None
        index = {id(r): i for i, r in enumerate(stand_ins)}
        slots = tuple([(position, index[id(r)]) for position, r in enumerate(reasons) if id(r) in index])
        coverage = self._coverage_reasons[domain]
        return reasons, (coverage.domain, coverage.term_ids, frozen, slots)

    def _term_reasons(self, rows: List[TermRow], domain: str, text: str, marks: Dict[Tuple[int, int], Mark],
                      repairs) -> List[dict]:
        """One reason per term span that says something, in span order. Any span of another
        domain that no span of this one covers escalates as possible misrouting: an outcome word,
        a head or an ambiguous abbreviation of another domain's glossary ("Batch released; assay
        positive", "Clear to close; OOS") is no word of this domain, and no other rule reads it."""
        out = []
        own_offsets = None
        for start, end, start_char, end_char, label, facts in rows:
            term_domain, signal, lang, status = facts.domain, facts.signal, facts.lang, facts.status
            quote = text[start_char:end_char]
            if term_domain != domain:
                if own_offsets is None:  # only a foreign term needs them
                    own_offsets = {(r.start, r.end) for r in rows if r.facts.domain == domain}
                if (start, end) not in own_offsets:
                    out.append(_quoted_reason(
                        "other_domain_term", f"{quote!r} is a term of {term_domain}, not {domain}; "
                        "routing may be wrong", label, start_char, end_char, quote, "domain", term_domain))
                continue
            reason = self._own_term_reason(signal, lang, status, label, start_char, end_char, quote,
                                           marks, repairs, facts.kind)
            if reason is not None:
                out.append(reason)
        return out

    def _own_term_reason(self, signal: str, lang: str, status: str, label: str, start_char: int,
                         end_char: int, quote: str, marks: Dict[Tuple[int, int], Mark],
                         repairs, kind: str = "phrase") -> Optional[dict]:
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
        if term_id not in self._term_ids:
            return _quoted_reason("unknown_term", f"term id {term_id!r} is not in the glossary", None,
                                  start_char, end_char, quote)
        if status == "draft":
            return _quoted_reason("draft_term", f"{quote!r} ({lang}) is a draft term or translation; "
                                  "a draft can neither clear nor block", term_id, start_char, end_char, quote)
        if signal == "field":
            return None  # fields are judged with their values (quantity findings)
        mark = marks.get((start_char, end_char), NO_MARK)
        state = _state(start_char, end_char, mark, repairs)
        if signal == "critical_block" and state == "repaired":
            state = "asserted"  # a misspelt critical still blocks
        elif (signal == "clear" and state == "asserted" and kind != "frame"
              and not self._own_forms.holds(term_id, quote)):
            state = "inflected"  # "Batch release tomorrow" is no "Batch released"
        cue = mark.negation_cue if state == "negated" else mark.hedge_cue if state == "hedged" else None
        template = self._term_templates.get((term_id, signal, state))
        if template is None:  # a span made elsewhere, with a signal no glossary term reasons with
            return _quoted_reason(_SIGNAL_REASON[(signal, state)], _STATE_MESSAGES[state].format(quote, term_id),
                                  term_id, start_char, end_char, quote, "cue", list(cue) if cue else None)
        code, outcome, tail = template
        return _quoted_reason(code, repr(quote) + tail, term_id, start_char, end_char, quote, "cue",
                              list(cue) if cue else None, outcome=outcome)

    # -- reviewer options ----------------------------------------------------
    def _attach_options(self, reasons: List[dict], domain: Optional[str]) -> None:
        """Give the ambiguity with the greatest effect on the outcome its options."""
        if _OPTION_CODES.isdisjoint(map(itemgetter("code"), reasons)):
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

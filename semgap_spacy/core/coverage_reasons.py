"""The reasons of the coverage findings (spec §4.1), and what a reviewer may teach of them (§4.2).

``core.coverage`` finds what no rule explains and writes it as rows of plain
values; the decision turns each row into a reason here (its code one of the
closed table of ``core.reasons``) when the decision JSON is first read
(``core.decision_record``), so a decision nobody reads never builds them.
"""
from typing import Iterable, List, Optional, Sequence

from ..glossary.drafts import MEANS_TERM, NAME, NEUTRAL, SCOPES, TEACHING_CHOICES
from .context import closes_question
from .hearsay import HEARSAY
from .identifiers import CONFLICTING_IDENTIFIERS
from .partial import PARTIAL_COUNT
from .questions import QUESTION_WORD_ORDER
from .reasons import make_reason
from .textview import read_word
from .time_conditions import TIME_CONDITION

_MESSAGES = {
    "unexplained_content": "words that no rule explains: {}; a clearance vouches only for its own words",
    "unattached_negation": "negation {} reaches no term: something is said not to be so, and nothing tells what",
    "unattached_hedge": "hedge {} reaches no term: the text is conditional",
    CONFLICTING_IDENTIFIERS: "{} name different things of one form: the text does not say which one it "
                             "clears",
    QUESTION_WORD_ORDER: "{} asks, by its word order, whether it holds: a question is no clearance",
    HEARSAY: "{}: the text reports what a party without that authority says; a clearance comes from "
             "the one who gives it",
    PARTIAL_COUNT: "{} is a part of a count: the clearance, or what it rests on, may cover part of it only",
    TIME_CONDITION: "{} ties what the text states to a time other than now: it may hold from a later time, "
                    "be still to come or have held before",
    # a question whose sentence holds no term
    ("unattached_hedge", "question"): "question {} asks about no term: the text leaves something open",
}


def coverage_reasons(rows: Iterable[dict], text: str, domain: Optional[str] = None,
                     term_ids: Sequence[str] = ()) -> List[dict]:
    """The reasons of the coverage findings a component left on a doc (spec §4.1).

    An ``unexplained_content`` reason also carries what a reviewer needs to
    teach the glossary (spec §4.2): the case's ``domain``, the character
    span of every unexplained word (``word_spans``) and the reviewer
    ``options`` of the clause (``teaching_options``). Every option leaves
    the case escalated: a choice writes drafts at most, and drafts decide nothing.

    rows (Iterable[dict]): Findings as stored (``code``, ``start_char``, ``end_char``, ``words``,
        ``word_spans``).
    text (str): The doc's text, for the evidence.
    domain (Optional[str]): The case's domain, where the reviewer's drafts would go.
    term_ids (Sequence[str]): The domain's terms a clause may be taught to mean.
    RETURNS (List[dict]): Reasons in the decision format; every code escalates.
    """
    return CoverageReasons(domain, term_ids).reasons(rows, text)


class CoverageReasons:
    """``coverage_reasons`` for one domain. The terms a clause may be taught to mean
    depend on the glossary alone, so the decision makes one per domain when its
    glossary loads; the options themselves are made anew for each doc, so no two
    decisions share a list.

    domain (Optional[str]): The case's domain, where the reviewer's drafts would go.
    term_ids (Sequence[str]): The domain's terms a clause may be taught to mean.
    """

    __slots__ = ("domain", "term_ids")

    def __init__(self, domain: Optional[str], term_ids: Sequence[str] = ()):
        self.domain = domain
        self.term_ids = tuple(term_ids)

    def reasons(self, rows: Iterable[dict], text: str) -> List[dict]:
        """The reasons of one doc's findings, in the order of the rows (see ``coverage_reasons``)."""
        return self.written([(row["code"], row["start_char"], row["end_char"], row.get("words") or [],
                              row.get("word_spans") or ()) for row in rows], text)

    def written(self, findings: Iterable[tuple], text: str) -> List[dict]:
        """``reasons`` of findings given as (code, start_char, end_char, words, word_spans) tuples,
        as a decision record keeps them (``decision_record.freeze_findings``): the record's JSON
        is written from them without a dict made per finding only to be read here."""
        out = []
        options = None
        for code, start, end, words, spans in findings:
            message = _MESSAGES[(code, "question") if code == "unattached_hedge" and _asks(words) else code]
            reason = make_reason(code, message.format(", ".join(map(repr, words))),
                                 start_char=start, end_char=end, evidence=text[start:end])
            if code in (CONFLICTING_IDENTIFIERS, QUESTION_WORD_ORDER, HEARSAY, PARTIAL_COUNT):  # not taught away
                reason["words"] = list(words)
                reason["word_spans"] = [list(s) for s in spans]
            elif code == "unexplained_content":
                # one set per doc: its first clause takes it, a later one gets its own dicts,
                # which share the set's lists as before
                if options is None:
                    clause_options = options = teaching_options(self.term_ids)
                else:
                    clause_options = [dict(o) for o in options]
                reason["words"] = list(words)
                reason["word_spans"] = [list(s) for s in spans]
                if self.domain is not None:
                    reason["domain"] = self.domain
                reason["options"] = clause_options
            out.append(reason)
        return out


def _asks(words: Sequence[str]) -> bool:
    """Whether the quoted cue is a question mark, as ``semgap_context`` reads one."""
    return bool(words) and all(closes_question(read_word(w)) for w in words)


def teaching_options(term_ids: Sequence[str]) -> List[dict]:
    """The reviewer options of a clause with unexplained words (spec §4.2), in the spec's order.

    term_ids (Sequence[str]): The terms *means_term* may name.
    RETURNS (List[dict]): One dict per choice: ``choice``, ``meaning``, what it
        ``drafts`` (None for *problem*), and ``outcome`` (escalate: the case
        stays escalated whatever the reviewer chooses); *neutral* and *name*
        also list their ``scopes``, the domain's (the default) first.
    """
    out = []
    for choice, meaning, drafts in TEACHING_CHOICES:
        option = {"choice": choice, "meaning": meaning, "drafts": drafts, "outcome": "escalate"}
        if choice in (NEUTRAL, NAME):
            option["scopes"] = list(SCOPES)
        if choice == MEANS_TERM:
            option["term_ids"] = list(term_ids)
        out.append(option)
    return out

"""``semgap_quantities``: quantities in the text, tied to fields, and readings.

Three jobs, each behind its own switch so they can be ablated:

1. ``text_quantities``: find quantities ("30 hours", "30h", "25,5 h",
   "46.4 °F", "38 pct", "PT30H") in the canonical view of ``doc.text``
   (spec §4.1, mapped back to the original characters), tie each one to the nearest
   field mention of a matching kind in its clause, and write them as spans to
   ``doc.spans["semgap_quantities"]`` (label = the quantity kind) with
   ``span._.semgap_magnitude`` / ``semgap_unit`` / ``semgap_quantity_kind`` /
   ``semgap_linked_field`` / ``semgap_linked_term`` /
   ``semgap_quantity_problem``.
2. ``readings``: validate ``doc._.semgap_readings`` into
   ``doc._.semgap_readings_checked`` (see ``core.readings``).
3. ``core.findings.quantity_findings``, for the decision component: the
   reason-like findings the two give together.

Finding quantities works on characters with precompiled regexes, because the
tokenizers of en/es/fr/de split "2°C", "38%", "25,5" and "hours—but"
differently; spans are then aligned to tokens with
``doc.char_span(..., alignment_mode="expand")``. Pint is touched only when a
quantity needs a real conversion (never for "h" into an "h" contract).
"""
from typing import List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from .extensions import QUANTITIES_KEY, TERMS_KEY, doc_get, doc_set, doc_text, set_span_values, term_rows
from ..core.findings import FieldMention, contract_index, field_mentions
from ..glossary.models import GlossarySet
from .base import SemgapPipe
from ..core.readings import check_readings
from ..core.clauses import clause_rule
from ..core.quantities import (QUANTITY_BOUND, QUANTITY_UNSPLIT, TextQuantity, bound_words, find_quantities,
                               in_operation, is_bound)
from ..core.textview import reads_as_itself, read_text
from ..core import units
from ..core.units import AMBIGUOUS, OK, UNSUPPORTED, canonical_unit, convert, tidy, unit_table

def _sentence_starts(doc: Doc) -> List[int]:
    """Sentence start offsets set by a sentencizer or parser, if any."""
    if not doc.has_annotation("SENT_START"):
        return []
    return [sent.start_char for sent in doc.sents if sent.start_char > 0]


def _sentence_starts_in(doc: Doc, start: int, end: int, first: int, last: int,
                        sents: List[Optional[List[int]]]) -> bool:
    """Whether one of ``_sentence_starts(doc)`` lies in (start, end].

    The caller knows that only tokens ``first``..``last`` can start inside
    that range, so it reads those tokens rather than scanning the whole doc:
    without a "sents" hook, ``doc.sents`` starts a sentence at exactly the tokens i >= 1
    that are marked as sentence starts, and there are none when SENT_START
    is not annotated.
    ``sents`` holds ``_sentence_starts(doc)`` once a hook made it needed.
    """
    if "sents" in doc.user_hooks:
        if sents[0] is None:
            sents[0] = _sentence_starts(doc)
        return any(start < s <= end for s in sents[0])
    for i in range(max(first, 1), last + 1):
        token = doc[i]
        if token.is_sent_start and start < token.idx <= end:
            return True
    return False


def _read_quantities(text: str) -> List[TextQuantity]:
    """The quantities of the text a person reads (spec §4.1), at offsets of the original.

    The regexes run on the canonical view ("30\u00a0h", "3\u200b0 hours" and
    full-width digits read as a person reads them), and every range is mapped
    back with ``TextView.original_range``.
    """
    if reads_as_itself(text):
        return find_quantities(text)
    view = read_text(text)
    out = []
    for q in find_quantities(view.text):
        start, end = view.original_range(q.start, q.end)
        extent = view.original_range(*q.extent)
        out.append(q._replace(start=start, end=end, extent=extent))
    return out


# -- the component -------------------------------------------------------------


_PROBLEM_CODES = {AMBIGUOUS: "ambiguous_unit", UNSUPPORTED: "unsupported_unit"}


def _in_unit(value: float, unit: str, target: str) -> Tuple[float, str]:
    """(magnitude, canonical unit) of a text quantity in its field's contract unit."""
    converted = convert(value, unit, target)
    if converted != value:
        converted = tidy(converted)
    return converted, canonical_unit(target)


def warm_up(nlp: Language) -> None:
    """Build the Pint registry now if ``nlp`` has this pipe, rather than on its first number.

    For a process about to fork workers (``workers.py``, the Dask fork server): built
    before the fork, it is built once and every worker starts with it, instead of each
    worker spending a quarter of a second on its own copy.
    """
    if Quantities.FACTORY in nlp.pipe_factories.values():
        units.get_registry()


class Quantities(SemgapPipe):
    """Find quantities in the text, tie them to fields, and check readings."""

    FACTORY = "semgap_quantities"

    def __init__(self, nlp: Language, name: str = "semgap_quantities", *, enabled: bool = True,
                 text_quantities: bool = True, readings: bool = True,
                 spans_key: str = TERMS_KEY, quantities_key: str = QUANTITIES_KEY,
                 max_distance: Optional[int] = None, glossary: Optional[GlossarySet] = None):
        super().__init__(nlp, name, enabled=enabled, glossary=glossary)
        self.text_quantities = text_quantities
        self.readings = readings
        self.spans_key = spans_key
        self.quantities_key = quantities_key
        self.max_distance = max_distance
        self.cfg.update(text_quantities=text_quantities, readings=readings, spans_key=spans_key,
                        quantities_key=quantities_key, max_distance=max_distance)
        unit_table()  # load the alias data and the break words now, not on the first doc
        self._clauses = clause_rule()
        self.build()

    def _rebuild(self) -> None:
        self._contracts = contract_index(self.glossary)

    # -- per doc -------------------------------------------------------------
    def process(self, doc: Doc) -> Doc:
        if self.text_quantities:
            # a SpanGroup given ready skips the proxy's own conversion
            key = self.quantities_key
            doc.spans[key] = SpanGroup(doc, name=key, spans=self._quantity_spans(doc))
        if self.readings:
            readings = doc_get(doc, "semgap_readings")
            doc_set(doc, "semgap_readings_checked", () if readings is None else tuple(check_readings(
                readings, doc_get(doc, "semgap_domain"), self.glossary, doc_get(doc, "semgap_now"))))
        return doc

    def _quantity_spans(self, doc: Doc) -> List[Span]:
        """The quantity spans of a doc, with their span extensions written.

        The term span group is only read (one Span per item) once the text
        has a quantity, and each extension value is stored directly under the
        key ``span_set`` would use.
        """
        text = doc_text(doc)
        found = _read_quantities(text)
        if not found:
            return []
        fields = field_mentions(term_rows(doc, self.spans_key), self.glossary, doc_get(doc, "semgap_domain"),
                                own_domain_only=False)
        sents: List[Optional[List[int]]] = [None]  # for _sentence_starts_in
        spans, seen = [], set()
        for q in found:
            span = doc.char_span(q.start, q.end, label=q.kind, alignment_mode="expand")
            if span is None:
                continue
            start_char, end_char = span.start_char, span.end_char
            # span extensions are keyed by offsets: two quantities in one token ("6h/30h",
            # "6h→30h") would share their values, so the first keeps its span and says that
            # the token holds another, which nothing checks
            if (start_char, end_char) in seen:
                set_span_values(doc, start_char, end_char, {"semgap_quantity_problem": QUANTITY_UNSPLIT})
                continue
            seen.add((start_char, end_char))
            linked = None
            if fields:
                linked = self._nearest(doc, text, span.start, span.end, q, fields, sents)
            value, unit = q.value, q.unit
            if linked is not None and q.status == OK:
                value, unit = _in_unit(q.value, q.unit, linked.contract.unit)
            problem = _PROBLEM_CODES.get(q.status) or (
                QUANTITY_BOUND if is_bound(text, q.start, q.end, bound_words())
                else QUANTITY_UNSPLIT if in_operation(text, q.start, q.end) else None)
            set_span_values(doc, start_char, end_char, {
                "semgap_magnitude": value, "semgap_unit": unit, "semgap_quantity_kind": q.kind,
                "semgap_quantity_problem": problem,
                "semgap_linked_field": linked.field if linked is not None else None,
                "semgap_linked_term": linked.term_id if linked is not None else None})
            spans.append(span)
        return spans

    def _nearest(self, doc: Doc, text: str, q_start: int, q_end: int, q: TextQuantity,
                 fields: List[FieldMention], sents: List[Optional[List[int]]]) -> Optional[FieldMention]:
        """The nearest field of the quantity's kind in its clause, or None.

        q_start, q_end are the quantity span's token offsets. Distance is in
        tokens between the two spans; on a tie the field before the quantity
        wins ("CIT 30 h" is the usual order).
        """
        best, best_key = None, None
        kind = q.kind
        for f in fields:
            if f.contract.kind != kind:
                continue
            f_start, f_end = f.start, f.end
            # gap: the characters between the two; tokens: the only tokens
            # that can start inside it (the first token after the left span
            # up to the first token of the right one)
            if f_end <= q_start:
                key = (q_start - f_end, 0, f_start)
                gap, tokens = (f.end_char, q.extent[0]), (f_end, q_start)
            elif q_end <= f_start:
                key = (f_start - q_end, 1, f_start)
                gap, tokens = (q.extent[1], f.start_char), (q_end, f_start)
            else:
                key, gap, tokens = (0, 0, f_start), None, None
            if ((self.max_distance is not None and key[0] > self.max_distance)
                    or (best_key is not None and key >= best_key)):
                continue
            if gap is not None and gap[0] < gap[1]:
                if self._clauses.break_between(text, gap[0], gap[1]):
                    continue
                if _sentence_starts_in(doc, gap[0], gap[1], tokens[0], tokens[1], sents):
                    continue
            best, best_key = f, key
        return best



@Language.factory(
    "semgap_quantities",
    default_config={"enabled": True, "text_quantities": True, "readings": True,
                    "spans_key": TERMS_KEY, "quantities_key": QUANTITIES_KEY, "max_distance": None},
    requires=["span._.semgap_term_id"],
    assigns=["doc.spans", "doc._.semgap_readings_checked", "doc._.semgap_pipeline", "span._.semgap_magnitude",
             "span._.semgap_unit", "span._.semgap_quantity_kind", "span._.semgap_linked_field",
             "span._.semgap_linked_term", "span._.semgap_quantity_problem"],
)
def make_quantities(nlp: Language, name: str, enabled: bool, text_quantities: bool, readings: bool,
                    spans_key: str, quantities_key: str, max_distance: Optional[int]) -> Quantities:
    """Build the quantity component.

    enabled (bool): Off leaves the doc untouched. Defaults to True.
    text_quantities (bool): Find quantities in the text and tie them to fields. Defaults to True.
    readings (bool): Validate ``doc._.semgap_readings``. Defaults to True.
    spans_key (str): Span group with the term spans. Defaults to "semgap_terms".
    quantities_key (str): Span group the quantities are written to. Defaults to "semgap_quantities".
    max_distance (Optional[int]): Most tokens between a quantity and its field; None (the
        spec's rule: the nearest field mention in its clause, however far) is the only value the
        decision counts as a full read, because a quantity left untied can let a reading clear
        what the text contradicts. Defaults to None.
    RETURNS (Quantities): The component.
    """
    return Quantities(nlp, name, enabled=enabled, text_quantities=text_quantities,
                          readings=readings, spans_key=spans_key, quantities_key=quantities_key,
                          max_distance=max_distance)

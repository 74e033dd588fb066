"""``semgap_decision``: turn everything the other pipes found into one decision.

The pipe reads the span groups and extension values once into plain rows
(``core.policy.CaseFindings``), applies the policy of ``core.policy`` (spec
§4) and writes the decision JSON (spec §5) to ``doc._.semgap_decision``.
"""
from typing import Dict, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..core.policy import CaseFindings, Mark, Policy
from ..core.provenance import verify_evidence  # noqa: F401  (its old home; the check lives in core)
from ..core.reasons import SCHEMA, decide, make_reason, text_sha256
from .base import SemgapPipe
from .extensions import TERMS_KEY, doc_key, doc_text, quantity_rows, span_values, term_rows

# user_data keys of the doc values read and written here (all default to None,
# so ``user_data.get(key)`` is ``doc._.<name>``).
(_DOMAIN, _CASE_ID, _TEXT_SHA256, _CASE_PROBLEMS, _COMPONENT_ERRORS, _REPAIRS, _READINGS_CHECKED,
 _DECISION, _SUSPICIOUS, _COVERAGE) = (doc_key(name) for name in (
    "semgap_domain", "semgap_case_id", "semgap_text_sha256", "semgap_case_problems",
    "semgap_component_errors", "semgap_repairs", "semgap_readings_checked", "semgap_decision",
    "semgap_suspicious", "semgap_coverage"))
_MARK_NAMES = ("semgap_negated", "semgap_hedged", "semgap_negation_cue", "semgap_hedge_cue")


def _provenance(coverage: Optional[dict]) -> dict:
    """What the coverage step ran with, for every decision: whether it ran, and which name
    sources could explain a word (``ner`` and ``titlecase`` widen what may proceed)."""
    if not coverage:
        return {"enabled": False, "name_sources": []}
    return {"enabled": True, "name_sources": list(coverage.get("name_sources") or [])}


class Decision(SemgapPipe):
    """Apply the decision policy and write ``doc._.semgap_decision``."""

    def __init__(self, nlp: Language, name: str = "semgap_decision", *, enabled: bool = True,
                 spans_key: str = TERMS_KEY):
        self.spans_key = spans_key
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(spans_key=spans_key)
        self._rebuild()

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

    def _rebuild(self) -> None:
        self.policy = Policy(self.glossary)

    def reasons(self, doc: Doc) -> List[dict]:
        """Every reason for a doc, strictest first, then in text order."""
        return self.policy.reasons(self.findings(doc))

    def findings(self, doc: Doc) -> CaseFindings:
        """What the pipes left on the doc, read once into plain rows."""
        get = doc.user_data.get
        rows = term_rows(doc, self.spans_key)
        marks: Dict[Tuple[int, int], Mark] = {}
        for row in rows:
            key = (row.start_char, row.end_char)
            if key not in marks:
                marks[key] = Mark(*span_values(doc, _MARK_NAMES, *key))
        # quantities matter only next to a field mention
        fields = any(row.facts.signal == "field" for row in rows) or self.spans_key != TERMS_KEY
        return CaseFindings(
            domain=get(_DOMAIN), text=doc_text(doc), terms=rows, marks=marks,
            quantities=quantity_rows(doc) if fields else [],
            case_problems=get(_CASE_PROBLEMS), component_errors=get(_COMPONENT_ERRORS), repairs=get(_REPAIRS),
            readings_checked=get(_READINGS_CHECKED), suspicious=get(_SUSPICIOUS),
            coverage=(get(_COVERAGE) or {}).get("findings"),
            # the quantity findings read the default term group, whatever this pipe's spans_key
            finding_terms=None if self.spans_key == TERMS_KEY else term_rows(doc, TERMS_KEY))

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
            "coverage": _provenance(user_data.get(_COVERAGE)),
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

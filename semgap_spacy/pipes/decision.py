"""``semgap_decision``: turn everything the other pipes found into one decision.

The pipe reads the span groups and extension values once into plain rows
(``core.policy.CaseFindings``), applies the policy of ``core.policy`` (spec
§4) and keeps the decision as a record of plain values
(``core.decision_record``); ``doc._.semgap_decision`` writes the decision
JSON (spec §5) from it when it is first read, so a doc nobody asks for its
decision never holds the JSON's lists and dicts.

Before deciding it checks the run record (``core.pipeline``): a pipe the
policy needs that did not fully read the text makes the decision escalate
``pipeline_incomplete``, unless ``ablation = true`` says so on purpose, and
then every decision carries an ``ablation`` field saying what was off.

Every decision names the language packs it was read with (``"language_packs"``):
the registry's (``lang.pack_identities``), except that a language whose negation
and hedge cues, as the pipeline's enabled ``semgap_context`` reads them, are not
its pack's is named by those cues (``Context.packs_read``). The context pipe is
looked up once per stream (``pipe``) or once per doc given to ``__call__``.
"""
from typing import Callable, Iterable, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..core.pipeline import DISABLED, FAILED, PIPELINE_INCOMPLETE, RAN, RunCheck, check_runs, contract
from ..core.policy import NO_MARK, UNTIED_ANY, UNTIED_SETTINGS, CaseFindings, Mark, Policy, component_error_reasons
from ..core.provenance import verify_evidence  # noqa: F401  (its old home; the check lives in core)
from ..core.decision_record import Deferred, make_record
from ..core.run_entries import is_entry
from ..core.reasons import ESCALATE, SCHEMA, decide, make_reason, text_sha256
from ..core.cases import MAX_TEXT_CHARS, merge_problems, text_too_long
from ..lang import pack_identities
from .base import LOOK_UP, SemgapPipe, case_unread, running_pipes
from .doc_rows import text_length
from .context import Context
from .extensions import (QUANTITIES_KEY, TERMS_KEY, doc_key, doc_text, kept_entries, quantity_rows, record_run,
                         run_record, set_decision, span_values, store_decision_record, term_rows)

# user_data keys of the doc values read and written here (all default to None,
# so ``user_data.get(key)`` is ``doc._.<name>``).
(_DOMAIN, _CASE_ID, _TEXT_SHA256, _CASE_PROBLEMS, _COMPONENT_ERRORS, _REPAIRS, _READINGS_CHECKED,
 _SUSPICIOUS, _COVERAGE, _DEFAULT_DOMAIN) = (doc_key(name) for name in (
    "semgap_domain", "semgap_case_id", "semgap_text_sha256", "semgap_case_problems",
    "semgap_component_errors", "semgap_repairs", "semgap_readings_checked",
    "semgap_suspicious", "semgap_coverage", "semgap_default_domain"))
_STATE_NAMES = ("semgap_negated", "semgap_hedged")
_CUE_NAMES = ("semgap_negation_cue", "semgap_hedge_cue")


class _SpanMarks:
    """What the context step left on each term span, read when the policy asks for a span's
    ``Mark`` (only a term that clears or blocks needs one) rather than for every span up front."""

    __slots__ = ("doc",)

    def __init__(self, doc: Doc):
        self.doc = doc

    def get(self, key: Tuple[int, int], default: Optional[Mark] = None) -> Mark:
        negated, hedged = span_values(self.doc, _STATE_NAMES, key[0], key[1])
        if not (negated or hedged):
            return NO_MARK  # an asserted term: its cues are never read
        return Mark(negated, hedged, *span_values(self.doc, _CUE_NAMES, key[0], key[1]))


class Decision(SemgapPipe):
    """Apply the decision policy and write ``doc._.semgap_decision``."""

    FACTORY = "semgap_decision"

    def __init__(self, nlp: Language, name: str = "semgap_decision", *, enabled: bool = True,
                 spans_key: str = TERMS_KEY, quantities_key: str = QUANTITIES_KEY, ablation: bool = False,
                 default_domain: Optional[str] = None, untied_quantities: str = UNTIED_ANY):
        if default_domain is not None and not isinstance(default_domain, str):
            raise ValueError(f"default_domain must be a domain name or null, not {type(default_domain).__name__}")
        if untied_quantities not in UNTIED_SETTINGS:
            raise ValueError(f"untied_quantities must be one of {', '.join(map(repr, UNTIED_SETTINGS))}, "
                             f"not {untied_quantities!r}")
        self.spans_key, self.quantities_key = spans_key, quantities_key
        self.ablation = bool(ablation)
        self.default_domain = default_domain
        self.untied_quantities = untied_quantities
        # a looser reading than the default, recorded in every decision it could have widened
        self._widened = None if untied_quantities == UNTIED_ANY else {"untied_quantities": untied_quantities}
        super().__init__(nlp, name, enabled=enabled)
        self.cfg.update(spans_key=spans_key, quantities_key=quantities_key, ablation=self.ablation,
                        default_domain=default_domain, untied_quantities=untied_quantities)
        self.build()

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        default = packs_read = LOOK_UP
        for doc in stream:
            if packs_read is LOOK_UP:  # the pipeline does not change within a stream
                default, packs_read = self.pipeline_default_domain(), self._packs_reader()
            yield self.run(doc, default, packs_read)

    def run(self, doc: Doc, default_domain=LOOK_UP, packs_read=LOOK_UP) -> Doc:
        """Decide one doc and append this pipe's entry to the run record.

        default_domain: The pipeline's default domain, or ``LOOK_UP`` to find it now.
        packs_read: ``_packs_reader()`` of the pipeline (what names the language packs the
            decision is read with, ``"language_packs"``), or ``LOOK_UP`` to find it now.
        """
        # Even "disabled", a decision must exist: a pipeline without one would
        # look like a silent pass. Disabled means "no evidence is read".
        status = RAN
        try:
            self.start_run(doc, default_domain)
            self._hold_to_the_limit(doc)
            if packs_read is LOOK_UP:
                packs_read = self._packs_reader()
            packs = packs_read()
            if self.enabled:
                self.follow_packs()
                self.process(doc, packs)
            else:
                status = DISABLED
                self._write_disabled(doc, packs)
        except Exception as exc:
            status = FAILED
            self._write_failure(doc, exc, packs_read)
        record_run(doc, self.run_entry(status))
        return doc

    def _packs_reader(self) -> Callable[[], Tuple[Tuple[str, str], ...]]:
        """What gives the language packs a decision of this pipeline is read with
        (``"language_packs"``), a function of no arguments: the ``packs_read`` of the pipeline's
        ``semgap_context`` when it runs one (``nlp.pipeline``: one left out by ``select_pipes`` or
        ``disable_pipe`` is not run), else ``lang.pack_identities``. Looked up once per stream
        (``pipe``) or per doc given to ``__call__``."""
        for _, proc in running_pipes(self.nlp):
            if isinstance(proc, Context):
                return proc.packs_read
        return pack_identities

    @staticmethod
    def _hold_to_the_limit(doc: Doc) -> None:
        """A text over the case limit escalates ``text_too_long`` (spec §5) also when the pipes
        before read it in a pipeline without this one, which reads a text of any length
        (``SemgapPipe._judged_length``), and this pipe was run on the doc afterwards."""
        length = text_length(doc)
        if length > MAX_TEXT_CHARS and not case_unread(doc):
            data = doc.user_data
            data[_CASE_PROBLEMS] = tuple(merge_problems(data.get(_CASE_PROBLEMS), [text_too_long(length)]))

    def process(self, doc: Doc, packs: Optional[Tuple[Tuple[str, str], ...]] = None) -> Doc:
        """Decide the doc. packs: the language packs it is read with (``_packs_reader()()``); None:
        worked out now, from the pipeline's context pipe."""
        if packs is None:
            packs = self._packs_reader()()
        check = self._check(doc)
        reasons, deferred = self.policy.draft(self.findings(doc, check.reasons))
        return self._write(doc, reasons, packs, check.ablation, deferred)

    def _check(self, doc: Doc) -> RunCheck:
        """``check_runs`` of a doc's run record. A pipeline whose pipes all read in full
        leaves the same entries on every doc (``core.run_entries``), so entries equal to the
        last clean ones have the same answer; any other record is checked in full."""
        entries = kept_entries(doc)
        memo = self._clean_entries
        keys = (self.ablation, self.spans_key, self.quantities_key)
        if memo is not None and entries is not None and memo[0] == keys and entries == memo[1]:
            return RunCheck([], None)
        check = self._check_runs(doc)
        if (not check.reasons and check.ablation is None and type(entries) is tuple
                and all(type(e) is tuple and is_entry(e) for e in entries)):
            self._clean_entries = (keys, entries)
        return check

    def _check_runs(self, doc: Doc) -> RunCheck:
        return check_runs(run_record(doc), ablation=self.ablation, spans_key=self.spans_key,
                          quantities_key=self.quantities_key)

    def _write_disabled(self, doc: Doc, packs: Tuple[Tuple[str, str], ...]) -> None:
        check = self._check_runs(doc)
        if self.ablation:
            check.ablation["disabled"].append(self.name)
            reasons = [make_reason("no_recognised_term", "the decision component is disabled; nothing was read")]
        else:
            reasons = [make_reason(PIPELINE_INCOMPLETE, f"{self.name} is disabled; nothing was read",
                                   pipes=[self.name], expected_order=list(contract().order))]
        self._write(doc, reasons, packs, check.ablation)

    def _write_failure(self, doc: Doc, exc: BaseException, packs_read=LOOK_UP) -> None:
        reason = make_reason("component_error", f"{self.name}: {type(exc).__name__}: {exc}"[:500])
        try:  # the packs as the pipes read them; None (written null: not known) when they cannot be told
            packs = (self._packs_reader() if packs_read is LOOK_UP else packs_read)()
        except Exception:
            packs = None
        try:
            # what earlier pipes recorded may say why (a retokenized doc): it comes first
            self._write(doc, component_error_reasons(doc.user_data.get(_COMPONENT_ERRORS)) + [reason], packs)
        except Exception:  # even the write failed (a value no one expected): the bare decision
            set_decision(doc, {"schema": SCHEMA, "id": None, "decision": ESCALATE, "reasons": [reason],
                               "glossary_version": self.glossary.version,
                               "glossary_sha256": self.glossary.sha256, "text_sha256": None,
                               "language_packs": None if packs is None else dict(packs)})

    def _rebuild(self) -> None:
        self._check_glossary(self.glossary)
        self.policy = Policy(self.glossary, untied_quantities=self.untied_quantities)
        self._clean_entries = None

    def _check_glossary(self, glossary) -> None:
        """Refuse a ``default_domain`` the glossary does not have, when the pipe is built from it.

        Accepted, it would make every doc that names no domain escalate ``unknown_domain``:
        a typo in the config ("mortage") would look like a pipeline that decides nothing,
        found only from its decisions. RAISES (ValueError): Naming the known domains.
        """
        if self.default_domain is None or self.default_domain in glossary.domains:
            return
        raise ValueError(f"{self.name}: default_domain {self.default_domain!r} is not a domain of glossary "
                         f"{glossary.version}; known domains: {', '.join(glossary.domains)}")

    def reasons(self, doc: Doc) -> List[dict]:
        """Every reason for a doc, strictest first, then in text order."""
        return self.policy.reasons(self.findings(doc))

    def findings(self, doc: Doc, pipeline_problems: Optional[List[dict]] = None) -> CaseFindings:
        """What the pipes left on the doc, read once into plain rows."""
        get = doc.user_data.get
        rows = term_rows(doc, self.spans_key)
        coverage = get(_COVERAGE)
        # the groups are the decision's own, which ``check_runs`` holds every pipe to
        return CaseFindings(
            domain=get(_DOMAIN), text=doc_text(doc), terms=rows, marks=_SpanMarks(doc),
            quantities=quantity_rows(doc, self.quantities_key),
            case_problems=get(_CASE_PROBLEMS), component_errors=get(_COMPONENT_ERRORS), repairs=get(_REPAIRS),
            readings_checked=get(_READINGS_CHECKED), suspicious=get(_SUSPICIOUS),
            coverage=coverage.get("findings") if coverage else None, pipeline_problems=pipeline_problems)

    # -- output ----------------------------------------------------------------
    def _write(self, doc: Doc, reasons: List[dict], packs: Optional[Tuple[Tuple[str, str], ...]],
               ablation: Optional[dict] = None, deferred: Optional[Deferred] = None) -> Doc:
        """Keep the decision's record on the doc. Besides the reasons it says what the coverage
        step ran with (whether it ran, and which name sources could explain a word: ``ner`` and
        ``titlecase`` widen what may proceed), what set or widened the reading (a default
        domain, an ablation) and the language packs the pipes read (``packs``, from
        ``_packs_reader``: every pack registered now, each ``"bundled"`` or its files' hash, and a
        language whose cues the context pipe reads are not its pack's named by those cues,
        ``lang.cue_set_identity``; worked out once per set of packs and cues, not per doc; None:
        not known, written null)."""
        user_data = doc.user_data
        domain = user_data.get(_DOMAIN)
        coverage = user_data.get(_COVERAGE)
        store_decision_record(doc, make_record(
            user_data.get(_CASE_ID), decide(reasons), reasons, deferred,
            self.glossary.version_of(domain if isinstance(domain, str) else None), self.glossary.sha256,
            user_data.get(_TEXT_SHA256) or text_sha256(doc_text(doc)),
            tuple(coverage.get("name_sources") or []) if coverage else None,
            user_data.get(_DEFAULT_DOMAIN), ablation, self._widened, packs))
        return doc


@Language.factory(
    "semgap_decision",
    default_config={"enabled": True, "spans_key": TERMS_KEY, "quantities_key": QUANTITIES_KEY, "ablation": False,
                    "default_domain": None, "untied_quantities": UNTIED_ANY},
    # one attribute per pipe the decision needs (data/pipeline.json), so that
    # ``nlp.analyze_pipes()`` names a missing one
    requires=[r.signature for r in contract().required],
    assigns=["doc._.semgap_decision", "doc._.semgap_pipeline"],
)
def make_decision(nlp: Language, name: str, enabled: bool, spans_key: str, ablation: bool,
                  default_domain: Optional[str], untied_quantities: str = UNTIED_ANY,
                  quantities_key: str = QUANTITIES_KEY) -> Decision:
    """Build the decision component.

    enabled (bool): Off still writes a decision (escalate: nothing read). Defaults to True.
    spans_key (str): Span group holding the term spans. Defaults to "semgap_terms".
    quantities_key (str): Span group holding the quantity spans. Defaults to "semgap_quantities".
        Every semgap pipe that reads or writes a group must name the decision's (else
        ``pipeline_incomplete``).
    ablation (bool): Excuse missing, disabled and switched-off pipes (an evaluation that switches
        features off on purpose); every decision then says what was off. Defaults to False: a pipe
        that did not fully read the text escalates ``pipeline_incomplete``.
    default_domain (Optional[str]): The domain of a doc that names none (plain ``nlp(text)``);
        recorded in each decision that used it. Defaults to None: such a doc escalates ``unknown_domain``.
    untied_quantities (str): Which text quantities that no field mention claims escalate
        (``quantity_untied``): "any" (the default) every one, of a kind a contract of the domain
        governs ("xm neg, 30 h") or of a kind none governs, which nothing can judge ("brakes 600
        °C"); "contract_kinds" only those of a kind a contract governs; "named_fields" only one of
        the kind of a field the text names, by a mention or a word of its phrases ("xm neg,
        ischemia 30 h"), so that "Next update in 1 day" proceeds. Each but "any" widens what may
        proceed and is recorded in every decision (``"widened"``).
    RETURNS (Decision): The component.
    """
    return Decision(nlp, name, enabled=enabled, spans_key=spans_key, quantities_key=quantities_key,
                    ablation=ablation, default_domain=default_domain, untied_quantities=untied_quantities)

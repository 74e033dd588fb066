"""Every ``._`` attribute semgap_spacy writes, registered in one place.

One table means one place to read what the pipeline writes, one prefix
(``semgap_``) so nothing collides with a user's own extensions, and a
``has_extension`` guard instead of ``force=True`` so we never silently replace
an attribute someone else registered.

Stored values are plain (str, float, bool, list, dict) so docs survive
``doc.to_bytes()`` and ``nlp.pipe(n_process>1)``; richer views (a Pint
quantity, the list of repairs) are getters over the stored values.

Term spans live in ``doc.spans["semgap_terms"]``. A span's ``label_`` is the
term id (or the frame / ambiguity id) and its ``id_`` packs the match facts as
``domain|signal|lang|status|kind|field``, packed and read back (as a
``TermFacts`` record) only here. Keeping those facts in the span
itself, rather than in per-offset user data, means two terms that match the
same characters (a phrase shared by two domains) never overwrite each other.
"""
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from spacy.tokens import Doc, Span, Token

from ..core.decision_record import decision_json, is_record
from ..core.findings import QuantityRow, TermFacts, TermRow
from ..core.run_entries import entry_dict, entry_field, holds_name

TERMS_KEY = "semgap_terms"
QUANTITIES_KEY = "semgap_quantities"
CUES_KEY = "semgap_cues"
UNEXPLAINED_KEY = "semgap_unexplained"



def pack_span_id(domain: str, signal: str, lang: str, status: str, kind: str,
                 field: Optional[str] = None) -> str:
    """The ``id_`` of a term span: its match facts, packed (``term_facts`` reads them back)."""
    return "|".join([domain, signal, lang, status, kind, field or ""])


@lru_cache(maxsize=4096)
def term_facts(span_id: str) -> TermFacts:
    """The match facts packed in a term span's ``id_``; empty strings where a fact is absent."""
    parts = (span_id or "").split("|")
    parts += [""] * (len(TermFacts._fields) - len(parts))
    facts = parts[:len(TermFacts._fields)]
    return TermFacts(*facts[:5], facts[5] or None)


def is_term_span(span: Span) -> bool:
    """Whether a span is one of ours: its ``id_`` holds the packed match facts.

    The term getters answer only for such spans, so an NER entity or a user's
    own span reads ``None`` rather than its label dressed up as a term id.
    """
    span_id = span.id_
    return span_id.count("|") == 5 and not span_id.startswith("|")


def _term_id(span: Span) -> Optional[str]:
    return (span.label_ or None) if is_term_span(span) else None


def _term_fact(name: str, span: Span) -> Optional[str]:
    return (getattr(term_facts(span.id_), name) or None) if is_term_span(span) else None


def _id_getter(name: str):
    """The getter of one fact of a term span: a partial of a module function, not a closure,
    so spaCy can hand the extensions to worker processes that start by spawning."""
    return partial(_term_fact, name)


def span_repaired(span: Span) -> Optional[bool]:
    """Whether any token of a term span was rewritten by typo repair (None for other spans)."""
    if not is_term_span(span):
        return None
    repairs = span.doc.user_data.get(("._.", "semgap_repairs", None, None)) or ()
    return any(r["repaired"] is not None and span.start_char <= r["start_char"] < span.end_char
               for r in repairs)


def _cue_spans(span: Span) -> List[Span]:
    """``span._.semgap_cue_spans``: the cues that govern a span (``semgap_context``), as Spans of its
    doc labelled "negation" or "hedge", the nearest cue of each kind; empty when neither applies."""
    doc, out = span.doc, []
    for name, label in (("semgap_negation_cue", "negation"), ("semgap_hedge_cue", "hedge")):
        cue = span_value(doc, name, span.start_char, span.end_char)
        if isinstance(cue, (list, tuple)) and len(cue) == 2:
            found = doc.char_span(int(cue[0]), int(cue[1]), label=label, alignment_mode="expand")
            if found is not None:
                out.append(found)
    return out


def _span_quantity(span: Span):
    if span._.semgap_magnitude is None or not span._.semgap_unit:
        return None
    from ..core.units import get_registry  # Pint is only built when someone asks

    return get_registry().Quantity(span._.semgap_magnitude, span._.semgap_unit)


def token_reading(token: Token) -> str:
    """``token._.semgap_norm``: the token as our pipes read it (spec §4.1).

    spaCy's norm in canonical form (NFKC, no format characters, a
    mixed-script word's look-alike letters as Latin), folded, and the typo
    repair where ``semgap_repairs`` has one; "" for a token that reads as
    nothing (whitespace, format characters only). Derived from the token and
    the repair records, so it needs no storage and survives a DocBin round
    trip with ``store_user_data=True``. ``token.norm_`` itself is never changed.
    """
    from ..core.textview import read_word

    for record in token.doc.user_data.get(("._.", "semgap_repairs", None, None)) or ():
        if record.get("repaired") and record["start_char"] == token.idx:
            return record["repaired"]
    return read_word(token.norm_)


def _explained_by(token: Token) -> Optional[str]:
    """The rule of spec §4.1 that explained a token (``semgap_coverage``), None when none did."""
    coverage = token.doc.user_data.get(("._.", "semgap_coverage", None, None))
    if not coverage:
        return None
    rules = coverage.get("explained_by") or ()
    return rules[token.i] if token.i < len(rules) else None


@dataclass(frozen=True)
class Extension:
    """One ``._`` attribute: where it lives, who writes it and what it holds.

    The README's extension table is generated from these records
    (``python -m scripts.readme_extensions``), so the documentation cannot
    drift from what is registered.

    on (str): "doc", "span" or "token".
    name (str): The attribute name (always ``semgap_``-prefixed).
    written_by (str): The pipe that sets it, "input" for case inputs, or the
        pipe whose stored values a getter reads.
    value (str): What the value is, for a reader of the README.
    default: The stored default (ignored when ``getter`` is set).
    getter (Optional[Callable]): A derived value, computed on access.
    setter (Optional[Callable]): Stores a value given to an attribute with a getter.
    """

    on: str
    name: str
    written_by: str
    value: str
    default: Any = None
    getter: Optional[Callable] = None
    setter: Optional[Callable] = None

    def kwargs(self) -> dict:
        """The keyword arguments of ``set_extension``."""
        if self.getter is None:
            return {"default": self.default}
        return {"getter": self.getter, "setter": self.setter} if self.setter is not None else {"getter": self.getter}


# The decision: the JSON once it was read (or set), under the key a stored
# ``doc._.semgap_decision`` would use; before that, the record it is made from.
_DECISION_KEY = ("._.", "semgap_decision", None, None)
_RECORD_KEY = ("semgap", "decision_record")


def decision_value(doc: Doc) -> Optional[dict]:
    """``doc._.semgap_decision``: the decision JSON, made from the doc's decision record the first
    time it is read and kept (so every read returns the same dict); None when no decision was made."""
    data = doc.user_data
    decision = data.get(_DECISION_KEY)
    if decision is None:
        record = data.get(_RECORD_KEY)
        if is_record(record):
            decision = data[_DECISION_KEY] = decision_json(record, doc_text(doc))
            del data[_RECORD_KEY]
    return decision


def set_decision(doc: Doc, decision: Any) -> None:
    """``doc._.semgap_decision = decision``: replaces the decision and any record of one."""
    data = doc.user_data
    data.pop(_RECORD_KEY, None)
    data[_DECISION_KEY] = decision


def decision_record(doc: Doc) -> Optional[tuple]:
    """The doc's decision record (``core.decision_record``) while its JSON is not written yet, else None."""
    data = doc.user_data
    if data.get(_DECISION_KEY) is None:
        record = data.get(_RECORD_KEY)
        if is_record(record):
            return record
    return None


def release_doc(doc: Doc) -> None:
    """Drop every value and span group on a doc that nobody will read again (one ``decide_cases``
    made, once its decision record is taken): a trained pipeline holds a whole batch of docs
    until the last of them is done, and what the pipes left on each is freed now rather than then."""
    doc.user_data.clear()
    doc.spans.data.clear()


def store_decision_record(doc: Doc, record: tuple) -> None:
    """Keep a decision record (``core.decision_record``) as the doc's decision, replacing any earlier one."""
    data = doc.user_data
    data.pop(_DECISION_KEY, None)
    data[_RECORD_KEY] = record


# The run record: the pipes keep compact entries (``core.run_entries``) under
# a key of their own; the list of dicts is made when first read and then kept.
_PIPELINE_KEY = ("._.", "semgap_pipeline", None, None)
_RUN_KEY = ("semgap", "run_record")
#: how many tokens the doc had when the first semgap pipe of the run finished (``tokens_changed``)
_TOKENS_KEY = ("semgap", "tokens")


def _entries(kept: Any) -> tuple:
    """Kept entries as a tuple (a worker or ``Doc.from_bytes`` may hand back a list)."""
    if kept is None:
        return ()
    return tuple(kept) if type(kept) in (tuple, list) else (kept,)


def pipeline_value(doc: Doc) -> Optional[list]:
    """``doc._.semgap_pipeline``: the run record as a list of dicts, made from the entries the
    pipes keep the first time it is read and kept from then on (so an edit to it is what the
    decision reads, as it always was); None when no semgap pipe ran."""
    data = doc.user_data
    record = data.get(_PIPELINE_KEY)
    if record is None and data.get(_RUN_KEY) is not None:
        record = data[_PIPELINE_KEY] = [entry_dict(e) for e in _entries(data.pop(_RUN_KEY))]
    return record


def set_pipeline(doc: Doc, record: Any) -> None:
    """``doc._.semgap_pipeline = record``: replaces the run record, kept entries included."""
    data = doc.user_data
    data.pop(_RUN_KEY, None)
    data[_PIPELINE_KEY] = record


def _kept_list_get(key: tuple, doc: Doc) -> Optional[list]:
    data = doc.user_data
    value = data.get(key)
    if type(value) is tuple:
        value = data[key] = list(value)
    return value


def _kept_list_set(key: tuple, doc: Doc, value: Any) -> None:
    doc.user_data[key] = value


def _kept_list(name: str) -> Dict[str, Callable]:
    """The getter and setter of a doc attribute that reads as a list (or None) and that the
    pipes keep as a tuple: a held doc's empty problems or readings are then nothing the
    collector walks. The list is made the first time the attribute is read and kept from
    then on, so an edit to it stays (a tuple set by a user reads as a list too). Partials of
    module functions, not closures, so spaCy can hand them to spawned worker processes."""
    key = ("._.", name, None, None)
    return {"getter": partial(_kept_list_get, key), "setter": partial(_kept_list_set, key)}


EXTENSIONS: Tuple[Extension, ...] = (
    Extension("doc", "semgap_domain", "input",
              "the case's domain (set by `assess`/`decide_cases`, or by you on `nlp.make_doc(text)`)"),
    Extension("doc", "semgap_readings", "input", "the case's structured readings (spec §5)"),
    Extension("doc", "semgap_now", "input", "the case's current time, ISO-8601"),
    Extension("doc", "semgap_case_id", "input", "the case id"),
    Extension("doc", "semgap_text_sha256", "input",
              "SHA-256 of the case text as given (the doc may hold a capped copy)"),
    Extension("doc", "semgap_case_problems", "first semgap pipe",
              "problems with the case itself (unknown domain, text too long, ...); a list, made when "
              "first read and then kept", **_kept_list("semgap_case_problems")),
    Extension("doc", "semgap_pipeline", "every semgap pipe",
              "the run record: one entry per semgap pipe that saw the doc (name, factory, "
              "status `ran`/`disabled`/`failed`/`skipped`, config); the decision checks it. A list of "
              "dicts, made when first read and then kept", getter=pipeline_value, setter=set_pipeline),
    Extension("doc", "semgap_default_domain", "first semgap pipe",
              "the configured `default_domain` when the doc had none and it was used"),
    Extension("doc", "semgap_component_errors", "any semgap pipe",
              "failures caught inside a component (component, error); each one escalates"),
    Extension("doc", "semgap_repairs", "semgap_typo_repair",
              "repair records: start_char, end_char, original, repaired (None when refused), "
              "candidates (the tie that made it refuse)"),
    Extension("doc", "semgap_suspicious", "semgap_terms",
              "tokens whose letters mix scripts: start_char, end_char, evidence and characters "
              "(char, code_point, name, script)"),
    Extension("doc", "semgap_cue_matches", "semgap_context",
              "every cue match as `[token_start, token_end, category]` (negation, hedge, pseudo, "
              "break, and question: the mark that closes a question), whether or not it reached a term; `None` "
              "in a text the cue gate keeps out (no negation or hedge cue can match there, and no question "
              "mark occurs; it is not scanned)"),
    Extension("doc", "semgap_readings_checked", "semgap_quantities",
              "one entry per reading: field, status, canonical value, code, message; a list, made "
              "when first read and then kept", **_kept_list("semgap_readings_checked")),
    Extension("doc", "semgap_coverage", "semgap_coverage",
              "`{\"name_sources\": [...], \"explained_by\": [rule or None per token], \"findings\": [...]}`"),
    Extension("doc", "semgap_decision", "semgap_decision",
              "the decision JSON of spec §5, written when first read and then kept "
              "(use `decision_of(doc)` after a DocBin round trip)", getter=decision_value, setter=set_decision),
    Extension("token", "semgap_norm", "semgap_typo_repair",
              "the token as the pipes read it: canonical form (spec §4.1), folded, typo-repaired; "
              "`token.norm_` is never changed", getter=token_reading),
    Extension("token", "semgap_explained_by", "semgap_coverage",
              "which rule of spec §4.1 explained the token: `term`, `cue`, `stop_word`, "
              "`domain_phrase`, `shape`, `name`, `neutral`; None when no rule did (or coverage "
              "did not run)", getter=_explained_by),
    Extension("token", "semgap_original", "semgap_typo_repair",
              "the original text when typo repair repaired the token"),
    Extension("token", "semgap_repair_candidates", "semgap_typo_repair",
              "candidate words when a repair was refused because of a tie"),
    Extension("span", "semgap_term_id", "semgap_terms",
              "the term (or frame / ambiguity) id of a term span; None on other spans", getter=_term_id),
    Extension("span", "semgap_domain", "semgap_terms", "the term's domain", getter=_id_getter("domain")),
    Extension("span", "semgap_signal", "semgap_terms",
              "`clear`, `critical_block` or `field`; `ambiguous` on an ambiguous abbreviation; "
              "`dangling_head` / `dangling_outcome` on a frame's head or outcome found alone",
              getter=_id_getter("signal")),
    Extension("span", "semgap_lang", "semgap_terms", "the language of the phrase that matched",
              getter=_id_getter("lang")),
    Extension("span", "semgap_status", "semgap_terms", "`approved` or `draft`",
              getter=_id_getter("status")),
    Extension("span", "semgap_match_kind", "semgap_terms",
              "how it matched: phrase, abbreviation, translation or frame (a dangling head or outcome "
              "too)",
              getter=_id_getter("kind")),
    Extension("span", "semgap_field", "semgap_terms", "the field a field term names",
              getter=_id_getter("field")),
    Extension("span", "semgap_frame_gap", "semgap_terms",
              "for a frame term whose head and outcome are apart (\"crossmatch came back negative\"): "
              "`[start_char, end_char]` of the words between them, which the frame does not explain "
              "(spec §4.1); None otherwise"),
    Extension("span", "semgap_repaired", "semgap_typo_repair",
              "whether typo repair was needed for the match (None on spans that are not terms)",
              getter=span_repaired),
    Extension("span", "semgap_negated", "semgap_context",
              "a negation cue governs the span (set on the context pipe's targets)", default=False),
    Extension("span", "semgap_hedged", "semgap_context", "a hedge cue governs the span", default=False),
    Extension("span", "semgap_negation_cue", "semgap_context", "`[start_char, end_char]` of the nearest negation cue"),
    Extension("span", "semgap_hedge_cue", "semgap_context", "`[start_char, end_char]` of the nearest hedge cue"),
    Extension("span", "semgap_cue_spans", "semgap_context",
              "the governing cues as Spans of the doc labelled `negation` / `hedge` (the nearest of each); "
              "empty when neither applies", getter=_cue_spans),
    Extension("span", "semgap_magnitude", "semgap_quantities",
              "the quantity's value, in its linked field's contract unit when it is tied to one"),
    Extension("span", "semgap_unit", "semgap_quantities", "the unit of `semgap_magnitude` (a Pint unit name)"),
    Extension("span", "semgap_quantity_kind", "semgap_quantities", "duration, temperature, ratio or pressure"),
    Extension("span", "semgap_linked_field", "semgap_quantities", "the field the quantity is tied to"),
    Extension("span", "semgap_linked_term", "semgap_quantities", "the term id of that field's mention"),
    Extension("span", "semgap_quantity_problem", "semgap_quantities",
              "why the quantity cannot be used (ambiguous or unsupported unit, a bound such as \">24 h\")"),
    Extension("span", "semgap_quantity", "semgap_quantities", "a Pint quantity built from magnitude and unit",
              getter=_span_quantity),
)


def _table(on: str) -> Dict[str, dict]:
    return {ext.name: ext.kwargs() for ext in EXTENSIONS if ext.on == on}


DOC_EXTENSIONS = _table("doc")
TOKEN_EXTENSIONS = _table("token")
SPAN_EXTENSIONS = _table("span")


# The accessors below read and write the storage ``doc._`` uses, with the key
# layout of ``spacy.tokens.underscore.Underscore._get_key``, so no other module
# needs to know it; ``tests/pipes/test_extensions.py`` checks that both paths
# agree, so a change in spaCy is caught rather than silently missed.
def _defaults(table: dict) -> dict:
    return {name: spec.get("default") for name, spec in table.items() if "getter" not in spec}


_DOC_DEFAULTS = _defaults(DOC_EXTENSIONS)
#: doc attributes with a getter that reads the value stored under the attribute's own key
_KEPT_LISTS = frozenset({"semgap_case_problems", "semgap_readings_checked"})
_SPAN_DEFAULTS = _defaults(SPAN_EXTENSIONS)
_TOKEN_DEFAULTS = _defaults(TOKEN_EXTENSIONS)


def doc_get(doc: Doc, name: str):
    """Fast ``doc._.<name>`` for a stored (non-getter) extension."""
    return doc.user_data.get(("._.", name, None, None), _DOC_DEFAULTS[name])


def doc_key(name: str) -> tuple:
    """The ``doc.user_data`` key that holds ``doc._.<name>`` (for hot paths
    that write several values at once)."""
    assert name in _DOC_DEFAULTS or name in _KEPT_LISTS, name
    return ("._.", name, None, None)


def doc_set(doc: Doc, name: str, value) -> None:
    """Fast ``doc._.<name> = value``."""
    assert name in _DOC_DEFAULTS or name in _KEPT_LISTS, name
    doc.user_data[("._.", name, None, None)] = value


def span_group(doc: Doc, key: str):
    """``doc.spans[key]``, or None when the doc has no such group (one dict look-up:
    ``doc.spans`` is a ``UserDict``, whose ``in`` and ``[]`` run Python code)."""
    return doc.spans.data.get(key)


def span_get(span: Span, name: str):
    """Fast ``span._.<name>`` for a stored extension."""
    return span_value(span.doc, name, span.start_char, span.end_char)


def span_set(span: Span, name: str, value) -> None:
    """Fast ``span._.<name> = value``."""
    set_span_values(span.doc, span.start_char, span.end_char, {name: value})


def _span_key(name: str, start_char: int, end_char: int) -> tuple:
    return ("._.", name, start_char, end_char)


def span_value(doc: Doc, name: str, start_char: int, end_char: int):
    """``span._.<name>`` of the span at these offsets, without building the Span (stored extensions only)."""
    return doc.user_data.get(_span_key(name, start_char, end_char), _SPAN_DEFAULTS[name])


def span_values(doc: Doc, names: tuple, start_char: int, end_char: int) -> tuple:
    """Several stored span extensions of the span at these offsets, in the order named."""
    get = doc.user_data.get
    return tuple([get(("._.", name, start_char, end_char), _SPAN_DEFAULTS[name]) for name in names])


@lru_cache(maxsize=1)
def _direct_span_writes() -> bool:
    """Whether our span values may be stored without building a Span: true while each of our
    stored span extensions is ours (no setter of someone else's must run) and spaCy still keys
    span values as this module does, checked once through the public getter."""
    from spacy.vocab import Vocab

    try:
        doc = Doc(Vocab(), words=["probe"])
        for name in _SPAN_DEFAULTS:
            if Span.get_extension(name)[3] is not None:
                return False
            doc.user_data[_span_key(name, 0, 5)] = "probe"
        return all(getattr(doc[0:1]._, name) == "probe" for name in _SPAN_DEFAULTS)
    except Exception:  # pragma: no cover - any surprise means the public path
        return False


def set_span_values(doc: Doc, start_char: int, end_char: int, values: dict) -> None:
    """``span._.<name> = value`` for several stored extensions of the span at these offsets."""
    if _direct_span_writes():
        data = doc.user_data
        for name, value in values.items():
            assert name in _SPAN_DEFAULTS, name
            data[("._.", name, start_char, end_char)] = value  # the key of ``_span_key``
        return
    span = doc.char_span(start_char, end_char)
    for name, value in values.items():
        setattr(span._, name, value)


def set_span_value_rows(doc: Doc, names: Tuple[str, ...], rows: Iterable[tuple]) -> None:
    """``set_span_values`` for many spans at once, each row (start_char, end_char, then a value
    per name in the order of ``names``): one check of how values are stored for all of them."""
    assert all(map(_SPAN_DEFAULTS.__contains__, names)), names
    if _direct_span_writes():
        data = doc.user_data
        for row in rows:
            start_char, end_char = row[0], row[1]
            for name, value in zip(names, row[2:]):
                data[("._.", name, start_char, end_char)] = value  # the key of ``_span_key``
        return
    for row in rows:
        set_span_values(doc, row[0], row[1], dict(zip(names, row[2:])))


def has_span_values(doc: Doc, names: frozenset) -> bool:
    """Whether the doc stores a value of any of these span extensions, for any span."""
    for k in doc.user_data:
        if type(k) is tuple and len(k) == 4 and k[0] == "._." and k[1] in names:
            return True
    return False


def drop_span_values(doc: Doc, names, offsets) -> None:
    """Reset these span extensions of the spans at these offsets to their defaults."""
    data = doc.user_data
    if not data:
        return
    for start, end in offsets:
        for name in names:
            data.pop(_span_key(name, start, end), None)


def token_set(token: Token, name: str, value) -> None:
    """Fast ``token._.<name> = value``."""
    assert name in _TOKEN_DEFAULTS, name
    token.doc.user_data[("._.", name, token.idx, None)] = value


_TEXT_KEY = ("semgap", "text")


def doc_text(doc: Doc, make: Optional[Callable[[], str]] = None) -> str:
    """``doc.text``, joined once per doc: spaCy rebuilds it from the tokens on
    every access, and several pipes need it. A doc's text never changes (the
    retokenizer keeps it), so the cached copy cannot go stale.

    make (Optional[Callable[[], str]]): Builds the text when it is not cached yet, for a
        caller that has the token texts and spaces at hand already; None: ``doc.text``.
    """
    text = doc.user_data.get(_TEXT_KEY)
    if text is None:
        text = doc.user_data[_TEXT_KEY] = make() if make is not None else doc.text
    return text


def register_extensions() -> None:
    """Register every semgap extension once; existing ones are left alone."""
    for cls, table in ((Doc, DOC_EXTENSIONS), (Token, TOKEN_EXTENSIONS), (Span, SPAN_EXTENSIONS)):
        for name, kwargs in table.items():
            if not cls.has_extension(name):
                cls.set_extension(name, **kwargs)


def record_component_error(doc: Doc, component: str, exc: BaseException) -> None:
    """Keep a component's failure on the doc so the decision escalates on it."""
    errors = list(doc._.semgap_component_errors or [])
    errors.append({"component": component, "error": f"{type(exc).__name__}: {exc}"[:500]})
    doc._.semgap_component_errors = errors


def run_record(doc: Doc) -> list:
    """The run record of a doc as ``doc._.semgap_pipeline`` reads it (a new list; the entries
    made from the kept ones are new dicts), empty when no semgap pipe ran."""
    data = doc.user_data
    record = data.get(_PIPELINE_KEY)
    if record is not None:
        return list(record or ())
    return [entry_dict(e) for e in _entries(data.get(_RUN_KEY))]


def kept_entries(doc: Doc) -> Optional[tuple]:
    """The run record as the pipes keep it (``core.run_entries``), None once it was read or set
    as ``doc._.semgap_pipeline`` (the list of dicts is then the record) or when no pipe ran."""
    data = doc.user_data
    return data.get(_RUN_KEY) if data.get(_PIPELINE_KEY) is None else None


def begin_run(doc: Doc, decision_factory: str, name: str) -> bool:
    """Whether the pipe about to run (named ``name``) is the first semgap pipe of a run over this doc.

    A record that ends with the decision, or already holds this pipe, belongs
    to an earlier run (a doc fed through the pipeline again, or redone one at
    a time after a batch failed): a new record starts rather than one that
    looks misordered. A new run drops any decision the doc holds, so a run
    without the decision pipe (``select_pipes``, another pipeline) leaves none
    rather than an earlier run's.
    """
    data = doc.user_data
    record = data.get(_PIPELINE_KEY)
    if record is None:
        record = data.get(_RUN_KEY)
    if record and entry_field(record[-1], "factory") != decision_factory and not holds_name(record, name):
        return False
    if record:
        data.pop(_RUN_KEY, None)
        data[_PIPELINE_KEY] = None
    # an earlier run's decision is not this run's: a run without a decision pipe must not show it
    data.pop(_DECISION_KEY, None)
    data.pop(_RECORD_KEY, None)
    return True


def record_run(doc: Doc, entry: Any) -> None:
    """Append a pipe's entry (``core.run_entries``, or a dict) to the run record: to the list of
    dicts once there is one (it was read or set), else to the kept entries."""
    data = doc.user_data
    record = data.get(_PIPELINE_KEY)
    if record is not None:
        data[_PIPELINE_KEY] = list(record) + [entry_dict(entry)]
    else:
        kept = data.get(_RUN_KEY)
        if not kept:  # the run's first pipe: what later ones check the doc's tokens against
            data[_TOKENS_KEY] = len(doc)
        data[_RUN_KEY] = _entries(kept) + (entry,)


def record_first(doc: Doc, entry: Any) -> None:
    """``record_run`` for the first pipe of a run over a doc that had no user data when the pipe
    began: the record starts with this entry, unless something wrote one since."""
    data = doc.user_data
    if _RUN_KEY in data or _PIPELINE_KEY in data:
        record_run(doc, entry)
        return
    data[_TOKENS_KEY] = len(doc)
    data[_RUN_KEY] = (entry,)


def tokens_changed(doc: Doc) -> Optional[str]:
    """Why the doc's tokens are not those the run's earlier semgap pipes read, or None.

    spaCy's retokenizer merges and splits tokens (``merge_entities``, a user
    component) but leaves ``doc.spans`` groups and our values on them as they
    were, so a term span found before would now cover other tokens, a cue
    among them, and read as asserted. A pipe that finds the token count changed
    since the run's first pipe says so once (the count is then taken again);
    the decision escalates on it (``component_error``). A merge and a split
    that leave the count as it was go unseen.
    """
    data = doc.user_data
    before = data.get(_TOKENS_KEY)
    if before is None or before == len(doc):
        return None
    data[_TOKENS_KEY] = len(doc)
    return (f"the doc's tokens changed after an earlier semgap pipe ran ({before} tokens, now {len(doc)}): "
            f"a component between the semgap pipes merged or split tokens, so the spans found before "
            f"point at other tokens; run such a component before the first semgap pipe")


register_extensions()


def term_rows(doc: Doc, spans_key: str = TERMS_KEY) -> List[TermRow]:
    """A term span group as rows, in group order (one Span built per item, once).

    doc (Doc): The document.
    spans_key (str): The term span group. Defaults to "semgap_terms".
    RETURNS (List[TermRow]): The rows; empty when the group is missing.
    """
    group = span_group(doc, spans_key)
    if group is None:
        return []
    return [TermRow(s.start, s.end, s.start_char, s.end_char, s.label_, term_facts(s.id_)) for s in group]


def quantity_rows(doc: Doc, quantities_key: str = QUANTITIES_KEY) -> List[QuantityRow]:
    """A quantity span group as rows with the linked field, problem and magnitude.

    doc (Doc): A document processed by ``semgap_quantities``.
    quantities_key (str): The quantity span group. Defaults to "semgap_quantities".
    RETURNS (List[QuantityRow]): The rows, in group order (the kind is the span's label); empty
        when the group is missing.
    """
    group = span_group(doc, quantities_key)
    if group is None:
        return []
    out = []
    for q in group:
        start, end = q.start_char, q.end_char
        out.append(QuantityRow(start, end, span_value(doc, "semgap_linked_field", start, end),
                               span_value(doc, "semgap_quantity_problem", start, end),
                               span_value(doc, "semgap_magnitude", start, end), q.label_))
    return out

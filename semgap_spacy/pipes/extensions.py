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
``domain|signal|lang|status|kind|field``. Keeping those facts in the span
itself, rather than in per-offset user data, means two terms that match the
same characters (a phrase shared by two domains) never overwrite each other.
"""
from functools import lru_cache
from typing import Optional

from spacy.tokens import Doc, Span, Token

TERMS_KEY = "semgap_terms"
QUANTITIES_KEY = "semgap_quantities"
CUES_KEY = "semgap_cues"

# Positions of the packed fields in a term span's id_.
_ID_FIELDS = ("domain", "signal", "lang", "status", "kind", "field")

# Span signals beyond the glossary's own three.
AMBIGUOUS = "ambiguous"
DANGLING_HEAD = "dangling_head"
DANGLING_OUTCOME = "dangling_outcome"


def pack_span_id(domain: str, signal: str, lang: str, status: str, kind: str,
                 field: Optional[str] = None) -> str:
    """Pack match facts into a term span's ``id_``."""
    return "|".join([domain, signal, lang, status, kind, field or ""])


@lru_cache(maxsize=4096)
def unpack_span_id(span_id: str) -> dict:
    """The match facts of a term span's ``id_``; empty strings when absent.

    Cached: callers must not mutate the returned dict.
    """
    parts = (span_id or "").split("|")
    parts += [""] * (len(_ID_FIELDS) - len(parts))
    return dict(zip(_ID_FIELDS, parts))


def _id_getter(name: str):
    def get(span: Span) -> Optional[str]:
        return unpack_span_id(span.id_).get(name) or None
    return get


def span_repaired(span: Span) -> bool:
    """Whether any token of the span was rewritten by typo repair."""
    repairs = span.doc.user_data.get(("._.", "semgap_repairs", None, None)) or ()
    return any(r["repaired"] is not None and span.start_char <= r["start_char"] < span.end_char
               for r in repairs)


def _span_quantity(span: Span):
    if span._.semgap_magnitude is None or not span._.semgap_unit:
        return None
    from ..core.units import get_registry  # Pint is only built when someone asks

    return get_registry().Quantity(span._.semgap_magnitude, span._.semgap_unit)


DOC_EXTENSIONS = {
    # case inputs, set by ``assess`` (or by the user) before the pipes run
    "semgap_domain": {"default": None},
    "semgap_readings": {"default": None},
    "semgap_now": {"default": None},
    "semgap_case_id": {"default": None},
    # SHA-256 of the case text as given (the doc may hold a capped copy)
    "semgap_text_sha256": {"default": None},
    # problems with the case itself (unknown domain, text too long, ...)
    "semgap_case_problems": {"default": None},
    # one entry per reading: field, status, canonical value, code, message
    "semgap_readings_checked": {"default": None},
    # failures caught inside a component; each one escalates
    "semgap_component_errors": {"default": None},
    # the decision in the JSON format of spec §5
    "semgap_decision": {"default": None},
    # typo repair's record: start_char, end_char, original, repaired (None
    # when refused) and candidates (the tie that made it refuse)
    "semgap_repairs": {"default": None},
}

TOKEN_EXTENSIONS = {
    # the original text when typo repair rewrote ``norm_``
    "semgap_original": {"default": None},
    # candidate words when a repair was refused because of a tie
    "semgap_repair_candidates": {"default": None},
}

SPAN_EXTENSIONS = {
    "semgap_term_id": {"getter": lambda span: span.label_ or None},
    "semgap_domain": {"getter": _id_getter("domain")},
    "semgap_signal": {"getter": _id_getter("signal")},
    "semgap_lang": {"getter": _id_getter("lang")},
    "semgap_status": {"getter": _id_getter("status")},
    "semgap_match_kind": {"getter": _id_getter("kind")},
    "semgap_field": {"getter": _id_getter("field")},
    "semgap_repaired": {"getter": span_repaired},
    # set by semgap_context; cues are [start_char, end_char]
    "semgap_negated": {"default": False},
    "semgap_hedged": {"default": False},
    "semgap_negation_cue": {"default": None},
    "semgap_hedge_cue": {"default": None},
    # set by semgap_quantities on spans of doc.spans["semgap_quantities"]
    "semgap_magnitude": {"default": None},
    "semgap_unit": {"default": None},
    "semgap_quantity_kind": {"default": None},
    "semgap_linked_field": {"default": None},
    "semgap_linked_term": {"default": None},
    "semgap_quantity_problem": {"default": None},
    "semgap_quantity": {"getter": _span_quantity},
}


# Reading ``doc._.x`` builds an Underscore object each time (about 5 µs),
# which alone would exceed the per-document budget of the pipeline. The
# components therefore read and write the same storage directly, with the key
# layout of ``spacy.tokens.underscore.Underscore._get_key``; a test checks that
# both paths agree, so a change in spaCy is caught rather than silently missed.
def _defaults(table: dict) -> dict:
    return {name: spec.get("default") for name, spec in table.items() if "getter" not in spec}


_DOC_DEFAULTS = _defaults(DOC_EXTENSIONS)
_SPAN_DEFAULTS = _defaults(SPAN_EXTENSIONS)
_TOKEN_DEFAULTS = _defaults(TOKEN_EXTENSIONS)


def doc_get(doc: Doc, name: str):
    """Fast ``doc._.<name>`` for a stored (non-getter) extension."""
    return doc.user_data.get(("._.", name, None, None), _DOC_DEFAULTS[name])


def doc_key(name: str) -> tuple:
    """The ``doc.user_data`` key that holds ``doc._.<name>`` (for hot paths
    that write several values at once)."""
    assert name in _DOC_DEFAULTS, name
    return ("._.", name, None, None)


def doc_set(doc: Doc, name: str, value) -> None:
    """Fast ``doc._.<name> = value``."""
    assert name in _DOC_DEFAULTS, name
    doc.user_data[("._.", name, None, None)] = value


def span_get(span: Span, name: str):
    """Fast ``span._.<name>`` for a stored extension."""
    return span.doc.user_data.get(("._.", name, span.start_char, span.end_char), _SPAN_DEFAULTS[name])


def span_set(span: Span, name: str, value) -> None:
    """Fast ``span._.<name> = value``."""
    assert name in _SPAN_DEFAULTS, name
    span.doc.user_data[("._.", name, span.start_char, span.end_char)] = value


def token_set(token: Token, name: str, value) -> None:
    """Fast ``token._.<name> = value``."""
    assert name in _TOKEN_DEFAULTS, name
    token.doc.user_data[("._.", name, token.idx, None)] = value


_TEXT_KEY = ("semgap", "text")


def doc_text(doc: Doc) -> str:
    """``doc.text``, joined once per doc: spaCy rebuilds it from the tokens on
    every access, and several pipes need it. A doc's text never changes (the
    retokenizer keeps it), so the cached copy cannot go stale."""
    text = doc.user_data.get(_TEXT_KEY)
    if text is None:
        text = doc.user_data[_TEXT_KEY] = doc.text
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


register_extensions()

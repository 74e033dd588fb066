"""Views of a decided Doc for people: one displaCy picture, rows for a table.

A decision is only trusted when a reviewer can see why it was made, so the
view shows on one page what the pipes found: each term with its reading
(negated, hedged or asserted, and whether a spelling repair was needed to
match it), the cue words that changed a reading, each quantity with the
value and unit it was read as, any clause left unexplained, and the decision
itself above the text. Everything is read through the public ``._``
extensions and span groups, so the view shows what a user's own code would
see, never a private shortcut.

``render`` draws one temporary span group and removes it again: a view must
not leave anything on the user's Doc (a later ``DocBin`` or ``displacy``
call would otherwise pick it up).
"""
from __future__ import annotations

import html
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from spacy import displacy
from spacy.tokens import Doc, Span, SpanGroup

from .core.findings import AMBIGUOUS, DANGLING_HEAD, DANGLING_OUTCOME
from .pipes.extensions import QUANTITIES_KEY, TERMS_KEY

UNEXPLAINED_KEY = "semgap_unexplained"
# The group the view draws; removed (or the user's own restored) afterwards.
VIEW_KEY = "semgap_view"

NEG_CUE = "NEG CUE"
HEDGE_CUE = "HEDGE CUE"
UNEXPLAINED = "UNEXPLAINED"
# Spans whose signal is not a glossary reading are labelled by that signal:
# "asserted" would wrongly suggest the text states an ambiguous abbreviation.
_OWN_STATE = {AMBIGUOUS: "ambiguous", DANGLING_HEAD: "dangling head", DANGLING_OUTCOME: "dangling outcome"}

# Colours by meaning, so a negated clearance never looks like an asserted one.
_COLOURS = {"asserted": "#b7e4c7", "negated": "#f4a3a3", "hedged": "#ffd19a", "other": "#d7c8f0",
            NEG_CUE: "#e06666", HEDGE_CUE: "#e69138", "quantity": "#a4c2f4", UNEXPLAINED: "#c9a0dc"}
_BANNER = {"proceed": "#2e7d32", "escalate": "#e69138", "block": "#c62828"}

# Columns of ``to_records``: every row has all of them, so a table of rows
# of different kinds keeps one shape.
RECORD_COLUMNS = (
    "case_id", "domain", "decision", "kind", "start_char", "end_char", "text",
    "term_id", "signal", "term_domain", "status", "lang", "match_kind", "field",
    "negated", "hedged", "repaired", "negation_cue", "hedge_cue",
    "magnitude", "unit", "quantity_kind", "linked_field", "linked_term", "quantity_problem",
    "code", "outcome", "message", "value", "evidence",
)


def _decision(doc: Doc) -> Optional[dict]:
    """The doc's decision as plain JSON values, or None when none was made."""
    if not isinstance(doc._.semgap_decision, dict):
        return None
    from .api import decision_of  # lists again after a DocBin round trip

    return decision_of(doc)


def _group(doc: Doc, key: str) -> List[Span]:
    return list(doc.spans[key]) if key in doc.spans else []


def term_state(span: Span) -> str:
    """How the text reads a term span: negated, hedged, both, or asserted."""
    own = _OWN_STATE.get(span._.semgap_signal or "")
    if own:
        return own
    states = [name for name, flag in (("negated", span._.semgap_negated), ("hedged", span._.semgap_hedged))
              if flag]
    return "+".join(states) or "asserted"


def term_label(span: Span) -> str:
    """``TERM_ID · state``, with ``· repaired`` when spelling repair made the match."""
    label = f"{span._.semgap_term_id or span.label_} · {term_state(span)}"
    return label + " · repaired" if span._.semgap_repaired else label


def quantity_label(span: Span) -> str:
    """The value and unit a quantity was read as, and the field it was linked to."""
    magnitude, unit = span._.semgap_magnitude, span._.semgap_unit
    if magnitude is None:
        label = f"QTY {span._.semgap_quantity_kind or span.label_ or '?'}"
    else:
        label = f"{magnitude:g} {unit or ''}".rstrip()
    if span._.semgap_linked_field:
        label += f" → {span._.semgap_linked_field}"
    if span._.semgap_quantity_problem:
        label += f" · {span._.semgap_quantity_problem}"
    return label


def _cue_span(doc: Doc, cue: Any) -> Optional[Span]:
    if not (isinstance(cue, (list, tuple)) and len(cue) == 2):
        return None
    return doc.char_span(int(cue[0]), int(cue[1]), alignment_mode="expand")


def view_spans(doc: Doc) -> Tuple[List[Span], Dict[str, str]]:
    """The labelled spans of the view and a colour per label.

    RETURNS (Tuple[List[Span], Dict[str, str]]): New spans (the doc's own are
        not changed) and displaCy's ``colors`` option.
    """
    spans: List[Span] = []
    colours: Dict[str, str] = {}
    cues: Dict[Tuple[int, int, str], Span] = {}

    def add(span: Optional[Span], label: str, colour: str) -> None:
        if span is None:
            return
        spans.append(Span(doc, span.start, span.end, label=label))
        colours.setdefault(label, colour)

    for term in _group(doc, TERMS_KEY):
        state = term_state(term)
        colour = _COLOURS.get(state.split("+")[0], _COLOURS["other"])
        add(term, term_label(term), colour)
        for name, cue in ((NEG_CUE, term._.semgap_negation_cue), (HEDGE_CUE, term._.semgap_hedge_cue)):
            cue_span = _cue_span(doc, cue)
            if cue_span is not None:
                cues.setdefault((cue_span.start_char, cue_span.end_char, name), cue_span)
    for (_s, _e, name), cue_span in sorted(cues.items()):
        add(cue_span, name, _COLOURS[name])
    for quantity in _group(doc, QUANTITIES_KEY):
        add(quantity, quantity_label(quantity), _COLOURS["quantity"])
    for span in _group(doc, UNEXPLAINED_KEY):
        add(span, UNEXPLAINED, _COLOURS[UNEXPLAINED])
    spans.sort(key=lambda s: (s.start, -s.end, s.label_))
    return spans, colours


def banner(doc: Doc) -> str:
    """The decision and its reason codes as an HTML block."""
    decision = _decision(doc)
    if decision is None:
        outcome, codes = "no decision", ["semgap_decision did not run on this doc"]
    else:
        outcome = str(decision.get("decision"))
        codes = list(dict.fromkeys(str(r.get("code")) for r in decision.get("reasons") or []
                                   if isinstance(r, dict)))
    colour = _BANNER.get(outcome, "#555555")
    facts = [f"case {doc._.semgap_case_id}" if doc._.semgap_case_id is not None else "",
             f"domain {doc._.semgap_domain}" if doc._.semgap_domain is not None else ""]
    facts = " · ".join(html.escape(str(f)) for f in facts if f)
    return (f'<div class="semgap-banner" style="font-family: sans-serif; margin: 0 0 0.5em 0; '
            f'padding: 0.4em 0.8em; border-left: 6px solid {colour}; background: #f7f7f7">'
            f'<strong style="color: {colour}; text-transform: uppercase">{html.escape(outcome)}</strong>'
            f' &nbsp; {html.escape(", ".join(codes) or "no reasons")}'
            + (f'<div style="color: #666; font-size: 0.85em">{facts}</div>' if facts else "")
            + "</div>")


def render(doc: Doc, *, jupyter: Optional[bool] = None, path: Union[None, str, Path] = None) -> str:
    """One displaCy span view of a decided Doc, under its decision banner.

    doc (Doc): A doc the semgap pipes ran on (any doc works; missing parts are
        simply not shown).
    jupyter (Optional[bool]): Show the view in a notebook as well. None, as in
        ``displacy.render``, means "when running inside Jupyter".
    path (Union[None, str, Path]): Also write the HTML page to this file.
    RETURNS (str): The HTML (banner, then the displaCy markup).
    """
    from spacy.util import is_in_jupyter

    spans, colours = view_spans(doc)
    saved = doc.spans[VIEW_KEY] if VIEW_KEY in doc.spans else None
    doc.spans[VIEW_KEY] = SpanGroup(doc, name=VIEW_KEY, spans=spans)
    try:
        with warnings.catch_warnings():
            # W117 "no spans to visualize": a text with nothing found is a
            # valid view (the banner says why), not something to warn about.
            warnings.filterwarnings("ignore", message=r"\[W117\]")
            markup = displacy.render(doc, style="span", jupyter=False,
                                     options={"spans_key": VIEW_KEY, "colors": colours})
    finally:
        if saved is None:
            del doc.spans[VIEW_KEY]
        else:
            doc.spans[VIEW_KEY] = saved
    page = banner(doc) + markup
    if path is not None:
        Path(path).write_text(f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>semgap view'
                              f'</title></head><body>{page}</body></html>\n', encoding="utf-8")
    if jupyter if jupyter is not None else is_in_jupyter():
        from IPython.display import HTML, display  # present whenever Jupyter is

        display(HTML(page))
    return page


def _cue(value: Any) -> Optional[List[int]]:
    return [int(v) for v in value] if isinstance(value, (list, tuple)) else None


def to_records(doc: Doc) -> List[Dict[str, Any]]:
    """One plain row per term, quantity and reason of a decided Doc.

    Every row has the columns of ``RECORD_COLUMNS`` (None where a column does
    not apply) and ``kind`` says which of "term", "quantity" or "reason" it
    is. Values are str, int, float, bool, None or a [start, end] list, so the
    rows go straight into JSON, CSV or a DataFrame.

    doc (Doc): A doc the semgap pipes ran on.
    RETURNS (List[Dict[str, Any]]): Terms and quantities in text order, then
        the reasons in the decision's order (strictest first).
    """
    decision = _decision(doc)
    domain = doc._.semgap_domain
    base = {"case_id": doc._.semgap_case_id, "domain": domain if isinstance(domain, str) else None,
            "decision": decision.get("decision") if decision else None}

    def row(kind: str, span: Optional[Span] = None, **values: Any) -> Dict[str, Any]:
        out = dict.fromkeys(RECORD_COLUMNS)
        out.update(base, kind=kind)
        if span is not None:
            out.update(start_char=span.start_char, end_char=span.end_char, text=span.text)
        out.update(values)
        return out

    rows = []
    spans = [("term", s) for s in _group(doc, TERMS_KEY)] + [("quantity", s) for s in _group(doc, QUANTITIES_KEY)]
    for kind, span in sorted(spans, key=lambda ks: (ks[1].start_char, ks[0])):
        if kind == "term":
            rows.append(row(
                "term", span, term_id=span._.semgap_term_id, signal=span._.semgap_signal,
                term_domain=span._.semgap_domain, status=span._.semgap_status, lang=span._.semgap_lang,
                match_kind=span._.semgap_match_kind, field=span._.semgap_field,
                negated=bool(span._.semgap_negated), hedged=bool(span._.semgap_hedged),
                repaired=bool(span._.semgap_repaired), negation_cue=_cue(span._.semgap_negation_cue),
                hedge_cue=_cue(span._.semgap_hedge_cue)))
        else:
            magnitude = span._.semgap_magnitude
            rows.append(row(
                "quantity", span, magnitude=float(magnitude) if magnitude is not None else None,
                unit=span._.semgap_unit, quantity_kind=span._.semgap_quantity_kind,
                linked_field=span._.semgap_linked_field, linked_term=span._.semgap_linked_term,
                quantity_problem=span._.semgap_quantity_problem))
    for reason in (decision or {}).get("reasons") or []:
        if not isinstance(reason, dict):
            continue
        value = reason.get("value")
        code = str(reason.get("code") or "")
        rows.append(row(
            "reason", code=reason.get("code"), outcome=reason.get("outcome"), message=reason.get("message"),
            term_id=reason.get("term_id"), field=reason.get("field"), start_char=reason.get("start_char"),
            end_char=reason.get("end_char"), evidence=reason.get("evidence"), unit=reason.get("unit"),
            value=value if isinstance(value, (int, float, str, bool)) else None,
            negation_cue=_cue(reason.get("cue")) if code.endswith("_negated") else None,
            hedge_cue=_cue(reason.get("cue")) if code.endswith("_hedged") else None,
            text=doc.text[reason["start_char"]:reason["end_char"]]
            if isinstance(reason.get("start_char"), int) and isinstance(reason.get("end_char"), int) else None))
    return rows


def to_dataframe(docs: Union[Doc, Iterable[Doc]]):
    """The rows of ``to_records`` for many docs as one pandas DataFrame.

    A ``doc_index`` column (the doc's position in ``docs``) tells rows of
    docs without a case id apart. Needs the optional ``pandas`` extra.

    docs (Union[Doc, Iterable[Doc]]): One doc or many.
    RETURNS (pandas.DataFrame): Columns ``doc_index`` + ``RECORD_COLUMNS``.
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("to_dataframe needs pandas, which semgap_spacy installs only as an extra: "
                          "pip install 'semgap_spacy[pandas]'") from None
    if isinstance(docs, Doc):
        docs = [docs]
    rows = [{"doc_index": i, **r} for i, doc in enumerate(docs) for r in to_records(doc)]
    return pd.DataFrame(rows, columns=["doc_index", *RECORD_COLUMNS])


#: Columns of ``context_records``: one row per target span that ``semgap_context`` read.
CONTEXT_COLUMNS = (
    "start_char", "end_char", "text", "label", "negated", "hedged", "state",
    "negation_cue", "negation_cue_start", "negation_cue_end", "hedge_cue", "hedge_cue_start", "hedge_cue_end",
)


def _context_input(doc: Doc) -> Tuple[str, str]:
    """(targets, spans_key) of the ``semgap_context`` run recorded on the doc, else the defaults."""
    for entry in doc._.semgap_pipeline or ():
        if isinstance(entry, dict) and entry.get("factory") == "semgap_context":
            config = entry.get("config") or {}
            return config.get("targets") or "spans", config.get("spans_key") or TERMS_KEY
    return "spans", TERMS_KEY


def context_records(doc: Doc, targets: Optional[str] = None, spans_key: Optional[str] = None) -> List[Dict[str, Any]]:
    """What ``semgap_context`` says about each target span of a doc, as plain rows.

    For teams that put ``semgap_context`` after their own NER or span
    pipes: one dict per target with the columns of ``CONTEXT_COLUMNS`` (the
    span, its label, ``negated``, ``hedged``, ``state`` as "negated",
    "hedged", "negated+hedged" or "asserted", and the nearest cue of each kind
    with its text and offsets), so ``pandas.DataFrame(context_records(doc))``
    is the table, and nobody needs the packed span ids or the storage keys.

    doc (Doc): A doc ``semgap_context`` ran on.
    targets (Optional[str]): "spans" or "ents"; None: what the component's run recorded.
    spans_key (Optional[str]): The span group for "spans"; None: what the run recorded.
    RETURNS (List[Dict[str, Any]]): One row per target, in the order of the targets.
    """
    run_targets, run_key = _context_input(doc)
    targets, spans_key = targets or run_targets, spans_key or run_key
    spans = list(doc.ents) if targets == "ents" else _group(doc, spans_key)
    rows = []
    for span in spans:
        negated, hedged = bool(span._.semgap_negated), bool(span._.semgap_hedged)
        row = dict.fromkeys(CONTEXT_COLUMNS)
        row.update(start_char=span.start_char, end_char=span.end_char, text=span.text, label=span.label_,
                   negated=negated, hedged=hedged,
                   state="+".join(n for n, f in (("negated", negated), ("hedged", hedged)) if f) or "asserted")
        for cue in span._.semgap_cue_spans:
            kind = cue.label_
            row.update({kind + "_cue": cue.text, kind + "_cue_start": cue.start_char, kind + "_cue_end": cue.end_char})
        rows.append(row)
    return rows


__all__ = ["CONTEXT_COLUMNS", "RECORD_COLUMNS", "banner", "context_records", "quantity_label", "render",
           "term_label", "term_state", "to_dataframe", "to_records", "view_spans"]

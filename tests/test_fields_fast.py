"""The row helpers the decision reads span groups through must agree with the
Span-based readings they replace (same values, same keys, same order)."""
import pytest

from semgap_spacy import assess
from semgap_spacy._extensions import QUANTITIES_KEY, TERMS_KEY, doc_get, span_get
from semgap_spacy.decision import (_CASE_ID, _CASE_PROBLEMS, _COMPONENT_ERRORS, _DOMAIN, _READINGS_CHECKED,
                                   _REPAIRS, _TEXT_SHA256, _quoted_reason, _reading_reason, make_reason)
from semgap_spacy.fields import (field_mentions, findings_from_rows, quantity_findings, quantity_rows,
                                 row_field_mentions, span_group, stored_span_value, term_rows)

CASES = [
    ("xm neg, cold ischemia 30 hours", "medical_logistics", {"cold_ischemia_elapsed": {"value": 12, "unit": "h"}}),
    ("crossmatch negative, cold ischemia 7 h, CIT 40 h", "medical_logistics", None),
    ("Not clear to close - DTI 45%, pending", "mortgage", None),
    ("Batch released, storage temperature 3 °C, cold ischemia 5 h", "pharma_qa", None),
    ("AOG, tire pressure 2 bar", "aviation_maintenance", {"tire_pressure": {"value": 200, "unit": "psi"}}),
    ("no terms here at all", "mortgage", None),
]


@pytest.fixture(scope="module", params=CASES, ids=[c[0][:24] for c in CASES])
def doc(request, nlp):
    text, domain, readings = request.param
    return assess(nlp, text, domain=domain, readings=readings)


def test_term_rows_match_spans(doc):
    spans = list(doc.spans[TERMS_KEY]) if TERMS_KEY in doc.spans else []
    assert term_rows(doc) == [(s.start, s.end, s.start_char, s.end_char, s.label_, s.id_) for s in spans]
    assert term_rows(doc, "no_such_group") == []


def test_quantity_rows_match_span_extensions(doc):
    spans = list(doc.spans[QUANTITIES_KEY]) if QUANTITIES_KEY in doc.spans else []
    assert quantity_rows(doc) == [(q.start_char, q.end_char, q._.semgap_linked_field,
                                   q._.semgap_quantity_problem, q._.semgap_magnitude) for q in spans]


def test_stored_span_value_is_span_get(doc):
    for key in (TERMS_KEY, QUANTITIES_KEY):
        for span in (doc.spans[key] if key in doc.spans else []):
            for name, default in (("semgap_negated", False), ("semgap_hedged", False),
                                  ("semgap_negation_cue", None), ("semgap_linked_field", None),
                                  ("semgap_magnitude", None)):
                assert stored_span_value(doc.user_data, name, span.start_char, span.end_char, default) \
                    == span_get(span, name) == getattr(span._, name)


def test_span_group(doc, blank):
    assert span_group(blank("x"), TERMS_KEY) is None
    if TERMS_KEY in doc.spans:
        assert list(span_group(doc, TERMS_KEY)) == list(doc.spans[TERMS_KEY])


def test_row_field_mentions_match_field_mentions(doc, nlp):
    glossary = nlp.get_pipe("semgap_decision").glossary
    slow = field_mentions(doc, glossary, TERMS_KEY, own_domain_only=True)
    fast = row_field_mentions(term_rows(doc), glossary, doc_get(doc, "semgap_domain"))
    assert [f[1:] for f in fast] == [f[1:] for f in slow]
    assert all(f.span is None for f in fast)
    assert all(f.span.start_char == f.start_char for f in slow)
    assert row_field_mentions(term_rows(doc), glossary, "no_such_domain") == []


def test_findings_from_rows_is_quantity_findings(doc, nlp):
    glossary = nlp.get_pipe("semgap_decision").glossary
    fields = row_field_mentions(term_rows(doc), glossary, doc_get(doc, "semgap_domain"))
    assert findings_from_rows(fields, quantity_rows(doc), doc_get(doc, "semgap_readings_checked"),
                              doc.text) == quantity_findings(doc, glossary)


def test_doc_keys_read_what_doc_get_reads(doc):
    for key in (_DOMAIN, _CASE_ID, _TEXT_SHA256, _CASE_PROBLEMS, _COMPONENT_ERRORS, _REPAIRS, _READINGS_CHECKED):
        assert doc.user_data.get(key) == doc_get(doc, key[1]) == getattr(doc._, key[1])


@pytest.mark.parametrize("term_id,extra", [("MED.X", None), (None, None), ("MED.X", [3, 5]), ("", "y")])
def test_quoted_reason_is_make_reason(term_id, extra):
    fast = _quoted_reason("clearance", "m", term_id, 1, 4, "abc", "cue", extra)
    slow = make_reason("clearance", "m", term_id=term_id, start_char=1, end_char=4, evidence="abc", cue=extra)
    assert fast == slow and list(fast) == list(slow)


@pytest.mark.parametrize("reading", [
    {"code": "reading_in_contract", "message": "ok", "term_id": "MED.CIT", "field": "cit"},
    {"code": "malformed_reading", "message": "bad", "field": None},
    {},
])
@pytest.mark.parametrize("where", [None, (2, 5)])
def test_reading_reason_is_make_reason(reading, where):
    text = "0123456789"
    span = {} if where is None else {"start_char": where[0], "end_char": where[1],
                                     "evidence": text[where[0]:where[1]]}
    slow = make_reason(reading.get("code", "malformed_reading"), reading.get("message", "reading"),
                       term_id=reading.get("term_id"), field=reading.get("field"), **span)
    fast = _reading_reason(reading, where, text)
    assert fast == slow and list(fast) == list(slow)

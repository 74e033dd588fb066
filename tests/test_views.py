"""Views: one displaCy picture of a decided Doc, and rows for a table."""
import json
import re
import sys

import pytest
from spacy.tokens import DocBin

from semgap_spacy import assess
from semgap_spacy.views import RECORD_COLUMNS, VIEW_KEY, render, to_dataframe, to_records


def labels(page):
    """The span labels displaCy drew, in order."""
    return [html_label.strip() for html_label in
            re.findall(r'font-size: 0.6em[^>]*>\s*([^<]+?)\s*</span>', page)]


def test_render_labels_each_term_by_how_the_text_reads_it(nlp):
    negated = render(assess(nlp, "File is not clear to close", domain="mortgage"), jupyter=False)
    asserted = render(assess(nlp, "Clear to close issued", domain="mortgage"), jupyter=False)
    hedged = render(assess(nlp, "Airworthy once the open defect is closed", domain="aviation_maintenance"),
                    jupyter=False)
    repaired = render(assess(nlp, "Clear to clsoe", domain="mortgage"), jupyter=False)
    assert "MTG.CTC · negated" in labels(negated) and "NEG CUE" in labels(negated)
    assert labels(asserted) == ["MTG.CTC · asserted"]
    assert {"AVN.AIRWORTHY · hedged", "AVN.OPEN_DEFECT · hedged", "HEDGE CUE"} <= set(labels(hedged))
    assert labels(repaired) == ["MTG.CTC · asserted · repaired"]


def test_render_cue_is_drawn_on_the_cue_word(nlp):
    page = render(assess(nlp, "File is not clear to close", domain="mortgage"), jupyter=False)
    # the NEG CUE label sits in the markup of the token "not", before "clear"
    not_at, clear_at = page.index("\n    not\n"), page.index("\n    clear\n")
    assert not_at < page.index("NEG CUE") < clear_at


def test_render_shows_quantities_with_their_value_unit_and_field(nlp):
    doc = assess(nlp, "xm neg, cold ischemia 30 hours", domain="medical_logistics")
    assert "30 hour → cold_ischemia_elapsed" in labels(render(doc, jupyter=False))


def test_render_banner_gives_the_decision_and_its_codes(nlp):
    doc = assess(nlp, "xm neg, cold ischemia 30 hours", domain="medical_logistics",
                 readings={"cold_ischemia_elapsed": {"value": 30, "unit": "h"}}, case_id="c-7")
    page = render(doc, jupyter=False)
    banner = page[:page.index('<div class="spans"')]
    assert ">block<" in banner and "limit_exceeded" in banner and "clearance" in banner
    assert "case c-7" in banner and "domain medical_logistics" in banner
    bare = render(nlp.make_doc("hello"), jupyter=False)
    assert "no decision" in bare  # no pipes ran: said so, not a crash


def test_render_shows_unexplained_spans_when_the_group_exists(nlp):
    doc = assess(nlp, "Batch released; QA signed the assay", domain="pharma_qa")  # every word explained
    assert not len(doc.spans["semgap_unexplained"])
    assert "UNEXPLAINED" not in labels(render(doc, jupyter=False))
    doc = assess(nlp, "Batch released; assay failed the acceptance criteria", domain="pharma_qa")
    assert "UNEXPLAINED" in labels(render(doc, jupyter=False))


def test_render_leaves_the_users_doc_as_it_was(nlp):
    doc = assess(nlp, "File is not clear to close", domain="mortgage")
    before = {k: [(s.start, s.end, s.label_) for s in g] for k, g in doc.spans.items()}
    render(doc, jupyter=False)
    assert {k: [(s.start, s.end, s.label_) for s in g] for k, g in doc.spans.items()} == before
    doc.spans[VIEW_KEY] = [doc[0:1]]  # a user's group of the same name survives too
    render(doc, jupyter=False)
    assert [(s.start, s.end) for s in doc.spans[VIEW_KEY]] == [(0, 1)]


def test_render_writes_a_page_and_shows_it_in_jupyter(nlp, tmp_path, monkeypatch):
    doc = assess(nlp, "File is not clear to close", domain="mortgage")
    out = tmp_path / "view.html"
    page = render(doc, jupyter=False, path=out)
    written = out.read_text("utf-8")
    assert written.startswith("<!DOCTYPE html>") and page in written
    display = pytest.importorskip("IPython.display", reason="IPython comes with the notebook extra")
    shown = []
    monkeypatch.setattr(display, "display", lambda obj: shown.append(obj.data))
    assert render(doc, jupyter=True) == page
    assert shown == [page]


def test_render_survives_odd_docs(nlp):
    assert "no decision" in render(nlp.make_doc(""), jupyter=False)
    doc = assess(nlp, "<b>clear to close</b> & more", domain="mortgage")
    page = render(doc, jupyter=False)
    assert "close&lt;/b" in page and "</b" not in page  # the text is escaped, not markup


def test_to_records_one_row_per_term_quantity_and_reason(nlp):
    doc = assess(nlp, "Clear to close issued; DTI 38%", domain="mortgage", case_id="m-1")
    rows = to_records(doc)
    assert all(list(r) == list(RECORD_COLUMNS) for r in rows)
    kinds = [r["kind"] for r in rows]
    decision = doc._.semgap_decision
    assert kinds.count("term") == len(doc.spans["semgap_terms"]) == 2
    assert kinds.count("quantity") == len(doc.spans["semgap_quantities"]) == 1
    assert [r["code"] for r in rows if r["kind"] == "reason"] == [r["code"] for r in decision["reasons"]]
    quantity = next(r for r in rows if r["kind"] == "quantity")
    assert (quantity["text"], quantity["magnitude"], quantity["unit"]) == ("38%", 38.0, "percent")
    assert {r["case_id"] for r in rows} == {"m-1"} and {r["decision"] for r in rows} == {"escalate"}
    assert json.loads(json.dumps(rows)) == rows  # plain values only


def test_to_records_marks_negation_and_survives_docbin(nlp):
    doc = assess(nlp, "File is not clear to close", domain="mortgage")
    term = next(r for r in to_records(doc) if r["kind"] == "term")
    assert term["negated"] is True and term["negation_cue"] == [8, 11] and term["hedged"] is False
    stored = DocBin(store_user_data=True, docs=[doc]).to_bytes()
    back = next(DocBin().from_bytes(stored).get_docs(nlp.vocab))
    assert to_records(back) == to_records(doc)


def test_to_dataframe_stacks_docs(nlp):
    pd = pytest.importorskip("pandas", reason="to_dataframe needs the pandas extra")
    docs = [assess(nlp, t, domain="mortgage") for t in ("File is not clear to close", "Clear to close issued")]
    frame = to_dataframe(docs)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["doc_index", *RECORD_COLUMNS]
    assert len(frame) == sum(len(to_records(d)) for d in docs)
    assert frame.loc[frame.kind == "term", "negated"].tolist() == [True, False]
    assert len(to_dataframe(docs[0])) == len(to_records(docs[0]))


def test_to_dataframe_names_the_extra_when_pandas_is_missing(nlp, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"semgap_spacy\[pandas\]"):
        to_dataframe([nlp.make_doc("x")])

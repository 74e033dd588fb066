"""Drafts from review (spec §4.2): from a clause to entries, the drafts file, and what the glossary refuses."""
import pytest
import srsly

from semgap_spacy.glossary import GlossaryError, GlossarySet, load_glossaries
from semgap_spacy.glossary.drafts import (CHOICES, Draft, DraftFile, Entry, Evidence, TeachingError, check_entries,
                                          clause_entries, drafts_path, load_drafts, name_spellings, normal_choice,
                                          normal_scope, save_drafts)

HASH = "a" * 64


def _reason(clause, words, offset=10):
    """An unexplained_content reason as the pipeline writes it, the clause starting at ``offset``."""
    spans, pos = [], 0
    for word in words:
        at = clause.index(word, pos)
        spans.append([offset + at, offset + at + len(word)])
        pos = at + len(word)
    return {"code": "unexplained_content", "start_char": offset, "end_char": offset + len(clause),
            "evidence": clause, "words": list(dict.fromkeys(words)), "word_spans": spans, "domain": "mortgage"}


CLAUSE = _reason("Yuki Tanabe scanned the docs at Cedar Knoll", ["Yuki", "Tanabe", "scanned", "Cedar", "Knoll"])


@pytest.mark.parametrize("given,expected", [("neutral", "neutral"), ("Means term", "means_term"),
                                            ("means-term", "means_term"), (" PROBLEM ", "problem")])
def test_reviewer_options_are_the_four_of_the_spec(given, expected):
    assert CHOICES == ("neutral", "name", "means_term", "problem")
    assert normal_choice(given) == expected


@pytest.mark.parametrize("bad", ["nuetral", "approve", "", None, 3])
def test_unknown_reviewer_option_is_refused(bad):
    with pytest.raises(TeachingError, match="unknown reviewer option"):
        normal_choice(bad)


def test_neutral_drafts_each_chosen_word_in_lower_case():
    entries, covered = clause_entries(CLAUSE, "neutral", words=["scanned"])
    assert entries == [Entry("neutral", "scanned", "en", None)] and covered == ["scanned"]
    everything, _ = clause_entries(CLAUSE, "neutral", lang="es")
    assert [e.text for e in everything] == ["yuki", "tanabe", "scanned", "cedar", "knoll"]
    assert {e.lang for e in everything} == {"es"}


def test_name_drafts_each_run_of_adjacent_chosen_words_as_written():
    entries, _ = clause_entries(CLAUSE, "name", words=["Yuki", "Tanabe", "Cedar", "Knoll"])
    assert [e.text for e in entries] == ["Yuki Tanabe", "Cedar Knoll"]
    assert {e.kind for e in entries} == {"name"}


@pytest.mark.parametrize("name,expected", [
    ("Yuki Tanabe", ["Yuki Tanabe", "YUKI TANABE", "yuki tanabe"]),
    ("north wind aviation", ["north wind aviation", "NORTH WIND AVIATION", "North Wind Aviation"]),
    ("ACME", ["ACME", "Acme"]),  # one word: never in lower case ("parts", "green" are words first)
    ("Brambleton", ["Brambleton", "BRAMBLETON"]),
])
def test_name_spellings_are_the_casings_chat_uses(name, expected):
    assert name_spellings(name) == expected


def test_spellings_draft_each_casing_of_a_name_and_nothing_else():
    entries, _ = clause_entries(CLAUSE, "name", words=["Yuki", "Tanabe", "Cedar", "Knoll"], spellings=True)
    assert [e.text for e in entries] == ["Yuki Tanabe", "YUKI TANABE", "yuki tanabe",
                                         "Cedar Knoll", "CEDAR KNOLL", "cedar knoll"]
    for choice, kwargs in (("neutral", {}), ("means_term", {"term_id": "MTG.CTC"}), ("problem", {})):
        with pytest.raises(TeachingError, match="spellings .* are for name only"):
            clause_entries(CLAUSE, choice, spellings=True, **kwargs)
    with pytest.raises(TeachingError, match="spellings"):
        clause_entries(CLAUSE, "name", spellings="yes")


def test_name_may_be_given_whole_including_explained_words():
    reason = _reason("Pinecrest Kidney Program called", ["Pinecrest", "Program", "called"])
    (entry,), covered = clause_entries(reason, "name", phrase="Pinecrest  Kidney Program")
    assert entry.text == "Pinecrest Kidney Program"
    assert covered == ["Pinecrest", "Program"]  # the unexplained words the name holds, not "called"
    with pytest.raises(TeachingError, match="case-sensitively"):
        clause_entries(reason, "name", phrase="pinecrest kidney program")
    with pytest.raises(TeachingError, match="none of the clause's unexplained words"):
        clause_entries(reason, "name", phrase="Kidney")


def test_means_term_drafts_a_phrase_of_the_term():
    reason = _reason("loan good to go", ["good", "go"])
    (entry,), _ = clause_entries(reason, "means_term", term_id="MTG.CTC")
    assert entry == Entry("phrase", "good to go", "en", "MTG.CTC")
    (given,), covered = clause_entries(reason, "means term", term_id="MTG.CTC", phrase="Good to go")
    assert given.text == "good to go" and covered == ["good", "go"]
    (given,), covered = clause_entries(reason, "means term", term_id="MTG.CTC", phrase="good")
    assert given.text == "good" and covered == ["good"]
    with pytest.raises(TeachingError, match="needs the term id"):
        clause_entries(reason, "means_term")


@pytest.mark.parametrize("given,expected", [(None, "domain"), ("domain", "domain"), (" ALL ", "all")])
def test_a_choice_holds_in_the_domain_unless_the_reviewer_says_all(given, expected):
    assert normal_scope(given) == expected
    entries, _ = clause_entries(CLAUSE, "name", words=["Yuki", "Tanabe"], scope=given)
    assert entries == [Entry("name", "Yuki Tanabe", "en", None, expected)]
    (neutral,), _ = clause_entries(CLAUSE, "neutral", words=["scanned"], scope=given)
    assert neutral.scope == expected and neutral.describe().endswith(", every domain)") == (expected == "all")


@pytest.mark.parametrize("choice,scope,needle", [
    ("neutral", "every", "unknown scope 'every': choose domain"),
    ("name", "", "unknown scope ''"),
    ("name", 1, "unknown scope 1"),
    ("means_term", "all", "scope all is for neutral and name only"),
    ("problem", "all", "scope all is for neutral and name only"),
])
def test_a_bad_scope_is_refused(choice, scope, needle):
    with pytest.raises(TeachingError, match=needle):
        clause_entries(CLAUSE, choice, scope=scope, term_id="MTG.CTC" if choice == "means_term" else None)


def test_problem_drafts_nothing():
    entries, covered = clause_entries(CLAUSE, "problem", words=["scanned"])
    assert entries == [] and covered == ["scanned"]


@pytest.mark.parametrize("kwargs,needle", [
    ({"choice": "neutral", "words": ["Bogus"]}, "not an unexplained word"),
    ({"choice": "neutral", "words": []}, "no words chosen"),
    ({"choice": "neutral", "phrase": "Yuki"}, "not a phrase"),
    ({"choice": "name", "term_id": "MTG.CTC"}, "only with means_term"),
    ({"choice": "name", "phrase": "Alder Valley"}, "not in the clause"),
    ({"choice": "neutral", "lang": "it"}, "unknown language"),
])
def test_bad_choices_are_refused_with_the_reason(kwargs, needle):
    with pytest.raises(TeachingError, match=needle):
        clause_entries(CLAUSE, **kwargs)


def test_a_word_the_clause_cuts_is_drafted_whole():
    # "St. Brigid ...": the clause ends at the period, the token "St." runs past it
    reason = {"code": "unexplained_content", "start_char": 0, "end_char": 2, "evidence": "St", "words": ["St."],
              "word_spans": [[0, 3]]}
    (entry,), _ = clause_entries(reason, "name")
    assert entry.text == "St."


def test_a_reason_without_word_spans_still_finds_its_words():
    reason = {k: v for k, v in CLAUSE.items() if k != "word_spans"}
    entries, _ = clause_entries(reason, "name", words=["Yuki", "Tanabe"])
    assert [e.text for e in entries] == ["Yuki Tanabe"]


def _evidence(reviewer="Ruth Lindqvist", sha=HASH):
    return Evidence(reviewer=reviewer, text_sha256=sha, clause="Scans uploaded to the portal", start_char=0)


def test_the_same_entry_from_another_case_is_more_evidence_not_a_second_draft(tmp_path):
    drafts = DraftFile(domain="mortgage")
    first = drafts.add([Entry("neutral", "portal", "en", None), Entry("name", "Yuki Tanabe", "en", None)],
                       _evidence())
    again = drafts.add([Entry("neutral", "Portal", "en", None)], _evidence("Tobias Wren", "b" * 64))
    assert first == ["mortgage/1", "mortgage/2"] and again == ["mortgage/1"]
    assert drafts.drafts[0].authors == ["Ruth Lindqvist", "Tobias Wren"]
    save_drafts(tmp_path, drafts)
    assert load_drafts(tmp_path, "mortgage") == drafts
    assert load_drafts(tmp_path, "pharma_qa").drafts == []  # no file yet: no drafts


def test_a_drafts_file_that_does_not_validate_names_the_file_and_the_problem(tmp_path):
    path = drafts_path(tmp_path, "mortgage")
    path.parent.mkdir(parents=True)
    srsly.write_json(path, {"domain": "mortgage", "drafts": [
        {"id": "mortgage/1", "kind": "neutral", "text": "portal", "status": "approved", "approved_by": "Ruth Lindqvist",
         "approved_in": "2026.12.1", "evidence": [_evidence().model_dump()]}]})
    with pytest.raises(TeachingError) as err:
        load_drafts(tmp_path, "mortgage")
    assert str(path) in str(err.value) and "who drafted it" in str(err.value)


@pytest.mark.parametrize("entry,needle", [
    (Entry("neutral", "not", "en", None), "never-neutral"),
    (Entry("neutral", "borrower", "en", None), "already in the mortgage glossary"),
    (Entry("phrase", "good to go", "en", "MTG.NOPE"), "unknown term id 'MTG.NOPE'"),
    (Entry("phrase", "good to go", "en", "AVN.AIRWORTHY"), "a term of aviation_maintenance, not mortgage"),
    (Entry("phrase", "cleared to close", "en", "MTG.CTC"), "already in the mortgage glossary"),
    (Entry("phrase", "title defect", "en", "MTG.CTC"), "could not take this draft.*also a phrase of MTG.CTC"),
])
def test_the_glossary_refuses_a_draft_it_could_not_take(entry, needle):
    with pytest.raises(TeachingError, match=needle):
        check_entries(load_glossaries(), "mortgage", [entry], "Ruth Lindqvist")


def test_scope_all_drafts_live_in_their_own_file_and_only_there(tmp_path):
    common = DraftFile(domain="all")
    (draft_id,) = common.add([Entry("neutral", "thanks", "en", None, "all")], _evidence())
    assert draft_id == "all/1"
    save_drafts(tmp_path, common)
    assert load_drafts(tmp_path, "all") == common
    with pytest.raises(ValueError, match="have scope all"):
        DraftFile(domain="all", drafts=[Draft(id="all/2", kind="neutral", text="portal", evidence=[_evidence()])])
    with pytest.raises(ValueError, match="have scope domain"):
        DraftFile(domain="mortgage", drafts=[Draft(id="mortgage/1", kind="neutral", text="portal", scope="all",
                                                   evidence=[_evidence()])])
    with pytest.raises(ValueError, match="not to scope all"):
        Draft(id="all/3", kind="phrase", text="good to go", term="MTG.CTC", scope="all", evidence=[_evidence()])


def test_scope_all_is_checked_against_every_domain():
    glossary = load_glossaries()
    check_entries(glossary, "mortgage", [Entry("neutral", "portal", "en", None, "all")], "Ruth Lindqvist")
    # "package" is neutral in mortgage and aviation only: the other two domains still take it
    check_entries(glossary, "mortgage", [Entry("neutral", "package", "en", None, "all")], "Ruth Lindqvist")
    with pytest.raises(TeachingError, match="already in every domain's glossary"):
        check_entries(glossary, "mortgage", [Entry("neutral", "thanks", "en", None, "all")], "Ruth Lindqvist")
    # critical in medical_logistics: refused whole, although the case is a mortgage case
    with pytest.raises(TeachingError, match="medical_logistics: neutral word 'positive'.*critical phrase"):
        check_entries(glossary, "mortgage", [Entry("neutral", "positive", "en", None, "all")], "Ruth Lindqvist")


@pytest.mark.parametrize("domain,word", [("medical_logistics", "positive"), ("aviation_maintenance", "AOG"),
                                         ("aviation_maintenance", "grounded")])
def test_a_critical_word_is_never_drafted_neutral(domain, word):
    with pytest.raises(TeachingError, match="critical phrase"):
        check_entries(load_glossaries(), domain, [Entry("neutral", word.lower(), "en", None)], "Ruth Lindqvist")


def _with_taught(record, edit=None):
    data = load_glossaries().to_dict()
    if edit:
        edit(data["mortgage"])
    data["mortgage"]["taught"] = [record]
    return data


def test_a_taught_record_approved_by_its_author_does_not_load():
    record = {"draft": "mortgage/1", "kind": "name", "text": "Brambleton", "drafted_by": ["Ruth Lindqvist"],
              "approver": "ruth lindqvist"}
    data = _with_taught(record, lambda d: d["vocabulary"]["known_names"].append("Brambleton"))
    with pytest.raises(GlossaryError, match="also drafted it"):
        GlossarySet.from_dict(data)
    record["approver"] = "Marcus Feld"
    assert GlossarySet.from_dict(data).domains["mortgage"].taught[0].approver == "Marcus Feld"


def test_a_taught_record_must_name_an_entry_the_glossary_holds():
    record = {"draft": "mortgage/1", "kind": "phrase", "text": "good to go", "term": "MTG.CTC",
              "drafted_by": ["Ruth Lindqvist"], "approver": "Marcus Feld"}
    with pytest.raises(GlossaryError, match="not a phrase of MTG.CTC"):
        GlossarySet.from_dict(_with_taught(record))

"""Approval of drafts (spec §4.2): a second person, a version bump, both versions archived, a diff that shows it."""
import functools
import shutil
from datetime import date

import pytest

from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.glossary import GlossarySet, bundled_glossary_dir, load_glossaries
from semgap_spacy.glossary.drafts import load_drafts
from semgap_spacy.glossary.governance import diff
from semgap_spacy.glossary.governance.approval import ApprovalError, next_version, open_drafts
from semgap_spacy.ops.draft_evidence import approve
from semgap_spacy.glossary.roster import Roster
from semgap_spacy.ops.review_queue import ReviewQueue

TODAY = date(2026, 12, 2)


@functools.lru_cache(maxsize=1)
def _pipeline():
    return build_pipeline()  # the bundled glossaries: the copies below start as they are


def _teach(glossaries, domain, text, choice, words, reviewer="Ruth Lindqvist", **kwargs):
    """A reviewer's choice for the first unexplained clause of a real escalation, through a real queue file
    (an approval takes only drafts whose evidence a queue records)."""
    decision = next(decide_cases(_pipeline(), [{"id": f"c-{text}", "domain": domain, "text": text}]))
    with ReviewQueue(glossaries.parent / "queue.sqlite3") as queue:
        seq = queue.enqueue(decision, text).seq
        return queue.teach(seq, reviewer, 1, choice, words=words, glossary_dir=glossaries, **kwargs)


@pytest.fixture
def glossaries(tmp_path):
    """A copy of the bundled glossaries (with their archive) and three open mortgage drafts by Ruth Lindqvist."""
    target = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), target, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    _teach(target, "mortgage", "Clear to close. Scans uploaded to the portal.", "neutral", ["portal"])
    _teach(target, "mortgage", "Clear to close. Brambleton called.", "name", ["Brambleton"])
    _teach(target, "mortgage", "Clear to close. Good to go.", "means_term", ["Good"], phrase="good to go",
           term_id="MTG.CTC")
    assert [d.id for d in load_drafts(target, "mortgage").open()] == ["mortgage/1", "mortgage/2", "mortgage/3"]
    return target


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("old,today,new", [("2026.12.0", TODAY, "2026.12.1"), ("2026.12.4", TODAY, "2026.12.5"),
                                           ("2026.11.3", TODAY, "2026.12.0"), ("2026.12.0", date(2027, 1, 5), "2027.1.0")])
def test_next_version(old, today, new):
    assert next_version(old, today) == new


def test_approval_adds_the_drafts_bumps_every_domain_and_archives(glossaries):
    before = GlossarySet.from_dir(glossaries)
    assert load_glossaries(glossaries).sha256 == before.sha256
    done = approve(glossaries, "Marcus Feld", today=TODAY)
    assert load_glossaries(glossaries).version == "2026.12.2"  # the process cache sees the new files
    assert (done.old_version, done.new_version, done.domains) == ("2026.12.1", "2026.12.2", ["mortgage"])
    after = GlossarySet.from_dir(glossaries)
    assert after.version == "2026.12.2" and after.sha256 != before.sha256
    mortgage = after.domains["mortgage"]
    assert "portal" in mortgage.vocabulary.neutral.domain["en"]
    assert mortgage.vocabulary.known_names == ["Brambleton"]
    assert "Good to go" in next(t for t in mortgage.terms if t.id == "MTG.CTC").phrases
    assert {(t.draft, t.approver, tuple(t.drafted_by)) for t in mortgage.taught} == {
        (f"mortgage/{i}", "Marcus Feld", ("Ruth Lindqvist",)) for i in (1, 2, 3)}
    # the old version was archived already; the new one is archived as it is now
    assert GlossarySet.from_dir(glossaries / "archive" / "2026.12.1").sha256 == before.sha256
    assert GlossarySet.from_dir(glossaries / "archive" / "2026.12.2").sha256 == after.sha256
    assert open_drafts(glossaries) == []
    assert {d.approved_by for d in load_drafts(glossaries, "mortgage").drafts} == {"Marcus Feld"}


def test_the_diff_shows_each_taught_entry_as_an_approved_weakening(glossaries):
    approve(glossaries, "Marcus Feld", today=TODAY)
    report = diff(glossaries / "archive" / "2026.12.1", glossaries)
    assert report.ok, [str(f) for f in report.findings]
    kinds = {(w.kind, w.second_approver, w.accepted) for w in report.weakenings}
    assert kinds == {("neutral_added", "Marcus Feld", True), ("known_name_added", "Marcus Feld", True),
                     ("taught_phrase_added", "Marcus Feld", True)}
    assert all("drafted by Ruth Lindqvist" in w.detail for w in report.weakenings)
    assert [d for d, dd in report.domains.items() if dd.status != "unchanged"] == ["mortgage"]
    text = report.to_markdown()
    assert 'known name "Brambleton" added' in text and "approved by second approver Marcus Feld" in text
    assert "Good to go" in text


def test_a_taught_entry_approved_by_its_drafter_fails_the_diff(glossaries):
    approve(glossaries, "Marcus Feld", today=TODAY)
    path = glossaries / "mortgage.yaml"
    # a hand edit that names the drafter as approver no longer loads, and the diff refuses it
    path.write_text(path.read_text(encoding="utf-8").replace("approver: Marcus Feld\n    cases",
                                                             "approver: Ruth Lindqvist\n    cases"), encoding="utf-8")
    report = diff(glossaries / "archive" / "2026.12.1", glossaries)
    refused = [f for f in report.findings if f.code == "weakening_without_second_approver"]
    assert refused and all("a reviewer who drafted it" in f.message for f in refused)


@pytest.mark.parametrize("approver,ids,version,needle", [
    ("Ruth Lindqvist", None, None, "Ruth Lindqvist drafted mortgage/1"),
    ("ruth  lindqvist", ["mortgage/2"], None, "a draft needs a second person"),
    ("Nobody Here", None, None, "not one of the governance people"),
    ("automated-agent", None, None, "names a process"),
    ("Marcus Feld", ["mortgage/9"], None, "there is no draft 'mortgage/9'"),
    ("Marcus Feld", [], None, "name the drafts"),
    ("Marcus Feld", None, "2026.12.1", "must be YYYY.MM.N and higher than 2026.12.1"),
    ("Marcus Feld", None, "2026.11.0", "higher than"),
    ("Marcus Feld", None, "2026.12.2\n", "must be YYYY.MM.N"),  # "$" would let the newline through
])
def test_a_refused_approval_changes_nothing(glossaries, approver, ids, version, needle):
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match=needle):
        approve(glossaries, approver, ids, new_version=version, today=TODAY)
    assert _snapshot(glossaries) == before


def test_an_approved_draft_cannot_be_approved_again(glossaries):
    approve(glossaries, "Marcus Feld", ["mortgage/1"], today=TODAY)
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match="already approved by Marcus Feld in 2026.12.2"):
        approve(glossaries, "Tobias Wren", ["mortgage/1"], today=TODAY)
    assert _snapshot(glossaries) == before
    done = approve(glossaries, "Tobias Wren", today=TODAY)  # the two still open
    assert done.new_version == "2026.12.3" and [d.id for d in done.drafts] == ["mortgage/2", "mortgage/3"]


def test_an_unarchived_old_version_is_archived_before_it_changes(glossaries, tmp_path):
    shutil.rmtree(glossaries / "archive")
    before = _snapshot(glossaries)
    roster = Roster(["Marcus Feld", "Ruth Lindqvist"], "test roster")
    done = approve(glossaries, "Marcus Feld", roster=roster, new_version="2026.12.7")
    assert done.archived == [str(glossaries / "archive" / "2026.12.1"), str(glossaries / "archive" / "2026.12.7")]
    archived = _snapshot(glossaries / "archive" / "2026.12.1")
    assert archived == {p: b for p, b in before.items() if p.parent.name == "" and p.suffix == ".yaml"}


def _common_drafts(glossaries, *words, reviewer="Ruth Lindqvist"):
    """Drafts of scope all, one per word of "Lot released, package scanned by Yuki Tanabe." (a name: "Yuki Tanabe")."""
    for word in words:
        choice, chosen = ("name", ["Yuki", "Tanabe"]) if word == "Yuki Tanabe" else ("neutral", [word])
        _teach(glossaries, "pharma_qa", "Lot released, package scanned by Yuki Tanabe.", choice, chosen,
               reviewer=reviewer, scope="all")


def test_a_draft_of_scope_all_joins_every_domain_that_lacks_it(glossaries):
    _common_drafts(glossaries, "scanned", "package", "Yuki Tanabe")
    done = approve(glossaries, "Marcus Feld", today=TODAY)
    assert done.domains == ["aviation_maintenance", "medical_logistics", "mortgage", "pharma_qa"]
    after = GlossarySet.from_dir(glossaries)
    assert after.version == "2026.12.2"
    for name, dom in after.domains.items():
        assert "scanned" in dom.vocabulary.neutral.common["en"], name  # the common list, not the domain's
        assert "scanned" not in dom.vocabulary.neutral.domain.get("en", [])
        assert "Yuki Tanabe" in dom.vocabulary.known_names
        words = [w for w, _, _ in dom.vocabulary.neutral.words()]
        assert words.count("package") == 1, name  # added only where it was missing
        scopes = {(t.draft, t.scope) for t in dom.taught}
        assert ("all/1", "all") in scopes and ("all/3", "all") in scopes
        assert (("all/2", "all") in scopes) == (name in ("medical_logistics", "pharma_qa"))
    assert {d.status for d in load_drafts(glossaries, "all").drafts} == {"approved"}
    assert open_drafts(glossaries) == []

    report = diff(glossaries / "archive" / "2026.12.1", glossaries)
    assert report.ok, [str(f) for f in report.findings]
    touched = {(w.domain, w.detail.split(" added")[0]) for w in report.weakenings}
    assert {d for d, what in touched if what == 'neutral word "scanned"'} == set(after.domains)
    assert {d for d, what in touched if what == 'neutral word "package"'} == {"medical_logistics", "pharma_qa"}
    assert {d for d, what in touched if what == 'known name "Yuki Tanabe"'} == set(after.domains)
    assert all(w.accepted for w in report.weakenings)
    common = [w for w in report.weakenings if any(x in w.detail for x in ("scanned", "package", "Yuki"))]
    assert len(common) == 10 and all("taught in review for every domain (draft all/" in w.detail for w in common)
    sections = report.to_markdown().split("\n## ")[1:]  # `glossary changelog`: one section per domain
    assert sorted(s.split(" ")[0] for s in sections if 'neutral word "scanned" added (common en)' in s) == \
        sorted(after.domains)


def test_a_word_taught_for_its_domain_and_for_all_is_added_once(glossaries):
    _teach(glossaries, "mortgage", "Clear to close. Scans uploaded to the portal.", "neutral", ["portal"],
           reviewer="Tobias Wren", scope="all")
    approve(glossaries, "Diego Salas", today=TODAY)
    mortgage = GlossarySet.from_dir(glossaries).domains["mortgage"]
    assert [w for w, _, _ in mortgage.vocabulary.neutral.words()].count("portal") == 1
    assert "portal" in mortgage.vocabulary.neutral.domain["en"]  # the domain's own draft came first
    assert {(t.draft, t.scope) for t in mortgage.taught if t.text == "portal"} == {("mortgage/1", "domain")}


def test_an_approver_who_drafted_a_scope_all_draft_is_refused(glossaries):
    _common_drafts(glossaries, "scanned", reviewer="Marcus Feld")
    before = _snapshot(glossaries)
    with pytest.raises(ApprovalError, match="Marcus Feld drafted all/1 .neutral word 'scanned' .en, every domain"):
        approve(glossaries, "Marcus Feld", ["all/1"], today=TODAY)
    assert _snapshot(glossaries) == before


def test_a_record_taught_for_one_domain_keeps_the_hash_it_had_before_scopes():
    record = {"draft": "mortgage/1", "kind": "name", "text": "Brambleton", "drafted_by": ["Ruth Lindqvist"],
              "approver": "Marcus Feld"}
    data = load_glossaries().to_dict()
    data["mortgage"]["vocabulary"]["known_names"].append("Brambleton")
    data["mortgage"]["taught"] = [record]
    loaded = GlossarySet.from_dict(data)
    assert "scope" not in loaded.domains["mortgage"].to_dict()["taught"][0]
    assert GlossarySet.from_dict({**data, "mortgage": {**data["mortgage"], "taught": [
        {**record, "scope": "domain"}]}}).sha256 == loaded.sha256

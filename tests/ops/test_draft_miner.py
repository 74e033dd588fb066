"""Draft-term miner: drafts only, capped, minus known phrases, never into a glossary."""
import json

import pytest
import srsly

from semgap_spacy.ops.draft_miner import (
    Candidate,
    CandidateWriteError,
    check_candidates_path,
    mine_candidates,
    miner_config,
    select_texts,
    write_candidates,
)

TEXTS = [
    ("c-1", "Panel reactive antibody positive, courier waiting"),
    ("c-2", "PRA screen: panel reactive antibody positive again"),
    ("c-3", "panel reactive antibody positive per lab"),
    ("c-4", "Donor flagged, virtual crossmatch negative, panel reactive antibody positive"),
    ("c-5", "cooler probe temperature logger reads fine"),
    ("c-6", "probe temperature logger shows 5 C"),
    ("c-7", "Probe temperature logger attached"),
    ("c-8", "random words with no anchor at all"),
    ("c-9", "random words with no anchor at all"),
]


def phrases(cands):
    return [c.phrase for c in cands]


def test_draft_miner_proposes_frequent_phrases_near_anchor_words():
    cands = mine_candidates(TEXTS)
    found = phrases(cands)
    assert found[0] == "panel reactive antibody"
    assert cands[0].count == 4
    assert cands[0].example_case_ids == ["c-1", "c-2", "c-3"]
    assert "probe temperature logger" in found
    # No anchor word nearby: never proposed however frequent.
    assert not any("random" in p or "anchor" in p for p in found)
    # Sub-phrases as frequent as a longer phrase are folded into it.
    assert "panel reactive" not in found and "reactive antibody" not in found
    # Stop words and anchor words alone are never proposed.
    assert "positive" not in found and "with" not in found


def test_draft_miner_only_proposes_drafts():
    for cand in mine_candidates(TEXTS):
        assert cand.status == "draft"
        data = cand.to_dict()
        assert data["status"] == "draft"
        assert data["approver"] is None
    with pytest.raises(ValueError, match="always a draft"):
        Candidate("clear to close", 3, ["c-1"], status="approved")


def test_draft_miner_only_looks_near_anchor_words():
    far = "alpha bravo charlie delta echo foxtrot golf hotel india positive"
    texts = [(f"c-{i}", far) for i in range(3)]
    found = phrases(mine_candidates(texts, config={"window": 3}))
    assert "golf hotel india" in found
    assert not any(w in p for p in found for w in ("alpha", "bravo", "charlie", "delta"))
    wide = phrases(mine_candidates(texts, config={"window": 9}))
    assert "alpha bravo charlie" in wide


def test_draft_miner_excludes_known_phrases():
    known = {"Panel Reactive Antibody", "probe temperature"}
    found = phrases(mine_candidates(TEXTS, known_phrases=known))
    assert not any("panel" in p and "reactive" in p and "antibody" in p for p in found)
    assert "probe temperature logger" not in found  # contains a known phrase
    assert "probe" not in found  # part of a known phrase


def test_draft_miner_known_phrases_match_accent_insensitively():
    texts = [(f"c-{i}", "Épreuve croisée positive ce matin") for i in range(3)]
    assert "épreuve croisée positive" in phrases(mine_candidates(texts))
    found = phrases(mine_candidates(texts, known_phrases={"EPREUVE CROISEE"}))
    assert found  # the rest of the text is still mined
    assert not any("épreuve croisée" in p for p in found)


def test_draft_miner_config_refuses_yaml_booleans():
    with pytest.raises(ValueError, match="quote words"):
        miner_config({"stop_words": ["the", False]})


@pytest.mark.parametrize("cap", [0, 1, 2])
def test_draft_miner_respects_max_candidates(cap):
    assert len(mine_candidates(TEXTS)) > 2
    assert len(mine_candidates(TEXTS, max_candidates=cap)) == cap
    assert len(mine_candidates(TEXTS, config={"max_candidates": cap})) == cap


def test_draft_miner_min_count():
    assert "virtual crossmatch negative" not in phrases(mine_candidates(TEXTS))
    assert "virtual crossmatch negative" in phrases(mine_candidates(TEXTS, config={"min_count": 1}))


def test_draft_miner_config_refuses_unknown_key():
    with pytest.raises(ValueError, match="unknown miner setting"):
        miner_config({"max_candidate": 3})
    assert "positive" in miner_config()["anchor_words"]


def test_draft_miner_selects_escalated_unrecognised_texts():
    cases = [{"id": "a", "text": "ta"}, {"id": "b", "text": "tb"}, {"id": "c", "text": "tc"},
             {"id": "d", "text": None}]
    decisions = [
        {"id": "a", "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]},
        {"id": "b", "decision": "escalate", "reasons": [{"code": "dangling_head"}]},
        {"id": "c", "decision": "block", "reasons": [{"code": "no_recognised_term"}]},
        {"id": "d", "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]},
    ]
    assert select_texts(cases, decisions) == [("a", "ta")]


def test_a_case_id_json_gives_as_an_object_is_paired_by_its_text():
    # a dict id stopped the run ("unhashable type: 'dict'"); a decision writes such an id as text
    cases = [{"id": {"a": [1, 2]}, "text": "ta"}, {"id": ["x"], "text": "tb"}]
    decisions = [{"id": str({"a": [1, 2]}), "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]},
                 {"id": str(["x"]), "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]}]
    assert select_texts(cases, decisions) == [(str({"a": [1, 2]}), "ta"), (str(["x"]), "tb")]


def test_draft_miner_writes_draft_file(tmp_path):
    target = tmp_path / "glossaries" / "candidates" / "medical_logistics.yaml"
    write_candidates(mine_candidates(TEXTS, max_candidates=2), target, source="week 48")
    doc = srsly.yaml_loads(target.read_text(encoding="utf-8"))
    assert doc["kind"] == "semgap_candidates"
    assert len(doc["candidates"]) == 2
    assert {c["status"] for c in doc["candidates"]} == {"draft"}
    assert all(c["approver"] is None and c["count"] >= 2 and c["example_case_ids"]
               for c in doc["candidates"])
    # Re-running over an earlier candidates file is allowed.
    write_candidates(mine_candidates(TEXTS, max_candidates=1), target)
    assert len(srsly.yaml_loads(target.read_text(encoding="utf-8"))["candidates"]) == 1


@pytest.mark.parametrize("relative", [
    "glossaries/medical_logistics.yaml",
    "glossaries/new_domain.yaml",
    "glossaries/archive/old.yaml",
    "glossaries/candidates/../mortgage.yaml",
])
def test_draft_miner_refuses_glossaries_directory(tmp_path, relative):
    target = tmp_path / relative
    with pytest.raises(CandidateWriteError, match="glossaries/"):
        write_candidates(mine_candidates(TEXTS), target)
    assert not target.exists()


def test_draft_miner_refuses_file_with_approved_terms(tmp_path):
    glossary = tmp_path / "approved.yaml"
    original = srsly.yaml_dumps({"domain": "mortgage", "terms": [
        {"id": "MTG.CTC", "status": "approved", "approver": "R", "phrases": ["clear to close"]}]})
    glossary.write_text(original, encoding="utf-8")
    with pytest.raises(CandidateWriteError, match="approved glossary terms"):
        write_candidates(mine_candidates(TEXTS), glossary)
    assert glossary.read_text(encoding="utf-8") == original


def test_draft_miner_refuses_to_overwrite_unknown_file(tmp_path):
    other = tmp_path / "notes.yaml"
    other.write_text("hello: world\n", encoding="utf-8")
    with pytest.raises(CandidateWriteError, match="not a candidates file"):
        check_candidates_path(other)


def test_draft_miner_refuses_symlink_into_glossaries(tmp_path):
    real = tmp_path / "glossaries" / "pharma_qa.yaml"
    real.parent.mkdir()
    real.write_text("domain: pharma_qa\nterms: []\n", encoding="utf-8")
    link = tmp_path / "candidates.yaml"
    link.symlink_to(real)
    with pytest.raises(CandidateWriteError):
        write_candidates(mine_candidates(TEXTS), link)
    assert real.read_text(encoding="utf-8") == "domain: pharma_qa\nterms: []\n"


def test_draft_miner_writes_json_to_a_json_file_and_yaml_to_yaml(tmp_path):
    for name in ("c.json", "c.JSON"):
        target = tmp_path / name
        write_candidates(mine_candidates(TEXTS, max_candidates=2), target, source="week 48")
        doc = json.loads(target.read_text(encoding="utf-8"))
        assert doc["kind"] == "semgap_candidates" and len(doc["candidates"]) == 2
        write_candidates(mine_candidates(TEXTS, max_candidates=1), target)  # re-run over its own file
        assert len(json.loads(target.read_text(encoding="utf-8"))["candidates"]) == 1
    for name in ("c.yaml", "c.yml"):
        target = tmp_path / name
        write_candidates(mine_candidates(TEXTS, max_candidates=2), target)
        text = target.read_text(encoding="utf-8")
        assert text.startswith("kind: semgap_candidates") and srsly.yaml_loads(text)["candidates"]


@pytest.mark.parametrize("name", ["candidates.txt", "candidates", "candidates.yaml.bak"])
def test_draft_miner_refuses_a_name_that_says_no_format(tmp_path, name):
    with pytest.raises(CandidateWriteError, match=r"name the file \.yaml or \.yml .* or \.json"):
        write_candidates(mine_candidates(TEXTS), tmp_path / name)
    assert not (tmp_path / name).exists()

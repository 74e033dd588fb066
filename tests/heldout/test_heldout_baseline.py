"""The naive keyword baseline: tolerant glossary reading, bank fallback, decision shape."""



from heldout.baseline_keyword import decide, load_phrases, phrases_from_glossaries

GLOSSARY = """
domain: medical_logistics
terms:
  - id: MED.XM_NEGATIVE
    signal: clear
    owner: Someone Owner
    definition: a long definition that must not become a phrase
    phrases: [negative crossmatch]
    abbreviations: [xm neg]
    translations:
      es: {status: approved, reviewer: Some Reviewer, phrases: [prueba cruzada negativa]}
  - id: MED.XM_POSITIVE
    signal: critical_block
    phrases: [positive crossmatch]
  - id: MED.COLD_ISCHEMIA
    signal: field
    phrases: [cold ischemia]
"""


def test_reads_phrases_not_metadata(tmp_path):
    (tmp_path / "medical_logistics.yaml").write_text(GLOSSARY, encoding="utf-8")
    found = phrases_from_glossaries(tmp_path)
    assert found["clear"] == {"negative crossmatch", "xm neg", "prueba cruzada negativa"}
    assert found["critical_block"] == {"positive crossmatch"}


def test_decisions(tmp_path):
    (tmp_path / "g.yaml").write_text(GLOSSARY, encoding="utf-8")
    load_phrases.cache_clear()
    assert decide({"id": "a", "text": "XM NEG, courier out"}, tmp_path)["decision"] == "proceed"
    assert decide({"id": "b", "text": "xm neg; positive crossmatch"}, tmp_path)["decision"] == "block"
    assert decide({"id": "c", "text": "cold ischemia 30 h"}, tmp_path)["decision"] == "escalate"
    d = decide({"id": "d", "text": None}, tmp_path)
    assert d["decision"] == "escalate" and d["id"] == "d" and d["reasons"][0]["code"] == "baseline_keyword"
    # Naive by design: a negated critical still blocks.
    assert decide({"id": "e", "text": "no positive crossmatch"}, tmp_path)["decision"] == "block"


def test_falls_back_to_the_bank(tmp_path):
    load_phrases.cache_clear()
    source, phrases = load_phrases(tmp_path / "missing")
    assert source == "heldout/bank/glossary.yaml"
    assert "clear to close" in phrases["clear"] and "title defect" in phrases["critical_block"]
    assert decide({"id": "x", "text": "Title defect found"}, tmp_path / "missing")["decision"] == "block"

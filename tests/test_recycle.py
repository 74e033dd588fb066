"""spaCy's string table rebuilt between memory zones, only for a pipeline semgap
owns: the decisions are the same, the strings in use stay, the table shrinks
back to what it holds."""
import gc
import json
from pathlib import Path

from semgap_spacy import api, build_pipeline, decide_cases
from semgap_spacy.api import decide_lines
from semgap_spacy.ops import cli
from semgap_spacy.util import recycle
from semgap_spacy.util.recycle import rebuild_string_table

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "heldout" / "v2" / "dev.jsonl"


def _lines():
    return HELDOUT.read_bytes().splitlines(keepends=True)


def _counted(monkeypatch, module):
    """The list that gets an item each time ``module``'s rebuild_string_table rebuilds."""
    rebuilds = []

    def counted(nlp):
        done = recycle.rebuild_string_table(nlp)
        rebuilds.append(done)
        return done
    monkeypatch.setattr(module, "rebuild_string_table", counted)
    return rebuilds


def test_an_owned_run_rebuilds_after_every_zone_and_decides_the_same(monkeypatch):
    lines = _lines()
    plain = list(decide_lines(build_pipeline(), lines, as_json=True))
    rebuilds = _counted(monkeypatch, api)
    monkeypatch.setattr(api, "ZONE_CASES", 64)  # many zones, so many rebuilds
    owned = list(decide_lines(build_pipeline(), lines, as_json=True, own_pipeline=True))
    assert owned == plain
    assert len(rebuilds) == -(-len(lines) // 64) >= 6 and all(rebuilds)


def test_a_pipeline_passed_to_the_library_keeps_its_string_table(nlp, monkeypatch):
    rebuilds = _counted(monkeypatch, api)
    monkeypatch.setattr(api, "ZONE_CASES", 2)
    case = {"id": "a", "domain": "mortgage", "text": "Clear to close issued"}
    list(decide_cases(nlp, [case] * 5))
    list(decide_lines(nlp, [json.dumps(case).encode()] * 5))
    assert rebuilds == []


def test_a_rebuilt_table_keeps_every_string_and_drops_nothing_in_use():
    nlp = build_pipeline()
    nlp("qzxkeptwordvk was seen")  # outside a zone: the pipeline keeps it
    with nlp.memory_zone():
        nlp(" ".join(f"qzxgone{i}vk" for i in range(2000)))
    before = set(nlp.vocab.strings)
    assert rebuild_string_table(nlp) is True
    assert set(nlp.vocab.strings) == before and "qzxkeptwordvk" in nlp.vocab.strings
    assert nlp.vocab.strings["qzxkeptwordvk"] == nlp.vocab["qzxkeptwordvk"].orth


def test_no_rebuild_inside_a_memory_zone():
    nlp = build_pipeline()
    with nlp.memory_zone():
        doc = nlp("qzxzoneonlyvk here")
        assert rebuild_string_table(nlp) is False
        assert doc[0].text == "qzxzoneonlyvk"


def test_assess_rebuilds_in_its_own_process_and_writes_the_same(tmp_path, monkeypatch):
    lines = _lines()
    plain = list(decide_lines(build_pipeline(), lines, as_json=True))
    rebuilds = _counted(monkeypatch, api)
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b"".join(lines))
    monkeypatch.setattr(api, "ZONE_CASES", 100)
    try:
        assert cli.main(["assess", "--cases", str(src), "--out", str(out)]) == 0
    finally:
        gc.unfreeze()  # assess freezes the process it owns; here that is the test run
    assert out.read_text(encoding="utf8").splitlines() == plain
    # once a zone's worth of cases is decided (the CLI reads a stream that may be live:
    # its last, shorter zone is no zone's worth)
    assert len(rebuilds) == len(lines) // 100 >= 2


def test_workers_rebuild_their_own_tables_and_decide_the_same(monkeypatch):
    lines = _lines()
    plain = list(decide_lines(build_pipeline(), lines, as_json=True))
    monkeypatch.setattr(api, "ZONE_CASES", 128)  # forked workers see it too
    assert list(decide_lines(build_pipeline(), lines, as_json=True, n_process=2)) == plain

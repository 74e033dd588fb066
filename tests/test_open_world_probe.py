"""``scripts.open_world_probe``: hand-written probes decided and reported, bad lines refused."""
import json

import pytest

from scripts import open_world_probe


def test_the_probe_reports_unsafe_proceeds_and_harmless_words(tmp_path):
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "unsafe.txt").write_text("pharma_qa|Batch released; assay fai1ed.\n"
                                       "mortgage|Clear to close, mostly\n", encoding="utf8")
    (probes / "harmless.txt").write_text("mortgage|Clear to close\n\nmortgage|Clear to close, scanned\n",
                                         encoding="utf8")
    assert open_world_probe.main(["--probes", str(probes), "--out", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "open_world_probe.json").read_text(encoding="utf8"))
    assert report["unsafe"]["n"] == 2 and report["unsafe"]["proceeds"] == []
    assert report["harmless"]["decisions"] == {"escalate": 1, "proceed": 1}
    assert report["harmless"]["unexplained_words"] == {"scanned": 1}
    markdown = (tmp_path / "out" / "open_world_probe.md").read_text(encoding="utf8")
    assert "Unsafe proceeds: 0 of 2" in markdown and "scanned (1)" in markdown


def test_a_malformed_probe_line_is_a_clear_error(tmp_path):
    bad = tmp_path / "unsafe.txt"
    bad.write_text("mortgage Clear to close\n", encoding="utf8")
    with pytest.raises(SystemExit) as err:
        open_world_probe.read_set(bad)
    assert "unsafe.txt:1" in str(err.value) and "domain|text" in str(err.value)


def test_a_line_break_is_written_as_backslash_n(tmp_path):
    path = tmp_path / "harmless.txt"
    path.write_text("mortgage|Hi team,\\nclear to close.\\nRegards\n", encoding="utf8")
    assert open_world_probe.read_set(path) == [("mortgage", "Hi team,\nclear to close.\nRegards")]


def test_a_set_gives_its_current_time_on_a_comment_line(tmp_path):
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "unsafe.txt").write_text("# now: 2026-12-05T12:00:00Z\nmortgage|Clear to close 2026-12-04\n",
                                       encoding="utf8")
    (probes / "harmless.txt").write_text("# now: 2026-12-05T12:00:00Z\n# a comment\nmortgage|Clear to close 2026-12-05\n",
                                         encoding="utf8")
    assert open_world_probe.read_set(probes / "harmless.txt") == [("mortgage", "Clear to close 2026-12-05")]
    assert open_world_probe.main(["--probes", str(probes), "--out", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "open_world_probe.json").read_text(encoding="utf8"))
    assert report["unsafe"]["decisions"] == {"escalate": 1}
    assert report["harmless"]["decisions"] == {"proceed": 1}  # today's date, told by the set's now


def test_a_set_of_whole_cases_carries_their_readings(tmp_path):
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "unsafe_2.jsonl").write_text(json.dumps({
        "domain": "medical_logistics", "text": "Negative crossmatch, CIT 30 h",
        "readings": {"cold_ischemia_elapsed": {"value": 20, "unit": "h"}}, "now": "2026-12-05T12:00:00Z"}) + "\n",
        encoding="utf8")
    (probes / "harmless.txt").write_text("mortgage|Clear to close\n", encoding="utf8")
    cases = open_world_probe.read_cases(probes / "unsafe_2.jsonl")
    assert cases[0]["readings"]["cold_ischemia_elapsed"]["value"] == 20
    assert open_world_probe.main(["--probes", str(probes), "--out", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "open_world_probe.json").read_text(encoding="utf8"))
    assert report["unsafe_2"]["file"] == "unsafe_2.jsonl" and report["unsafe_2"]["proceeds"] == []
    assert "| unsafe_2.jsonl | 1 |" in (tmp_path / "out" / "open_world_probe.md").read_text(encoding="utf8")


def test_a_malformed_case_line_is_a_clear_error(tmp_path):
    bad = tmp_path / "unsafe_2.jsonl"
    bad.write_text('{"domain": "mortgage"}\n', encoding="utf8")
    with pytest.raises(SystemExit) as err:
        open_world_probe.read_cases(bad)
    assert "unsafe_2.jsonl:1" in str(err.value) and "a domain and a text" in str(err.value)


def test_the_bundled_probe_sets_read():
    files = open_world_probe.probe_files(open_world_probe.PROBES)
    assert [f.name for f in files] == ["unsafe.txt", "unsafe_2.txt", "unsafe_3.txt", "unsafe_4.txt", "unsafe_5.txt",
                                       "unsafe_6.txt", "unsafe_7.txt", "unsafe_8.txt", "unsafe_9.txt",
                                       "unsafe_10.txt", "unsafe_11.txt", "unsafe_12.txt", "unsafe_13.txt", "unsafe_14.txt",
                                       "unsafe_15.txt", "unsafe_16.txt", "unsafe_17.txt", "unsafe_18.txt",
                                       "unsafe_19.txt", "unsafe_20.txt", "unsafe_21.txt", "unsafe_22.txt",
                                       "unsafe_23.txt", "unsafe_24.txt", "unsafe_25.txt", "unsafe_26.txt", "unsafe_27.txt",
                                       "unsafe_28.txt", "unsafe_29.txt", "unsafe_30.txt", "unsafe_31.txt",
                                       "unsafe_32.txt", "unsafe_33.txt", "unsafe_34.txt", "unsafe_35.jsonl", "unsafe_36.txt", "unsafe_37.txt",
                                       "unsafe_38.txt", "unsafe_39.jsonl", "unsafe_40.txt",
                                       "harmless.txt", "harmless_2.txt", "harmless_3.txt",
                                       "harmless_4.txt", "harmless_5.txt", "harmless_6.txt", "harmless_7.txt",
                                       "harmless_8.txt", "harmless_9.txt", "harmless_10.txt", "harmless_11.txt",
                                       "harmless_12.txt", "harmless_13.txt", "harmless_14.txt", "harmless_15.txt",
                                       "harmless_16.txt", "harmless_17.txt", "harmless_18.txt", "harmless_19.txt",
                                       "harmless_20.txt", "harmless_21.txt", "harmless_22.txt",
                                       "harmless_23.txt", "harmless_24.txt", "harmless_25.txt",
                                       "harmless_26.txt", "harmless_27.txt", "harmless_28.txt", "harmless_29.txt",
                                       "harmless_30.txt", "harmless_31.txt", "harmless_32.txt", "harmless_33.txt",
                                       "harmless_34.txt", "harmless_35.jsonl", "harmless_36.txt",
                                       "harmless_37.txt", "harmless_38.txt", "harmless_39.jsonl",
                                       "harmless_40.txt"]
    assert [len(open_world_probe.read_cases(f)) for f in files] == [150, 120, 160, 150, 150, 150, 120, 120, 120, 150,
                                                                  150, 150, 150, 150, 150, 150, 150, 150, 150, 150,
                                                                  150, 150, 150, 150, 160, 250, 300, 200, 220, 220, 220, 100, 160, 120, 78, 150, 118, 150, 120, 150, 150, 120, 80,
                                                                  100, 70, 80, 80, 60, 60, 60, 60, 60, 60, 60, 60, 60,
                                                                  60, 60, 60, 60, 60, 60, 60, 60, 240, 250, 300, 200, 220, 220, 220, 100, 160, 60, 40, 60, 55, 60, 50, 60]
    assert {f.name: open_world_probe.set_now(f) for f in files if f.suffix == ".txt" and open_world_probe.set_now(f)} == {
        "unsafe_33.txt": "2026-12-05T12:00:00Z", "harmless_33.txt": "2026-12-05T12:00:00Z"}


def test_a_folder_without_probes_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit) as err:
        open_world_probe.main(["--probes", str(tmp_path), "--out", str(tmp_path / "out")])
    assert "no unsafe*.txt or harmless*.txt" in str(err.value)

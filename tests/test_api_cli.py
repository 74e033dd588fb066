"""The API and CLI: every input gets one decision, in order, never a traceback."""
import json
import math
import subprocess
import sys

import pytest
import spacy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semgap_spacy import assess, build_pipeline, decide_cases
from semgap_spacy.ops.cli import main

OUTCOMES = {"proceed", "escalate", "block"}


def test_assess_returns_doc_with_decision(nlp):
    doc = assess(nlp, "negative crossmatch", domain="medical_logistics", case_id="c-1")
    assert doc._.semgap_decision["id"] == "c-1"
    assert doc._.semgap_decision["decision"] == "proceed"


def test_batch_streams_in_order(nlp):
    cases = [{"id": f"c{i}", "domain": "medical_logistics",
              "text": "crossmatch positive" if i % 2 else "negative crossmatch"} for i in range(50)]
    decisions = list(decide_cases(nlp, iter(cases), batch_size=7))
    assert [d["id"] for d in decisions] == [c["id"] for c in cases]
    assert [d["decision"] for d in decisions] == ["block" if i % 2 else "proceed" for i in range(50)]


@pytest.mark.parametrize("case,code", [
    ({"id": "x", "domain": "dentistry", "text": "all clear"}, "unknown_domain"),
    ({"id": "x", "domain": "mortgage", "text": 42}, "invalid_text"),
    ({"id": "x", "domain": "mortgage", "text": None}, "invalid_text"),
    ({"id": "x", "domain": "mortgage"}, "invalid_text"),
    ({"id": "x", "domain": "mortgage", "text": "clear to close " * 300}, "text_too_long"),
    ({"id": "x", "domain": "mortgage", "text": "clear to close", "readings": [1, 2]}, "malformed_reading"),
    ({"id": "x", "domain": "mortgage", "text": "clear to close", "readings": {"dti_ratio": 30}}, "malformed_reading"),
    ({"id": "x", "domain": "mortgage", "text": "clear to close",
      "readings": {"dti_ratio": {"value": math.nan, "unit": "%"}}}, "malformed_reading"),
    ({"id": "x", "domain": "mortgage", "text": "clear to close",
      "readings": {"tire_pressure": {"value": 200, "unit": "psi"}}}, "unknown_field"),
    ("not a case", "invalid_case"),
    # a misspelt case key holds what is not read; readings, when given, is an object (spec §5)
    ({"id": "x", "domain": "mortgage", "text": "Clear to close",
      "readngs": {"dti_ratio": {"value": 99, "unit": "%"}}}, "invalid_case"),
    ({"id": "x", "domain": "mortgage", "text": "Clear to close", "Readings": {}}, "invalid_case"),
    ({"id": "x", "domain": "mortgage", "text": "Clear to close", "Now": "2026-12-01T00:00:00Z"}, "invalid_case"),
    ({"id": "x", "domain": "mortgage", "text": "Clear to close", "readings": None}, "invalid_case"),
    ({"id": "x", "domain": "mortgage", "text": "Clear to close", "now": "yesterday"}, "invalid_case"),
    # not Unicode text: escalates through the API as on a JSONL line
    ({"id": "x", "domain": "mortgage", "text": "Clear to close \ud800"}, "lone_surrogate"),
    ({"id": "x", "domain": "mortgage", "text": "Clear to close \udcff\udcfe"}, "lone_surrogate"),
])
def test_bad_cases_escalate_with_a_reason(nlp, case, code):
    decision = list(decide_cases(nlp, [case]))[0]
    assert decision["decision"] in ("escalate", "block")
    assert decision["decision"] != "proceed"
    assert code in [r["code"] for r in decision["reasons"]]


def test_a_key_of_a_teams_own_is_carried_along(nlp):
    case = {"id": "x", "domain": "mortgage", "text": "Clear to close", "ticket": "INC-1", "source": "chat"}
    assert list(decide_cases(nlp, [case]))[0]["decision"] == "proceed"


def test_a_str_subclass_is_text(nlp):
    numpy = pytest.importorskip("numpy")
    case = {"id": "x", "domain": "mortgage", "text": numpy.str_("Clear to close")}
    assert list(decide_cases(nlp, [case]))[0]["decision"] == "proceed"
    assert assess(nlp, numpy.str_("Clear to close"), domain="mortgage")._.semgap_decision["decision"] == "proceed"


def test_the_mark_of_a_failed_decode_is_no_neutral_symbol(nlp):
    assert assess(nlp, "Clear to close \ufffd", domain="mortgage")._.semgap_decision["decision"] == "escalate"


@pytest.mark.parametrize("batch_size", [0, -1, 1.5, True])
def test_a_batch_size_below_one_is_refused_not_an_empty_result(nlp, batch_size):
    from semgap_spacy.api import decide_lines

    cases = [{"id": "x", "domain": "mortgage", "text": "Clear to close"}]
    with pytest.raises(ValueError, match="batch_size"):
        list(decide_cases(nlp, cases, batch_size=batch_size))
    with pytest.raises(ValueError, match="batch_size"):
        list(decide_lines(nlp, [json.dumps(cases[0])], batch_size=batch_size))


@pytest.mark.parametrize("flags, said", [
    (["--batch-size", "-1"], "--batch-size: must be a whole number of 1 or more"),
    (["--batch-size", "0"], "--batch-size: must be a whole number of 1 or more"),
    (["--engine", "dask", "--workers", "-1"], "--workers must be 0"),
    (["--blocksize", "0"], "--blocksize is for --engine dask only"),  # the local engine has no blocks
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler is for --engine dask only"),
    (["--out", ""], "--out must name a file"),  # refused before any work, not at the rename
])
def test_cli_refuses_bad_numbers_with_a_message(tmp_path, capsys, flags, said):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text('{"id": "c1", "domain": "mortgage", "text": "Clear to close"}\n', encoding="utf8")
    try:
        code = main(["assess", "--cases", str(src), "--out", str(out), *flags])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2 and said in capsys.readouterr().err and not out.exists()


def test_over_long_text_hash_is_of_the_full_text(nlp):
    import hashlib
    text = "clear to close " * 300
    decision = list(decide_cases(nlp, [{"id": "x", "domain": "mortgage", "text": text}]))[0]
    assert decision["text_sha256"] == hashlib.sha256(text.encode()).hexdigest()


def test_cli_assess_file_with_bad_lines(tmp_path, capsys):
    lines = [
        json.dumps({"id": "a", "domain": "medical_logistics", "text": "negative crossmatch"}),
        "{not json",
        json.dumps({"id": "b", "domain": "dentistry", "text": "x"}),
        json.dumps([1, 2, 3]),
        "",
        json.dumps({"id": "c", "domain": "mortgage", "text": 7}),
        json.dumps({"id": "d", "domain": "mortgage", "text": "clear to close",
                    "readings": {"dti_ratio": {"value": True, "unit": "%"}}}),
        json.dumps({"id": "e", "domain": "mortgage", "text": "x" * 5000}),
    ]
    src = tmp_path / "in.jsonl"
    src.write_bytes(("\n".join(lines) + "\n").encode() + b"\xff\xfe broken utf8\n")
    out = tmp_path / "out.jsonl"
    assert main(["assess", "--cases", str(src), "--out", str(out)]) == 0
    decisions = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(decisions) == len(lines) + 1
    assert [d["id"] for d in decisions] == ["a", None, "b", None, None, "c", "d", "e", None]
    assert [d.get("line") for d in decisions] == [None, 2, None, 4, 5, None, None, None, 9]
    assert [d["decision"] for d in decisions] == ["proceed"] + ["escalate"] * 8
    assert "9 decisions written" in capsys.readouterr().err
    # the same file, decided by a saved pipeline (--pipeline) in two worker processes
    saved, out2 = tmp_path / "pipeline", tmp_path / "out2.jsonl"
    build_pipeline().to_disk(saved)
    assert main(["assess", "--cases", str(src), "--out", str(out2), "--pipeline", str(saved), "--workers", "2"]) == 0
    assert out2.read_bytes() == out.read_bytes()


def test_cli_missing_input_is_a_message_not_a_traceback(tmp_path, capsys):
    assert main(["assess", "--cases", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "cannot open" in err and "Traceback" not in err


MISSING = "/nonexistent-semgap/x.jsonl"


@pytest.mark.parametrize("argv", [
    ["verify", "--decisions", MISSING, "--cases", "{ok}"],
    ["verify", "--decisions", "{ok}", "--cases", MISSING],
    ["sign", "--decisions", MISSING, "--out", "{tmp}/s.jsonl"],
    ["drift", "--baseline", MISSING, "--current", "{ok}"],
    ["drift", "--records", MISSING, "--window", "5"],
    ["drift", "--baseline", "{ok}", "--current", "{ok}", "--config", MISSING],
    ["drafts", "--cases", MISSING],
    ["drafts", "--cases", "{ok}", "--decisions", MISSING],
    ["glossary", "replay", "--cases", MISSING, "--version", "2026.11.0"],
    ["queue", "enqueue", "--decisions", MISSING, "--db", "{tmp}/q.sqlite3"],
    ["queue", "enqueue", "--decisions", "{ok}", "--cases", MISSING, "--db", "{tmp}/q.sqlite3"],
], ids=lambda argv: " ".join(argv[:2]))
def test_every_verb_names_a_missing_input_file_in_words(tmp_path, capsys, argv):
    ok = tmp_path / "ok.jsonl"
    ok.write_text('{"id": "c1", "decision": "proceed", "reasons": []}\n', encoding="utf-8")
    code = main([a.format(ok=ok, tmp=tmp_path) for a in argv])
    out, err = capsys.readouterr()
    assert (code, err) == (1, f"error: cannot read {MISSING}: no such file\n")
    assert "Errno" not in out + err
    assert not (tmp_path / "q.sqlite3").exists()  # refused before any work: no queue made


def test_an_input_that_is_a_directory_is_said_so(tmp_path, capsys):
    assert main(["drift", "--records", str(tmp_path), "--window", "5"]) == 1
    assert capsys.readouterr().err == f"error: cannot read {tmp_path}: it is a directory, not a file\n"


@pytest.mark.parametrize("argv, usage", [
    (["queue", "enqueue", "--decisions", "d.jsonl", "--glossaries", "x"], "queue enqueue"),
    (["queue", "list", "--cases", "c.jsonl"], "queue list"),
    (["queue", "show", "3", "--bogus"], "queue show"),
    (["glossary", "replay", "--cases", "c.jsonl", "--version", "1", "--bogus"], "glossary replay"),
    (["glossary", "validate", "--bogus"], "glossary validate"),
    (["drift", "--bogus"], "drift"),
    (["drafts", "--cases", "c.jsonl", "--bogus"], "drafts"),
    (["verify", "--decisions", "d", "--cases", "c", "--bogus"], "verify"),
    (["assess", "--cases", "c", "--out", "o", "extra"], "assess"),
])
def test_an_unknown_option_shows_the_usage_of_its_own_verb(capsys, argv, usage):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.startswith(f"usage: python -m semgap_spacy {usage} [-h]"), err
    assert f"python -m semgap_spacy {usage}: error: unrecognized arguments: " in err


def test_a_stand_alone_tool_shows_the_usage_of_its_own_action(capsys):
    from semgap_spacy.ops import queue_cli

    assert queue_cli.main(["queue", "enqueue", "--decisions", "d.jsonl", "--glossaries", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: semgap_spacy queue enqueue [-h]") and "unrecognized arguments: --glossaries x" in err


def test_cli_demo_prints_a_table(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "demo-01" in out and "block" in out and "proceed" in out and "escalate" in out


def test_demo_shows_every_reason_code_whole():
    from semgap_spacy.ops.cli import demo_table

    decisions = [{"decision": "block", "reasons": [{"code": c} for c in
                                                   ("critical_term", "unattached_negation", "unexplained_content")]},
                 {"decision": "proceed", "reasons": [{"code": "clearance"}, {"code": "clearance"}]}]
    cases = [{"id": "a", "domain": "medical_logistics", "text": "No delays, crossmatch positive"},
             {"id": "b", "domain": "mortgage", "text": "Clear to close"}]
    header, first, second = demo_table(decisions, cases)
    assert "critical_term,unattached_negation,unexplained_content No delays" in first
    assert second.split()[3:] == ["clearance", "Clear", "to", "close"]  # a code once, however often given
    assert header.index("text") == first.index("No delays") == second.index("Clear to")  # columns line up


def test_readme_demo_block_is_what_demo_prints(capsys):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("Demo output (real run):\n\n```text\n") + len("Demo output (real run):\n\n```text\n")
    assert main(["demo"]) == 0
    assert capsys.readouterr().out == readme[start:readme.index("```", start)]


def test_python_dash_m_runs_in_a_subprocess(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "domain": "mortgage", "text": "title defect found"}) + "\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(src), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["decision"] == "block"


def test_factories_visible_without_import_in_fresh_interpreter():
    code = ("import spacy; nlp = spacy.blank('en'); "
            "[nlp.add_pipe(n) for n in ('semgap_typo_repair','semgap_terms','semgap_context',"
            "'semgap_quantities','semgap_decision')]; print(nlp.pipe_names)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "semgap_decision" in proc.stdout


CASES = [
    {"id": "r1", "domain": "medical_logistics", "text": "xm neg, cold ischemia 30 hours",
     "readings": {"cold_ischemia_elapsed": {"value": 30, "unit": "h"}}},
    {"id": "r2", "domain": "mortgage", "text": "Clear to clsoe; DTI 38%"},
    {"id": "r3", "domain": "pharma_qa", "text": "lote liberado, OOS pendiente"},
    {"id": "r4", "domain": "aviation_maintenance", "text": "CRS signed",
     "readings": {"hours_since_inspection": {"start": "2026-11-28T10:00:00Z"}}, "now": "2026-11-30T10:00:00Z"},
]


def test_config_file_to_disk_and_spacy_load_round_trip(tmp_path):
    from thinc.api import Config
    config = Config().from_disk("configs/pipeline.cfg")
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    before = list(decide_cases(nlp, CASES))
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    after = list(decide_cases(loaded, CASES))
    assert before == after
    assert (tmp_path / "pipeline" / "semgap_terms" / "glossary.json").exists()
    assert [d["decision"] for d in before] == ["block", "escalate", "escalate", "proceed"]
    assert loaded.get_pipe("semgap_terms").to_bytes() == nlp.get_pipe("semgap_terms").to_bytes()


def test_custom_glossary_travels_with_the_pipeline(tmp_path):
    from semgap_spacy.glossary.models import load_glossaries, GlossarySet
    data = load_glossaries().to_dict()
    data["mortgage"]["terms"][0]["phrases"].append("funding approved")
    data["mortgage"]["version"] = "2026.12.0"
    custom = GlossarySet.from_dict(data)
    nlp = build_pipeline(custom)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    decision = assess(loaded, "funding approved", domain="mortgage")._.semgap_decision
    assert decision["decision"] == "proceed"
    assert decision["glossary_sha256"] == custom.sha256 and decision["glossary_version"] == "2026.12.0"


def test_multiprocess_pipe_gives_the_same_decisions(nlp):
    from semgap_spacy.api import case_doc, decision_of
    docs = [case_doc(nlp, c) for c in CASES * 3]
    single = [decision_of(d) for d in nlp.pipe([case_doc(nlp, c) for c in CASES * 3])]
    multi = [decision_of(d) for d in nlp.pipe(docs, n_process=2, batch_size=2)]
    assert single == multi


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3),
    max_leaves=8)
readings_strategy = st.one_of(json_values, st.dictionaries(
    st.sampled_from(["cold_ischemia_elapsed", "transport_temperature", "dti_ratio", "tire_pressure", "bogus"]),
    st.one_of(json_values, st.fixed_dictionaries({"value": json_values, "unit": st.text(max_size=6)}),
              st.fixed_dictionaries({"duration": st.text(max_size=12)}),
              st.fixed_dictionaries({"start": st.text(max_size=25)})), max_size=3))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.text(max_size=300), json_values),
       domain=st.one_of(st.sampled_from(["medical_logistics", "mortgage", "pharma_qa", "aviation_maintenance"]),
                        json_values),
       readings=readings_strategy, now=st.one_of(st.none(), st.text(max_size=25), json_values))
def test_property_any_input_gives_one_of_three_decisions(nlp, text, domain, readings, now):
    case = {"id": "p", "domain": domain, "text": text, "readings": readings, "now": now}
    decision = list(decide_cases(nlp, [case]))[0]
    assert decision["decision"] in OUTCOMES
    assert decision["reasons"]
    json.dumps(decision)  # serialisable
    if not isinstance(text, str) or domain not in ("medical_logistics", "mortgage", "pharma_qa",
                                                   "aviation_maintenance"):
        assert decision["decision"] != "proceed"


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(min_value=4001, max_value=200_000), word=st.sampled_from(["xm neg ", "é\u0301 ", "\x00 "]))
def test_property_huge_text(nlp, size, word):
    text = (word * (size // len(word) + 1))[:size]
    decision = list(decide_cases(nlp, [{"id": "h", "domain": "medical_logistics", "text": text}]))[0]
    assert decision["decision"] in ("escalate", "block")
    assert "text_too_long" in [r["code"] for r in decision["reasons"]]

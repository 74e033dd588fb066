"""``python -m semgap_spacy drift`` and ``drafts``, run as a user would."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import srsly

from semgap_spacy import decide_cases
from semgap_spacy.ops.draft_miner import mine_candidates, select_texts
from semgap_spacy.ops.drift import compare_windows
from semgap_spacy.glossary import load_glossaries

ROOT = Path(__file__).resolve().parents[2]
TERMS = ["MED.XM_NEGATIVE", "MED.XM_POSITIVE", "MED.COLD_ISCHEMIA"]


def run(*args, code=None):
    """The CLI in a fresh interpreter, from the repository root (this checkout's package)."""
    argv = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "semgap_spacy", *args]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)


def records(n, weights, seed, scale=1.0, escalate_share=0.0):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        outcome = "escalate" if rng.random() < escalate_share else "proceed"
        out.append({"id": f"c-{seed}-{i}", "decision": outcome,
                    "reasons": [{"code": "clearance", "outcome": outcome, "message": "",
                                 "term_id": rng.choices(TERMS, weights)[0]}],
                    "fields": {"cold_ischemia_elapsed": rng.uniform(6, 14) * scale}})
    return out


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    d = tmp_path_factory.mktemp("logs")
    base, stable = records(200, [1, 1, 1], 1), records(200, [1, 1, 1], 2)
    shifted = records(200, [1, 6, 1], 3, scale=60.0, escalate_share=0.5)  # minutes sent as hours
    return {"dir": d, "base": base, "shifted": shifted,
            "base_path": write(d / "base.jsonl", base), "stable_path": write(d / "stable.jsonl", stable),
            "shifted_path": write(d / "shifted.jsonl", shifted),
            "all_path": write(d / "all.jsonl", base + stable + shifted)}


def test_drift_reports_what_moved_and_can_fail_a_job(logs):
    done = run("drift", "--baseline", logs["base_path"], "--current", logs["shifted_path"], "--fail-on-drift")
    assert done.returncode == 3, done.stderr
    out = done.stdout
    assert "Result: DRIFT: 3 alert(s)" in out
    assert "term mix shifted: PSI" in out
    assert "cold_ischemia_elapsed: median moved by x" in out
    assert "escalation_rate rose by" in out
    calm = run("drift", "--baseline", logs["base_path"], "--current", logs["stable_path"], "--fail-on-drift")
    assert calm.returncode == 0, calm.stderr
    assert "Result: no drift found in 1 window(s)" in calm.stdout and "ALERTS\n\nnone" in calm.stdout


def test_drift_json_is_the_library_report(logs):
    done = run("drift", "--baseline", logs["base_path"], "--current", logs["shifted_path"], "--format", "json")
    assert done.returncode == 0, done.stderr
    expected = compare_windows(logs["base"], logs["shifted"]).to_dict()
    assert json.loads(done.stdout)["reports"] == [json.loads(json.dumps(expected))]


def test_drift_windows_markdown_to_a_file_and_png(logs, tmp_path):
    pytest.importorskip("matplotlib", reason="the PNG chart needs the 'plot' extra (matplotlib)")
    out, png = tmp_path / "drift.md", tmp_path / "drift.png"
    done = run("drift", "--records", logs["all_path"], "--window", "200", "--format", "markdown",
               "--out", str(out), "--png", str(png))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    text = out.read_text("utf-8")
    assert text.startswith("# semgap drift report")
    assert "Result: DRIFT: 3 alert(s) in 1 of 2 window(s)" in text
    assert "| window 1 | 200 |" in text and "| window 2 | 200 |" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_drift_png_without_matplotlib_says_which_extra(logs, tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None; from semgap_spacy.ops.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    done = run("drift", "--baseline", logs["base_path"], "--current", logs["shifted_path"],
               "--png", str(tmp_path / "x.png"), code=code)
    assert done.returncode == 1
    assert "semgap_spacy[plot]" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == "" and not (tmp_path / "x.png").exists()  # refused before any work


def test_drift_bad_input_is_one_error_line(logs, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(logs["base"][0]) + "\n{not json\n", encoding="utf-8")
    done = run("drift", "--baseline", str(bad), "--current", logs["shifted_path"])
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and ":2:" in done.stderr and "Traceback" not in done.stderr
    done = run("drift", "--records", logs["all_path"])
    assert done.returncode == 1 and "--window" in done.stderr


CASES = [
    {"id": f"c-{i}", "domain": "medical_logistics", "text": t} for i, t in enumerate([
        "cooler probe temperature logger reads fine", "probe temperature logger shows 5 C",
        "Probe temperature logger attached", "xm neg", "Negative crossmatch, cold ischemia 6 h."])]


def test_drafts_decides_the_cases_and_lists_the_miners_drafts(nlp, tmp_path):
    cases = write(tmp_path / "cases.jsonl", CASES)
    known = [t for _d, term in load_glossaries().terms() for t, *_ in term.variants()]
    expected = mine_candidates(select_texts(CASES, decide_cases(nlp, CASES)), known_phrases=known)
    assert expected  # the cases hold something to mine
    done = run("drafts", "--cases", cases, "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["candidates"] == [c.to_dict() for c in expected]
    assert report["unrecognised"] == len(select_texts(CASES, decide_cases(nlp, CASES)))
    text = run("drafts", "--cases", cases).stdout
    assert "probe temperature logger" in text and "Escalated as unrecognised: 3 of 5 cases" in text


def test_drafts_reads_given_decisions_and_writes_only_a_candidates_file(tmp_path):
    cases = write(tmp_path / "cases.jsonl", CASES)
    # Only c-0 and c-1 are logged as unrecognised: the miner must use the log, not re-decide.
    decisions = write(tmp_path / "decisions.jsonl", [
        {"id": c["id"], "decision": "escalate" if i < 2 else "proceed",
         "reasons": [{"code": "no_recognised_term" if i < 2 else "clearance"}]} for i, c in enumerate(CASES)])
    target = tmp_path / "candidates" / "med.yaml"
    done = run("drafts", "--cases", cases, "--decisions", decisions, "--write", str(target), "--format", "markdown")
    assert done.returncode == 0, done.stderr
    assert "Escalated as unrecognised: 2 of 5 cases" in done.stdout
    assert "| probe temperature logger | 2 | c-0, c-1 |" in done.stdout
    data = srsly.read_yaml(target)
    assert data["kind"] == "semgap_candidates"
    assert [c["status"] for c in data["candidates"]] == ["draft"] * len(data["candidates"])
    refused = run("drafts", "--cases", cases, "--decisions", decisions,
                  "--write", str(tmp_path / "glossaries" / "medical_logistics.yaml"))
    assert refused.returncode == 1 and "refusing to write" in refused.stderr
    assert not (tmp_path / "glossaries").exists()


def test_drift_reads_the_readings_of_decisions_as_assess_writes_them(tmp_path):
    """No extras: the field values come from the decisions' reading reasons (canonical units),
    and a source that starts sending minutes as hours moves the median x60 and the block rate."""
    rng = random.Random(11)

    def cases(n, scale):
        return [{"id": f"k{scale}-{i}", "domain": "medical_logistics", "text": "Negative crossmatch.",
                 "readings": {"cold_ischemia_elapsed": {"value": round(rng.uniform(4, 9) * scale, 1),
                                                        "unit": "h"}}} for i in range(n)]

    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    write(tmp_path / "old_cases.jsonl", cases(40, 1))
    write(tmp_path / "new_cases.jsonl", cases(40, 60))  # minutes, labelled hours
    for cases_file, out in (("old_cases.jsonl", old), ("new_cases.jsonl", new)):
        done = run("assess", "--cases", str(tmp_path / cases_file), "--out", str(out))
        assert done.returncode == 0, done.stderr
    assert all("fields" not in json.loads(line) for line in old.read_text(encoding="utf-8").splitlines())
    done = run("drift", "--baseline", str(old), "--current", str(new), "--format", "json", "--fail-on-drift")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)["reports"][0]
    ratio = report["median_ratios"]["cold_ischemia_elapsed"]
    assert 40 < ratio < 90
    kinds = {(a["kind"], a["metric"]) for a in report["alerts"]}
    assert ("median_ratio", "cold_ischemia_elapsed") in kinds and ("rate_increase", "block_rate") in kinds
    calm = run("drift", "--baseline", str(old), "--current", str(old), "--fail-on-drift")
    assert calm.returncode == 0 and "no drift found" in calm.stdout


def test_drafts_skips_lines_that_are_not_cases_and_counts_them(nlp, tmp_path):
    good = [json.dumps(c) for c in CASES]
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(good[:1] + ["not json"] + good[1:3] + ['["a list"]', ""] + good[3:]) + "\n",
                     encoding="utf-8")
    known = [t for _d, term in load_glossaries().terms() for t, *_ in term.variants()]
    expected = mine_candidates(select_texts(CASES, decide_cases(nlp, CASES)), known_phrases=known)
    done = run("drafts", "--cases", str(cases), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["candidates"] == [c.to_dict() for c in expected]
    assert (report["cases"], report["skipped_lines"]) == (5, {"cases": 2, "decisions": 0})
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text("{broken\n" + "".join(json.dumps(
        {"id": c["id"], "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]}) + "\n"
        for c in CASES[:2]), encoding="utf-8")
    done = run("drafts", "--cases", str(cases), "--decisions", str(decisions))
    assert done.returncode == 0, done.stderr
    assert f"Skipped: 2 lines of {cases} are not JSON objects (lines 2, 5)" in done.stdout
    assert f"Skipped: 1 line of {decisions} is not a JSON object (line 1)" in done.stdout
    assert "Escalated as unrecognised: 2 of 5 cases" in done.stdout and "probe temperature logger" in done.stdout


def test_drafts_write_json_to_a_json_file_and_refuses_a_name_of_no_format(tmp_path):
    cases = write(tmp_path / "cases.jsonl", CASES)
    decisions = write(tmp_path / "decisions.jsonl", [
        {"id": c["id"], "decision": "escalate", "reasons": [{"code": "no_recognised_term"}]} for c in CASES[:2]])
    target = tmp_path / "candidates.json"
    done = run("drafts", "--cases", cases, "--decisions", decisions, "--write", str(target))
    assert done.returncode == 0, done.stderr
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["kind"] == "semgap_candidates" and data["candidates"][0]["phrase"] == "probe temperature logger"
    other = tmp_path / "candidates.txt"
    refused = run("drafts", "--cases", cases, "--decisions", decisions, "--write", str(other))
    assert refused.returncode == 1 and not other.exists() and refused.stdout == ""  # before any work
    assert refused.stderr == (f"error: refusing to write draft candidates to {other}: name the file .yaml or "
                              ".yml (written as YAML) or .json (written as JSON)\n")


@pytest.mark.parametrize("given", ["0", "-1", "many"])
def test_drafts_max_below_1_is_a_usage_error(tmp_path, given):
    cases = write(tmp_path / "cases.jsonl", CASES)
    done = run("drafts", "--cases", cases, "--max", given)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: python -m semgap_spacy drafts")
    assert f"drafts: error: argument --max: must be a whole number of 1 or more, not '{given}'" in done.stderr

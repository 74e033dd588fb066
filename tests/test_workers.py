"""Worker processes: same decisions in the same order, a crash fails closed,
and neither Ctrl-C nor a caller that stops reading leaves a process behind.

Every test here runs real processes (``multiprocessing`` workers, the CLI as
a subprocess) with timeouts, so a hang fails the test instead of the suite.
"""
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from spacy.language import Language

from semgap_spacy import build_pipeline, decide_cases
from semgap_spacy.api import decide_lines
from semgap_spacy.workers import decide_in_workers

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    {"id": "w-1", "domain": "mortgage", "text": "Clear to close issued; DTI 38%",
     "readings": {"dti_ratio": {"value": 38, "unit": "%"}}},
    {"id": "w-2", "domain": "medical_logistics", "text": "No delays, crossmatch positive"},
    {"id": "w-3", "domain": "dentistry", "text": "all clear"},
    {"id": 4, "domain": "mortgage", "text": None},
    "not a case",
    {"id": "w-6", "domain": "aviation_maintenance", "text": "Released to service, tire pressure 200 psi",
     "readings": {"tire_pressure": {"value": 200, "unit": "psi"}}},
    {"id": "w-7", "domain": "pharma_qa", "text": "Batch released, OOS noted on assay"},
]


@Language.component("semgap_test_crash")
def _crash_on_boom(doc):
    """Dies the way a segfault does: no exception, no cleanup."""
    if "BOOM" in doc.text:
        os._exit(3)
    return doc


@pytest.fixture(scope="module")
def nlp():
    return build_pipeline()


@pytest.fixture(scope="module")
def saved(nlp, tmp_path_factory):
    """The pipeline saved once, for the subprocesses to load quickly (``--pipeline``)."""
    path = tmp_path_factory.mktemp("pipeline")
    nlp.to_disk(path)
    return str(path)


def _no_children_left(timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not multiprocessing.active_children():
            return True
        time.sleep(0.1)
    return False


def test_workers_give_the_same_decisions_in_input_order(nlp):
    cases = CASES * 6
    alone = list(decide_cases(nlp, cases))
    assert list(decide_cases(nlp, cases, batch_size=4, n_process=2)) == alone
    assert [d["id"] for d in alone[:7]] == ["w-1", "w-2", "w-3", 4, None, "w-6", "w-7"]
    assert _no_children_left()


def test_lines_are_parsed_in_the_workers_with_the_same_strict_rules(nlp):
    lines = [json.dumps(c).encode() + b"\n" for c in CASES] + [b"not json\n", b"\n", b'{"id": "d", "id": "e"}\n',
                                                                 b"\xff\xfe\n"]
    alone = list(decide_lines(nlp, lines * 3))
    assert list(decide_lines(nlp, lines * 3, batch_size=2, n_process=2)) == alone
    refused = [d for d in alone if d.get("line") is not None]
    assert [d["line"] for d in refused[:5]] == [5, 8, 9, 10, 11]
    assert {r["code"] for d in refused for r in d["reasons"]} >= {"invalid_case", "duplicate_key"}


def test_a_worker_crash_fails_closed_on_its_case_only(nlp):
    crashing = build_pipeline()
    crashing.add_pipe("semgap_test_crash", first=True)
    cases = CASES * 3
    cases = cases[:9] + [{"id": "boom", "domain": "mortgage", "text": "BOOM Clear to close"}] + cases[9:]
    decisions = list(decide_in_workers(crashing, cases, "cases", n_process=2, batch_size=2, chunk_size=4))
    assert len(decisions) == len(cases)
    boom = decisions[9]
    assert boom["id"] == "boom" and boom["decision"] == "escalate"
    assert [r["code"] for r in boom["reasons"]] == ["worker_failed"]
    assert "exit code 3" in boom["reasons"][0]["message"]
    assert boom["language_packs"] == {"de": "bundled", "en": "bundled", "es": "bundled", "fr": "bundled"}
    # every other case, its chunk neighbours included, is decided as without the crash
    expected = list(decide_cases(nlp, cases[:9] + cases[10:]))
    assert decisions[:9] + decisions[10:] == expected
    assert _no_children_left()


def test_a_worker_that_cannot_load_the_pipeline_stops_the_run_before_any_decision(nlp, monkeypatch):
    from semgap_spacy import workers

    monkeypatch.setattr(workers, "load_pipeline", lambda path: 1 / 0)
    # inside a memory zone the workers load the pipeline even where they fork
    with nlp.memory_zone(), pytest.raises(workers.WorkerStartError, match="ZeroDivisionError"):
        list(decide_in_workers(nlp, CASES, "cases", n_process=2))
    assert _no_children_left()


_FORKS = multiprocessing.get_start_method() == "fork"


@pytest.mark.skipif(not _FORKS, reason="processes do not start by forking here")
def test_forked_workers_start_from_the_pipeline_in_memory(nlp, monkeypatch):
    from semgap_spacy import workers

    alone = list(decide_cases(nlp, CASES * 4))
    monkeypatch.setattr(workers, "load_pipeline", lambda path: 1 / 0)
    monkeypatch.setattr(nlp, "to_disk", lambda path: 1 / 0)
    assert list(decide_in_workers(nlp, CASES * 4, "cases", n_process=2, batch_size=2)) == alone
    assert _no_children_left()


def test_spawned_workers_and_workers_in_a_memory_zone_load_the_pipeline(nlp):
    alone = list(decide_cases(nlp, CASES * 4))
    spawn = multiprocessing.get_context("spawn")
    assert list(decide_in_workers(nlp, CASES * 4, "cases", n_process=2, batch_size=2, context=spawn)) == alone
    with nlp.memory_zone():
        assert list(decide_in_workers(nlp, CASES * 4, "cases", n_process=2, batch_size=2)) == alone
    assert _no_children_left()


def test_a_caller_that_stops_reading_leaves_no_worker(nlp):
    decisions = decide_cases(nlp, CASES * 200, batch_size=8, n_process=2)
    first = next(decisions)
    assert first["id"] == "w-1"
    assert len(multiprocessing.active_children()) == 2
    decisions.close()
    assert _no_children_left()


_ABANDON = textwrap.dedent("""
    import json, sys
    import spacy
    from semgap_spacy import decide_cases
    nlp = spacy.load(sys.argv[1])
    cases = [{"id": str(i), "domain": "mortgage", "text": "Clear to close issued"} for i in range(20000)]
    for i, decision in enumerate(decide_cases(nlp, cases, batch_size=16, n_process=2)):
        if i == 3:
            break
    import multiprocessing
    print(json.dumps([p.pid for p in multiprocessing.active_children()]))
""")


def _run_script(tmp_path, code: str, saved: str) -> str:
    """Run a script in a fresh interpreter (with the saved pipeline's path), within a time limit."""
    script = tmp_path / "script.py"
    script.write_text(code, encoding="utf8")
    done = subprocess.run([sys.executable, str(script), saved], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_abandoning_the_generator_in_a_script_exits_without_hanging(tmp_path, saved):
    assert json.loads(_run_script(tmp_path, _ABANDON, saved).strip().splitlines()[-1]) == []


_MANY_CHUNKS = textwrap.dedent("""
    import json
    from pathlib import Path
    import spacy, sys
    from semgap_spacy.api import decide_lines
    lines = Path("heldout/v2/dev.jsonl").read_bytes().splitlines(keepends=True) * 8
    nlp = spacy.load(sys.argv[1])
    print(sum(1 for _ in decide_lines(nlp, lines, n_process=2, as_json=True)), len(lines))
""")


def test_many_large_chunks_in_flight_do_not_block_the_parent_and_workers(tmp_path, saved):
    # With chunks going out and decisions coming back on full pipes, a parent that
    # blocks on a send while a worker blocks on its reply would wait forever.
    decided, given = map(int, _run_script(tmp_path, _MANY_CHUNKS, saved).split())
    assert decided == given == 8 * 766


def _wait_for_workers(proc: psutil.Process, count: int, timeout: float) -> list:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = proc.children(recursive=True)
        if len(children) >= count:
            return children
        time.sleep(0.1)
    raise AssertionError("the workers did not start")


def _write_cases(path: Path, n: int) -> None:
    with open(path, "w", encoding="utf8") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": str(i), "domain": "mortgage", "text": f"Clear to close issued {i}"}) + "\n")


def test_ctrl_c_ends_the_cli_and_its_workers(tmp_path, saved):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_cases(src, 100_000)
    cli = subprocess.Popen([sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(src), "--out", str(out),
                            "--workers", "2", "--batch-size", "32", "--pipeline", saved], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        workers = _wait_for_workers(psutil.Process(cli.pid), 2, timeout=60)
        time.sleep(1.0)  # the workers are deciding
        cli.send_signal(signal.SIGINT)
        assert cli.wait(timeout=30) == 130
    finally:
        if cli.poll() is None:
            cli.kill()
    gone, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive, f"workers left running: {[p.pid for p in alive]}"
    assert "Traceback" not in cli.stderr.read()
    assert not out.exists()


def test_workers_stop_by_themselves_when_their_parent_is_killed(tmp_path, saved):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_cases(src, 100_000)
    cli = subprocess.Popen([sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(src), "--out", str(out),
                            "--workers", "2", "--pipeline", saved], cwd=ROOT, stderr=subprocess.DEVNULL)
    try:
        workers = _wait_for_workers(psutil.Process(cli.pid), 2, timeout=60)
        cli.kill()
        cli.wait(timeout=10)
    finally:
        if cli.poll() is None:
            cli.kill()
    gone, alive = psutil.wait_procs(workers, timeout=15)
    assert not alive, f"workers left running: {[p.pid for p in alive]}"

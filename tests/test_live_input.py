"""A live producer gets each decision before it sends the next case.

An agent that keeps ``assess --cases - --out -`` running and writes one case,
then waits for its decision before it acts, must get that decision; a reader
that waited for a memory zone's worth of cases (4,096) would never answer it.
Every test that could hang runs with a timeout (a thread joined with one, or
a subprocess read with ``select``), so a hang fails the test, not the suite.
"""
import io
import json
import os
import queue
import select
import signal
import subprocess
import textwrap
import sys
import threading
import time
from pathlib import Path

import pytest

from semgap_spacy import api, assess_cases, decide_cases
from semgap_spacy.api import chunked, decide_lines
from semgap_spacy.util.live_lines import LiveLines

ROOT = Path(__file__).resolve().parents[1]
CASES = [{"id": "l-1", "domain": "mortgage", "text": "Clear to close issued"},
         {"id": "l-2", "domain": "medical_logistics", "text": "No delays, crossmatch positive"},
         {"id": "l-3", "domain": "mortgage", "text": "File is not clear to close"}]
ANSWER_SECONDS = 120  # a first answer includes building the pipeline on a slow machine


@pytest.mark.parametrize("data", [b"", b"a\n", b"a\nb", b"a\n\nb\n", b"\n\n", b"x" * 200_000 + b"\ny\n",
                                  b"a\r\nb\r\n", "é\n".encode() + b"\xff\n"])
def test_live_lines_reads_the_lines_a_file_gives(data):
    assert list(LiveLines(io.BytesIO(data))) == io.BytesIO(data).readlines()


def test_live_lines_says_whether_the_next_line_is_there_without_waiting():
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as stream:
        lines = LiveLines(stream)
        assert lines.ready() is False  # nothing written yet
        os.write(write_end, b"one\ntw")
        assert lines.ready() is True
        it = iter(lines)
        assert next(it) == b"one\n"
        # the start of "two" is not a line: a producer writing blocks that end mid-line must
        # not hold back the lines it has finished
        assert lines.ready() is False
        os.write(write_end, b"o\n")
        assert next(it) == b"two\n"
        assert lines.ready() is False
        os.close(write_end)
        assert lines.ready() is True  # the end of the stream is there to be read
        assert list(it) == []


def test_a_non_blocking_descriptor_waits_for_its_lines_rather_than_ending():
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)  # as a parent or event loop that shares the pipe may leave it

    def write_later():
        os.write(write_end, b"a")
        threading.Event().wait(0.2)
        os.write(write_end, b"b\nc\n")
        os.close(write_end)

    with os.fdopen(read_end, "rb") as stream:
        writer = threading.Thread(target=write_later)
        writer.start()
        assert list(LiveLines(stream)) == [b"ab\n", b"c\n"]
        writer.join()


def test_a_stream_without_a_descriptor_is_always_ready():
    lines = LiveLines(io.BytesIO(b"a\n"))
    assert lines.ready() is True


def test_chunks_end_where_the_next_item_is_not_there_yet():
    there = [True, False, True, True, False]
    calls = iter(there)
    assert list(chunked(range(6), 3, lambda: next(calls, True))) == [[0, 1], [2, 3, 4], [5]]
    assert list(chunked(range(6), 3)) == [[0, 1, 2], [3, 4, 5]]


def _next_within(iterator, seconds: float):
    """The next item of ``iterator``, or pytest.fail when none comes in ``seconds``."""
    got = []
    reader = threading.Thread(target=lambda: got.append(next(iterator)), daemon=True)
    reader.start()
    reader.join(seconds)
    if reader.is_alive():
        pytest.fail(f"no decision within {seconds} s: the decider waits for cases that were never sent")
    return got[0]


@pytest.mark.parametrize("n_process", [1, 2])
def test_decide_cases_answers_each_case_of_a_queue_before_the_next_is_sent(nlp, n_process):
    pending: "queue.Queue" = queue.Queue()
    decisions = decide_cases(nlp, iter(pending.get, None), n_process=n_process, ready=lambda: not pending.empty())
    try:
        for case in CASES:
            pending.put(case)
            decision = _next_within(decisions, ANSWER_SECONDS)
            assert decision == next(decide_cases(nlp, [case]))
    finally:
        pending.put(None)
    assert list(decisions) == []


def test_assess_cases_hands_on_each_doc_of_a_queue_before_the_next_case_is_sent(nlp):
    pending: "queue.Queue" = queue.Queue()
    docs = assess_cases(nlp, iter(pending.get, None), ready=lambda: not pending.empty())
    try:
        for case in CASES:
            pending.put(case)
            doc = _next_within(docs, ANSWER_SECONDS)
            assert doc.text == case["text"] and doc._.semgap_decision == next(decide_cases(nlp, [case]))
    finally:
        pending.put(None)


def test_without_ready_the_stream_is_read_a_zone_at_a_time(nlp, monkeypatch):
    """The default (a list, a file): a zone's worth is read before any is decided."""
    monkeypatch.setattr(api, "ZONE_CASES", 3)
    read = []

    def cases():
        for case in CASES * 2:
            read.append(case["id"])
            yield case

    decisions = decide_cases(nlp, cases())
    next(decisions)
    assert len(read) == 3
    decisions.close()


def test_a_live_stream_rebuilds_the_string_table_once_a_zone_of_cases(nlp, monkeypatch):
    from semgap_spacy.util import recycle
    rebuilds = []
    real = recycle.rebuild_string_table
    monkeypatch.setattr(api, "rebuild_string_table", lambda n: rebuilds.append(real(n)))
    monkeypatch.setattr(api, "ZONE_CASES", 4)
    lines = [json.dumps(case).encode() for case in CASES * 4]  # 12 lines, each its own zone
    live = list(decide_lines(nlp, lines, own_pipeline=True, ready=lambda: False))
    assert rebuilds == [True, True, True]  # after cases 4, 8 and 12, not after every one-case zone
    assert live == list(decide_lines(nlp, lines))


def _answer(process: subprocess.Popen, seconds: float) -> dict:
    readable, _, _ = select.select([process.stdout], [], [], seconds)
    if not readable:
        process.kill()
        pytest.fail(f"assess gave no decision within {seconds} s of the case")
    line = process.stdout.readline()
    assert line, process.stderr.read()
    return json.loads(line)


@pytest.mark.parametrize("extra", [[], ["--workers", "2"]])
def test_assess_answers_a_live_producer_case_by_case(tmp_path, extra):
    saved = tmp_path / "cases.jsonl"
    saved.write_text("".join(json.dumps(case) + "\n" for case in CASES))
    batch = subprocess.run([sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(saved), "--out", "-"],
                           cwd=ROOT, capture_output=True, timeout=300, check=True)
    expected = [json.loads(line) for line in batch.stdout.splitlines()]
    process = subprocess.Popen([sys.executable, "-m", "semgap_spacy", "assess", "--cases", "-", "--out", "-",
                                *extra], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        got = []
        for case in CASES:
            process.stdin.write((json.dumps(case) + "\n").encode())
            process.stdin.flush()
            got.append(_answer(process, ANSWER_SECONDS))
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert process.stdout.read() == b""
    finally:
        if process.poll() is None:
            process.kill()
    assert got == expected
    assert b"3 decisions written" in process.stderr.read()


def _live(extra=(), **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "semgap_spacy", "assess", "--cases", "-", *extra], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def test_sigterm_ends_a_live_run_like_ctrl_c_and_leaves_out_as_it_was(tmp_path):
    out = tmp_path / "decisions.jsonl"
    out.write_text("OLD\n")
    process = _live(["--out", str(out)])
    try:
        deadline = time.monotonic() + ANSWER_SECONDS
        while not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]:  # OUT's temporary file: running
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
            time.sleep(0.05)
        process.stdin.write((json.dumps(CASES[0]) + "\n").encode())
        process.stdin.flush()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
    assert [p.name for p in tmp_path.iterdir()] == ["decisions.jsonl"] and out.read_text() == "OLD\n"
    assert b"Traceback" not in process.stderr.read()


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="no /dev/stdout here")
def test_out_dev_stdout_is_written_as_it_goes():
    process = _live(["--out", "/dev/stdout"])
    try:
        process.stdin.write((json.dumps(CASES[0]) + "\n").encode())
        process.stdin.flush()
        assert _answer(process, ANSWER_SECONDS)["id"] == CASES[0]["id"]
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()


def test_decisions_on_stdout_are_utf8_whatever_the_locale(tmp_path):
    case = {"id": "ü-1", "domain": "mortgage", "text": "Clear to close, grüße"}
    saved = tmp_path / "cases.jsonl"
    saved.write_text(json.dumps(case, ensure_ascii=False) + "\n", encoding="utf8")
    out = tmp_path / "out.jsonl"
    assert subprocess.run([sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(saved), "--out", str(out)],
                          cwd=ROOT, capture_output=True, timeout=300).returncode == 0
    for encoding in ("ascii", "latin-1"):
        done = subprocess.run([sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(saved), "--out", "-"],
                              cwd=ROOT, capture_output=True, timeout=300,
                              env={**os.environ, "PYTHONIOENCODING": encoding})
        assert done.returncode == 0, done.stderr
        assert done.stdout == out.read_bytes()


@pytest.mark.parametrize("stream", ["stdin", "stdout"])
def test_a_closed_stdin_or_stdout_is_one_clear_line(tmp_path, monkeypatch, capsys, stream):
    from semgap_spacy.ops.cli import main
    saved = tmp_path / "cases.jsonl"
    saved.write_text(json.dumps(CASES[0]) + "\n")
    monkeypatch.setattr(sys, stream, None)
    args = ["assess", "--cases", "-" if stream == "stdin" else str(saved),
            "--out", "-" if stream == "stdout" else str(tmp_path / "out.jsonl")]
    assert main(args) == 2
    assert f"{stream} is closed" in capsys.readouterr().err


def test_ctrl_c_while_a_worker_is_forked_is_raised_once_the_fork_is_done():
    from semgap_spacy.workers import _interrupt_after
    reached = False
    with pytest.raises(KeyboardInterrupt):
        with _interrupt_after():
            os.kill(os.getpid(), signal.SIGINT)  # lands inside: held, not lost
            time.sleep(0.05)
            reached = True
    assert reached and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with _interrupt_after(reraise=False):  # while the workers stop: a second Ctrl-C adds nothing
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_workers_that_died_while_idle_are_replaced_without_failing_a_case(nlp):
    import multiprocessing
    pending: "queue.Queue" = queue.Queue()
    decisions = decide_cases(nlp, iter(pending.get, None), n_process=2, ready=lambda: not pending.empty())
    try:
        pending.put(CASES[0])
        _next_within(decisions, ANSWER_SECONDS)
        for child in multiprocessing.active_children():  # as the OOM killer would, between cases
            if child.name == "semgap-worker":
                os.kill(child.pid, signal.SIGKILL)
                child.join(10)
        pending.put(CASES[1])
        assert _next_within(decisions, ANSWER_SECONDS) == next(decide_cases(nlp, [CASES[1]]))
    finally:
        pending.put(None)
    assert list(decisions) == []


@pytest.mark.parametrize("command", [["assess", "--cases", "CASES", "--out", "-"],
                                     ["assess", "--cases", "CASES", "--out", "-", "--workers", "2"]])
def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path, command):
    """``assess ... | head -1``: the command ends as the shell's own tools do, 128 + SIGPIPE and
    nothing on stderr, not "BrokenPipeError" (decisions well past a pipe's buffer are pending)."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({**CASES[i % 3], "id": f"p-{i}"}) + "\n" for i in range(3000)),
                     encoding="utf-8")
    args = [str(cases) if a == "CASES" else a for a in command]
    proc = subprocess.Popen([sys.executable, "-m", "semgap_spacy", *args], cwd=str(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    ready, _, _ = select.select([proc.stdout], [], [], ANSWER_SECONDS)
    assert ready, "no first decision"
    assert json.loads(proc.stdout.readline())["id"] == "p-0"
    proc.stdout.close()
    try:
        _, err = proc.communicate(timeout=ANSWER_SECONDS)
    finally:
        proc.kill()
    assert proc.returncode == 141, err
    assert b"Error" not in err and b"Traceback" not in err, err


def test_ctrl_c_while_the_cli_imports_spacy_ends_quietly():
    """``python -m semgap_spacy`` imports the package, and spaCy, before the CLI's own handling
    exists: a Ctrl-C that lands there exits with 130 and no traceback. The interrupt is sent
    from inside the import of spaCy, so it lands there every time."""
    code = textwrap.dedent("""
        import builtins, os, runpy, signal, sys
        real_import = builtins.__import__
        def importing(name, *args, **kwargs):
            if name.partition(".")[0] == "spacy" and "spacy" not in sys.modules:
                os.kill(os.getpid(), signal.SIGINT)
            return real_import(name, *args, **kwargs)
        builtins.__import__ = importing
        sys.argv = ["-m", "demo"]  # as Python sets it while it locates the module of -m
        runpy.run_module("semgap_spacy", run_name="__main__", alter_sys=True)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=300)
    assert done.returncode == 130 and b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]


def test_ctrl_c_inside_a_c_extensions_import_ends_quietly_too():
    """numpy's core (a C extension) imports ``datetime`` while it initialises; an exception raised
    there, SystemExit included, comes out as an ImportError with a traceback. So a Ctrl-C during
    the CLI's imports is held until they are done, then exits with 130."""
    code = textwrap.dedent("""
        import builtins, os, runpy, signal, sys
        real_import = builtins.__import__
        def importing(name, *args, **kwargs):
            if (name == "datetime" and "numpy._core._multiarray_umath" in sys.modules
                    and "numpy.exceptions" not in sys.modules):
                os.kill(os.getpid(), signal.SIGINT)
                print("interrupted", file=sys.stderr)
            return real_import(name, *args, **kwargs)
        builtins.__import__ = importing
        sys.argv = ["-m", "demo"]
        runpy.run_module("semgap_spacy", run_name="__main__", alter_sys=True)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=300)
    assert done.stderr.decode().startswith("interrupted"), "numpy (2.x) no longer imports datetime from its C core"
    assert done.returncode == 130 and b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]
    assert done.stdout == b""  # the demo never ran


def test_a_second_ctrl_c_while_the_first_is_held_exits_at_once():
    """A module run with ``-m`` that never takes the held Ctrl-C back (``restore_interrupt``)
    still stops on a second one."""
    code = textwrap.dedent("""
        import os, signal, sys, time
        from semgap_spacy.util.signals import hold_interrupt
        hold_interrupt()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
        print("held", flush=True)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
        print("not stopped", flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (130, b"held\n"), done.stderr.decode()[-2000:]

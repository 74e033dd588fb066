"""``assess --engine dask`` on a real 2-worker ``LocalCluster``: the same
decisions, in the same order, as ``assess``; a failing task fails closed."""
import gc
import json

import pytest

pytest.importorskip("distributed")

from distributed import Client, LocalCluster  # noqa: E402

import spacy  # noqa: E402

from semgap_spacy import build_pipeline  # noqa: E402
from semgap_spacy.api import decide_lines  # noqa: E402
from semgap_spacy.ops.cli import main  # noqa: E402
from semgap_spacy.ops import dask_engine  # noqa: E402

# (domain, text, readings): a proceed, a block, an unknown domain, a reading in contract
_ROWS = [("mortgage", "Clear to close issued; DTI 38%", {"dti_ratio": {"value": 38, "unit": "%"}}),
         ("medical_logistics", "No delays, crossmatch positive", None),
         ("dentistry", "all clear", None),
         ("aviation_maintenance", "Released to service, tire pressure 200 psi",
          {"tire_pressure": {"value": 200, "unit": "psi"}})]
CASES = [{"id": f"d-{i}", "domain": domain, "text": text, "readings": readings}
         for i, (domain, text, readings) in enumerate(_ROWS, 1)]
BAD = [b"not json\n", b"\n", b'{"id": "x", "id": "y"}\n', b"\xff\n", b"[1, 2]\n"]


def _input(path, repeat: int = 40) -> None:
    lines = [json.dumps(c).encode() + b"\n" for c in CASES] + BAD
    path.write_bytes(b"".join(lines * repeat).rstrip(b"\n"))  # the last line has no newline


@pytest.fixture(scope="module")
def pipeline_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("pipeline")
    build_pipeline().to_disk(path)
    return path


def test_dask_engine_on_a_local_cluster_writes_what_assess_writes(tmp_path, pipeline_dir):
    src, dask_out = tmp_path / "in.jsonl", tmp_path / "dask.jsonl"
    _input(src)
    expected = "".join(line + "\n" for line in decide_lines(spacy.load(pipeline_dir), src.read_bytes().splitlines(True),
                                                              as_json=True))
    assert main(["assess", "--engine", "dask", "--workers", "2", "--blocksize", "4KiB", "--pipeline", str(pipeline_dir),
                 "--cases", str(src), "--out", str(dask_out)]) == 0
    assert dask_out.read_text(encoding="utf8") == expected
    decisions = [json.loads(line) for line in expected.splitlines()]
    assert len(decisions) == 40 * (len(CASES) + len(BAD))
    # a refused line in a later block is numbered in the whole input
    assert decisions[-1]["id"] is None and decisions[-1]["line"] == len(decisions)


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def test_scheduler_address_and_a_glob_of_inputs(tmp_path, client):
    (tmp_path / "a.jsonl").write_bytes(b"".join(json.dumps(c).encode() + b"\n" for c in CASES))
    (tmp_path / "b.jsonl").write_bytes(b"not json\n" + json.dumps(CASES[0]).encode() + b"\n")
    out = tmp_path / "out.jsonl"
    gc.unfreeze()
    assert main(["assess", "--engine", "dask", "--scheduler", client.scheduler.address,
                 "--cases", str(tmp_path / "*.jsonl"), "--out", str(out)]) == 0
    decisions = [json.loads(line) for line in out.read_text(encoding="utf8").splitlines()]
    assert [d["id"] for d in decisions] == ["d-1", "d-2", "d-3", "d-4", None, "d-1"]
    assert decisions[4]["line"] == 5
    # the fixture's worker runs in this process: a user's cluster keeps its collector setting
    assert gc.get_freeze_count() == 0


def test_each_file_of_a_glob_may_start_with_a_byte_order_mark(tmp_path, client):
    # the second file's mark was read as a character of its first line, and that line refused
    bom = "\ufeff".encode()
    (tmp_path / "a.jsonl").write_bytes(bom + json.dumps(CASES[0]).encode() + b"\n")
    (tmp_path / "b.jsonl").write_bytes(bom + json.dumps(CASES[1]).encode() + b"\n")
    out = tmp_path / "out.jsonl"
    gc.unfreeze()
    assert main(["assess", "--engine", "dask", "--scheduler", client.scheduler.address,
                 "--cases", str(tmp_path / "*.jsonl"), "--out", str(out)]) == 0
    decisions = [json.loads(line) for line in out.read_text(encoding="utf8").splitlines()]
    assert [d["id"] for d in decisions] == ["d-1", "d-2"]


def test_a_failing_task_gives_every_line_of_its_block_a_worker_failed_escalation(tmp_path, client):
    from dask.bytes import read_bytes

    src = tmp_path / "in.jsonl"
    _input(src, repeat=2)
    _, files = read_bytes(str(src), delimiter=b"\n", blocksize=None, sample=False)
    broken = ("/no/such/pipeline", None)  # every task fails to load the pipeline
    glossary = dask_engine.pipeline_glossary(dask_engine._pipeline((None, None)))
    texts = list(dask_engine._scored(client, files[0], [1], broken, 64, 2, glossary, [False]))
    decisions = [json.loads(line) for line in "".join(texts).splitlines()]
    assert len(decisions) == 2 * (len(CASES) + len(BAD))
    assert all(d["decision"] == "escalate" and d["reasons"][0]["code"] == "worker_failed" for d in decisions)
    assert [d["id"] for d in decisions[:5]] == ["d-1", "d-2", "d-3", "d-4", None]
    assert decisions[4]["line"] == 5


def test_our_clusters_workers_say_which_glossary_they_decide_with(pipeline_dir, tmp_path):
    """The client of our own cluster builds no pipeline of its own: the glossary that a failed
    block's escalations name, and why a bad pipeline stops the run, come from the workers."""
    glossary = dask_engine.pipeline_glossary(spacy.load(pipeline_dir))
    error, stamp = dask_engine._load_frozen((str(pipeline_dir), None))
    assert error is None and stamp == (glossary.version, glossary.sha256)
    error, stamp = dask_engine._load_frozen((str(tmp_path / "no-such-pipeline"), None))
    assert stamp is None and "no-such-pipeline" in error

    built = dask_engine._built_glossary
    stamp = built([(error, None), (None, ["v1", "abc"])], ("unused", None))
    assert (stamp.version, stamp.sha256) == ("v1", "abc")
    with pytest.raises(dask_engine.PipelineBuildError, match="no-such-pipeline"):
        built([(error, None)], ("unused", None))
    # the workers said nothing (the call failed): the pipeline is built here, and a bad one raises
    assert built([], (str(pipeline_dir), None)) == (glossary.version, glossary.sha256)
    with pytest.raises(OSError):
        built([], (str(tmp_path / "no-such-pipeline"), None))
    decision = dask_engine.failed_decisions([b'{"id": "a"}\n'], "lines", 1, "gone", stamp)[0]
    assert (decision["glossary_version"], decision["glossary_sha256"]) == ("v1", "abc")


def test_missing_input_is_one_line_and_exit_2(tmp_path, capsys):
    code = main(["assess", "--engine", "dask", "--cases", str(tmp_path / "nope.jsonl"),
                 "--out", str(tmp_path / "out.jsonl")])
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "out.jsonl").exists()


def test_our_cluster_leaves_the_dashboard_port_to_a_cluster_already_there(tmp_path, capfd):
    """A user's own cluster on this machine holds 8787: the run neither takes it nor warns."""
    import socket

    held = socket.socket()
    try:
        held.bind(("", 8787))
        held.listen()
    except OSError:  # someone else holds it already: as good
        pass
    try:
        src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
        _input(src, repeat=1)
        assert main(["assess", "--engine", "dask", "--workers", "1", "--cases", str(src), "--out", str(out),
                     "--no-progress"]) == 0
    finally:
        held.close()
    err = capfd.readouterr().err
    assert "8787" not in err and "Warning" not in err, err
    assert len(out.read_bytes().splitlines()) == len(src.read_bytes().splitlines())


def test_blocks_are_sized_so_that_every_worker_has_several():
    size = dask_engine.auto_blocksize
    assert size(4_000_000, 2) == 4_000_000 // 16           # eight blocks per worker
    assert size(10_000, 2) == dask_engine.MIN_BLOCK        # a small input: no block below the floor
    assert size(10 ** 10, 2) == dask_engine.MAX_BLOCK      # a huge one: no block above the cap
    assert size(4_000_000, 0) == 4_000_000 // 8            # a cluster that reports no threads yet


def test_a_pipeline_that_cannot_be_built_is_one_line_and_the_cluster_is_closed(tmp_path, capfd):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _input(src, repeat=1)
    code = main(["assess", "--engine", "dask", "--workers", "1", "--pipeline", str(tmp_path / "no-such-pipeline"),
                 "--cases", str(src), "--out", str(out)])
    assert code == 1
    err = capfd.readouterr().err  # the workers' stderr too: they must not log a traceback of their own
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "no-such-pipeline" in err
    assert not out.exists()


def test_a_block_that_comes_back_short_fails_the_run_and_leaves_out_as_it_was(tmp_path, client, monkeypatch):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _input(src, repeat=2)
    out.write_text("yesterday\n", encoding="utf8")
    score = dask_engine._score
    # the workers of the fixture's cluster are threads of this process: they run the patched task
    monkeypatch.setattr(dask_engine, "_score", lambda *args: score(*args).split("\n", 1)[1])
    gc.unfreeze()
    assert main(["assess", "--engine", "dask", "--scheduler", client.scheduler.address,
                 "--cases", str(src), "--out", str(out)]) == 1
    assert out.read_text(encoding="utf8") == "yesterday\n"


_PROBE = """
import json, multiprocessing, os, sys
from semgap_spacy.ops import dask_engine

def probe(queue):
    from semgap_spacy.util.zone_words import zone_words
    known = sorted(word for nlp in dask_engine._PIPELINES.values() for word in zone_words(nlp).kept
                   if word.startswith("qzx"))
    queue.put((dask_engine._preloaded_for, sorted(map(list, dask_engine._PIPELINES)), known))

if __name__ == "__main__":
    source = (sys.argv[1], None)
    before = dict(os.environ)
    dask_engine.start_fork_server(source, "start-1", sys.argv[2])
    assert dict(os.environ) == before, "the environment is left as it was"
    dask_engine.start_fork_server(source, "start-2")  # running already: kept as it is
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    process = context.Process(target=probe, args=(queue,))
    process.start()
    print(json.dumps(queue.get(timeout=120)))
    process.join()
"""


def test_the_fork_server_starts_before_the_cluster_with_the_runs_pipeline_built(tmp_path, pipeline_dir):
    import subprocess
    import sys

    script = tmp_path / "probe.py"
    script.write_text(_PROBE)
    cases = tmp_path / "in.jsonl"
    texts = ["qzxtwicevk scanned", "qzxtwicevk scanned again", "qzxoncevk scanned"]
    cases.write_text("".join(json.dumps({"id": i, "domain": "mortgage", "text": text}) + "\n"
                             for i, text in enumerate(texts)) + "not json\n", encoding="utf8")
    done = subprocess.run([sys.executable, str(script), str(pipeline_dir), str(cases)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    preloaded_for, pipelines, known = json.loads(done.stdout)
    assert preloaded_for == "start-1"  # a process forked from it finds the pipeline built for that start
    assert pipelines == [[str(pipeline_dir), None]]
    # and the words that recur in the input's first lines, learnt before the fork (not those met once)
    assert known == ["qzxtwicevk"]


_EARLY_PROBE = """
import json, multiprocessing, sys
sys.argv = ["-m", "assess", "--cases", "in.jsonl", "--out", "out.jsonl", "--engine", "dask",
            "--workers", "2", "--pipeline", sys.argv[1]]  # as python -m semgap_spacy sees them
import semgap_spacy  # cli_start: the fork server is started before spaCy is imported
from semgap_spacy.util import fork_server
from semgap_spacy.ops import dask_engine

def probe(queue):
    queue.put((dask_engine._preloaded_for, sorted(map(list, dask_engine._PIPELINES))))

if __name__ == "__main__":
    source, start = fork_server._early
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    process = context.Process(target=probe, args=(queue,))
    process.start()
    preloaded_for, pipelines = queue.get(timeout=120)
    process.join()
    print(json.dumps({"source": source, "same_start": fork_server.start_for(source) == start,
                      "other_start": fork_server.start_for((source[0] + "-other", None)) == start,
                      "preloaded_for_the_early_start": preloaded_for == start, "pipelines": pipelines}))
"""


def test_the_command_line_starts_the_fork_server_before_spacy_is_imported(tmp_path, pipeline_dir):
    """``python -m semgap_spacy assess --engine dask`` starts the server while its own process
    still imports spaCy; the run takes the early start only for the source it was started for."""
    import subprocess
    import sys

    script = tmp_path / "probe.py"
    script.write_text(_EARLY_PROBE)
    done = subprocess.run([sys.executable, str(script), str(pipeline_dir)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {"source": [str(pipeline_dir), None], "same_start": True, "other_start": False,
                    "preloaded_for_the_early_start": True, "pipelines": [[str(pipeline_dir), None]]}


@pytest.mark.parametrize("argv", [
    ["assess", "--engine", "local", "--cases", "x", "--out", "y"],
    ["assess", "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1", "--cases", "x", "--out", "y"],
    ["assess", "--eng", "dask", "--cases", "x", "--out", "y"],  # abbreviated: left to the run itself
    ["assess", "--engine"],  # malformed: the real parser reports it
    ["demo"], [],
])
def test_no_early_fork_server_for_other_command_lines(argv, monkeypatch, capsys):
    from semgap_spacy.util import fork_server

    started = []
    monkeypatch.setattr(fork_server, "start_fork_server", lambda *args: started.append(args))
    monkeypatch.setattr(fork_server, "_early", None)
    fork_server.early_start(argv)
    assert started == [] and fork_server._early is None
    assert capsys.readouterr() == ("", "")


def test_the_early_source_is_the_one_the_run_computes(monkeypatch, tmp_path):
    from semgap_spacy.util import fork_server

    started = []
    monkeypatch.setattr(fork_server, "start_fork_server", lambda *args: started.append(args))
    monkeypatch.setattr(fork_server, "_early", None)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").write_text("{}\n", encoding="utf8")
    fork_server.early_start(["assess", "--cases", "x", "--engine=dask", "--out", "y", "--glossaries", "g"])
    source = (None, str(tmp_path / "g"))
    assert [args[0] for args in started] == [source] and fork_server._early[0] == source
    assert started[0][2] == str(tmp_path / "x")  # the input's first lines are the server's to read
    assert fork_server.start_for(fork_server.run_source(None, "g")) == started[0][1]
    assert fork_server.start_for(fork_server.run_source(None, None)) != started[0][1]


def test_the_fork_server_reads_only_a_local_input_file(tmp_path, monkeypatch):
    from semgap_spacy.util.fork_server import local_cases

    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.jsonl").write_text("{}\n", encoding="utf8")
    assert local_cases("in.jsonl") == str(tmp_path / "in.jsonl")
    for cases in ("s3://bucket/in.jsonl", "in-*.jsonl", "missing.jsonl", "-", ".", None):
        assert local_cases(cases) is None


def test_ctrl_c_while_the_cluster_starts_ends_quietly_and_leaves_nothing(tmp_path):
    """A terminal's Ctrl-C reaches the whole process group; while the fork server imports Dask,
    spaCy and this package (seconds), it and its workers ignore it and the CLI stops the run:
    exit 130, OUT as it was, no traceback, no process left."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    import psutil

    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _input(src)
    out.write_text("OLD\n")
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen([sys.executable, "-m", "semgap_spacy", "assess", "--engine", "dask", "--workers", "2",
                                "--cases", str(src), "--out", str(out), "--no-progress"],
                               cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        parent, deadline, server = psutil.Process(process.pid), time.monotonic() + 120, None
        while server is None and time.monotonic() < deadline and process.poll() is None:
            server = next((p for p in parent.children(recursive=True)
                           if "multiprocessing.forkserver" in " ".join(p.cmdline())), None)
            time.sleep(0.02)
        assert server is not None, "the fork server never started"
        family = [parent, *parent.children(recursive=True)]
        os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130 and b"Traceback" not in err, err.decode(errors="replace")[-3000:]
    assert out.read_text() == "OLD\n"
    time.sleep(1)
    assert not [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]

"""Every MCP request with an id is answered, however malformed the frame.

The ``mcp`` SDK drops frames it cannot validate without answering them; the
frame filter (``semgap_spacy.ops.mcp_frames``) answers each with a JSON-RPC
error. Checked three ways: the filter's decision per frame (in process), raw
frames written to a real server subprocess (each followed by a ``ping`` that
must still be answered), and the SDK's own client.
"""
import json
import os
import queue
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.message import SessionMessage  # noqa: E402

from semgap_spacy.ops.mcp_frames import INVALID_REQUEST, PARSE_ERROR, check_frame, leading_id  # noqa: E402

SERVER = [sys.executable, "-m", "semgap_spacy.ops.mcp_server"]
FRAME_CAP = 65536  # the server under test runs with --max-frame-bytes FRAME_CAP
DEADLINE = 120  # seconds for a whole raw session, start-up included
# The server must import this checkout's package, whatever the working directory.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSESS_OK = {"name": "assess", "arguments": {"domain": "mortgage", "text": "clear to close"}}


def _call(rid, arguments):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": "assess", "arguments": arguments}})


# label: (frame, id the answer must carry, error code)
FRAMES = {
    "jsonrpc_1_0": ('{"jsonrpc":"1.0","id":101,"method":"tools/list"}', 101, INVALID_REQUEST),
    "missing_method": ('{"jsonrpc":"2.0","id":102}', 102, INVALID_REQUEST),
    "params_string": ('{"jsonrpc":"2.0","id":103,"method":"tools/call","params":"assess"}', 103, INVALID_REQUEST),
    "lone_surrogate": (_call(104, {"domain": "mortgage", "text": "clear to close \ud800"}), 104, INVALID_REQUEST),
    "number_5000_digits": (_call(105, {"domain": "mortgage", "text": "clear to close", "readings": {
        "dti_ratio": {"value": "NUMBER", "unit": "%"}}}).replace('"NUMBER"', "9" * 5000), 105, INVALID_REQUEST),
    "string_id": ('{"jsonrpc":"2.0","id":"r-106","method":"tools/call","params":"x"}', "r-106", INVALID_REQUEST),
    "bool_id": ('{"jsonrpc":"2.0","id":true,"method":"ping"}', None, INVALID_REQUEST),
    "duplicate_id": ('{"jsonrpc":"2.0","id":107,"method":"ping","id":108}', None, INVALID_REQUEST),
    "duplicate_text": (_call(109, {"domain": "mortgage", "text": "not clear to close"})
                       .replace('"domain"', '"text":"clear to close","domain"'), 109, INVALID_REQUEST),
    "too_deep": (_call(110, {"domain": "mortgage", "text": "x", "readings": "DEEP"})
                 .replace('"DEEP"', "[" * 1000 + "]" * 1000), 110, INVALID_REQUEST),
    "frame_number": ("42", None, INVALID_REQUEST),
    "frame_string": ('"tools/list"', None, INVALID_REQUEST),
    "frame_null": ("null", None, INVALID_REQUEST),
    "batch": ('[{"jsonrpc":"2.0","id":111,"method":"ping"}]', None, INVALID_REQUEST),
    "invalid_json": ('{"jsonrpc":"2.0","id":112,', None, PARSE_ERROR),
    "not_utf8": (b'{"jsonrpc":"2.0","id":113,"method":"ping","x":"\xff"}', None, PARSE_ERROR),
    "oversized": (_call(114, {"domain": "mortgage", "text": "x" * (2 * FRAME_CAP)}), 114, INVALID_REQUEST),
}


def _bytes(frame):
    return frame if isinstance(frame, bytes) else frame.encode("utf-8")


# -- the filter's decision, in process ------------------------------------------


@pytest.mark.parametrize("label", [k for k in FRAMES if k != "oversized"])
def test_filter_refuses_with_the_right_id(label):
    frame, rid, code = FRAMES[label]
    text, refusal = check_frame(_bytes(frame))
    assert text is None and refusal is not None, label
    assert refusal[0] == rid and refusal[1] == code, refusal


def test_filter_passes_valid_frames_unchanged_and_ignores_blank_lines():
    frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ASSESS_OK})
    assert check_frame(frame.encode() + b"\n") == (frame + "\n", None)
    assert check_frame(b"  \n") == (None, None)
    # A malformed notification (no id) is not answered.
    assert check_frame(b'{"jsonrpc":"1.0","method":"notifications/initialized"}') == (None, None)


def test_leading_id_of_an_over_long_frame():
    assert leading_id(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"') == 7
    assert leading_id(b'{"method":"ping","id":"a\\"b","params":') == 'a"b'
    assert leading_id(b'{"params":{"id":9},"id":8') is None  # a nested id is never taken for the request's


# -- raw frames to a real server --------------------------------------------------


class _Lines:
    """stdout lines of a subprocess, read on a thread so every wait is bounded."""

    def __init__(self, stream):
        self._q = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in iter(stream.readline, b""):
            self._q.put(line)
        self._q.put(None)

    def next(self, until):
        line = self._q.get(timeout=max(0.1, until - time.monotonic()))
        assert line is not None, "server closed stdout"
        msg = json.loads(line)
        assert msg.get("jsonrpc") == "2.0", line
        return msg


@pytest.fixture(scope="module")
def raw_answers(tmp_path_factory):
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    tmp = tmp_path_factory.mktemp("raw_frames")
    env = {**os.environ, "SEMGAP_QUEUE_DB": str(tmp / "q.sqlite3"), "PYTHONPATH": ROOT}
    proc = subprocess.Popen([*SERVER, "--max-frame-bytes", str(FRAME_CAP)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=open(tmp / "server.log", "wb"), cwd=str(tmp), env=env)
    until = time.monotonic() + DEADLINE
    lines = _Lines(proc.stdout)
    answers = {}
    try:
        def send(frame):
            proc.stdin.write(_bytes(frame) + b"\n")
            proc.stdin.flush()

        answers[None] = []  # answers with id null, in order

        def answer_to(rid):
            while rid not in answers:
                msg = lines.next(until)
                if msg.get("id") is None:
                    answers[None].append(msg)
                else:
                    answers[msg["id"]] = msg
            return answers[rid]

        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                                    "clientInfo": {"name": "raw-frames", "version": "0"}}}))
        assert "result" in answer_to(1)
        send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        per_frame = {}
        for n, (label, (frame, rid, code)) in enumerate(FRAMES.items()):
            nulls_before = len(answers[None])
            send(frame)
            ping = 1000 + n
            send(json.dumps({"jsonrpc": "2.0", "id": ping, "method": "ping"}))
            # The ping's answer comes after the frame's: refusals are written before the next read.
            pong = answer_to(ping)
            got = answers.get(rid) if rid is not None else (answers[None][nulls_before:] or [None])[0]
            per_frame[label] = (got, pong)
        send(_call(2, ASSESS_OK["arguments"]))
        final = answer_to(2)
        proc.stdin.close()
        proc.wait(timeout=max(1, until - time.monotonic()))  # stops by itself on EOF
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return {"per_frame": per_frame, "final": final, "returncode": proc.returncode,
            "log": (tmp / "server.log").read_text(encoding="utf-8", errors="replace")}


@pytest.mark.parametrize("label", list(FRAMES))
def test_raw_frame_gets_an_error_and_the_server_keeps_serving(raw_answers, label):
    _, rid, code = FRAMES[label]
    got, pong = raw_answers["per_frame"][label]
    assert got is not None, f"{label}: no answer"
    assert got["id"] == rid and "result" not in got, got
    assert got["error"]["code"] == code, got
    assert got["error"]["message"], got
    assert pong.get("result") == {}, pong


def test_raw_session_ends_cleanly(raw_answers):
    assert raw_answers["final"]["result"]["structuredContent"]["decision"] == "proceed"
    assert raw_answers["returncode"] == 0, raw_answers["log"][-3000:]
    assert "Traceback" not in raw_answers["log"]
    assert f"over the {FRAME_CAP}-byte limit" in raw_answers["log"]


def test_over_long_frame_is_not_read_whole():
    """The filter holds at most the cap, whatever the frame's length."""
    import io

    from semgap_spacy.ops.mcp_frames import FrameFilter

    class Counting(io.BytesIO):
        biggest = 0

        def readline(self, size=-1):
            assert size > 0, "an unbounded readline"
            line = super().readline(size)
            Counting.biggest = max(Counting.biggest, len(line))
            return line

    sent = []

    class Sink:
        async def send(self, message):
            sent.append(message.message)

    frame = _call(9, {"domain": "mortgage", "text": "y" * 5_000_000}).encode()
    ping = b'{"jsonrpc":"2.0","id":10,"method":"ping"}\n'
    frames = FrameFilter(Counting(frame + b"\n" + ping), max_frame_bytes=1000)
    frames.attach(Sink())

    async def collect():
        return [text async for text in frames]

    passed = anyio.run(collect)
    assert passed == [ping.decode()]
    assert Counting.biggest <= 1 << 16
    assert len(sent) == 1 and sent[0].id == 9 and sent[0].error.code == INVALID_REQUEST


# -- through the SDK client -------------------------------------------------------


async def _sdk_session(workdir):
    params = StdioServerParameters(command=sys.executable, args=[*SERVER[1:], "--max-frame-bytes", str(FRAME_CAP)],
                                   cwd=str(workdir), env={"SEMGAP_QUEUE_DB": str(workdir / "q.sqlite3"), "PYTHONPATH": ROOT})
    out = {}
    with anyio.fail_after(DEADLINE):
        async with stdio_client(params, errlog=open(workdir / "sdk.log", "w")) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30) as session:
                await session.initialize()
                for label, arguments in (
                        ("number_5000_digits", {"domain": "mortgage", "text": "clear to close",
                                                "readings": {"dti_ratio": {"value": int("9" * 4000) * 10 ** 1000,
                                                                           "unit": "%"}}}),
                        ("oversized", {"domain": "mortgage", "text": "x" * (2 * FRAME_CAP)}),
                        ("valid", ASSESS_OK["arguments"])):
                    try:
                        result = await session.call_tool("assess", arguments)
                        out[label] = ("result", result.structured_content)
                    except Exception as exc:  # the SDK raises the JSON-RPC error it received
                        out[label] = ("error", getattr(getattr(exc, "error", None), "code", None), str(exc))
    return out


def test_sdk_client_gets_errors_not_timeouts(tmp_path):
    out = anyio.run(_sdk_session, tmp_path)
    kind, code, message = out["number_5000_digits"]
    assert (kind, code) == ("error", INVALID_REQUEST) and "5000 digits" in message
    kind, code, message = out["oversized"]
    assert (kind, code) == ("error", INVALID_REQUEST) and "limit" in message
    assert out["valid"][0] == "result" and out["valid"][1]["decision"] == "proceed"


async def _sdk_transport_frames(workdir):
    """Malformed envelopes written by the SDK's transport (model_construct skips validation)."""
    params = StdioServerParameters(command=sys.executable, args=SERVER[1:], cwd=str(workdir),
                                   env={"SEMGAP_QUEUE_DB": str(workdir / "q.sqlite3"), "PYTHONPATH": ROOT})
    bad = {
        201: types.JSONRPCRequest.model_construct(jsonrpc="1.0", id=201, method="tools/list"),
        202: types.JSONRPCRequest.model_construct(jsonrpc="2.0", id=202, method="tools/call", params="assess"),
    }
    answers = {}
    with anyio.fail_after(DEADLINE):
        async with stdio_client(params, errlog=open(workdir / "sdk.log", "w")) as (read, write):
            for message in bad.values():
                await write.send(SessionMessage(message))
            await write.send(SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=203, method="ping")))
            while len(answers) < 3:
                item = await read.receive()
                assert not isinstance(item, Exception), item
                answers[item.message.id] = item.message
    return answers


@pytest.mark.filterwarnings("ignore::UserWarning")  # the serializer notices the bad params: that is the point
def test_sdk_transport_malformed_envelopes_are_answered(tmp_path):
    answers = anyio.run(_sdk_transport_frames, tmp_path)
    for rid in (201, 202):
        assert isinstance(answers[rid], types.JSONRPCError) and answers[rid].error.code == INVALID_REQUEST
    assert isinstance(answers[203], types.JSONRPCResponse)

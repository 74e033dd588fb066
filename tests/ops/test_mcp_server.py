"""The MCP server, end to end: a real ``python -m semgap_spacy.ops.mcp_server``
subprocess, driven over stdio by the SDK's own client.

The server is started once for the module (the ``transcript`` fixture runs
every call in one session and records the results in order); the tests then
read the transcript. A second, raw start checks that stdout carries nothing
but JSON-RPC. Two in-process tests cover what a subprocess cannot reach.
"""
import dataclasses
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402  (the SDK depends on it)
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

SERVER_ARGS = ["-m", "semgap_spacy.ops.mcp_server"]
TOOL_NAMES = {"assess", "explain_term", "list_domains", "queue_enqueue", "queue_teach"}
DOMAINS = {"aviation_maintenance", "medical_logistics", "mortgage", "pharma_qa"}
CALL_TIMEOUT = 60  # seconds; the first start builds the pipeline
# The server must import this checkout's package, whatever the working directory.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BLOCK_CASE = {"domain": "medical_logistics", "text": "xm neg, cold ischemia 30 hours",
              "readings": {"cold_ischemia_elapsed": {"value": 30, "unit": "h"}},
              "now": "2026-11-30T10:00:00Z", "case_id": "c-001"}
PROCEED_CASE = {"domain": "medical_logistics", "text": "negative crossmatch", "case_id": "c-002"}
ESCALATE_CASE = {"domain": "medical_logistics", "text": "crossmatch result pending", "case_id": "c-003"}
VALID_AFTER = {"domain": "mortgage", "text": "clear to close", "case_id": "after"}


def _record(result):
    """A CallToolResult as plain data, so the tests need no SDK types."""
    texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
    return {"is_error": bool(result.is_error), "structured": result.structured_content, "text": "\n".join(texts)}


async def _run_session(queue_db, workdir, errlog):
    params = StdioServerParameters(
        command=sys.executable, args=SERVER_ARGS, cwd=str(workdir),
        env={"SEMGAP_QUEUE_DB": str(queue_db), "PYTHONUNBUFFERED": "1", "PYTHONPATH": ROOT})
    calls = []  # (label, tool, arguments, record) in call order
    out = {"calls": calls}
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session:
            with anyio.fail_after(CALL_TIMEOUT):
                init = await session.initialize()
            out["server_name"] = init.server_info.name
            out["instructions"] = init.instructions
            tools = (await session.list_tools()).tools
            out["tools"] = {t.name: {"input_schema": t.input_schema, "output_schema": t.output_schema,
                                     "description": t.description} for t in tools}

            async def call(label, tool, arguments):
                with anyio.fail_after(CALL_TIMEOUT):
                    rec = _record(await session.call_tool(tool, arguments))
                calls.append((label, tool, arguments, rec))
                return rec

            block = await call("block", "assess", BLOCK_CASE)
            proceed = await call("proceed", "assess", PROCEED_CASE)
            escalate = await call("escalate", "assess", ESCALATE_CASE)
            await call("explain_known", "explain_term", {"term_id": "MED.XM_NEGATIVE"})
            await call("explain_field", "explain_term", {"term_id": "MED.COLD_ISCHEMIA"})
            await call("explain_draft", "explain_term", {"term_id": "PHA.RELEASED"})
            await call("explain_unknown", "explain_term", {"term_id": "MED.NO_SUCH_TERM"})
            await call("after_explain_unknown", "list_domains", {})
            await call("list_domains", "list_domains", {})

            esc = escalate["structured"] or {}
            await call("enqueue_escalate", "queue_enqueue",
                       {"decision": esc, "text": ESCALATE_CASE["text"]})
            await call("enqueue_escalate_again", "queue_enqueue",
                       {"decision": esc, "text": ESCALATE_CASE["text"]})
            await call("enqueue_proceed", "queue_enqueue",
                       {"decision": proceed["structured"] or {}, "text": PROCEED_CASE["text"]})
            await call("after_enqueue_proceed", "assess", VALID_AFTER)
            await call("enqueue_wrong_text", "queue_enqueue",
                       {"decision": esc, "text": "another text", "case_id": "c-003"})
            await call("enqueue_block", "queue_enqueue",
                       {"decision": block["structured"] or {}, "text": BLOCK_CASE["text"]})

            # Malformed calls: each must be an error result, and the server must
            # answer the valid call that follows it.
            malformed = {
                "extra_key": ("assess", {**PROCEED_CASE, "confidence": "high"}),
                "bad_domain": ("assess", {**PROCEED_CASE, "domain": "medical"}),
                "long_text": ("assess", {**PROCEED_CASE, "text": "x" * 4001}),
                "missing_text": ("assess", {"domain": "medical_logistics"}),
                "text_not_string": ("assess", {"domain": "medical_logistics", "text": 42}),
                "readings_not_object": ("assess", {**PROCEED_CASE, "readings": [30, "h"]}),
                "explain_extra_key": ("explain_term", {"term_id": "MED.XM_NEGATIVE", "lang": "de"}),
                "list_extra_key": ("list_domains", {"domain": "mortgage"}),
                "enqueue_extra_key": ("queue_enqueue", {"decision": esc, "text": ESCALATE_CASE["text"],
                                                        "priority": 1}),
                "enqueue_long_text": ("queue_enqueue", {"decision": esc, "text": "y" * 4001}),
                "teach_bad_choice": ("queue_teach", {"seq": 1, "choice": "nuetral", "reviewer": "Ruth Lindqvist"}),
                "teach_extra_key": ("queue_teach", {"seq": 1, "choice": "neutral", "reviewer": "Ruth Lindqvist",
                                                    "approve": True}),
                "unknown_tool": ("delete_queue", {}),
            }
            for label, (tool, arguments) in malformed.items():
                await call(f"malformed:{label}", tool, arguments)
                await call(f"after:{label}", "assess", VALID_AFTER)
            # An explicit null is a malformed case, as on a JSONL line to the CLI; an absent key is none.
            await call("readings_null", "assess", {**PROCEED_CASE, "readings": None})
            await call("now_null", "assess", {**PROCEED_CASE, "now": None})
            # The boundary itself is accepted: exactly 4000 characters.
            await call("text_4000", "assess", {**PROCEED_CASE, "text": "negative crossmatch " + "." * 3980})
    return out


@pytest.fixture(scope="module")
def transcript(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mcp")
    queue_db = tmp / "q.sqlite3"
    log_path = tmp / "server.log"
    with open(log_path, "w", encoding="utf-8") as errlog:
        try:
            out = anyio.run(_run_session, queue_db, tmp, errlog)
        except BaseException:
            errlog.flush()
            print(log_path.read_text(encoding="utf-8")[-5000:], file=sys.stderr)
            raise
    out["queue_db"] = queue_db
    out["workdir"] = tmp
    out["server_log"] = log_path.read_text(encoding="utf-8")
    out["by_label"] = {label: rec for label, _, _, rec in out["calls"]}
    return out


def _call(transcript, label):
    return transcript["by_label"][label]


def _ok(transcript, label):
    rec = _call(transcript, label)
    assert not rec["is_error"], f"{label}: {rec['text']}"
    assert isinstance(rec["structured"], dict), label
    # The text block is the same JSON, for clients that ignore structured content.
    assert json.loads(rec["text"]) == rec["structured"], label
    return rec["structured"]


def test_initialize_and_tool_list(transcript):
    assert transcript["server_name"] == "semgap-spacy"
    assert "assess" in transcript["instructions"]
    tools = transcript["tools"]
    assert TOOL_NAMES <= set(tools)
    for name in TOOL_NAMES:
        schema = tools[name]["input_schema"]
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False, name
        assert tools[name]["output_schema"]["type"] == "object", name
    props = tools["assess"]["input_schema"]["properties"]
    assert set(props["domain"]["enum"]) == DOMAINS
    assert props["text"]["maxLength"] == 4000
    assert props["text"]["type"] == "string"
    assert set(tools["assess"]["input_schema"]["required"]) == {"domain", "text"}
    assert "readings" in props and "now" in props and "case_id" in props
    teach = tools["queue_teach"]["input_schema"]
    assert set(teach["required"]) == {"seq", "choice", "reviewer"}
    assert teach["properties"]["choice"]["enum"] == ["neutral", "name", "means_term", "problem"]
    enqueue = tools["queue_enqueue"]["input_schema"]
    assert set(enqueue["required"]) == {"decision", "text"}
    assert enqueue["properties"]["decision"]["type"] == "object"
    assert enqueue["properties"]["text"]["maxLength"] == 4000


def test_assess_spec_examples(transcript):
    block = _ok(transcript, "block")
    assert block["decision"] == "block"
    assert block["id"] == "c-001"
    limit = [r for r in block["reasons"] if r["code"] == "limit_exceeded"]
    assert limit and limit[0]["outcome"] == "block" and limit[0]["term_id"] == "MED.COLD_ISCHEMIA"
    assert block["glossary_version"] and len(block["glossary_sha256"]) == 64

    proceed = _ok(transcript, "proceed")
    assert proceed["decision"] == "proceed"
    assert proceed["id"] == "c-002"
    assert any(r["code"] == "clearance" and r["term_id"] == "MED.XM_NEGATIVE" for r in proceed["reasons"])

    escalate = _ok(transcript, "escalate")
    assert escalate["decision"] == "escalate"
    assert _ok(transcript, "text_4000")["decision"] == "proceed"


def test_assess_reads_a_case_as_the_cli_does(transcript):
    from semgap_spacy import build_pipeline, decide_cases
    nlp = build_pipeline()
    for label, extra in (("readings_null", {"readings": None}), ("now_null", {"now": None}), ("proceed", {})):
        case = {"id": PROCEED_CASE.get("case_id"), **{k: v for k, v in PROCEED_CASE.items() if k != "case_id"},
                **extra}
        (cli,) = decide_cases(nlp, [case])
        over_mcp = _ok(transcript, label)
        assert over_mcp["decision"] == cli["decision"] and over_mcp["reasons"] == cli["reasons"], label
    assert _ok(transcript, "readings_null")["decision"] == "escalate"
    assert [r["code"] for r in _ok(transcript, "readings_null")["reasons"]][0] == "invalid_case"


def test_explain_term(transcript):
    term = _ok(transcript, "explain_known")
    assert term["id"] == "MED.XM_NEGATIVE"
    assert term["domain"] == "medical_logistics"
    assert term["signal"] == "clear"
    assert term["status"] == "approved"
    assert term["owner"] and term["approver"] and term["owner"] != term["approver"]
    assert term["definition"]
    assert "negative crossmatch" in term["phrases"]
    assert "xm neg" in [a.lower() for a in term["abbreviations"]]
    assert set(term["translations"]) == {"es", "fr", "de"}
    for tr in term["translations"].values():
        assert tr["status"] == "approved" and tr["reviewer"] and tr["phrases"]
    assert term["contract"] is None

    field = _ok(transcript, "explain_field")
    assert field["signal"] == "field" and field["field"] == "cold_ischemia_elapsed"
    assert field["contract"]["kind"] == "duration" and field["contract"]["max"] == 24
    assert field["contract"]["unit"] == "h"

    draft = _ok(transcript, "explain_draft")
    assert draft["translations"]["de"]["status"] == "draft"

    unknown = _call(transcript, "explain_unknown")
    assert unknown["is_error"]
    assert "MED.NO_SUCH_TERM" in unknown["text"] and "unknown term" in unknown["text"]
    assert not unknown["structured"]
    _ok(transcript, "after_explain_unknown")


def test_list_domains(transcript):
    listing = _ok(transcript, "list_domains")
    domains = {d["domain"]: d for d in listing["domains"]}
    assert set(domains) == DOMAINS
    med = domains["medical_logistics"]
    assert med["version"] == listing["glossary_version"]
    assert {"MED.XM_NEGATIVE", "MED.XM_POSITIVE", "MED.ORGAN_DECLINED", "MED.COLD_ISCHEMIA",
            "MED.TRANSPORT_TEMP"} <= set(med["term_ids"])
    amb = {a["abbreviation"]: a["meanings"] for a in med["ambiguous_abbreviations"]}
    assert set(amb) == {"MS", "DC"}
    assert "mitral stenosis" in amb["MS"]
    assert {a["abbreviation"] for a in domains["aviation_maintenance"]["ambiguous_abbreviations"]} == {"AD", "FOD"}
    assert {a["abbreviation"] for a in domains["mortgage"]["ambiguous_abbreviations"]} == {"CD", "DOT"}
    assert {a["abbreviation"] for a in domains["pharma_qa"]["ambiguous_abbreviations"]} == {"OOS", "COC"}


def test_queue_enqueue(transcript):
    first = _ok(transcript, "enqueue_escalate")
    assert first["seq"] == 1 and first["created"] is True
    assert first["case_id"] == "c-003" and first["decision"] == "escalate"
    again = _ok(transcript, "enqueue_escalate_again")
    assert again["seq"] == 1 and again["created"] is False

    refused = _call(transcript, "enqueue_proceed")
    assert refused["is_error"]
    assert "proceed" in refused["text"] and "refused" in refused["text"]
    assert _ok(transcript, "after_enqueue_proceed")["decision"] == "proceed"

    mismatch = _call(transcript, "enqueue_wrong_text")
    assert mismatch["is_error"] and "text_sha256" in mismatch["text"]

    block = _ok(transcript, "enqueue_block")
    assert block["seq"] == 2 and block["created"] is True and block["decision"] == "block"


def test_queue_file_is_the_env_path(transcript):
    from semgap_spacy.ops.review_queue import ReviewQueue

    assert transcript["queue_db"].exists()
    assert not (transcript["workdir"] / "semgap_queue.sqlite3").exists()
    with ReviewQueue(transcript["queue_db"]) as queue:
        items = queue.list("all")
        assert [(i["seq"], i["case_id"], i["decision"]) for i in items] == [
            (1, "c-003", "escalate"), (2, "c-001", "block")]
        assert queue.verify().ok


@pytest.mark.parametrize("label,needle", [
    ("extra_key", "confidence"),
    ("bad_domain", "domain"),
    ("long_text", "4000"),
    ("missing_text", "text"),
    ("text_not_string", "text"),
    ("readings_not_object", "readings"),
    ("explain_extra_key", "lang"),
    ("list_extra_key", "domain"),
    ("enqueue_extra_key", "priority"),
    ("enqueue_long_text", "4000"),
    ("teach_bad_choice", "'neutral', 'name', 'means_term' or 'problem'"),
    ("teach_extra_key", "approve"),
    ("unknown_tool", "delete_queue"),
])
def test_malformed_calls_are_error_results(transcript, label, needle):
    rec = _call(transcript, f"malformed:{label}")
    assert rec["is_error"], f"{label} was accepted: {rec['text'][:300]}"
    assert not rec["structured"], label  # never a decision
    try:
        parsed = json.loads(rec["text"])
    except ValueError:
        parsed = None
    assert not (isinstance(parsed, dict) and "decision" in parsed), rec["text"]
    assert needle in rec["text"], rec["text"]
    # ... and the server keeps serving.
    after = _ok(transcript, f"after:{label}")
    assert after["decision"] == "proceed" and after["id"] == "after"


def test_malformed_calls_leave_queue_alone(transcript):
    # The refused enqueue calls added nothing: only the two accepted rows exist.
    import sqlite3

    conn = sqlite3.connect(str(transcript["queue_db"]))
    try:
        assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 2
    finally:
        conn.close()


def test_server_logs_to_stderr(transcript):
    # The start-up line goes to stderr (the client's errlog), not the wire.
    assert "serving semgap-spacy" in transcript["server_log"]


def test_stdout_is_protocol_only(tmp_path):
    """Raw JSON-RPC over the pipes: every stdout line must be a JSON-RPC message."""
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "assess", "arguments": PROCEED_CASE}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "assess", "arguments": {**PROCEED_CASE, "bogus": True}}},
    ]
    env = {**os.environ, "SEMGAP_QUEUE_DB": str(tmp_path / "raw.sqlite3"), "PYTHONPATH": ROOT}
    proc = subprocess.Popen([sys.executable, *SERVER_ARGS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(tmp_path), env=env, text=True, encoding="utf-8")
    try:
        # Requests are answered as they are read; keep stdin open until all
        # three answers are in, then close it so the server exits.
        for msg in messages:
            proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        lines = []
        while len([m for m in lines if "id" in m]) < 3:
            line = proc.stdout.readline()
            assert line, f"server closed stdout early; stderr:\n{proc.stderr.read()[-3000:]}"
            msg = json.loads(line)  # a non-JSON line fails here
            assert msg.get("jsonrpc") == "2.0", line
            lines.append(msg)
        rest, err = proc.communicate(timeout=CALL_TIMEOUT)  # closes stdin: the server exits
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for line in rest.splitlines():
        assert json.loads(line).get("jsonrpc") == "2.0", line
    assert proc.returncode == 0, err[-3000:]
    by_id = {m["id"]: m for m in lines if "id" in m}
    assert by_id[1]["result"]["serverInfo"]["name"] == "semgap-spacy"
    assert by_id[2]["result"]["structuredContent"]["decision"] == "proceed"
    assert by_id[2]["result"].get("isError") in (None, False)
    assert by_id[3]["result"]["isError"] is True
    assert "serving semgap-spacy" in err


# -- in process ------------------------------------------------------------------


def test_internal_failure_is_an_error_result_not_a_crash(nlp, tmp_path):
    from semgap_spacy.ops import mcp_server

    app = mcp_server.SemgapMCPServer(nlp, queue_db=tmp_path / "q.sqlite3")

    def boom(args):
        raise RuntimeError("secret detail")

    app._tools["assess"] = dataclasses.replace(app._tools["assess"], run=boom)
    result = anyio.run(app.call, "assess", dict(PROCEED_CASE))
    assert result.is_error
    assert "internal error" in result.content[0].text
    assert "secret detail" not in result.content[0].text
    listing = anyio.run(app.call, "list_domains", {})
    assert not listing.is_error


def test_queue_path_default_and_env(nlp, tmp_path, monkeypatch):
    from semgap_spacy.ops import mcp_server

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEMGAP_QUEUE_DB", raising=False)
    assert mcp_server.SemgapMCPServer(nlp).queue_db == tmp_path / "semgap_queue.sqlite3"
    monkeypatch.setenv("SEMGAP_QUEUE_DB", str(tmp_path / "elsewhere.db"))
    app = mcp_server.SemgapMCPServer(nlp)
    assert app.queue_db == tmp_path / "elsewhere.db"
    assert not app.queue_db.exists()  # opened only when something is queued


def test_queue_teach_writes_drafts_and_refuses_bad_input(tmp_path):
    """The reviewer tool of spec §4.2, in process, on a copy of the glossaries."""
    import shutil

    from semgap_spacy import build_pipeline
    from semgap_spacy.glossary import bundled_glossary_dir
    from semgap_spacy.glossary.drafts import load_drafts
    from semgap_spacy.ops import mcp_server
    from semgap_spacy.ops.review_queue import ReviewQueue

    glossaries = tmp_path / "glossaries"
    shutil.copytree(bundled_glossary_dir(), glossaries, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    app = mcp_server.SemgapMCPServer(build_pipeline(str(glossaries)), queue_db=tmp_path / "q.sqlite3",
                                     glossary_dir=glossaries)
    case = {"domain": "mortgage", "text": "Underwriting at Brambleton says the file is clear to close",
            "case_id": "c-9"}
    decision = anyio.run(app.call, "assess", case).structured_content
    assert decision["decision"] == "escalate" and decision["reasons"][0]["words"] == ["Brambleton"]
    queued = anyio.run(app.call, "queue_enqueue", {"decision": decision, "text": case["text"]}).structured_content
    taught = anyio.run(app.call, "queue_teach", {"seq": queued["seq"], "choice": "name",
                                                 "reviewer": "Diego Salas"})
    assert not taught.is_error, taught.content[0].text
    assert taught.structured_content["drafts"] == ["mortgage/1"]
    assert taught.structured_content["scope"] == "domain"
    (draft,) = load_drafts(glossaries, "mortgage").open()
    assert (draft.kind, draft.text, draft.authors) == ("name", "Brambleton", ["Diego Salas"])
    everywhere = anyio.run(app.call, "queue_teach", {"seq": queued["seq"], "choice": "name", "scope": "all",
                                                     "reviewer": "Diego Salas"})
    assert not everywhere.is_error, everywhere.content[0].text
    assert everywhere.structured_content["drafts"] == ["all/1"] and everywhere.structured_content["scope"] == "all"
    (common,) = load_drafts(glossaries, "all").open()
    assert (common.scope, common.evidence[0].scope, common.evidence[0].domain) == ("all", "all", "mortgage")
    spelled = anyio.run(app.call, "queue_teach", {"seq": queued["seq"], "choice": "name", "spellings": True,
                                                  "reviewer": "Diego Salas"})
    assert not spelled.is_error, spelled.content[0].text
    assert [d.text for d in load_drafts(glossaries, "mortgage").open()] == ["Brambleton", "BRAMBLETON"]
    with ReviewQueue(tmp_path / "q.sqlite3") as queue:
        head = queue.head()
    files = {p: p.read_bytes() for p in glossaries.rglob("*") if p.is_file()}
    for arguments, needle in [
        ({"choice": "means_term", "term_id": "MTG.NOPE", "reviewer": "Diego Salas"}, "unknown term id"),
        ({"choice": "neutral", "words": ["Underwriting"], "reviewer": "Diego Salas"}, "not an unexplained word"),
        ({"choice": "neutral", "reviewer": "automated-agent"}, "names a process"),
        ({"choice": "problem", "reviewer": "Diego Salas"}, "the problem is"),
        ({"choice": "neutral", "clause": 2, "reviewer": "Diego Salas"}, "1 clause"),
        ({"choice": "neutral", "scope": "every", "reviewer": "Diego Salas"}, "'domain' or 'all'"),
        ({"choice": "means_term", "term_id": "MTG.CTC", "scope": "all", "reviewer": "Diego Salas"},
         "scope all is for neutral and name only"),
        ({"choice": "neutral", "spellings": True, "reviewer": "Diego Salas"}, "are for name only"),
    ]:
        refused = anyio.run(app.call, "queue_teach", {"seq": queued["seq"], **arguments})
        assert refused.is_error and needle in refused.content[0].text, refused.content[0].text
    with ReviewQueue(tmp_path / "q.sqlite3") as queue:
        assert queue.head() == head
    assert {p: p.read_bytes() for p in glossaries.rglob("*") if p.is_file()} == files

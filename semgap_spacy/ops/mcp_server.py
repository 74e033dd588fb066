"""An MCP server (stdio) that lets an agent ask semgap_spacy before it acts.

Start it with ``python -m semgap_spacy.ops.mcp_server`` (needs the ``mcp`` extra,
the official Model Context Protocol SDK, 2.x). Tools:

- ``assess``: decide one case (spec §5): proceed, escalate or block, with reasons;
- ``explain_term``: a glossary term's definition, owner, approver, status,
  phrases, translations (with status and reviewer) and contract;
- ``list_domains``: the governed domains, their versions, term ids and declared
  ambiguous abbreviations;
- ``queue_enqueue``: put an escalate or block decision into the SQLite review
  queue named by ``SEMGAP_QUEUE_DB`` (default ``semgap_queue.sqlite3`` in the
  working directory);
- ``queue_teach``: record a named reviewer's choice for a clause with
  unexplained words (spec §4.2): neutral, name or means_term write drafts
  next to the glossaries (neutral and name for the case's domain, or with
  ``scope: all`` for every domain), which decide nothing until a second
  person approves them with ``glossary approve`` (not a tool: approval is the governance
  workflow); problem keeps the case escalated with the note
  and holds back drafts of the same words from approval.

Every tool has a strict input schema (pydantic, ``extra="forbid"``, strict
types): the advertised JSON schema carries the domain enum, ``maxLength`` 4000
for texts and ``additionalProperties: false``, and the same model validates
each call, so a call with an unknown key, a wrong domain or an over-long text
gets an error result (``isError``), never a decision and never a crash.

The pipeline is built once, when the server starts. stdout belongs to the
protocol: logs go to stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, Type

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from spacy.language import Language

from ..about import __version__
from ..api import MAX_TEXT_CHARS, build_pipeline, decide_cases, pipeline_glossary
from ..glossary.models import GlossarySet
from .cli_support import MAX_INT
from .mcp_frames import MAX_FRAME_BYTES, filtered_stdio_server
from ..glossary.drafts import CHOICES, SCOPES
from ..glossary.roster import RosterError, load_roster
from ..util.signals import restore_interrupt
from .review_queue import QueueError, ReviewQueue

logger = logging.getLogger("semgap_spacy.mcp_server")

SERVER_NAME = "semgap-spacy"
QUEUE_DB_ENV = "SEMGAP_QUEUE_DB"
DEFAULT_QUEUE_DB = "semgap_queue.sqlite3"
TOOL_NAMES = ("assess", "explain_term", "list_domains", "queue_enqueue", "queue_teach")

_STRICT = ConfigDict(extra="forbid", strict=True)
_SURROGATES = re.compile(r"[\ud800-\udfff]")
_MAX_ERRORS_REPORTED = 10

INSTRUCTIONS = (
    "Call `assess` before any irreversible action in a governed domain (organ courier dispatch, "
    "loan funding, batch release, aircraft dispatch) with the text you read and any structured "
    "readings. Act only on `proceed`. On `escalate`, a named person must look first: put the "
    "decision in the review queue with `queue_enqueue` and wait. On `block`, do not act. "
    "`explain_term` and `list_domains` describe the governed glossary."
)


class ToolFailure(Exception):
    """A refusal the caller should read (unknown term, queue refusal): an error result."""


# -- input models -------------------------------------------------------------


class ExplainTermInput(BaseModel):
    model_config = _STRICT

    term_id: str = Field(min_length=1, max_length=100,
                         description="A glossary term id, e.g. 'MED.XM_NEGATIVE' (see list_domains).")


class ListDomainsInput(BaseModel):
    model_config = _STRICT


class QueueEnqueueInput(BaseModel):
    model_config = _STRICT

    decision: Dict[str, Any] = Field(
        description="A decision object exactly as returned by `assess` (escalate or block only).")
    text: str = Field(max_length=MAX_TEXT_CHARS,
                      description="The text the decision was made on; only its SHA-256 is stored.")
    case_id: Optional[str] = Field(default=None, max_length=200,
                                   description="The case id; defaults to the decision's id.")


class QueueTeachInput(BaseModel):
    model_config = _STRICT

    seq: int = Field(ge=1, le=MAX_INT, description="The queue entry of the decision (from queue_enqueue).")
    clause: int = Field(default=1, ge=1, le=1000,
                        description="Which unexplained_content reason of the decision: 1 for the first, ...")
    choice: Literal[CHOICES] = Field(  # type: ignore[valid-type]
        description="neutral: the words carry no fact that matters here; name: they name a party, site or "
                "person; means_term: they say term X (give term_id); problem: they state something "
                "that must stop the action (give note).")
    reviewer: str = Field(min_length=1, max_length=200,
                          description="The human reviewer's name, as on the roster.")
    words: Optional[List[str]] = Field(default=None, max_length=100,
                                       description="The clause's unexplained words the choice is about "
                                                   "(default: all).")
    phrase: Optional[str] = Field(default=None, max_length=300,
                                  description="name / means_term: the name or phrase as the clause writes it.")
    term_id: Optional[str] = Field(default=None, max_length=100, description="means_term: the term X.")
    lang: Optional[Literal["en", "es", "fr", "de"]] = Field(
        default=None, description="The language list of a neutral word or phrase (default en).")
    note: str = Field(default="", max_length=2000, description="What the reviewer saw; required for problem.")
    scope: Optional[Literal[SCOPES]] = Field(  # type: ignore[valid-type]
        default=None, description="neutral / name: domain (the case's domain, the default) or all (every "
                                  "domain: the word is neutral, the name known, wherever it is met).")
    spellings: bool = Field(default=False, description="name: also draft the name in capitals, with capital "
                                                       "initials and (several words) in lower case.")


def assess_input_model(domains: Sequence[str]) -> Type[BaseModel]:
    """The strict argument model of ``assess``, with ``domain`` an enum of the glossary's domains.

    domains (Sequence[str]): The glossary's domain names.
    RETURNS (Type[BaseModel]): A pydantic model; its JSON schema is the advertised input schema.
    """
    domain_type = Literal[tuple(domains)]  # type: ignore[valid-type]
    return create_model(
        "AssessInput",
        __config__=_STRICT,
        domain=(domain_type, Field(description="The governed domain of the proposed action.")),
        text=(str, Field(max_length=MAX_TEXT_CHARS,
                         description="The domain text the agent read (en/es/fr/de), at most "
                                     f"{MAX_TEXT_CHARS} characters.")),
        readings=(Optional[Dict[str, Any]], Field(
            default=None,
            description="Structured readings from the source system: field name -> "
                        "{value, unit} | {duration} | {start} (spec §5). A malformed reading is "
                        "not refused: the decision escalates with a reason.")),
        now=(Optional[str], Field(default=None, max_length=64,
                                  description="Current time, ISO-8601; needed for `start` readings.")),
        case_id=(Optional[str], Field(default=None, max_length=200,
                                      description="Echoed as the decision's `id`.")),
    )


# -- output schemas (the client checks structured results against these) ---------

_DECISION_SCHEMA = {
    "type": "object",
    "required": ["decision", "reasons", "glossary_version", "glossary_sha256"],
    "properties": {
        "id": {"type": ["string", "integer", "null"]},
        "decision": {"enum": ["proceed", "escalate", "block"]},
        "reasons": {"type": "array", "items": {
            "type": "object", "required": ["code", "outcome", "message"],
            "properties": {"code": {"type": "string"}, "outcome": {"type": "string"},
                           "message": {"type": "string"}}}},
        "glossary_version": {"type": "string"},
        "glossary_sha256": {"type": "string"},
        "text_sha256": {"type": "string"},
        "language_packs": {"type": ["object", "null"], "additionalProperties": {"type": "string"}},
    },
}
_TERM_SCHEMA = {
    "type": "object",
    "required": ["id", "domain", "signal", "definition", "owner", "approver", "status",
                 "phrases", "abbreviations", "translations", "contract"],
    "properties": {
        "id": {"type": "string"}, "domain": {"type": "string"},
        "signal": {"enum": ["clear", "critical_block", "field"]},
        "definition": {"type": "string"}, "owner": {"type": "string"},
        "approver": {"type": ["string", "null"]}, "status": {"enum": ["approved", "draft"]},
        "phrases": {"type": "array", "items": {"type": "string"}},
        "abbreviations": {"type": "array", "items": {"type": "string"}},
        "translations": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["status", "reviewer", "phrases"]}},
        "field": {"type": ["string", "null"]},
        "contract": {"type": ["object", "null"]},
    },
}
_DOMAINS_SCHEMA = {
    "type": "object",
    "required": ["glossary_version", "glossary_sha256", "domains"],
    "properties": {
        "glossary_version": {"type": "string"},
        "glossary_sha256": {"type": "string"},
        "domains": {"type": "array", "items": {
            "type": "object", "required": ["domain", "version", "term_ids", "ambiguous_abbreviations"],
            "properties": {
                "domain": {"type": "string"}, "version": {"type": "string"},
                "term_ids": {"type": "array", "items": {"type": "string"}},
                "ambiguous_abbreviations": {"type": "array", "items": {
                "type": "object", "required": ["abbreviation", "meanings"]}},
            }}},
    },
}
_TEACH_SCHEMA = {
    "type": "object",
    "required": ["seq", "entry", "clause", "choice", "domain", "scope", "drafts", "words",
                 "withdrawn_problem_words"],
    "properties": {"seq": {"type": "integer"}, "entry": {"type": "integer"}, "clause": {"type": "integer"},
                   "choice": {"type": "string"}, "domain": {"type": "string"}, "scope": {"type": "string"},
                   "drafts": {"type": "array", "items": {"type": "string"}},
                   "words": {"type": "array", "items": {"type": "string"}},
                   "withdrawn_problem_words": {"type": "array", "items": {"type": "string"}}},
}
_ENQUEUE_SCHEMA = {
    "type": "object",
    "required": ["seq", "created"],
    "properties": {"seq": {"type": "integer"}, "created": {"type": "boolean"},
                   "case_id": {"type": ["string", "null"]}, "decision": {"type": "string"}},
}


@dataclass(frozen=True)
class _ToolSpec:
    tool: types.Tool
    model: Type[BaseModel]
    run: Callable[[BaseModel], Dict[str, Any]]


def _tool(name: str, title: str, description: str, model: Type[BaseModel], output_schema: Dict[str, Any],
          run: Callable[[BaseModel], Dict[str, Any]], *, writes: bool, idempotent: bool) -> _ToolSpec:
    """A tool whose advertised input schema is its strict argument model's."""
    hints = {"read_only_hint": not writes, "idempotent_hint": idempotent, "open_world_hint": False}
    if writes:
        hints["destructive_hint"] = False
    return _ToolSpec(types.Tool(name=name, title=title, description=description,
                                input_schema=model.model_json_schema(), output_schema=output_schema,
                                annotations=types.ToolAnnotations(**hints)), model, run)


# -- the server -----------------------------------------------------------------


class SemgapMCPServer:
    """The five tools over one pipeline, built by the caller once.

    nlp (Language): A pipeline with the semgap pipes (``build_pipeline()``).
    queue_db (str | Path | None): The review queue's SQLite file. Defaults to
        ``$SEMGAP_QUEUE_DB``, else ``semgap_queue.sqlite3`` in the working
        directory. Opened only when a decision is queued.
    glossary_dir (str | Path | None): The glossary directory the pipeline
        was built from: ``queue_teach`` writes its drafts to its ``drafts/``
        and takes the reviewers from its governance (unless
        ``$SEMGAP_QUEUE_ROSTER`` names a roster file). Defaults to the bundled glossaries, which
        decide but are never written: ``queue_teach`` then refuses, naming the copy to make.
    """

    def __init__(self, nlp: Language, queue_db: Optional[os.PathLike | str] = None,
                 glossary_dir: Optional[os.PathLike | str] = None) -> None:
        self.nlp = nlp
        self.glossary_dir = Path(glossary_dir) if glossary_dir else None
        self.glossary: GlossarySet = pipeline_glossary(nlp)
        self.domains: Tuple[str, ...] = tuple(self.glossary.domains)
        self.queue_db = Path(queue_db or os.environ.get(QUEUE_DB_ENV) or DEFAULT_QUEUE_DB).resolve()
        # spaCy pipes keep per-call state; decisions run one at a time.
        self._nlp_lock = threading.Lock()
        self._tools: Dict[str, _ToolSpec] = {spec.tool.name: spec for spec in self._tool_specs()}
        self.server: Server[Any] = Server(
            SERVER_NAME,
            version=__version__,
            title="semgap_spacy decision server",
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    # -- tool table ------------------------------------------------------------

    def _tool_specs(self) -> List[_ToolSpec]:
        domains = ", ".join(self.domains)
        assess_model = assess_input_model(self.domains)
        return [
            _tool("assess", "Assess a proposed action", (
                "Decide whether an irreversible action in a governed domain may go ahead. "
                "Returns the decision JSON: `decision` is proceed (act), escalate (a named person "
                "must look first) or block (do not act), with `reasons` (code, outcome, message, "
                "term, evidence span, reviewer options) and the glossary version and SHA-256. "
                f"Domains: {domains}."),
                assess_model, _DECISION_SCHEMA, self._assess, writes=False, idempotent=True),
            _tool("explain_term", "Explain a glossary term", (
                "A governed glossary term by id: domain, signal (clear / critical_block / field), "
                "definition, owner, approver, status, English phrases, abbreviations, translations "
                "with their status and reviewer, field and contract. An unknown id is an error."),
                ExplainTermInput, _TERM_SCHEMA, self._explain_term, writes=False, idempotent=True),
            _tool("list_domains", "List governed domains", (
                "The governed domains with their glossary version, term ids and declared "
                "ambiguous abbreviations (with their candidate meanings)."),
                ListDomainsInput, _DOMAINS_SCHEMA, self._list_domains, writes=False, idempotent=True),
            _tool("queue_enqueue", "Queue a decision for human review", (
                "Append an escalate or block decision (as returned by `assess`) to the "
                "hash-chained SQLite review queue. Returns its `seq` and `created` (false when "
                "the same case, text and glossary were already queued). A proceed decision, or a "
                "text that does not match the decision's text_sha256, is refused with an error."),
                QueueEnqueueInput, _ENQUEUE_SCHEMA, self._queue_enqueue, writes=True, idempotent=True),
            _tool("queue_teach", "Record a reviewer's choice for a clause", (
                "For a named human reviewer: record what the unexplained words of one clause of a "
                "queued unexplained_content escalation are (spec §4.2). neutral, name and means_term "
                "write drafts, which change no decision until a second person approves them through "
                "the glossary governance ('glossary approve'); neutral and name hold for the case's "
                "domain, or for every domain with scope 'all'; problem keeps the case escalated with "
                "the note. An unknown option, an unknown scope, a word not in the clause, an unknown "
                "term id or a reviewer off the roster is an error and records nothing."),
                QueueTeachInput, _TEACH_SCHEMA, self._queue_teach, writes=True, idempotent=False),
        ]

    @property
    def tools(self) -> List[types.Tool]:
        return [spec.tool for spec in self._tools.values()]

    # -- the tools (run on a worker thread) -------------------------------------

    def _assess(self, args: BaseModel) -> Dict[str, Any]:
        # the case as the client sent it: an explicit "readings": null is a malformed case, as it is
        # on a JSONL line to ``assess``, not the same as no readings (one route, one answer)
        case = {"id": args.case_id, "domain": args.domain, "text": args.text}
        case.update({key: getattr(args, key) for key in ("readings", "now") if key in args.model_fields_set})
        with self._nlp_lock:
            (decision,) = decide_cases(self.nlp, [case])
            return decision

    def _explain_term(self, args: ExplainTermInput) -> Dict[str, Any]:
        found = self.glossary.term(args.term_id)
        if found is None:
            raise ToolFailure(f"unknown term id {args.term_id!r}: no domain of glossary "
                              f"{self.glossary.version} has it (list_domains shows the term ids)")
        domain, term = found
        data = term.model_dump(mode="json")
        out: Dict[str, Any] = {"id": term.id, "domain": domain,
                               "domain_version": self.glossary.domains[domain].version}
        out.update({k: v for k, v in data.items() if k != "id"})
        if term.contract is not None:
            out["contract"]["description"] = term.contract.describe()
        out["glossary_sha256"] = self.glossary.sha256
        return out

    def _list_domains(self, args: ListDomainsInput) -> Dict[str, Any]:
        domains = []
        for name, dom in self.glossary.domains.items():
            domains.append({
                "domain": name,
                "version": dom.version,
                "description": dom.description,
                "term_ids": [t.id for t in dom.terms],
                "ambiguous_abbreviations": [
                    {"abbreviation": a.abbreviation, "meanings": [m.meaning for m in a.meanings]}
                    for a in dom.ambiguous],
            })
        return {"glossary_version": self.glossary.version, "glossary_sha256": self.glossary.sha256,
                "domains": domains}

    def _queue_enqueue(self, args: QueueEnqueueInput) -> Dict[str, Any]:
        # One connection per call, opened on this worker thread: sqlite3
        # connections must not cross threads, and WAL keeps writers safe.
        try:
            with ReviewQueue(self.queue_db) as queue:
                result = queue.enqueue(args.decision, args.text, case_id=args.case_id)
        except QueueError as err:
            raise ToolFailure(str(err)) from None
        case_id = args.case_id if args.case_id is not None else args.decision.get("id")
        return {"seq": result.seq, "created": result.created,
                "case_id": case_id if isinstance(case_id, str) or case_id is None else str(case_id),
                "decision": args.decision.get("decision")}

    def _queue_teach(self, args: QueueTeachInput) -> Dict[str, Any]:
        try:
            roster = load_roster(None, str(self.glossary_dir) if self.glossary_dir else None)
            with ReviewQueue(self.queue_db, roster=roster) as queue:
                result = queue.teach(args.seq, args.reviewer, args.clause, args.choice, words=args.words,
                                     phrase=args.phrase, term_id=args.term_id, lang=args.lang,
                                     note=args.note, scope=args.scope, spellings=args.spellings,
                                     glossary_dir=self.glossary_dir)
        except (QueueError, RosterError) as err:
            raise ToolFailure(str(err)) from None
        return {"seq": args.seq, "entry": result.seq, "clause": args.clause, "choice": result.choice,
                "domain": result.domain, "scope": result.scope, "drafts": list(result.drafts),
                "words": list(result.words), "withdrawn_problem_words": list(result.withdrawn)}

    # -- protocol handlers -------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Optional[types.PaginatedRequestParams]
                          ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await self.call(params.name, params.arguments)

    async def call(self, name: str, arguments: Optional[Dict[str, Any]]) -> types.CallToolResult:
        """Validate and run one tool call; every failure is an error result, never an exception."""
        spec = self._tools.get(name)
        if spec is None:
            return _error_result(f"unknown tool {name!r}; the tools are: {', '.join(self._tools)}")
        try:
            args = spec.model.model_validate(arguments or {})
        except ValidationError as err:
            # Field names and messages only: the rejected values are the caller's data.
            logger.info("tool %s: arguments refused (%s)", name, _error_fields(err))
            return _error_result(f"invalid arguments for {name}: {_describe(err)}")
        try:
            result = await anyio.to_thread.run_sync(spec.run, args)
        except ToolFailure as err:
            logger.info("tool %s refused: %s", name, err)
            return _error_result(str(err))
        except Exception as exc:  # a bug must not take the server down
            logger.exception("tool %s failed", name)
            return _error_result(f"{name} failed: internal error ({type(exc).__name__}); "
                                 "see the server log")
        result = _wire_safe(result)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
            structured_content=result,
        )

    async def run_stdio(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        """Serve one client over stdin/stdout until it closes the connection.

        Frames pass a filter first (``mcp_frames``): the SDK drops malformed
        requests unanswered, the filter answers them with a JSON-RPC error.
        """
        async with filtered_stdio_server(max_frame_bytes) as (read_stream, write_stream):
            await self.server.run(read_stream, write_stream, self.server.create_initialization_options())


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def _error_fields(err: ValidationError) -> str:
    return ", ".join(sorted({".".join(str(p) for p in e["loc"]) or "(arguments)" for e in err.errors()}))


def _describe(err: ValidationError) -> str:
    errors = err.errors(include_url=False, include_input=False)
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
             for e in errors[:_MAX_ERRORS_REPORTED]]
    if len(errors) > _MAX_ERRORS_REPORTED:
        parts.append(f"... and {len(errors) - _MAX_ERRORS_REPORTED} more")
    return "; ".join(parts)


def _wire_safe(value: Any) -> Any:
    """Lone surrogates cannot be written as UTF-8 on the wire; U+FFFD keeps lengths."""
    if isinstance(value, str):
        return _SURROGATES.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_wire_safe(k): _wire_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_wire_safe(v) for v in value]
    return value


def create_server(glossary_dir: Optional[str] = None,
                  queue_db: Optional[os.PathLike | str] = None) -> SemgapMCPServer:
    """Build the pipeline (once) and the server around it.

    glossary_dir (Optional[str]): Glossaries to load; the bundled ones by default.
    queue_db (str | Path | None): Review queue file; ``$SEMGAP_QUEUE_DB`` by default.
    RETURNS (SemgapMCPServer): Ready to ``run_stdio``.
    """
    # Nothing but protocol may reach stdout, not even a stray print while loading.
    with contextlib.redirect_stdout(sys.stderr):
        nlp = build_pipeline(glossary_dir)
    return SemgapMCPServer(nlp, queue_db=queue_db, glossary_dir=glossary_dir)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the MCP server on stdio.

    argv (Optional[Sequence[str]]): Command-line arguments; ``sys.argv[1:]`` by default.
    RETURNS (int): The exit code.
    """
    restore_interrupt()  # ``util.cli_start``
    parser = argparse.ArgumentParser(
        prog="python -m semgap_spacy.ops.mcp_server",
        description="semgap_spacy MCP server (stdio): assess, explain_term, list_domains, queue_enqueue, "
                "queue_teach.")
    parser.add_argument("--glossary-dir", default=None,
                        help="directory of domain glossary YAML files (default: the bundled ones)")
    parser.add_argument("--queue-db", default=None,
                        help=f"review queue SQLite file (default: ${QUEUE_DB_ENV}, else {DEFAULT_QUEUE_DB})")
    parser.add_argument("--max-frame-bytes", type=int, default=MAX_FRAME_BYTES,
                        help=f"refuse JSON-RPC frames longer than this (default {MAX_FRAME_BYTES})")
    parser.add_argument("--log-level", default="INFO",
                        choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    args = parser.parse_args(argv)
    if args.max_frame_bytes < 1:
        parser.error("--max-frame-bytes must be positive")
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        app = create_server(args.glossary_dir, queue_db=args.queue_db)
    except Exception as exc:  # a bad glossary: one line on stderr, not a traceback on the wire
        logger.error("cannot start: %s: %s", type(exc).__name__, exc)
        return 2
    logger.info("serving %s %s on stdio: glossary %s (%s), domains %s, review queue %s",
                SERVER_NAME, __version__, app.glossary.version, app.glossary.sha256[:12],
                ", ".join(app.domains), app.queue_db)
    try:
        anyio.run(app.run_stdio, args.max_frame_bytes)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

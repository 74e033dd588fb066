"""A frame filter in front of the MCP SDK's stdio transport.

Why it exists: the ``mcp`` SDK (2.3) validates each stdin line and, when a
line is not a valid JSON-RPC message, hands the exception to its dispatcher,
which logs it at debug level and drops it. A request with a perfectly good id
but ``"jsonrpc": "1.0"``, no ``method``, ``params`` as a string, a boolean id,
a lone surrogate escape or a 5,000-digit number is therefore never answered
and the client waits until its timeout; invalid JSON gets no parse error; and
the SDK reads a line of any length into memory. JSON-RPC 2.0 asks for an
error response in every one of these cases.

So this layer reads stdin itself, line by line with a size cap (a longer
frame is skipped in chunks, never held whole), checks each frame (strict
JSON as in :mod:`semgap_spacy.strict_json`, then the JSON-RPC envelope, then
the SDK's own message model) and

- passes a valid frame on to the SDK unchanged;
- answers a refused frame itself with a JSON-RPC error carrying the
  request's id (``null`` when the id cannot be known: invalid JSON, a batch,
  a frame over the cap whose id is not near its start).

Errors are sent on the SDK's own write stream, so there is one writer on
stdout and frames never interleave. Notifications (no id) that are refused
get no answer unless the frame is not JSON at all, as JSON-RPC prescribes.
"""
from __future__ import annotations

import logging
import re
import sys
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, BinaryIO, Optional, Tuple, Union

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from ..util.strict_json import INVALID_JSON, StrictJSONError, lenient_top_level, loads

logger = logging.getLogger("semgap_spacy.mcp_server")

# The largest frame read, newline excluded. An assess call is at most a few
# kilobytes (4,000 characters of text plus readings); 1 MiB leaves room for a
# queue_enqueue with a long decision and stops a 60 MB line at the door.
MAX_FRAME_BYTES = 1 << 20
# How much of an over-long frame is kept to look for its id.
_ID_PREFIX_BYTES = 4096
_SKIP_CHUNK = 1 << 16

PARSE_ERROR = types.PARSE_ERROR  # -32700
INVALID_REQUEST = types.INVALID_REQUEST  # -32600

RequestId = Union[int, str, None]
Refusal = Tuple[RequestId, int, str]  # (id to answer, JSON-RPC error code, message), id None = null

# The id near the start of a frame: after "jsonrpc" and/or "method", as SDK
# clients and most others write it. Only used for frames too long to parse.
_LEADING_ID = re.compile(
    rb'\A\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,100}"\s*,)*\s*"id"\s*:\s*'
    rb'(-?[0-9]{1,18}|"(?:[^"\\]|\\.){0,200}")\s*[,}]')


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _id_of(envelope: Any) -> RequestId:
    if isinstance(envelope, dict) and _valid_id(envelope.get("id")):
        return envelope["id"]
    return None


def leading_id(prefix: bytes) -> RequestId:
    """The id of a frame from its first bytes, or None when it is not there."""
    match = _LEADING_ID.match(prefix)
    if not match:
        return None
    try:
        value = loads(match.group(1).decode("utf-8"))
    except (StrictJSONError, UnicodeDecodeError):
        return None
    return value if _valid_id(value) else None


def check_frame(raw: bytes) -> Tuple[Optional[str], Optional[Refusal]]:
    """Decide one frame: (text to pass to the SDK, None) or (None, refusal).

    A blank frame gives (None, None): nothing to pass, nothing to answer.

    raw (bytes): One stdin line, newline included or not.
    RETURNS (Tuple[Optional[str], Optional[Refusal]]): What to do with it.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, (None, PARSE_ERROR, f"Parse error: frame is not valid UTF-8 ({exc.reason})")
    if not text.strip():
        return None, None
    try:
        message = loads(text)
    except StrictJSONError as exc:
        envelope = lenient_top_level(text)
        if exc.code == INVALID_JSON and envelope is None:
            return None, (None, PARSE_ERROR, f"Parse error: {exc.message}")
        if isinstance(envelope, dict) and "id" not in envelope:
            return None, _notification_refused(exc.message)
        # Too deep even for the lenient parse: the id is looked for at the start.
        request_id = _id_of(envelope) if envelope is not None else leading_id(raw[:_ID_PREFIX_BYTES])
        return None, (request_id, INVALID_REQUEST, f"Invalid Request: {exc.message} [{exc.code}]")
    if isinstance(message, list):
        return None, (None, INVALID_REQUEST, "Invalid Request: batches are not supported; send one "
                                             "message per line")
    if not isinstance(message, dict):
        return None, (None, INVALID_REQUEST,
                      f"Invalid Request: a message must be a JSON object, not {type(message).__name__}")
    problem = _envelope_problem(message)
    if problem is None:
        try:
            types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except Exception as exc:  # the SDK's model is the last word on what it accepts
            problem = "the message does not match the JSON-RPC message schema (" + _first_error(exc) + ")"
    if problem is None:
        return text, None
    if "id" not in message:
        return None, _notification_refused(problem)
    return None, (_id_of(message), INVALID_REQUEST, f"Invalid Request: {problem}")


def _notification_refused(problem: str) -> Optional[Refusal]:
    logger.info("notification refused, not answered: %s", problem)
    return None


def _envelope_problem(message: dict) -> Optional[str]:
    """What is wrong with a JSON-RPC 2.0 envelope, or None."""
    if message.get("jsonrpc") != "2.0":
        return 'a JSON-RPC 2.0 message needs "jsonrpc": "2.0"'
    if "id" in message and not _valid_id(message["id"]):
        return "the id must be a string or an integer"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "the method must be a string"
        if "params" in message and not isinstance(message["params"], dict):
            return "params must be an object"
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None  # a response to a request the server sent
    return 'a request needs a "method"'


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    try:
        first = errors(include_url=False, include_input=False)[0] if errors else None
    except Exception:
        first = None
    if not first:
        return type(exc).__name__
    return f"{'.'.join(str(p) for p in first['loc']) or 'message'}: {first['msg']}"


class FrameFilter:
    """An async iterator of accepted frames (as text) read from a binary stream.

    The SDK's stdio transport iterates it in place of stdin. A refused frame
    is answered on the transport's write stream (given by :meth:`attach`)
    before the next frame is read, so answers keep the order of the frames
    and none is lost when stdin closes right after a bad frame.

    source (BinaryIO): Where frames come from (stdin's buffer).
    max_frame_bytes (int): The size cap, newline excluded.
    """

    def __init__(self, source: BinaryIO, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        if max_frame_bytes < 1:
            raise ValueError("max_frame_bytes must be positive")
        self._source = source
        self.max_frame_bytes = max_frame_bytes
        self._write_stream: Any = None
        self._ready = anyio.Event()

    def attach(self, write_stream: Any) -> None:
        """Where refusals are answered: the transport's write stream."""
        self._write_stream = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        await self._ready.wait()
        while True:
            raw = await self._readline(self.max_frame_bytes + 1)
            if not raw:
                return
            if len(raw) > self.max_frame_bytes and not raw.endswith(b"\n"):
                await self._refuse(await self._skip_long_frame(raw))
                continue
            text, refusal = check_frame(raw)
            if refusal is not None:
                await self._refuse(refusal)
            elif text is not None:
                yield text

    async def _readline(self, limit: int) -> bytes:
        # A bounded readline on a worker thread: at most ``limit`` bytes are held.
        return await anyio.to_thread.run_sync(self._source.readline, limit, abandon_on_cancel=True)

    async def _skip_long_frame(self, head: bytes) -> Refusal:
        """Read the rest of an over-long frame in chunks, keeping none of it."""
        skipped = len(head)
        while True:
            chunk = await self._readline(_SKIP_CHUNK)
            skipped += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                break
        skipped -= 1 if chunk.endswith(b"\n") else 0
        logger.warning("frame of %d bytes refused (limit %d)", skipped, self.max_frame_bytes)
        return (leading_id(head[:_ID_PREFIX_BYTES]), INVALID_REQUEST,
                f"Invalid Request: frame of {skipped} bytes is over the {self.max_frame_bytes}-byte limit")

    async def _refuse(self, refusal: Refusal) -> None:
        request_id, code, message = refusal
        logger.info("frame refused (id %r): %s", request_id, message)
        error = types.JSONRPCError(jsonrpc="2.0", id=request_id,
                                   error=types.ErrorData(code=code, message=message))
        try:
            await self._write_stream.send(SessionMessage(error))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the server is shutting down; nobody is left to answer


@asynccontextmanager
async def filtered_stdio_server(max_frame_bytes: int = MAX_FRAME_BYTES,
                                stdin: Optional[BinaryIO] = None) -> AsyncIterator[Tuple[Any, Any]]:
    """The SDK's ``stdio_server`` with :class:`FrameFilter` reading stdin.

    max_frame_bytes (int): The frame size cap, newline excluded.
    stdin (Optional[BinaryIO]): The binary source; the process's stdin by default.
    YIELDS (Tuple): (read_stream, write_stream), as ``stdio_server`` does.
    """
    frames = FrameFilter(stdin if stdin is not None else sys.stdin.buffer, max_frame_bytes)
    async with stdio_server(stdin=frames) as (read_stream, write_stream):  # type: ignore[arg-type]
        frames.attach(write_stream)
        yield read_stream, write_stream

"""Strict JSONL reading, one reader for every tool that reads cases or decisions.

Each line is strict JSON (``strict_json``): unique keys, bounded depth and
number size (checked before the parse), no lone surrogates, no NaN. ``assess``
turns a refused line into an escalate decision with the reason code;
``read_jsonl`` (files a program wrote: queue enqueue, governance replay) turns
it into an error naming the line.
"""
from pathlib import Path
from typing import Any, Iterable, Iterator, List, Optional, Tuple, Type, Union

from .strict_json import INVALID_JSON, StrictJSONError, loads

Problem = Tuple[str, str]  # (reason code, message)


def parse_line(raw: Union[bytes, str]) -> Tuple[Any, Optional[Problem]]:
    """One line as (value, None), or (None, (code, message)) when it is refused.

    raw (bytes | str): The line, as read (bytes are decoded as strict UTF-8).
    RETURNS (Tuple[Any, Optional[Problem]]): The value or the problem; never raises.
    """
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf8")
        except UnicodeDecodeError as exc:
            return None, (INVALID_JSON, f"not valid UTF-8 ({exc.reason})")
    try:
        return loads(raw), None
    except StrictJSONError as exc:
        return None, (exc.code, exc.message)


def iter_lines(stream: Iterable[Union[bytes, str]]) -> Iterator[Tuple[int, Any, Optional[Problem]]]:
    """(line number, value, problem) for every line, blank ones included."""
    for number, raw in enumerate(stream, 1):
        value, problem = parse_line(raw)
        yield number, value, problem


def read_jsonl(path: Union[str, Path], what: str = "line", error: Type[Exception] = ValueError) -> List[Any]:
    """One JSON value per non-blank line.

    path (str | Path): The file.
    what (str): What a line holds, for the message ("case", "decision").
    error (Type[Exception]): The error to raise on a line that is not strict JSON.
    RETURNS (List[Any]): The values, in order.
    """
    rows: List[Any] = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            value, problem = parse_line(raw)
            if problem is not None:
                code, message = problem
                raise error(f"{path}:{lineno}: {what} line refused: {message} [{code}]")
            rows.append(value)
    return rows

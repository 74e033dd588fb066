"""Strict JSONL reading, one reader for every tool that reads cases or decisions.

Each line is strict JSON (``strict_json``): unique keys, bounded depth and
number size (checked before the parse), no lone surrogates, no NaN. ``assess``
turns a refused line into an escalate decision with the reason code;
``read_jsonl`` (files a program wrote: queue enqueue, governance replay) turns
it into an error naming the line.

A UTF-8 byte order mark at the very start of a file (Windows editors write
one) is not part of the first line's JSON and is skipped (``without_bom``);
anywhere else it is a character of the line, and the line is refused.
"""
from pathlib import Path
from typing import Any, Iterable, Iterator, List, Optional, Tuple, Type, Union

from .strict_json import INVALID_JSON, StrictJSONError, loads

Problem = Tuple[str, str]  # (reason code, message)

BOM = "\ufeff"
_BOM_BYTES = BOM.encode("utf8")


def without_bom(raw: Union[bytes, str]) -> Union[bytes, str]:
    """The first line of a file without the UTF-8 byte order mark it may start with.

    Notepad and other Windows editors write one when they save "UTF-8"; it marks the
    encoding and is no part of the data, so a case file saved there must read as the
    same file saved elsewhere. Only the first line of a file is given here: a mark
    anywhere else is a character of its line, and the line is refused.

    raw (bytes | str): The first line, as read.
    RETURNS (bytes | str): The line without one leading mark.
    """
    if isinstance(raw, bytes):
        return raw[len(_BOM_BYTES):] if raw.startswith(_BOM_BYTES) else raw
    return raw[1:] if raw.startswith(BOM) else raw


def parse_line(raw: Union[bytes, str], first: bool = False) -> Tuple[Any, Optional[Problem]]:
    """One line as (value, None), or (None, (code, message)) when it is refused.

    raw (bytes | str): The line, as read (bytes are decoded as strict UTF-8).
    first (bool): The line is the first of its file: a byte order mark it starts with is skipped.
    RETURNS (Tuple[Any, Optional[Problem]]): The value or the problem; never raises.
    """
    if not isinstance(raw, (bytes, str)):  # a caller's list may hold anything
        return None, (INVALID_JSON, f"a {type(raw).__name__}, not a line of text")
    if first:
        raw = without_bom(raw)
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf8")
        except UnicodeDecodeError as exc:
            return None, (INVALID_JSON, f"not valid UTF-8 ({exc.reason})")
    try:
        return loads(raw), None
    except StrictJSONError as exc:
        if "\r" in raw.rstrip("\r\n"):  # a file saved with CR alone between its lines reads as one line
            return None, (exc.code, f"{exc.message}; it holds a carriage return: lines end with \\n, so "
                                    "lines separated by \\r alone read as one")
        return None, (exc.code, exc.message)


def iter_lines(stream: Iterable[Union[bytes, str]]) -> Iterator[Tuple[int, Any, Optional[Problem]]]:
    """(line number, value, problem) for every line, blank ones included."""
    for number, raw in enumerate(stream, 1):
        value, problem = parse_line(raw, first=number == 1)
        yield number, value, problem


def file_lines(path: Union[str, Path]) -> Iterator[Tuple[int, Any, Optional[Problem]]]:
    """(line number, value, problem) for every non-blank line of a file, read as ``parse_line``
    reads it (a byte order mark at the start of the file skipped); never raises on content.

    path (str | Path): The file.
    YIELDS (Tuple[int, Any, Optional[Problem]]): Each line's number and its value or problem.
    """
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno == 1:
                raw = without_bom(raw)
            if raw.strip():
                value, problem = parse_line(raw)
                yield lineno, value, problem


def read_jsonl(path: Union[str, Path], what: str = "line", error: Type[Exception] = ValueError) -> List[Any]:
    """One JSON value per non-blank line.

    path (str | Path): The file.
    what (str): What a line holds, for the message ("case", "decision").
    error (Type[Exception]): The error to raise on a line that is not strict JSON.
    RETURNS (List[Any]): The values, in order.
    """
    rows: List[Any] = []
    for lineno, value, problem in file_lines(path):
        if problem is not None:
            code, message = problem
            raise error(f"{path}:{lineno}: {what} line refused: {message} [{code}]")
        rows.append(value)
    return rows

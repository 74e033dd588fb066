"""Strict JSONL reading for the tools that read logged cases and decisions.

Unlike ``assess`` (which must answer every line, however broken), these tools
work on files a program wrote; a broken line there is an error to report with
its line number, not a case to decide.
"""
import json
from pathlib import Path
from typing import Any, List, Type, Union


def read_jsonl(path: Union[str, Path], what: str = "line", error: Type[Exception] = ValueError) -> List[Any]:
    """One JSON value per non-blank line.

    path (str | Path): The file.
    what (str): What a line holds, for the message ("case", "decision").
    error (Type[Exception]): The error to raise on a line that is not JSON.
    RETURNS (List[Any]): The values, in order.
    """
    rows: List[Any] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise error(f"{path}:{lineno}: {what} line is not JSON ({exc.msg})") from None
    return rows

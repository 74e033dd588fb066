"""A run record's entries as a doc keeps them: one tuple of strings per pipe.

Every semgap pipe leaves an entry on each doc it sees (``core.pipeline``).
As a dict holding a dict of the pipe's switches, that is two containers per
pipe and doc, which Python's collector walks for as long as the doc lives (a
trained pipeline holds whole batches of docs), and they are the same on every
doc a pipe reads. So an entry is kept as ``(name, factory, status, switches as
JSON text)``: strings only, which the collector stops looking at, with the
JSON text made once per pipe and shared until its switches change. The dicts
users read (``doc._.semgap_pipeline``) are made from it, new ones each time,
so nothing a user edits reaches another doc or the pipe.

Switches that JSON would not give back exactly (a tuple, a key that is not a
string, a value of another type) keep the entry as a dict, as it always was.
"""
import json
from typing import Any, Optional, Sequence

_FIELDS = {"name": 0, "factory": 1, "status": 2}


def config_text(config: dict) -> Optional[str]:
    """The switches as JSON text, when reading the text back gives exactly these switches; else None.

    config (dict): The switches, ``enabled`` included.
    RETURNS (Optional[str]): The text, or None for switches an entry must keep as a dict.
    """
    if not _plain(config):
        return None
    try:
        text = json.dumps(config)
    except (TypeError, ValueError):
        return None
    return text if json.loads(text) == config else None


def _plain(value: Any) -> bool:
    """Whether a value is made of JSON's own types only (str keys; no tuples, no subclasses)."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    return value is None or kind in (str, bool, int, float)


def is_entry(value: Any) -> bool:
    """Whether a stored value is an entry (a round trip through ``DocBin`` or a worker keeps it one)."""
    return type(value) in (tuple, list) and len(value) == 4 and all(type(v) is str for v in value)


def entry_dict(entry: Any) -> Any:
    """An entry as users and ``check_runs`` read it: a new dict with name, factory, status and config.

    Anything that is not an entry (a dict entry, a damaged value) is handed back as it
    is: ``check_runs`` counts only dicts, so a damaged entry reads as a pipe that did not run.
    """
    if not is_entry(entry):
        return entry
    try:
        config = json.loads(entry[3])
    except ValueError:
        return entry
    return {"name": entry[0], "factory": entry[1], "status": entry[2], "config": config}


def holds_name(record: Sequence, name: str) -> bool:
    """Whether an entry of a record has this ``name`` (``entry_field``)."""
    for e in record:
        if (e[0] if type(e) is tuple and len(e) == 4 else entry_field(e, "name")) == name:
            return True
    return False


def entry_field(entry: Any, field: str) -> Any:
    """One of ``name``, ``factory``, ``status`` of an entry or of a dict entry; None for anything else."""
    kind = type(entry)
    if kind is tuple or kind is list:
        return entry[_FIELDS[field]] if len(entry) == 4 else None
    if isinstance(entry, dict):
        return entry.get(field)
    return None

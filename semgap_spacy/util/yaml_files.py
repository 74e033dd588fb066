"""YAML files read by their content: the bundled ones from a parsed copy shipped as JSON.

srsly parses YAML with a pure-Python parser (ruamel, YAML 1.2, where "no" and
"on" stay words, as the cue lists need). The bundled glossaries, language
packs and rule files are 93 KB of it, and parsing them took 0.7 s of every
process start: the CLI, each test run, each worker that loads a pipeline.
Their parsed content ships in ``data/parsed_yaml.json``, keyed by the SHA-256
of each file's bytes, and JSON is parsed in C. A file whose bytes match an
entry is read from there; any other file (an edited glossary, an approved
version, a team's own) is parsed as before, so the copy can never stand in
for what a file says. ``python -m scripts.build_form_cache`` writes the copy;
a test fails when a bundled file has no entry or its entry differs from a
fresh parse.
"""
import hashlib
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Dict, Iterable, Union

import srsly

PARSED_FILE = "parsed_yaml.json"


def read_yaml(path: Union[str, Path]) -> Any:
    """The content of a YAML file, as ``srsly.read_yaml`` gives it (a new object on every call).

    path (str | Path): The file.
    RAISES: What ``srsly.read_yaml`` raises for a missing, unreadable or invalid file.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError:
        return srsly.read_yaml(path)  # its own error for a file it cannot read
    parsed = _shipped().get(hashlib.sha256(raw).hexdigest())
    if parsed is not None:
        return json.loads(parsed)
    return srsly.yaml_loads(_as_text(raw))


def parsed_copies(paths: Iterable[Union[str, Path]]) -> Dict[str, str]:
    """The shipped copy's entries for ``paths``: the SHA-256 of each file's bytes -> its content
    as JSON text. A file whose content JSON cannot hold exactly (a date, a key that is no
    string) gets no entry and is always parsed."""
    out = {}
    for path in paths:
        raw = Path(path).read_bytes()
        content = srsly.yaml_loads(_as_text(raw))
        try:
            text = json.dumps(content, ensure_ascii=False, sort_keys=False)
        except (TypeError, ValueError):
            continue
        if json.loads(text) == content:
            out[hashlib.sha256(raw).hexdigest()] = text
    return dict(sorted(out.items()))


def _as_text(raw: bytes) -> str:
    """A file's bytes as text the way ``open(..., encoding="utf8")`` reads it (line ends as "\\n")."""
    text = raw.decode("utf8")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@lru_cache(maxsize=1)
def _shipped() -> Dict[str, str]:
    try:
        return json.loads((resources.files("semgap_spacy.data") / PARSED_FILE).read_text(encoding="utf8"))
    except (FileNotFoundError, OSError, ValueError):
        return {}

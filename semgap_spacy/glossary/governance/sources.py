"""Sources: turn whatever names a glossary version into raw YAML payloads.

Governance must read glossaries the loader would refuse (that is the point of
``validate``), so it works on parsed YAML, not on the pydantic models. The
same callers name versions in many ways (a directory, one file, an archived
version such as "2026.11.0", a loaded GlossarySet, a dict in a test), and every
one of them ends up here as a list of ``RawDomain``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union


from ..models import GlossarySet, bundled_glossary_dir, version_order
from ..models import _VERSION as VERSION_RE
from .findings import GovernanceError
from ...util.yaml_files import read_yaml


_ARCHIVE = "archive"


Source = Union[str, Path, GlossarySet, Mapping[str, Any], Sequence[Union[str, Path]]]


@dataclass
class RawDomain:
    """One domain file as parsed YAML, before any validation."""

    name: str
    payload: Any
    path: Optional[str] = None
    error: Optional[str] = None


def archive_dir(version: str, archive_root: Optional[Union[str, Path]] = None) -> Path:
    """The directory of an archived glossary version.

    version (str): A version such as "2026.11.0".
    archive_root (str | Path | None): Where versions are archived; defaults to
        ``<bundled glossaries>/archive``.
    RETURNS (Path): The version's directory.
    RAISES (GovernanceError): If the version is malformed or not archived.
    """
    root = Path(archive_root) if archive_root else bundled_glossary_dir() / _ARCHIVE
    if not isinstance(version, str) or not VERSION_RE.match(version):
        raise GovernanceError(f"{version!r} is not a glossary version (YYYY.MM.N)")
    path = root / version
    if not path.is_dir():
        known = sorted((p.name for p in root.iterdir() if p.is_dir()), key=version_order) if root.is_dir() else []
        raise GovernanceError(
            f"glossary version {version} is not archived in {root} "
            f"(archived: {', '.join(known) if known else 'none'})")
    return path


#: where the YAML parser says a problem is ("line 114, column 11")
_YAML_MARK = re.compile(r"line (\d+), column (\d+)")


def _read_yaml(path: Path) -> RawDomain:
    try:
        payload = read_yaml(path)
    except Exception as exc:  # the YAML parser's own errors vary by version
        said = [line.strip() for line in str(exc).strip().splitlines() if not line.strip().startswith("in ")]
        where = _YAML_MARK.findall(str(exc))  # the parser's marks, the problem's last
        at = f", line {where[-1][0]}, column {where[-1][1]}" if where else ""
        return RawDomain(path.stem, None, str(path),
                         f"{path}{at}: not valid YAML ({'; '.join(said) if said else exc})")
    name = payload.get("domain") if isinstance(payload, dict) else None
    return RawDomain(name if isinstance(name, str) and name else path.stem, payload, str(path))


def _paths(source: Union[str, Path]) -> List[Path]:
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.yaml") if p.is_file())
        if not files:
            raise GovernanceError(f"{path}: no *.yaml glossary files")
        return files
    if path.is_file():
        return [path]
    if isinstance(source, str) and VERSION_RE.match(source):
        return _paths(archive_dir(source))
    raise GovernanceError(f"{path}: no such glossary file or directory")


def load_raw(source: Source) -> List[RawDomain]:
    """Parse glossary YAML without validating it.

    source: A directory or file (str | Path), an archived version ("2026.11.0"),
        a list of those, a GlossarySet, a single domain payload (dict with
        "domain" and "terms") or a mapping of domain name to payload.
    RETURNS (List[RawDomain]): One entry per domain file.
    RAISES (GovernanceError): If a path does not exist or holds no glossary.
    """
    if isinstance(source, GlossarySet):
        return [RawDomain(name, dom.to_dict(), f"<loaded:{name}>")
                for name, dom in source.domains.items()]
    if isinstance(source, Mapping):
        if "terms" in source or "domain" in source:
            name = source.get("domain")
            return [RawDomain(name if isinstance(name, str) else "<dict>", dict(source), "<dict>")]
        return [RawDomain(str(name), payload, f"<dict:{name}>") for name, payload in source.items()]
    if isinstance(source, (str, Path)):
        return [_read_yaml(p) for p in _paths(source)]
    if isinstance(source, Iterable):
        out: List[RawDomain] = []
        for item in source:
            out.extend(load_raw(item))
        if not out:
            raise GovernanceError("no glossary files given")
        return out
    raise GovernanceError(f"cannot read glossaries from a {type(source).__name__}")

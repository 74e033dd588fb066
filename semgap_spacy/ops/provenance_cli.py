"""The ``verify`` and ``sign`` commands: check logged decisions against their cases.

    python -m semgap_spacy verify --decisions D.jsonl --cases C.jsonl [--key-env NAME]
    python -m semgap_spacy sign --decisions D.jsonl --out S.jsonl --key-env NAME

``verify`` prints every problem of every decision line (see ``provenance``)
and exits 1 if there is any, 0 when every decision checks out. A decision
line that is not a JSON object, or holds a key twice (the two readers of a
log must never see two different decisions), is a problem of that line,
never an abort. The key is read from a file or from an environment variable
whose NAME is given; it is never taken on the command line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .cli_support import field, guard, printable, standalone_main
from ..core.provenance import sign_decision, verify_evidence
from ..util.jsonl import parse_line, without_bom
from ..util.safe_output import refuse_clash
from ..util.signing import KEY_ENV_CONFIG, KEY_FILE_CONFIG, SigningKeyError, load_key

# Beyond this a line is refused before it is parsed (a log line is a few kB).
MAX_LINE_BYTES = 1_000_000


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    seen: Dict[str, Any] = {}
    for k, v in pairs:
        if k in seen:
            raise _Duplicate(f"the key {k!r} appears twice")
        seen[k] = v
    return seen


def _lines(path: str) -> List[Tuple[int, Any, Optional[str]]]:
    """(line number, value, problem) per non-blank line; never raises on content."""
    out = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno == 1:
                raw = without_bom(raw)
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE_BYTES:
                out.append((lineno, None, f"line is over {MAX_LINE_BYTES} bytes"))
                continue
            try:
                value = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
            except _Duplicate as exc:
                out.append((lineno, None, f"not one JSON object: {exc}"))
            except UnicodeDecodeError:
                out.append((lineno, None, "not valid UTF-8"))
            except (ValueError, RecursionError) as exc:
                out.append((lineno, None, f"not JSON ({getattr(exc, 'msg', type(exc).__name__)})"))
            else:
                out.append((lineno, value, None))
    return out


def _id_key(case_id: Any) -> Any:
    """A case id as its decision echoes it: a string or an integer as it is, anything else as its
    ``str`` (``core.cases.check_case``); None for none."""
    if case_id is None or isinstance(case_id, str) or (isinstance(case_id, int) and not isinstance(case_id, bool)):
        return case_id
    return str(case_id)


def _case_lines(path: str) -> List[Tuple[int, Any]]:
    """(line number, case or None) per non-blank line, read as ``assess`` reads it (strict JSON:
    a line with NaN, a lone surrogate or nesting too deep was refused there, and decided on no text)."""
    out = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if raw.strip():
                value, problem = parse_line(raw, first=lineno == 1)
                out.append((lineno, value if problem is None else None))
    return out


def _case_texts(path: str) -> Tuple[Dict[Any, str], Dict[int, str], set]:
    by_id: Dict[Any, str] = {}
    by_line: Dict[int, str] = {}
    duplicated = set()
    for lineno, case in _case_lines(path):
        # A case the pipeline could not read, or whose text is not a string,
        # was decided on the empty text.
        text = case.get("text") if isinstance(case, dict) else None
        text = text if isinstance(text, str) else ""
        by_line[lineno] = text
        key = _id_key(case.get("id")) if isinstance(case, dict) else None
        if key is not None:
            if key in by_id:
                duplicated.add(key)
            by_id[key] = text
    return by_id, by_line, duplicated


def _key(args: argparse.Namespace) -> Optional[bytes]:
    return load_key(args.key_file, args.key_env)


def _cmd_verify(args: argparse.Namespace) -> int:
    key = _key(args)
    by_id, by_line, duplicated = _case_texts(args.cases)
    checked = failed = 0
    for lineno, decision, problem in _lines(args.decisions):
        checked += 1
        problems = [problem] if problem else []
        if not problems:
            case_id = decision.get("id") if isinstance(decision, dict) else None
            key_id = _id_key(case_id)
            if key_id is not None and key_id in duplicated:
                problems.append(f"case id {case_id!r} is in {args.cases} more than once")
            elif key_id is not None and key_id in by_id:
                problems.extend(verify_evidence(decision, by_id[key_id], key=key))
            elif key_id is None and isinstance(decision, dict) and isinstance(decision.get("line"), int) \
                    and decision["line"] in by_line:
                problems.extend(verify_evidence(decision, by_line[decision["line"]], key=key))
            elif not isinstance(decision, dict):
                problems.extend(verify_evidence(decision, "", key=key))
            else:
                problems.append(f"no case with id {case_id!r} in {args.cases}")
        if problems:
            failed += 1
            ident = decision.get("id") if isinstance(decision, dict) else None
            for p in problems:
                print(f"{args.decisions}:{lineno} (id {field(ident)}): {printable(p)}")
    mode = "signatures checked" if key is not None else "no key: signatures not checked"
    print(f"checked {checked} decisions: {checked - failed} ok, {failed} with problems ({mode})")
    return 1 if failed else 0


def _cmd_sign(args: argparse.Namespace) -> int:
    refuse_clash(args.out, [args.decisions])
    key = _key(args)
    if key is None:
        raise SigningKeyError(f"signing needs a key: --key-file, --key-env, ${KEY_FILE_CONFIG} "
                              f"or ${KEY_ENV_CONFIG}")
    signed: List[str] = []
    for lineno, decision, problem in _lines(args.decisions):
        if problem or not isinstance(decision, dict):
            raise ValueError(f"{args.decisions}:{lineno}: {problem or 'not a JSON object'}; nothing written")
        signed.append(json.dumps(sign_decision(decision, key), ensure_ascii=False) + "\n")
    # Written to a temporary file and renamed: a failed run leaves OUT as it was.
    folder = os.path.dirname(os.path.abspath(args.out))
    fd, tmp = tempfile.mkstemp(prefix=".signing-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(signed)
        os.replace(tmp, args.out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    print(f"signed {len(signed)} decisions into {args.out}")
    return 0


def register(subparsers: "argparse._SubParsersAction") -> None:
    """Add ``verify`` and ``sign`` to an argparse CLI."""
    keys = argparse.ArgumentParser(add_help=False)
    keys.add_argument("--key-file", default=None,
                      help=f"file holding the signing key (default: ${KEY_FILE_CONFIG})")
    keys.add_argument("--key-env", default=None, metavar="NAME",
                      help=f"NAME of the environment variable holding the key (default: ${KEY_ENV_CONFIG})")
    p = subparsers.add_parser("verify", parents=[keys],
                              help="check logged decisions against their cases (and signatures)")
    p.add_argument("--decisions", required=True, help="decisions JSONL")
    p.add_argument("--cases", required=True, help="the cases JSONL they were decided on")
    p.set_defaults(func=guard(_cmd_verify, (SigningKeyError, ValueError, OSError),
                              inputs=("decisions", "cases")))
    p = subparsers.add_parser("sign", parents=[keys], help="add an HMAC signature to every decision")
    p.add_argument("--decisions", required=True, help="decisions JSONL")
    p.add_argument("--out", required=True, help="signed decisions JSONL")
    p.set_defaults(func=guard(_cmd_sign, (SigningKeyError, ValueError, OSError), inputs=("decisions",)))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``verify`` / ``sign`` as a stand-alone CLI."""
    return standalone_main(register, argv)


if __name__ == "__main__":
    sys.exit(main())

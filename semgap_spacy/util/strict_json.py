"""Strict JSON for one line or one frame: the reading every consumer shares.

Python's ``json`` is lenient where a hostile or careless writer can exploit
it: a duplicated key keeps its last value (while other readers keep the
first, so two tools see two different cases), ``NaN`` and ``Infinity`` are
accepted, a lone surrogate escape becomes a string no UTF-8 writer can
output, a deep nesting exhausts the recursion limit and a long integer hits
the interpreter's digit limit; the last two raise errors that are not
``JSONDecodeError`` and so used to abort a whole run. Here every one of
these is a :class:`StrictJSONError` with a reason code, and the two costly
ones (depth, number size) are found by a cheap scan *before* the real parse
is attempted.
"""
import json
import math
import re
from typing import Any, Dict, List, Optional, Tuple

# Deeper than any case, decision or MCP message the package defines (they
# nest four or five levels); far below the interpreter's recursion limit.
MAX_DEPTH = 32
# Digits in one number (integer, fraction and exponent together). Readings
# are physical quantities; 100 digits is far beyond any real one and far below
# the 4,300 digits at which ``int()`` refuses.
MAX_NUMBER_DIGITS = 100

# Reason codes, as in the closed table of ``core.reasons.REASON_CODES``.
INVALID_JSON = "invalid_case"
DUPLICATE_KEY = "duplicate_key"
TOO_DEEP = "input_too_deep"
NUMBER_TOO_LARGE = "number_too_large"
LONE_SURROGATE = "lone_surrogate"

# A string, or an unterminated one up to the end: the match never fails once
# it starts (possessive loop), so blanking strings stays linear on any input.
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_NUMBER = re.compile(r"-?[0-9][0-9.eE+\-]*")
_DIGIT = re.compile(r"[0-9]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class StrictJSONError(ValueError):
    """A line or frame that is not strict JSON.

    code (str): The reason code (``invalid_case``, ``duplicate_key``, ...).
    message (str): What is wrong, for a person; never the offending value in
        full (it may be megabytes long).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_limits(text: str, max_depth: int = MAX_DEPTH,
                 max_digits: int = MAX_NUMBER_DIGITS) -> None:
    """Refuse too-deep nesting and too-long numbers without parsing.

    Strings are blanked first so brackets and digits inside them do not count.
    The scan is linear and uses no recursion, so it is safe on any input the
    caller was willing to hold in memory.

    text (str): One JSON document.
    max_depth (int): Deepest nesting of arrays and objects allowed.
    max_digits (int): Most digits allowed in one number.
    RAISES (StrictJSONError): ``input_too_deep`` or ``number_too_large``.
    """
    skeleton = _STRING.sub('""', text) if '"' in text else text
    # Fast paths: few brackets cannot nest deep, and a long number needs a long
    # run of number characters; only then is the exact count taken.
    depth = 0
    openers = skeleton.count("[") + skeleton.count("{")
    for match in _BRACKETS.finditer(skeleton) if openers > max_depth else ():
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                raise StrictJSONError(TOO_DEEP, f"nested more than {max_depth} levels deep")
        else:
            depth -= 1
    if not re.search("[0-9.eE+\\-]{%d,}" % (max_digits + 1), skeleton):
        return
    for match in _NUMBER.finditer(skeleton):
        digits = len(_DIGIT.findall(match.group()))
        if digits > max_digits:
            raise StrictJSONError(NUMBER_TOO_LARGE,
                                  f"a number of {digits} digits (at most {max_digits} allowed)")


def _pairs_hook(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise StrictJSONError(DUPLICATE_KEY, f"key {_quote(key)} appears twice in one object")
        seen.add(key)
    return dict(pairs)


def _refuse_constant(name: str) -> Any:
    raise StrictJSONError(INVALID_JSON, f"{name} is not JSON")


def _finite_float(literal: str) -> float:
    """A number with a fraction or an exponent, refused when a float cannot hold it: "1e400"
    would read as infinity, and two such ids ("1e400", "2e400") as one."""
    value = float(literal)
    if not math.isfinite(value):
        raise StrictJSONError(NUMBER_TOO_LARGE, f"number {literal[:40]} is beyond the range of a float")
    return value


def _quote(key: str, limit: int = 60) -> str:
    shown = json.dumps(key[:limit])  # escapes control and surrogate characters
    return shown + ("…" if len(key) > limit else "")


def _find_surrogate(value: Any, path: str = "") -> Optional[str]:
    """Where the first lone surrogate is (a key path), or None."""
    if isinstance(value, str):
        return path or "(the value)" if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else key
            if _SURROGATE.search(key):
                return f"a key under {path or '(top level)'}"
            found = _find_surrogate(item, here)
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _find_surrogate(item, f"{path}[{i}]")
            if found:
                return found
    return None


def loads(text: str, max_depth: int = MAX_DEPTH, max_digits: int = MAX_NUMBER_DIGITS) -> Any:
    """Parse one strict JSON document (RFC 8259, with unique keys).

    text (str): The document.
    max_depth (int): Deepest nesting allowed (checked before parsing).
    max_digits (int): Most digits in one number (checked before parsing).
    RETURNS (Any): The value.
    RAISES (StrictJSONError): With the reason code of the first problem found.
    """
    check_limits(text, max_depth, max_digits)
    try:
        value = json.loads(text, object_pairs_hook=_pairs_hook, parse_constant=_refuse_constant,
                           parse_float=_finite_float)
    except StrictJSONError:
        raise
    except json.JSONDecodeError as exc:
        message = exc.msg.removesuffix(" at")  # "Invalid control character at": the column follows
        raise StrictJSONError(INVALID_JSON, f"not JSON ({message} at column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # not reachable after check_limits; kept as a net
        raise StrictJSONError(INVALID_JSON, f"not JSON ({type(exc).__name__})") from None
    # A lone surrogate can only come from an escape (strict UTF-8 has none).
    where = _find_surrogate(value) if _SURROGATE_ESCAPE.search(text) else None
    if where is not None:
        raise StrictJSONError(LONE_SURROGATE,
                              f"a lone surrogate escape (not a character) in {_quote(where)}")
    return value


def _cheap_int(digits: str) -> Any:
    return int(digits) if len(digits) <= MAX_NUMBER_DIGITS else None


def lenient_top_level(text: str) -> Any:
    """Best-effort parse that never raises, to recover an envelope (an MCP id)
    from a frame that strict parsing refused. Long numbers become None, and so
    does a top-level key given twice: which of its values was meant is not
    known, so neither may be answered to.

    text (str): The refused document.
    RETURNS (Any): The value, or None when even this fails.
    """
    last: List[List[Tuple[str, Any]]] = []

    def pairs(items: List[Tuple[str, Any]]) -> Dict[str, Any]:
        last[:] = [items]  # the outermost object is built last
        return dict(items)

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_int=_cheap_int,
                           parse_float=lambda s: None, parse_constant=lambda s: None)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and last:
        keys = [k for k, _ in last[0]]
        for key in {k for k in keys if keys.count(k) > 1}:
            value[key] = None
    return value

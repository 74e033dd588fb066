"""Keyed hashes (HMAC-SHA256) for the review queue and for decision records.

A plain SHA-256 chain proves that rows still agree with each other, but anyone
who can write the file can also compute SHA-256: a forged row appended with a
correct hash, or a chain re-hashed from a middle row onwards, looks intact. A
keyed hash can only be made by someone holding the key, so the same forgery
is caught by whoever verifies with the key.

The key never travels on a command line (it would land in shell history and
in ``ps`` output for every user of the machine). It is read from a file, or
from an environment variable whose *name* is given, by the caller or in the
configuration variables below:

* ``SEMGAP_QUEUE_KEY_FILE``: path of a file holding the key;
* ``SEMGAP_QUEUE_KEY_ENV``: name of the environment variable holding the key.

Each use of the key has its own purpose label mixed into the message, so a
queue row's MAC can never be replayed as a decision signature or the reverse.
No spaCy import: this module is used by the queue and the provenance checks,
which must run where only the standard library is at hand.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Union

ALGORITHM = "HMAC-SHA256"
# Configuration: where to find the key when the caller names none.
KEY_FILE_CONFIG = "SEMGAP_QUEUE_KEY_FILE"
KEY_ENV_CONFIG = "SEMGAP_QUEUE_KEY_ENV"
# A shorter secret can be guessed offline from one forged row and its MAC.
MIN_KEY_BYTES = 16
# Purpose labels (domain separation).
PURPOSE_QUEUE_ROW = "semgap/queue-row/v1"
PURPOSE_DECISION = "semgap/decision-signature/v1"


class SigningKeyError(ValueError):
    """A key that was asked for but cannot be used; the message says why."""


def canonical_json(obj: Any) -> str:
    """The one JSON spelling that is hashed and signed, so equal content signs equally.

    obj (Any): A JSON-serialisable value. NaN and infinities are refused,
        because they have no JSON spelling another tool would agree on.
    RETURNS (str): Sorted keys, no whitespace, non-ASCII as \\u escapes (so a
        lone surrogate from a JSON input can still be hashed).
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)


def _checked(key: bytes, where: str) -> bytes:
    if len(key) < MIN_KEY_BYTES:
        raise SigningKeyError(f"the key from {where} is {len(key)} bytes; at least "
                              f"{MIN_KEY_BYTES} are needed (e.g. 32 random bytes, hex-encoded)")
    return key


def key_from_file(path: Union[str, Path]) -> bytes:
    """Read a key file: its bytes, with surrounding whitespace (a final newline) removed.

    path (Union[str, Path]): The key file.
    RETURNS (bytes): The key.
    RAISES (SigningKeyError): Missing, unreadable, or too short.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"cannot read key file {path}: {exc.strerror or exc}") from None
    return _checked(raw.strip(), f"key file {path}")


def key_from_env(name: str, environ: Optional[Mapping[str, str]] = None) -> bytes:
    """Read a key from the environment variable called ``name``.

    name (str): The variable's NAME (never the key itself).
    environ (Optional[Mapping[str, str]]): Defaults to ``os.environ``.
    RETURNS (bytes): The key, UTF-8 encoded.
    RAISES (SigningKeyError): The variable is unset, empty or too short; a
        key that was asked for and is missing must never mean "unkeyed".
    """
    env = os.environ if environ is None else environ
    if not isinstance(name, str) or not name.strip():
        raise SigningKeyError("the key's environment variable name is empty")
    value = env.get(name)
    if value is None or not value.strip():
        raise SigningKeyError(f"environment variable {name} is not set or empty; "
                              "it was named as holding the key")
    return _checked(value.strip().encode("utf-8", "surrogatepass"), f"environment variable {name}")


def load_key(key_file: Optional[str] = None, key_env: Optional[str] = None,
             environ: Optional[Mapping[str, str]] = None) -> Optional[bytes]:
    """The key the caller named, else the configured one, else None (unkeyed).

    key_file (Optional[str]): A key file path (e.g. from ``--key-file``).
    key_env (Optional[str]): The NAME of an environment variable (``--key-env``).
    environ (Optional[Mapping[str, str]]): Defaults to ``os.environ``; the
        configuration variables ``SEMGAP_QUEUE_KEY_FILE`` and
        ``SEMGAP_QUEUE_KEY_ENV`` are read from it when neither is given.
    RETURNS (Optional[bytes]): The key, or None when no key is named anywhere.
    RAISES (SigningKeyError): Both a file and a variable named, or the named
        source does not hold a usable key.
    """
    env = os.environ if environ is None else environ
    if key_file is None and key_env is None:
        key_file = env.get(KEY_FILE_CONFIG) or None
        key_env = env.get(KEY_ENV_CONFIG) or None
    if key_file is not None and key_env is not None:
        raise SigningKeyError("name either a key file or a key environment variable, not both")
    if key_file is not None:
        return key_from_file(key_file)
    if key_env is not None:
        return key_from_env(key_env, env)
    return None


def mac(key: bytes, purpose: str, message: Union[str, bytes]) -> str:
    """HMAC-SHA256 of ``purpose`` + NUL + ``message``, as 64 hex digits.

    key (bytes): The key.
    purpose (str): One of the ``PURPOSE_*`` labels.
    message (Union[str, bytes]): What is authenticated (str is UTF-8 encoded).
    RETURNS (str): Lowercase hex.
    """
    if isinstance(message, str):
        message = message.encode("utf-8", "surrogatepass")
    return hmac.new(key, purpose.encode("ascii") + b"\x00" + message, hashlib.sha256).hexdigest()


def mac_ok(key: bytes, purpose: str, message: Union[str, bytes], claimed: Any) -> bool:
    """Whether ``claimed`` is the MAC of ``message``; constant-time, never raises.

    RETURNS (bool): False for anything that is not the right hex string.
    """
    if not isinstance(claimed, str):
        return False
    return hmac.compare_digest(mac(key, purpose, message), claimed)


__all__ = [
    "ALGORITHM",
    "KEY_ENV_CONFIG",
    "KEY_FILE_CONFIG",
    "MIN_KEY_BYTES",
    "PURPOSE_DECISION",
    "PURPOSE_QUEUE_ROW",
    "SigningKeyError",
    "canonical_json",
    "key_from_env",
    "key_from_file",
    "load_key",
    "mac",
    "mac_ok",
]

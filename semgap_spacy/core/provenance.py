"""Check a logged decision on its own: against its text, its reasons and its signature.

A decision is written once and read many times later (by a reviewer UI, an
auditor, the review queue), usually far from the pipeline that made it. These
checks need only the decision, the text, and optionally the signing key; no
glossary, no model, no spaCy import, so they run wherever the log is read.

What can be recomputed from the decision and the text alone, and is checked:

* the text: ``text_sha256`` must be present and match the text exactly, so a
  text that was extended or edited after the decision fails;
* the outcome: the strictest outcome of the reason codes (from ``core.reasons.REASON_CODES``,
  never from the reasons' own ``outcome``; an unknown code blocks), and
  ``proceed`` only with a clearing code; the stated decision and every
  reason's stated outcome must agree with it;
* the quotes: every reason whose code quotes the text (``QUOTING_CODES``)
  must still carry its span and evidence, every span must lie in the text,
  and the evidence must be exactly ``text[start_char:end_char]``;
* traces of a moved span: a quoting span must start and end on word
  boundaries, its message must open with the same quote, an ambiguous
  abbreviation's quote must be that abbreviation, a reviewer option must
  point at its reason's span, and the reasons must still be in the order the
  pipeline writes them (strictest first, then by position).

What cannot be recomputed without the glossary and the pipeline: whether the
quoted words really are the term named, and whether a reason was deleted
outright (a decision whose critical reason was removed and whose outcome was
then lowered to match the rest is self-consistent). A careful forger who
moves a span to other whole words and rewrites the evidence and the message
along with it, or who drops a reason, is caught only by the signature: an
HMAC of the decision's canonical JSON under a key the forger does not hold
(``sign_decision``, checked when a key is given). To recheck the terms
themselves, assess the text again and compare.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any, Dict, List, Optional

from ..util import signing
from .reasons import BLOCK, CLEARING_CODES, ESCALATE, OUTCOMES, PROCEED, QUOTING_CODES, REASON_CODES

SIGNATURE_KEY = "signature"
_RANK = {PROCEED: 0, ESCALATE: 1, BLOCK: 2}
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_NO_POSITION = 10 ** 9  # where the pipeline sorts a reason without a span


def text_sha256(text: str) -> str:
    """SHA-256 of a text's UTF-8 bytes, lone surrogates kept (as the pipeline hashes)."""
    return hashlib.sha256(text.encode("utf8", "surrogatepass")).hexdigest()


def _code_outcome(reason: Any) -> str:
    # Anything that is not a reason with a known code blocks (spec §5).
    if not isinstance(reason, dict) or not isinstance(reason.get("code"), str):
        return BLOCK
    return REASON_CODES.get(reason["code"], BLOCK)


def expected_outcome(reasons: Any) -> str:
    """The decision the reasons imply: strictest code wins, proceed needs a clearance.

    reasons (Any): The decision's ``reasons``; anything but a list blocks.
    RETURNS (str): "proceed", "escalate" or "block".
    """
    if not isinstance(reasons, list):
        return BLOCK
    if not reasons:
        return ESCALATE
    worst = OUTCOMES[max(_RANK[_code_outcome(r)] for r in reasons)]
    if worst == PROCEED and not any(isinstance(r, dict) and r.get("code") in CLEARING_CODES
                                    for r in reasons):
        return ESCALATE
    return worst


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cuts_word(text: str, at: int) -> bool:
    return 0 < at < len(text) and text[at - 1].isalnum() and text[at].isalnum()


def word_problems(i: int, reason: Any, text: str) -> List[str]:
    """Whether a reason's quoted ``words`` are the text at its ``word_spans``, in order (the
    words of unexplained content once each): a reviewer teaches the words quoted, so words the
    text does not hold at those places would become drafts of something no case says."""
    if not isinstance(reason, dict) or ("words" not in reason and "word_spans" not in reason):
        return []
    label = f"reason {i} ({reason.get('code')})"
    words, spans = reason.get("words"), reason.get("word_spans")
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        return [f"{label}: words must be a list of strings"]
    if spans is None:
        return [f"{label}: quotes words but has no word_spans to check them against"]
    if not isinstance(spans, list) or not all(
            isinstance(sp, list) and len(sp) == 2 and _is_int(sp[0]) and _is_int(sp[1])
            and 0 <= sp[0] <= sp[1] <= len(text) for sp in spans):
        return [f"{label}: word_spans must be [start, end] pairs inside the text (length {len(text)})"]
    found = [text[a:b] for a, b in spans]
    if spans and words not in (found, list(dict.fromkeys(found))):
        return [f"{label}: words {words!r} are not the text at word_spans ({found!r})"]
    return []


def _span_problems(i: int, reason: Dict[str, Any], text: str) -> List[str]:
    code = reason.get("code")
    label = f"reason {i} ({code})"
    has_start, has_end = "start_char" in reason, "end_char" in reason
    quoting = code in QUOTING_CODES
    if has_start != has_end:
        return [f"{label}: has only one of start_char/end_char: its span was cut"]
    if not has_start:
        if quoting:
            return [f"{label}: lost its span: a {code} reason always points at the text it quotes"]
        if "evidence" in reason:
            return [f"{label}: quotes evidence but has no span to check it against: the span was removed"]
        return []
    start, end = reason["start_char"], reason["end_char"]
    if not (_is_int(start) and _is_int(end) and 0 <= start <= end <= len(text)):
        return [f"{label}: span {start!r}..{end!r} is outside the text (length {len(text)})"]
    problems = []
    quote = text[start:end]
    if "evidence" not in reason:
        if quoting:
            problems.append(f"{label}: lost its evidence: a {code} reason always quotes the text")
    elif not isinstance(reason["evidence"], str):
        problems.append(f"{label}: evidence is {type(reason['evidence']).__name__}, not text")
    elif reason["evidence"] != quote:
        problems.append(f"{label}: text[{start}:{end}] is {quote!r}, not {reason['evidence']!r}")
    if quoting:
        if start == end:
            problems.append(f"{label}: span {start}..{end} is empty: a {code} reason quotes words")
        if _cuts_word(text, start) or _cuts_word(text, end):
            problems.append(f"{label}: span {start}..{end} ({quote!r}) starts or ends inside a word: "
                            "it was moved")
        message = reason.get("message")
        if isinstance(message, str) and not message.startswith(repr(quote)):
            problems.append(f"{label}: the message does not quote {quote!r}: the span or the message "
                            "was changed")
        abbreviation = reason.get("abbreviation")
        if code == "ambiguous_abbreviation" and isinstance(abbreviation, str) \
                and abbreviation.casefold() != quote.casefold():
            problems.append(f"{label}: the span holds {quote!r}, not the abbreviation {abbreviation!r}")
    for j, option in enumerate(reason.get("options") or []):
        where = option.get("evidence") if isinstance(option, dict) else None
        if isinstance(where, dict) and where and \
                (where.get("start_char"), where.get("end_char")) != (start, end):
            problems.append(f"{label}: option {j} points at {where.get('start_char')!r}.."
                            f"{where.get('end_char')!r}, not at the reason's span {start}..{end}")
    return problems


def _order_problem(reasons: List[Any]) -> Optional[str]:
    # The pipeline writes reasons strictest first, then in text order; a span
    # moved to another place often breaks that order.
    previous = None
    for i, reason in enumerate(reasons):
        if not isinstance(reason, dict):
            continue
        position = reason.get("start_char")
        key = (-_RANK[_code_outcome(reason)], position if _is_int(position) else _NO_POSITION)
        if previous is not None and key < previous:
            return (f"reason {i} ({reason.get('code')}) is out of order (reasons run strictest first, "
                    "then by position): a reason or its span was moved")
        previous = key
    return None


def signed_content(decision: Dict[str, Any]) -> str:
    """The canonical JSON a signature covers: the whole decision but its signature."""
    return signing.canonical_json({k: v for k, v in decision.items() if k != SIGNATURE_KEY})


def sign_decision(decision: Dict[str, Any], key: bytes) -> Dict[str, Any]:
    """A copy of the decision with ``signature``: HMAC-SHA256 of its canonical JSON.

    The decision carries ``text_sha256``, the glossary hash and the language
    packs it was read with, so the signature binds the outcome, every reason
    and span, the text, the glossary and the packs at once.

    decision (Dict[str, Any]): A decision (spec §5).
    key (bytes): The signing key (``signing.load_key``).
    RETURNS (Dict[str, Any]): The signed copy.
    RAISES (ValueError): The decision is not a JSON object of plain JSON values.
    """
    if not isinstance(decision, dict):
        raise ValueError(f"a decision must be a JSON object, not {type(decision).__name__}")
    signed = dict(decision)
    signed[SIGNATURE_KEY] = {"alg": signing.ALGORITHM,
                             "value": signing.mac(key, signing.PURPOSE_DECISION, signed_content(decision))}
    return signed


def signature_problem(decision: Dict[str, Any], key: bytes) -> Optional[str]:
    """Why the decision's signature does not hold under ``key``, or None when it does."""
    signature = decision.get(SIGNATURE_KEY)
    if signature is None:
        return "the decision is not signed (a key was given, so a signature is required)"
    if not isinstance(signature, dict) or signature.get("alg") != signing.ALGORITHM:
        return f"the signature is not an {signing.ALGORITHM} signature object"
    try:
        content = signed_content(decision)
    except (TypeError, ValueError) as exc:
        return f"the decision is not plain JSON, so it cannot be checked ({exc})"
    if not signing.mac_ok(key, signing.PURPOSE_DECISION, content, signature.get("value")):
        return "the signature does not match: the decision was changed after it was signed, " \
               "or signed with another key"
    return None


def verify_evidence(decision: Any, text: Any, key: Optional[bytes] = None) -> List[str]:
    """Every problem that makes a decision untrustworthy for this text; [] when none.

    A reviewer UI highlights ``text[start_char:end_char]`` and shows the
    outcome; this says whether that is safe. See the module docstring for
    what is and is not checked. Never raises: bad input is a problem string.

    decision (Any): A decision in the format of spec §5.
    text (Any): The text it should have been made on.
    key (Optional[bytes]): When given, the decision must carry a valid
        signature under this key (``sign_decision``).
    RETURNS (List[str]): Problems found, one sentence each.
    """
    if not isinstance(decision, dict):
        return [f"the decision must be a JSON object, not {type(decision).__name__}"]
    if not isinstance(text, str):
        return [f"the text must be a string, not {type(text).__name__}"]
    problems: List[str] = []
    claimed = decision.get("text_sha256")
    if claimed is None or claimed == "":
        problems.append("the decision has no text_sha256: nothing ties it to a text, "
                        "so any text (an extended one too) would pass")
    elif not (isinstance(claimed, str) and _SHA256.match(claimed)):
        problems.append(f"text_sha256 {claimed!r} is not a SHA-256 hex digest")
    elif claimed != text_sha256(text):
        problems.append("text_sha256 does not match the text: it was decided on another text")
    reasons = decision.get("reasons")
    stated = decision.get("decision")
    if not isinstance(reasons, list):
        problems.append(f"reasons must be a list, not {type(reasons).__name__}")
        reasons = []
    for i, reason in enumerate(reasons):
        if not isinstance(reason, dict):
            problems.append(f"reason {i} must be a JSON object, not {type(reason).__name__}")
            continue
        code = reason.get("code")
        if not isinstance(code, str):
            problems.append(f"reason {i} has no code (a reason without a code blocks)")
            continue
        implied = REASON_CODES.get(code)
        if implied is None:
            problems.append(f"reason {i} has the unknown code {code!r}, which blocks")
            implied = BLOCK
        if reason.get("outcome") != implied:
            problems.append(f"reason {i} ({code}) says {reason.get('outcome')!r}, but its code "
                            f"implies {implied!r}")
        problems.extend(_span_problems(i, reason, text))
        problems.extend(word_problems(i, reason, text))
    expected = expected_outcome(decision.get("reasons"))
    if stated not in OUTCOMES:
        problems.append(f"decision {stated!r} is not one of {', '.join(OUTCOMES)}")
    elif stated != expected:
        problems.append(f"the decision says {stated!r}, but its reasons give {expected!r} "
                        "(strictest code wins; proceed needs a clearance)")
    order = _order_problem(reasons)
    if order:
        problems.append(order)
    if key is not None:
        problem = signature_problem(decision, key)
        if problem:
            problems.append(problem)
    return problems


__all__ = [
    "SIGNATURE_KEY",
    "expected_outcome",
    "sign_decision",
    "signature_problem",
    "signed_content",
    "text_sha256",
    "verify_evidence",
]

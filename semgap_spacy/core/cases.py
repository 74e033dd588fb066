"""The checks every case gets, whichever way its Doc was made: on plain values.

``assess`` builds the Doc from a case dict, but a user may as well call
``nlp(text)``, or ``nlp.make_doc`` and set ``doc._.semgap_domain`` by hand,
or stream docs through ``nlp.pipe(n_process=2)``. One answer per case needs
one set of checks, so they live here and the first semgap pipe that sees a
doc runs them (``assess`` runs the same function before it cuts the text).
Bad values become reasons and safe replacements, never an exception: a list
where the domain should be must not crash the decision (nor hang a worker).
"""
from typing import Any, List, NamedTuple, Optional

from rapidfuzz.distance import Levenshtein

from .reasons import make_reason

MAX_TEXT_CHARS = 4000
#: the keys of a case (spec §5)
CASE_KEYS = ("id", "domain", "text", "readings", "now")
#: codes that mean the text was not read at all (the pipes skip it)
UNREAD_CODES = frozenset({"text_too_long"})


class CaseCheck(NamedTuple):
    """The case values to use and what was wrong with the given ones."""

    case_id: Any
    domain: Optional[str]
    now: Optional[str]
    problems: List[dict]
    #: the configured default domain when it was used (the case gave none), else None
    default_domain: Optional[str]


def text_too_long(chars: int) -> Optional[dict]:
    """The reason for a text over the limit, else None."""
    if chars <= MAX_TEXT_CHARS:
        return None
    return make_reason("text_too_long", f"text has {chars} characters; the limit is {MAX_TEXT_CHARS}, "
                       "so none of it was read")


def key_problems(case: dict) -> List[dict]:
    """Reasons for case keys that were probably meant as one of ``CASE_KEYS`` but are not
    spelt as it ("readngs", "Readings", "reading"), and for ``readings`` given as null.

    A misspelt ``readings`` would otherwise be carried along unread and the case
    decided on its text alone ("Clear to close" with a reading over its limit in
    "readngs" would proceed). A key that resembles none (a team's own metadata,
    "ticket", "source") is carried along as before. Spec §5: readings, when
    present, is an object.
    """
    problems = []
    for key in case:
        if key in CASE_KEYS or not isinstance(key, str):
            continue
        folded = key.strip().lower()
        meant = next((k for k in CASE_KEYS if folded == k or (len(folded) >= 3 and len(k) >= 4
                                                                and Levenshtein.distance(folded, k) <= 2)), None)
        if meant is not None:
            problems.append(make_reason("invalid_case", f"the case has a key {key!r}, not {meant!r}: a case's "
                                        f"keys are {', '.join(CASE_KEYS)}, and what a misspelt key holds is "
                                        f"not read"))
    if "readings" in case and case["readings"] is None:
        problems.append(make_reason("invalid_case", "readings is null: when given, readings is an object "
                                    "(spec §5)"))
    return problems


def check_case(text_chars: int, case_id: Any, domain: Any, now: Any,
               default_domain: Optional[str] = None) -> CaseCheck:
    """Check one case's inputs.

    text_chars (int): Length of the text as given.
    case_id (Any): Echoed in the decision: a string or an integer; anything else becomes its ``str``.
    domain (Any): A string (unknown ones are judged by the policy, which knows the glossary);
        None takes ``default_domain``; anything else becomes its ``repr``, an unknown domain.
    now (Any): None or an ISO-8601 string; anything else is an ``invalid_case`` and is dropped.
    default_domain (Optional[str]): The pipeline's configured default domain.
    RETURNS (CaseCheck): The values to use and the problems, as reasons.
    """
    problems = []
    too_long = text_too_long(text_chars)
    if too_long is not None:
        problems.append(too_long)
    if not (case_id is None or isinstance(case_id, str)
            or (isinstance(case_id, int) and not isinstance(case_id, bool))):
        case_id = str(case_id)
    used_default = None
    if domain is None and isinstance(default_domain, str):
        domain = used_default = default_domain
    elif not (domain is None or isinstance(domain, str)):
        domain = repr(domain)
    if not (now is None or isinstance(now, str)):
        problems.append(make_reason("invalid_case", f"now must be an ISO-8601 string, not {type(now).__name__}"))
        now = None
    elif now is not None and not _is_datetime(now):
        # checked even when no reading needs it: a case given a "now" that is no time was not
        # written as its sender meant, and that is for a person to see
        problems.append(make_reason("invalid_case", f"now must be an ISO-8601 datetime, not {now[:60]!r}"))
        now = None
    return CaseCheck(case_id, domain, now, problems, used_default)


def _is_datetime(text: str) -> bool:
    """Whether ``now`` parses as the readings parse it (``readings.parse_datetime``, which keeps
    what it parsed for the readings and the time rule that read the same ``now`` next)."""
    from .readings import parse_datetime

    return parse_datetime(text) is not None


def nothing_to_check(text_chars: int, default_domain: Optional[str] = None) -> bool:
    """Whether a case with no values (no id, domain or time) leaves ``check_case`` with nothing
    to change or report: no default domain to take and a text within the limit. A pipe that
    sees a fresh doc (most of them) then skips the check; the two rules live side by side here."""
    return not isinstance(default_domain, str) and text_chars <= MAX_TEXT_CHARS


def merge_problems(old, new: List[dict]) -> List[dict]:
    """``old`` with the reasons of ``new`` it does not hold yet (checking twice adds nothing)."""
    merged = list(old or ())
    for reason in new:
        if reason not in merged:
            merged.append(reason)
    return merged

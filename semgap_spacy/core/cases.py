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

from .reasons import make_reason

MAX_TEXT_CHARS = 4000
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
    return CaseCheck(case_id, domain, now, problems, used_default)


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

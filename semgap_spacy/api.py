"""The public API: add the pipes, assess one case, stream many.

Cases are turned into Docs before the pipes run (the case's domain, readings
and time ride on ``doc._``), so a batch streams through ``nlp.pipe`` with the
matchers and the unit registry built once. Whatever a case holds, it comes
back as a decision: bad input becomes a reason, never an exception.
"""
import re
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from .pipes.extensions import _TEXT_KEY, doc_get, doc_key, doc_set
from .core.cases import MAX_TEXT_CHARS, check_case
from .core.pipeline import expected_order
from .core.reasons import ESCALATE, outcome_for
from .core.reasons import SCHEMA, make_reason, text_sha256
from .glossary.models import GlossarySet, load_glossaries
from .pipes.base import check_order, glossary_from_arg

__all__ = ["MAX_TEXT_CHARS", "PIPE_NAMES", "add_semgap_pipes", "assess", "assess_cases", "build_pipeline",
           "case_doc", "decide_cases", "decision_of", "fallback_decision", "pipeline_glossary"]

#: the semgap pipes in the order they must run (``data/pipeline.json``)
PIPE_NAMES = expected_order()
_SURROGATES = re.compile(r"[\ud800-\udfff]")


def add_semgap_pipes(nlp: Language, *, config: Optional[Dict[str, dict]] = None,
                     glossary: Union[None, str, GlossarySet] = None,
                     exclude: Sequence[str] = ()) -> Language:
    """Append the five semgap pipes, in order, to an existing pipeline.

    Nothing the pipeline already has is replaced: a pipe whose name is taken
    raises rather than being overwritten.

    nlp (Language): A pipeline, e.g. ``spacy.load("en_core_web_sm")`` or ``spacy.blank("en")``.
    config (Optional[Dict[str, dict]]): Per-pipe config overrides, keyed by pipe name.
    glossary (GlossarySet | str | None): A glossary set or directory; bundled by default.
    exclude (Sequence[str]): Pipe names to leave out: the decision then escalates
        ``pipeline_incomplete``, unless its config sets ``ablation: True``.
    RETURNS (Language): The same pipeline.
    RAISES (ValueError): A name is taken, or the semgap pipes end up out of order.
    """
    config = config or {}
    unknown = set(config) - set(PIPE_NAMES)
    if unknown:
        raise ValueError(f"config for unknown semgap pipes: {sorted(unknown)}")
    glossary_set = glossary_from_arg(glossary) if glossary is not None else None
    for name in PIPE_NAMES:
        if name in exclude:
            continue
        if name in nlp.pipe_names:
            raise ValueError(f"the pipeline already has a pipe named {name!r}")
        pipe = nlp.add_pipe(name, config=config.get(name, {}))
        if glossary_set is not None:
            pipe.set_glossary(glossary_set)
    check_order(nlp)
    return nlp


def build_pipeline(glossary_dir: Union[None, str, GlossarySet] = None, lang: str = "en",
                   config: Optional[Dict[str, dict]] = None, exclude: Sequence[str] = ()) -> Language:
    """A blank pipeline with the five semgap pipes.

    glossary_dir (str | GlossarySet | None): Glossaries to read; bundled by default.
    lang (str): Language of the blank tokenizer. Defaults to "en".
    RETURNS (Language): The pipeline.
    """
    return add_semgap_pipes(spacy.blank(lang), config=config, glossary=glossary_dir, exclude=exclude)


def pipeline_glossary(nlp: Language) -> GlossarySet:
    """The glossary the pipeline decides with (the decision pipe's), else the bundled one."""
    for name in reversed(PIPE_NAMES):
        if name in nlp.pipe_names:
            return nlp.get_pipe(name).glossary
    return load_glossaries()


# Where case_doc stores the case inputs (``doc._.<name>``).
_CASE_ID, _DOMAIN, _READINGS, _NOW, _TEXT_SHA256, _CASE_PROBLEMS = (
    doc_key(name) for name in ("semgap_case_id", "semgap_domain", "semgap_readings", "semgap_now",
                               "semgap_text_sha256", "semgap_case_problems"))


def case_doc(nlp: Language, case: Any, *, problems: Optional[List[dict]] = None) -> Doc:
    """A Doc for a case, with its inputs on ``doc._`` and its problems as reasons.

    case (Any): Normally a dict with id, domain, text, readings, now.
    problems (Optional[List[dict]]): Reasons found before the case was parsed.
    RETURNS (Doc): Ready for the pipes; never raises for bad input.
    """
    problems = list(problems) if problems else []
    if not isinstance(case, dict):
        if not problems:
            problems.append(make_reason("invalid_case", f"a case must be a JSON object, not {type(case).__name__}"))
        case = {}
    text = case.get("text")
    if "text" not in case and not problems:
        problems.append(make_reason("invalid_text", "the case has no text"))
        text = ""
    elif not isinstance(text, str):
        if not problems:
            problems.append(make_reason("invalid_text", f"text must be a string, not {type(text).__name__}"))
        text = ""
    full_hash = text_sha256(text)
    # The same checks the first pipe runs on any doc (core.cases); here they
    # see the whole text, before it is cut to spare the tokenizer.
    check = check_case(len(text), case.get("id"), case.get("domain"), case.get("now"))
    problems.extend(check.problems)
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS]
    if not text.isascii():
        # A lone surrogate cannot be stored by spaCy; U+FFFD keeps every offset.
        text = _SURROGATES.sub("\ufffd", text)
    doc = nlp.make_doc(text)
    # The storage doc_set writes, written directly: a dict write each
    # rather than a function call each.
    user_data = doc.user_data
    user_data[_TEXT_KEY] = text
    user_data[_CASE_ID] = check.case_id
    user_data[_DOMAIN] = check.domain
    user_data[_READINGS] = case.get("readings")
    user_data[_NOW] = check.now
    user_data[_TEXT_SHA256] = full_hash
    user_data[_CASE_PROBLEMS] = problems
    return doc


def assess(nlp: Language, text: Any, domain: Optional[str] = None, readings: Any = None,
           now: Optional[str] = None, case_id: Optional[str] = None) -> Doc:
    """Decide one case.

    nlp (Language): A pipeline with the semgap pipes.
    text (str): The domain text.
    domain (str): One of the glossary's domains.
    readings (dict): Structured readings, spec §5.
    now (str): Current time, ISO-8601.
    case_id (str): Echoed in the decision.
    RETURNS (Doc): The doc; ``doc._.semgap_decision`` holds the decision.
    """
    case = {"id": case_id, "domain": domain, "text": text, "readings": readings, "now": now}
    doc = _run_one(nlp, case_doc(nlp, case))
    return doc


def _run_one(nlp: Language, doc: Doc) -> Doc:
    try:
        return nlp(doc)
    except Exception as exc:  # a user pipe failed; ours never raise
        return _fail(doc, exc)


def _fail(doc: Doc, exc: BaseException) -> Doc:
    doc_set(doc, "semgap_decision", fallback_decision(doc_get(doc, "semgap_case_id"), "component_error",
                                              f"the pipeline failed: {type(exc).__name__}: {exc}"[:500],
                                              nlp_glossary=None))
    return doc


def fallback_decision(case_id: Any, code: str, message: str, *, line: Optional[int] = None,
                      nlp_glossary: Optional[GlossarySet] = None) -> dict:
    """A decision made without the pipes (a line that is not JSON, a failed pipeline)."""
    glossary = nlp_glossary or load_glossaries()
    decision = {"schema": SCHEMA, "id": case_id, "decision": ESCALATE,
                "reasons": [{"code": code, "outcome": outcome_for(code), "message": message}],
                "glossary_version": glossary.version, "glossary_sha256": glossary.sha256}
    if line is not None:
        decision["line"] = line
    return decision


def assess_cases(nlp: Language, cases: Iterable[Any], batch_size: int = 256) -> Iterator[Doc]:
    """Stream cases through ``nlp.pipe``; one Doc per case, in order.

    A batch whose user pipe raises is redone one doc at a time so that only the
    failing case is marked, not its neighbours.
    """
    batch: List[Doc] = []
    for case in cases:
        batch.append(case if isinstance(case, Doc) else case_doc(nlp, case))
        if len(batch) >= batch_size:
            yield from _run_batch(nlp, batch, batch_size)
            batch = []
    if batch:
        yield from _run_batch(nlp, batch, batch_size)


def _run_batch(nlp: Language, docs: List[Doc], batch_size: int) -> Iterator[Doc]:
    try:
        done = list(nlp.pipe(docs, batch_size=batch_size))
    except Exception:
        done = [_run_one(nlp, d) for d in docs]
    yield from done


def decision_of(doc: Doc) -> dict:
    """The decision JSON of a processed doc; escalate if no decision pipe ran.

    ``DocBin`` reads ``user_data`` back with msgpack's ``use_list=False`` (its
    keys are tuples and must stay hashable), so after a round trip every list
    of the stored decision is a tuple. The stored value is left as it is; the
    decision handed out has lists again, identical to the one first made.
    """
    decision = doc_get(doc, "semgap_decision")
    if not isinstance(decision, dict):
        return fallback_decision(doc_get(doc, "semgap_case_id"), "component_error",
                                 "the pipeline has no semgap_decision pipe; nothing decided")
    if isinstance(decision.get("reasons"), tuple):
        return _as_lists(decision)
    return decision


def _as_lists(value: Any) -> Any:
    """A JSON value with every tuple (msgpack's arrays) turned back into a list."""
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_lists(v) for v in value]
    return value


def decide_cases(nlp: Language, cases: Iterable[Any], batch_size: int = 256) -> Iterator[dict]:
    """Decision dicts (spec §5) for many cases, streamed, in order."""
    for doc in assess_cases(nlp, cases, batch_size=batch_size):
        yield decision_of(doc)

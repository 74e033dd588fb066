"""The public API: add the pipes, assess one case, stream many.

Cases are turned into Docs before the pipes run (the case's domain, readings
and time ride on ``doc._``), so a batch streams through ``nlp.pipe`` with the
matchers and the unit registry built once. Whatever a case holds, it comes
back as a decision: bad input becomes a reason, never an exception.
"""
import json
import marshal
import re
import sys
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from .pipes.extensions import (_TEXT_KEY, decision_record, decision_value, doc_get, doc_key, doc_text,
                               release_doc, set_decision)
from .core.cases import MAX_TEXT_CHARS, check_case, key_problems
from .core.decision_record import as_lists, decision_json
from .core.pipeline import expected_order
from .core.reasons import ESCALATE, outcome_for
from .core.reasons import SCHEMA, make_reason, text_sha256
from .util.jsonl import parse_line
from .util.recycle import rebuild_string_table
from .util.zone_words import zone_words
from .glossary.models import GlossarySet, load_glossaries
from .lang import recorded_packs
from .pipes.base import check_order, deferred_builds, glossary_from_arg

__all__ = ["MAX_TEXT_CHARS", "PIPE_NAMES", "add_semgap_pipes", "assess", "assess_cases", "build_pipeline",
           "case_doc", "decide_cases", "decide_lines", "decision_of", "fallback_decision", "line_case",
           "memory_zone", "pipeline_glossary"]

#: the semgap pipes in the order they must run (``data/pipeline.json``)
PIPE_NAMES = expected_order()
_SURROGATES = re.compile(r"[\ud800-\udfff]")


def add_semgap_pipes(nlp: Language, *, config: Optional[Dict[str, dict]] = None,
                     glossary: Union[None, str, GlossarySet] = None,
                     exclude: Sequence[str] = ()) -> Language:
    """Append the six semgap pipes, in order, to an existing pipeline.

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
    # with a glossary given, each pipe builds once, from it, rather than first from the bundled one
    with deferred_builds() if glossary_set is not None else nullcontext():
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
    """A blank pipeline with the six semgap pipes.

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
    problems.extend(key_problems(case))
    text = case.get("text")
    if type(text) is not str and isinstance(text, str):  # numpy.str_ and other str subclasses
        text = str(text)
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
    if not text.isascii() and _SURROGATES.search(text):
        # Not Unicode text (a lone surrogate: bytes decoded with surrogateescape, a broken
        # escape): it escalates, as the same text on a JSONL line does. spaCy cannot store
        # one; U+FFFD keeps every offset.
        problems.append(make_reason("lone_surrogate", "the text holds a lone surrogate (U+D800-U+DFFF), "
                                    "so it is not Unicode text; it was not read as written"))
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
    user_data[_CASE_PROBLEMS] = tuple(problems)
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
    case = {"id": case_id, "domain": domain, "text": text}
    if readings is not None:
        case["readings"] = readings
    if now is not None:
        case["now"] = now
    doc = _run_one(nlp, case_doc(nlp, case))
    return doc


def _run_one(nlp: Language, doc: Doc) -> Doc:
    try:
        return nlp(doc)
    except Exception as exc:  # a user pipe failed; ours never raise
        return _fail(doc, exc)


def _fail(doc: Doc, exc: BaseException) -> Doc:
    set_decision(doc, fallback_decision(doc_get(doc, "semgap_case_id"), "component_error",
                                        f"the pipeline failed: {type(exc).__name__}: {exc}"[:500],
                                        nlp_glossary=None))
    return doc


def fallback_decision(case_id: Any, code: str, message: str, *, line: Optional[int] = None,
                      nlp_glossary: Optional[GlossarySet] = None) -> dict:
    """A decision made without the pipes (a line that is not JSON, a failed pipeline).

    nlp_glossary: The glossary of the pipeline that would have decided, or anything that holds
        its ``version`` and ``sha256`` (a Dask run's ``GlossaryStamp``); None: the bundled one.
    """
    glossary = nlp_glossary or load_glossaries()
    decision = {"schema": SCHEMA, "id": case_id, "decision": ESCALATE,
                "reasons": [{"code": code, "outcome": outcome_for(code), "message": message}],
                "glossary_version": glossary.version, "glossary_sha256": glossary.sha256,
                "language_packs": recorded_packs()}
    if line is not None:
        decision["line"] = line
    return decision


def assess_cases(nlp: Language, cases: Iterable[Any], batch_size: int = 256, *,
                 ready: Optional[Callable[[], bool]] = None) -> Iterator[Doc]:
    """Stream cases through ``nlp.pipe``; one Doc per case, in order.

    A batch whose user pipe raises is redone one doc at a time so that only the
    failing case is marked, not its neighbours.

    ready (Optional[Callable[[], bool]]): For a live stream, whether the next case can be read
        without waiting (as for ``decide_cases``): a batch ends where it says no.
    """
    for batch in chunked(cases, batch_size, ready):
        yield from _run_batch(nlp, batch, batch_size)


def chunked(items: Iterable[Any], size: int, ready: Optional[Callable[[], bool]] = None
            ) -> Iterator[List[Any]]:
    """Lists of ``size`` items (the last may be shorter), read lazily.

    ready (Optional[Callable[[], bool]]): Whether the next item can be read without waiting;
        when it says no, the list ends there, so what has come is handed on before the wait.
    RAISES: What reading ``items`` raises, once the items read before it are handed on: a source
        that fails after some cases loses none of those.
    """
    chunk: List[Any] = []
    try:
        for item in items:
            chunk.append(item)
            if len(chunk) >= size or (ready is not None and not ready()):
                yield chunk
                chunk = []
    except Exception:
        if chunk:
            yield chunk
        raise
    if chunk:
        yield chunk


def _item_doc(nlp: Language, item: Any, problems: Optional[List[dict]] = None) -> Doc:
    return item if isinstance(item, Doc) else case_doc(nlp, item, problems=problems)


def _run_batch(nlp: Language, items: List[Any], batch_size: int,
               problems: Optional[List[Optional[List[dict]]]] = None) -> Iterator[Doc]:
    """The docs of some cases (or Docs), each yielded as soon as the pipes are done with it.

    Each doc is made when ``nlp.pipe`` asks for it and handed on as it comes
    out, so a doc lives only while it is in the pipes, not for a whole batch:
    a batch of docs held together survives the collector's young generations
    and brings on full collections of the process's heap. When a pipe raises,
    the cases of the batch not yet handed on are redone one at a time (from a
    fresh doc; a given Doc as it is), so only the failing case is marked.

    problems: For each item, reasons found before the pipes (``case_doc``).
    """
    problems = problems or [None] * len(items)
    done = 0
    try:
        for doc in nlp.pipe((_item_doc(nlp, item, found) for item, found in zip(items, problems)),
                            batch_size=batch_size):
            done += 1
            yield doc
    except Exception:
        for item, found in zip(items[done:], problems[done:]):
            yield _run_one(nlp, _item_doc(nlp, item, found))


def decision_of(doc: Doc) -> dict:
    """The decision JSON of a processed doc; escalate if no decision pipe ran.

    ``DocBin`` reads ``user_data`` back with msgpack's ``use_list=False`` (its
    keys are tuples and must stay hashable), so after a round trip every list
    of the stored decision is a tuple. The stored value is left as it is; the
    decision handed out has lists again, identical to the one first made.
    """
    decision = decision_value(doc)
    if not isinstance(decision, dict):
        return fallback_decision(doc_get(doc, "semgap_case_id"), "component_error",
                                 "no decision on the doc: the pipeline has no semgap_decision pipe, or a "
                                 "semgap pipe after it started a new run (the pipes run in the order "
                                 f"{' → '.join(PIPE_NAMES)}); nothing decided")
    if isinstance(decision.get("reasons"), tuple):
        return as_lists(decision)
    return decision


#: cases decided inside one ``nlp.memory_zone()`` by ``decide_cases`` and ``decide_lines``
ZONE_CASES = 4096

# One case on its way to a decision: (the case or a Doc, problems found before
# the pipes, the line number when the line was refused).
_Item = Tuple[Any, Optional[List[dict]], Optional[int]]


def decide_cases(nlp: Language, cases: Iterable[Any], batch_size: int = 256, *, n_process: int = 1,
                 progress: bool = False, ready: Optional[Callable[[], bool]] = None) -> Iterator[dict]:
    """Decision dicts (spec §5) for many cases, streamed, in order.

    Cases are decided inside ``nlp.memory_zone()`` (``ZONE_CASES`` at a time),
    so an endless stream of new words leaves memory flat; only plain values
    leave the zone (each case's decision record, whose JSON is written as the
    decision is taken). Docs given instead of cases are decided outside it.

    nlp (Language): A pipeline with the semgap pipes.
    cases (Iterable[Any]): Case dicts (id, domain, text, readings, now); anything else escalates.
    batch_size (int): Docs per ``nlp.pipe`` batch.
    n_process (int): Worker processes (``semgap_spacy.workers``); each builds the
        pipeline once from ``nlp.to_disk`` and sends back decisions, never Docs.
        1 decides in this process.
    progress (bool): Show a progress bar on stderr (only when it is a terminal).
    ready (Optional[Callable[[], bool]]): For a live stream, whether the next case can be read
        without waiting (``util.live_lines.LiveLines.ready``, or ``lambda: not q.empty()`` for a
        queue). When it says no, the cases read so far are decided and their decisions yielded
        before the next case is waited for: a producer that waits for each decision before it
        sends the next case gets it. None: cases are read a zone's worth at a time, which
        suits a list or a file (a live stream then waits until that many cases have come).
    YIELDS (dict): One decision per case, in input order.
    """
    _check_batch_size(batch_size)
    if n_process != 1:
        from .workers import decide_in_workers
        decisions = decide_in_workers(nlp, cases, "cases", n_process=n_process, batch_size=batch_size,
                                      ready=ready)
    else:
        decisions = _decide_items(nlp, ((case, None, None) for case in cases), batch_size, ready=ready)
    yield from with_progress(decisions, progress)


def _check_batch_size(batch_size: Any) -> None:
    """A batch size below 1 would decide nothing (and lose every case): refused."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a whole number of 1 or more, not {batch_size!r}")


def line_case(number: int, raw: Union[bytes, str]) -> Tuple[Any, Optional[dict]]:
    """One JSONL line as (case, None), or (None, reason) when it is not a strict JSON object.

    number (int): The line number, for the reason's message; line 1 may start with a
        byte order mark, which is skipped (``util.jsonl.without_bom``).
    raw (bytes | str): The line as read (bytes are decoded as strict UTF-8).
    RETURNS (Tuple[Any, Optional[dict]]): The case, or the reason it is refused.
    """
    value, problem = parse_line(raw, first=number == 1)
    if problem is not None:
        code, message = problem
        return None, make_reason(code, f"line {number}: {message}")
    if not isinstance(value, dict):
        return None, make_reason("invalid_case", f"line {number} is JSON {type(value).__name__}, not an object")
    return value, None


def decide_lines(nlp: Language, lines: Iterable[Union[bytes, str]], batch_size: int = 256, *, start: int = 1,
                 n_process: int = 1, progress: bool = False, as_json: bool = False,
                 own_pipeline: bool = False, ready: Optional[Callable[[], bool]] = None) -> Iterator[Any]:
    """One decision per JSONL line, in order, whatever the line holds.

    A line that is not strict JSON (``util.jsonl``) or not an object gets
    ``"id": null``, its ``"line"`` number and an escalation naming the problem.
    Lines are parsed where they are decided (in the workers when
    ``n_process`` > 1).

    lines (Iterable[bytes | str]): The lines, blank ones included.
    start (int): The number of the first line.
    n_process, progress, ready: As for ``decide_cases`` (``ready``: whether the next line can be
        read without waiting).
    as_json (bool): Yield each decision as its JSON text (one line, non-ASCII
        kept), made where it is decided: in the workers, not in this process.
    own_pipeline (bool): The caller owns ``nlp`` (``assess`` and its Dask workers):
        after each memory zone spaCy's string table, which grows with every new
        word even in zones, is rebuilt at its live size (``util.recycle``). Off
        for a pipeline of yours. Worker processes always do it to their own copy.
    YIELDS (dict | str): One decision per line.
    """
    _check_batch_size(batch_size)
    if n_process != 1:
        from .workers import decide_in_workers
        decisions = decide_in_workers(nlp, lines, "json_lines" if as_json else "lines", n_process=n_process,
                                      batch_size=batch_size, start=start, ready=ready)
    else:
        decisions = _decide_items(nlp, _line_items(lines, start), batch_size, own_pipeline, ready)
        if as_json:
            decisions = (json.dumps(d, ensure_ascii=False) for d in decisions)
    yield from with_progress(decisions, progress)


def _line_items(lines: Iterable[Union[bytes, str]], start: int) -> Iterator[_Item]:
    for number, raw in enumerate(lines, start):
        case, problem = line_case(number, raw)
        yield ({}, [problem], number) if problem is not None else (case, None, None)


def _decide_items(nlp: Language, items: Iterable[_Item], batch_size: int, own_pipeline: bool = False,
                  ready: Optional[Callable[[], bool]] = None) -> Iterator[dict]:
    words = zone_words(nlp)
    unrebuilt = 0  # cases decided since spaCy's string table was last rebuilt
    for zone in chunked(items, ZONE_CASES, ready):
        # the zone's recurring words, learnt before it opens, so that the tokenizer's cache,
        # which learns nothing inside a zone, serves them in it (``util.zone_words``)
        words.keep_recurring(nlp, case_texts(case for case, _, _ in zone))
        held = _decide_zone(nlp, zone, batch_size)
        unrebuilt += len(zone)
        # The zone is closed: its strings are gone, the table they grew is not. A live stream
        # (``ready``) closes a zone every case or few: its table is rebuilt once a zone's worth
        # of cases has been decided (a rebuild takes about as long as deciding eight cases).
        if own_pipeline and (ready is None or unrebuilt >= ZONE_CASES):
            rebuild_string_table(nlp)
            unrebuilt = 0
        for decided, text, line in held:
            # the JSON of a zone's decisions is written one at a time as they are taken, so a
            # zone holds compact records rather than thousands of decisions' lists and dicts
            decision = decision_json(_unpacked(decided), text) if text is not None else decided
            if line is not None:
                decision["id"], decision["line"] = None, line
            yield decision


def case_texts(cases: Iterable[Any]) -> List[str]:
    """The texts of the cases about to be decided (``util.zone_words`` counts their words); a Doc
    given by the caller has been tokenized, and anything that is not a case is refused unread."""
    return [case["text"] for case in cases if type(case) is dict and type(case.get("text")) is str]


def _decide_zone(nlp: Language, items: List[_Item], batch_size: int) -> List[tuple]:
    """What decides some cases, decided inside one memory zone (Docs given by the caller excepted):
    per case (its decision record, the doc's text, the line number) or (its decision, None, line).

    A doc made here is emptied as soon as its record is taken: the pipes before ours may hold
    it with the rest of its batch (a trained pipeline's components work on batches), and what
    our pipes left on it would otherwise live as long as the batch, long enough for Python's
    collector to move it to its older generations and bring on full collections. A Doc given
    by the caller is left as it is, its decision on it."""
    given_docs = any(isinstance(case, Doc) for case, _, _ in items)
    decided = []
    with (nullcontext() if given_docs else memory_zone(nlp)):
        for first in range(0, len(items), batch_size):
            part = items[first:first + batch_size]
            docs = _run_batch(nlp, [case for case, _, _ in part], batch_size, [found for _, found, _ in part])
            for (case, _, line), doc in zip(part, docs):
                # plain values only: a record and a text outlive the zone's docs and strings
                if isinstance(case, Doc):
                    decided.append((decision_of(doc), None, line))
                    continue
                record = decision_record(doc)
                decided.append((_packed(record), doc_text(doc), line) if record is not None
                               else (decision_of(doc), None, line))
                release_doc(doc)  # the doc is ours and done with: what the pipes left on it goes now
    return decided


def _packed(record: tuple) -> Union[bytes, tuple]:
    """A decision record as one bytes value, to hold until its zone ends.

    A zone holds thousands of records. As nested containers they outlive the
    collector's young generations and bring on full collections of the whole
    process's heap (spaCy's, the glossary's, the user's); as one bytes value
    each, the collector never looks at them. A record is plain values of
    Python's own types, which ``marshal`` writes and reads back exactly (it
    refuses anything else, subclasses included) in about half the time pickle
    takes; a record it refuses is held as it is. The bytes never leave the process.
    """
    try:
        return marshal.dumps(record)
    except (ValueError, TypeError):
        return record


def _unpacked(held: Union[bytes, tuple]) -> tuple:
    return marshal.loads(held) if type(held) is bytes else held


def memory_zone(nlp: Language):
    """``nlp.memory_zone()``, or a block that does nothing when spaCy has no
    memory zones (before 3.8) or one is open already (zones do not nest).

    RETURNS (ContextManager): The zone.
    """
    zone = getattr(nlp, "memory_zone", None)
    if zone is None or getattr(nlp.vocab, "in_memory_zone", False):
        return nullcontext()
    return zone()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


@contextmanager
def progress_bar(enabled: bool, total: Optional[int] = None):
    """A tqdm bar of cases on stderr when enabled and stderr is a terminal (it appears only
    once a run has taken a second), else one that shows nothing; ``update(n)`` counts n cases.

    total (Optional[int]): The number of cases, when known.
    """
    if not enabled or not sys.stderr.isatty():
        yield _NoBar()
        return
    from tqdm import tqdm
    with tqdm(total=total, unit=" cases", delay=1.0, file=sys.stderr, dynamic_ncols=True) as bar:
        yield bar


def with_progress(decisions: Iterator[dict], enabled: bool, total: Optional[int] = None) -> Iterator[dict]:
    """The decisions, counted on a ``progress_bar``."""
    if not enabled or not sys.stderr.isatty():
        yield from decisions
        return
    with progress_bar(enabled, total) as bar:
        for decision in decisions:
            yield decision
            bar.update(1)

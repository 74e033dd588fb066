"""What every semgap component shares: the glossary it reads, its on/off
switch, serialization of that glossary, and failing closed.

The glossary is data, not config (spaCy's "data ends up in the config file"
problem), so it is given at ``initialize`` and travels in ``to_disk``; an
assembled pipeline never reads the source YAML again. When nobody initializes
the component it reads the glossaries bundled with the package, so
``nlp.add_pipe("semgap_terms")`` works at once.

A pipeline loaded from disk (``load_pipeline``) builds each component once: a
component made while it loads waits for the glossary its ``from_disk`` gives
(building first from the bundled one would be thrown away), and the load ends
with every component built, before it can see a document.

A component that raises on a document would lose the whole batch; instead
the error is recorded on the doc and the decision escalates on it.

Every component also leaves an entry in the doc's run record (name, factory,
status, config switches) and the first one of a run checks the case values
(``core.cases``), so a Doc made by ``nlp.make_doc`` and filled by hand gets the
same checks as one made by ``assess``; the decision reads the record to tell a
full read from a pipeline with a pipe missing, off, failed or out of order.
"""
import copyreg
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple, Union

import spacy
import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.util import ensure_path, registry

from .doc_rows import text_length
from .extensions import begin_run, doc_key, record_component_error, record_first, record_run, tokens_changed
from ..core.cases import MAX_TEXT_CHARS, UNREAD_CODES, check_case, merge_problems, nothing_to_check
from ..core.pipeline import DISABLED, FAILED, RAN, SKIPPED, contract, order_problem
from ..core.run_entries import config_text
from ..glossary.models import GlossarySet, glossary_from_json, load_glossaries
from ..lang import generation
from ..util import caches
from ..util.compiled import compiled_module

#: ``start_run``'s default: look the pipeline's default domain up now (one call),
#: rather than once per stream (``pipe``)
LOOK_UP = object()

_CASE_PROBLEMS, _DOMAIN, _CASE_ID, _NOW, _DEFAULT_DOMAIN = (doc_key(name) for name in (
    "semgap_case_problems", "semgap_domain", "semgap_case_id", "semgap_now", "semgap_default_domain"))


class RetokenizedError(RuntimeError):
    """The doc's tokens changed between two semgap pipes (``extensions.tokens_changed``)."""


def positive_int(pipe: str, switch: str, value: Any) -> int:
    """``value`` when it is a whole number of at least 1 (not a bool, not a string of one).

    spaCy lets a string such as "5" through an ``int`` switch; refused here, it
    stops the build with a message rather than failing every doc.
    RAISES (ValueError): Naming the pipe, the switch and the value.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{pipe}: {switch} must be a positive integer, not {value!r}")
    return value


def _copied(value):
    """A copy of a plain value that shares no list or dict with it."""
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


def semgap_factories(nlp: Language) -> list:
    """The factory of each semgap pipe of a pipeline (disabled ones too), in pipeline order."""
    return [proc.FACTORY for _, proc in nlp.components if isinstance(proc, SemgapPipe) and proc.FACTORY]


def check_order(nlp: Language) -> None:
    """Raise when the semgap pipes of a pipeline are out of order.

    RAISES (ValueError): Naming the expected order.
    """
    problem = order_problem(semgap_factories(nlp))
    if problem:
        raise ValueError(problem)


#: a sentence the tokenizer must cut into its words for the pipes to read it (spec §4.1 reads words)
_PROBE = "Clear to close, assay failed."
_PROBE_WORDS = ["Clear", "to", "close", ",", "assay", "failed", "."]


def check_tokenizer(nlp: Language) -> None:
    """Raise when a pipeline's tokenizer does not cut text into words (``spacy.blank("zh")``
    cuts "Clear" into letters): every rule reads words, and letters one by one would read as
    explained shapes, so such a pipeline would proceed on what it never read.

    RAISES (ValueError): Naming the language and what its tokenizer made of a short sentence.
    """
    tokens = [t.text for t in nlp.tokenizer(_PROBE)]
    if tokens != _PROBE_WORDS:
        raise ValueError(f"the semgap pipes read words, but the tokenizer of this {nlp.lang!r} pipeline cuts "
                         f"{_PROBE!r} into {tokens[:12]}; add them to a pipeline of a language whose tokenizer "
                         "splits words at spaces (en, es, fr, de or xx, e.g. spacy.blank('xx'))")


def case_unread(doc: Doc) -> bool:
    """Whether a case check refused the text (too long): no pipe reads it."""
    problems = doc.user_data.get(_CASE_PROBLEMS)
    return bool(problems) and any(isinstance(r, dict) and r.get("code") in UNREAD_CODES for r in problems)


#: the components made while ``deferred_builds`` is open and waiting to build (None: builds run at once)
_WAITING: ContextVar[Optional[List["SemgapPipe"]]] = ContextVar("semgap_waiting_builds", default=None)


@contextmanager
def deferred_builds() -> Iterator[None]:
    """While open, a semgap component made here builds nothing from its glossary: it
    waits. On leaving, each of them builds once, from the glossary it was given by
    then (``from_disk``, ``set_glossary``), else the bundled one.

    A pipeline loaded from disk with a glossary of its own would otherwise build
    every component twice: from the bundled glossaries when it is made, then from
    its own when ``from_disk`` sets it (a saved bundled glossary is not taken
    again). Leaving the block builds them all, so no component can see a
    document unbuilt. On an exception nothing is built: the components stop
    waiting, and one that is kept builds when its glossary is next set (until
    then it has none, and fails on every document rather than reading it).
    """
    waiting: List[SemgapPipe] = []
    token = _WAITING.set(waiting)
    try:
        yield
    except BaseException:
        for pipe in waiting:
            pipe._build_waits = False
        raise
    finally:
        _WAITING.reset(token)
    for pipe in waiting:
        pipe._build_now()


def load_pipeline(path: Union[str, Path], **kwargs) -> Language:
    """``spacy.load`` with every semgap component built once, from the glossary saved with it.

    path (str | Path): A pipeline directory (``nlp.to_disk``) or package name.
    kwargs: Passed on to ``spacy.load``.
    RETURNS (Language): The loaded pipeline, every component ready.
    """
    with deferred_builds():
        return spacy.load(path, **kwargs)


def glossary_from_arg(glossary: Union[None, str, Path, dict, GlossarySet]) -> GlossarySet:
    """Accept a GlossarySet, a directory path or a serialized dict."""
    if glossary is None:
        return load_glossaries()
    if isinstance(glossary, GlossarySet):
        return glossary
    if isinstance(glossary, dict):
        return GlossarySet.from_dict(glossary)
    return load_glossaries(glossary)


def running_pipes(nlp: Language) -> Iterable[Tuple[str, Any]]:
    """``nlp.pipeline``: the (name, component) pairs that run, in order. Read from the fields
    that property reads where they are there (spaCy 3.7, 3.8): the property builds a frozen list
    and formats an error message for it each time, about 2.5 us, and the first pipe of a run
    asks for the pipeline at every ``nlp(text)`` (``pipeline_default_domain``)."""
    components, disabled = getattr(nlp, "_components", None), getattr(nlp, "_disabled", None)
    if type(components) is not list or not isinstance(disabled, (set, frozenset)):
        return nlp.pipeline
    if not disabled:
        return components  # read, never changed, by the callers
    return [(name, proc) for name, proc in components if name not in disabled]


class SemgapPipe(Pipe):
    """Base for the five components.

    Subclasses set ``FACTORY``, implement ``process(doc)`` and may override
    ``_rebuild()`` to recompute indexes after the glossary changes; they call
    ``build()`` to run it (it waits inside ``deferred_builds``).
    """

    #: the factory name, written in the run record and checked for order
    FACTORY = ""
    #: (the pipeline's component list, a copy of it, its disabled names, the decision pipe found
    #: there) of the last look-up (``_decision_pipe``); not pickled
    _decision_seen = None

    def __init__(self, nlp: Language, name: str, *, enabled: bool = True,
                 glossary: Optional[GlossarySet] = None):
        # The pipes built so far come first: refuse a pipeline already out of order
        # (the pipe's own place is not known yet, so only what is there is judged).
        check_order(nlp)
        check_tokenizer(nlp)
        self.nlp = nlp
        self.name = name
        self.enabled = enabled
        waiting = _WAITING.get()
        #: True from being made inside ``deferred_builds`` until built when it ends
        self._build_waits = waiting is not None
        if waiting is not None:
            waiting.append(self)
        #: None only while ``deferred_builds`` waits for the glossary a load gives
        self.glossary = glossary if glossary is not None or waiting is not None else load_glossaries()
        self.cfg = {"enabled": enabled}
        #: (a copy of the switches, ``enabled``, their JSON text, the entry made for each
        #: status) of the last run entry
        self._entry_config = None

    def build(self) -> None:
        """Recompute what the component derives from its glossary (``_rebuild``), unless it
        waits inside ``deferred_builds`` for the glossary a load gives: the components
        call this, not ``_rebuild``, from their constructors and setters."""
        self._switches_made = True  # the constructor is done with them (``__setattr__``)
        if not self._build_waits:
            self._derive()

    def _derive(self) -> None:
        """``_rebuild``, noting every attribute it sets: what a pickle leaves out (``__getstate__``)."""
        state = self.__dict__
        state["_deriving"] = True
        try:
            self._rebuild()
            #: the set of language packs (``lang.generation``) what the pipe derives was read from
            self._packs_at = generation()
        finally:
            state["_deriving"] = False

    def follow_packs(self) -> None:
        """Build again when the language packs changed since the pipe was built (``register_pack``,
        ``unregister_pack``): every decision records the packs registered now (``"language_packs"``),
        so the words a pipe read from the packs (stop words, clause breaks, list conjunctions,
        speakers) must be theirs. Once per change of the packs, not per doc; a build that fails is
        tried again at the next doc, each failing doc escalating on it."""
        if self._packs_at != generation():
            self._derive()

    def __setattr__(self, name: str, value: Any) -> None:
        """Refuse to change a switch of a built component (a key of ``cfg`` other than ``enabled``).

        Every decision's run record holds the switches each pipe ran with, as the
        config gave them, and the decision escalates on one that reads less
        ("questions" off, another span group). A switch changed on the object
        afterwards would leave the record saying what no longer holds, and some
        switches are read once, when the pipe is built. So a switch is set in the
        config, where the record sees it; ``enabled`` alone is read at every run.
        """
        if (name != "enabled" and self.__dict__.get("_switches_made") and name in self.__dict__.get("cfg", ())):
            raise AttributeError(
                f"{getattr(self, 'name', type(self).__name__)}: {name!r} is a config value, set when the pipe "
                f"is built, and recorded in every decision: give it in the config (nlp.add_pipe(..., "
                f"config={{{name!r}: ...}}), or nlp.replace_pipe), not on the built component")
        if self.__dict__.get("_deriving"):
            self.__dict__.setdefault("_derived", set()).add(name)
        object.__setattr__(self, name, value)

    # -- pickling ----------------------------------------------------------
    def __getstate__(self) -> dict:
        """The component without what it derives from its glossary (indexes holding local
        functions, per-word caches): ``nlp.pipe(n_process=N)`` pickles the pipeline when worker
        processes start by spawning (macOS, Windows; forkserver on Linux from Python 3.14), and
        ``pickle.dumps(nlp)`` works as for spaCy's own pipes. The copy builds again from its
        glossary when it is first used (``__getattr__``)."""
        derived = self.__dict__.get("_derived", ())
        state = {k: v for k, v in self.__dict__.items()
                 if k not in derived and k != "_derived" and k != "_decision_seen"}
        state["_unpickled"] = True
        state["name"] = self.name  # an attribute of spaCy's Cython Pipe, not of the __dict__
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        object.__setattr__(self, "name", state.pop("name"))
        self.__dict__.update(state)

    def __reduce_ex__(self, protocol: int):
        # spaCy's Pipe is a Cython class whose own reduce pickles the whole __dict__
        return copyreg.__newobj__, (type(self),), self.__getstate__()

    def __getattr__(self, name: str) -> Any:
        """A derived attribute of an unpickled copy: built now, from its glossary, once. Only
        reached for an attribute the instance lacks; anything else is an AttributeError."""
        state = self.__dict__
        if name.startswith("__") or not state.get("_unpickled"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        state["_unpickled"] = False  # a second look while building is a plain miss
        state["_build_waits"] = True  # as a component made in ``deferred_builds``: no glossary, the bundled
        self._build_now()
        return getattr(self, name)

    def _build_now(self) -> None:
        """Build what waited in ``deferred_builds``, from the bundled glossary when none was given."""
        if not self._build_waits:
            return
        if self.glossary is None:
            self.glossary = load_glossaries()
        self._build_waits = False
        self._derive()

    # -- running ---------------------------------------------------------
    def process(self, doc: Doc) -> Doc:  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, doc: Doc) -> Doc:
        """Run the component; on failure record the error and return the doc.

        doc (Doc): The document.
        RETURNS (Doc): The same document.
        """
        return self.run(doc, LOOK_UP)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        default = LOOK_UP
        for doc in stream:
            if default is LOOK_UP:  # the pipeline does not change within a stream
                default = self.pipeline_default_domain()
            yield self.run(doc, default)

    def run(self, doc: Doc, default_domain=LOOK_UP) -> Doc:
        """Run on one doc and append this pipe's entry to the run record."""
        fresh = not doc.user_data  # no run record and no case values: this pipe begins the run
        checked = self.start_run(doc, default_domain)
        if not self.enabled:
            status = DISABLED
        elif checked and case_unread(doc):
            status = SKIPPED
        else:
            try:
                self.follow_packs()
                doc = self.process(doc)
                status = RAN
            except Exception as exc:  # fail closed: the decision escalates on it
                record_component_error(doc, self.name, exc)
                status = FAILED
        if fresh:
            record_first(doc, self.run_entry(status))
        else:
            record_run(doc, self.run_entry(status))
        return doc

    def run_entry(self, status: str):
        """This pipe's entry in the run record (``core.run_entries``): plain values only (they
        travel with the doc), the switches as JSON text shared by every doc until they change.

        An entry is a tuple of strings, so one is shared by every doc with the same status
        until the switches change, rather than a new one per doc for the garbage collector to
        walk while the docs are held. Switches JSON would not give back exactly make a dict entry, with
        its own copy of every list and dict, so editing one doc's record changes neither
        another doc's nor the pipe's switches.
        """
        enabled = bool(self.enabled)
        last = self._entry_config
        if last is None or last[1] is not enabled or last[0] != self.cfg:
            config = dict(self.cfg)
            config["enabled"] = enabled
            last = self._entry_config = (_copied(self.cfg), enabled, config_text(config), {})
        if last[2] is not None:
            entry = last[3].get(status)
            if entry is None or entry[0] != self.name:
                entry = last[3][status] = (self.name, self.FACTORY, status, last[2])
            return entry
        config = _copied(self.cfg)
        config["enabled"] = enabled
        return {"name": self.name, "factory": self.FACTORY, "status": status, "config": config}

    def start_run(self, doc: Doc, default_domain=LOOK_UP) -> bool:
        """Check the case values when this is the first semgap pipe to see the doc in this run.

        default_domain: The pipeline's default domain, or ``LOOK_UP`` to find it now.
        RETURNS (bool): False when the doc had no case values and there was nothing to check
            (``nothing_to_check``, most docs): then no case problem can be on it.
        """
        data = doc.user_data
        # a doc with no user data has no run record: this pipe is the first of its run
        if data and not begin_run(doc, contract().decision, self.name):
            changed = tokens_changed(doc)
            if changed is not None:
                record_component_error(doc, self.name, RetokenizedError(changed))
            return True
        caches.new_document()
        if not data:  # a fresh doc: no case values to check, unless a default or the length says so
            if default_domain is LOOK_UP:
                default_domain = self.pipeline_default_domain()
            if nothing_to_check(self._judged_length(doc), default_domain):
                return False
        elif default_domain is LOOK_UP:
            # only a doc without a domain takes the default: the others need no look-up
            default_domain = self.pipeline_default_domain() if data.get(_DOMAIN) is None else None
        case_id, domain, now = data.get(_CASE_ID), data.get(_DOMAIN), data.get(_NOW)
        try:
            check = check_case(self._judged_length(doc), case_id, domain, now, default_domain=default_domain)
        except Exception as exc:  # pragma: no cover - the checks are total; fail closed anyway
            record_component_error(doc, self.name, exc)
            return True
        # write back only what the check replaced (a default domain, a case id made a string)
        if check.case_id is not case_id:
            data[_CASE_ID] = check.case_id
        if check.domain is not domain:
            data[_DOMAIN] = check.domain
        if check.now is not now:
            data[_NOW] = check.now
        if check.problems:
            data[_CASE_PROBLEMS] = tuple(merge_problems(data.get(_CASE_PROBLEMS), check.problems))
        if check.default_domain is not None:
            data[_DEFAULT_DOMAIN] = check.default_domain
        return True

    def _judged_length(self, doc: Doc) -> int:
        """The text length the case checks judge: the text's own in a pipeline that decides
        (a case over the limit escalates unread, spec §5), and 0, which no check refuses, in a
        pipeline without ``semgap_decision``: there no case is decided, and a team that puts
        ``semgap_context`` after its own NER on clinical notes needs every note read, as negspacy
        and ConText read it, not skipped with each target left as if asserted."""
        length = text_length(doc)
        return length if length <= MAX_TEXT_CHARS or self.pipeline_decides() else 0

    def _decision_pipe(self) -> Optional["SemgapPipe"]:
        """The pipeline's decision pipe when it runs one (enabled or not; one left out by
        ``select_pipes`` is not run), else None."""
        nlp = self.nlp
        components, disabled = getattr(nlp, "_components", None), getattr(nlp, "_disabled", None)
        seen = self._decision_seen
        # the first pipe asks at every ``nlp(text)``: the answer stands while the pipeline does
        if seen is not None and seen[0] is components and seen[1] == components and seen[2] == disabled:
            return seen[3]
        decision, found = contract().decision, None
        for _, proc in running_pipes(nlp):
            if isinstance(proc, SemgapPipe) and proc.FACTORY == decision:
                found = proc
                break
        if type(components) is list and isinstance(disabled, (set, frozenset)):
            self.__dict__["_decision_seen"] = (components, list(components), frozenset(disabled), found)
        return found

    def pipeline_decides(self) -> bool:
        """Whether the pipeline runs a decision pipe."""
        return self._decision_pipe() is not None

    def pipeline_default_domain(self) -> Optional[str]:
        """The ``default_domain`` of the pipeline's decision pipe (None when unset or absent).

        It is read here, by the first pipe, because every pipe after it reads
        the domain (terms, quantities), not only the decision.
        """
        return getattr(self._decision_pipe(), "default_domain", None)


    def memory_zone(self, mem=None):
        """The pipe's part of ``nlp.memory_zone()``: what the pipes learn about
        words inside the zone (``util.caches``) is forgotten when it ends, so
        no cache keeps a word, or the hash of a string, that the zone frees.

        mem (cymem.Pool): The zone's memory pool (spaCy passes it; not used).
        RETURNS (ContextManager): The zone.
        """
        return caches.memory_zone()

    # -- data ------------------------------------------------------------
    def initialize(self, get_examples: Optional[Callable] = None, *, nlp: Optional[Language] = None,
                   glossary: Union[None, str, Path, dict, GlossarySet] = None) -> None:
        """Load the glossary this component reads.

        glossary (GlossarySet | str | Path | dict | None): The glossary set, a
            directory of domain YAML files, or None to keep the current one (the
            bundled glossaries, or what ``semgap.glossary_init.v1`` set).
        """
        check_order(nlp or self.nlp)
        if glossary is not None:
            self.set_glossary(glossary_from_arg(glossary))

    def set_glossary(self, glossary: GlossarySet) -> None:
        self._check_glossary(glossary)
        self.glossary = glossary
        self.build()

    def _check_glossary(self, glossary: GlossarySet) -> None:
        """Refuse a glossary this component cannot be built from, before it is taken (the
        component is then left as it was). RAISES (ValueError): Saying why."""

    def _rebuild(self) -> None:
        """Recompute whatever the component derives from its glossary."""

    # -- serialization ---------------------------------------------------
    def _serializers(self):
        return {
            "cfg": lambda: srsly.json_dumps(self.cfg),
            "glossary": lambda: srsly.json_dumps(self.glossary.to_dict()),
        }

    def _load(self, data: dict) -> None:
        """Take what was saved, and build once if it differs from what the component was built from.

        ``spacy.load`` makes each component (which builds it from the bundled glossary) before
        ``from_disk`` gives it the saved one; a saved pipeline of the bundled glossary would
        otherwise be built twice (``load_pipeline`` builds every pipeline once, whatever it holds).
        """
        if self._take(data):
            self.build()

    def _take(self, data: dict) -> bool:
        """Take what was saved without building; whether anything differs from what the component
        holds. Everything is read and checked before anything is taken, so a load that fails leaves
        the component as it was. ``data["glossary"]`` is the glossary's JSON text, read through
        ``glossary_from_json`` so the components of one pipeline validate it once; the same glossary
        (its sha256, over all it holds) is not taken again."""
        # cfg.json is written for readers only: the pipeline's config builds the
        # component, so a switch overridden at load time must win over the file.
        if "glossary" not in data:
            return False
        glossary = glossary_from_json(data["glossary"], source=f"{self.name}/glossary")
        if self.glossary is not None and glossary.sha256 == self.glossary.sha256:
            return False
        self._check_glossary(glossary)
        self.glossary = glossary
        return True

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return srsly.msgpack_dumps({k: fn() for k, fn in self._serializers().items() if k not in exclude})

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "SemgapPipe":
        payload = srsly.msgpack_loads(bytes_data)
        self._load({k: v if k == "glossary" else srsly.json_loads(v) for k, v in payload.items()
                    if k not in exclude})
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        for key, fn in self._serializers().items():
            if key not in exclude:
                (path / f"{key}.json").write_text(fn(), encoding="utf8")

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "SemgapPipe":
        path = ensure_path(path)
        data = {}
        for key in self._serializers():
            file = path / f"{key}.json"
            if key not in exclude and file.exists():
                text = file.read_text(encoding="utf8")
                data[key] = text if key == "glossary" else srsly.json_loads(text)
        self._load(data)
        return self


#: ``SemgapPipe.run`` in Python, whether or not its compiled twin runs
python_run = SemgapPipe.run
# the compiled twin (``pipes/_pipe_run.pyx``) takes its place where it was built
_compiled_run = compiled_module("semgap_spacy.pipes._pipe_run")[0]
if _compiled_run is not None:
    SemgapPipe.run = _compiled_run.run


@registry.callbacks("semgap.glossary_init.v1")
def glossary_init_v1(path: Optional[str] = None) -> Callable[[Language], Language]:
    """An ``[initialize.before_init]`` callback that gives every semgap pipe one glossary set.

    The set is loaded once, here, rather than once per pipe; it then travels in
    each pipe's ``to_disk`` so an assembled pipeline never reads the YAML again.
    path (Optional[str]): Directory of ``*.yaml`` domain glossaries; None for the bundled ones.
    RETURNS (Callable[[Language], Language]): The callback.
    """
    def set_glossary(nlp: Language) -> Language:
        glossary = load_glossaries(path)
        for _, pipe in nlp.pipeline:
            if isinstance(pipe, SemgapPipe):
                pipe.set_glossary(glossary)
        return nlp
    return set_glossary

# cython: language_level=3
"""``SemgapPipe.run`` compiled: the same steps, with the fast path of a new doc written out.

Why: every semgap pipe runs every doc through ``run``, which checks the case
values, follows the language packs, runs the pipe and appends its entry to
the run record. For a new doc (no user data) nothing needs checking, and the
Python calls that find that out (``start_run``, ``follow_packs``,
``run_entry``, ``extensions.record_first``) cost more than a pipe's own
reading of a sentence with no cue in it. Here a new doc whose case needs
no check takes those steps written out; every other doc, and every step a
subclass changes, goes through the methods themselves.

The twin test (``tests/pipes/test_pipe_run.py``) compares this with the
Python method (``pipes.base.python_run``) on the same docs;
``SEMGAP_SPACY_COMPILED=0`` runs the Python method.
"""
from semgap_spacy.core.cases import MAX_TEXT_CHARS
from semgap_spacy.core.pipeline import DISABLED, FAILED, RAN, SKIPPED
from semgap_spacy.lang import generation
from semgap_spacy.util import caches

# ``pipes.base`` imports this module once its own names are defined
from semgap_spacy.pipes import base as _base
from semgap_spacy.pipes.base import LOOK_UP, SemgapPipe
from semgap_spacy.pipes.doc_rows import text_length
from semgap_spacy.pipes.extensions import _PIPELINE_KEY, _RUN_KEY, _TOKENS_KEY

_own_start, _own_follow, _own_entry = SemgapPipe.start_run, SemgapPipe.follow_packs, SemgapPipe.run_entry
_own_default, _own_decision = SemgapPipe.pipeline_default_domain, SemgapPipe._decision_pipe
_own_judged = SemgapPipe._judged_length
cdef Py_ssize_t _max_chars = MAX_TEXT_CHARS
cdef tuple _run_key = _RUN_KEY, _pipeline_key = _PIPELINE_KEY, _tokens_key = _TOKENS_KEY


cdef object _default_domain(self, type cls):
    """``pipeline_default_domain``: from the decision pipe ``_decision_pipe`` found last, while
    the pipeline is the one it was found in; else by the method, which looks again."""
    if cls.pipeline_default_domain is _own_default and cls._decision_pipe is _own_decision:
        seen = self._decision_seen
        if seen is not None:
            nlp = self.nlp
            components = getattr(nlp, "_components", None)
            if seen[0] is components and seen[1] == components and seen[2] == getattr(nlp, "_disabled", None):
                return getattr(seen[3], "default_domain", None)
    return self.pipeline_default_domain()


def run(self, doc, default_domain=LOOK_UP):
    """Run on one doc and append this pipe's entry to the run record (``SemgapPipe.run``, compiled)."""
    cdef bint fresh, checked
    cdef Py_ssize_t length
    cls = type(self)
    data = doc.user_data
    fresh = not data  # no run record and no case values: this pipe begins the run
    checked = True
    if fresh and cls.start_run is _own_start:
        # ``start_run`` for a new doc: nothing to check unless a default domain or the length says so
        if default_domain is LOOK_UP:
            default_domain = _default_domain(self, cls)
        if cls._judged_length is _own_judged:
            length = text_length(doc)
            if length > _max_chars and not self.pipeline_decides():
                length = 0
        else:
            length = self._judged_length(doc)
        if not isinstance(default_domain, str) and length <= _max_chars:  # ``cases.nothing_to_check``
            caches.new_document()
            checked = False
    if checked:
        checked = self.start_run(doc, default_domain)
    if not self.enabled:
        status = DISABLED
    elif checked and _base.case_unread(doc):
        status = SKIPPED
    else:
        try:
            if cls.follow_packs is not _own_follow or self._packs_at != generation():
                self.follow_packs()
            doc = self.process(doc)
            status = RAN
        except Exception as exc:  # fail closed: the decision escalates on it
            _base.record_component_error(doc, self.name, exc)
            status = FAILED
    entry = None
    if cls.run_entry is _own_entry:  # the entry made for this status while the switches stay
        last = self._entry_config
        if (last is not None and last[1] is bool(self.enabled) and last[2] is not None
                and last[0] == self.cfg):
            entry = last[3].get(status)
            if entry is not None and entry[0] != self.name:
                entry = None
    if entry is None:
        entry = self.run_entry(status)
    if fresh:  # ``record_first``: the record starts with this entry, unless something wrote one since
        data = doc.user_data
        if _run_key in data or _pipeline_key in data:
            _base.record_run(doc, entry)
        else:
            data[_tokens_key] = len(doc)
            data[_run_key] = (entry,)
    else:
        _base.record_run(doc, entry)
    return doc

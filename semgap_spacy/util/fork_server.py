"""The fork server that the workers of ``assess --engine dask``'s own ``LocalCluster`` are
forked from, started as early as the command line allows.

The server is a fresh interpreter: it imports Dask, spaCy and this package and
builds the run's pipeline (``ops.dask_preload``), seconds of CPU that every
worker then has without paying them again. Nothing here imports spaCy, so
``python -m semgap_spacy assess --engine dask`` (and the ``semgap`` script)
can start the server before the command's own process imports spaCy
(``early_start``, called by ``cli_start``): both import side by side, on two
cores, instead of one after the other.

A server is started for one run, named by a random start id; a worker forked
from it keeps the pipeline it preloaded only when the run asks for that start
(``dask_engine._load_frozen``). The run takes the early start's id only when
its source is the very one the early start read off the command line
(``start_for``); any other run gets a new id, so its workers build their
pipeline themselves rather than use one built for another source.
"""
import argparse
import json
import os
import signal
import uuid
from contextlib import contextmanager
from importlib.util import find_spec
from typing import Iterator, List, Optional, Tuple

from .signals import handled

__all__ = ["PRELOAD_ENV", "Source", "early_start", "ensure_running", "has_fork_server", "local_cases",
           "start_for", "start_fork_server"]

Source = Tuple[Optional[str], Optional[str]]  # (spacy.load-able path, glossary directory)

#: names the cluster start (an id) and the source whose pipeline the fork server builds before
#: it forks the workers (``ops.dask_preload``); set only while the server starts
PRELOAD_ENV = "SEMGAP_DASK_PRELOAD"
#: what the fork server imports before it forks a worker
PRELOAD_MODULES = ["distributed", "semgap_spacy.ops.dask_preload"]

#: the source and start id of the server ``early_start`` started in this process, if any
_early: Optional[Tuple[Source, str]] = None


def run_source(pipeline: Optional[str], glossaries: Optional[str]) -> Source:
    """The source a run names: local paths made absolute (the workers' working directory may
    differ), a URL kept as it is."""
    return (os.path.abspath(pipeline) if pipeline and "://" not in pipeline else pipeline,
            os.path.abspath(glossaries) if glossaries else None)


def has_fork_server() -> bool:
    import multiprocessing

    return "forkserver" in multiprocessing.get_all_start_methods()


def local_cases(cases: Optional[str]) -> Optional[str]:
    """The absolute path of a run's input when it is one local file, which the fork server can
    read the first lines of; None for a URL, a glob, stdin or a path that is no file."""
    if not cases or "://" in cases or not os.path.isfile(cases):
        return None
    return os.path.abspath(cases)


@contextmanager
def preloading(source: Source, start: Optional[str], cases: Optional[str] = None) -> Iterator[None]:
    """While open, a fork server started (by us or by Dask) preloads Dask, this package and the
    pipeline of ``source`` for the cluster start ``start``; None: no fork server.

    cases (Optional[str]): A local input file (``local_cases``) whose first zone's recurring
        words the server learns before it forks a worker (``dask_engine.preload_from_environment``).
    """
    if start is None:
        yield
        return
    import multiprocessing

    multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD_MODULES)
    before = os.environ.get(PRELOAD_ENV)
    os.environ[PRELOAD_ENV] = json.dumps([start, *source, cases])
    try:
        yield
    finally:
        if before is None:
            del os.environ[PRELOAD_ENV]
        else:
            os.environ[PRELOAD_ENV] = before


def ensure_running() -> None:
    """Start the fork server, if it is not running, with Ctrl-C ignored in it and in every
    worker forked from it (an ignored signal stays ignored across ``exec``): a terminal's Ctrl-C
    reaches the whole process group, and the server died in its imports (seconds long) with a
    traceback, and its workers with theirs. The run's own process stops the run and closes the
    cluster; it ignores Ctrl-C itself only while it starts the server, a fork and an exec."""
    from multiprocessing import forkserver

    with handled([signal.SIGINT], signal.SIG_IGN):
        forkserver.ensure_running()


def start_fork_server(source: Source, start: str, cases: Optional[str] = None) -> None:
    """Start the fork server now, preloading the pipeline of ``source`` for the start ``start``
    (and the recurring words of ``cases``, a local input file, see ``preloading``). A server
    already running (an earlier start in this process) is kept; nothing happens where the
    platform has none."""
    if not has_fork_server():
        return
    with preloading(source, start, cases):
        ensure_running()


def start_for(source: Source) -> str:
    """The start id of a run of ``source``: the early start's when it read this source off the
    command line, a new one otherwise."""
    if _early is not None and _early[0] == source:
        return _early[1]
    return uuid.uuid4().hex


class _Refused(Exception):
    pass


class _QuietParser(argparse.ArgumentParser):
    """Reads the few options ``early_start`` needs and never prints or exits: what it cannot
    read is the real parser's to report."""

    def error(self, message):
        raise _Refused(message)


def _dask_run(argv: List[str]) -> Optional[Tuple[Source, Optional[str]]]:
    """The source and the local input file (``local_cases``) of ``assess --engine dask`` on a
    cluster of its own, as the command line spells them out in full; None for any other
    command or a spelling not read here (an abbreviated option, a scheduler address)."""
    if not argv or argv[0] != "assess":
        return None
    parser = _QuietParser(add_help=False, allow_abbrev=False)
    for option in ("--engine", "--scheduler", "--pipeline", "--glossaries", "--cases"):
        parser.add_argument(option)
    try:
        known, _ = parser.parse_known_args(argv[1:])
    except _Refused:
        return None
    if known.engine != "dask" or known.scheduler:
        return None
    return run_source(known.pipeline, known.glossaries), local_cases(known.cases)


def early_start(argv: List[str]) -> None:
    """Start the fork server of ``assess --engine dask``'s own cluster before this process
    imports spaCy, where the command line asks for one and the dask extra is installed.
    Never raises: the run starts the server itself, later, when this did not."""
    global _early
    try:
        run = _dask_run(argv)
        if run is None or not has_fork_server() or find_spec("distributed") is None:
            return
        source, cases = run
        start = uuid.uuid4().hex
        start_fork_server(source, start, cases)
        _early = (source, start)
    except Exception:  # noqa: BLE001 - only a head start is lost
        return

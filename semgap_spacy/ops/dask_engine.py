"""Score JSONL past one machine on Dask: ``assess --engine dask`` and :func:`assess_dask`.

Needs the ``dask`` extra (``pip install "semgap_spacy[dask]"``: dask and
distributed). The input is read with ``dask.bytes.read_bytes``, so ``--cases``
is a local path, a glob, or any fsspec URL the workers can read
(``s3://bucket/cases-*.jsonl`` with s3fs installed, ...). It is cut into
blocks at line ends; each block is scored on a Dask worker, which builds the
pipeline once per process (``spacy.load`` of a directory every worker can
read, or the bundled pipeline with the given glossaries) and sends back the
decisions as JSON lines. The decisions are written in input order, one per
line, with the same fail-closed rules as ``assess``: every line is parsed
with the strict JSONL rules where it is scored, a refused line gets ``"id":
null``, its line number and an escalation, and a block whose task fails (a
worker that keeps dying, an exception) gets a ``worker_failed`` escalation
for each of its lines rather than going missing.

Blocks are read twice: first to count their lines (so every refused line is
reported with its number in the whole input), then to score them.
"""
import json
import os
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from typing import Dict, Iterator, List, NamedTuple, Optional, TextIO, Tuple, Union

from ..api import ZONE_CASES, build_pipeline, decide_lines, pipeline_glossary, progress_bar
from ..pipes.base import load_pipeline
from ..pipes.quantities import warm_up
from ..util.heap import settle_owned_process
from ..util.jsonl import without_bom
from ..util.safe_output import output_file
from ..util.fork_server import (PRELOAD_ENV, Source, ensure_running, has_fork_server, local_cases, preloading,
                                 run_source, start_for, start_fork_server)
from ..workers import failed_decisions, first_zone_words

__all__ = ["assess_dask", "cmd_assess_dask"]

#: blocks being scored or waiting to be written, per worker thread
_AHEAD = 4
#: ``auto_blocksize``: blocks per worker thread, and the bounds of a block's size in bytes
BLOCKS_PER_WORKER = 8
MIN_BLOCK, MAX_BLOCK = 64 * 1024, 4 * 1024 * 1024

class GlossaryStamp(NamedTuple):
    """The version and hash of a glossary: all that a decision made without the pipes
    (``fallback_decision``: a failed block's ``worker_failed``) names of it."""

    version: str
    sha256: str

    @classmethod
    def of(cls, glossary) -> "GlossaryStamp":
        return cls(glossary.version, glossary.sha256)


class PipelineBuildError(RuntimeError):
    """No worker of our own cluster could build the run's pipeline (the message says why)."""


# Per worker process: the pipelines built so far (by source), and one lock, since a
# pipeline is not shared between threads of a worker.
_PIPELINES: Dict[Source, object] = {}
_LOCK = threading.Lock()

#: in a fork server and the workers forked from it: the cluster start it built ``_PIPELINES`` for
_preloaded_for: Optional[str] = None


def _pipeline(source: Source):
    nlp = _PIPELINES.get(source)
    if nlp is None:
        path, glossaries = source
        if path is not None:
            nlp = load_pipeline(path)
        else:
            nlp = build_pipeline(glossaries)
        _PIPELINES[source] = nlp
    return nlp


def _lines(block: bytes) -> List[bytes]:
    """A block's lines as a file reads them (each with its newline; the last may lack one)."""
    lines = block.split(b"\n")
    last = lines.pop()
    lines = [line + b"\n" for line in lines]
    if last:
        lines.append(last)
    return lines


def _count(block: bytes) -> int:
    return len(_lines(block))


def _score(block: bytes, start: int, source: Source, batch_size: int, opens_file: bool = False) -> str:
    """The decisions of one block's lines as one text, a JSON line each (runs on a Dask worker).

    One string per block rather than a list of thousands of them: Dask
    serialises a list item by item, on the worker and again on the client.
    opens_file (bool): The block starts a file (of a glob's): a byte order mark it starts with is skipped.
    """
    if opens_file:
        block = without_bom(block)
    with _LOCK:
        nlp = _pipeline(source)
        return "".join(line + "\n" for line in decide_lines(nlp, _lines(block), batch_size, start=start,
                                                            as_json=True, own_pipeline=True))


def _load_frozen(source: Source, start: Optional[str] = None) -> Tuple[Optional[str], Optional[GlossaryStamp]]:
    """Build the pipeline on a worker of our own ``LocalCluster`` and freeze it out of the
    collector's walks (``util.heap``); a user's cluster is left as it is.

    start (Optional[str]): The id of this cluster's start. A worker forked from a fork
        server that built its pipeline for this start has it already; one built for an
        earlier start is dropped (the glossary or pipeline on disk may have changed since).
    RETURNS (tuple): Why the pipeline could not be built (its tasks then fail closed), or
        None; and the version and hash of the glossary it decides with, or None. Not
        raised: the client reports a bad pipeline in one line.
    """
    with _LOCK:
        if _preloaded_for is not None and _preloaded_for != start:
            _PIPELINES.clear()
        try:
            glossary = pipeline_glossary(_pipeline(source))
        except Exception as exc:  # noqa: BLE001
            return f"{type(exc).__name__}: {exc}", None
    settle_owned_process()
    return None, GlossaryStamp.of(glossary)


def preload_from_environment() -> None:
    """In the fork server (``dask_preload``): build the pipeline named by ``PRELOAD_ENV``, the
    Pint registry and the frozen heap once, so every worker forked from here starts with them.

    When the run reads a local file, the recurring words of its first zone's worth of lines
    are learnt here too, outside any zone (``workers.first_zone_words``, as the parent of
    ``--workers`` does before it forks): a worker decides each block in a zone of its own,
    which learns nothing until it ends, so every worker decided its first blocks cold.
    Learning a word changes no token, only how soon the tokenizer's cache has it.

    Never raises (an exception would end the fork server): a pipeline that cannot be
    built is left to the workers, which report it as before.
    """
    global _preloaded_for
    spec = os.environ.get(PRELOAD_ENV)
    if not spec:
        return
    try:
        start, path, glossaries, cases = json.loads(spec)
        nlp = _pipeline((path, glossaries))
        warm_up(nlp)
        if cases is not None:
            with open(cases, "rb") as lines:
                first_zone_words(nlp, islice(lines, ZONE_CASES), "lines")
        settle_owned_process()
        _preloaded_for = start
    except Exception:  # noqa: BLE001 - the workers build it and report what is wrong
        _PIPELINES.clear()


def _client(scheduler: Optional[str], n_workers: int, source: Source, start: str, cases: Optional[str] = None):
    """A client of the scheduler at that address, or of a new ``LocalCluster`` of our own.

    Our cluster's worker processes are forked from a fork server that has
    imported Dask, spaCy and this package once, where the platform has one:
    a spawned worker imports them itself (about a second of CPU each, on the
    same cores the other workers start on). The fork server lives as long as
    this process and sees its environment as it was when it started (by
    ``fork_server.early_start`` before this process imported spaCy, by
    ``start_fork_server`` at the start of the run, or here); when that start
    is this one, it also builds the pipeline of ``source``
    (``preload_from_environment``), once for all the workers rather than once
    in each. The workers run without Dask's statistical profiler, which
    samples the task thread's stack every 10 ms.
    """
    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler), None
    import dask

    settings = {"distributed.worker.profile.enabled": False}
    forkserver = has_fork_server()
    if forkserver:
        settings["distributed.worker.multiprocessing-method"] = "forkserver"
    with preloading(source, start if forkserver else None, cases), dask.config.set(settings):
        if forkserver:
            ensure_running()
        # No dashboard; the scheduler's few HTTP routes (health, metrics) listen on a free local
        # port, where by default they take 8787 and, with a cluster already there, print a warning.
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    return Client(cluster), cluster


def auto_blocksize(total_bytes: int, workers: int) -> int:
    """Bytes per block so that each worker gets about ``BLOCKS_PER_WORKER`` blocks.

    Few large blocks leave a worker idle at the end (three blocks on two
    workers: one worker scores two, the other waits), and every block costs a
    task; the size is kept between ``MIN_BLOCK`` and ``MAX_BLOCK``.
    """
    share = total_bytes // (BLOCKS_PER_WORKER * max(1, workers))
    return max(MIN_BLOCK, min(MAX_BLOCK, share))


def assess_dask(cases: str, out: TextIO, *, scheduler: Optional[str] = None, n_workers: int = 2,
                pipeline: Optional[str] = None, glossaries: Optional[str] = None,
                blocksize: Union[None, str, int] = None, batch_size: int = 256, progress: bool = False) -> int:
    """Decide every line of a JSONL input on a Dask cluster and write the decisions in order.

    cases (str): A path, glob or fsspec URL of JSONL cases.
    out (TextIO): Where the decisions go, one JSON line per input line.
    scheduler (Optional[str]): A scheduler address; None starts a ``LocalCluster``.
    n_workers (int): Worker processes of the ``LocalCluster``.
    pipeline (Optional[str]): A ``spacy.load``-able directory every worker can read;
        None: the bundled pipeline with ``glossaries`` (a directory every worker can read).
    blocksize (str | int | None): Bytes of input per block (task); None: ``auto_blocksize``
        of the input's size and the cluster's worker threads.
    progress (bool): A progress bar on stderr when it is a terminal.
    RETURNS (int): The number of decisions written.
    """
    source = run_source(pipeline, glossaries)
    start = start_for(source)
    first_lines = local_cases(cases)
    if scheduler is None:
        start_fork_server(source, start, first_lines)
    import dask
    from dask.bytes import read_bytes

    # The cluster starts (and its workers build the pipeline) while this process goes on: on a
    # user's cluster it builds its own, to know the glossary and to fail on a bad pipeline before
    # anything runs; our own cluster's workers report both (``_start``), so no third copy is built
    # here on the cores the fork server and the workers start on.
    pool = ThreadPoolExecutor(1, thread_name_prefix="semgap-dask-start")
    starting = pool.submit(_start, scheduler, n_workers, source, start, first_lines)
    pool.shutdown(wait=False)
    glossary = None
    if scheduler is not None:
        try:
            glossary = pipeline_glossary(_pipeline(source))
        except BaseException:
            _close_once_started(starting)
            raise
    client, cluster, built = starting.result()
    try:
        if glossary is None:
            glossary = _built_glossary(built, source)
        if blocksize is None:
            from fsspec.core import get_fs_token_paths
            fs, _, paths = get_fs_token_paths(cases)
            blocksize = auto_blocksize(sum(fs.size(path) for path in paths), sum(client.nthreads().values()))
        _, files = read_bytes(cases, delimiter=b"\n", blocksize=blocksize, sample=False)
        blocks = [block for blocks in files for block in blocks]
        # each file of a glob may start with a BOM; the first file's is line 1's, skipped with it
        opens_file = [j == 0 and f > 0 for f, blocks in enumerate(files) for j in range(len(blocks))]
        counts = client.gather(client.compute([dask.delayed(_count)(block) for block in blocks]))
        starts = [1]
        for count in counts:
            starts.append(starts[-1] + count)
        ahead = _AHEAD * max(1, sum(client.nthreads().values()))
        written = 0
        with progress_bar(progress, starts[-1] - 1) as bar:
            for count, text in zip(counts, _scored(client, blocks, starts, source, batch_size, ahead, glossary,
                                                   opens_file)):
                if text.count("\n") != count:  # never a decision too many or missing
                    raise RuntimeError(f"a block of {count} lines came back with {text.count(chr(10))} decisions")
                out.write(text)
                written += count
                bar.update(count)
        return written
    finally:
        _close(client, cluster)


def _start(scheduler: Optional[str], n_workers: int, source: Source, start: str, cases: Optional[str] = None):
    """A client of the scheduler, or of a new ``LocalCluster`` whose workers have built the pipeline.

    start (str): The id of this cluster start (``start_fork_server``).
    cases (Optional[str]): The run's input when it is a local file (``fork_server.local_cases``)."""
    client, cluster = _client(scheduler, n_workers, source, start, cases)
    built: list = []
    if cluster is not None:
        try:
            built = list(client.run(_load_frozen, source, start).values())
        except Exception:  # noqa: BLE001 - a worker that cannot build the pipeline fails its tasks closed
            pass
    return client, cluster, built


def _built_glossary(built: list, source: Source) -> GlossaryStamp:
    """The glossary our own cluster's workers decide with, from what each said when it built
    the pipeline (``_load_frozen``): a worker that could not fails its tasks closed, and when
    none could, the run stops with why. Workers that said nothing (the call failed): the
    pipeline is built here, and raises on a bad one."""
    stamps = [stamp for _, stamp in built if stamp is not None]
    if stamps:
        return GlossaryStamp(*stamps[0])  # a tuple may come back from the workers as a list
    if built:
        raise PipelineBuildError(f"the pipeline could not be built: {built[0][0]}")
    return GlossaryStamp.of(pipeline_glossary(_pipeline(source)))


def _close(client, cluster) -> None:
    client.close()
    if cluster is not None:
        cluster.close()


def _close_once_started(starting: Future) -> None:
    """Close the client (and cluster) being started, once it is, when the run is given up before."""
    try:
        client, cluster, _ = starting.result()
    except Exception:  # noqa: BLE001 - nothing started: nothing to close
        return
    _close(client, cluster)


def _scored(client, blocks: list, starts: List[int], source: Source, batch_size: int, ahead: int,
            glossary, opens_file: List[bool]) -> Iterator[str]:
    """Each block's JSON decisions (one text, a line each), in order, with at most ``ahead`` blocks in flight."""
    import dask

    futures: list = []
    for i in range(len(blocks) + ahead):
        if i < len(blocks):
            futures.append(client.compute(dask.delayed(_score)(blocks[i], starts[i], source, batch_size,
                                                                opens_file[i])))
        if i >= ahead:
            k = i - ahead
            try:
                yield futures[k].result()
            except Exception as exc:  # fail closed: every line of the block escalates
                block = dask.compute(blocks[k], scheduler="sync")[0]
                message = f"the Dask task failed: {type(exc).__name__}: {exc}"[:500]
                failed = failed_decisions(_lines(block), "json_lines", starts[k], message, glossary)
                yield "".join(line + "\n" for line in failed)
            futures[k] = None


def cmd_assess_dask(args) -> int:
    """``assess --engine dask``: exit 0 when every line got its decision, 2 on a bad command."""
    from importlib.util import find_spec

    if find_spec("dask") is None or find_spec("distributed") is None:  # imported once the fork server starts
        print('semgap: --engine dask needs the dask extra: pip install "semgap_spacy[dask]"', file=sys.stderr)
        return 2
    if args.cases == "-":
        print("semgap: --engine dask reads a path or URL, not stdin", file=sys.stderr)
        return 2
    try:
        from fsspec.core import get_fs_token_paths
        fs, _, paths = get_fs_token_paths(args.cases)
        if not paths or not all(fs.exists(path) for path in paths):
            raise FileNotFoundError("no such file")
    except (OSError, ValueError) as exc:
        print(f"semgap: cannot open {args.cases}: {exc}", file=sys.stderr)
        return 2
    if args.blocksize is not None:
        from dask.utils import parse_bytes
        try:
            blocksize = parse_bytes(args.blocksize)
        except (ValueError, TypeError) as exc:
            blocksize = exc
        if not isinstance(blocksize, int) or blocksize <= 0:
            print(f"semgap: --blocksize must be a positive size such as 1MiB, not {args.blocksize!r}",
                  file=sys.stderr)
            return 2
        args.blocksize = blocksize
    n_workers = args.workers or os.cpu_count() or 1
    progress = args.progress is not False and sys.stderr.isatty()
    with output_file(args.out) as out:
        count = assess_dask(args.cases, out, scheduler=args.scheduler, n_workers=n_workers,
                            pipeline=args.pipeline, glossaries=args.glossaries, blocksize=args.blocksize,
                            batch_size=args.batch_size, progress=progress)
    print(f"semgap: {count} decision{'' if count == 1 else 's'} written to {args.out}", file=sys.stderr)
    return 0

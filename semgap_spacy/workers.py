"""Decide cases in worker processes on one machine.

``nlp.pipe(n_process=N)`` sends every Doc back to the parent, which then
spends its time unpickling them, so it runs slower than one process. Here each
worker gets the pipeline once, decides whole chunks of cases (or JSONL lines,
parsed in the worker) and sends back only the decisions. Where processes
start by forking (Linux), a worker starts from the caller's pipeline as it is
in memory, so starting one costs a fork, not a load (the Pint registry that the
first quantity needs is built before the fork, once); elsewhere (spawn), and
when the caller is inside a memory zone, which a forked copy could never
close, it loads the pipeline from ``nlp.to_disk``. The parent hands out chunks,
puts the decisions back in input order and never lets a case go missing:

- a worker that dies (a crash, the OOM killer) or fails on a chunk turns that
  chunk's cases into ``escalate`` decisions with the reason ``worker_failed``;
  its other chunks go to a new worker;
- Ctrl-C, an exception in the caller, or a caller that stops reading (the
  generator is closed or collected) ends every worker: workers ignore SIGINT
  and are stopped by the parent, and a worker whose parent is gone stops
  by itself.
"""
import json
import multiprocessing
import os
import queue
import signal
import tempfile
import threading
import time
from collections import deque
from contextlib import ExitStack, contextmanager
from itertools import chain
from multiprocessing.connection import wait
from typing import Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc

from .core.cases import check_case
from .pipes.base import load_pipeline
from .pipes.quantities import warm_up
from . import api
from .api import chunked, decide_cases, decide_lines, fallback_decision, line_case, memory_zone, pipeline_glossary
from .util.heap import settle_owned_process
from .util.signals import handled
from .util.recycle import rebuild_string_table
from .util.zone_words import zone_words

__all__ = ["decide_in_workers", "failed_decisions", "first_zone_words", "WorkerStartError"]

#: chunks sent to a worker before it has answered the first (keeps it busy meanwhile)
PREFETCH = 3
#: seconds a worker gets to start (load the pipeline) before the run is given up
_START_TIMEOUT = 300.0


class WorkerStartError(RuntimeError):
    """A worker could not build the pipeline; nothing was decided."""


def _worker(tasks, conn, source: Union[str, Language], batch_size: int) -> None:
    """A worker's life: load the pipeline, then decide chunks until told to stop.

    tasks: The pipe chunks come in on. conn: The pipe decisions go out on.
    source: The pipeline itself (inherited by a fork), or a path to load it from (``load_pipeline``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    try:
        nlp = source if isinstance(source, Language) else load_pipeline(source)
    except BaseException as exc:  # reported to the parent, which refuses the run
        conn.send(("start_failed", f"{type(exc).__name__}: {exc}"[:1000]))
        return
    settle_owned_process()
    _exit_with_parent()
    conn.send(("ready", os.getpid()))
    # One memory zone spans chunks until ZONE_CASES cases were decided in it, as in one process.
    with ExitStack() as zone:
        in_zone = 0
        while True:
            try:
                message = tasks.recv()
            except (EOFError, OSError):
                return
            if message is None:
                return
            if not in_zone:
                zone.enter_context(memory_zone(nlp))
            try:
                _decide_chunk(nlp, conn, batch_size, *message)
            except (EOFError, OSError):
                return
            in_zone += len(message[3])
            if in_zone >= api.ZONE_CASES:
                zone.close()
                rebuild_string_table(nlp)  # this process's own pipeline (util.recycle)
                zone_words(nlp).keep(nlp)  # the zone's recurring words, learnt outside it (util.zone_words)
                in_zone = 0


def _exit_with_parent() -> None:
    """End this worker as soon as its parent is gone, even mid-chunk or blocked on a
    full pipe: nobody is left to read its decisions."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="semgap-parent-watch", daemon=True).start()


def _decide_chunk(nlp: Language, conn, batch_size: int, chunk_id: int, kind: str, first: int, items: list,
                  one_by_one: bool) -> None:
    """Decide one chunk and send the decisions: all at once, or each as soon as it is
    made when the chunk already killed a worker (so the case that does it is found)."""
    if kind == "cases":
        def decide(part, at):
            return decide_cases(nlp, part, batch_size)
    else:
        def decide(part, at):
            return decide_lines(nlp, part, batch_size, start=at, as_json=kind == "json_lines")
    try:
        if one_by_one:
            for offset, item in enumerate(items):
                conn.send(("part", chunk_id, list(decide([item], first + offset))))
            reply = ("done", chunk_id, [])
        else:
            reply = ("done", chunk_id, list(decide(items, first)))
    except (EOFError, OSError):
        raise
    except Exception as exc:  # the parent turns the rest of the chunk into worker_failed decisions
        reply = ("chunk_failed", chunk_id, f"{type(exc).__name__}: {exc}"[:500])
    conn.send(reply)


class _Chunk:
    """Cases sent to a worker together, and the decisions it has sent back so far."""

    __slots__ = ("first", "items", "decided", "one_by_one")

    def __init__(self, first: int, items: list):
        self.first, self.items, self.decided, self.one_by_one = first, items, [], False

    def message(self, chunk_id: int, kind: str) -> tuple:
        n = len(self.decided)
        return chunk_id, kind, self.first + n, self.items[n:], self.one_by_one


@contextmanager
def _interrupt_after(reraise: bool = True) -> Iterator[None]:
    """Ctrl-C while a worker process is forked is raised once the fork is done: one that lands
    in the handlers ``os.fork`` runs is printed and lost (the run then waits for input as if
    nothing happened), and one in the child before it ignores Ctrl-C kills it mid-start.

    reraise (bool): False: Ctrl-C inside is dropped (the workers are being stopped already).
    """
    caught: List[int] = []
    with handled([signal.SIGINT], lambda signum, frame: caught.append(signum)):
        yield
    if caught and reraise:
        raise KeyboardInterrupt


class _Worker:
    """One worker process, the pipes to and from it, and the chunks it holds (oldest first).

    Chunks go out through a thread of their own: a worker that is sending a
    large reply while the parent sends it a large chunk would otherwise leave
    both blocked on full pipes.
    """

    def __init__(self, context, source: Union[str, Language], batch_size: int):
        tasks, self._tasks = context.Pipe(duplex=False)
        self.conn, replies = context.Pipe(duplex=False)
        self.process = context.Process(target=_worker, args=(tasks, replies, source, batch_size), daemon=True,
                                       name="semgap-worker")
        with _interrupt_after():
            self.process.start()
        tasks.close()
        replies.close()
        self.held: Deque[int] = deque()
        self._outbox: "queue.SimpleQueue" = queue.SimpleQueue()
        threading.Thread(target=self._send_all, name="semgap-worker-feed", daemon=True).start()

    def _send_all(self) -> None:
        while True:
            message = self._outbox.get()
            try:
                self._tasks.send(message)
            except (EOFError, OSError, ValueError, TypeError):  # TypeError: closed by ``end`` meanwhile
                return  # the worker is gone; the parent sees it by its sentinel
            if message is None:
                return

    def send(self, message) -> None:
        """Queue a chunk (or None: stop) for the worker; never blocks."""
        self._outbox.put(message)

    def wait_ready(self, timeout: float) -> None:
        if not self.conn.poll(timeout):
            raise WorkerStartError(f"a worker did not start within {timeout:.0f} s")
        try:
            message = self.conn.recv()
        except (EOFError, OSError):
            raise WorkerStartError(f"a worker died while loading the pipeline "
                                   f"(exit code {self.process.exitcode})") from None
        if message[0] != "ready":
            raise WorkerStartError(f"a worker could not load the pipeline: {message[1]}")

    def stop(self) -> None:
        self.send(None)

    def end(self, grace: float) -> None:
        self.process.join(grace)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1.0)
        self.conn.close()
        self._tasks.close()


def decide_in_workers(nlp: Language, items: Iterable[Any], kind: str, *, n_process: int,
                      batch_size: int = 256, chunk_size: Optional[int] = None, start: int = 1,
                      context=None, ready: Optional[Callable[[], bool]] = None) -> Iterator[dict]:
    """Decisions of cases (``kind="cases"``) or JSONL lines (``kind="lines"``, or
    ``"json_lines"`` for each decision as JSON text) from worker processes.

    nlp (Language): The pipeline; forked workers start from it, others load it from ``nlp.to_disk``.
    items (Iterable): Case dicts, or raw lines.
    n_process (int): Worker processes; -1 or 0 for one per CPU.
    batch_size (int): Docs per ``nlp.pipe`` batch in a worker.
    chunk_size (Optional[int]): Cases sent to a worker at once; defaults to one batch. Small chunks
        keep the end of a run short: the last chunk one worker decides is all the others wait for.
    start (int): Number of the first line (``kind="lines"``).
    context: A ``multiprocessing`` context; the platform's default when None.
    ready (Optional[Callable[[], bool]]): Whether the next item can be read without waiting
        (``api.decide_cases``): when it says no, the items read so far go to the workers, and
        their decisions are yielded as they come, before the next item is waited for.
    YIELDS (dict): One decision per item, in input order.
    RAISES (WorkerStartError): A worker could not load the pipeline (before any decision).
    """
    if n_process < 1:
        n_process = os.cpu_count() or 1
    chunk_size = chunk_size or batch_size
    context = context or multiprocessing.get_context()
    glossary = pipeline_glossary(nlp)
    with ExitStack() as stack:
        source: Union[str, Language] = nlp
        if context.get_start_method() != "fork" or getattr(nlp.vocab, "in_memory_zone", False):
            source = stack.enter_context(tempfile.TemporaryDirectory(prefix="semgap-workers-"))
            nlp.to_disk(source)
        else:
            warm_up(nlp)  # once here, before the fork, not once in every worker
            items = first_zone_words(nlp, items, kind, ready, start)  # likewise: no worker starts cold
        workers: List[_Worker] = []
        try:
            workers = [_Worker(context, source, batch_size) for _ in range(n_process)]
            for worker in workers:
                worker.wait_ready(_START_TIMEOUT)
            yield from _schedule(nlp, items, kind, start, chunk_size, workers,
                                 lambda: _Worker(context, source, batch_size), glossary, ready)
        finally:
            # a second Ctrl-C while they stop (4 s at most) would leave them running: they are stopping
            with _interrupt_after(reraise=False):
                for worker in workers:
                    worker.stop()
                deadline = time.monotonic() + 2.0
                for worker in workers:
                    worker.end(max(0.0, deadline - time.monotonic()))


def first_zone_words(nlp: Language, items: Iterable[Any], kind: str,
                      ready: Optional[Callable[[], bool]] = None, start: int = 1) -> Iterator[Any]:
    """The items, once the recurring words of the first zone's worth of them are learnt here,
    outside any zone (``util.zone_words``), so that the workers forked next find them in the
    tokenizer's cache: a worker's zone spans many chunks, so it keeps its words only when the
    zone ends, and every worker would decide its first zone cold. A line that is not a case
    is passed on as it is, to be refused where it is decided. A live stream (``ready``) gives
    what it has: the first cases are not held back waiting for a zone's worth."""
    zones = chunked(items, api.ZONE_CASES, ready)
    head = next(zones, [])
    cases = head if kind == "cases" else [line_case(number, line)[0] for number, line in enumerate(head, start)]
    zone_words(nlp).keep_recurring(nlp, api.case_texts(cases), counted_again=True)
    return chain(head, chain.from_iterable(zones))  # what the source raises comes after what it gave


def _schedule(nlp, items, kind, start, chunk_size, workers, new_worker, glossary, input_ready=None
              ) -> Iterator[dict]:
    """Hand out chunks, collect decisions, replace dead workers, yield in order. With
    ``input_ready``, no item is read while chunks are out and the next item is not there yet.
    What reading the items raises is raised once every case read before it is decided."""
    chunks: Dict[int, _Chunk] = {}  # chunk id -> chunk, until every case of it is decided
    waiting: Deque[int] = deque()  # chunks to (re)send
    done: Dict[int, List[dict]] = {}
    source = iter(chunked(items, chunk_size, input_ready))
    next_id = next_out = 0
    line = start
    exhausted = False
    failure: Optional[BaseException] = None  # what reading the source raised, kept until the rest is out
    limit = (PREFETCH + 2) * len(workers)  # chunks sent or decided but not yet handed out
    while True:
        while not exhausted and next_id - next_out < limit:
            if input_ready is not None and next_id > next_out and not input_ready():
                break  # decisions are on their way or ready to hand out: not blocked on input now
            try:
                items_ = next(source, None)
            except Exception as err:
                failure, items_ = err, None
            if items_ is None:
                exhausted = True
                break
            if kind == "cases" and any(isinstance(case, Doc) for case in items_):
                done[next_id] = list(decide_cases(nlp, items_))  # a caller's Docs stay here
            else:
                chunks[next_id] = _Chunk(line, items_)
                waiting.append(next_id)
            line += len(items_)
            next_id += 1
        for i, worker in enumerate(workers):
            if not worker.held and not worker.process.is_alive():
                # it died idle (the OOM killer): it held no case, so none is failed for it
                worker.end(0.0)
                workers[i] = worker = new_worker()
                worker.wait_ready(_START_TIMEOUT)
            while waiting and len(worker.held) < PREFETCH:
                chunk_id = waiting.popleft()
                worker.send(chunks[chunk_id].message(chunk_id, kind))
                worker.held.append(chunk_id)
        while next_out in done:
            yield from done.pop(next_out)
            next_out += 1
        if exhausted and next_out == next_id:
            if failure is not None:
                raise failure
            return
        busy = [w for w in workers if w.held]
        if not busy:
            continue
        ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=5.0))
        for worker in busy:
            if worker.conn in ready or worker.process.sentinel in ready:
                _collect(worker, chunks, done, kind, glossary)
                if not worker.process.is_alive():
                    workers.remove(worker)
                    _replace(worker, workers, new_worker, chunks, waiting, done, kind, glossary)


def _collect(worker: "_Worker", chunks: Dict[int, _Chunk], done: Dict[int, List[dict]], kind: str,
             glossary) -> None:
    """Read every reply a worker has sent so far."""
    try:
        while worker.conn.poll(0):
            status, chunk_id, payload = worker.conn.recv()
            chunk = chunks[chunk_id]
            if status == "part":
                chunk.decided.extend(payload)
                continue
            worker.held.remove(chunk_id)
            del chunks[chunk_id]
            if status == "done":
                done[chunk_id] = chunk.decided + payload
            else:
                rest = chunk.items[len(chunk.decided):]
                done[chunk_id] = chunk.decided + failed_decisions(rest, kind, chunk.first + len(chunk.decided),
                                                         f"the worker failed: {payload}", glossary)
    except (EOFError, OSError):
        pass


def _replace(dead: "_Worker", workers: List["_Worker"], new_worker, chunks: Dict[int, _Chunk],
             waiting: Deque[int], done: Dict[int, List[dict]], kind: str, glossary) -> None:
    """A worker died while it held chunks. The one it was deciding is sent again, one case
    at a time; when a chunk kills a worker that way too, the case it died on is
    decided ``worker_failed`` and the rest goes on. A new worker takes the dead one's place."""
    dead.stop()
    dead.end(1.0)
    code = dead.process.exitcode
    culprit = dead.held[0]
    chunk = chunks[culprit]
    if chunk.one_by_one:
        at = len(chunk.decided)
        chunk.decided.extend(failed_decisions(chunk.items[at:at + 1], kind, chunk.first + at,
                                     f"the worker process died (exit code {code}) while deciding this case",
                                     glossary))
        if len(chunk.decided) == len(chunk.items):
            del chunks[culprit]
            done[culprit] = chunk.decided
            dead.held.popleft()
    chunk.one_by_one = True
    waiting.extendleft(reversed(dead.held))
    dead.held.clear()
    worker = new_worker()
    worker.wait_ready(_START_TIMEOUT)
    workers.append(worker)


def failed_decisions(chunk: list, kind: str, first: int, message: str, glossary) -> List[dict]:
    """``worker_failed`` escalations for every case (or line) of a chunk, with its id where one can be read.

    chunk (list): Case dicts, or raw lines (``kind`` "lines" or "json_lines"; a refused line keeps its number).
    kind (str): "cases", "lines", or "json_lines" (decisions as JSON text).
    first (int): The number of the chunk's first line.
    """
    out = []
    for number, item in enumerate(chunk, first):
        line = None
        if kind != "cases":
            item, problem = line_case(number, item)
            line = number if problem is not None else None
        case_id = check_case(0, item.get("id"), None, None).case_id if isinstance(item, dict) else None
        decision = fallback_decision(case_id, "worker_failed", message, line=line, nlp_glossary=glossary)
        out.append(json.dumps(decision, ensure_ascii=False) if kind == "json_lines" else decision)
    return out

"""Signal handlers set for a block and put back after it.

Python lets only the main thread set a handler; elsewhere the block runs
with the handlers as they are.
"""
import signal
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator


@contextmanager
def handled(signums: Iterable[int], handler: Callable) -> Iterator[None]:
    """While the block runs, ``handler(signum, frame)`` handles each of ``signums``; the handlers
    before it are put back after (a handler not set from Python goes back to the default)."""
    try:
        previous = {signum: signal.signal(signum, handler) for signum in signums}
    except ValueError:  # not the main thread: the signals are not ours to take
        yield
        return
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before if before is not None else signal.SIG_DFL)

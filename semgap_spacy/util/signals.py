"""Signal handlers set for a block and put back after it, and the Ctrl-C that
``python -m semgap_spacy`` holds while it imports (``hold_interrupt``).

Python lets only the main thread set a handler; elsewhere the block runs
with the handlers as they are.
"""
import signal
import sys
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, List


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


#: the signal of the Ctrl-C that came while ``hold_interrupt`` held it (none: empty)
_held: List[int] = []


def _hold(signum, frame) -> None:
    if _held:  # pressed again: whoever held it is taking too long, or never takes it
        sys.exit(128 + signum)
    _held.append(signum)


def hold_interrupt() -> None:
    """Until ``restore_interrupt``, Ctrl-C is held: set while the CLI's imports run, before its
    own handling can catch ``KeyboardInterrupt``. Held, not raised: an exception raised inside
    an import that a C extension runs (numpy's core imports ``datetime``) comes out as an
    ``ImportError`` with a traceback, whatever the exception was. A second Ctrl-C exits at once."""
    try:
        signal.signal(signal.SIGINT, _hold)
    except ValueError:  # not the main thread
        pass


def restore_interrupt() -> None:
    """Ctrl-C raises ``KeyboardInterrupt`` again, if ``hold_interrupt`` changed it; one that came
    while it was held ends the process now, with 130 and no traceback (nothing was done yet)."""
    try:
        if signal.getsignal(signal.SIGINT) is _hold:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:
        pass
    if _held:
        sys.exit(128 + _held[0])

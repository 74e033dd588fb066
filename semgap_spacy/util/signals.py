"""Signal handlers set for a block and put back after it.

Python lets only the main thread set a handler; elsewhere the block runs
with the handlers as they are.
"""
import signal
import sys
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


def _exit_130(signum, frame) -> None:
    sys.exit(128 + signum)


def exit_on_interrupt() -> None:
    """Until ``restore_interrupt``, Ctrl-C exits with 130 and no traceback: set while the CLI's
    imports run, before its own handling can catch ``KeyboardInterrupt``."""
    try:
        signal.signal(signal.SIGINT, _exit_130)
    except ValueError:  # not the main thread
        pass


def restore_interrupt() -> None:
    """Ctrl-C raises ``KeyboardInterrupt`` again, if ``exit_on_interrupt`` changed it."""
    try:
        if signal.getsignal(signal.SIGINT) is _exit_130:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:
        pass

"""Lines of a binary stream that can say whether the next one is already there.

``assess --cases -`` reads cases from a pipe. A file or a fast producer
fills the pipe faster than cases are decided, and deciding thousands of
cases in one memory zone is what keeps the run fast. A live producer (an
agent that writes one case and waits for its decision before it acts)
writes nothing more until it gets an answer, so a reader that waits for a
zone's worth of lines waits forever. ``LiveLines.ready`` tells the two
apart without blocking: the cases that have arrived are decided, and their
decisions written, before the reader waits for more.
"""
import io
import os
import select
import time
from typing import BinaryIO, Iterator, Optional

_BLOCK = 1 << 16


class LiveLines:
    """The lines of ``stream`` (bytes, each with its newline; the last may lack one).

    stream (BinaryIO): A binary stream: ``sys.stdin.buffer``, an open file, a socket file.
    """

    def __init__(self, stream: BinaryIO):
        self._stream = stream
        # ``read1`` returns what is there (one system call at most); plain ``read`` may wait for more
        self._read = getattr(stream, "read1", stream.read)
        self._fd: Optional[int] = None
        try:
            fd = stream.fileno()
            select.select([fd], [], [], 0)
            self._fd = fd
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            pass  # no descriptor to ask (BytesIO, a Windows pipe): every line counts as ready
        self._buffer = bytearray()
        self._at = 0    # where the next line starts
        self._scan = 0  # where the search for its newline goes on (what lies before holds none)
        self._ended = False

    def __iter__(self) -> Iterator[bytes]:
        while True:
            end = self._buffer.find(b"\n", self._scan)
            if end >= 0:
                line = bytes(self._buffer[self._at:end + 1])
                self._at = self._scan = end + 1
                yield line
                continue
            self._scan = len(self._buffer)
            if self._ended:
                if self._at < len(self._buffer):
                    line, self._at = bytes(self._buffer[self._at:]), len(self._buffer)
                    yield line
                return
            self._fill()

    def ready(self) -> bool:
        """Whether the next line (or the end of the stream) can be had without waiting.

        A whole line already read counts. The start of one does not by itself:
        a producer that writes in blocks which do not end at line ends would
        otherwise hold back every line behind the one it has begun. Otherwise the
        stream's descriptor is asked whether it has bytes, or its end, waiting.
        """
        if self._ended or self._buffer.find(b"\n", self._scan) >= 0 or self._fd is None:
            return True
        try:
            return bool(select.select([self._fd], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def _fill(self) -> None:
        """Read what the stream has (waiting only when it has nothing yet) after the unread rest."""
        block = self._read(_BLOCK)
        if not block and self._non_blocking():
            # Set non-blocking by whoever shares it, a descriptor reads as empty both when it has
            # nothing yet and at its end: once it is readable, an empty read is the end.
            self._wait()
            block = self._read(_BLOCK)
        if not block:
            self._ended = True
            return
        if self._at:
            del self._buffer[:self._at]
            self._scan -= self._at
            self._at = 0
        self._buffer += block

    def _non_blocking(self) -> bool:
        try:
            return self._fd is not None and not os.get_blocking(self._fd)
        except OSError:
            return False

    def _wait(self) -> None:
        """Wait until the descriptor has bytes or its end (a short sleep where it cannot be asked)."""
        try:
            select.select([self._fd], [], [])
        except (OSError, ValueError, TypeError):
            time.sleep(0.01)

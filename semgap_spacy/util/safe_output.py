"""Output files that are replaced whole or not at all.

Opening ``OUT`` with mode ``"w"`` truncates it at once, so a run that then
fails (a bad glossary, a full disk, a bug) destroys yesterday's decisions and
leaves half of today's. Every CLI verb that writes a file uses
:func:`output_file` instead: it writes a temporary file in OUT's own folder
(same file system, so the rename is atomic) and renames it over OUT only
when the block finished without an exception. Readers of OUT see the old
file or the new one, never a mix.

A symbolic link is followed (its target is replaced, the link stays), and an
OUT that is no regular file (a FIFO, a terminal, ``/dev/null``) is written
to as it goes: a rename would put a plain file in place of the device or pipe.
"""
import codecs
import io
import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence, TextIO, Union

STDOUT = "-"
_MAX_MESSAGE = 400


class OutputClash(ValueError):
    """OUT would replace one of the command's own inputs, or a file of a governed folder."""


def refuse_clash(out: Union[str, Path, None], inputs: Sequence[Union[str, Path, None]] = (),
                 folders: Sequence[Union[str, Path, None]] = ()) -> None:
    """Refuse an OUT that is one of the command's inputs or lies inside one of ``folders``.

    The rename that makes OUT whole would replace the input just read with what
    was made from it: a review queue with its export, the cases with their
    decisions, a glossary file with a changelog. Checked before any work.

    out: The output path (None or "-": stdout, nothing to check).
    inputs: The files the command reads ("-" and None are skipped).
    folders: Folders OUT must not be written into (glossary directories).
    RAISES (OutputClash): Naming OUT and what it would replace.
    """
    if out is None or str(out) == STDOUT:
        return
    if os.path.isdir(out):
        raise OutputClash(f"{str(out)!r} is a folder: give a file to write")
    exists = os.path.exists(out)
    for given in inputs:
        if given is None or str(given) == STDOUT or not exists or not os.path.exists(given):
            continue
        if os.path.samefile(out, given):
            raise OutputClash(f"{str(out)!r} is also an input of this command ({str(given)!r}): writing it "
                              f"would replace what it reads; give another file")
    real = os.path.realpath(out)
    for folder in folders:
        if folder is None or not os.path.isdir(folder):
            continue
        if os.path.commonpath([real, os.path.realpath(folder)]) == os.path.realpath(folder):
            raise OutputClash(f"{str(out)!r} is inside {str(folder)!r}, a folder this command reads; "
                              f"give a file elsewhere")


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def output_file(path: Union[str, Path], encoding: str = "utf-8") -> Iterator[TextIO]:
    """A text stream whose content becomes ``path`` only if the block succeeds.

    path (str | Path): The output file; "-" means stdout (written as it goes).
    encoding (str): The text encoding.
    YIELDS (TextIO): The stream to write to.
    RAISES (OSError): When the folder cannot take a temporary file; OUT is untouched.
    """
    if str(path) == STDOUT:
        yield from _stdout(encoding)
        return
    try:
        # An existing OUT keeps its permissions; a new one gets the usual ones.
        found = os.stat(path).st_mode  # through any links
    except OSError:
        found = None
    if found is not None and not stat.S_ISREG(found) and not stat.S_ISDIR(found):
        # opened by the name given: "/dev/stdout" is a link to "/proc/self/fd/1", which names
        # a pipe or terminal by a link no path resolves
        with open(path, "w", encoding=encoding, newline="\n") as fh:
            yield fh
        return
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    mode = found & 0o7777 if found is not None else _new_file_mode()
    if not target.parent.is_dir():
        raise FileNotFoundError(f"no folder {str(target.parent)!r} for {str(path)!r}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent or "."))
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="\n") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _stdout(encoding: str) -> Iterator[TextIO]:
    """stdout in ``encoding`` whatever the locale says (decisions are UTF-8 JSON lines: an ASCII
    or Latin-1 locale would fail on the first "ü" or write other bytes than a file gets)."""
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    if buffer is None or codecs.lookup(stream.encoding or "ascii").name == codecs.lookup(encoding).name:
        yield stream
        return
    stream.flush()
    wrapped = io.TextIOWrapper(buffer, encoding=encoding, newline="\n")
    try:
        yield wrapped
    finally:
        wrapped.flush()
        wrapped.detach()  # stdout's buffer stays open for the process


def one_line(exc: BaseException) -> str:
    """An error's message on one line (pydantic and YAML errors span many)."""
    text = " | ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "…"

"""Plumbing shared by the sub-command CLIs (``glossary``, ``queue``).

Every sub-command returns an exit code and reports a refused action as one
``error:`` line on stderr; a person running it never sees a traceback.
"""
import argparse
import errno
import json
import os
import stat
import sys
from typing import Callable, Optional, Sequence, Tuple, Type

from ..util.signals import restore_interrupt

Command = Callable[[argparse.Namespace], int]


class SubCommandParser(argparse.ArgumentParser):
    """The parser of a sub-command (``queue enqueue``, ``drift``): it refuses an option it
    does not know itself, with its own usage.

    argparse hands a sub-command's leftovers up to the top-level parser, whose usage
    lists the commands, not the options of the one the person was typing. Given as
    ``add_subparsers(parser_class=SubCommandParser)``; the sub-commands' own sub-parsers
    are of the same class.
    """

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def _escape_char(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: object) -> str:
    """Text that is safe to print on a terminal: characters that do not print
    (controls, escapes, zero-width and bidi marks, line separators, lone
    surrogates) become ``\\xNN``/``\\uNNNN`` escapes, so a value can neither
    forge a line nor hide or recolour what follows it."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape_char(ch) for ch in text)


def field(text: object) -> str:
    """One value (a name, a case id) for a table cell: as ``printable``, with
    backslashes doubled too, so an escape shown always means an escaped
    character and never a backslash the value held."""
    text = str(text)
    if text.isprintable() and "\\" not in text:
        return text
    return "".join("\\\\" if ch == "\\" else ch if ch.isprintable() else _escape_char(ch) for ch in text)


def json_line(obj: object, **kwargs) -> str:
    """JSON for a terminal: readable non-ASCII kept, characters that do not
    print written as JSON ``\\u`` escapes (the same value to any JSON reader)."""
    text = json.dumps(obj, ensure_ascii=False, **kwargs)
    if text.isprintable() or "\n" in text and text.replace("\n", "").isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == "\n":
            out.append(ch)
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            high, low = divmod(ord(ch) - 0x10000, 0x400)
            out.append(f"\\u{0xd800 + high:04x}\\u{0xdc00 + low:04x}")
    return "".join(out)


#: the largest whole number SQLite stores (a queue entry number above it is none)
MAX_INT = 2 ** 63 - 1


def positive_int(text: str) -> int:
    """An argparse type: a whole number from 1 to ``MAX_INT``. Anything else is a usage error
    (exit 2, with the command's usage), said before any work is done."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    if value > MAX_INT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_INT}, not {text!r}")
    return value


def err(message: str) -> None:
    print(f"error: {printable(message)}", file=sys.stderr)


def guard(func: Command, expected: Tuple[Type[BaseException], ...],
          describe: Optional[Callable[[BaseException, argparse.Namespace], Optional[str]]] = None,
          inputs: Sequence[str] = ()) -> Command:
    """Wrap a command so errors become a message and exit code 1.

    func (Command): The command.
    expected (Tuple[type, ...]): Errors whose own message is the whole story.
    describe (Callable): Optional wording for other errors; None means "internal error".
    inputs (Sequence[str]): Names of the options that give input files. Each one given is
        checked before the command runs (``check_readable``), so a mistyped path is
        "cannot read PATH: no such file" before any work, never Python's "[Errno 2] ..."
        from deep inside it.
    RETURNS (Command): The wrapped command.
    """
    def run(args: argparse.Namespace) -> int:
        paths = [path for path in (getattr(args, name, None) for name in inputs) if path and path != "-"]
        try:
            for path in paths:
                check_readable(path)
            return func(args)
        except BrokenPipeError:  # the reader went away ("| head"): not an error to report
            raise
        except Exception as exc:  # a reviewer or approver must never see a traceback
            err(_message(exc, args, paths, expected, describe))
            return 1

    run.__doc__ = func.__doc__
    return run


def _message(exc: Exception, args: argparse.Namespace, paths: Sequence[str],
             expected: Tuple[Type[BaseException], ...],
             describe: Optional[Callable[[BaseException, argparse.Namespace], Optional[str]]]) -> str:
    """What ``guard`` prints for an error: an input file by its path, an expected error by its
    own message, anything else as ``describe`` words it or as an internal error."""
    if isinstance(exc, OSError) and exc.filename in paths:
        return cannot_read(exc.filename, exc)
    if isinstance(exc, expected):
        return str(exc)
    message = describe(exc, args) if describe else None
    return message or f"internal error ({type(exc).__name__}): {exc}"


_WHY = {errno.ENOENT: "no such file", errno.EISDIR: "it is a directory, not a file",
        errno.EACCES: "permission denied", errno.EPERM: "permission denied"}


def check_readable(path: str) -> None:
    """Refuse an input path that is missing, a directory or a file that cannot be opened.

    A pipe or device (``<(cmd)``, a FIFO) is left to the command: opening it here and closing
    it again could block on, or end, the writer at its other side.
    RAISES (OSError): As ``open`` does, with the path as its ``filename``.
    """
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if stat.S_ISREG(mode):
        with open(path, "rb"):
            pass


def cannot_read(path: object, exc: OSError) -> str:
    """The one-line message for an input file that cannot be opened: the path as given and
    the reason in words ("no such file"), not Python's errno and repr."""
    why = _WHY.get(exc.errno) or (exc.strerror or str(exc)).lower()
    return f"cannot read {path}: {why}"


def reader_gone() -> int:
    """The exit of a command whose output pipe was closed by its reader (``| head``).

    As the shell's own tools do, it ends quietly with 128 + SIGPIPE: the
    reader has what it wanted, and Python's flush of stdout at exit would
    otherwise report the closed pipe once more.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


def standalone_main(register: Callable, argv: Optional[Sequence[str]] = None) -> int:
    """Run one sub-command group (its ``register``) as a CLI of its own."""
    restore_interrupt()  # ``util.cli_start``
    parser = argparse.ArgumentParser(prog="semgap_spacy")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=SubCommandParser)
    subparsers.required = True
    register(subparsers)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has already printed the usage error
        return int(exc.code or 0)
    try:
        return args.func(args)
    except BrokenPipeError:
        return reader_gone()

"""Plumbing shared by the sub-command CLIs (``glossary``, ``queue``).

Every sub-command returns an exit code and reports a refused action as one
``error:`` line on stderr; a person running it never sees a traceback.
"""
import argparse
import json
import os
import sys
from typing import Callable, Optional, Sequence, Tuple, Type

Command = Callable[[argparse.Namespace], int]


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


def err(message: str) -> None:
    print(f"error: {printable(message)}", file=sys.stderr)


def guard(func: Command, expected: Tuple[Type[BaseException], ...],
          describe: Optional[Callable[[BaseException, argparse.Namespace], Optional[str]]] = None) -> Command:
    """Wrap a command so errors become a message and exit code 1.

    func (Command): The command.
    expected (Tuple[type, ...]): Errors whose own message is the whole story.
    describe (Callable): Optional wording for other errors; None means "internal error".
    RETURNS (Command): The wrapped command.
    """
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except BrokenPipeError:  # the reader went away ("| head"): not an error to report
            raise
        except expected as exc:
            err(str(exc))
            return 1
        except Exception as exc:  # a reviewer or approver must never see a traceback
            message = describe(exc, args) if describe else None
            err(message or f"internal error ({type(exc).__name__}): {exc}")
            return 1

    run.__doc__ = func.__doc__
    return run


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
    parser = argparse.ArgumentParser(prog="semgap_spacy")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
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

"""Plumbing shared by the sub-command CLIs (``glossary``, ``queue``).

Every sub-command returns an exit code and reports a refused action as one
``error:`` line on stderr; a person running it never sees a traceback.
"""
import argparse
import sys
from typing import Callable, Optional, Sequence, Tuple, Type

Command = Callable[[argparse.Namespace], int]


def err(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


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
        except expected as exc:
            err(str(exc))
            return 1
        except Exception as exc:  # a reviewer or approver must never see a traceback
            message = describe(exc, args) if describe else None
            err(message or f"internal error ({type(exc).__name__}): {exc}")
            return 1

    run.__doc__ = func.__doc__
    return run


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
    return args.func(args)

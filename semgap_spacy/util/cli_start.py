"""Ctrl-C while ``python -m semgap_spacy`` imports spaCy ends the run quietly, with 130.

Python imports the package before its ``__main__``, and the package imports
spaCy, which takes most of a second: a Ctrl-C then printed a traceback from
deep inside spaCy's import, since the CLI's own handling (``ops.cli.main``,
which puts Ctrl-C back to ``KeyboardInterrupt`` and catches it) did not exist
yet. ``sys.argv[0]`` is "-m" only while Python locates the module that ``-m``
names, so importing the package in any other way changes no signal handler;
every module of the package run with ``-m`` puts the handler back first thing
in its ``main`` (``signals.restore_interrupt``).
"""
import sys

from .signals import exit_on_interrupt

if sys.argv[:1] == ["-m"]:
    exit_on_interrupt()

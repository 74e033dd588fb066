"""What ``python -m semgap_spacy`` (and the ``semgap`` script) does before the package
imports spaCy, which takes most of a second or two.

Ctrl-C then ends the run quietly, with 130, once the imports are done: it printed
a traceback from deep inside spaCy's import, since the CLI's own handling
(``ops.cli.main``, which puts Ctrl-C back to ``KeyboardInterrupt`` and catches
it) did not exist yet.
``sys.argv[0]`` is "-m" only while Python locates the module that ``-m``
names, so importing the package in any other way changes no signal handler;
every module of the package run with ``-m`` puts the handler back first thing
in its ``main`` (``signals.restore_interrupt``).

``assess --engine dask`` starts the fork server of its cluster here
(``fork_server.early_start``), so that the server's imports run beside this
process's rather than after them.
"""
import os
import sys

from .signals import hold_interrupt

if sys.argv[:1] == ["-m"]:
    hold_interrupt()
if sys.argv[:1] == ["-m"] or os.path.basename(sys.argv[0] if sys.argv else "") == "semgap":
    from .fork_server import early_start  # only here: a plain ``import semgap_spacy`` needs none of it

    early_start(sys.argv[1:])

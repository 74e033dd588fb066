"""Which compiled twins run: an extension module when it was built and is not switched off.

Every compiled module of the package (``pipes/_doc_rows.pyx``,
``core/_scope_loops.pyx``, ``core/_scope_reach.pyx``,
``pipes/_context_pass.pyx``, ``pipes/_pipe_run.pyx``) is the twin of Python
code that stays in the package and runs where the module is missing: an install without a C
compiler, or a source tree never built. ``SEMGAP_SPACY_COMPILED=0`` turns
every twin off for a process, to compare the two or to rule one out.
"""
import importlib
import os
from types import ModuleType
from typing import Optional, Tuple

#: set to "0" to run the Python twins even where the compiled ones are built
COMPILED_ENV = "SEMGAP_SPACY_COMPILED"


def compiled_module(name: str) -> Tuple[Optional[ModuleType], str]:
    """(the module, "on") when it imports and is not switched off, else (None, why not).

    name (str): The module's dotted name.
    """
    if os.environ.get(COMPILED_ENV, "1") == "0":
        return None, f"off ({COMPILED_ENV}=0)"
    try:
        return importlib.import_module(name), "on"
    except ImportError:
        return None, "off (the extension was not built: no C compiler at install, or a source tree never built)"

"""Build of the compiled twins; the metadata is in setup.cfg.

``semgap_spacy/pipes/_doc_rows.pyx`` reads token rows from spaCy's C structs
and ``semgap_spacy/core/_scope_loops.pyx`` runs the scope model's per-token
loops. Both are optional: where they cannot be compiled (no C compiler, no
Cython), the package installs without them and their Python twins run
(``util.compiled``). The row reader reads spaCy's structs, so it records the
spaCy version it was compiled against, and is used only with that version.
"""
from setuptools import Extension, setup


def extensions():
    try:
        import numpy
        import spacy
        from Cython.Build import cythonize
    except ImportError as err:  # a build without Cython or spaCy: the Python readers run
        print(f"semgap_spacy: not compiling the compiled twins ({err}); the Python ones will run")
        return []
    version = spacy.about.__version__
    ext = Extension("semgap_spacy.pipes._doc_rows", ["semgap_spacy/pipes/_doc_rows.pyx"], language="c++",
                    include_dirs=[numpy.get_include()], optional=True,
                    define_macros=[("SEMGAP_SPACY_VERSION", f'"{version}"')])
    loops = Extension("semgap_spacy.core._scope_loops", ["semgap_spacy/core/_scope_loops.pyx"], optional=True)
    reach = Extension("semgap_spacy.core._scope_reach", ["semgap_spacy/core/_scope_reach.pyx"], language="c++",
                      optional=True)
    try:
        return cythonize([ext, loops, reach], quiet=True)
    except Exception as err:  # e.g. another spaCy's structs: the Python readers run
        print(f"semgap_spacy: not compiling the compiled twins ({err}); the Python ones will run")
        return []


setup(ext_modules=extensions())

"""Build of the one compiled module (``semgap_spacy/pipes/_doc_rows.pyx``); the metadata is in setup.cfg.

The extension is optional: where it cannot be compiled (no C++ compiler, no
Cython), the package installs without it and reads with spaCy's Python API
(``semgap_spacy.pipes.doc_rows``). It reads spaCy's C structs, so it records
the spaCy version it was compiled against, and is used only with that version.
"""
from setuptools import Extension, setup


def extensions():
    try:
        import numpy
        import spacy
        from Cython.Build import cythonize
    except ImportError as err:  # a build without Cython or spaCy: the Python readers run
        print(f"semgap_spacy: not compiling the row readers ({err}); the Python readers will run")
        return []
    version = spacy.about.__version__
    ext = Extension("semgap_spacy.pipes._doc_rows", ["semgap_spacy/pipes/_doc_rows.pyx"], language="c++",
                    include_dirs=[numpy.get_include()], optional=True,
                    define_macros=[("SEMGAP_SPACY_VERSION", f'"{version}"')])
    try:
        return cythonize([ext], quiet=True)
    except Exception as err:  # e.g. another spaCy's structs: the Python readers run
        print(f"semgap_spacy: not compiling the row readers ({err}); the Python readers will run")
        return []


setup(ext_modules=extensions())

"""Build of the compiled twins; the metadata is in setup.cfg.

``semgap_spacy/pipes/_doc_rows.pyx`` reads token rows from spaCy's C structs,
``semgap_spacy/core/_scope_loops.pyx`` runs the scope model's per-token
loops, ``semgap_spacy/core/_scope_reach.pyx`` the scope model's clause
questions, ``semgap_spacy/pipes/_context_pass.pyx`` the steps of
``semgap_context`` between them, ``semgap_spacy/pipes/_pipe_run.pyx`` the
steps every pipe takes around its own. All are optional: where they cannot be compiled (no C compiler, no
Cython), the package installs without them and their Python twins run
(``util.compiled``). The row reader reads spaCy's structs, so it records the
spaCy version it was compiled against, and is used only with that version.
"""
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build each compiled twin where it can be built, and go on without it where not.

    ``Extension(optional=True)`` is not enough: a compiler that is missing or fails surfaces
    from setuptools as an error that option does not catch, and an extension left unbuilt is
    still copied into the wheel; so the ones that fail are dropped from the list.
    """

    def build_extensions(self):
        self.check_extensions_list(self.extensions)
        built = []
        for ext in self.extensions:
            try:
                self.build_extension(ext)
                built.append(ext)
            except Exception as err:  # no compiler, a failing one: the Python twin runs
                print(f"semgap_spacy: {ext.name} was not compiled ({err}); its Python twin will run")
        self.extensions = built


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
    loops = Extension("semgap_spacy.core._scope_loops", ["semgap_spacy/core/_scope_loops.pyx"], language="c++",
                      optional=True)
    reach = Extension("semgap_spacy.core._scope_reach", ["semgap_spacy/core/_scope_reach.pyx"], language="c++",
                      optional=True)
    context_pass = Extension("semgap_spacy.pipes._context_pass", ["semgap_spacy/pipes/_context_pass.pyx"],
                             optional=True)
    pipe_run = Extension("semgap_spacy.pipes._pipe_run", ["semgap_spacy/pipes/_pipe_run.pyx"], optional=True)
    try:
        return cythonize([ext, loops, reach, context_pass, pipe_run], quiet=True)
    except Exception as err:  # e.g. another spaCy's structs: the Python readers run
        print(f"semgap_spacy: not compiling the compiled twins ({err}); the Python ones will run")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})

"""The one table of ``._`` attributes: registered as written, documented as registered."""
import pytest
from spacy.language import Language
from spacy.tokens import Doc, Span, Token

import semgap_spacy  # noqa: F401  (registers factories and extensions)
from semgap_spacy.api import PIPE_NAMES
from semgap_spacy.pipes.extensions import EXTENSIONS
from scripts import readme_extensions

CLASSES = {"doc": Doc, "span": Span, "token": Token}


def test_readme_extension_table_is_generated_from_the_code_table():
    assert readme_extensions.main(["--check"]) == 0


@pytest.mark.parametrize("ext", EXTENSIONS, ids=lambda e: f"{e.on}._.{e.name}")
def test_every_table_entry_is_registered_as_written(ext):
    assert ext.name.startswith("semgap_")
    default, method, getter, setter = CLASSES[ext.on].get_extension(ext.name)
    if ext.getter is not None:
        assert getter is ext.getter and setter is ext.setter
    else:
        assert getter is None and default == ext.default


def test_table_has_no_duplicate_names_per_object():
    keys = [(e.on, e.name) for e in EXTENSIONS]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("pipe", PIPE_NAMES)
def test_every_assigned_extension_of_a_factory_is_in_the_table(pipe):
    documented = {f"{e.on}._.{e.name}" for e in EXTENSIONS}
    meta = Language.get_factory_meta(pipe)
    assigned = [a for a in list(meta.assigns) + list(meta.requires) if "._." in a]
    assert assigned, pipe
    assert set(assigned) <= documented, sorted(set(assigned) - documented)

"""Registered functions that configs refer to with ``@misc``."""
from typing import Optional

from spacy.util import registry

from .models import GlossarySet, load_glossaries


@registry.misc("semgap.glossary.v1")
def glossary_v1(path: Optional[str] = None) -> GlossarySet:
    """The glossary set in a directory of domain YAML files; the bundled one when path is null.

    Use it in ``[initialize.components.<name>.glossary]``: it runs only at
    initialize, and the glossary then travels inside the saved pipeline.
    path (Optional[str]): Directory of ``*.yaml`` domain glossaries.
    RETURNS (GlossarySet): The validated glossaries.
    """
    return load_glossaries(path)

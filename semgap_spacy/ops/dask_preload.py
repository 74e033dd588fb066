"""Imported by the fork server of the ``LocalCluster`` that ``assess --engine dask``
starts (``dask_engine._client`` names it in the preload list), before any worker
is forked from it.

What is built here, each worker has at start, built once rather than once per
worker on the same cores: Dask, spaCy and this package imported, and the
pipeline of the run that started the cluster, with the Pint registry
(``dask_engine.preload_from_environment``).
"""
from . import dask_engine

dask_engine.preload_from_environment()

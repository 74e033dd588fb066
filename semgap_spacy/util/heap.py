"""Keep the objects of a loaded pipeline out of the garbage collector's walks.

Python's cyclic collector walks every tracked object at each full collection.
After spaCy and the glossaries are loaded that is about 130,000 objects that
live as long as the process, and each walk (80-100 ms) is billed to whichever
document triggered it. ``gc.freeze`` moves what exists now to a permanent
generation the collector skips. It is a setting of the whole process, so the
library functions never call it: only the entry points that own their process
do (the ``assess`` command, the workers it starts, and the workers of the
``LocalCluster`` that ``assess --engine dask`` starts when given no scheduler).
"""
import gc


def freeze_loaded() -> None:
    """Freeze what exists now (call right after loading the pipeline).

    No collection first: loading leaves a few hundred unreachable objects,
    which a full collection would find by walking all 130,000 (the walk
    that freezing exists to avoid, 70-90 ms of every start-up); frozen, they
    stay as a few kilobytes. A worker forked after this inherits the frozen
    heap, and its own call freezes only what it made since.
    """
    gc.freeze()

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
import ctypes
import gc
import sys


def freeze_loaded() -> None:
    """Freeze what exists now (call right after loading the pipeline).

    No collection first: loading leaves a few hundred unreachable objects,
    which a full collection would find by walking all 130,000 (the walk
    that freezing exists to avoid, 70-90 ms of every start-up); frozen, they
    stay as a few kilobytes. A worker forked after this inherits the frozen
    heap, and its own call freezes only what it made since.
    """
    gc.freeze()


#: glibc's ``mallopt`` parameter number of ``M_MMAP_THRESHOLD`` (malloc.h)
_M_MMAP_THRESHOLD = -3
#: blocks of at least this many bytes get a mapping of their own, returned to the system when freed
#: (glibc's own starting value; fixing it stops glibc from raising it)
MMAP_THRESHOLD = 128 * 1024


def _glibc():
    """The process's C library when it is glibc, else None (no ``mallopt`` to call)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    # only glibc has gnu_get_libc_version; musl and the others keep their own rules
    return libc if hasattr(libc, "gnu_get_libc_version") and hasattr(libc, "mallopt") else None


def return_large_blocks() -> bool:
    """Have glibc give every freed large block back to the system at once.

    spaCy's string and lexeme tables grow by doubling, and the string table is
    rebuilt at its live size after each memory zone (``util.recycle``), which
    frees the large one. glibc maps a block over its mmap threshold on its own
    and unmaps it when freed, but it raises that threshold to the size of each
    such block freed, so the next tables come from the heap, whose freed middle
    stays resident. A fixed threshold keeps them mapped. A setting of the whole
    process, so only the entry points that own theirs call it, like
    :func:`freeze_loaded`; it does nothing off Linux or on another C library.

    RETURNS (bool): Whether the threshold was set.
    """
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1)


def settle_owned_process() -> None:
    """What an entry point that owns its process does once its pipeline is loaded: freeze
    the loaded heap (``freeze_loaded``) and have freed large blocks returned to the system
    (``return_large_blocks``)."""
    freeze_loaded()
    return_large_blocks()

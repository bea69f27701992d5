"""Memory upkeep: freed heap back to the operating system after a large commit, and the
cyclic collector paused while a stored generation is decoded.

A large index run builds and drops millions of short-lived objects (per-document counters,
staging arrays). CPython and glibc keep the freed pages for reuse, so a session's resident
memory would stay at the run's peak for the life of the daemon: measured on the standard
library (55,050 chunks), 341 MB resident after a cold index against 246 MB after
``malloc_trim(0)``. Saving a generation does the same with buffers as large as the index
(the daemon on the standard library: 338 MB resident after its first save, 268 MB when they
are returned). On glibc systems :func:`release_free_memory` calls it after a large commit and
after a large generation is saved; elsewhere it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to call
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


# After this many new chunks (a commit, or vectors embedded) the freed heap goes back to the
# system.
LARGE_COMMIT_CHUNKS = 2_000


def release_free_memory() -> bool:
    """Return the heap's free pages to the system; whether it could be asked to."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@contextmanager
def collection_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a stored generation is decoded: it creates
    hundreds of thousands of long-lived objects (documents, metadata, ids), each allocation
    burst triggering collections that find nothing to free (measured on the standard library:
    0.48 s against 0.61 s for a warm start's load). Reference counting still frees as usual."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

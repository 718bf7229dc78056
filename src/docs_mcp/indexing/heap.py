"""Give the memory a build has freed back to the system between its steps.

glibc's allocator keeps what a process frees in its arenas for reuse, and LanceDB's writer and index
builders (native threads, each with an arena) free a few hundred MB between steps that the next step
does not reuse: a build's resident memory would then be the sum of its steps' peaks, not the largest
(issue 34; measured in docs/scaling.md). ``malloc_trim`` returns the free pages; elsewhere than glibc
this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache
from typing import Any

__all__ = ["release_free_memory"]


@cache
def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None  # musl has none
    except OSError:
        return None


def release_free_memory() -> None:
    """Return the heap's free pages to the system (glibc); a no-op elsewhere. Raises nothing."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)

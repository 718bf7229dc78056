"""glibc's allocator, shared by the build and the server (``server.startup.allocator``).

glibc keeps what a process frees in its arenas for reuse. LanceDB's writer and index builders (native
threads, each with an arena) free a few hundred MB between steps that the next step does not reuse, so
a build's resident memory would be the sum of its steps' peaks, not the largest; a server's threads
leave freed pages at the top of its heaps (issue 34; measured in docs/scaling.md).
``release_free_memory`` returns the free pages; where the C library is not glibc's (musl, macOS)
nothing here does anything."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache
from typing import Any

__all__ = ["glibc", "release_free_memory"]


@cache
def glibc() -> Any:
    """The loaded C library when it is glibc's (it has ``malloc_trim`` and ``mallopt``), else None.
    Never raises."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None  # musl has neither


def release_free_memory() -> bool:
    """Return the heaps' free pages to the system; whether it could (False: not glibc). Never raises."""
    libc = glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True

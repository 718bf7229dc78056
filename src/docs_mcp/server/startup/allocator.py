"""A serving process's C allocator: glibc's malloc capped at two arenas (issue 34).

LanceDB runs a server's queries on 60-70 threads, and glibc gives threads that allocate at the same
time arenas of their own (up to eight per core), each keeping what its threads freed. At a million
chunks that kept memory was 40-80 MB of a server's resident set after the scale benchmark's 300
calls; with two arenas the HTTP server ended at 382 MiB instead of 473 (docs/scaling.md). glibc
fixes its arena limit when a thread first needs an arena of its own, so the cap is set before the
server stack starts any thread. Nothing changes where the C library is not glibc (musl, macOS) or
where ``MALLOC_ARENA_MAX`` is set: the operator's value wins.

Imports nothing heavy, so ``serve`` calls it first.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

__all__ = ["ARENAS", "cap_arenas"]

ARENAS = 2
_M_ARENA_MAX = -8  # glibc's malloc.h


def cap_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` for this process; whether it did (False: not glibc,
    or ``MALLOC_ARENA_MAX`` set). Never raises."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # no C library by that name, or not glibc's
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(_M_ARENA_MAX, arenas))

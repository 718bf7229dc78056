"""A serving process's C allocator: glibc's malloc capped at two arenas (issue 34).

LanceDB runs a server's queries on 60-70 threads, and glibc gives threads that allocate at the same
time arenas of their own (up to eight per core), each keeping what its threads freed. At a million
chunks that kept memory was 40-80 MB of a server's resident set after the scale benchmark's 300
calls; with two arenas the HTTP server ended at 382 MiB instead of 473 (docs/scaling.md). glibc
fixes its arena limit when a thread first needs an arena of its own, so the cap is set before the
server stack starts any thread. Nothing changes where the C library is not glibc (musl, macOS) or
where ``MALLOC_ARENA_MAX`` is set: the operator's value wins.

Within two arenas glibc still keeps the pages its threads freed at the top of each heap (20-26 MiB
more at a million chunks, measured in process): ``trim_periodically`` gives them back every few
seconds from a thread of its own, ``malloc_trim`` costing a walk of the arenas' free lists, not a
call's time.

Imports nothing heavy, so ``serve`` calls it first.
"""

from __future__ import annotations

import ctypes
import os
import threading

from docs_mcp.libc import glibc, release_free_memory

__all__ = ["ARENAS", "TRIM_INTERVAL_S", "cap_arenas", "trim_periodically"]

ARENAS = 2
TRIM_INTERVAL_S = 2.0
_M_ARENA_MAX = -8  # glibc's malloc.h


def cap_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` for this process; whether it did (False: not glibc,
    or ``MALLOC_ARENA_MAX`` set). Never raises."""
    libc = glibc()
    if "MALLOC_ARENA_MAX" in os.environ or libc is None:
        return False
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(libc.mallopt(_M_ARENA_MAX, arenas))


def trim_periodically(interval_s: float = TRIM_INTERVAL_S) -> threading.Event | None:
    """Start a daemon thread that calls ``libc.release_free_memory`` every ``interval_s`` seconds
    until the returned event is set; None (no thread) where the C library is not glibc's. Never
    raises."""
    if glibc() is None:
        return None
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(interval_s):
            release_free_memory()

    threading.Thread(target=run, name="docs-mcp-trim", daemon=True).start()
    return stop

"""A serving process caps glibc's malloc arenas (``server.startup.allocator``): threads that allocate
then share two arenas instead of one each."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")

# Eight threads allocate a block each (threads get their own arena on their first allocation, up to
# glibc's limit); malloc_stats() then prints one "Arena N:" block per arena on stderr.
PROGRAM = """
import ctypes, sys, threading
from docs_mcp.server.startup.allocator import cap_arenas
capped = cap_arenas() if sys.argv[1] == "cap" else None
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
barrier = threading.Barrier(8)
def allocate():
    barrier.wait()
    libc.malloc(100_000)
threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(capped)
libc.malloc_stats()
"""


def _arenas(mode: str, **env: str) -> tuple[str, int]:
    environ = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"} | env
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, env=environ, check=True
    )
    return done.stdout.strip(), sum(line.startswith("Arena ") for line in done.stderr.splitlines())


def test_a_capped_process_shares_two_arenas_among_its_threads() -> None:
    assert _arenas("cap") == ("True", 2)
    capped, uncapped = _arenas("plain")
    assert capped == "None" and uncapped > 2


def test_the_operators_malloc_arena_max_wins() -> None:
    assert _arenas("cap", MALLOC_ARENA_MAX="4") == ("False", 4)


# 200 MB in blocks of 1 KB, all freed but the last (which keeps the heap's top in use, so free() alone
# gives nothing back); the resident set is read before and after release_free_memory().
TRIM_PROGRAM = """
import ctypes
from docs_mcp.libc import release_free_memory
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def resident():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 // 2**20
blocks = [libc.malloc(1024) for _ in range(200_000)]
for block in blocks:
    ctypes.memset(block, 1, 1024)
for block in blocks[:-1]:
    libc.free(block)
before = resident()
print(release_free_memory(), before, resident())
"""


def test_releasing_free_memory_gives_the_freed_pages_back() -> None:
    done = subprocess.run([sys.executable, "-c", TRIM_PROGRAM], capture_output=True, text=True, check=True)
    trimmed, before, after = done.stdout.split()
    assert trimmed == "True"
    assert int(before) - int(after) > 150  # MiB of the 200 freed


def test_a_server_trims_from_a_thread_of_its_own() -> None:
    from docs_mcp.server.startup.allocator import trim_periodically

    stop = trim_periodically(0.01)
    assert stop is not None
    try:
        assert any(thread.name == "docs-mcp-trim" and thread.is_alive() for thread in threading.enumerate())
    finally:
        stop.set()

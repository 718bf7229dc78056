"""A serving process caps glibc's malloc arenas (``server.startup.allocator``): threads that allocate
then share two arenas instead of one each."""

from __future__ import annotations

import os
import subprocess
import sys

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

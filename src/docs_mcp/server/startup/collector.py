"""Start-up without the cyclic garbage collector: the server's imports build ~100k long-lived objects.

Importing the serving stack (mcp's pydantic models, lancedb, pyarrow) allocates so many container
objects that the collector runs full collections over them again and again while nothing is garbage
yet; pausing it takes a sixth or so off the imports (``benchmarks/test_server.py``, cold start).
Freezing what start-up allocated (``gc.freeze``) then keeps later collections from re-scanning those
objects, which live as long as the process anyway, and spares the interpreter that scan at exit.

Imports nothing heavy itself, so the CLI can enter it before importing the server.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block, then freeze every object tracked so far and resume
    it (if it was running). Never raises on its own; an exception from the block propagates after
    the collector is restored."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()

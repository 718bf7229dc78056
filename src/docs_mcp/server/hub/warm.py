"""Opening an index folder warmed: what every server opens its indexes with. Imports nothing heavy
until called, so the server's import does not wait for it."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from docs_mcp.server.startup.collector import collector_paused

if TYPE_CHECKING:
    from docs_mcp.search.index import DocsIndex

__all__ = ["open_warm"]


def open_warm(index_path: Path) -> DocsIndex:
    """Open the index at ``index_path`` and run one query, so the first agent request does not pay for
    loading it. Raises ``IndexUnavailable`` or ``IndexCompatibilityError``."""
    # The first open imports LanceDB, pyarrow and numpy: without the collector, as the server's own
    # imports (docs_mcp.server.startup.collector; measured on the stdio cold start). Reopens collect as usual.
    first = "docs_mcp.search.index" not in sys.modules
    with collector_paused() if first else contextlib.nullcontext():
        from docs_mcp.search.index import DocsIndex  # LanceDB, pyarrow, numpy

        index = DocsIndex.open(index_path)
        index.warm()
    return index

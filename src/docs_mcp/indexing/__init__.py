"""Build: chunks -> embeddings -> a LanceDB index folder, swapped in atomically.

Public API: ``build`` and its options, progress events and result (needs the ``build`` extra),
loaded on first use. The other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import docs_mcp.store  # noqa: F401  (first: it defers lancedb's REST client until lancedb loads)
from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.indexing.pipeline import BuildOptions as BuildOptions
    from docs_mcp.indexing.pipeline import BuildProgress as BuildProgress
    from docs_mcp.indexing.pipeline import BuildResult as BuildResult
    from docs_mcp.indexing.pipeline import build as build

__all__, __getattr__, __dir__ = lazy_exports(__name__)

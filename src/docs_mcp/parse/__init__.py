"""Parse: markdown blocks, front matter (safe YAML), chunking hints and the strategy they declare.

Needs the ``build`` extra (markdown-it-py, pyyaml). Public API: the names in ``__all__``, loaded on
first use; the other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.parse.markdown import Document as Document
    from docs_mcp.parse.markdown import parse as parse
    from docs_mcp.parse.strategy import DEFAULT_MAX_CHUNK_SIZE as DEFAULT_MAX_CHUNK_SIZE
    from docs_mcp.parse.strategy import ChunkBy as ChunkBy
    from docs_mcp.parse.strategy import Strategy as Strategy

__all__, __getattr__, __dir__ = lazy_exports(__name__)

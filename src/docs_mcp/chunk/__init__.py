"""Chunk: a parsed file cut into sections, split to fit ``max_chunk_size``, with stable ids.

Public API: the names in ``__all__``, loaded on first use; the other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.chunk.chunking import ChunkedFile as ChunkedFile
    from docs_mcp.chunk.chunking import chunk_file as chunk_file
    from docs_mcp.chunk.chunks import Chunk as Chunk
    from docs_mcp.chunk.chunks import FileSettings as FileSettings

__all__, __getattr__, __dir__ = lazy_exports(__name__)

"""Authoring: markdown parsing, hints, manifests, the corpus walk, chunking and ``validate``.

Needs the ``build`` extra (markdown-it-py, pyyaml); imports nothing of the index (store, search).
Public API: the names in ``__all__``, loaded on first use. The other modules are implementation
details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.authoring.corpus import Corpus, load_corpus
    from docs_mcp.authoring.model import Chunk
    from docs_mcp.authoring.validate import ValidationReport, validate

__all__ = [
    "Chunk",
    "Corpus",
    "ValidationReport",
    "load_corpus",
    "validate",
]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "docs_mcp.authoring.validate": ["ValidationReport", "validate"],
        "docs_mcp.authoring.corpus": ["Corpus", "load_corpus"],
        "docs_mcp.authoring.model": ["Chunk"],
    },
)

"""Authoring: markdown parsing, hints, manifests, the corpus walk, chunking, ``validate`` and ``fix``.

Needs the ``build`` extra (markdown-it-py, pyyaml); imports nothing of the index (store, search).
Public API: the names in ``__all__``, loaded on first use. The other modules are implementation
details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.authoring.corpus import Corpus, load_corpus
    from docs_mcp.authoring.fixer.proposal import FileChange, FixProposal
    from docs_mcp.authoring.fixer.run import fix
    from docs_mcp.authoring.model import Chunk
    from docs_mcp.authoring.validation import ValidationReport, validate

__all__ = [
    "Chunk",
    "Corpus",
    "FileChange",
    "FixProposal",
    "ValidationReport",
    "fix",
    "load_corpus",
    "validate",
]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "docs_mcp.authoring.validation": ["ValidationReport", "validate"],
        "docs_mcp.authoring.corpus": ["Corpus", "load_corpus"],
        "docs_mcp.authoring.model": ["Chunk"],
        "docs_mcp.authoring.fixer.run": ["fix"],
        "docs_mcp.authoring.fixer.proposal": ["FileChange", "FixProposal"],
    },
)

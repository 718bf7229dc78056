"""Corpus: a docs folder walked with its docs manifests (``.docs-mcp.json``), chunked and validated.

Public API: the names in ``__all__``, loaded on first use; the other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.corpus.docs_manifest import DocsManifest as DocsManifest
    from docs_mcp.corpus.loader import Corpus as Corpus
    from docs_mcp.corpus.loader import load_corpus as load_corpus
    from docs_mcp.corpus.validation import ValidationReport as ValidationReport
    from docs_mcp.corpus.validation import validate as validate

__all__, __getattr__, __dir__ = lazy_exports(__name__)

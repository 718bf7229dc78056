"""Embedding providers behind one small contract, created by name from a registry, and their cache.

Public API: the names in ``__all__`` (the provider contract and registry). Providers are created by
name (``create_provider("local")``); their modules and the cache are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.embedding.provider import NO_EMBEDDINGS as NO_EMBEDDINGS
    from docs_mcp.embedding.provider import CostEstimate as CostEstimate
    from docs_mcp.embedding.provider import EmbeddingProvider as EmbeddingProvider
    from docs_mcp.embedding.provider import EmbeddingSettings as EmbeddingSettings
    from docs_mcp.embedding.provider import ProviderFactory as ProviderFactory
    from docs_mcp.embedding.provider import create_provider as create_provider
    from docs_mcp.embedding.provider import provider_names as provider_names
    from docs_mcp.embedding.provider import register_provider as register_provider

__all__, __getattr__, __dir__ = lazy_exports(__name__)

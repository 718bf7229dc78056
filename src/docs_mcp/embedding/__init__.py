"""Embedding providers behind one small contract, created by name from a registry, and their cache.

Public API: the names in ``__all__`` (the provider contract and registry). Providers are created by
name (``create_provider("local")``); their modules and the cache are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.embedding.provider import (
        NO_EMBEDDINGS,
        CostEstimate,
        EmbeddingProvider,
        EmbeddingSettings,
        ProviderFactory,
        create_provider,
        provider_names,
        register_provider,
    )

__all__ = [
    "NO_EMBEDDINGS",
    "CostEstimate",
    "EmbeddingProvider",
    "EmbeddingSettings",
    "ProviderFactory",
    "create_provider",
    "provider_names",
    "register_provider",
]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "docs_mcp.embedding.provider": [
            "NO_EMBEDDINGS",
            "CostEstimate",
            "EmbeddingProvider",
            "EmbeddingSettings",
            "ProviderFactory",
            "create_provider",
            "provider_names",
            "register_provider",
        ],
    },
)

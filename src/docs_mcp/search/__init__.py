"""Search: the read side of an index (hybrid search, filters, fusion, snippets, get with context).

Public API: the names in ``__all__``, each loaded on first use (``DocsIndex`` brings LanceDB;
``SearchRequest`` and the result types do not). The other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import docs_mcp.store  # noqa: F401  (first: it defers lancedb's REST client until lancedb loads)
from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.search.config import SearchConfig
    from docs_mcp.search.facets import SPEC_FACETS, FacetConventions
    from docs_mcp.search.fusion import FusionConfig
    from docs_mcp.search.index import DocsIndex
    from docs_mcp.search.types import (
        CONTEXT_MAX,
        LIMIT_DEFAULT,
        LIMIT_MAX,
        OFFSET_MAX,
        QUERY_MAX_LENGTH,
        SEARCH_MODES,
        SearchMode,
        SearchPage,
        SearchRequest,
        Section,
        SectionWindow,
        Variant,
    )

__all__ = [
    "CONTEXT_MAX",
    "LIMIT_DEFAULT",
    "LIMIT_MAX",
    "OFFSET_MAX",
    "QUERY_MAX_LENGTH",
    "SEARCH_MODES",
    "SPEC_FACETS",
    "DocsIndex",
    "FacetConventions",
    "FusionConfig",
    "SearchConfig",
    "SearchMode",
    "SearchPage",
    "SearchRequest",
    "Section",
    "SectionWindow",
    "Variant",
]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "docs_mcp.search.index": ["DocsIndex"],
        "docs_mcp.search.config": ["SearchConfig"],
        "docs_mcp.search.facets": ["SPEC_FACETS", "FacetConventions"],
        "docs_mcp.search.fusion": ["FusionConfig"],
        "docs_mcp.search.types": [
            "CONTEXT_MAX",
            "LIMIT_DEFAULT",
            "LIMIT_MAX",
            "OFFSET_MAX",
            "QUERY_MAX_LENGTH",
            "SEARCH_MODES",
            "SearchMode",
            "SearchPage",
            "SearchRequest",
            "Section",
            "SectionWindow",
            "Variant",
        ],
    },
)

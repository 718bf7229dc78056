"""Search: the read side of an index (hybrid search, filters, fusion, snippets, get with context).

Public API: the names in ``__all__``, each loaded on first use (``DocsIndex`` brings LanceDB;
``SearchRequest`` and the result types do not). The other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import docs_mcp.store  # noqa: F401  (first: it defers lancedb's REST client until lancedb loads)
from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.search.config import SearchConfig as SearchConfig
    from docs_mcp.search.facets import SPEC_FACETS as SPEC_FACETS
    from docs_mcp.search.facets import FacetConventions as FacetConventions
    from docs_mcp.search.fusion import FusionConfig as FusionConfig
    from docs_mcp.search.index import DocsIndex as DocsIndex
    from docs_mcp.search.types import CONTEXT_MAX as CONTEXT_MAX
    from docs_mcp.search.types import LIMIT_DEFAULT as LIMIT_DEFAULT
    from docs_mcp.search.types import LIMIT_MAX as LIMIT_MAX
    from docs_mcp.search.types import OFFSET_MAX as OFFSET_MAX
    from docs_mcp.search.types import QUERY_MAX_LENGTH as QUERY_MAX_LENGTH
    from docs_mcp.search.types import SEARCH_MODES as SEARCH_MODES
    from docs_mcp.search.types import SearchMode as SearchMode
    from docs_mcp.search.types import SearchPage as SearchPage
    from docs_mcp.search.types import SearchRequest as SearchRequest
    from docs_mcp.search.types import Section as Section
    from docs_mcp.search.types import SectionWindow as SectionWindow
    from docs_mcp.search.types import Variant as Variant

__all__, __getattr__, __dir__ = lazy_exports(__name__)

"""Store: the on-disk index format shared by the writer (build) and the reader (search).

Table schema and column names, the index manifest and its format version, identifier splitting.
Public API: the names in ``__all__``, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.store.columns import LANCEDB_DIR as LANCEDB_DIR
    from docs_mcp.store.columns import TABLE_NAME as TABLE_NAME
    from docs_mcp.store.columns import facet_column as facet_column
    from docs_mcp.store.columns import table_schema as table_schema
    from docs_mcp.store.index_manifest import FORMAT_VERSION as FORMAT_VERSION
    from docs_mcp.store.index_manifest import MANIFEST_FILE as MANIFEST_FILE
    from docs_mcp.store.index_manifest import EmbeddingInfo as EmbeddingInfo
    from docs_mcp.store.index_manifest import FacetTaxonomy as FacetTaxonomy
    from docs_mcp.store.index_manifest import IndexManifest as IndexManifest
    from docs_mcp.store.index_manifest import read_manifest as read_manifest
    from docs_mcp.store.index_manifest import write_manifest as write_manifest

__all__, __getattr__, __dir__ = lazy_exports(__name__)

"""Store: the on-disk index format shared by the writer (build) and the reader (search).

Table schema and column names, the index manifest and its format version, identifier splitting.
Public API: the names in ``__all__``, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports
from docs_mcp.store.lancedb_import import install_import_hook

if TYPE_CHECKING:
    from docs_mcp.store.manifest import (
        FORMAT_VERSION,
        MANIFEST_FILE,
        EmbeddingInfo,
        FacetTaxonomy,
        IndexManifest,
        read_manifest,
        write_manifest,
    )
    from docs_mcp.store.schema import LANCEDB_DIR, TABLE_NAME, facet_column, table_schema

# Before anything imports lancedb: defer its unused REST client (see lancedb_import).
install_import_hook()

__all__ = [
    "FORMAT_VERSION",
    "LANCEDB_DIR",
    "MANIFEST_FILE",
    "TABLE_NAME",
    "EmbeddingInfo",
    "FacetTaxonomy",
    "IndexManifest",
    "facet_column",
    "read_manifest",
    "table_schema",
    "write_manifest",
]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "docs_mcp.store.manifest": [
            "FORMAT_VERSION",
            "MANIFEST_FILE",
            "EmbeddingInfo",
            "FacetTaxonomy",
            "IndexManifest",
            "read_manifest",
            "write_manifest",
        ],
        "docs_mcp.store.schema": ["LANCEDB_DIR", "TABLE_NAME", "facet_column", "table_schema"],
    },
)

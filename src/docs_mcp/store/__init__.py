"""Store: the on-disk index format shared by the writer (build) and the reader (search).

Table schema and column names, the index manifest and its format version, identifier splitting.
"""

from docs_mcp.store.lancedb_import import install_lazy_rest_client

# Before anything imports lancedb: defer its unused REST client (see lancedb_import).
install_lazy_rest_client()

"""Primitives: parsing, chunking, manifests, the index, search and embeddings.

Imports nothing from the other layers (cli, server, eval, artifact). Modules that need build-time
dependencies (markdown-it-py, pyyaml) are only imported by build and validate code paths, never by
the search/index read path the server uses.
"""

from docs_mcp.core.lancedb_loader import install_lazy_rest_client

# Before any core module imports lancedb: defer its unused REST client (halves serve's cold start).
install_lazy_rest_client()

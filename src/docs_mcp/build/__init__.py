"""Build: chunks -> embeddings -> a LanceDB index folder, swapped in atomically."""

import docs_mcp.store  # noqa: F401  (first: it defers lancedb's REST client before lancedb loads)

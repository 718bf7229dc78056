"""Search: the read side of an index (hybrid search, filters, fusion, snippets, get with context)."""

import docs_mcp.store  # noqa: F401  (first: it defers lancedb's REST client before lancedb loads)

"""The query embedder of an index: re-created from what the index manifest recorded, bounded in time.

A vector search needs the query embedded by the very model the index was built with. When that model
cannot be had (its extra is missing, a key is absent) or a query embedding fails or is too slow, the
search falls back to full text and says why; it never fails for it.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from docs_mcp.embedding.provider import EmbeddingProvider, EmbeddingSettings, create_provider
from docs_mcp.errors import DocsMcpError, IndexCompatibilityError
from docs_mcp.store.index_manifest import EmbeddingInfo

log = logging.getLogger(__name__)


class QueryEmbedder:
    """Embeds queries with ``provider`` in a small thread pool, each within ``timeout`` seconds."""

    def __init__(self, provider: EmbeddingProvider, timeout: float) -> None:
        self.provider = provider
        self._timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="docs-mcp-embed")

    def warm(self) -> None:
        """Load the model with no deadline (a local model's first load can pass the per-query one on
        a busy machine, and every query until it is loaded would fall back). Never raises."""
        try:
            self.provider.embed_query("warm up")
        except Exception as error:  # the queries will fall back and say why
            log.warning("the query embedder could not be warmed: %s: %s", type(error).__name__, error)

    def embed(self, query: str) -> tuple[list[float] | None, str | None]:
        """The query's vector, or None and why (logged). Never raises."""
        future = self._pool.submit(self.provider.embed_query, query)
        try:
            return list(future.result(timeout=self._timeout)), None
        except FutureTimeout:
            problem = f"query embedding took longer than {self._timeout:g} s"
        except DocsMcpError as error:
            problem = f"query embedding failed: {error}"
        except Exception as error:  # a provider bug must not take search down with it
            problem = f"query embedding failed: {type(error).__name__}: {error}"
        log.warning("searching full text only: %s", problem)
        return None, problem


def resolve_query_provider(
    recorded: EmbeddingInfo | None, given: EmbeddingProvider | None
) -> tuple[EmbeddingProvider | None, str | None]:
    """The provider for queries and, when there is none, why.

    Raises ``IndexCompatibilityError`` when ``given`` differs from what the index was built with.
    """
    if recorded is None:
        return None, None
    if given is not None:
        if (given.model, int(given.dimensions)) != (recorded.model, recorded.dimensions):
            raise IndexCompatibilityError(
                f"the index was built with {recorded.provider} model {recorded.model!r} "
                f"({recorded.dimensions} dimensions) but the query embedder is {given.name} model "
                f"{given.model!r} ({given.dimensions} dimensions); use the same model or rebuild the index"
            )
        return given, None
    try:
        created = create_provider(
            recorded.provider, EmbeddingSettings(model=recorded.model, dimensions=recorded.dimensions)
        )
    except DocsMcpError as error:
        return None, str(error)
    if created is None or int(created.dimensions) != recorded.dimensions:
        return (
            None,
            f"provider {recorded.provider!r} does not produce {recorded.dimensions}-dimension vectors",
        )
    return created, None
